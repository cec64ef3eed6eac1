r"""The instance-dependent calibration test on real classifier sets (Jürgens et al., Sec. 4.3).

:func:`evaluate_instance_test` gives the Table 1 rows of one classifier set; :func:`table1_rows` those of
every set on one backbone (trained and cached by :mod:`credalbook.nn`), which is what the chapter records:
a few dozen numbers per backbone architecture (:data:`TABLE1_ARCHITECTURES`).
"""

from __future__ import annotations

import numpy as np

from credalbook._deprecation import renamed
from credalbook._validation import check_choice, check_positive_int, check_probability
from credalbook.metrics.classification import accuracy
from credalbook.stats.bootstrap import bootstrap_calibration_test
from credalbook.stats.instance import instance_calibration_test
from credalbook.stats.measures import estimator_measure
from credalbook.stats.null_distribution import RESAMPLING

__all__ = ["evaluate_instance_test", "table1_rows", "TABLE1_ARCHITECTURES", "TABLE1_KINDS"]

#: The two backbone architectures of the chapter's Table 1 analogue: options of
#: :func:`credalbook.nn.backbone_features` (A: the Mortier chapter's 32/64 channels and 128 features; B: 16/32
#: channels and 64 features), standing in for the paper's ResNet-18 and VGG-19.
TABLE1_ARCHITECTURES = {"A": {}, "B": {"channels": (16, 32), "hidden": 64}}
#: The classifier sets of the analogue: a deep ensemble and dropout networks (Mortier et al.'s rates).
TABLE1_KINDS = ("DE", "DN(0.1)", "DN(0.6)")


@renamed(n_bootstrap="n_resamples")
def evaluate_instance_test(
    classifier_set,
    features_cal,
    features_test,
    *,
    estimators=("lp", "kl"),
    estimator_options: dict | None = None,
    val_fraction: float = 0.2,
    n_test: int | None = 1000,
    n_resamples: int = 100,
    alpha: float = 0.01,
    learner_options: dict | None = None,
    seed: int = 0,
    resample: str = "permutation",
) -> list[dict]:
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
    n_resamples : int, default 100
    alpha : float, default 0.01
        The paper's level in Table 1.
    learner_options : dict, optional
    seed : int
    resample : {"permutation", "bootstrap"}, default "permutation"
        The null replicates of both tests: the test instances kept, only their labels redrawn, or drawn with
        replacement first, as the authors' code does (mkjuergens/EnsembleCalibration@8dff2b5,
        ``src/cal_test/bootstrap_test.py``, l. 185).

    Returns
    -------
    list of dict
        One per estimator: ``estimator``, ``mean_acc``, ``mean_h0``, ``mean_p``, ``mean_ce`` and the
        same with ``lambda_`` for the learned combination (``h0`` is "REJ." or "¬REJ.").
    """
    alpha = check_probability(alpha, "alpha")
    check_choice(resample, "resample", RESAMPLING)
    val_fraction = check_probability(val_fraction, "val_fraction")
    cal, test = np.asarray(classifier_set.ens_probs_cal), np.asarray(classifier_set.ens_probs_test)
    fc, ft = np.asarray(features_cal, dtype=np.float64), np.asarray(features_test, dtype=np.float64)
    y_test = np.asarray(classifier_set.y_test)
    if fc.shape[0] != cal.shape[0] or ft.shape[0] != test.shape[0]:
        raise ValueError(
            f"features_cal and features_test must have {cal.shape[0]} and {test.shape[0]} rows; "
            f"got {fc.shape[0]} and {ft.shape[0]}"
        )
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
        base = bootstrap_calibration_test(
            mean, y_test, measure=g, n_resamples=n_resamples, alpha=alpha, resample=resample, seed=seed, chunk_size=None
        )
        new = instance_calibration_test(
            x,
            ens,
            y,
            measure=name,
            measure_options=opts,
            splits=splits,
            n_resamples=n_resamples,
            alpha=alpha,
            learner_options=learner_options,
            seed=seed,
            chunk_size=None,
            resample=resample,
        )
        rows.append(
            {
                "estimator": g.name,
                "mean_acc": accuracy(mean, y_test),
                "mean_h0": "REJ." if base.rejected else "¬REJ.",
                "mean_p": base.pvalue,
                "mean_ce": base.statistic,
                "lambda_acc": accuracy(new.combined_probs, y_test),
                "lambda_h0": "REJ." if new.rejected else "¬REJ.",
                "lambda_p": new.pvalue,
                "lambda_ce": new.statistic,
            }
        )
    return rows


@renamed(n_bootstrap="n_resamples")
def table1_rows(
    dataset: str = "fashion_mnist",
    *,
    backbone: dict | None = None,
    kinds=TABLE1_KINDS,
    n_members: int = 5,
    head_epochs: int = 20,
    n_test: int | None = 1000,
    n_resamples: int = 100,
    alpha: float = 0.01,
    learner_options: dict | None = None,
    device: str = "auto",
    seed: int = 0,
    resample: str = "permutation",
) -> dict:
    r"""The Table 1 rows of every classifier set on one frozen backbone (Jürgens et al., Sec. 4.3, Table 1).

    Trains (or loads from the cache) the backbone :func:`~credalbook.nn.backbone_features` ``(dataset,
    **backbone)`` and the sets :func:`~credalbook.nn.classifier_sets` of ``kinds`` on it, then runs
    :func:`evaluate_instance_test` on each set with λ(x) learned from the backbone's features.

    Parameters
    ----------
    dataset : str
        A name of :data:`credalbook.data.DATASETS`.
    backbone : dict, optional
        Options of :func:`~credalbook.nn.backbone_features` (``n_train``, ``epochs``, ``seed``, and an
        architecture of :data:`TABLE1_ARCHITECTURES`); the sets are trained on the same backbone.
    kinds : sequence of str, default :data:`TABLE1_KINDS`
    n_members, head_epochs : int
        Members per set and epochs of each head.
    n_test, n_resamples, alpha
        As in :func:`evaluate_instance_test` (the paper: α = 0.01).
    learner_options : dict, optional
        Of the λ-network (:func:`~credalbook.stats.fit_weight_function`), without ``device``.
    device : str, default "auto"
        Where the backbone, the heads and the λ-networks train.
    seed : int
        Of the heads and of the tests.
    resample : {"permutation", "bootstrap"}, default "permutation"
        As in :func:`evaluate_instance_test` (``"bootstrap"``: the authors' resampling).

    Returns
    -------
    dict
        ``"<set> · <estimator>"`` → the row of :func:`evaluate_instance_test` (without ``estimator``).
    """
    from credalbook.nn import backbone_features, classifier_sets

    bb_args = dict(backbone or {})
    learner = {**dict(learner_options or {}), "device": device}
    bb = backbone_features(dataset, device=device, progress=False, **bb_args)
    sets = classifier_sets(
        dataset,
        kinds=tuple(kinds),
        n_members=n_members,
        epochs=head_epochs,
        seed=seed,
        device=device,
        backbone=bb_args,
        progress=False,
    )
    rows = {}
    for name, cs in sets.items():
        for row in evaluate_instance_test(
            cs,
            bb.features_test[cs.idx_cal],
            bb.features_test[cs.idx_test],
            n_test=n_test,
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            learner_options=learner,
            resample=resample,
        ):
            rows[f"{name} · {row.pop('estimator')}"] = row
    return rows
