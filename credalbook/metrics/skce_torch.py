r"""The torch side of the SKCE estimators of :mod:`credalbook.metrics.kernel`: differentiable, on the input's device.

Checked tensors from user inputs (:func:`_tensors`, which keeps gradients, dtype and device) and the
sum :math:`\sum_{i,j} k_{ij}\,\mathbf r_i^\top K_y \mathbf r_j` of the quadratic estimator
(:func:`_torch_quadratic_total`): one kernel matrix for small N, row blocks of it for large N,
recomputed in the backward pass (:func:`torch.utils.checkpoint.checkpoint`) when gradients are needed.
The estimators themselves (:func:`credalbook.metrics.kernel._skce_torch`) choose the pairs.
"""

from __future__ import annotations

from credalbook._validation import check_probs_labels, is_torch_tensor
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.kernels import ScalarKernel


def _torch_quadratic_total(
    kernel: ScalarKernel, p3: torch.Tensor, r3: torch.Tensor, rk3: torch.Tensor, max_elements: int
) -> torch.Tensor:
    r""":math:`\sum_{i,j} k_{ij}\, r_i^\top K_y r_j` (diagonal included) for (B, N, K) inputs → (B,).

    One (B, N, N) kernel matrix up to ``max_elements`` entries; above, row blocks of it, each
    recomputed in the backward pass when gradients are needed (memory O(N · rows), not O(N²)).
    """
    n_sets, n, _ = p3.shape
    if n_sets * n * n <= max_elements:
        return ((kernel.torch_gram(p3, p3) @ rk3) * r3).sum((-1, -2))

    def rows_total(p_rows, r_rows, p_all, rk_all):
        return ((kernel.torch_gram(p_rows, p_all) @ rk_all) * r_rows).sum((-1, -2))

    grad = torch.is_grad_enabled() and any(t.requires_grad for t in (p3, r3, rk3))
    step = max(1, max_elements // (n_sets * n))
    total = None
    for s in range(0, n, step):
        args = (p3[:, s : s + step], r3[:, s : s + step], p3, rk3)
        part = torch.utils.checkpoint.checkpoint(rows_total, *args, use_reentrant=False) if grad else rows_total(*args)
        total = part if total is None else total + part
    return total


def _tensors(probs, labels, *, min_instances: int = 1):
    """Validate and return (probs float tensor, labels long tensor), keeping gradients, dtype and device.

    Validation sees the tensor's own dtype, so float16 and bfloat16 rows get the tolerance of their
    precision (:func:`credalbook._validation.simplex_atol`). Binary scores (N,) become the rows
    ``[1 - p, p]`` in the tensor's own dtype.
    """
    if is_torch_tensor(probs):
        with torch.no_grad():
            check_probs_labels(probs, labels, min_instances=min_instances)
        p = probs if probs.is_floating_point() else probs.double()
        if p.ndim == 1:
            p = torch.stack([1 - p, p], dim=-1)
        y = torch.as_tensor(labels, device=p.device).long()
        return p, y
    p, y = check_probs_labels(probs, labels, min_instances=min_instances)
    return torch.from_numpy(p), torch.from_numpy(y)
