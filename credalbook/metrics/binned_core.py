r"""The core of the binned calibration errors: the ℓp error from bin statistics, and its bootstrap replicates.

:func:`credalbook.metrics.ece_confidence` and :func:`credalbook.metrics.ece_classwise` bin with
:func:`credalbook.metrics.bin_statistics` and turn the per-bin sums into an error here. Their ``ci=``
keyword with equal-width bins resamples without re-binning: an instance's equal-width bin does not depend
on the other instances, so its bins and weights are computed once and each replicate only sums them,
weighted by the multiplicities of its instances (:func:`credalbook.metrics.intervals.resample_counts` gives
the resamples of ``resample_statistic`` with the same seed: the replicates of gathering the rows, up to
the order of the sums). No validation here: the public errors check their inputs.
"""

from __future__ import annotations

import functools

import numpy as np

from credalbook._threads import map_blocks
from credalbook.metrics.binning import BinStatistics, equal_width_bin_index
from credalbook.metrics.intervals import counts_estimate


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
    :math:`m_i` (how often the replicate drew it) has the gap sums :math:`m^\top W`, one sparse
    product per chunk of replicates (bin sizes and positives alike, for ``norm != 1`` or
    ``debiased``). The indices are those of gathering (:func:`~credalbook.metrics.intervals.resample_counts`),
    so the replicates equal those of binning the gathered rows up to the order of the sums
    (1e-12; a test holds them to a plain loop). About 3× faster at N = 10⁶, K = 10.
    """
    n = p.shape[0]
    hit = np.zeros(p.shape, dtype=bool)
    hit[np.arange(n), y] = True
    return _cells_counts_estimate(p, hit, value, n_bins=n_bins, norm=norm, debiased=debiased, **options)


def _cells_counts_estimate(
    x: np.ndarray, hit: np.ndarray, value: float, *, n_bins: int, norm: float, debiased: bool, **options
):
    """Bootstrap interval of the equal-width error of C problems, scores ``x`` (N, C) and outcomes ``hit``
    (N, C) bool, from the multiplicities of the instances (see :func:`_classwise_counts_estimate`)."""
    statistic = _cells_counts_statistic(x, hit, n_bins=n_bins, norm=norm, debiased=debiased)
    return counts_estimate(statistic, x.shape[0], value, **options)


def _cells_counts_statistic(
    x: np.ndarray, hit: np.ndarray, *, n_bins: int, norm: float, debiased: bool, per_problem: bool = False
):
    """``statistic(counts (R', N)) -> (R',)``: the equal-width error of C problems (scores ``x`` (N, C),
    outcomes ``hit`` (N, C)) on replicates given by their multiplicities; ``per_problem``: the
    problems' terms (R', C) of :func:`_power_error`, before their mean."""
    from scipy import sparse

    n, k = x.shape
    index = np.int32 if n * k < 2**31 else np.intp  # scipy's index type
    cells, w = _cells_and_weights(x, hit, n_bins, index)
    indptr = np.arange(0, n * k + 1, k, dtype=index)
    weights = [w.ravel()]
    if norm != 1 or debiased:
        weights += [np.ones(n * k), hit.ravel().astype(np.float64)]
    # (N, C·B) with C entries per row: one sparse product per chunk of replicates (SciPy's, outside the GIL)
    terms = [sparse.csr_matrix((a, cells, indptr), shape=(n, k * n_bins)) for a in weights]
    return functools.partial(
        _counts_error,
        terms=terms,
        n=n,
        n_classes=k,
        n_bins=n_bins,
        norm=norm,
        debiased=debiased,
        per_problem=per_problem,
    )


#: Bytes of the classwise weights of the bootstrap held at once (:func:`class_groups`): above, the
#: classes are taken in groups, each on the same resamples drawn again.
CLASSWISE_BYTES = 3 << 27

#: Entries of ``x`` per block of :func:`_cells_and_weights` (temporaries of a few MiB at any N).
_BLOCK_ENTRIES = 1 << 20


def _cells_and_weights(x: np.ndarray, hit: np.ndarray, n_bins: int, index) -> tuple[np.ndarray, np.ndarray]:
    """The cell ``c * n_bins + b`` (N·C,) of each (instance, problem c), of dtype ``index``, and its weight
    ``hit - x`` (N, C), written block of rows by block of rows (each entry depends on its own value only), the
    blocks on the shared pool's threads (:func:`credalbook._threads.map_blocks`: the same numbers)."""
    n, k = x.shape
    cells = np.empty(n * k, dtype=index)
    w = np.empty((n, k))
    offsets = n_bins * np.arange(k, dtype=np.intp)

    def block(start: int, stop: int) -> None:
        ids = equal_width_bin_index(x[start:stop], n_bins)
        ids += offsets
        cells[start * k : stop * k] = ids.ravel()
        wb = w[start:stop]
        np.negative(x[start:stop], out=wb)
        wb[hit[start:stop]] += 1.0  # 1 - x at the positive outcome, exactly as bin_statistics computes o - x

    map_blocks(block, n, max(1, _BLOCK_ENTRIES // k))
    return cells, w


def _counts_error(
    counts: np.ndarray,
    *,
    terms: list,
    n: int,
    n_classes: int,
    n_bins: int,
    norm: float,
    debiased: bool,
    per_problem: bool = False,
) -> np.ndarray:
    """The error of R' replicates with multiplicities ``counts`` (R', N) → (R',): per-bin sums of the
    ``terms``, sparse (N, C·B) matrices of the weights in their cells."""
    m = counts.shape[0]
    shape = (m, n_classes, n_bins)
    sums = [np.ascontiguousarray(counts @ t) for t in terms]  # C order: the sums of bin_statistics
    sums = [a.reshape(shape) for a in sums]
    s = BinStatistics(
        gap=sums[0], counts=sums[1] if len(sums) > 1 else None, positives=sums[2] if len(sums) > 1 else None, n=n
    )
    power = _power_error(s, norm, debiased)
    return power if per_problem else _root(power.mean(axis=-1), norm)


def class_groups(n: int, k: int, max_bytes: int | None = None) -> list[slice] | None:
    """Groups of at least two classes whose classwise weights (12 bytes per instance and class: the
    weight and its cell) fit ``max_bytes`` (default :data:`CLASSWISE_BYTES`); None when all K fit at once.

    Examples
    --------
    >>> class_groups(10**6, 10), class_groups(10**7, 10)
    (None, [slice(0, 2, None), slice(2, 5, None), slice(5, 8, None), slice(8, 10, None)])
    """
    max_bytes = CLASSWISE_BYTES if max_bytes is None else max_bytes
    if 12 * n * k <= max_bytes:
        return None
    n_groups = min(-(-k // max(2, max_bytes // (12 * n))), k // 2)
    if n_groups < 2:
        return None
    bounds = [round(i * k / n_groups) for i in range(n_groups + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def _equal_width_estimate(
    x: np.ndarray, pos: np.ndarray, value: float, *, n_bins: int, norm: float, debiased: bool, **options
):
    """Bootstrap interval of an equal-width error of C problems (x (N, C), positive problem ``pos`` (N,) or -1).

    An instance's equal-width bins do not depend on the other instances, so they are computed once,
    with the weights :math:`o - x`; a replicate weights them by the multiplicities of its instances
    (:func:`_cells_counts_estimate`: the resample indices of gathering, the replicates of binning
    the gathered data up to the order of the sums). Used for the top-label error (C = 1).
    """
    hit = pos[:, None] == np.arange(x.shape[1])
    return _cells_counts_estimate(x, hit, value, n_bins=n_bins, norm=norm, debiased=debiased, **options)
