r"""Synthetic sets of classifiers with instance-dependent ground truth (Jürgens et al., Sec. 4.1-4.2, App. D.1).

Every dataset has scalar features :math:`x \sim U(0, 5)`, M member predictions per instance and
labels drawn from a known ground truth :math:`\mathbf p^*(x)`:

**Binary GP setting** (``setting="binary"``, M = 2, K = 2). Each member's positive-class
probability is a zero-mean GP draw with kernel :math:`\exp(-(x-x')^2)`, min-max rescaled into
[0.5, 0.8] and [0.7, 0.9]. Hypotheses:

* ``"H0-const"``: :math:`p^* = \lambda p_1 + (1-\lambda) p_2`, :math:`\lambda \sim U(0, 1)` per dataset;
* ``"H0-inst"``: :math:`\lambda(x)` a degree-2 polynomial with standard-normal coefficients,
  min-max rescaled into [0, 1] over [0, 5];
* ``"H1-1"``: the upper or lower envelope of the members (a fair coin per dataset) shifted outward
  by :math:`\epsilon \sim U(0, 0.05)` (one ε per dataset);
* ``"H1-2"``, ``"H1-3"``: the envelope plus a new GP draw :math:`g(x) \in [0, 1]` (min-max rescaled)
  times a fraction of the room left to 0 or 1: 0.3 ("close but outside") and 1.0 ("larger maximum
  distance", :math:`p^* \in [p_{\max}, 1]` or :math:`[0, p_{\min}]`). The paper gives no number
  for the first fraction; 0.3 is our choice.

**Multi-class Dirichlet setting** (``setting="multiclass"``, K = 10, M = 10, u = 0.1). Per instance
:math:`\mathbf a_0 \sim \mathrm{Dir}(\mathbf 1_K)` and members :math:`\hat{\mathbf p}^{(m)} \sim
\mathrm{Dir}(\mathbf a_0 K / u)`. Hypotheses:

* ``"H0-const"``: :math:`\mathbf p^* = \sum_m \lambda_m \hat{\mathbf p}^{(m)}`, one
  :math:`\boldsymbol\lambda \sim \mathrm{Dir}(\mathbf 1_M)` per dataset;
* ``"H0-inst"``: :math:`\boldsymbol\lambda(x) = \mathrm{softmax}_m(q_m(x))` with
  :math:`q_m` degree-2 polynomials of :math:`x/5` with standard-normal coefficients times
  ``poly_scale`` (3 by default, so the weights vary visibly with x);
* ``"H1-1/2/3"``: :math:`\mathbf p^* = \delta\,\mathbf e_c + (1-\delta)\,\mathbf p_b` with a random
  corner :math:`\mathbf e_c` per dataset ("a random corner of the simplex", Sec. 4.2; a corner per
  instance would let the shifts average out over the classes), :math:`\mathbf p_b` where the segment from the
  members' mean to :math:`\mathbf e_c` leaves the hull (exact LP, :func:`~credalbook.credal.boundary_point`),
  and δ = 0.02, 0.1, 0.15.

GP draws are made on a grid of ``gp_grid`` points of [0, 5] and interpolated linearly at the x's
(the kernel's length scale is 0.7, so 256 grid points make the interpolation error negligible
against the sampling noise of the labels) — far cheaper than a Cholesky factor of an N × N matrix
per member and dataset. All draws are batched over datasets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook._random import dirichlet, draw_labels
from credalbook._validation import as_rng, check_choice, check_positive_int
from credalbook.credal.geometry import boundary_point

__all__ = ["InstanceScenario", "instance_scenario", "INSTANCE_SETTINGS", "HYPOTHESES"]

HYPOTHESES = ("H0-const", "H0-inst", "H1-1", "H1-2", "H1-3")
#: Fixed sizes of the two settings (App. D.1).
INSTANCE_SETTINGS = {
    "binary": dict(
        n_members=2, n_classes=2, intervals=((0.5, 0.8), (0.7, 0.9)), epsilon_max=0.05, gp_fractions=(0.3, 1.0)
    ),
    "multiclass": dict(n_members=10, n_classes=10, u=0.1, deltas=(0.02, 0.1, 0.15), poly_scale=3.0),
}
X_RANGE = (0.0, 5.0)


@dataclass(frozen=True)
class InstanceScenario:
    """R synthetic datasets of one setting and hypothesis.

    Attributes
    ----------
    features : ndarray (R, N, 1)
        x.
    ens_probs : ndarray (R, N, M, K)
    labels : ndarray (R, N)
    truth : ndarray (R, N, K)
        :math:`\\mathbf p^*(x)`, the distribution the labels were drawn from.
    weights : ndarray (R, N, M) or None
        The calibrated convex combination under H0 (None under H1).
    setting, hypothesis : str
    config : dict
    """

    features: np.ndarray = field(repr=False)
    ens_probs: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(repr=False)
    setting: str
    hypothesis: str
    config: dict

    @property
    def is_null(self) -> bool:
        """Whether H0 (a calibrated convex combination exists) holds."""
        return self.hypothesis.startswith("H0")


def _gp_draws(rng: np.random.Generator, x: np.ndarray, n_draws: int, grid: int) -> np.ndarray:
    """(R, n_draws, N) GP draws with kernel exp(-(x-x')^2) at x (R, N), min-max rescaled to [0, 1]."""
    g = np.linspace(*X_RANGE, grid)
    cov = np.exp(-((g[:, None] - g[None, :]) ** 2))
    vals, vecs = np.linalg.eigh(cov)
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    draws = np.einsum("gh,rdh->rdg", root, rng.standard_normal((x.shape[0], n_draws, grid)))
    lo, hi = draws.min(-1, keepdims=True), draws.max(-1, keepdims=True)
    draws = (draws - lo) / (hi - lo)
    pos = (x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0]) * (grid - 1)
    i0 = np.clip(np.floor(pos).astype(np.int64), 0, grid - 2)
    frac = (pos - i0)[:, None, :]
    idx = np.broadcast_to(i0[:, None, :], (x.shape[0], n_draws, x.shape[1]))
    return (1 - frac) * np.take_along_axis(draws, idx, -1) + frac * np.take_along_axis(draws, idx + 1, -1)


def _poly(rng: np.random.Generator, x: np.ndarray, shape: tuple) -> np.ndarray:
    """Degree-2 polynomials of x/5 with N(0, 1) coefficients: (R, *shape, N) for x (R, N)."""
    c = rng.standard_normal((x.shape[0], *shape, 3))
    t = (x / X_RANGE[1])[(slice(None), *([None] * len(shape)), slice(None))]
    return c[..., 0:1] + c[..., 1:2] * t + c[..., 2:3] * t * t


def _binary(rng, x, hypothesis, cfg, grid):
    r = x.shape[0]
    raw = _gp_draws(rng, x, 2, grid)  # (R, 2, N)
    lo = np.array([iv[0] for iv in cfg["intervals"]])[None, :, None]
    hi = np.array([iv[1] for iv in cfg["intervals"]])[None, :, None]
    p1 = lo + (hi - lo) * raw  # positive-class probabilities (R, 2, N)
    weights = None
    if hypothesis == "H0-const":
        lam = np.broadcast_to(rng.uniform(size=(r, 1)), x.shape)
    elif hypothesis == "H0-inst":
        grid_x = np.broadcast_to(np.linspace(*X_RANGE, grid), (r, grid))
        c = rng.standard_normal((r, 3))
        q = lambda t: c[:, :1] + c[:, 1:2] * t / 5 + c[:, 2:3] * (t / 5) ** 2  # noqa: E731
        qg = q(grid_x)
        lam = (q(x) - qg.min(-1, keepdims=True)) / (qg.max(-1, keepdims=True) - qg.min(-1, keepdims=True))
        lam = np.clip(lam, 0.0, 1.0)
    else:
        upper = rng.random((r, 1)) < 0.5
        top, bottom = p1.max(1), p1.min(1)
        room = np.where(upper, 1 - top, bottom)
        if hypothesis == "H1-1":
            shift = np.minimum(rng.uniform(0, cfg["epsilon_max"], size=(r, 1)), room)
        else:
            fraction = cfg["gp_fractions"][0 if hypothesis == "H1-2" else 1]
            shift = fraction * room * _gp_draws(rng, x, 1, grid)[:, 0]
        truth1 = np.where(upper, top + shift, bottom - shift)
    if hypothesis.startswith("H0"):
        truth1 = lam * p1[:, 0] + (1 - lam) * p1[:, 1]
        weights = np.stack([lam, 1 - lam], axis=-1)
    ens = np.stack([1 - p1, p1], axis=-1).transpose(0, 2, 1, 3)  # (R, N, M, 2)
    truth = np.stack([1 - truth1, truth1], axis=-1)
    return ens, truth, weights


def _multiclass(rng, x, hypothesis, cfg):
    r, n = x.shape
    m, k, u = cfg["n_members"], cfg["n_classes"], cfg["u"]
    a0 = dirichlet(np.ones(k), rng, (r, n))
    ens = dirichlet(np.broadcast_to(a0[:, :, None, :] * k / u, (r, n, m, k)), rng)
    weights = None
    if hypothesis == "H0-const":
        weights = np.broadcast_to(dirichlet(np.ones(m), rng, (r, 1)), (r, n, m)).copy()
    elif hypothesis == "H0-inst":
        logits = cfg["poly_scale"] * _poly(rng, x, (m,))  # (R, M, N)
        logits = logits.transpose(0, 2, 1)
        weights = np.exp(logits - logits.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
    if weights is not None:
        return ens, np.einsum("rnmk,rnm->rnk", ens, weights), weights
    delta = cfg["deltas"][int(hypothesis[-1]) - 1]
    corner = np.broadcast_to(np.eye(k)[rng.integers(0, k, size=(r, 1))], (r, n, k))  # one corner per dataset
    pb = boundary_point(ens, ens.mean(axis=2), corner, method="lp").point
    truth = delta * corner + (1 - delta) * pb
    truth = np.clip(truth, 0, None)
    return ens, truth / truth.sum(-1, keepdims=True), None


def instance_scenario(
    setting: str, hypothesis: str, *, n_datasets: int = 100, n_instances: int = 2000, gp_grid: int = 256, seed=None
) -> InstanceScenario:
    r"""Draw R datasets of the binary-GP or multi-class Dirichlet setting of Jürgens et al. (App. D.1).

    Parameters
    ----------
    setting : {"binary", "multiclass"}
    hypothesis : {"H0-const", "H0-inst", "H1-1", "H1-2", "H1-3"}
        See the module docstring.
    n_datasets : int, default 100
        R.
    n_instances : int, default 2000
        N per dataset (the paper: 2000, split 60/20/20 into learning, validation and test parts).
    gp_grid : int, default 256
        Grid of the GP draws (binary setting).
    seed : int, numpy Generator or None

    Returns
    -------
    InstanceScenario

    Examples
    --------
    >>> sc = instance_scenario("binary", "H0-inst", n_datasets=2, n_instances=50, seed=0)
    >>> sc.ens_probs.shape, sc.weights.shape, sc.is_null
    ((2, 50, 2, 2), (2, 50, 2), True)
    >>> bool(np.allclose(np.einsum("rnmk,rnm->rnk", sc.ens_probs, sc.weights), sc.truth))
    True
    """
    check_choice(setting, "setting", INSTANCE_SETTINGS)
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    r = check_positive_int(n_datasets, "n_datasets")
    n = check_positive_int(n_instances, "n_instances", minimum=2)
    grid = check_positive_int(gp_grid, "gp_grid", minimum=4)
    rng = as_rng(seed)
    cfg = INSTANCE_SETTINGS[setting]
    x = rng.uniform(*X_RANGE, size=(r, n))
    if setting == "binary":
        ens, truth, weights = _binary(rng, x, hypothesis, cfg, grid)
    else:
        ens, truth, weights = _multiclass(rng, x, hypothesis, cfg)
    labels = draw_labels(truth, rng)
    config = dict(
        setting=setting,
        hypothesis=hypothesis,
        n_datasets=r,
        n_instances=n,
        gp_grid=grid,
        **{k: v for k, v in cfg.items()},
    )
    return InstanceScenario(x[..., None], ens, labels, truth, weights, setting, hypothesis, config)
