r"""The instance-dependent calibration test on real classifier sets (Jürgens et al., Sec. 4.3)."""

from __future__ import annotations


import numpy as np

from credalbook._validation import check_positive_int, check_probability
from credalbook.stats.measures import estimator_measure
from credalbook.stats.bootstrap import bootstrap_calibration_test
from credalbook.stats.instance import instance_calibration_test
from credalbook.metrics.classification import accuracy

__all__ = ["evaluate_instance_test"]


def evaluate_instance_test(classifier_set, features_cal, features_test, *, estimators=("lp", "kl"),
                           estimator_options: dict | None = None, val_fraction: float = 0.2, n_test: int | None = 1000,
                           n_bootstrap: int = 100,
                           alpha: float = 0.01, learner_options: dict | None = None, seed: int = 0) -> list[dict]:
    r"""Rows of Jürgens et al.'s Table 1 for one classifier set: mean predictor vs learned :math:`\boldsymbol\lambda(\mathbf x)`.

    For each estimator: the consistency-resampling test of the plain average of the members on the
    test split, and the instance-dependent test (:func:`~credalbook.stats.instance_calibration_test`)
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
