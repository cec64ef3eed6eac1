"""Plotting: one seaborn theme and reliability diagrams.

Compute functions never plot; plot functions take their results and an ``ax=`` argument
(as scikit-learn's ``calibration_curve`` vs ``CalibrationDisplay``) and return the axes.
"""

from __future__ import annotations

import numpy as np

from credalbook.metrics import ReliabilityCurve

__all__ = ["set_theme", "PALETTE", "plot_reliability_diagram", "plot_rejection_rates"]

#: Colour-blind-safe palette used throughout the book.
PALETTE = "colorblind"


def set_theme(*, context: str = "notebook", font_scale: float = 1.0) -> None:
    """Apply the book's seaborn theme (white grid, colour-blind palette, 110 dpi figures)."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context=context, style="whitegrid", palette=PALETTE, font_scale=font_scale)
    mpl.rcParams.update({"figure.dpi": 110, "savefig.bbox": "tight", "axes.titleweight": "bold"})


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(4.2, 4.2))
    return ax


def plot_reliability_diagram(curve: ReliabilityCurve, *, ax=None, label: str | None = None, show_counts: bool = True,
                             color=None):
    """Draw a reliability diagram from a :class:`~credalbook.metrics.ReliabilityCurve`.

    Bars show the observed frequency (accuracy for confidence diagrams) of each non-empty bin at
    its mean predicted value, the diagonal marks perfect calibration, and the red segments the gap
    weighted into the ECE. With ``show_counts`` a histogram of bin counts is drawn along the bottom.

    Parameters
    ----------
    curve : ReliabilityCurve
    ax : matplotlib Axes, optional
    label : str, optional
        Legend label; defaults to the curve's ECE.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.metrics import reliability_curve
    >>> ax = plot_reliability_diagram(reliability_curve([[0.9, 0.1], [0.3, 0.7]], [0, 0], n_bins=5))
    >>> [float(v) for v in ax.get_xlim()]
    [0.0, 1.0]
    """
    if not isinstance(curve, ReliabilityCurve):
        raise ValueError(f"curve must be a ReliabilityCurve (from credalbook.reliability_curve); got {type(curve).__name__}")
    ax = _axes(ax)
    edges = curve.bin_edges
    width = np.diff(edges)
    nonempty = curve.counts > 0
    centers = (edges[:-1] + edges[1:]) / 2
    if label is None:
        label = f"ECE = {curve.calibration_error:.3f}"
    ax.bar(centers[nonempty], curve.observed[nonempty], width=width[nonempty] * 0.9, color=color,
           alpha=0.75, edgecolor="black", linewidth=0.5, label=label)
    ax.vlines(curve.mean_predicted[nonempty], curve.observed[nonempty], curve.mean_predicted[nonempty],
              colors="tab:red", linewidth=2)
    ax.plot([0, 1], [0, 1], color="gray", linestyle="--", linewidth=1)
    if show_counts and curve.counts.sum() > 0:
        frac = curve.counts / curve.counts.sum()
        ax.bar(centers, 0.25 * frac / frac.max(), width=width * 0.9, bottom=0, color="gray", alpha=0.35)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    if curve.kind == "confidence":
        ax.set_xlabel("confidence $c_i$")
        ax.set_ylabel("accuracy")
    else:
        which = "all classes" if curve.class_index is None else f"class {curve.class_index}"
        ax.set_xlabel(rf"predicted probability $\hat p_{{ik}}$ ({which})")
        ax.set_ylabel("observed frequency")
    ax.legend(loc="upper left", frameon=True)
    return ax


def plot_rejection_rates(rates: dict, *, alpha: float, n_datasets: int, ax=None, band: float = 0.95):
    """Bar chart of empirical rejection rates under H0 with the binomial band around ``alpha``.

    Parameters
    ----------
    rates : dict of str to float
        Label → fraction of the ``n_datasets`` null datasets on which the test rejected.
    alpha : float
        Nominal level (dashed line).
    n_datasets : int
        Number of simulated datasets; sets the width of the shaded ``band`` (binomial quantiles).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_rejection_rates({"valid": 0.05, "liberal": 0.3}, alpha=0.05, n_datasets=200)
    >>> len(ax.patches) >= 2
    True
    """
    from scipy import stats

    if not rates:
        raise ValueError("rates must contain at least one entry")
    ax = _axes(ax)
    lo, hi = stats.binom.ppf([(1 - band) / 2, (1 + band) / 2], n_datasets, alpha) / n_datasets
    names = list(rates)
    ax.axhspan(lo, hi, color="gray", alpha=0.25, label=f"{band:.0%} binomial band, n = {n_datasets}")
    ax.axhline(alpha, color="black", linestyle="--", linewidth=1, label=rf"$\alpha$ = {alpha:g}")
    ax.bar(range(len(names)), [rates[n] for n in names], color=[f"C{i}" for i in range(len(names))], alpha=0.85)
    ax.set_xticks(range(len(names)), names, rotation=15, ha="right")
    ax.set_ylabel("rejection rate under $H_0$ (Type I error)")
    ax.legend(loc="upper right")
    return ax
