r"""How the calibration estimators behave (Jürgens et al., App. A and B).

* :func:`estimator_landscape` — the estimator's value for predictions shifted to every point of a
  grid on the 3-class simplex, with labels drawn from distributions centred at a known point
  (Fig. 6): a good estimator is smallest around that point and grows with the distance to it.
* :func:`weight_landscape` — the same over the weights :math:`\boldsymbol\lambda \in \Delta_3` of
  three members whose combination with :math:`\boldsymbol\lambda^*` generated the labels (Fig. 7).
* :func:`estimator_landscapes` — both for one estimator, as the chapter records them (one part each).
* :func:`calibrated_combinations_example` — App. B: a binary problem in which two *different*
  convex combinations of the same two classifiers are both calibrated (the conditional
  distribution itself, instance-dependent weights; and the marginal class frequency, constant
  weights), next to one that is not; :func:`combination_rejections` tests one of them on many samples.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed
from credalbook._random import dirichlet, draw_labels
from credalbook._validation import check_positive_int, check_probability, check_probs
from credalbook.papers.juergens.authors_code import authors_lp_kde, authors_mmd_kce, kl_gradient_check, lp_clamp_effect
from credalbook.stats.measures import estimator_measure

__all__ = [
    "Landscape",
    "authors_lp_kde",
    "authors_mmd_kce",
    "estimator_landscape",
    "estimator_landscapes",
    "estimator_demo_draws",
    "weight_landscape",
    "calibrated_combinations_example",
    "APP_B_COMBINATIONS",
    "combination_rejections",
    "kl_gradient_check",
    "lp_clamp_effect",
    "median_heuristic_bandwidth",
    "simplex_grid",
    "skce_kernel_summary",
]


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
    repeat_values : ndarray (G, n_repeats) or None
        The estimator on each dataset at each grid point.
    truth : ndarray (3,)
        The data-generating point (red dot of Figs. 6-7).
    estimator : str
    """

    grid: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    truth: np.ndarray
    estimator: str
    repeat_values: np.ndarray | None = field(default=None, repr=False)

    @property
    def argmin(self) -> np.ndarray:
        """Grid point with the smallest value."""
        return self.grid[int(np.argmin(self.values))]

    @property
    def repeat_misses(self) -> np.ndarray:
        """L1 distance from the truth of each repeat's grid minimum, shape (n_repeats,).

        Their spread gives the standard error of where the minimum lies (one dataset per repeat).
        """
        if self.repeat_values is None:
            raise ValueError("this Landscape has no per-repeat values")
        idx = np.argmin(self.repeat_values, axis=0)
        return np.abs(self.grid[idx] - self.truth).sum(axis=-1)


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
    """g at every grid point and repeat: probs (G, R, N, K), labels (R, N) → (G, R)."""
    y = np.broadcast_to(labels, probs.shape[:-1])
    return np.asarray(g.func(probs, y))


def estimator_landscape(
    estimator: str = "lp",
    *,
    truth=(0.5, 0.3, 0.2),
    concentration: float = 50.0,
    n_instances: int = 500,
    n_repeats: int = 5,
    resolution: int = 20,
    seed=0,
    **estimator_options,
) -> Landscape:
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
    vals = _evaluate(g, probs, labels)
    return Landscape(grid, vals.mean(axis=-1), p0, g.name, vals)


def weight_landscape(
    estimator: str = "lp",
    *,
    weights=(0.2, 0.5, 0.3),
    n_instances: int = 500,
    n_repeats: int = 5,
    resolution: int = 20,
    spread: float = 10.0,
    seed=0,
    **estimator_options,
) -> Landscape:
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
    vals = _evaluate(g, probs, labels)
    return Landscape(grid, vals.mean(axis=-1), lam0, g.name, vals)


def estimator_landscapes(
    estimator: str = "lp",
    *,
    n_instances: int = 500,
    n_repeats: int = 5,
    resolution: int = 20,
    seed=0,
    estimator_options: dict | None = None,
) -> tuple:
    r"""Figs. 6 and 7 for one estimator: :func:`estimator_landscape` and :func:`weight_landscape`.

    Both with their default data-generating points and the same sizes, ``seed`` and ``estimator_options``.
    The weight landscape is returned without its per-repeat values (``repeat_values=None``; only its mean
    is drawn), which halves what a record of the pair holds: about
    :math:`(G + G \cdot R_{rep} + 3G) + (G + 3G)` numbers for :math:`G = (r+1)(r+2)/2` grid points.

    Returns
    -------
    tuple of Landscape
        (prediction-space landscape of Fig. 6, λ-space landscape of Fig. 7).

    Examples
    --------
    >>> s, w = estimator_landscapes("mmd", n_instances=30, n_repeats=2, resolution=4)
    >>> s.repeat_values.shape, w.repeat_values is None, w.values.shape
    ((15, 2), True, (15,))
    """
    opts = dict(estimator_options or {})
    kw = dict(n_instances=n_instances, n_repeats=n_repeats, resolution=resolution, seed=seed)
    w = weight_landscape(estimator, **kw, **opts)
    return estimator_landscape(estimator, **kw, **opts), dataclasses.replace(w, repeat_values=None)


def estimator_demo_draws(
    n_instances: int,
    *,
    n_classes: int = 10,
    landscape_truth=(0.5, 0.3, 0.2),
    landscape_concentration: float = 50.0,
    landscape_points: int = 500,
    seed=0,
) -> dict:
    r"""The random draws of the chapter's estimator sections, from one generator in the chapter's order.

    From ``numpy.random.default_rng(seed)``: a calibrated predictor,
    :math:`\hat{\mathbf p}_i \sim \mathrm{Dir}(\mathbf 1_K)` (Fig. 5); labels drawn from it; labels drawn from other :math:`\mathrm{Dir}(\mathbf 1_K)` predictions (a
    miscalibrated control for the SKCE kernel table); then ``landscape_points`` distributions
    :math:`\mathrm{Dir}(c\,\mathbf p^*)` around Fig. 6's truth, whose median-heuristic bandwidth is the SKCE's in
    Figs. 6-7. The chapter and its plan (``credalbook.papers.juergens.parts``) both draw them here, so the
    bandwidth a landscape part is computed with is the one the chapter shows.

    Returns
    -------
    dict
        ``probs`` (N, K), ``labels`` (N,), ``labels_miscalibrated`` (N,), ``landscape_sample`` (points, 3).

    Examples
    --------
    >>> d = estimator_demo_draws(5, seed=0)
    >>> d["probs"].shape, d["labels"].shape, d["landscape_sample"].shape
    ((5, 10), (5,), (500, 3))
    >>> bool(np.allclose(d["probs"], np.random.default_rng(0).dirichlet(np.ones(10), size=5)))
    True
    """
    n = check_positive_int(n_instances, "n_instances")
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    truth = np.asarray(landscape_truth, dtype=np.float64)
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(k), size=n)
    labels = np.array([rng.choice(k, p=q) for q in probs])
    labels_mis = np.array([rng.choice(k, p=q) for q in rng.dirichlet(np.ones(k), size=n)])
    sample = rng.dirichlet(
        landscape_concentration * truth, size=check_positive_int(landscape_points, "landscape_points", minimum=2)
    )
    return {"probs": probs, "labels": labels, "labels_miscalibrated": labels_mis, "landscape_sample": sample}


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
    combos = {
        "conditional (λ₁(a)=7/8, λ₁(b)=1/8)": lam_true,
        "marginal (λ₁ ≡ 1/2)": np.full(n, 0.5),
        "not calibrated (λ₁ ≡ 3/4)": np.full(n, 0.75),
    }
    return {
        "features": x[:, None].astype(np.float64),
        "ens_probs": ens,
        "labels": labels,
        "combinations": {k: np.stack([v, 1 - v], axis=1) for k, v in combos.items()},
    }


#: Short names of the three combinations of :func:`calibrated_combinations_example`, in its order.
APP_B_COMBINATIONS = ("conditional", "marginal", "uncalibrated")


@renamed(n_bootstrap="n_resamples")
def combination_rejections(
    combination: str = "conditional",
    *,
    n_instances: int = 1000,
    n_draws: int = 100,
    n_resamples: int = 100,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict:
    r"""App. B: how often the KL test rejects one combination of :func:`calibrated_combinations_example`.

    Draws ``n_draws`` samples (seeds ``seed``, ``seed + 1``, ...) of ``n_instances``, combines the two members
    with the ``combination``'s weights, and tests each sample with the KL estimator against ``n_resamples``
    null replicates (labels redrawn from the combination, the instances kept; seed ``seed``), rejecting when
    the statistic exceeds their :math:`1-\alpha` quantile.

    Parameters
    ----------
    combination : {"conditional", "marginal", "uncalibrated"}
        One of :data:`APP_B_COMBINATIONS`: the true conditional distribution, the marginal, or λ₁ ≡ 3/4.

    Returns
    -------
    dict
        The combination's full name → ``P(Y=1) at a``, ``P(Y=1) at b`` (its predictions), ``mean KL-CE`` and
        ``rejection rate at α = <alpha>``.

    Examples
    --------
    >>> r = combination_rejections("uncalibrated", n_instances=200, n_draws=3, n_resamples=20)
    >>> row = r["not calibrated (λ₁ ≡ 3/4)"]
    >>> round(row["P(Y=1) at a"], 2), round(row["P(Y=1) at b"], 2)
    (0.3, 0.3)
    """
    from credalbook.stats.bootstrap import set_null_distribution

    if combination not in APP_B_COMBINATIONS:
        raise ValueError(f"combination must be one of {APP_B_COMBINATIONS}; got {combination!r}")
    n_draws = check_positive_int(n_draws, "n_draws")
    alpha = check_probability(alpha, "alpha")
    draws = [calibrated_combinations_example(n_instances, seed=seed + r) for r in range(n_draws)]
    name = list(draws[0]["combinations"])[APP_B_COMBINATIONS.index(combination)]
    g = estimator_measure("kl")
    p = np.stack([np.einsum("nmk,nm->nk", d["ens_probs"], d["combinations"][name]) for d in draws])
    y = np.stack([d["labels"] for d in draws])
    null = set_null_distribution(
        p[:, :, None, :], measure=g, n_resamples=n_resamples, resample="permutation", seed=seed
    )
    t = g.func(p, y)
    a = draws[0]["features"][:, 0]
    return {
        name: {
            "P(Y=1) at a": float(p[0][a == 0, 1][0]),
            "P(Y=1) at b": float(p[0][a == 1, 1][0]),
            "mean KL-CE": float(t.mean()),
            f"rejection rate at α = {alpha:g}": float(np.mean(t > np.quantile(null, 1 - alpha, axis=-1))),
        }
    }


def median_heuristic_bandwidth(probs, *, max_points: int = 2000, seed=0) -> float:
    r"""Bandwidth ``h`` of the SKCE's kernel :math:`\exp(-d_{TV}^2 / h)` by the median heuristic.

    ``h`` is the median of :math:`d_{TV}(\hat{\mathbf p}_i, \hat{\mathbf p}_j)^2` over pairs
    :math:`i < j` of predictions (Gretton et al., 2012, Sec. 8: the kernel's scale set to the median
    distance of the data), so that the kernel is :math:`e^{-1}` at the median distance and its values
    spread over (0, 1) instead of collapsing to the identity matrix. The authors' ``h = 10^{-4}``
    (``src/config/config_cal_test.py``, l. 166) is far below this for K = 10 predictions, where
    :math:`d_{TV}` is of order 0.1-0.5: every off-diagonal kernel value is then below
    :math:`e^{-100}` and the statistic is numerically zero (:func:`skce_kernel_summary`).

    Parameters
    ----------
    probs : array (..., K)
        Predictions; all leading axes are pooled.
    max_points : int, default 2000
        At most this many predictions (a random subset drawn with ``seed``) enter the median.
    seed : int

    Examples
    --------
    >>> round(median_heuristic_bandwidth([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), 4)   # d_TV² ∈ {1, 1/4, 1/4}
    0.25
    """
    p = np.asarray(probs, dtype=np.float64)
    p = check_probs(p.reshape(-1, p.shape[-1]), name="probs")
    m = check_positive_int(max_points, "max_points", minimum=2)
    if len(p) < 2:
        raise ValueError("probs must hold at least two predictions")
    if len(p) > m:
        p = p[np.random.default_rng(seed).choice(len(p), size=m, replace=False)]
    from scipy.spatial.distance import pdist

    d2 = (0.5 * pdist(p, "cityblock")) ** 2
    h = float(np.median(d2))
    if not h > 0:
        raise ValueError("the median distance of the predictions is 0 (over half the pairs coincide)")
    return h


def skce_kernel_summary(probs, bandwidths, *, labels=None, max_points: int = 2000, seed=0) -> dict:
    r"""How the SKCE's kernel behaves at each bandwidth: why ``h = 10^{-4}`` is degenerate at K = 10.

    For predictions ``probs`` (N, K), per bandwidth: the largest and the median off-diagonal value of
    :math:`\exp(-d_{TV}^2/h)`, the share of off-diagonal values above 10⁻³, and (with ``labels``) the
    statistic (the linear estimator, as in the tests). A kernel whose off-diagonal values all underflow to ~0 makes
    the statistic ~0 for every predictor, calibrated or not, so a test based on it cannot reject.

    Returns
    -------
    dict
        bandwidth → {"max off-diagonal k", "median off-diagonal k", "share k > 1e-3"[, "SKCE"]}.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = skce_kernel_summary(rng.dirichlet(np.ones(10), 200), [1e-4])
    >>> s[1e-4]["max off-diagonal k"] < 1e-3
    True
    """
    p = np.asarray(probs, dtype=np.float64)
    p = check_probs(p.reshape(-1, p.shape[-1]), name="probs")
    if len(p) > max_points:
        keep = np.random.default_rng(seed).choice(len(p), size=max_points, replace=False)
        p = p[keep]
        labels = None if labels is None else np.asarray(labels)[keep]
    from scipy.spatial.distance import pdist

    d2 = (0.5 * pdist(p, "cityblock")) ** 2
    out = {}
    for h in bandwidths:
        k = np.exp(-d2 / float(h))
        row = {
            "max off-diagonal k": float(k.max()),
            "median off-diagonal k": float(np.median(k)),
            "share k > 1e-3": float(np.mean(k > 1e-3)),
        }
        if labels is not None:
            g = estimator_measure("skce", bandwidth=float(h))
            row["SKCE"] = float(np.asarray(g.func(p, np.asarray(labels))))
        out[float(h)] = row
    return out
