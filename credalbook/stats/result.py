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
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import check_probability

__all__ = ["TestResult"]


class _AlphaOfResult:
    def __repr__(self):
        return "<the result's alpha>"


#: Default of :meth:`TestResult.decision`: the level the test was run at.
ALPHA_OF_RESULT = _AlphaOfResult()


@dataclass(frozen=True)
class TestResult:
    r"""Outcome of a calibration test: statistic, p-value, decision and the null distribution.

    Attributes
    ----------
    statistic : float
        The observed test statistic :math:`T` (on the scale of ``null_distribution`` /
        ``null_model`` and ``threshold``).
    p_value : float
        :math:`P_{H_0}(T^* \ge T)`, estimated or bounded by the test.
    alpha : float
        Significance level of ``rejected``.
    rejected : bool
        Whether :math:`H_0` is rejected at ``alpha``.
    method : str
        Name of the test, e.g. ``"skce_linear"``, ``"consistency"``.
    null_distribution : ndarray (R,) or None
        Samples of the statistic under :math:`H_0` (resampling tests).
    null_model : frozen scipy.stats distribution or None
        The distribution of the statistic under :math:`H_0` (asymptotic or exact tests).
    threshold : float or None
        Critical value: reject when the statistic exceeds it (None when the test has none).
    details : dict
        Everything else a table or report needs (``n``, ``K``, ``n_resamples``, ``estimator``,
        ``kernel``, ...).

    Examples
    --------
    >>> from scipy import stats
    >>> res = TestResult(statistic=2.0, p_value=float(stats.norm.sf(2.0)), alpha=0.05, rejected=True,
    ...                  method="z", null_model=stats.norm(), threshold=float(stats.norm.isf(0.05)))
    >>> res.decision(0.01), res.summary()["p_value"] == res.p_value
    (False, True)
    """

    __test__ = False  # not a pytest test class, whatever its name

    statistic: float
    p_value: float
    alpha: float
    rejected: bool
    method: str = ""
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_model: object | None = field(default=None, repr=False)
    threshold: float | None = None
    details: dict = field(default_factory=dict, repr=False)

    def decision(self, alpha: float = ALPHA_OF_RESULT) -> bool:
        """Whether the test rejects :math:`H_0` at level ``alpha`` (default: ``self.alpha``): ``p_value <= alpha``."""
        alpha = self.alpha if alpha is ALPHA_OF_RESULT else check_probability(alpha, "alpha")
        return bool(self.p_value <= alpha)

    def summary(self) -> dict:
        """Plain numbers and strings for tables and JSON: the scalar fields and scalar ``details``.

        ``n_null`` is the number of null samples (0 for tests with a ``null_model``).
        """
        out = {"method": str(self.method), "statistic": float(self.statistic), "p_value": float(self.p_value),
               "alpha": float(self.alpha), "rejected": bool(self.rejected),
               "threshold": None if self.threshold is None else float(self.threshold),
               "n_null": 0 if self.null_distribution is None else int(np.size(self.null_distribution))}
        for key, value in self.details.items():
            if isinstance(value, (bool, np.bool_)):
                out.setdefault(key, bool(value))
            elif isinstance(value, numbers.Integral):
                out.setdefault(key, int(value))
            elif isinstance(value, numbers.Real):
                out.setdefault(key, float(value))
            elif isinstance(value, str) or value is None:
                out.setdefault(key, value)
        return out

    def plot(self, *, ax=None):
        """Draw the null distribution and the observed statistic (:func:`credalbook.plotting.plot_test_result`)."""
        from credalbook.plotting import plot_test_result

        return plot_test_result(self, ax=ax)
