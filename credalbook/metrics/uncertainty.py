r"""Epistemic-uncertainty (EU) estimates of a GP classifier (their evaluation and calibration: :mod:`credalbook.metrics.epistemic`).

Everything here follows "The Evaluation and Calibration of Epistemic Uncertainty Estimates"
(anonymous AISTATS 2023 submission; the "EU paper" below), binary classification, labels in {0, 1}.

* Definitions 1-3 (:func:`uncertainty_decomposition`): with the true :math:`P(y|x)`,

  .. math::

      \mathcal U(x) = 1 - P(\hat f(x)|x), \quad \mathcal A(x) = 1 - P(f^*(x)|x), \quad
      \mathcal E(x) = \mathcal U(x) - \mathcal A(x) = P(f^*(x)|x) - P(\hat f(x)|x).

* Sec. 3.1 (:func:`eu_estimates`): from the latent predictive :math:`\mathcal N(g_*|\mu_*,\sigma_*^2)`
  of a GP classifier with the logistic link, the predictive probability, the entropy estimator
  :math:`\hat{\mathcal E}_E` and the mutual-information estimator :math:`\hat{\mathcal E}_M`, by
  Monte Carlo over the latent (as in the paper) or by deterministic quadrature.
* Secs. 4.1 and 4.3 (the accuracy gain, EECE, epistemic correlation and the calibration map
  :math:`\gamma`) live in :mod:`credalbook.metrics.epistemic`, which re-uses the input checks here.

Entropies are in nats (natural logarithm); the paper does not state the base, and the base only
rescales :math:`\hat{\mathcal E}_E` and :math:`\hat{\mathcal E}_M` (it changes the uncalibrated EECE,
not :math:`\rho_{epi}` nor the calibrated EECE).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import entr, expit

from credalbook._validation import as_numpy, check_choice, check_positive_int, check_real_dtype, check_seed
from credalbook._validation import lazy_scipy_stats as stats

__all__ = [
    "EUEstimates",
    "UncertaintyDecomposition",
    "binary_entropy",
    "eu_estimates",
    "mutual_information",
    "predictive_entropy",
    "predictive_probability",
    "uncertainty_decomposition",
]

_METHODS = ("mc", "quadrature")
_CHUNK_ELEMS = 2**21  # latent samples held in memory at once (16 MiB of float64)
_SD_SWITCH = 1.0  # latent sd from which quadrature splits at 0 and uses Gauss-Laguerre
_MAX_POINTS = 150  # e^t of the largest Laguerre node stays finite


# ------------------------------------------------------------------------------ input checks
def _vector(x, name: str, *, n: int | None = None) -> np.ndarray:
    """A finite real 1-D array as float64; length `n` when given."""
    arr = check_real_dtype(as_numpy(x, name), name, what="hold real numbers")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (N,); got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have length {n} to match the other inputs; got {arr.shape[0]}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one value")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be finite; {name}[{i}] = {arr[i]}")
    return arr


def _binary(x, name: str, *, n: int | None = None) -> np.ndarray:
    """A 1-D array with values in {0, 1} (bools allowed) as int64."""
    arr = _vector(x, name, n=n)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must hold binary labels in {{0, 1}}; {name}[{i}] = {arr[i]:g}")
    return arr.astype(np.int64)


def _probability_vector(x, name: str, *, n: int | None = None) -> np.ndarray:
    arr = _vector(x, name, n=n)
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must lie in [0, 1]; {name}[{i}] = {arr[i]:g}")
    return arr


def _latent(latent_mean, latent_var) -> tuple[np.ndarray, np.ndarray]:
    mu = _vector(latent_mean, "latent_mean")
    var = _vector(latent_var, "latent_var", n=mu.shape[0])
    if (var < 0).any():
        i = int(np.argmax(var < 0))
        raise ValueError(f"latent_var must be non-negative; latent_var[{i}] = {var[i]:g}")
    return mu, var


# ------------------------------------------------------------------------------ Defs. 1-3
def binary_entropy(p) -> np.ndarray:
    r"""Entropy of a Bernoulli distribution in nats, :math:`H(p) = -p\log p - (1-p)\log(1-p)`.

    :math:`0 \log 0 = 0`, so ``H(0) = H(1) = 0``; the maximum is ``H(1/2) = log 2``.

    Parameters
    ----------
    p : array-like of any shape
        Probabilities in [0, 1]; anything else (NaN, inf, values outside [0, 1], complex or
        non-numeric input) raises a ValueError naming ``p``.

    Returns
    -------
    ndarray of the shape of ``p``

    References
    ----------
    EU paper, Sec. 3.1 (the :math:`H` in the estimators).

    Examples
    --------
    >>> binary_entropy([0.0, 0.5, 1.0]).round(6)
    array([0.      , 0.693147, 0.      ])
    """
    arr = check_real_dtype(as_numpy(p, "p"), "p", what="hold probabilities in [0, 1]")
    arr = arr.astype(np.float64, copy=False)
    bad = ~((arr >= 0.0) & (arr <= 1.0))  # NaN fails both comparisons
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"p must lie in [0, 1]; p{list(idx) if idx else ''} = {float(arr[idx])!r}")
    return entr(arr) + entr(1.0 - arr)


@dataclass(frozen=True)
class UncertaintyDecomposition:
    """Predictive, aleatoric and epistemic uncertainty of a classifier (EU paper, Defs. 1-3), each (N,)."""

    predictive: np.ndarray
    aleatoric: np.ndarray
    epistemic: np.ndarray


def uncertainty_decomposition(prob_true, pred) -> UncertaintyDecomposition:
    r"""The uncertainties of Definitions 1-3 when the true :math:`P(y=1|x)` is known.

    .. math::

        \mathcal U(x) = 1 - P(\hat f(x)|x), \qquad
        \mathcal A(x) = 1 - \max_y P(y|x), \qquad
        \mathcal E(x) = \mathcal U(x) - \mathcal A(x) = \max_y P(y|x) - P(\hat f(x)|x) \ge 0.

    Parameters
    ----------
    prob_true : array-like, shape (N,)
        True :math:`P(y=1|x_i)`.
    pred : array-like of {0, 1}, shape (N,)
        Predictions :math:`\hat f(x_i)` of the classifier.

    Returns
    -------
    UncertaintyDecomposition

    References
    ----------
    EU paper, Definitions 1, 2 and 3 (after Lahlou et al., 2021, with the 0/1 loss).

    Examples
    --------
    >>> d = uncertainty_decomposition([0.9, 0.9, 0.5], [1, 0, 0])
    >>> d.predictive.round(3), d.aleatoric.round(3), d.epistemic.round(3)
    (array([0.1, 0.9, 0.5]), array([0.1, 0.1, 0.5]), array([0. , 0.8, 0. ]))
    """
    p = _probability_vector(prob_true, "prob_true")
    f = _binary(pred, "pred", n=p.shape[0])
    p_pred = np.where(f == 1, p, 1.0 - p)
    p_opt = np.maximum(p, 1.0 - p)
    return UncertaintyDecomposition(predictive=1.0 - p_pred, aleatoric=1.0 - p_opt, epistemic=p_opt - p_pred)


# ------------------------------------------------------------------------------ Sec. 3.1
@dataclass(frozen=True)
class EUEstimates:
    r"""Predictive quantities of a GP classifier at test points (EU paper, Sec. 3.1), each (N,).

    Attributes
    ----------
    prob : ndarray
        :math:`p(y_*=1|\mathbf y) = \int \sigma(g)\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg`.
    entropy : ndarray
        :math:`\hat{\mathcal E}_E = H(p(y_*|\mathbf y))`, the entropy estimator.
    expected_entropy : ndarray
        :math:`\int H(\sigma(g))\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg` (the aleatoric part).
    pred : ndarray of int
        :math:`\hat f_{GP}(x_*) = \arg\max_y p(y_*|\mathbf y)`, computed as :math:`1[\mu_* > 0]`
        (exactly the arg-max, because :math:`p(y_*=1|\mathbf y) > 1/2 \iff \mu_* > 0` by the symmetry
        of :math:`\sigma`; a tie :math:`\mu_* = 0` gives class 0).
    method : str
        ``"mc"`` or ``"quadrature"``.
    """

    prob: np.ndarray
    entropy: np.ndarray
    expected_entropy: np.ndarray
    pred: np.ndarray
    method: str

    @property
    def mutual_information(self) -> np.ndarray:
        r""":math:`\hat{\mathcal E}_M = H(p(y_*|\mathbf y)) - \int H(\sigma(g))\mathcal N(g)\,dg \ge 0`."""
        return np.maximum(self.entropy - self.expected_entropy, 0.0)


def _entropy_of_logit(g: np.ndarray) -> np.ndarray:
    """H(sigmoid(g)) computed from the logit: p·softplus(−g) + (1−p)·softplus(g)."""
    p = expit(g)
    return p * np.logaddexp(0.0, -g) + (1.0 - p) * np.logaddexp(0.0, g)


def _gauss_hermite(mu, sd, n_points):
    """E[σ(g)] and E[H(σ(g))] by Gauss-Hermite quadrature (accurate for small sd)."""
    nodes, weights = np.polynomial.hermite.hermgauss(n_points)
    weights = weights / math.sqrt(math.pi)  # a probability measure: Σ w = 1
    g = mu[:, None] + math.sqrt(2.0) * sd[:, None] * nodes
    return expit(g) @ weights, _entropy_of_logit(g) @ weights


def _gauss_laguerre(mu, sd, n_points):
    """E[σ(g)] and E[H(σ(g))] by splitting at g = 0 and Gauss-Laguerre quadrature (large sd).

    ∫σ(g)N(g)dg = P(g > 0) + ∫_0^∞ σ(−t)[N(−t) − N(t)]dt and ∫H(σ(g))N(g)dg = ∫_0^∞ H(σ(t))[N(t) + N(−t)]dt;
    both integrands are e^{−t} times a smooth function, which the Laguerre rule integrates well
    whatever the spread of N, as long as N is not much narrower than the unit scale of σ.
    """
    t, w = np.polynomial.laguerre.laggauss(n_points)
    u = np.exp(-t)
    sig_et = expit(t)  # σ(−t)·e^t
    with np.errstate(divide="ignore", invalid="ignore"):
        l1p = np.where(u > 1e-8, np.log1p(u) / np.where(u > 0, u, 1.0), 1.0 - 0.5 * u)  # e^t·log(1+e^{−t})
    ent_et = sig_et * l1p + sig_et * np.logaddexp(0.0, t)  # H(σ(t))·e^t
    z_plus = (t[None, :] - mu[:, None]) / sd[:, None]
    z_minus = (-t[None, :] - mu[:, None]) / sd[:, None]
    dens_plus = np.exp(-0.5 * z_plus**2) / (sd[:, None] * math.sqrt(2.0 * math.pi))
    dens_minus = np.exp(-0.5 * z_minus**2) / (sd[:, None] * math.sqrt(2.0 * math.pi))
    prob = stats.norm.sf(0.0, loc=mu, scale=sd) + (sig_et * (dens_minus - dens_plus)) @ w
    return prob, (ent_et * (dens_plus + dens_minus)) @ w


def _integrate(mu, var, *, method, n_samples, n_points, seed) -> tuple[np.ndarray, np.ndarray]:
    """E[σ(g)] and E[H(σ(g))] under N(mu, var), shape (N,) each."""
    n = mu.shape[0]
    sd = np.sqrt(var)
    prob, ent = np.empty(n), np.empty(n)
    if method == "quadrature":
        chunk = max(1, _CHUNK_ELEMS // n_points)
        for s in range(0, n, chunk):
            m, v = mu[s : s + chunk], sd[s : s + chunk]
            wide = v >= _SD_SWITCH
            p, h = np.empty(m.shape[0]), np.empty(m.shape[0])
            p[~wide], h[~wide] = _gauss_hermite(m[~wide], v[~wide], n_points)
            if wide.any():
                p[wide], h[wide] = _gauss_laguerre(m[wide], v[wide], n_points)
            prob[s : s + chunk], ent[s : s + chunk] = p, h
        return prob, ent
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ELEMS // n_samples)
    for s in range(0, n, chunk):
        g = mu[s : s + chunk, None] + sd[s : s + chunk, None] * rng.standard_normal((min(chunk, n - s), n_samples))
        prob[s : s + chunk] = expit(g).mean(axis=1)
        ent[s : s + chunk] = _entropy_of_logit(g).mean(axis=1)
    return prob, ent


def eu_estimates(
    latent_mean, latent_var, *, method: str = "mc", n_samples: int = 1000, n_points: int = 64, seed=None
) -> EUEstimates:
    r"""Predictive probability and the two EU estimators of the EU paper, Sec. 3.1.

    For each test point with latent predictive :math:`g_* \sim \mathcal N(\mu_*, \sigma_*^2)`:

    .. math::

        p_* &= \int \sigma(g)\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg, \qquad
        \hat{\mathcal E}_E(x_*) = H(p_*), \\
        \hat{\mathcal E}_M(x_*) &= H(p_*) - \int H(\sigma(g))\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg,

    with :math:`\sigma(a) = 1/(1+e^{-a})` and :math:`H` the binary entropy (nats).

    ``method="mc"`` (the paper's choice) averages over ``n_samples`` independent draws
    :math:`g^{(s)} = \mu_* + \sigma_* z^{(s)}` per point; the empirical measure is a probability
    measure, so Jensen's inequality for the concave :math:`H` gives :math:`0 \le \hat{\mathcal E}_M
    \le \hat{\mathcal E}_E \le \log 2` exactly (up to rounding).

    ``method="quadrature"`` is deterministic, with ``n_points`` nodes. For :math:`\sigma_* < 1` it is
    Gauss-Hermite quadrature, :math:`\int f(g)\mathcal N(g|\mu,\sigma^2)dg \approx
    \pi^{-1/2}\sum_j w_j f(\mu + \sqrt2\sigma t_j)`. Gauss-Hermite converges slowly once the
    Gaussian is much wider than the unit scale of :math:`\sigma(\cdot)` (with 100 nodes the error of
    :math:`p_*` is about 1e-3 at :math:`\sigma_* = 10` and 1e-2 at :math:`\sigma_* = 20`), and those
    wide points are the ones with the largest EU. So for :math:`\sigma_* \ge 1` the integrals are
    split at :math:`g = 0`,

    .. math::

        p_* = P(g_* > 0) + \int_0^\infty \sigma(-t)\,[\mathcal N(-t) - \mathcal N(t)]\,dt, \qquad
        \int H(\sigma(g))\,\mathcal N(g)\,dg = \int_0^\infty H(\sigma(t))\,[\mathcal N(t) + \mathcal N(-t)]\,dt,

    and, the integrands being :math:`e^{-t}` times smooth functions, computed by Gauss-Laguerre
    quadrature. With the default 64 nodes the absolute error is below 1e-8 for every
    :math:`\sigma_*` (checked against a fine Riemann sum). Tiny negative :math:`\hat{\mathcal E}_M`
    from rounding are set to 0.

    Parameters
    ----------
    latent_mean, latent_var : array-like, shape (N,)
        :math:`\mu_*` and :math:`\sigma_*^2` (e.g. from :meth:`credalbook.gp.GPClassifierFit.latent`).
    method : {"mc", "quadrature"}, default="mc"
    n_samples : int, default=1000
        Monte Carlo draws per point (``method="mc"``).
    n_points : int, default=64
        Quadrature nodes (``method="quadrature"``), at most 150.
    seed : None, int or numpy.random.Generator, default None
        For the Monte Carlo draws.

    Returns
    -------
    EUEstimates
        ``.entropy`` is :math:`\hat{\mathcal E}_E`, ``.mutual_information`` is :math:`\hat{\mathcal E}_M`.

    References
    ----------
    EU paper, Sec. 3.1 (the estimators "Mutual Information" and "Entropy"; "In practice, we compute
    these integrals using Monte Carlo integration").

    Examples
    --------
    >>> est = eu_estimates([0.0, 3.0], [1.0, 0.01], method="quadrature")
    >>> est.prob.round(4), est.pred
    (array([0.5   , 0.9524]), array([0, 1]))
    >>> bool((est.mutual_information <= est.entropy).all()), est.mutual_information.round(4)
    (True, array([0.0937, 0.0002]))
    """
    mu, var = _latent(latent_mean, latent_var)
    check_choice(method, "method", _METHODS)
    seed = check_seed(seed)
    n_samples = check_positive_int(n_samples, "n_samples")
    n_points = check_positive_int(n_points, "n_points")
    if n_points > _MAX_POINTS:
        raise ValueError(f"n_points must be at most {_MAX_POINTS}; got {n_points}")
    prob, expected_ent = _integrate(mu, var, method=method, n_samples=n_samples, n_points=n_points, seed=seed)
    prob = np.clip(prob, 0.0, 1.0)
    ent = binary_entropy(prob)
    expected_ent = np.minimum(expected_ent, ent)  # Jensen; removes rounding noise only
    return EUEstimates(
        prob=prob, entropy=ent, expected_entropy=expected_ent, pred=(mu > 0).astype(np.int64), method=method
    )


def predictive_probability(latent_mean, latent_var, **kwargs) -> np.ndarray:
    r""":math:`p(y_*=1|\mathbf y) = \int\sigma(g)\mathcal N(g|\mu_*,\sigma_*^2)dg`, shape (N,).

    Keyword arguments as in :func:`eu_estimates` (default Monte Carlo).

    Examples
    --------
    >>> predictive_probability([0.0, 2.0], [4.0, 0.0], method="quadrature").round(4)
    array([0.5   , 0.8808])
    """
    return eu_estimates(latent_mean, latent_var, **kwargs).prob


def predictive_entropy(latent_mean, latent_var, **kwargs) -> np.ndarray:
    r"""The entropy EU estimator :math:`\hat{\mathcal E}_E = H(p(y_*|\mathbf y))` (Sec. 3.1), shape (N,).

    Examples
    --------
    >>> predictive_entropy([0.0], [1.0], method="quadrature").round(4)
    array([0.6931])
    """
    return eu_estimates(latent_mean, latent_var, **kwargs).entropy


def mutual_information(latent_mean, latent_var, **kwargs) -> np.ndarray:
    r"""The mutual-information EU estimator :math:`\hat{\mathcal E}_M` (Sec. 3.1), shape (N,).

    Examples
    --------
    >>> mutual_information([0.0, 0.0], [0.0, 1.0], method="quadrature").round(4)
    array([0.    , 0.0937])
    """
    return eu_estimates(latent_mean, latent_var, **kwargs).mutual_information
