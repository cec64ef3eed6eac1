r"""The experiments of Wu & Gales (2021) as parameterised functions on cached member logits.

Every experiment starts from :class:`~credalbook.papers.wu_gales.TopologyEnsemble` objects, the stored
validation and test logits (N, M, K) of M members of one topology
(:func:`credalbook.papers.wu_gales.topology_ensemble_logits`, each member cached on disk), and reuses the
criteria of :mod:`credalbook.metrics.regions`, the combinations of
:mod:`credalbook.calibration.combination` and the calibrators of :mod:`credalbook.calibration.ensemble`.
This module holds the calibration studies of Tables 1, 3-5 and Fig. 3; the others live in the modules of
their figures and tables (:mod:`~credalbook.papers.wu_gales.temperature`,
:mod:`~credalbook.papers.wu_gales.combinations`, :mod:`~credalbook.papers.wu_gales.propositions`,
:mod:`~credalbook.papers.wu_gales.toys`) and are importable from here too:

- :func:`temperature_study` — Fig. 1: members' and ensemble's ECE and accuracy against a temperature
  shared by the members, and reliability curves with the members at their optimal temperatures;
- :func:`calibration_study` — Tables 1 and 5: none / pre / post / dyn. on the ensemble of each
  topology, Acc, NLL, ACCE, ACE, ECCE, ECE and SKCE, mean ± 2σ over repeated runs;
  :func:`single_model_study` — Tables 3 and 4 (each member alone, with and without temperature
  scaling); :func:`region_study` — Fig. 3 (dyn. with R = 1, 2, ... regions);
- :func:`topology_combinations` — Fig. 2 and Tables 2, 6, 7: topology ensembles with uniform,
  Max-LL or AUC weights, structures and ensemble calibrated or not;
- :func:`proposition_checks` — Eq. 18/23 and Propositions 1, 2, 4 on a trained ensemble;
  :func:`appendix_toys` — App. A.3: Example 1, Alg. 1 (ensemble ACE ≈ 0.0697, Fig. 4 against ε) and
  Alg. 2 (sample ACE 0 against 9/32).

**Repeated runs.** The paper reports ±2σ over "10 runs of our experiment" without saying what a run
re-draws. Here a run is an ensemble of ``subset_size`` members drawn from the trained pool
(:func:`member_subsets`: all subsets when there are at most ``n_runs``, else ``n_runs`` distinct
random ones); the calibrators are re-fitted on the validation set for each run. Overlapping subsets
make the spread a lower bound on the spread over independently trained ensembles.

**Fitting.** As in App. A.4 the temperatures minimise the ECE (15 bins) on the validation set with
400 steps of SGD, learning rate 0.1 (``criterion="nll"`` is the option); dyn. uses equal-mass
regions of the ensemble's max probability (see :class:`~credalbook.calibration.DynamicTemperatureScaling`).

**The two readings of "pre".** Eq. 27 scales each member with its own temperature before the
average, but does not say what the temperatures are fitted to. ``"pre"`` fits all M temperatures
to the ECE of the *combined* prediction (``PreCombinationScaling(fit_to="ensemble")``); this is
the reading the paper's numbers imply: on CIFAR-100 its single LeNets have ECE 2.86 (Table 3, 90 %
of the images), their uncalibrated ensemble 11.55 and "pre" 3.24 (Table 1). Members that close to
calibrated change little when each is calibrated on its own, so that reading would leave the
ensemble near 11.55 (the ensemble of calibrated members is under-confident, Prop. 1 and Fig. 1).
``"pre_members"`` fits each temperature to its own member (``fit_to="members"``), the other
reading, shown beside it in the chapter; it is the one that adds to the ensemble's
under-confidence, not the paper's "pre".

**Standard errors.** Every study also keeps ``n_resamples`` bootstrap resamples of the test set
(the same resamples for every method, run and topology, so differences are paired): the ECE and
accuracy of each run and method on each resample (:attr:`CalibrationStudy.boot`,
:attr:`TopologyCombination.boot`). :func:`paired_estimate` turns them into a difference and its
standard error, which the comparison rows judge (:mod:`~credalbook.papers.wu_gales.resampling`).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Secs. 3-4, App. A.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._validation import check_choice, check_positive_int
from credalbook.cache import cached
from credalbook.metrics import calibrated_sampling_floor
from credalbook.metrics.criteria import criteria_summary
from credalbook.metrics.regions import DEFAULT_EPSILON
from credalbook.papers.report import Table
from credalbook.papers.wu_gales.combinations import (
    combination_configs,
    combination_table,
    topology_combinations,
    TopologyCombination,
)
from credalbook.papers.wu_gales.fitting import _fitted
from credalbook.papers.wu_gales.propositions import proposition_checks, PropositionChecks
from credalbook.papers.wu_gales.reported import _SUMMARY_KEYS, WG_METRICS, WG_UNITS
from credalbook.papers.wu_gales.resampling import (
    boot_weights,
    bootstrap_ece_accuracy,
    paired_estimate,
    WG_BOOT_METRICS,
    WG_N_BOOT,
)
from credalbook.papers.wu_gales.temperature import temperature_study, TemperatureStudy
from credalbook.papers.wu_gales.topologies import TopologyEnsemble
from credalbook.papers.wu_gales.toys import appendix_toys, ToyStudy, WG_EPSILONS

__all__ = [
    "WG_METHODS",
    "WG_EPSILONS",
    "WG_N_BOOT",
    "WG_BOOT_METRICS",
    "CalibrationStudy",
    "boot_weights",
    "bootstrap_ece_accuracy",
    "paired_estimate",
    "PropositionChecks",
    "TemperatureStudy",
    "TopologyCombination",
    "ToyStudy",
    "appendix_toys",
    "calibration_study",
    "calibration_table",
    "combination_configs",
    "combination_table",
    "ensemble_ece_floor",
    "member_subsets",
    "proposition_checks",
    "region_study",
    "single_model_study",
    "temperature_study",
    "topology_combinations",
]

#: The four rows of Tables 1 and 5.
WG_METHODS = ("none", "pre", "post", "dyn")


def member_subsets(n_members: int, subset_size: int, n_runs: int, *, seed=0) -> tuple:
    """Member subsets for repeated runs: all of them if there are at most `n_runs`, else `n_runs` random distinct ones.

    Examples
    --------
    >>> member_subsets(3, 2, 10)
    ((0, 1), (0, 2), (1, 2))
    >>> len(member_subsets(10, 9, 4, seed=0)), len(set(member_subsets(10, 5, 6, seed=1)))
    (4, 6)
    """
    m = check_positive_int(n_members, "n_members")
    size = check_positive_int(subset_size, "subset_size")
    runs = check_positive_int(n_runs, "n_runs")
    if size > m:
        raise ValueError(f"subset_size must be at most n_members = {m}; got {subset_size}")
    if math.comb(m, size) <= runs:
        return tuple(itertools.combinations(range(m), size))
    rng, chosen = np.random.default_rng(seed), []
    while len(chosen) < runs:
        s = tuple(sorted(int(i) for i in rng.choice(m, size=size, replace=False)))
        if s not in chosen:
            chosen.append(s)
    return tuple(chosen)


def _subset_run(
    logits_val, y_val, logits_test, y_test, subset, methods, regions, criterion, n_iter, epsilon, metrics, skce, weights
):
    """One run of :func:`_calibration_runs`: criteria (methods, metrics), bootstrap (B, methods, 2), temperatures."""
    zv, zt = logits_val[:, list(subset)], logits_test[:, list(subset)]
    values = np.empty((len(methods), len(metrics)))
    boot = np.empty((len(weights), len(methods), len(WG_BOOT_METRICS)))
    temps = []
    for j, (method, r) in enumerate(methods):
        predict, t = _fitted(method, zv, y_val, n_regions=r, regions=regions, criterion=criterion, n_iter=n_iter)
        p = predict(zt)
        row = criteria_summary(p, y_test, epsilon=epsilon, skce=skce)
        values[j] = [row[_SUMMARY_KEYS.get(k, k)] for k in metrics]
        boot[:, j] = bootstrap_ece_accuracy(p, y_test, weights, epsilon=epsilon)
        temps.append(t)
    return values, boot, temps


@cached(ignore=["n_jobs"])
def _calibration_runs(
    logits_val,
    y_val,
    logits_test,
    y_test,
    subsets,
    methods,
    *,
    regions,
    criterion,
    n_iter,
    epsilon,
    skce,
    n_resamples=WG_N_BOOT,
    boot_seed=0,
    n_jobs=1,
) -> dict:
    """Criteria (runs, methods, metrics), their bootstrap over test instances (B, runs, methods, 2) and the
    temperatures of each (method, R) in `methods` per subset; the runs (subsets) go through
    ``credalbook._parallel.sweep`` with ``n_jobs``."""
    metrics = WG_METRICS if skce else WG_METRICS[:-1]
    weights = boot_weights(len(y_test), n_resamples, seed=boot_seed)
    items = [
        (
            logits_val,
            y_val,
            logits_test,
            y_test,
            s,
            methods,
            regions,
            criterion,
            n_iter,
            epsilon,
            metrics,
            skce,
            weights,
        )
        for s in subsets
    ]
    runs = list(sweep(_subset_run, items, n_jobs=n_jobs))
    values, boot = np.stack([v for v, _, _ in runs]), np.stack([b for _, b, _ in runs], axis=1)
    return dict(values=values, metrics=metrics, temperatures=[t for _, _, t in runs], boot=boot)


@dataclass(frozen=True)
class CalibrationStudy:
    """Criteria of calibration methods over repeated runs (Tables 1, 3-5, Fig. 3).

    Attributes
    ----------
    topology : str
    methods : tuple of str  the row labels (``"none"``, ``"pre"``, ..., or ``"R=3"``)
    metrics : tuple of str  keys of :func:`~credalbook.metrics.criteria_summary`
    values : ndarray (runs, methods, metrics)  raw values (accuracy as a fraction)
    subsets : tuple of tuple  members of each run
    temperatures : list (runs) of list (methods) of ndarray  fitted temperatures
    n_regions : tuple of int  R of each method (0 where not dynamic)
    boot : ndarray (B, runs, methods, 2) or None  ECE and accuracy (:data:`WG_BOOT_METRICS`) on B
        bootstrap resamples of the test set, the same resamples for every run and method
    """

    topology: str
    methods: tuple
    metrics: tuple
    values: np.ndarray = field(repr=False)
    subsets: tuple = field(repr=False)
    temperatures: list = field(repr=False)
    n_regions: tuple = ()
    boot: np.ndarray | None = field(default=None, repr=False)

    def boot_runs(self, method: str, metric: str) -> np.ndarray:
        """Bootstrap values (B, runs) of ``"ece"`` or ``"accuracy"`` for one method."""
        check_choice(method, "method", self.methods)
        check_choice(metric, "metric", WG_BOOT_METRICS)
        if self.boot is None:
            raise ValueError("this study has no bootstrap values (boot=None)")
        return self.boot[:, :, self.methods.index(method), WG_BOOT_METRICS.index(metric)]

    def estimate(self, method: str, metric: str = "ece", minus: str | None = None) -> tuple[float, float]:
        """Mean over runs of ``method`` (minus ``minus``, paired) and its standard error (:func:`paired_estimate`)."""
        if minus is None:
            return paired_estimate(self.runs(method, metric), self.boot_runs(method, metric))
        return paired_estimate(
            self.runs(method, metric),
            self.boot_runs(method, metric),
            self.runs(minus, metric),
            self.boot_runs(minus, metric),
        )

    def plain(self, metrics=WG_BOOT_METRICS) -> dict:
        """Method -> metric -> ``{"runs": (R,), "boot": (B, R)}``: what the comparison rows need, as arrays."""
        return {m: {k: {"runs": self.runs(m, k), "boot": self.boot_runs(m, k)} for k in metrics} for m in self.methods}

    def runs(self, method: str, metric: str) -> np.ndarray:
        """Values of one metric for one method, shape (runs,)."""
        check_choice(method, "method", self.methods)
        check_choice(metric, "metric", self.metrics)
        return self.values[:, self.methods.index(method), self.metrics.index(metric)]

    def mean(self, method: str, metric: str) -> float:
        return float(self.runs(method, metric).mean())

    def two_sigma(self, method: str, metric: str) -> float:
        """Twice the sample standard deviation over runs (NaN for one run)."""
        v = self.runs(method, metric)
        return float(2 * v.std(ddof=1)) if len(v) > 1 else math.nan


@renamed(n_boot="n_resamples")
def calibration_study(
    ens: TopologyEnsemble,
    *,
    subset_size: int | None = None,
    n_runs: int = 10,
    methods: Sequence[str] = WG_METHODS,
    n_regions: int = 6,
    regions="equal_mass",
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    skce: bool = True,
    seed=0,
    n_resamples: int = WG_N_BOOT,
    n_jobs: int = 1,
) -> CalibrationStudy:
    """Table 1 / 5 for one topology: none, pre, post and dyn. on ensembles of `subset_size` members.

    Each run takes a member subset (:func:`member_subsets`), fits the calibrators on the validation
    logits and scores the calibrated ensemble on the test set with
    :func:`~credalbook.metrics.criteria_summary` (ε = 1/30: 15 bins), and on `n_resamples` bootstrap
    resamples of the test set (ECE and accuracy). ``"pre"`` fits the member temperatures to the
    ensemble's ECE; add ``"pre_members"`` to `methods` for temperatures fitted each to its own
    member (see the module docstring). Cached on disk.

    ``n_jobs`` runs the runs (member subsets) at once through joblib (-1: all cores; inside
    ``joblib.parallel_config(backend="dask")`` on a ``dask.distributed`` cluster); each run is fitted
    without random numbers and the bootstrap resamples are drawn once, so results do not depend on it
    (runs in worker processes use one torch thread). Not part of the cache key.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> rng = np.random.default_rng(0)
    >>> z = (3 * rng.normal(size=(400, 3, 4))).astype(np.float32); y = rng.integers(0, 4, 400)
    >>> ens = TopologyEnsemble(z[:200], y[:200], z[200:], y[200:], "LEN", (0, 1, 2), ([],) * 3, np.zeros(3), 0, {})
    >>> st = calibration_study(ens, subset_size=2, n_iter=20, skce=False)
    >>> len(st.subsets), st.mean("post", "accuracy") == st.mean("none", "accuracy")
    (3, True)
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    for m in methods:
        check_choice(m, "methods", WG_METHODS + ("ts", "pre_members"))
    size = ens.n_members if subset_size is None else subset_size
    subsets = member_subsets(ens.n_members, size, n_runs, seed=seed)
    spec = tuple((m, n_regions if m == "dyn" else 0) for m in methods)
    return _study(ens, subsets, spec, tuple(methods), regions, criterion, n_iter, epsilon, skce, n_resamples, n_jobs)


def _study(
    ens, subsets, spec, labels, regions, criterion, n_iter, epsilon, skce, n_resamples=WG_N_BOOT, n_jobs=1
) -> CalibrationStudy:
    out = _calibration_runs(
        ens.logits_val,
        ens.y_val,
        ens.logits_test,
        ens.y_test,
        subsets,
        spec,
        regions=regions,
        criterion=criterion,
        n_iter=n_iter,
        epsilon=epsilon,
        skce=skce,
        n_resamples=n_resamples,
        n_jobs=check_n_jobs(n_jobs),
    )
    return CalibrationStudy(
        topology=ens.topology,
        methods=labels,
        metrics=tuple(out["metrics"]),
        values=out["values"],
        subsets=subsets,
        temperatures=out["temperatures"],
        n_regions=tuple(r for _, r in spec),
        boot=out["boot"],
    )


@renamed(n_boot="n_resamples")
def single_model_study(
    ens: TopologyEnsemble,
    *,
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    n_resamples: int = WG_N_BOOT,
    n_jobs: int = 1,
) -> CalibrationStudy:
    """Tables 3 / 4: every member alone (runs = members), without ("none") and with temperature scaling ("ts").

    ``n_jobs``: as in :func:`calibration_study`.
    """
    subsets = tuple((m,) for m in range(ens.n_members))
    return _study(
        ens,
        subsets,
        (("none", 0), ("ts", 0)),
        ("none", "ts"),
        "equal_mass",
        criterion,
        n_iter,
        epsilon,
        False,
        n_resamples,
        n_jobs,
    )


@renamed(n_boot="n_resamples")
def region_study(
    ens: TopologyEnsemble,
    *,
    n_regions: Sequence[int] = (1, 2, 3, 4, 6, 8, 10),
    subset_size: int | None = None,
    n_runs: int = 10,
    regions="equal_mass",
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    seed=0,
    n_resamples: int = WG_N_BOOT,
    n_jobs: int = 1,
) -> CalibrationStudy:
    """Fig. 3: dyn. with each number of regions R (methods ``"R=1"``, ...; R = 1 is post), no SKCE.

    ``n_jobs``: as in :func:`calibration_study`.
    """
    rs = tuple(check_positive_int(r, "n_regions") for r in n_regions)
    size = ens.n_members if subset_size is None else subset_size
    subsets = member_subsets(ens.n_members, size, n_runs, seed=seed)
    return _study(
        ens,
        subsets,
        tuple(("dyn", r) for r in rs),
        tuple(f"R={r}" for r in rs),
        regions,
        criterion,
        n_iter,
        epsilon,
        False,
        n_resamples,
        n_jobs,
    )


def ensemble_ece_floor(ensembles: Mapping[str, TopologyEnsemble], *, seed=0, n_draws: int = 100) -> tuple:
    """The ECE (1e-2) that an exactly calibrated ensemble shows on these test sets: (mean, sd) over the draws of
    :func:`credalbook.metrics.calibrated_sampling_floor` of each topology's ensemble, averaged over the topologies.
    A difference of ECEs smaller than it cannot decide a claim."""
    if not isinstance(ensembles, Mapping) or not ensembles:
        raise ValueError("ensembles must be a non-empty mapping of topology -> TopologyEnsemble")
    floor = [calibrated_sampling_floor(e.probs_test, "ece", n_draws=n_draws, seed=seed) for e in ensembles.values()]
    mean, sd = 100 * np.mean(floor, axis=0)
    return float(mean), float(sd)


def _pm(mean, two_sigma, unit) -> str:
    if math.isnan(two_sigma):
        return f"{mean / unit:.4g}"
    return f"{mean / unit:.4g} ± {two_sigma / unit:.2g}"


def calibration_table(studies: Sequence[CalibrationStudy], *, paper: Mapping | None = None) -> Table:
    """Studies side by side in the paper's units (mean ± 2σ), each row followed by the paper's, if given.

    `paper`: topology -> method -> metric -> (mean, 2σ) in paper units, e.g. ``WG_PAPER_TABLE1``.
    """
    rows = {}
    for st in studies:
        for method in st.methods:
            rows[f"{st.topology} · {method}"] = {
                m: _pm(st.mean(method, m), st.two_sigma(method, m), WG_UNITS[m]) for m in st.metrics
            }
            ref = (paper or {}).get(st.topology, {}).get(method)
            if ref:
                rows[f"{st.topology} · {method} (paper)"] = {
                    m: _pm(ref[m][0], ref[m][1], 1.0) for m in st.metrics if m in ref
                }
    return Table(rows, index_name="topology · calibration (accuracy in %, ACCE, ACE, SKCE in 1e-4, ECCE, ECE in 1e-2)")
