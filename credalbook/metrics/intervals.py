r"""Bootstrap confidence intervals for any metric of one classifier, vectorised and seeded.

A calibration error computed on N test instances is a random quantity; :func:`bootstrap_ci`
gives it a scale. The N instances are resampled with replacement :math:`R` times
(``n_resamples``), the metric is evaluated on every replicate, and the interval is read off the
replicates :math:`\hat\theta^*_1, \dots, \hat\theta^*_R` (Efron & Tibshirani 1993):

.. math::
    \text{percentile: } \bigl[\hat\theta^*_{(\alpha/2)},\ \hat\theta^*_{(1-\alpha/2)}\bigr],
    \qquad
    \text{basic: } \bigl[2\hat\theta - \hat\theta^*_{(1-\alpha/2)},\ 2\hat\theta - \hat\theta^*_{(\alpha/2)}\bigr],

with :math:`1 - \alpha` the level ``ci`` and :math:`\hat\theta^*_{(q)}` the q-quantile of the
replicates (linear interpolation, ``numpy.quantile``).

**Vectorised.** The resample indices of many replicates are drawn at once, as an (R', N) array,
and the metric is evaluated on the (R', N, K) gathered predictions in one call of its batched
form (``credalbook.metrics.classification.ece_classwise_batched``, ``credalbook.metrics.kernel.skce_batched``, a
:class:`~credalbook.stats.CalibrationMeasure`'s ``func``, ...). R' is chosen so that one chunk
holds about :data:`CHUNK_BYTES` (256 MiB) of indices and gathered data: N = 10⁶, K = 10 runs one
to a few replicates at a time, in well under 1 GiB. The replicates do not depend on the chunk
size nor on the number of threads. Below N = 2¹⁵ (:data:`BLOCKED_MIN_N`) the indices are drawn
from one :class:`numpy.random.Generator` replicate after replicate: a plain loop that draws
``rng.integers(0, N, N)`` per replicate gives the same numbers. From N = 2¹⁵ each replicate draws
from a generator of its own (:func:`replicate_seeds`) by blocks of 256 instances
(:func:`replicate_indices`: the distribution of N uniform draws, at a third of their cost, and
counted block by block), so threads draw them side by side, and :func:`resample_counts` counts them in two
bytes and hands them over in column order (what sparse products read without a copy). The ``ci=`` keyword of each
calibration error gathers only what its replicates need: the top-label and classwise ECE with
equal-width bins compute each (instance, problem) cell and weight :math:`o - x` once and weight
them by the multiplicities of the resampled instances (:func:`resample_counts`: the same indices,
counted; one sparse product per chunk of replicates); accuracy, NLL and the Brier score resample
their per-instance terms; the linear and block SKCE resample their independent terms (one per pair
or block), which costs nothing next to computing them. Time at N = 10⁶, K = 10 on two cores, 200
replicates: top-label ECE 0.66-0.68 s, classwise ECE 0.93-0.94 s (0.86 s and 1.14-1.16 s with the
counts in floats, C order, transposed by each sparse product; 1.1 s and 1.3-1.5 s with ``rng.integers``
and ``numpy.bincount``); per replicate ACE (equal-mass) 0.4 s, smooth ECE 0.3 s; the SKCE (block
estimator) 1000 replicates in well under a second after its 6 s evaluation. Those times are of the 2-core
machine of 2026-11-30; on the 2-core Intel Xeon of 2026-12-01, 1.24-1.35 s and 1.70-1.80 s, and the code of
those times (6795fda) side by side 1.24 s and 1.52-1.87 s (``scripts/benchmark.py --only-scale --cases
ece_confidence_ci,ece_classwise_ci --before 6795fda``): that machine, not the code; there the 200 replicates'
indices alone take 0.83-1.10 s on one thread (the case ``resample_draws_200``).

**Which interval.** ``method="percentile"`` (default) is transformation-respecting and stays in
the range of the metric (a calibration error's interval never goes below 0); ``"basic"``
reflects the replicates about the estimate, which corrects a shift of the bootstrap distribution
but can leave the range. BCa (Efron 1987) needs N leave-one-out evaluations for its acceleration
constant, :math:`O(N^2)` for a binned error at N = 10⁶, and is not offered. Note that a plug-in
calibration error is biased upward (the absolute value of a noisy gap); near perfect calibration
neither interval covers the *population* error at its nominal rate, while for the mean of
independent terms (accuracy, Brier score, the linear SKCE) both do (the tests check it).

References
----------
Efron, Tibshirani. An Introduction to the Bootstrap. Chapman & Hall 1993, Ch. 13 (percentile
interval) and Sec. 13.3; Davison, Hinkley. Bootstrap Methods and their Application. CUP 1997,
Sec. 5.2 (basic and percentile intervals), Sec. 5.3 (BCa).
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import REMOVED_IN
from credalbook._threads import in_order
from credalbook._threads import workers as _workers
from credalbook._validation import (
    as_rng,
    check_choice,
    check_positive_int,
    check_probability,
    check_probs_labels,
    check_seed,
)

__all__ = ["CI_METHODS", "CHUNK_BYTES", "Estimate", "bootstrap_ci"]

#: Interval methods of :func:`bootstrap_ci`.
CI_METHODS = ("percentile", "basic")
#: Bytes of resample indices and gathered data per chunk of replicates (memory bound of the bootstrap).
CHUNK_BYTES = 1 << 28
# Temporaries of a batched metric, in units of the gathered data (bins, residuals, ...).
_WORK_FACTOR = 2

#: From this many instances each bootstrap replicate draws its indices by blocks from its own generator
#: (:func:`replicate_indices`, :func:`replicate_seeds`), and :func:`resample_counts` spreads the replicates over
#: threads.
BLOCKED_MIN_N = 1 << 15
#: Instances per block of :func:`replicate_indices` (offsets inside a block are one byte).
_BLOCK = 256
# Replicates per chunk of resample_counts on threads: enough for the sparse products of a statistic to run near
# memory speed (16 read the matrix half as often, but `credalbook evaluate` at N = 10⁶ took 0.7-0.9 s longer).
_COUNTS_STEP = 8
# Instances per slab of the cache-blocked transposition of the multiplicities (:func:`_counts_of_blocks`).
_SLAB = 1 << 14
# Little-endian intp whose generator's bytes are its uint8 integers (checked on the running NumPy at import).
_BYTES_ARE_UINT8 = sys.byteorder == "little" and np.array_equal(
    np.frombuffer(np.random.default_rng(0).bytes(13), dtype=np.uint8),
    np.random.default_rng(0).integers(0, 256, size=13, dtype=np.uint8),
)
# Bytes of the jobs :func:`resample_counts` keeps in flight on threads (one job, a plain loop, above).
_IN_FLIGHT_BYTES = 1 << 28

_BATCH_CAPABLE: set = set()


def batch_capable(fn: Callable) -> Callable:
    """Mark a public metric ``fn(probs (..., N, K), labels (..., N)) -> (...)`` as accepting leading batch
    dimensions, so that :func:`bootstrap_ci` evaluates it on chunks of replicates at once."""
    _BATCH_CAPABLE.add(fn)
    return fn


@dataclass(frozen=True)
class Estimate:
    """A metric's value with a bootstrap confidence interval.

    Attributes
    ----------
    value : float
        The metric on the data (not the mean of the replicates).
    low, high : float
        The interval.
    level : float
        Its nominal coverage, e.g. 0.95.
    n_resamples : int
        R, the number of bootstrap replicates.
    method : str
        ``"percentile"`` or ``"basic"``.
    replicates : ndarray (R,) or None
        The metric on each replicate (not compared, not printed).

    Examples
    --------
    >>> e = Estimate(0.12, 0.1, 0.15, 0.95, 1000, "percentile")
    >>> float(e), f"{e:.2f}"
    (0.12, '0.12 [0.10, 0.15]')
    """

    value: float
    low: float
    high: float
    level: float
    n_resamples: int
    method: str
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __float__(self) -> float:
        return float(self.value)

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        return f"{format(self.value, spec)} [{format(self.low, spec)}, {format(self.high, spec)}]"

    def to_dict(self) -> dict:
        """Plain numbers and strings (for tables and JSON): value, low, high, level, n_resamples, method."""
        return {
            "value": float(self.value),
            "low": float(self.low),
            "high": float(self.high),
            "level": float(self.level),
            "n_resamples": int(self.n_resamples),
            "method": self.method,
        }


def check_ci_options(ci, n_resamples, seed, method: str = "percentile") -> tuple[float, int, object, str]:
    """Validate the options of a bootstrap interval: ``ci`` in (0, 1), ``n_resamples`` >= 2, a seed, a method."""
    level = check_probability(ci, "ci")
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    seed = check_seed(seed)
    check_choice(method, "method", CI_METHODS)
    return level, n_resamples, seed, method


def check_ci_keyword(ci, n_resamples, seed) -> None:
    """Validate the ``ci``, ``n_resamples`` and ``seed`` keywords of a metric, also when ``ci`` is None
    (an option that is not used is still checked, so a typo never passes silently)."""
    if ci is not None:
        check_probability(ci, "ci")
    check_positive_int(n_resamples, "n_resamples", minimum=2)
    check_seed(seed)


def _chunk_size(n: int, data: tuple, n_resamples: int) -> int:
    """Replicates per chunk: their indices and gathered data (times the metric's temporaries) in CHUNK_BYTES."""
    per_instance = 8 + _WORK_FACTOR * sum(a.itemsize * int(np.prod(a.shape[1:], dtype=np.int64)) for a in data)
    return int(max(1, min(n_resamples, CHUNK_BYTES // max(1, n * per_instance))))


def _gathered(statistic: Callable, data: tuple, idx: np.ndarray) -> np.ndarray:
    """``statistic`` on ``data`` gathered at the indices ``idx`` (R', N) → (R',), shape checked."""
    m = idx.shape[0]
    values = np.asarray(statistic(*(np.take(a, idx, axis=0) for a in data)), dtype=np.float64)
    if values.shape != (m,):
        raise ValueError(
            f"metric must return one value per replicate, shape ({m},), on a batch of "
            f"replicates; got shape {values.shape} (pass batched=False for a metric of one data set)"
        )
    return values


def resample_statistic(
    statistic: Callable, data: tuple, *, n_resamples: int, seed, threads: bool = False, symmetric: bool = False
) -> np.ndarray:
    """``statistic`` on R bootstrap replicates of ``data`` (arrays sharing axis 0 of length N) → (R,).

    ``statistic(*gathered)`` receives the arrays gathered at the indices of R' replicates, shape
    (R', N, ...), and returns (R',). Below N = 2¹⁵ the indices come from one generator, replicate after
    replicate (``rng.integers(0, N, size=(R', N))`` per chunk, which draws as R' calls of size N would).
    ``threads=True`` (for a thread-safe statistic that treats each replicate on its own, as a mean
    along the last axis): for large N the indices are drawn here while threads gather and evaluate
    earlier chunks (:func:`_in_threads`), the same numbers bit for bit.
    From :data:`BLOCKED_MIN_N` instances each replicate draws from its own generator
    (:func:`replicate_seeds`, :func:`replicate_indices`), in the job that gathers it; the drawn indices are
    then shuffled into the order of independent draws unless ``symmetric`` says that ``statistic`` does not
    depend on the order of the instances (a mean of independent terms). No validation.
    """
    n = data[0].shape[0]
    rng = as_rng(seed)
    step = _chunk_size(n, data, n_resamples)
    workers = _workers() if threads and n >= BLOCKED_MIN_N and n_resamples > 1 else 1
    if workers > 1:
        step = min(step, _COUNTS_STEP)
    chunks = [(s, min(step, n_resamples - s)) for s in range(0, n_resamples, step)]
    if n >= BLOCKED_MIN_N:  # each replicate from its own generator, drawn in the job (on a thread)
        seeds = replicate_seeds(rng, n_resamples)
        jobs = (
            (s, m, functools.partial(_gathered_blocks, statistic, data, seeds[s : s + m], n, not symmetric))
            for s, m in chunks
        )
    else:
        jobs = (
            (s, m, functools.partial(_gathered, statistic, data, rng.integers(0, n, size=(m, n)))) for s, m in chunks
        )
    return _in_threads(jobs, n_resamples, workers)


def _gathered_blocks(statistic: Callable, data: tuple, seeds: list, n: int, shuffle: bool) -> np.ndarray:
    """:func:`_gathered` at the indices of :func:`replicate_indices` for each of ``seeds`` (with ``shuffle``,
    permuted by the same generator: the order of independent draws)."""
    idx = np.empty((len(seeds), n), dtype=np.intp)
    for r, s in enumerate(seeds):
        g = np.random.default_rng(s)
        idx[r] = replicate_indices(g, n)
        if shuffle:
            g.shuffle(idx[r])
    return _gathered(statistic, data, idx)


def replicate_seeds(seed, n_resamples: int) -> list:
    """The seeds of R replicates' own generators: ``numpy.random.SeedSequence`` of 128 bits drawn from the
    generator of ``seed`` (two ``integers(0, 2**63)``; a Generator is used as it is and advances), spawned R
    times (see :func:`replicate_indices`)."""
    rng = as_rng(seed)
    return np.random.SeedSequence(rng.integers(0, 2**63, size=2).tolist()).spawn(n_resamples)


def replicate_indices(seed, n: int) -> np.ndarray:
    r"""N indices drawn uniformly with replacement from ``range(N)`` (one bootstrap resample), grouped by blocks.

    The instances are cut into blocks of :data:`_BLOCK` (256) consecutive indices, the last one shorter when
    256 does not divide N. How many of the N draws fall in each block is one multinomial draw
    (``rng.multinomial(N, sizes / N)``); the draws inside a block are uniform offsets, one byte each
    (``rng.integers(0, size, dtype=uint8)``, the full blocks' at once, then the last block's). This is the
    distribution of N independent uniform draws (a multinomial splits into its blocks' totals and, given
    them, independent uniform draws inside each block), given in the order of the blocks: the
    multiplicities are those of ``rng.integers(0, N, N)`` in distribution, at a third of its cost for
    N = 10⁶, and counting them touches the memory block by block.

    Examples
    --------
    >>> idx = replicate_indices(np.random.default_rng(0), 1000)
    >>> idx.shape, int(idx.min()) >= 0, int(idx.max()) < 1000, bool(np.all(np.diff(idx // 256) >= 0))
    ((1000,), True, True, True)
    """
    return _drawn_by_blocks(as_rng(seed), n)[0]


def _drawn_by_blocks(rng: np.random.Generator, n: int) -> tuple[np.ndarray, int]:
    """:func:`replicate_indices` from ``rng``, and the largest number of draws in one block (no instance of a
    block is drawn more often than its block)."""
    full, rest = divmod(n, _BLOCK)
    sizes = np.full(full + (rest > 0), float(_BLOCK))
    if rest:
        sizes[-1] = rest
    per_block = rng.multinomial(n, sizes / n)
    idx = np.repeat(np.arange(0, n, _BLOCK, dtype=np.intp), per_block)
    m = n - int(per_block[-1]) if rest else n
    if _BYTES_ARE_UINT8 and m:  # (integers of size 0 still move the generator; bytes(0) does not)
        # the same bytes at a third of the cost: rng.bytes(m) is the stream of integers(0, 256, m, uint8) (a test
        # holds them equal), and the block starts are multiples of 256, so an offset is the lowest byte of its index
        idx.view(np.uint8)[:: idx.itemsize][:m] = np.frombuffer(rng.bytes(m), dtype=np.uint8)
    else:
        idx[:m] += rng.integers(0, _BLOCK, size=m, dtype=np.uint8)
    if rest:
        idx[m:] += rng.integers(0, rest, size=n - m, dtype=np.uint8)
    return idx, int(per_block.max())


def _in_threads(jobs, n_resamples: int, workers: int) -> np.ndarray:
    """The replicates (R,) or (R, J) of ``jobs``, (start, size, call) in order, each ``call()`` giving ``size``.

    The jobs are produced here (their random indices drawn in order) while up to ``workers`` threads of the
    shared pool run the calls of earlier ones (``credalbook._threads.in_order``); at most ``workers + 1`` are in
    flight (memory). One worker: a plain loop.
    """
    out = None

    def put(key, values) -> None:
        nonlocal out
        s0, m0 = key
        values = np.asarray(values, dtype=np.float64)
        if out is None:  # (R,) for one statistic, (R, J) for J statistics of the same replicates
            out = np.empty((n_resamples, *values.shape[1:]))
        out[s0 : s0 + m0] = values

    in_order((((s, m), call) for s, m, call in jobs), put, depth=workers if workers > 1 else 0)
    return out


def _counts_of(statistic: Callable, idx: list, counts: np.ndarray) -> np.ndarray:
    """``statistic`` on the multiplicities of the resample indices ``idx`` (R' arrays (N,)), written into
    ``counts`` (at least R' rows of N) → (R',)."""
    for r, row in enumerate(idx):
        counts[r] = np.bincount(row, minlength=counts.shape[1])
    return np.asarray(statistic(counts[: len(idx)]), dtype=np.float64)


def joint_statistic(statistics, counts: np.ndarray) -> np.ndarray:
    """Several statistics of :func:`resample_counts` on the same multiplicities ``counts`` (R', N) → (R', J).

    Column j is ``statistics[j](counts)``, the numbers the statistic gives on its own for the same
    seed (the same chunks of the same indices): ``resample_counts(functools.partial(joint_statistic,
    statistics), ...)`` counts each replicate once for all of them.
    """
    return np.stack([np.asarray(f(counts), dtype=np.float64) for f in statistics], axis=-1)


def mean_of_counts(terms: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Means of per-instance ``terms`` (N,) or (N, T) over replicates with multiplicities ``counts`` (R', N) →
    (R',) or (R', T).

    Below N = 2¹⁵ one BLAS product; from 2¹⁵ (where :func:`resample_counts` hands the counts in column order)
    one sparse product (SciPy's), whose sums run over the instances in order for each replicate, so a
    replicate's mean does not depend on how many replicates share its chunk (BLAS's order does, in the last
    bits, on column-ordered counts).
    """
    n = terms.shape[0]
    if n < BLOCKED_MIN_N:
        return (counts @ terms) / n
    from scipy import sparse

    t = 1 if terms.ndim == 1 else terms.shape[1]
    index = np.int32 if n * t < 2**31 else np.intp
    columns = sparse.csr_matrix(
        (
            np.ravel(terms).astype(np.float64, copy=False),
            np.tile(np.arange(t, dtype=index), n),
            np.arange(0, n * t + 1, t, dtype=index),
        ),
        shape=(n, t),
    )
    out = (counts @ columns) / n
    return out[:, 0] if terms.ndim == 1 else out


def resample_counts(statistic: Callable, n: int, *, n_resamples: int, seed) -> np.ndarray:
    """``statistic`` on R bootstrap replicates of N instances given by their multiplicities → (R,).

    ``statistic(counts)`` receives the multiplicities of R' replicates, float64 (R', N) (how often
    each instance was drawn), and returns (R',); from N = 2¹⁵ the array is in column order (the transposed
    view of a C-contiguous (N, R') array, what SciPy's sparse products and BLAS read without a copy). The resample indices are those of
    :func:`resample_statistic` with the same seed (below N = 2¹⁵ ``rng.integers(0, N, size=N)`` per
    replicate, one after the other, which draws as ``size=(R', N)`` does; from 2¹⁵
    :func:`replicate_indices` from each replicate's own generator), so a statistic that weights
    precomputed per-instance terms by the counts gives the replicates of gathering them, up to
    the order of the floating-point sums. For statistics whose per-instance terms do not change
    under resampling (equal-width bins): O(N) per replicate instead of gathering O(N·K) data.
    From N = 2¹⁵ up to ``credalbook._threads.workers()`` threads draw and count the replicates of
    successive chunks and evaluate ``statistic`` on them, so ``statistic`` must be thread-safe and
    must not keep ``counts``, which is reused. No validation.
    """
    rng = as_rng(seed)
    workers = _workers() if n >= BLOCKED_MIN_N and n_resamples > 1 else 1
    # each job in flight holds its indices, a counts buffer and a bincount (below 2¹⁵): 24 bytes per instance
    workers = workers if workers == 1 else min(workers, max(1, _IN_FLIGHT_BYTES // (24 * n) - 1))
    seeds = replicate_seeds(rng, n_resamples) if n >= BLOCKED_MIN_N else None
    # counts of R' replicates (and copies the statistic may make of them) in CHUNK_BYTES, per chunk in flight
    step = int(max(1, min(n_resamples, CHUNK_BYTES // max(1, 32 * n))))
    if workers > 1:
        step = min(step, _COUNTS_STEP)
    # per chunk in flight: the counts, and from 2¹⁵ their transposition (the copy a sparse product would make)
    buffers = [
        np.empty((step, n)) if seeds is None else (np.empty((step, n), dtype=np.uint16), np.empty(step * n))
        for _ in range(workers + 1 if workers > 1 else 1)
    ]

    def jobs():  # chunk j reuses the buffer of chunk j - workers - 1, done by then (see _in_threads)
        for j, s in enumerate(range(0, n_resamples, step)):
            m = min(step, n_resamples - s)
            buffer = buffers[j % len(buffers)]
            if seeds is None:
                idx = [rng.integers(0, n, size=n) for _ in range(m)]
                yield s, m, functools.partial(_counts_of, statistic, idx, buffer)
            else:
                yield s, m, functools.partial(_counts_of_blocks, statistic, seeds[s : s + m], *buffer)

    return _in_threads(jobs(), n_resamples, workers)


def _counts_of_blocks(statistic: Callable, seeds: list, counts: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """``statistic`` on the multiplicities of :func:`replicate_indices` drawn from each of ``seeds``, counted
    into the rows of ``counts`` (uint16, at least R' rows of N), then copied slab by slab into ``flat``
    (float64, at least R'·N), laid out (N, R'): the statistic receives them (R', N) in column order, as the
    transposed view of a C-contiguous (N, R') array, which SciPy's sparse products (``counts @ W`` computes
    ``(W.T @ counts.T).T`` and needs ``counts.T`` C-contiguous) and BLAS read without a copy → (R',).

    Counting in two bytes moves a quarter of the memory of counting in floats; a multiplicity is at most
    the number of draws in its block, so a replicate whose block drew 2¹⁶ or more (not seen at any size:
    a block draws about 256 ± 16) is counted in floats instead.
    """
    m, n = len(seeds), counts.shape[1]
    wide = {}
    for r, s in enumerate(seeds):
        row = counts[r]
        row.fill(0)
        idx, most = _drawn_by_blocks(np.random.default_rng(s), n)
        if most < 1 << 16:
            np.add.at(row, idx, np.uint16(1))
        else:  # the safeguard of a multiplicity that two bytes might not hold (a test forces it)
            wide[r] = np.bincount(idx, minlength=n).astype(np.float64)
    out = flat[: n * m].reshape(n, m)
    for a in range(0, n, _SLAB):  # a slab of R' rows stays in cache while it is transposed
        b = min(n, a + _SLAB)
        out[a:b] = counts[:m, a:b].T
    for r, row in wide.items():
        out[:, r] = row
    return np.asarray(statistic(out.T), dtype=np.float64)


def interval(value: float, replicates: np.ndarray, *, ci: float, method: str) -> Estimate:
    """The :class:`Estimate` of ``value`` from its bootstrap ``replicates`` (R,); no validation of the options."""
    if not np.all(np.isfinite(replicates)):
        bad = int(np.count_nonzero(~np.isfinite(replicates)))
        raise ValueError(
            f"the metric is not finite on {bad} of {replicates.size} bootstrap replicates; "
            "it cannot be given an interval"
        )
    q_low, q_high = np.quantile(replicates, [(1 - ci) / 2, (1 + ci) / 2])
    if method == "basic":
        q_low, q_high = 2 * value - q_high, 2 * value - q_low
    return Estimate(
        float(value), float(q_low), float(q_high), float(ci), int(replicates.size), method, replicates=replicates
    )


def bootstrap_estimate(
    statistic: Callable,
    data: tuple,
    value: float,
    *,
    ci,
    n_resamples,
    seed,
    method: str = "percentile",
    threads: bool = False,
    symmetric: bool = False,
) -> Estimate:
    """Options checked, replicates of ``statistic`` on ``data`` (see :func:`resample_statistic`), interval.

    The door of the ``ci=`` keyword of the metrics: ``statistic`` is a metric's unvalidated batched form.
    """
    level, n_resamples, seed, method = check_ci_options(ci, n_resamples, seed, method)
    reps = resample_statistic(statistic, data, n_resamples=n_resamples, seed=seed, threads=threads, symmetric=symmetric)
    return interval(value, reps, ci=level, method=method)


def counts_estimate(
    statistic: Callable, n: int, value: float, *, ci, n_resamples, seed, method: str = "percentile"
) -> Estimate:
    """Options checked, replicates of ``statistic(counts (R', N)) -> (R',)`` (see :func:`resample_counts`), interval."""
    level, n_resamples, seed, method = check_ci_options(ci, n_resamples, seed, method)
    reps = resample_counts(statistic, n, n_resamples=n_resamples, seed=seed)
    return interval(value, reps, ci=level, method=method)


def _loop(metric: Callable, p: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.array([_real(metric(pi, yi)) for pi, yi in zip(p, y)])


def _real(v) -> float:
    arr = np.asarray(v.detach().cpu() if hasattr(v, "detach") else v)
    if arr.ndim != 0 or arr.dtype.kind not in "iufb":
        raise ValueError(f"metric must return one real number for one data set; got {v!r}")
    return float(arr)


def _base(metric):
    while isinstance(metric, functools.partial):
        metric = metric.func
    return metric


def _has_ci_keyword(metric) -> bool:
    """Whether ``metric`` is (a keyword-only partial of) a metric of this package with the ``ci=`` keyword."""
    base = _base(metric)
    if not getattr(base, "__module__", "").startswith("credalbook.metrics."):
        return False
    partials, m = [], metric
    while isinstance(m, functools.partial):
        partials.append(m)
        m = m.func
    if any(pt.args or {"ci", "n_resamples", "seed"} & set(pt.keywords) for pt in partials):
        return False
    return "ci" in inspect.signature(base).parameters


def bootstrap_ci(
    probs,
    labels,
    metric: Callable,
    *,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed=None,
    method: str = "percentile",
    batched: bool | None = None,
) -> Estimate:
    r"""Bootstrap confidence interval of ``metric(probs, labels)``: resample instances, percentile interval.

    Parameters
    ----------
    probs : array-like or tensor, shape (N, K)
    labels : array-like or tensor of int, shape (N,)
    metric : callable
        ``metric(probs (N, K), labels (N,)) -> float``: any metric of credalbook
        (:func:`~credalbook.metrics.ece_confidence`, :func:`~credalbook.metrics.brier_score`, a
        ``functools.partial`` of one with options, ...), a
        :class:`~credalbook.stats.CalibrationMeasure`, or a function of your own. The old order
        ``bootstrap_ci(metric, probs, labels)`` still works, with a FutureWarning.
    ci : float in (0, 1), default 0.95
        The level of the interval.
    n_resamples : int >= 2, default 1000
        R, the number of bootstrap replicates.
    seed : None, int, SeedSequence or Generator
        Fixes the resamples; the same seed gives the same interval.
    method : {"percentile", "basic"}, default "percentile"
        See the module docstring (why percentile is the default).
    batched : bool or None
        Whether ``metric`` accepts leading batch dimensions, (R', N, K) → (R',), and is evaluated
        on many replicates per call. None: True for the metrics of :mod:`credalbook.metrics` that
        do (and for a ``CalibrationMeasure``, whose unvalidated batched function is used), else
        False (one call per replicate). A calibration error of this package with a ``ci=``
        keyword (or a ``functools.partial`` of one with keyword options) is given the work
        itself: ``bootstrap_ci(p, y, ece_confidence)`` is ``ece_confidence(p, y, ci=0.95)``.

    Returns
    -------
    Estimate
        ``value`` is ``metric(probs, labels)``.

    References
    ----------
    Efron, Tibshirani. An Introduction to the Bootstrap. 1993, Ch. 13; Davison, Hinkley. Bootstrap
    Methods and their Application. 1997, Sec. 5.2.

    Examples
    --------
    >>> from credalbook.metrics import accuracy
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=400)
    >>> y = (rng.random(400)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    >>> e = bootstrap_ci(p, y, accuracy, n_resamples=200, seed=0)
    >>> e.low < e.value < e.high, e.n_resamples, e.method
    (True, 200, 'percentile')
    """
    if callable(probs) and not callable(metric):  # the old order (metric, probs, labels)
        warnings.warn(
            "bootstrap_ci(metric, probs, labels) is now bootstrap_ci(probs, labels, metric) (data first) "
            f"since 0.6; the old order will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        probs, labels, metric = labels, metric, probs
    level, n_resamples, seed, method = check_ci_options(ci, n_resamples, seed, method)
    if not callable(metric):
        raise TypeError(f"metric must be a callable metric(probs, labels); got {metric!r}")
    if batched is not None and not isinstance(batched, (bool, np.bool_)):
        raise ValueError(f"batched must be None, True or False; got {batched!r}")
    p, y = check_probs_labels(probs, labels)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) for a bootstrap interval; got shape {p.shape}")
    if _has_ci_keyword(metric):  # a metric of this package: its own ci= (fast paths, SKCE terms)
        est = metric(p, y, ci=level, n_resamples=n_resamples, seed=seed)
        return est if method == est.method else interval(est.value, est.replicates, ci=level, method=method)
    value = _real(metric(p, y))
    func = getattr(metric, "func", None)
    if hasattr(metric, "min_instances") and callable(func) and batched is not False:  # a CalibrationMeasure
        statistic = func
    elif batched or (batched is None and _base(metric) in _BATCH_CAPABLE):
        statistic = metric
    else:
        statistic = functools.partial(_loop, metric)
    reps = resample_statistic(statistic, (p, y), n_resamples=n_resamples, seed=seed)
    return interval(value, reps, ci=level, method=method)


def check_unbatched(p: np.ndarray) -> None:
    """An interval is for one data set: ``probs`` of shape (N, K)."""
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) when ci is given (one data set); got shape {p.shape}")
