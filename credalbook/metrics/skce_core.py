r"""The NumPy core of the SKCE estimators of :mod:`credalbook.metrics.kernel`: unvalidated, for checked arrays.

Residuals :math:`\mathbf r_i = \hat{\mathbf p}_i - \mathbf y_i` (:func:`skce_residuals`), the pair term
:math:`\mathbf r_a^\top\Gamma\mathbf r_b` of a scalar or matrix-valued kernel (:func:`skce_pair_term`), the
linear estimator (Eq. 8: pairs (1, 2), (3, 4), ...) and the quadratic one (Eq. 7), summed over the pairs
:math:`i < j` in tiles of 256 × 2048 kernel values (memory O(tile), never an (N, N) or (N, N, K) array),
on threads for large N, in a fixed order (the result does not depend on the number of threads). The
kernel calibration tests of :mod:`credalbook.stats` share these terms.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from credalbook._threads import cores as _n_threads
from credalbook.metrics.binning import one_hot
from credalbook.metrics.kernels import ScalarKernel

#: Kernel entries per row block of the quadratic estimator with a generic (user) kernel.
_PAIRS_PER_BLOCK = 1 << 21
#: Tile of the quadratic estimator with a :class:`ScalarKernel`: rows × columns of kernel values
#: computed at once (4 MiB of float64), and the number of pairs above which tiles run on threads.
_TILE_ROWS, _TILE_COLS = 256, 2048
_THREADED_PAIRS = 1 << 24


def skce_residuals(p, y):
    """p − e_y for integer labels y (..., N), or p − t for target rows t (..., N, K)."""
    return p - (y if y.ndim == p.ndim else one_hot(y, p.shape[-1]))


def skce_pair_term(kern: np.ndarray, r_a: np.ndarray, r_b: np.ndarray) -> np.ndarray:
    """:math:`r_a^T Γ r_b` for a scalar (...) or matrix (..., K, K) kernel value."""
    k = r_a.shape[-1]
    if kern.shape == r_a.shape[:-1]:
        return kern * (r_a * r_b).sum(axis=-1)
    if kern.shape == (*r_a.shape[:-1], k, k):
        return np.einsum("...s,...st,...t->...", r_a, kern, r_b)
    raise ValueError(
        f"kernel must return shape {r_a.shape[:-1]} (scalar kernel) or {(*r_a.shape[:-1], k, k)} "
        f"(matrix-valued kernel) for inputs of shape {r_a.shape}; got {kern.shape}"
    )


#: Pairs of the linear estimator computed at once by :func:`linear_terms_in_chunks` (working arrays of
#: a few MiB instead of several (N, K) arrays).
_LINEAR_CHUNK = 1 << 16


def linear_terms_in_chunks(p: np.ndarray, y: np.ndarray, kernel: Callable, chunk: int = _LINEAR_CHUNK) -> np.ndarray:
    """The terms of :func:`_linear_terms` for (N, K) ``p`` and (N,) labels ``y``, ``chunk`` pairs at a time.

    Each term takes the same operations on the same rows (residuals, the kernel of the pair, the
    pair term), so the terms equal those of ``_linear_terms(p, skce_residuals(p, y), kernel)`` bit for
    bit, for a ``kernel`` that works row by row (the built-in kernels).
    """
    half = p.shape[0] // 2
    out = np.empty(half)
    for s in range(0, half, chunk):
        e = min(half, s + chunk)
        ps, ys = p[2 * s : 2 * e], y[2 * s : 2 * e]
        out[s:e] = _linear_terms(ps, skce_residuals(ps, ys), kernel)
    return out


def _linear(p: np.ndarray, r: np.ndarray, kernel: Callable) -> np.ndarray:
    """Eq. 8: mean over the pairs (2i, 2i+1) along axis -2; (..., N, K) → (...)."""
    return _linear_terms(p, r, kernel).mean(axis=-1)


def _linear_terms(p: np.ndarray, r: np.ndarray, kernel: Callable) -> np.ndarray:
    """The ⌊N/2⌋ independent terms of Eq. 8, one per pair (2i, 2i+1); (..., N, K) → (..., ⌊N/2⌋)."""
    half = p.shape[-2] // 2
    a, b = slice(0, 2 * half, 2), slice(1, 2 * half, 2)
    return skce_pair_term(np.asarray(kernel(p[..., a, :], p[..., b, :])), r[..., a, :], r[..., b, :])


def _quadratic(p: np.ndarray, r: np.ndarray, kernel: Callable) -> float:
    """Eq. 7 for one data set (N, K) and a generic kernel: Σ_{i≠j} r_i^T Γ_ij r_j / (N(N−1)), in row blocks."""
    n, k = p.shape

    def gram(a, b):
        return np.asarray(kernel(*np.broadcast_arrays(a[:, None, :], b[None, :, :])))

    diagonal = float(skce_pair_term(np.asarray(kernel(p, p)), r, r).sum())
    per_row = n * k * (k if np.ndim(kernel(p[:1], p[:1])) == 3 else 1)
    block = max(1, _PAIRS_PER_BLOCK // per_row)
    total = 0.0
    for s in range(0, n, block):
        kern, r_s = gram(p[s : s + block], p), r[s : s + block]
        if kern.shape == (len(r_s), n):
            total += float(np.einsum("ij,ij->", kern, r_s @ r.T))
        elif kern.shape == (len(r_s), n, k, k):
            total += float(np.einsum("is,ijst,jt->", r_s, kern, r))
        else:
            skce_pair_term(kern, *np.broadcast_arrays(r_s[:, None, :], r[None, :, :]))  # raises the shape error
    return (total - diagonal) / (n * (n - 1))


def _single_threaded_blas(n_pairs: int):
    """Limit BLAS to one thread around many small products: OpenBLAS's threads cost more than
    they save on (256 × 2048) @ (2048 × K) products (4× slower on a loaded 2-core machine), and
    the tiles run on threads of their own."""
    if n_pairs < _TILE_ROWS * _TILE_COLS:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits  # installed with scikit-learn
    except ImportError:  # pragma: no cover
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _row_tiles(kernel: ScalarKernel, p: np.ndarray, r: np.ndarray, start: int) -> float:
    r"""Σ r_i^T Γ_ij r_j over rows i of the tile row at ``start`` and columns j ≥ ``start``, each
    pair i ≠ j of the upper triangle counted twice (both orders), the diagonal once."""
    n = len(p)
    stop = min(n, start + _TILE_ROWS)
    a, r_a = p[start:stop], r[start:stop]
    total = float(np.vdot(kernel.gram(a, a) @ r_a, r_a))  # the square tile on the diagonal: both orders
    upper = 0.0
    for c in range(stop, n, _TILE_COLS):
        d = min(n, c + _TILE_COLS)
        upper += float(np.vdot(kernel.gram(a, p[c:d]) @ r[c:d], r_a))
    return total + 2.0 * upper


def _quadratic_scalar(p: np.ndarray, r: np.ndarray, kernel: ScalarKernel) -> np.ndarray:
    """Eq. 7 for data sets (B, N, K) and a symmetric scalar kernel with k(p, p) = 1 → (B,).

    Tiles of the upper triangle only (the kernel is symmetric), each tile's kernel values
    contracted with a matrix product (never the (rows, cols) residual Gram matrix); large problems
    spread their tile rows over threads, whose partial sums are added in a fixed order (the result
    does not depend on the number of threads).
    """
    n_sets, n, _ = p.shape
    tasks = [(i, s) for i in range(n_sets) for s in range(0, n, _TILE_ROWS)]

    def work(task):
        i, s = task
        return _row_tiles(kernel, p[i], r[i], s)

    n_pairs = n_sets * n * (n - 1) // 2
    n_threads = min(_n_threads(), len(tasks))
    with _single_threaded_blas(n_pairs):
        if n_pairs >= _THREADED_PAIRS and n_threads > 1:
            with ThreadPoolExecutor(n_threads) as pool:
                parts = list(pool.map(work, tasks))
        else:
            parts = [work(t) for t in tasks]
    totals = np.zeros(n_sets)
    for (i, _), part in zip(tasks, parts):
        totals[i] += part
    diagonal = np.einsum("bnk,bnk->b", r, r)  # k(p_i, p_i) = 1
    return (totals - diagonal) / (n * (n - 1))
