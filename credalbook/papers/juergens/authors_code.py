r"""The authors' estimators, transcribed from their code (mkjuergens/EnsembleCalibration@8dff2b5), and how far
they are from the book's.

* :func:`authors_mmd_kce` — their MMD statistic (a kernel on the labels only), equal to the book's
  ``mmd_calibration_error(conditioning="none")`` at one label bandwidth.
* :func:`authors_lp_kde` and :func:`lp_clamp_effect` — their :math:`L_p` estimator in float32 with the kernel
  clamped, and how often the clamp moves it away from the book's exact one.
* :func:`kl_gradient_check` — the gradient of their KL estimator against finite differences (their
  :math:`\nabla F` is a constant to back-propagation).
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._random import draw_labels
from credalbook._validation import check_positive_int

__all__ = ["authors_lp_kde", "authors_mmd_kce", "kl_gradient_check", "lp_clamp_effect"]


def authors_mmd_kce(probs, labels, *, bw: float = 0.1) -> float:
    r"""The authors' MMD statistic, transcribed (mkjuergens/EnsembleCalibration@8dff2b5,
    ``src/cal_estimates/mmd_kce.py``, ``mmd_kce`` with ``take_square=False``), in float64.

    Their kernel is :math:`\exp(-\lVert\mathbf e_y - \mathbf e_{y'}\rVert^2 / bw)` on one-hot labels
    only (no kernel on the predictions), so its off-diagonal value is :math:`e^{-2/bw}`; the
    book's label kernel is :math:`e^{-1/\sigma_y^2}`. The two agree, with
    ``mmd_calibration_error(conditioning="none")``, only for :math:`\sigma_y = \sqrt{bw/2}`.

    Examples
    --------
    >>> from credalbook.metrics import mmd_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(4), 50); y = rng.integers(0, 4, 50)
    >>> book = float(mmd_calibration_error(p, y, conditioning="none", label_bandwidth=np.sqrt(0.1 / 2)))
    >>> bool(np.isclose(authors_mmd_kce(p, y, bw=0.1), book))
    True
    """
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    n, k = p.shape
    eye = np.eye(k)
    k_yy = np.exp(-((eye[:, None, :] - eye[None, :, :]) ** 2).sum(-1) / bw)  # (K, K)
    off = ~np.eye(n, dtype=bool)
    m1 = np.einsum("ic,jd,cd->ij", p, p, k_yy)  # E k(Ŷ_i, Ŷ_j)
    m2 = np.einsum("ic,jc->ij", p, k_yy[:, y].T)  # E k(Ŷ_i, y_j)
    m3 = k_yy[y][:, y]  # k(y_i, y_j)
    return float(m1[off].mean() - 2 * m2[off].mean() + m3[off].mean())


def authors_lp_kde(probs, labels, *, bw: float = 0.01, order: int = 2) -> dict:
    r"""The authors' :math:`L_p` estimator, transcribed (mkjuergens/EnsembleCalibration@8dff2b5,
    ``src/cal_estimates/kde_ece.py``, ``get_ratio_canonical`` with ``dirichlet_kernel``), in their float32.

    For K ≤ 60 their code exponentiates the log Dirichlet kernel and clamps it to
    [10⁻²⁰, 10³⁵] before the ratio :math:`\sum_j k_{ij} \mathbf e_{y_j} / \sum_j k_{ij}`: every kernel value
    above 10³⁵ (log 80.6) counts as 10³⁵ and every one below 10⁻²⁰ as 10⁻²⁰, so where many
    neighbours saturate the calibration map becomes a plain average of their labels. The book
    (:func:`credalbook.metrics.lp_calibration_error`) normalises in log space (a softmax), which is exact.

    Returns
    -------
    dict
        ``value`` (their statistic), ``share_clamped_high`` and ``share_clamped_low`` (off-diagonal
        kernel values clamped at either end).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(10), 300); y = np.array([rng.choice(10, p=q) for q in p])
    >>> authors_lp_kde(p, y)["share_clamped_low"] > 0.3   # most off-diagonal kernels sit at the 1e-20 floor
    True
    """
    import torch

    f = torch.as_tensor(np.asarray(probs), dtype=torch.float32)
    y = torch.as_tensor(np.asarray(labels), dtype=torch.int64)
    z = torch.clamp(f, min=1e-10, max=1.0)
    alphas = z / bw + 1
    log_beta = torch.sum(torch.lgamma(alphas), dim=1) - torch.lgamma(torch.sum(alphas, dim=1))
    log_kern = torch.matmul(torch.log(z), (alphas - 1).T) - log_beta
    log_kern = log_kern + torch.diag(torch.finfo(torch.float).min * torch.ones(len(f)))
    raw = torch.exp(log_kern)
    kern = torch.clamp(raw, min=1e-20, max=1e35)
    onehot = torch.nn.functional.one_hot(y, num_classes=f.shape[1]).to(torch.float32)
    ratio = torch.matmul(kern, onehot) / kern.sum(dim=1).unsqueeze(-1)
    value = torch.mean(torch.sum(torch.abs(ratio - f) ** order, dim=1))
    off = ~torch.eye(len(f), dtype=torch.bool)
    lk = log_kern[off]
    return {
        "value": float(value),
        "share_clamped_high": float((lk > math.log(1e35)).float().mean()),
        "share_clamped_low": float((lk < math.log(1e-20)).float().mean()),
    }


def lp_clamp_effect(n_classes: int, n_instances: int, *, n_batches: int = 100, bw: float = 0.01, seed=0) -> dict:
    r"""How far the authors' clamped float32 :math:`L_2` (:func:`authors_lp_kde`) is from the book's exact one.

    Draws ``n_batches`` samples of ``n_instances`` calibrated predictions (:math:`\mathrm{Dir}(\mathbf 1_K)`,
    labels from the predictions) and compares the two estimators on each.

    Returns
    -------
    dict
        ``share > 1%`` (batches whose relative difference exceeds 1%), ``largest relative difference``.

    Examples
    --------
    >>> lp_clamp_effect(10, 16, n_batches=50, seed=7)["share > 1%"] > 0.2
    True
    """
    from credalbook.metrics import lp_calibration_error

    k = check_positive_int(n_classes, "n_classes", minimum=2)
    n = check_positive_int(n_instances, "n_instances", minimum=3)
    rng = np.random.default_rng(seed)
    rel = []
    for _ in range(check_positive_int(n_batches, "n_batches")):
        p = rng.dirichlet(np.ones(k), n)
        y = draw_labels(p, rng)
        book = float(lp_calibration_error(p, y, bandwidth=bw))
        rel.append(abs(authors_lp_kde(p, y, bw=bw)["value"] - book) / book)
    rel = np.asarray(rel)
    return {"share > 1%": float(np.mean(rel > 0.01)), "largest relative difference": float(rel.max())}


def _authors_kl(g, y, bw: float, create_graph: bool):
    """The authors' ``get_bregman_ce`` with the negative entropy, in float64 (their cpu/cuda dtype)."""
    import torch

    z = torch.clamp(g, min=1e-10, max=1.0)
    alphas = z / bw + 1
    log_beta = torch.sum(torch.lgamma(alphas), dim=1) - torch.lgamma(torch.sum(alphas, dim=1))
    log_kern = torch.matmul(torch.log(z), (alphas - 1).T) - log_beta
    log_kern = log_kern + torch.diag(torch.finfo(torch.float).min * torch.ones(len(g), dtype=g.dtype))
    onehot = torch.nn.functional.one_hot(y, num_classes=g.shape[1]).to(g.dtype)
    log_num = torch.logsumexp(log_kern.unsqueeze(2) + torch.log(onehot).unsqueeze(0), dim=1)
    ratio = torch.exp(log_num - torch.logsumexp(log_kern, dim=1).unsqueeze(-1))
    ratio = torch.clamp(ratio, min=1e-45)

    def neg_entropy(x):
        x = torch.clamp(x, min=1e-10)
        return torch.sum(x * torch.log(x), dim=1)

    f_gx = neg_entropy(g)
    grad_f = torch.autograd.grad(
        f_gx, g, grad_outputs=torch.ones_like(f_gx), retain_graph=True, create_graph=create_graph
    )[0]
    return torch.mean(neg_entropy(ratio) - f_gx - torch.sum(grad_f * (ratio - g), dim=1))


def kl_gradient_check(
    n_instances: int = 50, n_classes: int = 3, *, bw: float = 0.1, n_directions: int = 5, eps: float = 1e-6, seed=0
) -> dict:
    r"""The gradient of the authors' KL estimator against finite differences (mkjuergens/EnsembleCalibration@8dff2b5,
    ``src/cal_estimates/kde_kl.py``, ``get_bregman_ce``).

    Their estimator is :math:`\frac1N\sum_i F(\mathbf r_i) - F(\mathbf g_i) - \nabla F(\mathbf g_i)\cdot(\mathbf r_i - \mathbf g_i)`
    with :math:`F` the negative entropy and :math:`\mathbf r_i` the kernel calibration map; its value is the
    book's :func:`~credalbook.metrics.kl_calibration_error`. They compute :math:`\nabla F` with
    ``torch.autograd.grad`` without ``create_graph=True``, so back-propagation treats it as a constant and drops
    :math:`-\nabla^2 F(\mathbf g_i)(\mathbf r_i - \mathbf g_i)` from the gradient the λ-network trains on.

    For random predictions :math:`\mathbf g` (N, K) and labels drawn from them, and ``n_directions`` random
    directions :math:`\mathbf v` that keep the rows on the simplex (rows summing to zero), compares the
    directional derivative :math:`\nabla\,CE\cdot\mathbf v` of each implementation with the central finite
    difference of the value.

    Returns
    -------
    dict
        Implementation ("authors' code", "authors' code with create_graph=True", "book") → {"value",
        "largest relative error of the directional derivative"}.

    Examples
    --------
    >>> r = kl_gradient_check(seed=0)
    >>> r["book"]["largest relative error of the directional derivative"] < 1e-4
    True
    >>> r["authors' code"]["largest relative error of the directional derivative"] > 0.1
    True
    """
    import torch

    from credalbook.metrics import kl_calibration_error

    rng = np.random.default_rng(seed)
    n = check_positive_int(n_instances, "n_instances", minimum=3)
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    g0 = rng.dirichlet(np.full(k, 3.0), n)
    y = torch.as_tensor(draw_labels(g0, rng), dtype=torch.int64)
    dirs = rng.standard_normal((check_positive_int(n_directions, "n_directions"), n, k))
    dirs -= dirs.mean(-1, keepdims=True)

    def book(g):
        return kl_calibration_error(g, y, bandwidth=bw)

    impls = {
        "authors' code": lambda g: _authors_kl(g, y, bw, False),
        "authors' code with create_graph=True": lambda g: _authors_kl(g, y, bw, True),
        "book": book,
    }
    out = {}
    for name, fn in impls.items():
        g = torch.tensor(g0, dtype=torch.float64, requires_grad=True)
        value = fn(g)
        (grad,) = torch.autograd.grad(value, g)
        errs = []
        for v in dirs:
            vt = torch.as_tensor(v)
            up = float(fn(torch.tensor(g0 + eps * v, dtype=torch.float64, requires_grad=True)).detach())
            down = float(fn(torch.tensor(g0 - eps * v, dtype=torch.float64, requires_grad=True)).detach())
            fd = (up - down) / (2 * eps)
            errs.append(abs(float((grad * vt).sum()) - fd) / max(abs(fd), 1e-12))
        out[name] = {
            "value": float(value.detach()),
            "largest relative error of the directional derivative": float(max(errs)),
        }
    return out
