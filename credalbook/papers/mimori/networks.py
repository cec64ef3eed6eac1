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

from dataclasses import dataclass, field

import torch
from torch import nn

from credalbook._validation import check_choice
from credalbook.cache import cached, checkpoint_path
from credalbook.calibration.alpha import PAPER_AUGMENTATIONS, RandomAugment
from credalbook.data.mix import make_mix_dataset
from credalbook.nn.training import fit
from credalbook.nn.vgg import ThreeConvNet, VGGNet

__all__ = ["MIX_AUGMENTATIONS", "MixNetwork", "build_mix_network", "mix_training_settings", "train_mix_network"]

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

    def build(self) -> nn.Module:
        """The network with the trained weights, in eval mode."""
        model = build_mix_network(
            self.arch, n_classes=self.n_classes, image_shape=self.image_shape, **self.arch_options
        )
        model.load_state_dict(self.state_dict)
        return model.eval()


def build_mix_network(arch: str = "auto", *, n_classes: int, image_shape: tuple, **options) -> nn.Module:
    """:class:`~credalbook.nn.ThreeConvNet` ("threeconv") or :class:`~credalbook.nn.VGGNet` ("vgg");
    "auto" picks the three-conv network for one channel and VGG for colour images (App. E.2).

    Examples
    --------
    >>> type(build_mix_network(n_classes=10, image_shape=(1, 28, 28))).__name__
    'ThreeConvNet'
    """
    c, h, w = image_shape
    arch = ("threeconv" if c == 1 else "vgg") if arch == "auto" else check_choice(arch, "arch", {"threeconv", "vgg"})
    cls = ThreeConvNet if arch == "threeconv" else VGGNet
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
) -> MixNetwork:
    """Train the base network on the single-labelled training split of a Mix dataset (App. E.2-E.3; cached).

    Adam (lr 1e-3, batch 128) with the schedule of :func:`mix_training_settings`; the validation loss
    (one label per instance) picks the kept weights. `augment` ("auto": :data:`MIX_AUGMENTATIONS`, a
    dict of :class:`~credalbook.calibration.RandomAugment` options, or None) is applied to
    training batches. `sizes` = (train, validation, test) instances (None: the paper's). The training
    keeps a checkpoint (:func:`~credalbook.cache.checkpoint_path`) after every epoch, so an interrupted
    paper-scale run resumes where it stopped when the function is called again with the same arguments.
    """
    ckpt = checkpoint_path("train_mix_network", {k: v for k, v in locals().items() if k not in ("device", "progress")})
    mix = _mix(dataset, sizes, mix_fraction, n_labels_test, seed)
    aug = _augment_options(dataset, augment)
    options = dict(arch_options or {})
    torch.manual_seed(seed)
    model = build_mix_network(arch, n_classes=mix.n_classes, image_shape=mix.image_shape, **options)
    settings = mix_training_settings(mix.image_shape, epochs)
    result = fit(
        model,
        mix.train.images,
        mix.train.labels,
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
