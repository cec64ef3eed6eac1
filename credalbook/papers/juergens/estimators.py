r"""How the calibration estimators behave (Jürgens et al., App. A and B).

* :func:`estimator_landscape` — the estimator's value for predictions shifted to every point of a
  grid on the 3-class simplex, with labels drawn from distributions centred at a known point
  (Fig. 6): a good estimator is smallest around that point and grows with the distance to it.
* :func:`weight_landscape` — the same over the weights :math:`\boldsymbol\lambda \in \Delta_3` of
  three members whose combination with :math:`\boldsymbol\lambda^*` generated the labels (Fig. 7).
* :func:`calibrated_combinations_example` — App. B: a binary problem in which two *different*
  convex combinations of the same two classifiers are both calibrated (the conditional
  distribution itself, instance-dependent weights; and the marginal class frequency, constant
  weights), next to one that is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import check_positive_int, check_probs
from credalbook.stats.measures import estimator_measure
from credalbook._random import dirichlet, draw_labels

__all__ = ["Landscape", "estimator_landscape", "weight_landscape", "calibrated_combinations_example",
           "simplex_grid"]


@dataclass(frozen=True)
class Landscape:
    """Estimator values on a grid of the 2-simplex.

    Attributes
    ----------
    grid : ndarray (G, 3)
        Grid points (class probabilities for :func:`estimator_landscape`, weights for
        :func:`weight_landscape`).
    values : ndarray (G,)
        Mean of the estimator over the ``n_repeats`` datasets at each grid point.
    truth : ndarray (3,)
        The data-generating point (red dot of Figs. 6-7).
    estimator : str
    """

    grid: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    truth: np.ndarray
    estimator: str

    @property
    def argmin(self) -> np.ndarray:
        """Grid point with the smallest value."""
        return self.grid[int(np.argmin(self.values))]


def simplex_grid(resolution: int) -> np.ndarray:
    """All points of the 2-simplex whose coordinates are multiples of 1/resolution, (G, 3).

    Examples
    --------
    >>> simplex_grid(2).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.5, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]
    """
    r = check_positive_int(resolution, "resolution")
    pts = [(i, j, r - i - j) for i in range(r + 1) for j in range(r + 1 - i)]
    return np.array(pts, dtype=np.float64) / r


def _setup(point, name: str, n_instances, n_repeats, seed):
    """Validate the data-generating point (3 entries on the simplex) and the sizes; return them with an rng."""
    p0 = check_probs(np.asarray(point, dtype=np.float64)[None], name=name)[0]
    if p0.shape != (3,):
        raise ValueError(f"{name} must be a distribution over 3 entries; got shape {p0.shape}")
    n = check_positive_int(n_instances, "n_instances", minimum=2)
    reps = check_positive_int(n_repeats, "n_repeats")
    return p0, n, reps, np.random.default_rng(seed)


def _evaluate(g, probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean over repeats of g at every grid point: probs (G, R, N, K), labels (R, N) → (G,)."""
    y = np.broadcast_to(labels, probs.shape[:-1])
    return np.asarray(g.func(probs, y)).mean(axis=-1)


def estimator_landscape(estimator: str = "lp", *, truth=(0.5, 0.3, 0.2), concentration: float = 50.0,
                        n_instances: int = 500, n_repeats: int = 5, resolution: int = 20, seed=0,
                        **estimator_options) -> Landscape:
    r"""Estimator value against the position of the predictions in the simplex (Jürgens et al., Fig. 6).

    Instance distributions :math:`\mathbf p^*_i \sim \mathrm{Dir}(c\,\mathbf p^*)` scatter around
    ``truth`` :math:`\mathbf p^*` with concentration c, and labels are drawn from them. The
    predictions at grid point :math:`\mathbf g` are the true distributions shifted by
    :math:`\mathbf g - \mathbf p^*` (projected back onto the simplex), so only the grid point at
    :math:`\mathbf p^*` is calibrated.

    Returns
    -------
    Landscape
    """
    p0, n, reps, rng = _setup(truth, "truth", n_instances, n_repeats, seed)
    true = dirichlet(concentration * p0, rng, (reps, n))  # (R, N, 3)
    labels = draw_labels(true, rng)
    grid = simplex_grid(resolution)
    shifted = np.clip(true[None] + (grid - p0)[:, None, None, :], 1e-6, None)
    probs = shifted / shifted.sum(-1, keepdims=True)
    g = estimator_measure(estimator, **estimator_options)
    return Landscape(grid, _evaluate(g, probs, labels), p0, g.name)


def weight_landscape(estimator: str = "lp", *, weights=(0.2, 0.5, 0.3), n_instances: int = 500, n_repeats: int = 5,
                     resolution: int = 20, spread: float = 10.0, seed=0, **estimator_options) -> Landscape:
    r"""Estimator value against the weights :math:`\boldsymbol\lambda \in \Delta_3` of three members (Fig. 7).

    Per instance a centre :math:`\mathbf a \sim \mathrm{Dir}(\mathbf 1_3)` and three members
    :math:`\hat{\mathbf p}^{(m)} \sim \mathrm{Dir}(\mathrm{spread}\cdot 3\,\mathbf a)`; labels come from
    :math:`\sum_m \lambda^*_m \hat{\mathbf p}^{(m)}` with :math:`\boldsymbol\lambda^*` = ``weights``,
    and the estimator is evaluated for :math:`\hat{\mathbf p}_{\boldsymbol\lambda}` at every grid
    point :math:`\boldsymbol\lambda`.
    """
    lam0, n, reps, rng = _setup(weights, "weights", n_instances, n_repeats, seed)
    centre = dirichlet(np.ones(3), rng, (reps, n))
    members = dirichlet(np.broadcast_to(3 * spread * centre[:, :, None, :], (reps, n, 3, 3)), rng)
    labels = draw_labels(np.einsum("rnmk,m->rnk", members, lam0), rng)
    grid = simplex_grid(resolution)
    probs = np.einsum("rnmk,gm->grnk", members, grid)
    g = estimator_measure(estimator, **estimator_options)
    return Landscape(grid, _evaluate(g, probs, labels), lam0, g.name)


def calibrated_combinations_example(n_instances: int = 20000, *, seed=0) -> dict:
    r"""App. B: several calibrated convex combinations of the same two classifiers.

    :math:`X` is uniform on {a, b} with :math:`P(Y=1\mid a) = 0.2`, :math:`P(Y=1\mid b) = 0.8`.
    The members predict :math:`P(Y=1) = 0.1` and :math:`0.9` everywhere. Then

    * :math:`\lambda_1(a) = 7/8, \lambda_1(b) = 1/8` gives the true conditional distribution
      (calibrated, instance-dependent weights);
    * :math:`\lambda_1 \equiv 1/2` gives the marginal 0.5 everywhere, calibrated as well
      (:math:`P(Y=1 \mid \hat p = 0.5) = 0.5`, Vaicenavicius et al., Prop. 1; constant weights);
    * :math:`\lambda_1 \equiv 3/4` (0.3 everywhere) is not calibrated.

    Returns
    -------
    dict
        ``features`` (N, 1) with 0 for a and 1 for b, ``ens_probs`` (N, 2, 2), ``labels`` (N,) and
        ``combinations``: name → weights (N, 2).
    """
    n = check_positive_int(n_instances, "n_instances", minimum=2)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, size=n)
    p_true = np.where(x == 0, 0.2, 0.8)
    labels = (rng.random(n) < p_true).astype(np.int64)
    members = np.array([[0.9, 0.1], [0.1, 0.9]])
    ens = np.broadcast_to(members, (n, 2, 2)).copy()
    lam_true = np.where(x == 0, 7 / 8, 1 / 8)
    combos = {"conditional (λ₁(a)=7/8, λ₁(b)=1/8)": lam_true, "marginal (λ₁ ≡ 1/2)": np.full(n, 0.5),
              "not calibrated (λ₁ ≡ 3/4)": np.full(n, 0.75)}
    return {"features": x[:, None].astype(np.float64), "ens_probs": ens, "labels": labels,
            "combinations": {k: np.stack([v, 1 - v], axis=1) for k, v in combos.items()}}
