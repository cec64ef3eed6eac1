r"""The network topologies of Wu & Gales (2021) and cached ensembles of them on stored logits.

The paper's ensembles (Sec. 4.3, App. A.4) combine ten members of each of four topologies trained
on CIFAR-100 (and CIFAR-10) "following the original training recipes in each paper":

- **LEN**, LeNet-5 (LeCun et al. 1998): :class:`LeNet5`, about 62 k parameters;
- **DSN100**, DenseNet-BC with depth 100 and growth rate k = 12 (Huang et al. 2017), and
  **DSN121**, DenseNet-121 (k = 32, blocks of 6, 12, 24, 16 layers): :class:`DenseNet`,
  0.8 M and 7.0 M parameters (8.0 M with ImageNet's 1000-class output);
- **RSN**, wide ResNet 28-10 (Zagoruyko & Komodakis 2016): :class:`WideResNet`, 36.5 M.

Every network takes images (N, C, H, W) with C = 1 or 3 and H = W = 28 or 32, returns logits
from ``forward`` and exposes the penultimate representation through ``features(x)`` (width
``feature_dim``) and the output layer as ``head``, like :class:`credalbook.models.SmallCNN`.
:func:`build_topology` builds one from a family name and keyword arguments; :data:`PAPER_TOPOLOGIES`
holds the paper's sizes and training recipes and :data:`QUICK_TOPOLOGIES` scaled-down
counterparts that train on a CPU.

:func:`topology_ensemble_logits` trains the members of one topology from different seeds with
:func:`credalbook.training.fit` on a common train / validation split (the paper holds out 5 000 of
the 50 000 CIFAR training images, 10 %) and returns their logits on the validation and test sets,
shape (N, M, K): the stored predictions the ensemble calibrators of
:mod:`credalbook.ensemble_temperature` and the combination weights of
:mod:`credalbook.ensemble_combination` work on. Each member is cached on disk
(:func:`credalbook.cache.cached`) keyed by its full configuration, so a larger ensemble reuses the
members already trained.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4.3, App. A.4.
LeCun, Bottou, Bengio, Haffner. Gradient-based learning applied to document recognition. Proc.
IEEE 86(11), 1998.
Huang, Liu, van der Maaten, Weinberger. Densely connected convolutional networks. CVPR 2017.
Zagoruyko, Komodakis. Wide residual networks. BMVC 2016 (arXiv:1605.07146).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from scipy.special import softmax
from torch import nn

from credalbook._validation import check_positive_int
from credalbook.cache import cached, checkpoint_path
from credalbook.device import resolve_device
from credalbook.data import load_dataset, train_val_test_split
from credalbook.models import _check_dropout, _check_input, _check_n_classes, count_parameters
from credalbook.training import fit, predict_logits

__all__ = [
    "FAMILIES",
    "PAPER_TOPOLOGIES",
    "QUICK_TOPOLOGIES",
    "DenseNet",
    "LeNet5",
    "PadCropFlip",
    "TopologyEnsemble",
    "WideResNet",
    "build_topology",
    "resolve_network_scale",
    "topology_ensemble_logits",
    "topology_member_logits",
]

_SIZES = (28, 32)


def _check_image(in_channels, image_size) -> tuple[int, int]:
    in_channels = check_positive_int(in_channels, "in_channels")
    if in_channels not in (1, 3):
        raise ValueError(f"in_channels must be 1 or 3; got {in_channels}")
    if isinstance(image_size, bool) or image_size not in _SIZES:
        raise ValueError(f"image_size must be 28 or 32; got {image_size!r}")
    return in_channels, int(image_size)


def _he_init(module: nn.Module) -> None:
    """He-normal convolutions (fan-out), unit batch-norm scales, zero biases (both papers' code)."""
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)


class _Network(nn.Module):
    """``forward(x) = head(features(x))`` with an input-shape check."""

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Penultimate representation, shape (N, feature_dim)."""
        _check_input(x, self.in_channels, (self.image_size, self.image_size))
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_classes)."""
        return self.head(self.features(x))


# ------------------------------------------------------------------------------------ LeNet-5
class LeNet5(_Network):
    """LeNet-5 (LeCun et al. 1998) with ReLU and max pooling.

    ``Conv(6, 5×5) → ReLU → MaxPool(2) → Conv(16, 5×5) → ReLU → MaxPool(2) → Linear(120) → ReLU
    → Linear(84) → ReLU`` (the features, 84-d) and a ``Linear(K)`` head. A 28×28 input is
    zero-padded by 2 in the first convolution so that both sizes reach the 16×5×5 map of the
    original 32×32 design: 61 706 parameters for one channel and ten classes (the published
    "60 000"), 62 006 for CIFAR-10 and 69 656 for CIFAR-100. The 1998 network used scaled tanh
    units, trainable sub-sampling and a sparse C3 table; ReLU and max pooling are the usual
    modern reading (the paper does not say which variant it trained).

    Parameters
    ----------
    in_channels : {1, 3}, default=3
    n_classes : int, default=10
    image_size : {28, 32}, default=32

    References
    ----------
    LeCun et al. (1998), Sec. II.B. Wu & Gales (2021), Sec. 4.3 ("LEN").

    Examples
    --------
    >>> net = LeNet5(in_channels=1, image_size=28)
    >>> net(torch.zeros(2, 1, 28, 28)).shape, net.feature_dim, count_parameters(net)
    (torch.Size([2, 10]), 84, 61706)
    """

    def __init__(self, in_channels: int = 3, n_classes: int = 10, image_size: int = 32) -> None:
        super().__init__()
        self.in_channels, self.image_size = _check_image(in_channels, image_size)
        self.n_classes = _check_n_classes(n_classes)
        pad = (32 - self.image_size) // 2
        self.body = nn.Sequential(
            nn.Conv2d(self.in_channels, 6, 5, padding=pad), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU())
        self.head = nn.Linear(84, self.n_classes)
        self.feature_dim = 84


# ----------------------------------------------------------------------------------- DenseNet
class _DenseLayer(nn.Module):
    """BN-ReLU-Conv(1×1, 4k) [bottleneck] - BN-ReLU-Conv(3×3, k), output concatenated to input."""

    def __init__(self, c_in: int, growth: int, bottleneck: bool, drop_rate: float) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        c = c_in
        if bottleneck:
            layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                       nn.Conv2d(c, 4 * growth, 1, bias=False)]
            c = 4 * growth
        layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                   nn.Conv2d(c, growth, 3, padding=1, bias=False)]
        if drop_rate > 0:
            layers.append(nn.Dropout(drop_rate))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, self.layers(x)], dim=1)


class DenseNet(_Network):
    r"""DenseNet for 28×28 / 32×32 images (Huang et al. 2017), BC variant by default.

    A 3×3 stem convolution with ``init_channels`` outputs, dense blocks of ``block_config[i]``
    layers (each adds k = `growth_rate` channels: BN-ReLU-Conv1×1(4k)-BN-ReLU-Conv3×3(k) with
    `bottleneck`, else BN-ReLU-Conv3×3(k)), between blocks a transition BN-ReLU-Conv1×1 that
    keeps :math:`\lfloor\theta c\rfloor` of the c channels (θ = `compression`) and a 2×2
    average pooling, then BN-ReLU-global average pooling (the features) and a ``Linear(K)`` head.

    Without `block_config` there are three blocks of :math:`n = (L - 4) / 6` bottleneck layers
    (or :math:`(L - 4)/3` plain ones) for depth L, the CIFAR design of the paper: depth 100,
    k = 12 gives DenseNet-BC-100 (0.77 M parameters on CIFAR-10, the published 0.8 M). DenseNet-121
    is ``block_config=(6, 12, 24, 16), growth_rate=32`` (6.96 M on CIFAR-10; 7.98 M with a 1000-class
    head, the published 8.0 M); its ImageNet stem (7×7 convolution with stride 2 and max pooling)
    is replaced by the 3×3 stem for small images, as in common CIFAR ports.

    Parameters
    ----------
    in_channels : {1, 3}, default=3
    n_classes : int, default=10
    image_size : {28, 32}, default=32
    depth : int, default=100
        L; used when `block_config` is None.
    growth_rate : int, default=12
        k.
    block_config : sequence of int or None, default=None
        Layers per dense block.
    bottleneck : bool, default=True
    compression : float in (0, 1], default=0.5
        θ (0.5 for "BC", 1 for plain DenseNet).
    init_channels : int or None, default=None
        Stem width; None gives 2k (16 for plain DenseNets, as in Huang et al.).
    drop_rate : float, default=0.0
        Dropout after every 3×3 convolution (0.2 in Huang et al. without data augmentation).

    References
    ----------
    Huang et al. (2017), Sec. 3 and Table 1. Wu & Gales (2021), Sec. 4.3 ("DSN100", "DSN121").

    Examples
    --------
    >>> count_parameters(DenseNet(depth=100, growth_rate=12))
    769162
    >>> net = DenseNet(in_channels=1, image_size=28, depth=10, growth_rate=4)
    >>> net(torch.zeros(2, 1, 28, 28)).shape, net.features(torch.zeros(2, 1, 28, 28)).shape
    (torch.Size([2, 10]), torch.Size([2, 9]))
    """

    def __init__(self, in_channels: int = 3, n_classes: int = 10, image_size: int = 32, *,
                 depth: int = 100, growth_rate: int = 12, block_config: Sequence[int] | None = None,
                 bottleneck: bool = True, compression: float = 0.5,
                 init_channels: int | None = None, drop_rate: float = 0.0) -> None:
        super().__init__()
        self.in_channels, self.image_size = _check_image(in_channels, image_size)
        self.n_classes = _check_n_classes(n_classes)
        growth_rate = check_positive_int(growth_rate, "growth_rate")
        if not isinstance(bottleneck, bool):
            raise ValueError(f"bottleneck must be a bool; got {bottleneck!r}")
        if isinstance(compression, bool) or not isinstance(compression, (int, float)) \
                or not 0 < compression <= 1:
            raise ValueError(f"compression must be a number in (0, 1]; got {compression!r}")
        drop_rate = _check_dropout(drop_rate)
        if block_config is None:
            depth = check_positive_int(depth, "depth")
            per = 6 if bottleneck else 3
            if depth < 4 + per or (depth - 4) % per:
                raise ValueError(f"depth must be 4 + {per} n (n >= 1) for a "
                                 f"{'bottleneck' if bottleneck else 'plain'} DenseNet; got {depth}")
            block_config = (((depth - 4) // per),) * 3
        else:
            block_config = tuple(check_positive_int(b, "block_config") for b in block_config)
            if not block_config:
                raise ValueError("block_config must name at least one dense block; got ()")
        if 2 ** (len(block_config) - 1) > self.image_size:
            raise ValueError(f"{len(block_config)} dense blocks pool a {self.image_size}-pixel "
                             "image below one pixel")
        if init_channels is None:
            init_channels = 2 * growth_rate if bottleneck or compression < 1 else 16
        c = check_positive_int(init_channels, "init_channels")
        self.block_config, self.growth_rate = block_config, growth_rate
        layers: list[nn.Module] = [nn.Conv2d(self.in_channels, c, 3, padding=1, bias=False)]
        for i, n_layers in enumerate(block_config):
            for _ in range(n_layers):
                layers.append(_DenseLayer(c, growth_rate, bottleneck, drop_rate))
                c += growth_rate
            if i < len(block_config) - 1:
                c_out = int(math.floor(compression * c))
                layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                           nn.Conv2d(c, c_out, 1, bias=False), nn.AvgPool2d(2)]
                c = c_out
        layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
                   nn.Flatten()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c, self.n_classes)
        self.feature_dim = c
        _he_init(self)


# ------------------------------------------------------------------------------ Wide ResNet
class _WideBlock(nn.Module):
    """Pre-activation basic block: BN-ReLU-Conv3×3-[Dropout]-BN-ReLU-Conv3×3 plus the shortcut."""

    def __init__(self, c_in: int, c_out: int, stride: int, drop_rate: float) -> None:
        super().__init__()
        self.bn1 = nn.BatchNorm2d(c_in)
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.drop = nn.Dropout(drop_rate) if drop_rate > 0 else nn.Identity()
        self.shortcut = None if c_in == c_out and stride == 1 else \
            nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(self.drop(F.relu(self.bn2(y))))
        return y + (x if self.shortcut is None else self.shortcut(o))


class WideResNet(_Network):
    r"""Wide residual network WRN-d-w (Zagoruyko & Komodakis 2016).

    A 3×3 stem convolution with 16 channels, three groups of :math:`n = (d - 4)/6` pre-activation
    basic blocks with :math:`16w, 32w, 64w` channels (the first block of groups 2 and 3 has stride
    2; a 1×1 convolution adapts the shortcut when the shape changes), then BN-ReLU-global average
    pooling (the features, 64w-d) and a ``Linear(K)`` head. WRN-28-10 has 36.5 M parameters on
    CIFAR-10 (the published 36.5 M).

    Parameters
    ----------
    in_channels : {1, 3}, default=3
    n_classes : int, default=10
    image_size : {28, 32}, default=32
    depth : int, default=28
        d = 6 n + 4.
    widen_factor : int, default=10
        w.
    drop_rate : float, default=0.0
        Dropout between the two convolutions of a block (0.3 in some of the WRN paper's runs).

    References
    ----------
    Zagoruyko & Komodakis (2016), Sec. 2 and Table 1. Wu & Gales (2021), Sec. 4.3 ("RSN").

    Examples
    --------
    >>> count_parameters(WideResNet(depth=28, widen_factor=10))
    36479194
    >>> net = WideResNet(in_channels=1, image_size=28, depth=10, widen_factor=1)
    >>> net(torch.zeros(2, 1, 28, 28)).shape, net.feature_dim
    (torch.Size([2, 10]), 64)
    """

    def __init__(self, in_channels: int = 3, n_classes: int = 10, image_size: int = 32, *,
                 depth: int = 28, widen_factor: int = 10, drop_rate: float = 0.0) -> None:
        super().__init__()
        self.in_channels, self.image_size = _check_image(in_channels, image_size)
        self.n_classes = _check_n_classes(n_classes)
        depth = check_positive_int(depth, "depth")
        if depth < 10 or (depth - 4) % 6:
            raise ValueError(f"depth must be 6 n + 4 with n >= 1; got {depth}")
        widen_factor = check_positive_int(widen_factor, "widen_factor")
        drop_rate = _check_dropout(drop_rate)
        n = (depth - 4) // 6
        widths = (16 * widen_factor, 32 * widen_factor, 64 * widen_factor)
        layers: list[nn.Module] = [nn.Conv2d(self.in_channels, 16, 3, padding=1, bias=False)]
        c = 16
        for g, width in enumerate(widths):
            for b in range(n):
                layers.append(_WideBlock(c, width, 2 if g > 0 and b == 0 else 1, drop_rate))
                c = width
        layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
                   nn.Flatten()]
        self.depth, self.widen_factor = depth, widen_factor
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c, self.n_classes)
        self.feature_dim = c
        _he_init(self)


#: Network families by name (the ``family`` of a topology specification).
FAMILIES = {"lenet5": LeNet5, "densenet": DenseNet, "wide_resnet": WideResNet}


def build_topology(family: str, *, in_channels: int, n_classes: int, image_size: int,
                   **kwargs) -> nn.Module:
    """A network of `family` (a key of :data:`FAMILIES`) for the given images and classes.

    Examples
    --------
    >>> net = build_topology("wide_resnet", in_channels=3, n_classes=100, image_size=32,
    ...                      depth=10, widen_factor=1)
    >>> type(net).__name__, net(torch.zeros(1, 3, 32, 32)).shape
    ('WideResNet', torch.Size([1, 100]))
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}; got {family!r}")
    return FAMILIES[family](in_channels=in_channels, n_classes=n_classes, image_size=image_size,
                            **kwargs)


# ------------------------------------------------------------------------------ augmentation
class PadCropFlip:
    """Random crop after zero padding, and random horizontal flip (the CIFAR augmentation).

    Every image of a batch (N, C, H, W) is padded by `padding` pixels of 0 on each side, cropped
    back to H × W at a uniformly drawn integer offset and, with probability 1/2 when `hflip`,
    mirrored left-right. Offsets and flips are drawn from torch's global CPU generator (which
    :func:`credalbook.training.fit` seeds), so runs repeat on any device. The data are normalised
    before, so the padding has the mean colour.

    Parameters
    ----------
    padding : int, default=4
    hflip : bool, default=True

    References
    ----------
    Huang et al. (2017), Sec. 4.1; Zagoruyko & Komodakis (2016), Sec. 3; Wu & Gales (2021),
    App. A.4 ("random cropping and horizontal flipping").

    Examples
    --------
    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> out = PadCropFlip(padding=1, hflip=False)(x)
    >>> out.shape, bool(torch.equal(PadCropFlip(padding=0, hflip=False)(x), x))
    (torch.Size([1, 1, 4, 4]), True)
    """

    def __init__(self, padding: int = 4, hflip: bool = True) -> None:
        if isinstance(padding, bool) or not isinstance(padding, (int, np.integer)) or padding < 0:
            raise ValueError(f"padding must be a non-negative int; got {padding!r}")
        if not isinstance(hflip, bool):
            raise ValueError(f"hflip must be a bool; got {hflip!r}")
        self.padding, self.hflip = int(padding), hflip

    def __repr__(self) -> str:
        return f"PadCropFlip(padding={self.padding}, hflip={self.hflip})"

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if not isinstance(x, torch.Tensor) or x.ndim != 4:
            raise ValueError(f"x must be a tensor of shape (N, C, H, W); got "
                             f"{type(x).__name__} {tuple(getattr(x, 'shape', ()))}")
        n, c, h, w = x.shape
        if self.padding:
            p = self.padding
            padded = F.pad(x, (p, p, p, p))
            dy = torch.randint(0, 2 * p + 1, (n,)).to(x.device)
            dx = torch.randint(0, 2 * p + 1, (n,)).to(x.device)
            rows = (dy[:, None] + torch.arange(h, device=x.device))[:, None, :, None]
            cols = (dx[:, None] + torch.arange(w, device=x.device))[:, None, None, :]
            x = padded[torch.arange(n, device=x.device)[:, None, None, None],
                       torch.arange(c, device=x.device)[None, :, None, None], rows, cols]
        if self.hflip:
            flip = (torch.rand(n) < 0.5).to(x.device)[:, None, None, None]
            x = torch.where(flip, x.flip(-1), x)
        return x


# ----------------------------------------------------------------------- paper and quick sizes
def _recipe(epochs, batch_size, lr, weight_decay, milestones=(), lr_decay=0.1, momentum=0.9):
    return dict(epochs=epochs, batch_size=batch_size, optimizer="sgd", lr=lr, momentum=momentum,
                weight_decay=weight_decay, milestones=tuple(milestones), lr_decay=lr_decay)


#: The paper's topologies (Sec. 4.3, App. A.4) with their original training recipes: DenseNets
#: (Huang et al. 2017, Sec. 4.2) SGD with Nesterov momentum 0.9, batch 64, 300 epochs, lr 0.1
#: divided by 10 at 50 % and 75 % of training, weight decay 1e-4; WRN-28-10 (Zagoruyko &
#: Komodakis 2016, Sec. 3) SGD with Nesterov momentum 0.9, batch 128, 200 epochs, lr 0.1 times 0.2
#: at epochs 60, 120, 160, weight decay 5e-4, no dropout. Assumptions where the papers are silent:
#: DenseNet-121 (an ImageNet design) gets the CIFAR DenseNet recipe; LeNet-5 has no CIFAR recipe,
#: ours is SGD, momentum 0.9, batch 128, 100 epochs, lr 0.01 divided by 10 at epochs 50 and 75.
#: Nesterov momentum is replaced by plain momentum (:func:`credalbook.training.fit` has none).
PAPER_TOPOLOGIES = {
    "LEN": dict(family="lenet5", model={}, train=_recipe(100, 128, 0.01, 5e-4, (50, 75))),
    "DSN100": dict(family="densenet", model=dict(depth=100, growth_rate=12),
                   train=_recipe(300, 64, 0.1, 1e-4, (150, 225))),
    "DSN121": dict(family="densenet", model=dict(block_config=(6, 12, 24, 16), growth_rate=32),
                   train=_recipe(300, 64, 0.1, 1e-4, (150, 225))),
    "RSN": dict(family="wide_resnet", model=dict(depth=28, widen_factor=10),
                train=_recipe(200, 128, 0.1, 5e-4, (60, 120, 160), lr_decay=0.2)),
}

#: Scaled-down counterparts that train on a CPU (same families, schedule shapes, fewer epochs):
#: LeNet-5 unchanged (62 k parameters); DenseNet-BC-16 with k = 8 for DSN100 (20 k); a four-block
#: DenseNet-BC (1, 2, 4, 3) with k = 6 for DSN121 (20 k); WRN-10-1 for RSN (78 k). On one thread of
#: a busy 2-core CPU (load average 4-5) an epoch over 10 000 Fashion-MNIST images took 2-4 s (LEN),
#: 26-32 s (DSN100), 20-24 s (DSN121) and 21-23 s (RSN).
QUICK_TOPOLOGIES = {
    "LEN": dict(family="lenet5", model={}, train=_recipe(20, 128, 0.05, 5e-4, (10, 15))),
    "DSN100": dict(family="densenet", model=dict(depth=16, growth_rate=8),
                   train=_recipe(10, 64, 0.1, 1e-4, (5, 8))),
    "DSN121": dict(family="densenet", model=dict(block_config=(1, 2, 4, 3), growth_rate=6),
                   train=_recipe(10, 64, 0.1, 1e-4, (5, 8))),
    "RSN": dict(family="wide_resnet", model=dict(depth=10, widen_factor=1),
                train=_recipe(10, 128, 0.1, 5e-4, (3, 6, 8), lr_decay=0.2)),
}

_SCALES = {"paper": PAPER_TOPOLOGIES, "quick": QUICK_TOPOLOGIES}


def resolve_network_scale(networks: str = "auto", *, default: str = "paper", device="auto") -> str:
    """Which topology sizes a run trains: ``"paper"`` (:data:`PAPER_TOPOLOGIES`) or ``"quick"``.

    ``networks="paper"`` or ``"quick"`` is taken as given. ``"auto"`` gives `default` (the
    chapter preset's choice), except that the paper's networks become the CPU-sized family
    (:data:`QUICK_TOPOLOGIES`, trained with its full recipe) when `device` resolves to the CPU:
    the paper's 40 networks (DenseNet-BC-100/121 and WRN-28-10 for 200-300 epochs) take days of
    GPU time and would not finish on a CPU, so a paper-scale run there keeps the paper's protocol
    (members, runs, data, regions) with networks that train.

    Examples
    --------
    >>> resolve_network_scale("auto", default="paper", device="cpu")
    'quick'
    >>> resolve_network_scale("paper", device="cpu"), resolve_network_scale("auto", default="quick")
    ('paper', 'quick')
    """
    if networks not in ("auto", *_SCALES):
        raise ValueError(f"networks must be 'auto', 'paper' or 'quick'; got {networks!r}")
    if default not in _SCALES:
        raise ValueError(f"default must be 'paper' or 'quick'; got {default!r}")
    if networks != "auto":
        return networks
    if default == "paper" and resolve_device(device).type == "cpu":
        return "quick"
    return default
_TRAIN_KEYS = ("epochs", "batch_size", "optimizer", "lr", "momentum", "weight_decay",
               "milestones", "lr_decay", "warmup_epochs")


def _resolve(topology: str, scale: str, model: Mapping | None, train: Mapping | None) -> dict:
    """Family, model keyword arguments and training settings of `topology` at `scale`."""
    if scale not in _SCALES:
        raise ValueError(f"scale must be one of {sorted(_SCALES)}; got {scale!r}")
    table = _SCALES[scale]
    key = str(topology).upper()
    if key not in table:
        raise ValueError(f"topology must be one of {sorted(table)}; got {topology!r}")
    spec = table[key]
    model_kw = dict(spec["model"]) | dict(model or {})
    train_kw = dict(spec["train"]) | dict(train or {})
    unknown = sorted(set(train_kw) - set(_TRAIN_KEYS))
    if unknown:
        raise ValueError(f"train has unknown keys {unknown}; allowed: {list(_TRAIN_KEYS)}")
    return dict(topology=key, family=spec["family"], model=model_kw, train=train_kw)


# ---------------------------------------------------------------------------------- ensembles
@dataclass(frozen=True, eq=False)
class TopologyEnsemble:
    """Logits of M members of one topology on a validation and a test set.

    Attributes
    ----------
    logits_val : numpy.ndarray, shape (N_val, M, K), float32
    y_val : numpy.ndarray, shape (N_val,), int64
    logits_test : numpy.ndarray, shape (N_test, M, K), float32
    y_test : numpy.ndarray, shape (N_test,), int64
    topology : str
        Key of :data:`PAPER_TOPOLOGIES`: ``"LEN"``, ``"DSN100"``, ``"DSN121"`` or ``"RSN"``.
    seeds : tuple of int
        Member m was initialised and trained with ``seeds[m]``.
    histories : tuple of list
        Per-epoch records of :func:`credalbook.training.fit`, one per member.
    seconds : numpy.ndarray, shape (M,)
        Training time of each member.
    n_parameters : int
    config : dict
        Dataset, sizes, split, the resolved model and training settings.

    Examples
    --------
    >>> z = np.zeros((3, 2, 4), dtype=np.float32)
    >>> ens = TopologyEnsemble(z, np.array([0, 1, 2]), z, np.array([3, 2, 1]), "LEN", (0, 1),
    ...                        ([], []), np.zeros(2), 61706, {})
    >>> ens
    TopologyEnsemble(topology='LEN', n_members=2, n_val=3, n_test=3, n_classes=4)
    >>> ens.ens_probs_test.shape, float(ens.probs_val[0, 0])
    ((3, 2, 4), 0.25)
    """

    logits_val: np.ndarray = field(repr=False)
    y_val: np.ndarray = field(repr=False)
    logits_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    topology: str
    seeds: tuple
    histories: tuple = field(repr=False)
    seconds: np.ndarray = field(repr=False)
    n_parameters: int
    config: dict = field(repr=False)

    @property
    def n_members(self) -> int:
        return int(self.logits_val.shape[1])

    @property
    def n_classes(self) -> int:
        return int(self.logits_val.shape[2])

    @property
    def ens_probs_val(self) -> np.ndarray:
        """Member probabilities on the validation set, (N_val, M, K), float64."""
        return softmax(self.logits_val.astype(np.float64), axis=2)

    @property
    def ens_probs_test(self) -> np.ndarray:
        """Member probabilities on the test set, (N_test, M, K), float64."""
        return softmax(self.logits_test.astype(np.float64), axis=2)

    @property
    def probs_val(self) -> np.ndarray:
        """Uniform ensemble average on the validation set (Eq. 17), (N_val, K)."""
        return self.ens_probs_val.mean(axis=1)

    @property
    def probs_test(self) -> np.ndarray:
        """Uniform ensemble average on the test set (Eq. 17), (N_test, K)."""
        return self.ens_probs_test.mean(axis=1)

    def __repr__(self) -> str:
        return (f"TopologyEnsemble(topology={self.topology!r}, n_members={self.n_members}, "
                f"n_val={len(self.y_val)}, n_test={len(self.y_test)}, n_classes={self.n_classes})")


def _prepared_data(dataset: str, n_train, n_test, val_fraction: float, split_seed: int):
    """Subsample, split train/validation (stratified) and normalise per channel by the train part."""
    ds = load_dataset(dataset)
    if n_train is not None or n_test is not None:
        ds = ds.subsample(n_train, n_test, seed=split_seed)
    tr, va, _ = train_val_test_split(len(ds.y_train), val_fraction=val_fraction, seed=split_seed,
                                     stratify=ds.y_train)
    x_tr = ds.x_train[tr]
    mean = x_tr.mean(axis=(0, 2, 3), keepdims=True)
    std = x_tr.std(axis=(0, 2, 3), keepdims=True) + 1e-8

    def norm(x):
        return ((x - mean) / std).astype(np.float32)

    return ds, norm(x_tr), ds.y_train[tr], norm(ds.x_train[va]), ds.y_train[va], norm(ds.x_test)


@cached(ignore=["device", "progress"])
def topology_member_logits(
    dataset: str = "fashion_mnist",
    topology: str = "LEN",
    *,
    seed: int = 0,
    scale: str = "quick",
    model: dict | None = None,
    train: dict | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    val_fraction: float = 0.1,
    split_seed: int = 0,
    augment: bool = True,
    device: str = "auto",
    progress: bool = True,
) -> dict:
    """Train one member of a topology ensemble and return its validation and test logits.

    The cached unit of :func:`topology_ensemble_logits` (same arguments, one `seed`). Returns a
    dict with ``logits_val``, ``y_val``, ``logits_test``, ``y_test`` (float32 logits), ``history``,
    ``seconds``, ``n_parameters`` and ``config``. The training keeps a checkpoint after every epoch
    (:func:`~credalbook.cache.checkpoint_path`), so a member whose training was interrupted (days of
    GPU time at paper scale) resumes where it stopped when called again with the same arguments.

    Examples
    --------
    >>> import os, tempfile
    >>> from credalbook.cache import clear_cache
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> out = topology_member_logits("fashion_mnist", "RSN", seed=3, n_train=200, n_test=50,
    ...                              train=dict(epochs=1), device="cpu", progress=False)
    >>> out["logits_val"].shape, out["logits_test"].shape, out["n_parameters"]
    ((20, 10), (50, 10), 77562)
    >>> clear_cache()
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    ckpt = checkpoint_path("topology_member", {k: v for k, v in locals().items() if k not in ("device", "progress")})
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    spec = _resolve(topology, scale, model, train)
    ds, x_tr, y_tr, x_va, y_va, x_te = _prepared_data(dataset, n_train, n_test, val_fraction,
                                                      split_seed)
    c, h, w = ds.image_shape
    if h != w:
        raise ValueError(f"images must be square; got {h}x{w}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        net = build_topology(spec["family"], in_channels=c, n_classes=ds.n_classes, image_size=h,
                             **spec["model"])
    aug = PadCropFlip(padding=4 if h == 32 else 2, hflip=True) if augment else None
    result = fit(net, x_tr, y_tr, x_val=x_va, y_val=y_va, seed=int(seed), device=device,
                 progress=progress, augment=aug, checkpoint=ckpt, **spec["train"])
    config = dict(dataset=dataset, scale=scale, n_train=n_train, n_test=n_test,
                  val_fraction=val_fraction, split_seed=split_seed, augment=augment, **spec)
    return dict(
        logits_val=predict_logits(result.model, x_va, device=device).astype(np.float32),
        y_val=np.asarray(y_va, dtype=np.int64),
        logits_test=predict_logits(result.model, x_te, device=device).astype(np.float32),
        y_test=np.asarray(ds.y_test, dtype=np.int64),
        history=list(result.history),
        seconds=float(result.seconds),
        n_parameters=count_parameters(net),
        config=config,
    )


def topology_ensemble_logits(
    dataset: str = "fashion_mnist",
    topology: str = "LEN",
    *,
    n_members: int | None = None,
    seeds: Sequence[int] | None = None,
    epochs: int | None = None,
    scale: str = "quick",
    model: dict | None = None,
    train: dict | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    val_fraction: float = 0.1,
    split_seed: int = 0,
    augment: bool = True,
    device: str = "auto",
    progress: bool = True,
) -> TopologyEnsemble:
    r"""Train M members of one topology from different seeds; return their stored logits.

    The training images (subsampled to `n_train` with `split_seed`) are split, stratified by
    label with `split_seed`, into a training part and a validation part of `val_fraction` (the
    paper's 5 000 of 50 000 CIFAR images, 10 %, App. A.4), identical for all members and
    topologies of the same dataset, sizes and `split_seed`; the test set is the dataset's own
    (subsampled to `n_test`). Images are normalised per channel by the training part's mean and
    standard deviation and, with `augment`, randomly cropped after padding (4 pixels at 32×32,
    2 at 28×28) and flipped left-right (:class:`PadCropFlip`). Member m is the network of
    :data:`PAPER_TOPOLOGIES` / :data:`QUICK_TOPOLOGIES` (by `scale`, updated by `model`),
    initialised with ``torch.manual_seed(seeds[m])`` and trained by
    :func:`credalbook.training.fit` with seed ``seeds[m]`` and the scale's recipe (updated by
    `train` and `epochs`); its prediction is
    :math:`P(\omega \mid x; \theta^{(m)}) = \operatorname{softmax}(z^{(m)}(x))`. Every member is
    cached on disk by :func:`topology_member_logits`, keyed by its full configuration.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
        A name in :data:`credalbook.data.DATASETS` with 28×28 or 32×32 images (Fashion-MNIST,
        MNIST, ``"cifar10"``/``"cifar100"`` when the CIFAR files are supplied).
    topology : {"LEN", "DSN100", "DSN121", "RSN"}, default="LEN"
    n_members : int or None, default=None
        M; None gives ``len(seeds)``, or 10 (the paper's) without `seeds`.
    seeds : sequence of int or None, default=None
        Member seeds; None gives ``0, ..., M - 1``.
    epochs : int or None, default=None
        Overrides the recipe's epochs (milestones beyond it never trigger).
    scale : {"quick", "paper"}, default="quick"
    model, train : dict or None
        Updates of the model's keyword arguments and of the training settings (``epochs``,
        ``batch_size``, ``optimizer``, ``lr``, ``momentum``, ``weight_decay``, ``milestones``,
        ``lr_decay``, ``warmup_epochs``).
    n_train, n_test : int or None
        Subsample sizes of the training and test splits (all when None).
    val_fraction : float, default=0.1
    split_seed : int, default=0
    augment : bool, default=True
    device : str, default="auto"
        See :func:`credalbook.resolve_device`; not part of the cache key.
    progress : bool, default=True
        Not part of the cache key.

    Returns
    -------
    TopologyEnsemble

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and App. A.4.

    Examples
    --------
    >>> import os, tempfile
    >>> from credalbook.cache import clear_cache
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> ens = topology_ensemble_logits("fashion_mnist", "LEN", n_members=2, epochs=1,
    ...                                n_train=300, n_test=100, device="cpu", progress=False)
    >>> ens
    TopologyEnsemble(topology='LEN', n_members=2, n_val=30, n_test=100, n_classes=10)
    >>> clear_cache()
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    if seeds is None:
        m = 10 if n_members is None else check_positive_int(n_members, "n_members")
        seeds = tuple(range(m))
    else:
        seeds = tuple(seeds)
        if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0
                            for s in seeds):
            raise ValueError(f"seeds must be a non-empty sequence of non-negative ints; got {seeds!r}")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct; got {seeds!r}")
        if n_members is not None and check_positive_int(n_members, "n_members") != len(seeds):
            raise ValueError(f"n_members={n_members} does not match the {len(seeds)} seeds")
    seeds = tuple(int(s) for s in seeds)
    train = dict(train or {})
    if epochs is not None:
        train["epochs"] = check_positive_int(epochs, "epochs")
    _resolve(topology, scale, model, train)  # fail before any training
    members = [topology_member_logits(dataset, topology, seed=s, scale=scale, model=model,
                                      train=train or None, n_train=n_train, n_test=n_test,
                                      val_fraction=val_fraction, split_seed=split_seed,
                                      augment=augment, device=device, progress=progress)
               for s in seeds]
    config = dict(members[0]["config"])
    return TopologyEnsemble(
        logits_val=np.stack([m["logits_val"] for m in members], axis=1),
        y_val=members[0]["y_val"],
        logits_test=np.stack([m["logits_test"] for m in members], axis=1),
        y_test=members[0]["y_test"],
        topology=config["topology"],
        seeds=seeds,
        histories=tuple(m["history"] for m in members),
        seconds=np.array([m["seconds"] for m in members]),
        n_parameters=int(members[0]["n_parameters"]),
        config=config,
    )
