r"""Core metrics for probabilistic classifiers: accuracy, proper scores and binned calibration errors.

Every function takes ``probs`` of shape ``(..., N, K)`` (rows on the probability simplex) and
``labels`` of shape ``(..., N)`` (integers in ``[0, K)``), as NumPy arrays or torch tensors, and
returns a float, or an array of shape ``(...)`` when leading batch dimensions are given. Batching
lets the bootstrap tests of later chapters evaluate a measure on many replicates at once.

**The binned calibration errors, by their names in the field.** :func:`ece_confidence` (top-label,
Guo et al. 2017) and :func:`ece_classwise` (classwise, Kull et al. 2019; the "static" SCE of Nixon
et al. 2019) with ``strategy="uniform"`` (equal-width bins, default) or ``"quantile"`` (equal-mass,
"adaptive" bins), the
ℓ1 error (default) or the ℓp one (``norm=2``: the ℓ2 / RMS calibration error of Kumar et al.
2019), and the debiased ℓ2 estimator of Kumar et al. (``debiased=True``). :func:`ace` is the
adaptive calibration error of Nixon et al. (2019): classwise, equal-mass. Wu & Gales' all-label
error, which they also call ACE, is :func:`credalbook.metrics.all_label_ece`. All of them bin with
:func:`credalbook.metrics.bin_statistics`. The smooth ECE is :func:`credalbook.metrics.smooth_ece`.

Notation (Mortier et al., 2023, Sec. 2): :math:`\hat p_{ik}` is the predicted probability of class
:math:`k` for instance :math:`i`, :math:`c_i = \max_k \hat p_{ik}` its confidence,
:math:`\hat y_i = \arg\max_k \hat p_{ik}` the predicted label and :math:`y_{ik} = 1[y_i = k]` the
one-hot label.
"""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np

from credalbook._deprecation import renamed, RenamedKeys
from credalbook._validation import (
    as_scalar,
    check_n_bins,
    check_positive_float,
    check_probs_labels,
    loaded_torch,
    MAX_BINS,
)
from credalbook.metrics.binned_core import _classwise_counts_estimate, _equal_width_estimate, _power_error, _root
from credalbook.metrics.binning import _bin_statistics, check_strategy, one_hot
from credalbook.metrics.discrimination import AUC_KINDS, multiclass_auc
from credalbook.metrics.intervals import batch_capable, bootstrap_estimate, check_ci_keyword, check_unbatched
from credalbook.metrics.mean_terms import _accuracy_terms, _brier_terms, _mean_estimate, _nll_terms, row_argmax
from credalbook.metrics.regions import _region_ece, check_epsilon, check_probs_label_rows, DEFAULT_EPSILON

__all__ = [
    "accuracy",
    "ace",
    "brier_score",
    "calibration_summary",
    "nll",
    "ece",
    "ece_confidence",
    "ece_classwise",
    "multiclass_auc",
    "AUC_KINDS",
    "one_hot",
    "ece_confidence_batched",
    "ece_classwise_batched",
]


_MEAN_CI_DOC = """ci : float in (0, 1) or None, default None
        With a level (e.g. 0.95): return an :class:`~credalbook.metrics.Estimate`, the value with
        its bootstrap percentile interval. The metric is a mean of per-instance terms, so the
        terms are computed once and each replicate averages the resampled terms: the replicates
        of :func:`credalbook.metrics.bootstrap_ci` evaluating the metric on gathered predictions
        (the same indices for the same seed, the same numbers), O(N) instead of O(N·K) per
        replicate. ``probs`` must be (N, K).
    n_resamples : int, default 1000
        Bootstrap replicates (with ``ci``).
    seed : None, int, SeedSequence or Generator
        Seed of the resamples (with ``ci``)."""


@batch_capable
def accuracy(probs, labels, *, ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Fraction of instances whose arg-max class equals the label.

    .. math:: \mathrm{Acc} = \frac1N \sum_{i=1}^N 1[\hat y_i = y_i]

    Ties are broken towards the lowest class index (``numpy.argmax``).

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    {ci}

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Efron, Tibshirani. An Introduction to the Bootstrap. 1993, Ch. 13 (the percentile interval).

    Examples
    --------
    >>> accuracy([[0.7, 0.3], [0.4, 0.6], [0.9, 0.1]], [0, 0, 0])
    0.6666666666666666
    >>> e = accuracy([[0.7, 0.3], [0.4, 0.6], [0.9, 0.1]], [0, 0, 0], ci=0.9, n_resamples=200, seed=0)
    >>> round(e.value, 4), e.low <= e.value <= e.high
    (0.6667, True)
    """
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    hits = _accuracy_terms(p, y)
    value = as_scalar(hits.mean(axis=-1))
    if ci is None:
        return value
    return _mean_estimate(hits.astype(np.float64), value, ci=ci, n_resamples=n_resamples, seed=seed)


@batch_capable
def brier_score(probs, labels, *, ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Multi-class Brier score: mean squared distance to the one-hot label, summed over classes.

    .. math:: \mathrm{BS} = \frac1N \sum_{i=1}^N \sum_{k=1}^K (\hat p_{ik} - y_{ik})^2

    (Brier, 1950; the "proper score" of Jürgens et al., Eq. 16.) It lies in [0, 2].

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    {ci}

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Brier. Verification of forecasts expressed in terms of probability. Monthly Weather Review, 1950.

    Examples
    --------
    >>> round(brier_score([[0.7, 0.3], [0.4, 0.6]], [0, 0]), 6)
    0.45
    """
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    terms = _brier_terms(p, y)
    value = as_scalar(terms.mean(axis=-1))
    if ci is None:
        return value
    return _mean_estimate(terms, value, ci=ci, n_resamples=n_resamples, seed=seed)


@batch_capable
def nll(probs, labels, *, eps: float = 1e-12, ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Negative log-likelihood (log loss) of the labels, in nats.

    .. math:: \mathrm{NLL} = -\frac1N \sum_{i=1}^N \log \hat p_{i y_i}

    Probabilities are clipped below at ``eps`` so that a zero probability on the true class gives
    a large finite value (``-log(eps)`` ≈ 27.6) instead of ``inf``; ``eps`` must be a finite number
    >= 0 (``eps=0`` turns the clipping off).

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    eps : float >= 0, default 1e-12
    {ci}

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Good. Rational decisions. Journal of the Royal Statistical Society B, 1952 (the logarithmic score).

    Examples
    --------
    >>> round(nll([[0.5, 0.5], [0.25, 0.75]], [0, 1]), 6)
    0.490415
    """
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    eps = check_positive_float(eps, "eps", allow_zero=True)
    if ci is not None:
        check_unbatched(p)
    terms = _nll_terms(p, y, eps)
    value = as_scalar(terms.mean(axis=-1))
    if ci is None:
        return value
    return _mean_estimate(terms, value, ci=ci, n_resamples=n_resamples, seed=seed)


for _metric in (accuracy, brier_score, nll):
    if _metric.__doc__:  # None under python -OO
        _metric.__doc__ = _metric.__doc__.replace("{ci}", _MEAN_CI_DOC)


def _check_options(n_bins, strategy, norm, debiased, where) -> tuple[int, str, float, bool]:
    """Validate the options shared by the binned calibration errors."""
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, where)
    if isinstance(norm, (bool, np.bool_)) or not isinstance(norm, numbers.Real) or not (1 <= norm < np.inf):
        raise ValueError(f"norm must be a real number >= 1 (1: ECE, 2: the l2 calibration error); got {norm!r}")
    if not isinstance(debiased, (bool, np.bool_)):
        raise ValueError(f"debiased must be True or False; got {debiased!r}")
    if debiased and norm != 2:
        raise ValueError(
            f"debiased=True is the debiased estimator of the squared l2 error and needs norm=2; got norm={norm!r}"
        )
    return n_bins, strategy, float(norm), bool(debiased)


#: Arrays of at least this many float64 entries take their row maxima from torch (see :func:`_row_max`).
_TORCH_MAX_SIZE = 1 << 16


def _row_max(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maxima (..., N, 1) and first arg-max (..., N) of the rows of ``p`` (..., N, K).

    Large C-contiguous float64 arrays use ``torch.max(dim=-1)`` on a zero-copy view when torch is
    already imported (about 1.6× faster than NumPy's ``argmax`` and gather at K = 10, far less than
    the second it takes to import torch). Its CPU kernel keeps the first maximal entry, as
    ``numpy.argmax`` does, and returns that entry itself, so the results are NumPy's bit for bit (a
    test holds them equal on ties and signed zeros).
    """
    torch = loaded_torch()
    if (
        torch is not None
        and p.size >= _TORCH_MAX_SIZE
        and p.dtype == np.float64
        and p.flags.c_contiguous
        and p.shape[-1] > 1
    ):
        with warnings.catch_warnings():  # a read-only (memory-mapped) array: torch only reads it
            warnings.simplefilter("ignore", UserWarning)
            values, yhat = torch.max(torch.from_numpy(p), dim=-1)
        return values.numpy()[..., None], yhat.numpy()
    return row_argmax(p, values=True)


def _top_label(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Confidences (..., N, 1) and the problem index of a correct prediction (0) or -1 (..., N)."""
    conf, yhat = _row_max(p)
    return conf, np.where(yhat == y, 0, -1)


@batch_capable
@renamed(binning="strategy")
def ece_confidence(
    probs,
    labels,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    norm: float = 1,
    debiased: bool = False,
    ci: float | None = None,
    n_resamples: int = 1000,
    seed=None,
):
    r"""Confidence (top-label) expected calibration error (Mortier et al., Eq. 6; Guo et al. 2017).

    .. math::
        \mathrm{ECE}_{conf} = \Bigl(\sum_{j=1}^B \frac{|\mathcal B_j|}{N}
        \bigl|\mathrm{Acc}(\mathcal B_j) - c(\mathcal B_j)\bigr|^p\Bigr)^{1/p},
        \qquad \mathcal B_j = \{i : \tfrac{j-1}{B} \le c_i < \tfrac jB\}

    with :math:`\mathrm{Acc}(\mathcal B_j)` the accuracy and :math:`c(\mathcal B_j)` the mean
    confidence of bin :math:`j` (empty bins count 0); the last bin is right-closed, so a confidence
    of exactly 1.0 is in bin B. With the defaults (p = 1, equal-width bins) this is the ECE of Guo
    et al. (2017) and the top-label ECE of Wu & Gales (2021, Eq. 13) with ``B = 1/(2ε)`` regions
    (ε is the half-width of a region; see :func:`credalbook.metrics.ece`).

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: equal-width bins. ``"quantile"``: B equal-mass bins holding about N/B
        confidences each (the "adaptive" binning of Nixon et al. 2019; cuts of ``credalbook.metrics.binning.equal_mass_cuts``, ties at a cut kept
        together in the upper bin, so ties or B > N leave fewer non-empty bins).
    norm : float >= 1, default 1
        p. ``norm=2`` is the ℓ2 (root-mean-square) calibration error of Kumar et al. (2019).
    debiased : bool, default False
        With ``norm=2``: the debiased estimator of Kumar et al. (2019, Sec. 5), which subtracts
        from each bin's squared gap the variance of its accuracy,

        .. math::
            \widehat{\mathrm{CE}}^2 = \sum_{j : |\mathcal B_j| \ge 2} \frac{|\mathcal B_j|}{N}
            \Bigl[\bigl(\mathrm{Acc}_j - c_j\bigr)^2 - \frac{\mathrm{Acc}_j(1 - \mathrm{Acc}_j)}{|\mathcal B_j| - 1}\Bigr],

        and returns :math:`\sqrt{\max(\widehat{\mathrm{CE}}^2, 0)}` (their ``unbiased_l2_ce``).
        The plug-in squared error overestimates the true one by about
        :math:`\sum_j \mathrm{Acc}_j(1-\mathrm{Acc}_j)/N`; the correction removes that bias.
    ci : float in (0, 1) or None, default None
        With a level (e.g. 0.95): return an :class:`~credalbook.metrics.Estimate`, the error with
        its bootstrap percentile interval (:func:`credalbook.metrics.bootstrap_ci`; the
        instances resampled ``n_resamples`` times, vectorised). ``probs`` must be (N, K).
    n_resamples : int, default 1000
        Bootstrap replicates (with ``ci``).
    seed : None, int, SeedSequence or Generator
        Seed of the resamples (with ``ci``).

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of Probabilistic Classifier
    Sets. AISTATS 2023, Eq. (6). Guo, Pleiss, Sun, Weinberger. On calibration of modern neural
    networks. ICML 2017, Eq. (3). Nixon, Dusenberry, Zhang, Jerfel, Tran. Measuring calibration in
    deep learning. CVPR Workshops 2019 (adaptive ranges). Kumar, Liang, Ma. Verified uncertainty
    calibration. NeurIPS 2019, Sec. 5 (ℓ2 error, debiased estimator).

    Examples
    --------
    Two instances at confidence 0.9 (one correct) and two at 0.6 (both correct):

    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece_confidence(p, [0, 0, 0, 1], n_bins=10), 6)   # (2/4)|0.5-0.9| + (2/4)|1-0.6|
    0.4
    >>> round(ece_confidence(p, [0, 0, 0, 1], norm=2), 6)      # sqrt((2/4) 0.4² + (2/4) 0.4²)
    0.4
    >>> round(ece_confidence(p, [0, 0, 0, 1], norm=2, debiased=True), 6)   # sqrt(0.16 - (1/2)(0.25/1))
    0.187083
    >>> e = ece_confidence(p, [0, 0, 0, 1], ci=0.9, n_resamples=200, seed=0)
    >>> e.value, e.low <= e.value <= e.high
    (0.4, True)
    """
    n_bins, strategy, norm, debiased = _check_options(n_bins, strategy, norm, debiased, "ece_confidence")
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    value = as_scalar(ece_confidence_batched(p, y, n_bins, strategy=strategy, norm=norm, debiased=debiased))
    if ci is None:
        return value
    conf, positive = _top_label(p, y)
    if strategy == "uniform":
        return _equal_width_estimate(
            conf,
            positive,
            value,
            n_bins=n_bins,
            norm=norm,
            debiased=debiased,
            ci=ci,
            n_resamples=n_resamples,
            seed=seed,
        )
    statistic = functools.partial(_top_label_error, n_bins=n_bins, strategy=strategy, norm=norm, debiased=debiased)
    return bootstrap_estimate(statistic, (conf, positive), value, ci=ci, n_resamples=n_resamples, seed=seed)


def ece_confidence_batched(
    p: np.ndarray, y: np.ndarray, n_bins: int, *, strategy: str = "uniform", norm: float = 1, debiased: bool = False
) -> np.ndarray:
    """:func:`ece_confidence` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    conf, positive = _top_label(p, y)
    return _top_label_error(conf, positive, n_bins=n_bins, strategy=strategy, norm=norm, debiased=debiased)


def _top_label_error(
    conf: np.ndarray, positive: np.ndarray, *, n_bins: int, strategy: str, norm: float, debiased: bool
) -> np.ndarray:
    """The top-label error from confidences (..., N, 1) and the correct-prediction problem index (..., N)."""
    s = _bin_statistics(conf, positive, n_bins, strategy, counts=norm != 1 or debiased)
    return _root(_power_error(s, norm, debiased)[..., 0], norm)


def ece(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""Top-label ECE of Wu & Gales (2021, Eqs. 13-14) by region half-width: :func:`ece_confidence` with
    ``n_bins = 1/(2ε)``.

    .. math::
        \mathrm{ECE}(\epsilon) = \frac1N \sum_{p\in\mathcal P(\epsilon)}
        \Bigl| \sum_{j=1}^K \sum_{i\in\tilde{\mathcal S}_j^p(\epsilon)}
        \bigl(\hat p_{ij} - \delta(y_i, \omega_j)\bigr) \Bigr|
        = \sum_p \frac{\sum_j |\tilde{\mathcal S}_j^p|}{N}\,
        \bigl|\mathrm{Conf}(p) - \mathrm{Acc}(p)\bigr|

    A region of half-width ε is an equal-width bin of width 2ε, so for ``epsilon = 1/(2B)`` (the
    paper's tables: ε = 1/30, B = 15) this *is* ``ece_confidence(probs, labels, n_bins=B)`` and is
    computed by it (the same value bit for bit; tests check it). Other ε (0: one region per distinct
    confidence; 1/(2ε) not an integer: the last region truncated at 1), and labels given as true class
    probabilities (N, K), use the regions of :mod:`credalbook.metrics.regions`. At ``epsilon >= 1/2`` it
    is the absolute global top-label gap of Eq. 16.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    labels : array-like, shape (N,) of int, or (N, K) true class probabilities
    epsilon : float in [0, 1], default 1/30 (:data:`credalbook.metrics.DEFAULT_EPSILON`)
        Region half-width (Eq. 9).

    Returns
    -------
    float

    References
    ----------
    Wu & Gales (2021), Eqs. (7), (11), (13)-(14); Guo et al. (2017).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece(p, [0, 0, 0, 1], epsilon=0.05), 6)   # = ece_confidence(p, y, n_bins=10)
    0.4
    """
    eps = check_epsilon(epsilon)
    p, t, onehot = check_probs_label_rows(probs, labels)
    if onehot and eps > 0.0:
        x = 1.0 / (2.0 * eps)
        n_bins = round(x)
        if abs(x - n_bins) <= 1e-9 * max(1.0, x) and n_bins <= MAX_BINS:  # the test of region_ids
            return as_scalar(ece_confidence_batched(p, t.argmax(axis=1), n_bins))  # = ece_confidence(p, y, n_bins=B)
    return _region_ece(p, t, eps)


@batch_capable
@renamed(binning="strategy")
def ece_classwise(
    probs,
    labels,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    norm: float = 1,
    debiased: bool = False,
    ci: float | None = None,
    n_resamples: int = 1000,
    seed=None,
):
    r"""Classwise expected calibration error (Mortier et al., Eq. 5; Kull et al. 2019).

    .. math::
        \mathrm{ECE}_{cwise} = \Bigl(\frac1K \sum_{k=1}^K \sum_{j=1}^B \frac{|\mathcal B_{jk}|}{N}
        \bigl|o(\mathcal B_{jk}) - p(\mathcal B_{jk})\bigr|^p\Bigr)^{1/p},
        \qquad \mathcal B_{jk} = \{i : \tfrac{j-1}{B} \le \hat p_{ik} < \tfrac jB\}

    with :math:`o` the observed frequency of class :math:`k` and :math:`p` the mean predicted
    probability in the bin (Eq. 4); the last bin is right-closed. With p = 1 it is the mean over
    classes of the binary ECE of "class k vs rest" (Kull et al., 2019; the static calibration
    error SCE of Nixon et al. 2019; see :attr:`credalbook.metrics.ReliabilityCurve.calibration_error`); with p = 2
    the marginal ℓ2 calibration error of Kumar et al. (2019). ``strategy="quantile"`` bins each
    class's N probabilities into B bins of about N/B (with p = 1 this is :func:`ace`);
    ``debiased`` (p = 2) corrects each class's squared error as in :func:`ece_confidence` and
    clips it at 0 before the mean over classes, as Kumar et al.'s marginal estimator does.

    Parameters and return value as in :func:`ece_confidence` (``ci``: a bootstrap interval).

    References
    ----------
    Mortier et al. (2023), Eqs. (4)-(5); Kull, Perello-Nieto, Kängsepp, Silva Filho, Song, Flach.
    Beyond temperature scaling. NeurIPS 2019; Nixon et al. (2019); Kumar et al. (2019), Sec. 5.

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece_classwise(p, [0, 0, 0, 1], n_bins=10), 6)   # each class: (.1 + .9 + .4 + .4) / 4
    0.45
    """
    n_bins, strategy, norm, debiased = _check_options(n_bins, strategy, norm, debiased, "ece_classwise")
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    value = as_scalar(ece_classwise_batched(p, y, n_bins, strategy=strategy, norm=norm, debiased=debiased))
    if ci is None:
        return value
    if strategy == "uniform":
        return _classwise_counts_estimate(
            p, y, value, n_bins=n_bins, norm=norm, debiased=debiased, ci=ci, n_resamples=n_resamples, seed=seed
        )
    statistic = functools.partial(ece_classwise_batched, n_bins=n_bins, strategy=strategy, norm=norm, debiased=debiased)
    return bootstrap_estimate(statistic, (p, y), value, ci=ci, n_resamples=n_resamples, seed=seed)


def ece_classwise_batched(
    p: np.ndarray, y: np.ndarray, n_bins: int, *, strategy: str = "uniform", norm: float = 1, debiased: bool = False
) -> np.ndarray:
    """:func:`ece_classwise` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    s = _bin_statistics(
        np.ascontiguousarray(p), y.astype(np.intp, copy=False), n_bins, strategy, counts=norm != 1 or debiased
    )
    return _root(_power_error(s, norm, debiased).mean(axis=-1), norm)


@batch_capable
def ace(probs, labels, *, n_bins: int = 10, ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Adaptive calibration error ACE of Nixon et al. (2019): classwise, equal-mass ranges.

    .. math::
        \mathrm{ACE} = \frac1K \sum_{k=1}^K \sum_{r=1}^R \frac{|\mathcal R_{rk}|}{N}
        \bigl|\mathrm{acc}(r, k) - \mathrm{conf}(r, k)\bigr|

    For each class :math:`k` the N predicted probabilities :math:`\hat p_{ik}` (all of them, not
    only the top label) are split into R = ``n_bins`` calibration ranges :math:`\mathcal R_{rk}`
    holding N/R of them each; :math:`\mathrm{acc}(r, k)` is the frequency of class :math:`k` and
    :math:`\mathrm{conf}(r, k)` the mean of :math:`\hat p_{ik}` in range r. When R divides N (and
    no probabilities are tied at a cut) every weight is 1/R and this is Nixon et al.'s
    :math:`\frac1{KR}\sum_k\sum_r|\mathrm{acc}(r,k) - \mathrm{conf}(r,k)|`; otherwise the ranges are
    weighted by their sizes, as in the authors' code (``uncertainty_metrics``, ``gce`` with
    adaptive, class-conditional bins). Ranges are intervals of values (ties are never split; see
    ``credalbook.metrics.binning.equal_mass_cuts``). It is
    ``ece_classwise(probs, labels, n_bins=n_bins, strategy="quantile")``.

    Other libraries use the name for other errors: torch-uncertainty's ``AdaptiveCalibrationError``
    is the top-label error with equal-mass bins, ``ece_confidence(..., strategy="quantile")``;
    netcal's ``ACE`` is an "average" calibration error, the unweighted mean over non-empty
    equal-width bins. Wu & Gales' (2021) all-label calibration error, which they also call ACE, is
    :func:`credalbook.metrics.all_label_ece`.

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    n_bins : int, default 10
        R, the number of ranges per class.
    ci, n_resamples, seed
        A bootstrap interval, as in :func:`ece_confidence`.

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Nixon, Dusenberry, Zhang, Jerfel, Tran. Measuring calibration in deep learning. CVPR
    Workshops 2019 (the definition of ACE; TACE adds a threshold on the probabilities).

    Examples
    --------
    Two classes, four instances, R = 2 ranges per class (two probabilities each):

    >>> p = [[0.9, 0.1], [0.8, 0.2], [0.4, 0.6], [0.3, 0.7]]
    >>> round(ace(p, [0, 1, 1, 1], n_bins=2), 6)   # class 0: (2/4)|0 - 0.35| + (2/4)|0.5 - 0.85|; class 1 alike
    0.35
    """
    return ece_classwise(probs, labels, n_bins=n_bins, strategy="quantile", ci=ci, n_resamples=n_resamples, seed=seed)


def calibration_summary(probs, labels, *, n_bins: int = 10) -> dict:
    """All the metrics of this module for one model, as a dict (one row of a results table).

    Keys: ``accuracy``, ``mean_confidence``, ``brier_score``, ``nll``, ``ece_confidence``, ``ece_classwise``,
    each named as the function that computes it (``brier``, ``ece_conf`` and ``ece_cwise``, the keys of
    earlier releases, still read with a :class:`FutureWarning` until 0.7).

    Examples
    --------
    >>> s = calibration_summary([[0.9, 0.1], [0.2, 0.8]], [0, 1], n_bins=10)
    >>> round(s["mean_confidence"] - s["accuracy"], 2)
    -0.15
    """
    p, y = check_probs_labels(probs, labels)
    summary = {
        "accuracy": accuracy(p, y),
        "mean_confidence": as_scalar(p.max(axis=-1).mean(axis=-1)),
        "brier_score": brier_score(p, y),
        "nll": nll(p, y),
        "ece_confidence": ece_confidence(p, y, n_bins=n_bins),
        "ece_classwise": ece_classwise(p, y, n_bins=n_bins),
    }
    return RenamedKeys(summary, renames=SUMMARY_RENAMED_KEYS, where="calibration_summary()")


#: Keys of :func:`calibration_summary` renamed in 0.6: ``{old: new}``.
SUMMARY_RENAMED_KEYS = {"brier": "brier_score", "ece_conf": "ece_confidence", "ece_cwise": "ece_classwise"}
