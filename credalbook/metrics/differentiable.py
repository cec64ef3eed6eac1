r"""The top-label ECE as a differentiable function of the probabilities: the objective of ECE-fitted calibrators.

:func:`differentiable_ece` is the sample ECE of Wu & Gales (2021, Eqs. 13-14) with equal-width bins whose
memberships are held fixed (hard bins: the value equals :func:`credalbook.metrics.ece_confidence`, the
gradient is that of the ECE away from bin edges) or softened (``bin_temperature``). The ensemble
calibrators of :mod:`credalbook.calibration` minimise it (``criterion="ece"``).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Eqs. 13-14 and App. A.4.
Liang, Zhang, Jacobs. Neural network calibration for medical imaging classification using DCA
regularization. ICML UDL workshop 2020.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from credalbook._validation import (
    as_binary_probs,
    as_numpy,
    check_binary_labels,
    check_n_bins,
    check_probs_2d,
    is_torch_tensor,
    simplex_atol,
)
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.label_hist import as_label_hist_tensor

__all__ = ["differentiable_ece", "ece_surrogate"]


def _check_temperature(value) -> float:
    """``bin_temperature``: a finite number > 0."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))
    if not (ok and float(value) > 0.0):
        raise ValueError(f"bin_temperature must be a finite number > 0.0; got {value!r}")
    return float(value)


def ece_surrogate(probs: torch.Tensor, hist: torch.Tensor, n_bins: int, bin_temperature: float | None) -> torch.Tensor:
    """ECE of probability rows (N, K) against label histograms (N, K); see differentiable_ece. No validation.

    Probabilities of shape (N, M, K) give the sum of the M members' ECEs (one pass).
    """
    conf, pred = probs.max(dim=-1)
    if conf.ndim == 1:
        conf, pred = conf[:, None], pred[:, None]  # (N, M)
    counts = hist.sum(dim=-1, keepdim=True)  # (N, 1)
    labelled = counts > 0
    resid = torch.where(labelled, conf - hist.gather(1, pred) / counts.clamp_min(1e-300), torch.zeros_like(conf))
    n = labelled.sum().clamp_min(1)
    if bin_temperature is None:
        edges = torch.arange(n_bins + 1, dtype=conf.dtype, device=conf.device) / n_bins
        ids = (torch.bucketize(conf.detach(), edges, right=True) - 1).clamp(0, n_bins - 1)
        ids = ids + n_bins * torch.arange(resid.shape[1], device=conf.device)
        gaps = torch.zeros(n_bins * resid.shape[1], dtype=conf.dtype, device=conf.device)
        gaps = gaps.index_add(0, ids.reshape(-1), resid.reshape(-1))
    else:
        centres = (torch.arange(n_bins, dtype=conf.dtype, device=conf.device) + 0.5) / n_bins
        member = torch.softmax(-((conf[..., None] - centres) ** 2) / bin_temperature, dim=-1)
        gaps = torch.einsum("nmb,nm->mb", member, resid)
    return gaps.abs().sum() / n


def differentiable_ece(probs, labels, *, n_bins: int = 15, bin_temperature: float | None = None) -> torch.Tensor:
    r"""Top-label ECE as a differentiable function of the probabilities (the fitting objective).

    .. math::

        \widetilde{\mathrm{ECE}} = \frac1N \sum_{b=1}^B \Bigl| \sum_{i=1}^N u_{ib}\,
        (c_i - a_i) \Bigr|, \qquad
        u_{ib} = \begin{cases} [\,c_i \in \mathcal B_b\,] & s = \text{None (hard bins)} \\
        \operatorname{softmax}_b\!\bigl(-(c_i - \mu_b)^2 / s\bigr) & s > 0 \end{cases}

    with :math:`c_i = \max_j p_{ij}`, :math:`a_i` the share of instance i's labels equal to its
    arg-max (0 or 1 with one label), equal-width bins :math:`\mathcal B_b = [(b-1)/B, b/B)` (the
    last one closed) and centres :math:`\mu_b = (b - 1/2)/B`. With hard bins the memberships are
    evaluated at the current probabilities and carry no gradient, so the value equals
    :func:`credalbook.metrics.ece` with ``epsilon = 1/(2B)`` (:func:`credalbook.metrics.ece_confidence` with B
    bins) and the gradient is
    that of the ECE away from bin edges. ``n_bins=1`` gives the DCA of Liang et al. (2020), the
    absolute global top-label gap of Eq. 16.

    Parameters
    ----------
    probs : torch.Tensor or array-like, shape (N, K) or (N,)
        Probability rows; a tensor keeps its autograd graph (converted to float64). A 1-D array
        holds binary scores P(y = 1), taken as the rows ``[1 - p, p]``.
    labels : array-like, shape (N,) or (N, K)
        Integer labels or label histograms (non-negative integer counts); with binary scores,
        labels in {0, 1} (bool too).
    n_bins : int, default=15
        Number of equal-width bins B (the paper's 15, App. A.4).
    bin_temperature : float or None, default=None
        Softness s > 0 of the soft-binned surrogate; None for hard bins.

    Returns
    -------
    torch.Tensor
        A scalar (float64).

    References
    ----------
    Wu & Gales (2021), Eqs. 13-14 and App. A.4; Liang, Zhang & Jacobs (2020) (DCA).

    Examples
    --------
    >>> import torch
    >>> p = torch.tensor([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]], requires_grad=True)
    >>> value = differentiable_ece(p, [0, 0, 0, 1], n_bins=10)   # = ece(p, y, epsilon=0.05)
    >>> round(value.item(), 6)
    0.4
    >>> value.backward(); p.grad[0].tolist()   # d/dc of (1/4)|0.9 + 0.9 - 1| in bin [0.9, 1]
    [0.25, 0.0]
    """
    n_bins = check_n_bins(n_bins)
    if bin_temperature is not None:
        bin_temperature = _check_temperature(bin_temperature)
    binary = getattr(probs, "ndim", np.ndim(probs)) == 1
    if binary:
        labels = check_binary_labels(as_numpy(labels, "labels"), len(probs))
    if binary and is_torch_tensor(probs):
        det = probs.detach().to(torch.float64)
        if probs.is_complex() or not bool(torch.isfinite(det).all()) or bool((det < 0).any() | (det > 1).any()):
            raise ValueError("probs must be binary scores P(y = 1): finite and in [0, 1]")
        p1 = probs.to(torch.float64)
        p = torch.stack([1 - p1, p1], dim=-1)
    elif binary:
        p = torch.tensor(as_binary_probs(probs))
    elif is_torch_tensor(probs):
        if probs.is_complex():
            raise ValueError(f"probs must be numeric (real numbers), got dtype {probs.dtype}")
        p = probs.to(torch.float64)
        if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 2:
            raise ValueError(f"probs must have shape (N, K) with K >= 2; got {tuple(p.shape)}")
        det = p.detach()
        atol = simplex_atol(probs.dtype, p.shape[1])  # float16 / bfloat16 softmax rows pass
        if (
            not bool(torch.isfinite(det).all())
            or bool((det < -atol).any())
            or bool(((det.sum(dim=1) - 1).abs() > atol).any())
        ):
            raise ValueError("probs must be finite rows on the simplex (non-negative, summing to 1)")
    else:
        p = torch.tensor(check_probs_2d(probs))
    hist = as_label_hist_tensor(labels, p.shape[0], p.shape[1], name="labels").to(p.device)
    return ece_surrogate(p, hist, n_bins, bin_temperature)
