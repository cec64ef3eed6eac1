r"""The core of the binned calibration errors: the ℓp error from bin statistics, and its bootstrap replicates.

:func:`credalbook.metrics.ece_confidence` and :func:`credalbook.metrics.ece_classwise` bin with
:func:`credalbook.metrics.bin_statistics` and turn the per-bin sums into an error here. Their ``ci=``
keyword with equal-width bins resamples without re-binning: an instance's equal-width bin does not depend
on the other instances, so its bins and weights are computed once and each replicate only sums them
(:func:`credalbook.metrics.intervals.resample_counts` / ``resample_statistic`` with the same seed give the
same resamples as gathering the rows). No validation here: the public errors check their inputs.
"""

from __future__ import annotations

import functools

import numpy as np

from credalbook.metrics.binning import BinStatistics, equal_width_bin_index
from credalbook.metrics.intervals import bootstrap_estimate, counts_estimate


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
            term = gap**2 - obs * (1.0 - obs) / np.maximum(n_b - 1, 1)
            return np.maximum((np.where(n_b >= 2, term, 0.0) * n_b).sum(axis=-1) / s.n, 0.0)
    return (np.abs(gap) ** norm * n_b).sum(axis=-1) / s.n


def _root(power: np.ndarray, norm: float) -> np.ndarray:
    return power if norm == 1 else power ** (1.0 / norm)


def _classwise_counts_estimate(
    p: np.ndarray, y: np.ndarray, value: float, *, n_bins: int, norm: float, debiased: bool, **options
):
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
    index = np.int32 if n * k < 2**31 else np.int64  # scipy's index type: no copies in the constructor
    cells = cells.astype(index).ravel()
    indptr = np.arange(0, n * k + 1, k, dtype=index)
    rows = np.arange(n)
    w = np.negative(p)
    w[rows, y] += 1.0  # 1 - x at the positive outcome, exactly as bin_statistics computes o - x
    mats = [sparse.csr_matrix((w.ravel(), cells, indptr), shape=(n, k * n_bins))]
    if norm != 1 or debiased:
        hit = np.zeros((n, k))
        hit[rows, y] = 1.0
        mats += [
            sparse.csr_matrix((np.ones(n * k), cells, indptr), shape=(n, k * n_bins)),
            sparse.csr_matrix((hit.ravel(), cells, indptr), shape=(n, k * n_bins)),
        ]
    statistic = functools.partial(
        _counts_error, mats=mats, n=n, n_classes=k, n_bins=n_bins, norm=norm, debiased=debiased
    )
    return counts_estimate(statistic, n, value, **options)


def _counts_error(
    counts: np.ndarray, *, mats: list, n: int, n_classes: int, n_bins: int, norm: float, debiased: bool
) -> np.ndarray:
    """The classwise error of R' replicates with multiplicities ``counts`` (R', N) → (R',)."""
    shape = (counts.shape[0], n_classes, n_bins)
    sums = [np.ascontiguousarray(counts @ a).reshape(shape) for a in mats]  # C order: the sums of bin_statistics
    s = BinStatistics(
        gap=sums[0], counts=sums[1] if len(sums) > 1 else None, positives=sums[2] if len(sums) > 1 else None, n=n
    )
    return _root(_power_error(s, norm, debiased).mean(axis=-1), norm)


def _equal_width_estimate(
    x: np.ndarray, pos: np.ndarray, value: float, *, n_bins: int, norm: float, debiased: bool, **options
):
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


def _replicate_error(
    ids: np.ndarray,
    w: np.ndarray,
    hit_ids: np.ndarray | None = None,
    *,
    n_bins: int,
    n_problems: int,
    norm: float,
    debiased: bool,
) -> np.ndarray:
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
    return _root(
        _power_error(BinStatistics(gap=gap, counts=counts, positives=positives, n=n), norm, debiased).mean(axis=-1),
        norm,
    )
