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
   measure on the real labels exceeds the :math:`(1-\alpha)` quantile.

Learning on separate data avoids the optimistic bias of minimising the estimator on the test data
itself, which makes Mortier et al.'s test conservative (Sec. 3.5). :func:`instance_test_error_rates`
runs the new test and Mortier et al.'s test (:func:`~credalbook.stats.set_calibration_test` on the same
test split) on R synthetic datasets, batched: the R weight networks train together, and the null
replicates of all datasets are one vectorised computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs
from credalbook._validation import (
    as_numpy,
    as_predictions,
    as_rng,
    check_choice,
    check_labels,
    check_positive_int,
    check_probability,
    check_real_dtype,
    check_seed,
    first_index,
    fmt_index,
)
from credalbook.metrics.distribution import ESTIMATORS
from credalbook.stats.bootstrap import _result, CalibrationTestResult
from credalbook.stats.measures import estimator_measure
from credalbook.stats.null_distribution import check_chunk_size, NULL_CHUNK, null_replicates, RESAMPLING
from credalbook.stats.weight_learning import fit_weight_function, WeightFunction

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
    """``learner_options`` as a dict, without the keys the test sets itself (ValueError naming them)."""
    opts = dict(options or {})
    for key in (
        "estimator",
        "estimator_options",
        "measure",
        "measure_options",
        "val_features",
        "val_ens_probs",
        "val_labels",
    ):
        if key in opts:
            raise ValueError(f"learner_options must not contain {key!r}; pass it to the test directly")
    return opts


@dataclass(frozen=True)
class InstanceTestOptions:
    """The less common options of :func:`instance_calibration_test` (its ``**options``), validated.

    Examples
    --------
    >>> InstanceTestOptions.from_options(resample="bootstrap").fractions
    (0.6, 0.2, 0.2)
    """

    fractions: tuple = (0.6, 0.2, 0.2)
    splits: tuple | None = None
    resample: str = "permutation"
    learner_options: dict | None = None

    @classmethod
    def from_options(cls, **options) -> InstanceTestOptions:
        """Check the options: TypeError for an unknown one, ValueError naming a bad value."""
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise TypeError(f"instance_calibration_test() got unexpected options {unknown}; it accepts {sorted(names)}")
        opts = cls(**options)
        check_choice(opts.resample, "resample", RESAMPLING)
        return opts


@renamed(estimator="measure", estimator_options="measure_options", n_bootstrap="n_resamples")
def instance_calibration_test(
    features,
    ens_probs,
    labels,
    *,
    measure: str = "lp",
    measure_options: dict | None = None,
    n_resamples: int = 100,
    alpha: float = 0.05,
    from_logits: bool = False,
    seed=0,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
    **options,
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
    measure : {"lp", "kl", "skce", "mmd", "brier"}, default "lp"
        The calibration estimator the test measures with, in the statistic and in the learning loss
        (with its :data:`~credalbook.stats.LOSS_PRESETS` score and γ unless ``learner_options``
        overrides them). (Formerly ``estimator``.)
    measure_options : dict, optional
        E.g. ``{"bandwidth": 0.01}``. (Formerly ``estimator_options``.)
    n_resamples : int, default 100
        D.
    alpha : float, default 0.05
    from_logits : bool, default False
        ``ens_probs`` holds logits (N, M, K): softmax in float64 first. NumPy arrays or torch
        tensors (CPU/CUDA, float16/32/64) are accepted for ``features``, ``ens_probs`` and ``labels``.
    seed : int
    n_jobs : int or None
        Joblib's ``n_jobs`` for the chunks of the null sample (None: joblib's default); the values
        do not depend on it.
    chunk_size : int or None, default ``NULL_CHUNK`` (50)
        Replicates per independently seeded chunk; None: one random stream (the layout before
        version 0.6). See :mod:`credalbook.stats.null_distribution`.
    **options
        The less common options (:class:`InstanceTestOptions`):

        ``fractions`` : three floats, default (0.6, 0.2, 0.2)
            Optimisation / validation / test split (App. D.1), drawn at random with ``seed``.
        ``splits`` : (opt, val, test) index arrays, optional
            Explicit disjoint splits instead of ``fractions`` (e.g. a real dataset's validation part
            for learning λ(x) and its test part for the test, as in Sec. 4.3).
        ``resample`` : {"permutation", "bootstrap"}, default "permutation"
            How the null replicates treat the test instances: kept (each replicate only redraws the
            labels, :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x_i))`) or
            resampled with replacement first (``"bootstrap"``: Vaicenavicius et al.'s consistency resampling,
            and what Jürgens et al.'s code does, mkjuergens/EnsembleCalibration@8dff2b5,
            ``src/cal_test/bootstrap_test.py``, l. 185). With replacement, duplicated instances make every
            leave-one-out KDE estimate (L_p, KL) see a neighbour with *identical* prediction whose label was
            drawn from that very prediction, which moves the null distribution away from the statistic's
            distribution on the real labels: on confident, calibrated predictions the p-value is close to 1,
            on diffuse ones a calibrated predictor is rejected far more often than α (both shown in the
            Jürgens et al. chapter). Hence the default.
        ``learner_options`` : dict, optional
            Passed to :func:`~credalbook.stats.fit_weight_function` (``hidden``, ``lr``, ``max_epochs``,
            ``patience``, ``score``, ``gamma``, ``device`` …).

    Returns
    -------
    InstanceTestResult
        A :class:`~credalbook.stats.TestResult` with ``method="instance"``.

    Examples
    --------
    Binary GP members with an instance-dependent calibrated combination (H0):

    >>> from credalbook.synthetic.instance_scenarios import instance_scenario
    >>> sc = instance_scenario("binary", "H0-inst", n_datasets=1, n_instances=1000, seed=0)
    >>> res = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], n_resamples=50,
    ...                                 learner_options={"max_epochs": 30}, seed=0)
    >>> res.weights.shape, res.null_distribution.shape
    ((200, 2), (50,))
    """
    opts = InstanceTestOptions.from_options(**options)
    ens = as_predictions(ens_probs, "ens_probs", from_logits=from_logits, ndim=3)
    n_jobs, chunk_size = check_n_jobs(n_jobs), check_chunk_size(chunk_size)
    check_choice(measure, "measure", ESTIMATORS)
    g = estimator_measure(measure, **dict(measure_options or {}))
    alpha = check_probability(alpha, "alpha")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    seed = check_seed(seed)
    y = check_labels(labels, n_classes=ens.shape[2], shape=ens.shape[:1])
    x = _check_features(features, ens.shape[0])
    n = ens.shape[0]
    opt, val, test = (
        split_indices(n, opts.fractions, seed=seed) if opts.splits is None else _check_splits(opts.splits, n)
    )
    rng = as_rng(seed)
    wf = fit_weight_function(
        x[opt],
        ens[opt],
        y[opt],
        estimator=measure,
        estimator_options=measure_options,
        val_features=x[val],
        val_ens_probs=ens[val],
        val_labels=y[val],
        **{"seed": seed, **check_learner_options(opts.learner_options)},
    )
    lam = wf.weights(x[test])
    p = np.einsum("nmk,nm->nk", ens[test], lam)
    t = float(g.func(p, y[test]))
    null = null_replicates(p[:, None, :], g.func, n_resamples, "uniform", opts.resample, rng, n_jobs, chunk_size)
    base = _result(
        t,
        null,
        alpha,
        g.name,
        lam,
        "meta-learner",
        1,
        method="instance",
        details={"n": len(test), "M": ens.shape[1], "K": ens.shape[2], "resample": opts.resample},
    )
    return InstanceTestResult(**vars(base), weight_function=wf, combined_probs=p, test_indices=test)


def _check_features(features, n: int) -> np.ndarray:
    """``features`` as float64 (N, d): finite, with the N of ``ens_probs`` (ValueError naming them)."""
    x = check_real_dtype(as_numpy(features, "features"), "features").astype(np.float64)
    x = x[:, None] if x.ndim == 1 else x
    if x.ndim != 2 or x.shape[0] != n:
        raise ValueError(
            f"features must have shape (N, d) or (N,) with the same N as ens_probs (N = {n}); got {x.shape}"
        )
    if not np.isfinite(x).all():
        idx = first_index(~np.isfinite(x))
        raise ValueError(f"features must be finite; features[{fmt_index(idx)}] = {x[idx]}")
    return x
