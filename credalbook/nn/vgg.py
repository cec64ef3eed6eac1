"""The image networks of Mimori et al. (2022), App. E.2: :class:`ThreeConvNet` (Mix-MNIST,
Mix-Fashion-MNIST) and the VGG16-style :class:`VGGNet` (Mix-CIFAR-10).

Like the networks of :mod:`credalbook.nn.models` they take image batches (N, C, H, W), return logits
(N, K) from ``forward`` and expose the penultimate representation through ``features(x)`` (width
``feature_dim``), so the α-calibration heads of :mod:`credalbook.calibration.alpha` and the
MC-dropout samplers work on them. Weights start from Keras's defaults (Glorot-uniform, zero biases),
and max pooling uses TensorFlow's "same" padding, as in the paper's implementation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from credalbook._validation import check_positive_int
from credalbook.nn.models import _check_dropout, _check_input, _check_n_classes

__all__ = ["ThreeConvNet", "VGG16_LAYERS", "VGGNet"]


class _SameMaxPool2d(nn.Module):
    """Max pooling with stride = kernel and TensorFlow's "same" padding: ceil(size / kernel)
    outputs, the padding (by -inf) split as evenly as possible with the extra pixel at the end."""

    def __init__(self, kernel_size: int) -> None:
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = self.kernel_size
        pads = []
        for size in (x.shape[-1], x.shape[-2]):  # F.pad order: width first, then height
            total = max(-(-size // k) * k - size, 0)
            pads += [total // 2, total - total // 2]
        if any(pads):
            x = nn.functional.pad(x, pads, value=float("-inf"))
        return nn.functional.max_pool2d(x, k)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, padding='same'"


def _keras_init(module: nn.Module) -> None:
    """Glorot-uniform weights and zero biases (the Keras defaults the paper's networks used)."""
    for m in module.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.xavier_uniform_(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


def _image_size(image_size, min_size: int) -> tuple[int, int]:
    if isinstance(image_size, (int, np.integer)) and not isinstance(image_size, bool):
        size = (int(image_size), int(image_size))
    else:
        try:
            size = tuple(int(s) for s in image_size)
        except TypeError:
            size = ()
    if len(size) != 2 or min(size) < min_size:
        raise ValueError(
            f"image_size must be an int or (height, width) of at least {min_size} pixels; got {image_size!r}"
        )
    return size


class ThreeConvNet(nn.Module):
    """The three-convolution network of Mimori et al. (2022) for Mix-MNIST (App. E.2).

    ``Conv(32, 5×5) → ReLU → MaxPool(2×2, same) → Conv(64, 7×7) → ReLU → MaxPool(4×4, same)
    → Conv(128, 11×11) → ReLU → GlobalAvgPool → Dropout(0.5)`` (the features, 128-d) and a
    ``Linear(K)`` head; convolutions use "same" padding (with "valid" padding the 11×11
    convolution would not fit a 28×28 input). The authors' code adds a dropout of rate 0.05 after
    each convolution block and a dense ReLU layer of 128 units before the output
    (m1m0r1/lh_calib@7a40ddf, ``lh_calib/networks.py``, l. 6-37, ``build_simple_cnn``); set
    `conv_dropout` (after each convolution block) and `hidden=128` for that variant, which
    then ends ``… → GlobalAvgPool → Dropout(0.5) → Linear(128) → ReLU → Dropout(0.5)``.
    Weights start Glorot-uniform with zero biases (Keras defaults). About 1.09 M parameters.

    Parameters
    ----------
    in_channels : int, default=1
    n_classes : int, default=10
    image_size : int or (int, int), default=28
        Checked in ``forward``; global pooling makes the parameters independent of it.
    channels : (int, int, int), default=(32, 64, 128)
    kernel_sizes : (int, int, int), default=(5, 7, 11)
        Odd kernel sizes.
    pool_sizes : (int, int), default=(2, 4)
        Max-pooling windows after the first two convolutions.
    dropout : float, default=0.5
        Dropout before the output layer (and after the dense layer when `hidden` is set); the
        dropout that :func:`mc_dropout_predict` samples.
    conv_dropout : float, default=0.0
    hidden : int or None, default=None
        Width of an extra dense ReLU layer (128 in the authors' code); None as in the paper.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. E.2 ("Mix-MNIST").

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> from credalbook.nn.models import count_parameters
    >>> net = ThreeConvNet()
    >>> x = torch.rand(2, 1, 28, 28)
    >>> net(x).shape, net.features(x).shape, count_parameters(net)
    (torch.Size([2, 10]), torch.Size([2, 128]), 1093898)
    """

    def __init__(
        self,
        in_channels: int = 1,
        n_classes: int = 10,
        image_size: int | tuple[int, int] = 28,
        channels: Sequence[int] = (32, 64, 128),
        kernel_sizes: Sequence[int] = (5, 7, 11),
        pool_sizes: Sequence[int] = (2, 4),
        dropout: float = 0.5,
        conv_dropout: float = 0.0,
        hidden: int | None = None,
    ) -> None:
        super().__init__()
        in_channels = check_positive_int(in_channels, "in_channels")
        n_classes = _check_n_classes(n_classes)
        channels = tuple(check_positive_int(c, "channels") for c in channels)
        kernel_sizes = tuple(check_positive_int(k, "kernel_sizes") for k in kernel_sizes)
        pool_sizes = tuple(check_positive_int(p, "pool_sizes") for p in pool_sizes)
        if len(channels) != 3 or len(kernel_sizes) != 3 or len(pool_sizes) != 2:
            raise ValueError(
                f"channels and kernel_sizes must have 3 entries and pool_sizes 2; got "
                f"{channels}, {kernel_sizes}, {pool_sizes}"
            )
        if any(k % 2 == 0 for k in kernel_sizes):
            raise ValueError(f"kernel_sizes must be odd for 'same' padding; got {kernel_sizes}")
        dropout, conv_dropout = _check_dropout(dropout), _check_dropout(conv_dropout)
        if hidden is not None:
            hidden = check_positive_int(hidden, "hidden")
        self.in_channels, self.n_classes = in_channels, n_classes
        self.image_size = _image_size(image_size, 1)

        layers: list[nn.Module] = []
        c_in = in_channels
        for i, (c, k) in enumerate(zip(channels, kernel_sizes)):
            layers += [nn.Conv2d(c_in, c, kernel_size=k, padding="same"), nn.ReLU()]
            if i < 2:
                layers.append(_SameMaxPool2d(pool_sizes[i]))
            if conv_dropout > 0:
                layers.append(nn.Dropout(conv_dropout))
            c_in = c
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(dropout)]
        if hidden is not None:
            layers += [nn.Linear(c_in, hidden), nn.ReLU(), nn.Dropout(dropout)]
            c_in = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c_in, n_classes)
        self.feature_dim = c_in
        _keras_init(self)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Penultimate representation after the last dropout, shape (N, feature_dim)."""
        _check_input(x, self.in_channels, self.image_size)
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_classes)."""
        return self.head(self.features(x))


#: VGG16's convolution stack: output channels of 3×3 convolutions, "M" for 2×2 max pooling.
VGG16_LAYERS = (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M")


class VGGNet(nn.Module):
    """VGG16-style network for 32×32 colour images (Mix-CIFAR-10 of Mimori et al. 2022, App. E.2).

    VGG16 without its fully connected layers (3×3 "same" convolutions with ReLU, 2×2 max
    pooling per :data:`VGG16_LAYERS`) ending with a global max pooling to 512 values, then
    ``Dropout(0.5) → Linear(128) → ReLU → Dropout(0.5)`` (the features, 128-d) and a
    ``Linear(K)`` head. Weights start Glorot-uniform with zero biases (Keras defaults); the
    paper trained from scratch. About 14.8 M parameters.

    Parameters
    ----------
    in_channels : int, default=3
    n_classes : int, default=10
    image_size : int or (int, int), default=32
        At least 2 ** (number of "M" entries) pixels.
    layers : sequence of int or "M", default=VGG16_LAYERS
        A smaller stack gives a quick variant, e.g. ``(16, "M", 32, "M")``.
    hidden : int, default=128
    dropout : float, default=0.5
    batch_norm : bool, default=False
        Add batch normalisation after every convolution (not in the paper).

    References
    ----------
    Simonyan & Zisserman (2015), Very deep convolutional networks for large-scale image
    recognition, ICLR (configuration D). Mimori et al. (2022), Diagnostic Uncertainty
    Calibration, App. E.2 ("Mix-CIFAR-10 and MDS").

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> from credalbook.nn.models import count_parameters
    >>> count_parameters(VGGNet())
    14781642
    >>> net = VGGNet(layers=(8, "M", 16, "M"), hidden=12)
    >>> x = torch.rand(2, 3, 32, 32)
    >>> net(x).shape, net.features(x).shape
    (torch.Size([2, 10]), torch.Size([2, 12]))
    """

    def __init__(
        self,
        in_channels: int = 3,
        n_classes: int = 10,
        image_size: int | tuple[int, int] = 32,
        layers: Sequence = VGG16_LAYERS,
        hidden: int = 128,
        dropout: float = 0.5,
        batch_norm: bool = False,
    ) -> None:
        super().__init__()
        in_channels = check_positive_int(in_channels, "in_channels")
        n_classes = _check_n_classes(n_classes)
        layers = tuple(layers)
        if not any(v != "M" for v in layers):
            raise ValueError(f"layers must contain at least one convolution; got {layers!r}")
        layers = tuple(v if v == "M" else check_positive_int(v, "layers") for v in layers)
        hidden = check_positive_int(hidden, "hidden")
        dropout = _check_dropout(dropout)
        self.in_channels, self.n_classes = in_channels, n_classes
        self.image_size = _image_size(image_size, 2 ** layers.count("M"))

        convs: list[nn.Module] = []
        c_in = in_channels
        for v in layers:
            if v == "M":
                convs.append(nn.MaxPool2d(2))
                continue
            convs.append(nn.Conv2d(c_in, v, kernel_size=3, padding=1))
            if batch_norm:
                convs.append(nn.BatchNorm2d(v))
            convs.append(nn.ReLU())
            c_in = v
        convs += [nn.AdaptiveMaxPool2d(1), nn.Flatten()]
        self.conv = nn.Sequential(*convs)
        self.dense = nn.Sequential(nn.Dropout(dropout), nn.Linear(c_in, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(hidden, n_classes)
        self.feature_dim = hidden
        _keras_init(self)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Penultimate representation after the last dropout, shape (N, hidden)."""
        _check_input(x, self.in_channels, self.image_size)
        return self.dense(self.conv(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_classes)."""
        return self.head(self.features(x))
