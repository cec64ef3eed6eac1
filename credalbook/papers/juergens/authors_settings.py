r"""The authors' binary GP generator, transcribed (mkjuergens/EnsembleCalibration@8dff2b5,
``src/data/synthetic/gp_binary.py``), and the settings their runner used for Figs. 3-4.

:func:`authors_binary_scenario` draws datasets as their ``exp_gp`` does: :math:`x \sim U(0, 5)`, two members
whose class-0 probabilities are GP draws (kernel :math:`\exp(-(x-x')^2)`, scikit-learn's ``rbf_kernel``)
min-max rescaled into [0.5, 0.8] and [0.7, 0.9] (``src/config/config_cal_test.py``, l. 25), and a truth

* ``"H0-const"``: :math:`\lambda p_1 + (1-\lambda) p_2` with one :math:`\lambda \sim U(0, 1)` per dataset;
* ``"H0-inst"``: :math:`\lambda(x)` the degree-2 least-squares polynomial through :math:`(x_i, u_i)`,
  :math:`u_i \sim U(0, 1)`, min-max rescaled into [0, 1] (``src/utils/helpers.py``, ``sample_function``);
* ``"H1-1"`` (their ``setting=1``, ``gp_binary.py``, l. 149-154): member 0 minus one
  :math:`\epsilon \sim U(0, 0.05)` when the members lie further from 0 than from 1 (as here), else member 1
  plus ε. Where member 1 lies below member 0 − ε this point is *inside* the hull;
* ``"H1-2"`` (``setting=2``): a new GP draw rescaled into :math:`[d_0/2, p_{\min} - 10^{-4}]`;
* ``"H1-3"`` (any other ``setting``, ``gp_binary.py``, l. 162-164): a new GP draw rescaled into
  :math:`[0, p_{\min}]`, :math:`p_{\min}` the smallest member probability of the dataset — the far
  alternative. Their runner passes ``setting=None`` for every H1 panel (``src/run_t1t2_analysis.py``,
  l. 251-263; ``src/data/experiments_cal_test.py``, l. 47-56 does not pass the distance to the binary
  generator), so all three H1 panels of their Fig. 3 are draws of this one scenario.

The GP draws are made on a grid of 256 points of [0, 5] and interpolated at the x's (as
:func:`~credalbook.synthetic.instance_scenario` does; the authors factor the N × N covariance).

:data:`AUTHORS_FIG34_SETTINGS` lists the other settings of their runner that differ from the book's.
"""

from __future__ import annotations

import numpy as np

from credalbook._random import dirichlet, draw_labels
from credalbook._validation import as_rng, check_choice, check_positive_float, check_positive_int
from credalbook.credal.geometry import boundary_point
from credalbook.synthetic.instance_scenarios import HYPOTHESES, INSTANCE_SETTINGS, InstanceScenario

__all__ = ["AUTHORS_FIG34_SETTINGS", "AUTHORS_LEARNER", "authors_binary_scenario", "authors_multiclass_scenario"]

#: The members' intervals of the binary setting (``src/config/config_cal_test.py``, l. 25).
AUTHORS_BOUNDS = ((0.5, 0.8), (0.7, 0.9))
#: The λ-network of the arXiv v1 runner for Figs. 3-4 (``src/run_t1t2_analysis.py``, l. 324-334): width 16,
#: learning rate 1e-4, 250 epochs.
AUTHORS_LEARNER = {"hidden": (16, 16, 16), "lr": 1e-4, "max_epochs": 250}
#: How the authors' runner of Figs. 3-4 differs from the book's settings, each with its source (the rows' notes
#: quote these; the named variants of the chapter's plan use the first two).
AUTHORS_FIG34_SETTINGS = {
    "learner": "λ-network width 16, lr 1e-4, 250 epochs (src/run_t1t2_analysis.py, l. 324-334); book 32, 1e-3, 300",
    "bandwidths": "bandwidth 0.01 for L2, KL and MMD (src/config/config_cal_test.py, l. 87, 114, 140); book MMD 0.1",
    "binary alternative": "setting=None in every H1 panel: the far alternative (src/run_t1t2_analysis.py, "
    "l. 251-263; src/data/synthetic/gp_binary.py, l. 162-164); book: three distances from the envelope",
    "multi-class generator": "members constant in x from one prior, H0 weights drawn per instance "
    "(src/data/synthetic/multiclass_dirichlet_new.py, l. 67-72; src/utils/helpers.py, l. 176-179); "
    "book: per-instance members, weights per dataset",
    "Mortier baseline": "'v0': the minimum over a constant λ on the split it tests on (src/utils/minimization.py, "
    "l. 134-147), null with instances drawn with replacement, a Dir(1) λ per instance, three decimals kept "
    "(src/cal_test/bootstrap_test.py, l. 314-330); book: one λ per replicate, instances kept "
    "(both run in the authors-settings studies)",
}
_GRID = 256
_X_RANGE = (0.0, 5.0)
_EPS_MAX = 0.05
_EPS_GAP = 1e-4


def _gp(rng, x, n_draws):
    """(R, n_draws, N) GP draws at x (R, N), min-max rescaled into [0, 1] over the draw's own points."""
    g = np.linspace(*_X_RANGE, _GRID)
    vals, vecs = np.linalg.eigh(np.exp(-((g[:, None] - g[None, :]) ** 2)))
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    draws = np.einsum("gh,rdh->rdg", root, rng.standard_normal((x.shape[0], n_draws, _GRID)))
    at_x = np.stack([np.stack([np.interp(xi, g, d) for d in dr]) for xi, dr in zip(x, draws)])
    lo, hi = at_x.min(-1, keepdims=True), at_x.max(-1, keepdims=True)
    return (at_x - lo) / (hi - lo)


def _polynomial_weights(rng, x):
    """``sample_function(x, deg=2)``: the quadratic fit to U(0, 1) values at x, min-max rescaled into [0, 1]."""
    lam = np.empty_like(x)
    for i, xi in enumerate(x):
        y = np.polyval(np.polyfit(xi, rng.uniform(size=xi.size), 2), xi)
        lam[i] = (y - y.min()) / (y.max() - y.min())
    return lam


def _alternative(rng, x, p0, hypothesis):
    """The authors' ``sample_pbar_h1``: class-0 probabilities of the truth (R, N)."""
    p_min, p_max = p0.min(axis=(1, 2))[:, None], p0.max(axis=(1, 2))[:, None]
    below = p_min > 1 - p_max  # further from 0 than from 1: the truth goes below the members
    if hypothesis == "H1-1":
        eps = rng.uniform(0, _EPS_MAX, size=(x.shape[0], 1))
        return np.where(below, p0[:, 0] - eps, p0[:, 1] + eps)
    if hypothesis == "H1-2":
        lo = np.where(below, p_min / 2, p_max + _EPS_GAP)
        hi = np.where(below, p_min - _EPS_GAP, 1 - (1 - p_max) / 2)
    else:
        lo, hi = np.where(below, 0.0, p_max), np.where(below, p_min, 1.0)
    return lo + (hi - lo) * _gp(rng, x, 1)[:, 0]


def authors_binary_scenario(
    hypothesis: str, *, n_datasets: int = 100, n_instances: int = 2000, seed=None
) -> InstanceScenario:
    r"""R datasets of the authors' binary GP generator (``exp_gp``; see the module docstring).

    Parameters
    ----------
    hypothesis : {"H0-const", "H0-inst", "H1-1", "H1-2", "H1-3"}
        H1-1, H1-2, H1-3: the authors' ``setting`` 1, 2 and None.
    n_datasets : int, default 100
    n_instances : int, default 2000
    seed : int, numpy Generator or None

    Returns
    -------
    InstanceScenario
        ``setting="binary"``; ``config["generator"] == "authors"``.

    Examples
    --------
    >>> sc = authors_binary_scenario("H1-3", n_datasets=3, n_instances=200, seed=0)
    >>> sc.ens_probs.shape, bool((sc.truth[..., 0] <= sc.ens_probs[..., 0].min(-1) + 1e-12).all())
    ((3, 200, 2, 2), True)
    """
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    r = check_positive_int(n_datasets, "n_datasets")
    n = check_positive_int(n_instances, "n_instances", minimum=4)
    rng = as_rng(seed)
    x = rng.uniform(*_X_RANGE, size=(r, n))
    lo = np.array([b[0] for b in AUTHORS_BOUNDS])[None, :, None]
    hi = np.array([b[1] for b in AUTHORS_BOUNDS])[None, :, None]
    p0 = lo + (hi - lo) * _gp(rng, x, 2)  # class-0 probabilities (R, M, N)
    weights = None
    if hypothesis == "H0-const":
        lam = np.broadcast_to(rng.uniform(size=(r, 1)), x.shape)
    elif hypothesis == "H0-inst":
        lam = _polynomial_weights(rng, x)
    if hypothesis.startswith("H0"):
        weights = np.stack([lam, 1 - lam], axis=-1)
        t0 = lam * p0[:, 0] + (1 - lam) * p0[:, 1]
    else:
        t0 = np.clip(_alternative(rng, x, p0, hypothesis), 0.0, 1.0)
    ens = np.stack([p0, 1 - p0], axis=-1).transpose(0, 2, 1, 3)  # (R, N, M, 2)
    truth = np.stack([t0, 1 - t0], axis=-1)
    labels = draw_labels(truth, rng)
    config = dict(setting="binary", hypothesis=hypothesis, n_datasets=r, n_instances=n, generator="authors")
    return InstanceScenario(x[..., None], ens, labels, truth, weights, "binary", hypothesis, config)


#: The distances of the multi-class H1 panels (``degs_h1``, ``src/run_t1t2_analysis.py``, l. 251).
AUTHORS_H1_DEGREES = (0.02, 0.1, 0.15)
#: Upper end of the intervals of the H0-inst weights' scores (``sample_lambda``'s ``variance``,
#: ``src/utils/helpers.py``, l. 159).
_SCORE_RANGE = 5.0


def _multiclass_weights(rng, x, hypothesis, m):
    """``sample_lambda`` (``helpers.py``, l. 154-181): (R, N, M) weights of the convex combination."""
    r, n = x.shape
    if hypothesis == "H0-const":  # x_dep=False: a Dir(1) draw per instance
        return dirichlet(np.ones(m), rng, (r, n))
    scores = np.empty((r, n, m))
    for i, xi in enumerate(x):
        for j in range(m):
            y = np.polyval(np.polyfit(xi, rng.uniform(size=n), 2), xi)
            a, b = rng.uniform(0, _SCORE_RANGE, size=2)  # ab_scale into [a, b]; a > b reverses the curve
            scores[i, :, j] = (b - a) * (y - y.min()) / (y.max() - y.min()) + a
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


def authors_multiclass_scenario(
    hypothesis: str,
    *,
    n_datasets: int = 100,
    n_instances: int = 2000,
    n_members: int = INSTANCE_SETTINGS["multiclass"]["n_members"],
    n_classes: int = INSTANCE_SETTINGS["multiclass"]["n_classes"],
    u: float = INSTANCE_SETTINGS["multiclass"]["u"],
    seed=None,
) -> InstanceScenario:
    r"""R datasets of the authors' multi-class Dirichlet generator (``syn_exp_multiclass``).

    Transcribes mkjuergens/EnsembleCalibration@8dff2b5, ``src/data/synthetic/multiclass_dirichlet_new.py``:
    per dataset one prior :math:`\mathbf a_0 \sim \mathrm{Dir}(\mathbf 1_K)` and M members
    :math:`\hat{\mathbf p}^{(m)} \sim \mathrm{Dir}(\mathbf a_0 K / u)`, **constant in x** (l. 67-72: one draw
    per member, repeated for every instance). The truth:

    * ``"H0-const"`` (their ``x_dep=False``): :math:`\sum_m \lambda_{im} \hat{\mathbf p}^{(m)}` with a
      :math:`\boldsymbol\lambda_i \sim \mathrm{Dir}(\mathbf 1_M)` drawn **per instance**, independent of x
      (``src/utils/helpers.py``, l. 176-179);
    * ``"H0-inst"`` (``x_dep=True``): :math:`\boldsymbol\lambda(x) = \mathrm{softmax}_m(s_m(x))`,
      :math:`s_m` the degree-2 least-squares polynomial through :math:`(x_i, u_i)`, :math:`u_i \sim U(0, 1)`,
      min-max rescaled into :math:`[a_m, b_m]` with :math:`a_m, b_m \sim U(0, 5)` (``helpers.py``,
      l. 164-174, 238-254; :math:`a_m > b_m` turns the curve upside down, as there);
    * ``"H1-1/2/3"`` (``sample_p_bar_h1_deg``, l. 115-128, with ``deg`` 0.02, 0.1, 0.15): one class c per dataset,
      :math:`\mathbf p_b` where the segment from the prior's mean :math:`\mathbf a_0` to :math:`\mathbf e_c`
      leaves the hull on their grid of 100 points (``get_boundary``, ``src/utils/polytope.py``, l. 120-185;
      :math:`\mathbf a_0` itself when it lies outside the hull), and the truth
      :math:`\deg\,\mathbf e_c + (1-\deg)\,\mathbf p_b`, the same for every instance.

    Parameters
    ----------
    hypothesis : {"H0-const", "H0-inst", "H1-1", "H1-2", "H1-3"}
    n_datasets : int, default 100
    n_instances : int, default 2000
    n_members, n_classes : int, default 10
        M and K: the paper's App. D.1 and the runner's defaults (``src/run_t1t2_analysis.py``, l. 322-323; its
        ``config_dirichlet_mlp`` has 5 and 5, ``src/config/config_cal_test.py``, l. 553-569).
    u : float, default 0.1
        ``uncertainty`` (``syn_exp_multiclass``'s default, which the runner keeps).
    seed : int, numpy Generator or None

    Returns
    -------
    InstanceScenario
        ``setting="multiclass"``; ``config["generator"] == "authors"``.

    Examples
    --------
    >>> sc = authors_multiclass_scenario("H0-const", n_datasets=2, n_instances=30, seed=0)
    >>> sc.ens_probs.shape, bool(np.ptp(sc.ens_probs, axis=1).max() == 0)
    ((2, 30, 10, 10), True)
    >>> bool(np.allclose(np.einsum("rnmk,rnm->rnk", sc.ens_probs, sc.weights), sc.truth))
    True
    """
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    r = check_positive_int(n_datasets, "n_datasets")
    n = check_positive_int(n_instances, "n_instances", minimum=4)
    m = check_positive_int(n_members, "n_members", minimum=2)
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    u = check_positive_float(u, "u")
    rng = as_rng(seed)
    x = rng.uniform(*_X_RANGE, size=(r, n))
    a0 = dirichlet(np.ones(k), rng, (r,))
    members = _members(rng, a0, k, u, m)
    ens = np.broadcast_to(members[:, None], (r, n, m, k)).copy()
    weights = None
    if hypothesis.startswith("H0"):
        weights = _multiclass_weights(rng, x, hypothesis, m)
        truth = np.einsum("rnmk,rnm->rnk", ens, weights)
    else:
        deg = AUTHORS_H1_DEGREES[int(hypothesis[-1]) - 1]
        corner = np.eye(k)[rng.integers(0, k, size=r)]
        pb = boundary_point(members, a0, corner, method="grid", n_grid=100).point
        t = deg * corner + (1 - deg) * pb
        truth = np.broadcast_to((t / t.sum(-1, keepdims=True))[:, None], (r, n, k)).copy()
    labels = draw_labels(truth, rng)
    config = dict(
        setting="multiclass",
        hypothesis=hypothesis,
        n_datasets=r,
        n_instances=n,
        n_members=m,
        n_classes=k,
        u=u,
        generator="authors",
    )
    return InstanceScenario(x[..., None], ens, labels, truth, weights, "multiclass", hypothesis, config)


def _members(rng, a0, k, u, m):
    """(R, M, K): M draws of Dir(a0 K / u) per dataset."""
    return dirichlet(np.broadcast_to(a0[:, None, :] * k / u, (a0.shape[0], m, k)), rng)
