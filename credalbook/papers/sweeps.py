r"""Run the items of a chapter sweep here, one after another, or through joblib (any backend).

A sweep of :mod:`credalbook.papers` (datasets of an error-rate study, seeds of an EU study, member
subsets of a Wu & Gales study, ...) is a list of independent items, each with its own seed derived
from the study's seed before any work starts, so its results do not depend on where or in which order
the items run. :func:`sweep` runs them:

* ``n_jobs=1`` (the default of the sweeps): in this process, in order, without joblib — exactly
  what the sweeps did before they took ``n_jobs``;
* otherwise (``None``, ``-1``, ``2``, ...): :class:`joblib.Parallel` with ``n_jobs`` and *no* backend
  of its own, so a surrounding ``joblib.parallel_config(backend="dask")`` with a ``dask.distributed``
  client sends the items to the cluster (loky processes on this machine by default; ``None``: one
  after another unless a ``parallel_config`` says otherwise, as ``n_jobs`` of
  :func:`credalbook.stats.calibration_test`). ``n_jobs`` is checked by
  :func:`credalbook._parallel.check_n_jobs`.

In a worker *process* (loky, dask) the item runs with one torch thread (small torch models use cores
better side by side than split across threads; ``credalbook.papers.wu_gales.topology_ensemble_logits``
does the same) and with the parent's cache folder (``$CREDALBOOK_CACHE_DIR``), so cached GP fits and
networks are shared; on a cluster that folder must be on a file system every worker sees. Items
running in threads of this process (joblib's ``"threading"`` backend, a ``LocalCluster`` with
``processes=False``) leave both alone.

References
----------
joblib, "Embarrassingly parallel for loops" and ``joblib.parallel_config``,
https://joblib.readthedocs.io/en/stable/parallel.html; Dask, "Joblib integration",
https://ml.dask.org/joblib.html.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator

from joblib import Parallel, delayed

from credalbook._parallel import check_n_jobs
from credalbook.cache import ENV_VAR as CACHE_ENV_VAR
from credalbook.cache import cache_dir

__all__ = ["sweep"]


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
    n_jobs = check_n_jobs(n_jobs)
    items = [tuple(it) for it in items]
    if n_jobs == 1 or len(items) <= 1:
        return (func(*it) for it in items)
    pid, root = os.getpid(), str(cache_dir())
    jobs = (delayed(_in_worker)(func, it, pid, root) for it in items)
    return iter(Parallel(n_jobs=n_jobs, return_as="generator")(jobs))
