"""Figures of the Jürgens et al. chapter: error rates of the instance-dependent test (Figs. 3-4) and estimator landscapes (App. A-B)."""

from __future__ import annotations

import numpy as np

from credalbook.plotting import axes_or_new, draw_hull_outline, simplex_coordinates

__all__ = ["plot_instance_error_rates", "plot_landscape"]


def plot_instance_error_rates(studies: dict, *, title: str = "", h0_alphas=None, h1_alphas=None):
    """Figs. 3-4 of Jürgens et al.: one panel per hypothesis, the new test solid, Mortier et al.'s dashed.

    ``studies`` maps hypothesis names to :class:`~credalbook.papers.mortier.ErrorRateStudy` objects from
    :func:`~credalbook.papers.juergens.instance_test_error_rates`, or to their
    :class:`~credalbook.papers.mortier.ErrorRateSummary`
    (:func:`~credalbook.papers.juergens.instance_test_error_summary`, which keeps the levels drawn here), with
    tests named ``"<estimator> · new"`` / ``"… · Mortier"``. H0 panels show the Type I error over Mortier et
    al.'s twelve levels, H1 panels the Type II error over the paper's H1 levels. Returns the figure.
    """
    import matplotlib.pyplot as plt

    from credalbook.papers.juergens.error_rates import JUERGENS_H1_ALPHAS
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    if not studies:
        raise ValueError("studies must hold at least one ErrorRateStudy")
    fig, axes = plt.subplots(1, len(studies), figsize=(3.3 * len(studies), 3.2), squeeze=False)
    estimators = []
    for study in studies.values():
        for name in study.measures:
            est = name.split(" · ")[0]
            if est not in estimators:
                estimators.append(est)
    for ax, (hyp, study) in zip(axes[0], studies.items()):
        alphas = np.asarray(
            (PAPER_ALPHAS if h0_alphas is None else h0_alphas)
            if study.is_null
            else (JUERGENS_H1_ALPHAS if h1_alphas is None else h1_alphas),
            dtype=np.float64,
        )
        errors = study.error_rates(alphas)
        for i, name in enumerate(study.measures):
            est, test = name.split(" · ")
            ax.plot(
                alphas,
                errors[i],
                marker="o",
                markersize=3,
                linewidth=1.2,
                color=f"C{estimators.index(est)}",
                linestyle="-" if test == "new" else "--",
                label=name,
            )
        if study.is_null:
            ax.plot([0, 1], [0, 1], color="black", linestyle=":", linewidth=1)
            ax.set_ylabel("Type I error")
            ax.set_xlim(0, 1)
        else:
            ax.set_ylabel("Type II error")
            ax.set_xlim(0, alphas.max() * 1.05)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(r"$\alpha$")
        ax.set_title(f"{hyp} (R = {study.n_datasets})", fontsize=10)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=7, bbox_to_anchor=(0.5, -0.12))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_landscape(landscape, *, ax=None, cmap: str = "viridis", xlabel: str | None = None):
    """Heat map of a :class:`~credalbook.papers.juergens.Landscape` on the 2-simplex (Figs. 6-7).

    The data-generating point is a red dot, the grid minimum a white cross.
    """
    ax = axes_or_new(ax)
    xy = simplex_coordinates(landscape.grid)
    tc = ax.tricontourf(xy[:, 0], xy[:, 1], landscape.values, levels=20, cmap=cmap)
    ax.figure.colorbar(tc, ax=ax, shrink=0.8)
    draw_hull_outline(ax, simplex_coordinates(np.eye(3)))
    t = simplex_coordinates(landscape.truth[None])[0]
    m = simplex_coordinates(landscape.argmin[None])[0]
    ax.plot(*t, "o", color="red", markersize=7, label="truth")
    ax.plot(*m, "x", color="white", markersize=8, mew=2, label="minimum")
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(landscape.estimator if xlabel is None else f"{landscape.estimator} — {xlabel}", fontsize=10)
    return ax
