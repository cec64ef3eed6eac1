r"""The classical calibration tests of a binary classifier: Spiegelhalter's z-test and Hosmer-Lemeshow's C and H.

Both take the predicted probabilities :math:`p_i = P(y_i = 1)` of N instances with labels
:math:`y_i \in \{0, 1\}`: (N,) scores :math:`p_i` (labels 0/1 or bools), an (N, 2) array of
probabilities (column 1 is :math:`p_i`), or logits of either shape with ``from_logits=True``.
More than two classes is a ``ValueError``: for K > 2 use the multi-class tests of
:func:`~credalbook.stats.calibration_test`. Both have a closed-form null model, so they cost one
pass over the data and need no seed.

**Spiegelhalter's z-test** (Spiegelhalter 1986, Sec. 3) standardises the Brier score by its mean
and variance under :math:`H_0: y_i \sim \mathrm{Bernoulli}(p_i)` independently:

.. math::
    Z = \frac{\sum_i (y_i - p_i)(1 - 2p_i)}{\sqrt{\sum_i (1 - 2p_i)^2\, p_i (1 - p_i)}}
      \;\overset{H_0}{\approx}\; \mathcal N(0, 1),

two-sided p-value :math:`2\,\Phi(-|Z|)`. The numerator is :math:`\sum_i (y_i - p_i)^2 - p_i(1 - p_i)`,
the Brier score minus its expectation: :math:`Z > 0` when outcomes are further from the
predictions than the predictions themselves expect (typical of over-confidence), :math:`Z < 0`
when closer (under-confidence).

**Hosmer-Lemeshow** (Hosmer & Lemeshow 1980; Hosmer, Lemeshow & Sturdivant 2013, Sec. 5.2.2) groups
the instances by :math:`p_i` into g groups and compares observed events :math:`O_j` with expected
events :math:`E_j = \sum_{i \in j} p_i` (:math:`n_j` instances, mean :math:`\bar\pi_j = E_j / n_j`):

.. math::
    \hat C = \sum_{j=1}^{g} \frac{(O_j - E_j)^2}{n_j \bar\pi_j (1 - \bar\pi_j)},

which is Pearson's :math:`\sum (O - E)^2 / E` over the g × 2 table of events and non-events.
``strategy="quantile"`` gives the **C statistic** (the "deciles of risk": equal-mass groups of the
sorted :math:`p_i`, cut between the order statistics by
:func:`credalbook.metrics.binning.equal_mass_cuts`, tied probabilities never split);
``strategy="uniform"`` gives the **H statistic** (fixed groups :math:`[j/g, (j+1)/g)` of
:math:`p_i`, the last one closed). Groups are those of :func:`credalbook.metrics.bin_ids`.

*Reference distribution.* Hosmer & Lemeshow's :math:`\chi^2_{g-2}` (``null="chi2"``) is derived for
a logistic model **fitted on the same data**. Predictions of a model that was not fitted on the
evaluation data (a held-out or test set, the usual case of a calibration test) have
:math:`\chi^2_{g}` (``null="chi2_external"``, the default): with :math:`\chi^2_{g-2}` a calibrated
model is rejected about twice as often as α (scripts/binary_tests_type1.py). The names and the
degrees of freedom are those of :func:`~credalbook.stats.hosmer_lemeshow` for K = 2.

*Empty and degenerate groups.* Empty groups (equal-width groups no probability falls in, or
equal-mass groups merged by ties) are dropped, and so are groups whose probabilities are all 0 or
all 1 (:math:`\bar\pi_j (1 - \bar\pi_j) = 0`): g counts the remaining groups, and the degrees of
freedom follow it (``details["groups"]``). A degenerate group whose outcomes contradict it (an
event where every :math:`p_i = 0`) makes the statistic :math:`+\infty` (p-value 0). Too few groups
left for the reference (g < 3 for ``"chi2"``, g < 1 for ``"chi2_external"``) is a ``ValueError``.

References
----------
Spiegelhalter, D. J. Probabilistic prediction in patient management and clinical trials.
Statistics in Medicine 5(5):421-433, 1986.
Hosmer, D. W., Lemeshow, S. Goodness of fit tests for the multiple logistic regression model.
Communications in Statistics - Theory and Methods 9(10):1043-1069, 1980.
Hosmer, D. W., Lemeshow, S., Sturdivant, R. X. Applied Logistic Regression, 3rd ed., Wiley 2013,
Sec. 5.2.2.
"""

from __future__ import annotations

import numpy as np

from credalbook._validation import (
    as_predictions,
    check_binary_labels,
    check_choice,
    check_labels,
    check_n_bins,
    check_probability,
    is_binary_scores,
)
from credalbook._validation import lazy_scipy_stats as stats
from credalbook.metrics.binning import bin_ids, check_strategy
from credalbook.stats.result import exceeds, TestResult

__all__ = ["hosmer_lemeshow_binary_test", "spiegelhalter_test", "BINARY_NULLS"]

#: Reference distributions of :func:`hosmer_lemeshow_binary_test`: χ²(g − 2) and χ²(g).
BINARY_NULLS = ("chi2_external", "chi2")
_METHOD_OF_STRATEGY = {"quantile": "hosmer_lemeshow_c", "uniform": "hosmer_lemeshow_h"}


def _binary_inputs(probs, labels, from_logits: bool, where: str) -> tuple[np.ndarray, np.ndarray]:
    """P(y = 1) (N,) and labels (N,) as float64, from (N, 2) probabilities or logits, or (N,) scores or logits."""
    binary = is_binary_scores(probs)
    p = as_predictions(probs, "probs", from_logits=from_logits)
    if binary:
        y = check_binary_labels(labels, p.shape[0])
    else:
        y = check_labels(labels, n_classes=p.shape[1], shape=p.shape[:1])
    if p.shape[1] != 2:
        raise ValueError(
            f"{where} is a test of binary predictions: probs must have 2 classes (or be (N,) scores P(y = 1)); "
            f"got K = {p.shape[1]} (for K > 2 use calibration_test with a multi-class method)"
        )
    return np.clip(p[:, 1], 0.0, 1.0), y.astype(np.float64)


def spiegelhalter_test(probs, labels, *, from_logits: bool = False, alpha: float = 0.05) -> TestResult:
    r"""Spiegelhalter's z-test of the calibration of a binary classifier (see the module docstring).

    Parameters
    ----------
    probs : array-like or tensor, shape (N,) or (N, 2)
        Scores P(y = 1), or predicted probabilities (column 1 is P(y = 1)); logits with
        ``from_logits=True`` (binary logits for (N,)).
    labels : array-like of int (or bool for (N,) scores), shape (N,)
        Labels in {0, 1}.
    from_logits : bool, default False
    alpha : float, default 0.05

    Returns
    -------
    TestResult
        ``method="spiegelhalter"``; ``statistic`` is :math:`|Z|` and ``null_model`` its distribution
        under :math:`H_0`, the half-normal ``scipy.stats.halfnorm()``, so that the one rule of
        :class:`~credalbook.stats.TestResult` (reject when the statistic exceeds the critical value
        ``threshold`` = :math:`\Phi^{-1}(1 - \alpha/2)`) is the two-sided z-test;
        ``pvalue`` = :math:`2\Phi(-|Z|)`. ``details``: ``z`` (the signed :math:`Z`), ``n``,
        ``brier_score`` (mean), ``expected_brier_score`` (its mean under :math:`H_0`,
        :math:`\frac1N\sum p_i(1-p_i)`).

    Raises
    ------
    ValueError
        When K ≠ 2, or when every :math:`p_i` is 0, 1/2 or 1 (the variance of the numerator is 0:
        such predictions give a Brier score that no outcome can move from its expectation in law).

    References
    ----------
    Spiegelhalter (1986), Statistics in Medicine 5:421-433, Sec. 3.

    Examples
    --------
    >>> res = spiegelhalter_test([0.1, 0.9, 0.21, 0.9, 0.5], [0, 1, 0, 1, 0])
    >>> round(res.details["z"], 3), round(res.pvalue, 4), res.rejected
    (-0.757, 0.4492, False)
    """
    alpha = check_probability(alpha, "alpha")
    p, y = _binary_inputs(probs, labels, from_logits, "spiegelhalter_test")
    w = 1.0 - 2.0 * p
    variance = float(np.sum(w * w * p * (1.0 - p)))
    if not variance > 0:
        raise ValueError(
            "spiegelhalter_test: the variance of the statistic is 0 (every probability in probs is 0, 0.5 or 1); "
            "the test is undefined for such predictions"
        )
    z = float(np.sum((y - p) * w) / np.sqrt(variance))
    null = stats.halfnorm()
    threshold = float(null.isf(alpha))
    brier = float(np.mean((y - p) ** 2))
    return TestResult(
        statistic=abs(z),
        pvalue=float(null.sf(abs(z))),
        alpha=alpha,
        rejected=exceeds(abs(z), threshold),
        method="spiegelhalter",
        null_model=null,
        threshold=threshold,
        details={"z": z, "n": int(p.size), "brier_score": brier, "expected_brier_score": float(np.mean(p * (1.0 - p)))},
    )


def hosmer_lemeshow_binary_test(
    probs,
    labels,
    *,
    n_bins: int = 10,
    strategy: str = "quantile",
    null: str = "chi2_external",
    from_logits: bool = False,
    alpha: float = 0.05,
) -> TestResult:
    r"""Hosmer-Lemeshow's C (``strategy="quantile"``) or H (``strategy="uniform"``) test of a binary classifier.

    The statistic, the groups and the reference distribution are those of the module docstring.

    Parameters
    ----------
    probs : array-like or tensor, shape (N,) or (N, 2)
        Scores P(y = 1), or predicted probabilities (column 1 is P(y = 1)); logits with
        ``from_logits=True`` (binary logits for (N,)).
    labels : array-like of int (or bool for (N,) scores), shape (N,)
        Labels in {0, 1}.
    n_bins : int, default 10
        The number of groups g before empty and degenerate groups are dropped (the "deciles of
        risk" for 10). ``strategy="quantile"`` needs N ≥ ``n_bins``.
    strategy : {"quantile", "uniform"}, default "quantile"
        ``"quantile"``: equal-mass groups, the C statistic; ``"uniform"``: equal-width groups of
        P(y = 1), the H statistic.
    null : {"chi2_external", "chi2"}, default "chi2_external"
        ``"chi2_external"``: :math:`\chi^2_g`, for predictions of a model not fitted on these data;
        ``"chi2"``: :math:`\chi^2_{g-2}`, Hosmer & Lemeshow's reference for a logistic model fitted
        on them (and that of R's ``ResourceSelection::hoslem.test``).
    from_logits : bool, default False
    alpha : float, default 0.05

    Returns
    -------
    TestResult
        ``method`` ``"hosmer_lemeshow_c"`` or ``"hosmer_lemeshow_h"``; ``statistic`` :math:`\hat C`
        (or :math:`\hat H`); ``null_model`` ``scipy.stats.chi2(dof)``; ``threshold`` its
        (1 − α) quantile. ``details``: ``n``, ``n_bins``, ``groups`` (g, the groups used),
        ``dof``, ``strategy``, ``null``, ``min_expected`` (the smallest expected count of events or
        non-events in a group; the χ² approximation wants it above about 5), and per group used
        ``sizes`` (:math:`n_j`), ``observed`` (:math:`O_j`), ``expected`` (:math:`E_j`).

    References
    ----------
    Hosmer & Lemeshow (1980); Hosmer, Lemeshow & Sturdivant (2013), Sec. 5.2.2.

    Examples
    --------
    >>> p1 = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    >>> # groups {.1,.2}, {.3,.4}, {.6,.7}, {.8,.9}: (O - E)² / (n π̄ (1 - π̄)) summed
    >>> res = hosmer_lemeshow_binary_test(np.c_[1 - p1, p1], y, n_bins=4)
    >>> round(res.statistic, 6), res.details["dof"], res.details["observed"].tolist()
    (3.549235, 4, [0.0, 1.0, 2.0, 1.0])
    >>> hosmer_lemeshow_binary_test(np.c_[1 - p1, p1], y, n_bins=4, null="chi2").details["dof"]
    2
    """
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, "hosmer_lemeshow_binary_test")
    null = check_choice(null, "null", BINARY_NULLS)
    alpha = check_probability(alpha, "alpha")
    p, y = _binary_inputs(probs, labels, from_logits, "hosmer_lemeshow_binary_test")
    if strategy == "quantile" and p.size < n_bins:
        raise ValueError(
            f"hosmer_lemeshow_binary_test: probs must hold at least n_bins={n_bins} instances for "
            f"{n_bins} equal-mass groups; got {p.size}"
        )
    ids = bin_ids(p, n_bins, strategy=strategy)
    sizes = np.bincount(ids, minlength=n_bins).astype(np.float64)
    observed = np.bincount(ids, weights=y, minlength=n_bins)
    expected = np.bincount(ids, weights=p, minlength=n_bins)
    return _hl_result(sizes, observed, expected, n_bins, strategy, null, alpha)


def _hl_result(sizes, observed, expected, n_bins, strategy, null, alpha) -> TestResult:
    """The C / H test from per-group counts: drop empty and degenerate groups, sum, refer to χ²."""
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = np.where(sizes > 0, expected * (sizes - expected) / sizes, 0.0)  # n π̄ (1 − π̄)
    used = variance > 0
    contradicted = (~used) & (sizes > 0) & (np.abs(observed - expected) > 1e-9 * np.maximum(sizes, 1.0))
    groups = int(used.sum())
    dof = groups - 2 if null == "chi2" else groups
    method = _METHOD_OF_STRATEGY[strategy]
    if dof < 1:
        raise ValueError(
            f"hosmer_lemeshow_binary_test (strategy={strategy!r}, null={null!r}) needs at least "
            f"{3 if null == 'chi2' else 1} groups of probs with 0 < mean P(y = 1) < 1; the n_bins={n_bins} groups "
            f"leave {groups} (the others are empty, or every probability in them is 0 or 1)"
        )
    statistic = float(np.sum((observed[used] - expected[used]) ** 2 / variance[used]))
    if contradicted.any():
        statistic = np.inf
    null_model = stats.chi2(dof)
    threshold = float(null_model.isf(alpha))
    n_used, e_used = sizes[used], expected[used]
    return TestResult(
        statistic=statistic,
        pvalue=float(null_model.sf(statistic)),
        alpha=alpha,
        rejected=exceeds(statistic, threshold),
        method=method,
        null_model=null_model,
        threshold=threshold,
        details={
            "n": int(sizes.sum()),
            "n_bins": int(n_bins),
            "groups": groups,
            "dof": int(dof),
            "strategy": strategy,
            "null": null,
            "min_expected": float(np.minimum(e_used, n_used - e_used).min()),
            "sizes": n_used.astype(np.int64),
            "observed": observed[used],
            "expected": e_used,
        },
    )
