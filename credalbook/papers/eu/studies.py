r"""Runs of one EU experiment over several seeds (:class:`EUStudy`): Tables 1-2 as mean ± sd over the seeds,
the per-interval curves of Figs. 3-4 (:class:`EUIntervalCurves`), and how a study's numbers are judged against
the paper's (:func:`compare_summary`: Student's t on the standard errors of the two means).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from credalbook._parallel import check_n_jobs, sweep
from credalbook._progress import progress_bar
from credalbook.papers.criteria import close_to, INCONCLUSIVE, Judgement, mean_se, ordered, sign_claim
from credalbook.papers.eu.reported import _METRIC_NAMES, EU_ESTIMATORS, EU_METRICS
from credalbook.papers.report import count_of, Table

__all__ = ["EUIntervalCurves", "EUStudy", "compare_summary"]


def _mean_sd(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=np.float64)
    return float(np.mean(v)), float(np.std(v, ddof=1)) if v.size > 1 else float("nan")


def _fmt_mean_sd(mean: float, sd: float) -> str:
    return f"{mean:.3g} ± {sd:.2g}" if math.isfinite(sd) else f"{mean:.3g}"


@dataclass(frozen=True)
class EUIntervalCurves:
    """Per-interval means over seeds (Figs. 3-4): arrays of shape (S, M), S seeds, M intervals.

    ``raw``: mean estimated EU, ``calibrated``: mean calibrated EU, ``gain``: mean accuracy gain.
    """

    estimator: str
    raw: np.ndarray
    calibrated: np.ndarray
    gain: np.ndarray

    def mean(self, which: str) -> np.ndarray:
        """Mean over seeds of ``"raw"``, ``"calibrated"`` or ``"gain"`` per interval, shape (M,)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an interval empty in every seed
            return np.nanmean(getattr(self, which), axis=0)

    def sd(self, which: str) -> np.ndarray:
        """Standard deviation over seeds (ddof = 1; zero for one seed), shape (M,)."""
        v = getattr(self, which)
        if v.shape[0] < 2:
            return np.zeros(v.shape[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanstd(v, axis=0, ddof=1)

    def excess(self, which: str = "raw") -> np.ndarray:
        r"""Per seed, the mean over the intervals of ``which`` (``"raw"`` or ``"calibrated"``) minus the gain, shape (S,).

        Positive when the estimate lies above the accuracy gain on average over the equal-mass intervals
        ("tends to overestimate the accuracy gain", Sec. 5.3.1); intervals empty in a seed are skipped.
        """
        if which not in ("raw", "calibrated"):
            raise ValueError(f"which must be 'raw' or 'calibrated'; got {which!r}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(getattr(self, which) - self.gain, axis=1)


@dataclass(frozen=True)
class EUStudy:
    """Runs of one experiment over several seeds (a block of Table 1 or 2, a panel pair of Fig. 3 or 4)."""

    name: str
    runs: tuple
    config: dict = field(repr=False)

    @property
    def seeds(self) -> list:
        return [r.seed for r in self.runs]

    def values(self, estimator: str, metric: str) -> np.ndarray:
        """The metric of every run, shape (S,)."""
        return np.array([r.metric(estimator, metric) for r in self.runs])

    def summary(self) -> dict:
        """estimator -> metric -> (mean, sd over seeds, ddof = 1); also ``eece_bits``."""
        out = {k: {m: _mean_sd(self.values(k, m)) for m in EU_METRICS} for k in EU_ESTIMATORS}
        for k in EU_ESTIMATORS:
            out[k]["eece_bits"] = _mean_sd([r.eece_bits[k] for r in self.runs])
        return out

    def table(self) -> Table:
        """Table 1/2 layout: one row per estimator, "mean ± sd" over the seeds."""
        s = self.summary()
        rows = {f"Ê_{k}": {_METRIC_NAMES[m]: _fmt_mean_sd(*s[k][m]) for m in EU_METRICS} for k in EU_ESTIMATORS}
        return Table(rows, index_name=f"{self.name} ({count_of(len(self.runs), 'seed')})")

    def curves(self, estimator: str) -> EUIntervalCurves:
        """Per-interval mean raw EU, calibrated EU and gain of every run (Figs. 3-4)."""
        if estimator not in EU_ESTIMATORS:
            raise ValueError(f"estimator must be one of {EU_ESTIMATORS}; got {estimator!r}")
        ev = [r.evaluations[estimator] for r in self.runs]
        return EUIntervalCurves(
            estimator,
            raw=np.stack([e.reliability.mean_eu for e in ev]),
            calibrated=np.stack([e.calibrated_reliability.mean_eu for e in ev]),
            gain=np.stack([e.reliability.mean_gain for e in ev]),
        )

    def seed_values(self) -> dict:
        """estimator -> metric -> the metric of every run as a list, in seed order; also ``eece_bits``.

        What :func:`credalbook.papers.eu.compare` receives: the per-seed values, from which it computes
        means, standard errors and paired differences (runs of studies over the same seeds pair up).
        """
        out = {k: {m: self.values(k, m).tolist() for m in EU_METRICS} for k in EU_ESTIMATORS}
        for k in EU_ESTIMATORS:
            out[k]["eece_bits"] = [float(r.eece_bits[k]) for r in self.runs]
        return out

    def compare(self, paper: dict, *, paper_seeds: int = 6) -> dict:
        """Judge every metric against a paper table (estimator -> metric -> (mean, sd)): see :func:`compare_summary`."""
        return compare_summary(self.seed_values(), paper, paper_seeds=paper_seeds)


def _t_quantile(df: float) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (the normal's for df = ∞)."""
    from scipy.stats import t

    return float(t.ppf(0.975, df)) if math.isfinite(df) else 1.959963984540054


def _unknown_width(criterion: str, n: int) -> Judgement:
    return Judgement(
        INCONCLUSIVE,
        f"{criterion}; from {count_of(n, 'seed')} the standard error is unknown",
        None,
        "the spread over seeds (needs at least 2 seeds)",
        n,
    )


def _paper_agreement(values, paper, *, paper_seeds: int, name: str = "book") -> Judgement:
    r"""Judge a mean over seeds against a paper's mean ± sd over ``paper_seeds`` seeds.

    The two means agree when :math:`|\bar m - m_{paper}| \le t\,\sqrt{sd_{paper}^2/S_{paper} + sd^2/S}`,
    the combined standard error of the two means times Student's 95% quantile with the Welch-Satterthwaite
    degrees of freedom, and differ otherwise. Inconclusive with one seed (our standard error unknown) or
    when the band is as wide as the paper's value itself (the run could not tell it from zero).
    """
    mean, se, n = mean_se(values)
    pm, psd = (float(v) for v in paper)
    if n < 2:
        return _unknown_width(f"|{name} − paper| within t × the combined standard error: {mean:.4g} vs {pm:.4g}", n)
    pse = psd / math.sqrt(paper_seeds)
    var = se**2 + pse**2
    den = (se**4 / (n - 1) if se > 0 else 0.0) + (pse**4 / (paper_seeds - 1) if pse > 0 else 0.0)
    df = var**2 / den if den > 0 else math.inf
    z = _t_quantile(df)
    tol = z * math.sqrt(var)
    source = (
        f"Student-t 95% quantile {z:.2f} ({df:.1f} Welch df) × the combined standard error of the two means "
        f"(paper: its ±sd {psd:g} / √{paper_seeds} seeds = {pse:.2g}; book: sd / √{n} seeds = {se:.2g})"
    )
    if tol >= abs(pm):
        return Judgement(
            INCONCLUSIVE,
            f"|{name} − paper| ≤ {tol:.3g}: |{mean:.4g} − {pm:.4g}| = {abs(mean - pm):.3g}, "
            f"but the band is as wide as the paper's value: this run cannot tell it from 0",
            tol,
            source,
            n,
        )
    return close_to(mean, pm, tol=tol, tolerance_source=source, name=name, replicates=n)


def _seed_claim(values, *, relation: str, name: str, threshold: float = 0.0) -> Judgement:
    """Judge ``mean(values) relation threshold`` for per-seed values (paired differences, usually).

    The margin is Student's 95% quantile with ``n - 1`` degrees of freedom times the standard error of
    the mean over the ``n`` seeds; inconclusive with one seed.
    """
    mean, se, n = mean_se(values)
    if n < 2:
        return _unknown_width(f"{name} {relation} {threshold:g}: {mean:.4g}", n)
    z = _t_quantile(n - 1)
    source = f"Student-t 95% quantile {z:.2f} ({n - 1} df) × the standard error over {n} seeds ({se:.2g})"
    if threshold == 0.0:
        return sign_claim(mean, relation=relation, se=se, z=z, name=name, replicates=n, tolerance_source=source)
    return ordered(
        mean,
        threshold,
        relation=relation,
        se_a=se,
        z=z,
        names=(name, f"{threshold:g}"),
        replicates=n,
        tolerance_source=source,
    )


def compare_summary(values: dict, paper: dict, *, paper_seeds: int = 6) -> dict:
    r"""Judge a study's per-seed metrics (:meth:`EUStudy.seed_values`) against a paper table.

    ``paper``: estimator -> metric -> (mean, sd over ``paper_seeds`` seeds). Each metric's mean over our
    seeds agrees with the paper's when :math:`|\bar m - m_{paper}| \le t\sqrt{sd_{paper}^2/S_{paper} +
    sd^2/S}` (standard errors of the two means, Student's 95% quantile with Welch's degrees of freedom;
    :func:`credalbook.papers.criteria.close_to`); with one seed, or a band as wide as the paper's value,
    the verdict is inconclusive. Returns estimator -> metric -> (paper "mean ± sd", book "mean ± sd", Judgement).

    Examples
    --------
    >>> v = {"M": {m: [0.10, 0.11, 0.12] for m in EU_METRICS}, "E": {m: [0.5] for m in EU_METRICS}}
    >>> p = {k: {m: (0.1, 0.02) for m in EU_METRICS} for k in EU_ESTIMATORS}
    >>> out = compare_summary(v, p)
    >>> out["M"]["eece"][:2], out["M"]["eece"][2].verdict, out["E"]["eece"][2].verdict
    (('0.1 ± 0.02', '0.11 ± 0.01'), 'agrees', 'inconclusive')
    """
    out = {}
    for est in EU_ESTIMATORS:
        for m in EU_METRICS:
            vals = np.asarray(values[est][m], dtype=np.float64)
            (pm, psd) = paper[est][m]
            out.setdefault(est, {})[m] = (
                _fmt_mean_sd(pm, psd),
                _fmt_mean_sd(*_mean_sd(vals)),
                _paper_agreement(vals, (pm, psd), paper_seeds=paper_seeds),
            )
    return out


def _study(name: str, func, seeds, config: dict, progress: bool, n_jobs: int = 1) -> EUStudy:
    """``func(seed)`` for every seed (one run per seed: its own data, splits and GP fits) into an :class:`EUStudy`.

    The seeds go through ``credalbook._parallel.sweep``: ``n_jobs=1`` here one after another, otherwise
    through joblib (one seed per work unit; in worker processes the GPs train with one torch thread);
    ``func`` must be picklable (a module-level function or a :func:`functools.partial` of one).
    """
    seeds = [int(s) for s in (range(seeds) if isinstance(seeds, (int, np.integer)) else seeds)]
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    n_jobs = check_n_jobs(n_jobs)
    runs = tuple(
        progress_bar(sweep(func, [(s,) for s in seeds], n_jobs=n_jobs), total=len(seeds), progress=progress, desc=name)
    )
    return EUStudy(name=name, runs=runs, config=dict(config, seeds=seeds))
