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
import math
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed
from credalbook._random import dirichlet, draw_labels
from credalbook._validation import check_positive_int, check_probability, check_probs
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
