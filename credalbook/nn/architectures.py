r"""The network topologies of Wu & Gales (2021): LeNet-5, DenseNet(-BC) and wide ResNets, and the CIFAR augmentation.

- **LEN**, LeNet-5 (LeCun et al. 1998): :class:`LeNet5`, about 62 k parameters;
- **DSN100**, DenseNet-BC with depth 100 and growth rate k = 12 (Huang et al. 2017), and
  **DSN121**, DenseNet-121 (k = 32, blocks of 6, 12, 24, 16 layers): :class:`DenseNet`,
  0.8 M and 7.0 M parameters (8.0 M with ImageNet's 1000-class output);
- **RSN**, wide ResNet 28-10 (Zagoruyko & Komodakis 2016): :class:`WideResNet`, 36.5 M.

Every network takes images (N, C, H, W) with C = 1 or 3 and H = W = 28 or 32, returns logits
from ``forward`` and exposes the penultimate representation through ``features(x)`` (width
``feature_dim``) and the output layer as ``head``, like :class:`credalbook.nn.SmallCNN`.
:func:`build_topology` builds one from a family name and keyword arguments; the sizes and training
recipes of the paper and the cached ensembles are in :mod:`credalbook.papers.wu_gales.topologies`.
:class:`PadCropFlip` is the random crop and flip of the CIFAR recipes.

References
----------
LeCun, Bottou, Bengio, Haffner. Gradient-based learning applied to document recognition. Proc.
IEEE 86(11), 1998.
Huang, Liu, van der Maaten, Weinberger. Densely connected convolutional networks. CVPR 2017.
Zagoruyko, Komodakis. Wide residual networks. BMVC 2016 (arXiv:1605.07146).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from credalbook._validation import check_positive_int
from credalbook.nn.models import _check_dropout, _check_input, _check_n_classes

__all__ = ["FAMILIES", "DenseNet", "LeNet5", "PadCropFlip", "WideResNet", "build_topology"]

_SIZES = (28, 32)


def _check_image(in_channels, image_size) -> tuple[int, int]:
    in_channels = check_positive_int(in_channels, "in_channels")
    if in_channels not in (1, 3):
        raise ValueError(f"in_channels must be 1 or 3; got {in_channels}")
    if isinstance(image_size, bool) or image_size not in _SIZES:
        raise ValueError(f"image_size must be 28 or 32; got {image_size!r}")
    return in_channels, int(image_size)


def _pooled_head(net: nn.Module, layers: list, width: int) -> None:
    """Finish a pre-activation network: BN-ReLU-global average pooling after `layers` (the
    ``width``-dimensional features, ``net.body``), a ``Linear(K)`` head, then :func:`_he_init`."""
    layers += [nn.BatchNorm2d(width), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
    net.body = nn.Sequential(*layers)
    net.head = nn.Linear(width, net.n_classes)
    net.feature_dim = width
    _he_init(net)


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
    >>> from credalbook.nn.models import count_parameters
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
            nn.Conv2d(self.in_channels, 6, 5, padding=pad),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 5 * 5, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
        )
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
            layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.Conv2d(c, 4 * growth, 1, bias=False)]
            c = 4 * growth
        layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.Conv2d(c, growth, 3, padding=1, bias=False)]
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
    >>> from credalbook.nn.models import count_parameters
    >>> count_parameters(DenseNet(depth=100, growth_rate=12))
    769162
    >>> net = DenseNet(in_channels=1, image_size=28, depth=10, growth_rate=4)
    >>> net(torch.zeros(2, 1, 28, 28)).shape, net.features(torch.zeros(2, 1, 28, 28)).shape
    (torch.Size([2, 10]), torch.Size([2, 9]))
    """

    def __init__(
        self,
        in_channels: int = 3,
        n_classes: int = 10,
        image_size: int = 32,
        *,
        depth: int = 100,
        growth_rate: int = 12,
        block_config: Sequence[int] | None = None,
        bottleneck: bool = True,
        compression: float = 0.5,
        init_channels: int | None = None,
        drop_rate: float = 0.0,
    ) -> None:
        super().__init__()
        self.in_channels, self.image_size = _check_image(in_channels, image_size)
        self.n_classes = _check_n_classes(n_classes)
        growth_rate = check_positive_int(growth_rate, "growth_rate")
        if not isinstance(bottleneck, bool):
            raise ValueError(f"bottleneck must be a bool; got {bottleneck!r}")
        if isinstance(compression, bool) or not isinstance(compression, (int, float)) or not 0 < compression <= 1:
            raise ValueError(f"compression must be a number in (0, 1]; got {compression!r}")
        drop_rate = _check_dropout(drop_rate)
        if block_config is None:
            depth = check_positive_int(depth, "depth")
            per = 6 if bottleneck else 3
            if depth < 4 + per or (depth - 4) % per:
                raise ValueError(
                    f"depth must be 4 + {per} n (n >= 1) for a "
                    f"{'bottleneck' if bottleneck else 'plain'} DenseNet; got {depth}"
                )
            block_config = (((depth - 4) // per),) * 3
        else:
            block_config = tuple(check_positive_int(b, "block_config") for b in block_config)
            if not block_config:
                raise ValueError("block_config must name at least one dense block; got ()")
        if 2 ** (len(block_config) - 1) > self.image_size:
            raise ValueError(f"{len(block_config)} dense blocks pool a {self.image_size}-pixel image below one pixel")
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
                layers += [
                    nn.BatchNorm2d(c),
                    nn.ReLU(inplace=True),
                    nn.Conv2d(c, c_out, 1, bias=False),
                    nn.AvgPool2d(2),
                ]
                c = c_out
        _pooled_head(self, layers, c)


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
        self.shortcut = None if c_in == c_out and stride == 1 else nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False)

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
    >>> from credalbook.nn.models import count_parameters
    >>> count_parameters(WideResNet(depth=28, widen_factor=10))
    36479194
    >>> net = WideResNet(in_channels=1, image_size=28, depth=10, widen_factor=1)
    >>> net(torch.zeros(2, 1, 28, 28)).shape, net.feature_dim
    (torch.Size([2, 10]), 64)
    """

    def __init__(
        self,
        in_channels: int = 3,
        n_classes: int = 10,
        image_size: int = 32,
        *,
        depth: int = 28,
        widen_factor: int = 10,
        drop_rate: float = 0.0,
    ) -> None:
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
        self.depth, self.widen_factor = depth, widen_factor
        _pooled_head(self, layers, c)


#: Network families by name (the ``family`` of a topology specification).
FAMILIES = {"lenet5": LeNet5, "densenet": DenseNet, "wide_resnet": WideResNet}


def build_topology(family: str, *, in_channels: int, n_classes: int, image_size: int, **kwargs) -> nn.Module:
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
    return FAMILIES[family](in_channels=in_channels, n_classes=n_classes, image_size=image_size, **kwargs)


# ------------------------------------------------------------------------------ augmentation
class PadCropFlip:
    """Random crop after zero padding, and random horizontal flip (the CIFAR augmentation).

    Every image of a batch (N, C, H, W) is padded by `padding` pixels of 0 on each side, cropped
    back to H × W at a uniformly drawn integer offset and, with probability 1/2 when `hflip`,
    mirrored left-right. Offsets and flips are drawn from torch's global CPU generator (which
    :func:`credalbook.nn.fit` seeds), so runs repeat on any device. The data are normalised
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
            raise ValueError(
                f"x must be a tensor of shape (N, C, H, W); got {type(x).__name__} {tuple(getattr(x, 'shape', ()))}"
            )
        n, c, h, w = x.shape
        if self.padding:
            p = self.padding
            padded = F.pad(x, (p, p, p, p))
            dy = torch.randint(0, 2 * p + 1, (n,)).to(x.device)
            dx = torch.randint(0, 2 * p + 1, (n,)).to(x.device)
            rows = (dy[:, None] + torch.arange(h, device=x.device))[:, None, :, None]
            cols = (dx[:, None] + torch.arange(w, device=x.device))[:, None, None, :]
            x = padded[
                torch.arange(n, device=x.device)[:, None, None, None],
                torch.arange(c, device=x.device)[None, :, None, None],
                rows,
                cols,
            ]
        if self.hflip:
            flip = (torch.rand(n) < 0.5).to(x.device)[:, None, None, None]
            x = torch.where(flip, x.flip(-1), x)
        return x
