r"""Squared kernel calibration error (SKCE) estimators of Widmann et al. (2019).

For a matrix-valued kernel :math:`\Gamma : \Delta_K \times \Delta_K \to \mathbb R^{K\times K}` and
residuals :math:`\mathbf r_i = \hat{\mathbf p}_i - \mathbf y_i` (prediction minus one-hot label),

.. math::
    \widehat{SKCE}_{uq} = \binom N2^{-1} \sum_{i<j} \mathbf r_i^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,\mathbf r_j
    \qquad\text{(Mortier et al. 2023, Eq. 7)},

.. math::
    \widehat{SKCE}_{ul} = \frac1{\lfloor N/2\rfloor} \sum_{i=1}^{\lfloor N/2\rfloor}
    \mathbf r_{2i-1}^\top \Gamma(\hat{\mathbf p}_{2i-1}, \hat{\mathbf p}_{2i})\,\mathbf r_{2i}
    \qquad\text{(Eq. 8)}.

Both are unbiased estimators of the squared kernel calibration error, which is zero exactly when
the model is calibrated in the strong sense (Def. 3) for a characteristic kernel; individual
estimates can therefore be negative. The default kernel is the one of the authors' code
(tfmortie/calibration@686d453, ``calibration/src/main/py/caltest.py``, l. 20-21 and 28-29, with
:math:`h = 2` set in ``calibration/src/test/final_experiments_alpha_fast.py``, l. 163-164):
:math:`\Gamma(\mathbf p, \mathbf p') = \exp(-d_{TV}(\mathbf p, \mathbf p')^2 / h)\,
\mathbf I_K` with :math:`d_{TV} = \tfrac12\lVert\mathbf p - \mathbf p'\rVert_1` and :math:`h = 2`
(the paper, Sec. 4.1, prints :math:`\exp(-\lVert \mathbf p - \mathbf p'\rVert / 2)`).

This module is the one SKCE of the package. Kernels are small objects, :math:`\Gamma = k\,\mathbf I_K`
with a scalar kernel :math:`k(\mathbf p, \mathbf p) = 1`:

========================  ==================================================================  ==============================
kernel                    :math:`k(\mathbf p, \mathbf q)`                                     used by
========================  ==================================================================  ==============================
:class:`TVKernel`         :math:`\exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)`                   Mortier et al., Jürgens et al.
:class:`LaplacianKernel`  :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2 / \nu)`            Wu & Gales (Widmann et al.)
:class:`GaussianKernel`   :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2^2 / (2\sigma^2))`  MMD of Marx et al.
========================  ==================================================================  ==============================

A user kernel is any callable ``kernel(p, q)`` on arrays ``(..., K)`` that returns either a scalar
per pair, shape ``(...)``, meaning :math:`\Gamma = k(\mathbf p, \mathbf q)\,\mathbf I_K`, or a full
matrix per pair, shape ``(..., K, K)`` (a matrix-valued kernel, :math:`\Gamma(\mathbf p, \mathbf q)
= \Gamma(\mathbf q, \mathbf p)^\top`).

One NumPy core computes every estimator (:func:`skce_batched`): the linear one pairs (1, 2),
(3, 4), ...; the quadratic one sums :math:`\mathbf r_i^\top\Gamma_{ij}\mathbf r_j` over the pairs
:math:`i < j` in tiles of 256 × 2048 pairs (memory O(tile), never an (N, N) or (N, N, K) array,
each tile's kernel values computed in place and contracted with a matrix product), doubled by
symmetry; the block estimator of Widmann et al. (2021) averages the quadratic estimator over
consecutive blocks of ``block_size`` instances,

.. math::
    \widehat{SKCE}_{b} = \frac1{\lfloor N/m\rfloor} \sum_{b=1}^{\lfloor N/m\rfloor}
    \binom m2^{-1} \sum_{(b-1)m < i < j \le bm} \mathbf r_i^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,\mathbf r_j ,

unbiased as well, in time O(N·m): m = 2 is the linear estimator and m = N the quadratic one
(instances after the last full block are ignored, as in ``CalibrationErrors.jl``). The default
of :func:`skce`, ``estimator="auto"``, is the quadratic estimator up to :data:`QUADRATIC_MAX_N`
instances and the block estimator with blocks of :data:`AUTO_BLOCK_SIZE` above (N = 10⁶, K = 10:
seconds instead of hours). The kernel objects also evaluate in torch, and the same estimators then
run in torch with gradients, on the device of the input (:func:`skce` on tensors, and
:func:`credalbook.metrics.skce_estimator` for the weight learner of Jürgens et al.); for large N
the torch quadratic estimator also works in row blocks of the kernel matrix, recomputed in the
backward pass (:func:`torch.utils.checkpoint.checkpoint`). Tests hold the paths equal.

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019. Widmann, Lindsten, Zachariah. Calibration tests beyond classification.
ICLR 2021 (block estimator). Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of
Probabilistic Classifier Sets. AISTATS 2023, Eqs. (7)-(8).
"""

from __future__ import annotations

import contextlib
import functools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from scipy.spatial.distance import cdist
from torch.utils.checkpoint import checkpoint

from credalbook._validation import (
    as_scalar,
    check_choice,
    check_positive_float,
    check_positive_int,
    check_probs,
    check_probs_labels,
)
from credalbook.metrics.classification import one_hot
from credalbook.metrics.intervals import batch_capable, bootstrap_estimate, check_ci_keyword, check_unbatched

__all__ = [
    "DEFAULT_BANDWIDTH",
    "SKCE_ESTIMATORS",
    "QUADRATIC_MAX_N",
    "AUTO_BLOCK_SIZE",
    "resolve_estimator",
    "ScalarKernel",
    "TVKernel",
    "LaplacianKernel",
    "GaussianKernel",
    "tv_kernel",
    "laplacian_kernel",
    "gaussian_kernel",
    "as_kernel",
    "skce",
    "skce_ul",
    "skce_uq",
    "skce_batched",
]

#: Bandwidth h of the default kernel exp(−TV²/h) (authors' code).
DEFAULT_BANDWIDTH = 2.0
#: Names of the unbiased estimators: paired (Eq. 8), all pairs (Eq. 7), blocks (Widmann et al. 2021),
#: and ``"auto"``, which picks one of them from N (:func:`resolve_estimator`).
SKCE_ESTIMATORS = ("linear", "quadratic", "block", "auto")
#: Largest N for which ``estimator="auto"`` uses the quadratic estimator (Eq. 7); above it, the
#: block estimator with blocks of :data:`AUTO_BLOCK_SIZE` (time linear in N).
QUADRATIC_MAX_N = 10_000
#: Block size m of the block estimator, the default of ``block_size`` and what ``"auto"`` uses above
#: :data:`QUADRATIC_MAX_N`: N(m − 1)/2 kernel pairs, 5·10⁸ at N = 10⁶.
AUTO_BLOCK_SIZE = 1000
#: Kernel entries per row block of the quadratic estimator with a generic (user) kernel.
_PAIRS_PER_BLOCK = 1 << 21
#: Tile of the quadratic estimator with a :class:`ScalarKernel`: rows × columns of kernel values
#: computed at once (4 MiB of float64), and the number of pairs above which tiles run on threads.
_TILE_ROWS, _TILE_COLS = 256, 2048
_THREADED_PAIRS = 1 << 24
#: Largest kernel matrix (batch × N × N entries) the torch quadratic estimator forms at once; above
#: it, row blocks (checkpointed when gradients are needed).
_TORCH_GRAM_ELEMS = 1 << 24


def _check_bandwidth(bandwidth, name: str = "bandwidth") -> float:
    return check_positive_float(bandwidth, name)


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScalarKernel:
    r"""Base of the scalar kernels :math:`\Gamma(\mathbf p, \mathbf q) = k(\mathbf p, \mathbf q)\,\mathbf I_K`, :math:`k(\mathbf p, \mathbf p) = 1`.

    A subclass evaluates :math:`k` on paired rows in NumPy (``__call__``, broadcasting over
    leading dimensions), as a Gram matrix (``gram``) and both again in torch, differentiably
    (``torch_pairs``, ``torch_gram``).
    """

    bandwidth: float

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", _check_bandwidth(self.bandwidth))

    def __call__(self, p, q) -> np.ndarray:
        """k on paired rows ``p``, ``q`` (..., K) → (...)."""
        raise NotImplementedError

    def gram(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """k between all rows of ``a`` (n, K) and ``b`` (m, K) → (n, m)."""
        return self(*np.broadcast_arrays(a[:, None, :], b[None, :, :]))

    def torch_pairs(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """k on paired rows in torch, (..., K) → (...)."""
        raise NotImplementedError

    def torch_gram(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """k between all rows in torch, (B, n, K) and (B, m, K) → (B, n, m)."""
        raise NotImplementedError


@dataclass(frozen=True)
class TVKernel(ScalarKernel):
    r""":math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)`, :math:`d_{TV} = \tfrac12\lVert\mathbf p - \mathbf q\rVert_1`.

    The kernel of Mortier et al.'s and Jürgens et al.'s code (``bandwidth`` h = 2 by default).

    Examples
    --------
    >>> float(TVKernel(2.0)(np.array([1.0, 0.0]), np.array([0.0, 1.0])))   # exp(-1/2)
    0.6065306597126334
    """

    bandwidth: float = DEFAULT_BANDWIDTH

    def __call__(self, p, q) -> np.ndarray:
        tv = 0.5 * np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum(axis=-1)
        return _exp_neg_ratio_np(np.asarray(tv * tv, dtype=np.float64), self.bandwidth)

    def gram(self, a, b):
        # exp(-(d/2)²/h) = exp(d² / (-4h)) exactly (powers of two), in place on one (n, m) array
        d = cdist(a, b, "cityblock")
        np.multiply(d, d, out=d)
        return _exp_neg_ratio_np(d, 4.0 * self.bandwidth)

    def torch_pairs(self, a, b):
        d = (a - b).abs().sum(-1)
        return _exp_neg_ratio(0.25 * d * d, self.bandwidth)

    def torch_gram(self, a, b):
        d = torch.cdist(_upcast_half(a), _upcast_half(b), p=1.0)
        return _exp_neg_ratio(0.25 * d * d, self.bandwidth).to(a.dtype)


@dataclass(frozen=True)
class LaplacianKernel(ScalarKernel):
    r""":math:`k(\mathbf p, \mathbf q) = \exp(-\lVert\mathbf p - \mathbf q\rVert_2 / \nu)` (Widmann et al. 2019, Sec. 6).

    The kernel of Wu & Gales' SKCE (:func:`credalbook.metrics.skce_laplacian`), with ``bandwidth``
    :math:`\nu` usually from :func:`credalbook.metrics.median_heuristic`.

    Examples
    --------
    >>> round(float(LaplacianKernel(1.0)(np.array([1.0, 0.0]), np.array([0.0, 1.0]))), 6)   # exp(-√2)
    0.243117
    """

    bandwidth: float

    def __call__(self, p, q) -> np.ndarray:
        diff = np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)
        return _exp_neg_ratio_np(np.asarray(np.sqrt((diff * diff).sum(axis=-1)), dtype=np.float64), self.bandwidth)

    def gram(self, a, b):
        return _exp_neg_ratio_np(cdist(a, b), self.bandwidth)

    def torch_pairs(self, a, b):
        return _exp_neg_ratio(torch.linalg.vector_norm(a - b, dim=-1), self.bandwidth)

    def torch_gram(self, a, b):
        d = torch.cdist(_upcast_half(a), _upcast_half(b), p=2.0, compute_mode="donot_use_mm_for_euclid_dist")
        return _exp_neg_ratio(d, self.bandwidth).to(a.dtype)


@dataclass(frozen=True)
class GaussianKernel(ScalarKernel):
    r""":math:`k(\mathbf p, \mathbf q) = \exp(-\lVert\mathbf p - \mathbf q\rVert_2^2 / (2\sigma^2))`, ``bandwidth`` :math:`\sigma`.

    The kernel on predictions of the MMD of Marx et al. (:func:`credalbook.metrics.mmd_calibration_error`).

    Examples
    --------
    >>> round(float(GaussianKernel(1.0)(np.array([1.0, 0.0]), np.array([0.0, 1.0]))), 6)   # exp(-1)
    0.367879
    """

    bandwidth: float

    @property
    def _scales(self) -> tuple[float, tuple[float, float]]:
        # 2σ² (σ·σ, not σ**2, which raises OverflowError for σ > 1e154) and its factors σ, 2σ
        return 2.0 * (self.bandwidth * self.bandwidth), (self.bandwidth, 2.0 * self.bandwidth)

    def __call__(self, p, q) -> np.ndarray:
        diff = np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)
        return _exp_neg_ratio_np(np.asarray((diff**2).sum(-1), dtype=np.float64), *self._scales)

    def gram(self, a, b):
        d = cdist(a, b, "sqeuclidean")
        return _exp_neg_ratio_np(d, *self._scales)

    def torch_pairs(self, a, b):
        return _exp_neg_ratio(((a - b) ** 2).sum(-1), *self._scales)

    def torch_gram(self, a, b):
        # ‖a‖² + ‖b‖² − 2ab^T in one fused batched product (cheaper to differentiate than cdist,
        # and no square root whose gradient is infinite at zero distance)
        dtype = a.dtype
        a, b = _upcast_half(a), _upcast_half(b)
        sq_a, sq_b = (a * a).sum(-1), (b * b).sum(-1)
        sq = (torch.baddbmm(sq_b[:, None, :], a, b.transpose(-1, -2), alpha=-2) + sq_a[..., None]).clamp_min(0)
        return _exp_neg_ratio(sq, *self._scales).to(dtype)


def _exp_neg_ratio(x: torch.Tensor, scale: float, divisors: tuple = ()) -> torch.Tensor:
    r""":math:`\exp(-x/s)` for x ≥ 0 in x's dtype, without NaN for any valid bandwidth.

    A bandwidth that is a valid positive float64 can round to 0 in float32 or float16 (1e-8 in
    float16, 1e-46 in float32), and :math:`s = 2\sigma^2` can underflow to 0 even in float64
    (σ < 1e-154); x/s is then 0/0 = NaN for identical rows. Below the dtype's smallest normal
    number, x is divided in float64 by ``divisors`` (whose product is s, each of them > 0) one
    after the other: 0 stays 0 and a positive x becomes +inf, as the limit requires.
    """
    if scale >= torch.finfo(x.dtype).tiny:
        return torch.exp(-x / scale)
    y = x.double()
    for d in divisors or (scale,):
        y = y / d
    return torch.exp(-y).to(x.dtype)


def _exp_neg_ratio_np(x: np.ndarray, scale: float, divisors: tuple = ()) -> np.ndarray:
    """:func:`_exp_neg_ratio` on a float64 array ``x`` (overwritten; a 0-d array gives a float).

    Overflow to +inf and underflow to 0 are the right limits here, so they do not warn.
    """
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        if scale >= np.finfo(np.float64).tiny:
            x = np.divide(x, -scale, out=x)
        else:
            for d in divisors or (scale,):
                x = np.divide(x, d, out=x)
            x = np.negative(x, out=x)
        return np.exp(x, out=x)[()]  # a NumPy scalar for 0-d input, as np.exp gives


def _upcast_half(x: torch.Tensor) -> torch.Tensor:
    """float16 and bfloat16 as float32: ``torch.cdist`` has no half-precision kernel on the CPU, so
    the Gram matrices of half-precision inputs are computed in float32 and returned in their dtype."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _check_kernel_args(p, q) -> tuple[np.ndarray, np.ndarray]:
    """``p`` and ``q``: probability vectors (..., K) with the same K whose leading dimensions broadcast."""
    p = check_probs(p, name="p", min_ndim=1)
    q = check_probs(q, name="q", min_ndim=1)
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p and q must have the same number of classes; got shapes p {p.shape} and q {q.shape}")
    try:
        np.broadcast_shapes(p.shape, q.shape)
    except ValueError:
        raise ValueError(f"p and q must broadcast against each other; got shapes p {p.shape} and q {q.shape}") from None
    return p, q


def tv_kernel(p, q, *, bandwidth: float = DEFAULT_BANDWIDTH) -> np.ndarray:
    r"""Scalar kernel :math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)` (:class:`TVKernel`).

    :math:`d_{TV}(\mathbf p, \mathbf q) = \tfrac12 \sum_k |p_k - q_k|` is the total-variation
    distance; broadcasting over leading dimensions of ``p`` and ``q`` (..., K).

    Examples
    --------
    >>> float(tv_kernel(np.array([1.0, 0.0]), np.array([0.0, 1.0])))  # TV = 1
    0.6065306597126334
    """
    kernel = TVKernel(bandwidth)
    return kernel(*_check_kernel_args(p, q))


def laplacian_kernel(p, q, *, bandwidth: float) -> np.ndarray:
    r"""Scalar kernel :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2 / \nu)` (:class:`LaplacianKernel`), broadcasting over (..., K).

    Examples
    --------
    >>> round(float(laplacian_kernel([0.8, 0.2], [0.4, 0.6], bandwidth=1.0)), 6)   # exp(-0.4√2)
    0.567971
    """
    kernel = LaplacianKernel(bandwidth)
    return kernel(*_check_kernel_args(p, q))


def gaussian_kernel(p, q, *, bandwidth: float) -> np.ndarray:
    r"""Scalar kernel :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2^2 / (2\sigma^2))` (:class:`GaussianKernel`), broadcasting over (..., K).

    Examples
    --------
    >>> round(float(gaussian_kernel([0.8, 0.2], [0.4, 0.6], bandwidth=1.0)), 6)   # exp(-0.16)
    0.852144
    """
    kernel = GaussianKernel(bandwidth)
    return kernel(*_check_kernel_args(p, q))


def as_kernel(kernel=None, bandwidth: float = DEFAULT_BANDWIDTH) -> Callable:
    """The kernel an SKCE uses: ``None`` gives ``TVKernel(bandwidth)``; a callable is returned as is.

    Examples
    --------
    >>> as_kernel(None, 0.5)
    TVKernel(bandwidth=0.5)
    """
    if kernel is None:
        return TVKernel(bandwidth)
    if not callable(kernel):
        raise ValueError(f"kernel must be a callable kernel(p, q) or None; got {kernel!r}")
    return kernel


# --------------------------------------------------------------------------------------------
# NumPy estimators (unvalidated core)
# --------------------------------------------------------------------------------------------


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
        kern, r_s = gram(p[s:s + block], p), r[s:s + block]
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


def _n_threads() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


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


def resolve_estimator(estimator: str, n_instances: int) -> str:
    """The estimator that ``estimator`` stands for with N = ``n_instances``: ``"auto"`` is
    ``"quadratic"`` up to :data:`QUADRATIC_MAX_N` instances and ``"block"`` above; other names are
    returned unchanged.

    Examples
    --------
    >>> resolve_estimator("auto", 10_000), resolve_estimator("auto", 10_001), resolve_estimator("linear", 5)
    ('quadratic', 'block', 'linear')
    """
    check_choice(estimator, "estimator", SKCE_ESTIMATORS)
    if estimator == "auto":
        return "quadratic" if n_instances <= QUADRATIC_MAX_N else "block"
    return estimator


def _check_block_size(block_size, n_instances: int) -> int:
    m = check_positive_int(block_size, "block_size", minimum=2)
    if m > n_instances:
        raise ValueError(f"block_size must be at most the number of instances N = {n_instances}; got {block_size!r}")
    return m


def _blocks(x, n_blocks: int, m: int, row_ndim: int):
    """The first ``n_blocks * m`` instances of ``x`` (..., N, *row) as (..., n_blocks, m, *row)."""
    lead = x.shape[: x.ndim - row_ndim - 1]
    rows = x.shape[x.ndim - row_ndim:]
    index = (Ellipsis, slice(0, n_blocks * m)) + (slice(None),) * row_ndim
    return x[index].reshape(*lead, n_blocks, m, *rows)


# --------------------------------------------------------------------------------------------
# torch estimators (the same kernels, differentiable)
# --------------------------------------------------------------------------------------------


def _torch_quadratic_total(kernel: ScalarKernel, p3: torch.Tensor, r3: torch.Tensor, rk3: torch.Tensor) -> torch.Tensor:
    r""":math:`\sum_{i,j} k_{ij}\, r_i^\top K_y r_j` (diagonal included) for (B, N, K) inputs → (B,).

    One (B, N, N) kernel matrix up to ``_TORCH_GRAM_ELEMS`` entries; above, row blocks of it, each
    recomputed in the backward pass when gradients are needed (memory O(N · rows), not O(N²)).
    """
    n_sets, n, _ = p3.shape
    if n_sets * n * n <= _TORCH_GRAM_ELEMS:
        return ((kernel.torch_gram(p3, p3) @ rk3) * r3).sum((-1, -2))

    def rows_total(p_rows, r_rows, p_all, rk_all):
        return ((kernel.torch_gram(p_rows, p_all) @ rk_all) * r_rows).sum((-1, -2))

    grad = torch.is_grad_enabled() and any(t.requires_grad for t in (p3, r3, rk3))
    step = max(1, _TORCH_GRAM_ELEMS // (n_sets * n))
    total = None
    for s in range(0, n, step):
        args = (p3[:, s:s + step], r3[:, s:s + step], p3, rk3)
        part = checkpoint(rows_total, *args, use_reentrant=False) if grad else rows_total(*args)
        total = part if total is None else total + part
    return total


def _skce_torch(p: torch.Tensor, y: torch.Tensor, kernel: ScalarKernel | None, estimator: str,
                label_matrix: torch.Tensor | None = None, block_size: int = AUTO_BLOCK_SIZE) -> torch.Tensor:
    r"""Mean of :math:`k(p_i, p_j)\,(e_{y_i} - p_i)^\top K_y (e_{y_j} - p_j)` over the estimator's pairs.

    ``kernel`` None means :math:`k \equiv 1`; ``label_matrix`` :math:`K_y` (K, K) None means
    :math:`\mathbf I_K`. ``"linear"``: consecutive pairs (2i, 2i+1); ``"quadratic"``: all i ≠ j, as
    :math:`\sum_i r_i^\top (\mathbf K\, r K_y)_i` minus the diagonal, so the only (N, N) tensor is the
    kernel matrix (never the residual Gram matrix), in row blocks for large N; ``"block"``: the
    quadratic estimator averaged over consecutive blocks of ``block_size``; ``"auto"``: see
    :func:`resolve_estimator`.
    """
    n, k = p.shape[-2:]
    estimator = resolve_estimator(estimator, n)
    if estimator == "block":
        m = _check_block_size(block_size, n)
        n_blocks = n // m
        pb = _blocks(p, n_blocks, m, 1)
        yb = _blocks(y, n_blocks, m, 1 if y.dim() == p.dim() else 0)
        return _skce_torch(pb, yb, kernel, "quadratic", label_matrix).mean(-1)
    t = y if y.dim() == p.dim() else torch.nn.functional.one_hot(y, p.shape[-1])
    r = t.to(p.dtype) - p
    rk = r @ label_matrix if label_matrix is not None else r
    if estimator == "linear":
        half = n // 2
        a, b = slice(0, 2 * half, 2), slice(1, 2 * half, 2)
        terms = (r[..., a, :] * rk[..., b, :]).sum(-1)
        if kernel is not None:
            terms = terms * kernel.torch_pairs(p[..., a, :], p[..., b, :])
        return terms.mean(-1)
    diagonal = (r * rk).sum(-1)  # k(p_i, p_i) = 1
    if kernel is None:
        total = (r.sum(-2) * rk.sum(-2)).sum(-1)
    else:
        total = _torch_quadratic_total(kernel, p.reshape(-1, n, k), r.reshape(-1, n, k),
                                       rk.reshape(-1, n, k)).reshape(p.shape[:-2])
    return (total - diagonal.sum(-1)) / (n * (n - 1))


def _tensors(probs, labels, *, min_instances: int = 1):
    """Validate and return (probs float tensor, labels long tensor), keeping gradients, dtype and device.

    Validation sees the tensor's own dtype, so float16 and bfloat16 rows get the tolerance of their
    precision (:func:`credalbook._validation.simplex_atol`).
    """
    if isinstance(probs, torch.Tensor):
        with torch.no_grad():
            check_probs_labels(probs, labels, min_instances=min_instances)
        p = probs if probs.is_floating_point() else probs.double()
        y = torch.as_tensor(labels, device=p.device).long()
        return p, y
    p, y = check_probs_labels(probs, labels, min_instances=min_instances)
    return torch.from_numpy(p), torch.from_numpy(y)


# --------------------------------------------------------------------------------------------
# public estimators
# --------------------------------------------------------------------------------------------


def skce_batched(p, y, kernel: Callable, *, estimator: str = "quadratic", block_size: int = AUTO_BLOCK_SIZE):
    r"""The SKCE of checked, batched inputs: no validation (for bootstrap replicates and inner loops).

    Parameters
    ----------
    p : ndarray float64 or tensor, shape (..., N, K), N >= 2
    y : ndarray or tensor, shape (..., N) of int labels, or (..., N, K) target probabilities
    kernel : callable
        A kernel from :func:`as_kernel`; on tensors a :class:`ScalarKernel`.
    estimator : {"quadratic", "linear", "block", "auto"}
        See :func:`skce`.
    block_size : int, default :data:`AUTO_BLOCK_SIZE`
        m of the block estimator, 2 <= m <= N.

    Returns
    -------
    ndarray or tensor of shape (...)
        A tensor (with gradients) for tensor inputs.

    Examples
    --------
    >>> p = np.array([[0.8, 0.2], [0.4, 0.6]])
    >>> round(float(skce_batched(p, np.array([0, 1]), TVKernel(2.0), estimator="linear")), 6)
    -0.147699
    """
    if isinstance(p, torch.Tensor):
        if not isinstance(kernel, ScalarKernel):
            raise TypeError(f"kernel must be a ScalarKernel (TVKernel, LaplacianKernel, GaussianKernel) "
                            f"for torch inputs; got {kernel!r}")
        return _skce_torch(p, y, kernel, estimator, block_size=block_size)
    batch, (n, k) = p.shape[:-2], p.shape[-2:]
    estimator = resolve_estimator(estimator, n)
    if estimator == "block":
        m = _check_block_size(block_size, n)
        yb = _blocks(y, n // m, m, 1 if y.ndim == p.ndim else 0)
        return skce_batched(_blocks(p, n // m, m, 1), yb, kernel, estimator="quadratic").mean(axis=-1)
    r = skce_residuals(p, y)
    if estimator == "linear":
        return _linear(p, r, kernel)
    flat_p, flat_r = p.reshape(-1, n, k), r.reshape(-1, n, k)
    if isinstance(kernel, ScalarKernel):
        return _quadratic_scalar(flat_p, flat_r, kernel).reshape(batch)
    return np.array([_quadratic(pi, ri, kernel) for pi, ri in zip(flat_p, flat_r)]).reshape(batch)


@batch_capable
def skce(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH,
         estimator: str = "auto", block_size: int = AUTO_BLOCK_SIZE, ci: float | None = None,
         n_resamples: int = 1000, seed=None):
    r"""Unbiased squared kernel calibration error: quadratic (Eq. 7), linear (Eq. 8) or block estimator.

    NumPy inputs give NumPy results (as :func:`skce_uq`, :func:`skce_ul`); torch tensors give a
    tensor with gradients on the tensor's device (then ``kernel`` must be None or a
    :class:`ScalarKernel`). The default, ``estimator="auto"``, is the quadratic estimator for
    N <= :data:`QUADRATIC_MAX_N` (10⁴) and the block estimator with blocks of ``block_size``
    (:data:`AUTO_BLOCK_SIZE`, 1000) above, whose time grows linearly in N:

    .. math::
        \widehat{SKCE}_{b} = \frac1{\lfloor N/m\rfloor} \sum_{b=1}^{\lfloor N/m\rfloor}
        \binom m2^{-1} \sum_{(b-1)m < i < j \le bm}
        \mathbf r_i^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,\mathbf r_j
        \qquad (\mathbf r_i = \hat{\mathbf p}_i - \mathbf e_{y_i}),

    unbiased like Eqs. 7-8, with about :math:`m/2` times the pairs of the linear estimator
    (its variance is accordingly smaller) and :math:`N/m` times fewer than the quadratic one.

    Parameters
    ----------
    probs : array-like or tensor, shape (..., N, K), N >= 2
    labels : array-like or tensor of int, shape (..., N)
    kernel : callable or None
        A :class:`ScalarKernel` (:class:`TVKernel`, :class:`LaplacianKernel`,
        :class:`GaussianKernel`), any ``kernel(p, q)`` as in the module docstring, or None for
        ``TVKernel(bandwidth)``.
    bandwidth : float, default 2.0
        h of the default kernel.
    estimator : {"auto", "quadratic", "linear", "block"}, default "auto"
        ``"quadratic"``: all pairs, time O(N²), memory O(N) (tiles); ``"linear"``: pairs (1, 2),
        (3, 4), ...; ``"block"``: the quadratic estimator averaged over consecutive blocks of
        ``block_size`` (instances after the last full block are ignored); ``"auto"``: see above
        and :func:`resolve_estimator`.
    block_size : int, default 1000
        m of the block estimator, 2 <= m <= N (m = 2 is the linear estimator, m = N the quadratic).
    ci : float in (0, 1) or None, default None
        With a level (e.g. 0.95): return an :class:`~credalbook.metrics.Estimate` with a bootstrap
        percentile interval (tensors are evaluated as NumPy arrays, without gradients; ``probs``
        must be (N, K)). The linear and block estimators are means of independent terms (one per
        pair, one per block), and those terms are resampled; the quadratic estimator resamples
        the instances and, in each replicate, leaves out the pairs of an instance with its own
        copies (whose terms :math:`\mathbf r_i^\top\Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_i)\mathbf r_i > 0`
        would shift every replicate up), :math:`R` times :math:`O(N^2)` work.
    n_resamples : int, default 1000
        Bootstrap replicates (with ``ci``).
    seed : None, int, SeedSequence or Generator
        Seed of the resamples (with ``ci``).

    Returns
    -------
    float, ndarray of shape (...), tensor of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019 (Eqs. 7-8 of Mortier et al.); Widmann, Lindsten,
    Zachariah, Calibration tests beyond classification, ICLR 2021 (block estimator);
    Mortier et al., AISTATS 2023, Eqs. (7)-(8).

    Examples
    --------
    >>> p, y = [[0.8, 0.2], [0.4, 0.6]], [0, 1]
    >>> round(skce(p, y, kernel=LaplacianKernel(1.0)), 6)   # -0.16 exp(-0.4√2)
    -0.090875
    >>> t = torch.tensor(p, dtype=torch.float64, requires_grad=True)
    >>> skce(t, y).backward(); t.grad.shape
    torch.Size([2, 2])

    Blocks of two instances are the linear estimator:

    >>> p4, y4 = [[0.8, 0.2], [0.4, 0.6], [0.3, 0.7], [0.5, 0.5]], [0, 1, 1, 0]
    >>> bool(np.isclose(skce(p4, y4, estimator="block", block_size=2), skce(p4, y4, estimator="linear")))
    True
    """
    check_choice(estimator, "estimator", SKCE_ESTIMATORS)
    kern = as_kernel(kernel, bandwidth)
    check_ci_keyword(ci, n_resamples, seed)
    if isinstance(probs, torch.Tensor) and ci is None:
        p, y = _tensors(probs, labels, min_instances=2)
    else:
        p, y = check_probs_labels(probs, labels, min_instances=2)
    if resolve_estimator(estimator, p.shape[-2]) == "block":
        _check_block_size(block_size, p.shape[-2])
    if ci is not None:
        return _skce_estimate(p, y, kern, resolve_estimator(estimator, p.shape[-2]), block_size,
                              ci=ci, n_resamples=n_resamples, seed=seed)
    value = skce_batched(p, y, kern, estimator=estimator, block_size=block_size)
    return value if isinstance(value, torch.Tensor) else as_scalar(value)


def _mean_last(terms: np.ndarray) -> np.ndarray:
    return terms.mean(axis=-1)


def _skce_estimate(p: np.ndarray, y: np.ndarray, kern: Callable, estimator: str, block_size: int, **options):
    """The SKCE of checked (N, K) data with its bootstrap interval (see :func:`skce`, ``ci``); the value is
    computed as :func:`skce_batched` computes it (the mean of the same terms), once."""
    check_unbatched(p)
    n = p.shape[0]
    if estimator == "linear":
        terms = _linear_terms(p, skce_residuals(p, y), kern)
    elif estimator == "block":
        n_blocks = n // block_size
        if n_blocks < 2:
            raise ValueError(f"a bootstrap interval of the block estimator needs at least two blocks; got N = {n} "
                             f"with block_size = {block_size}")
        terms = skce_batched(_blocks(p, n_blocks, block_size, 1), _blocks(y, n_blocks, block_size, 0), kern,
                             estimator="quadratic")
    else:
        value = as_scalar(skce_batched(p, y, kern, estimator="quadratic"))
        statistic = functools.partial(_quadratic_without_ties, kernel=kern)
        return bootstrap_estimate(statistic, (p, y, np.arange(n)), value, **options)
    if terms.shape[0] < 2:
        raise ValueError(f"a bootstrap interval of the linear estimator needs N >= 4; got N = {n}")
    return bootstrap_estimate(_mean_last, (terms,), as_scalar(_mean_last(terms)), **options)


def _quadratic_without_ties(p: np.ndarray, y: np.ndarray, origin: np.ndarray, *, kernel: Callable) -> np.ndarray:
    r"""Eq. 7 on bootstrap replicates (R', N, K) over the pairs of positions with different origins.

    A replicate with :math:`c_i` copies of instance i has :math:`\sum_i c_i(c_i - 1)` ordered pairs
    of copies of the same instance, whose terms :math:`h_{ii} = \mathbf r_i^\top\Gamma_{ii}\mathbf r_i`
    are taken out of the sum of all :math:`N(N-1)` pairs and out of the number of pairs.
    """
    n = p.shape[-2]
    total = skce_batched(p, y, kernel, estimator="quadratic") * (n * (n - 1))
    r = skce_residuals(p, y)
    h = skce_pair_term(np.asarray(kernel(p, p)), r, r)  # (R', N): the diagonal term of each position
    out = np.empty(p.shape[0])
    for a in range(p.shape[0]):
        c = np.bincount(origin[a], minlength=n)
        dup = c[origin[a]] - 1  # other copies of the instance at each position
        pairs = n * (n - 1) - int((c * (c - 1)).sum())
        out[a] = (total[a] - float((dup * h[a]).sum())) / pairs if pairs > 0 else np.nan
    return out


@batch_capable
def skce_ul(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH,
            ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Linear-time unbiased SKCE estimator (Mortier et al. 2023, Eq. 8; Widmann et al. 2019).

    Pairs instances (1, 2), (3, 4), … in the given order (an odd last instance is ignored):

    .. math::
        \widehat{SKCE}_{ul} = \frac1{\lfloor N/2\rfloor} \sum_{i=1}^{\lfloor N/2\rfloor}
        (\hat{\mathbf p}_{2i-1} - \mathbf y_{2i-1})^\top \Gamma(\hat{\mathbf p}_{2i-1}, \hat{\mathbf p}_{2i})
        (\hat{\mathbf p}_{2i} - \mathbf y_{2i})

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
        Predictions, N >= 2; leading dimensions are a batch.
    labels : array-like of int, shape (..., N)
    kernel : callable or None
        ``kernel(p, q)`` on (..., K) arrays returning a scalar (...) or a matrix (..., K, K) per
        pair; None uses :func:`tv_kernel` with ``bandwidth`` times the identity.
    bandwidth : float, default 2.0
        h of the default kernel :math:`\exp(-d_{TV}^2/h)`.
    ci, n_resamples, seed
        A bootstrap interval (:class:`~credalbook.metrics.Estimate`), as in :func:`skce`.

    Returns
    -------
    float, ndarray of shape (...), or Estimate (with ``ci``)

    References
    ----------
    Mortier et al., AISTATS 2023, Eq. (8); Widmann et al., NeurIPS 2019.

    Examples
    --------
    One pair, residuals (−0.2, 0.2) and (0.4, −0.4), TV distance 0.4:

    >>> p = [[0.8, 0.2], [0.4, 0.6]]
    >>> round(skce_ul(p, [0, 1]), 6)   # exp(-0.4**2 / 2) * (-0.2*0.4 + 0.2*-0.4)
    -0.147699
    """
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels, min_instances=2)
    kern = as_kernel(kernel, bandwidth)
    if ci is not None:
        return _skce_estimate(p, y, kern, "linear", 2, ci=ci, n_resamples=n_resamples, seed=seed)
    return as_scalar(skce_batched(p, y, kern, estimator="linear"))


@batch_capable
def skce_uq(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH,
            ci: float | None = None, n_resamples: int = 1000, seed=None):
    r"""Quadratic-time unbiased SKCE estimator over all pairs (Mortier et al. 2023, Eq. 7).

    .. math::
        \widehat{SKCE}_{uq} = \binom N2^{-1} \sum_{i=1}^{N-1}\sum_{j=i+1}^N
        (\hat{\mathbf p}_i - \mathbf y_i)^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)
        (\hat{\mathbf p}_j - \mathbf y_j)

    Time :math:`O(N^2 K)`, memory :math:`O(N)`: the pairs :math:`i < j` are summed in tiles of
    256 × 2048 kernel values (4 MiB), on threads for large N, never holding an (N, N) or
    (N, N, K) array (N = 10⁵, K = 10: under a minute on 2 cores, about 30 MiB). For N above
    :data:`QUADRATIC_MAX_N` the block estimator of :func:`skce` costs time linear in N.
    Parameters as in :func:`skce_ul` (``ci``: see :func:`skce`).

    References
    ----------
    Mortier et al., AISTATS 2023, Eq. (7); Widmann et al., NeurIPS 2019.

    Examples
    --------
    With two instances the estimator has a single pair and equals :func:`skce_ul`:

    >>> p = [[0.8, 0.2], [0.4, 0.6]]
    >>> bool(np.isclose(skce_uq(p, [0, 1]), skce_ul(p, [0, 1])))
    True
    """
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels, min_instances=2)
    kern = as_kernel(kernel, bandwidth)
    if ci is not None:
        return _skce_estimate(p, y, kern, "quadratic", 2, ci=ci, n_resamples=n_resamples, seed=seed)
    return as_scalar(skce_batched(p, y, kern, estimator="quadratic"))
