r"""Probabilistic classifier sets on real data: frozen backbone features and heads trained on them.

The real-data experiment of Mortier et al. (2023, Sec. 4.2, Table 1; App. A.2) compares four sets
of M classifiers built from one frozen feature extractor and small heads trained on its features:

- **S**, a single network (M = 1);
- **DN(0.1)** and **DN(0.6)**, one head with dropout of that rate after its hidden layer ("dropout
  in the last layer"), from which M = 10 Monte-Carlo dropout predictions are sampled (Gal, 2016);
- **DE**, a deep ensemble of M = 10 heads that differ only in their initialisation and minibatch
  order (Lakshminarayanan et al., 2017).

Every head has one hidden layer of 1000 ReLU units and is trained with the cross-entropy loss by
SGD with momentum. The dataset's own test split is divided 50/50, stratified by label with seed
2022, into a *calibration* split (where the bootstrap test of the later chapters chooses the convex
weights) and a *test* split (where accuracy and ECE are reported).

The paper's feature extractors are MobileNetV2 and VGG16 pretrained on ImageNet. Their weights
cannot be obtained here (nothing is downloaded at run time), so :func:`backbone_features` trains a
:class:`~credalbook.nn.SmallCNN` on the (optionally subsampled) training images with Adam,
freezes it and returns its penultimate features; :func:`train_classifier_set` then trains the heads
on those features exactly as in the paper, up to the learning rate (see its Notes).
Both functions are cached on disk (:func:`credalbook.cache.cached`); the backbone is shared by all
classifier sets with the same backbone configuration. A set's predictions are held by
:class:`~credalbook.nn.ClassifierSet` (:mod:`credalbook.nn.member_predictions`).
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from credalbook._config import resolve_config
from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_positive_int, check_probability
from credalbook.cache import cached
from credalbook.data.images import load_dataset
from credalbook.data.splits import train_val_test_split
from credalbook.nn.configs import HeadConfig
from credalbook.nn.member_predictions import ClassifierSet, KINDS, MemberPredictions
from credalbook.nn.models import _check_dropout, mc_dropout_predict, MLP
from credalbook.nn.predictions import build_model
from credalbook.nn.training import fit, predict_logits, predict_proba

__all__ = [
    "BackboneFeatures",
    "ClassifierSet",
    "MemberPredictions",
    "backbone_features",
    "train_classifier_set",
    "classifier_sets",
]

_NAME_RE = re.compile(r"^DN\((\d*\.?\d+)\)$")


@dataclass(frozen=True, eq=False)
class BackboneFeatures:
    """Penultimate features of a trained, frozen backbone on a dataset's training and test splits.

    Attributes
    ----------
    features_train : numpy.ndarray, shape (N_train, F), float32
        Features of the training images the backbone was trained on (all of them, or the
        ``n_train`` subsample), in the order of :meth:`credalbook.data.Dataset.subsample`.
    y_train : numpy.ndarray, shape (N_train,), int64
    features_test : numpy.ndarray, shape (N_test, F), float32
        Features of the dataset's full test split, in its original order.
    y_test : numpy.ndarray, shape (N_test,), int64
    train_accuracy, test_accuracy : float
        Accuracy of the backbone's own output layer on the two splits.
    history : list of dict
        Per-epoch record of :func:`credalbook.nn.fit`.
    seconds : float
        Wall-clock time of the backbone's training (feature extraction excluded).
    config : dict
        The arguments that produced the features (``device`` and ``progress`` excluded), with
        ``n_classes`` and ``image_shape`` of the dataset.

    Examples
    --------
    >>> f = np.zeros((4, 3), dtype=np.float32)
    >>> bb = BackboneFeatures(f, np.array([0, 1, 0, 1]), f[:2], np.array([1, 0]), 1.0, 0.5, [], 0.1,
    ...                       {"n_classes": 2})
    >>> bb
    BackboneFeatures(train_accuracy=1.0, test_accuracy=0.5, seconds=0.1)
    >>> bb.feature_dim, bb.n_classes
    (3, 2)
    """

    features_train: np.ndarray = field(repr=False)
    y_train: np.ndarray = field(repr=False)
    features_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    train_accuracy: float
    test_accuracy: float
    history: list = field(repr=False)
    seconds: float
    config: dict = field(repr=False)

    @property
    def feature_dim(self) -> int:
        """Width F of the features."""
        return int(self.features_train.shape[1])

    @property
    def n_classes(self) -> int:
        """Number of classes K of the dataset."""
        return int(self.config["n_classes"])


class _Features(nn.Module):
    """Wraps a network so that its forward pass returns ``net.features(x)``."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net.features(x)


def _accuracy(head: nn.Module, features: np.ndarray, labels: np.ndarray, device) -> float:
    return float((predict_logits(head, features, device=device).argmax(axis=1) == labels).mean())


@cached(ignore=["device", "progress"])
def backbone_features(
    dataset: str = "fashion_mnist",
    *,
    n_train: int | None = None,
    epochs: int = 5,
    channels=(32, 64),
    hidden: int = 128,
    batch_size: int = 128,
    lr: float = 1e-3,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
) -> BackboneFeatures:
    r"""Train a small CNN on a dataset's training images, freeze it and return its features.

    A stand-in for the ImageNet-pretrained MobileNetV2/VGG16 feature extractors of Mortier et al.
    (2023, App. A.2), which cannot be downloaded here. A :class:`~credalbook.nn.SmallCNN`
    (``channels`` convolution blocks, a dense layer of ``hidden`` ReLU units, no dropout) is
    trained for ``epochs`` epochs with Adam on the training split, subsampled to ``n_train``
    images (drawn with ``seed``; all when None). It is then frozen and evaluated in eval mode,
    batch by batch, to give the penultimate representation

    .. math:: \phi(x) = \operatorname{ReLU}\big(W\,\operatorname{pool}(\operatorname{conv}(x)) + b\big)
              \in \mathbb{R}^{F}, \qquad F = \text{hidden},

    of the training images it saw and of the dataset's full test split. The test split stays unseen,
    as with a pretrained extractor; unlike one, the backbone has seen the images the heads are
    trained on, but after a few epochs its training and test accuracies differ by about one point
    on Fashion-MNIST, so its features are hardly more separable on the training images. Results
    are cached on disk.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
        A name in :data:`credalbook.data.DATASETS`.
    n_train : int or None, default=None
        Number of training images (a random subset drawn with `seed`); None uses all.
    epochs : int, default=5
        Training epochs of the backbone. On an otherwise idle 2-core CPU, Fashion-MNIST takes
        about 0.3 s per 1000 images and epoch, plus about 0.5 s per 1000 images for the features
        (10 000 images, 3 epochs: 15 s in all, test accuracy 0.75; 60 000 images, 5 epochs:
        about 3 minutes, test accuracy 0.87).
    channels : sequence of int, default=(32, 64)
        Convolution blocks of the SmallCNN.
    hidden : int, default=128
        Width F of the features.
    batch_size : int, default=128
        Minibatch size of the backbone's training.
    lr : float, default=1e-3
        Adam learning rate.
    seed : int, default=0
        Seeds the subsample, the initial weights and the minibatch order.
    device : str, default="auto"
        See :func:`credalbook.nn.resolve_device`; not part of the cache key.
    progress : bool, default=True
        Show a progress bar over epochs; not part of the cache key.

    Returns
    -------
    BackboneFeatures

    References
    ----------
    Mortier, T., Bengs, V., Hüllermeier, E., Luca, S. & Waegeman, W. (2023). On the calibration of
    probabilistic classifier sets. AISTATS, Sec. 4.2 and App. A.2 (frozen pretrained backbones).

    Examples
    --------
    >>> bb = backbone_features("digits", n_train=400, epochs=2, channels=(8, 16), hidden=32,
    ...                        device="cpu", progress=False)
    >>> bb.features_train.shape, bb.features_test.shape, bb.feature_dim
    ((400, 32), (539, 32), 32)
    """
    seed = check_positive_int(seed, "seed", minimum=0)
    hidden = check_positive_int(hidden, "hidden")
    ds = load_dataset(dataset)
    if n_train is not None:
        ds = ds.subsample(n_train, None, seed=seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = build_model(
            "cnn", n_classes=ds.n_classes, image_shape=ds.image_shape, hidden=(hidden,), channels=channels
        )
    result = fit(
        model,
        ds.x_train,
        ds.y_train,
        epochs=epochs,
        batch_size=batch_size,
        optimizer="adam",
        lr=lr,
        seed=seed,
        device=device,
        progress=progress,
    )
    model.requires_grad_(False)
    extractor = _Features(model)
    f_train = predict_logits(extractor, ds.x_train, device=device).astype(np.float32)
    f_test = predict_logits(extractor, ds.x_test, device=device).astype(np.float32)
    config = dict(
        dataset=dataset,
        n_train=n_train,
        epochs=epochs,
        channels=tuple(channels),
        hidden=hidden,
        batch_size=batch_size,
        lr=lr,
        seed=seed,
        n_classes=ds.n_classes,
        image_shape=ds.image_shape,
    )
    return BackboneFeatures(
        features_train=f_train,
        y_train=np.asarray(ds.y_train),
        features_test=f_test,
        y_test=np.asarray(ds.y_test),
        train_accuracy=_accuracy(model.head, f_train, ds.y_train, device),
        test_accuracy=_accuracy(model.head, f_test, ds.y_test, device),
        history=list(result.history),
        seconds=result.seconds,
        config=config,
    )


_BACKBONE_KEYS = tuple(
    name
    for name, p in inspect.signature(backbone_features).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY and name not in ("device", "progress")
)


def _set_name(kind: str, dropout: float) -> str:
    return {"single": "S", "ensemble": "DE"}.get(kind) or f"DN({dropout:g})"


def _backbone_config(backbone) -> dict:
    if backbone is None:
        return {}
    if not isinstance(backbone, Mapping):
        raise ValueError(f"backbone must be a dict of backbone_features arguments or None; got {backbone!r}")
    unknown = sorted(set(backbone) - set(_BACKBONE_KEYS))
    if unknown:
        raise ValueError(f"backbone has unknown keys {unknown}; allowed: {list(_BACKBONE_KEYS)}")
    return dict(backbone)


def _new_head(n_features: int, n_classes: int, *, hidden: int, dropout: float, seed: int) -> MLP:
    with torch.random.fork_rng(devices=[]):  # the caller's RNG state is left untouched
        torch.manual_seed(seed)
        return MLP(n_features, n_classes, hidden=(hidden,), dropout=dropout)


def train_classifier_set(
    dataset: str = "fashion_mnist",
    *,
    kind: str,
    n_members: int = 10,
    dropout: float = 0.1,
    backbone: dict | None = None,
    cal_fraction: float = 0.5,
    split_seed: int = 2022,
    config: HeadConfig | None = None,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
    **options,
) -> ClassifierSet:
    r"""Train a set of classifier heads on frozen backbone features (Mortier et al. 2023, Table 1).

    The heads map the features :math:`\phi(x)` of :func:`backbone_features` to logits with one
    hidden layer of `head_hidden` ReLU units, ``MLP(F, K, hidden=(head_hidden,), dropout=...)``,
    trained on the backbone's training features with :func:`credalbook.nn.fit` for all
    `epochs` (no early stopping). The set of M classifiers depends on `kind`:

    - ``"single"`` (S): one head without dropout, M = 1.
    - ``"dropout"`` (DN(p)): one head with dropout ``p = dropout`` after the hidden ReLU, trained
      with dropout and predicting with :func:`credalbook.nn.mc_dropout_predict`, M =
      `n_members` stochastic passes with the masks seeded by `seed`.
    - ``"ensemble"`` (DE): `n_members` heads without dropout, head i initialised and shuffled with
      ``seed + i`` (so head 0 is the single network S of the same `seed`).

    Member m of the set predicts :math:`\hat p^{(m)}(x) = \operatorname{softmax}(f_m(\phi(x)))`. The
    dataset's test split is divided by :func:`credalbook.data.train_val_test_split`, stratified by
    label with `split_seed`, into a calibration part of ``round(cal_fraction * N)`` instances and a
    test part with the rest. Results are cached on disk.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
        A name in :data:`credalbook.data.DATASETS`.
    kind : {"single", "dropout", "ensemble"}
        Which classifier set to build.
    n_members : int, default=10
        M for ``"dropout"`` and ``"ensemble"`` (the paper's 10); ignored by ``"single"``.
    dropout : float, default=0.1
        Dropout rate in (0, 1) of the ``"dropout"`` head (the paper's 0.1 and 0.6); must lie in
        [0, 1) and is ignored by the other kinds.
    backbone : dict or None, default=None
        Keyword arguments of :func:`backbone_features` (``n_train``, ``epochs``, ``channels``,
        ``hidden``, ``batch_size``, ``lr``, ``seed``); None uses its defaults.
    cal_fraction : float, default=0.5
        Fraction in (0, 1) of the test split that becomes the calibration split.
    split_seed : int, default=2022
        Seed of the calibration/test division (the paper's 2022).
    config : HeadConfig or None, default=None
        The heads and their training (``head_hidden``, ``epochs``, ``batch_size``, ``optimizer``,
        ``lr``, ``momentum``); None gives the defaults.
    seed : int, default=0
        Seeds the heads' initial weights, minibatch order and dropout masks.
    device : str, default="auto"
        See :func:`credalbook.nn.resolve_device`; not part of the cache key.
    progress : bool, default=True
        Show progress bars; not part of the cache key.
    **options
        Fields of :class:`HeadConfig`, replacing those of `config`.

    Returns
    -------
    ClassifierSet

    Raises
    ------
    ValueError
        For an unknown `kind` or `backbone` key, ``n_members < 1``, `dropout` outside [0, 1) (or 0
        with ``kind="dropout"``), `cal_fraction` outside (0, 1), a non-positive `head_hidden`, and
        the errors of :func:`credalbook.nn.fit` for the optimiser settings.

    Notes
    -----
    *Learning rate.* The paper trains with SGD, lr = 1e-5 and momentum 0.99 (an effective step of
    1e-3) on 1000 ImageNet features. On the SmallCNN features of Fashion-MNIST that leaves the
    heads under-trained after 20 epochs: the single network reaches a test accuracy of 0.747 and
    :math:`ECE_{conf}` 0.060 on the features of a backbone trained on 10 000 images, against 0.772
    and 0.019 with the default lr = 1e-2 and momentum 0.9 (0.862 and 0.014 against 0.877 and 0.011
    with all 60 000 images). Larger steps lose accuracy (lr = 0.03: 0.81, lr = 0.1: 0.67 on a
    stronger backbone whose heads reach 0.82 at lr = 1e-2). The paper's values remain available
    as ``lr=1e-5, momentum=0.99``.

    *Cost.* On an otherwise idle 2-core CPU the four sets of Table 1 (S, DN(0.1), DN(0.6), DE with
    the default heads) take about 30 s on 10 000 training features and 3.5 minutes on 60 000; a
    dropout head trains about twice as slowly as a plain one, and the ensemble costs M heads.

    *Dropout members.* As in the paper and in PyTorch, a dropout pass draws a fresh mask for every
    instance, so member m of a DN set is one stochastic pass, not one fixed sub-network.

    References
    ----------
    Mortier, T., Bengs, V., Hüllermeier, E., Luca, S. & Waegeman, W. (2023). On the calibration of
    probabilistic classifier sets. AISTATS, Sec. 4.2 (Table 1) and App. A.2.
    Lakshminarayanan, B., Pritzel, A. & Blundell, C. (2017). Simple and scalable predictive
    uncertainty estimation using deep ensembles. NeurIPS.
    Gal, Y. & Ghahramani, Z. (2016). Dropout as a Bayesian approximation. ICML (Eq. 8).

    Examples
    --------
    >>> small = dict(n_train=400, epochs=2, channels=(8, 16), hidden=32)
    >>> de = train_classifier_set("digits", kind="ensemble", n_members=3, head_hidden=32, epochs=2,
    ...                           backbone=small, device="cpu", progress=False)
    >>> de
    ClassifierSet(name='DE', kind='ensemble', n_members=3, n_cal=270, n_test=269, n_classes=10)
    >>> bool(np.allclose(de.ens_probs_test.sum(axis=2), 1.0))
    True
    """
    cfg = resolve_config(HeadConfig, config, options, "train_classifier_set")
    return _train_classifier_set(
        dataset,
        kind=kind,
        n_members=n_members,
        dropout=dropout,
        **asdict(cfg),
        backbone=backbone,
        cal_fraction=cal_fraction,
        split_seed=split_seed,
        seed=seed,
        device=device,
        progress=progress,
    )


@cached(ignore=["device", "progress"])
def _train_classifier_set(
    dataset,
    *,
    kind,
    n_members,
    dropout,
    head_hidden,
    epochs,
    batch_size,
    optimizer,
    lr,
    momentum,
    backbone,
    cal_fraction,
    split_seed,
    seed,
    device,
    progress,
) -> ClassifierSet:
    """:func:`train_classifier_set` with every setting spelled out (the cached computation)."""
    start = time.perf_counter()
    check_choice(kind, "kind", KINDS)
    n_members = check_positive_int(n_members, "n_members")
    dropout = _check_dropout(dropout)
    if kind == "dropout" and dropout == 0.0:
        raise ValueError("dropout must lie in (0, 1) for kind='dropout'; got 0.0")
    head_hidden = check_positive_int(head_hidden, "head_hidden")
    cal_fraction = check_probability(cal_fraction, "cal_fraction")
    seed = check_positive_int(seed, "seed", minimum=0)
    split_seed = check_positive_int(split_seed, "split_seed", minimum=0)
    bb_kwargs = _backbone_config(backbone)

    bb = backbone_features(dataset, **bb_kwargs, device=device, progress=progress)
    idx_test, idx_cal, _ = train_val_test_split(
        len(bb.y_test), val_fraction=cal_fraction, seed=split_seed, stratify=bb.y_test
    )
    n_features, n_classes = bb.feature_dim, bb.n_classes
    train_kw = dict(epochs=epochs, batch_size=batch_size, optimizer=optimizer, lr=lr, momentum=momentum, device=device)

    if kind == "dropout":
        head = _new_head(n_features, n_classes, hidden=head_hidden, dropout=dropout, seed=seed)
        fit(head, bb.features_train, bb.y_train, seed=seed, progress=progress, **train_kw)
        ens_probs = mc_dropout_predict(head, bb.features_test, n_samples=n_members, device=device, seed=seed)
    else:
        members = 1 if kind == "single" else n_members
        probs = []
        for i in progress_bar(range(members), progress=progress and members > 1, desc="heads", leave=False):
            head = _new_head(n_features, n_classes, hidden=head_hidden, dropout=0.0, seed=seed + i)
            fit(head, bb.features_train, bb.y_train, seed=seed + i, progress=progress and members == 1, **train_kw)
            probs.append(predict_proba(head, bb.features_test, device=device))
        ens_probs = np.stack(probs, axis=1)

    config = dict(
        dataset=dataset,
        kind=kind,
        n_members=ens_probs.shape[1],
        dropout=dropout if kind == "dropout" else 0.0,
        head_hidden=head_hidden,
        epochs=epochs,
        batch_size=batch_size,
        optimizer=optimizer,
        lr=lr,
        momentum=momentum,
        backbone={k: bb.config[k] for k in _BACKBONE_KEYS},
        cal_fraction=cal_fraction,
        split_seed=split_seed,
        seed=seed,
        backbone_test_accuracy=bb.test_accuracy,
        backbone_seconds=bb.seconds,
    )
    return ClassifierSet(
        ens_probs_cal=ens_probs[idx_cal],
        y_cal=bb.y_test[idx_cal],
        ens_probs_test=ens_probs[idx_test],
        y_test=bb.y_test[idx_test],
        kind=kind,
        name=_set_name(kind, dropout),
        idx_cal=idx_cal,
        idx_test=idx_test,
        config=config,
        seconds=time.perf_counter() - start,
    )


train_classifier_set.clear = _train_classifier_set.clear  # drops the stored results, as for a cached function


def _parse_name(name) -> dict:
    if name == "S":
        return dict(kind="single")
    if name == "DE":
        return dict(kind="ensemble")
    match = _NAME_RE.match(name) if isinstance(name, str) else None
    if match is None:
        raise ValueError(f"kinds must hold names 'S', 'DE' or 'DN(<rate>)' such as 'DN(0.1)'; got {name!r}")
    return dict(kind="dropout", dropout=float(match.group(1)))


def classifier_sets(
    dataset: str = "fashion_mnist", *, kinds=("S", "DN(0.1)", "DN(0.6)", "DE"), **kwargs
) -> dict[str, ClassifierSet]:
    """The classifier sets of Mortier et al. (2023, Table 1), named as in the paper.

    Parses each name of `kinds` (``"S"`` single network, ``"DN(p)"`` dropout network with rate p,
    ``"DE"`` deep ensemble) and calls :func:`train_classifier_set` with the matching `kind` and
    `dropout` and the shared `kwargs`; all sets use the same (cached) backbone and the same
    calibration/test division.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
    kinds : sequence of str, default=("S", "DN(0.1)", "DN(0.6)", "DE")
    **kwargs
        Further arguments of :func:`train_classifier_set`, except `kind` and `dropout`.

    Returns
    -------
    dict of str to ClassifierSet
        In the order of `kinds`.

    References
    ----------
    Mortier, T., Bengs, V., Hüllermeier, E., Luca, S. & Waegeman, W. (2023). On the calibration of
    probabilistic classifier sets. AISTATS, Table 1.

    Examples
    --------
    >>> sets = classifier_sets("digits", kinds=("S", "DN(0.6)"), n_members=4, head_hidden=32, epochs=2,
    ...                        backbone=dict(n_train=400, epochs=2, channels=(8, 16), hidden=32),
    ...                        device="cpu", progress=False)
    >>> {name: (s.kind, s.n_members) for name, s in sets.items()}
    {'S': ('single', 1), 'DN(0.6)': ('dropout', 4)}
    """
    if isinstance(kinds, str):
        kinds = (kinds,)
    clash = sorted({"kind", "dropout"} & set(kwargs))
    if clash:
        raise ValueError(f"kwargs must not set {clash}; name the sets in kinds instead, e.g. 'DN(0.6)'")
    parsed = {name: _parse_name(name) for name in kinds}
    if not parsed:
        raise ValueError("kinds must name at least one classifier set; got an empty sequence")
    return {name: train_classifier_set(dataset, **spec, **kwargs) for name, spec in parsed.items()}
