"""Small torch classifiers and Monte-Carlo dropout prediction.

The chapters need a few compact networks that train in seconds on a CPU at the "quick"
scale and at full size on a GPU: a multi-layer perceptron (:class:`MLP`) and a small
convolutional net (:class:`SmallCNN`). Both take image batches of shape (N, C, H, W),
return logits (N, K) from ``forward`` and expose the penultimate representation through
``features(x)`` (used by heads trained on frozen features, e.g. the α-calibration head of
Mimori et al. 2022 or the combiner of Jürgens et al. 2025), whose width is ``feature_dim``.

:func:`mc_dropout_predict` turns any network with dropout layers into a set of M
classifiers: it keeps only the dropout modules stochastic and stacks the softmax outputs
of ``n_samples`` passes into ``ens_probs`` of shape (N, M, K) (Gal & Ghahramani 2016).
The networks of Mimori et al. (2022) are in :mod:`credalbook.nn.vgg` and those of
Wu & Gales (2021) in :mod:`credalbook.nn.architectures`; both use the input checks here.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from credalbook._validation import check_positive_int
from credalbook.nn.device import resolve_device

__all__ = [
    "MLP",
    "SmallCNN",
    "as_float_tensor",
    "as_label_tensor",
    "check_feature_network",
    "count_parameters",
    "dropout_modules",
    "mc_dropout_predict",
    "stochastic_predict",
]

_ACTIVATIONS = {
    "relu": nn.ReLU,
    "leaky_relu": nn.LeakyReLU,
    "gelu": nn.GELU,
    "elu": nn.ELU,
    "silu": nn.SiLU,
    "tanh": nn.Tanh,
}


# ---------------------------------------------------------------------------------------
# input checks shared by the training loop, the predictors and credalbook.calibration
# ---------------------------------------------------------------------------------------
def _from_numpy(arr: np.ndarray, dtype) -> torch.Tensor:
    """``torch.from_numpy`` that copies read-only arrays (the dataset loaders return those)."""
    arr = np.ascontiguousarray(arr, dtype=dtype)
    return torch.from_numpy(arr if arr.flags.writeable else arr.copy())


def _converted(x, name: str, what: str, kinds: str, dtype) -> torch.Tensor:
    """`x` as a tensor of `dtype` if its dtype kind is one of `kinds` (numpy's letters), else ValueError."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        kind = "b" if t.dtype == torch.bool else "c" if t.is_complex() else "f" if t.is_floating_point() else "i"
        if kind not in kinds:
            raise ValueError(f"{name} must hold {what}; got dtype {t.dtype}")
        return t.to(torch.float32 if dtype == np.float32 else torch.int64)
    arr = np.asarray(x)
    if arr.dtype.kind not in kinds:
        raise ValueError(f"{name} must hold {what}; got dtype {arr.dtype}")
    return _from_numpy(arr, dtype)


def as_float_tensor(x, name: str) -> torch.Tensor:
    """Return `x` (array-like or tensor, shape (N, ...)) as a float32 tensor (no device move).

    Raises ``ValueError`` naming `name` for non-real, empty, non-finite or 1-d inputs.

    Examples
    --------
    >>> as_float_tensor(np.zeros((2, 3), dtype=int), "x").dtype
    torch.float32
    """
    t = _converted(x, name, "real numbers", "fiu", np.float32)
    if t.ndim < 2:
        raise ValueError(f"{name} must have shape (N, ...) with at least 2 dimensions; got shape {tuple(t.shape)}")
    if t.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one instance; got shape {tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} contains NaN or infinite values")
    return t


def as_label_tensor(y, name: str) -> torch.Tensor:
    """Return integer labels (N,) as an int64 tensor; negative labels are rejected.

    Examples
    --------
    >>> as_label_tensor([0, 2, 1], "y")
    tensor([0, 2, 1])
    """
    t = _converted(y, name, "integer class labels", "iu", np.int64)
    if t.ndim != 1:
        raise ValueError(f"{name} must have shape (N,); got shape {tuple(t.shape)}")
    if t.numel() and int(t.min()) < 0:
        raise ValueError(f"{name} must be labels in [0, K); found label {int(t.min())}")
    return t


def _check_n_classes(n_classes) -> int:
    n_classes = check_positive_int(n_classes, "n_classes")
    if n_classes < 2:
        raise ValueError(f"n_classes must be at least 2; got {n_classes}")
    return n_classes


def _check_widths(widths, name: str) -> tuple:
    """Layer widths: an int or a sequence of positive ints -> tuple of int."""
    if isinstance(widths, (int, np.integer)):
        widths = (int(widths),)
    return tuple(check_positive_int(w, name) for w in widths)


def _check_dropout(dropout) -> float:
    if not isinstance(dropout, (int, float, np.floating)) or not 0.0 <= float(dropout) < 1.0:
        raise ValueError(f"dropout must be a probability in [0, 1); got {dropout!r}")
    return float(dropout)


# ---------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------
class MLP(nn.Module):
    """Multi-layer perceptron that flattens its input.

    ``Flatten → [Linear → activation → Dropout] × len(hidden) → Linear``. Dropout layers
    are only created when ``dropout > 0``.

    Parameters
    ----------
    in_features : int
        Number of input features after flattening, e.g. ``C * H * W`` for images.
    n_classes : int
        Number of classes K (size of the logits).
    hidden : sequence of int, default=(256,)
        Widths of the hidden layers; ``()`` gives multinomial logistic regression.
    dropout : float, default=0.0
        Dropout probability after every hidden activation.
    activation : {"relu", "leaky_relu", "gelu", "elu", "silu", "tanh"}, default="relu"
        Non-linearity of the hidden layers.

    Attributes
    ----------
    feature_dim : int
        Width of ``features(x)``: the last hidden width, or `in_features` without hidden layers.

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> net = MLP(64, 10, hidden=(32,), dropout=0.5)
    >>> x = torch.rand(5, 1, 8, 8)
    >>> net(x).shape, net.features(x).shape
    (torch.Size([5, 10]), torch.Size([5, 32]))
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        hidden: Sequence[int] = (256,),
        dropout: float = 0.0,
        activation: str = "relu",
    ) -> None:
        super().__init__()
        in_features = check_positive_int(in_features, "in_features")
        n_classes = _check_n_classes(n_classes)
        hidden = _check_widths(hidden, "hidden")
        dropout = _check_dropout(dropout)
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}; got {activation!r}")
        self.in_features = in_features
        self.n_classes = n_classes
        layers: list[nn.Module] = [nn.Flatten()]
        width = in_features
        for h in hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[activation]()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            width = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, n_classes)
        self.feature_dim = width

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Penultimate representation, shape (N, feature_dim)."""
        n_in = int(np.prod(x.shape[1:])) if x.ndim > 1 else 1
        if x.ndim < 2 or n_in != self.in_features:
            raise ValueError(
                f"x must have shape (N, ...) with {self.in_features} features after "
                f"flattening; got shape {tuple(x.shape)}"
            )
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_classes)."""
        return self.head(self.features(x))


class SmallCNN(nn.Module):
    """Compact convolutional classifier for small images (MNIST-, digits- or CIFAR-sized).

    One block per entry of `channels`: ``Conv2d(3×3, padding 1) → ReLU → MaxPool2d(2)``;
    then ``Dropout → AdaptiveAvgPool2d(3×3) → Flatten → Linear(hidden) → ReLU → Dropout``
    (the features) and ``Linear(n_classes)`` (the head). The adaptive pooling makes the
    parameter count independent of the image size: about 94k parameters with the defaults.

    Parameters
    ----------
    in_channels : int, default=1
        Number of input channels C.
    n_classes : int, default=10
        Number of classes K.
    image_size : int or (int, int), default=28
        Height and width of the inputs; checked in ``forward``. Must be at least
        ``2 ** len(channels)`` so that every pooling step has something to pool.
    channels : sequence of int, default=(32, 64)
        Output channels of the convolution blocks.
    hidden : int, default=128
        Width of the dense layer before the output (``feature_dim``).
    dropout : float, default=0.0
        Dropout probability after the convolutions and after the dense layer.

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> net = SmallCNN(in_channels=1, n_classes=10, image_size=8, channels=(8, 16), hidden=32)
    >>> x = torch.rand(4, 1, 8, 8)
    >>> net(x).shape, net.features(x).shape
    (torch.Size([4, 10]), torch.Size([4, 32]))
    >>> count_parameters(SmallCNN())
    93962
    """

    _POOLED = 3

    def __init__(
        self,
        in_channels: int = 1,
        n_classes: int = 10,
        image_size: int | tuple[int, int] = 28,
        channels: Sequence[int] = (32, 64),
        hidden: int = 128,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        in_channels = check_positive_int(in_channels, "in_channels")
        n_classes = _check_n_classes(n_classes)
        channels = _check_widths(channels, "channels")
        if not channels:
            raise ValueError("channels must name at least one convolution block; got ()")
        hidden = check_positive_int(hidden, "hidden")
        dropout = _check_dropout(dropout)
        if isinstance(image_size, (int, np.integer)):
            size = (int(image_size), int(image_size))
        else:
            size = tuple(int(s) for s in image_size)
        min_size = 2 ** len(channels)
        if len(size) != 2 or min(size) < min_size:
            raise ValueError(
                f"image_size must be an int or (height, width) of at least {min_size} pixels "
                f"for {len(channels)} pooling blocks; got {image_size!r}"
            )
        self.in_channels = in_channels
        self.n_classes = n_classes
        self.image_size = size
        self.feature_dim = hidden

        blocks: list[nn.Module] = []
        c_in = in_channels
        for c in channels:
            blocks += [nn.Conv2d(c_in, c, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
            c_in = c
        if dropout > 0:
            blocks.append(nn.Dropout(dropout))
        self.conv = nn.Sequential(*blocks)
        dense: list[nn.Module] = [
            nn.AdaptiveAvgPool2d(self._POOLED),
            nn.Flatten(),
            nn.Linear(c_in * self._POOLED**2, hidden),
            nn.ReLU(),
        ]
        if dropout > 0:
            dense.append(nn.Dropout(dropout))
        self.dense = nn.Sequential(*dense)
        self.head = nn.Linear(hidden, n_classes)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """Penultimate representation, shape (N, hidden)."""
        expected = (self.in_channels, *self.image_size)
        if x.ndim != 4 or tuple(x.shape[1:]) != expected:
            raise ValueError(
                f"x must have shape (N, {expected[0]}, {expected[1]}, {expected[2]}); got shape {tuple(x.shape)}"
            )
        return self.dense(self.conv(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits, shape (N, n_classes)."""
        return self.head(self.features(x))


# ---------------------------------------------------------------------------------------
# utilities
# ---------------------------------------------------------------------------------------
def count_parameters(model: nn.Module, *, trainable_only: bool = False) -> int:
    """Number of scalar parameters of `model`.

    Parameters
    ----------
    model : torch.nn.Module
    trainable_only : bool, default=False
        Count only parameters with ``requires_grad``.

    Returns
    -------
    int

    Examples
    --------
    >>> count_parameters(MLP(4, 3, hidden=(5,)))  # (4*5 + 5) + (5*3 + 3)
    43
    """
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def dropout_modules(model: nn.Module) -> list[nn.Module]:
    """The dropout modules of `model` (``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``, ...), in order.

    Examples
    --------
    >>> len(dropout_modules(MLP(4, 3, hidden=(5, 5), dropout=0.1)))
    2
    """
    # _DropoutNd is the common base of Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout
    return [m for m in model.modules() if isinstance(m, nn.modules.dropout._DropoutNd)]


def check_feature_network(model) -> None:
    """Raise ``ValueError`` unless `model` is a module with ``features(x)`` and ``head`` (logits = head(features(x)))."""
    if (
        not isinstance(model, nn.Module)
        or not callable(getattr(model, "features", None))
        or not isinstance(getattr(model, "head", None), nn.Module)
    ):
        raise ValueError(
            "model must be a torch.nn.Module with a features(x) method and a head "
            f"module (logits = head(features(x))); got {type(model).__name__}"
        )


def stochastic_predict(
    model: nn.Module,
    x,
    *,
    n_samples: int = 20,
    perturb=None,
    stochastic_dropout: bool = True,
    batch_size: int = 1024,
    device: str | torch.device = "auto",
    seed: int | None = None,
    return_features: bool = False,
):
    """`n_samples` stochastic passes per batch: the one engine of MC dropout and test-time augmentation.

    All modules are in eval mode; with `stochastic_dropout` the dropout modules stay in train mode
    (MC dropout), and `perturb` (a callable on an input batch tensor, or None) transforms the inputs
    of every pass (test-time augmentation). Batches are taken in order and, within a batch, the
    `n_samples` passes one after the other, all drawing from torch's global RNG (seeded by `seed`
    inside a forked RNG state, so the caller's state is untouched; ``None`` uses the global RNG).
    Module modes are restored and the model is moved to `device`.

    Returns
    -------
    probs : numpy.ndarray, shape (N, n_samples, K), float64
    features : numpy.ndarray, shape (N, n_samples, D), float64
        Only with `return_features` (the model then needs ``features(x)`` and ``head``).

    Examples
    --------
    >>> _ = torch.manual_seed(0)
    >>> net = MLP(4, 3, hidden=(8,), dropout=0.5)
    >>> probs, feats = stochastic_predict(net, torch.rand(5, 4), n_samples=6, device="cpu", seed=0,
    ...                                   return_features=True)
    >>> probs.shape, feats.shape
    ((5, 6, 3), (5, 6, 8))
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    batch_size = check_positive_int(batch_size, "batch_size")
    if seed is not None:
        seed = check_positive_int(seed, "seed", minimum=0, maximum=2**64 - 1)  # torch's seed range; no bools
    if return_features:
        check_feature_network(model)
    elif not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    dev = resolve_device(device)
    if perturb is not None and not callable(perturb):
        raise ValueError(f"perturb must be a callable or None; got {perturb!r}")
    xt = as_float_tensor(x, "x")
    modes = {m: m.training for m in model.modules()}
    model.to(dev)
    model.eval()
    if stochastic_dropout:
        for m in dropout_modules(model):
            m.train()
    fork = [dev.index if dev.index is not None else torch.cuda.current_device()] if dev.type == "cuda" else []
    probs, feats = [], []
    try:
        with torch.random.fork_rng(devices=fork, enabled=seed is not None), torch.no_grad():
            if seed is not None:
                torch.manual_seed(int(seed))
            for start in range(0, xt.shape[0], batch_size):
                xb = xt[start : start + batch_size].to(dev, non_blocking=True)
                p_b, f_b = [], []
                for _ in range(n_samples):
                    inp = perturb(xb) if perturb is not None else xb
                    if return_features:
                        h = model.features(inp)
                        logits = model.head(h)
                        f_b.append(h.to(torch.float64).cpu())
                    else:
                        logits = model(inp)
                    p_b.append(torch.softmax(logits.to(torch.float64), dim=-1).cpu())
                probs.append(torch.stack(p_b, dim=1))
                if return_features:
                    feats.append(torch.stack(f_b, dim=1))
    finally:
        for m, mode in modes.items():
            m.train(mode)
    probs = torch.cat(probs, dim=0).numpy()
    return (probs, torch.cat(feats, dim=0).numpy()) if return_features else probs


def mc_dropout_predict(
    model: nn.Module,
    x,
    *,
    n_samples: int = 20,
    batch_size: int = 1024,
    device: str | torch.device = "auto",
    seed: int | None = None,
    return_features: bool = False,
    warn: bool = True,
):
    """Monte-Carlo dropout: class probabilities from `n_samples` stochastic passes.

    All modules are put in eval mode except the dropout modules, which stay in train mode,
    so batch normalisation uses its running statistics while dropout draws a fresh mask in
    every pass. Sample m of instance n is the softmax of the m-th pass,

    .. math::

        p_{nm} = \\operatorname{softmax}\\big(f(x_n; \\theta \\odot z_m)\\big),
        \\qquad z_m \\sim \\text{Bernoulli masks},

    and the M = `n_samples` passes are treated as a set of M classifiers ``ens_probs``.
    The modules' train/eval flags are restored afterwards; the model is moved to `device`.

    Parameters
    ----------
    model : torch.nn.Module
        Network returning logits (N, K).
    x : array-like or torch.Tensor, shape (N, ...)
        Inputs (float).
    n_samples : int, default=20
        Number of stochastic passes M (Mimori et al. 2022 use 20).
    batch_size : int, default=1024
        Instances per forward pass.
    device : str or torch.device, default="auto"
        See :func:`credalbook.nn.resolve_device`.
    seed : int >= 0 or None, default=None
        Seed for the dropout masks; the global torch RNG state is left untouched when given
        (so results are repeatable and cacheable). ``None`` uses the global RNG.
    return_features : bool, default=False
        Also return the penultimate features of the same passes (the model needs ``features(x)``
        and ``head``, logits = head(features(x))), e.g. for α-calibration with MC dropout.
    warn : bool, default=True
        Warn when the model has no active dropout module.

    Returns
    -------
    ens_probs : numpy.ndarray, shape (N, n_samples, K), float64
        Rows sum to one.
    features : numpy.ndarray, shape (N, n_samples, D), float64
        Only with `return_features`.

    Warns
    -----
    UserWarning
        If the model has no dropout module with ``p > 0``: all samples are then identical.

    References
    ----------
    Gal, Y. & Ghahramani, Z. (2016). Dropout as a Bayesian approximation: representing model
    uncertainty in deep learning. ICML (Eq. 8, the MC estimate of the predictive distribution).

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> net = MLP(64, 10, hidden=(32,), dropout=0.5)
    >>> ens = mc_dropout_predict(net, torch.rand(6, 1, 8, 8), n_samples=4, device="cpu", seed=0)
    >>> ens.shape
    (6, 4, 10)
    >>> bool(abs(ens.sum(axis=2) - 1).max() < 1e-12)
    True
    """
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    if warn and not any(getattr(m, "p", 0.0) > 0 for m in dropout_modules(model)):
        warnings.warn(
            "model has no dropout module with p > 0; all Monte-Carlo dropout samples will be identical",
            UserWarning,
            stacklevel=2,
        )
    return stochastic_predict(
        model,
        x,
        n_samples=n_samples,
        perturb=None,
        stochastic_dropout=True,
        batch_size=batch_size,
        device=device,
        seed=seed,
        return_features=return_features,
    )


def _check_input(x: torch.Tensor, in_channels: int, size: tuple) -> None:
    expected = (in_channels, *size)
    if x.ndim != 4 or tuple(x.shape[1:]) != expected:
        raise ValueError(
            f"x must have shape (N, {expected[0]}, {expected[1]}, {expected[2]}); got shape {tuple(x.shape)}"
        )
