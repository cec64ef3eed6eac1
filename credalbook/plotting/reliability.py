"""Reliability diagrams: a curve's bars and gaps, its consistency band, and the display that computes both.

Compute functions never plot; :func:`plot_reliability_diagram` takes a
:class:`~credalbook.metrics.ReliabilityCurve` and an ``ax=`` argument and returns the axes, and
:class:`ReliabilityDisplay` computes the curve(s) and bands of predictions and draws them (as scikit-learn's
``calibration_curve`` vs ``CalibrationDisplay``).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from credalbook._deprecation import REMOVED_IN, renamed
from credalbook.metrics.reliability import ReliabilityCurve
from credalbook.plotting.theme import axes_or_new

__all__ = ["plot_reliability_diagram", "draw_consistency_band", "ReliabilityDisplay", "MAX_CLASS_PANELS"]


def plot_reliability_diagram(
    curve: ReliabilityCurve, *, ax=None, label: str | None = None, show_counts: bool = True, color=None
):
    """Draw a reliability diagram from a :class:`~credalbook.metrics.ReliabilityCurve`.

    Bars show the observed frequency (accuracy for confidence diagrams) of each non-empty bin at
    its mean predicted value, the diagonal marks perfect calibration, and the red segments the gap
    weighted into the ECE. With ``show_counts`` a histogram of bin counts is drawn along the bottom.
    The curve of binary scores (``reliability_curve(p, labels)`` with ``p`` of shape (N,)) is that of
    P(y = 1), and its axes say so.

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
    >>> from credalbook.metrics.reliability import reliability_curve
    >>> ax = plot_reliability_diagram(reliability_curve([[0.9, 0.1], [0.3, 0.7]], [0, 0], n_bins=5))
    >>> [float(v) for v in ax.get_xlim()]
    [0.0, 1.0]
    >>> plot_reliability_diagram(reliability_curve([0.9, 0.3], [1, 0], n_bins=5)).get_xlabel()
    'mean predicted P(y = 1)'
    """
    if not isinstance(curve, ReliabilityCurve):
        raise ValueError(
            f"curve must be a ReliabilityCurve (from credalbook.metrics.reliability_curve); got {type(curve).__name__}"
        )
    ax = axes_or_new(ax)
    edges = curve.bin_edges
    width = np.diff(edges)
    nonempty = curve.counts > 0
    centers = (edges[:-1] + edges[1:]) / 2
    if label is None:
        label = f"ECE = {curve.calibration_error:.3f}"
    ax.bar(
        centers[nonempty],
        curve.observed[nonempty],
        width=width[nonempty] * 0.9,
        color=color,
        alpha=0.75,
        edgecolor="black",
        linewidth=0.5,
        label=label,
    )
    ax.vlines(
        curve.mean_predicted[nonempty],
        curve.observed[nonempty],
        curve.mean_predicted[nonempty],
        colors="tab:red",
        linewidth=2,
    )
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
    elif curve.binary and curve.class_index is not None:
        ax.set_xlabel(f"mean predicted P(y = {curve.class_index})")
        ax.set_ylabel(f"fraction of y = {curve.class_index}")
    else:
        which = "all classes" if curve.class_index is None else f"class {curve.class_index}"
        ax.set_xlabel(rf"predicted probability $\hat p_{{ik}}$ ({which})")
        ax.set_ylabel("observed frequency")
    ax.legend(loc="upper left", frameon=True)
    return ax


@renamed(bands="band")
def draw_consistency_band(ax, band, *, color="C1", label: str | None = None):
    """Shade a :class:`~credalbook.metrics.ConsistencyBands` ``band`` around the diagonal: from ``low`` to
    ``high`` at each non-empty bin's mean prediction (Bröcker & Smith 2007); returns the PolyCollection."""
    ok = np.isfinite(band.mean_predicted) & np.isfinite(band.low) & np.isfinite(band.high)
    if label is None:
        label = f"{band.ci:.0%} consistency band"
    return ax.fill_between(
        band.mean_predicted[ok],
        band.low[ok],
        band.high[ok],
        color=color,
        alpha=0.35,
        linewidth=0,
        label=label,
        zorder=2.5,
    )


#: Most panels :meth:`ReliabilityDisplay.from_predictions` draws for ``kind="classwise"`` without ``class_index``.
MAX_CLASS_PANELS = 25


class ReliabilityDisplay:
    """Reliability diagram with consistency bands and a counts histogram (as scikit-learn's ``CalibrationDisplay``).

    Build it with :meth:`from_predictions` (computes and plots), or from a curve you computed
    (:func:`credalbook.metrics.reliability_curve`, :func:`credalbook.metrics.consistency_bands`)
    and call :meth:`plot`.

    Parameters
    ----------
    curve : ReliabilityCurve or sequence of ReliabilityCurve
        One panel per curve (a sequence: one per class).
    band : ConsistencyBands, sequence of them (one per curve), or None
        The consistency band(s) to draw (``bands`` is its old name).
    name : str, optional
        The model's name, in the legend.

    Attributes
    ----------
    curve, band, name
        As given (a single curve / band, or tuples of them).
    ax_ : matplotlib Axes, or ndarray of Axes (one per class)
        Set by :meth:`plot`.
    figure_ : matplotlib Figure
        Set by :meth:`plot`.

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting 22,
    651-661, 2007 (consistency bars). scikit-learn's ``sklearn.calibration.CalibrationDisplay`` (the
    display pattern).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=500)
    >>> y = (rng.random(500)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    >>> d = ReliabilityDisplay.from_predictions(p, y, n_bins=10, n_resamples=200, seed=0)
    >>> d.curve.kind, d.band.ci, len(d.ax_.collections)   # the gaps and the band
    ('confidence', 0.95, 2)

    Binary scores P(y = 1) (shape (N,)) draw the diagram of P(y = 1):

    >>> s = rng.random(400)
    >>> d = ReliabilityDisplay.from_predictions(s, rng.random(400) < s, n_resamples=200, seed=0)
    >>> d.curve.kind, d.curve.class_index, d.ax_.get_xlabel()
    ('classwise', 1, 'mean predicted P(y = 1)')
    """

    @renamed(bands="band")
    def __init__(self, curve, band=None, *, name: str | None = None):
        many = isinstance(curve, (list, tuple))
        curves = tuple(curve) if many else (curve,)
        if not curves or not all(isinstance(c, ReliabilityCurve) for c in curves):
            raise ValueError(
                "curve must be a ReliabilityCurve (from credalbook.metrics.reliability_curve) "
                f"or a non-empty sequence of them; got {curve!r}"
            )
        if band is not None:
            band_list = tuple(band) if isinstance(band, (list, tuple)) else (band,)
            if len(band_list) != len(curves) or not all(hasattr(b, "low") and hasattr(b, "high") for b in band_list):
                raise ValueError(f"band must be a ConsistencyBands per curve ({len(curves)}); got {band!r}")
        self.curve = curves if many else curves[0]
        self.band = band if band is None or not many else tuple(band)
        self.name = name
        self.ax_ = None
        self.figure_ = None

    @property
    def bands(self):
        """Old name of ``band`` (FutureWarning)."""
        warnings.warn(
            f"ReliabilityDisplay.bands was renamed to ReliabilityDisplay.band in 0.6; 'bands' will be "
            f"removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        return self.band

    @classmethod
    @renamed(bands="ci")
    def from_predictions(
        cls,
        probs,
        labels,
        *,
        kind: str | None = None,
        class_index: int | None = None,
        strategy: str = "uniform",
        n_bins: int = 15,
        ci: float | None = 0.95,
        n_resamples: int = 1000,
        seed=None,
        show_counts: bool = True,
        ax=None,
        name: str | None = None,
    ) -> ReliabilityDisplay:
        """Compute the reliability curve(s) and consistency bands of ``probs`` and ``labels``, and plot them.

        Parameters
        ----------
        probs : array-like or tensor, shape (N, K), or (N,) binary scores P(y = 1)
            Binary scores (as scikit-learn's ``predict_proba(X)[:, 1]``) are the two-class rows ``[1 - p, p]``.
        labels : array-like or tensor of int, shape (N,) (0/1 or bools for binary scores)
        kind : {"confidence", "classwise"} or None, default None
            None: ``"confidence"`` for (N, K) rows, and for binary scores the diagram of P(y = 1)
            (``"classwise"`` with ``class_index=1``, as scikit-learn's ``CalibrationDisplay``).
            ``"classwise"`` draws one panel per class, or only ``class_index``; ``"top_label"`` is an old
            spelling of ``"confidence"``.
        class_index : int, optional
            With ``kind="classwise"``: the one class to draw.
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins.
        n_bins : int, default 15
        ci : float in (0, 1) or None, default 0.95
            The level of the consistency bands; None draws none (``bands`` is its old name).
        n_resamples : int, default 1000
            Resamples of the bands.
        seed : None, int, SeedSequence or Generator
            Seed of the bands.
        show_counts : bool, default True
            Draw the histogram of bin counts.
        ax : matplotlib Axes, or a sequence of K Axes (per-class panels), optional
        name : str, optional

        Returns
        -------
        ReliabilityDisplay
        """
        from credalbook._validation import (
            as_rng,
            check_n_bins,
            check_positive_int,
            check_probability,
            check_probs_labels,
            is_binary_scores,
        )
        from credalbook.metrics.binning import check_strategy
        from credalbook.metrics.consistency import curve_and_band
        from credalbook.metrics.reliability import check_class_index, default_kind

        binary = is_binary_scores(probs)
        kind, class_index = default_kind(kind, class_index, binary, "ReliabilityDisplay.from_predictions")
        strategy = check_strategy(strategy, "ReliabilityDisplay.from_predictions")
        n_bins = check_n_bins(n_bins)
        if ci is not None:
            ci = check_probability(ci, "ci")
            n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
        if not isinstance(show_counts, (bool, np.bool_)):
            raise ValueError(f"show_counts must be True or False; got {show_counts!r}")
        p, y = check_probs_labels(probs, labels)
        if p.ndim != 2:
            raise ValueError(f"probs must have shape (N, K) for a reliability diagram; got shape {p.shape}")
        per_class = kind == "classwise" and class_index is None
        if per_class and p.shape[1] > MAX_CLASS_PANELS:
            raise ValueError(
                f"kind='classwise' draws one panel per class, at most {MAX_CLASS_PANELS}; got K = "
                f"{p.shape[1]} classes (pass class_index= to draw one)"
            )
        check_class_index(class_index, kind, p.shape[1])
        indices = list(range(p.shape[1])) if per_class else [class_index]
        rng = None if ci is None else as_rng(seed)
        pairs = [curve_and_band(p, y, kind, c, n_bins, strategy, ci, n_resamples, rng) for c in indices]
        curves = [dataclasses.replace(curve, binary=binary) for curve, _ in pairs]
        band_list = None if ci is None else [band for _, band in pairs]
        display = cls(
            curves if per_class else curves[0],
            None if band_list is None else (band_list if per_class else band_list[0]),
            name=name,
        )
        return display.plot(ax=ax, show_counts=show_counts)

    def plot(self, *, ax=None, name: str | None = None, show_counts: bool = True) -> ReliabilityDisplay:
        """Draw the diagram(s): bars of the observed frequencies, the gaps, the diagonal, the consistency band
        and (``show_counts``) the counts histogram. Sets ``ax_`` and ``figure_``; returns ``self``."""
        name = self.name if name is None else name
        curves = self.curve if isinstance(self.curve, tuple) else (self.curve,)
        bands = (self.band if isinstance(self.band, tuple) else (self.band,)) if self.band is not None else None
        many = isinstance(self.curve, tuple)
        if many:
            if ax is None:
                import matplotlib.pyplot as plt

                ncols = min(len(curves), 5)
                nrows = -(-len(curves) // ncols)
                fig, grid = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 3.4 * nrows), squeeze=False)
                for extra in grid.ravel()[len(curves) :]:
                    extra.set_axis_off()
                axes = grid.ravel()[: len(curves)]
            else:
                axes = np.ravel(np.asarray(ax, dtype=object))
                if len(axes) != len(curves):
                    raise ValueError(f"ax must hold one Axes per class ({len(curves)}); got {len(axes)}")
        else:
            axes = np.array([axes_or_new(ax)], dtype=object)
        for i, (panel, curve) in enumerate(zip(axes, curves)):
            label = f"ECE = {curve.calibration_error:.3f}"
            plot_reliability_diagram(
                curve, ax=panel, label=label if name is None else f"{name} ({label})", show_counts=show_counts
            )
            if bands is not None:
                draw_consistency_band(panel, bands[i])
                panel.legend(loc="upper left", frameon=True, fontsize="small")
            if curve.kind == "classwise" and curve.class_index is not None and not curve.binary:
                panel.set_title(f"class {curve.class_index}")
        self.ax_ = axes if many else axes[0]
        self.figure_ = axes[0].figure
        if many and ax is None:
            self.figure_.tight_layout()
        return self
