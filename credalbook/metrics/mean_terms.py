r"""Metrics that are means of per-instance terms, and their bootstrap intervals from multiplicities.

Accuracy, NLL, the Brier score and the signed calibration error are means of one term per instance.
A bootstrap replicate's mean is :math:`m^\top t / N`, with :math:`m` the multiplicities of its
resample indices (:func:`~credalbook.metrics.intervals.resample_counts`: the indices of gathering,
the gathered means up to the order of the sums), so several such means share one count per
replicate (:func:`credalbook.metrics.joint_intervals`).
"""

from __future__ import annotations

import functools

import numpy as np

from credalbook.metrics.binning import one_hot
from credalbook.metrics.intervals import counts_estimate, mean_of_counts


def _accuracy_terms(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-instance hits of :func:`~credalbook.metrics.accuracy`: ``argmax(p) == y`` (..., N) bool."""
    return row_argmax(p) == y


#: Rows per block of :func:`row_argmax`.
_ARGMAX_ROWS = 1 << 15
#: Entries of (N, K) rows from which :func:`row_argmax` takes its blocks on several threads (``credalbook._threads``).
THREADED_ARGMAX_ENTRIES = 1 << 20


def row_argmax(p: np.ndarray, *, values: bool = False):
    """``p.argmax(axis=-1)``, or with ``values`` the pair (row maxima (..., N, 1), arg-max (..., N)).

    A read-only (N, K) array (a memory-mapped file) is taken block of rows by block of rows: NumPy copies a
    read-only array whole before its arg-max. From :data:`THREADED_ARGMAX_ENTRIES` entries the blocks of an
    (N, K) array run on the threads of ``credalbook._threads.map_blocks``. The same indices, each row's own,
    and each maximum is the entry ``take_along_axis`` reads.
    """
    big = p.ndim == 2 and p.shape[0] > _ARGMAX_ROWS
    if not big or (p.flags.writeable and p.size < THREADED_ARGMAX_ENTRIES):
        yhat = p.argmax(axis=-1)
        return (np.take_along_axis(p, yhat[..., None], axis=-1), yhat) if values else yhat
    from credalbook._threads import map_blocks

    out = np.empty(p.shape[0], dtype=np.intp)
    top = np.empty((p.shape[0], 1), dtype=p.dtype) if values else None

    def block(s: int, e: int) -> None:
        b = p[s:e]
        yh = b.argmax(axis=-1)
        out[s:e] = yh
        if values:
            top[s:e] = np.take_along_axis(b, yh[:, None], axis=-1)

    map_blocks(block, p.shape[0], _ARGMAX_ROWS, threaded=p.size >= THREADED_ARGMAX_ENTRIES)
    return (top, out) if values else out


#: Entries of (N, K) rows per block of :func:`_brier_terms` (its temporaries stay a few MiB, not 3 copies of ``probs``).
_BLOCK_ENTRIES = 1 << 20


def _brier_terms(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-instance terms of :func:`~credalbook.metrics.brier_score`: the squared distance to the one-hot label.

    Rows of (N, K) probabilities are taken in blocks of about :data:`_BLOCK_ENTRIES` entries; each
    row's sum is the one of the whole array (the same reduction of the same K values).
    """
    if p.ndim != 2 or p.size <= _BLOCK_ENTRIES:
        return ((p - one_hot(y, p.shape[-1])) ** 2).sum(axis=-1)
    step = max(1, _BLOCK_ENTRIES // p.shape[1])
    out = np.empty(p.shape[0])
    for s in range(0, p.shape[0], step):
        block = p[s : s + step]
        out[s : s + step] = ((block - one_hot(y[s : s + step], p.shape[1])) ** 2).sum(axis=-1)
    return out


def _nll_terms(p: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """Per-instance terms of :func:`~credalbook.metrics.nll`: ``-log max(p_y, eps)`` (..., N)."""
    p_true = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]
    return -np.log(np.clip(p_true, eps, None))


def _mean_estimate(terms: np.ndarray, value: float, *, ci, n_resamples, seed):
    """Bootstrap interval of the mean of per-instance ``terms`` (N,) (see the module docstring)."""
    terms = np.ascontiguousarray(terms, dtype=np.float64)
    statistic = functools.partial(mean_of_counts, terms)
    return counts_estimate(statistic, terms.shape[0], value, ci=ci, n_resamples=n_resamples, seed=seed)
