"""Figures of the Mortier et al. (2023) chapter: Type I/II error rates of the set calibration test (Figs. 2-3)."""

from __future__ import annotations

import numpy as np

from credalbook.plotting import axes_or_new

__all__ = ["plot_error_rates", "plot_error_rate_figure", "plot_decision_rules"]


def plot_error_rates(study, *, alphas=None, ax=None, legend: bool = True):
    """Empirical Type I (S1) or Type II (S2, S3) error against the significance level (Fig. 1 right).

    Parameters
    ----------
    study : ErrorRateStudy or ErrorRateSummary
    alphas : sequence of float, optional
        Default: the paper's twelve levels.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.mortier.error_rates import set_test_error_rates
    >>> study = set_test_error_rates.__wrapped__("S1", n_datasets=4, n_instances=20, n_members=2, n_classes=3,
    ...                                          u=0.5, n_resamples=10, measures=("skce_ul",), n_jobs=1,
    ...                                          progress=False)
    >>> len(plot_error_rates(study).lines)
    2
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    ax = axes_or_new(ax)
    alphas = np.asarray(PAPER_ALPHAS if alphas is None else alphas, dtype=np.float64)
    errors = study.error_rates(alphas)
    for i, name in enumerate(study.measures):
        ax.plot(alphas, errors[i], marker="o", markersize=3, linewidth=1.2, color=f"C{i}", label=name)
    if study.scenario == "S1":
        ax.plot([0, 1], [0, 1], color="black", linestyle="--", linewidth=1, label=r"error = $\alpha$")
        ax.set_ylabel("Type I error")
    else:
        ax.set_ylabel("Type II error")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(r"significance level $\alpha$")
    ax.set_title(f"{study.scenario} (R = {study.n_datasets})")
    if legend:
        ax.legend(fontsize=7, loc="best")
    return ax


def plot_error_rate_figure(studies: dict, *, title: str = "", alphas=None):
    """Fig. 1 (right) layout: one panel per scenario (S1 Type I, S2/S3 Type II), shared y axis.

    ``studies`` maps scenario names to :class:`~credalbook.papers.mortier.ErrorRateStudy` objects or their
    summaries; the title is ``title`` followed by the setting (N, M, K, u) of the studies. Returns the figure.
    """
    import matplotlib.pyplot as plt

    if not studies:
        raise ValueError("studies must map at least one scenario to an ErrorRateStudy")
    fig, axes = plt.subplots(1, len(studies), figsize=(4.4 * len(studies), 3.8), sharey=True, squeeze=False)
    for ax, (name, study) in zip(axes[0], studies.items()):
        plot_error_rates(study, alphas=alphas, ax=ax, legend=name == "S1")
    c = next(iter(studies.values())).config
    setting = f"N = {c['n_instances']}, M = {c['n_members']}, K = {c['n_classes']}, u = {c['u']}"
    fig.suptitle(f"{title}: {setting}" if title else setting, y=1.02)
    fig.tight_layout()
    return fig


def plot_decision_rules(study, *, measure: str = "SKCE_ul", alphas=None, ax=None):
    r"""One test's Type I error under the paper's decision :math:`t > q` and the authors' :math:`|t| > q`.

    Both curves come from the same statistics and null samples of an S1 study (no rerun); the
    band between :math:`\alpha/2` and :math:`3\alpha/2` is Bradley's liberal region, the criterion
    of the chapter's Type I rows.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from credalbook.papers.mortier.error_rates import set_test_error_rates
    >>> study = set_test_error_rates.__wrapped__("S1", n_datasets=4, n_instances=20, n_members=2, n_classes=3,
    ...                                          u=0.5, n_resamples=10, measures=("skce_ul",), n_jobs=1,
    ...                                          progress=False)
    >>> len(plot_decision_rules(study).lines)
    3
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    if not study.is_null:
        raise ValueError(f"study must be under H0 (S1) to show Type I errors; got {study.scenario!r}")
    if measure not in study.measures:
        raise ValueError(f"measure must be one of {study.measures}; got {measure!r}")
    ax = axes_or_new(ax)
    alphas = np.asarray(PAPER_ALPHAS if alphas is None else alphas, dtype=np.float64)
    i = study.measures.index(measure)
    for rule, label, style in (
        ("t", r"paper: $t > q_{1-\alpha}$", "-"),
        ("abs", r"authors' code: $|t| > q_{1-\alpha}$", "--"),
    ):
        ax.plot(alphas, study.rejection_rates(alphas, rule=rule)[i], style, marker="o", markersize=3, label=label)
    grid = np.linspace(0, 1, 101)
    ax.fill_between(grid, grid / 2, np.minimum(1.5 * grid, 1), color="0.85", label=r"Bradley: $[\alpha/2, 3\alpha/2]$")
    ax.plot([0, 1], [0, 1], color="black", linestyle=":", linewidth=1, label=r"error = $\alpha$")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(r"significance level $\alpha$")
    ax.set_ylabel("Type I error")
    ax.set_title(f"{measure}, S1 (R = {study.n_datasets})")
    ax.legend(fontsize=7, loc="upper left")
    return ax
