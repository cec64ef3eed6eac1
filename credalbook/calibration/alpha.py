"""α-calibration and the ensemble predictors (MC dropout, test-time augmentation) of Mimori et al.

α-calibration (Sec. 5.3, App. D.2) turns a classifier's class-probability estimates (CPEs) f(x)
into a Dirichlet distribution over CPEs, :math:`\\operatorname{Dir}(\\zeta \\mid \\alpha_0(x)
f(x))`, whose mean is f(x) itself: the CPEs (and the accuracy) are unchanged by design. The
concentration :math:`\\alpha_0(x) = \\exp(w^\\top g(x) + c) > 0` is a linear head with an
exponential activation on the frozen network's penultimate features g(x), fitted to the label
histograms of the validation set with the Dirichlet-multinomial likelihood (Eq. 50). Everything
works on stored features and probabilities, so the base network is never touched; temperature
scaling can be applied to the probabilities first (the paper's "ts + α").

The ensemble predictors return S stochastic predictions per instance, shape (N, S, K), for the
ensemble DPE of Eq. 74 and, with the per-sample features, α-calibration combined with MC dropout
or TTA (Eq. 75): :func:`mc_dropout_samples` keeps the dropout layers stochastic and
:func:`tta_samples` feeds randomly transformed copies of the images (:class:`RandomAugment`,
the augmentations of App. E.3), both with 20 samples by default (App. E.4).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.special import softmax
from torch import nn

from credalbook._validation import check_positive_int, check_probs
from credalbook.calibration.dirichlet import dirichlet_multinomial_nll_torch
from credalbook.calibration.fitting import (
    _check_optimizer,
    _check_real,
    _EPOCH_DEFAULTS,
    _fit_to_optimum,
    _reject,
    fit_with_early_stopping,
)
from credalbook.calibration.scaling import _as_label_hist, Calibrator
from credalbook.nn.device import resolve_device
from credalbook.nn.models import as_float_tensor, check_feature_network, mc_dropout_predict, stochastic_predict

__all__ = [
    "PAPER_AUGMENTATIONS",
    "AlphaCalibrator",
    "RandomAugment",
    "extract_features",
    "fit_alpha_calibration",
    "mc_dropout_samples",
    "tta_samples",
]

#: Augmentations of App. E.3 (rotation range in degrees, shift range in pixels, flips).
PAPER_AUGMENTATIONS = {
    "mix_cifar10": {"rotation": 180.0, "shift": 10.0, "hflip": True},
    "mds": {"rotation": 20.0, "shift": 5.0, "hflip": True},
}


# ------------------------------------------------------------------------------- α head
def _as_float64(x, name: str) -> torch.Tensor:
    """Finite real array or tensor with at least 2 dimensions (..., N, D) -> float64 tensor."""
    if isinstance(x, torch.Tensor):
        t = x.detach().cpu()
        if t.is_complex() or t.dtype == torch.bool:
            raise ValueError(f"{name} must hold real numbers; got dtype {t.dtype}")
    else:
        arr = np.asarray(x)
        if arr.dtype.kind not in "fiu":
            raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}")
        t = torch.from_numpy(np.array(arr, dtype=np.float64))
    t = t.to(torch.float64)
    if t.ndim < 2 or t.shape[-2] < 1:
        raise ValueError(f"{name} must have shape (..., N, D) with N >= 1; got {tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} contains NaN or infinite values")
    return t


class AlphaCalibrator(nn.Module):
    """α-calibration head :math:`\\alpha_0(x) = \\exp(w^\\top g(x) + c)` on frozen features.

    Fitted by minimising Eq. 50 on label histograms,

    .. math::

        -\\frac{1}{\\sum_i n_i} \\sum_i \\log \\operatorname{DirMult}\\big(y_i \\mid
        \\alpha_0(x_i) f(x_i)\\big)
        + \\frac{\\lambda_\\alpha}{N} \\sum_i \\big(\\log \\alpha_0(x_i)\\big)^2,

    with w = 0 and c = log 1 = 0 at the start (the authors' initialisation). By default the
    parameters minimise Eq. 50 on all the instances to convergence (full-batch L-BFGS);
    ``optimizer="adam"`` is the training scheme of App. E.4
    (:func:`credalbook.calibration.fit_with_early_stopping`: Adam with learning rate 1e-3,
    batch 128, at most 50 epochs, early stopping with patience 10 on a held-out 20 % of the
    instances, judged by Eq. 50).

    Parameters
    ----------
    lambda_alpha : float, default=0.005
        Weight of the :math:`(\\log \\alpha_0)^2` penalty (0.005 throughout the paper).

    Attributes
    ----------
    feature_dim_ : int
    history_, best_epoch_, cv_loss_
        As returned by :func:`credalbook.calibration.fit_with_early_stopping` (for
        ``optimizer="auto"``: the start and the end, and the number of L-BFGS iterations).

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 5.3, App. D.2 (Eq. 50) and
    App. E.4.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> features = rng.normal(size=(400, 3)); probs = np.full((400, 2), 0.5)
    >>> hist = np.where(features[:, :1] > 0, [[2, 0]], [[1, 1]])  # unanimous iff feature 0 > 0
    >>> head = AlphaCalibrator().fit(features, probs, hist)
    >>> a0 = head.predict_alpha0(features)
    >>> bool(a0[features[:, 0] > 1].mean() < 1 < a0[features[:, 0] < -1].mean())
    True
    """

    def __init__(self, lambda_alpha: float = 0.005) -> None:
        super().__init__()
        self.lambda_alpha = _check_real(lambda_alpha, "lambda_alpha", low=0.0)
        self.feature_dim_: int | None = None
        self.history_: list = []
        self.best_epoch_: int = 0
        self.cv_loss_: float = math.nan

    def _build(self, feature_dim: int) -> None:
        self.linear = nn.Linear(feature_dim, 1, dtype=torch.float64)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)
        self.feature_dim_ = feature_dim

    def log_alpha0(self, features: torch.Tensor) -> torch.Tensor:
        """:math:`\\log \\alpha_0`, shape (...,) for features (..., D) (differentiable)."""
        return self.linear(features).squeeze(-1)

    def objective(self, features: torch.Tensor, probs: torch.Tensor, label_hist: torch.Tensor) -> torch.Tensor:
        """Eq. 50 on tensors (features (N, D), probs (N, K), label_hist (N, K))."""
        return dirichlet_multinomial_nll_torch(label_hist, probs, self.log_alpha0(features), reg=self.lambda_alpha)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return torch.exp(self.log_alpha0(features))

    def _inputs(self, features, probs, *, fitted: bool) -> tuple[torch.Tensor, torch.Tensor]:
        feats = _as_float64(features, "features")
        p = torch.from_numpy(np.array(check_probs(probs, name="probs")))
        if feats.ndim != p.ndim or feats.shape[:-1] != p.shape[:-1]:
            raise ValueError(
                f"features (..., D) and probs (..., K) must share their leading "
                f"dimensions; got {tuple(feats.shape)} and {tuple(p.shape)}"
            )
        if fitted and feats.shape[-1] != self.feature_dim_:
            raise ValueError(
                f"features must have {self.feature_dim_} columns like the fitting data; got {feats.shape[-1]}"
            )
        return feats, p

    def fit(
        self,
        features,
        probs,
        label_hist,
        *,
        optimizer: str = "auto",
        max_iter: int | None = None,
        tol: float | None = None,
        cv_fraction: float | None = None,
        seed=None,
        lr: float | None = None,
        max_epochs: int | None = None,
        batch_size: int | None = None,
        patience: int | None = 10,
    ) -> AlphaCalibrator:
        """Fit the head on stored features, CPEs and label histograms; returns ``self``.

        Parameters
        ----------
        features : array-like, shape (N, D)
            Penultimate features of the frozen network (e.g. from :func:`extract_features`).
        probs : array-like, shape (N, K)
            The CPEs f(x) that α scales: raw softmax outputs, or temperature-scaled ones.
        label_hist : array-like, shape (N, K) or (N,)
            Label histograms (or single labels).
        optimizer : {"auto", "adam", "lbfgs"}, default="auto"
            ``"auto"``: full-batch L-BFGS on Eq. 50 to a gradient tolerance; ``"adam"``: the
            scheme of App. E.4; ``"lbfgs"``: torch's L-BFGS in epochs with early stopping.
        max_iter, tol, cv_fraction, seed, lr, max_epochs, batch_size, patience
            As in :meth:`credalbook.calibration.Calibrator.fit` (``cv_fraction`` None gives 0
            for ``"auto"`` and 0.2, App. E.4, otherwise; ``seed`` None draws the split and the
            minibatch order afresh).

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            ``"auto"`` stopped at `max_iter` before convergence.
        """
        optimizer = _check_optimizer(optimizer)
        feats, p = self._inputs(features, probs, fitted=False)
        if feats.ndim != 2:
            raise ValueError(f"features must have shape (N, D) for fitting; got {tuple(feats.shape)}")
        hist = _as_label_hist(label_hist, p.shape[0], p.shape[1], name="label_hist")
        self._build(feats.shape[1])
        epoch_options = {"lr": lr, "max_epochs": max_epochs, "batch_size": batch_size}
        if optimizer == "auto":
            _reject(
                epoch_options,
                "optimizer='adam' or 'lbfgs'",
                "the default optimizer='auto' runs to convergence (see max_iter and tol)",
            )
            result = _fit_to_optimum(
                self,
                (feats, p),
                hist,
                loss=self.objective,
                cv_loss=self.objective,
                method="lbfgs",
                max_iter=max_iter,
                tol=tol,
                cv_fraction=0.0 if cv_fraction is None else cv_fraction,
                seed=seed,
            )
        else:
            _reject({"max_iter": max_iter, "tol": tol}, "optimizer='auto'")
            options = {k: _EPOCH_DEFAULTS[k] if v is None else v for k, v in epoch_options.items()}
            result = fit_with_early_stopping(
                self,
                (feats, p),
                hist,
                loss=self.objective,
                cv_loss=self.objective,
                optimizer=optimizer,
                patience=patience,
                cv_fraction=0.2 if cv_fraction is None else cv_fraction,
                seed=seed,
                **options,
            )
        self.history_, self.best_epoch_, self.cv_loss_ = result
        return self

    def _check_fitted(self) -> None:
        if self.feature_dim_ is None:
            raise ValueError("this AlphaCalibrator is not fitted yet; call fit first")

    @torch.no_grad()
    def predict_alpha0(self, features) -> np.ndarray:
        """:math:`\\alpha_0(x)` for features of shape (..., D) (e.g. (N, S, D)); float64 (...,)."""
        self._check_fitted()
        feats = _as_float64(features, "features")
        if feats.shape[-1] != self.feature_dim_:
            raise ValueError(
                f"features must have {self.feature_dim_} columns like the fitting data; got {feats.shape[-1]}"
            )
        return self(feats).numpy()

    def predict_concentration(self, features, probs) -> np.ndarray:
        """Dirichlet parameters :math:`\\alpha = \\alpha_0(x) f(x)`, shape (..., K)."""
        self._check_fitted()
        feats, p = self._inputs(features, probs, fitted=True)
        return self.predict_alpha0(feats)[..., None] * p.numpy()


# ------------------------------------------------------------------------ network helpers
def extract_features(
    model: nn.Module, x, *, batch_size: int = 1024, device: str | torch.device = "auto"
) -> tuple[np.ndarray, np.ndarray]:
    """Logits and penultimate features of a network in eval mode (dropout off, no gradients).

    Parameters
    ----------
    model : torch.nn.Module
        With ``features(x)`` and a ``head`` such that ``logits = head(features(x))`` (as
        :class:`~credalbook.nn.MLP`, :class:`~credalbook.nn.SmallCNN`,
        :class:`~credalbook.nn.ThreeConvNet`, :class:`~credalbook.nn.VGGNet`).
    x : array-like or torch.Tensor, shape (N, ...)
    batch_size : int, default=1024
    device : str or torch.device, default="auto"

    Returns
    -------
    logits : numpy.ndarray, shape (N, K), float64
    features : numpy.ndarray, shape (N, D), float64

    Examples
    --------
    >>> from credalbook.nn.models import MLP
    >>> _ = torch.manual_seed(0)
    >>> logits, feats = extract_features(MLP(4, 3, hidden=(5,)), torch.rand(6, 4), device="cpu")
    >>> logits.shape, feats.shape
    ((6, 3), (6, 5))
    """
    check_feature_network(model)
    dev = resolve_device(device)
    batch_size = check_positive_int(batch_size, "batch_size")
    xt = as_float_tensor(x, "x")
    modes = {m: m.training for m in model.modules()}
    model.to(dev)
    model.eval()
    logits, feats = [], []
    try:
        with torch.no_grad():
            for start in range(0, xt.shape[0], batch_size):
                h = model.features(xt[start : start + batch_size].to(dev))
                logits.append(model.head(h).to(torch.float64).cpu())
                feats.append(h.to(torch.float64).cpu())
    finally:
        for m, mode in modes.items():
            m.train(mode)
    return torch.cat(logits).numpy(), torch.cat(feats).numpy()


def fit_alpha_calibration(
    model: nn.Module,
    x,
    label_hist,
    *,
    calibrator: Calibrator | None = None,
    lambda_alpha: float = 0.005,
    batch_size: int = 1024,
    device: str | torch.device = "auto",
    **fit_kwargs,
) -> AlphaCalibrator:
    """α-calibrate a trained network on validation images and their label histograms.

    The network is frozen: its logits and features are computed once in eval mode without
    gradients (:func:`extract_features`), then :meth:`AlphaCalibrator.fit` fits the head on
    ``f = softmax(logits)``, or on ``calibrator.predict_proba(logits)`` for "ts + α" with an
    already fitted `calibrator`.

    Parameters
    ----------
    model : torch.nn.Module
        With ``features(x)`` and ``head``.
    x : array-like, shape (N, ...)
    label_hist : array-like, shape (N, K)
    calibrator : Calibrator or None, default=None
        A fitted CPE calibrator applied before α-calibration.
    lambda_alpha : float, default=0.005
    batch_size, device
        For the feature extraction.
    **fit_kwargs
        Passed to :meth:`AlphaCalibrator.fit`.

    Returns
    -------
    AlphaCalibrator

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 5.3 and App. E.4.

    Examples
    --------
    >>> from credalbook.nn.models import MLP
    >>> _ = torch.manual_seed(0)
    >>> net, x = MLP(4, 3, hidden=(5,)), torch.rand(40, 4)
    >>> hist = np.tile([[1, 1, 0]], (40, 1))  # two labels that always disagree
    >>> head = fit_alpha_calibration(net, x, hist, device="cpu")
    >>> alpha0 = head.predict_alpha0(extract_features(net, x, device="cpu")[1])
    >>> alpha0.shape, bool((alpha0 > 1).all())  # disagreement: concentration grows above 1
    ((40,), True)
    """
    logits, feats = extract_features(model, x, batch_size=batch_size, device=device)
    if calibrator is not None:
        if not isinstance(calibrator, Calibrator):
            raise ValueError(
                f"calibrator must be a fitted credalbook Calibrator or None; got {type(calibrator).__name__}"
            )
        probs = calibrator.predict_proba(logits)
    else:
        probs = softmax(logits, axis=1)
    return AlphaCalibrator(lambda_alpha).fit(feats, probs, label_hist, **fit_kwargs)


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
