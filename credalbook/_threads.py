"""Threads for the passes over large arrays: one shared pool, row blocks, results in order.

NumPy releases the GIL inside its loops, so a pass over the rows of a large (N, K) array (an
arg-max, a range check, the bin rule of N·K values) runs on several cores when its rows are cut
into blocks. Every use here computes each row (or each element) exactly as the whole-array call
would and combines the blocks by exact operations only (concatenation, min, max); sums that
depend on the order of their terms stay in one thread. So a threaded path returns the
single-threaded result bit for bit, whatever the number of threads; tests hold each one to its
plain NumPy route.

:func:`workers` is the number of threads: the cores this process may use (its CPU affinity),
at most 4, or fewer when the environment variable ``CREDALBOOK_NUM_THREADS`` says so (1: no threads;
for example in Dask workers that already run one process per core). The pool is created on first use and dropped in a forked child (its threads do not
survive a fork). Work submitted from inside one of the pool's own threads runs in that thread.

:func:`map_blocks` runs independent blocks of rows; :func:`in_order` runs a stream of jobs a few ahead on the
pool while this thread consumes their results in order (the bootstrap's chunks, the binning engine's steps).
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

#: Threads of :func:`map_blocks` and of the bootstrap's counting (``credalbook.metrics.intervals``).
MAX_WORKERS = 4

_POOL: list = []  # [ThreadPoolExecutor], created on first use
_LOCK = threading.Lock()
_LOCAL = threading.local()


#: Environment variable that caps :func:`workers` (a positive integer).
THREADS_ENV = "CREDALBOOK_NUM_THREADS"


def workers() -> int:
    """Threads of the pool: :func:`cores`, at most :data:`MAX_WORKERS` (and at most the cap of :func:`capped`
    in the calling thread)."""
    return min(MAX_WORKERS, cores(), getattr(_LOCAL, "cap", MAX_WORKERS))


@contextlib.contextmanager
def capped(n: int):
    """Within the block, work started from this thread uses at most ``n`` threads (:func:`workers`; 1: plain
    loops), for example while another thread of the caller already keeps a core busy. Other threads are not
    affected; the numbers are the same (every threaded path here returns its one-thread result).

    Examples
    --------
    >>> with capped(1):
    ...     workers()
    1
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    before = getattr(_LOCAL, "cap", None)
    _LOCAL.cap = n if before is None else min(before, n)
    try:
        yield
    finally:
        if before is None:
            del _LOCAL.cap
        else:
            _LOCAL.cap = before


def cores() -> int:
    """The cores this process may use (its CPU affinity where the OS has one), at most ``$CREDALBOOK_NUM_THREADS``
    when set."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    cap = os.environ.get(THREADS_ENV)
    if cap:
        try:
            limit = int(cap)
        except ValueError:
            limit = 0
        if limit < 1:
            raise ValueError(f"{THREADS_ENV} must be a positive integer; got {cap!r}")
        cores = min(cores, limit)
    return max(1, cores)


def _mark() -> None:
    _LOCAL.in_pool = True


def shared_pool() -> ThreadPoolExecutor | None:
    """The shared pool (None with one core, or inside one of its threads: nested work runs inline)."""
    if getattr(_LOCAL, "in_pool", False) or workers() < 2:
        return None
    with _LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(workers(), thread_name_prefix="credalbook-blocks", initializer=_mark))
        return _POOL[0]


def _forget_pool() -> None:  # pragma: no cover - runs in forked children
    global _LOCK
    _POOL.clear()
    _LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def map_blocks(func: Callable[[int, int], object], n: int, block: int, *, threaded: bool = True) -> list:
    """``[func(s, min(s + block, n)) for s in range(0, n, block)]``, the blocks on the shared pool's threads.

    Results come back in the order of the blocks. With one block, one core, ``threaded=False`` or
    from inside the pool, the calls run here, one after the other.
    """
    spans = [(s, min(s + block, n)) for s in range(0, n, max(1, block))]
    ex = shared_pool() if threaded and len(spans) > 1 else None
    if ex is None:
        return [func(s, e) for s, e in spans]
    return list(ex.map(lambda se: func(*se), spans))


def in_order(jobs: Iterable, consume: Callable[[object, object], None], *, depth: int) -> None:
    """``consume(key, call())`` for each ``(key, call)`` of ``jobs``, in their order.

    With ``depth`` ≥ 1 and the shared pool, the calls of up to ``depth + 1`` jobs run on its threads while this
    thread takes the next job from ``jobs`` (an iterator may do its own work there, drawing random numbers in
    order) and consumes the oldest result. A job's results are consumed before the job ``depth + 1`` places later
    is taken, so a call may reuse the buffers of that job. With ``depth`` 0, one core or from inside the pool:
    a plain loop.
    """
    ex = shared_pool() if depth >= 1 else None
    if ex is None:
        for key, call in jobs:
            consume(key, call())
        return
    pending: collections.deque = collections.deque()
    for key, call in jobs:
        pending.append((key, ex.submit(call)))
        if len(pending) > depth:
            key0, done = pending.popleft()
            consume(key0, done.result())
    while pending:
        key0, done = pending.popleft()
        consume(key0, done.result())
