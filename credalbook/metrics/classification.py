r"""Core metrics for probabilistic classifiers: accuracy, proper scores and binned calibration errors.

Every function takes ``probs`` of shape ``(..., N, K)`` (rows on the probability simplex) and
``labels`` of shape ``(..., N)`` (integers in ``[0, K)``), as NumPy arrays or torch tensors, and
returns a float, or an array of shape ``(...)`` when leading batch dimensions are given. Batching
lets the bootstrap tests of later chapters evaluate a measure on many replicates at once.

**The binned calibration errors, by their names in the field.** :func:`ece_confidence` (top-label,
Guo et al. 2017) and :func:`ece_classwise` (classwise, Kull et al. 2019; the "static" SCE of Nixon
et al. 2019) with ``binning="equal_width"`` (default) or ``"equal_mass"`` ("adaptive" bins), the
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
from dataclasses import dataclass

import numpy as np

from credalbook._validation import as_scalar, check_choice, check_n_bins, check_positive_float, check_probs_labels
from credalbook.metrics.binning import (
    _bin_statistics,
    BinStatistics,
    bin_sums,
    check_binning,
    cut_index,
    equal_mass_cuts,
    equal_width_bin_index,
    uniform_edges,
)
from credalbook.metrics.intervals import (
    batch_capable,
    bootstrap_estimate,
    check_ci_keyword,
    check_unbatched,
    counts_estimate,
)

__all__ = [
    "accuracy",
    "ace",
    "brier_score",
    "calibration_summary",
    "nll",
    "ece_confidence",
    "ece_classwise",
    "ece_confidence_batched",
    "ece_classwise_batched",
    "ReliabilityCurve",
    "reliability_curve",
    "one_hot",
]


def one_hot(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot float64 encoding ``(..., K)`` of integer ``labels`` (...); no validation.

    Examples
    --------
    >>> one_hot(np.array([2, 0]), 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return (labels[..., None] == np.arange(n_classes)).astype(np.float64)


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


def _mean_last(terms: np.ndarray) -> np.ndarray:
    return terms.mean(axis=-1)


def _mean_estimate(terms: np.ndarray, value: float, *, ci, n_resamples, seed):
    """Bootstrap interval of the mean of per-instance ``terms`` (N,): the ``ci=`` of accuracy, NLL, Brier score."""
    return bootstrap_estimate(_mean_last, (terms,), value, ci=ci, n_resamples=n_resamples, seed=seed)


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
    hits = p.argmax(axis=-1) == y
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
    terms = ((p - one_hot(y, p.shape[-1])) ** 2).sum(axis=-1)
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
    p_true = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]
    terms = -np.log(np.clip(p_true, eps, None))
    value = as_scalar(terms.mean(axis=-1))
    if ci is None:
        return value
    return _mean_estimate(terms, value, ci=ci, n_resamples=n_resamples, seed=seed)


for _metric in (accuracy, brier_score, nll):
    if _metric.__doc__:   # None under python -OO
        _metric.__doc__ = _metric.__doc__.replace("{ci}", _MEAN_CI_DOC)


def _check_options(n_bins, binning, norm, debiased) -> tuple[int, str, float, bool]:
    """Validate the options shared by the binned calibration errors."""
    n_bins = check_n_bins(n_bins)
    check_binning(binning)
    if isinstance(norm, (bool, np.bool_)) or not isinstance(norm, numbers.Real) or not (1 <= norm < np.inf):
        raise ValueError(f"norm must be a real number >= 1 (1: ECE, 2: the l2 calibration error); got {norm!r}")
    if not isinstance(debiased, (bool, np.bool_)):
        raise ValueError(f"debiased must be True or False; got {debiased!r}")
    if debiased and norm != 2:
        raise ValueError(f"debiased=True is the debiased estimator of the squared l2 error and needs norm=2; got norm={norm!r}")
    return n_bins, binning, float(norm), bool(debiased)


def _power_error(s: BinStatistics, norm: float, debiased: bool) -> np.ndarray:
    r"""Per-problem :math:`\sum_b \frac{n_b}{N} |\bar o_b - \bar x_b|^p` (p = ``norm``) from bin statistics.

    Shape (..., C, B) → (..., C). ``norm = 1`` is :math:`\sum_b |G_b| / N` with :math:`G_b` the
    gap sums (no division by bin sizes). ``debiased`` (p = 2) subtracts from each bin with
    :math:`n_b \ge 2` the variance :math:`\bar o_b(1 - \bar o_b)/(n_b - 1)` of its mean outcome
    and clips the sum at 0, as Kumar et al.'s ``unbiased_square_ce``; bins with fewer than two
    predictions contribute 0 there.
    """
    if norm == 1 and not debiased:
        return np.abs(s.gap).sum(axis=-1) / s.n
    n_b = s.counts
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(n_b > 0, s.gap / n_b, 0.0)
        if debiased:
            obs = np.where(n_b > 0, s.positives / n_b, 0.0)
            term = gap ** 2 - obs * (1.0 - obs) / np.maximum(n_b - 1, 1)
            return np.maximum((np.where(n_b >= 2, term, 0.0) * n_b).sum(axis=-1) / s.n, 0.0)
    return (np.abs(gap) ** norm * n_b).sum(axis=-1) / s.n


def _root(power: np.ndarray, norm: float) -> np.ndarray:
    return power if norm == 1 else power ** (1.0 / norm)


def _top_label(p: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Confidences (..., N, 1) and the problem index of a correct prediction (0) or -1 (..., N)."""
    yhat = p.argmax(axis=-1)
    conf = np.take_along_axis(p, yhat[..., None], axis=-1)
    return conf, np.where(yhat == y, 0, -1)


@batch_capable
def ece_confidence(probs, labels, *, n_bins: int = 10, binning: str = "equal_width", norm: float = 1,
                   debiased: bool = False, ci: float | None = None, n_resamples: int = 1000, seed=None):
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
    binning : {"equal_width", "equal_mass"}, default "equal_width"
        ``"equal_mass"``: B bins holding about N/B confidences each (the "adaptive" binning of
        Nixon et al. 2019; cuts of :func:`credalbook.metrics.equal_mass_cuts`, ties at a cut kept
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
    n_bins, binning, norm, debiased = _check_options(n_bins, binning, norm, debiased)
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    value = as_scalar(ece_confidence_batched(p, y, n_bins, binning=binning, norm=norm, debiased=debiased))
    if ci is None:
        return value
    conf, positive = _top_label(p, y)
    if binning == "equal_width":
        return _equal_width_estimate(conf, positive, value, n_bins=n_bins, norm=norm, debiased=debiased,
                                     ci=ci, n_resamples=n_resamples, seed=seed)
    statistic = functools.partial(_top_label_error, n_bins=n_bins, binning=binning, norm=norm, debiased=debiased)
    return bootstrap_estimate(statistic, (conf, positive), value, ci=ci, n_resamples=n_resamples, seed=seed)


def ece_confidence_batched(p: np.ndarray, y: np.ndarray, n_bins: int, *, binning: str = "equal_width",
                           norm: float = 1, debiased: bool = False) -> np.ndarray:
    """:func:`ece_confidence` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    conf, positive = _top_label(p, y)
    return _top_label_error(conf, positive, n_bins=n_bins, binning=binning, norm=norm, debiased=debiased)


def _top_label_error(conf: np.ndarray, positive: np.ndarray, *, n_bins: int, binning: str, norm: float,
                     debiased: bool) -> np.ndarray:
    """The top-label error from confidences (..., N, 1) and the correct-prediction problem index (..., N)."""
    s = _bin_statistics(conf, positive, n_bins, binning, counts=norm != 1 or debiased)
    return _root(_power_error(s, norm, debiased)[..., 0], norm)


@batch_capable
def ece_classwise(probs, labels, *, n_bins: int = 10, binning: str = "equal_width", norm: float = 1,
                  debiased: bool = False, ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Classwise expected calibration error (Mortier et al., Eq. 5; Kull et al. 2019).

    .. math::
        \mathrm{ECE}_{cwise} = \Bigl(\frac1K \sum_{k=1}^K \sum_{j=1}^B \frac{|\mathcal B_{jk}|}{N}
        \bigl|o(\mathcal B_{jk}) - p(\mathcal B_{jk})\bigr|^p\Bigr)^{1/p},
        \qquad \mathcal B_{jk} = \{i : \tfrac{j-1}{B} \le \hat p_{ik} < \tfrac jB\}

    with :math:`o` the observed frequency of class :math:`k` and :math:`p` the mean predicted
    probability in the bin (Eq. 4); the last bin is right-closed. With p = 1 it is the mean over
    classes of the binary ECE of "class k vs rest" (Kull et al., 2019; the static calibration
    error SCE of Nixon et al. 2019; see :attr:`ReliabilityCurve.calibration_error`); with p = 2
    the marginal ℓ2 calibration error of Kumar et al. (2019). ``binning="equal_mass"`` bins each
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
    n_bins, binning, norm, debiased = _check_options(n_bins, binning, norm, debiased)
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    value = as_scalar(ece_classwise_batched(p, y, n_bins, binning=binning, norm=norm, debiased=debiased))
    if ci is None:
        return value
    if binning == "equal_width":
        return _classwise_counts_estimate(p, y, value, n_bins=n_bins, norm=norm, debiased=debiased, ci=ci,
                                          n_resamples=n_resamples, seed=seed)
    statistic = functools.partial(ece_classwise_batched, n_bins=n_bins, binning=binning, norm=norm, debiased=debiased)
    return bootstrap_estimate(statistic, (p, y), value, ci=ci, n_resamples=n_resamples, seed=seed)


def _classwise_counts_estimate(p: np.ndarray, y: np.ndarray, value: float, *, n_bins: int, norm: float,
                               debiased: bool, **options):
    r"""Bootstrap interval of the equal-width classwise error from the multiplicities of the instances.

    Equal-width bins do not move under resampling, so each (instance, class) cell
    :math:`j = k B + b_{ik}` and its weight :math:`o_{ik} - \hat p_{ik}` are computed once, as a
    sparse (N, K·B) matrix :math:`W` with K entries per row; a replicate with multiplicities
    :math:`m_i` (``numpy.bincount`` of its indices) has the gap sums :math:`m^\top W`, one sparse
    product per chunk of replicates (bin sizes and positives alike, for ``norm != 1`` or
    ``debiased``). The indices are those of gathering (:func:`~credalbook.metrics.intervals.resample_counts`),
    so the replicates equal those of binning the gathered rows up to the order of the sums
    (1e-12; a test holds them to a plain loop). About 3× faster at N = 10⁶, K = 10.
    """
    from scipy import sparse

    n, k = p.shape
    cells = equal_width_bin_index(p, n_bins)
    cells += n_bins * np.arange(k, dtype=np.intp)
    index = np.int32 if n * k < 2**31 else np.int64   # scipy's index type: no copies in the constructor
    cells = cells.astype(index).ravel()
    indptr = np.arange(0, n * k + 1, k, dtype=index)
    rows = np.arange(n)
    w = np.negative(p)
    w[rows, y] += 1.0  # 1 - x at the positive outcome, exactly as bin_statistics computes o - x
    mats = [sparse.csr_matrix((w.ravel(), cells, indptr), shape=(n, k * n_bins))]
    if norm != 1 or debiased:
        hit = np.zeros((n, k))
        hit[rows, y] = 1.0
        mats += [sparse.csr_matrix((np.ones(n * k), cells, indptr), shape=(n, k * n_bins)),
                 sparse.csr_matrix((hit.ravel(), cells, indptr), shape=(n, k * n_bins))]
    statistic = functools.partial(_counts_error, mats=mats, n=n, n_classes=k, n_bins=n_bins, norm=norm,
                                  debiased=debiased)
    return counts_estimate(statistic, n, value, **options)


def _counts_error(counts: np.ndarray, *, mats: list, n: int, n_classes: int, n_bins: int, norm: float,
                  debiased: bool) -> np.ndarray:
    """The classwise error of R' replicates with multiplicities ``counts`` (R', N) → (R',)."""
    shape = (counts.shape[0], n_classes, n_bins)
    sums = [np.ascontiguousarray(counts @ a).reshape(shape) for a in mats]   # C order: the sums of bin_statistics
    s = BinStatistics(gap=sums[0], counts=sums[1] if len(sums) > 1 else None,
                      positives=sums[2] if len(sums) > 1 else None, n=n)
    return _root(_power_error(s, norm, debiased).mean(axis=-1), norm)


def _equal_width_estimate(x: np.ndarray, pos: np.ndarray, value: float, *, n_bins: int, norm: float,
                          debiased: bool, **options):
    """Bootstrap interval of an equal-width error of C problems (x (N, C), positive problem ``pos`` (N,) or -1).

    An instance's equal-width bins do not depend on the other instances, so they are computed once,
    with the weights :math:`o - x` and the bin of the positive outcome; a replicate gathers those
    and sums them per bin (one ``numpy.bincount``), in the order of the resampled instances, as
    :func:`credalbook.metrics.bin_statistics` sums the resampled data. Used for the top-label
    error (C = 1: a third of the time of gathering and binning the confidences); for K classes
    gathering K bins and K weights per instance is slower than binning the gathered rows.
    """
    n, c = x.shape
    ids = equal_width_bin_index(x, n_bins) + n_bins * np.arange(c)
    w = np.negative(x)
    hit = np.flatnonzero(pos >= 0)
    w[hit, pos[hit]] += 1.0  # 1 - x at the positive outcome, as bin_statistics computes o - x
    hit_ids = np.full(n, -1, dtype=np.intp)
    hit_ids[hit] = ids[hit, pos[hit]]
    statistic = functools.partial(_replicate_error, n_bins=n_bins, n_problems=c, norm=norm, debiased=debiased)
    if c == 1:  # 1-D arrays gather faster
        ids, w = ids[:, 0].copy(), w[:, 0].copy()
    data = (ids, w, hit_ids) if norm != 1 or debiased else (ids, w)
    return bootstrap_estimate(statistic, data, value, **options)


def _replicate_error(ids: np.ndarray, w: np.ndarray, hit_ids: np.ndarray | None = None, *, n_bins: int,
                     n_problems: int, norm: float, debiased: bool) -> np.ndarray:
    """The binned error (mean over the problems) of R' replicates of gathered bins ``ids`` and weights ``w``
    (R', N, C) or (R', N) for C = 1, and positive bins ``hit_ids`` (R', N; needed for norm != 1 or debiased) → (R',)."""
    m, n = ids.shape[:2]
    ids = ids.reshape(m, n, -1)
    nb = n_problems * n_bins
    offset = nb * np.arange(m, dtype=np.intp)
    flat = (ids + offset[:, None, None]).ravel()
    shape = (m, n_problems, n_bins)
    gap = np.bincount(flat, weights=w.ravel(), minlength=m * nb).reshape(shape)
    counts = positives = None
    if norm != 1 or debiased:
        counts = np.bincount(flat, minlength=m * nb).reshape(shape)
        positives = np.bincount((hit_ids + offset[:, None])[hit_ids >= 0], minlength=m * nb).reshape(shape)
    return _root(_power_error(BinStatistics(gap=gap, counts=counts, positives=positives, n=n), norm, debiased)
                 .mean(axis=-1), norm)


def ece_classwise_batched(p: np.ndarray, y: np.ndarray, n_bins: int, *, binning: str = "equal_width",
                          norm: float = 1, debiased: bool = False) -> np.ndarray:
    """:func:`ece_classwise` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    s = _bin_statistics(np.ascontiguousarray(p), y.astype(np.intp, copy=False), n_bins, binning,
                        counts=norm != 1 or debiased)
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
    :func:`credalbook.metrics.equal_mass_cuts`). It is
    ``ece_classwise(probs, labels, n_bins=n_bins, binning="equal_mass")``.

    Other libraries use the name for other errors: torch-uncertainty's ``AdaptiveCalibrationError``
    is the top-label error with equal-mass bins, ``ece_confidence(..., binning="equal_mass")``;
    netcal's ``ACE`` is an "average" calibration error, the unweighted mean over non-empty
    equal-width bins. Wu & Gales' (2021) all-label calibration error, which they also call ACE (and
    which credalbook called ``ace`` before issue #27), is :func:`credalbook.metrics.all_label_ece`.

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
    return ece_classwise(probs, labels, n_bins=n_bins, binning="equal_mass", ci=ci, n_resamples=n_resamples, seed=seed)


@dataclass(frozen=True)
class ReliabilityCurve:
    """Binned reliability data: what a reliability diagram plots.

    Attributes
    ----------
    bin_edges : ndarray (B + 1,)
    counts : ndarray (B,) number of (instance, class) pairs per bin
    mean_predicted : ndarray (B,) mean predicted probability / confidence per bin (NaN if empty)
    observed : ndarray (B,) observed frequency / accuracy per bin (NaN if empty)
    kind : "confidence" or "classwise"
    class_index : int or None (classwise only; None pools all classes)
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    observed: np.ndarray
    kind: str
    class_index: int | None = None

    @property
    def calibration_error(self) -> float:
        """Count-weighted mean of ``|observed - mean_predicted|`` over non-empty bins.

        For ``kind="confidence"`` this is :func:`ece_confidence` (with the curve's binning); for
        ``kind="classwise"`` with a ``class_index`` it is the binary ECE of that class, whose mean
        over classes is :func:`ece_classwise`.
        """
        nonempty = self.counts > 0
        gaps = np.abs(self.observed[nonempty] - self.mean_predicted[nonempty])
        return float((self.counts[nonempty] * gaps).sum() / self.counts.sum())


def reliability_curve(probs, labels, *, n_bins: int = 10, kind: str = "confidence", class_index: int | None = None,
                      binning: str = "equal_width"):
    r"""Reliability-diagram data with equal-width or equal-mass bins (Mortier et al., Eqs. 4-6).

    ``kind="confidence"`` bins the confidence :math:`c_i` and reports accuracy per bin;
    ``kind="classwise"`` bins :math:`\hat p_{ik}` and reports the frequency of class :math:`k`,
    for one ``class_index`` or pooled over all classes (every (i, k) pair counted once).
    ``binning="equal_mass"`` cuts the binned values into bins of about equal counts
    (:func:`credalbook.metrics.equal_mass_cuts`); ``bin_edges`` then holds 0, the cuts and 1.

    Returns
    -------
    ReliabilityCurve

    Examples
    --------
    >>> c = reliability_curve([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]], [0, 0, 0], n_bins=2)
    >>> c.counts.tolist(), c.observed.tolist()
    ([0, 3], [nan, 0.6666666666666666])
    """
    n_bins = check_n_bins(n_bins)
    check_choice(kind, "kind", {"confidence", "classwise"})
    check_binning(binning)
    p, y = check_probs_labels(probs, labels)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) for a reliability curve; got {p.shape}")
    check_class_index(class_index, kind, p.shape[1])
    pred, obs = reliability_values(p, y, kind, class_index)
    idx, edges, counts, mean_pred = reliability_bin_means(pred, n_bins, binning)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = bin_sums(idx, obs, n_bins) / counts
    return ReliabilityCurve(
        bin_edges=edges,
        counts=counts,
        mean_predicted=mean_pred,
        observed=observed,
        kind=kind,
        class_index=None if class_index is None else int(class_index),
    )


def check_class_index(class_index, kind: str, n_classes: int) -> None:
    """``class_index``: None, or with ``kind="classwise"`` an integer in [0, K)."""
    if kind != "classwise":
        if class_index is not None:
            raise ValueError("class_index is only used with kind='classwise'")
        return
    integer = isinstance(class_index, (int, np.integer)) and not isinstance(class_index, (bool, np.bool_))
    if class_index is not None and not (integer and 0 <= class_index < n_classes):
        raise ValueError(f"class_index must be an integer in [0, {n_classes}); got {class_index!r}")


def reliability_values(p: np.ndarray, y: np.ndarray | None, kind: str, class_index: int | None):
    r"""The values a reliability diagram bins and their outcomes (None without ``y``); checked (N, K) inputs.

    ``"confidence"``: :math:`c_i` and :math:`1[\hat y_i = y_i]`; ``"classwise"``: :math:`\hat p_{ik}` and
    :math:`1[y_i = k]` of one class, or of all (i, k) pairs (flattened) when ``class_index`` is None.
    """
    if kind == "confidence":
        return p.max(axis=1), None if y is None else (p.argmax(axis=1) == y).astype(np.float64)
    if class_index is None:
        return p.ravel(), None if y is None else one_hot(y, p.shape[1]).ravel()
    return p[:, class_index], None if y is None else (y == class_index).astype(np.float64)


def reliability_bins(pred: np.ndarray, n_bins: int, binning: str) -> tuple[np.ndarray, np.ndarray]:
    """Bin of each value (:func:`credalbook.metrics.equal_width_bin_index` or equal-mass cuts) and the edges
    (B + 1,) a diagram draws: 0, the cuts clipped to [0, 1], and 1 for equal-mass bins."""
    if binning == "equal_width":
        return equal_width_bin_index(pred, n_bins), uniform_edges(n_bins)
    cuts = equal_mass_cuts(pred, n_bins)
    return cut_index(pred, cuts), np.concatenate(([0.0], np.clip(cuts, 0.0, 1.0), [1.0]))


def reliability_bin_means(pred: np.ndarray, n_bins: int, binning: str):
    """:func:`reliability_bins` plus each bin's count and mean prediction (NaN in an empty bin):
    ``(ids, edges, counts, mean_predicted)``, what a reliability curve and its consistency bands share."""
    idx, edges = reliability_bins(pred, n_bins, binning)
    counts = bin_sums(idx, None, n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_pred = bin_sums(idx, pred, n_bins) / counts
    return idx, edges, counts, mean_pred


def calibration_summary(probs, labels, *, n_bins: int = 10) -> dict:
    """All the metrics of this module for one model, as a dict (one row of a results table).

    Keys: ``accuracy``, ``mean_confidence``, ``brier``, ``nll``, ``ece_conf``, ``ece_cwise``.

    Examples
    --------
    >>> s = calibration_summary([[0.9, 0.1], [0.2, 0.8]], [0, 1], n_bins=10)
    >>> round(s["mean_confidence"] - s["accuracy"], 2)
    -0.15
    """
    p, y = check_probs_labels(probs, labels)
    return {
        "accuracy": accuracy(p, y),
        "mean_confidence": as_scalar(p.max(axis=-1).mean(axis=-1)),
        "brier": brier_score(p, y),
        "nll": nll(p, y),
        "ece_conf": ece_confidence(p, y, n_bins=n_bins),
        "ece_cwise": ece_classwise(p, y, n_bins=n_bins),
    }
