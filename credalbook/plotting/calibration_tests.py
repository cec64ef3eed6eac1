"""Figures of calibration tests: a test's null distribution, test errors and rejection rates against α."""

from __future__ import annotations

import numpy as np

from credalbook._deprecation import renamed
from credalbook.plotting.theme import axes_or_new

__all__ = ["plot_test_result", "plot_test_errors", "plot_rejection_rates", "plot_null_distributions"]


_RESULT_FIELDS = ("statistic", "pvalue", "alpha", "method", "null_distribution", "null_model", "threshold")


@renamed(bins="n_bins")
def plot_test_result(result, *, ax=None, n_bins: int | str = "auto"):
    """Draw a calibration test's null distribution and its observed statistic.

    A histogram of ``result.null_distribution`` (the statistic on resamples under H0) and/or the
    density of ``result.null_model`` (a frozen ``scipy.stats`` distribution: asymptotic or exact
    null; its mass function for a discrete one), the observed ``statistic`` as a red line, the
    critical value ``threshold`` (when given) as a dashed line, and the method, p-value and α in
    the title.

    Parameters
    ----------
    result : TestResult
        Any object with the fields ``statistic``, ``pvalue``, ``alpha``, ``method``,
        ``null_distribution`` (ndarray or None), ``null_model`` (frozen distribution or None) and
        ``threshold`` (float or None), as :class:`credalbook.stats.TestResult`.
    ax : matplotlib Axes, optional
    n_bins : int or str, default "auto"
        Bins of the histogram, as ``numpy.histogram_bin_edges`` takes them (``bins`` is its old name).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> from scipy import stats
    >>> r = SimpleNamespace(statistic=2.1, pvalue=0.018, alpha=0.05, method="skce_linear",
    ...                     null_distribution=None, null_model=stats.norm(), threshold=1.645)
    >>> plot_test_result(r).get_title()
    'skce_linear: p = 0.018 (α = 0.05)'
    """
    missing = [f for f in _RESULT_FIELDS if not hasattr(result, f)]
    if missing:
        raise TypeError(
            f"result must be a test result with the fields {list(_RESULT_FIELDS)}; "
            f"{type(result).__name__} lacks {missing}"
        )
    ax = axes_or_new(ax)
    stat = float(result.statistic)
    null = result.null_distribution
    if null is not None:
        v = np.asarray(null, dtype=np.float64).ravel()
        v = v[np.isfinite(v)]
        if v.size:
            ax.hist(
                v, bins=n_bins, density=True, color="C0", alpha=0.6, label=f"null distribution ({v.size} resamples)"
            )
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
        ax.axvline(
            float(result.threshold),
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"critical value (α = {float(result.alpha):g})",
        )
    ax.set_title(f"{result.method}: p = {float(result.pvalue):.3g} (α = {float(result.alpha):g})")
    ax.set_xlabel("test statistic")
    ax.set_ylabel("density under $H_0$")
    ax.legend(loc="best", fontsize="small")
    return ax


@renamed(level="ci")
def plot_test_errors(errors, *, published=None, title: str | None = None, ax=None, ci: float = 0.95):
    """Empirical test error of a calibration test against the significance level, with its binomial band.

    Parameters
    ----------
    errors : credalbook.synthetic.WidmannTestErrors
        Or any object with ``alphas``, ``errors``, ``kind`` ("type_I"/"type_II"), ``n_datasets`` and
        ``band(ci)`` (exact binomial intervals, shape (len(alphas), 2)).
    published : (alphas, values), optional
        A published curve, drawn dashed over the same range of levels.
    title : str, optional
    ax : matplotlib Axes, optional
    ci : float, default 0.95
        The level of the band (``level`` is its old name).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> run = SimpleNamespace(alphas=np.array([0.05, 0.1]), errors=np.array([0.04, 0.1]), kind="type_I",
    ...                       n_datasets=100, band=lambda ci: np.array([[0.01, 0.1], [0.05, 0.18]]))
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
    band = np.asarray(errors.band(ci))
    ax.fill_between(alphas, band[:, 0], band[:, 1], alpha=0.25)
    ax.plot(alphas, errors.errors, "o-", ms=3, label=f"this book ({errors.n_datasets} data sets)")
    ax.set(xlabel="significance level α", ylabel=f"{errors.kind.replace('_', ' ')} error")
    if title:
        ax.set_title(title)
    return ax


@renamed(band="ci")
def plot_rejection_rates(rates: dict, *, alpha: float, n_datasets: int, ax=None, ci: float = 0.95):
    """Bar chart of empirical rejection rates under H0 with the binomial band around ``alpha``.

    Parameters
    ----------
    rates : dict of str to float
        Label → fraction of the ``n_datasets`` null datasets on which the test rejected.
    alpha : float
        Nominal level (dashed line).
    n_datasets : int
        Number of simulated datasets; sets the width of the shaded band (binomial quantiles).
    ax : matplotlib Axes, optional
    ci : float, default 0.95
        The level of the binomial band (``band`` is its old name).

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
    lo, hi = stats.binom.ppf([(1 - ci) / 2, (1 + ci) / 2], n_datasets, alpha) / n_datasets
    names = list(rates)
    ax.axhspan(lo, hi, color="gray", alpha=0.25, label=f"{ci:.0%} binomial band, n = {n_datasets}")
    ax.axhline(alpha, color="black", linestyle="--", linewidth=1, label=rf"$\alpha$ = {alpha:g}")
    ax.bar(range(len(names)), [rates[n] for n in names], color=[f"C{i}" for i in range(len(names))], alpha=0.85)
    ax.set_xticks(range(len(names)), names, rotation=15, ha="right")
    ax.set_ylabel("rejection rate under $H_0$ (Type I error)")
    ax.legend(loc="upper right")
    return ax


@renamed(bins="n_bins")
def plot_null_distributions(samples: dict, *, ax=None, n_bins: int = 30):
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
        a.hist(v, bins=n_bins, color="C0", alpha=0.8)
        a.axvline(0, color="black", linewidth=1)
        a.axvline(v.mean(), color="red", linestyle="--", linewidth=1, label=f"mean {v.mean():.3g}")
        a.set_title(name, fontsize=10)
        a.legend(fontsize=7)
    fig.tight_layout()
    return fig
