r"""One entry point for the calibration tests of one classifier: :func:`calibration_test`.

:math:`H_0`: the predictions are calibrated (in the sense of the chosen test). Every method takes
the same inputs (NumPy arrays or torch tensors on the CPU or a GPU, float16/32/64; probabilities,
or logits with ``from_logits=True``; a binary classifier's (N,) scores P(y = 1), or its logits, are the
two-class rows ``[1 - p, p]``, with labels 0/1 or bools), converted once by
:func:`credalbook._validation.as_predictions`, and returns a
:class:`~credalbook.stats.TestResult` (statistic, p-value, decision, null samples or null model,
``summary()``, ``plot()``).

============================  =================================================================  =======================
method                        test                                                               null distribution
============================  =================================================================  =======================
``"consistency"``             any binned or kernel ``measure`` under consistency resampling      D resamples
                              (Bröcker & Smith 2007; Vaicenavicius et al. 2019):
                              :func:`~credalbook.stats.bootstrap_calibration_test`; for
                              ``"ece_confidence"`` an O(N)-per-replicate route to the same null
``"skce_linear"``             linear SKCE, asymptotic normal null (Widmann et al. 2019)          normal
``"skce_block"``              block SKCE (``block_size``), asymptotic normal null                normal
                              (Widmann et al. 2021)
``"skce_quadratic"``          unbiased quadratic SKCE, bootstrap of the degenerate               R resamples
                              U-statistic (Arcones & Giné 1992)
``"skce_distribution_free"``  SKCE with Hoeffding's bound (valid for all N; conservative)        bound
``"hosmer_lemeshow"``         multi-class Hosmer-Lemeshow, consistency resampling                R resamples
                              (:func:`~credalbook.stats.hosmer_lemeshow`)
``"spiegelhalter"``           binary only (K = 2): Spiegelhalter's z-test of the Brier           normal (two-sided:
                              score (Spiegelhalter 1986):                                        :math:`|Z|` against the
                              :func:`~credalbook.stats.spiegelhalter_test`                       half-normal)
``"hosmer_lemeshow_c"``       binary only: Hosmer-Lemeshow's C, deciles of risk (equal-mass      χ²(g); χ²(g − 2) with
                              groups of P(y = 1)) (Hosmer & Lemeshow 1980):                      ``null="chi2"``
                              :func:`~credalbook.stats.hosmer_lemeshow_binary_test`
``"hosmer_lemeshow_h"``       binary only: Hosmer-Lemeshow's H, fixed equal-width groups of      χ²(g); χ²(g − 2) with
                              P(y = 1) (``hosmer_lemeshow_binary_test(strategy="uniform")``)     ``null="chi2"``
============================  =================================================================  =======================

The three binary methods take (N, 2) probabilities or logits (or (N,) scores P(y = 1)) and raise a
``ValueError`` for K > 2. ``"hosmer_lemeshow_c"`` and ``"hosmer_lemeshow_h"`` are the classical
count statistics with their χ² references, one grouping of the instances by P(y = 1); they are
methods of their own, not options of ``"hosmer_lemeshow"``, whose statistic (bin means, one
sorting per class), null (resampling) and results are those of Mortier et al.'s multi-class
measure. Their default reference is χ²(g), right for a model not fitted on the evaluation data;
``null="chi2"`` gives Hosmer & Lemeshow's χ²(g − 2) for a logistic model fitted on them, which
rejects calibrated held-out predictions about twice as often as α
(:mod:`credalbook.stats.binary_tests`).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from credalbook._deprecation import REMOVED_IN
from credalbook._parallel import check_n_jobs
from credalbook._validation import (
    as_predictions,
    check_binary_labels,
    check_choice,
    check_labels,
    check_n_bins,
    check_positive_int,
    check_probability,
    is_binary_scores,
)
from credalbook.metrics.kernel import AUTO_BLOCK_SIZE, resolve_estimator
from credalbook.stats.binary_tests import hosmer_lemeshow_binary_test, spiegelhalter_test
from credalbook.stats.bootstrap import bootstrap_calibration_test, DECISION_RULES, top_label_consistency_test
from credalbook.stats.hosmer_lemeshow import hosmer_lemeshow
from credalbook.stats.kernel_tests import skce_test
from credalbook.stats.measures import measure_name, MEASURES
from credalbook.stats.null_distribution import check_chunk_size, NULL_CHUNK, RESAMPLING
from credalbook.stats.result import TestResult

__all__ = ["METHODS", "calibration_test"]

#: Level of the interval of the signed calibration error that every result of :func:`calibration_test`
#: carries in ``details["direction"]`` (see :meth:`TestResult.decision_line`).
DIRECTION_LEVEL = 0.95

#: Methods of :func:`calibration_test`.
METHODS = (
    "consistency",
    "skce_linear",
    "skce_block",
    "skce_quadratic",
    "skce_distribution_free",
    "hosmer_lemeshow",
    "spiegelhalter",
    "hosmer_lemeshow_c",
    "hosmer_lemeshow_h",
)

_OPTIONS = {
    "consistency": {"resample", "rule", "fast_null"},
    "skce_linear": {"kernel", "bandwidth"},
    "skce_block": {"kernel", "bandwidth", "block_size"},
    "skce_quadratic": {"kernel", "bandwidth"},
    "skce_distribution_free": {"kernel", "bandwidth", "block_size", "estimator", "bound"},
    "hosmer_lemeshow": {"grouping", "null"},
    "spiegelhalter": set(),
    "hosmer_lemeshow_c": {"null"},
    "hosmer_lemeshow_h": {"null"},
}
#: Options renamed in 0.6 (accepted with a FutureWarning): ``{method: {old: new}}``.
_RENAMED_OPTIONS = {"hosmer_lemeshow": {"reference": "null"}}


def calibration_test(
    probs,
    labels,
    *,
    method: str = "consistency",
    measure="ece_confidence",
    from_logits: bool = False,
    n_bins: int = 10,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed=None,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
    direction: bool = True,
    **options,
) -> TestResult:
    r"""Test whether a classifier is calibrated, with a p-value: one entry point for every method.

    Parameters
    ----------
    probs : array-like or tensor, shape (N, K) or (N,)
        Predicted probabilities, or logits with ``from_logits=True``; NumPy or torch (CPU/CUDA,
        float16/32/64). A 1-D array holds the scores P(y = 1) of a binary classifier (or its
        logits), read as the (N, 2) rows ``[1 - p, p]``.
    labels : array-like or tensor of int, shape (N,)
        Class indices in [0, K); for (N,) scores 0/1 or bools.
    method : str, default "consistency"
        One of :data:`METHODS` (see the module docstring).
    measure : str, CalibrationMeasure or callable, default "ece_confidence"
        The measure of ``method="consistency"`` (:func:`~credalbook.stats.as_measure`: ``"ece_confidence"``,
        ``"ece_classwise"``, ``"hosmer_lemeshow"``, ``"skce_ul"``, ``"skce_uq"`` or any ``g(probs, labels)``).
    from_logits : bool, default False
        ``probs`` are logits: softmax in float64 first.
    n_bins : int, default 10
        Bins of the binned measures and of Hosmer-Lemeshow (the groups g of its C and H statistics).
    n_resamples : int, default 1000
        Resamples of the resampling tests (consistency, skce_quadratic, hosmer_lemeshow).
    alpha : float, default 0.05
    seed : int, numpy Generator or None
    n_jobs : int or None
        Joblib's ``n_jobs`` for the resampling, which runs in fixed chunks with per-chunk seeds, so
        that every value gives the same result (None: joblib's default, one chunk after another
        outside a ``joblib.parallel_config`` context). Inside
        ``joblib.parallel_config(backend="dask")`` with a ``dask.distributed`` client, ``n_jobs=-1``
        sends the chunks to the cluster, with the p-value of the serial run.
    chunk_size : int or None, default ``NULL_CHUNK`` (50)
        Resamples per independently seeded chunk of the consistency and Hosmer-Lemeshow tests
        (None: one random stream); the same default and the same null sample as the functions this
        one calls (:mod:`credalbook.stats.null_distribution`). The quadratic SKCE bootstrap has its
        own fixed chunks.
    direction : bool, default True
        Attach the direction of the error (see Returns); False skips its bootstrap (e.g. when the
        caller computes :func:`credalbook.metrics.signed_calibration_error` once for several tests).
    **options
        Method options: ``resample``, ``rule``, ``fast_null`` (consistency; see below); ``kernel``, ``bandwidth``
        (SKCE, see :func:`~credalbook.stats.skce_test`; default: the Laplacian kernel with the
        median heuristic); ``block_size`` (skce_block, default 2; skce_distribution_free);
        ``estimator`` ({"linear", "block", "quadratic"}; default "quadratic" up to N = 10⁴ and
        "block" with blocks of 1000 above) and ``bound`` (skce_distribution_free);
        ``grouping``, ``null`` (hosmer_lemeshow; formerly ``reference``); ``null`` ({"chi2_external",
        "chi2"}; hosmer_lemeshow_c, hosmer_lemeshow_h). ``"skce_quadratic"`` costs
        O(N²·n_resamples) time: for N beyond a few 10⁴ use ``"skce_block"`` (O(N·block_size)).

        ``fast_null`` (bool, default True): with ``method="consistency"`` and
        ``measure="ece_confidence"``, draw the null distribution by
        ``credalbook.stats.bootstrap.top_label_consistency_test``. Under :math:`H_0` a
        resampled label :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)` hits the predicted
        class with probability :math:`\max_k \hat p_{ik}`, and the top-label ECE depends on the
        labels only through these hits, so a replicate costs O(N) instead of O(N·K) (about 15×
        faster at N = 10⁶, K = 10). It is the same null distribution drawn by a cheaper route: the
        statistic is that of :func:`~credalbook.stats.bootstrap_calibration_test`, the null samples
        (and so the p-value) differ from its samples for the same seed by Monte Carlo error only.
        ``fast_null=False`` runs :func:`~credalbook.stats.bootstrap_calibration_test` and its
        random stream.

    Returns
    -------
    TestResult
        With ``direction=True``, the direction of the error in ``details["direction"]``: the signed calibration error
        (mean confidence − accuracy, :func:`credalbook.metrics.signed_calibration_error`) with its
        95% bootstrap interval (``n_resamples`` replicates, seeded by ``seed``; a Generator is
        copied, so the caller's generator advances by the test's draws alone), which
        :meth:`~credalbook.stats.TestResult.decision_line` and ``summary()`` state as over- or
        under-confident.

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting,
    2007. Vaicenavicius et al. Evaluating model calibration in classification. AISTATS 2019.
    Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
    framework. NeurIPS 2019. Mortier et al. AISTATS 2023, Eqs. 3-4 (Hosmer-Lemeshow).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(4), size=1000)
    >>> y = (rng.random(1000)[:, None] > p.cumsum(1)).sum(1)           # labels drawn from p
    >>> logits = 3 * np.log(p)                                          # over-confident logits
    >>> {m: calibration_test(logits, y, method=m, from_logits=True, n_resamples=200, seed=0).rejected
    ...  for m in ("consistency", "skce_quadratic", "hosmer_lemeshow")}
    {'consistency': True, 'skce_quadratic': True, 'hosmer_lemeshow': True}
    >>> calibration_test(p, y, method="skce_linear").rejected
    False
    """
    check_choice(method, "method", METHODS)
    for old, new in _RENAMED_OPTIONS.get(method, {}).items():
        if old in options:
            if new in options:
                raise TypeError(
                    f"calibration_test() got both {old!r} (renamed in 0.6) and its new name {new!r}; pass only {new}"
                )
            warnings.warn(
                f"calibration_test(method={method!r}): the option {old!r} was renamed to {new!r} in 0.6; "
                f"{old!r} will be removed in {REMOVED_IN}",
                FutureWarning,
                stacklevel=2,
            )
            options[new] = options.pop(old)
    unknown = sorted(set(options) - _OPTIONS[method])
    if unknown:
        raise TypeError(
            f"calibration_test(method={method!r}) got unexpected options {unknown}; "
            f"it accepts {sorted(_OPTIONS[method])}"
        )
    alpha = check_probability(alpha, "alpha")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    n_jobs, chunk_size = check_n_jobs(n_jobs), check_chunk_size(chunk_size)
    if method == "consistency" and isinstance(measure, str):
        measure = check_choice(measure_name(measure, "calibration_test"), "measure", MEASURES)
    binary = is_binary_scores(probs)
    p = as_predictions(probs, "probs", from_logits=from_logits)
    if binary:
        y = check_binary_labels(labels, p.shape[0])
    else:
        y = check_labels(labels, n_classes=p.shape[1], shape=p.shape[:1])
    result = _dispatch(method, p, y, measure, n_bins, n_resamples, alpha, seed, n_jobs, chunk_size, options)
    if not isinstance(direction, (bool, np.bool_)):
        raise ValueError(f"direction must be True or False; got {direction!r}")
    if not direction:
        return result
    # a Generator is copied: the caller's stream advances by the test's draws alone, as without the direction
    own = copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed
    return result.with_direction(p, y, ci=DIRECTION_LEVEL, n_resamples=n_resamples, seed=own)


def _dispatch(method, p, y, measure, n_bins, n_resamples, alpha, seed, n_jobs, chunk_size, options) -> TestResult:
    """Run ``method`` on checked predictions ``p`` (N, K) and labels ``y`` (N,)."""
    if method == "consistency":
        fast_null = options.pop("fast_null", True)
        if not isinstance(fast_null, (bool, np.bool_)):
            raise ValueError(f"fast_null must be True or False; got {fast_null!r}")
        if fast_null and isinstance(measure, str) and measure == "ece_confidence":
            check_choice(options.get("resample", "bootstrap"), "resample", RESAMPLING)
            check_choice(options.get("rule", "t"), "rule", DECISION_RULES)
            return top_label_consistency_test(
                p,
                y,
                n_bins=check_n_bins(n_bins),
                n_resamples=n_resamples,
                alpha=alpha,
                seed=seed,
                n_jobs=n_jobs,
                chunk_size=chunk_size,
                **options,
            )
        return bootstrap_calibration_test(
            p,
            y,
            measure=measure,
            n_bins=n_bins,
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            n_jobs=n_jobs,
            chunk_size=chunk_size,
            **options,
        )
    if method == "spiegelhalter":
        return spiegelhalter_test(p, y, alpha=alpha)
    if method in ("hosmer_lemeshow_c", "hosmer_lemeshow_h"):
        strategy = "quantile" if method == "hosmer_lemeshow_c" else "uniform"
        return hosmer_lemeshow_binary_test(p, y, n_bins=n_bins, strategy=strategy, alpha=alpha, **options)
    if method == "hosmer_lemeshow":
        return hosmer_lemeshow(
            p,
            y,
            n_bins=n_bins,
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            n_jobs=n_jobs,
            chunk_size=chunk_size,
            **options,
        )
    common = dict(alpha=alpha, seed=seed, n_jobs=n_jobs, **options)
    if method == "skce_distribution_free":
        if "estimator" not in common:  # the quadratic estimator up to 10⁴ instances, blocks of 1000 above
            common["estimator"] = "quadratic" if resolve_estimator("auto", len(p)) == "quadratic" else "block"
            if common["estimator"] == "block":
                common.setdefault("block_size", AUTO_BLOCK_SIZE)
        return skce_test(p, y, null="distribution_free", **common)
    estimator = method.removeprefix("skce_")
    return skce_test(p, y, estimator=estimator, n_resamples=n_resamples, **common)
