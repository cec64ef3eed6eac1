r"""The instance-dependent calibration test for sets of classifiers (Jürgens et al., Alg. 1).

:math:`H_0`: there is a weight function :math:`\boldsymbol\lambda : \mathcal X \to \Delta_M` such
that :math:`\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x) = \sum_m \lambda_m(\mathbf x)\,
\hat{\mathbf p}^{(m)}(\mathbf x)` is calibrated in distribution (Def. 4, Eq. 12). The test

1. learns :math:`\boldsymbol\lambda(\mathbf x)` on an optimisation split (proper score + γ·CE,
   Eq. 16; :func:`~credalbook.fit_weight_function`, early stopping on a validation split);
2. forms :math:`\hat{\mathbf p}_{\boldsymbol\lambda}` on the held-out test split;
3. runs the consistency-resampling bootstrap test of Vaicenavicius et al. on it (Alg. 1 lines 5-19,
   the machinery of :func:`~credalbook.bootstrap_calibration_test`): D replicates resample the
   test instances and draw labels from :math:`\hat{\mathbf p}_{\boldsymbol\lambda}`; reject when the
   estimator on the real labels exceeds the :math:`(1-\alpha)` quantile.

Learning on separate data avoids the optimistic bias of minimising the estimator on the test data
itself, which makes Mortier et al.'s test conservative (Sec. 3.5). :func:`instance_test_error_rates`
runs the new test and Mortier et al.'s test (:func:`~credalbook.set_calibration_test` on the same
test split) on R synthetic datasets, batched: the R weight networks train together, and the null
replicates of all datasets are one vectorised computation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_labels, check_positive_int, check_probability
from credalbook.cache import cached
from credalbook.calibration_estimators import ESTIMATORS, estimator_measure
from credalbook.calibration_tests import (
    RESAMPLING,
    SOLVERS,
    CalibrationTestResult,
    _minimise,
    _null,
    _Objective,
    _result,
)
from credalbook.credal import check_ens_probs
from credalbook.error_rates import ErrorRateStudy
from credalbook.instance_scenarios import HYPOTHESES, INSTANCE_SETTINGS, instance_scenario
from credalbook.weight_learning import WeightFunction, fit_weight_function

__all__ = ["InstanceTestResult", "instance_calibration_test", "instance_test_error_rates", "split_indices",
           "JUERGENS_ESTIMATORS", "JUERGENS_H1_ALPHAS"]

#: Estimators of Figs. 3-4 with the bandwidths of the authors' statistics (NOTES.md).
JUERGENS_ESTIMATORS = (("lp", {"bandwidth": 0.01}), ("kl", {"bandwidth": 0.01}), ("mmd", {"bandwidth": 0.1}),
                       ("skce", {"bandwidth": 1e-4}))
#: Significance levels of the H1 panels (NOTES.md); the H0 panels use Mortier et al.'s levels.
JUERGENS_H1_ALPHAS = (0.005, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


@dataclass(frozen=True)
class InstanceTestResult(CalibrationTestResult):
    """:class:`~credalbook.CalibrationTestResult` of the instance-dependent test, plus what it learned.

    ``weights`` are :math:`\\boldsymbol\\lambda(\\mathbf x_i)` on the test split, shape (N_test, M).

    Attributes
    ----------
    weight_function : WeightFunction
        The learned :math:`\\boldsymbol\\lambda(\\mathbf x)`; apply it to new features with
        ``weight_function.weights(x)`` / ``.combine(x, ens_probs)``.
    combined_probs : ndarray (N_test, K)
        :math:`\\hat{\\mathbf p}_{\\boldsymbol\\lambda}` on the test split.
    test_indices : ndarray (N_test,)
        Rows of the input that formed the test split.
    """

    weight_function: WeightFunction | None = field(default=None, repr=False)
    combined_probs: np.ndarray | None = field(default=None, repr=False)
    test_indices: np.ndarray | None = field(default=None, repr=False)


def split_indices(n: int, fractions=(0.6, 0.2, 0.2), *, seed=None):
    """Random disjoint (optimisation, validation, test) index arrays with the given fractions of ``n``.

    Examples
    --------
    >>> [len(i) for i in split_indices(2000, seed=0)]
    [1200, 400, 400]
    """
    n = check_positive_int(n, "n", minimum=3)
    f = np.asarray(fractions, dtype=np.float64)
    if f.shape != (3,) or (f <= 0).any() or not np.isclose(f.sum(), 1.0):
        raise ValueError(f"fractions must be three positive numbers summing to 1; got {fractions!r}")
    perm = np.random.default_rng(seed).permutation(n)
    a = int(round(f[0] * n))
    b = a + int(round(f[1] * n))
    if a < 1 or b - a < 1 or n - b < 2:
        raise ValueError(f"n = {n} is too small for fractions {tuple(fractions)}")
    return np.sort(perm[:a]), np.sort(perm[a:b]), np.sort(perm[b:])


def _check_splits(splits, n: int):
    try:
        parts = [np.asarray(s, dtype=np.int64).ravel() for s in splits]
    except (TypeError, ValueError):
        raise ValueError("splits must be three arrays of integer indices (opt, val, test)") from None
    if len(parts) != 3 or any(len(p) < 2 for p in parts):
        raise ValueError("splits must be three arrays (opt, val, test) of at least 2 indices each")
    allidx = np.concatenate(parts)
    if (allidx < 0).any() or (allidx >= n).any():
        raise ValueError(f"splits must hold indices in [0, {n})")
    if len(np.unique(allidx)) != len(allidx):
        raise ValueError("splits must be disjoint")
    return parts


def _learner_options(options: dict | None) -> dict:
    opts = dict(options or {})
    for key in ("estimator", "estimator_options", "val_features", "val_ens_probs", "val_labels"):
        if key in opts:
            raise ValueError(f"learner_options must not contain {key!r}; pass it to the test directly")
    return opts


def instance_calibration_test(
    features,
    ens_probs,
    labels,
    *,
    estimator: str = "lp",
    estimator_options: dict | None = None,
    fractions=(0.6, 0.2, 0.2),
    splits=None,
    n_bootstrap: int = 100,
    alpha: float = 0.05,
    resample: str = "permutation",
    learner_options: dict | None = None,
    seed=0,
) -> InstanceTestResult:
    r"""Test whether some instance-dependent convex combination of a set of classifiers is calibrated (Jürgens et al., Alg. 1).

    Parameters
    ----------
    features : array (N, d) or (N,)
        Inputs of the weight function :math:`\boldsymbol\lambda(\mathbf x)` (raw features, or
        embeddings from a backbone for images).
    ens_probs : array (N, M, K)
        Member predictions.
    labels : array of int (N,)
    estimator : {"lp", "kl", "skce", "mmd", "brier"}, default "lp"
        Calibration estimator of the statistic and of the learning loss (with its
        :data:`~credalbook.LOSS_PRESETS` score and γ unless ``learner_options`` overrides them).
    estimator_options : dict, optional
        E.g. ``{"bandwidth": 0.01}``.
    fractions : three floats, default (0.6, 0.2, 0.2)
        Optimisation / validation / test split (App. D.1), drawn at random with ``seed``.
    splits : (opt, val, test) index arrays, optional
        Explicit disjoint splits instead of ``fractions`` (e.g. a real dataset's validation part
        for learning λ(x) and its test part for the test, as in Sec. 4.3).
    n_bootstrap : int, default 100
        D.
    alpha : float, default 0.05
    resample : {"permutation", "bootstrap"}, default "permutation"
        How the null replicates treat the test instances: kept (each replicate only redraws the
        labels, :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x_i))`) or
        resampled with replacement. With replacement, duplicated instances make every leave-one-out
        KDE estimate (L_p, KL) see a neighbour with *identical* prediction whose label was drawn from
        that very prediction, which lowers the null distribution: a calibrated predictor is then
        rejected almost surely (shown in the chapter). Hence the default.
    learner_options : dict, optional
        Passed to :func:`~credalbook.fit_weight_function` (``hidden``, ``lr``, ``max_epochs``,
        ``patience``, ``score``, ``gamma``, ``device`` …).
    seed : int

    Returns
    -------
    InstanceTestResult

    Examples
    --------
    Binary GP members with an instance-dependent calibrated combination (H0):

    >>> from credalbook import instance_scenario
    >>> sc = instance_scenario("binary", "H0-inst", n_datasets=1, n_instances=1000, seed=0)
    >>> res = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], n_bootstrap=50,
    ...                                 learner_options={"max_epochs": 30}, seed=0)
    >>> res.weights.shape, res.null_distribution.shape
    ((200, 2), (50,))
    """
    ens = check_ens_probs(ens_probs)
    if ens.ndim != 3:
        raise ValueError(f"ens_probs must have shape (N, M, K); got {ens.shape}")
    g = estimator_measure(estimator, **dict(estimator_options or {}))
    alpha = check_probability(alpha, "alpha")
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap")
    check_choice(resample, "resample", RESAMPLING)
    y = np.asarray(labels)
    x = np.asarray(features, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    if x.shape[0] != ens.shape[0] or y.shape != ens.shape[:1]:
        raise ValueError(f"features ({x.shape}), ens_probs ({ens.shape}) and labels ({y.shape}) must have the same N")
    opt, val, test = split_indices(ens.shape[0], fractions, seed=seed) if splits is None else _check_splits(splits, ens.shape[0])
    rng = np.random.default_rng(seed)
    wf = fit_weight_function(x[opt], ens[opt], y[opt], estimator=estimator, estimator_options=estimator_options,
                             val_features=x[val], val_ens_probs=ens[val], val_labels=y[val],
                             **{"seed": seed, **_learner_options(learner_options)})
    lam = wf.weights(x[test])
    p = np.einsum("nmk,nm->nk", ens[test], lam)
    y_test = check_labels(y[test], n_classes=ens.shape[2], shape=(len(test),))
    t = float(g.func(p, y_test))
    null = _null(p[:, None, :], g.func, n_bootstrap, "uniform", resample, rng)
    base = _result(t, null, alpha, g.name, lam, "meta-learner", 1)
    return InstanceTestResult(**vars(base), weight_function=wf, combined_probs=p, test_indices=test)


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

    For each of R datasets of :func:`~credalbook.instance_scenario` and each estimator: learn
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
        As in :func:`instance_calibration_test` (the null replicates of the new test).
    mortier : bool, default True
        Also run Mortier et al.'s test.
    mortier_solver : str, default "cobyla_powell"
    mortier_resample : {"permutation", "bootstrap"}, default "permutation"
        Null replicates of Mortier et al.'s test (the authors' code permutes; with the KDE
        estimators resampling with replacement biases the null downwards, see ``resample``).
    learner_options : dict, optional
        For :func:`~credalbook.fit_weight_function`.
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
                                 device=device, seed=int(rng.integers(2**31)), **_learner_options(learner_options))
        p = wf.combine(x[:, test], ens[:, test])
        stats[2 * t] = g.func(p, y[:, test])
        nulls[2 * t] = _null(p[:, :, None, :], g.func, n_bootstrap, "uniform", resample, rng)
        nfev[2 * t] = wf.best_epoch
        steps.update(1)
        if not mortier:
            continue
        nulls[2 * t + 1] = _null(ens[:, test], g.func, n_bootstrap, "uniform", mortier_resample, rng)
        for i in range(r):
            obj = _Objective(ens[i, test], y[i, test], g.func)
            stats[2 * t + 1, i] = obj(_minimise(obj, m, mortier_solver, {}, rng))
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
