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

One NumPy core computes both estimators (:func:`skce_batched`): the linear one pairs (1, 2),
(3, 4), ...; the quadratic one sums :math:`\mathbf r_i^\top\Gamma_{ij}\mathbf r_j` over all
:math:`i \ne j` in row blocks (memory O(N) per row, never the (N, N, K) array) and halves by
symmetry. The kernel objects also evaluate in torch, and the same estimators then run in torch
with gradients (:func:`skce` on tensors, and :func:`credalbook.metrics.skce_estimator` for the
weight learner of Jürgens et al.); tests hold the two paths equal.

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019. Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of
Probabilistic Classifier Sets. AISTATS 2023, Eqs. (7)-(8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from scipy.spatial.distance import cdist

from credalbook._validation import as_scalar, check_choice, check_positive_float, check_probs_labels
from credalbook.metrics.classification import one_hot

__all__ = [
    "DEFAULT_BANDWIDTH",
    "SKCE_ESTIMATORS",
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
#: Names of the two unbiased estimators: paired (Eq. 8) and all pairs (Eq. 7).
SKCE_ESTIMATORS = ("linear", "quadratic")
#: Kernel entries per row block of the quadratic estimator (bounds memory to a few tens of MB).
_PAIRS_PER_BLOCK = 1 << 21


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
        return np.exp(-(tv * tv) / self.bandwidth)

    def gram(self, a, b):
        tv = 0.5 * cdist(a, b, "cityblock")
        return np.exp(-(tv * tv) / self.bandwidth)

    def torch_pairs(self, a, b):
        d = (a - b).abs().sum(-1)
        return torch.exp(-(0.25 * d * d) / self.bandwidth)

    def torch_gram(self, a, b):
        d = torch.cdist(a, b, p=1.0)
        return torch.exp(-(0.25 * d * d) / self.bandwidth)


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
        return np.exp(-np.sqrt((diff * diff).sum(axis=-1)) / self.bandwidth)

    def gram(self, a, b):
        return np.exp(-cdist(a, b) / self.bandwidth)

    def torch_pairs(self, a, b):
        return torch.exp(-torch.linalg.vector_norm(a - b, dim=-1) / self.bandwidth)

    def torch_gram(self, a, b):
        return torch.exp(-torch.cdist(a, b, p=2.0, compute_mode="donot_use_mm_for_euclid_dist") / self.bandwidth)


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

    def __call__(self, p, q) -> np.ndarray:
        diff = np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)
        return np.exp(-(diff**2).sum(-1) / (2 * self.bandwidth**2))

    def gram(self, a, b):
        return np.exp(-cdist(a, b, "sqeuclidean") / (2 * self.bandwidth**2))

    def torch_pairs(self, a, b):
        return torch.exp(-((a - b) ** 2).sum(-1) / (2 * self.bandwidth**2))

    def torch_gram(self, a, b):
        # ‖a‖² + ‖b‖² − 2ab^T in one fused batched product (cheaper to differentiate than cdist,
        # and no square root whose gradient is infinite at zero distance)
        sq_a, sq_b = (a * a).sum(-1), (b * b).sum(-1)
        sq = (torch.baddbmm(sq_b[:, None, :], a, b.transpose(-1, -2), alpha=-2) + sq_a[..., None]).clamp_min(0)
        return torch.exp(-sq / (2 * self.bandwidth**2))


def tv_kernel(p, q, *, bandwidth: float = DEFAULT_BANDWIDTH) -> np.ndarray:
    r"""Scalar kernel :math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)` (:class:`TVKernel`).

    :math:`d_{TV}(\mathbf p, \mathbf q) = \tfrac12 \sum_k |p_k - q_k|` is the total-variation
    distance; broadcasting over leading dimensions of ``p`` and ``q`` (..., K).

    Examples
    --------
    >>> float(tv_kernel(np.array([1.0, 0.0]), np.array([0.0, 1.0])))  # TV = 1
    0.6065306597126334
    """
    return TVKernel(bandwidth)(p, q)


def laplacian_kernel(p, q, *, bandwidth: float) -> np.ndarray:
    r"""Scalar kernel :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2 / \nu)` (:class:`LaplacianKernel`), broadcasting over (..., K).

    Examples
    --------
    >>> round(float(laplacian_kernel([0.8, 0.2], [0.4, 0.6], bandwidth=1.0)), 6)   # exp(-0.4√2)
    0.567971
    """
    return LaplacianKernel(bandwidth)(p, q)


def gaussian_kernel(p, q, *, bandwidth: float) -> np.ndarray:
    r"""Scalar kernel :math:`\exp(-\lVert\mathbf p - \mathbf q\rVert_2^2 / (2\sigma^2))` (:class:`GaussianKernel`), broadcasting over (..., K).

    Examples
    --------
    >>> round(float(gaussian_kernel([0.8, 0.2], [0.4, 0.6], bandwidth=1.0)), 6)   # exp(-0.16)
    0.852144
    """
    return GaussianKernel(bandwidth)(p, q)


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


def _residuals(p, y):
    """p − e_y for integer labels y (..., N), or p − t for target rows t (..., N, K)."""
    return p - (y if y.ndim == p.ndim else one_hot(y, p.shape[-1]))


def _pair_term(kern: np.ndarray, r_a: np.ndarray, r_b: np.ndarray) -> np.ndarray:
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
    half = p.shape[-2] // 2
    a, b = slice(0, 2 * half, 2), slice(1, 2 * half, 2)
    return _pair_term(np.asarray(kernel(p[..., a, :], p[..., b, :])), r[..., a, :], r[..., b, :]).mean(axis=-1)


def _quadratic(p: np.ndarray, r: np.ndarray, kernel: Callable) -> float:
    """Eq. 7 for one data set (N, K): Σ_{i≠j} r_i^T Γ_ij r_j / (N(N−1)), in row blocks."""
    n, k = p.shape
    if isinstance(kernel, ScalarKernel):
        gram, per_row = kernel.gram, n
        diagonal = float((r * r).sum())  # k(p_i, p_i) = 1
    else:
        def gram(a, b):
            return np.asarray(kernel(*np.broadcast_arrays(a[:, None, :], b[None, :, :])))

        diagonal = float(_pair_term(np.asarray(kernel(p, p)), r, r).sum())
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
            _pair_term(kern, *np.broadcast_arrays(r_s[:, None, :], r[None, :, :]))  # raises the shape error
    return (total - diagonal) / (n * (n - 1))


# --------------------------------------------------------------------------------------------
# torch estimators (the same kernels, differentiable)
# --------------------------------------------------------------------------------------------


def _skce_torch(p: torch.Tensor, y: torch.Tensor, kernel: ScalarKernel | None, estimator: str,
                label_matrix: torch.Tensor | None = None) -> torch.Tensor:
    r"""Mean of :math:`k(p_i, p_j)\,(e_{y_i} - p_i)^\top K_y (e_{y_j} - p_j)` over the estimator's pairs.

    ``kernel`` None means :math:`k \equiv 1`; ``label_matrix`` :math:`K_y` (K, K) None means
    :math:`\mathbf I_K`. ``"linear"``: consecutive pairs (2i, 2i+1); ``"quadratic"``: all i ≠ j, as
    :math:`\sum_i r_i^\top (\mathbf K\, r K_y)_i` minus the diagonal, so the only (N, N) tensor is the
    kernel matrix (never the residual Gram matrix).
    """
    t = y if y.dim() == p.dim() else torch.nn.functional.one_hot(y, p.shape[-1])
    r = t.to(p.dtype) - p
    rk = r @ label_matrix if label_matrix is not None else r
    n, k = p.shape[-2:]
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
        p3 = p.reshape(-1, n, k)
        gram = kernel.torch_gram(p3, p3)
        total = ((gram @ rk.reshape(-1, n, k)) * r.reshape(-1, n, k)).sum((-1, -2)).reshape(p.shape[:-2])
    return (total - diagonal.sum(-1)) / (n * (n - 1))


def _tensors(probs, labels, *, min_instances: int = 1):
    """Validate and return (probs float tensor, labels long tensor), keeping gradients and device."""
    if isinstance(probs, torch.Tensor):
        with torch.no_grad():
            check_probs_labels(probs.detach().double().cpu().numpy(),
                               labels.detach().cpu().numpy() if isinstance(labels, torch.Tensor) else labels,
                               min_instances=min_instances)
        p = probs if probs.is_floating_point() else probs.double()
        y = torch.as_tensor(labels, device=p.device).long()
        return p, y
    p, y = check_probs_labels(probs, labels, min_instances=min_instances)
    return torch.from_numpy(p), torch.from_numpy(y)


# --------------------------------------------------------------------------------------------
# public estimators
# --------------------------------------------------------------------------------------------


def skce_batched(p, y, kernel: Callable, *, estimator: str = "quadratic"):
    r"""The SKCE of checked, batched inputs: no validation (for bootstrap replicates and inner loops).

    Parameters
    ----------
    p : ndarray float64 or tensor, shape (..., N, K), N >= 2
    y : ndarray or tensor, shape (..., N) of int labels, or (..., N, K) target probabilities
    kernel : callable
        A kernel from :func:`as_kernel`; on tensors a :class:`ScalarKernel`.
    estimator : {"quadratic", "linear"}

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
        return _skce_torch(p, y, kernel, estimator)
    r = _residuals(p, y)
    if estimator == "linear":
        return _linear(p, r, kernel)
    batch, (n, k) = p.shape[:-2], p.shape[-2:]
    flat_p, flat_r = p.reshape(-1, n, k), r.reshape(-1, n, k)
    return np.array([_quadratic(pi, ri, kernel) for pi, ri in zip(flat_p, flat_r)]).reshape(batch)


def skce(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH,
         estimator: str = "quadratic"):
    r"""Unbiased squared kernel calibration error, quadratic (Eq. 7) or linear (Eq. 8).

    NumPy inputs give NumPy results (as :func:`skce_uq`, :func:`skce_ul`); torch tensors give a
    tensor with gradients (then ``kernel`` must be None or a :class:`ScalarKernel`).

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
    estimator : {"quadratic", "linear"}, default "quadratic"

    Returns
    -------
    float, ndarray of shape (...), or tensor of shape (...)

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019; Mortier et al., AISTATS 2023, Eqs. (7)-(8).

    Examples
    --------
    >>> p, y = [[0.8, 0.2], [0.4, 0.6]], [0, 1]
    >>> round(skce(p, y, kernel=LaplacianKernel(1.0)), 6)   # -0.16 exp(-0.4√2)
    -0.090875
    >>> t = torch.tensor(p, dtype=torch.float64, requires_grad=True)
    >>> skce(t, y).backward(); t.grad.shape
    torch.Size([2, 2])
    """
    check_choice(estimator, "estimator", SKCE_ESTIMATORS)
    kern = as_kernel(kernel, bandwidth)
    if isinstance(probs, torch.Tensor):
        p, y = _tensors(probs, labels, min_instances=2)
        return skce_batched(p, y, kern, estimator=estimator)
    p, y = check_probs_labels(probs, labels, min_instances=2)
    return as_scalar(skce_batched(p, y, kern, estimator=estimator))


def skce_ul(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH):
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

    Returns
    -------
    float or ndarray of shape (...)

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
    p, y = check_probs_labels(probs, labels, min_instances=2)
    return as_scalar(skce_batched(p, y, as_kernel(kernel, bandwidth), estimator="linear"))


def skce_uq(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH):
    r"""Quadratic-time unbiased SKCE estimator over all pairs (Mortier et al. 2023, Eq. 7).

    .. math::
        \widehat{SKCE}_{uq} = \binom N2^{-1} \sum_{i=1}^{N-1}\sum_{j=i+1}^N
        (\hat{\mathbf p}_i - \mathbf y_i)^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)
        (\hat{\mathbf p}_j - \mathbf y_j)

    Computed as :math:`\sum_{i\ne j}/(N(N-1))` in row blocks (time :math:`N^2`, memory a few tens
    of MB), one batch element at a time. Parameters as in :func:`skce_ul`.

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
    p, y = check_probs_labels(probs, labels, min_instances=2)
    return as_scalar(skce_batched(p, y, as_kernel(kernel, bandwidth), estimator="quadratic"))
