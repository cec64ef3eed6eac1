r"""One binning helper for every binned metric: bin indices and per-bin sums.

Binned calibration metrics share two steps: assign each value (a confidence, a class
probability, a statistic) to a bin, then sum per bin (counts, predictions, outcomes). This module
does both, once:

- :func:`bin_ids` — ``strategy="uniform"``: B equal-width bins of [0, 1],
  :math:`[j/B, (j+1)/B)` with the last one right-closed (:func:`equal_width_bin_index`);
  ``strategy="quantile"``: B bins holding equal numbers of the values (:func:`equal_mass_cuts`);
- :func:`bin_index` — bins given by explicit edges (same half-open rule); :func:`cut_index` —
  bins given by interior cuts, the outer two unbounded;
- :func:`bin_sums` — per-bin sums (or counts) along the last axis, batched over leading axes with
  one ``numpy.bincount``.

Users: the confidence and classwise ECEs and the reliability curve
(:mod:`credalbook.metrics.classification`), the region criteria of Wu & Gales
(:mod:`credalbook.metrics.ensemble`, whose regions are equal-width bins for ε = 1/(2B)), and the
label-histogram metrics (:mod:`credalbook.metrics.label_hist`, :mod:`credalbook.metrics.label_stats`).
The Hosmer-Lemeshow statistic groups *sorted instances* into groups of equal size (ties split by
position), a different rule, and keeps its own grouping.

**The bin rule at the edges.** A value :math:`x` is in bin :math:`j` iff
:math:`e_j \le x < e_{j+1}` with the edges computed as ``j / B`` exactly (not ``numpy.linspace``,
and not ``floor(x * B)``, which puts e.g. a value just below an edge into the upper bin when
``x * B`` rounds up); 0 falls in the first bin, 1.0 in the last, and values outside [0, 1] in the
nearest outer bin.

References
----------
Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017 (equal-width
bins). Nixon et al. Measuring calibration in deep learning. CVPR Workshops 2019 (equal-mass bins).
"""

from __future__ import annotations

import numpy as np

from credalbook._validation import as_numpy, check_choice, check_positive_int

__all__ = [
    "BIN_STRATEGIES",
    "bin_ids",
    "bin_index",
    "bin_sums",
    "cut_index",
    "equal_mass_cuts",
    "equal_width_bin_index",
    "uniform_edges",
]

#: Strategies accepted by :func:`bin_ids`.
BIN_STRATEGIES = ("uniform", "quantile")


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
    (ties at a cut go to the upper bin), e.g. for the cuts of :func:`equal_mass_cuts`.

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

    Examples
    --------
    >>> equal_width_bin_index(np.array([0.0, 0.1, 0.3, 0.99, 1.0]), 10)
    array([0, 1, 3, 9, 9])
    """
    return bin_index(values, uniform_edges(n_bins))


def equal_mass_cuts(values: np.ndarray, n_bins: int) -> np.ndarray:
    r"""Interior cuts (B − 1,) of B bins with equal numbers of ``values`` (1-D, at least B); no validation.

    With the values sorted, :math:`s_{(1)} \le \dots \le s_{(T)}`, cut :math:`m` is the midpoint
    :math:`(s_{(k_m)} + s_{(k_m+1)})/2`, :math:`k_m = \mathrm{round}(mT/B)` (the rule of
    :func:`credalbook.metrics.equal_mass_edges`); the outer bins are unbounded.

    Examples
    --------
    >>> equal_mass_cuts(np.array([0.1, 0.4, 0.2, 0.3, 0.6, 0.5]), 3)
    array([0.25, 0.45])
    """
    s = np.sort(values)
    k = np.rint(np.arange(1, n_bins) * s.shape[0] / n_bins).astype(np.int64)
    return 0.5 * (s[k - 1] + s[k])


def bin_ids(values, n_bins: int = 10, *, strategy: str = "uniform") -> np.ndarray:
    r"""0-based bin of each value: B equal-width bins of [0, 1] or B equal-mass bins.

    Parameters
    ----------
    values : array-like
        Any shape; ``strategy="quantile"`` needs a 1-D array of at least ``n_bins`` values.
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: :math:`[j/B, (j+1)/B)`, last bin right-closed (0 in the first bin, 1.0 in
        the last). ``"quantile"``: bin :math:`m` is :math:`[c_m, c_{m+1})` for the cuts of
        :func:`equal_mass_cuts` (:math:`c_0 = -\infty`, :math:`c_B = \infty`), so each bin holds
        about N/B values (ties at a cut go to the upper bin).

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
    n_bins = check_positive_int(n_bins, "n_bins")
    check_choice(strategy, "strategy", BIN_STRATEGIES)
    x = as_numpy(values, "values").astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite")
    if strategy == "uniform":
        return equal_width_bin_index(x, n_bins).astype(np.int64)
    if x.ndim != 1 or x.shape[0] < n_bins:
        raise ValueError(f"values must be a 1-D array of at least n_bins = {n_bins} values for "
                         f"strategy='quantile'; got shape {x.shape}")
    return cut_index(x, equal_mass_cuts(x, n_bins)).astype(np.int64)


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
    flat = (ids.reshape(n_rows, n) + n_bins * np.arange(n_rows)[:, None]).ravel()
    w = None if weights is None else weights.reshape(-1)
    return np.bincount(flat, weights=w, minlength=n_rows * n_bins).reshape(*batch_shape, n_bins)
