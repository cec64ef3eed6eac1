"""α-calibration of Mimori et al. (2022): a Dirichlet over class-probability estimates on frozen features.

α-calibration (Sec. 5.3, App. D.2) turns a classifier's class-probability estimates (CPEs) f(x)
into a Dirichlet distribution over CPEs, :math:`\\operatorname{Dir}(\\zeta \\mid \\alpha_0(x)
f(x))`, whose mean is f(x) itself: the CPEs (and the accuracy) are unchanged by design. The
concentration :math:`\\alpha_0(x) = \\exp(w^\\top g(x) + c) > 0` is a linear head with an
exponential activation on the frozen network's penultimate features g(x), fitted to the label
histograms of the validation set with the Dirichlet-multinomial likelihood (Eq. 50). Everything
works on stored features and probabilities, so the base network is never touched; temperature
scaling can be applied to the probabilities first (the paper's "ts + α").

The ensemble predictors (MC dropout, test-time augmentation) that give the per-sample features of
α-calibration combined with an ensemble (Eq. 75) are in :mod:`credalbook.calibration.stochastic_samples`
(re-exported here).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.special import softmax
from torch import nn

from credalbook._validation import check_positive_int, check_probs
from credalbook.calibration.dirichlet import dirichlet_multinomial_nll_torch
from credalbook.calibration.fitting import _check_optimizer, _check_real
from credalbook.calibration.scaling import _fit_by_optimizer, Calibrator
from credalbook.calibration.stochastic_samples import (
    mc_dropout_samples,
    PAPER_AUGMENTATIONS,
    RandomAugment,
    tta_samples,
)
from credalbook.metrics.label_hist import as_label_hist_tensor
from credalbook.nn.device import resolve_device
from credalbook.nn.models import as_float_tensor, check_feature_network

__all__ = [
    "PAPER_AUGMENTATIONS",
    "AlphaCalibrator",
    "RandomAugment",
    "extract_features",
    "fit_alpha_calibration",
    "mc_dropout_samples",
    "tta_samples",
]


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
        return dirichlet_multinomial_nll_torch(
            probs=probs, label_hist=label_hist, log_alpha0=self.log_alpha0(features), reg=self.lambda_alpha
        )

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
        hist = as_label_hist_tensor(label_hist, p.shape[0], p.shape[1], name="label_hist")
        self._build(feats.shape[1])
        epoch_options = {"lr": lr, "max_epochs": max_epochs, "batch_size": batch_size}
        result = _fit_by_optimizer(
            self,
            (feats, p),
            hist,
            loss=self.objective,
            cv_loss=self.objective,
            optimizer=optimizer,
            auto_method="lbfgs",
            max_iter=max_iter,
            tol=tol,
            cv_fraction=cv_fraction,
            seed=seed,
            patience=patience,
            epoch_options=epoch_options,
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
