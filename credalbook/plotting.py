"""Plotting: one seaborn theme, reliability diagrams and the figures of the two calibration-test chapters.

Compute functions never plot; plot functions take their results and an ``ax=`` argument
(as scikit-learn's ``calibration_curve`` vs ``CalibrationDisplay``) and return the axes. The figures
of the other chapters live in :mod:`credalbook.papers.mimori.figures`, :mod:`credalbook.papers.wu_gales.figures`
and :mod:`credalbook.papers.eu.figures`, built on the helpers here (``axes_or_new``, ``panel_row``).
"""

from __future__ import annotations

import numpy as np

from credalbook.metrics.classification import ReliabilityCurve

__all__ = ["set_theme", "PALETTE", "plot_reliability_diagram", "plot_rejection_rates", "simplex_coordinates",
           "plot_credal_scenario", "plot_polytope_sampling", "plot_null_distributions", "ReliabilityDisplay",
           "plot_test_result", "plot_test_errors"]

#: Colour-blind-safe palette used throughout the book.
PALETTE = "colorblind"


def set_theme(*, context: str = "notebook", font_scale: float = 1.0) -> None:
    """Apply the book's seaborn theme (white grid, colour-blind palette, 110 dpi figures)."""
    import matplotlib as mpl

    try:
        import seaborn as sns
    except ImportError:
        raise ImportError("set_theme needs seaborn, which comes with the book's extra: "
                          "pip install 'credalbook[book]'") from None
    sns.set_theme(context=context, style="whitegrid", palette=PALETTE, font_scale=font_scale)
    mpl.rcParams.update({"figure.dpi": 110, "savefig.bbox": "tight", "axes.titleweight": "bold"})


def axes_or_new(ax):
    """``ax``, or the axes of a new 4.2 × 4.2 in figure when ``ax`` is None."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(4.2, 4.2))
    return ax


def panel_row(axes, n: int, size=(3.6, 3.2)):
    """A row of `n` panels: new ones (``size`` each) when `axes` is None, else `axes` checked to hold n."""
    import matplotlib.pyplot as plt

    if axes is None:
        fig, axes = plt.subplots(1, n, figsize=(size[0] * n, size[1]), squeeze=False)
        return fig, list(axes[0])
    axes = list(np.atleast_1d(axes))
    if len(axes) != n:
        raise ValueError(f"axes must hold {n} axes; got {len(axes)}")
    return axes[0].figure, axes

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
    >>> from credalbook.metrics.classification import reliability_curve
    >>> ax = plot_reliability_diagram(reliability_curve([[0.9, 0.1], [0.3, 0.7]], [0, 0], n_bins=5))
    >>> [float(v) for v in ax.get_xlim()]
    [0.0, 1.0]
    """
    if not isinstance(curve, ReliabilityCurve):
        raise ValueError(f"curve must be a ReliabilityCurve (from credalbook.metrics.reliability_curve); got {type(curve).__name__}")
    ax = axes_or_new(ax)
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


def draw_consistency_band(ax, bands, *, color="C1", label: str | None = None):
    """Shade a :class:`~credalbook.metrics.ConsistencyBands` around the diagonal: from ``low`` to ``high``
    at each non-empty bin's mean prediction (Bröcker & Smith 2007); returns the PolyCollection."""
    ok = np.isfinite(bands.mean_predicted) & np.isfinite(bands.low) & np.isfinite(bands.high)
    if label is None:
        label = f"{bands.level:.0%} consistency band"
    return ax.fill_between(bands.mean_predicted[ok], bands.low[ok], bands.high[ok], color=color, alpha=0.35,
                           linewidth=0, label=label, zorder=2.5)


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
    bands : ConsistencyBands, sequence of them (one per curve), or None
    name : str, optional
        The model's name, in the legend.

    Attributes
    ----------
    curve, bands, name
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
    >>> d.curve.kind, d.bands.level, len(d.ax_.collections)   # the gaps and the band
    ('confidence', 0.95, 2)
    """

    def __init__(self, curve, bands=None, *, name: str | None = None):
        many = isinstance(curve, (list, tuple))
        curves = tuple(curve) if many else (curve,)
        if not curves or not all(isinstance(c, ReliabilityCurve) for c in curves):
            raise ValueError("curve must be a ReliabilityCurve (from credalbook.metrics.reliability_curve) "
                             f"or a non-empty sequence of them; got {curve!r}")
        if bands is not None:
            band_list = tuple(bands) if isinstance(bands, (list, tuple)) else (bands,)
            if len(band_list) != len(curves) or not all(hasattr(b, "low") and hasattr(b, "high") for b in band_list):
                raise ValueError(f"bands must be a ConsistencyBands per curve ({len(curves)}); got {bands!r}")
        self.curve = curves if many else curves[0]
        self.bands = bands if bands is None or not many else tuple(bands)
        self.name = name
        self.ax_ = None
        self.figure_ = None

    @classmethod
    def from_predictions(cls, probs, labels, *, kind: str = "top_label", class_index: int | None = None,
                         strategy: str = "uniform", n_bins: int = 15, bands: float | None = 0.95,
                         n_resamples: int = 1000, seed=None, show_counts: bool = True, ax=None,
                         name: str | None = None) -> "ReliabilityDisplay":
        """Compute the reliability curve(s) and consistency bands of ``probs`` and ``labels``, and plot them.

        Parameters
        ----------
        probs : array-like or tensor, shape (N, K)
        labels : array-like or tensor of int, shape (N,)
        kind : {"top_label", "classwise"}, default "top_label"
            ``"classwise"`` draws one panel per class, or only ``class_index``.
        class_index : int, optional
            With ``kind="classwise"``: the one class to draw.
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins.
        n_bins : int, default 15
        bands : float in (0, 1) or None, default 0.95
            The level of the consistency bands; None draws none.
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
        from credalbook._validation import as_rng, check_probability, check_probs_labels
        from credalbook.metrics import consistency_bands, reliability_curve
        from credalbook.metrics.consistency import binning_of, curve_kind

        curve_kind_ = curve_kind(kind)
        binning = binning_of(strategy)
        if bands is not None:
            bands = check_probability(bands, "bands")
        if not isinstance(show_counts, (bool, np.bool_)):
            raise ValueError(f"show_counts must be True or False; got {show_counts!r}")
        p, y = check_probs_labels(probs, labels)
        if p.ndim != 2:
            raise ValueError(f"probs must have shape (N, K) for a reliability diagram; got shape {p.shape}")
        per_class = curve_kind_ == "classwise" and class_index is None
        if per_class and p.shape[1] > MAX_CLASS_PANELS:
            raise ValueError(f"kind='classwise' draws one panel per class, at most {MAX_CLASS_PANELS}; got K = "
                             f"{p.shape[1]} classes (pass class_index= to draw one)")
        indices = list(range(p.shape[1])) if per_class else [class_index]
        curves = [reliability_curve(p, y, n_bins=n_bins, kind=curve_kind_, class_index=c, binning=binning)
                  for c in indices]
        band_list = None
        if bands is not None:
            rng = as_rng(seed)
            band_list = [consistency_bands(p, kind=curve_kind_, class_index=c, n_bins=n_bins, strategy=strategy,
                                           level=bands, n_resamples=n_resamples, seed=rng) for c in indices]
        display = cls(curves if per_class else curves[0],
                      None if band_list is None else (band_list if per_class else band_list[0]), name=name)
        return display.plot(ax=ax, show_counts=show_counts)

    def plot(self, *, ax=None, name: str | None = None, show_counts: bool = True) -> "ReliabilityDisplay":
        """Draw the diagram(s): bars of the observed frequencies, the gaps, the diagonal, the consistency band
        and (``show_counts``) the counts histogram. Sets ``ax_`` and ``figure_``; returns ``self``."""
        name = self.name if name is None else name
        curves = self.curve if isinstance(self.curve, tuple) else (self.curve,)
        bands = (self.bands if isinstance(self.bands, tuple) else (self.bands,)) if self.bands is not None else None
        many = isinstance(self.curve, tuple)
        if many:
            if ax is None:
                import matplotlib.pyplot as plt

                ncols = min(len(curves), 5)
                nrows = -(-len(curves) // ncols)
                fig, grid = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 3.4 * nrows), squeeze=False)
                for extra in grid.ravel()[len(curves):]:
                    extra.set_axis_off()
                axes = grid.ravel()[:len(curves)]
            else:
                axes = np.ravel(np.asarray(ax, dtype=object))
                if len(axes) != len(curves):
                    raise ValueError(f"ax must hold one Axes per class ({len(curves)}); got {len(axes)}")
        else:
            axes = np.array([axes_or_new(ax)], dtype=object)
        for i, (panel, curve) in enumerate(zip(axes, curves)):
            label = f"ECE = {curve.calibration_error:.3f}"
            plot_reliability_diagram(curve, ax=panel, label=label if name is None else f"{name} ({label})",
                                     show_counts=show_counts)
            if bands is not None:
                draw_consistency_band(panel, bands[i])
                panel.legend(loc="upper left", frameon=True, fontsize="small")
            if curve.kind == "classwise" and curve.class_index is not None:
                panel.set_title(f"class {curve.class_index}")
        self.ax_ = axes if many else axes[0]
        self.figure_ = axes[0].figure
        if many and ax is None:
            self.figure_.tight_layout()
        return self


_RESULT_FIELDS = ("statistic", "p_value", "alpha", "method", "null_distribution", "null_model", "threshold")


def plot_test_result(result, *, ax=None, bins: int | str = "auto"):
    """Draw a calibration test's null distribution and its observed statistic.

    A histogram of ``result.null_distribution`` (the statistic on resamples under H0) and/or the
    density of ``result.null_model`` (a frozen ``scipy.stats`` distribution: asymptotic or exact
    null; its mass function for a discrete one), the observed ``statistic`` as a red line, the
    critical value ``threshold`` (when given) as a dashed line, and the method, p-value and α in
    the title.

    Parameters
    ----------
    result : TestResult
        Any object with the fields ``statistic``, ``p_value``, ``alpha``, ``method``,
        ``null_distribution`` (ndarray or None), ``null_model`` (frozen distribution or None) and
        ``threshold`` (float or None), as :class:`credalbook.stats.TestResult`.
    ax : matplotlib Axes, optional
    bins : int or str, default "auto"
        Of the histogram (``numpy.histogram_bin_edges``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> from scipy import stats
    >>> r = SimpleNamespace(statistic=2.1, p_value=0.018, alpha=0.05, method="skce_linear",
    ...                     null_distribution=None, null_model=stats.norm(), threshold=1.645)
    >>> plot_test_result(r).get_title()
    'skce_linear: p = 0.018 (α = 0.05)'
    """
    missing = [f for f in _RESULT_FIELDS if not hasattr(result, f)]
    if missing:
        raise TypeError(f"result must be a test result with the fields {list(_RESULT_FIELDS)}; "
                        f"{type(result).__name__} lacks {missing}")
    ax = axes_or_new(ax)
    stat = float(result.statistic)
    null = result.null_distribution
    if null is not None:
        v = np.asarray(null, dtype=np.float64).ravel()
        v = v[np.isfinite(v)]
        if v.size:
            ax.hist(v, bins=bins, density=True, color="C0", alpha=0.6,
                    label=f"null distribution ({v.size} resamples)")
    if result.null_model is not None:
        model = result.null_model
        name = getattr(getattr(model, "dist", None), "name", type(model).__name__)
        lo, hi = (float(x) for x in model.ppf([0.0005, 0.9995]))
        lo, hi = min(lo, stat) if np.isfinite(stat) else lo, max(hi, stat) if np.isfinite(stat) else hi
        pad = 0.05 * (hi - lo if hi > lo else 1.0)
        if hasattr(model, "pdf"):
            x = np.linspace(lo - pad, hi + pad, 400)
            ax.plot(x, model.pdf(x), color="C2" if null is not None else "C0", label=f"null model ({name})")
            if null is None:
                ax.fill_between(x, model.pdf(x), color="C0", alpha=0.2)
        else:  # a discrete distribution
            x = np.arange(np.floor(lo), np.ceil(hi) + 1)
            ax.vlines(x, 0, model.pmf(x), color="C2" if null is not None else "C0", label=f"null model ({name})")
    if np.isfinite(stat):
        ax.axvline(stat, color="C3", linewidth=2, label=f"observed statistic = {stat:.4g}")
    if result.threshold is not None and np.isfinite(float(result.threshold)):
        ax.axvline(float(result.threshold), color="black", linestyle="--", linewidth=1,
                   label=f"critical value (α = {float(result.alpha):g})")
    ax.set_title(f"{result.method}: p = {float(result.p_value):.3g} (α = {float(result.alpha):g})")
    ax.set_xlabel("test statistic")
    ax.set_ylabel("density under $H_0$")
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_test_errors(errors, *, published=None, title: str | None = None, ax=None, level: float = 0.95):
    """Empirical test error of a calibration test against the significance level, with its binomial band.

    Parameters
    ----------
    errors : credalbook.synthetic.WidmannTestErrors
        Or any object with ``alphas``, ``errors``, ``kind`` ("type_I"/"type_II"), ``n_datasets`` and
        ``band(level)`` (exact binomial intervals, shape (len(alphas), 2)).
    published : (alphas, values), optional
        A published curve, drawn dashed over the same range of levels.
    title : str, optional
    ax : matplotlib Axes, optional
    level : float, default 0.95
        Of the band.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> run = SimpleNamespace(alphas=np.array([0.05, 0.1]), errors=np.array([0.04, 0.1]), kind="type_I",
    ...                       n_datasets=100, band=lambda level: np.array([[0.01, 0.1], [0.05, 0.18]]))
    >>> ax = plot_test_errors(run, published=([0.0, 0.05, 0.1, 0.5], [0.0, 0.05, 0.1, 0.5]))
    >>> len(ax.lines), ax.get_ylabel()
    (2, 'type I error')
    """
    ax = axes_or_new(ax)
    alphas = np.asarray(errors.alphas, dtype=float)
    if published is not None:
        pa, pv = (np.asarray(v, dtype=float) for v in published)
        keep = pa <= alphas.max() + 1e-9
        ax.plot(pa[keep], pv[keep], "k--", label="published")
    band = np.asarray(errors.band(level))
    ax.fill_between(alphas, band[:, 0], band[:, 1], alpha=0.25)
    ax.plot(alphas, errors.errors, "o-", ms=3, label=f"this book ({errors.n_datasets} data sets)")
    ax.set(xlabel="significance level α", ylabel=f"{errors.kind.replace('_', ' ')} error")
    if title:
        ax.set_title(title)
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
    ax = axes_or_new(ax)
    lo, hi = stats.binom.ppf([(1 - band) / 2, (1 + band) / 2], n_datasets, alpha) / n_datasets
    names = list(rates)
    ax.axhspan(lo, hi, color="gray", alpha=0.25, label=f"{band:.0%} binomial band, n = {n_datasets}")
    ax.axhline(alpha, color="black", linestyle="--", linewidth=1, label=rf"$\alpha$ = {alpha:g}")
    ax.bar(range(len(names)), [rates[n] for n in names], color=[f"C{i}" for i in range(len(names))], alpha=0.85)
    ax.set_xticks(range(len(names)), names, rotation=15, ha="right")
    ax.set_ylabel("rejection rate under $H_0$ (Type I error)")
    ax.legend(loc="upper right")
    return ax


def simplex_coordinates(probs) -> np.ndarray:
    """Project points of the 2-simplex (..., 3) onto the plane: e_1 → (0, 0), e_2 → (1, 0), e_3 → (½, √3/2)."""
    p = np.asarray(probs, dtype=np.float64)
    if p.shape[-1] != 3:
        raise ValueError(f"probs must have K = 3 classes to be drawn on the simplex; got shape {p.shape}")
    return np.stack([p[..., 1] + 0.5 * p[..., 2], (np.sqrt(3) / 2) * p[..., 2]], axis=-1)


def plot_credal_scenario(scenario, *, dataset: int = 0, instance: int = 0, n_combinations: int = 400, ax=None,
                         seed=0):
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
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(0, 6 if y > 0 else -12), ha="center",
                    fontsize=8)
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


def plot_polytope_sampling(vertices, n_samples: int = 2000, *, methods=("weights", "triangulation"), seed=0, ax=None):
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


def plot_null_distributions(samples: dict, *, ax=None, bins: int = 30):
    """Histograms of estimator values under H0 (Jürgens et al., Fig. 5), one panel per estimator.

    ``samples`` maps estimator names to 1-D arrays. Returns the figure.
    """
    import matplotlib.pyplot as plt

    if not samples:
        raise ValueError("samples must hold at least one estimator")
    if ax is None:
        fig, axes = plt.subplots(1, len(samples), figsize=(3.0 * len(samples), 2.8), squeeze=False)
        axes = axes[0]
    else:
        axes = np.atleast_1d(ax)
        if len(axes) != len(samples):
            raise ValueError(f"ax must hold {len(samples)} axes, one per estimator; got {len(axes)}")
        fig = axes[0].figure
    for a, (name, values) in zip(axes, samples.items()):
        v = np.asarray(values, dtype=np.float64).ravel()
        a.hist(v, bins=bins, color="C0", alpha=0.8)
        a.axvline(0, color="black", linewidth=1)
        a.axvline(v.mean(), color="red", linestyle="--", linewidth=1, label=f"mean {v.mean():.3g}")
        a.set_title(name, fontsize=10)
        a.legend(fontsize=7)
    fig.tight_layout()
    return fig
