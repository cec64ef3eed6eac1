r"""Optimal concentrations of α-calibration (Mimori et al., 2022, App. D.2-D.3).

* :func:`optimal_log_alpha0`: the per-instance optimal :math:`\log\alpha_0` of the α-calibration
  objective (Eq. 50) by Newton's method on its stationarity condition (Eq. 51, App. D.2, Fig. 3);
* :func:`dpe_alpha0_interval`, :func:`posterior_alpha0_interval` and the conditional losses they
  come from (:func:`dpe_conditional_loss`, :func:`posterior_conditional_epistemic_loss`): the
  intervals and optima of :math:`\alpha_0` of Theorem 1 (App. D.3).

The Dirichlet predictions themselves (DPEs, posterior CPEs, the Eq. 50 objective) are in
:mod:`credalbook.calibration.dirichlet`.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), App. D.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import swapped_label_hist
from credalbook._validation import as_numpy, as_scalar, check_alpha0, check_positive_int, check_probs_2d
from credalbook.calibration.dirichlet import alpha0_gamma
from credalbook.metrics.label_hist import check_label_hist

__all__ = [
    "optimal_log_alpha0",
    "Alpha0Interval",
    "dpe_alpha0_interval",
    "posterior_alpha0_interval",
    "dpe_conditional_loss",
    "posterior_conditional_epistemic_loss",
]

#: log α0 is kept within ±this bound by :func:`optimal_log_alpha0` (exp(700) is near float64's maximum).
_LOG_ALPHA0_BOUND = 700.0


def _stationarity(y, p, n, t, mask_l):
    """h'(t) without the penalty, and its derivative, for h(t) = −log DirMult(y | e^t p)/n.

    With α = e^t the digamma differences of Eq. (51) are rewritten as finite sums over the label
    index l (ψ(x + y) − ψ(x) = Σ_{l<y} 1/(x + l)), and Σ_k y_k = n is used to cancel the O(1)
    parts:  α A(α) = Σ_{l<n} l/(α + l) − Σ_k Σ_{l<y_k} l/(α f_k + l),  stable for any α.
    """
    a = np.exp(t)[:, None]
    b = np.zeros(len(t))
    db = np.zeros(len(t))  # d(α A)/dt
    for l in range(1, mask_l + 1):
        inst = (n > l).astype(np.float64)
        cls = (y > l).astype(np.float64)
        x_all = a[:, 0] + l
        x_cls = a * p + l
        b += inst * l / x_all - (cls * l / x_cls).sum(axis=1)
        db += -inst * l * a[:, 0] / x_all**2 + (cls * l * a * p / x_cls**2).sum(axis=1)
    return -b / n, -db / n


@swapped_label_hist()
def optimal_log_alpha0(probs, label_hist, *, reg=0.005, tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    r"""Per-instance optimal :math:`\log\alpha_0` of the α-calibration objective by Newton's method (App. D.2).

    Treating :math:`t_i = \log\alpha_0(x_i)` as a free parameter, each instance minimises
    :math:`h(t) = -\frac{1}{n_i}\log\mathrm{DirMult}(y_i \mid e^t f_i) + \lambda_\alpha t^2`
    (Eq. 50 for one instance, or for all instances when every :math:`n_i` is the same), whose
    stationarity condition is Eq. (51):

    .. math::
        0 = -\frac{\alpha_0}{n_i}\Bigl(\sum_k \sum_{l=1}^{y_{ik}} \frac{f_k}{\alpha_0 f_k + l - 1}
        - \sum_{l=1}^{n_i} \frac{1}{\alpha_0 + l - 1}\Bigr) + 2\lambda_\alpha \log\alpha_0 .

    The first term lies in (−1, 1), so the root lies in :math:`|t| \le 1/(2\lambda_\alpha)`;
    Newton steps on :math:`h'(t) = 0` start at :math:`t = 0` (:math:`\alpha_0 = 1`, the paper's
    initialisation) and fall back to bisection of this bracket whenever a step leaves it or the
    curvature is not positive, so they converge to a sign change of :math:`h'` from − to +, a
    local minimum (the global one when :math:`h` is unimodal, as in Fig. 3). The bracket is also
    clipped to :math:`|t| \le 700`. Instances with :math:`n_i \le 1` give :math:`t = 0`: one label
    carries no information on :math:`\alpha_0`.

    Parameters
    ----------
    probs : array-like, shape (N, K)
        CPEs :math:`f(x_i)`; a label on a class with :math:`f_k = 0` is an error.
    label_hist : array-like of int, shape (N, K)
    reg : float or array-like, shape (N,), default 0.005
        :math:`\lambda_\alpha > 0`, per instance if an array (so a grid over :math:`\lambda_\alpha`
        is one call).
    tol : float, default 1e-10
        Stop when :math:`|h'(t)|` or the bracket width falls below `tol`.
    max_iter : int, default 200

    Returns
    -------
    ndarray (N,)

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. D.2, Eqs. (50)-(51) and Fig. 3.

    Examples
    --------
    Unanimous labels push :math:`\alpha_0` down, a split pair pushes it up:

    >>> t = optimal_log_alpha0([[0.5, 0.5], [0.5, 0.5]], [[2, 0], [1, 1]], reg=0.005)
    >>> bool(t[0] < 0 < t[1])
    True
    """
    p = check_probs_2d(probs)
    y = check_label_hist(label_hist, n_classes=p.shape[1], min_labels=0)
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"label_hist and probs must have the same number of instances; got {y.shape[0]} and {p.shape[0]}"
        )
    impossible = (y > 0) & (p <= 0)
    if impossible.any():
        i, k = (int(v) for v in np.argwhere(impossible)[0])
        raise ValueError(
            f"probs[{i}, {k}] = 0 but label_hist[{i}, {k}] = {y[i, k]}: the likelihood is 0 for every alpha0"
        )
    lam = as_numpy(reg, "reg").astype(np.float64)
    if not np.all(np.isfinite(lam)) or (lam <= 0).any():
        raise ValueError("reg must be positive (the optimum diverges for some histograms when reg = 0, App. D.2)")
    try:
        lam = np.broadcast_to(lam, (p.shape[0],))
    except ValueError:
        raise ValueError(f"reg must be a scalar or have shape ({p.shape[0]},); got {lam.shape}") from None
    max_iter = check_positive_int(max_iter, "max_iter")
    n = y.sum(axis=1).astype(np.float64)
    t = np.zeros(len(n))
    active = n > 1
    if not active.any():
        return t
    ya, pa, na, la = y[active], p[active], n[active], lam[active]
    max_l = int(na.max()) - 1
    hi = np.minimum(1.0 / (2.0 * la), _LOG_ALPHA0_BOUND)
    lo = -hi
    ta = np.zeros(len(na))
    for _ in range(max_iter):
        g, dg = _stationarity(ya, pa, na, ta, max_l)
        grad = g + 2.0 * la * ta
        curv = dg + 2.0 * la
        lo = np.where(grad < 0, ta, lo)
        hi = np.where(grad > 0, ta, hi)
        done = (np.abs(grad) < tol) | (hi - lo < tol)
        if done.all():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = ta - grad / curv
        ok = (curv > 0) & (newton > lo) & (newton < hi)
        ta = np.where(done, ta, np.where(ok, newton, 0.5 * (lo + hi)))
    t[active] = ta
    return t


# ----------------------------------------------------------------------------------------------
# Theorem 1 (App. D.3)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Alpha0Interval:
    r"""Concentrations that help a downstream task (Theorem 1).

    Attributes
    ----------
    lower : float or ndarray
        Every :math:`\alpha_0 \ge` ``lower`` does at least as well as :math:`\alpha_0 = \infty`
        (no α-calibration); 0 when every :math:`\alpha_0` does, ``inf`` when none does.
    optimum : float or ndarray
        The minimiser :math:`\alpha_0^*` (``inf`` when :math:`\alpha_0 \to \infty` is optimal).
    """

    lower: float | np.ndarray
    optimum: float | np.ndarray


def _unit(x, name: str) -> np.ndarray:
    a = as_numpy(x, name).astype(np.float64)
    if not np.all(np.isfinite(a)) or (a < 0).any() or (a > 1).any():
        raise ValueError(f"{name} must lie in [0, 1]; got {x!r}")
    return a


def _nonneg(x, name: str) -> np.ndarray:
    a = as_numpy(x, name).astype(np.float64)
    if not np.all(np.isfinite(a)) or (a < 0).any():
        raise ValueError(f"{name} must be finite and non-negative; got {x!r}")
    return a


def dpe_alpha0_interval(u_q, s_z) -> Alpha0Interval:
    r"""Theorem 1 (1): the :math:`\alpha_0` for which the Dirichlet DPE beats the point DPE (Eqs. 59-62).

    With :math:`u_Q = \mathbb E[\sum_k Q_k^2 \mid G]` and :math:`s_Z = \sum_k Z_k^2`, if
    :math:`u_Q > s_Z`:

    .. math::
        L_{\phi^D,G} \le L^{(0)}_{\phi^D,G} \iff
        \alpha_0 \ge \frac{1 - 2u_Q + s_Z}{2(u_Q - s_Z)}, \qquad
        \alpha_0^* = \frac{1 - u_Q}{u_Q - s_Z};

    otherwise no finite :math:`\alpha_0` helps (``lower = optimum = inf``). A negative bound
    (every :math:`\alpha_0` helps) is reported as 0. When :math:`Q \mid G \sim
    \mathrm{Dir}(\alpha_0 Z)` the optimum recovers that :math:`\alpha_0`.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Theorem 1 and App. D.3, Eqs. (56)-(63).

    Examples
    --------
    >>> r = dpe_alpha0_interval(0.6, 0.5)
    >>> round(float(r.lower), 6), round(float(r.optimum), 6)   # (1 - 1.2 + 0.5) / 0.2, 0.4 / 0.1
    (1.5, 4.0)
    """
    u, s = np.broadcast_arrays(_unit(u_q, "u_q"), _unit(s_z, "s_z"))
    feasible = u > s
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(feasible, np.maximum((1 - 2 * u + s) / (2 * (u - s)), 0.0), np.inf)
        opt = np.where(feasible, (1 - u) / (u - s), np.inf)
    return Alpha0Interval(as_scalar(lower), as_scalar(opt))


def posterior_alpha0_interval(u_q, el_g) -> Alpha0Interval:
    r"""Theorem 1 (2): the :math:`\alpha_0` for which the posterior CPE beats the prior CPE (Eqs. 68-71).

    With :math:`\mathrm{EL}_G = \mathbb E[\sum_k (Z_k - Q_k)^2 \mid G] > 0` and one observed label:

    .. math::
        \mathrm{EL}'_G \le \mathrm{EL}_G \iff \alpha_0 \ge \frac{1 - u_Q - \mathrm{EL}_G}{2\,\mathrm{EL}_G},
        \qquad \alpha_0^* = \frac{1 - u_Q}{\mathrm{EL}_G};

    with :math:`\mathrm{EL}_G = 0`, :math:`\alpha_0 \to \infty` is optimal (``inf``). Negative
    bounds are reported as 0. When :math:`Z = \mathbb E[Q \mid G]`, :math:`\mathrm{EL}_G = v_Q
    = \sum_k \mathbb V[Q_k \mid G]` and both optima of Theorem 1 equal :math:`(1 - u_Q)/v_Q`
    (Eqs. 63, 72); :math:`v_Q` is the sum over classes as in Eq. (53) (the theorem's statement
    writes :math:`\mathbb V[Q_k \mid G]` without the sum).

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Theorem 1 and App. D.3, Eqs. (64)-(72).

    Examples
    --------
    >>> r = posterior_alpha0_interval(0.6, 0.1)
    >>> round(float(r.lower), 6), round(float(r.optimum), 6)   # (1 - 0.6 - 0.1) / 0.2, 0.4 / 0.1
    (1.5, 4.0)
    """
    u, e = np.broadcast_arrays(_unit(u_q, "u_q"), _nonneg(el_g, "el_g"))
    pos = e > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(pos, np.maximum((1 - u - e) / (2 * e), 0.0), np.inf)
        opt = np.where(pos, (1 - u) / e, np.inf)
    return Alpha0Interval(as_scalar(lower), as_scalar(opt))


def dpe_conditional_loss(alpha0, *, u_q, s_z):
    r"""Expected squared loss of the Dirichlet DPE given G, as a function of :math:`\alpha_0` (Eqs. 56-57).

    .. math::
        L_{\phi^D,G} = (\bar u_Q - \gamma\,\bar s_Z)^2 + \bar u_Q(1 - \bar u_Q), \qquad
        \gamma = \frac{\alpha_0}{\alpha_0 + 1},\ \bar u_Q = 1 - u_Q,\ \bar s_Z = 1 - s_Z

    (:math:`\phi^D \mid G` is Bernoulli with mean :math:`\bar u_Q`, whence the variance term).
    ``alpha0 = inf`` gives :math:`L^{(0)}_{\phi^D,G}`.

    Examples
    --------
    >>> round(float(dpe_conditional_loss(4.0, u_q=0.6, s_z=0.5)), 6)   # (0.4 - 0.8 * 0.5)^2 + 0.24
    0.24
    """
    g = alpha0_gamma(check_alpha0(alpha0, np.shape(alpha0)))
    ub, sb = 1.0 - _unit(u_q, "u_q"), 1.0 - _unit(s_z, "s_z")
    return as_scalar((ub - g * sb) ** 2 + ub * (1.0 - ub))


def posterior_conditional_epistemic_loss(alpha0, *, u_q, el_g):
    r"""Epistemic loss given G of the posterior CPE after one label, as a function of :math:`\alpha_0` (Eq. 67).

    .. math::
        \mathrm{EL}'_G = \mathrm{EL}_G - 2(1 - \gamma)\,\mathrm{EL}_G + (1 - \gamma)^2(\mathrm{EL}_G + \bar u_Q)

    with :math:`Z' = \gamma Z + (1 - \gamma) Y` (Eq. 52); ``alpha0 = inf`` gives
    :math:`\mathrm{EL}_G`.

    Examples
    --------
    >>> round(float(posterior_conditional_epistemic_loss(4.0, u_q=0.6, el_g=0.1)), 6)   # 0.1 - 0.04 + 0.02
    0.08
    """
    g = alpha0_gamma(check_alpha0(alpha0, np.shape(alpha0)))
    ub, e = 1.0 - _unit(u_q, "u_q"), _nonneg(el_g, "el_g")
    return as_scalar(e - 2 * (1 - g) * e + (1 - g) ** 2 * (e + ub))
