r"""The experiments of Wu & Gales (2021) as parameterised functions on cached member logits.

Every experiment starts from :class:`~credalbook.papers.wu_gales.TopologyEnsemble` objects, the stored
validation and test logits (N, M, K) of M members of one topology
(:func:`credalbook.papers.wu_gales.topology_ensemble_logits`, each member cached on disk), and reuses the
criteria of :mod:`credalbook.metrics.regions`, the combinations of
:mod:`credalbook.calibration.combination` and the calibrators of :mod:`credalbook.calibration.ensemble`:

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
standard error, which the comparison rows judge.

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
from scipy.special import softmax

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._validation import check_choice, check_positive_int
from credalbook.cache import cached
from credalbook.calibration.combination import (
    auc_weights,
    average_members,
    ensemble_calibration,
    ensemble_confidence_gap,
    EnsembleCalibration,
    ml_weights,
    perturb_non_top_label,
    regional_confidence,
    RegionalConfidence,
)
from credalbook.calibration.ensemble import DynamicTemperatureScaling, PostCombinationScaling, PreCombinationScaling
from credalbook.metrics.classification import ece
from credalbook.metrics.criteria import criteria_summary
from credalbook.metrics.regions import acce, all_label_ece, DEFAULT_EPSILON, ecce, global_top_label_gap, region_ids
from credalbook.metrics.reliability import reliability_curve, ReliabilityCurve
from credalbook.papers.report import Table
from credalbook.papers.wu_gales.reported import WG_METRICS, WG_PAPER_COMBINATION, WG_UNITS
from credalbook.papers.wu_gales.temperature import temperature_sweep, TemperatureSweep
from credalbook.papers.wu_gales.topologies import TopologyEnsemble
from credalbook.papers.wu_gales.toys import (
    all_vs_top_label_example,
    calibrated_members_ensemble,
    paired_label_predictions,
    paired_label_theoretical_ace,
)

#: The paper's name of a criterion -> its key in :func:`~credalbook.metrics.criteria_summary`, where they
#: differ: Wu & Gales' all-label "ACE" (Eq. 12) is ``all_label_ece`` in the library, whose ``ace`` is
#: the adaptive calibration error of Nixon et al. (2019). The paper's tables keep their column names.
_SUMMARY_KEYS = {"ace": "all_label_ece"}

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
    "member_subsets",
    "proposition_checks",
    "region_study",
    "single_model_study",
    "temperature_study",
    "topology_combinations",
]

#: The four rows of Tables 1 and 5.
WG_METHODS = ("none", "pre", "post", "dyn")
#: Region half-widths of the Fig. 4 curves (1/2 and above: one region, the global criteria).
WG_EPSILONS = (0.002, 0.005, 0.01, 1 / 60, 1 / 30, 0.05, 0.1, 0.2, 0.3, 0.5)
_STRUCT = (None, "post", "dyn")
#: Bootstrap resamples of the test set behind the standard errors of the comparison rows.
WG_N_BOOT = 200
#: What each bootstrap resample records, in order.
WG_BOOT_METRICS = ("ece", "accuracy")


@renamed(n_boot="n_resamples")
def boot_weights(n: int, n_resamples: int = WG_N_BOOT, *, seed=0) -> np.ndarray:
    """Multinomial counts (n_resamples, n) of ``n_resamples`` bootstrap resamples of n instances (seeded, so
    every study of one test set uses the same resamples).

    >>> w = boot_weights(5, 3, seed=0)
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    n, b = check_positive_int(n, "n"), check_positive_int(n_resamples, "n_resamples")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(b, n))
    out = np.zeros((b, n))
    np.add.at(out, (np.repeat(np.arange(b), n), idx.ravel()), 1.0)
    return out


def bootstrap_ece_accuracy(probs, labels, weights, *, epsilon: float = DEFAULT_EPSILON) -> np.ndarray:
    """Top-label ECE and accuracy of ``probs`` on each bootstrap resample: shape (B, 2).

    ``weights`` (B, N) are resampling counts (:func:`boot_weights`); with all-ones weights this is
    exactly :func:`~credalbook.metrics.ece` and the accuracy (the regions are those of the full sample).

    >>> rng = np.random.default_rng(0)
    >>> p = softmax(2 * rng.normal(size=(300, 4)), axis=1); y = rng.integers(0, 4, 300)
    >>> out = bootstrap_ece_accuracy(p, y, np.ones((1, 300)))
    >>> bool(np.isclose(out[0, 0], ece(p, y))), bool(np.isclose(out[0, 1], (p.argmax(1) == y).mean()))
    (True, True)
    """
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels)
    w = np.asarray(weights, dtype=np.float64)
    n = len(p)
    yhat = p.argmax(axis=1)
    conf = p[np.arange(n), yhat]
    correct = (yhat == y).astype(np.float64)
    ids, n_regions = region_ids(conf, epsilon)
    resid = np.zeros((n, n_regions))
    resid[np.arange(n), ids] = conf - correct
    return np.stack([np.abs(w @ resid).sum(axis=1) / n, w @ correct / n], axis=1)


def paired_estimate(runs_a, boot_a, runs_b=None, boot_b=None) -> tuple[float, float]:
    """Mean over runs of ``a − b`` (or of ``a``) and its standard error.

    ``runs_*`` (R,) are the values of the runs on the test set; ``boot_*`` (B, R) the same on B
    bootstrap resamples of the test set, shared by ``a`` and ``b`` (a paired difference). The
    standard error combines the bootstrap spread of the mean over runs (test-set sampling) with
    the spread over runs, ``sd/√R`` (members and fits; a lower bound where runs share members).

    >>> a, b = np.array([0.05, 0.06]), np.array([0.03, 0.035])
    >>> ba, bb = a + np.array([[0.01], [-0.01], [0.0]]), b + np.array([[0.008], [-0.012], [0.0]])
    >>> d, se = paired_estimate(a, ba, b, bb)
    >>> round(d, 4), round(se, 4)
    (0.0225, 0.0028)
    """
    ra, ba = np.asarray(runs_a, dtype=float).ravel(), np.asarray(boot_a, dtype=float)
    ba = ba.reshape(len(ba), -1)
    if runs_b is not None:
        ra = ra - np.asarray(runs_b, dtype=float).ravel()
        ba = ba - np.asarray(boot_b, dtype=float).reshape(len(ba), -1)
    boot_se = float(ba.mean(axis=1).std(ddof=1)) if len(ba) > 1 else 0.0
    run_se = float(ra.std(ddof=1) / math.sqrt(len(ra))) if len(ra) > 1 else 0.0
    return float(ra.mean()), math.hypot(boot_se, run_se)


def _probs(logits) -> np.ndarray:
    return softmax(np.asarray(logits, dtype=np.float64), axis=-1)


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


def _calibrator(method: str, n_regions: int, regions, criterion: str, weights=None):
    if method in ("pre", "pre_members"):  # temperatures fitted to the ensemble ("pre") or each to its member
        target = "ensemble" if method == "pre" else "members"
        return PreCombinationScaling(fit_to=target, criterion=criterion, weights=weights)
    if method in ("post", "ts"):
        return PostCombinationScaling(criterion=criterion, weights=weights)
    return DynamicTemperatureScaling(n_regions, regions=regions, criterion=criterion, weights=weights)


def _fitted(method, z_val, y_val, *, n_regions=6, regions="equal_mass", criterion="ece", n_iter=400, weights=None):
    """`method` fitted on validation logits: a map from logits to calibrated probabilities, and its temperatures."""
    if method in (None, "none"):
        return (lambda z: average_members(_probs(z), weights=weights)), np.empty(0)
    # App. A.4: SGD, learning rate 0.1, 400 iterations (the library's default fits to convergence instead)
    cal = _calibrator(method, n_regions, regions, criterion, weights).fit(z_val, y_val, optimizer="sgd", n_iter=n_iter)
    return cal.predict_proba, np.atleast_1d(cal.temperatures if hasattr(cal, "temperatures") else cal.temperature)


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


# ----------------------------------------------------------------------------------------------- Fig. 1
@dataclass(frozen=True)
class TemperatureStudy:
    """Fig. 1 for one topology (test set).

    Attributes
    ----------
    topology : str
    sweep : TemperatureSweep  ECE and accuracy of members, "pre" ensemble and post prediction against t
    member_curves : list of ReliabilityCurve  each member at its own optimal temperature
    calibrated_members_curve : ReliabilityCurve  the ensemble of those calibrated members
    calibrated_ensemble_curve : ReliabilityCurve  the ensemble at its optimal shared temperature
    calibrated_members_gap : float  global top-label gap (confidence − accuracy) of the ensemble of
        calibrated members; negative: under-confident
    calibrated_members_ece : float
    calibrated_members_gap_se : float  standard error of that gap over the test instances (sd/√N)
    accuracy_gain : float  the ensemble's accuracy (t = 1) minus its members' mean accuracy
    """

    topology: str
    sweep: TemperatureSweep = field(repr=False)
    member_curves: list = field(repr=False)
    calibrated_members_curve: ReliabilityCurve = field(repr=False)
    calibrated_ensemble_curve: ReliabilityCurve = field(repr=False)
    calibrated_members_gap: float = math.nan
    calibrated_members_ece: float = math.nan
    calibrated_members_gap_se: float = math.nan
    accuracy_gain: float = math.nan


def temperature_study(
    ens: TopologyEnsemble, *, temperatures=None, n_bins: int = 15, epsilon: float = DEFAULT_EPSILON
) -> TemperatureStudy:
    """Fig. 1: :func:`~credalbook.papers.wu_gales.temperature_sweep` on the test logits and reliability curves.

    Optimal temperatures are read off the sweep on the test set, as the paper's figure does.

    Examples
    --------
    Members that share a signal but add their own noise, each twice too sharp:

    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=(2000, 1, 4)); y = np.array([rng.choice(4, p=p) for p in softmax(s[:, 0], axis=1)])
    >>> z = 2 * (s + 0.7 * rng.normal(size=(2000, 3, 4)))
    >>> st = temperature_study(TopologyEnsemble(z, y, z, y, "RSN", (0, 1, 2), ([],) * 3, np.zeros(3), 0, {}))
    >>> bool(st.sweep.ensemble_optimal_temperature < st.sweep.member_optimal_temperature.min())
    True
    >>> bool(st.calibrated_members_gap < 0)   # the ensemble of calibrated members is under-confident
    True
    """
    sweep = temperature_sweep(ens.logits_test, ens.y_test, temperatures=temperatures, epsilon=epsilon)
    z, y = ens.logits_test.astype(np.float64), ens.y_test
    calibrated = _probs(z / sweep.member_optimal_temperature[:, None])
    ens_cal = calibrated.mean(axis=1)
    shared = _probs(z / sweep.ensemble_optimal_temperature).mean(axis=1)
    gap_i = ens_cal.max(axis=1) - (ens_cal.argmax(axis=1) == y)
    gain = float((_probs(z).mean(axis=1).argmax(axis=1) == y).mean() - (z.argmax(axis=2) == y[:, None]).mean())
    return TemperatureStudy(
        topology=ens.topology,
        sweep=sweep,
        member_curves=[reliability_curve(calibrated[:, m], y, n_bins=n_bins) for m in range(ens.n_members)],
        calibrated_members_curve=reliability_curve(ens_cal, y, n_bins=n_bins),
        calibrated_ensemble_curve=reliability_curve(shared, y, n_bins=n_bins),
        calibrated_members_gap=global_top_label_gap(ens_cal, y),
        calibrated_members_ece=ece(ens_cal, y, epsilon=epsilon),
        calibrated_members_gap_se=float(gap_i.std(ddof=1) / math.sqrt(len(y))),
        accuracy_gain=gain,
    )


# ---------------------------------------------------------------------------------- Tables 2, 6, 7, Fig. 2
@dataclass(frozen=True)
class TopologyCombination:
    """One row of Tables 2, 6, 7: a weighted combination of topology ensembles ("structures").

    Attributes
    ----------
    topologies : tuple of str
    weighting : {"uniform", "ml", "auc"}
    structure, ensemble : None, "post" or "dyn"  calibration of each structure / of the combination
    weights : ndarray (S,)  estimated on the validation set (after structure calibration)
    summary : dict  accuracy, nll, acce, all_label_ece (the paper's ACE), ecce, ece on the test set
    curve : ReliabilityCurve  of the combination on the test set (Fig. 2)
    boot : ndarray (B, 2) or None  ECE and accuracy on B bootstrap resamples of the test set (the same
        resamples for every combination of one call)
    weights_se : ndarray (S,) or None  bootstrap standard error of the estimated weights (resampling
        the validation set and re-estimating them; None for uniform weights)
    """

    topologies: tuple
    weighting: str
    structure: str | None
    ensemble: str | None
    weights: np.ndarray
    summary: dict = field(repr=False)
    curve: ReliabilityCurve = field(repr=False)
    boot: np.ndarray | None = field(default=None, repr=False)
    weights_se: np.ndarray | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return (
            f"{'+'.join(self.topologies)} · {self.weighting} · struct {self.structure or '-'} · "
            f"ens {self.ensemble or '-'}"
        )


def _same_split(ensembles: Mapping[str, TopologyEnsemble]) -> None:
    first = next(iter(ensembles.values()))
    for name, e in ensembles.items():
        if not (np.array_equal(e.y_val, first.y_val) and np.array_equal(e.y_test, first.y_test)):
            raise ValueError(
                f"ensembles must share one validation/test split; {name!r} differs from "
                f"{first.topology!r} (use the same dataset, sizes and split_seed)"
            )


@renamed(n_boot="n_resamples", n_boot_weights="n_weight_resamples")
def topology_combinations(
    ensembles: Mapping[str, TopologyEnsemble],
    configs,
    *,
    n_regions: int = 6,
    regions="equal_mass",
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    auc_kind: str = "ovr",
    n_bins: int = 15,
    n_resamples: int = WG_N_BOOT,
    n_weight_resamples: int = 50,
    seed=0,
) -> list:
    r"""Tables 2, 6, 7 and Fig. 2: combine the ensembles of several topologies with estimated weights.

    For each ``(topologies, weighting, structure, ensemble)`` in `configs`: every topology's uniform
    ensemble is calibrated on its own (``structure`` = None, "post" or "dyn", fitted on the
    validation set), the structure weights are estimated on the validation predictions (``"ml"``:
    :func:`~credalbook.calibration.ml_weights`, ``"auc"``:
    :func:`~credalbook.calibration.auc_weights`, ``"uniform"``), and the weighted combination
    :math:`\sum_s w_s P_s` is optionally calibrated as a whole (``ensemble`` = "post" or "dyn", the
    structures' log-probabilities playing the role of member logits). Calibrated structures are
    computed once per call. Each combination is also scored on `n_resamples` bootstrap resamples of the
    test set (shared by all combinations), and Max-LL / AUC weights are re-estimated on
    `n_weight_resamples` bootstrap resamples of the validation set for their standard errors.

    Returns
    -------
    list of TopologyCombination, in the order of `configs`.
    """
    _same_split(ensembles)
    first = next(iter(ensembles.values()))
    yv, yt = first.y_val, first.y_test
    memo, weight_memo = {}, {}
    test_weights = boot_weights(len(yt), n_resamples, seed=seed)
    val_rng = np.random.default_rng(seed)
    val_idx = val_rng.integers(0, len(yv), size=(n_weight_resamples, len(yv)))

    def estimate(weighting, pv, y):
        return ml_weights(pv, y) if weighting == "ml" else auc_weights(pv, y, kind=auc_kind)

    def structure(name, cal):
        if (name, cal) not in memo:
            e = ensembles[name]
            predict = _fitted(
                cal, e.logits_val, yv, n_regions=n_regions, regions=regions, criterion=criterion, n_iter=n_iter
            )[0]
            memo[(name, cal)] = tuple(np.log(np.clip(predict(z), 1e-300, None)) for z in (e.logits_val, e.logits_test))
        return memo[(name, cal)]

    out = []
    for topos, weighting, struct, ens_cal in configs:
        check_choice(weighting, "weighting", ("uniform", "ml", "auc"))
        for c in (struct, ens_cal):
            if c not in _STRUCT:
                raise ValueError(f"structure and ensemble calibration must be None, 'post' or 'dyn'; got {c!r}")
        missing = [t for t in topos if t not in ensembles]
        if missing:
            raise ValueError(f"no ensemble for topologies {missing}; available: {sorted(ensembles)}")
        lv = np.stack([structure(t, struct)[0] for t in topos], axis=1)
        lt = np.stack([structure(t, struct)[1] for t in topos], axis=1)
        w_se = None
        if weighting == "uniform":
            w = np.full(len(topos), 1.0 / len(topos))
        else:
            key = (tuple(topos), weighting, struct)
            if key not in weight_memo:
                pv = np.exp(lv)
                reps = (
                    np.array([estimate(weighting, pv[i], yv[i]) for i in val_idx]) if n_weight_resamples > 1 else None
                )
                weight_memo[key] = (estimate(weighting, pv, yv), None if reps is None else reps.std(axis=0, ddof=1))
            w, w_se = weight_memo[key]
        p = _fitted(
            ens_cal, lv, yv, n_regions=n_regions, regions=regions, criterion=criterion, n_iter=n_iter, weights=w
        )[0](lt)
        out.append(
            TopologyCombination(
                tuple(topos),
                weighting,
                struct,
                ens_cal,
                w,
                criteria_summary(p, yt, epsilon=epsilon, skce=False),
                reliability_curve(p, yt, n_bins=n_bins),
                bootstrap_ece_accuracy(p, yt, test_weights, epsilon=epsilon),
                w_se,
            )
        )
    return out


def combination_configs(topologies: Sequence[str], *, tables: Sequence[str] = ("2", "6", "7")) -> list:
    """Distinct ``(topologies, weighting, structure, ensemble)`` rows of Tables 2, 6, 7 that use only `topologies`.

    Examples
    --------
    >>> configs = combination_configs(("DSN121", "RSN"))
    >>> len(configs), configs[0]
    (4, (('DSN121', 'RSN'), 'ml', 'post', None))
    """
    rows = [
        (r["topologies"], r["weighting"], r["structure"], r["ensemble"])
        for r in WG_PAPER_COMBINATION
        if r["table"] in tables and set(r["topologies"]) <= set(topologies)
    ]
    return list(dict.fromkeys(rows))


def combination_table(combos: Sequence[TopologyCombination], *, paper: Sequence[Mapping] = ()) -> Table:
    """Rows of Tables 2, 6, 7 in the paper's units, each followed by the paper's row with the same configuration."""
    rows = {}
    for c in combos:
        rows[c.label] = {
            "weights": " ".join(f"{t} {w:.2f}" for t, w in zip(c.topologies, c.weights)),
            **{
                m: round(c.summary[_SUMMARY_KEYS.get(m, m)] / WG_UNITS[m], 4) for m in ("accuracy", "nll", "ace", "ece")
            },
        }
        for r in paper:
            if (r["topologies"], r["weighting"], r["structure"], r["ensemble"]) == (
                c.topologies,
                c.weighting,
                c.structure,
                c.ensemble,
            ):
                rows[c.label + f" (paper, Table {r['table']})"] = {
                    "weights": " ".join(f"{t} {w:.2f}" for t, w in r["weights"].items()),
                    **{m: round(r[m], 4) for m in ("accuracy", "nll", "ace", "ece")},
                }
    return Table(rows, index_name="structures · weights · calibration (units: %, 1, 1e-4, 1e-2)")


# ------------------------------------------------------------------------------- Props. 1-4, Eq. 18
@dataclass(frozen=True)
class PropositionChecks:
    """Eqs. 18, 23 and Propositions 1, 2, 4 on one ensemble (test set), its members calibrated.

    Attributes
    ----------
    topology : str
    member_temperatures : ndarray (M,)  temperatures calibrating each member on its own (validation set)
    min_confidence_gap, mean_confidence_gap : float  Eq. 23: mean member confidence − ensemble
        confidence per instance (≥ 0)
    regional : RegionalConfidence  Eq. 18 per region of the ensemble confidence (calibrated members)
    calibration : EnsembleCalibration  Props. 1-2 numbers (calibrated members)
    ensemble_gap_se : float  standard error over the test instances of the ensemble's global top-label
        gap ``calibration.ensemble_top_label_gap`` (sd/√N)
    prop2_error : float  max |ensemble class gaps − mean member class gaps| (0 up to rounding)
    prop4 : dict  instance, member, tau, the member's top label/confidence change (0) and the ensemble's
        confidence change (= τ/M) and label change (False)
    """

    topology: str
    member_temperatures: np.ndarray
    min_confidence_gap: float
    mean_confidence_gap: float
    regional: RegionalConfidence = field(repr=False)
    calibration: EnsembleCalibration = field(repr=False)
    prop2_error: float
    prop4: dict = field(repr=False)
    ensemble_gap_se: float = math.nan


def proposition_checks(
    ens: TopologyEnsemble,
    *,
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    tau: float = 0.01,
) -> PropositionChecks:
    """Numbers behind Eq. 18/23 and Props. 1, 2, 4 for members calibrated each by its own temperature.

    The temperatures are fitted on the validation logits (each member to itself: the "pre_members"
    reading of :func:`calibration_study`, the premise of Prop. 1), the checks use the
    test logits; Prop. 4 perturbs the first instance (of the first 1000 disagreements) where a member's
    top label differs from the ensemble's and a third class can give up `tau`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = 3 * rng.normal(size=(600, 3, 4)); y = z.mean(1).argmax(1)
    >>> pc = proposition_checks(TopologyEnsemble(z, y, z, y, "LEN", (0, 1, 2), ([],) * 3, np.zeros(3), 0, {}),
    ...                         n_iter=50)
    >>> bool(pc.min_confidence_gap >= -1e-12), bool(pc.prop2_error < 1e-12)
    (True, True)
    >>> round(3 * pc.prop4["ensemble_confidence_change"] / pc.prop4["tau"], 6)   # τ / M
    1.0
    """
    # App. A.4: SGD, learning rate 0.1, 400 iterations (the library's default fits to convergence instead);
    # here each member is calibrated on its own (fit_to="members"), the premise of Prop. 1
    pre = PreCombinationScaling(fit_to="members", criterion=criterion).fit(
        ens.logits_val, ens.y_val, optimizer="sgd", n_iter=n_iter
    )
    t = pre.temperatures
    members = _probs(ens.logits_test.astype(np.float64) / t[:, None])
    y = ens.y_test
    gap = ensemble_confidence_gap(members)
    calib = ensemble_calibration(members, y)
    prop2 = float(np.abs(calib.ensemble_class_gaps - calib.weights @ calib.member_class_gaps).max())
    prop4 = {}
    y_ens = members.mean(axis=1).argmax(axis=1)
    for n, m in np.argwhere(members.argmax(axis=2) != y_ens[:, None])[:1000]:
        one = members[n : n + 1]
        try:
            new = perturb_non_top_label(one, instance=0, member=int(m), tau=tau)
        except ValueError:  # no donor class with mass tau, or tau would change the member's label
            continue
        prop4 = dict(
            instance=int(n),
            member=int(m),
            tau=tau,
            member_confidence_change=float(new[0, m].max() - one[0, m].max()),
            member_label_changed=bool(new[0, m].argmax() != one[0, m].argmax()),
            ensemble_confidence_change=float(new[0].mean(0).max() - one[0].mean(0).max()),
            ensemble_label_changed=bool(new[0].mean(0).argmax() != y_ens[n]),
        )
        break
    ens_p = members.mean(axis=1)
    gap_i = ens_p.max(axis=1) - (ens_p.argmax(axis=1) == y)
    return PropositionChecks(
        ens.topology,
        t,
        float(gap.min()),
        float(gap.mean()),
        regional_confidence(members, y, epsilon=epsilon),
        calib,
        prop2,
        prop4,
        float(gap_i.std(ddof=1) / math.sqrt(len(y))),
    )


# ----------------------------------------------------------------------------------------- App. A.3
@dataclass(frozen=True)
class ToyStudy:
    """App. A.3: Example 1, Alg. 1 (Fig. 4) and Alg. 2.

    Attributes
    ----------
    example1 : dict  ACE, ACCE, ECE, ECCE of Example 1 (ε = 0) and τ
    epsilons : ndarray (E,)
    ensemble_ace, ensemble_ece : ndarray (E,)  Alg. 1 ensemble against the true probabilities
    member_ace, member_ece : ndarray (E,)  largest value over the members (0: all calibrated)
    alg1_ace : float  ensemble ACE at ε = 1/30 (the paper's 0.0697)
    alg1_ace_se : float  its Monte-Carlo standard error: the spread of the ACE over 10 equal parts of the
        sample, divided by √10
    alg1_gap_se : float  standard error of ``alg1_gap`` over the instances (sd/√N)
    alg1_shared_ace : float  the same with regions shared by all members (Prop. 3: 0)
    alg1_gap, alg1_accuracy_gain : float  the ensemble's global top-label gap and its accuracy gain over
        the members (Prop. 1: calibrated members and a gain force a negative gap)
    alg2_sample_ace, alg2_true_ace, alg2_theory : float  Alg. 2 ACE against the labels, against the true
        distribution, and 9/32
    sizes : dict  N of Alg. 1 and 2, K, M, b
    """

    example1: dict
    epsilons: np.ndarray
    ensemble_ace: np.ndarray
    ensemble_ece: np.ndarray
    member_ace: np.ndarray
    member_ece: np.ndarray
    alg1_ace: float
    alg1_shared_ace: float
    alg1_gap: float
    alg1_accuracy_gain: float
    alg2_sample_ace: float
    alg2_true_ace: float
    alg2_theory: float
    sizes: dict = field(default_factory=dict)
    alg1_ace_se: float = math.nan
    alg1_gap_se: float = math.nan


@cached
def appendix_toys(
    alg1_samples: int = 100_000,
    alg2_samples: int = 100_000,
    *,
    n_members: int = 10,
    n_classes: int = 4,
    bin_size: int = 2,
    epsilons: Sequence[float] = WG_EPSILONS,
    tau: float = 0.05,
    seed: int = 0,
) -> ToyStudy:
    """App. A.3 toy values: Example 1, Alg. 1 with the Fig. 4 curves over ε, and Alg. 2. Cached on disk.

    Criteria are taken against the true class probabilities (the distributional definitions), so
    every Alg. 1 member is exactly calibrated; the paper's N = 10⁶ is ``alg1_samples=1_000_000``.

    Examples
    --------
    >>> toy = appendix_toys.__wrapped__(2000, 2000, n_members=3, epsilons=(1 / 30, 0.5))
    >>> bool(toy.member_ace.max() < 1e-12), bool(toy.ensemble_ace[-1] < 1e-12), toy.alg2_sample_ace
    (True, True, 0.0)
    """
    ex = all_vs_top_label_example(tau)
    example1 = dict(
        tau=tau,
        **{
            name: f(ex.probs, ex.true_probs, epsilon=0.0)
            for name, f in (("ace", all_label_ece), ("acce", acce), ("ece", ece), ("ecce", ecce))
        },
    )
    toy = calibrated_members_ensemble(
        alg1_samples, n_classes=n_classes, n_members=n_members, bin_size=bin_size, seed=seed
    )
    eps = np.asarray(epsilons, dtype=np.float64)
    truth = toy.true_probs
    curves = {
        name: np.array([f(toy.probs, truth, epsilon=e) for e in eps])
        for name, f in (("ace", all_label_ece), ("ece", ece))
    }
    members = {
        name: np.array([max(f(toy.ens_probs[:, m], truth, epsilon=e) for m in range(n_members)) for e in eps])
        for name, f in (("ace", all_label_ece), ("ece", ece))
    }
    calib = ensemble_calibration(toy.ens_probs, truth)
    shared = calibrated_members_ensemble(
        alg1_samples, n_classes=n_classes, n_members=n_members, bin_size=bin_size, shared_regions=True, seed=seed
    )
    parts = np.array_split(np.arange(alg1_samples), 10)
    ace_parts = [all_label_ece(toy.probs[i], truth[i], epsilon=DEFAULT_EPSILON) for i in parts]
    ens_top = toy.probs.argmax(axis=1)
    gap_i = toy.probs.max(axis=1) - truth[np.arange(alg1_samples), ens_top]
    alg2 = paired_label_predictions(
        alg2_samples - alg2_samples % n_classes, n_classes=n_classes, bin_size=bin_size, seed=seed
    )
    return ToyStudy(
        example1=example1,
        epsilons=eps,
        ensemble_ace=curves["ace"],
        ensemble_ece=curves["ece"],
        member_ace=members["ace"],
        member_ece=members["ece"],
        alg1_ace=all_label_ece(toy.probs, truth, epsilon=DEFAULT_EPSILON),
        alg1_shared_ace=all_label_ece(shared.probs, shared.true_probs, epsilon=DEFAULT_EPSILON),
        alg1_gap=calib.ensemble_top_label_gap,
        alg1_accuracy_gain=calib.accuracy_gain,
        alg2_sample_ace=all_label_ece(alg2.probs, alg2.labels, epsilon=0.0),
        alg2_true_ace=all_label_ece(alg2.probs, alg2.true_probs, epsilon=0.0),
        alg2_theory=paired_label_theoretical_ace(n_classes, bin_size),
        sizes=dict(
            alg1_samples=alg1_samples,
            alg2_samples=alg2_samples,
            n_classes=n_classes,
            n_members=n_members,
            bin_size=bin_size,
        ),
        alg1_ace_se=float(np.std(ace_parts, ddof=1) / math.sqrt(len(parts))),
        alg1_gap_se=float(gap_i.std(ddof=1) / math.sqrt(alg1_samples)),
    )
