"""Figures of the EU paper (Figs. 2-4): carved discs and per-interval EU curves.

Kept apart from :mod:`credalbook.plotting` (the book's theme and shared helpers) to keep modules
small; plot functions take computed results and an ``ax=`` argument and return the axes (or the
figure for multi-panel layouts), as everywhere in the package.
"""

from __future__ import annotations

import numpy as np

from credalbook.papers.report import count_of
from credalbook.plotting import axes_or_new

__all__ = ["EU_CURVE_STYLE", "plot_carved_discs", "plot_eu_intervals", "plot_eu_interval_figure"]

#: Colours of Figs. 3-4 of the EU paper: estimated EU, calibrated EU (yellow), accuracy gain (red).
EU_CURVE_STYLE = {
    "raw": ("C0", "estimated EU"),
    "calibrated": ("#d9a400", "calibrated EU"),
    "gain": ("#b2182b", "accuracy gain"),
}


def plot_carved_discs(
    x, y, split, *, centres=None, radius=None, ax=None, max_points: int = 40000, seed=0, title: str | None = None
):
    """2-D data after carving balls (EU paper, Fig. 2): training points by label, test points black.

    Points of :math:`\\mathcal D_{train}` are coloured by label, the remaining ("aug only") points of
    the balls are light grey, :math:`\\mathcal D_{test}` is black; points in none of the sets (e.g.
    the evaluation discs when `split` is a calibration split) are not drawn. ``centres`` and
    ``radius`` draw the disc outlines. At most ``max_points`` points per set are drawn (a seeded
    random subset). Returns the axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.eu.carving import carve_balls
    >>> x = np.random.default_rng(0).uniform(0, 4, size=(400, 2)); y = (x[:, 0] > 2).astype(int)
    >>> s = carve_balls(x, [[1.0, 1.0]], radius=0.8, p_train=0.3, q_test=0.2)
    >>> len(plot_carved_discs(x, y, s, centres=[[1.0, 1.0]], radius=0.8).patches)
    1
    """
    import matplotlib.patches as mpatches

    from credalbook.papers.eu.carving import BallSplit

    if not isinstance(split, BallSplit):
        raise ValueError(
            f"split must be a BallSplit (from credalbook.papers.eu.carve_balls); got {type(split).__name__}"
        )
    pts, labels = np.asarray(x, dtype=np.float64), np.asarray(y)
    if pts.ndim != 2 or pts.shape[1] != 2 or labels.shape != (pts.shape[0],):
        raise ValueError(f"x must have shape (N, 2) and y shape (N,); got {pts.shape} and {labels.shape}")
    ax = axes_or_new(ax)
    rng = np.random.default_rng(seed)

    def thin(idx):
        return idx if len(idx) <= max_points else np.sort(rng.choice(idx, size=max_points, replace=False))

    train = thin(split.train)
    for k, colour in ((0, "C0"), (1, "C1")):
        sel = train[labels[train] == k]
        ax.scatter(*pts[sel].T, s=1, color=colour, alpha=0.5, linewidths=0, rasterized=True, label=f"train, y = {k}")
    ax.scatter(*pts[thin(split.aug_only)].T, s=1, color="0.75", linewidths=0, rasterized=True, label="aug only")
    ax.scatter(*pts[thin(split.test)].T, s=2, color="black", linewidths=0, rasterized=True, label="test")
    if centres is not None:
        if radius is None:
            raise ValueError("radius must be given with centres")
        for c in np.asarray(centres, dtype=np.float64).reshape(-1, 2):
            ax.add_patch(mpatches.Circle(c, float(radius), fill=False, edgecolor="C3", linewidth=1.2))
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.legend(loc="upper right", fontsize=7, markerscale=5, framealpha=0.9)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def plot_eu_intervals(curves, *, ax=None, show_raw: bool = True, title: str | None = None):
    """Per-interval mean estimated EU, calibrated EU and accuracy gain, ±1 sd over seeds (Figs. 3-4).

    ``curves`` is an :class:`~credalbook.papers.eu.EUIntervalCurves` (``study.curves("M")``); the x axis is the
    interval number (1 = lowest estimates), the lines are means over seeds and the bands ±1 standard
    deviation, joined by straight lines as in the paper. ``show_raw=False`` leaves out the raw
    estimates (the paper omits them for :math:`\\hat{\\mathcal E}_E`, whose scale distorts the plot).
    Returns the axes.
    """
    from credalbook.papers.eu.experiments import EUIntervalCurves

    if not isinstance(curves, EUIntervalCurves):
        raise ValueError(f"curves must be an EUIntervalCurves (from EUStudy.curves); got {type(curves).__name__}")
    ax = axes_or_new(ax)
    xs = np.arange(1, curves.gain.shape[1] + 1)
    for which in ("raw", "calibrated", "gain") if show_raw else ("calibrated", "gain"):
        colour, label = EU_CURVE_STYLE[which]
        mean, sd = curves.mean(which), curves.sd(which)
        ax.plot(xs, mean, color=colour, marker="o", markersize=3, linewidth=1.5, label=label)
        ax.fill_between(xs, mean - sd, mean + sd, color=colour, alpha=0.2, linewidth=0)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("interval of the estimated EU")
    ax.set_ylabel("average over the interval")
    ax.set_title(
        title or f"$\\hat{{\\mathcal{{E}}}}_{curves.estimator}$ ({count_of(curves.raw.shape[0], 'seed')})", fontsize=10
    )
    ax.legend(fontsize=7)
    return ax


def plot_eu_interval_figure(study, *, show_raw=("M",), title: str = ""):
    """Fig. 3/4 layout: one :func:`plot_eu_intervals` panel per estimator of an :class:`~credalbook.papers.eu.EUStudy`.

    ``show_raw`` names the estimators whose raw estimates are drawn (default only Ê_M, as the paper).
    Returns the figure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6))
    names = {"M": "mutual information", "E": "entropy"}
    for ax, k in zip(axes, ("M", "E")):
        plot_eu_intervals(
            study.curves(k),
            ax=ax,
            show_raw=k in show_raw,
            title=f"$\\hat{{\\mathcal{{E}}}}_{k}$ ({names[k]}), {count_of(len(study.runs), 'seed')}",
        )
    fig.suptitle(title or study.name)
    fig.tight_layout()
    return fig
