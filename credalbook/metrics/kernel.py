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
with a scalar kernel :math:`k(\mathbf p, \mathbf p) = 1` (:mod:`credalbook.metrics.kernels`:
:class:`TVKernel`, :class:`LaplacianKernel`, :class:`GaussianKernel`). A user kernel is any callable
``kernel(p, q)`` on arrays ``(..., K)`` that returns either a scalar per pair, shape ``(...)``, meaning
:math:`\Gamma = k(\mathbf p, \mathbf q)\,\mathbf I_K`, or a full matrix per pair, shape ``(..., K, K)``
(a matrix-valued kernel, :math:`\Gamma(\mathbf p, \mathbf q) = \Gamma(\mathbf q, \mathbf p)^\top`).

One NumPy core (``credalbook.metrics.skce_core``) computes every estimator (:func:`skce_batched`): the linear one pairs (1, 2),
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
backward pass (:func:`torch.utils.checkpoint.checkpoint`; ``credalbook.metrics.skce_torch``). Tests
hold the paths equal.

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019. Widmann, Lindsten, Zachariah. Calibration tests beyond classification.
ICLR 2021 (block estimator). Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of
Probabilistic Classifier Sets. AISTATS 2023, Eqs. (7)-(8).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from credalbook._validation import (
    as_scalar,
    check_choice,
    check_positive_float,
    check_positive_int,
    check_probs_labels,
    check_seed,
    is_torch_tensor,
)
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.intervals import batch_capable, bootstrap_estimate, check_ci_keyword, check_unbatched
from credalbook.metrics.kernels import (
    as_kernel,
    DEFAULT_BANDWIDTH,
    GaussianKernel,
    LaplacianKernel,
    median_heuristic,
    ScalarKernel,
    TVKernel,
)
from credalbook.metrics.regions import check_probs_label_rows
from credalbook.metrics.skce_core import (
    _linear,
    _linear_terms,
    _quadratic,
    _quadratic_scalar,
    linear_terms_in_chunks,
    skce_pair_term,
    skce_residuals,
)
from credalbook.metrics.skce_torch import _tensors, _torch_quadratic_total

__all__ = [
    "SKCE_ESTIMATORS",
    "QUADRATIC_MAX_N",
    "AUTO_BLOCK_SIZE",
    "skce",
    "skce_ul",
    "skce_uq",
    "skce_laplacian",
    "resolve_estimator",
    "skce_batched",
]

#: Names of the unbiased estimators: paired (Eq. 8), all pairs (Eq. 7), blocks (Widmann et al. 2021),
#: and ``"auto"``, which picks one of them from N (:func:`resolve_estimator`).
SKCE_ESTIMATORS = ("linear", "quadratic", "block", "auto")
#: Largest N for which ``estimator="auto"`` uses the quadratic estimator (Eq. 7); above it, the
#: block estimator with blocks of :data:`AUTO_BLOCK_SIZE` (time linear in N).
QUADRATIC_MAX_N = 10_000
#: Block size m of the block estimator, the default of ``block_size`` and what ``"auto"`` uses above
#: :data:`QUADRATIC_MAX_N`: N(m − 1)/2 kernel pairs, 5·10⁸ at N = 10⁶.
AUTO_BLOCK_SIZE = 1000
#: Largest kernel matrix (batch × N × N entries) the torch quadratic estimator forms at once; above
#: it, row blocks (checkpointed when gradients are needed).
_TORCH_GRAM_ELEMS = 1 << 24


# --------------------------------------------------------------------------------------------
# estimator choice and blocks
# --------------------------------------------------------------------------------------------


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
    rows = x.shape[x.ndim - row_ndim :]
    index = (Ellipsis, slice(0, n_blocks * m)) + (slice(None),) * row_ndim
    return x[index].reshape(*lead, n_blocks, m, *rows)


# --------------------------------------------------------------------------------------------
# torch estimators (the same kernels, differentiable)
# --------------------------------------------------------------------------------------------


def _skce_torch(
    p: torch.Tensor,
    y: torch.Tensor,
    kernel: ScalarKernel | None,
    estimator: str,
    label_matrix: torch.Tensor | None = None,
    block_size: int = AUTO_BLOCK_SIZE,
) -> torch.Tensor:
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
        p3, r3, rk3 = p.reshape(-1, n, k), r.reshape(-1, n, k), rk.reshape(-1, n, k)
        total = _torch_quadratic_total(kernel, p3, r3, rk3, _TORCH_GRAM_ELEMS).reshape(p.shape[:-2])
    return (total - diagonal.sum(-1)) / (n * (n - 1))


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
    >>> from credalbook.metrics import TVKernel
    >>> p = np.array([[0.8, 0.2], [0.4, 0.6]])
    >>> round(float(skce_batched(p, np.array([0, 1]), TVKernel(2.0), estimator="linear")), 6)
    -0.147699
    """
    if is_torch_tensor(p):
        if not isinstance(kernel, ScalarKernel):
            raise TypeError(
                f"kernel must be a ScalarKernel (TVKernel, LaplacianKernel, GaussianKernel) "
                f"for torch inputs; got {kernel!r}"
            )
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
def skce(
    probs,
    labels,
    *,
    kernel: Callable | None = None,
    bandwidth: float = DEFAULT_BANDWIDTH,
    estimator: str = "auto",
    block_size: int = AUTO_BLOCK_SIZE,
    ci: float | None = None,
    n_resamples: int = 1000,
    seed=None,
):
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
        and ``resolve_estimator``.
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
    if is_torch_tensor(probs) and ci is None:
        p, y = _tensors(probs, labels, min_instances=2)
    else:
        p, y = check_probs_labels(probs, labels, min_instances=2)
    if resolve_estimator(estimator, p.shape[-2]) == "block":
        _check_block_size(block_size, p.shape[-2])
    if ci is not None:
        return _skce_estimate(
            p, y, kern, resolve_estimator(estimator, p.shape[-2]), block_size, ci=ci, n_resamples=n_resamples, seed=seed
        )
    value = skce_batched(p, y, kern, estimator=estimator, block_size=block_size)
    return value if is_torch_tensor(value) else as_scalar(value)


#: Kernels that compute one value per row pair, whose linear terms may be taken in chunks of pairs.
_ROW_KERNELS = (GaussianKernel, LaplacianKernel, TVKernel)


def _mean_last(terms: np.ndarray) -> np.ndarray:
    return terms.mean(axis=-1)


def _skce_estimate(p: np.ndarray, y: np.ndarray, kern: Callable, estimator: str, block_size: int, **options):
    """The SKCE of checked (N, K) data with its bootstrap interval (see :func:`skce`, ``ci``); the value is
    computed as :func:`skce_batched` computes it (the mean of the same terms), once."""
    check_unbatched(p)
    n = p.shape[0]
    if estimator == "linear" and type(kern) in _ROW_KERNELS and y.ndim == 1:
        terms = linear_terms_in_chunks(p, y, kern)  # the same terms in a few MiB of working memory
    elif estimator == "linear":
        terms = _linear_terms(p, skce_residuals(p, y), kern)
    elif estimator == "block":
        n_blocks = n // block_size
        if n_blocks < 2:
            raise ValueError(
                f"a bootstrap interval of the block estimator needs at least two blocks; got N = {n} "
                f"with block_size = {block_size}"
            )
        terms = skce_batched(
            _blocks(p, n_blocks, block_size, 1), _blocks(y, n_blocks, block_size, 0), kern, estimator="quadratic"
        )
    else:
        value = as_scalar(skce_batched(p, y, kern, estimator="quadratic"))
        statistic = functools.partial(_quadratic_without_ties, kernel=kern)
        return bootstrap_estimate(statistic, (p, y, np.arange(n)), value, **options)
    if terms.shape[0] < 2:
        raise ValueError(f"a bootstrap interval of the linear estimator needs N >= 4; got N = {n}")
    return bootstrap_estimate(
        _mean_last, (terms,), as_scalar(_mean_last(terms)), symmetric=True, threads=True, **options
    )


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
def skce_ul(
    probs,
    labels,
    *,
    kernel: Callable | None = None,
    bandwidth: float = DEFAULT_BANDWIDTH,
    ci: float | None = None,
    n_resamples: int = 1000,
    seed=None,
):
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
def skce_uq(
    probs,
    labels,
    *,
    kernel: Callable | None = None,
    bandwidth: float = DEFAULT_BANDWIDTH,
    ci: float | None = None,
    n_resamples: int = 1000,
    seed=None,
):
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


def skce_laplacian(
    probs,
    labels,
    *,
    bandwidth: float | None = None,
    max_instances: int = 2000,
    seed=0,
    estimator: str = "auto",
    block_size: int = AUTO_BLOCK_SIZE,
) -> float:
    r"""Unbiased SKCE with a Laplacian kernel, as in Wu & Gales' Tables 1 and 5.

    .. math::
        \widehat{\mathrm{SKCE}}_{uq} = \binom N2^{-1} \sum_{i<j}
        e^{-\lVert\hat{\mathbf p}_i - \hat{\mathbf p}_j\rVert_2/\nu}\,
        (\hat{\mathbf p}_i - \mathbf e_{y_i})^\top (\hat{\mathbf p}_j - \mathbf e_{y_j})

    i.e. the matrix-valued kernel :math:`\Gamma = e^{-\lVert\mathbf p - \mathbf p'\rVert/\nu}\,
    \mathbf I_K` with bandwidth :math:`\nu` from :func:`median_heuristic` (Widmann et al. 2019,
    Sec. 6). A thin alias: ``skce(probs, labels, kernel=LaplacianKernel(ν), estimator=estimator,
    block_size=block_size)`` (:func:`skce`) with ν from :func:`median_heuristic` (deterministic by design:
    ``seed=0``); labels may also be true class probabilities (N, K), as for Wu & Gales' criteria. It is an
    unbiased estimate (it can be negative) and zero in expectation for a calibrated model.

    **Estimator.** The default ``estimator="auto"`` is the quadratic estimator above (all pairs,
    computed in tiles: N = 10⁴ takes about a second) for N <= ``QUADRATIC_MAX_N`` = 10⁴, the sizes
    of the paper's test sets, and above it the block estimator of Widmann et al. (2021): the same
    U-statistic averaged over consecutive blocks of ``block_size`` = 1000 instances, unbiased as
    well, in time linear in N (N = 10⁶, K = 10: seconds; all pairs would take hours). The
    bandwidth is computed on at most ``max_instances`` predictions, so it costs the same at any N.

    Parameters
    ----------
    probs : array-like, shape (N, K), N >= 2
    labels : array-like, shape (N,) of int, or (N, K) true class probabilities
    bandwidth : float or None
        :math:`\nu > 0`; None uses the median heuristic (which depends on ``probs`` only).
    max_instances, seed
        Passed to :func:`median_heuristic`.
    estimator : {"auto", "quadratic", "block", "linear"}, default "auto"
        See above and :func:`credalbook.metrics.skce`.
    block_size : int, default 1000
        Instances per block of the block estimator (2 <= ``block_size`` <= N).

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019, Eq. (4) and Sec. 6; Widmann, Lindsten, Zachariah,
    Calibration tests beyond classification, ICLR 2021 (block estimator); Wu & Gales (2021), Sec. 4.3.

    Examples
    --------
    One pair at Euclidean distance √2·0.4 with bandwidth 1, residuals (−0.2, 0.2) and (0.4, −0.4):

    >>> round(skce_laplacian([[0.8, 0.2], [0.4, 0.6]], [0, 1], bandwidth=1.0), 6)   # -0.16 exp(-0.4√2)
    -0.090875
    """
    p, t, onehot = check_probs_label_rows(probs, labels)
    max_instances = check_positive_int(max_instances, "max_instances", minimum=2)  # checked even when unused
    seed = check_seed(seed)
    if len(p) < 2:
        raise ValueError(f"probs must contain at least 2 instances for the SKCE; got N = {len(p)}")
    est = resolve_estimator(estimator, len(p))
    if est == "block":
        _check_block_size(block_size, len(p))
    if bandwidth is None:
        nu = median_heuristic(p, max_instances=max_instances, seed=seed)
    else:
        nu = check_positive_float(bandwidth, "bandwidth")
    if onehot:
        return float(skce(p, t.argmax(axis=1), kernel=LaplacianKernel(nu), estimator=est, block_size=block_size))
    return float(skce_batched(p, t, LaplacianKernel(nu), estimator=est, block_size=block_size))
