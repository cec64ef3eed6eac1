r"""Controls for the claims of Mimori et al. (2022): what the simplest alternative to each method achieves.

* :func:`constant_alpha0_posterior_el` — the epistemic loss of the posterior CPE of a *constant*
  concentration :math:`\alpha_0` (every instance the same), and :func:`best_constant_alpha0` its best value,
  in closed form: the control of Table 2's "α-calibration decreased losses of the posterior CPEs";
* :func:`constant_alpha0` — the constant concentration :math:`\alpha_0` that minimises α-calibration's own
  objective (Eq. 50) on labelled data: α's head without its features, the control that separates what α gains
  from its instance-wise :math:`\alpha_0(x)` from what it gains from its objective;
* :func:`constant_dpe_shrinkage` — the constant factor :math:`\gamma` that minimises :math:`\hat L_{\phi^D}` of
  shrunk DPEs :math:`\gamma\varphi^D` on labelled data: the control of Table 1's "α-calibration decreased
  :math:`\hat L_{\phi^D}` and :math:`\widehat{\mathrm{CE}}_{\phi^D}`";
* :class:`SharedTemperatureEnsembleScaling` — one temperature applied to every member of an ensemble and fitted
  to the NLL of the ensemble mean (an ensemble-aware temperature, App. F.1: "calibration was not
  ensemble-aware").

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Eqs. 19, 40, 81 and App. F.1.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar

from credalbook._validation import check_positive_float
from credalbook.calibration.dirichlet import dirichlet_multinomial_nll
from credalbook.calibration.ensemble import PreCombinationScaling
from credalbook.metrics.label_hist import check_label_hist
from credalbook.metrics.label_stats import statistic_mean_estimate

__all__ = [
    "best_constant_alpha0",
    "constant_alpha0",
    "constant_alpha0_posterior_el",
    "constant_dpe_shrinkage",
    "SharedTemperatureEnsembleScaling",
]


def _nonneg(value, name: str, *, allow_inf: bool = False) -> np.ndarray:
    try:
        x = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers; got {value!r}") from None
    if np.any(np.isnan(x)) or np.any(x < 0) or (not allow_inf and np.any(np.isinf(x))):
        raise ValueError(f"{name} must be {'' if allow_inf else 'finite and '}non-negative; got {value!r}")
    return x


def constant_alpha0_posterior_el(el, u_q, alpha0):
    r"""Epistemic loss of the posterior CPE :math:`Z' = (\alpha_0 Z + Y)/(\alpha_0 + 1)` with one constant
    :math:`\alpha_0`, after one label :math:`Y \sim \mathrm{Cat}(Q)` drawn independently of :math:`Z` given :math:`X`.

    With :math:`\gamma = \alpha_0/(\alpha_0+1)`, :math:`Q - Z' = \gamma(Q - Z) + (1-\gamma)(Q - Y)` and the cross term
    vanishes (:math:`\mathbb E[Y \mid X] = Q`), so

    .. math::
        \mathrm{EL}' = \gamma^2\,\mathrm{EL} + (1-\gamma)^2\,\bar u_Q,\qquad
        \bar u_Q = \mathbb E\bigl[1 - \textstyle\sum_k Q_k^2\bigr] = \mathbb E\lVert Q - Y\rVert^2 .

    Parameters
    ----------
    el : float or array-like
        EL of the prior CPEs :math:`\mathbb E\lVert Q - Z\rVert^2`.
    u_q : float or array-like
        :math:`\bar u_Q`, the mean disagreement probability of the instances.
    alpha0 : float or array-like
        The constant concentration (``np.inf``: the prior itself).

    Returns
    -------
    float or ndarray

    References
    ----------
    Mimori et al. (2022), Eq. 19 (posterior CPE) and Eq. 81.

    Examples
    --------
    >>> constant_alpha0_posterior_el(0.1, 0.1, 1.0)   # γ = 1/2: (0.1 + 0.1) / 4
    0.05
    """
    el, u, a = _nonneg(el, "el"), _nonneg(u_q, "u_q"), _nonneg(alpha0, "alpha0", allow_inf=True)
    g = np.where(np.isinf(a), 1.0, a / np.where(np.isinf(a), 1.0, a + 1.0))
    out = g**2 * el + (1.0 - g) ** 2 * u
    return float(out) if out.ndim == 0 else out


def best_constant_alpha0(el, u_q) -> tuple:
    r"""The constant :math:`\alpha_0` that minimises :func:`constant_alpha0_posterior_el`, and that minimum.

    .. math::
        \alpha_0^* = \bar u_Q/\mathrm{EL},\qquad
        \mathrm{EL}'^* = \frac{\mathrm{EL}\,\bar u_Q}{\mathrm{EL} + \bar u_Q} .

    Returns
    -------
    (alpha0, el_post) : floats or ndarrays
        ``alpha0`` is ``inf`` where EL = 0 (the prior cannot be improved).

    Examples
    --------
    >>> round(float(best_constant_alpha0(0.1258, 0.0998)[1]), 4)   # EL above ū_Q: the best constant halves it and more
    0.0557
    """
    el, u = _nonneg(el, "el"), _nonneg(u_q, "u_q")
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha0 = np.where(el > 0, u / np.where(el > 0, el, 1.0), np.inf)
        best = np.where(el + u > 0, el * u / np.where(el + u > 0, el + u, 1.0), 0.0)
    return alpha0, best


def constant_alpha0(probs, label_hist, *, reg: float = 0.005, xatol: float = 1e-9) -> float:
    r"""The constant :math:`\alpha_0` (every instance the same) that minimises the α-calibration objective (Eq. 50).

    .. math::
        t^* = \arg\min_t\; -\frac{1}{\sum_i n_i}\sum_i \log\mathrm{DirMult}\bigl(y_i \mid e^t f(x_i)\bigr)
        + \lambda_\alpha t^2,\qquad \alpha_0 = e^{t^*},

    i.e. :func:`~credalbook.calibration.dirichlet_multinomial_nll` with one :math:`\log\alpha_0` for all
    instances: the α head of :class:`~credalbook.calibration.AlphaCalibrator` without its features. The
    derivative of the NLL term in :math:`t` lies in (−1, 1) (App. D.2), so with :math:`\lambda_\alpha > 0` the
    minimiser lies in :math:`|t| \le 1/(2\lambda_\alpha)`; without the penalty the bracket is :math:`|t| \le 700`.
    The minimum is located on :math:`t = 0, \pm 1, \pm 2, \pm 4, \dots` within the bracket and refined by SciPy's
    bounded Brent search (``minimize_scalar(method="bounded")``) between the neighbours of the best grid point: the
    global minimum when the objective is unimodal in :math:`t` (as for one instance, App. D.2, Fig. 3).

    Parameters
    ----------
    probs : array-like, shape (N, K)
        CPEs :math:`f(x_i)` (the Dirichlet means).
    label_hist : array-like of int, shape (N, K)
    reg : float, default 0.005
        :math:`\lambda_\alpha` (the paper's value).
    xatol : float, default 1e-9
        Tolerance on :math:`t = \log\alpha_0`.

    Returns
    -------
    float
        :math:`\alpha_0 > 0`.

    References
    ----------
    Mimori et al. (2022), Sec. 5.3, Eq. (50) and App. D.2.

    Examples
    --------
    One split pair of labels on a flat CPE: the Pólya urn fits it best with α0 large (here held by the penalty):

    >>> a = constant_alpha0([[0.5, 0.5]], [[1, 1]], reg=0.005)
    >>> bool(a > 1)
    True
    """
    reg = check_positive_float(reg, "reg", allow_zero=True)
    xatol = check_positive_float(xatol, "xatol")
    hist = check_label_hist(label_hist, min_labels=0)
    if not np.any(hist.sum(axis=1) >= 2) and reg == 0:
        raise ValueError(
            "label_hist has no instance with two labels or more and reg is 0: the objective does not depend on α0"
        )
    bound = min(1.0 / (2.0 * reg), 700.0) if reg > 0 else 700.0

    def objective(t):
        return dirichlet_multinomial_nll(probs, hist, t, reg=reg)

    # the objective is flat to rounding far from its minimum (α0 → 0 or ∞), where a search over the whole bracket
    # can stall: locate the minimum on t = 0, ±1, ±2, ±4, … first, then refine between that point's neighbours
    steps = [2.0**k for k in range(11) if 2.0**k < bound] + [bound]
    grid = np.array(sorted({0.0, *steps, *(-x for x in steps)}))
    values = [objective(t) for t in grid]  # the first call validates probs against label_hist (ValueError)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = minimize_scalar(objective, bounds=(lo, hi), method="bounded", options={"xatol": xatol, "maxiter": 500})
    if not res.success:
        raise RuntimeError(f"constant_alpha0: the bounded search did not converge ({res.message})")
    return float(np.exp(res.x))


def constant_dpe_shrinkage(dpe, label_hist) -> float:
    r"""The constant :math:`\gamma \ge 0` that minimises :math:`\hat L_{\phi^D}(\gamma\varphi^D)` (Eq. 40) on labelled data.

    :math:`\hat L_\phi(\gamma\varphi) = \frac1{N'}\sum_i (\gamma^2\varphi_i^2 - 2\gamma\varphi_i\hat\phi_i + \hat\phi_i)`
    over the :math:`N'` instances with two labels or more, where :math:`\hat\phi_i` is the unbiased estimate of the
    disagreement probability (the Gini-Simpson U-statistic, Eq. 16); its minimiser is the least-squares factor

    .. math::
        \gamma^* = \frac{\sum_i \varphi_i\hat\phi_i}{\sum_i \varphi_i^2}\quad(\text{clipped at } 0).

    Parameters
    ----------
    dpe : array-like, shape (N,)
        DPEs :math:`\varphi^D_i` in [0, 1].
    label_hist : array-like of int, shape (N, K)

    Returns
    -------
    float

    References
    ----------
    Mimori et al. (2022), Eqs. 16 and 40.

    Examples
    --------
    >>> constant_dpe_shrinkage([0.5, 0.5], [[2, 0], [1, 1]])   # observed disagreement 0 and 1: γ φ = 1/2
    1.0
    """
    phi = np.asarray(dpe, dtype=np.float64)
    if phi.ndim != 1 or not np.all(np.isfinite(phi)) or np.any((phi < 0) | (phi > 1)):
        raise ValueError(f"dpe must be a 1-d array of values in [0, 1]; got shape {phi.shape}")
    hist = check_label_hist(label_hist, min_labels=0)
    if len(hist) != len(phi):
        raise ValueError(f"label_hist must have one row per dpe; got {len(hist)} and {len(phi)}")
    est = statistic_mean_estimate(hist)
    ok = np.isfinite(est)
    den = float(np.sum(phi[ok] ** 2))
    if den == 0:
        raise ValueError("dpe is zero on every instance with two labels or more; no shrinkage factor is defined")
    return max(float(np.sum(phi[ok] * est[ok])) / den, 0.0)


class SharedTemperatureEnsembleScaling(PreCombinationScaling):
    r"""One temperature for every member of an ensemble, fitted to the NLL of the ensemble mean.

    .. math::
        \bar P_T(\omega \mid x) = \frac1M\sum_{m=1}^M \operatorname{softmax}\bigl(z^{(m)}(x)/T\bigr)

    Temperature scaling fitted on one network's outputs and applied to each member (the authors' pipeline)
    calibrates the members, not their mean, which is already softer; this fits :math:`T` to the mean
    (ensemble-aware, App. F.1). Members of MC dropout or TTA are exchangeable draws, so one temperature serves them
    all. Fitting and options as :meth:`~credalbook.calibration.Calibrator.fit`; ``temperature`` is :math:`T`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = 2 * rng.normal(size=(3000, 3))
    >>> y = np.array([rng.choice(3, p=np.exp(r) / np.exp(r).sum()) for r in s])
    >>> z = 3 * s[:, None, :] + 0.1 * rng.normal(size=(3000, 4, 3))   # four near-identical members, 3× too sharp
    >>> round(SharedTemperatureEnsembleScaling().fit(z, y).temperature, 1)
    3.0
    """

    def __init__(self) -> None:
        super().__init__(fit_to="ensemble")

    def _n_temperatures(self) -> int:
        return 1

    @property
    def temperature(self) -> float:
        """The fitted temperature :math:`T`."""
        return float(self.temperatures[0])
