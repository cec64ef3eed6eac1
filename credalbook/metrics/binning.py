r"""One binning helper for every binned metric: bin indices and per-bin sums.

Binned calibration metrics share two steps: assign each value (a confidence, a class
probability, a statistic) to a bin, then sum per bin (counts, predictions, outcomes). This module
does both, once:

- :func:`bin_ids` — ``strategy="uniform"``: B equal-width bins of [0, 1],
  :math:`[j/B, (j+1)/B)` with the last one right-closed (``equal_width_bin_index``);
  ``strategy="quantile"``: B equal-mass bins holding equal numbers of the values
  (``equal_mass_cuts``);
- :func:`bin_index` — bins given by explicit edges (same half-open rule); :func:`cut_index` —
  bins given by interior cuts, the outer two unbounded;
- :func:`bin_sums` — per-bin sums (or counts) along the last axis, batched over leading axes with
  one ``numpy.bincount``;
- :func:`bin_statistics` — the engine of the binned calibration errors: for many binary problems
  at once (the K classes, or the confidence), the per-bin sums of outcome minus prediction, bin
  sizes and positives, with ``strategy="uniform"`` (equal-width) or ``"quantile"`` (equal-mass, cuts per
  problem).

Users: the confidence and classwise ECEs, the adaptive calibration error and the reliability curve
(:mod:`credalbook.metrics.classification`, through :func:`bin_statistics`), the region criteria of Wu & Gales
(:mod:`credalbook.metrics.regions`, whose regions are equal-width bins for ε = 1/(2B)), and the
label-histogram metrics (:mod:`credalbook.metrics.label_hist`, :mod:`credalbook.metrics.label_stats`).
The Hosmer-Lemeshow statistic groups *sorted instances* into groups of equal size (ties split by
position), a different rule, and keeps its own grouping.

**The bin rule at the edges.** A value :math:`x` is in bin :math:`j` iff
:math:`e_j \le x < e_{j+1}` with the edges computed as ``j / B`` exactly (not ``numpy.linspace``,
and not ``floor(x * B)``, which puts e.g. a value just below an edge into the upper bin when
``x * B`` rounds up); 0 falls in the first bin, 1.0 in the last (there is no bin B + 1), and values
outside [0, 1] in the nearest outer bin. Equal-mass bins are intervals of values too: values tied
at a cut are never split between bins (they go to the upper one), so with many ties some bins hold
more than N/B values and others fewer or none; with more bins than values (B > N) at most N bins
are non-empty.

References
----------
Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017 (equal-width
bins). Nixon et al. Measuring calibration in deep learning. CVPR Workshops 2019 (equal-mass bins).
Kumar, Liang, Ma. Verified uncertainty calibration. NeurIPS 2019 (equal-mass bins with cuts at
midpoints).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import renamed, renamed_value
from credalbook._threads import in_order, map_blocks, shared_pool
from credalbook._threads import workers as _workers
from credalbook._validation import as_numpy, check_choice, check_n_bins, check_real_dtype, SIMPLEX_ATOL
from credalbook.metrics.intervals import BLOCKED_MIN_N

# documented here; credalbook.metrics lists only what a user calls (BIN_STRATEGIES, BinStatistics, bin_ids,
# bin_statistics), the engine helpers are imported from this module
__all__ = [
    "BIN_STRATEGIES",
    "BinStatistics",
    "bin_ids",
    "bin_index",
    "bin_statistics",
    "bin_sums",
    "check_strategy",
    "cut_index",
    "equal_mass_cuts",
    "equal_width_bin_index",
    "one_hot",
    "uniform_edges",
]

#: Binning strategies of every binned metric (scikit-learn's words): equal-width and equal-mass bins.
BIN_STRATEGIES = ("uniform", "quantile")

#: Old spellings of the strategies, accepted with a FutureWarning for one minor version.
_OLD_STRATEGIES = {"equal_width": "uniform", "equal_mass": "quantile"}


def check_strategy(strategy, where: str = "") -> str:
    """Validate a binning ``strategy``: ``"uniform"`` (equal-width) or ``"quantile"`` (equal-mass).

    The old spellings ``"equal_width"`` and ``"equal_mass"`` are translated with a FutureWarning.

    Examples
    --------
    >>> check_strategy("quantile")
    'quantile'
    """
    return check_choice(renamed_value("strategy", strategy, _OLD_STRATEGIES, where=where), "strategy", BIN_STRATEGIES)


def uniform_edges(n_bins: int) -> np.ndarray:
    """Edges ``j / B``, j = 0..B, of B equal-width bins of [0, 1] (exact at 0.3, unlike ``linspace``).

    Examples
    --------
    >>> uniform_edges(4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    return np.arange(n_bins + 1) / n_bins


def bin_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """0-based bin of each value for increasing ``edges`` (B + 1,); no validation.

    Bin :math:`j` is :math:`[e_j, e_{j+1})`, the last one right-closed; values below :math:`e_0`
    go to bin 0 and values above :math:`e_B` to bin B − 1.

    Examples
    --------
    >>> bin_index(np.array([0.0, 0.2, 0.25, 0.9, 1.0]), np.array([0.0, 0.25, 0.5, 1.0]))
    array([0, 0, 1, 2, 2])
    """
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)


def cut_index(values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    r"""0-based bin of each value for interior ``cuts`` (B − 1,), non-decreasing; no validation.

    Bin :math:`m` is :math:`[c_m, c_{m+1})` with :math:`c_0 = -\infty` and :math:`c_B = \infty`
    (ties at a cut go to the upper bin), e.g. for the cuts of ``equal_mass_cuts``.

    Examples
    --------
    >>> cut_index(np.array([0.0, 0.25, 0.3, 0.9]), np.array([0.25, 0.45]))
    array([0, 1, 1, 2])
    """
    return np.searchsorted(cuts, values, side="right")


def equal_width_bin_index(values: np.ndarray, n_bins: int) -> np.ndarray:
    r"""Index of the equal-width bin of [0, 1] containing each value (any shape); no validation.

    Bin :math:`j` (0-based) is :math:`[j/B, (j+1)/B)`; the last bin is right-closed, so 1.0 falls
    in bin :math:`B-1` (Mortier et al., footnote 1). Edges are computed as ``j / B`` exactly, so a
    value such as 0.3 lands in bin 3 of 10 (``numpy.linspace`` would give 0.30000000000000004).
    Large arrays are binned in cache-sized steps: ``floor(x * B)``, then one
    comparison with each neighbouring edge (the result is that of :func:`bin_index` with
    :func:`uniform_edges`, in a fraction of the time of a binary search).

    Examples
    --------
    >>> equal_width_bin_index(np.array([0.0, 0.1, 0.3, 0.99, 1.0]), 10)
    array([0, 1, 3, 9, 9])
    """
    x = np.asarray(values)
    if x.size < 64 or x.dtype != np.float64:
        return bin_index(x, uniform_edges(n_bins))
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.shape[0], dtype=np.intp)
    m = min(_CHUNK, flat.shape[0])
    tmp, mask = np.empty(m), np.empty(m, dtype=bool)
    for s in range(0, flat.shape[0], m):
        blk = flat[s : s + m]
        _equal_width_ids(blk, n_bins, out[s : s + m], tmp[: blk.shape[0]], mask[: blk.shape[0]])
    return out.reshape(x.shape)


def equal_mass_cuts(values: np.ndarray, n_bins: int) -> np.ndarray:
    r"""Interior cuts (B − 1,) of B bins with equal numbers of ``values`` (1-D); no validation.

    With the T values sorted, :math:`s_{(1)} \le \dots \le s_{(T)}`, cut :math:`m` is the midpoint
    :math:`(s_{(k_m)} + s_{(k_m+1)})/2`, :math:`k_m = \mathrm{round}(mT/B)` (the rule of
    :func:`credalbook.metrics.interval_cuts`); the outer bins are unbounded. With fewer values
    than bins (T < B) some :math:`k_m` are 0 or T: those cuts are :math:`-\infty` or
    :math:`+\infty` and the bins they close are empty.

    Examples
    --------
    >>> equal_mass_cuts(np.array([0.1, 0.4, 0.2, 0.3, 0.6, 0.5]), 3)
    array([0.25, 0.45])
    >>> equal_mass_cuts(np.array([0.2, 0.6]), 4)   # k = 0, 1, 2 (rounded half to even)
    array([-inf,  0.4,  inf])
    """
    s = np.sort(values)
    t = s.shape[0]
    k = np.rint(np.arange(1, n_bins) * t / n_bins).astype(np.int64)
    if t >= n_bins:  # then 1 <= k_m <= T - 1
        return 0.5 * (s[k - 1] + s[k])
    inner = (k >= 1) & (k <= t - 1)
    cuts = np.where(k < 1, -np.inf, np.inf)
    cuts[inner] = 0.5 * (s[k[inner] - 1] + s[k[inner]])
    return cuts


def bin_ids(values, n_bins: int = 10, *, strategy: str = "uniform") -> np.ndarray:
    r"""0-based bin of each value: B equal-width bins of [0, 1] or B equal-mass bins.

    Parameters
    ----------
    values : array-like
        Any shape, real and finite; in [0, 1] for equal-width bins (up to the tolerance of
        probabilities, 1e-4; values just outside go to the outer bins). ``strategy="quantile"``
        bins each 1-D slice along the last axis on its own, any real values.
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: :math:`[j/B, (j+1)/B)`, last bin right-closed (0 in
        the first bin, 1.0 in the last). ``"quantile"``: bin :math:`m` is
        :math:`[c_m, c_{m+1})` for the cuts of ``equal_mass_cuts`` (:math:`c_0 = -\infty`,
        :math:`c_B = \infty`), so each bin holds about N/B values; ties at a cut go to the upper
        bin, and with fewer values than bins some bins are empty.

    Returns
    -------
    ndarray of int64, the shape of ``values``

    Examples
    --------
    >>> bin_ids([0.0, 0.15, 0.5, 1.0], 2).tolist()
    [0, 0, 1, 1]
    >>> bin_ids([0.1, 0.4, 0.2, 0.3, 0.6, 0.5], 3, strategy="quantile").tolist()
    [0, 1, 0, 1, 2, 2]
    """
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, "bin_ids")
    x = check_real_dtype(as_numpy(values, "values"), "values", what="be real numbers").astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite")
    if strategy == "uniform":
        bad = (x < -SIMPLEX_ATOL) | (x > 1 + SIMPLEX_ATOL)
        if bad.any():
            raise ValueError(f"values must lie in [0, 1] for equal-width bins of [0, 1]; got {x[bad].ravel()[0]!r}")
        return equal_width_bin_index(x, n_bins).astype(np.int64)
    if x.ndim == 0:
        raise ValueError(f"values must have at least one dimension for strategy={strategy!r}; got a scalar")
    rows = x.reshape(-1, x.shape[-1]) if x.size else x.reshape(0, 0)
    out = np.empty(rows.shape, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i] = cut_index(row, equal_mass_cuts(row, n_bins))
    return out.reshape(x.shape)


def one_hot(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot float64 encoding (the outcomes of the K "class k vs rest" problems) ``(..., K)`` of integer ``labels`` (...); no validation.

    Examples
    --------
    >>> one_hot(np.array([2, 0]), 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return (labels[..., None] == np.arange(n_classes)).astype(np.float64)


def bin_sums(ids: np.ndarray, weights: np.ndarray | None, n_bins: int) -> np.ndarray:
    """Per-bin sums of ``weights`` (or counts if None) along the last axis; no validation.

    ``ids`` (..., N) integers in [0, B) and ``weights`` (..., N) → (..., B), every leading index
    binned separately in one ``numpy.bincount`` (bins offset by B per row). Sums accumulate in
    the order of the values, as ``numpy.bincount`` on each row would.

    Examples
    --------
    >>> bin_sums(np.array([[0, 2, 2], [1, 1, 0]]), np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 3).tolist()
    [[1.0, 0.0, 5.0], [6.0, 9.0, 0.0]]
    >>> bin_sums(np.array([0, 2, 2]), None, 3).tolist()
    [1, 0, 2]
    """
    batch_shape, n = ids.shape[:-1], ids.shape[-1]
    n_rows = int(np.prod(batch_shape, dtype=np.int64))
    flat = ids.reshape(n) if n_rows == 1 else (ids.reshape(n_rows, n) + n_bins * np.arange(n_rows)[:, None]).ravel()
    w = None if weights is None else weights.reshape(-1)
    return np.bincount(flat, weights=w, minlength=n_rows * n_bins).reshape(*batch_shape, n_bins)


# ----------------------------------------------------------------------------------------------
# The engine of the binned calibration errors: per-bin sums for many binary problems at once
# ----------------------------------------------------------------------------------------------
# Elements processed per step by the equal-width engine: the temporaries of one step stay in the
# CPU cache, which makes the half-dozen elementwise passes of the exact bin rule cheap.
_CHUNK = 1 << 16
# Predictions (R·N·C) from which the equal-width engine bins its steps on several threads
# (:func:`_equal_width_statistics`), and the values per step there (fewer, larger steps than one thread's).
THREADED_BIN_ENTRIES = 1 << 19
_THREADED_CHUNK = 1 << 17
# Above this many cuts the equal-mass statistics sort the values instead of selecting the order
# statistics they need with one partition per cut.
_MAX_SELECT_CUTS = 64
# Equal-mass statistics copy the predictions of up to this many values at a time (problems × N).
_GROUP_VALUES = 1 << 24
# From this many values per problem the equal-mass statistics find their order statistics from a histogram of
# the values' leading bits (:func:`_equal_mass_histogram`) instead of partitioning the values.
HISTOGRAM_MIN_VALUES = 1 << 16
# The histogram's key of a double: its bits shifted right by this many, so that the key keeps the sign, the 11
# exponent bits and the 7 leading bits of the mantissa (a key's values lie within a factor 1 + 2**-7 of each other).
_KEY_SHIFT = 45


@dataclass(frozen=True)
class BinStatistics:
    """Per-bin sums of many binary problems, the input of every binned calibration error.

    Problem :math:`c` of batch element :math:`r` has predictions :math:`x_{ric}` and outcomes
    :math:`o_{ric} \\in \\{0, 1\\}`, :math:`i = 1..N`; bin :math:`b` of that problem is the set
    :math:`\\mathcal B_{rcb}` of instances whose prediction falls into it.

    Attributes
    ----------
    gap : ndarray (..., C, B)
        :math:`\\sum_{i \\in \\mathcal B} (o_{ic} - x_{ic})`, observed minus predicted.
    counts : ndarray of int64 (..., C, B) or None
        :math:`|\\mathcal B|` (None if not requested).
    positives : ndarray of int64 (..., C, B) or None
        :math:`\\sum_{i \\in \\mathcal B} o_{ic}` (None if not requested).
    n : int
        N, the number of instances of each problem.
    """

    gap: np.ndarray
    counts: np.ndarray | None
    positives: np.ndarray | None
    n: int


@renamed(binning="strategy")
def bin_statistics(
    values, positive, n_bins: int = 10, *, strategy: str = "uniform", counts: bool = False
) -> BinStatistics:
    r"""Per-bin sums of C binary problems per instance, binned equal-width or equal-mass.

    Instance :math:`i` has C predictions ``values[..., i, c]`` and (at most) one positive
    outcome, in problem ``positive[..., i]`` (``-1``: none), so that :math:`o_{ic} = 1[c =
    \mathrm{positive}_i]`. For the classwise ECE the problems are the K classes ("class k vs
    rest") and ``positive`` is the label; for the confidence ECE there is one problem, the
    confidence, whose outcome is 1 for a correct prediction (``positive = 0``) and 0 otherwise
    (``-1``). Each problem of each batch element is binned on its own:

    - ``"uniform"``: B equal-width bins :math:`[j/B, (j+1)/B)` of [0, 1], the last right-closed
      (``equal_width_bin_index``);
    - ``"quantile"``: B equal-mass bins :math:`[c_m, c_{m+1})` with the cuts of ``equal_mass_cuts``
      computed from that problem's N predictions, so each bin holds about N/B of them. Values
      tied at a cut stay together, in the upper bin, so ties can leave bins with fewer (or no)
      predictions; with more bins than predictions (B > N) some bins are empty.

    The sums accumulate in the order of the instances, bit for bit as one ``numpy.bincount`` per
    problem would, but in cache-sized steps (N = 10⁶, K = 10 takes a few tens of ms).

    Parameters
    ----------
    values : array-like, shape (..., N, C)
    positive : array-like of int, shape (..., N), values in [-1, C)
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (old spellings ``"equal_width"``, ``"equal_mass"``).
    counts : bool, default False
        Also return the bin sizes and the positives per bin.

    Returns
    -------
    BinStatistics

    Examples
    --------
    Three instances, two classes, labels 0, 1, 1, two equal-width bins:

    >>> s = bin_statistics([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], [0, 1, 1], 2, counts=True)
    >>> s.gap.round(6).tolist()   # class 0, bin 1: (1 - 0.8) + (0 - 0.6); class 1, bin 0: (0 - 0.2) + (1 - 0.4)
    [[-0.3, -0.4], [0.4, 0.3]]
    >>> s.counts.tolist(), s.positives.tolist()
    ([[1, 2], [2, 1]], [[0, 1], [1, 1]])
    """
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, "bin_statistics")
    x = check_real_dtype(as_numpy(values, "values"), "values", what="be real numbers")
    if x.ndim < 2 or x.shape[-2] < 1 or x.shape[-1] < 1:
        raise ValueError(f"values must have shape (..., N, C) with N, C >= 1; got shape {x.shape}")
    x = np.ascontiguousarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        raise ValueError("values must be finite")
    pos = as_numpy(positive, "positive")
    if pos.shape != x.shape[:-1] or pos.dtype.kind not in "iu":
        raise ValueError(f"positive must hold integers of shape {x.shape[:-1]}; got {pos.dtype} of shape {pos.shape}")
    if pos.size and (pos.min() < -1 or pos.max() >= x.shape[-1]):
        raise ValueError(f"positive must lie in [-1, {x.shape[-1]}); got values in [{pos.min()}, {pos.max()}]")
    return _bin_statistics(x, pos.astype(np.intp, copy=False), n_bins, strategy, counts)


def _bin_statistics(x: np.ndarray, pos: np.ndarray, n_bins: int, strategy: str, counts: bool) -> BinStatistics:
    """:func:`bin_statistics` without validation: float64 ``x`` (..., N, C) C-contiguous, intp ``pos`` (..., N)."""
    *batch, n, c = x.shape
    r = int(np.prod(batch, dtype=np.int64))
    xr, pr = x.reshape(r, n, c), pos.reshape(r, n)
    shape = (*batch, c, n_bins)
    if strategy == "uniform":
        gap, cnt, npos = _equal_width_statistics(xr, pr, n_bins, counts)
    else:
        gap = np.empty((r, c, n_bins))
        cnt = np.empty((r, c, n_bins), dtype=np.int64)
        npos = np.empty((r, c, n_bins), dtype=np.int64)
        group = max(1, min(c, _GROUP_VALUES // max(n, 1)))  # problems copied out at a time
        scratch = np.empty((group, n))
        pool = shared_pool() if c > 1 and n >= BLOCKED_MIN_N else None  # the problems' rows side by side
        for a in range(r):
            # the positive problem of each instance, in one byte where it fits (each problem compares it once)
            positive = pr[a].astype(np.int8) if c <= 127 else pr[a]
            problem = functools.partial(_equal_mass_problem, positive=positive, n_bins=n_bins)
            for k0 in range(0, c, group):
                k1 = min(c, k0 + group)
                _transpose_into(xr[a, :, k0:k1], scratch[: k1 - k0], threaded=pool is not None)
                rows = (pool.map if pool else map)(problem, scratch[: k1 - k0], range(k0, k1))
                for k, row in zip(range(k0, k1), rows):
                    gap[a, k], cnt[a, k], npos[a, k] = row
    return BinStatistics(
        gap=gap.reshape(shape),
        counts=None if cnt is None or not counts else cnt.reshape(shape),
        positives=None if npos is None or not counts else npos.reshape(shape),
        n=n,
    )


def _transpose_into(x: np.ndarray, out: np.ndarray, rows: int = 4096, *, threaded: bool = False) -> None:
    """``out[:] = x.T`` for ``x`` (N, G), in blocks of rows (twice as fast as one strided copy per column);
    ``threaded``: the blocks split between the shared pool's threads."""

    def copy(start: int, stop: int) -> None:
        for s in range(start, stop, rows):
            np.copyto(out[:, s : min(s + rows, stop)], x[s : min(s + rows, stop)].T)

    n = x.shape[0]
    per = -(-n // _workers()) if threaded else n
    map_blocks(copy, n, -(-per // rows) * rows, threaded=threaded)


def _equal_mass_problem(x: np.ndarray, k: int, *, positive: np.ndarray, n_bins: int):
    """:func:`_equal_mass_row` of problem ``k``, predictions ``x`` (T,) (a scratch copy): its positive outcomes are
    those of the instances whose ``positive`` (T,) is ``k``."""
    return _equal_mass_row(x, x[positive == k], n_bins)


def _equal_width_ids(x: np.ndarray, n_bins: int, out: np.ndarray, tmp: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Exact equal-width bins (the rule of ``equal_width_bin_index``) of a small contiguous block.

    ``floor(x * B)`` gives the bin up to one step; one comparison with each neighbouring edge
    ``j / B`` (as ``uniform_edges`` computes them) settles it. ``out`` (intp), ``tmp`` (float64)
    and ``mask`` (bool) are scratch arrays of ``x``'s shape.
    """
    lo, hi = _edge_tables(n_bins)
    np.multiply(x, n_bins, out=tmp)
    np.fmin(tmp, n_bins - 1, out=tmp)  # fmin: NaN -> B - 1, where a binary search over the edges puts it
    if x.shape[0] >= _INT_CLIP_MIN:  # the lower clip on the integers: cheaper than fmax on the floats, same bins
        with np.errstate(invalid="ignore"):  # -inf (or below -2**63) casts to the least integer, then 0
            out[...] = tmp  # truncation toward 0: the floor of a number in [0, B - 1], 0 for one in (-1, 0)
        np.maximum(out, 0, out=out)
    else:  # a few values: the context manager would cost more than it saves
        np.fmax(tmp, 0, out=tmp)
        out[...] = tmp  # truncation: the floor of a number in [0, B - 1]
    np.take(lo, out, out=tmp, mode="clip")  # indices are in range; "clip" skips the buffered check
    np.less(x, tmp, out=mask)
    if np.count_nonzero(mask):  # the correction is rare: skip the pass without one
        out -= mask
    np.take(hi, out, out=tmp, mode="clip")
    np.greater_equal(x, tmp, out=mask)
    if np.count_nonzero(mask):
        out += mask
    return out


#: Values from which :func:`_equal_width_ids` clips below on the integers.
_INT_CLIP_MIN = 4096


_EDGE_TABLES: dict = {}


def _edge_tables(n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper edges of the B equal-width bins; the outer two are NaN, which no comparison passes,
    so values outside [0, 1] (even ±inf) stay in the outer bins."""
    if n_bins not in _EDGE_TABLES:
        e = uniform_edges(n_bins)
        lo, hi = e[:-1].copy(), e[1:].copy()
        lo[0], hi[-1] = np.nan, np.nan
        if len(_EDGE_TABLES) > 64:
            _EDGE_TABLES.clear()
        _EDGE_TABLES[n_bins] = (lo, hi)
    return _EDGE_TABLES[n_bins]


def _equal_width_statistics(x: np.ndarray, pos: np.ndarray, n_bins: int, counts: bool, pooled: bool = False):
    """Equal-width statistics of ``x`` (R, N, C) with positives ``pos`` (R, N): gap, counts, positives (R, C, B);
    with ``pooled`` the C problems share one set of B bins, (R, 1, B) (every (instance, problem) cell of a bin
    summed together, in the order of the flattened (N, C) cells).

    Works through the flattened (R·N, C) predictions in steps of about ``_CHUNK`` values. A batch
    element that spans several steps carries its running sums from step to step by prepending
    them to the next ``numpy.bincount`` (which adds in order, starting from zero), so every sum
    is accumulated exactly as one ``bincount`` over the whole problem would. From
    :data:`THREADED_BIN_ENTRIES` predictions of long problems the steps are binned on the threads of the
    shared pool (``credalbook._threads``), each step in its own scratch, and their sums are still added
    one step after the other in order (``credalbook._threads.in_order``): the same numbers bit for bit.
    """
    r, n, c = x.shape
    nb = n_bins if pooled else c * n_bins  # bins per batch element
    rows = max(1, _CHUNK // c)  # instances per step
    gap = np.zeros((r, nb))
    cnt = np.zeros((r, nb), dtype=np.int64) if counts else None
    npos = np.zeros((r, nb), dtype=np.int64) if counts else None
    class_offset = None if pooled else (n_bins * np.arange(c)).astype(np.intp)
    ex = shared_pool() if x.size >= THREADED_BIN_ENTRIES and n >= max(1, _THREADED_CHUNK // c) else None
    if ex is not None:
        rows = max(1, _THREADED_CHUNK // c)
    if n >= rows:  # one batch element at a time, in steps of `rows` instances
        steps = [(a, s) for a in range(r) for s in range(0, n, rows)]
        n_scratch = _workers() + 1 if ex is not None else 1
        scratch = []
        for _ in range(n_scratch):
            ids = np.empty(nb + rows * c, dtype=np.intp)
            ids[:nb] = np.arange(nb)
            scratch.append((ids, np.empty(nb + rows * c), np.empty(rows * c), np.empty(rows * c, dtype=bool)))

        def bin_step(j: int) -> int:
            a, s = steps[j]
            ids, w, tmp, mask = scratch[j % n_scratch]
            blk = x[a, s : s + rows]
            m = blk.shape[0] * c
            _block_statistics(
                blk, pos[a, s : s + rows], n_bins, class_offset, ids[nb : nb + m], w[nb : nb + m], tmp[:m], mask[:m]
            )
            return m

        def add_step(j: int, m: int) -> None:
            a, s = steps[j]
            ids, w = scratch[j % n_scratch][:2]
            w[:nb] = gap[a]
            gap[a] = np.bincount(ids[: nb + m], weights=w[: nb + m], minlength=nb)
            if counts:
                _add_counts(ids[nb : nb + m], pos[a, s : s + rows], c, nb, cnt[a], npos[a])

        in_order(((j, functools.partial(bin_step, j)) for j in range(len(steps))), add_step, depth=n_scratch - 1)
        return gap.reshape(r, -1, n_bins), cnt, npos
    # many small batch elements: whole elements per step, each binned into its own block of bins
    flat_x, flat_pos = x.reshape(r * n, c), pos.reshape(r * n)
    per = max(1, min(r, rows // n))  # batch elements per step (no more than there are: scratch sized to the work)
    m_max = per * n * c
    ids, w = np.empty(m_max, dtype=np.intp), np.empty(m_max)
    tmp, mask = np.empty(m_max), np.empty(m_max, dtype=bool)
    elem_offset = np.repeat(nb * np.arange(per, dtype=np.intp), n * c)
    for a in range(0, r, per):
        b = min(r, a + per)
        m = (b - a) * n * c
        blk = flat_x[a * n : b * n]
        _block_statistics(blk, flat_pos[a * n : b * n], n_bins, class_offset, ids[:m], w[:m], tmp[:m], mask[:m])
        ids[:m] += elem_offset[:m]
        gap[a:b] = np.bincount(ids[:m], weights=w[:m], minlength=(b - a) * nb).reshape(b - a, nb)
        if counts:
            cnt[a:b] = np.bincount(ids[:m], minlength=(b - a) * nb).reshape(b - a, nb)
            hit = flat_pos[a * n : b * n]
            rows_hit = np.flatnonzero(hit >= 0)
            npos[a:b] = np.bincount(ids[:m].reshape(-1, c)[rows_hit, hit[rows_hit]], minlength=(b - a) * nb).reshape(
                b - a, nb
            )
    return gap.reshape(r, -1, n_bins), cnt, npos


def _block_statistics(blk, pos, n_bins, class_offset, ids, w, tmp, mask) -> None:
    """Bin ids (+ class offsets) and weights ``o - x`` of a block of instances ``blk`` (m, C), flattened."""
    m, c = blk.shape
    flat = blk.reshape(-1)
    _equal_width_ids(flat, n_bins, ids, tmp, mask)
    if class_offset is not None:  # None: the problems share their bins
        ids.reshape(m, c)[...] += class_offset
    np.negative(flat, out=w)
    hit = np.flatnonzero(pos >= 0)
    w[hit * c + pos[hit]] += 1.0  # 1 - x at the positive outcome, exactly as o - x computes it


def _add_counts(ids, pos, c, nb, cnt, npos) -> None:
    """Add the bin sizes and positives of one block (ids flattened (m·C,), with class offsets)."""
    cnt += np.bincount(ids, minlength=nb)
    hit = np.flatnonzero(pos >= 0)
    npos += np.bincount(ids[hit * c + pos[hit]], minlength=nb)


def _select(a: np.ndarray, ks: np.ndarray) -> None:
    """Partition ``a`` in place so that ``a[k]`` is its k-th smallest value for every k in ``ks`` (sorted, distinct).

    One single-index ``ndarray.partition`` per k, each on the stretch between the neighbouring
    ks already placed (NumPy selects a single index with SIMD code; a list of indices is slower).
    """
    stack = [(0, a.shape[0], 0, len(ks))]
    while stack:
        lo, hi, i, j = stack.pop()
        if i >= j:
            continue
        mid = (i + j) // 2
        k = int(ks[mid])
        a[lo:hi].partition(k - lo)
        stack.append((lo, k, i, mid))
        stack.append((k + 1, hi, mid + 1, j))


def _equal_mass_row(x: np.ndarray, positives: np.ndarray, n_bins: int):
    """Equal-mass statistics of one problem: gap, counts, positives (B,) for predictions ``x`` (T,).

    ``x`` is a scratch copy (reordered in place); ``positives`` holds the predictions whose outcome
    is 1. Bins and cuts are those of ``equal_mass_cuts`` and :func:`cut_index`.
    """
    t = x.shape[0]
    if n_bins == 1:
        cnt = np.array([t])
        npos = np.array([positives.shape[0]])
        return npos - np.array([x.sum()]), cnt, npos
    found = _equal_mass_histogram(x, n_bins) if t >= HISTOGRAM_MIN_VALUES and n_bins - 1 <= _MAX_SELECT_CUTS else None
    if found is not None:
        sums, cnt, cuts = found
    elif t < 2 * n_bins or n_bins - 1 > _MAX_SELECT_CUTS:  # small or many bins: sort
        cuts = equal_mass_cuts(x, n_bins)
        ids = cut_index(x, cuts)
        sums = np.bincount(ids, weights=x, minlength=n_bins)
        cnt = np.bincount(ids, minlength=n_bins)
    else:
        # cut m sits between the order statistics k_m - 1 and k_m (0-based); select them, then the
        # bins are the stretches between the k_m, up to values tied at a cut (moved below)
        k = np.rint(np.arange(1, n_bins) * t / n_bins).astype(np.int64)
        _select(x, k)
        starts = np.concatenate(([0], k))
        block_max = np.maximum.reduceat(x, starts)
        sums = np.add.reduceat(x, starts)
        cnt = np.diff(np.append(starts, t))
        cuts = 0.5 * (block_max[:-1] + x[k])
        _move_ties(x, starts, t, cuts, block_max, sums, cnt)
    if n_bins - 1 <= _MAX_SELECT_CUTS:  # positives at or above each cut: a few cheap passes
        at_least = [np.count_nonzero(positives >= cut) for cut in cuts.tolist()]
        npos = -np.diff(np.array([positives.shape[0], *at_least, 0]))
    else:
        npos = np.bincount(cut_index(positives, cuts), minlength=n_bins)
    return npos - sums, cnt, npos


def _equal_mass_histogram(x: np.ndarray, n_bins: int):
    """Sums, counts (B,) and cuts (B − 1,) of the equal-mass bins of ``x`` (T,) found from a histogram; None
    when it cannot (a value with the sign bit set: negative or −0.0) or would not pay (over T/4 values to sort).

    For non-negative doubles the order of the values is the order of their bit patterns, so the key
    ``bits >> 45`` (sign, exponent, 7 leading mantissa bits) is non-decreasing in the value. One ``bincount`` of
    the keys (and one weighted by the values) gives how many values lie below each key and their sum; the
    order statistics :math:`s_{(k_m)}, s_{(k_m+1)}` of the cuts (as in :func:`equal_mass_cuts`) are then found
    among the values of the few keys that hold them, sorted. A cut lies between two neighbouring order
    statistics, so the keys between theirs are empty and the values below the cut are those of the keys
    below its own key plus the sorted values of its key below it: the counts are those of :func:`cut_index`
    exactly (ties at a cut in the upper bin), the sums those of the values in another order (their last bits).
    Two passes over the data instead of a partition per cut: at N = 10⁶ about 5 ms against 25 ms per problem.
    """
    t = x.shape[0]
    key = x.view(np.int64) >> _KEY_SHIFT
    try:
        counts = np.bincount(key)
    except ValueError:  # a negative key: the sign bit is set
        return None
    below = np.cumsum(counts) - counts  # values of smaller keys
    k = np.rint(np.arange(1, n_bins) * t / n_bins).astype(np.int64)
    ranks = np.concatenate((k - 1, k))  # the order statistics of the cuts (0-based)
    rank_keys = np.searchsorted(below + counts, ranks, side="right")
    need = np.unique(rank_keys)
    sizes = counts[need]
    if sizes.sum() > t // 4:  # the order statistics sit among many tied or close values: partition instead
        return None
    table = np.zeros(counts.size, dtype=bool)
    table[need] = True
    values = np.sort(x[table[key]])  # the values of the needed keys, in key order
    first = np.cumsum(sizes) - sizes  # where each needed key's values start in ``values``
    s = values[ranks - below[rank_keys] + first[np.searchsorted(need, rank_keys)]]
    cuts = 0.5 * (s[: n_bins - 1] + s[n_bins - 1 :])
    cut_keys = cuts.view(np.int64) >> _KEY_SHIFT  # between the keys of the two order statistics
    key_sums = np.bincount(key, weights=x)
    sums_before = np.cumsum(key_sums) - key_sums  # the sum of the values of smaller keys
    # the values of a cut's key below it: from the first value of that key up to the cut (none if not needed)
    start = np.searchsorted(values.view(np.int64) >> _KEY_SHIFT, cut_keys, side="left")
    stop = np.searchsorted(values, cuts, side="left")
    prefix = np.concatenate(([0.0], np.cumsum(values)))
    n_below = np.concatenate(([0], below[cut_keys] + (stop - start), [t]))
    s_below = np.concatenate(([0.0], sums_before[cut_keys] + (prefix[stop] - prefix[start]), [key_sums.sum()]))
    return np.diff(s_below), np.diff(n_below), cuts


def _move_ties(x, starts, t, cuts, block_max, sums, cnt) -> None:
    """Move the values equal to a cut that the stretches left below it into the bin that cut opens.

    Cut m is the midpoint of the largest value below position k_m and the value at k_m; when it
    equals the former (ties, or two neighbouring floats), the values equal to it in the stretches
    below belong to the bin of the last cut with that value (ties at a cut go to the upper bin).
    """
    ends = np.append(starts[1:], t)
    done = set()
    for m in np.flatnonzero(cuts == block_max[:-1])[::-1]:
        v = float(cuts[m])
        if v in done:
            continue
        done.add(v)
        target = int(np.flatnonzero(cuts == v)[-1]) + 1
        b = target - 1
        while b >= 0 and block_max[b] == v:
            blk = x[starts[b] : ends[b]]
            eq = blk == v
            moved = int(np.count_nonzero(eq))
            cnt[b] -= moved
            cnt[target] += moved
            sums[b] = blk[~eq].sum()
            sums[target] += moved * v
            b -= 1
