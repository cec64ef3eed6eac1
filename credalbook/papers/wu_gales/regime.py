r"""The CIFAR-100 regime on Fashion-MNIST: members trained to memorisation on 450 images per class.

Wu & Gales (2021) train on CIFAR-100 (Sec. 4.3, App. A.4): 45 000 training images of 100 classes,
450 per class, 5 000 held out for validation, 10 000 test, each topology "following the original
training recipes" (200-300 epochs, random cropping and horizontal flipping, weight decay, no early
stopping). With 450 images per class the networks fit their training images almost exactly while
their held-out loss stays high: the deep members are over-confident (CIFAR-100 ECE 9-12 × 10⁻², Table
3) and LeNet far weaker and less so. This module sets up that regime on a data set at hand: the same
450 training images per class (4 500 in all on Fashion-MNIST's ten classes, stratified, fixed by a
seed), 5 000 validation images (500 per class) drawn from the rest of the training split, the whole
test split (10 000), and every topology trained for all its epochs with its original recipe.

The networks (:data:`REGIME_TOPOLOGIES`) are the paper's families, sized so that one member trains in
minutes on one CPU core: LeNet-5 as in the paper (61 706 parameters); DenseNet-BC with depth 40 and
k = 12 for DSN100 (0.18 M, against DenseNet-BC-100's 0.8 M); a DenseNet-BC with DenseNet-121's block
proportions halved, (3, 6, 12, 8), and k = 12 for DSN121 (0.33 M, against 7.0 M); WRN-16-2 for RSN (0.69 M,
against WRN-28-10's 36.5 M). The three deep networks start with a stride-2 stem convolution (28 × 28 →
14 × 14), as DenseNet-121's ImageNet stem does, which divides their cost by about four; LeNet-5 keeps
its own design. Their parameter counts keep the paper's order, LEN < DSN100 < DSN121 < RSN.

Training follows the original recipes with 100 epochs (the papers: 300 for the DenseNets, 200 for the
WRN, LeNet's 100 ours) and the learning-rate steps at the same fractions of training: SGD with momentum
0.9 (plain instead of Nesterov), learning rate 0.1 divided by 10 at 50 % and 75 % of the epochs, batch 64,
weight decay 1e-4 (DenseNet); 0.1 times 0.2 at 30 %, 60 % and 80 %, batch 128, weight decay 5e-4 (WRN);
0.01 divided by 10 at 50 % and 75 %, batch 128, weight decay 5e-4 (LeNet-5); random crops after padding
by 2 pixels and horizontal flips (App. A.4), no dropout, no early stopping. A member's record holds its
logits on the validation and the test images, and the NLL, accuracy and mean confidence on its training
images (evaluated without augmentation: the training NLL shows the memorisation).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4.3, App. A.4, Table 3.
Huang, Liu, van der Maaten, Weinberger. Densely connected convolutional networks. CVPR 2017.
Zagoruyko, Komodakis. Wide residual networks. BMVC 2016 (arXiv:1605.07146).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from scipy.special import log_softmax
from torch import nn

from credalbook._validation import check_positive_int
from credalbook.cache import checkpoint_path
from credalbook.data.images import load_dataset
from credalbook.nn.architectures import build_topology, PadCropFlip
from credalbook.nn.models import count_parameters
from credalbook.nn.training import fit, predict_logits

__all__ = ["REGIME_NAME", "REGIME_TOPOLOGIES", "regime_member", "regime_network", "regime_split"]

#: What the setting is, for tables and figures.
REGIME_NAME = "CIFAR-100 regime on Fashion-MNIST"


def _recipe(batch_size, lr, weight_decay, fractions, lr_decay=0.1, channels_last=False):
    return dict(
        batch_size=batch_size,
        optimizer="sgd",
        lr=lr,
        momentum=0.9,
        weight_decay=weight_decay,
        milestone_fractions=tuple(fractions),
        lr_decay=lr_decay,
        channels_last=channels_last,
    )


#: topology -> network family, its keyword arguments, the stem's stride and the training recipe (the
#: learning-rate steps as fractions of the epochs). CPU time of one thread per epoch over the 4 500 images
#: (measured from 1- and 3-epoch members on a busy 2-core machine, load 4-13): 0.5 s (LEN), 8.1 s (DSN100),
#: 3.7 s (DSN121), 6.3 s (RSN), plus 2-22 s for loading and the final predictions; a 100-epoch member about
#: 1, 14, 6 and 11 minutes, the 40 members about 5.3 hours.
REGIME_TOPOLOGIES = {
    "LEN": dict(family="lenet5", model={}, stem_stride=1, train=_recipe(128, 0.01, 5e-4, (0.5, 0.75))),
    "DSN100": dict(
        family="densenet",
        model=dict(depth=40, growth_rate=12),
        stem_stride=2,
        train=_recipe(64, 0.1, 1e-4, (0.5, 0.75), channels_last=True),
    ),
    "DSN121": dict(
        family="densenet",
        model=dict(block_config=(3, 6, 12, 8), growth_rate=12),
        stem_stride=2,
        train=_recipe(64, 0.1, 1e-4, (0.5, 0.75), channels_last=True),
    ),
    "RSN": dict(
        family="wide_resnet",
        model=dict(depth=16, widen_factor=2),
        stem_stride=2,
        train=_recipe(128, 0.1, 5e-4, (0.3, 0.6, 0.8), lr_decay=0.2, channels_last=True),
    ),
}


def _topology(topology) -> tuple[str, dict]:
    key = str(topology).upper() if isinstance(topology, str) else topology
    if key not in REGIME_TOPOLOGIES:
        raise ValueError(f"topology must be one of {sorted(REGIME_TOPOLOGIES)}; got {topology!r}")
    return key, REGIME_TOPOLOGIES[key]


def regime_network(topology: str, *, in_channels: int = 1, n_classes: int = 10, image_size: int = 28) -> nn.Module:
    """The network of `topology` in :data:`REGIME_TOPOLOGIES`, freshly initialised from torch's generator.

    The deep topologies get a stride-2 stem: the first 3×3 convolution of the family's network is
    replaced by one with stride 2 (He-normal, fan-out, as the rest of the network).

    Examples
    --------
    >>> torch.manual_seed(0) and None
    >>> net = regime_network("DSN100")
    >>> net(torch.zeros(2, 1, 28, 28)).shape, count_parameters(net)
    (torch.Size([2, 10]), 175690)
    """
    _, spec = _topology(topology)
    net = build_topology(
        spec["family"], in_channels=in_channels, n_classes=n_classes, image_size=image_size, **spec["model"]
    )
    if spec["stem_stride"] != 1:
        old = net.body[0]
        net.body[0] = nn.Conv2d(old.in_channels, old.out_channels, 3, stride=spec["stem_stride"], padding=1, bias=False)
        nn.init.kaiming_normal_(net.body[0].weight, mode="fan_out", nonlinearity="relu")
    return net


def regime_split(labels, *, per_class_train: int = 450, n_val: int = 5000, seed: int = 0) -> tuple:
    """Indices of a stratified training part (`per_class_train` per class) and validation part.

    Within each class the indices are permuted with ``numpy.random.default_rng(seed)`` (classes in
    increasing order); the first `per_class_train` go to training, the next ``n_val / K`` to validation.

    Parameters
    ----------
    labels : array-like of int, shape (N,)
        Labels of the data set's training split.
    per_class_train : int, default=450
        CIFAR-100's 45 000 training images over 100 classes.
    n_val : int, default=5000
        A multiple of the number of classes K.
    seed : int, default=0

    Returns
    -------
    train, val : numpy.ndarray of int64, sorted

    Examples
    --------
    >>> tr, va = regime_split(np.repeat([0, 1], 10), per_class_train=3, n_val=4, seed=0)
    >>> len(tr), len(va), np.bincount(np.repeat([0, 1], 10)[tr]).tolist(), len(set(tr) & set(va))
    (6, 4, [3, 3], 0)
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or not labels.size or not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0:
        raise ValueError(f"labels must be a non-empty 1-d array of non-negative ints; got shape {labels.shape}")
    per_class_train = check_positive_int(per_class_train, "per_class_train")
    n_val = check_positive_int(n_val, "n_val")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    classes = np.unique(labels)
    if n_val % len(classes):
        raise ValueError(f"n_val must be a multiple of the {len(classes)} classes; got {n_val}")
    per_val = n_val // len(classes)
    rng = np.random.default_rng(int(seed))
    train, val = [], []
    for c in classes:
        idx = rng.permutation(np.flatnonzero(labels == c))
        if len(idx) < per_class_train + per_val:
            raise ValueError(
                f"class {c} has {len(idx)} images, fewer than per_class_train + n_val / K = {per_class_train + per_val}"
            )
        train.append(idx[:per_class_train])
        val.append(idx[per_class_train : per_class_train + per_val])
    return np.sort(np.concatenate(train)).astype(np.int64), np.sort(np.concatenate(val)).astype(np.int64)


def _regime_data(dataset: str, per_class_train: int, n_val: int, n_test, split_seed: int):
    ds = load_dataset(dataset)
    tr, va = regime_split(ds.y_train, per_class_train=per_class_train, n_val=n_val, seed=split_seed)
    if n_test is None:
        te = np.arange(len(ds.y_test))
    else:
        n_test = check_positive_int(n_test, "n_test")
        te = np.sort(np.random.default_rng(int(split_seed)).choice(len(ds.y_test), n_test, replace=False))
    x_tr = ds.x_train[tr]
    mean = x_tr.mean(axis=(0, 2, 3), keepdims=True)
    std = x_tr.std(axis=(0, 2, 3), keepdims=True) + 1e-8

    def norm(x):
        return ((x - mean) / std).astype(np.float32)

    splits = {"train": (norm(x_tr), ds.y_train[tr]), "val": (norm(ds.x_train[va]), ds.y_train[va])}
    splits["test"] = (norm(ds.x_test[te]), ds.y_test[te])
    return ds, splits


def _training(spec: dict, epochs: int, train: Mapping | None) -> dict:
    kw = dict(spec["train"]) | dict(train or {})
    unknown = sorted(set(kw) - set(spec["train"]))
    if unknown:
        raise ValueError(f"train has unknown keys {unknown}; allowed: {sorted(spec['train'])}")
    fractions = kw.pop("milestone_fractions")
    kw["milestones"] = tuple(sorted({int(round(f * epochs)) for f in fractions} - {0}))
    return dict(epochs=epochs, **kw)


def regime_member(
    dataset: str = "fashion_mnist",
    topology: str = "LEN",
    *,
    seed: int = 0,
    per_class_train: int = 450,
    n_val: int = 5000,
    n_test: int | None = None,
    split_seed: int = 0,
    epochs: int = 100,
    train: dict | None = None,
    augment: bool = True,
    device: str = "auto",
    progress: bool = False,
) -> dict:
    """Train one member of `topology` in the CIFAR-100 regime; return its logits and its fit of the training part.

    The split is :func:`regime_split` of the data set's training images with `split_seed`; the test
    images are the data set's test split (`n_test` of them drawn with `split_seed`, all when None). Images
    are normalised per channel by the training part. The network (:func:`regime_network`) is initialised
    with ``torch.manual_seed(seed)`` and trained by :func:`credalbook.nn.fit` with `seed` for all `epochs`
    (no early stopping, no validation during training) with the topology's recipe, updated by `train`; a
    checkpoint after every epoch lets an interrupted member resume.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
    topology : {"LEN", "DSN100", "DSN121", "RSN"}, default="LEN"
    seed : int, default=0
    per_class_train, n_val : int
        See :func:`regime_split`.
    n_test : int or None, default=None
    split_seed : int, default=0
    epochs : int, default=100
    train : dict or None
        Updates of the recipe (keys of ``REGIME_TOPOLOGIES[topology]["train"]``).
    augment : bool, default=True
        Random crops after padding by 2 (4 at 32 × 32) and horizontal flips.
    device : str, default="auto"
        Not part of a record's parameters.
    progress : bool, default=False

    Returns
    -------
    dict
        ``logits_val``, ``logits_test`` (float32, (N, K)), ``y_val``, ``y_test`` (int64); on the training
        images, evaluated after training without augmentation, ``train_nll`` (mean negative log-likelihood),
        ``train_accuracy`` and ``train_confidence`` (mean top-label probability); ``history`` (per epoch:
        the training loss on the augmented batches, the learning rate, the time), ``seconds``,
        ``n_parameters`` and ``config``.

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and App. A.4.

    Examples
    --------
    >>> out = regime_member("fashion_mnist", "RSN", per_class_train=5, n_val=20, n_test=30, epochs=1,
    ...                     device="cpu")
    >>> out["logits_val"].shape, out["logits_test"].shape, out["n_parameters"], 0 <= out["train_accuracy"] <= 1
    ((20, 10), (30, 10), 691386, True)
    """
    key, spec = _topology(topology)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    epochs = check_positive_int(epochs, "epochs")
    if not isinstance(augment, bool):
        raise ValueError(f"augment must be a bool; got {augment!r}")
    recipe = _training(spec, epochs, train)
    args = dict(dataset=dataset, topology=key, seed=int(seed), per_class_train=per_class_train, n_val=n_val)
    args |= dict(n_test=n_test, split_seed=split_seed, augment=augment, **recipe)
    ds, data = _regime_data(dataset, per_class_train, n_val, n_test, split_seed)
    c, h, w = ds.image_shape
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        net = regime_network(key, in_channels=c, n_classes=ds.n_classes, image_size=h)
    result = fit(
        net,
        *data["train"],
        seed=int(seed),
        device=device,
        progress=progress,
        augment=PadCropFlip(padding=4 if h == 32 else 2, hflip=True) if augment else None,
        checkpoint=checkpoint_path("regime_member", args),
        **recipe,
    )
    out = {}
    for split, (x, y) in data.items():
        out[f"logits_{split}"] = predict_logits(result.model, x, device=device).astype(np.float32)
        out[f"y_{split}"] = np.asarray(y, dtype=np.int64)
    log_p = log_softmax(out.pop("logits_train").astype(np.float64), axis=1)
    y_tr = out.pop("y_train")
    out["train_nll"] = float(-log_p[np.arange(len(y_tr)), y_tr].mean())
    out["train_accuracy"] = float((log_p.argmax(axis=1) == y_tr).mean())
    out["train_confidence"] = float(np.exp(log_p.max(axis=1)).mean())
    config = dict(args, family=spec["family"], model=dict(spec["model"]), stem_stride=spec["stem_stride"])
    del config["seed"]
    return dict(
        out,
        history=list(result.history),
        seconds=float(result.seconds),
        n_parameters=count_parameters(net),
        config=config,
    )
