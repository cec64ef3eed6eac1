"""Figures of the Mimori et al. (2022) chapter: debiasing (Fig. 2), optimal α0 (Fig. 3), Theorem 1,
DPE reliability, calibration-dispersion maps and temperature-scaling shifts.

Kept apart from :mod:`credalbook.plotting` (the book's theme and shared helpers) to keep modules small;
plot functions take computed results and an ``ax=``/``axes=`` argument and return the axes or figure.
"""

from __future__ import annotations

import numpy as np

from credalbook._deprecation import renamed
from credalbook.plotting import axes_or_new, panel_row

__all__ = [
    "plot_debiasing_study",
    "plot_optimal_log_alpha0",
    "plot_theorem1_check",
    "plot_dpe_reliability",
    "plot_calibration_dispersion_map",
    "plot_ts_shifts",
]


@renamed(level="ci")
def plot_debiasing_study(study, *, axes=None, ci: float = 0.9):
    """Fig. 2 of Mimori et al.: plug-in (dotted) and debiased (solid) EL and CL of a perfect predictor over N.

    Points are means over the runs with ``ci`` intervals (:meth:`DebiasingStudy.summary`); one colour
    per number of labels; the truth is 0 (grey line). Returns the figure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.mimori.experiments import debiasing_study
    >>> fig = plot_debiasing_study(debiasing_study(n_instances=(100, 300), n_runs=3))
    >>> len(fig.axes)
    2
    """
    fig, axes = panel_row(axes, 2)
    summary = study.summary(ci)
    for ax, quantity in zip(axes, ("EL", "CL")):
        for i, n in enumerate(study.n_labels):
            for est, style in (("plug-in", ":"), ("debiased", "-")):
                mean, half = summary[(quantity, est, n)]
                ax.errorbar(
                    study.n_instances,
                    mean,
                    yerr=half,
                    color=f"C{i}",
                    linestyle=style,
                    marker="o",
                    markersize=3,
                    capsize=2,
                    label=f"{est}, {n} labels",
                )
        ax.axhline(0, color="gray", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlabel("instances N")
        ax.set_title(quantity)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_optimal_log_alpha0(grid, *, axes=None):
    """Fig. 3 of Mimori et al.: optimal log α0 against the first-class CPE z1, one panel per λ_α.

    One line per label histogram (y1 of n labels), coloured by n. Returns the figure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.mimori.experiments import optimal_log_alpha0_grid
    >>> fig = plot_optimal_log_alpha0(optimal_log_alpha0_grid(n_labels=(2,), reg=(0.005, 0.05)))
    >>> len(fig.axes), len(fig.axes[0].lines)   # y1 = 0, 1, 2 and the zero line
    (2, 4)
    """
    fig, axes = panel_row(axes, len(grid.reg), size=(3.2, 3.0))
    x = np.arange(len(grid.z1))
    for ax, j in zip(axes, range(len(grid.reg))):
        for i, (n, values) in enumerate(grid.log_alpha0.items()):
            for y1 in range(n + 1):
                ax.plot(x, values[j, y1], color=f"C{i}", linewidth=1, alpha=0.8, label=f"n = {n}" if y1 == 0 else None)
        ax.axhline(0, color="gray", linewidth=0.8)
        ax.set_xticks(x[::2], [f"{z:g}" for z in grid.z1[::2]], rotation=60, fontsize=7)
        ax.set_xlabel("$z_1$")
        ax.set_title(rf"$\lambda_\alpha$ = {grid.reg[j]:g}", fontsize=10)
    axes[0].set_ylabel(r"optimal $\log\alpha_0$")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_theorem1_check(check, *, axes=None):
    """Theorem 1 of Mimori et al.: Monte-Carlo losses (points, ±2 s.e.) and closed forms (lines) over α0.

    Left: the DPE loss :math:`L_{\\phi^D,G}`; right: the posterior EL'; dashed verticals mark the closed-form
    optima, the level of α0 = ∞ (no α-calibration) is drawn as a dotted line. Returns the figure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.mimori.experiments import theorem1_check
    >>> len(plot_theorem1_check(theorem1_check(n_draws=2000)).axes)
    2
    """
    fig, axes = panel_row(axes, 2)
    finite = np.isfinite(check.alpha0)
    a = check.alpha0[finite]
    for i, (name, s) in enumerate(check.scenarios.items()):
        for ax, key, interval in zip(axes, ("dpe", "post"), ("dpe_interval", "post_interval")):
            ax.errorbar(
                a,
                s[f"{key}_mc"][finite],
                yerr=2 * s[f"{key}_se"][finite],
                fmt="o",
                markersize=2,
                color=f"C{i}",
                alpha=0.6,
            )
            ax.plot(a, s[f"{key}_closed"][finite], color=f"C{i}", label=name)
            ax.axhline(s[f"{key}_closed"][~finite][0] if (~finite).any() else np.nan, color=f"C{i}", linestyle=":")
            opt = float(s[interval].optimum)
            if np.isfinite(opt):
                ax.axvline(opt, color=f"C{i}", linestyle="--", linewidth=1)
    for ax, title in zip(axes, (r"DPE loss $L_{\phi^D,G}$", r"posterior $\mathrm{EL}'_G$")):
        ax.set_xscale("log")
        ax.set_xlabel(r"$\alpha_0$")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _base_name(name: str) -> str:
    return name[:-2] if name.endswith("+α") else name


def plot_dpe_reliability(calibrations: dict, *, ax=None):
    """Reliability diagram of disagreement probability estimates (Figs. 1, 5b of Mimori et al.).

    ``calibrations`` maps predictor names to :class:`~credalbook.metrics.StatisticCalibration`;
    the bin means of the observed disagreement are drawn against the mean DPE, solid for α-calibrated
    predictors (names ending in "+α") and dotted otherwise, one colour per base predictor.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.metrics.label_stats import statistic_calibration
    >>> c = statistic_calibration([0.5, 0.1, 0.6], [[1, 1], [2, 0], [1, 1]], n_bins=5)
    >>> len(plot_dpe_reliability({"Raw": c, "Raw+α": c}).lines)
    3
    """
    ax = axes_or_new(ax)
    bases = list(dict.fromkeys(_base_name(n) for n in calibrations))
    for name, c in calibrations.items():
        keep = c.counts > 0
        ax.plot(
            c.mean_predicted[keep],
            c.mean_observed[keep],
            marker="o",
            markersize=3,
            color=f"C{bases.index(_base_name(name)) % 10}",
            linestyle="-" if name.endswith("+α") else ":",
            label=f"{name} (CE$_\\phi$ {c.ce_debiased:.3f})",
        )
    ax.plot([0, 1], [0, 1], color="gray", linestyle="--", linewidth=1)
    lim = max(0.05, max(np.nanmax(np.r_[c.mean_predicted, c.mean_observed]) for c in calibrations.values()) * 1.05)
    ax.set_xlim(0, min(1, lim))
    ax.set_ylim(0, min(1, lim))
    ax.set_xlabel("predicted disagreement probability (DPE)")
    ax.set_ylabel("observed disagreement")
    ax.legend(fontsize=7)
    return ax


def plot_calibration_dispersion_map(metrics: dict, *, ax=None):
    """Calibration-dispersion map (Fig. 5a of Mimori et al.): debiased CL against debiased DL per predictor.

    ``metrics`` maps predictor names to dicts with "CL" and "DL" (e.g. from
    :func:`~credalbook.papers.mimori.evaluate_predictors`); one colour per base predictor (the name
    before the first "+"), one marker per calibrator (none, ts, vs, ms), hollow for "+α"; grey lines are
    levels of EL = CL + DL.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_calibration_dispersion_map({"Raw": {"CL": 0.004, "DL": 0.035}, "Raw+ts": {"CL": 0.002, "DL": 0.035}})
    >>> len(ax.texts)
    2
    """
    ax = axes_or_new(ax)
    cl = np.array([m["CL"] for m in metrics.values()])
    dl = np.array([m["DL"] for m in metrics.values()])
    families = list(dict.fromkeys(n.split("+")[0] for n in metrics))
    markers = {"": "o", "ts": "s", "vs": "^", "ms": "D"}
    for name, x, y in zip(metrics, dl, cl):
        parts = [p for p in name.split("+")[1:] if p != "α"]
        color = f"C{families.index(name.split('+')[0]) % 10}"
        ax.scatter(
            x,
            y,
            marker=markers.get(parts[0] if parts else "", "o"),
            s=28,
            edgecolors=color,
            facecolors="none" if name.endswith("+α") else color,
        )
        ax.annotate(name, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    lo, hi = min(dl.min(), 0), dl.max() * 1.05 + 1e-12
    top = max(cl.max() * 1.3, 1e-4)
    for level in np.linspace(dl.min() + cl.min(), dl.max() + cl.max(), 5):
        ax.plot([lo, hi], [level - lo, level - hi], color="gray", linewidth=0.5, linestyle=":")
    ax.set_xlim(dl.min() - 0.05 * (hi - dl.min()) - 1e-6, hi)
    ax.set_ylim(min(cl.min(), 0) - 0.05 * top, top)
    ax.locator_params(axis="x", nbins=5)
    ax.set_xlabel(r"dispersion loss $\widehat{\mathrm{DL}}$")
    ax.set_ylabel(r"calibration loss $\widehat{\mathrm{CL}}$")
    return ax


def plot_ts_shifts(shift: dict, *, axes=None):
    """Fig. 4 of Mimori et al.: each test instance's max CPE and DPE before (x) and after (y) temperature scaling.

    ``shift`` is :func:`~credalbook.papers.mimori.ts_dpe_shift`'s dict. Returns the figure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> s = dict(max_cpe=np.array([0.9, 0.6]), max_cpe_ts=np.array([0.8, 0.55]), dpe=np.array([0.2, 0.5]),
    ...          dpe_ts=np.array([0.3, 0.55]), mean_delta=0.075)
    >>> len(plot_ts_shifts(s).axes)
    2
    """
    fig, axes = panel_row(axes, 2, size=(3.4, 3.4))
    dpe_title = rf"DPE (mean $\Delta^D$ = {shift['mean_delta']:.3f})"
    for ax, (x, y, title) in zip(
        axes, ((shift["max_cpe"], shift["max_cpe_ts"], "max CPE"), (shift["dpe"], shift["dpe_ts"], dpe_title))
    ):
        ax.scatter(x, y, s=3, alpha=0.3)
        lo, hi = min(x.min(), y.min()), max(x.max(), y.max())
        ax.plot([lo, hi], [lo, hi], color="gray", linestyle="--", linewidth=1)
        ax.set_xlabel("Raw")
        ax.set_ylabel("Raw+ts")
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig
