r"""Table 1 of Mortier et al. (2023) with members trained end to end: one part per (data set, seed, set).

The paper trains "all models end-to-end" (App. A.2) on ImageNet-pretrained MobileNetV2/VGG16 features; the
authors' network puts dropout and one linear layer on the backbone's output (tfmortie/calibration@686d453,
``calibration/src/main/cpp/nnet_cpp.cpp``, l. 101-106: ``Sequential(Dropout(dp), Linear(in_features, K))``).
Pretrained weights cannot be had here, so every member is a :class:`~credalbook.nn.SmallCNN` body trained from
its own random initialisation together with that head (:func:`end_to_end_set`):

- **S**: one network, no dropout;
- **DN(p)**: one network with dropout p before the last layer, M Monte-Carlo passes;
- **DE**: M networks without dropout, each with its own initialisation and minibatch order.

Every set gets its own seeds (no member is shared between sets). :func:`table1_cell` then runs Alg. 1 on the
calibration split under two named test variants (:data:`TEST_VARIANTS`): Alg. 1 as printed (Dir(1) null
weights, instances bootstrapped, :math:`t > q`) and the authors' real-data test (Dir(1/M) null weights,
``caltest.py`` l. 87-88; instances permuted, l. 505; :math:`|t| > q`, l. 547), both with SciPy's COBYLA as in
``final_results_experiments_data.py`` (l. 58). What a cell keeps is small: the decisions and p-values, the
test-split accuracies and ECEs, and :math:`ECE_{conf}` on fixed bootstrap resamples of the test split, so that
differences between sets (DN(0.6) − DN(0.1)) get paired standard errors across parts.

:func:`table1_regime_cell` is the same cell in the regime the paper's claims rest on, over-confident single
networks (networks trained longer on fewer images), and keeps the signed error of every member as its evidence.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from credalbook._validation import check_choice, check_positive_int
from credalbook.data.images import load_dataset
from credalbook.data.splits import train_val_test_split
from credalbook.metrics.classification import accuracy, ece_classwise, ece_confidence
from credalbook.metrics.direction import signed_calibration_error
from credalbook.nn.member_predictions import ClassifierSet
from credalbook.nn.models import mc_dropout_predict, SmallCNN
from credalbook.nn.training import fit, predict_proba
from credalbook.stats.bootstrap import set_calibration_test

__all__ = [
    "RegimeCell",
    "TABLE1_SETS",
    "TEST_VARIANTS",
    "Table1Cell",
    "end_to_end_set",
    "table1_cell",
    "table1_regime_cell",
]

#: The four classifier sets of Table 1: name → dropout rate of the head (M = 1 for S).
TABLE1_SETS = {"S": 0.0, "DN(0.1)": 0.1, "DN(0.6)": 0.6, "DE": 0.0}
#: The two real-data tests: Alg. 1 as printed, and the authors' ``npbetest`` as their real-data script calls it.
TEST_VARIANTS = {
    "paper": dict(weight_prior="uniform", resample="bootstrap", rule="t"),
    "authors": dict(weight_prior="sparse", resample="permutation", rule="abs"),
}
_BOOT_SEED = 2022


@dataclass(frozen=True)
class Table1Cell:
    """One classifier set of Table 1 on one data set and seed, tested under both variants.

    Attributes
    ----------
    dataset, set_name : str
    seed : int
    average : dict
        Test split, plain average of the members: ``avg_acc``, ``avg_ece_conf``, ``avg_ece_cwise``.
    tests : dict
        Variant (:data:`TEST_VARIANTS`) → ``h0_conf``, ``p_conf``, ``acc_conf``, ``ece_conf``, and the same for
        ``cwise`` (decisions on the calibration split; accuracy and ECE of the weighted average on the test split),
        ``weights_conf``, ``weights_cwise`` (λ as lists).
    boot_ece : dict
        :math:`ECE_{conf}` on ``ece_resamples`` fixed bootstrap resamples of the test split (the same instances in every
        cell of a data set): ``"average"`` and ``"weighted_<variant>"``.
    members : dict
        Per member on the test split: ``"acc"`` and ``"ece_conf"`` (lists; one entry per pass for DN).
    n_cal, n_test : int
    config : dict
    seconds : float
    """

    dataset: str
    set_name: str
    seed: int
    average: dict
    tests: dict
    boot_ece: dict = field(repr=False)
    members: dict = field(repr=False)
    n_cal: int = 0
    n_test: int = 0
    config: dict = field(default_factory=dict)
    seconds: float = 0.0

    def decision(self, variant: str, measure: str) -> str:
        """ "REJ." or "¬REJ." of ``variant`` for ``measure`` ("conf" or "cwise")."""
        check_choice(variant, "variant", tuple(TEST_VARIANTS))
        check_choice(measure, "measure", ("conf", "cwise"))
        return self.tests[variant][f"h0_{measure}"]


def _network(image_shape, n_classes: int, *, dropout: float, channels, hidden: int, seed: int) -> SmallCNN:
    """A SmallCNN body with the authors' head, Dropout(p) → Linear, initialised from ``seed``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = SmallCNN(image_shape[0], n_classes, image_size=tuple(image_shape[1:]), channels=channels, hidden=hidden)
        net.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, n_classes))
    return net


def _member_seed(seed: int, set_name: str, member: int) -> int:
    """Distinct seeds for every (seed, set, member): no network is shared between sets."""
    return 10_000 * seed + 1_000 * list(TABLE1_SETS).index(set_name) + member


def end_to_end_set(
    dataset: str = "fashion_mnist",
    *,
    set_name: str,
    n_members: int = 10,
    seed: int = 0,
    epochs: int = 5,
    lr: float = 1e-3,
    batch_size: int = 128,
    channels=(32, 64),
    hidden: int = 128,
    n_train: int | None = None,
    split_seed: int = 2022,
    device: str = "cpu",
    progress: bool = False,
    patience: int | None = None,
    n_val: int | None = None,
) -> ClassifierSet:
    """Train one classifier set of Table 1 end to end (each network from its own initialisation).

    Parameters
    ----------
    dataset : str
        A name in :data:`credalbook.data.DATASETS`.
    set_name : {"S", "DN(0.1)", "DN(0.6)", "DE"}
    n_members : int, default 10
        M of DN (passes) and DE (networks); S has one member.
    seed : int
        The cell's seed; each network's initialisation and minibatch order come from it, the set and the member.
    epochs, lr, batch_size
        Adam on the cross-entropy (:func:`~credalbook.nn.fit`), all epochs unless ``patience`` is given.
    channels, hidden
        Of the :class:`~credalbook.nn.SmallCNN` body; ``hidden`` is the width the head's linear layer reads.
    n_train : int or None
        Training images drawn with ``seed`` (all when None).
    split_seed : int, default 2022
        The 50/50 stratified division of the test split into calibration and test (the paper's seed).
    device, progress
        Where and how verbosely the networks train.
    patience : int, optional
        Early stopping: each network stops after ``patience`` epochs without a lower loss on ``n_val`` validation
        images and keeps the weights of its best epoch (as Jürgens et al. train theirs, App. D; their
        ``src/data/real/train_ensembles.py`` saves the best model by validation loss). The training images, the
        initialisations and the minibatch order are those without it: the same trajectories, stopped. None: no
        validation, all ``epochs``.
    n_val : int, optional
        Validation images with ``patience``, drawn (with ``seed``) from the training images not drawn for training;
        default as many as ``n_train``, at most those left. The set's ``config`` then names ``patience``, ``n_val`` and each network's
        ``best_epochs`` (the epoch whose weights it keeps).

    Returns
    -------
    ClassifierSet

    Examples
    --------
    >>> cs = end_to_end_set("digits", set_name="DE", n_members=2, epochs=1, channels=(4,), hidden=8, n_train=200)
    >>> cs.ens_probs_cal.shape, cs.ens_probs_test.shape
    ((270, 2, 10), (269, 2, 10))
    """
    check_choice(set_name, "set_name", tuple(TABLE1_SETS))
    n_members = check_positive_int(n_members, "n_members")
    seed = check_positive_int(seed, "seed", minimum=0)
    data = load_dataset(dataset)
    x_train, y_train = np.asarray(data.x_train, dtype=np.float32), np.asarray(data.y_train)
    keep = np.arange(len(y_train))
    if n_train is not None and check_positive_int(n_train, "n_train") < len(y_train):
        keep = np.sort(np.random.default_rng(seed).choice(len(y_train), size=n_train, replace=False))
        x_train, y_train = x_train[keep], y_train[keep]
    val = {}
    if patience is not None:
        patience = check_positive_int(patience, "patience")
        if n_train is None:
            raise ValueError("patience needs n_train: the validation images are training images not drawn for training")
        rest = np.setdiff1d(np.arange(len(data.y_train)), keep)
        n_val = min(n_train, len(rest)) if n_val is None else check_positive_int(n_val, "n_val")
        if n_val < 1:
            raise ValueError("patience needs validation images: n_train leaves no training image to validate on")
        if n_val > len(rest):
            raise ValueError(
                f"n_val must be at most the {len(rest)} training images not drawn for training; got {n_val}"
            )
        pick = np.sort(np.random.default_rng([seed, 1]).choice(rest, size=n_val, replace=False))
        val = dict(
            x_val=np.asarray(data.x_train, dtype=np.float32)[pick],
            y_val=np.asarray(data.y_train)[pick],
            patience=patience,
        )
    elif n_val is not None:
        raise ValueError("n_val needs patience (the validation images serve early stopping only)")
    x_test, y_test = np.asarray(data.x_test, dtype=np.float32), np.asarray(data.y_test)
    idx_test, idx_cal, _ = train_val_test_split(len(y_test), val_fraction=0.5, seed=split_seed, stratify=y_test)
    shape, k = x_train.shape[1:], data.n_classes
    dropout = TABLE1_SETS[set_name]
    train_kw = dict(
        epochs=epochs, batch_size=batch_size, optimizer="adam", lr=lr, device=device, progress=progress, **val
    )
    if set_name.startswith("DN"):
        net = _network(
            shape, k, dropout=dropout, channels=channels, hidden=hidden, seed=_member_seed(seed, set_name, 0)
        )
        best = [fit(net, x_train, y_train, seed=_member_seed(seed, set_name, 0), **train_kw).best_epoch]
        ens = mc_dropout_predict(net, x_test, n_samples=n_members, device=device, seed=_member_seed(seed, set_name, 0))
    else:
        probs, best = [], []
        for m in range(1 if set_name == "S" else n_members):
            s = _member_seed(seed, set_name, m)
            net = _network(shape, k, dropout=0.0, channels=channels, hidden=hidden, seed=s)
            best.append(fit(net, x_train, y_train, seed=s, **train_kw).best_epoch)
            probs.append(predict_proba(net, x_test, device=device))
        ens = np.stack(probs, axis=1)
    return ClassifierSet(
        ens_probs_cal=ens[idx_cal],
        y_cal=y_test[idx_cal],
        ens_probs_test=ens[idx_test],
        y_test=y_test[idx_test],
        kind="single" if set_name == "S" else "dropout" if set_name.startswith("DN") else "ensemble",
        name=set_name,
        idx_cal=idx_cal,
        idx_test=idx_test,
        config=dict(
            dataset=dataset,
            set_name=set_name,
            n_members=int(ens.shape[1]),
            seed=seed,
            epochs=epochs,
            lr=lr,
            **({} if patience is None else dict(patience=patience, n_val=n_val, best_epochs=best)),
        ),  # fmt: skip
    )


def _boot_ece(probs, labels, idx, n_bins: int) -> list:
    return [float(ece_confidence(probs[i], labels[i], n_bins=n_bins)) for i in idx]


def _tests(cs: ClassifierSet, n_bins: int, alpha: float, n_resamples: int, solver: str, idx) -> tuple[dict, dict]:
    """Both variants' decisions, and the weighted averages' ECE_conf on the fixed bootstrap resamples."""
    cal, y_cal, test, y_test = cs.ens_probs_cal, cs.y_cal, cs.ens_probs_test, cs.y_test
    tests, boot = {}, {}
    for variant, options in TEST_VARIANTS.items():
        row = {}
        for key, name, metric in (
            ("conf", "ece_confidence", ece_confidence),
            ("cwise", "ece_classwise", ece_classwise),
        ):
            res = set_calibration_test(
                cal, y_cal, measure=name, n_bins=n_bins, n_resamples=n_resamples, alpha=alpha, solver=solver,
                seed=_BOOT_SEED, chunk_size=None, **options,
            )  # fmt: skip
            weighted = np.einsum("nmk,m->nk", test, res.weights)
            row.update(
                {
                    f"h0_{key}": "REJ." if res.rejected else "¬REJ.",
                    f"p_{key}": float(res.pvalue),
                    f"acc_{key}": float(accuracy(weighted, y_test)),
                    f"ece_{key}": float(metric(weighted, y_test, n_bins=n_bins)),
                    f"weights_{key}": [float(w) for w in res.weights],
                }
            )
            if key == "conf":
                boot[f"weighted_{variant}"] = _boot_ece(weighted, y_test, idx, n_bins)
        tests[variant] = row
    return tests, boot


def table1_cell(
    dataset: str = "fashion_mnist",
    *,
    set_name: str,
    seed: int = 0,
    n_members: int = 10,
    epochs: int = 5,
    lr: float = 1e-3,
    channels=(32, 64),
    hidden: int = 128,
    n_train: int | None = None,
    n_bins: int = 5,
    alpha: float = 0.05,
    n_resamples: int = 100,
    solver: str = "cobyla",
    ece_resamples: int = 200,
    device: str = "cpu",
    progress: bool = False,
) -> Table1Cell:
    """One Table 1 cell: :func:`end_to_end_set`, then Alg. 1 under both :data:`TEST_VARIANTS`.

    ``n_bins``, ``alpha``, ``n_resamples``, ``solver`` are those of the paper's real-data script (5 bins,
    α = 0.05, D = 100, SciPy's COBYLA); fixed bootstrap resamples of the test split (drawn with seed
    2022 from its size alone), ``ece_resamples`` of them, carry the paired standard errors of the ECE differences.

    Examples
    --------
    >>> c = table1_cell("digits", set_name="DN(0.6)", n_members=3, epochs=1, channels=(4,), hidden=8, n_train=200,
    ...                 n_resamples=10, solver="search", ece_resamples=5)
    >>> sorted(c.tests), c.decision("authors", "conf") in ("REJ.", "¬REJ."), len(c.boot_ece["average"])
    (['authors', 'paper'], True, 5)
    """
    return _trained_and_tested(
        dataset, set_name=set_name, seed=seed, n_members=n_members, epochs=epochs, lr=lr, channels=channels,
        hidden=hidden, n_train=n_train, n_bins=n_bins, alpha=alpha, n_resamples=n_resamples, solver=solver,
        ece_resamples=ece_resamples, device=device, progress=progress,
    )[0]  # fmt: skip


def _trained_and_tested(dataset: str, *, set_name: str, seed: int, n_members: int, epochs: int, lr: float, channels,
                        hidden: int, n_train, n_bins: int, alpha: float, n_resamples: int, solver: str,
                        ece_resamples: int, device: str, progress: bool):  # fmt: skip
    """:func:`end_to_end_set`, then Alg. 1 under both variants: (the :class:`Table1Cell`, the set, the fixed resamples)."""
    start = time.perf_counter()
    cs = end_to_end_set(
        dataset, set_name=set_name, n_members=n_members, seed=seed, epochs=epochs, lr=lr, channels=channels,
        hidden=hidden, n_train=n_train, device=device, progress=progress,
    )  # fmt: skip
    config = dict(n_train=n_train, channels=list(channels), hidden=hidden, n_resamples=n_resamples, solver=solver,
                  n_bins=n_bins, alpha=alpha, ece_resamples=ece_resamples)  # fmt: skip
    idx = _boot_indices(len(cs.y_test), ece_resamples)
    return _tested_cell(cs, dataset, set_name, seed, config, idx, start), cs, idx


def _boot_indices(n: int, ece_resamples: int) -> np.ndarray:
    """The fixed bootstrap resamples of a test split of ``n`` instances (seed 2022): the same in every cell."""
    return np.random.default_rng(_BOOT_SEED).integers(
        0, n, size=(check_positive_int(ece_resamples, "ece_resamples"), n)
    )


def _tested_cell(cs: ClassifierSet, dataset: str, set_name: str, seed: int, config: dict, idx, start: float):
    """Alg. 1 under both variants on a trained set, and its test-split summaries: a :class:`Table1Cell`."""
    y = cs.y_test
    n_bins, alpha, n_resamples, solver = (config[k] for k in ("n_bins", "alpha", "n_resamples", "solver"))
    avg = cs.ens_probs_test.mean(axis=1)
    tests, boot = _tests(cs, n_bins, alpha, n_resamples, solver, idx)
    members = np.moveaxis(cs.ens_probs_test, 1, 0)
    return Table1Cell(
        dataset=dataset,
        set_name=set_name,
        seed=int(seed),
        average={
            "avg_acc": float(accuracy(avg, y)),
            "avg_ece_conf": float(ece_confidence(avg, y, n_bins=n_bins)),
            "avg_ece_cwise": float(ece_classwise(avg, y, n_bins=n_bins)),
        },
        tests=tests,
        boot_ece={"average": _boot_ece(avg, y, idx, n_bins), **boot},
        members={
            "acc": [float(accuracy(p, y)) for p in members],
            "ece_conf": [float(ece_confidence(p, y, n_bins=n_bins)) for p in members],
        },
        n_cal=int(len(cs.y_cal)),
        n_test=int(len(y)),
        config=dict(cs.config, **config),
        seconds=time.perf_counter() - start,
    )


@dataclass(frozen=True)
class RegimeCell:
    """A Table 1 cell of the over-confident regime, with the direction of each miscalibration.

    Attributes
    ----------
    cell : Table1Cell
        The cell as :func:`table1_cell` gives it for the same arguments.
    signed : dict
        Signed top-label error, mean confidence − accuracy (> 0: over-confident;
        :func:`~credalbook.metrics.signed_calibration_error`) on the test split: ``"average"`` (the plain average),
        ``"members"`` (one per member or pass), ``"boot_average"`` (the plain average on the cell's fixed
        bootstrap resamples, for standard errors).
    """

    cell: Table1Cell
    signed: dict = field(repr=False)


def table1_regime_cell(
    dataset: str = "fashion_mnist", *, set_name: str, epochs: int = 80, n_train: int | None = 5000, **options
) -> RegimeCell:
    """:func:`table1_cell` in the regime Table 1 needs: over-confident members, trained to fit few images.

    The paper's single networks are "in general not calibrated", as in Guo et al. (2017) (Sec. 4.2): deep networks
    fitted until their training loss is small are over-confident, and averaging members that differ lowers that
    over-confidence. Two epochs of Adam on all of Fashion-MNIST's 60 000 images leave the body under-fitted and
    under-confident instead, which averaging makes worse. Here every network is trained longer on fewer images
    (defaults: 5 000 images, 80 epochs, 3 200 Adam steps); ``options`` are the other keywords of
    :func:`table1_cell`, with its defaults. The cell also keeps the signed error of the average and of every member,
    the premise rows' evidence.

    Examples
    --------
    >>> r = table1_regime_cell("digits", set_name="S", epochs=1, channels=(4,), hidden=8, n_train=200,
    ...                        n_resamples=10, solver="search", ece_resamples=5)
    >>> r.cell.set_name, len(r.signed["members"]), len(r.signed["boot_average"])
    ('S', 1, 5)
    """
    defaults = {k: p.default for k, p in inspect.signature(table1_cell).parameters.items() if p.kind == p.KEYWORD_ONLY}
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise TypeError(f"table1_regime_cell got unexpected keyword argument(s) {unknown}")
    kwargs = {**defaults, **options, "set_name": set_name, "epochs": epochs, "n_train": n_train}
    cell, cs, idx = _trained_and_tested(dataset, **kwargs)
    y, avg = cs.y_test, cs.ens_probs_test.mean(axis=1)
    signed = {
        "average": float(signed_calibration_error(avg, y)),
        "members": [float(signed_calibration_error(p, y)) for p in np.moveaxis(cs.ens_probs_test, 1, 0)],
        "boot_average": [float(v) for v in signed_calibration_error(avg[idx], y[idx])],
    }
    return RegimeCell(cell=cell, signed=signed)
