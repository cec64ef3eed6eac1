r"""Resampling replicates in fixed-size chunks through joblib, seeded per chunk.

Every resampling test splits its R replicates into chunks of a fixed size (the last one smaller)
and gives chunk :math:`c` its own generator, ``default_rng(root.spawn(n_chunks)[c])`` with
``root`` one :class:`numpy.random.SeedSequence` drawn from the test's ``seed``. The chunks do not
depend on ``n_jobs``, so neither do the null samples nor the p-value: ``n_jobs=1`` and
``n_jobs=8`` give the same numbers, and so does a dask cluster. The chunks run through
:class:`joblib.Parallel`; inside ``joblib.parallel_config(backend="dask")`` with a
``dask.distributed`` client they go to the cluster (a laptop ``LocalCluster``, or a SLURM cluster
through dask-jobqueue).

:func:`sweep` is the one dispatcher underneath: it runs independent items (the chunks here, and the
datasets, seeds or member subsets of the chapters' sweeps in :mod:`credalbook.papers`) in this
process without joblib for ``n_jobs=1``, else through :class:`joblib.Parallel` with no backend of its
own, so that a surrounding ``joblib.parallel_config`` decides where they run. In a worker *process*
(loky, dask) an item runs with one torch thread (small torch models use cores better side by side than
split across threads) and with the parent's cache folder (``$CREDALBOOK_CACHE_DIR``), so cached fits
are shared; on a cluster that folder must be on a file system every worker sees. Items in threads of
this process (joblib's ``"threading"`` backend, a ``LocalCluster`` with ``processes=False``) leave both
alone.

Examples
--------
>>> def draws(size, rng):
...     return rng.random(size)
>>> a = run_chunks(draws, 25, seed=0, chunk_size=10, n_jobs=1)
>>> b = run_chunks(draws, 25, seed=0, chunk_size=10, n_jobs=2)
>>> a.shape, bool((a == b).all())
((25,), True)
"""

from __future__ import annotations

import numbers
import os
import sys
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from credalbook._validation import as_rng, check_positive_int
from credalbook.cache import cache_dir
from credalbook.cache import ENV_VAR as CACHE_ENV_VAR

__all__ = ["DEFAULT_CHUNK_SIZE", "check_n_jobs", "root_seed", "chunk_sizes", "run_chunks", "sweep"]

#: Replicates per chunk unless a test chooses otherwise: enough work per task to hide joblib's
#: overhead at small N, small enough that 1000 replicates make 10 tasks for 10 workers.
DEFAULT_CHUNK_SIZE = 100


def check_n_jobs(n_jobs, name: str = "n_jobs"):
    """Validate ``n_jobs`` as joblib reads it: None, or a non-zero integer (negative: CPUs + 1 + n_jobs).

    Examples
    --------
    >>> check_n_jobs(None), check_n_jobs(-1)
    (None, -1)
    """
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"{name} must be None or a non-zero integer (-1: all CPUs); got {n_jobs!r}")
    return int(n_jobs)


def root_seed(seed) -> np.random.SeedSequence:
    """One :class:`~numpy.random.SeedSequence` from ``seed`` (None, int, sequence, SeedSequence or Generator).

    A SeedSequence is used as it is; otherwise 128 bits are drawn from ``as_rng(seed)``, so a
    Generator passed as ``seed`` advances (as when the test draws from it directly).
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(as_rng(seed).integers(0, 2**63, size=2).tolist())


def chunk_sizes(total: int, chunk_size: int) -> list[int]:
    """Sizes of the chunks of ``total`` replicates: ``chunk_size`` each, the last one the rest.

    >>> chunk_sizes(250, 100)
    [100, 100, 50]
    """
    return [min(chunk_size, total - lo) for lo in range(0, total, chunk_size)]


def run_chunks(
    func,
    total: int,
    *,
    seed=None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs=None,
    args: tuple = (),
    kwargs: dict | None = None,
) -> np.ndarray:
    """``concatenate([func(size_c, rng_c, *args, **kwargs) for each chunk c])`` through joblib.

    Parameters
    ----------
    func : callable
        ``func(size, rng, *args, **kwargs)`` returning an array whose first axis has ``size``
        entries; a module-level function (picklable) for process and cluster backends.
    total : int
        R, the number of replicates.
    seed
        The test's seed; see :func:`root_seed`.
    chunk_size : int
        Replicates per chunk (fixed: the result does not depend on ``n_jobs``).
    n_jobs : int or None
        Passed to :class:`joblib.Parallel`: None runs the chunks one after the other unless a
        ``joblib.parallel_config`` says otherwise (e.g. ``backend="dask"``), -1 uses all CPUs.

    Returns
    -------
    ndarray
        The chunks' results concatenated along the first axis, in chunk order.
    """
    total = check_positive_int(total, "n_resamples")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    n_jobs = check_n_jobs(n_jobs)
    sizes = chunk_sizes(total, chunk_size)
    seeds = root_seed(seed).spawn(len(sizes))
    kwargs = dict(kwargs or {})
    parts = sweep(_call, [(func, size, s, args, kwargs) for size, s in zip(sizes, seeds)], n_jobs=n_jobs)
    return np.concatenate([np.asarray(p) for p in parts], axis=0)


def _call(func, size, seed_seq, args, kwargs):
    return func(size, np.random.default_rng(seed_seq), *args, **kwargs)


def _in_worker(func: Callable, args: tuple, parent_pid: int, cache_root: str):
    """``func(*args)``; in another process than the parent's with one torch thread and the parent's cache."""
    if os.getpid() != parent_pid:
        os.environ[CACHE_ENV_VAR] = cache_root  # workers may be reused across calls: do not inherit
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)
    return func(*args)


def sweep(func: Callable, items: Iterable[tuple], *, n_jobs: int = 1) -> Iterator:
    """``func(*item)`` for every item, yielded in the order of ``items`` as they finish.

    Parameters
    ----------
    func : callable
        A module-level function (it is pickled to the workers).
    items : iterable of tuple
        Positional arguments of each call.
    n_jobs : int or None, default=1
        1: here, one after another, without joblib. Otherwise :class:`joblib.Parallel` ``(n_jobs)``
        under the active ``joblib.parallel_config`` (loky processes by default; e.g.
        ``backend="dask"`` for a ``dask.distributed`` cluster).

    Returns
    -------
    iterator
        The results, in the order of ``items``.

    Examples
    --------
    >>> items = [(2, 3), (3, 2)]
    >>> list(sweep(pow, items)) == list(sweep(pow, items, n_jobs=2)) == list(sweep(pow, items, n_jobs=None)) == [8, 9]
    True
    """
    from joblib import delayed, Parallel

    n_jobs = check_n_jobs(n_jobs)
    items = [tuple(it) for it in items]
    if n_jobs == 1 or len(items) <= 1:
        return (func(*it) for it in items)
    pid, root = os.getpid(), str(cache_dir())
    jobs = (delayed(_in_worker)(func, it, pid, root) for it in items)
    return iter(Parallel(n_jobs=n_jobs, return_as="generator")(jobs))
