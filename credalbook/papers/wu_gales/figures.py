"""Figures of the Wu & Gales (2021) chapter: temperature studies (Fig. 1), calibration by region,
combination reliability curves and the ε curves of the appendix toys (App. Fig. 4).

Kept apart from :mod:`credalbook.plotting` (the book's theme and shared helpers) to keep modules small;
plot functions take computed results and an ``ax=``/``axes=`` argument and return the axes or figure.
"""

from __future__ import annotations

import numpy as np

from credalbook.metrics.reliability import ReliabilityCurve
from credalbook.plotting import axes_or_new, panel_row

__all__ = ["plot_temperature_study", "plot_region_study", "plot_combination_reliability", "plot_epsilon_curves"]


def _reliability_line(ax, curve: ReliabilityCurve, **kwargs) -> None:
    """Observed frequency against mean prediction of the non-empty bins of `curve`, as a line."""
    keep = curve.counts > 0
    ax.plot(curve.mean_predicted[keep], curve.observed[keep], marker="o", markersize=3, **kwargs)


def _diagonal(ax) -> None:
    ax.plot([0, 1], [0, 1], color="gray", linestyle="--", linewidth=1)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("confidence")
    ax.set_ylabel("accuracy")


def plot_temperature_study(study, *, axes=None, legend: bool = True):
    """Fig. 1 of Wu & Gales for one topology: accuracy and ECE against the temperature, reliability curves.

    Panel 1: accuracy of every member (grey) and of the ensemble of the members scaled by a shared
    temperature (the paper's "pre", blue). Panel 2: their ECE, and that of the post-combination
    prediction (orange, dashed); dotted verticals at the members' and the ensemble's optimal
    temperatures. Panel 3: reliability curves of the members at their optimal temperatures (grey),
    of the ensemble of these calibrated members (blue) and of the ensemble at its own optimal
    temperature (orange). Returns the figure.

    Parameters
    ----------
    study : TemperatureStudy
        From :func:`credalbook.papers.wu_gales.temperature_study`.
    axes : three matplotlib Axes, optional
        E.g. one column of a 3 × T grid; a new row of three panels by default.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.wu_gales.topologies import TopologyEnsemble
    >>> from credalbook.papers.wu_gales.experiments import temperature_study
    >>> rng = np.random.default_rng(0)
    >>> z = 4 * rng.normal(size=(300, 2, 3)); y = z.mean(1).argmax(1)
    >>> st = temperature_study(TopologyEnsemble(z, y, z, y, "LEN", (0, 1), ([], []), np.zeros(2), 0, {}))
    >>> len(plot_temperature_study(st).axes)
    3
    """
    from credalbook.papers.wu_gales.experiments import TemperatureStudy

    if not isinstance(study, TemperatureStudy):
        raise ValueError(f"study must be a TemperatureStudy (from temperature_study); got {type(study).__name__}")
    fig, (ax_acc, ax_ece, ax_rel) = panel_row(axes, 3, size=(3.4, 3.0))
    s, t = study.sweep, study.sweep.temperatures
    for m in range(s.member_ece.shape[1]):
        grey = dict(color="0.6", linewidth=1, label="members" if m == 0 else None)
        ax_acc.plot(t, s.member_accuracy[:, m], **grey)
        ax_ece.plot(t, s.member_ece[:, m], **grey)
        ax_ece.axvline(s.member_optimal_temperature[m], color="0.6", linestyle=":", linewidth=1)
    ax_acc.plot(t, s.ensemble_accuracy, color="C0", linewidth=2, label="ensemble (pre)")
    ax_ece.plot(t, s.ensemble_ece, color="C0", linewidth=2, label="ensemble (pre)")
    ax_ece.plot(t, s.post_ece, color="C1", linestyle="--", linewidth=1.5, label="ensemble (post)")
    ax_ece.axvline(s.ensemble_optimal_temperature, color="C0", linestyle=":", linewidth=1.5)
    for ax, name in ((ax_acc, "accuracy"), (ax_ece, "ECE")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("temperature $t$")
        ax.set_ylabel(name)
    for m, curve in enumerate(study.member_curves):
        _reliability_line(ax_rel, curve, color="0.6", linewidth=1, label="calibrated members" if m == 0 else None)
    _reliability_line(
        ax_rel, study.calibrated_members_curve, color="C0", linewidth=2, label="ensemble of calibrated members"
    )
    _reliability_line(ax_rel, study.calibrated_ensemble_curve, color="C1", linewidth=1.5, label="calibrated ensemble")
    _diagonal(ax_rel)
    ax_acc.set_title(study.topology)
    if legend:
        for ax in (ax_acc, ax_ece, ax_rel):
            ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def plot_region_study(studies, *, metric: str = "ece", ax=None):
    """Fig. 3 of Wu & Gales: a criterion of dynamic temperature scaling against the number of regions R.

    One line per :class:`~credalbook.papers.wu_gales.CalibrationStudy` of
    :func:`~credalbook.papers.wu_gales.region_study`: the mean over runs with ±2σ bars, in the
    paper's units (ECE in 1e-2, ACE in 1e-4, ...).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.wu_gales.experiments import CalibrationStudy
    >>> st = CalibrationStudy("RSN", ("R=1", "R=2"), ("ece",), np.array([[[0.02], [0.01]], [[0.03], [0.02]]]),
    ...                       ((0,), (1,)), [], (1, 2))
    >>> ax = plot_region_study([st])
    >>> ax.get_xlabel()
    'number of regions R'
    """
    from credalbook.papers.wu_gales.experiments import CalibrationStudy
    from credalbook.papers.wu_gales.reported import WG_UNITS

    studies = list(studies)
    if not studies or not all(isinstance(s, CalibrationStudy) for s in studies):
        raise ValueError("studies must be a non-empty sequence of CalibrationStudy (from region_study)")
    ax = axes_or_new(ax)
    for st in studies:
        if metric not in st.metrics:
            raise ValueError(f"metric must be one of {st.metrics}; got {metric!r}")
        mean = np.array([st.mean(m, metric) for m in st.methods]) / WG_UNITS[metric]
        err = np.nan_to_num(np.array([st.two_sigma(m, metric) for m in st.methods]) / WG_UNITS[metric])
        ax.errorbar(st.n_regions, mean, yerr=err, marker="o", capsize=3, label=st.topology)
    unit = WG_UNITS[metric]
    ax.set_xlabel("number of regions R")
    ax.set_ylabel(f"{metric.upper()}" + (f" ($10^{{{int(round(np.log10(unit)))}}}$)" if unit != 1 else ""))
    ax.legend(fontsize=8)
    return ax


def plot_combination_reliability(combos, *, labels=None, ax=None):
    """Fig. 2 of Wu & Gales: reliability curves of weighted combinations of topology ensembles.

    ``combos`` are :class:`~credalbook.papers.wu_gales.TopologyCombination` rows (e.g. the
    calibrated structures combined with Max-LL weights, without and with ensemble calibration);
    ``labels`` default to their ECE and calibration settings.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.metrics.reliability import reliability_curve
    >>> from credalbook.papers.wu_gales.experiments import TopologyCombination
    >>> c = TopologyCombination(("LEN",), "ml", "post", None, np.ones(1), {"ece": 0.1},
    ...                         reliability_curve([[0.9, 0.1], [0.3, 0.7]], [0, 0], n_bins=5))
    >>> len(plot_combination_reliability([c]).lines)
    2
    """
    from credalbook.papers.wu_gales.experiments import TopologyCombination

    combos = list(combos)
    if not combos or not all(isinstance(c, TopologyCombination) for c in combos):
        raise ValueError("combos must be a non-empty sequence of TopologyCombination (from topology_combinations)")
    if labels is not None and len(labels) != len(combos):
        raise ValueError(f"labels must have one entry per combination ({len(combos)}); got {len(labels)}")
    ax = axes_or_new(ax)
    for i, c in enumerate(combos):
        label = (
            labels[i]
            if labels is not None
            else f"struct {c.structure or '-'}, ens {c.ensemble or '-'} (ECE {c.summary['ece']:.3f})"
        )
        _reliability_line(ax, c.curve, color=f"C{i}", linewidth=1.5, label=label)
    _diagonal(ax)
    ax.set_aspect("equal")
    ax.legend(fontsize=7, loc="upper left")
    return ax


def plot_epsilon_curves(toy, *, axes=None):
    """App. Fig. 4 of Wu & Gales: ACE (a) and ECE (b) of Alg. 1's calibrated members and their ensemble against ε.

    Members: the largest value over the members (zero: all perfectly calibrated). At ε ≥ 1/2 one
    region remains: the ensemble's ACE drops to 0 (global calibration, Prop. 2), its ECE does not.
    Returns the figure.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.wu_gales.experiments import appendix_toys
    >>> toy = appendix_toys.__wrapped__(1000, 1000, n_members=3, epsilons=(0.01, 0.5))
    >>> len(plot_epsilon_curves(toy).axes)
    2
    """
    from credalbook.papers.wu_gales.experiments import ToyStudy

    if not isinstance(toy, ToyStudy):
        raise ValueError(f"toy must be a ToyStudy (from appendix_toys); got {type(toy).__name__}")
    fig, axes = panel_row(axes, 2, size=(3.6, 3.0))
    for ax, (name, ens, mem) in zip(
        axes, (("(a) ACE", toy.ensemble_ace, toy.member_ace), ("(b) ECE", toy.ensemble_ece, toy.member_ece))
    ):
        ax.plot(toy.epsilons, ens, marker="o", color="C0", label="ensemble")
        ax.plot(toy.epsilons, mem, marker="s", color="C2", label="members (largest)")
        ax.set_xscale("log")
        ax.set_xlabel(r"region half-width $\epsilon$")
        ax.set_title(name, fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
