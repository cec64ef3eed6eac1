r"""Empirical Type I and Type II errors of the set calibration test (Mortier et al. 2023, Sec. 4.1).

:func:`set_test_error_rates` draws R datasets of a scenario (:func:`~credalbook.synthetic.credal_scenario`),
runs Alg. 1 on each with every measure, and keeps each test's statistic and null sample, so the
decision at *any* significance level is available afterwards without rerunning anything
(:meth:`ErrorRateStudy.rejection_rates`). This is how Fig. 1 (right) and App. Figs. 2-4 are made.

Work is split into fixed chunks of datasets (so results do not depend on the number of workers).
Inside a chunk, data generation and the D null replicates of every dataset are one vectorised
computation; the minimisation over :math:`\Delta_M` runs per dataset. Chunks run in parallel with
joblib, and the whole study is cached on disk.

A study keeps every null sample (T × R × D floats: megabytes at R = 1000). What the figures and
tables need is far smaller: :meth:`ErrorRateStudy.summary` keeps each test's decisions on each dataset
at the figures' levels under both decision rules, and its p-values (:class:`ErrorRateSummary`, with the
same ``error_rates``/``rejection_counts`` API), which is what a chapter records
(:func:`set_test_error_summary`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from joblib import delayed, Parallel
from scipy import stats

from credalbook._deprecation import renamed
from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_positive_int, check_probability
from credalbook.cache import cached
from credalbook.papers.mortier.measures import core_measure
from credalbook.stats.bootstrap import (
    DECISION_RULES,
    exact_size,
    MeasureObjective,
    minimise_objective,
    null_statistics,
    reject,
    RESAMPLING,
    SOLVERS,
    WEIGHT_PRIORS,
)
from credalbook.stats.measures import calibration_measure
from credalbook.synthetic.set_scenarios import credal_scenario, SCENARIOS

__all__ = [
    "ErrorRateStudy",
    "ErrorRateSummary",
    "set_test_error_rates",
    "set_test_error_summary",
    "PAPER_MEASURES",
    "PAPER_ALPHAS",
    "PAPER_SETTINGS",
]

#: The seven tests of Fig. 1: (measure, number of bins).
PAPER_MEASURES = (
    ("skce_ul", None),
    ("hl", 5),
    ("hl", 10),
    ("ece_conf", 5),
    ("ece_conf", 10),
    ("ece_cwise", 5),
    ("ece_cwise", 10),
)
#: Significance levels of the figures (authors' code).
PAPER_ALPHAS = (0.05, 0.13, 0.21, 0.30, 0.38, 0.46, 0.54, 0.62, 0.70, 0.79, 0.87, 0.95)
#: (N, M, K, u) of Fig. 1 and App. Figs. 2, 3, 4 (settings, not results: the figures' captions; the results are
#: in reported.json).
PAPER_SETTINGS = {
    "Fig. 1": dict(n_instances=100, n_members=10, n_classes=10, u=0.01),
    "Fig. 2": dict(n_instances=100, n_members=10, n_classes=10, u=0.1),
    "Fig. 3": dict(n_instances=100, n_members=100, n_classes=10, u=0.01),
    "Fig. 4": dict(n_instances=100, n_members=10, n_classes=100, u=0.01),
}
CHUNK = 20  # datasets per work unit


def _levels(alphas) -> np.ndarray:
    return np.array([check_probability(a, "alphas") for a in np.atleast_1d(alphas)], dtype=np.float64)


@dataclass(frozen=True)
class ErrorRateStudy:
    """Statistics and null samples of T tests on R datasets of one scenario.

    Attributes
    ----------
    scenario : str
    measures : tuple of str
        Names of the T measures.
    statistics : ndarray (T, R)
        :math:`t = \\min_{\\boldsymbol\\lambda} g(\\hat{\\mathbf p}_{\\boldsymbol\\lambda})` per test and dataset.
    null : ndarray (T, R, D)
        The null samples :math:`t_{0,d}`.
    n_evaluations : ndarray (T, R)
        Objective evaluations of the minimiser.
    config : dict
    seconds : float
        Wall-clock time of the computation (not of a cache hit).
    """

    scenario: str
    measures: tuple
    statistics: np.ndarray = field(repr=False)
    null: np.ndarray = field(repr=False)
    n_evaluations: np.ndarray = field(repr=False)
    config: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_datasets(self) -> int:
        return self.statistics.shape[1]

    @property
    def n_bootstrap(self) -> int:
        """D, the null samples per test."""
        return self.null.shape[-1]

    def rejections(self, alphas=PAPER_ALPHAS, *, rule: str = "t") -> np.ndarray:
        """Whether each test rejects on each dataset, shape (T, len(alphas), R) (Alg. 1, line 8).

        ``rule``: ``"t"`` (the paper, :math:`t > q_{1-\\alpha}`) or ``"abs"`` (the authors' code,
        :math:`|t| > q_{1-\\alpha}`); see :data:`~credalbook.stats.DECISION_RULES`.
        """
        alphas = _levels(alphas)
        q = np.quantile(self.null, 1 - alphas, axis=-1)  # (A, T, R)
        return np.swapaxes(reject(self.statistics[None], q, rule), 0, 1)

    @property
    def n_tests(self) -> int:
        """Tests run: measures × datasets."""
        return len(self.measures) * self.n_datasets

    def rejection_counts(self, alphas=PAPER_ALPHAS, *, rule: str = "t") -> dict:
        """Measure name → number of datasets (of R) on which the test rejects, one int per level."""
        counts = self.rejections(alphas, rule=rule).sum(axis=-1)
        return {name: [int(c) for c in row] for name, row in zip(self.measures, counts)}

    def rejection_rates(self, alphas=PAPER_ALPHAS, *, rule: str = "t") -> np.ndarray:
        """Fraction of datasets on which each test rejects, shape (T, len(alphas)) (Alg. 1, line 8)."""
        return self.rejections(alphas, rule=rule).mean(axis=-1)

    def error_rates(self, alphas=PAPER_ALPHAS, *, rule: str = "t") -> np.ndarray:
        """Type I error (H0 scenarios S1, "H0-…": rejection rate) or Type II error (1 − rejection rate), (T, A)."""
        rates = self.rejection_rates(alphas, rule=rule)
        return rates if self.is_null else 1.0 - rates

    @property
    def is_null(self) -> bool:
        """Whether the scenario satisfies H0 (Mortier's S1, Jürgens et al.'s "H0-const"/"H0-inst")."""
        return self.scenario == "S1" or self.scenario.startswith("H0")

    def errors_at(self, alpha: float) -> dict:
        """Measure name → Type I (S1) or Type II (S2, S3) error at one significance level."""
        return dict(zip(self.measures, self.error_rates([alpha])[:, 0]))

    def type_one_excess(self, alphas=PAPER_ALPHAS, *, band: float | None = None) -> dict:
        """Measure name → largest excess of the rejection rate over the twelve (or given) levels.

        With ``band=None`` the excess is over α itself; with e.g. ``band=0.95`` it is over the upper
        end of the central binomial band of R tests of exact size
        :func:`~credalbook.stats.exact_size` (α, D), so a positive value is a significant excess.
        """
        alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
        reference = alphas
        if band is not None:
            level = check_probability(band, "band")
            r, d = self.n_datasets, self.n_bootstrap
            reference = np.array([stats.binom.ppf((1 + level) / 2, r, exact_size(a, d)) / r for a in alphas])
        return dict(zip(self.measures, (self.rejection_rates(alphas) - reference).max(axis=1)))

    def p_values(self) -> np.ndarray:
        """:math:`(1 + \\#\\{t_{0,d} \\ge t\\}) / (1 + D)` per test and dataset, (T, R)."""
        return (1 + (self.null >= self.statistics[..., None]).sum(axis=-1)) / (1 + self.null.shape[-1])

    def summary(self, alphas=PAPER_ALPHAS) -> ErrorRateSummary:
        """The study without its null samples: decisions at ``alphas`` (both rules), p-values, NaN nulls.

        Every rate, count and error this study gives at a level of ``alphas`` the summary gives too,
        equal bit for bit (they are the same decisions); its size is about T × R × (2 len(alphas) + 5)
        bytes before compression instead of 8 T × R × D.

        Examples
        --------
        >>> study = set_test_error_rates.__wrapped__("S1", n_datasets=6, n_instances=20, n_members=2, n_classes=3,
        ...                                          u=0.5, n_resamples=10, measures=("skce_ul", ("hl", 5)),
        ...                                          n_jobs=1, progress=False)
        >>> s = study.summary()
        >>> s.rejection_counts([0.05, 0.3]) == study.rejection_counts([0.05, 0.3])
        True
        >>> bool((s.p_values() == study.p_values()).all()), s.n_datasets, s.n_bootstrap
        (True, 6, 10)
        """
        levels = _levels(alphas)
        if len(np.unique(levels)) != len(levels):
            raise ValueError(f"alphas must not repeat a level; got {list(alphas)}")
        return ErrorRateSummary(
            scenario=self.scenario,
            measures=tuple(self.measures),
            alphas=tuple(float(a) for a in levels),
            rejected=self.rejections(levels),
            rejected_abs=self.rejections(levels, rule="abs"),
            null_at_least=(self.null >= self.statistics[..., None]).sum(axis=-1).astype(np.int32),
            null_nan=np.isnan(self.null).any(axis=-1),
            mean_evaluations=np.asarray(self.n_evaluations, dtype=np.float64).mean(axis=1),
            n_bootstrap=self.n_bootstrap,
            config=dict(self.config),
            seconds=float(self.seconds),
        )


@dataclass(frozen=True)
class ErrorRateSummary:
    """An :class:`ErrorRateStudy` without its null samples: what its figures and tables need, small.

    It answers ``rejections``, ``rejection_counts``, ``rejection_rates``, ``error_rates``,
    ``errors_at`` and ``type_one_excess`` as the study does, at the levels it keeps (``alphas``;
    another level raises ValueError), and ``p_values``. Made by :meth:`ErrorRateStudy.summary`.

    Attributes
    ----------
    scenario : str
    measures : tuple of str
        Names of the T measures.
    alphas : tuple of float
        The A significance levels of the decisions.
    rejected : ndarray of bool (T, A, R)
        The paper's decisions :math:`t > q_{1-\\alpha}` (Alg. 1, line 8).
    rejected_abs : ndarray of bool (T, A, R)
        The authors' code's :math:`|t| > q_{1-\\alpha}`.
    null_at_least : ndarray of int (T, R)
        :math:`\\#\\{t_{0,d} \\ge t\\}`, the p-values' counts.
    null_nan : ndarray of bool (T, R)
        Whether the null sample holds a NaN (the authors' HL statistic; such a test never rejects).
    mean_evaluations : ndarray (T,)
        Mean objective evaluations of the minimiser per test.
    n_bootstrap : int
        D (a recorded field: the name of the records).
    config : dict
        The study's configuration.
    seconds : float
        Wall-clock time of the study's computation.
    """

    scenario: str
    measures: tuple
    alphas: tuple
    rejected: np.ndarray = field(repr=False)
    rejected_abs: np.ndarray = field(repr=False)
    null_at_least: np.ndarray = field(repr=False)
    null_nan: np.ndarray = field(repr=False)
    mean_evaluations: np.ndarray = field(repr=False)
    n_bootstrap: int = 0
    config: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_datasets(self) -> int:
        return self.rejected.shape[-1]

    # what follows from the decisions is computed as for the study, by the same code
    n_tests = ErrorRateStudy.n_tests
    is_null = ErrorRateStudy.is_null
    rejection_counts = ErrorRateStudy.rejection_counts
    rejection_rates = ErrorRateStudy.rejection_rates
    error_rates = ErrorRateStudy.error_rates
    errors_at = ErrorRateStudy.errors_at
    type_one_excess = ErrorRateStudy.type_one_excess

    def rejections(self, alphas=PAPER_ALPHAS, *, rule: str = "t") -> np.ndarray:
        """Whether each test rejects on each dataset, shape (T, len(alphas), R), at levels among those kept
        (``alphas``); see :meth:`ErrorRateStudy.rejections`."""
        check_choice(rule, "rule", DECISION_RULES)
        levels = _levels(alphas)
        kept = np.asarray(self.alphas, dtype=np.float64)
        idx = []
        for a in levels:
            hit = np.flatnonzero(np.abs(kept - a) <= 1e-12)
            if hit.size == 0:
                raise ValueError(
                    f"alphas must be among the summary's levels {self.alphas}; got {a:g} "
                    "(summarise the study at it: ErrorRateStudy.summary(alphas=...))"
                )
            idx.append(int(hit[0]))
        return (self.rejected_abs if rule == "abs" else self.rejected)[:, idx]

    def p_values(self) -> np.ndarray:
        """:math:`(1 + \\#\\{t_{0,d} \\ge t\\}) / (1 + D)` per test and dataset, (T, R)."""
        return (1 + self.null_at_least) / (1 + self.n_bootstrap)


#: The authors' Hosmer-Lemeshow statistic as a measure of the studies: ``("hl_authors", B)``.
AUTHORS_HL = "hl_authors"


def _measures(specs):
    out = []
    for spec in specs:
        name, n_bins = (spec, None) if isinstance(spec, str) else tuple(spec)
        if name == AUTHORS_HL:  # NaN where a cell has no expected count, as in tfmortie/calibration's hl
            b = n_bins or 10
            out.append(calibration_measure("hosmer_lemeshow", n_bins=b, variant="authors"))
        else:
            out.append(calibration_measure(core_measure(name), n_bins=n_bins or 10))
    return out


def _run_chunk(
    scenario,
    n_datasets,
    setting,
    specs,
    n_resamples,
    solver,
    solver_options,
    weight_prior,
    resample,
    scenario_options,
    seed_seq,
):
    data_seq, *test_seqs = seed_seq.spawn(1 + len(specs))
    sc = credal_scenario(
        scenario, n_datasets=n_datasets, **setting, **scenario_options, seed=np.random.default_rng(data_seq)
    )
    stats = np.empty((len(specs), n_datasets))
    nfev = np.empty((len(specs), n_datasets), dtype=np.int64)
    stalls = np.zeros((len(specs), n_datasets), dtype=np.int64)
    nulls = np.empty((len(specs), n_datasets, n_resamples))
    m = sc.ens_probs.shape[2]
    for t, (g, seq) in enumerate(zip(_measures(specs), test_seqs)):
        rng = np.random.default_rng(seq)
        nulls[t] = null_statistics(sc.ens_probs, g.func, n_resamples, weight_prior, resample, rng)
        for r in range(n_datasets):
            obj = MeasureObjective(sc.ens_probs[r], sc.labels[r], g.func)
            w = minimise_objective(obj, m, solver, solver_options, rng)
            # the authors' HL keeps its NaN (which never rejects, as in their code); the objective caps it
            stats[t, r] = (
                g.func(np.einsum("nmk,m->nk", sc.ens_probs[r], w), sc.labels[r])
                if g.name.startswith("HL authors")
                else obj(w)
            )
            nfev[t, r] = obj.n_evaluations
            stalls[t, r] = getattr(obj, "n_stalls", 0)
    return stats, nulls, nfev, stalls


def stall_config(solver_options: dict | None, stalls: np.ndarray) -> dict:
    """``{"n_stalls": k, "stalls": [[...], ...]}``, the minimisations that NLopt's watchdog ended
    (``solver_options["stall_seconds"]``, see ``credalbook.stats.minimise``): their number and, per test and dataset
    (T, R), how often, for a study's config when the watchdog ran; else ``{}`` (a study without it keeps the config,
    and the cache key, it always had)."""
    if "stall_seconds" not in (solver_options or {}):
        return {}
    stalls = np.asarray(stalls, dtype=np.int64)
    return {"n_stalls": int(stalls.sum()), "stalls": stalls.tolist()}


@renamed(n_bootstrap="n_resamples")
@cached(ignore=["n_jobs", "progress"])
def set_test_error_rates(
    scenario: str,
    *,
    n_datasets: int = 1000,
    n_instances: int = 100,
    n_members: int = 10,
    n_classes: int = 10,
    u: float = 0.01,
    measures=PAPER_MEASURES,
    n_resamples: int = 100,
    solver: str = "cobyla_powell",
    solver_options: dict | None = None,
    weight_prior: str = "uniform",
    resample: str = "bootstrap",
    scenario_prior: str = "uniform",
    segment_start: str = "mean",
    outside_start: str = "start",
    seed: int = 0,
    n_jobs: int = -1,
    progress: bool = True,
) -> ErrorRateStudy:
    r"""Run Alg. 1 with every measure on R datasets of a scenario (Mortier et al. 2023, Sec. 4.1).

    Parameters
    ----------
    scenario : {"S1", "S2", "S3"}
    n_datasets : int, default 1000
        R.
    n_instances, n_members, n_classes, u
        (N, M, K, u); see :data:`PAPER_SETTINGS`.
    measures : sequence of (name, n_bins) or names
        Default: the paper's seven tests (:data:`PAPER_MEASURES`). ``("hl_authors", B)`` is the
        authors' Hosmer-Lemeshow statistic (``variant="authors"`` of
        :func:`~credalbook.stats.hosmer_lemeshow_statistic`); its NaN statistics and NaN null
        quantiles never reject, as in their code.
    n_resamples : int, default 100
        D.
    solver : str, default "cobyla_powell"
        Minimiser of Alg. 1 line 7 (see :func:`~credalbook.stats.minimise_calibration_measure`); the
        default is Powell's COBYLA, the algorithm the authors ran.
    solver_options : dict, optional
    weight_prior : {"uniform", "sparse"}
        Null weights of the test (Alg. 1 line 3): Dir(1) (the paper, and the authors' synthetic
        experiments, which pass ``l_prior = 1``) or Dir(1/M) (their sampler's default).
    resample : {"bootstrap", "permutation"}
        Alg. 1 line 2 (paper) or the authors' permutation.
    scenario_prior : {"uniform", "sparse"}
        S1's calibrated weights (paper: uniform; authors' code: sparse).
    segment_start : {"mean", "centre"}
        See :func:`~credalbook.synthetic.credal_scenario`.
    outside_start : {"start", "end"}
        See :func:`~credalbook.synthetic.credal_scenario` (``"end"``: the authors' ``getBoundary``).
    seed : int
    n_jobs : int, default -1
        Parallel workers (joblib; -1 = all cores). Results do not depend on it.
    progress : bool

    Returns
    -------
    ErrorRateStudy
    """
    check_choice(scenario, "scenario", SCENARIOS)
    r = check_positive_int(n_datasets, "n_datasets")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    check_choice(solver, "solver", SOLVERS)
    check_choice(weight_prior, "weight_prior", WEIGHT_PRIORS)
    check_choice(resample, "resample", RESAMPLING)
    specs = tuple(measures)
    if not specs:
        raise ValueError("measures must name at least one measure")
    names = tuple(g.name for g in _measures(specs))
    setting = dict(n_instances=n_instances, n_members=n_members, n_classes=n_classes, u=u)
    scenario_options = dict(weight_prior=scenario_prior, segment_start=segment_start)
    if outside_start != "start":  # only then, so that the cache keys of the default studies do not change
        scenario_options["outside_start"] = outside_start
    sizes = [min(CHUNK, r - lo) for lo in range(0, r, CHUNK)]
    seqs = np.random.SeedSequence(seed).spawn(len(sizes))
    start = time.perf_counter()
    jobs = (
        delayed(_run_chunk)(
            scenario,
            size,
            setting,
            specs,
            n_resamples,
            solver,
            dict(solver_options or {}),
            weight_prior,
            resample,
            scenario_options,
            seq,
        )
        for size, seq in zip(sizes, seqs)
    )
    parts = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    results = list(progress_bar(parts, total=len(sizes), desc=f"{scenario} ({r} datasets)", progress=progress))
    stats, nulls, nfev, stalls = (np.concatenate([res[i] for res in results], axis=1) for i in range(4))
    config = dict(
        scenario=scenario,
        n_datasets=r,
        **setting,
        measures=specs,
        n_bootstrap=n_resamples,
        solver=solver,
        solver_options=dict(solver_options or {}),
        weight_prior=weight_prior,
        resample=resample,
        scenario_prior=scenario_prior,
        segment_start=segment_start,
        outside_start=outside_start,
        seed=seed,
        **stall_config(solver_options, stalls),
    )
    return ErrorRateStudy(scenario, names, stats, nulls, nfev, config, time.perf_counter() - start)


def set_test_error_summary(scenario: str, *, alphas=PAPER_ALPHAS, **options) -> ErrorRateSummary:
    """:func:`set_test_error_rates` (cached) summarised at the levels ``alphas`` (:meth:`ErrorRateStudy.summary`).

    What a chapter records of an error-rate study: a few kilobytes instead of the null samples' megabytes.
    ``options`` are those of :func:`set_test_error_rates`.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> s = set_test_error_summary("S2", n_datasets=4, n_instances=20, n_members=2, n_classes=3, u=0.5,
    ...                            n_resamples=10, measures=("skce_ul",), n_jobs=1, progress=False)
    >>> s.rejected.shape, s.error_rates([0.05, 0.95]).shape
    ((1, 12, 4), (1, 2))
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(CREDALBOOK_CACHE_DIR=old)
    """
    return set_test_error_rates(scenario, **options).summary(alphas)
