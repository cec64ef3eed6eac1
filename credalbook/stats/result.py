r"""The result object every calibration test returns.

A test compares a statistic :math:`T` with its distribution under :math:`H_0` ("the predictions
are calibrated"), known either from samples (resampling tests: ``null_distribution``) or as a
distribution (asymptotic or exact tests: ``null_model``, a frozen :mod:`scipy.stats`
distribution), and reports a p-value and the decision at level :math:`\alpha`. Subclasses add what
their test learns (:class:`~credalbook.stats.CalibrationTestResult`: the minimising weights of a
set; :class:`~credalbook.stats.InstanceTestResult`: the weight function;
:class:`~credalbook.stats.HosmerLemeshowResult`: the count statistic and the χ² degrees of
freedom). Computing apart from plotting: :meth:`TestResult.plot` hands the result to
:func:`credalbook.plotting.plot_test_result`.

**The direction.** A rejected :math:`H_0` says that the predictions are miscalibrated, not which
way. :meth:`TestResult.with_direction` puts the signed calibration error (mean confidence minus
accuracy, :func:`credalbook.metrics.signed_calibration_error`, with its bootstrap interval) into
``details["direction"]``; :meth:`TestResult.decision_line` then reads "reject H0 at α = 0.05
(p = 0.001): over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])" and
:meth:`TestResult.summary` gains a ``"direction"`` entry with the same words.
"""

from __future__ import annotations

import copy
import dataclasses
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import REMOVED_IN
from credalbook._validation import check_probability

__all__ = ["TestResult"]


def critical_value(null_distribution, alpha: float) -> float:
    """:math:`c_\\alpha` of a resampling test: ``numpy.quantile(null_distribution, 1 - alpha)`` (linear interpolation)."""
    return float(np.quantile(null_distribution, 1 - alpha))


def exceeds(statistic, threshold) -> bool:
    """The decision rule of every test: the statistic lies strictly beyond the critical value."""
    return bool(statistic > threshold)


class _AlphaOfResult:
    def __repr__(self):
        return "<the result's alpha>"


#: Default of :meth:`TestResult.decision`: the level the test was run at.
ALPHA_OF_RESULT = _AlphaOfResult()


@dataclass(frozen=True)
class TestResult:
    r"""Outcome of a calibration test: statistic, p-value, decision and the null distribution.

    **The decision rule (every test).** :math:`H_0` is rejected at level :math:`\alpha` exactly
    when the statistic lies strictly beyond the test's critical value :math:`c_\alpha`, the
    :math:`(1-\alpha)` quantile of the statistic under :math:`H_0` (``threshold``):

    * resampling tests (``null_distribution`` of R values :math:`T^*_1, \dots, T^*_R`):
      :math:`T > c_\alpha` with :math:`c_\alpha` = ``numpy.quantile(null_distribution, 1 - alpha)``
      (linear interpolation), Mortier et al.'s Alg. 1, line 8;
    * tests with a continuous null model or a bound (asymptotic normal, χ², Hoeffding):
      :math:`T > c_\alpha` with :math:`c_\alpha` its :math:`(1-\alpha)` quantile, which is
      :math:`p < \alpha`.

    :meth:`decision` applies the same rule at another level. For a resampling test ``pvalue`` is
    the Monte Carlo p-value :math:`p = (1 + \#\{T^*_r \ge T\}) / (1 + R)`, reported with the
    decision but not defining it: with :math:`T^*_{(1)} \le \dots \le T^*_{(R)}` and
    :math:`h = (R-1)(1-\alpha)`, :math:`c_\alpha` lies between :math:`T^*_{(\lfloor h\rfloor + 1)}`
    and :math:`T^*_{(\lfloor h\rfloor + 2)}`, while :math:`p \le \alpha` needs :math:`T` above
    :math:`T^*_{(R - \lfloor\alpha(R+1)\rfloor + 1)}`. So when
    :math:`c_\alpha < T \le T^*_{(R - \lfloor\alpha(R+1)\rfloor + 1)}` the test rejects with
    :math:`p > \alpha` (R = 100, α = 0.05: :math:`T^*_{(95)} + 0.05\,(T^*_{(96)} - T^*_{(95)}) < T
    \le T^*_{(96)}`, where :math:`p = 6/101`). Without ties and for :math:`\alpha \le 1/2`,
    :math:`p \le \alpha` implies :math:`T > c_\alpha`, so that is the only disagreement: a test
    may reject with a p-value slightly above α, never keep :math:`H_0` with :math:`p \le \alpha`.
    The quantile rule is the one rule because it is Alg. 1's, the rule of the papers' recorded
    decisions; the p-value keeps its usual definition and its recorded values.

    Attributes
    ----------
    statistic : float
        The observed test statistic :math:`T` (on the scale of ``null_distribution`` /
        ``null_model`` and ``threshold``).
    pvalue : float
        :math:`P_{H_0}(T^* \ge T)`, estimated or bounded by the test (SciPy's name; ``p_value``
        is a deprecated alias).
    alpha : float
        Significance level of ``rejected``.
    rejected : bool
        Whether :math:`H_0` is rejected at ``alpha``: ``statistic > threshold`` (the rule above).
    method : str
        Name of the test, e.g. ``"skce_linear"``, ``"consistency"``.
    null_distribution : ndarray (R,) or None
        Samples of the statistic under :math:`H_0` (resampling tests).
    null_model : frozen scipy.stats distribution or None
        The distribution of the statistic under :math:`H_0` (asymptotic or exact tests).
    threshold : float or None
        The critical value :math:`c_\alpha`: reject when the statistic exceeds it (None when the
        test has none on the scale of ``statistic``).
    details : dict
        Everything else a table or report needs (``n``, ``K``, ``n_resamples``, ``estimator``,
        ``kernel``, ...).

    Examples
    --------
    >>> from scipy import stats
    >>> res = TestResult(statistic=2.0, pvalue=float(stats.norm.sf(2.0)), alpha=0.05, rejected=True,
    ...                  method="z", null_model=stats.norm(), threshold=float(stats.norm.isf(0.05)))
    >>> res.decision(0.01), res.summary()["pvalue"] == res.pvalue
    (False, True)
    """

    __test__ = False  # not a pytest test class, whatever its name

    statistic: float
    pvalue: float
    alpha: float
    rejected: bool
    method: str = ""
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_model: object | None = field(default=None, repr=False)
    threshold: float | None = None
    details: dict = field(default_factory=dict, repr=False)

    @property
    def p_value(self) -> float:
        """Deprecated alias of ``pvalue`` (FutureWarning)."""
        warnings.warn(
            f"{type(self).__name__}.p_value was renamed to pvalue in 0.6; p_value will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        return self.pvalue

    def decision(self, alpha: float = ALPHA_OF_RESULT) -> bool:
        """Whether the test rejects :math:`H_0` at level ``alpha`` (default: ``self.alpha``), by the rule of the class docstring."""
        if alpha is ALPHA_OF_RESULT:
            return bool(self.rejected)
        alpha = check_probability(alpha, "alpha")
        return bool(
            exceeds(self.statistic, self.critical_value(alpha))
            if self.null_distribution is not None or self.null_model is not None
            else self.pvalue < alpha
        )

    def critical_value(self, alpha: float) -> float | None:
        """:math:`c_\\alpha` at another level: the null sample's or null model's :math:`(1-\\alpha)` quantile (else None)."""
        if self.null_distribution is not None:
            return critical_value(self.null_distribution, alpha)
        if self.null_model is not None:
            return float(self.null_model.isf(alpha))
        return None

    def summary(self) -> dict:
        """Plain numbers and strings for tables and JSON: the scalar fields and scalar ``details``.

        ``n_null`` is the number of null samples (0 for tests with a ``null_model``). When ``details``
        holds a ``"direction"`` (see :meth:`with_direction`), ``"direction"`` is its description
        (:func:`credalbook.metrics.describe_direction`), e.g. "over-confident (confidence exceeds
        accuracy by 0.031 [0.027, 0.035])".
        """
        out = {
            "method": str(self.method),
            "statistic": float(self.statistic),
            "pvalue": float(self.pvalue),
            "alpha": float(self.alpha),
            "rejected": bool(self.rejected),
            "threshold": None if self.threshold is None else float(self.threshold),
            "n_null": 0 if self.null_distribution is None else int(np.size(self.null_distribution)),
        }
        for key, value in self.details.items():
            if isinstance(value, (bool, np.bool_)):
                out.setdefault(key, bool(value))
            elif isinstance(value, numbers.Integral):
                out.setdefault(key, int(value))
            elif isinstance(value, numbers.Real):
                out.setdefault(key, float(value))
            elif isinstance(value, str) or value is None:
                out.setdefault(key, value)
        if self.details.get("direction") is not None:
            out["direction"] = self._direction_text()
        return out

    def _direction_text(self) -> str:
        """``details["direction"]`` in words: a signed error (number or Estimate) described, a text kept."""
        from credalbook.metrics.direction import describe_direction

        direction = self.details["direction"]
        return direction if isinstance(direction, str) else describe_direction(direction)

    def decision_line(self) -> str:
        """The decision in words, with the direction of the error when ``details`` holds one.

        "reject H0 at α = 0.05 (p = 0.001)" or "keep H0 at α = 0.05 (p = 0.41)"; a rejection is
        followed by the direction of ``details["direction"]`` (:meth:`with_direction`), e.g.
        ": over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])". The p-value is
        shown with two significant digits ("p < 0.001" below 0.001). A resampling test that rejects with
        a p-value above α (the statistic between the critical value and the next null sample, see the
        class docstring) says so: "(p = 0.06; the statistic exceeds the critical value 0.8949)".

        Examples
        --------
        >>> from credalbook.metrics import Estimate
        >>> res = TestResult(statistic=0.2, pvalue=0.001, alpha=0.05, rejected=True, method="z",
        ...                  details={"direction": Estimate(0.031, 0.027, 0.035, 0.95, 1000, "percentile")})
        >>> res.decision_line()
        'reject H0 at α = 0.05 (p = 0.001): over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])'
        >>> TestResult(statistic=0.1, pvalue=0.41, alpha=0.05, rejected=False).decision_line()
        'keep H0 at α = 0.05 (p = 0.41)'
        """
        p = float(self.pvalue)
        shown = "p < 0.001" if p < 0.001 else f"p = {p:.2g}"
        if self.rejected and p > float(self.alpha):  # the quantile rule of the class docstring, with R resamples
            shown += f"; the statistic exceeds the critical value {float(self.threshold):.4g}"
        line = f"{'reject' if self.rejected else 'keep'} H0 at α = {float(self.alpha):g} ({shown})"
        if self.rejected and self.details.get("direction") is not None:
            line += f": {self._direction_text()}"
        return line

    def with_direction(self, probs, labels, *, ci: float | None = 0.95, n_resamples: int = 1000, seed=None):
        """This result with the signed calibration error of ``(probs, labels)`` in ``details["direction"]``.

        The error is :func:`credalbook.metrics.signed_calibration_error` (mean confidence minus
        accuracy, > 0: over-confident) with its bootstrap interval at level ``ci``: an
        :class:`~credalbook.metrics.Estimate` without its replicates, so records stay small (a
        plain float with ``ci=None``). :meth:`decision_line` and :meth:`summary` read it. A new
        result of the same class is returned, every field (a subclass's too) that of this one and
        ``details`` a new dict; this result is not changed.

        Parameters
        ----------
        probs : array-like, shape (N, K)
            The predictions the test was run on.
        labels : array-like of int, shape (N,)
        ci : float in (0, 1) or None, default 0.95
        n_resamples : int, default 1000
            Bootstrap replicates of the interval.
        seed : None, int, SeedSequence or Generator
            Seed of the resamples.

        Returns
        -------
        TestResult

        Examples
        --------
        >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]] * 25
        >>> res = TestResult(statistic=0.3, pvalue=0.001, alpha=0.05, rejected=True, method="z")
        >>> res.with_direction(p, [0, 1, 1, 0] * 25, n_resamples=200, seed=0).decision_line()[:50]
        'reject H0 at α = 0.05 (p = 0.001): over-confident '
        """
        from credalbook.metrics.direction import signed_calibration_error

        est = signed_calibration_error(probs, labels, ci=ci, n_resamples=n_resamples, seed=seed)
        if ci is not None:
            est = dataclasses.replace(est, replicates=None)
        out = copy.copy(self)
        object.__setattr__(out, "details", {**self.details, "direction": est})
        return out

    def plot(self, *, ax=None):
        """Draw the null distribution and the observed statistic (:func:`credalbook.plotting.plot_test_result`)."""
        from credalbook.plotting import plot_test_result

        return plot_test_result(self, ax=ax)
