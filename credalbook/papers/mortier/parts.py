r"""The parts of the Mortier et al. (2023) chapter: every error-rate study, the solver comparison and Table 1.

At the paper's sizes the chapter runs for about two hours on two cores: each error-rate study (R = 1000
datasets of one scenario, seven tests, D = 100) takes 4-5 minutes in the setting of Fig. 1 and 10-24 minutes
with M = 100 or K = 100 with two workers (``book/reproduce.md``; ``-p n_jobs -1``, about twice as long with
one), and Table 1 trains a backbone on all 60 000 training images.
So every study is its own part, recorded as its :class:`~credalbook.papers.mortier.ErrorRateSummary`
(the decisions at the figures' twelve levels under both rules and the p-values: tens of kilobytes, where
the null samples are megabytes), and Table 1 is one part recorded as a :class:`ClassifierSetTable` (the
rows, the two ECE differences and the calibration-split check: no predictions, no weights of networks).
A study the chapter runs twice under two names (App. Fig. 4's S1 is also the K = 100 comparison's
bootstrap study) is one part.

Beside them: Fig. 1's S1 with App. Fig. 3's minimiser and App. Fig. 3's S1 with NLopt's COBYLA (four ECE tests,
one part per test and chunk of 20 datasets, :func:`error_rate_chunk`), so that each M = 10 → 100 comparison uses one
minimiser; S2 and S3 with the segment from p_e as Sec. 4.1's text defines it; and Table 1 with every network
trained end to end, one part per (data set, seed, classifier set) (:func:`~credalbook.papers.mortier.table1_cell`).
The frozen-backbone Table 1 part stays as the group ``table1_frozen``; the group ``table1_regime`` is Table 1 in the
over-confident regime (:func:`~credalbook.papers.mortier.table1_regime_cell`, part names ``table1r-...``).
"""

from __future__ import annotations

import inspect
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed
from credalbook._validation import check_choice, check_seed
from credalbook.metrics.classification import ece_confidence
from credalbook.papers.mortier.authors_code import authors_code_type2
from credalbook.papers.mortier.error_rates import (
    _measures,
    _run_chunk,
    CHUNK,
    ErrorRateStudy,
    ErrorRateSummary,
    PAPER_ALPHAS,
    PAPER_MEASURES,
    PAPER_SETTINGS,
    set_test_error_rates,
    set_test_error_summary,
    stall_config,
)
from credalbook.papers.mortier.measures import core_measure
from credalbook.papers.parts import Part
from credalbook.stats.bootstrap import SOLVERS

__all__ = [
    "ECE_MEASURES",
    "MORTIER_GROUPS",
    "ClassifierSetTable",
    "MortierPlan",
    "classifier_set_table",
    "error_rate_chunk",
    "error_rate_chunks",
    "join_tests",
    "merge_summaries",
    "mortier_parts",
    "mortier_plan",
    "solver_comparison",
    "table1_differences",
]

#: The groups of parts, in the chapter's order: the four settings of Fig. 1 (right) and App. Figs. 2-4, the
#: minimisers, the authors'-code variant of Fig. 1's S1, S2 as the authors' code builds it, the authors' HL
#: statistic, K = 100 with the instances bootstrapped and permuted, Fig. 1's S1 permuted, App. Fig. 3's S1 with
#: :math:`t` at the uniform weights (no minimisation: COBYLA's starting point), S2 and S3 as the authors' code runs
#: them (its segment, the instances permuted; and with their COBYLA settings, the ECE tests), Table 1, and Table 1 in the
#: over-confident regime (networks trained longer on fewer images, :func:`~credalbook.papers.mortier.table1_regime_cell`).
MORTIER_GROUPS = (
    "figures",
    "solvers",
    "variant",
    "s2_code",
    "hl",
    "k100",
    "permutation",
    "fig3_uniform",
    "code_h1",
    "code_h1_cobyla",
    "table1_frozen",
    "one_minimiser",
    "fig3_cobyla",
    "fig3_rounds",
    "text_segment",
    "table1",
    "table1_regime",
    "code_h1_objective",
    "released_code",
)
#: The authors' COBYLA settings (SciPy's ``rhobeg=1.0``, ``tol=1e-4``; caltest.py npbetest_alpha) for NLopt's COBYLA,
#: Powell's algorithm as their SciPy's Fortran COBYLA ran it (the SciPy here runs PRIMA's reimplementation).
AUTHORS_COBYLA_OPTIONS = {"rhobeg": 1.0, "tol": 1e-4}
#: The four ECE tests (App. Fig. 3 with NLopt's COBYLA at M = 100 runs only these).
ECE_MEASURES = (("ece_conf", 5), ("ece_conf", 10), ("ece_cwise", 5), ("ece_cwise", 10))
#: App. Fig. 3's S1 at M = 100 minimised by ``search_descent`` with the rounds cap it takes at M = 10: up to 100 rounds of
#: line searches (``credalbook.stats.minimise``: 100 up to ``DESCENT_LARGE_M`` = 10 members, 10 above), so that both sizes
#: of the one-minimiser comparison get the same number of rounds; parts of ``ROUNDS_CHUNKS`` chunks of 20 datasets.
ROUNDS_CAP = 100
#: Parts of S2 as the authors' released code runs it (one per core; :func:`_released_code_parts`).
RELEASED_CODE_CHUNKS = 2
ROUNDS_CHUNKS = 5
_SET_PARTS = {"S": "s", "DN(0.1)": "dn0.1", "DN(0.6)": "dn0.6", "DE": "de"}
_HL_MEASURES = (("hl", 5), ("hl", 10), ("hl_authors", 5), ("hl_authors", 10))
_SCENARIOS = ("S1", "S2", "S3")


@dataclass(frozen=True)
class ClassifierSetTable:
    """Table 1 of Mortier et al. (2023) for the book's classifier sets, and the numbers the chapter derives from it.

    Attributes
    ----------
    dataset : str
    rows : dict
        Classifier name ("S", "DN(0.1)", "DN(0.6)", "DE") → row of
        :func:`~credalbook.papers.mortier.evaluate_classifier_set` (its λ included).
    differences : dict
        :func:`table1_differences`: ``"dn"`` and ``"de"`` → [difference, bootstrap SE, test instances].
    calibration_check : dict
        On the calibration split (where λ is fitted): the DE's ``"weighted"`` and plain ``"average"``
        :math:`ECE_{conf}`.
    n_cal, n_test : int
        Instances of the calibration and test splits.
    config : dict
    seconds : float
        Wall-clock time of the computation (training included unless the networks came from the cache).
    """

    dataset: str
    rows: dict
    differences: dict
    calibration_check: dict
    n_cal: int
    n_test: int
    config: dict = field(default_factory=dict)
    seconds: float = 0.0


def _ece_diff(probs_a, probs_b, labels, n_bins: int, n_boot: int = 200, seed: int = 0) -> list:
    """[ECE_conf(a) − ECE_conf(b), paired bootstrap SE over the instances, number of instances]."""
    y = np.asarray(labels)
    value = ece_confidence(probs_a, y, n_bins=n_bins) - ece_confidence(probs_b, y, n_bins=n_bins)
    idx = np.random.default_rng(seed).integers(0, len(y), size=(n_boot, len(y)))
    boot = [
        ece_confidence(probs_a[i], y[i], n_bins=n_bins) - ece_confidence(probs_b[i], y[i], n_bins=n_bins) for i in idx
    ]
    return [float(value), float(np.std(boot, ddof=1)), int(len(y))]


def table1_differences(sets: Mapping, table1: Mapping, *, n_bins: int = 5) -> dict:
    """The two ECE differences of the Table 1 rows, with paired bootstrap standard errors over the test split.

    Parameters
    ----------
    sets : mapping
        Classifier name → :class:`~credalbook.nn.ClassifierSet` ("DN(0.1)", "DN(0.6)" and "DE" at least).
    table1 : mapping
        Classifier name → row of :func:`~credalbook.papers.mortier.evaluate_classifier_set` ("DE" at least).
    n_bins : int, default 5
        Bins of :math:`ECE_{conf}`.

    Returns
    -------
    dict
        ``"dn"``: :math:`ECE_{conf}` of DN(0.6) − DN(0.1) (plain averages); ``"de"``: DE weighted (λ of
        :math:`ECE_{conf}`) − plain average; each [difference, bootstrap SE, test instances].

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 50)
    >>> sets = {k: SimpleNamespace(ens_probs_test=rng.dirichlet(np.ones(3), size=(50, 2)), y_test=y)
    ...         for k in ("DN(0.1)", "DN(0.6)", "DE")}
    >>> d = table1_differences(sets, {"DE": {"weights_conf": np.array([1.0, 0.0])}})
    >>> sorted(d), d["de"][2]
    (['de', 'dn'], 50)
    """
    test = {name: np.asarray(sets[name].ens_probs_test) for name in ("DN(0.1)", "DN(0.6)", "DE")}
    y = np.asarray(sets["DE"].y_test)
    weighted = np.einsum("nmk,m->nk", test["DE"], np.asarray(table1["DE"]["weights_conf"]))
    return {
        "dn": _ece_diff(test["DN(0.6)"].mean(axis=1), test["DN(0.1)"].mean(axis=1), y, n_bins),
        "de": _ece_diff(weighted, test["DE"].mean(axis=1), y, n_bins),
    }


@renamed(n_bootstrap="n_resamples")
def classifier_set_table(
    dataset: str = "fashion_mnist",
    *,
    n_members: int = 10,
    epochs: int = 20,
    lr: float = 1e-2,
    momentum: float = 0.9,
    backbone: dict | None = None,
    seed: int = 0,
    n_bins: int = 5,
    alpha: float = 0.05,
    n_resamples: int = 100,
    solver: str = "cobyla",
    device: str = "auto",
    progress: bool = True,
) -> ClassifierSetTable:
    r"""Train the classifier sets of Table 1 and run Alg. 1 on each (Mortier et al. 2023, Sec. 4.2, Table 1).

    :func:`~credalbook.nn.classifier_sets` trains (or loads from the cache) the backbone and the heads of S,
    DN(0.1), DN(0.6) and DE; :func:`~credalbook.papers.mortier.evaluate_classifier_set` gives each row; the
    ECE differences of the chapter's comparison and the calibration-split check are computed here, so that
    the chapter needs no predictions.

    Parameters
    ----------
    dataset : str
        A name in :data:`credalbook.data.DATASETS`.
    n_members, epochs, lr, momentum, backbone, seed
        Of :func:`~credalbook.nn.classifier_sets` (``backbone``: keyword arguments of the backbone's training).
    n_bins, alpha, n_resamples, solver
        Of :func:`~credalbook.papers.mortier.evaluate_classifier_set` (the paper: 5 bins, α = 0.05).
    device : str
        Where the networks train; does not change the value's recorded parameters.
    progress : bool

    Returns
    -------
    ClassifierSetTable

    References
    ----------
    Mortier, T., Bengs, V., Hüllermeier, E., Luca, S. & Waegeman, W. (2023). On the calibration of
    probabilistic classifier sets. AISTATS, Sec. 4.2 and Table 1.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> t = classifier_set_table("digits", n_members=2, epochs=1, n_resamples=10, solver="search", device="cpu",
    ...                          backbone=dict(n_train=300, epochs=1, channels=(4, 8), hidden=16), progress=False)
    >>> sorted(t.rows), t.n_cal + t.n_test, sorted(t.differences)
    (['DE', 'DN(0.1)', 'DN(0.6)', 'S'], 539, ['de', 'dn'])
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(CREDALBOOK_CACHE_DIR=old)
    """
    from credalbook.nn import classifier_sets
    from credalbook.papers.mortier.real_sets import evaluate_classifier_set

    start = time.perf_counter()
    sets = classifier_sets(
        dataset,
        n_members=n_members,
        epochs=epochs,
        lr=lr,
        momentum=momentum,
        seed=seed,
        device=device,
        backbone=backbone,
        progress=progress,
    )
    rows = {
        name: evaluate_classifier_set(cs, n_bins=n_bins, alpha=alpha, n_resamples=n_resamples, solver=solver)
        for name, cs in sets.items()
    }
    de = sets["DE"]
    cal, y_cal = np.asarray(de.ens_probs_cal), np.asarray(de.y_cal)
    check = {
        "weighted": float(
            ece_confidence(np.einsum("nmk,m->nk", cal, rows["DE"]["weights_conf"]), y_cal, n_bins=n_bins)
        ),
        "average": float(ece_confidence(cal.mean(axis=1), y_cal, n_bins=n_bins)),
    }
    config = dict(
        dataset=dataset,
        n_members=n_members,
        epochs=epochs,
        lr=lr,
        momentum=momentum,
        backbone=dict(backbone or {}),
        seed=seed,
        n_bins=n_bins,
        alpha=alpha,
        n_bootstrap=n_resamples,  # the key its records store
        solver=solver,
    )
    return ClassifierSetTable(
        dataset=dataset,
        rows=rows,
        differences=table1_differences(sets, rows, n_bins=n_bins),
        calibration_check=check,
        n_cal=int(len(y_cal)),
        n_test=int(len(de.y_test)),
        config=config,
        seconds=time.perf_counter() - start,
    )


@renamed(n_bootstrap="n_resamples")
def solver_comparison(
    *,
    scenarios=("S1", "S2"),
    measures=(("ece_conf", 10), ("hl", 5)),
    n_datasets: int = 10,
    n_resamples: int = 100,
    seed: int = 0,
    data_seed: int = 7,
) -> dict:
    """:func:`~credalbook.papers.mortier.compare_solvers` on R datasets of each scenario, for each measure.

    The datasets are :func:`~credalbook.synthetic.credal_scenario` in its default setting (that of Fig. 1:
    N = 100, M = 10, K = 10, u = 0.01), drawn with ``data_seed``; ``seed`` seeds the null samples and the
    solvers.

    Returns
    -------
    dict
        ``(scenario, (measure, n_bins))`` → what :func:`~credalbook.papers.mortier.compare_solvers` returns.

    Examples
    --------
    >>> out = solver_comparison(scenarios=("S1",), measures=(("hl", 5),), n_datasets=2, n_resamples=10)
    >>> sorted(out[("S1", ("hl", 5))]), out[("S1", ("hl", 5))]["search"]["statistic"].shape
    (['cobyla', 'cobyla_powell', 'multistart', 'search', 'search_descent'], (2,))
    """
    from credalbook.papers.mortier.real_sets import compare_solvers
    from credalbook.synthetic import credal_scenario

    data = {s: credal_scenario(s, n_datasets=n_datasets, seed=data_seed) for s in scenarios}
    return {
        (s, tuple(g)): compare_solvers(
            d.ens_probs, d.labels, measure=core_measure(g[0]), n_bins=g[1], n_resamples=n_resamples, seed=seed
        )
        for s, d in data.items()
        for g in measures
    }


def error_rate_chunk(
    scenario: str,
    *,
    chunk: int,
    n_datasets: int = 20,
    alphas=PAPER_ALPHAS,
    measures=ECE_MEASURES,
    n_resamples: int = 100,
    solver: str = "cobyla_powell",
    solver_options: dict | None = None,
    seed: int = 0,
    test: int | None = None,
    **setting,
) -> ErrorRateSummary:
    """Chunk ``chunk`` of :func:`~credalbook.papers.mortier.set_test_error_rates` alone, summarised at ``alphas``.

    A study draws its datasets in chunks of 20, chunk i from the i-th child of ``SeedSequence(seed)``; this
    computes chunk i's first ``n_datasets`` (at most 20) datasets, so chunks 0-4 are the first 100 datasets of the
    study with the same ``seed`` and setting, whatever its measures and minimiser (the null samples differ when
    the measures do). It splits a long study (NLopt's COBYLA at M = 100: tens of seconds per test) into parts;
    :func:`merge_summaries` joins them.

    Parameters
    ----------
    scenario : {"S1", "S2", "S3"}
    chunk : int
        Index of the chunk (datasets ``20 chunk`` to ``20 chunk + n_datasets - 1`` of the study).
    n_datasets : int, default 20
    alphas, measures, n_resamples, solver, solver_options, seed
        As for :func:`~credalbook.papers.mortier.set_test_error_rates`.
    test : int, optional
        Run only the test ``measures[test]``, on the same datasets with the same random stream as in the whole
        chunk (a study spawns one child of the chunk's seed for the data and one per test, in order): its row
        of the whole chunk, bit for bit. :func:`join_tests` puts the tests of a chunk back together. A chunk of
        NLopt's COBYLA at M = 100 runs for hours; one test of it is a quarter of that.
    **setting
        ``n_instances``, ``n_members``, ``n_classes``, ``u``.

    Examples
    --------
    >>> kw = dict(n_instances=20, n_members=2, n_classes=3, u=0.5, n_resamples=10, measures=("skce_ul",))
    >>> a = error_rate_chunk("S1", chunk=1, n_datasets=3, solver="search", **kw)
    >>> b = set_test_error_rates.__wrapped__("S1", n_datasets=23, solver="search", n_jobs=1, progress=False, **kw)
    >>> bool((a.p_values() == b.p_values()[:, 20:]).all()), a.n_datasets
    (True, 3)
    >>> kw["measures"] = (("ece_conf", 5), ("skce_ul", 0))
    >>> one = error_rate_chunk("S1", chunk=1, n_datasets=3, solver="search", test=1, **kw)
    >>> both = error_rate_chunk("S1", chunk=1, n_datasets=3, solver="search", **kw)
    >>> one.measures == both.measures[1:] and bool((one.p_values() == both.p_values()[1:]).all())
    True
    """
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 0:
        raise ValueError(f"chunk must be a non-negative integer; got {chunk!r}")
    if isinstance(n_datasets, bool) or not isinstance(n_datasets, int) or not 1 <= n_datasets <= CHUNK:
        raise ValueError(f"n_datasets must be an integer in [1, {CHUNK}]; got {n_datasets!r}")
    check_choice(solver, "solver", SOLVERS)
    specs = tuple(measures)
    seq = np.random.SeedSequence(seed).spawn(chunk + 1)[chunk]
    if test is not None:
        if isinstance(test, bool) or not isinstance(test, int) or not 0 <= test < len(specs):
            raise ValueError(f"test must be an index into measures, an integer in [0, {len(specs)}); got {test!r}")
        seq = _OneTest(seq, len(specs), test)
        specs = (specs[test],)
    setting = {**PAPER_SETTINGS["Fig. 1"], **setting}
    start = time.perf_counter()
    stats, nulls, nfev, stalls = _run_chunk(
        scenario,
        n_datasets,
        setting,
        specs,
        n_resamples,
        solver,
        dict(solver_options or {}),
        "uniform",
        "bootstrap",
        {"weight_prior": "uniform", "segment_start": "mean"},
        seq,
    )
    config = dict(scenario=scenario, chunk=chunk, n_datasets=n_datasets, **setting, measures=specs,
                  n_bootstrap=n_resamples, solver=solver, solver_options=dict(solver_options or {}), seed=seed,
                  **({} if test is None else {"test": test}), **stall_config(solver_options, stalls))  # fmt: skip
    names = tuple(g.name for g in _measures(specs))
    study = ErrorRateStudy(scenario, names, stats, nulls, nfev, config, time.perf_counter() - start)
    return study.summary(alphas)


def error_rate_chunks(
    scenario: str, *, chunks: tuple, n_datasets: int, alphas=PAPER_ALPHAS, **options
) -> ErrorRateSummary:
    """Chunks ``range(*chunks)`` of a study of ``n_datasets`` datasets, each :func:`error_rate_chunk`, merged in order
    (:func:`merge_summaries`): the study's datasets ``20 lo`` to ``min(20 hi, n_datasets) - 1``, with the study's
    random streams. ``options`` are those of :func:`error_rate_chunk` but ``chunk`` and ``test``.

    Examples
    --------
    >>> kw = dict(n_instances=20, n_members=2, n_classes=3, u=0.5, n_resamples=10, measures=("skce_ul",), solver="search")
    >>> a = error_rate_chunks("S1", chunks=(1, 3), n_datasets=45, **kw)
    >>> b = merge_summaries([error_rate_chunk("S1", chunk=1, **kw), error_rate_chunk("S1", chunk=2, n_datasets=5, **kw)])
    >>> a.n_datasets, bool((a.p_values() == b.p_values()).all())
    (25, True)
    """
    if isinstance(n_datasets, bool) or not isinstance(n_datasets, int) or n_datasets < 1:
        raise ValueError(f"n_datasets must be a positive integer; got {n_datasets!r}")
    last = math.ceil(n_datasets / CHUNK)
    ok = (
        isinstance(chunks, tuple)
        and len(chunks) == 2
        and all(isinstance(c, int) and not isinstance(c, bool) for c in chunks)
    )
    if not ok or not 0 <= chunks[0] < chunks[1] <= last:
        raise ValueError(
            f"chunks must be a pair (lo, hi) of integers with 0 <= lo < hi <= {last} (the study's chunks of {CHUNK}); "
            f"got {chunks!r}"
        )
    if "chunk" in options or "test" in options:
        raise TypeError("error_rate_chunks takes chunks=(lo, hi), not chunk= or test=")
    return merge_summaries(
        error_rate_chunk(scenario, chunk=c, n_datasets=min(CHUNK, n_datasets - CHUNK * c), alphas=alphas, **options)
        for c in range(*chunks)
    )


class _OneTest:
    """A chunk's seed sequence seen by one of its T tests: ``spawn`` gives the data's child and that test's, the
    children the whole chunk gives them (``_run_chunk`` spawns 1 + T children: the data's, then one per test)."""

    def __init__(self, seq: np.random.SeedSequence, n_tests: int, test: int):
        children = seq.spawn(1 + n_tests)
        self._children = [children[0], children[1 + test]]

    def spawn(self, n: int) -> list:
        if n != 2:
            raise ValueError(f"one test spawns 2 children (data, test); asked for {n}")
        return list(self._children)


def join_tests(summaries) -> ErrorRateSummary:
    """One :class:`~credalbook.papers.mortier.ErrorRateSummary` from summaries of different tests on the same
    datasets (e.g. the ``test=`` runs of one chunk of :func:`error_rate_chunk`), the tests in the given order.

    Examples
    --------
    >>> kw = dict(n_instances=20, n_members=2, n_classes=3, u=0.5, n_resamples=10, n_datasets=2, solver="search")
    >>> kw["measures"] = (("ece_conf", 5), ("skce_ul", 0))
    >>> both = error_rate_chunk("S1", chunk=0, **kw)
    >>> joined = join_tests([error_rate_chunk("S1", chunk=0, test=t, **kw) for t in (0, 1)])
    >>> joined.measures == both.measures and bool((joined.p_values() == both.p_values()).all())
    True
    """
    parts = _same_in(summaries, ("scenario", "alphas", "n_bootstrap", "n_datasets"))
    config = {k: v for k, v in parts[0].config.items() if k != "test"}
    config["measures"] = tuple(m for p in parts for m in p.config.get("measures", ()))
    config.update(_joined_stalls(parts, axis=0))
    return _stacked(
        parts,
        axis=0,
        measures=tuple(m for p in parts for m in p.measures),
        mean_evaluations=np.concatenate([p.mean_evaluations for p in parts], axis=0),
        config=config,
    )


def _same_in(summaries, fields: tuple) -> list:
    """``summaries`` as a list, checked: ErrorRateSummary objects that agree in ``fields``."""
    parts = list(summaries)
    if not parts or not all(isinstance(p, ErrorRateSummary) for p in parts):
        raise ValueError("summaries must be a non-empty sequence of ErrorRateSummary")
    if any(getattr(p, f) != getattr(parts[0], f) for p in parts[1:] for f in fields):
        raise ValueError(f"summaries must hold the same {', '.join(fields)}")
    return parts


def _stacked(parts: list, *, axis: int, **fields) -> ErrorRateSummary:
    """The summaries' decisions and counts concatenated along ``axis`` (0: tests, -1: datasets), with ``fields``."""
    first = parts[0]
    arrays = ("rejected", "rejected_abs", "null_at_least", "null_nan")
    return ErrorRateSummary(
        scenario=first.scenario,
        alphas=first.alphas,
        **{f: np.concatenate([getattr(p, f) for p in parts], axis=axis) for f in arrays},
        n_bootstrap=first.n_bootstrap,
        seconds=float(sum(p.seconds for p in parts)),
        **fields,
    )


def merge_summaries(summaries) -> ErrorRateSummary:
    """One :class:`~credalbook.papers.mortier.ErrorRateSummary` from summaries of the same tests on disjoint
    datasets (e.g. the chunks of :func:`error_rate_chunk`), in order.

    Examples
    --------
    >>> kw = dict(n_instances=20, n_members=2, n_classes=3, u=0.5, n_resamples=10, measures=("skce_ul",))
    >>> m = merge_summaries([error_rate_chunk("S1", chunk=c, n_datasets=2, solver="search", **kw) for c in (0, 1)])
    >>> m.n_datasets, m.rejection_rates([0.05]).shape
    (4, (1, 1))
    """
    parts = _same_in(summaries, ("scenario", "measures", "alphas", "n_bootstrap"))
    weights = np.array([p.n_datasets for p in parts], dtype=np.float64)
    return _stacked(
        parts,
        axis=-1,
        measures=parts[0].measures,
        mean_evaluations=np.average([p.mean_evaluations for p in parts], axis=0, weights=weights),
        config=dict(parts[0].config, chunks=[p.config.get("chunk") for p in parts], **_joined_stalls(parts, axis=1)),
    )


def _joined_stalls(parts: list, *, axis: int) -> dict:
    """The stalled minimisations of the parts (:func:`~credalbook.papers.mortier.error_rates.stall_config`) joined
    along tests (``axis=0``) or datasets (``axis=1``): ``{}`` when no part ran the watchdog; a ValueError when only
    some did (their counts would not cover the joined datasets)."""
    counted = ["stalls" in p.config for p in parts]
    if not any(counted):
        return {}
    if not all(counted):
        raise ValueError("summaries must all count stalled minimisations (stall_seconds) or none")
    stalls = np.concatenate([np.asarray(p.config["stalls"], dtype=np.int64) for p in parts], axis=axis)
    return {"n_stalls": int(stalls.sum()), "stalls": stalls.tolist()}


@dataclass(frozen=True)
class MortierPlan:
    """The chapter's parts, and which part gives each of its objects.

    Attributes
    ----------
    parts : list of Part
        Named ``fig<n>-s<k>`` (Fig. 1, App. Figs. 2-4), ``solvers``, ``variant-s1``, ``s2-code``, ``hl-s<k>``,
        ``k100-permutation``, ``k10-permutation``, ``s2-code-permutation``, ``s3-code-permutation``,
        ``s2-code-permutation-rhobeg1``, ``s3-code-permutation-rhobeg1``, ``s2-code-permutation-objective``,
        ``s3-code-permutation-objective``, ``table1-<dataset>``.
    groups : dict
        Group (:data:`MORTIER_GROUPS`) → its objects' part names: a name, or a dict (of dicts) of names,
        e.g. ``groups["figures"]["Fig. 1"]["S1"] == "fig1-s1"``.
    """

    parts: list
    groups: dict = field(repr=False)

    def _group(self, group: str):
        if group not in self.groups:
            raise ValueError(f"group must be one of {list(self.groups)}; got {group!r}")
        return self.groups[group]

    def group_parts(self, group: str) -> list:
        """The parts of ``group`` (a part it shares with another group included)."""
        names = set(_leaves(self._group(group)))
        return [p for p in self.parts if p.name in names]

    def values(self, group: str, values: dict):
        """``group``'s objects from the parts' values (part name → value), shaped as ``groups[group]``."""
        tree = self._group(group)
        missing = sorted(set(_leaves(tree)) - set(values))
        if missing:
            raise ValueError(f"values lacks the parts {missing} of group {group!r}")
        return _fill(tree, values)


def _leaves(tree):
    return [tree] if isinstance(tree, str) else [n for sub in tree.values() for n in _leaves(sub)]


def _fill(tree, values):
    return values[tree] if isinstance(tree, str) else {k: _fill(v, values) for k, v in tree.items()}


def _part_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "_.-" else "-" for c in text.lower())


def mortier_plan(
    cfg,
    *,
    seed: int = 0,
    solver: str = "cobyla_powell",
    dataset: str = "fashion_mnist",
    device: str = "auto",
    n_jobs: int = 1,
    **_ignored,
) -> MortierPlan:
    """The chapter's plan at preset ``cfg`` with its parameters (others are ignored).

    Parameters
    ----------
    cfg : mapping
        ``credalbook.papers.presets.preset("01_mortier_set_calibration", scale)``.
    seed, solver, dataset, device, n_jobs
        The chapter's parameters: ``solver`` minimises Alg. 1 line 7 in the studies with M = 10 (those with
        M = 100 use the preset's ``fig3_solver``); ``dataset`` is that of the frozen-backbone Table 1 (the
        end-to-end cells use the preset's ``table1_datasets`` and seeds ``seed, seed + 1, …``); ``device`` and
        ``n_jobs`` do not change any value.

    Returns
    -------
    MortierPlan
        Its ``parts``: the error-rate studies, the minimisers, the frozen-backbone Table 1 and one Table 1 cell
        per (data set, seed, classifier set), once as trained by the preset and once in the over-confident regime.

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = mortier_plan(preset("01_mortier_set_calibration", "tiny"))
    >>> len(plan.parts), [p.name for p in plan.group_parts("k100")]
    (46, ['fig4-s1', 'k100-permutation'])
    >>> plan.groups["table1"]["digits"]["0"]["DN(0.6)"], plan.groups["fig3_cobyla"]["0"]["3"]
    ('table1-digits-s0-dn0.6', 'fig3-s1-cobyla-c0-t3')
    """
    seed = _checked_parameters(seed, solver, dataset, n_jobs)
    parts = []
    study = _study_adder(cfg, seed, n_jobs, parts)
    groups = {"figures": {}}
    for fig, setting in PAPER_SETTINGS.items():
        key = fig.lower().replace(". ", "")
        fig_solver = cfg["fig3_solver"] if setting["n_members"] > 10 else solver
        groups["figures"][fig] = {
            s: study(f"{key}-{s.lower()}", s, n_datasets=cfg[key], solver=fig_solver, **setting) for s in _SCENARIOS
        }
    parts.append(_solvers_part(cfg, seed))
    groups["solvers"] = "solvers"
    groups.update(_variant_studies(study, cfg, solver))
    parts.append(_table1_part(cfg, dataset, seed, device))
    groups["table1_frozen"] = parts[-1].name
    groups.update(_minimiser_studies(study, cfg, seed, parts))
    groups["text_segment"] = {
        s: study(f"{s.lower()}-text", s, n_datasets=cfg["text_datasets"], solver=solver, segment_start="centre",
                 **PAPER_SETTINGS["Fig. 1"])
        for s in ("S2", "S3")
    }  # fmt: skip
    groups["table1"] = _table1_cells(cfg, seed, device, parts)
    groups["table1_regime"] = _table1_cells(cfg, seed, device, parts, regime=True)
    groups["code_h1_objective"] = {  # code_h1_cobyla with the authors' objective: COBYLA's weights as proposed
        s: study(
            f"{s.lower()}-code-permutation-objective",
            s,
            n_datasets=cfg["variant_datasets"],
            solver="cobyla_powell",
            solver_options={**AUTHORS_COBYLA_OPTIONS, "authors_objective": True},
            measures=ECE_MEASURES,
            segment_start="centre",
            outside_start="end",
            resample="permutation",
            **PAPER_SETTINGS["Fig. 1"],
        )
        for s in ("S2", "S3")
    }
    groups["released_code"] = _released_code_parts(cfg, seed, parts)
    return MortierPlan(parts=parts, groups=groups)


def _released_code_parts(cfg, seed: int, parts: list) -> dict:
    """S2 as the authors' released code draws and tests it (:mod:`credalbook.papers.mortier.authors_code`): the four
    ECE tests at every level, ``RELEASED_CODE_CHUNKS`` calls of their ``_simulation_ha`` of a fifth of
    ``variant_datasets`` datasets each (at paper 2 × 200: their tests cost about 5 s per dataset here)."""
    names = {}
    for c in range(RELEASED_CODE_CHUNKS):
        name = f"s2-released-code-c{c}"
        kwargs = dict(scenario="S2", n_datasets=max(1, cfg["variant_datasets"] // 5), alphas=PAPER_ALPHAS,
                      n_resamples=cfg["n_bootstrap"], seed=seed, chunk=c, **PAPER_SETTINGS["Fig. 1"])  # fmt: skip
        parts.append(Part(name, authors_code_type2, kwargs))
        names[str(c)] = name
    return names


def _minimiser_studies(study, cfg, seed: int, parts: list) -> dict:
    """App. Fig. 3 with one minimiser per comparison: Fig. 1's S1 with the M = 100 minimiser, and App. Fig. 3's
    S1 with NLopt's COBYLA (the four ECE tests, in chunks of 20 datasets, one part per test of a chunk)."""
    one = study("fig1-s1-search-descent", "S1", n_datasets=cfg["fig1_search_datasets"], solver=cfg["fig3_solver"],
                **PAPER_SETTINGS["Fig. 1"])  # fmt: skip
    chunks = {}
    total = cfg["fig3_cobyla_datasets"]
    for c, lo in enumerate(range(0, total, CHUNK)):
        kwargs = dict(chunk=c, n_datasets=min(CHUNK, total - lo), alphas=PAPER_ALPHAS, measures=ECE_MEASURES,
                      n_resamples=cfg["n_bootstrap"], solver="cobyla_powell", solver_options=dict(cfg["fig3_cobyla_options"]),
                      seed=seed, **PAPER_SETTINGS["Fig. 3"])  # fmt: skip
        chunks[str(c)] = {}
        for t in range(len(ECE_MEASURES)):  # one part per test: a whole chunk runs for hours
            parts.append(Part(f"fig3-s1-cobyla-c{c}-t{t}", error_rate_chunk, {"scenario": "S1", **kwargs, "test": t}))
            chunks[str(c)][str(t)] = parts[-1].name
    rounds = {}  # App. Fig. 3's S1 datasets (those of the study "fig3-s1") with Fig. 1's rounds cap
    n_chunks = math.ceil(cfg["fig3"] / CHUNK)
    for i, lo in enumerate(range(0, n_chunks, ROUNDS_CHUNKS)):
        kwargs = dict(chunks=(lo, min(n_chunks, lo + ROUNDS_CHUNKS)), n_datasets=cfg["fig3"], alphas=PAPER_ALPHAS,
                      measures=PAPER_MEASURES, n_resamples=cfg["n_bootstrap"], solver=cfg["fig3_solver"],
                      solver_options={"maxiter": ROUNDS_CAP}, seed=seed, **PAPER_SETTINGS["Fig. 3"])  # fmt: skip
        parts.append(Part(f"fig3-s1-rounds{ROUNDS_CAP}-{i}", error_rate_chunks, {"scenario": "S1", **kwargs}))
        rounds[str(i)] = parts[-1].name
    return {"one_minimiser": one, "fig3_cobyla": chunks, "fig3_rounds": rounds}


def _table1_cells(cfg, seed: int, device: str, parts: list, regime: bool = False) -> dict:
    """One part per (data set, seed, set) of Table 1: :func:`table1_cell` with the preset's training, or with
    ``regime``, :func:`table1_regime_cell` with the regime's (``table1_regime_train`` images,
    ``table1_regime_epochs`` epochs on the first data set and as many Adam steps on the others), for the preset's
    data sets and seeds ``seed, seed + 1, ...`` (``table1_seeds`` of them, ``table1_regime_seeds`` with ``regime``); ``{data set: {seed: {set: part name}}}``."""
    from credalbook.papers.mortier.end_to_end import table1_cell, table1_regime_cell, TABLE1_SETS

    n_train = cfg["table1_regime_train"] if regime else cfg["table1_train"]
    epochs_of = _table1_epochs(
        cfg["table1_datasets"], cfg["table1_regime_epochs"] if regime else cfg["table1_epochs"], n_train
    )
    func, prefix = (table1_regime_cell, "table1r") if regime else (table1_cell, "table1")
    n_seeds = cfg["table1_regime_seeds"] if regime else cfg["table1_seeds"]
    cells = {}
    for ds in cfg["table1_datasets"]:
        cells[ds] = {}
        for s in range(seed, seed + n_seeds):
            cells[ds][str(s)] = {}
            for name in TABLE1_SETS:
                kwargs = dict(dataset=ds, set_name=name, seed=s, n_members=cfg["n_members"],
                              epochs=epochs_of[ds], lr=1e-3, channels=tuple(cfg["table1_channels"]),
                              hidden=cfg["table1_hidden"], n_train=n_train, n_bins=5, alpha=0.05,
                              n_resamples=cfg["n_bootstrap"], solver="cobyla", device=device)  # fmt: skip
                parts.append(Part(f"{prefix}-{_part_name(ds)}-s{s}-{_SET_PARTS[name]}", func, kwargs))
                cells[ds][str(s)][name] = parts[-1].name
    return cells


def _table1_epochs(datasets, epochs: int, n_train: int | None, batch_size: int = 128) -> dict:
    """Training epochs per Table 1 data set: ``epochs`` for the first, and for each other as many epochs as give
    the first's number of Adam steps (batches of ``batch_size`` from at most ``n_train`` training images), so that
    a small data set's networks are trained as long, in steps, as the large one's (its epochs rounded up).

    Examples
    --------
    >>> _table1_epochs(("fashion_mnist", "digits"), 2, None)   # 2 x 469 = 938 steps; digits: 94 x 10 = 940
    {'fashion_mnist': 2, 'digits': 94}
    """
    from credalbook.data import load_dataset

    def steps_per_epoch(ds: str) -> int:
        n = len(load_dataset(ds).y_train)
        return math.ceil((n if n_train is None else min(n, n_train)) / batch_size)

    first, *others = datasets
    steps = epochs * steps_per_epoch(first)
    return {first: epochs, **{ds: math.ceil(steps / steps_per_epoch(ds)) for ds in others}}


def _checked_parameters(seed, solver: str, dataset: str, n_jobs: int) -> int:
    """The chapter's parameters checked; the seed as an int."""
    seed = check_seed(seed, generator=False)
    if not isinstance(seed, int):
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    check_choice(solver, "solver", SOLVERS)
    if not isinstance(dataset, str) or not dataset:
        raise ValueError(f"dataset must be a dataset's name; got {dataset!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}")
    return seed


def _study_adder(cfg, seed: int, n_jobs: int, parts: list):
    """``study(name, scenario, **kw)``: add the study to ``parts`` (or find the part that already computes it)
    and return its part name."""
    by_parameters = {}

    def study(name: str, scenario: str, **kw) -> str:
        part = Part(
            name,
            set_test_error_summary,
            {
                "scenario": scenario,
                "alphas": PAPER_ALPHAS,
                "n_resamples": cfg["n_bootstrap"],
                "seed": seed,
                **kw,
                "n_jobs": n_jobs,
            },
        )
        bound = inspect.signature(set_test_error_rates).bind(scenario, **kw, n_resamples=cfg["n_bootstrap"], seed=seed)
        bound.apply_defaults()  # a study named with its defaults spelt out is the same study
        key = json.dumps(
            {k: v for k, v in bound.arguments.items() if k not in ("n_jobs", "progress")}, sort_keys=True, default=str
        )
        if key not in by_parameters:
            by_parameters[key] = name
            parts.append(part)
        return by_parameters[key]

    return study


def _solvers_part(cfg, seed: int) -> Part:
    """The comparison of the minimisers of Alg. 1 line 7."""
    return Part(
        "solvers",
        solver_comparison,
        {
            "scenarios": ("S1", "S2"),
            "measures": (("ece_conf", 10), ("hl", 5)),
            "n_datasets": cfg["solver_datasets"],
            "n_resamples": cfg["n_bootstrap"],
            "seed": seed,
            "data_seed": seed + 7,
        },
    )


def _variant_studies(study, cfg, solver: str) -> dict:
    """The studies that change one setting of Fig. 1 or Figs. 3-4 (the authors' code, HL, permutations,
    no minimisation): ``{group: part name(s)}``."""
    fig1 = PAPER_SETTINGS["Fig. 1"]
    groups = {}
    groups["variant"] = study(
        "variant-s1",
        "S1",
        n_datasets=cfg["variant_datasets"],
        solver=solver,
        weight_prior="uniform",
        resample="permutation",
        scenario_prior="sparse",
        **fig1,
    )
    groups["s2_code"] = study(
        "s2-code", "S2", n_datasets=cfg["fig1"], solver=solver, segment_start="centre", outside_start="end", **fig1
    )
    groups["hl"] = {
        s: study(f"hl-{s.lower()}", s, n_datasets=cfg["variant_datasets"], solver=solver, measures=_HL_MEASURES, **fig1)
        for s in _SCENARIOS
    }
    groups["k100"] = {
        r: study(f"k100-{r}", "S1", n_datasets=cfg["fig4"], solver=solver, resample=r, **PAPER_SETTINGS["Fig. 4"])
        for r in ("bootstrap", "permutation")
    }
    groups["permutation"] = study(
        "k10-permutation", "S1", n_datasets=cfg["fig1"], solver=solver, resample="permutation", **fig1
    )
    groups["fig3_uniform"] = study(
        "fig3-s1-uniform", "S1", n_datasets=cfg["fig3"], solver="uniform", **PAPER_SETTINGS["Fig. 3"]
    )
    groups["code_h1"] = {  # S2 and S3 as the authors' synthetic experiments run them: their segment, instances permuted
        s: study(
            f"{s.lower()}-code-permutation",
            s,
            n_datasets=cfg["variant_datasets"],
            solver=solver,
            segment_start="centre",
            outside_start="end",
            resample="permutation",
            **fig1,
        )
        for s in ("S2", "S3")
    }
    groups["code_h1_cobyla"] = {  # the same with the authors' COBYLA settings (rhobeg 1.0, tol 1e-4), the ECE tests
        s: study(
            f"{s.lower()}-code-permutation-rhobeg1",
            s,
            n_datasets=cfg["variant_datasets"],
            solver="cobyla_powell",
            solver_options=dict(AUTHORS_COBYLA_OPTIONS),
            measures=ECE_MEASURES,
            segment_start="centre",
            outside_start="end",
            resample="permutation",
            **fig1,
        )
        for s in ("S2", "S3")
    }
    return groups


def _table1_part(cfg, dataset: str, seed: int, device: str) -> Part:
    """Table 1: the classifier sets trained on ``dataset`` and their tests."""
    return Part(
        f"table1-{_part_name(dataset)}",
        classifier_set_table,
        {
            "dataset": dataset,
            "n_members": cfg["n_members"],
            "epochs": cfg["head_epochs"],
            "lr": cfg["head_lr"],
            "momentum": cfg["head_momentum"],
            "backbone": {"n_train": cfg["backbone_train"], "epochs": cfg["backbone_epochs"], "seed": seed},
            "seed": seed,
            "n_bins": 5,
            "alpha": 0.05,
            "n_resamples": cfg["n_bootstrap"],
            "solver": "cobyla",
            "device": device,
        },
    )


def mortier_parts(cfg, **parameters) -> list:
    """The parts of :func:`mortier_plan` (the chapter's entry in ``credalbook.papers.plans.PLANS``)."""
    return mortier_plan(cfg, **parameters).parts
