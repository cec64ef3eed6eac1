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
(``NOTES.md``): :math:`\Gamma(\mathbf p, \mathbf p') = \exp(-d_{TV}(\mathbf p, \mathbf p')^2 / h)\,
\mathbf I_K` with :math:`d_{TV} = \tfrac12\lVert\mathbf p - \mathbf p'\rVert_1` and :math:`h = 2`
(the paper prints :math:`\exp(-\lVert \mathbf p - \mathbf p'\rVert / 2)`).

A user kernel is any callable ``kernel(p, q)`` on arrays ``(..., K)`` that returns either a scalar
per pair, shape ``(...)``, meaning :math:`\Gamma = k(\mathbf p, \mathbf q)\,\mathbf I_K`, or a full
matrix per pair, shape ``(..., K, K)``.

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019. Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of
Probabilistic Classifier Sets. AISTATS 2023, Eqs. (7)-(8).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from credalbook._validation import check_probs_labels
from credalbook.metrics.classification import _onehot, _scalar

__all__ = ["tv_kernel", "skce_ul", "skce_uq"]

#: Bandwidth h of the default kernel exp(−TV²/h) (authors' code).
DEFAULT_BANDWIDTH = 2.0


def tv_kernel(p, q, *, bandwidth: float = DEFAULT_BANDWIDTH) -> np.ndarray:
    r"""Scalar kernel :math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)^2 / h)`.

    :math:`d_{TV}(\mathbf p, \mathbf q) = \tfrac12 \sum_k |p_k - q_k|` is the total-variation
    distance; broadcasting over leading dimensions of ``p`` and ``q`` (..., K).

    Examples
    --------
    >>> float(tv_kernel(np.array([1.0, 0.0]), np.array([0.0, 1.0])))  # TV = 1
    0.6065306597126334
    """
    bandwidth = _check_bandwidth(bandwidth)
    tv = 0.5 * np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum(axis=-1)
    return np.exp(-(tv**2) / bandwidth)


def _check_bandwidth(bandwidth, name: str = "bandwidth") -> float:
    try:
        h = float(bandwidth)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number; got {bandwidth!r}") from None
    if not np.isfinite(h) or h <= 0:
        raise ValueError(f"{name} must be a positive number; got {bandwidth!r}")
    return h


def _kernel_fn(kernel: Callable | None, bandwidth: float) -> Callable:
    if kernel is None:
        h = _check_bandwidth(bandwidth)

        def default(p, q):
            tv = 0.5 * np.abs(p - q).sum(axis=-1)
            return np.exp(-(tv * tv) / h)

        return default
    if not callable(kernel):
        raise ValueError(f"kernel must be a callable kernel(p, q) or None; got {kernel!r}")
    return kernel


def _pair_term(kern: np.ndarray, r_a: np.ndarray, r_b: np.ndarray, name: str) -> np.ndarray:
    """:math:`r_a^T Γ r_b` for a scalar (...) or matrix (..., K, K) kernel value."""
    k = r_a.shape[-1]
    if kern.shape == r_a.shape[:-1]:
        return kern * (r_a * r_b).sum(axis=-1)
    if kern.shape == (*r_a.shape[:-1], k, k):
        return np.einsum("...s,...st,...t->...", r_a, kern, r_b)
    raise ValueError(
        f"{name} must return shape {r_a.shape[:-1]} (scalar kernel) or {(*r_a.shape[:-1], k, k)} "
        f"(matrix-valued kernel) for inputs of shape {r_a.shape}; got {kern.shape}"
    )


def _skce_ul(p: np.ndarray, y: np.ndarray, kernel: Callable) -> np.ndarray:
    """Eq. 8 without validation: p (..., N, K), y (..., N) → (...)."""
    half = p.shape[-2] // 2
    r = p - _onehot(y, p.shape[-1])
    a, b = slice(0, 2 * half, 2), slice(1, 2 * half, 2)
    terms = _pair_term(np.asarray(kernel(p[..., a, :], p[..., b, :])), r[..., a, :], r[..., b, :], "kernel")
    return terms.mean(axis=-1)


def _skce_uq(p: np.ndarray, y: np.ndarray, kernel: Callable) -> np.ndarray:
    """Eq. 7 without validation: all pairs i < j, vectorised as an (N, N) Gram matrix."""
    n = p.shape[-2]
    r = p - _onehot(y, p.shape[-1])
    pi, pj = p[..., :, None, :], p[..., None, :, :]
    kern = np.asarray(kernel(*np.broadcast_arrays(pi, pj)))
    full = _pair_term(kern, *np.broadcast_arrays(r[..., :, None, :], r[..., None, :, :]), "kernel")
    iu = np.triu_indices(n, k=1)
    return full[..., iu[0], iu[1]].mean(axis=-1)


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
    return _scalar(_skce_ul(p, y, _kernel_fn(kernel, bandwidth)))


def skce_uq(probs, labels, *, kernel: Callable | None = None, bandwidth: float = DEFAULT_BANDWIDTH):
    r"""Quadratic-time unbiased SKCE estimator over all pairs (Mortier et al. 2023, Eq. 7).

    .. math::
        \widehat{SKCE}_{uq} = \binom N2^{-1} \sum_{i=1}^{N-1}\sum_{j=i+1}^N
        (\hat{\mathbf p}_i - \mathbf y_i)^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)
        (\hat{\mathbf p}_j - \mathbf y_j)

    Memory grows as :math:`N^2` per batch element (:math:`N^2 K^2` for a matrix-valued kernel).
    Parameters as in :func:`skce_ul`.

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
    return _scalar(_skce_uq(p, y, _kernel_fn(kernel, bandwidth)))
