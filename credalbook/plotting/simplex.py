"""Figures on the probability simplex (K = 3): credal sets of a scenario and samples of a polytope."""

from __future__ import annotations

import numpy as np

from credalbook.plotting.theme import axes_or_new

__all__ = [
    "simplex_coordinates",
    "plot_credal_scenario",
    "draw_hull_outline",
    "plot_polytope_sampling",
    "POLYTOPE_TITLES",
]


def simplex_coordinates(probs) -> np.ndarray:
    """Project points of the 2-simplex (..., 3) onto the plane: e_1 → (0, 0), e_2 → (1, 0), e_3 → (½, √3/2)."""
    p = np.asarray(probs, dtype=np.float64)
    if p.shape[-1] != 3:
        raise ValueError(f"probs must have K = 3 classes to be drawn on the simplex; got shape {p.shape}")
    return np.stack([p[..., 1] + 0.5 * p[..., 2], (np.sqrt(3) / 2) * p[..., 2]], axis=-1)


def plot_credal_scenario(
    scenario, *, dataset: int = 0, instance: int = 0, n_combinations: int = 400, ax=None, seed=None
):
    """Fig. 1 (left) of Mortier et al. (2023): one instance of a K = 3 scenario on the simplex.

    Black stars: the members; S1: red dots, convex combinations with uniform weights (the set the
    ground truth is drawn from); S2/S3: the red segment from the boundary point (blue star) to the
    corner (purple star) on which the ground truth lies, and the grey hull.

    Parameters
    ----------
    scenario : CredalScenario
        With K = 3.
    dataset, instance : int
        Which instance to draw.
    n_combinations : int
        S1: number of random convex combinations drawn as dots.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.synthetic.set_scenarios import credal_scenario
    >>> ax = plot_credal_scenario(credal_scenario("S2", n_instances=2, n_classes=3, u=0.5, seed=0))
    >>> len(ax.lines) > 0
    True
    """
    from scipy.spatial import ConvexHull, QhullError

    from credalbook.credal.geometry import sample_weights

    ax = axes_or_new(ax)
    members = scenario.ens_probs[dataset, instance]
    corners = simplex_coordinates(np.eye(3))
    ax.fill(*corners.T, facecolor="none", edgecolor="black", linewidth=1)
    pts = simplex_coordinates(members)
    try:
        hull = ConvexHull(pts)
        ax.fill(*pts[hull.vertices].T, color="0.8", alpha=0.6, zorder=1, label="credal set")
    except QhullError:  # degenerate (collinear) members: no area to shade
        pass
    if scenario.scenario == "S1":
        combos = simplex_coordinates(sample_weights(len(members), size=n_combinations, seed=seed) @ members)
        ax.scatter(*combos.T, s=4, color="C3", alpha=0.5, zorder=2, label="convex combinations")
        truth = simplex_coordinates(scenario.truth[dataset, instance])
        ax.scatter(*truth, s=60, color="C3", edgecolor="black", zorder=4, label="ground truth")
    else:
        b = simplex_coordinates(scenario.boundary[dataset, instance])
        c = corners[scenario.corner[dataset, instance]]
        ax.plot([b[0], c[0]], [b[1], c[1]], color="C3", linewidth=2, zorder=2, label="ground truth segment")
        ax.scatter(*b, marker="*", s=160, color="C0", edgecolor="black", zorder=4, label="boundary point")
        ax.scatter(*c, marker="*", s=160, color="C4", edgecolor="black", zorder=4, label="corner")
    ax.scatter(*pts.T, marker="*", s=70, color="black", zorder=3, label="members")
    for (x, y), name in zip(corners, ("class 1", "class 2", "class 3")):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(0, 6 if y > 0 else -12), ha="center", fontsize=8)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(scenario.scenario)
    return ax


#: Panel titles of :func:`plot_polytope_sampling`, one per sampling method.
POLYTOPE_TITLES = {
    "weights": "uniform weights λ ~ Dir(1)",
    "triangulation": "uniform in the polytope (triangulation)",
    "hit_and_run": "uniform in the polytope (hit-and-run)",
}


def draw_hull_outline(ax, pts: np.ndarray) -> None:
    """Shade the convex hull of 2-D points; a segment or a point when they are degenerate."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(pts)
        ax.fill(*pts[hull.vertices].T, facecolor="0.85", edgecolor="black", linewidth=1.2, zorder=1)
    except QhullError:  # collinear or coincident members
        centred = pts - pts.mean(axis=0)
        t = centred @ np.linalg.svd(centred, full_matrices=False)[2][0]
        ends = pts[[t.argmin(), t.argmax()]]
        ax.plot(*ends.T, color="black", linewidth=1.2, zorder=1)


def plot_polytope_sampling(
    vertices, n_samples: int = 2000, *, methods=("weights", "triangulation"), seed=None, ax=None
):
    """Fig. 8 of Jürgens et al.: points of a K = 3 credal set drawn by each sampling method.

    One panel per method (see :func:`~credalbook.credal.sample_polytope`): the simplex, the shaded hull
    of the members (black stars) and ``n_samples`` sampled points. With more members than
    vertices of a triangle (e.g. six random members), uniform weights λ ~ Dir(1) pile the points
    up in the centre, while the triangulation spreads them evenly.

    Parameters
    ----------
    vertices : array-like, shape (M, 3)
        The members, rows on the simplex.
    n_samples : int
        Points per panel.
    methods : sequence of {"weights", "triangulation", "hit_and_run"}
        One panel each, in this order; titles from ``POLYTOPE_TITLES``.
    seed : int, numpy Generator or None
        One generator, drawn from by the methods in turn.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes per method; by default a new figure with one row of panels.

    Returns
    -------
    matplotlib Figure

    References
    ----------
    Jürgens, Mortier, Hüllermeier, Bengs, Waegeman. A calibration test for evaluating set-based
    epistemic uncertainty representations. App. C, Fig. 8.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> members = np.random.default_rng(0).dirichlet(np.ones(3), size=6)
    >>> fig = plot_polytope_sampling(members, 500)
    >>> [a.get_title() for a in fig.axes]
    ['uniform weights λ ~ Dir(1)', 'uniform in the polytope (triangulation)']
    """
    import matplotlib.pyplot as plt

    from credalbook._validation import as_rng, check_choice, check_positive_int, check_vertices
    from credalbook.credal.sampling import METHODS, sample_polytope

    v = check_vertices(vertices)
    if v.shape[1] != 3:
        raise ValueError(f"vertices must have K = 3 classes to be drawn on the simplex; got shape {v.shape}")
    methods = [methods] if isinstance(methods, str) else list(methods)
    if not methods:
        raise ValueError("methods must name at least one sampling method")
    for method in methods:
        check_choice(method, "methods", METHODS)
    n_samples = check_positive_int(n_samples, "n_samples")
    rng = as_rng(seed)
    if ax is None:
        fig, axes = plt.subplots(1, len(methods), figsize=(3.8 * len(methods), 3.8), squeeze=False)
        axes = list(axes[0])
    else:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) != len(methods):
            raise ValueError(f"ax must hold one Axes per method ({len(methods)}); got {len(axes)}")
        fig = axes[0].figure
    corners = simplex_coordinates(np.eye(3))
    members = simplex_coordinates(v)
    for i, (panel, method) in enumerate(zip(axes, methods)):
        points = simplex_coordinates(sample_polytope(v, n_samples, method=method, seed=rng))
        panel.fill(*corners.T, facecolor="none", edgecolor="0.4", linewidth=1)
        draw_hull_outline(panel, members)
        panel.scatter(*points.T, s=3, color=f"C{i}", alpha=0.5, linewidths=0, zorder=2)
        panel.scatter(*members.T, marker="*", s=90, color="black", zorder=3)
        panel.set_aspect("equal")
        panel.set_axis_off()
        panel.set_title(POLYTOPE_TITLES[method], fontsize=10)
    if ax is None:
        fig.tight_layout()
    return fig
