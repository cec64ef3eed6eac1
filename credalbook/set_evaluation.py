r"""Evaluating real classifier sets with the set calibration test, and comparing minimisers.

:func:`evaluate_classifier_set` computes one row of Table 1 of Mortier et al. (2023, Sec. 4.2):
the plain average of the members (accuracy, :math:`ECE_{conf}`, :math:`ECE_{cwise}` on the test
split) and, for each of :math:`ECE_{conf}` and :math:`ECE_{cwise}`, the outcome of Alg. 1 on the
calibration split together with the accuracy and ECE on the test split of the weighted average
whose weights :math:`\boldsymbol\lambda` Alg. 1 (line 7) found.

:func:`compare_solvers` runs several minimisers of Alg. 1 line 7 on the same datasets and reports
the minimum each reaches, its cost and the test decision it leads to.
"""

from __future__ import annotations

import time

import numpy as np

from credalbook._validation import check_positive_int, check_probability
from credalbook.calibration_estimators import estimator_measure
from credalbook.calibration_tests import _minimise, _null, _Objective, bootstrap_calibration_test, set_calibration_test
from credalbook.instance_calibration_test import instance_calibration_test
from credalbook.measures import as_measure
from credalbook.metrics import accuracy, ece_classwise, ece_confidence

__all__ = ["evaluate_classifier_set", "compare_solvers", "evaluate_instance_test"]


def evaluate_classifier_set(classifier_set, *, n_bins: int = 5, alpha: float = 0.05, n_bootstrap: int = 100,
                            solver: str = "cobyla", seed=2022) -> dict:
    r"""One row of Mortier et al. (2023), Table 1, for a :class:`~credalbook.ClassifierSet`.

    Parameters
    ----------
    classifier_set : ClassifierSet
        Members' predictions on a calibration and a test split (``ens_probs_cal``, ``y_cal``,
        ``ens_probs_test``, ``y_test``).
    n_bins : int, default 5
        Bins of both ECEs (the paper: 5).
    alpha : float, default 0.05
    n_bootstrap : int, default 100
    solver : str, default "cobyla"
    seed : int, default 2022

    Returns
    -------
    dict
        ``avg_acc``, ``avg_ece_conf``, ``avg_ece_cwise`` (test split, plain average);
        for ``m`` in ``conf``, ``cwise``: ``h0_<m>`` ("REJ." or "¬REJ."), ``p_<m>``, ``acc_<m>``,
        ``ece_<m>`` (test split, weighted average), ``weights_<m>`` (λ).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=(200, 2))
    >>> y = np.array([rng.choice(3, p=q) for q in p.mean(1)])
    >>> cs = SimpleNamespace(ens_probs_cal=p[:100], y_cal=y[:100], ens_probs_test=p[100:], y_test=y[100:])
    >>> row = evaluate_classifier_set(cs, n_bootstrap=20, solver="search")
    >>> sorted(k for k in row if not k.startswith("weights"))[:4]
    ['acc_conf', 'acc_cwise', 'avg_acc', 'avg_ece_conf']
    """
    alpha = check_probability(alpha, "alpha")
    cal, y_cal = np.asarray(classifier_set.ens_probs_cal), np.asarray(classifier_set.y_cal)
    test, y_test = np.asarray(classifier_set.ens_probs_test), np.asarray(classifier_set.y_test)
    avg = test.mean(axis=1)
    row = {"avg_acc": accuracy(avg, y_test), "avg_ece_conf": ece_confidence(avg, y_test, n_bins=n_bins),
           "avg_ece_cwise": ece_classwise(avg, y_test, n_bins=n_bins)}
    for key, name, metric in (("conf", "ece_conf", ece_confidence), ("cwise", "ece_cwise", ece_classwise)):
        res = set_calibration_test(cal, y_cal, measure=name, n_bins=n_bins, n_bootstrap=n_bootstrap, alpha=alpha,
                                   solver=solver, seed=seed)
        weighted = np.einsum("nmk,m->nk", test, res.weights)
        row.update({f"h0_{key}": "REJ." if res.rejected else "¬REJ.", f"p_{key}": res.p_value,
                    f"acc_{key}": accuracy(weighted, y_test), f"ece_{key}": metric(weighted, y_test, n_bins=n_bins),
                    f"weights_{key}": res.weights})
    return row


def compare_solvers(ens_probs, labels, *, solvers=("cobyla", "cobyla_powell", "multistart", "search"),
                    measure="ece_conf", n_bins: int = 10, n_bootstrap: int = 100, alpha: float = 0.05,
                    solver_options: dict | None = None, seed: int = 0) -> dict:
    r"""Run Alg. 1 with several minimisers on the same R datasets (same null samples).

    Parameters
    ----------
    ens_probs : array-like, shape (R, N, M, K)
    labels : array-like, shape (R, N)
    solvers : sequence of str
    measure, n_bins
        See :func:`~credalbook.as_measure`.
    n_bootstrap, alpha
        D and the significance level of the reported rejection rate.
    solver_options : dict of solver → options, optional
    seed : int

    Returns
    -------
    dict
        solver → ``{"statistic": (R,), "rejected": (R,), "n_evaluations": (R,), "seconds_per_test": float}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ens = rng.dirichlet(np.ones(3), size=(2, 60, 3))
    >>> out = compare_solvers(ens, rng.integers(0, 3, size=(2, 60)), solvers=("search", "grid"), n_bootstrap=20)
    >>> sorted(out), out["grid"]["statistic"].shape
    (['grid', 'search'], (2,))
    """
    alpha = check_probability(alpha, "alpha")
    g = as_measure(measure, n_bins=n_bins)
    ens = np.asarray(ens_probs, dtype=np.float64)
    y = np.asarray(labels)
    if ens.ndim != 4 or y.shape != ens.shape[:2]:
        raise ValueError(f"ens_probs must have shape (R, N, M, K) and labels (R, N); got {ens.shape} and {y.shape}")
    rng = np.random.default_rng(seed)
    threshold = np.quantile(_null(ens, g.func, n_bootstrap, "uniform", "bootstrap", rng), 1 - alpha, axis=-1)
    out = {}
    for solver in solvers:
        stats, nfev = np.empty(len(ens)), np.empty(len(ens), dtype=np.int64)
        start = time.perf_counter()
        for r in range(len(ens)):
            obj = _Objective(ens[r], y[r], g.func)
            w = _minimise(obj, ens.shape[2], solver, dict((solver_options or {}).get(solver, {})),
                          np.random.default_rng([seed, r]))
            stats[r], nfev[r] = obj(w), obj.n_evaluations
        out[solver] = {"statistic": stats, "rejected": stats > threshold, "n_evaluations": nfev,
                       "seconds_per_test": (time.perf_counter() - start) / len(ens)}
    return out



def evaluate_instance_test(classifier_set, features_cal, features_test, *, estimators=("lp", "kl"),
                           estimator_options: dict | None = None, val_fraction: float = 0.2, n_test: int | None = 1000,
                           n_bootstrap: int = 100,
                           alpha: float = 0.01, learner_options: dict | None = None, seed: int = 0) -> list[dict]:
    r"""Rows of Jürgens et al.'s Table 1 for one classifier set: mean predictor vs learned :math:`\boldsymbol\lambda(\mathbf x)`.

    For each estimator: the consistency-resampling test of the plain average of the members on the
    test split, and the instance-dependent test (:func:`~credalbook.instance_calibration_test`)
    whose :math:`\boldsymbol\lambda(\mathbf x)` is learned from ``features_cal`` on the calibration
    split (``val_fraction`` of it for early stopping) and tested on the test split (Sec. 4.3).

    Parameters
    ----------
    classifier_set : ClassifierSet
    features_cal, features_test : array (N_cal, F), (N_test, F)
        Inputs of λ(x), e.g. backbone features of the two splits.
    estimators : sequence of str, default ("lp", "kl")
    estimator_options : dict of estimator → options, optional
    val_fraction : float, default 0.2
    n_test : int or None, default 1000
        Test instances (a random subset of the test split, drawn with ``seed``; the paper tests on
        1000); None uses the whole split. The kernel estimators cost O(N²) per replicate.
    n_bootstrap : int, default 100
    alpha : float, default 0.01
        The paper's level in Table 1.
    learner_options : dict, optional
    seed : int

    Returns
    -------
    list of dict
        One per estimator: ``estimator``, ``mean_acc``, ``mean_h0``, ``mean_p``, ``mean_ce`` and the
        same with ``lambda_`` for the learned combination (``h0`` is "REJ." or "¬REJ.").
    """
    alpha = check_probability(alpha, "alpha")
    val_fraction = check_probability(val_fraction, "val_fraction")
    cal, test = np.asarray(classifier_set.ens_probs_cal), np.asarray(classifier_set.ens_probs_test)
    fc, ft = np.asarray(features_cal, dtype=np.float64), np.asarray(features_test, dtype=np.float64)
    y_test = np.asarray(classifier_set.y_test)
    if fc.shape[0] != cal.shape[0] or ft.shape[0] != test.shape[0]:
        raise ValueError(f"features_cal and features_test must have {cal.shape[0]} and {test.shape[0]} rows; "
                         f"got {fc.shape[0]} and {ft.shape[0]}")
    rng = np.random.default_rng(seed)
    if n_test is not None and check_positive_int(n_test, "n_test", minimum=2) < len(test):
        keep = np.sort(rng.choice(len(test), size=n_test, replace=False))
        test, ft, y_test = test[keep], ft[keep], y_test[keep]
    ens = np.concatenate([cal, test])
    x = np.concatenate([fc, ft])
    y = np.concatenate([classifier_set.y_cal, y_test])
    perm = rng.permutation(len(cal))
    n_val = max(2, int(round(val_fraction * len(cal))))
    splits = (np.sort(perm[n_val:]), np.sort(perm[:n_val]), np.arange(len(cal), len(ens)))
    mean = test.mean(axis=1)
    rows = []
    for name in estimators:
        opts = dict((estimator_options or {}).get(name, {}))
        g = estimator_measure(name, **opts)
        base = bootstrap_calibration_test(mean, y_test, measure=g, n_bootstrap=n_bootstrap,
                                          alpha=alpha, resample="permutation", seed=seed)
        new = instance_calibration_test(x, ens, y, estimator=name, estimator_options=opts, splits=splits,
                                        n_bootstrap=n_bootstrap, alpha=alpha, learner_options=learner_options,
                                        seed=seed)
        rows.append({"estimator": g.name,
                     "mean_acc": accuracy(mean, y_test), "mean_h0": "REJ." if base.rejected else "¬REJ.",
                     "mean_p": base.p_value, "mean_ce": base.statistic,
                     "lambda_acc": accuracy(new.combined_probs, y_test),
                     "lambda_h0": "REJ." if new.rejected else "¬REJ.", "lambda_p": new.p_value,
                     "lambda_ce": new.statistic})
    return rows
