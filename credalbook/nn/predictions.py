"""Stored predictions of trained networks: dataset → trained model → logits on validation and test.

Chapters recalibrate, combine and test *stored* predictions, so training happens once per
configuration and is cached on disk (:func:`credalbook.cache.cached`, keyed by the function's
code, its arguments and the package version).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from scipy.special import softmax

from credalbook._config import resolve_config
from credalbook._validation import check_choice
from credalbook.cache import cached
from credalbook.data.images import load_dataset, split_dataset
from credalbook.nn.configs import PredictionsConfig
from credalbook.nn.models import MLP, SmallCNN
from credalbook.nn.training import fit, predict_logits

__all__ = ["ModelPredictions", "train_predictions", "build_model"]

ARCHITECTURES = {"mlp", "cnn"}


@dataclass(frozen=True)
class ModelPredictions:
    """Logits of one trained network on the validation and test splits, with its training record."""

    logits_val: np.ndarray
    y_val: np.ndarray
    logits_test: np.ndarray
    y_test: np.ndarray
    history: list = field(repr=False)
    best_epoch: int
    epochs_run: int
    seconds: float
    config: dict = field(repr=False)

    @property
    def probs_val(self) -> np.ndarray:
        return softmax(self.logits_val, axis=1)

    @property
    def probs_test(self) -> np.ndarray:
        return softmax(self.logits_test, axis=1)


def build_model(
    arch: str, *, n_classes: int, image_shape: tuple, hidden=(256,), channels=(32, 64), dropout: float = 0.0
):
    """An MLP or SmallCNN sized for ``image_shape`` = (C, H, W).

    Examples
    --------
    >>> build_model("mlp", n_classes=10, image_shape=(1, 8, 8), hidden=(16,))(torch.zeros(2, 1, 8, 8)).shape
    torch.Size([2, 10])
    """
    check_choice(arch, "arch", ARCHITECTURES)
    c, h, w = image_shape
    if arch == "mlp":
        return MLP(c * h * w, n_classes, hidden=tuple(hidden), dropout=dropout)
    return SmallCNN(
        in_channels=c,
        n_classes=n_classes,
        image_size=(h, w),
        channels=tuple(channels),
        hidden=hidden[-1] if hidden else 128,
        dropout=dropout,
    )


def train_predictions(
    dataset: str = "fashion_mnist",
    *,
    n_train: int | None = None,
    n_test: int | None = None,
    val_fraction: float = 0.1,
    config: PredictionsConfig | None = None,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
    **options,
) -> ModelPredictions:
    """Train one network on a registered dataset and return its validation and test logits.

    The training split is subsampled to ``n_train`` images (all when None), then split
    ``1 - val_fraction`` / ``val_fraction`` (stratified, from ``seed``); the test split is the
    dataset's own (subsampled to ``n_test``). With ``patience`` the weights of the epoch with the
    lowest validation NLL are restored (early stopping); without it the network is trained for all
    ``epochs``, which over-fits and makes it over-confident. Results are cached on disk (keyed by
    everything but `device` and `progress`).

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
        A name in :data:`credalbook.data.DATASETS`.
    n_train, n_test : int or None, default=None
        Subsample sizes of the training and test splits (None: all).
    val_fraction : float, default=0.1
        Stratified validation part of the training split.
    config : PredictionsConfig or None, default=None
        The network and its training; None gives the defaults.
    seed : int, default=0
        Seeds the subsampling, the split, the initial weights and :func:`credalbook.nn.fit`.
    device : str, default="auto"
    progress : bool, default=True
    **options
        Fields of :class:`PredictionsConfig` (``arch``, ``hidden``, ``epochs``, ``patience``, ...),
        replacing those of `config`.

    Returns
    -------
    ModelPredictions
    """
    cfg = resolve_config(PredictionsConfig, config, options, "train_predictions")
    return _train_predictions(
        dataset,
        **asdict(cfg),
        n_train=n_train,
        n_test=n_test,
        val_fraction=val_fraction,
        seed=seed,
        device=device,
        progress=progress,
    )


@cached(ignore=["device", "progress"])
def _train_predictions(
    dataset,
    *,
    arch,
    hidden,
    channels,
    dropout,
    n_train,
    n_test,
    val_fraction,
    epochs,
    batch_size,
    optimizer,
    lr,
    weight_decay,
    patience,
    seed,
    device,
    progress,
) -> ModelPredictions:
    """:func:`train_predictions` with every setting spelled out (the cached computation)."""
    ds = load_dataset(dataset)
    if n_train is not None or n_test is not None:
        ds = ds.subsample(n_train, n_test, seed=seed)
    x_tr, y_tr, x_val, y_val = split_dataset(ds, val_fraction=val_fraction, seed=seed)
    torch.manual_seed(seed)
    model = build_model(
        arch, n_classes=ds.n_classes, image_shape=ds.image_shape, hidden=hidden, channels=channels, dropout=dropout
    )
    result = fit(
        model,
        x_tr,
        y_tr,
        x_val=x_val,
        y_val=y_val,
        epochs=epochs,
        batch_size=batch_size,
        optimizer=optimizer,
        lr=lr,
        weight_decay=weight_decay,
        patience=patience,
        seed=seed,
        device=device,
        progress=progress,
    )
    config = dict(
        dataset=dataset,
        arch=arch,
        hidden=tuple(hidden),
        channels=tuple(channels),
        dropout=dropout,
        n_train=n_train,
        n_test=n_test,
        val_fraction=val_fraction,
        epochs=epochs,
        batch_size=batch_size,
        optimizer=optimizer,
        lr=lr,
        weight_decay=weight_decay,
        patience=patience,
        seed=seed,
    )
    return ModelPredictions(
        logits_val=predict_logits(result.model, x_val, device=device),
        y_val=np.asarray(y_val),
        logits_test=predict_logits(result.model, ds.x_test, device=device),
        y_test=np.asarray(ds.y_test),
        history=list(result.history),
        best_epoch=result.best_epoch,
        epochs_run=result.epochs_run,
        seconds=result.seconds,
        config=config,
    )


train_predictions.clear = _train_predictions.clear  # drops the stored results, as for a cached function
