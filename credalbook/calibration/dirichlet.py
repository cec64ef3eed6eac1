r"""Distributions over class probability estimates: α-calibration closed forms (Mimori et al., 2022, Sec. 5, App. D).

α-calibration models the CPE distribution of an instance as a Dirichlet
:math:`\mathrm{Dir}(\zeta \mid \alpha_0(x) f(x))` with mean :math:`f(x)` (``probs``) and an
instance-wise concentration :math:`\alpha_0(x) > 0`; an ensemble (MC dropout, TTA) represents it
by its members :math:`f^{(s)}(x)` (``ens_probs``). This module gives

* disagreement probability estimates (DPEs) :math:`\varphi^D = \int 1 - \sum_k \zeta_k^2\, dP(\zeta)`
  of a Dirichlet (Eq. 19/73), of an ensemble (Eq. 74) and of an ensemble of Dirichlets (Eq. 75);
* posterior CPEs after observed labels, for a Dirichlet (Eqs. 19, 81) and an ensemble (Eqs. 82-83);
* the Dirichlet-multinomial NLL with the :math:`\lambda_\alpha (\log\alpha_0)^2` regulariser that
  α-calibration minimises (Eq. 50), in NumPy and in differentiable torch;

and :mod:`credalbook.papers.mimori.alpha0` the optimal :math:`\alpha_0` (Newton's method of App. D.2 and
Theorem 1 of App. D.3).

``alpha0`` may be ``numpy.inf``: the Dirichlet then collapses onto :math:`f(x)`, i.e. the model
before α-calibration.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Sec. 5 and App. D.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp, xlogy

from credalbook._deprecation import swapped_label_hist
from credalbook._validation import (
    as_numpy,
    check_alpha0,
    check_choice,
    check_positive_float,
    check_probs,
    check_probs_2d,
    check_real_dtype,
    check_weights,
)
from credalbook.metrics.label_hist import check_label_hist

__all__ = [
    "dirichlet_disagreement",
    "ensemble_disagreement",
    "dirichlet_posterior_probs",
    "ensemble_posterior_probs",
    "dirichlet_multinomial_nll",
    "dirichlet_multinomial_nll_torch",
]


def _ens3d(ens_probs) -> np.ndarray:
    p = check_probs(ens_probs, name="ens_probs", min_ndim=3)
    if p.ndim != 3:
        raise ValueError(f"ens_probs must have shape (N, M, K); got shape {p.shape}")
    return p


def alpha0_gamma(alpha0: np.ndarray) -> np.ndarray:
    """γ = α0 / (α0 + 1), with γ = 1 at α0 = inf."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(alpha0), 1.0, alpha0 / (alpha0 + 1.0))


# ----------------------------------------------------------------------------------------------
# DPEs and posterior CPEs (Eqs. 17-19, App. D.4-D.5)
# ----------------------------------------------------------------------------------------------
def dirichlet_disagreement(probs, alpha0) -> np.ndarray:
    r"""DPE of :math:`\mathrm{Dir}(\alpha_0 f)`: the probability that two labels disagree (Eq. 19 / 73).

    .. math::
        \varphi^D = 1 - \sum_k \int \zeta_k^2\, \mathrm{Dir}(\zeta \mid \alpha_0 f)\, d\zeta
        = \frac{\alpha_0}{\alpha_0 + 1}\Bigl(1 - \sum_k f_k^2\Bigr)

    ``alpha0 = inf`` gives the DPE :math:`1 - \sum_k f_k^2` of the point prediction (Eq. 17 with
    a Dirac).

    Parameters
    ----------
    probs : array-like, shape (N, K)
        Dirichlet means :math:`f(x_i)`.
    alpha0 : float or array-like, shape (N,)
        Concentrations :math:`\alpha_0(x_i) > 0`.

    Returns
    -------
    ndarray (N,)

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Eq. (19) and App. Eq. (73).

    Examples
    --------
    >>> dirichlet_disagreement([[0.5, 0.5], [0.9, 0.1]], [1.0, np.inf]).round(4).tolist()
    [0.25, 0.18]
    """
    p = check_probs_2d(probs)
    a = check_alpha0(alpha0, (p.shape[0],))
    return alpha0_gamma(a) * (1.0 - (p**2).sum(axis=1))


def ensemble_disagreement(ens_probs, *, alpha0=None) -> np.ndarray:
    r"""DPE of an ensemble of CPEs (Eq. 74), or of an ensemble of Dirichlets when `alpha0` is given (Eq. 75).

    .. math::
        \varphi^D = \frac1S \sum_{s=1}^S \frac{\alpha_0^{(s)}}{\alpha_0^{(s)} + 1}
        \Bigl(1 - \sum_k \bigl(f_k^{(s)}\bigr)^2\Bigr)

    with :math:`\alpha_0^{(s)} = \infty` (the factor 1) when `alpha0` is None.

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
        Member CPEs :math:`f^{(s)}(x_i)` (e.g. MC-dropout or TTA samples).
    alpha0 : float or array-like broadcastable to (N, M), optional
        Concentration of each member's Dirichlet.

    Returns
    -------
    ndarray (N,)

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. D.4, Eqs. (74)-(75).

    Examples
    --------
    >>> ens = [[[1.0, 0.0], [0.5, 0.5]]]                      # one instance, two members
    >>> ensemble_disagreement(ens).tolist(), ensemble_disagreement(ens, alpha0=[[1.0, 1.0]]).tolist()
    ([0.25], [0.125])
    """
    p = _ens3d(ens_probs)
    g = 1.0 if alpha0 is None else alpha0_gamma(check_alpha0(alpha0, p.shape[:2]))
    return (g * (1.0 - (p**2).sum(axis=2))).mean(axis=1)


def dirichlet_posterior_probs(probs, alpha0, label_hist) -> np.ndarray:
    r"""Posterior CPE :math:`Z' = \mathbb E[\zeta \mid x, y]` under :math:`\mathrm{Dir}(\alpha_0 f)` (Eqs. 19, 81).

    The posterior is :math:`\mathrm{Dir}(\zeta \mid \alpha_0 f + y)` (Eq. 81), with concentration
    :math:`\alpha_0 + n` and mean

    .. math:: Z' = \frac{\alpha_0 f + y}{\alpha_0 + n}, \qquad n = \sum_k y_k

    (Eq. 19 for a single label). Rows with no labels, or ``alpha0 = inf``, return :math:`f`.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    alpha0 : float or array-like, shape (N,)
    label_hist : array-like of int, shape (N, K)
        The observed labels (e.g. one expert label per instance, as in Table 2).

    Returns
    -------
    ndarray (N, K)

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Eq. (19) and App. D.5, Eqs. (80)-(81).

    Examples
    --------
    >>> dirichlet_posterior_probs([[0.8, 0.2]], 2.0, [[0, 1]]).round(4).tolist()   # (1.6, 0.4 + 1) / 3
    [[0.5333, 0.4667]]
    """
    p = check_probs_2d(probs)
    y = check_label_hist(label_hist, n_classes=p.shape[1], min_labels=0).astype(np.float64)
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"label_hist and probs must have the same number of instances; got {y.shape[0]} and {p.shape[0]}"
        )
    a = check_alpha0(alpha0, (p.shape[0],))[:, None]
    finite = np.isfinite(a)
    a_safe = np.where(finite, a, 1.0)
    post = (a_safe * p + y) / (a_safe + y.sum(axis=1, keepdims=True))
    return np.where(finite, post, p)


def ensemble_posterior_probs(ens_probs, label_hist, *, weights=None, likelihood: str = "multinomial") -> np.ndarray:
    r"""Posterior CPE of an ensemble after observed labels (App. D.5, Eqs. 82-83).

    The ensemble is the prior :math:`\sum_s w_s \delta(\zeta - f^{(s)})` (Eq. 82 with
    :math:`w_s = 1/S`); Bayes' rule (Eq. 77) reweights the members by their likelihood of the
    labels:

    .. math::
        Z' = \sum_s \frac{w'_s}{W'} f^{(s)}, \qquad
        w'_s = w_s \prod_k \bigl(f_k^{(s)}\bigr)^{y_k}, \qquad W' = \sum_s w'_s

    computed in log space. Eq. (83) as printed writes :math:`w'_s := \sum_s \prod_k \dots`; the
    outer sum is a typo (Bayes' rule, Eq. 77, gives the product alone). The authors' released code
    (``hist_likelihood``) uses :math:`\sum_k (f_k^{(s)})^{y_k}` instead, which for one label is
    :math:`f_y^{(s)} + K - 1` and leaves the weights nearly uniform; ``likelihood="sum"``
    reproduces it (it may explain the near-equal prior and posterior EL of the ensembles in Table 2).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    label_hist : array-like of int, shape (N, K)
    weights : array-like, shape (M,) or (N, M), optional
        Prior member weights (convex); uniform by default.
    likelihood : {"multinomial", "sum"}, default "multinomial"

    Returns
    -------
    ndarray (N, K)

    Raises
    ------
    ValueError
        If every member gives the labels zero likelihood for some instance.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. D.5, Eqs. (76)-(79), (82)-(83).

    Examples
    --------
    >>> ens = [[[0.9, 0.1], [0.3, 0.7]]]
    >>> ensemble_posterior_probs(ens, [[0, 1]]).round(4).tolist()    # member weights 0.1 : 0.7
    [[0.375, 0.625]]
    """
    check_choice(likelihood, "likelihood", {"multinomial", "sum"})
    p = _ens3d(ens_probs)
    n, m, k = p.shape
    y = check_label_hist(label_hist, n_classes=k, min_labels=0).astype(np.float64)
    if y.shape[0] != n:
        raise ValueError(f"label_hist and ens_probs must have the same number of instances; got {y.shape[0]} and {n}")
    if weights is None:
        log_w = np.full((n, m), -np.log(m))
    else:
        w = check_weights(weights, m)
        try:
            w = np.broadcast_to(w, (n, m))
        except ValueError:
            raise ValueError(f"weights must have shape ({m},) or ({n}, {m}); got {w.shape}") from None
        with np.errstate(divide="ignore"):
            log_w = np.log(np.maximum(w, 0.0))  # check_weights allows -atol <= w < 0 (rounding): weight 0
    if likelihood == "multinomial":
        with np.errstate(divide="ignore"):
            log_lik = xlogy(y[:, None, :], p).sum(axis=2)  # 0 log 0 = 0
    else:
        log_lik = np.log((p ** y[:, None, :]).sum(axis=2))
    log_post = log_w + log_lik
    norm = logsumexp(log_post, axis=1, keepdims=True)
    dead = ~np.isfinite(norm[:, 0])
    if dead.any():
        i = int(np.argmax(dead))
        raise ValueError(f"every member gives the labels of instance {i} zero likelihood; the posterior is undefined")
    return (np.exp(log_post - norm)[:, :, None] * p).sum(axis=1)


# ----------------------------------------------------------------------------------------------
# α-calibration objective (Eq. 50); its optimum (Eq. 51) is in credalbook.papers.mimori.alpha0
# ----------------------------------------------------------------------------------------------
def _nll_inputs(probs, label_hist, log_alpha0, reg):
    p = check_probs_2d(probs)
    y = check_label_hist(label_hist, n_classes=p.shape[1], min_labels=0)
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"label_hist and probs must have the same number of instances; got {y.shape[0]} and {p.shape[0]}"
        )
    if y.sum() == 0:
        raise ValueError("label_hist must contain at least one label")
    t = check_real_dtype(as_numpy(log_alpha0, "log_alpha0"), "log_alpha0", allow_bool=False).astype(np.float64)
    if not np.all(np.isfinite(t)):
        raise ValueError(f"log_alpha0 must be finite; got {t[~np.isfinite(t)].ravel()[0]}")
    try:
        t = np.broadcast_to(t, (p.shape[0],))
    except ValueError:
        raise ValueError(f"log_alpha0 must be a scalar or have shape ({p.shape[0]},); got {t.shape}") from None
    return y, p, t, check_positive_float(reg, "reg", allow_zero=True)


def _log_dirmult(y: np.ndarray, p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """log DirMult(y | e^t p) per instance, including the multinomial coefficient; (N,).

    For integer counts Γ(x + y)/Γ(x) = Π_{l<y} (x + l); dividing each of the n factors of the
    numerator and of the denominator by α0 = e^t gives
    log DirMult = log n! − Σ_k log y_k! + Σ_k Σ_{l<y_k} log(f_k + l/α0) − Σ_{l<n} log(1 + l/α0),
    free of the cancellation that log-gamma differences suffer for large α0.
    """
    n = y.sum(axis=1)
    inv = np.exp(-t)
    out = gammaln(n + 1.0) - gammaln(y + 1.0).sum(axis=1)
    with np.errstate(divide="ignore"):
        for l in range(int(n.max())):
            out += np.where(y > l, np.log(p + l * inv[:, None]), 0.0).sum(axis=1) - np.where(
                n > l, np.log1p(l * inv), 0.0
            )
    return out


@swapped_label_hist()
def dirichlet_multinomial_nll(probs, label_hist, log_alpha0, *, reg: float = 0.005) -> float:
    r"""α-calibration objective: Dirichlet-multinomial NLL per label plus a :math:`(\log\alpha_0)^2` penalty (Eq. 50).

    .. math::
        \mathcal L = -\frac{1}{\sum_i n_i} \sum_i \log \mathrm{DirMult}\bigl(y_i \mid \alpha_0(x_i) f(x_i)\bigr)
        + \frac{\lambda_\alpha}{N} \sum_i \bigl(\log \alpha_0(x_i)\bigr)^2

    with :math:`\mathrm{DirMult}(y \mid \alpha) = \frac{n!}{\prod_k y_k!}
    \frac{\Gamma(\alpha_0)}{\Gamma(\alpha_0 + n)} \prod_k \frac{\Gamma(\alpha_k + y_k)}{\Gamma(\alpha_k)}`.
    The penalty pulls :math:`\alpha_0` towards 1 from both sides; the paper uses
    :math:`\lambda_\alpha = 0.005`. A label on a class with :math:`f_k = 0` gives ``inf``.

    Parameters
    ----------
    probs : array-like, shape (N, K)
        Dirichlet means :math:`f(x_i)`.
    label_hist : array-like of int, shape (N, K)
    log_alpha0 : float or array-like, shape (N,)
    reg : float, default 0.005
        :math:`\lambda_\alpha`.

    Returns
    -------
    float

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 5.3 and App. D.2, Eq. (50).

    Examples
    --------
    >>> round(dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], 0.0, reg=0.0), 6)   # Polya urn: -log(2 * 0.5 * 0.25) / 2
    0.693147
    """
    y, p, t, reg = _nll_inputs(probs, label_hist, log_alpha0, reg)
    return float(-_log_dirmult(y, p, t).sum() / y.sum() + reg * np.mean(t**2))


@swapped_label_hist()
def dirichlet_multinomial_nll_torch(probs, label_hist, log_alpha0, *, reg: float = 0.005, eps: float = 1e-12):
    r"""Differentiable torch version of :func:`dirichlet_multinomial_nll` (Eq. 50), for training an α0 head.

    Same formula, evaluated like the NumPy version as finite sums over the label index (a loop
    over :math:`l < \max_i n_i`, exact for any :math:`\alpha_0`, where log-gamma differences lose
    all precision for large :math:`\alpha_0`, above all in float32). Gradients flow to
    `log_alpha0` (and to `probs` if it requires grad). Probabilities are clamped below at `eps` so
    that a label on a zero-probability class gives a large finite loss instead of NaN gradients.
    Only shapes are checked; reading :math:`\max_i n_i` is the one device sync when `probs` and `label_hist` are
    passed by keyword (given by position, both are read once on the CPU to recognise the old order
    ``(label_hist, probs)``, which works until 0.7: ``credalbook._deprecation.swapped_label_hist``).

    Parameters
    ----------
    probs : torch.Tensor, shape (N, K)
    label_hist : torch.Tensor, shape (N, K)
        Counts (any numeric dtype).
    log_alpha0 : torch.Tensor, shape (N,) or (N, 1)
        Output of the α0 head before the exponential.
    reg : float, default 0.005
    eps : float, default 1e-12

    Returns
    -------
    torch.Tensor
        A scalar in the dtype of `probs`.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. D.2, Eq. (50).

    Examples
    --------
    >>> import torch
    >>> t = torch.zeros(1, requires_grad=True)
    >>> loss = dirichlet_multinomial_nll_torch(torch.tensor([[0.5, 0.5]]), torch.tensor([[1, 1]]), t, reg=0.0)
    >>> loss.backward()
    >>> round(loss.item(), 6), round(t.grad.item(), 6)   # Eq. (51): -(1/2)(1 - 1/2) = -0.25
    (0.693147, -0.25)
    """
    import torch

    if not (
        isinstance(probs, torch.Tensor)
        and isinstance(label_hist, torch.Tensor)
        and isinstance(log_alpha0, torch.Tensor)
    ):
        raise ValueError("label_hist, probs and log_alpha0 must be torch tensors")
    if probs.ndim != 2 or label_hist.shape != probs.shape:
        raise ValueError(
            f"label_hist and probs must have the same shape (N, K); got {tuple(label_hist.shape)} "
            f"and {tuple(probs.shape)}"
        )
    t = log_alpha0.reshape(-1) if log_alpha0.ndim == 2 and log_alpha0.shape[1] == 1 else log_alpha0
    if t.shape != (probs.shape[0],):
        raise ValueError(
            f"log_alpha0 must have shape ({probs.shape[0]},) or ({probs.shape[0]}, 1); got {tuple(log_alpha0.shape)}"
        )
    y = label_hist.to(probs.dtype)
    n = y.sum(dim=1)
    inv = torch.exp(-t)
    f = probs.clamp_min(eps)
    log_dm = torch.lgamma(n + 1) - torch.lgamma(y + 1).sum(dim=1)
    for l in range(int(n.max().item())):  # finite-sum form, see _log_dirmult
        log_dm = (
            log_dm
            + torch.where(y > l, torch.log(f + l * inv[:, None]), 0.0).sum(dim=1)
            - torch.where(n > l, torch.log1p(l * inv), 0.0)
        )
    return -log_dm.sum() / n.sum() + reg * (t**2).mean()
