r"""Kernels of the kernel calibration errors, and the median heuristic for their bandwidth.

The SKCE estimators (:mod:`credalbook.metrics.kernel`), the kernel calibration tests
(:mod:`credalbook.stats`) and the estimators of Jürgens et al. (:mod:`credalbook.metrics.distribution`)
take a kernel :math:`\Gamma = k\,\mathbf I_K` with a scalar kernel :math:`k(\mathbf p, \mathbf p) = 1`:

========================  ==================================================================  ==============================
kernel                    :math:`k(\mathbf p, \mathbf q)`                                     used by
========================  ==================================================================  ==============================
:class:`TVKernel`         :math:`\exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)`                   Mortier et al., Jürgens et al.
:class:`LaplacianKernel`  :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2 / \nu)`            Wu & Gales (Widmann et al.)
:class:`GaussianKernel`   :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2^2 / (2\sigma^2))`  MMD of Marx et al.
========================  ==================================================================  ==============================

The objects evaluate in NumPy and in torch (with gradients); :func:`tv_kernel`,
:func:`laplacian_kernel` and :func:`gaussian_kernel` are their validated functional forms and
:func:`as_kernel` turns a kernel argument (None, a kernel object, any callable) into a kernel.
:func:`median_heuristic` is the bandwidth of Widmann et al. (2019).

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019 (Sec. 6: kernels and the median heuristic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist, pdist

from credalbook._validation import as_rng, check_positive_float, check_positive_int, check_probs
from credalbook._validation import lazy_torch as torch

__all__ = [
    "DEFAULT_BANDWIDTH",
    "ScalarKernel",
    "TVKernel",
    "LaplacianKernel",
    "GaussianKernel",
    "tv_kernel",
    "laplacian_kernel",
    "gaussian_kernel",
    "as_kernel",
    "median_heuristic",
]

#: Bandwidth h of the default kernel exp(−TV²/h) (authors' code).
DEFAULT_BANDWIDTH = 2.0


def _check_bandwidth(bandwidth, name: str = "bandwidth") -> float:
    return check_positive_float(bandwidth, name)


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


def median_heuristic(probs, *, max_instances: int = 2000, seed=0) -> float:
    r"""Median of the pairwise Euclidean distances :math:`\lVert\hat{\mathbf p}_i - \hat{\mathbf p}_j\rVert_2`, i < j.

    The kernel bandwidth of Widmann et al. (2019), e.g. of :class:`LaplacianKernel` in
    :func:`credalbook.metrics.skce_laplacian`. Above ``max_instances`` predictions the median is
    taken over the pairs of a random subset of that size (drawn with ``seed``), which keeps the cost
    at ~2·10⁶ distances. If more than half of the distances are zero, the median of the positive
    ones is returned (1.0 if all predictions coincide). Deterministic by design: ``seed`` defaults
    to 0, so the bandwidth of the same predictions is always the same.

    Parameters
    ----------
    probs : array-like, shape (N, K), N >= 2
    max_instances : int >= 2, default 2000
    seed : None, int, SeedSequence or Generator, default 0
        Draws the subset when N > ``max_instances``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(median_heuristic([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), 6)   # distances √2/2, √2/2, √2
    0.707107
    """
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    if len(p) < 2:
        raise ValueError(f"probs must contain at least 2 instances for the median heuristic; got N = {len(p)}")
    m = check_positive_int(max_instances, "max_instances", minimum=2)
    rng = as_rng(seed)
    if len(p) > m:
        p = p[rng.choice(len(p), size=m, replace=False)]
    d = pdist(p)
    med = float(np.median(d))
    if med > 0:
        return med
    pos = d[d > 0]
    return float(np.median(pos)) if pos.size else 1.0
