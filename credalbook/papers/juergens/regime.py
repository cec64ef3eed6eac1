r"""Table 1 of Jürgens et al. in the regime its claims need: over-confident members, trained end to end.

The paper tests deep ensembles and dropout networks of ResNet-18 and VGG-19 trained on CIFAR (Sec. 4.3). Such
networks are over-confident (Guo et al. 2017), and the decisions the paper's own p-values imply reject H0 in 17-20
of its 48 cells. The chapter's first analogue (:func:`~credalbook.papers.juergens.table1_rows`: heads on a frozen
small backbone trained on all 60 000 Fashion-MNIST images) rejects almost nowhere: its members are close to
calibrated. Here every network is trained end to end to fit few images (chapter 01's Table 1 networks,
:func:`credalbook.papers.mortier.end_to_end_set`, the same data sets, seeds and body; the chapter's preset sets the
images and epochs), and λ(x) reads the same backbone features as the first analogue's (the paper: "We leverage the pre-trained
ResNet-18 or VGG-19 to embed images", Sec. 4.3), so that only the members differ. Each cell also keeps the signed error (mean confidence − accuracy) of the mean
predictor with its bootstrap interval: the premise rows' evidence that the regime holds.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from credalbook._validation import check_choice
from credalbook.data.images import load_dataset
from credalbook.metrics.classification import accuracy
from credalbook.metrics.direction import signed_calibration_error
from credalbook.papers.juergens.real_sets import evaluate_instance_test, TABLE1_KINDS
from credalbook.papers.mortier.end_to_end import end_to_end_set
from credalbook.stats.null_distribution import RESAMPLING

__all__ = ["floored", "regime_tables", "table1_regime_rows"]


def floored(probs, floor: float) -> np.ndarray:
    """Probabilities (..., K) floored at ``floor`` and renormalised: ``max(p, floor) / sum_k max(p_k, floor)``.

    Every entry of the result is at least ``floor / (1 + K floor)``; rows already above the floor are unchanged.

    Examples
    --------
    >>> floored([[0.999, 0.001, 0.0], [0.5, 0.3, 0.2]], 0.01).round(4)
    array([[0.9804, 0.0098, 0.0098],
           [0.5   , 0.3   , 0.2   ]])
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim < 1 or p.shape[-1] < 2:
        raise ValueError(f"probs must have shape (..., K) with K >= 2; got shape {p.shape}")
    k = p.shape[-1]
    if isinstance(floor, bool) or not isinstance(floor, (int, float, np.floating)) or not 0 < floor < 1 / k:
        raise ValueError(f"prob_floor must be a number in (0, 1/K) = (0, {1 / k:.4g}); got {floor!r}")
    q = np.maximum(p, floor)
    return q / q.sum(axis=-1, keepdims=True)


def table1_regime_rows(
    dataset: str = "fashion_mnist",
    *,
    set_name: str,
    seed: int = 0,
    n_members: int = 5,
    epochs: int = 80,
    n_train: int | None = 5000,
    lr: float = 1e-3,
    channels=(32, 64),
    hidden: int = 128,
    n_test: int | None = 1000,
    n_resamples: int = 100,
    alpha: float = 0.01,
    learner_options: dict | None = None,
    backbone: dict | None = None,
    resamplings=RESAMPLING,
    signed_resamples: int = 1000,
    device: str = "cpu",
    prob_floor: float | None = None,
    patience: int | None = None,
    n_val: int | None = None,
) -> dict:
    r"""The Table 1 rows of one classifier set trained end to end in the over-confident regime.

    Trains the set with :func:`credalbook.papers.mortier.end_to_end_set` (``n_train`` images, ``epochs`` of Adam;
    the test split divided 50/50 into calibration and test, the paper's seed 2022), then runs
    :func:`~credalbook.papers.juergens.evaluate_instance_test` once per resampling of the null replicates, with
    λ(x) learned on the calibration split from backbone features (``backbone``) or from the flattened images.

    Parameters
    ----------
    dataset : str
        A name of :data:`credalbook.data.DATASETS`.
    set_name : {"DE", "DN(0.1)", "DN(0.6)"}
        The classifier set (:data:`~credalbook.papers.juergens.TABLE1_KINDS`).
    seed : int
        Of the networks (as chapter 01's cells) and of the tests.
    n_members, epochs, n_train, lr, channels, hidden
        Of :func:`~credalbook.papers.mortier.end_to_end_set`.
    n_test, n_resamples, alpha, learner_options
        Of :func:`~credalbook.papers.juergens.evaluate_instance_test` (``learner_options`` without ``device``).
    backbone : dict, optional
        Options of :func:`~credalbook.nn.backbone_features` (trained or loaded from the cache): λ(x) reads its features
        of the images, as in :func:`~credalbook.papers.juergens.table1_rows`. None: the flattened images.
    resamplings : sequence of {"permutation", "bootstrap"}
        The null replicates, each a run of the tests on the same trained set.
    signed_resamples : int, default 1000
        Bootstrap resamples of the signed error's interval (95 %, percentile).
    device : str, default "cpu"
    prob_floor : float in (0, 1/K), optional
        Floor every member's probabilities on the calibration and test splits at this value and renormalise each
        row (:func:`floored`) before the tests and the signed errors: the same trained networks without their
        near-0 probabilities, against which KL's calibration error is most sensitive (:math:`\log(o/p)` for a
        class of predicted probability :math:`p \to 0` that occurs). None: the predictions as trained.
    patience, n_val : int, optional
        Early stopping of every network on ``n_val`` further training images, the weights of its best epoch kept
        (:func:`~credalbook.papers.mortier.end_to_end_set`; as the paper trains its networks, App. D): the same
        trajectories as without, stopped. None: all ``epochs``.

    Returns
    -------
    dict
        ``rows``: resampling → ``"<set> · <estimator>"`` → the row of ``evaluate_instance_test``;
        ``signed``: the mean predictor's mean confidence − accuracy on the whole test split, ``[value, low, high]``;
        ``members_signed`` and ``members_acc``: the same value and the accuracy per member (or dropout pass);
        ``accuracy``: the mean predictor's; ``n_cal``, ``n_test``, ``config``, ``seconds``.

    Examples
    --------
    >>> r = table1_regime_rows("digits", set_name="DE", n_members=2, epochs=1, n_train=200, channels=(4,), hidden=8,
    ...                        n_resamples=10, resamplings=("permutation",), signed_resamples=20,
    ...                        learner_options=dict(max_epochs=2))
    >>> sorted(r["rows"]["permutation"]), len(r["members_signed"]), r["n_cal"], r["n_test"]
    (['DE · KL-CE', 'DE · L2-CE'], 2, 270, 269)
    """
    check_choice(set_name, "set_name", TABLE1_KINDS)
    resamplings = tuple(resamplings)
    if not resamplings:
        raise ValueError("resamplings must name at least one of 'permutation', 'bootstrap'")
    for r in resamplings:
        check_choice(r, "resamplings", RESAMPLING)
    start = time.perf_counter()
    cs = end_to_end_set(
        dataset, set_name=set_name, n_members=n_members, seed=seed, epochs=epochs, lr=lr, channels=channels,
        hidden=hidden, n_train=n_train, device=device, patience=patience, n_val=n_val,
    )  # fmt: skip
    if prob_floor is not None:
        cs = dataclasses.replace(
            cs,
            ens_probs_cal=floored(cs.ens_probs_cal, prob_floor),
            ens_probs_test=floored(cs.ens_probs_test, prob_floor),
        )
    if backbone is None:
        images = np.asarray(load_dataset(dataset).x_test, dtype=np.float64)
        inputs = images.reshape(len(images), -1)
    else:
        from credalbook.nn import backbone_features

        inputs = backbone_features(dataset, device=device, progress=False, **dict(backbone)).features_test
    learner = {**dict(learner_options or {}), "device": device}
    rows = {}
    for resample in resamplings:
        rows[resample] = {}
        for row in evaluate_instance_test(
            cs, inputs[cs.idx_cal], inputs[cs.idx_test], n_test=n_test, n_resamples=n_resamples, alpha=alpha,
            learner_options=learner, seed=seed, resample=resample,
        ):  # fmt: skip
            rows[resample][f"{set_name} · {row.pop('estimator')}"] = row
    config = dict(cs.config, n_train=n_train, channels=list(channels), hidden=hidden, n_test=n_test)
    config.update(
        n_resamples=n_resamples, alpha=alpha, lambda_input="flattened images" if backbone is None else backbone
    )
    if prob_floor is not None:
        config["prob_floor"] = prob_floor
    y, members = cs.y_test, np.moveaxis(cs.ens_probs_test, 1, 0)
    avg = cs.ens_probs_test.mean(axis=1)
    est = signed_calibration_error(avg, y, ci=0.95, n_resamples=signed_resamples, seed=seed)
    return {
        "rows": rows,
        "signed": [float(est.value), float(est.low), float(est.high)],
        "members_signed": [float(signed_calibration_error(p, y)) for p in members],
        "members_acc": [float(accuracy(p, y)) for p in members],
        "accuracy": float(accuracy(avg, y)),
        "n_cal": int(len(cs.y_cal)),
        "n_test": int(len(y)),
        "config": config,
        "seconds": time.perf_counter() - start,
    }


def regime_tables(values: dict) -> dict:
    """The regime's cells as the Table 1 rows of :func:`~credalbook.papers.juergens.compare` judge them.

    Parameters
    ----------
    values : dict
        Part name ``"table1r-<data set>-s<seed>-<set>"`` → its :func:`table1_regime_rows`.

    Returns
    -------
    dict
        ``"permutation"`` and ``"bootstrap"``: ``"<data set>-s<seed> · <set> · <estimator>"`` → row; ``"signed"``:
        ``"<data set>-s<seed> · <set>"`` → [confidence − accuracy, 95% low, high]; ``"cells"``: the same key → a
        summary for the chapter's table (accuracy, test instances, the signed error and p-values); ``"setting"``: how the networks were trained, for the rows' notes;
        ``"prob_floor"``: the cells' probability floor (None: the predictions as trained); with early-stopped networks
        (``patience``) ``"setting"`` says so and each cell names its networks' best epochs.

    Examples
    --------
    >>> row = {"mean_p": 0.2, "lambda_p": 0.5, "mean_acc": 0.9, "lambda_acc": 0.91}
    >>> v = {"rows": {"permutation": {"DE · L2-CE": row}, "bootstrap": {"DE · L2-CE": row}},
    ...      "signed": [0.03, 0.01, 0.05], "members_signed": [0.04, 0.05], "accuracy": 0.9, "n_test": 1000,
    ...      "config": {"dataset": "digits", "seed": 0, "set_name": "DE", "epochs": 3, "n_train": 500}}
    >>> t = regime_tables({"table1r-digits-s0-de": v})
    >>> list(t["permutation"]), t["signed"], t["setting"]
    (['digits-s0 · DE · L2-CE'], {'digits-s0 · DE': [0.03, 0.01, 0.05]}, 'networks trained end to end: digits 3 epochs on 500 images')
    """
    out = {"permutation": {}, "bootstrap": {}, "signed": {}, "cells": {}}
    trained = {}
    for value in values.values():
        c = value["config"]
        cell = f"{c['dataset']}-s{c['seed']}"
        key = f"{cell} · {c['set_name']}"
        trained[c["dataset"]] = f"{c['dataset']} {c['epochs']} epochs on {c['n_train'] or 'all'} images" + (
            f", early-stopped (patience {c['patience']} on {c['n_val']} validation images)" if "patience" in c else ""
        )
        for resample in ("permutation", "bootstrap"):
            for name, row in value["rows"].get(resample, {}).items():
                out[resample][f"{cell} · {name}"] = row
        out["signed"][key] = list(value["signed"])
        perm = value["rows"].get("permutation", {})
        out["cells"][key] = {
            "accuracy": value["accuracy"],
            **({"test instances": value["n_test"]} if "n_test" in value else {}),
            "confidence − accuracy": value["signed"][0],
            "95% interval": f"[{value['signed'][1]:+.3f}, {value['signed'][2]:+.3f}]",
            "members' mean conf. − acc.": float(np.mean(value["members_signed"])),
            **({"best epochs": " ".join(map(str, c["best_epochs"]))} if "best_epochs" in c else {}),
            **{f"p, mean predictor, {n.split(' · ')[-1]}": r["mean_p"] for n, r in perm.items()},
            **{f"p, λ(x), {n.split(' · ')[-1]}": r["lambda_p"] for n, r in perm.items()},
        }
    out["setting"] = "networks trained end to end: " + ", ".join(trained.values())
    floors = {v["config"].get("prob_floor") for v in values.values()}
    if len(floors) > 1:
        raise ValueError(f"values mix probability floors {sorted(floors, key=str)}: give the cells of one floor")
    out["prob_floor"] = floors.pop() if floors else None
    return out
