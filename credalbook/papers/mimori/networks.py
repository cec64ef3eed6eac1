"""The base networks of Mimori et al. (2022) on Mix data: architectures, training schedule and training (App. E.2-E.3).

* :func:`build_mix_network` — the three-conv network (grey images) or VGG (colour images);
* :func:`mix_training_settings` — the training schedule of App. E.3;
* :func:`train_mix_network` (cached) — the base network on the single-labelled training split of a Mix dataset.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from credalbook._validation import check_choice
from credalbook.cache import cached, checkpoint_path
from credalbook.calibration.alpha import PAPER_AUGMENTATIONS, RandomAugment
from credalbook.data.mix import make_mix_dataset, variable_label_counts
from credalbook.nn.training import fit
from credalbook.nn.vgg import ThreeConvNet, VGGNet

__all__ = [
    "AUTHORS_NETWORK",
    "MIX_AUGMENTATIONS",
    "STRONG_TTA_AUGMENT",
    "MixNetwork",
    "build_mix_network",
    "chapter_setting",
    "mix_training_settings",
    "train_mix_network",
]

#: The authors' three-conv network for Mix-MNIST: a dropout of rate 0.05 after each convolution block and a dense
#: ReLU layer of 128 units with dropout before the output (m1m0r1/lh_calib, ``lh_calib/networks.py``, l. 18-37,
#: ``build_simple_cnn``); ``arch_options`` of :func:`train_mix_network` for ``arch="threeconv"``.
AUTHORS_NETWORK = {"conv_dropout": 0.05, "hidden": 128}

#: The chapter's named setting for TTA with strong augmentation: the paper's Mix-CIFAR-10 augmentation (App. E.3:
#: rotations up to 180°, shifts up to 10 pixels, horizontal flips), used in training and at test time.
STRONG_TTA_AUGMENT = dict(PAPER_AUGMENTATIONS["mix_cifar10"])

#: Training / TTA augmentation per base dataset: the paper's for CIFAR-10, none for MNIST (no TTA,
#: as Table 4); Fashion-MNIST gets mild flips, shifts and rotations (our choice) so that TTA exists.
MIX_AUGMENTATIONS = {
    "mnist": None,
    "digits": None,
    "fashion_mnist": {"rotation": 10.0, "shift": 2.0, "hflip": True},
    "cifar10": PAPER_AUGMENTATIONS["mix_cifar10"],
}


@dataclass(frozen=True)
class MixNetwork:
    """A trained base network (state dict on the CPU) with its constructor settings and training record."""

    state_dict: dict = field(repr=False)
    arch: str
    arch_options: dict
    n_classes: int
    image_shape: tuple
    augment: dict | None
    history: list = field(repr=False)
    best_epoch: int
    epochs_run: int
    seconds: float

    def __reduce__(self):
        """Pickled by value with the weights as NumPy arrays. A torch tensor's pickle carries a serialization id that
        is new in every process, so :func:`joblib.hash` (the key of a cached call such as
        :func:`~credalbook.papers.mimori.mimori_predictions` ``(network=...)``) would differ from one process to the
        next and the cache would never be found again; the arrays' pickles are the same everywhere.

        Examples
        --------
        >>> import joblib, pickle
        >>> net = MixNetwork({"w": torch.arange(3.0)}, "threeconv", {}, 10, (1, 28, 28), None, [], 1, 1, 0.5)
        >>> pickle.dumps(net) == pickle.dumps(pickle.loads(pickle.dumps(net)))
        True
        >>> pickle.loads(pickle.dumps(net)).state_dict["w"]
        tensor([0., 1., 2.])
        """
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "state_dict"}
        weights = {k: v.detach().cpu().numpy() for k, v in self.state_dict.items()}
        return _mix_network_from_arrays, (weights, fields)

    def build(self) -> nn.Module:
        """The network with the trained weights, in eval mode."""
        model = build_mix_network(
            self.arch, n_classes=self.n_classes, image_shape=self.image_shape, **self.arch_options
        )
        model.load_state_dict(self.state_dict)
        return model.eval()


def _mix_network_from_arrays(weights: dict, fields: dict) -> MixNetwork:
    """The :class:`MixNetwork` that :meth:`MixNetwork.__reduce__` pickled: the weights back as CPU tensors."""
    return MixNetwork(state_dict={k: torch.from_numpy(np.array(v)) for k, v in weights.items()}, **fields)


def _resolve_arch(arch: str, image_shape: tuple) -> str:
    """``arch`` with "auto" made concrete: the three-conv network for one channel, VGG for colour images (App. E.2)."""
    if arch == "auto":
        return "threeconv" if image_shape[0] == 1 else "vgg"
    return check_choice(arch, "arch", {"threeconv", "vgg"})


def build_mix_network(arch: str = "auto", *, n_classes: int, image_shape: tuple, **options) -> nn.Module:
    """:class:`~credalbook.nn.ThreeConvNet` ("threeconv") or :class:`~credalbook.nn.VGGNet` ("vgg");
    "auto" picks the three-conv network for one channel and VGG for colour images (App. E.2).

    Examples
    --------
    >>> type(build_mix_network(n_classes=10, image_shape=(1, 28, 28))).__name__
    'ThreeConvNet'
    """
    c, h, w = image_shape
    cls = ThreeConvNet if _resolve_arch(arch, image_shape) == "threeconv" else VGGNet
    return cls(in_channels=c, n_classes=n_classes, image_size=(h, w), **options)


def mix_training_settings(image_shape: tuple, epochs: int | None = None) -> dict:
    """Training schedule of App. E.3: grey 28×28 data (Mix-MNIST) at most 100 epochs with patience 10; colour
    data (Mix-CIFAR-10) 250 epochs, 5 warm-up epochs, ×0.1 after epochs 100 and 150, best weights kept.
    A smaller `epochs` keeps the shape of the schedule (milestones at 40 % and 60 %).

    Examples
    --------
    >>> mix_training_settings((3, 32, 32), epochs=10)
    {'epochs': 10, 'patience': None, 'warmup_epochs': 1, 'milestones': (4, 6)}
    """
    if image_shape[0] == 1:
        return dict(epochs=100 if epochs is None else epochs, patience=10, warmup_epochs=0, milestones=())
    e = 250 if epochs is None else epochs
    return dict(epochs=e, patience=None, warmup_epochs=min(5, max(e // 10, 0)), milestones=(int(0.4 * e), int(0.6 * e)))


def _augment_options(dataset: str, augment):
    return MIX_AUGMENTATIONS.get(dataset) if isinstance(augment, str) and augment == "auto" else augment


def _mix(dataset, sizes, mix_fraction, n_labels_test, seed):
    return make_mix_dataset(
        dataset,
        sizes=None if sizes is None else tuple(sizes),
        mix_fraction=mix_fraction,
        n_labels_val=1,
        n_labels_test=n_labels_test,
        seed=seed,
    )


def _replicated_labels(mix, mean: float, seed: int) -> tuple:
    """Training images repeated once per label and their labels: each image's own label plus Poisson(mean − 1)
    draws from its Q (:func:`train_mix_network`, ``train_labels``)."""
    mean = float(mean)
    if not mean >= 1:
        raise ValueError(f"train_labels must be a mean number of labels of at least 1; got {mean}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 84]))
    n, k = len(mix.train.labels), mix.n_classes
    q = np.asarray(mix.train.true_probs, dtype=np.float64)
    extra = rng.multinomial(variable_label_counts(n, mean=mean, seed=rng) - 1, q / q.sum(axis=1, keepdims=True))
    hist = extra + np.eye(k, dtype=extra.dtype)[np.asarray(mix.train.labels)]
    counts = hist.sum(axis=1)
    labels = np.repeat(np.tile(np.arange(k), n), hist.ravel())
    return np.asarray(mix.train.images)[np.repeat(np.arange(n), counts)], labels.astype(
        np.asarray(mix.train.labels).dtype
    )


@cached(ignore=["device", "progress"])
def train_mix_network(
    dataset: str = "fashion_mnist",
    *,
    sizes=None,
    mix_fraction: float = 1 / 3,
    arch: str = "auto",
    arch_options=None,
    epochs: int | None = None,
    augment="auto",
    batch_size: int = 128,
    lr: float = 1e-3,
    n_labels_test: int = 10,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
    train_labels: float | None = None,
) -> MixNetwork:
    r"""Train the base network on the single-labelled training split of a Mix dataset (App. E.2-E.3; cached).

    Adam (lr 1e-3, batch 128) with the schedule of :func:`mix_training_settings`; the validation loss
    (one label per instance) picks the kept weights. `augment` ("auto": :data:`MIX_AUGMENTATIONS`, a
    dict of :class:`~credalbook.calibration.RandomAugment` options, or None) is applied to
    training batches. `sizes` = (train, validation, test) instances (None: the paper's). The training
    keeps a checkpoint (:func:`~credalbook.cache.checkpoint_path`) after every epoch, so an interrupted
    paper-scale run resumes where it stopped when the function is called again with the same arguments.

    `train_labels` = m (a mean number of labels, e.g. 5.79) trains on label histograms instead, the book's
    analogue of MDS-full (App. F.3: "all the multiple training labels per example were employed") on the
    variable-count Mix: each training image keeps its label and gets :math:`\mathrm{Poisson}(m - 1)` more drawn
    from its Q, and the training loop sees every (image, label) pair, the image repeated once per label — the
    multinomial NLL of Eq. 84 is the sum of the per-label cross-entropies, so this is the same loss (with minibatches
    over labels). Validation (early stopping) keeps one label per image.
    """
    ckpt = checkpoint_path("train_mix_network", {k: v for k, v in locals().items() if k not in ("device", "progress")})
    mix = _mix(dataset, sizes, mix_fraction, n_labels_test, seed)
    aug = _augment_options(dataset, augment)
    options = dict(arch_options or {})
    torch.manual_seed(seed)
    model = build_mix_network(arch, n_classes=mix.n_classes, image_shape=mix.image_shape, **options)
    settings = mix_training_settings(mix.image_shape, epochs)
    x_train, y_train = _replicated_labels(mix, train_labels, seed) if train_labels is not None else (None, None)
    result = fit(
        model,
        mix.train.images if x_train is None else x_train,
        mix.train.labels if y_train is None else y_train,
        x_val=mix.val.images,
        y_val=mix.val.labels,
        batch_size=batch_size,
        lr=lr,
        restore_best=True,
        augment=None if aug is None else RandomAugment(**aug),
        seed=seed,
        device=device,
        progress=progress,
        checkpoint=ckpt,
        **settings,
    )
    state = {k: v.detach().cpu().clone() for k, v in result.model.state_dict().items()}
    return MixNetwork(
        state,
        arch,
        options,
        mix.n_classes,
        mix.image_shape,
        aug,
        list(result.history),
        result.best_epoch,
        result.epochs_run,
        result.seconds,
    )


def chapter_setting(scale: str, *, dataset: str = "fashion_mnist", seed: int = 0, n_seeds: int | None = None) -> dict:
    """The chapter's network setting per scale: the paper's at ``"paper"``, the book's smaller one otherwise.

    ``"paper"``: for grey images the authors' network (:data:`AUTHORS_NETWORK`) without augmentation (App. E.3 uses
    none for Mix-MNIST; so no TTA in the main setting, as the paper's Table 4), with TTA decided in its own named
    setting (:data:`STRONG_TTA_AUGMENT`, one seed); colour images keep the paper's augmentation ("auto"); three
    seeds, so that the rows carry the variance of training. Other scales: the book's network ("auto" augmentation,
    mild for Fashion-MNIST so that TTA exists) and one seed.

    Returns
    -------
    dict
        ``arch_options`` (extra options of the three-conv network), ``augment`` (for :func:`train_mix_network`),
        ``seeds`` (tuple), ``tta_augment`` (the TTA setting's augmentation, or None for none).

    Examples
    --------
    >>> chapter_setting("paper")["seeds"], chapter_setting("tiny", seed=4)["seeds"]
    ((0, 1, 2), (4,))
    """
    scale = check_choice(scale, "scale", {"tiny", "quick", "paper"})
    paper = scale == "paper" and not str(dataset).startswith("cifar")
    n = (3 if scale == "paper" else 1) if n_seeds is None else n_seeds
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n_seeds must be a positive int or None; got {n_seeds!r}")
    return dict(
        arch_options=dict(AUTHORS_NETWORK) if paper else {},
        augment=None if paper else "auto",
        seeds=tuple(seed + i for i in range(n)),
        tta_augment=dict(STRONG_TTA_AUGMENT) if paper else None,
    )
