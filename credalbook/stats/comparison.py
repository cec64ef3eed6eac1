r"""Several models on the same labels: each metric with its interval, and the paired difference to a baseline.

:func:`compare_models` evaluates every metric on every model and resamples the N instances
**once for all models**: in bootstrap replicate :math:`r` each model is evaluated on the same
indices :math:`I_r`, so the replicates of the difference to the baseline model :math:`b`,

.. math::
    d^*_r = \theta_m(I_r) - \theta_b(I_r), \qquad r = 1, \dots, R,

keep the correlation of the two models' errors (both are scored on the same labels), which makes
the paired interval much narrower than two separate ones would suggest. The difference's
percentile interval is read off :math:`d^*_1, \dots, d^*_R`, and its two-sided p-value for
:math:`H_0: \theta_m = \theta_b` ("equally calibrated") is the smallest level at which the
equal-tailed percentile interval excludes 0 (the duality of tests and intervals, Efron &
Tibshirani 1993, Sec. 15.4 and Ch. 16), with the add-one convention of Davison & Hinkley (1997,
Sec. 4.2):

.. math::
    p = \min\Bigl(1,\ 2 \min\Bigl(\frac{1 + \#\{d^*_r \le 0\}}{1 + R},\
    \frac{1 + \#\{d^*_r \ge 0\}}{1 + R}\Bigr)\Bigr).

Two identical models give :math:`d^* \equiv 0`, the interval [0, 0] and p = 1; the smallest
p-value is :math:`2/(1 + R)`.

**Size.** For the Brier score, the NLL and accuracy (means of per-instance terms) the test has its
nominal size; so do the binned errors when the models are miscalibrated. Near perfect calibration
a binned error is a sum of absolute values of noise, where the bootstrap is not consistent (the
error is not differentiable there; Fang & Santos 2019): the replicates spread about 1.3 times wider
than the error does over data sets, and the test of two calibrated models is conservative. Measured
(tests/stats/test_comparison.py, 200 pairs of exchangeable binary models, N = 500, R = 200,
rejections at 0.05): both calibrated, ``ece_confidence`` 0, ``ece_classwise`` 1, ``brier_score`` 9,
``nll`` 9; both equally over-confident (logits doubled) 8, 6, 10, 8. The shifted-null p-value
:math:`(1 + \#\{|d^*_r - \hat d| \ge |\hat d|\})/(1 + R)` (Efron & Tibshirani 1993, Sec. 16.4)
rejects as often (0, 1, 9, 10 and 7, 7, 9, 8).

**The same resamples as each metric's own interval.** Every metric is evaluated through
:func:`credalbook.metrics.bootstrap_ci` with one fixed seed for all models: a metric with a ``ci=``
keyword (``ece_confidence``, ``ece_classwise``, ``brier_score``, ``nll``, ``accuracy``, the SKCE)
uses its own vectorised path, the others are evaluated on chunks of gathered replicates
(batch-capable metrics) or one replicate at a time. All these paths draw the resample indices
from :func:`numpy.random.default_rng` of the seed in one stream, replicate after replicate
(:func:`credalbook.metrics.intervals.resample_statistic`, ``resample_counts``), so replicate
:math:`r` of every model uses the same :math:`I_r`, and with an integer ``seed`` a model's
interval is exactly ``metric(probs, labels, ci=ci, n_resamples=n_resamples, seed=seed)``'s. (The
linear and block SKCE resample their independent terms, one per pair or block of instances: the
same pairs or blocks for every model.) The price is that every model draws the indices anew:
at N = 10⁶ drawing R = 1000 replicates of indices costs a few seconds per model and metric.

References
----------
Efron, Tibshirani. An Introduction to the Bootstrap. Chapman & Hall 1993, Ch. 13 (percentile
interval), Sec. 15.4 (tests from confidence intervals), Ch. 16 (bootstrap hypothesis tests).
Davison, Hinkley. Bootstrap Methods and their Application. CUP 1997, Sec. 4.2 (Monte Carlo
p-values, the add-one convention), Sec. 4.4 (nonparametric bootstrap tests). Fang, Santos. Inference
on directionally differentiable functions. Review of Economic Studies 86(1), 377-412, 2019 (the
bootstrap where a functional is not differentiable).
"""

from __future__ import annotations

import functools
import html
import inspect
from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import as_rng, check_n_bins
from credalbook.metrics.intervals import bootstrap_ci, check_ci_options, interval

__all__ = ["DEFAULT_METRICS", "ModelComparison", "compare_models"]

#: The metrics :func:`compare_models` reports by default (names of functions of :mod:`credalbook.metrics`).
DEFAULT_METRICS = ("ece_confidence", "ece_classwise", "brier_score", "nll", "accuracy")
#: Keys of a row of :attr:`ModelComparison.table`.
ROW_KEYS = ("model", "metric", "value", "low", "high", "difference", "diff_low", "diff_high", "pvalue")


def paired_pvalue(differences: np.ndarray) -> float:
    r"""Two-sided bootstrap p-value of :math:`H_0`: difference 0, from paired replicates :math:`d^*` (R,).

    :math:`p = \min(1, 2\min((1 + \#\{d^* \le 0\}) / (1 + R), (1 + \#\{d^* \ge 0\}) / (1 + R)))`: the
    inversion of the equal-tailed percentile interval (module docstring). No validation.

    Examples
    --------
    >>> paired_pvalue(np.zeros(99)), paired_pvalue(np.ones(99))
    (1.0, 0.02)
    """
    r = differences.size
    below = (1 + np.count_nonzero(differences <= 0)) / (1 + r)
    above = (1 + np.count_nonzero(differences >= 0)) / (1 + r)
    return float(min(1.0, 2.0 * min(below, above)))


@dataclass(frozen=True)
class ModelComparison:
    """Metrics of several models on the same labels, with intervals and paired differences to a baseline.

    Attributes
    ----------
    models : tuple of str
        The model names, in the order given.
    metrics : tuple of str
        The metric names (functions of :mod:`credalbook.metrics`).
    baseline : str
        The model every other one is compared with.
    estimates : dict metric -> dict model -> Estimate
        Each model's value with its percentile interval (its ``replicates`` are the paired ones).
    differences : dict metric -> dict model -> Estimate
        For each model but the baseline: ``model - baseline`` on the data, with the percentile
        interval of the paired replicates.
    pvalues : dict metric -> dict model -> float
        Two-sided bootstrap p-value of "difference 0" (module docstring).
    ci, n_resamples, n_bins
        The options of :func:`compare_models`.
    predictions : dict model -> ndarray
        The checked probabilities (for :meth:`plot`; not compared, not printed).
    labels : ndarray (N,)
        The labels (not compared, not printed).

    Examples
    --------
    >>> c = compare_models({"a": [[0.9, 0.1], [0.2, 0.8]], "b": [[0.6, 0.4], [0.4, 0.6]]}, [0, 1],
    ...                    metrics="brier_score", n_resamples=50, seed=0)
    >>> [(r["model"], round(r["value"], 3), r["difference"] and round(r["difference"], 3)) for r in c.table]
    [('a', 0.05, None), ('b', 0.32, 0.27)]
    >>> print(c.format(digits=2).splitlines()[2])
    brier_score  a (baseline)  0.05 [0.02, 0.08]
    """

    models: tuple
    metrics: tuple
    baseline: str
    estimates: dict
    differences: dict
    pvalues: dict
    ci: float
    n_resamples: int
    n_bins: int
    predictions: dict = field(default_factory=dict, repr=False, compare=False)
    labels: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def table(self) -> tuple:
        """One row per (metric, model), metric by metric, the baseline first: dicts with the keys
        model, metric, value, low, high, difference, diff_low, diff_high, pvalue (the last four None
        for the baseline)."""
        rows = []
        for metric in self.metrics:
            for model in (self.baseline, *(m for m in self.models if m != self.baseline)):
                e = self.estimates[metric][model]
                d = self.differences[metric].get(model)
                diff = (None, None, None) if d is None else (d.value, d.low, d.high)
                pvalue = self.pvalues[metric].get(model)
                rows.append(dict(zip(ROW_KEYS, (model, metric, e.value, e.low, e.high, *diff, pvalue))))
        return tuple(rows)

    def to_rows(self) -> list:
        """:attr:`table` as a list of plain dicts (floats, strings and None: JSON as it is)."""
        return [dict(r) for r in self.table]

    def to_dict(self) -> dict:
        """The comparison as plain numbers and strings: the options and :meth:`to_rows`."""
        return {
            "models": list(self.models),
            "metrics": list(self.metrics),
            "baseline": self.baseline,
            "ci": float(self.ci),
            "n_resamples": int(self.n_resamples),
            "n_bins": int(self.n_bins),
            "interval": "percentile",
            "pvalue": "paired bootstrap, percentile inversion (two-sided)",
            "rows": self.to_rows(),
        }

    def _cells(self, digits: int) -> tuple[list, list]:
        """Header and text cells of the table (shared by :meth:`format` and :meth:`_repr_html_`)."""
        f = f".{digits}f"
        head = ["metric", "model", f"value [{self.ci:.0%} CI]", f"difference to {self.baseline}", "p-value"]
        cells = []
        for r in self.table:
            base = r["difference"] is None
            cells.append(
                [
                    r["metric"],
                    r["model"] + (" (baseline)" if base else ""),
                    f"{r['value']:{f}} [{r['low']:{f}}, {r['high']:{f}}]",
                    "" if base else f"{r['difference']:+{f}} [{r['diff_low']:+{f}}, {r['diff_high']:+{f}}]",
                    "" if base else f"{r['pvalue']:.3g}",
                ]
            )
        return head, cells

    def format(self, digits: int = 4) -> str:
        """The table as aligned text: each metric's value and interval per model, the difference to the
        baseline with its paired interval, and the p-value."""
        head, cells = self._cells(digits)
        widths = [max(len(row[i]) for row in [head, *cells]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *cells]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        note = f"paired bootstrap, R = {self.n_resamples}, percentile intervals; p-value of 'no difference'"
        return "\n".join([*lines, note])

    def __str__(self) -> str:
        return self.format()

    def _repr_html_(self) -> str:
        head, cells = self._cells(4)
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in cells)
        caption = f"paired bootstrap, R = {self.n_resamples}, percentile intervals"
        return (
            f"<table><caption>{html.escape(caption)}</caption><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
        )

    def plot(
        self,
        ax=None,
        *,
        kind: str | None = None,
        strategy: str = "uniform",
        n_bins: int | None = None,
        band: bool = True,
        n_resamples: int = 1000,
        seed=None,
    ):
        """The reliability diagram of every model overlaid, each with its consistency band
        (:func:`credalbook.plotting.plot_reliability_comparison`; ``n_bins`` None: the comparison's).
        Returns the matplotlib Axes."""
        from credalbook.plotting.comparison import plot_reliability_comparison

        return plot_reliability_comparison(
            self.predictions,
            self.labels,
            ax=ax,
            kind=kind,
            strategy=strategy,
            n_bins=self.n_bins if n_bins is None else n_bins,
            band=band,
            ci=self.ci,
            n_resamples=n_resamples,
            seed=seed,
        )


def _metric_functions(metrics, n_bins: int) -> dict:
    """name -> ``metric(probs, labels)`` of :mod:`credalbook.metrics` (binned ones with ``n_bins``)."""
    import credalbook.metrics as M

    names = (metrics,) if isinstance(metrics, str) else metrics
    if not isinstance(names, (tuple, list)) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"metrics must be a metric name or a non-empty sequence of names; got {metrics!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must not repeat a name; got {list(names)!r}")
    out = {}
    for name in names:
        fn = getattr(M, name, None) if name in M.__all__ else None
        params = list(inspect.signature(fn).parameters)[:2] if callable(fn) and not inspect.isclass(fn) else []
        if params != ["probs", "labels"]:
            raise ValueError(
                f"metrics: {name!r} is not a metric(probs, labels) of credalbook.metrics; e.g. {list(DEFAULT_METRICS)}"
            )
        out[name] = functools.partial(fn, n_bins=n_bins) if "n_bins" in inspect.signature(fn).parameters else fn
    return out


def _fixed_seed(seed):
    """A seed that gives the same stream at every use: a Generator's draws become a SeedSequence."""
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        return np.random.SeedSequence(as_rng(seed).integers(0, 2**63, size=4).tolist())
    return seed


def compare_models(
    models,
    labels,
    *,
    baseline: str | None = None,
    metrics=DEFAULT_METRICS,
    from_logits=False,
    n_bins: int = 15,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed=None,
) -> ModelComparison:
    """Compare the calibration of several models on the same labels, with a paired bootstrap.

    Every metric is evaluated on every model with its percentile interval; for each model but the
    baseline the difference ``model - baseline`` gets the percentile interval of the paired
    replicates (the same resampled instances for all models in every replicate) and a two-sided
    p-value for "equally calibrated" (module docstring).

    Parameters
    ----------
    models : mapping name -> array-like or tensor
        Each model's predictions: (N, K) probabilities, (N,) scores P(y = 1) of a binary model, or
        logits (``from_logits``); the same N and K for all.
    labels : array-like of int, shape (N,)
    baseline : str or None, default None
        The model the others are compared with; None: the first.
    metrics : str or sequence of str, default :data:`DEFAULT_METRICS`
        Names of metrics ``metric(probs, labels) -> float`` of :mod:`credalbook.metrics`
        (``"ece_confidence"``, ``"ece_classwise"``, ``"brier_score"``, ``"nll"``, ``"accuracy"``,
        ``"skce_ul"``, ``"ace"``, ...); those with an ``n_bins`` option get ``n_bins``.
    from_logits : bool, collection of names, or mapping name -> bool, default False
        Which models are given as logits: all, none, or the named ones (logits and probabilities mixed).
    n_bins : int, default 15
    ci : float in (0, 1), default 0.95
        The level of every interval.
    n_resamples : int >= 2, default 1000
        R, the paired bootstrap replicates.
    seed : None, int, SeedSequence or Generator
        Fixes the resamples. With an integer, a model's interval is that of
        ``metric(probs, labels, ci=ci, n_resamples=n_resamples, seed=seed)``.

    Returns
    -------
    ModelComparison

    References
    ----------
    Efron, Tibshirani. An Introduction to the Bootstrap. 1993, Ch. 13, Sec. 15.4, Ch. 16; Davison,
    Hinkley. Bootstrap Methods and their Application. 1997, Sec. 4.2, 4.4.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=1000)
    >>> y = (rng.random(1000)[:, None] > p.cumsum(axis=1)).sum(axis=1)
    >>> sharp = p**4 / (p**4).sum(axis=1, keepdims=True)
    >>> c = compare_models({"calibrated": p, "sharpened": sharp}, y, metrics=["ece_confidence"],
    ...                    n_resamples=200, seed=0)
    >>> d = c.differences["ece_confidence"]["sharpened"]
    >>> d.low > 0, c.pvalues["ece_confidence"]["sharpened"] < 0.05
    (True, True)
    """
    from credalbook.plotting.comparison import model_predictions

    n_bins = check_n_bins(n_bins)
    level, n_resamples, seed, _ = check_ci_options(ci, n_resamples, seed)
    preds, y = model_predictions(models, labels, from_logits=from_logits)
    names = tuple(preds)
    if baseline is None:
        baseline = names[0]
    elif not isinstance(baseline, str) or baseline not in preds:
        raise ValueError(f"baseline must be the name of one of the models {list(names)!r}; got {baseline!r}")
    funcs = _metric_functions(metrics, n_bins)
    for metric, fn in funcs.items():
        value = fn(preds[names[0]], y)
        if np.ndim(value) != 0 or np.asarray(value).dtype.kind not in "iuf":
            raise ValueError(f"metrics: {metric!r} does not give one number per model; got {type(value).__name__}")
    seed = _fixed_seed(seed)
    estimates, differences, pvalues = {}, {}, {}
    for metric, fn in funcs.items():
        est = {n: bootstrap_ci(preds[n], y, fn, ci=level, n_resamples=n_resamples, seed=seed) for n in names}
        base = est[baseline]
        diff = {
            n: interval(e.value - base.value, e.replicates - base.replicates, ci=level, method="percentile")
            for n, e in est.items()
            if n != baseline
        }
        estimates[metric] = est
        differences[metric] = diff
        pvalues[metric] = {n: paired_pvalue(d.replicates) for n, d in diff.items()}
    return ModelComparison(
        models=names,
        metrics=tuple(funcs),
        baseline=baseline,
        estimates=estimates,
        differences=differences,
        pvalues=pvalues,
        ci=level,
        n_resamples=n_resamples,
        n_bins=n_bins,
        predictions=preds,
        labels=y,
    )
