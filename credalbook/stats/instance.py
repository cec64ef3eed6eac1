r"""The instance-dependent calibration test for sets of classifiers (Jürgens et al., Alg. 1).

:math:`H_0`: there is a weight function :math:`\boldsymbol\lambda : \mathcal X \to \Delta_M` such
that :math:`\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x) = \sum_m \lambda_m(\mathbf x)\,
\hat{\mathbf p}^{(m)}(\mathbf x)` is calibrated in distribution (Def. 4, Eq. 12). The test

1. learns :math:`\boldsymbol\lambda(\mathbf x)` on an optimisation split (proper score + γ·CE,
   Eq. 16; :func:`~credalbook.stats.fit_weight_function`, early stopping on a validation split);
2. forms :math:`\hat{\mathbf p}_{\boldsymbol\lambda}` on the held-out test split;
3. runs the consistency-resampling bootstrap test of Vaicenavicius et al. on it (Alg. 1 lines 5-19,
   the machinery of :func:`~credalbook.stats.bootstrap_calibration_test`): D replicates resample the
   test instances and draw labels from :math:`\hat{\mathbf p}_{\boldsymbol\lambda}`; reject when the
   estimator on the real labels exceeds the :math:`(1-\alpha)` quantile.

Learning on separate data avoids the optimistic bias of minimising the estimator on the test data
itself, which makes Mortier et al.'s test conservative (Sec. 3.5). :func:`instance_test_error_rates`
runs the new test and Mortier et al.'s test (:func:`~credalbook.stats.set_calibration_test` on the same
test split) on R synthetic datasets, batched: the R weight networks train together, and the null
replicates of all datasets are one vectorised computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import (as_numpy, as_predictions, as_rng, check_choice, check_labels, check_positive_int, check_probability,
                                    check_real_dtype, check_seed, first_index, fmt_index)
from credalbook.metrics.distribution import ESTIMATORS
from credalbook.stats.measures import estimator_measure
from credalbook._parallel import check_n_jobs
from credalbook.stats.bootstrap import RESAMPLING, CalibrationTestResult, _result, null_replicates
from credalbook.stats.weight_learning import WeightFunction, fit_weight_function

__all__ = ["InstanceTestResult", "instance_calibration_test", "split_indices"]

@dataclass(frozen=True)
class InstanceTestResult(CalibrationTestResult):
    """:class:`~credalbook.stats.CalibrationTestResult` of the instance-dependent test, plus what it learned.

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
    perm = as_rng(seed).permutation(n)
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


def check_learner_options(options: dict | None) -> dict:
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
    from_logits: bool = False,
    seed=0,
    n_jobs=None,
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
        :data:`~credalbook.stats.LOSS_PRESETS` score and γ unless ``learner_options`` overrides them).
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
        Passed to :func:`~credalbook.stats.fit_weight_function` (``hidden``, ``lr``, ``max_epochs``,
        ``patience``, ``score``, ``gamma``, ``device`` …).
    from_logits : bool, default False
        ``ens_probs`` holds logits (N, M, K): softmax in float64 first. NumPy arrays or torch
        tensors (CPU/CUDA, float16/32/64) are accepted for ``features``, ``ens_probs`` and ``labels``.
    seed : int
    n_jobs : int or None
        The null replicates serially (None) or in seeded chunks through joblib (see
        :func:`~credalbook.stats.set_calibration_test`).

    Returns
    -------
    InstanceTestResult
        A :class:`~credalbook.stats.TestResult` with ``method="instance"``.

    Examples
    --------
    Binary GP members with an instance-dependent calibrated combination (H0):

    >>> from credalbook.synthetic.instance_scenarios import instance_scenario
    >>> sc = instance_scenario("binary", "H0-inst", n_datasets=1, n_instances=1000, seed=0)
    >>> res = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], n_bootstrap=50,
    ...                                 learner_options={"max_epochs": 30}, seed=0)
    >>> res.weights.shape, res.null_distribution.shape
    ((200, 2), (50,))
    """
    ens = as_predictions(ens_probs, "ens_probs", from_logits=from_logits, ndim=3)
    n_jobs = check_n_jobs(n_jobs)
    check_choice(estimator, "estimator", ESTIMATORS)
    g = estimator_measure(estimator, **dict(estimator_options or {}))
    alpha = check_probability(alpha, "alpha")
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap")
    check_choice(resample, "resample", RESAMPLING)
    seed = check_seed(seed)
    y = check_labels(labels, n_classes=ens.shape[2], shape=ens.shape[:1])
    x = check_real_dtype(as_numpy(features, "features"), "features").astype(np.float64)
    x = x[:, None] if x.ndim == 1 else x
    if x.ndim != 2 or x.shape[0] != ens.shape[0]:
        raise ValueError(f"features must have shape (N, d) or (N,) with the same N as ens_probs (N = {ens.shape[0]}); "
                         f"got {x.shape}")
    if not np.isfinite(x).all():
        idx = first_index(~np.isfinite(x))
        raise ValueError(f"features must be finite; features[{fmt_index(idx)}] = {x[idx]}")
    opt, val, test = split_indices(ens.shape[0], fractions, seed=seed) if splits is None else _check_splits(splits, ens.shape[0])
    rng = as_rng(seed)
    wf = fit_weight_function(x[opt], ens[opt], y[opt], estimator=estimator, estimator_options=estimator_options,
                             val_features=x[val], val_ens_probs=ens[val], val_labels=y[val],
                             **{"seed": seed, **check_learner_options(learner_options)})
    lam = wf.weights(x[test])
    p = np.einsum("nmk,nm->nk", ens[test], lam)
    y_test = y[test]
    t = float(g.func(p, y_test))
    null = null_replicates(p[:, None, :], g.func, n_bootstrap, "uniform", resample, rng, n_jobs)
    base = _result(t, null, alpha, g.name, lam, "meta-learner", 1, method="instance",
                   details={"n": len(test), "M": ens.shape[1], "K": ens.shape[2], "estimator": estimator,
                            "resample": resample})
    return InstanceTestResult(**vars(base), weight_function=wf, combined_probs=p, test_indices=test)
