r"""Type I and II error rates of the instance-dependent calibration test (Jürgens et al., Figs. 3-4).

:func:`instance_test_error_rates` draws R datasets of a scenario of :mod:`credalbook.synthetic.instance_scenarios`,
runs the instance-dependent test and Mortier et al.'s test on each and returns an
:class:`~credalbook.papers.mortier.ErrorRateStudy`. Its null samples (T × R × D floats) are large; what the
chapter's figures, tables and comparison need is the study's decisions at the figures' levels and its
p-values (:class:`~credalbook.papers.mortier.ErrorRateSummary`, a few kilobytes), which
:func:`instance_test_error_summary` returns and the chapter records. :func:`resampling_pitfall` is the Type I
error of a perfectly calibrated predictor under the two ways of drawing null replicates.
"""

from __future__ import annotations

import collections
import time

import numpy as np

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_positive_int, check_probability
from credalbook.cache import cached
from credalbook.metrics.distribution import ESTIMATORS
from credalbook.papers.juergens.authors_settings import authors_binary_scenario, authors_multiclass_scenario
from credalbook.papers.juergens.mortier_v0 import mortier_v0_null
from credalbook.papers.mortier.error_rates import ErrorRateStudy, ErrorRateSummary, PAPER_ALPHAS
from credalbook.stats.bootstrap import (
    MeasureObjective,
    minimise_objective,
    null_statistics,
    RESAMPLING,
    set_null_distribution,
    SOLVERS,
)
from credalbook.stats.instance import check_learner_options, split_indices
from credalbook.stats.measures import estimator_measure
from credalbook.stats.weight_learning import fit_weight_function
from credalbook.synthetic.instance_scenarios import HYPOTHESES, instance_scenario, INSTANCE_SETTINGS

__all__ = [
    "instance_test_error_rates",
    "instance_test_error_summary",
    "JUERGENS_ESTIMATORS",
    "JUERGENS_H1_ALPHAS",
    "JUERGENS_SUMMARY_ALPHAS",
    "resampling_pitfall",
    "summarise_error_rates",
]

#: Estimators of Figs. 3-4 with the bandwidths of the authors' statistics (mkjuergens/EnsembleCalibration@8dff2b5,
#: ``src/config/config_cal_test.py``, l. 87, 114, 166; MMD from ``src/config/config_synthetic.py``, l. 149).
JUERGENS_ESTIMATORS = (
    ("lp", {"bandwidth": 0.01}),
    ("kl", {"bandwidth": 0.01}),
    ("mmd", {"bandwidth": 0.1}),
    ("skce", {"bandwidth": 1e-4}),
)
#: Significance levels of the H1 panels (mkjuergens/EnsembleCalibration@8dff2b5, ``src/run_t1t2_analysis.py``,
#: l. 253; ``src/main_t1t2_synthetic.py``, l. 133); the H0 panels use Mortier et al.'s levels.
JUERGENS_H1_ALPHAS = (0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
#: Levels at which :func:`instance_test_error_summary` keeps the decisions: those of the H0 panels (Mortier et
#: al.'s twelve) and of the H1 panels, in increasing order.
JUERGENS_SUMMARY_ALPHAS = tuple(sorted(set(PAPER_ALPHAS) | set(JUERGENS_H1_ALPHAS)))


#: Who draws the datasets of a study (:func:`instance_test_error_rates`).
SIMULATORS = ("book", "authors")

#: Solvers that draw no random numbers: their minimisations can run apart from the estimator's stream.
_RNG_FREE_SOLVERS = frozenset({"cobyla", "cobyla_powell", "slsqp", "grid"})
#: Datasets per work unit of Mortier et al.'s minimisations (fixed, so results do not depend on ``n_jobs``).
MINIMA_CHUNK = 10


def _minima(ens_test, y_test, g, solver, rng):
    """Mortier et al.'s statistic (min over constant λ) and the minimiser's evaluations per dataset, in order."""
    m = ens_test.shape[2]
    st, nf = np.empty(len(ens_test)), np.empty(len(ens_test), dtype=np.int64)
    for i in range(len(ens_test)):
        obj = MeasureObjective(ens_test[i], y_test[i], g.func)
        st[i] = obj(minimise_objective(obj, m, solver, {}, rng))
        nf[i] = obj.n_evaluations
    return st, nf


def _estimator_unit(
    x,
    ens,
    y,
    opt,
    val,
    test,
    name,
    opts,
    seq,
    n_resamples,
    resample,
    mortier,
    mortier_resample,
    mortier_solver,
    with_minima,
    learner,
    device,
    mortier_v0=False,
):
    """One estimator's weight network, statistics and null samples (and Mortier's minima if ``with_minima``; the
    null of the authors' baseline if ``mortier_v0``), all from the estimator's own stream ``seq`` in the order of
    the serial study."""
    rng = np.random.default_rng(seq)
    g = estimator_measure(name, **opts)
    wf = fit_weight_function(
        x[:, opt],
        ens[:, opt],
        y[:, opt],
        estimator=name,
        estimator_options=opts,
        val_features=x[:, val],
        val_ens_probs=ens[:, val],
        val_labels=y[:, val],
        device=device,
        seed=int(rng.integers(2**31)),
        **learner,
    )
    ens_test, y_test = ens[:, test], y[:, test]
    p = wf.combine(x[:, test], ens_test)
    stat = g.func(p, y_test)
    null = null_statistics(p[:, :, None, :], g.func, n_resamples, "uniform", resample, rng)
    if not mortier:
        return stat, null, wf.best_epoch, None, None, None
    null_m = null_statistics(ens_test, g.func, n_resamples, "uniform", mortier_resample, rng)
    minima = _minima(ens_test, y_test, g, mortier_solver, rng) if with_minima else None
    null_v0 = mortier_v0_null(ens_test, g.func, n_resamples, rng) if mortier_v0 else None
    return stat, null, wf.best_epoch, null_m, minima, null_v0


def _unit(kind, args):
    """A work unit of :func:`instance_test_error_rates`: ``"estimator"`` or ``"minima"`` (a chunk of datasets)."""
    if kind == "estimator":
        return _estimator_unit(*args)
    ens, y, test, lo, name, opts, solver = args  # a solver that draws no random numbers: any rng will do
    chunk = slice(lo, lo + MINIMA_CHUNK)
    return lo, _minima(
        ens[chunk][:, test], y[chunk][:, test], estimator_measure(name, **opts), solver, np.random.default_rng(0)
    )


def _test_names(specs, mortier_v0=False):
    names, v0 = [], []
    for name, opts in specs:
        label = estimator_measure(name, **opts).name
        names += [f"{label} · new", f"{label} · Mortier"]
        v0.append(f"{label} · Mortier v0")
    return tuple(names + (v0 if mortier_v0 else []))


def _checked_options(setting, hypothesis, estimators, n_resamples, resample, mortier_solver, mortier_resample):
    """The door checks of :func:`instance_test_error_rates`: ``n_resamples`` checked and the estimators as
    ``((name, options), ...)``."""
    check_choice(setting, "setting", INSTANCE_SETTINGS)
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    check_choice(mortier_solver, "mortier_solver", SOLVERS)
    check_choice(mortier_resample, "mortier_resample", RESAMPLING)
    check_choice(resample, "resample", RESAMPLING)
    specs = tuple((name, dict(opts or {})) for name, opts in estimators)
    for name, _ in specs:
        check_choice(name, "estimators", ESTIMATORS)
    if not specs:
        raise ValueError("estimators must name at least one estimator")
    return n_resamples, specs


def _work_items(data, specs, seqs, options, split_minima):
    """The work units of :func:`instance_test_error_rates` as ``(kind, estimator index, arguments)``.

    ``data`` is ``(x, ens, y, opt, val, test)``, ``seqs`` the estimators' seed sequences and ``options`` the
    arguments of :func:`_estimator_unit` after ``seq``; with ``split_minima`` Mortier et al.'s minimisations
    run apart, in chunks of :data:`MINIMA_CHUNK` datasets.
    """
    x, ens, y, opt, val, test = data
    items = [
        ("estimator", t, (*data, name, opts, seq, *options)) for t, ((name, opts), seq) in enumerate(zip(specs, seqs))
    ]
    if split_minima:
        mortier_solver = options[4]
        items += [
            ("minima", t, (ens, y, test, lo, name, opts, mortier_solver))
            for t, (name, opts) in enumerate(specs)
            for lo in range(0, x.shape[0], MINIMA_CHUNK)
        ]
    return items


def _collect(items, results, arrays, *, mortier, n_datasets, steps):
    """Write the results of the work units ``items`` into ``arrays`` = (stats, nulls, nfev), in place (the rows
    of the authors' baseline, after the 2 T others, take their nulls here and Mortier's statistics later)."""
    stats, nulls, nfev = arrays
    n_pairs = 2 * sum(kind == "estimator" for kind, _, _ in items)
    for (kind, t, _), res in zip(items, results):
        if kind == "estimator":
            stats[2 * t], nulls[2 * t], nfev[2 * t], null_m, minima, null_v0 = res
            if null_v0 is not None:
                nulls[n_pairs + t] = null_v0
            if mortier:
                nulls[2 * t + 1] = null_m
            if minima is not None:
                stats[2 * t + 1], nfev[2 * t + 1] = minima
            steps.update(1 + (n_datasets if minima is not None else 0))
        else:
            lo, (st, nf) = res
            stats[2 * t + 1, lo : lo + len(st)], nfev[2 * t + 1, lo : lo + len(st)] = st, nf
            steps.update(len(st))


def _study_data(setting, hypothesis, simulator, n_datasets, n_instances, fractions, seqs):
    """A study's datasets (drawn from the stream ``seqs[0]``) and its optimisation/validation/test split (``seqs[1]``).

    One place for :func:`instance_test_error_rates` and the oracle study, which must see the same data.
    """
    check_choice(simulator, "simulator", SIMULATORS)
    authors = authors_binary_scenario if setting == "binary" else authors_multiclass_scenario
    draw = instance_scenario if simulator == "book" else (lambda _, *a, **k: authors(*a, **k))
    sc = draw(setting, hypothesis, n_datasets=n_datasets, n_instances=n_instances, seed=np.random.default_rng(seqs[0]))
    return sc, split_indices(n_instances, fractions, seed=np.random.default_rng(seqs[1]))


@renamed(n_bootstrap="n_resamples")
@cached(ignore=["n_jobs", "progress"])
def instance_test_error_rates(
    setting: str,
    hypothesis: str,
    *,
    n_datasets: int = 100,
    n_instances: int = 2000,
    estimators=JUERGENS_ESTIMATORS,
    fractions=(0.6, 0.2, 0.2),
    n_resamples: int = 100,
    resample: str = "permutation",
    mortier: bool = True,
    mortier_solver: str = "cobyla_powell",
    mortier_resample: str = "permutation",
    learner_options: dict | None = None,
    device: str = "cpu",
    seed: int = 0,
    n_jobs: int = 1,
    progress: bool = True,
    simulator: str = "book",
    mortier_v0: bool = False,
) -> ErrorRateStudy:
    r"""Type I / II error study of the new test and of Mortier et al.'s test (Jürgens et al., Figs. 3-4).

    For each of R datasets of :func:`~credalbook.synthetic.instance_scenario` and each estimator: learn
    :math:`\boldsymbol\lambda(\mathbf x)` on the optimisation split (all R networks in one batched
    training), compute the statistic and D null replicates on the test split; and Mortier et al.'s
    Alg. 1 on the same test split (constant λ minimised by ``mortier_solver``, null weights uniform).

    Parameters
    ----------
    setting : {"binary", "multiclass"}
    hypothesis : {"H0-const", "H0-inst", "H1-1", "H1-2", "H1-3"}
    n_datasets : int, default 100
        R (the paper: 100).
    n_instances : int, default 2000
    estimators : sequence of (name, options)
        Default :data:`JUERGENS_ESTIMATORS` (L_p, KL, MMD, SKCE with the authors' bandwidths).
    fractions, n_resamples, resample
        As in :func:`~credalbook.stats.instance_calibration_test` (the null replicates of the new test).
    mortier : bool, default True
        Also run Mortier et al.'s test.
    mortier_solver : str, default "cobyla_powell"
    mortier_resample : {"permutation", "bootstrap"}, default "permutation"
        Null replicates of Mortier et al.'s test. The authors' baseline resamples the instances with
        replacement (mkjuergens/EnsembleCalibration@8dff2b5, ``src/cal_test/bootstrap_test.py``, l. 316-323); with
        the KDE estimators that biases the null, see ``resample`` of
        :func:`~credalbook.stats.instance_calibration_test`.
    learner_options : dict, optional
        For :func:`~credalbook.stats.fit_weight_function`.
    device : str, default "cpu"
        Where the weight networks train (``"auto"``: CUDA when available).
    seed : int
    n_jobs : int or None, default 1
        Work units run at once through joblib (1: here, one after another; -1: all cores; None: one
        after another unless a ``joblib.parallel_config`` says otherwise; inside
        ``joblib.parallel_config(backend="dask")`` the units go to the ``dask.distributed`` cluster). A unit is one
        estimator (its weight network, null samples and, for a solver that draws random numbers,
        Mortier et al.'s minimisations, from the estimator's own seed) or, for a solver that draws none
        (the default ``"cobyla_powell"``), the minimisations on a fixed chunk of datasets. Results do not
        depend on ``n_jobs`` (in worker processes the weight networks train with one torch thread: equal
        to a one-thread serial run).
    progress : bool
    simulator : {"book", "authors"}, default "book"
        Who draws the datasets: :func:`~credalbook.synthetic.instance_scenario`, or the authors' generators
        :func:`~credalbook.papers.juergens.authors_binary_scenario` (H1-1, H1-2, H1-3: their ``setting`` 1, 2 and
        None) and :func:`~credalbook.papers.juergens.authors_multiclass_scenario` (members constant in x, H0
        weights per instance).

    mortier_v0 : bool, default False
        Also the authors' Mortier baseline (:func:`~credalbook.papers.juergens.mortier_v0_null`; needs
        ``mortier``): Mortier et al.'s statistic with the null of their ``npbe_test_ensemble_v0``, named
        ``"<estimator> · Mortier v0"`` after the others.

    Returns
    -------
    ErrorRateStudy
        Tests named ``"<estimator> · new"`` and ``"<estimator> · Mortier"``; ``scenario`` is the
        hypothesis, ``config["setting"]`` the setting; ``n_evaluations`` holds the minimiser's
        evaluations (Mortier) or the weight network's best epoch (new test).
    """
    n_resamples, specs = _checked_options(
        setting, hypothesis, estimators, n_resamples, resample, mortier_solver, mortier_resample
    )
    n_jobs = check_n_jobs(n_jobs)
    start = time.perf_counter()
    seqs = np.random.SeedSequence(seed).spawn(2 + len(specs))
    sc, (opt, val, test) = _study_data(setting, hypothesis, simulator, n_datasets, n_instances, fractions, seqs)
    x, ens, y = sc.features, sc.ens_probs, sc.labels
    r = x.shape[0]
    if mortier_v0 and not mortier:
        raise ValueError("mortier_v0=True needs mortier=True (it shares Mortier et al.'s statistic)")
    names = _test_names(specs, mortier_v0)
    stats = np.full((len(names), r), np.nan)
    nulls = np.full((len(names), r, n_resamples), np.nan)
    nfev = np.zeros((len(names), r), dtype=np.int64)
    steps = progress_bar(
        total=len(specs) * (1 + (r if mortier else 0)), desc=f"{setting} {hypothesis}", progress=progress
    )
    # Work units: per estimator, the weight network, both null samples and (when the solver draws random
    # numbers, from the estimator's stream after the nulls) Mortier's minimisations; with a solver that draws
    # none, the minimisations run apart in fixed chunks of datasets. Neither depends on n_jobs.
    split_minima = mortier and mortier_solver in _RNG_FREE_SOLVERS
    learner = check_learner_options(learner_options)
    options = (n_resamples, resample, mortier, mortier_resample, mortier_solver, not split_minima, learner, device)
    options += (True,) if mortier_v0 else ()
    items = _work_items((x, ens, y, opt, val, test), specs, seqs[2:], options, split_minima)
    results = sweep(_unit, [(kind, args) for kind, _, args in items], n_jobs=n_jobs)
    _collect(items, results, (stats, nulls, nfev), mortier=mortier, n_datasets=r, steps=steps)
    if mortier_v0:
        stats[2 * len(specs) :], nfev[2 * len(specs) :] = stats[1 : 2 * len(specs) : 2], nfev[1 : 2 * len(specs) : 2]
    steps.close()
    keep = [i for i, nm in enumerate(names) if mortier or nm.endswith("new")]
    config = dict(
        setting=setting,
        hypothesis=hypothesis,
        n_datasets=r,
        n_instances=n_instances,
        estimators=specs,
        fractions=tuple(fractions),
        n_bootstrap=n_resamples,
        resample=resample,
        mortier=mortier,
        mortier_solver=mortier_solver,
        mortier_resample=mortier_resample,
        learner_options=dict(learner_options or {}),
        seed=seed,
        **({} if simulator == "book" else {"simulator": simulator}),
        **({"mortier_v0": True} if mortier_v0 else {}),
    )
    return ErrorRateStudy(
        hypothesis,
        tuple(names[i] for i in keep),
        stats[keep],
        nulls[keep],
        nfev[keep],
        config,
        time.perf_counter() - start,
    )


def instance_test_error_summary(
    setting: str, hypothesis: str, *, alphas=JUERGENS_SUMMARY_ALPHAS, **options
) -> ErrorRateSummary:
    """:func:`instance_test_error_rates` (cached) without its null samples: its decisions at ``alphas``.

    What the chapter records of a study of Figs. 3-4 (one part per setting and hypothesis): every
    rejection, rate and error at a level of ``alphas`` equals the study's, bit for bit, and its p-values
    are kept (:meth:`~credalbook.papers.mortier.ErrorRateStudy.summary`); a few kilobytes instead of the
    8 T × R × D bytes of the null samples. ``options`` are those of :func:`instance_test_error_rates`.

    Parameters
    ----------
    setting : {"binary", "multiclass"}
    hypothesis : {"H0-const", "H0-inst", "H1-1", "H1-2", "H1-3"}
    alphas : sequence of float, default :data:`JUERGENS_SUMMARY_ALPHAS`
        The levels whose decisions are kept (the figures': Mortier et al.'s twelve and the H1 panels').

    Returns
    -------
    ErrorRateSummary

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> s = instance_test_error_summary("multiclass", "H1-3", n_datasets=2, n_instances=150, n_resamples=10,
    ...                                 estimators=(("kl", {}),), learner_options=dict(max_epochs=2),
    ...                                 progress=False)
    >>> s.measures, s.rejected.shape, s.error_rates([0.05, 0.3]).shape
    (('KL-CE · new', 'KL-CE · Mortier'), (2, 18, 2), (2, 2))
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(CREDALBOOK_CACHE_DIR=old)
    """
    return instance_test_error_rates(setting, hypothesis, **options).summary(alphas)


@renamed(n_bootstrap="n_resamples")
def resampling_pitfall(
    estimator: str = "lp",
    *,
    setting: str = "multiclass",
    n_datasets: int = 200,
    n_instances: int = 400,
    resamples=RESAMPLING,
    n_resamples: int = 100,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict:
    r"""Type I error of a perfectly calibrated predictor, null replicates by resampling vs. permuting (the pitfall).

    On R datasets of the ``setting``'s H0-const scenario, the *true* distributions
    :math:`\mathbf p^*(\mathbf x_i)` are the predictions; the test rejects when the estimator's value exceeds
    the :math:`1-\alpha` quantile of its null replicates
    (:func:`~credalbook.stats.set_null_distribution` with one member, labels redrawn from the predictions).
    Resampling the instances with replacement first (``"bootstrap"``, Vaicenavicius et al.) gives a duplicated
    instance a neighbour with an identical prediction whose label was drawn from that very prediction, which
    lowers the null distribution of the kernel estimators, so the calibrated predictor is rejected far more
    often than α; keeping the instances (``"permutation"``, the book's default) holds the level. The authors' code
    kept them until commit 5636feb and resamples with replacement since b66dc2b (mkjuergens/EnsembleCalibration,
    ``src/cal_test/bootstrap_test.py``, l. 185 at 8dff2b5).

    Parameters
    ----------
    estimator : str, default "lp"
        A name of :data:`credalbook.metrics.ESTIMATORS` (default options).
    setting : {"binary", "multiclass"}, default "multiclass"
    n_datasets, n_instances : int
        R and N.
    resamples : sequence of {"bootstrap", "permutation"}
    n_resamples : int, default 100
        D.
    alpha : float, default 0.05
    seed : int
        Draws the datasets and (the same seed for every resampling) the null replicates.

    Returns
    -------
    dict
        ``(estimator name, resampling) → rejection rate``.

    References
    ----------
    Vaicenavicius, J. et al. (2019). Evaluating model calibration in classification. AISTATS, Sec. 4
    (consistency resampling). Jürgens et al., Alg. 1 (null replicates with the instances kept).

    Examples
    --------
    >>> r = resampling_pitfall("lp", n_datasets=4, n_instances=100, n_resamples=20)
    >>> sorted(r)
    [('L2-CE', 'bootstrap'), ('L2-CE', 'permutation')]
    """
    check_choice(estimator, "estimator", ESTIMATORS)
    check_choice(setting, "setting", INSTANCE_SETTINGS)
    for r in resamples:
        check_choice(r, "resamples", RESAMPLING)
    alpha = check_probability(alpha, "alpha")
    sc = instance_scenario(
        setting,
        "H0-const",
        n_datasets=check_positive_int(n_datasets, "n_datasets"),
        n_instances=check_positive_int(n_instances, "n_instances", minimum=2),
        seed=seed,
    )
    g = estimator_measure(estimator)
    t = g.func(sc.truth, sc.labels)
    out = {}
    for r in resamples:
        null = set_null_distribution(sc.truth[:, :, None, :], measure=g, n_resamples=n_resamples, resample=r, seed=seed)
        out[(g.name, r)] = float(np.mean(t > np.quantile(null, 1 - alpha, axis=-1)))
    return out


def _decisions(study, alphas) -> np.ndarray:
    """Reject (True) per test, dataset and level: (T, R, A), from :meth:`ErrorRateStudy.rejections` (or a summary's)."""
    return np.moveaxis(study.rejections(alphas), 1, -1)


@renamed(n_boot="n_resamples")
def summarise_error_rates(
    studies: dict, *, alphas=None, h1_alpha: float = 0.05, n_resamples: int = 2000, seed: int = 0
) -> dict:
    r"""Counts and standard errors behind the Fig. 3-4 rows of :func:`~credalbook.papers.juergens.compare`.

    Parameters
    ----------
    studies : dict
        Hypothesis ("H0-const", ..., "H1-3") → :class:`~credalbook.papers.mortier.ErrorRateStudy` of
        :func:`instance_test_error_rates`, or its :class:`~credalbook.papers.mortier.ErrorRateSummary` (with
        ``alphas`` and ``h1_alpha`` among its levels), one setting; every study has the same R.
    alphas : sequence of float, optional
        Levels of the H0 panels (default: Mortier et al.'s twelve, as the paper's figures).
    h1_alpha : float, default 0.05
        Level of the H1 rows.
    n_resamples : int, default 2000
        Bootstrap draws over the datasets of each panel (the same draw for every test of a panel, so
        the new test and Mortier's, run on the same datasets, stay paired).
    seed : int

    Returns
    -------
    dict
        Plain numbers:

        * ``R``; ``alphas``; ``h1_alpha``;
        * ``h0_cells``: one dict per H0 panel, test and level — ``panel``, ``estimator``, ``kind``
          ("new", "Mortier" or the authors' baseline "Mortier v0"), ``alpha``, ``k`` (rejections), ``n`` (= R);
        * ``h1_cells``: one per H1 panel and test at ``h1_alpha`` — ``panel``, ``estimator``,
          ``kind``, ``k`` (misses: Type II), ``n``;
        * ``gap``: mean :math:`|\text{rate} - \alpha|` over the H0 panels, levels and the tests of
          L2, KL and MMD, ``new`` and ``Mortier``, their difference ``diff`` = Mortier − new and its
          bootstrap standard error ``se``;
        * ``type2``: mean Type II at ``h1_alpha`` over the H1 panels (L2, KL, MMD), ``new``,
          ``Mortier``, ``diff`` = Mortier − new, ``se``;
        * ``skce``: mean power at ``h1_alpha`` of the new test, ``others`` (L2, KL, MMD) and ``skce``,
          ``diff`` = others − SKCE, ``se``;
        * ``type2_by_panel``: H1 panel → the new test's mean Type II (L2, KL, MMD);
        * ``gap_v0``, ``type2_v0``: as ``gap`` and ``type2`` with the authors' baseline "Mortier v0" in place of
          Mortier et al.'s test (None when the studies do not run it).

    Examples
    --------
    >>> from credalbook.papers.mortier import ErrorRateStudy
    >>> rng = np.random.default_rng(0)
    >>> def st(h, shift):
    ...     names = ("L2-CE · new", "L2-CE · Mortier", "SKCE · new", "SKCE · Mortier")
    ...     return ErrorRateStudy(h, names, rng.normal(shift, 1, (4, 40)), rng.normal(0, 1, (4, 40, 100)),
    ...                           np.zeros((4, 40), dtype=int))
    >>> s = summarise_error_rates({"H0-const": st("H0-const", 0.0), "H1-1": st("H1-1", 3.0)}, n_resamples=200)
    >>> s["R"], len(s["h0_cells"]), len(s["h1_cells"])
    (40, 48, 4)
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    alphas = np.asarray(PAPER_ALPHAS if alphas is None else alphas, dtype=np.float64)
    if not studies:
        raise ValueError("studies must hold at least one study")
    rs = {st.n_datasets for st in studies.values()}
    if len(rs) != 1:
        raise ValueError(f"every study must have the same number of datasets; got {sorted(rs)}")
    r = rs.pop()
    rng = np.random.default_rng(seed)
    n_resamples = check_positive_int(n_resamples, "n_resamples")

    def split(name):
        est, kind = name.split(" · ")
        return est, kind

    h0_cells, h1_cells = [], []
    # per panel: decision arrays and the bootstrap index draws
    boot_idx = {h: rng.integers(0, r, size=(n_resamples, r)) for h in studies}
    gap_parts = collections.defaultdict(list)  # kind → (n_resamples + 1,) arrays, one per (panel, test)
    t2_parts = collections.defaultdict(list)
    pow_parts = {"others": [], "skce": []}
    type2_by_panel = {}
    for h, st in studies.items():
        idx = np.vstack([np.arange(r)[None], boot_idx[h]])  # row 0: the data themselves
        if st.is_null:
            dec = _decisions(st, alphas)  # (T, R, A)
            for t, name in enumerate(st.measures):
                est, kind = split(name)
                for a, alpha in enumerate(alphas):
                    h0_cells.append(
                        dict(panel=h, estimator=est, kind=kind, alpha=float(alpha), k=int(dec[t, :, a].sum()), n=r)
                    )
                if not est.startswith("SKCE"):
                    rates = dec[t][idx].mean(axis=1)  # (B+1, A)
                    gap_parts[kind].append(np.abs(rates - alphas).mean(axis=-1))
        else:
            dec = _decisions(st, [h1_alpha])[..., 0]  # (T, R)
            new_t2 = []
            for t, name in enumerate(st.measures):
                est, kind = split(name)
                h1_cells.append(dict(panel=h, estimator=est, kind=kind, k=int((~dec[t]).sum()), n=r))
                miss = 1.0 - dec[t][idx].mean(axis=1)  # (B+1,)
                if est.startswith("SKCE"):
                    if kind == "new":
                        pow_parts["skce"].append(1 - miss)
                else:
                    t2_parts[kind].append(miss)
                    if kind == "new":
                        pow_parts["others"].append(1 - miss)
                        new_t2.append(miss[0])
            if new_t2:
                type2_by_panel[h] = float(np.mean(new_t2))

    def pair(parts, a, b):
        if not parts[a] or not parts[b]:
            return None
        va, vb = np.mean(parts[a], axis=0), np.mean(parts[b], axis=0)
        d = vb - va
        return {a: float(va[0]), b: float(vb[0]), "diff": float(d[0]), "se": float(np.std(d[1:], ddof=1))}

    return dict(
        R=r,
        alphas=[float(a) for a in alphas],
        h1_alpha=float(h1_alpha),
        h0_cells=h0_cells,
        h1_cells=h1_cells,
        gap=pair(gap_parts, "new", "Mortier"),
        type2=pair(t2_parts, "new", "Mortier"),
        gap_v0=pair(gap_parts, "new", "Mortier v0"),
        type2_v0=pair(t2_parts, "new", "Mortier v0"),
        skce=pair(pow_parts, "skce", "others"),
        type2_by_panel=type2_by_panel,
    )
