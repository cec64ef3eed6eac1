"""Stochastic predictions of a network: S samples per instance by MC dropout or test-time augmentation.

The ensemble predictors of Mimori et al. (2022) return S stochastic predictions per instance, shape
(N, S, K), for the ensemble DPE of Eq. 74 and, with the per-sample features, α-calibration
(:mod:`credalbook.calibration.alpha`) combined with MC dropout or TTA (Eq. 75):
:func:`mc_dropout_samples` keeps the dropout layers stochastic and :func:`tta_samples` feeds randomly
transformed copies of the images (:class:`RandomAugment`, the augmentations of App. E.3), both with
20 samples by default (App. E.4).
"""

from __future__ import annotations

import torch
from torch import nn

from credalbook.calibration.fitting import _check_real
from credalbook.nn.models import mc_dropout_predict, stochastic_predict

__all__ = ["PAPER_AUGMENTATIONS", "RandomAugment", "mc_dropout_samples", "tta_samples"]

#: Augmentations of App. E.3 (rotation range in degrees, shift range in pixels, flips).
PAPER_AUGMENTATIONS = {
    "mix_cifar10": {"rotation": 180.0, "shift": 10.0, "hflip": True},
    "mds": {"rotation": 20.0, "shift": 5.0, "hflip": True},
}


# -------------------------------------------------------------------------- augmentation
class RandomAugment:
    """Random rotation, shift and flips of image batches, in torch (App. E.3's augmentations).

    Each image gets its own transform: a rotation by an angle drawn uniformly from
    ``[-rotation, rotation]`` degrees about the centre, a shift by amounts drawn uniformly from
    ``[-shift, shift]`` pixels along each axis, and, with probability 1/2 each, horizontal and
    vertical flips. Pixels are resampled bilinearly; points from outside the image take the
    nearest edge value (Keras' default ``fill_mode="nearest"``) or 0 with ``fill="zeros"``.

    Parameters
    ----------
    rotation : float, default=0.0
        Maximum rotation in degrees (180 for Mix-CIFAR-10, 20 for MDS).
    shift : float, default=0.0
        Maximum shift in pixels (10 for Mix-CIFAR-10, 5 for MDS).
    hflip, vflip : bool, default=False
    fill : {"nearest", "zeros"}, default="nearest"

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. E.3 (see
    :data:`PAPER_AUGMENTATIONS`).

    Examples
    --------
    >>> aug = RandomAugment(**PAPER_AUGMENTATIONS["mix_cifar10"])
    >>> x = torch.rand(4, 3, 32, 32)
    >>> aug(x, generator=torch.Generator().manual_seed(0)).shape
    torch.Size([4, 3, 32, 32])
    >>> bool(torch.equal(RandomAugment()(x), x))  # no transformation configured
    True
    """

    def __init__(
        self, rotation: float = 0.0, shift: float = 0.0, hflip: bool = False, vflip: bool = False, fill: str = "nearest"
    ) -> None:
        self.rotation = _check_real(rotation, "rotation", low=0.0, high=360.0 + 1e-9)
        self.shift = _check_real(shift, "shift", low=0.0)
        if not isinstance(hflip, bool) or not isinstance(vflip, bool):
            raise ValueError(f"hflip and vflip must be bools; got {hflip!r}, {vflip!r}")
        if fill not in ("nearest", "zeros"):
            raise ValueError(f"fill must be 'nearest' or 'zeros'; got {fill!r}")
        self.hflip, self.vflip, self.fill = hflip, vflip, fill

    def __repr__(self) -> str:
        return (
            f"RandomAugment(rotation={self.rotation:g}, shift={self.shift:g}, "
            f"hflip={self.hflip}, vflip={self.vflip}, fill={self.fill!r})"
        )

    @staticmethod
    def _check_images(x) -> None:
        if not isinstance(x, torch.Tensor) or x.ndim != 4 or not x.is_floating_point():
            raise ValueError(
                f"x must be a float tensor of shape (N, C, H, W); got "
                f"{type(x).__name__} {tuple(getattr(x, 'shape', ()))}"
            )

    def __call__(self, x: torch.Tensor, *, generator: torch.Generator | None = None) -> torch.Tensor:
        """Transform every image of `x` (N, C, H, W) at random; torch's global RNG by default."""
        self._check_images(x)
        if self.rotation == 0 and self.shift == 0 and not self.hflip and not self.vflip:
            return x
        n = x.shape[0]

        def uniform(scale):  # U(-scale, scale), drawn on the CPU for repeatable streams
            return (2 * torch.rand(n, generator=generator, dtype=torch.float64) - 1) * scale

        angle, tx, ty = uniform(self.rotation), uniform(self.shift), uniform(self.shift)
        no_flip = torch.zeros(n, dtype=torch.bool)
        flip_x = torch.rand(n, generator=generator) < 0.5 if self.hflip else no_flip
        flip_y = torch.rand(n, generator=generator) < 0.5 if self.vflip else no_flip
        return self.apply(x, angle=angle, shift_x=tx, shift_y=ty, flip_x=flip_x, flip_y=flip_y)

    def apply(self, x: torch.Tensor, *, angle, shift_x, shift_y, flip_x, flip_y) -> torch.Tensor:
        """Apply given transforms: per-image `angle` (degrees), shifts (pixels), flips (bool).

        Image n is flipped, rotated by ``angle[n]`` about its centre and shifted by
        ``(shift_x[n], shift_y[n])`` pixels (x to the right, y down); each argument is a
        scalar or a length-N sequence.

        Examples
        --------
        >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
        >>> aug = RandomAugment()
        >>> torch.equal(aug.apply(x, angle=0, shift_x=1, shift_y=0, flip_x=False,
        ...                       flip_y=False)[0, 0, :, 1:], x[0, 0, :, :3])
        True
        """
        self._check_images(x)
        n, _, h, w = x.shape

        def per_image(v, name, dtype=torch.float64):
            t = torch.as_tensor(v, dtype=dtype).flatten()
            if t.numel() == 1:
                t = t.expand(n)
            if t.numel() != n:
                raise ValueError(f"{name} must be a scalar or have {n} entries; got {t.numel()}")
            return t

        angle = torch.deg2rad(per_image(angle, "angle"))
        tx, ty = per_image(shift_x, "shift_x"), per_image(shift_y, "shift_y")
        sx = 1.0 - 2.0 * per_image(flip_x, "flip_x", torch.bool).double()
        sy = 1.0 - 2.0 * per_image(flip_y, "flip_y", torch.bool).double()
        # Output pixel p (centred pixel coordinates) samples the input at F R^-1 (p - t); in
        # the normalised coordinates of affine_grid, u = p * 2 / size.
        cos, sin = torch.cos(angle), torch.sin(angle)
        theta = torch.zeros(n, 2, 3, dtype=torch.float64)
        theta[:, 0, 0] = sx * cos
        theta[:, 0, 1] = sx * sin * h / w
        theta[:, 1, 0] = -sy * sin * w / h
        theta[:, 1, 1] = sy * cos
        theta[:, 0, 2] = -(theta[:, 0, 0] * tx * 2 / w + theta[:, 0, 1] * ty * 2 / h)
        theta[:, 1, 2] = -(theta[:, 1, 0] * tx * 2 / w + theta[:, 1, 1] * ty * 2 / h)
        theta = theta.to(device=x.device, dtype=x.dtype)
        grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
        padding = "border" if self.fill == "nearest" else "zeros"
        return nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode=padding, align_corners=False)


# ------------------------------------------------------------------------ ensemble samples
def mc_dropout_samples(
    model: nn.Module,
    x,
    *,
    n_samples: int = 20,
    batch_size: int = 1024,
    device: str | torch.device = "auto",
    seed: int | None = None,
    return_features: bool = False,
):
    """Monte-Carlo dropout predictions, shape (N, S, K), optionally with per-sample features.

    All modules are in eval mode except the dropout layers, which draw a fresh mask in each of
    the S passes; sample s of instance n is :math:`f^{(s)}(x_n) = \\operatorname{softmax}(
    u(x_n; \\theta \\odot z_s))`, the ensemble of Eqs. 74-75 and 82. Same passes and random
    stream as :func:`credalbook.nn.mc_dropout_predict` (which returns the transpose,
    (N, S, K)); with `return_features` the features after the last dropout are returned too,
    for α-calibration combined with MC dropout (Eq. 75).

    Parameters
    ----------
    model : torch.nn.Module
        Network with dropout; with `return_features` it needs ``features(x)`` and ``head``.
    x : array-like, shape (N, ...)
    n_samples : int, default=20
        S (20 in App. E.4).
    batch_size : int, default=1024
    device : str or torch.device, default="auto"
    seed : int or None, default=None
        Seeds the masks without touching the global RNG state.
    return_features : bool, default=False

    Returns
    -------
    probs : numpy.ndarray, shape (N, S, K), float64
    features : numpy.ndarray, shape (N, S, D), float64
        Only with `return_features`.

    References
    ----------
    Gal & Ghahramani (2016), Dropout as a Bayesian approximation, ICML. Mimori et al. (2022),
    Diagnostic Uncertainty Calibration, Eqs. 74-75 and App. E.4.

    Examples
    --------
    >>> from credalbook.nn.models import MLP
    >>> _ = torch.manual_seed(0)
    >>> net = MLP(4, 3, hidden=(8,), dropout=0.5)
    >>> probs, feats = mc_dropout_samples(net, torch.rand(5, 4), n_samples=6, device="cpu",
    ...                                   seed=0, return_features=True)
    >>> probs.shape, feats.shape
    ((5, 6, 3), (5, 6, 8))
    """
    return mc_dropout_predict(
        model,
        x,
        n_samples=n_samples,
        batch_size=batch_size,
        device=device,
        seed=seed,
        return_features=return_features,
        warn=False,
    )


def tta_samples(
    model: nn.Module,
    x,
    *,
    augment,
    n_samples: int = 20,
    batch_size: int = 1024,
    device: str | torch.device = "auto",
    seed: int | None = None,
    return_features: bool = False,
):
    """Test-time augmentation predictions, shape (N, S, K), optionally with features.

    Sample s of instance n is the eval-mode prediction (dropout off) on an independently
    augmented copy, :math:`f^{(s)}(x_n) = f(a_s(x_n))`, with the same augmentation as in
    training (App. E.4; App. E.3 for its ranges, :data:`PAPER_AUGMENTATIONS`).

    Parameters
    ----------
    model : torch.nn.Module
    x : array-like, shape (N, C, H, W)
    augment : callable
        Maps an image batch tensor to a transformed batch of the same shape, e.g.
        :class:`RandomAugment`; it must draw from torch's global RNG (as RandomAugment does
        without a generator) for `seed` to make the samples repeatable.
    n_samples, batch_size, device, seed, return_features
        As in :func:`mc_dropout_samples`.

    Returns
    -------
    probs, features : numpy.ndarray
        As in :func:`mc_dropout_samples`: (N, S, K) and, with `return_features`, (N, S, D).

    References
    ----------
    Ayhan & Berens (2018), Test-time data augmentation for estimation of heteroscedastic
    aleatoric uncertainty in deep neural networks, MIDL. Mimori et al. (2022), Diagnostic
    Uncertainty Calibration, Eqs. 74-75 and App. E.3-E.4.

    Examples
    --------
    >>> from credalbook.nn.models import SmallCNN
    >>> _ = torch.manual_seed(0)
    >>> net = SmallCNN(in_channels=3, image_size=8, channels=(4,), hidden=8)
    >>> probs = tta_samples(net, torch.rand(3, 3, 8, 8), augment=RandomAugment(hflip=True),
    ...                     n_samples=4, device="cpu", seed=0)
    >>> probs.shape
    (3, 4, 10)
    """
    if not callable(augment):
        raise ValueError(f"augment must be callable; got {augment!r}")

    def perturb(xb):
        out = augment(xb)
        if not isinstance(out, torch.Tensor) or out.shape != xb.shape:
            raise ValueError(
                f"augment must return a tensor of shape {tuple(xb.shape)}; got "
                f"{type(out).__name__} {tuple(getattr(out, 'shape', ()))}"
            )
        return out

    return stochastic_predict(
        model,
        x,
        n_samples=n_samples,
        perturb=perturb,
        stochastic_dropout=False,
        batch_size=batch_size,
        device=device,
        seed=seed,
        return_features=return_features,
    )
