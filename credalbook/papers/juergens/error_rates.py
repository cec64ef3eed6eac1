r"""Type I and II error rates of the instance-dependent calibration test (Jürgens et al., Figs. 3-4).

:func:`instance_test_error_rates` draws R datasets of a scenario of :mod:`credalbook.synthetic.instance_scenarios`,
runs the instance-dependent test and Mortier et al.'s test on each and returns an
:class:`~credalbook.papers.mortier.ErrorRateStudy`.
"""

from __future__ import annotations

import time

import numpy as np

from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_positive_int
from credalbook.cache import cached
from credalbook.metrics.distribution import ESTIMATORS
from credalbook.stats.measures import estimator_measure
from credalbook.stats.bootstrap import RESAMPLING, SOLVERS, minimise_objective, null_statistics, MeasureObjective
from credalbook.papers.mortier.error_rates import ErrorRateStudy
from credalbook.synthetic.instance_scenarios import HYPOTHESES, INSTANCE_SETTINGS, instance_scenario
from credalbook.stats.weight_learning import fit_weight_function

from credalbook.stats.instance import check_learner_options, split_indices

__all__ = ["instance_test_error_rates", "JUERGENS_ESTIMATORS", "JUERGENS_H1_ALPHAS"]

#: Estimators of Figs. 3-4 with the bandwidths of the authors' statistics (mkjuergens/EnsembleCalibration@8dff2b5,
#: ``src/config/config_cal_test.py``, l. 87, 114, 166; MMD from ``src/config/config_synthetic.py``, l. 149).
JUERGENS_ESTIMATORS = (("lp", {"bandwidth": 0.01}), ("kl", {"bandwidth": 0.01}), ("mmd", {"bandwidth": 0.1}),
                       ("skce", {"bandwidth": 1e-4}))
#: Significance levels of the H1 panels (mkjuergens/EnsembleCalibration@8dff2b5, ``src/run_t1t2_analysis.py``,
#: l. 253; ``src/main_t1t2_synthetic.py``, l. 133); the H0 panels use Mortier et al.'s levels.
JUERGENS_H1_ALPHAS = (0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


def _test_names(specs):
    names = []
    for name, opts in specs:
        label = estimator_measure(name, **opts).name
        names += [f"{label} · new", f"{label} · Mortier"]
    return tuple(names)


@cached(ignore=["progress"])
def instance_test_error_rates(
    setting: str,
    hypothesis: str,
    *,
    n_datasets: int = 100,
    n_instances: int = 2000,
    estimators=JUERGENS_ESTIMATORS,
    fractions=(0.6, 0.2, 0.2),
    n_bootstrap: int = 100,
    resample: str = "permutation",
    mortier: bool = True,
    mortier_solver: str = "cobyla_powell",
    mortier_resample: str = "permutation",
    learner_options: dict | None = None,
    device: str = "cpu",
    seed: int = 0,
    progress: bool = True,
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
    fractions, n_bootstrap, resample
        As in :func:`~credalbook.stats.instance_calibration_test` (the null replicates of the new test).
    mortier : bool, default True
        Also run Mortier et al.'s test.
    mortier_solver : str, default "cobyla_powell"
    mortier_resample : {"permutation", "bootstrap"}, default "permutation"
        Null replicates of Mortier et al.'s test (the authors' code permutes; with the KDE
        estimators resampling with replacement biases the null downwards, see ``resample``).
    learner_options : dict, optional
        For :func:`~credalbook.stats.fit_weight_function`.
    device : str, default "cpu"
        Where the weight networks train (``"auto"``: CUDA when available).
    seed : int
    progress : bool

    Returns
    -------
    ErrorRateStudy
        Tests named ``"<estimator> · new"`` and ``"<estimator> · Mortier"``; ``scenario`` is the
        hypothesis, ``config["setting"]`` the setting; ``n_evaluations`` holds the minimiser's
        evaluations (Mortier) or the weight network's best epoch (new test).
    """
    check_choice(setting, "setting", INSTANCE_SETTINGS)
    check_choice(hypothesis, "hypothesis", HYPOTHESES)
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap")
    check_choice(mortier_solver, "mortier_solver", SOLVERS)
    check_choice(mortier_resample, "mortier_resample", RESAMPLING)
    check_choice(resample, "resample", RESAMPLING)
    specs = tuple((name, dict(opts or {})) for name, opts in estimators)
    for name, _ in specs:
        check_choice(name, "estimators", ESTIMATORS)
    if not specs:
        raise ValueError("estimators must name at least one estimator")
    start = time.perf_counter()
    seqs = np.random.SeedSequence(seed).spawn(2 + len(specs))
    sc = instance_scenario(setting, hypothesis, n_datasets=n_datasets, n_instances=n_instances,
                           seed=np.random.default_rng(seqs[0]))
    opt, val, test = split_indices(n_instances, fractions, seed=np.random.default_rng(seqs[1]))
    x, ens, y = sc.features, sc.ens_probs, sc.labels
    r = x.shape[0]
    names = _test_names(specs)
    stats = np.full((len(names), r), np.nan)
    nulls = np.full((len(names), r, n_bootstrap), np.nan)
    nfev = np.zeros((len(names), r), dtype=np.int64)
    steps = progress_bar(total=len(specs) * (1 + (r if mortier else 0)), desc=f"{setting} {hypothesis}",
                         progress=progress)
    m = ens.shape[2]
    for t, ((name, opts), seq) in enumerate(zip(specs, seqs[2:])):
        rng = np.random.default_rng(seq)
        g = estimator_measure(name, **opts)
        wf = fit_weight_function(x[:, opt], ens[:, opt], y[:, opt], estimator=name, estimator_options=opts,
                                 val_features=x[:, val], val_ens_probs=ens[:, val], val_labels=y[:, val],
                                 device=device, seed=int(rng.integers(2**31)), **check_learner_options(learner_options))
        p = wf.combine(x[:, test], ens[:, test])
        stats[2 * t] = g.func(p, y[:, test])
        nulls[2 * t] = null_statistics(p[:, :, None, :], g.func, n_bootstrap, "uniform", resample, rng)
        nfev[2 * t] = wf.best_epoch
        steps.update(1)
        if not mortier:
            continue
        nulls[2 * t + 1] = null_statistics(ens[:, test], g.func, n_bootstrap, "uniform", mortier_resample, rng)
        for i in range(r):
            obj = MeasureObjective(ens[i, test], y[i, test], g.func)
            stats[2 * t + 1, i] = obj(minimise_objective(obj, m, mortier_solver, {}, rng))
            nfev[2 * t + 1, i] = obj.n_evaluations
            steps.update(1)
    steps.close()
    keep = [i for i, nm in enumerate(names) if mortier or nm.endswith("new")]
    config = dict(setting=setting, hypothesis=hypothesis, n_datasets=r, n_instances=n_instances,
                  estimators=specs, fractions=tuple(fractions), n_bootstrap=n_bootstrap, resample=resample, mortier=mortier,
                  mortier_solver=mortier_solver, mortier_resample=mortier_resample,
                  learner_options=dict(learner_options or {}), seed=seed)
    return ErrorRateStudy(hypothesis, tuple(names[i] for i in keep), stats[keep], nulls[keep], nfev[keep], config,
                          time.perf_counter() - start)
