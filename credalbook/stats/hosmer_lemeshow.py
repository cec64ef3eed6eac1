r"""The multi-class Hosmer-Lemeshow statistic and a calibration test built on it.

Mortier et al. (2023, Eqs. 3-4) define, with equal-frequency bins :math:`\mathcal B_{1k},\dots,
\mathcal B_{Bk}` of the instances sorted by :math:`\hat p_{ik}` (one sorting per class),

.. math::
    HL_{cwise} = \sum_{k=1}^K \sum_{j=1}^B \frac{(o(\mathcal B_{jk}) - p(\mathcal B_{jk}))^2}{p(\mathcal B_{jk})},

with :math:`o` and :math:`p` the observed frequency and the mean predicted probability of class
:math:`k` in the bin. They take p-values from a :math:`\chi^2` distribution with
:math:`(K-1)(B-2)` degrees of freedom (Fagerland et al., 2008). That reference is derived for
Fagerland's *count* statistic :math:`\sum_{jk} (O_{jk}-E_{jk})^2/E_{jk}` (observed and expected
counts, :math:`O = |\mathcal B| o`, :math:`E = |\mathcal B| p`) with a **single** grouping of the
instances. With one sorting per class the K groupings are dependent and the reference is wrong:
on perfectly calibrated models it rejects far more often than α (see :func:`null_rejection_rate`
and the primer chapter).

The default p-value here is therefore a *consistency-resampling* (Monte-Carlo) p-value
(Bröcker & Smith, 2007; Vaicenavicius et al., 2019): under :math:`H_0` the labels are draws from
the predicted distributions, so resampling labels :math:`y^*_i \sim \mathrm{Cat}(\hat p_i)` and
recomputing the statistic gives an exact-size test, with
:math:`p = (1 + \#\{T^* \ge T\}) / (1 + R)`. The paper's :math:`\chi^2` reference stays available
(``null="chi2"``), as does the single grouping used by Fagerland and by the authors' code
(``grouping="single"``: sort once by the first class's probability). ``null="chi2_external"``
uses :math:`B(K-1)` degrees of freedom, the classical reference for a model that was *not* fitted
on the evaluation data (the :math:`-2` in Fagerland's count accounts for fitted parameters); in
simulations here it is valid but conservative.

**Resampling at scale.** The bins depend on the predictions only, so they are the same for every
resample: each (instance, class) pair is assigned its cell :math:`(j, k)` once, and a resample
only needs the cell counts :math:`O^*_{jk} = \#\{i \in \mathcal B_{jk} : y^*_i = k\}`. Each
label is drawn by inverse-CDF sampling, :math:`y^*_i = \#\{k < K-1 : u_i \ge \sum_{l\le k}\hat p_{il}\}`
with :math:`u_i \sim U[0, 1)` (exactly :func:`credalbook.synthetic.sample_labels` on the same
uniforms), looked up in the cell table and counted with one ``bincount``: no (N, K) one-hot array
and no sorting per resample. The null distribution is the one of resampling the labels and
recomputing Eq. 3, draw for draw (same seed, same labels, same statistics as the direct
computation). The per-class bins need no argsort either: each class's values are sorted (values
only, the classes in parallel threads), an instance's bin is the number of bin edges below its
value, and only values equal to an edge are ranked, by instance index as the stable sort ranks
them; the cells and the per-bin sums are those of the argsort, bit for bit. The uniforms of the
next chunk of resamples are drawn in a background thread while the current one is counted. 100
resamples at N = 10⁶, K = 10 take about 1.2 s on 2 cores (3.9 s with an argsort and 32-bit cell
look-ups; one-hot arrays sorted per resample took 8-15 minutes for 999).
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import REMOVED_IN, renamed
from credalbook._parallel import check_n_jobs
from credalbook._validation import (
    as_rng,
    as_scalar,
    check_choice,
    check_n_bins,
    check_positive_int,
    check_probability,
    check_probs_labels,
)
from credalbook._validation import lazy_scipy_stats as stats
from credalbook.metrics.classification import one_hot
from credalbook.stats.null_distribution import check_chunk_size, NULL_CHUNK, resample_null
from credalbook.stats.result import critical_value, exceeds, TestResult
from credalbook.synthetic.predictions import calibrated_predictions

__all__ = ["HosmerLemeshowResult", "hosmer_lemeshow", "hosmer_lemeshow_statistic", "null_rejection_rate"]

_GROUPINGS = {"per_class", "single"}
_VARIANTS = ("book", "authors")
_NULLS = ("resampling", "chi2", "chi2_external")
#: Uniform draws held at once by the resampling (a chunk of resamples × N; 32 MiB), and the
#: instances per inner step (the working arrays stay in the CPU cache).
_RESAMPLE_DRAWS = 1 << 22
_INSTANCE_CHUNK = 1 << 16
#: Bytes of the class-major copy of the predictions held at once (above: groups of classes).
_CLASS_ROWS_BYTES = 1 << 27


@dataclass(frozen=True, kw_only=True, init=False)
class HosmerLemeshowResult(TestResult):
    """Result of :func:`hosmer_lemeshow`: a :class:`~credalbook.stats.TestResult` (``method="hosmer_lemeshow"``).

    ``rejected`` follows the rule of :class:`~credalbook.stats.TestResult`: ``statistic > threshold``
    (the (1 − α) quantile of the resampled statistics) with ``null="resampling"``; with a χ²
    null, ``count_statistic`` beyond the χ² quantile, i.e. ``pvalue < alpha``. ``null_model`` is
    None (the χ² references are for ``count_statistic``, not for ``statistic``; see ``dof``).

    Attributes
    ----------
    statistic : float
        :math:`HL_{cwise}` of Eq. 3 (bin means).
    count_statistic : float
        Fagerland's count form :math:`\\sum (O - E)^2 / E`, the quantity the χ² reference is for.
    pvalue : float
    null : str
        ``"resampling"``, ``"chi2"`` or ``"chi2_external"`` (``reference`` is a deprecated alias).
    dof : int or None
        Degrees of freedom of the χ² reference: :math:`(K-1)(B-2)` for ``"chi2"``, :math:`B(K-1)`
        for ``"chi2_external"``, None for ``"resampling"``.
    null_distribution : ndarray or None
        The resampled statistics (``null="resampling"``).
    """

    count_statistic: float
    null: str
    grouping: str
    n_bins: int
    dof: int | None

    @renamed(reference="null", p_value="pvalue")
    def __init__(
        self,
        statistic,
        count_statistic,
        pvalue,
        null,
        grouping,
        n_bins,
        dof,
        null_distribution=None,
        *,
        alpha: float = 0.05,
        rejected: bool | None = None,
        threshold: float | None = None,
        details: dict | None = None,
    ):
        # positional order: (statistic, count_statistic, pvalue, null, grouping, n_bins, dof,
        # null_distribution); the TestResult fields are keywords
        if rejected is None:  # the rule of TestResult
            rejected = exceeds(statistic, threshold) if threshold is not None else pvalue < alpha
        values = dict(
            statistic=statistic,
            pvalue=pvalue,
            alpha=alpha,
            rejected=bool(rejected),
            method="hosmer_lemeshow",
            null_distribution=null_distribution,
            null_model=None,
            threshold=threshold,
            details=dict(details or {}),
            count_statistic=count_statistic,
            null=null,
            grouping=grouping,
            n_bins=n_bins,
            dof=dof,
        )
        for key, value in values.items():
            object.__setattr__(self, key, value)

    @property
    def reference(self) -> str:
        """Deprecated alias of ``null`` (FutureWarning)."""
        warnings.warn(
            f"HosmerLemeshowResult.reference was renamed to null in 0.6; reference will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        return self.null


def _bin_starts(n: int, n_bins: int) -> np.ndarray:
    """Start offsets of ``n_bins`` equal-frequency bins over ``n`` sorted items (sizes differ by ≤ 1)."""
    sizes = np.full(n_bins, n // n_bins)
    sizes[: n % n_bins] += 1
    return np.concatenate([[0], np.cumsum(sizes)[:-1]])


def _stable_argsort(x: np.ndarray) -> np.ndarray:
    """``np.argsort(x, axis=-1, kind="stable")``, faster when no value repeats along the last axis.

    The unstable sort (SIMD quicksort) gives the same, unique order when there are no ties; with
    ties, the stable sort decides (their order is that of the instance index).
    """
    order = np.argsort(x, axis=-1)
    ranked = np.take_along_axis(x, order, axis=-1)
    if np.any(ranked[..., 1:] == ranked[..., :-1]):
        return np.argsort(x, axis=-1, kind="stable")
    return order


def _sort_order(p: np.ndarray, grouping: str) -> np.ndarray:
    """Instance order per class, shape (..., N, K): a stable sort by each class's probability
    (``"per_class"``) or by the first class's (``"single"``)."""
    if grouping == "per_class":
        # one contiguous sort per class (sorting along the strided axis -2 is slower)
        by_class = np.ascontiguousarray(np.swapaxes(p, -1, -2))
        return np.swapaxes(_stable_argsort(by_class), -1, -2)
    order0 = _stable_argsort(np.ascontiguousarray(p[..., 0]))[..., None]
    return np.broadcast_to(order0, p.shape)


def _binned_sums(values: np.ndarray, order: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per-bin sums along the instance axis after sorting: (..., N, K) → (..., B, K)."""
    # gather within one class's contiguous row (fast), sum along axis -2 as always (same rounding)
    by_class = np.ascontiguousarray(np.swapaxes(values, -1, -2))
    ranked = np.take_along_axis(by_class, np.swapaxes(order, -1, -2), axis=-1)
    return np.add.reduceat(np.ascontiguousarray(np.swapaxes(ranked, -1, -2)), starts, axis=-2)


def _statistics(p_sums: np.ndarray, o_sums: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 3 and its count form from per-bin sums of predictions and one-hot labels."""
    sizes = sizes[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(p_sums > 0, (o_sums - p_sums) ** 2 / p_sums, np.where(o_sums > 0, np.inf, 0.0))
    count_stat = ratio.sum(axis=(-2, -1))  # Σ (O − E)² / E with O, E counts
    mean_stat = (ratio / sizes).sum(axis=(-2, -1))  # Σ (o − p)² / p with o, p bin means
    return mean_stat, count_stat


def hosmer_lemeshow_statistic(probs, labels, *, n_bins: int = 10, grouping: str = "per_class", variant: str = "book"):
    r"""The Hosmer-Lemeshow calibration measure :math:`HL_{cwise}` (Mortier et al., Eqs. 3-4).

    Batched over leading dimensions: ``probs`` (..., N, K), ``labels`` (..., N) → shape (...).

    Parameters
    ----------
    n_bins : int
        Number of equal-frequency bins B (``N >= B`` required, except for ``variant="authors"``).
    grouping : {"per_class", "single"}
        ``"per_class"`` sorts by :math:`\hat p_{ik}` separately for each class (the paper);
        ``"single"`` sorts once by the first class's probability (Fagerland et al. 2008; the
        authors' code sorts once too, see ``variant``). Ignored with ``variant="authors"``.
    variant : {"book", "authors"}, default "book"
        ``"authors"``: the statistic of the authors' ``hl``/``hltest``
        (tfmortie/calibration@686d453, ``calibration/src/main/py/caltest.py``, l. 200-250):
        the instances ordered by ``np.argsort(1 - p[:, 0])[::-1]`` and cut by ``np.array_split``
        into B groups (the first N mod B one larger; empty when N < B), and
        :math:`\sum_{k}\sum_{b} (O_{bk} - E_{bk})^2 / E_{bk}` with *counts* :math:`O_{bk}` and
        summed probabilities :math:`E_{bk}`, in plain floating point: a cell with
        :math:`E_{bk} = 0` gives NaN (when :math:`O_{bk} = 0`, e.g. an empty group) or ∞, and a
        NaN statistic never exceeds a threshold, so the test cannot reject. The reversal puts
        tied :math:`p_{i0}` in the reverse of the order the sort gave them; the authors call
        NumPy's default, unstable sort, whose order of ties depends on the NumPy version and CPU
        (on NumPy 2 with AVX-512 even for a handful of items), so here the sort is the stable one
        and tied instances end up in *descending* index order, which ``grouping="single"``
        (ascending index) does not reproduce. On tie-free data the two differ only by the factor
        of the bin sizes (counts against bin means).

    Examples
    --------
    >>> p = np.array([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7], [0.1, 0.9]])
    >>> # class 0: .2²/.2 + .2²/.7; class 1: .2²/.3 + .2²/.8
    >>> round(hosmer_lemeshow_statistic(p, [0, 1, 1, 1], n_bins=2), 6)
    0.440476
    """
    n_bins = check_n_bins(n_bins)
    check_choice(grouping, "grouping", _GROUPINGS)
    check_choice(variant, "variant", _VARIANTS)
    if variant == "authors":
        p, y = check_probs_labels(probs, labels, min_instances=1)
        return as_scalar(_hl_authors(p, y, n_bins))
    p, y = check_probs_labels(probs, labels, min_instances=n_bins)
    return as_scalar(_hl(p, y, _binning(p, n_bins, grouping))[0])


def _hl_authors(p: np.ndarray, y: np.ndarray, n_bins: int) -> np.ndarray:
    """The authors' HL statistic (see :func:`hosmer_lemeshow_statistic`), batched over leading axes."""
    n, k = p.shape[-2:]
    order = np.argsort(1.0 - p[..., 0], axis=-1, kind="stable")[..., ::-1]
    sizes = np.full(n_bins, n // n_bins)
    sizes[: n % n_bins] += 1  # np.array_split: the first N mod B groups hold one more
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    ranked_p = np.take_along_axis(p, order[..., None], axis=-2)
    ranked_o = one_hot(np.take_along_axis(y, order, axis=-1), k).astype(np.float64)
    stat = np.zeros(p.shape[:-2])
    with np.errstate(divide="ignore", invalid="ignore"):
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            o = ranked_o[..., lo:hi, :].sum(axis=-2)
            e = ranked_p[..., lo:hi, :].sum(axis=-2)
            stat = stat + ((o - e) ** 2 / e).sum(axis=-1)
    return stat


def _binning(p: np.ndarray, n_bins: int, grouping: str):
    """What depends on the predictions only: sort order, bin starts and sizes, per-bin sums of ``p``."""
    n = p.shape[-2]
    starts = _bin_starts(n, n_bins)
    order = _sort_order(p, grouping)
    return order, starts, np.diff(np.append(starts, n)), _binned_sums(p, order, starts)


def _hl(p: np.ndarray, y: np.ndarray, binning):
    """Eq. 3 and its count form for labels ``y`` (..., N), or (R, ..., N) resampled labels."""
    order, starts, sizes, p_sums = binning
    onehot = one_hot(y, p.shape[-1])
    return _statistics(p_sums, _binned_sums(onehot, np.broadcast_to(order, onehot.shape), starts), sizes)


@renamed(reference="null")
def hosmer_lemeshow(
    probs,
    labels,
    *,
    n_bins: int = 10,
    grouping: str = "per_class",
    null: str = "resampling",
    n_resamples: int = 999,
    alpha: float = 0.05,
    seed=None,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
) -> HosmerLemeshowResult:
    r"""Hosmer-Lemeshow calibration test with a valid p-value by default.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    labels : array-like of int, shape (N,)
    n_bins : int, default 10
    grouping : {"per_class", "single"}, default "per_class"
        See :func:`hosmer_lemeshow_statistic`.
    null : {"resampling", "chi2", "chi2_external"}, default "resampling"
        The null distribution. ``"resampling"``: consistency resampling,
        :math:`p = (1 + \#\{T^* \ge T\})/(1 + R)`, exact size under :math:`H_0` for any N, K, B
        and grouping. ``"chi2"``: the paper's reference, :math:`\chi^2_{(K-1)(B-2)}` applied to
        the count statistic (requires B > 2); it over-rejects calibrated models.
        ``"chi2_external"``: :math:`\chi^2_{B(K-1)}`, conservative. (Formerly ``reference``.)
    n_resamples : int, default 999
        R, the number of label resamples (``null="resampling"``).
    alpha : float, default 0.05
        Level of ``rejected`` (the rule of :class:`~credalbook.stats.TestResult`).
    seed : int, numpy Generator or None
    n_jobs : int or None
        Joblib's ``n_jobs`` for the chunks of resamples (None: joblib's default); the values do not
        depend on it.
    chunk_size : int or None, default ``NULL_CHUNK`` (50)
        Resamples per independently seeded chunk; None: one random stream (the layout before
        version 0.6). See :mod:`credalbook.stats.null_distribution`.

    Returns
    -------
    HosmerLemeshowResult

    References
    ----------
    Mortier et al. (2023), Eqs. 3-4; Fagerland, Hosmer & Bofin (2008); Vaicenavicius et al. (2019).

    Examples
    --------
    >>> from credalbook.synthetic import sample_labels
    >>> rng = np.random.default_rng(1)
    >>> p = rng.dirichlet(np.ones(3), size=500)
    >>> y = sample_labels(p, rng)                     # a perfectly calibrated model
    >>> res = hosmer_lemeshow(p, y, n_bins=10, seed=0, n_resamples=199)
    >>> 0 < res.pvalue <= 1 and res.null_distribution.shape
    (199,)
    """
    n_bins = check_n_bins(n_bins)
    check_choice(grouping, "grouping", _GROUPINGS)
    check_choice(null, "null", _NULLS)
    n_resamples = check_positive_int(n_resamples, "n_resamples")  # at the door, even when unused
    alpha = check_probability(alpha, "alpha")
    n_jobs, chunk_size = check_n_jobs(n_jobs), check_chunk_size(chunk_size)
    rng = as_rng(seed)
    p, y = check_probs_labels(probs, labels, min_instances=n_bins)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape} (use hosmer_lemeshow_statistic for batches)")
    k = p.shape[1]
    by_class = np.ascontiguousarray(p.T) if p.nbytes <= _CLASS_ROWS_BYTES else None  # else groups of classes
    cells, sizes, p_sums = _cells(p, n_bins, grouping, by_class=by_class)
    observed = np.bincount(cells.ravel().take(np.arange(p.shape[0]) * k + y), minlength=sizes.size * k)
    stat, count_stat = (float(v) for v in _statistics(p_sums, observed.reshape(-1, k).astype(np.float64), sizes))
    if null != "resampling":
        if null == "chi2" and n_bins <= 2:
            raise ValueError(f"n_bins must be > 2 for the chi2 null ((K-1)(B-2) dof); got {n_bins}")
        dof = (k - 1) * (n_bins - 2) if null == "chi2" else (k - 1) * n_bins
        p_chi2 = float(stats.chi2.sf(count_stat, dof))
        return _hl_result(stat, count_stat, p_chi2, alpha, null, grouping, n_bins, dof, None, p.shape)
    # (K − 1, N): np.cumsum(p, axis=-1), the same sums
    cdf = None if by_class is None else np.cumsum(by_class[:-1], axis=0)  # None: by chunks of instances
    del by_class
    t_null = resample_null(
        _resampled_statistics,
        n_resamples,
        seed=rng,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        args=(cells, cdf, p_sums, sizes, p),
    )
    pvalue = (1 + np.count_nonzero(t_null >= stat)) / (1 + n_resamples)
    return _hl_result(stat, count_stat, float(pvalue), alpha, null, grouping, n_bins, None, t_null, p.shape)


def _hl_result(stat, count_stat, pvalue, alpha, null, grouping, n_bins, dof, t_null, shape):
    details = {
        "n": shape[0],
        "K": shape[1],
        "n_bins": n_bins,
        "null": null,
        "grouping": grouping,
        "count_statistic": count_stat,
        "dof": dof,
    }
    if t_null is not None:
        details["n_resamples"] = int(t_null.size)
    return HosmerLemeshowResult(
        stat,
        count_stat,
        pvalue,
        null,
        grouping,
        n_bins,
        dof,
        t_null,
        alpha=alpha,
        threshold=None if t_null is None else critical_value(t_null, alpha),
        details=details,
    )


def _cell_table(p: np.ndarray, binning) -> np.ndarray:
    """Flat cell index ``bin * K + k`` of every (instance i, class k), shape (N·K,), row-major."""
    order, _, sizes, _ = binning
    n, k = p.shape
    bin_of_rank = np.repeat(np.arange(len(sizes)), sizes)  # bin of the r-th smallest
    cells = np.empty((n, k), dtype=np.int64)
    np.put_along_axis(cells, order, bin_of_rank[:, None] * k + np.arange(k), axis=0)
    return cells.ravel()


def _drawn_ahead(draw, n_draws: int):
    """``draw(0)``, ..., ``draw(n_draws - 1)``, each next one drawn in a background thread while the
    caller works on the current one (NumPy's generators release the GIL while they fill an array).

    The draws run one after another, in order, and no further: the same random stream, and the same
    state of the generator afterwards, as a plain loop. ``draw(j + 2)`` starts only once the caller
    asks for item ``j + 1``, so ``draw(j)`` may fill buffer ``j % 2`` of two.

    Examples
    --------
    >>> rng, plain = np.random.default_rng(0), np.random.default_rng(0)
    >>> ahead = [x.tolist() for x in _drawn_ahead(lambda j: rng.integers(9, size=j), 3)]
    >>> ahead == [plain.integers(9, size=j).tolist() for j in range(3)] and rng.random() == plain.random()
    True
    """
    if n_draws < 2:
        yield from map(draw, range(n_draws))
        return
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(draw, 0)
        for j in range(1, n_draws):
            current = pending.result()
            pending = pool.submit(draw, j)
            yield current
        yield pending.result()


def _sorted_rows(x: np.ndarray) -> np.ndarray:
    """``np.sort(x, axis=-1)`` of a C-contiguous 2-D array, its rows sorted in parallel threads."""
    out = x.copy()
    with ThreadPoolExecutor(max(1, min(len(out), os.cpu_count() or 1))) as pool:
        list(pool.map(np.ndarray.sort, out))
    return out


def _cells(p: np.ndarray, n_bins: int, grouping: str, *, by_class: np.ndarray | None = None):
    """Cell ``bin * K + k`` of every (instance i, class k), shape (N, K), with the bin sizes and the
    per-bin sums of ``p`` of :func:`_binning` (the same bins and the same sums, bit for bit).

    ``"per_class"`` needs no argsort: each class's values are sorted (values only), the bins' sums
    are taken in that order, and an instance lies in bin :math:`j` = the number of bin edges (first
    values of bins 1..B-1) below its value; only a value equal to an edge needs its rank, which
    among equal values follows the instance index, as in the stable sort of :func:`_binning`.
    ``by_class``: ``np.ascontiguousarray(p.T)`` where the caller has it.
    """
    n, k = p.shape
    dtype = np.uint8 if n_bins * k <= 256 else np.intp
    if grouping != "per_class":
        _, starts, sizes, p_sums = binning = _binning(p, n_bins, grouping)
        return _cell_table(p, binning).reshape(n, k).astype(dtype), sizes, p_sums
    starts = _bin_starts(n, n_bins)
    groups = _class_groups(p) if by_class is None else [(0, by_class)]
    cells, above = np.empty((k, n), dtype), np.empty(n, dtype=bool)
    sums = np.empty((k, starts.size))  # p_sums = sums.T, laid out as before
    for c0, rows in groups:
        ranked = _sorted_rows(rows)
        sums[c0 : c0 + len(rows)] = np.add.reduceat(ranked, starts, axis=-1)  # the sums of _binned_sums, bit for bit
        edges = np.ascontiguousarray(ranked[:, starts[1:]])
        for j, x in enumerate(rows):
            bins = np.zeros(n, dtype)
            for edge in edges[j]:
                bins += np.greater(x, edge, out=above).view(np.uint8)
            tied = np.flatnonzero(edges[j].take(bins, mode="clip") == x) if n_bins > 1 else []  # x equal to an edge
            for value in np.unique(x[tied]):
                members = tied[x[tied] == value]  # in index order
                rank = np.searchsorted(ranked[j], value) + np.arange(members.size)
                bins[members] = np.searchsorted(starts, rank, side="right") - 1
            cells[c0 + j] = bins * k + (c0 + j)
        del rows, ranked, x  # before the next group is copied
    return np.ascontiguousarray(cells.T), np.diff(np.append(starts, n)), sums.T


def _class_groups(p: np.ndarray):
    """``(c0, rows)``: the class-major copy ``p[:, c0:c1].T`` of groups of classes, each at most
    :data:`_CLASS_ROWS_BYTES` (one group, ``np.ascontiguousarray(p.T)``, below it)."""
    n, k = p.shape
    per = max(1, min(k, _CLASS_ROWS_BYTES // max(1, 8 * n)))
    for c0 in range(0, k, per):
        yield c0, np.ascontiguousarray(p[:, c0 : c0 + per].T)


def _resampled_statistics(n_resamples, rng, cells, cdf, p_sums, sizes, p=None):
    r"""Eq. 3 for R label resamples, from the cells (N, K) of :func:`_cells` and the cumulative
    probabilities ``cdf`` (K − 1, N) of the predictions (None: ``np.cumsum(p, axis=-1)`` of each chunk of
    instances as it is counted, the same sums, for a large ``p`` (N, K)).

    Draws the uniforms of :func:`credalbook._random.draw_labels` (``rng.random((R, N))``, in chunks
    of resamples, the next chunk drawn in a background thread while this one is counted) and turns
    them into the same labels, :math:`y^*_i = \#\{k < K - 1 : u_i \ge F_{ik}\}`, summed in
    ``uint8`` over K − 1 comparisons, then counts labels per cell of the fixed bins (module
    docstring): one look-up in the (N, K) table of small cell numbers and one ``bincount`` per
    instance, in cache-sized chunks of instances.
    """
    n, k = cells.shape
    n_cells = sizes.size * k
    flat_cells = cells.ravel()
    chunk = max(1, _RESAMPLE_DRAWS // n)
    step = min(n, _INSTANCE_CHUNK)
    out = np.empty(n_resamples)
    blocks = [(lo, min(chunk, n_resamples - lo)) for lo in range(0, n_resamples, chunk)]
    buffers = [np.empty((blocks[0][1], n)) for _ in blocks[:2]]  # filled in turn (fresh ones cost page faults)

    def draw(j):
        return rng.random(out=buffers[j % 2][: blocks[j][1]])

    for (lo, r), u in zip(blocks, _drawn_ahead(draw, len(blocks))):
        offsets = (np.arange(r) * n_cells)[:, None]  # one range of cells per resample
        counts = np.zeros(r * n_cells, dtype=np.intp)
        labels, hit = np.empty((r, step), np.uint8 if k <= 256 else np.intp), np.empty((r, step), bool)
        for s in range(0, n, step):
            e = min(n, s + step)
            lab, h = labels[:, : e - s], hit[:, : e - s]
            rows = cdf[:, s:e] if cdf is not None else np.cumsum(p[s:e, :-1], axis=1).T
            lab[...] = 0
            for c in range(k - 1):
                lab += np.greater_equal(u[:, s:e], rows[c], out=h).view(np.uint8)
            cell = flat_cells.take(np.arange(s * k, e * k, k) + lab)  # (i, y*_i) → its cell, i·K the flat (i, 0)
            counts += np.bincount((cell + offsets).ravel(), minlength=r * n_cells)
        o_sums = counts.reshape(r, sizes.size, k).astype(np.float64)
        out[lo : lo + r] = _statistics(p_sums, o_sums, sizes)[0]
    return out


@renamed(reference="null")
def null_rejection_rate(
    *,
    n_datasets: int,
    n_instances: int,
    n_classes: int,
    n_bins: int = 10,
    alpha: float = 0.05,
    null: str = "resampling",
    grouping: str = "per_class",
    concentration: float = 1.0,
    n_resamples: int = 199,
    seed=None,
) -> float:
    r"""Empirical Type I error of :func:`hosmer_lemeshow` on perfectly calibrated models.

    Each of ``n_datasets`` datasets draws predictions :math:`\hat p_i \sim \mathrm{Dir}(c\,\mathbf 1_K)`
    and labels :math:`y_i \sim \mathrm{Cat}(\hat p_i)`, so :math:`H_0` holds exactly; the function
    returns the fraction of datasets whose p-value is at most ``alpha``. A valid test gives a rate
    within the binomial band around α.

    Examples
    --------
    >>> r = null_rejection_rate(n_datasets=20, n_instances=200, n_classes=3, n_resamples=49, seed=0)
    >>> 0.0 <= r <= 1.0
    True
    """
    n_datasets = check_positive_int(n_datasets, "n_datasets")
    n_bins = check_n_bins(n_bins)
    alpha = check_probability(alpha, "alpha")
    rng = as_rng(seed)

    rejections = 0
    for _ in range(n_datasets):
        p, y = calibrated_predictions(n_instances, n_classes, concentration=concentration, seed=rng)
        res = hosmer_lemeshow(
            p, y, n_bins=n_bins, grouping=grouping, null=null, n_resamples=n_resamples, seed=rng, chunk_size=None
        )
        rejections += res.pvalue <= alpha
    return rejections / n_datasets
