"""Minibatch training of torch classifiers and batched prediction.

:func:`fit` trains a network with the cross-entropy loss, records per-epoch losses and
validation accuracy, optionally stops early on the validation loss and restores the best
weights. It moves the whole training set to the device once and indexes minibatches from
it (no ``DataLoader`` workers), which is the fast path for the small image data sets of
the book both on a 2-core CPU and on a GPU. Runs are repeatable for a given `seed` on the
CPU: the shuffling uses its own :class:`torch.Generator`, and dropout masks come from the
global torch RNG seeded inside a forked RNG state, so the caller's RNG is left untouched.

:func:`predict_logits` and :func:`predict_proba` evaluate a network in eval mode without
gradients, batch by batch. The learning-rate schedule and the checkpoint of a resumable run are
callbacks of the epoch loop, in :mod:`credalbook.nn.fit_callbacks`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from credalbook._config import resolve_config
from credalbook._validation import check_positive_int
from credalbook.cache import as_checkpoint, load_checkpoint, restore_rng_states
from credalbook.nn.device import resolve_device
from credalbook.nn.fit_callbacks import _FitCheckpoint, _LRSchedule, _resume, _settings
from credalbook.nn.loop import EarlyStopping, train_loop
from credalbook.nn.models import as_float_tensor, as_label_tensor

__all__ = ["FitConfig", "TrainResult", "fit", "predict_logits", "predict_proba"]

_OPTIMIZERS = ("adam", "sgd")


@dataclass(frozen=True)
class TrainResult:
    """Outcome of :func:`fit`.

    Attributes
    ----------
    model : torch.nn.Module
        The trained network (the same object that was passed in), in eval mode on the
        training device. With early stopping it holds the weights of `best_epoch`.
    history : list of dict
        One dict per epoch run with keys ``epoch`` (1-based), ``train_loss`` (mean
        cross-entropy over the epoch's minibatches, in train mode), ``val_loss`` and
        ``val_accuracy`` (NaN without validation data), ``lr`` (the epoch's learning rate) and ``seconds`` (since the start).
    best_epoch : int
        1-based epoch with the lowest validation loss (the last epoch without validation data).
    best_val_loss : float
        Validation loss at `best_epoch` (NaN without validation data).
    epochs_run : int
        Number of epochs actually run (fewer than requested after early stopping).
    seconds : float
        Wall-clock training time.
    """

    model: nn.Module
    history: list = field(repr=False)
    best_epoch: int
    best_val_loss: float
    epochs_run: int
    seconds: float


def _check_nonneg_float(value, name: str, *, upper: float | None = None, positive=False) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    ok = ok and math.isfinite(float(value))
    ok = ok and (float(value) > 0 if positive else float(value) >= 0)
    ok = ok and (upper is None or float(value) < upper)
    if not ok:
        rng = "> 0" if positive else ">= 0"
        rng += f" and < {upper}" if upper is not None else ""
        raise ValueError(f"{name} must be a finite number {rng}; got {value!r}")
    return float(value)


def _check_nonneg_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    return int(value)


@torch.no_grad()
def _evaluate(model, x, y, batch_size) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of `model` (eval mode) on tensors already on `dev`."""
    total_loss, correct = 0.0, 0
    for start in range(0, x.shape[0], batch_size):
        logits = model(x[start : start + batch_size])
        yb = y[start : start + batch_size]
        total_loss += float(F.cross_entropy(logits.float(), yb, reduction="sum"))
        correct += int((logits.argmax(dim=1) == yb).sum())
    return total_loss / x.shape[0], correct / x.shape[0]


def _checked_data(x_train, y_train, x_val, y_val):
    """Float inputs and int64 labels of matching lengths; ``x_va, y_va`` are None without validation data."""
    x_tr = as_float_tensor(x_train, "x_train")
    y_tr = as_label_tensor(y_train, "y_train")
    if x_tr.shape[0] != y_tr.shape[0]:
        raise ValueError(f"x_train and y_train must have the same length; got {x_tr.shape[0]} and {y_tr.shape[0]}")
    if x_val is None and y_val is None:
        return x_tr, y_tr, None, None
    if x_val is None or y_val is None:
        missing = "x_val" if x_val is None else "y_val"
        raise ValueError(f"{missing} is None; pass both x_val and y_val or neither")
    x_va = as_float_tensor(x_val, "x_val")
    y_va = as_label_tensor(y_val, "y_val")
    if x_va.shape[0] != y_va.shape[0]:
        raise ValueError(f"x_val and y_val must have the same length; got {x_va.shape[0]} and {y_va.shape[0]}")
    if tuple(x_va.shape[1:]) != tuple(x_tr.shape[1:]):
        raise ValueError(
            f"x_val must have instances of shape {tuple(x_tr.shape[1:])} like x_train; got {tuple(x_va.shape[1:])}"
        )
    return x_tr, y_tr, x_va, y_va


@torch.no_grad()
def _check_labels_fit(model, x_tr, labels, batch_size: int) -> None:
    """Probe the first batch in eval mode (no RNG, no batch-norm update) to learn K; labels must be < K."""
    model.eval()
    size = min(batch_size, x_tr.shape[0])
    probe = model(x_tr[:size])
    if probe.ndim != 2 or probe.shape[0] != size:
        raise ValueError(f"model must return logits of shape (batch, K); got shape {tuple(probe.shape)}")
    n_classes = probe.shape[1]
    for name, y in labels:
        if y is not None and y.numel() and int(y.max()) >= n_classes:
            raise ValueError(
                f"{name} contains label {int(y.max())} but the model outputs {n_classes} "
                f"classes (labels must be in [0, {n_classes}))"
            )


def _augmented(augment, xb: torch.Tensor, size: int) -> torch.Tensor:
    out = augment(xb)
    if not isinstance(out, torch.Tensor) or out.shape[0] != size:
        raise ValueError(
            "augment must return a tensor with the batch's first dimension "
            f"{size}; got {type(out).__name__} {tuple(getattr(out, 'shape', ()))}"
        )
    return out


def _postfix(has_val: bool):
    def postfix(logs: dict) -> dict:
        post = {"train_loss": f"{logs['train_loss']:.4f}"}
        if has_val:
            post.update(val_loss=f"{logs['val_loss']:.4f}", val_acc=f"{logs['val_accuracy']:.3f}")
        return post

    return postfix


@dataclass(frozen=True)
class FitConfig:
    """Training settings of :func:`fit`: optimiser, learning-rate schedule, early stopping, augmentation.

    The fields are the options of :func:`fit` (see its Parameters); ``fit(model, x, y, epochs=20)``
    and ``fit(model, x, y, config=FitConfig(epochs=20))`` run the same training. The run's `seed`,
    `device`, `progress`, `checkpoint` and `channels_last` (a memory layout) stay arguments of :func:`fit`.

    Examples
    --------
    >>> cfg = FitConfig(epochs=5, optimizer="SGD", milestones=(4, 2)).checked()
    >>> cfg.optimizer, cfg.milestones
    ('sgd', (2, 4))
    """

    epochs: int = 10
    batch_size: int = 128
    optimizer: str = "adam"
    lr: float = 1e-3
    momentum: float = 0.9
    weight_decay: float = 0.0
    patience: int | None = None
    restore_best: bool | None = None
    augment: Callable[[torch.Tensor], torch.Tensor] | None = None
    warmup_epochs: int = 0
    milestones: tuple = ()
    lr_decay: float = 0.1

    def checked(self) -> FitConfig:
        """A copy with every field checked (``ValueError`` naming it) and normalised."""
        epochs = check_positive_int(self.epochs, "epochs")
        batch_size = check_positive_int(self.batch_size, "batch_size")
        if not isinstance(self.optimizer, str) or self.optimizer.lower() not in _OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {_OPTIMIZERS}; got {self.optimizer!r}")
        lr = _check_nonneg_float(self.lr, "lr", positive=True)
        warmup_epochs = _check_nonneg_int(self.warmup_epochs, "warmup_epochs")
        try:
            milestones = tuple(sorted(_check_nonneg_int(m, "milestones") for m in self.milestones))
        except TypeError:
            raise ValueError(f"milestones must be a sequence of epochs; got {self.milestones!r}") from None
        lr_decay = _check_nonneg_float(self.lr_decay, "lr_decay", positive=True)
        if lr_decay > 1:
            raise ValueError(f"lr_decay must be in (0, 1]; got {self.lr_decay!r}")
        momentum = _check_nonneg_float(self.momentum, "momentum", upper=1.0)
        weight_decay = _check_nonneg_float(self.weight_decay, "weight_decay")
        patience = None if self.patience is None else check_positive_int(self.patience, "patience")
        if self.augment is not None and not callable(self.augment):
            raise ValueError(f"augment must be a callable or None; got {self.augment!r}")
        return replace(
            self,
            epochs=epochs,
            batch_size=batch_size,
            optimizer=self.optimizer.lower(),
            lr=lr,
            momentum=momentum,
            weight_decay=weight_decay,
            patience=patience,
            warmup_epochs=warmup_epochs,
            milestones=milestones,
            lr_decay=lr_decay,
        )


def _device_data(model, cfg: FitConfig, data: tuple, dev, channels_last: bool) -> tuple:
    """Model and data on the device once (channels-last when asked), labels checked against the model's K."""
    x_tr, y_tr, x_va, y_va = data
    model.to(dev)
    x_tr, y_tr = x_tr.to(dev), y_tr.to(dev)
    if x_va is not None:
        x_va, y_va = x_va.to(dev), y_va.to(dev)
    if channels_last:
        model.to(memory_format=torch.channels_last)
        if x_va is not None and x_va.ndim == 4:
            x_va = x_va.contiguous(memory_format=torch.channels_last)
    _check_labels_fit(model, x_tr, (("y_train", y_tr), ("y_val", y_va)), cfg.batch_size)
    return x_tr, y_tr, x_va, y_va


def _optimizer(model, cfg: FitConfig):
    params = [p for p in model.parameters() if p.requires_grad]
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    return torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)


def _checked_options(model, config, options: dict, seed, checkpoint, channels_last) -> tuple:
    """The checked ``(FitConfig, seed, checkpoint path or None)`` of a :func:`fit` call."""
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    cfg = resolve_config(FitConfig, config, options, "fit").checked()
    seed = check_positive_int(seed, "seed", minimum=0, maximum=2**64 - 1)  # torch's seed range; no bools
    checkpoint = as_checkpoint(checkpoint)
    if not isinstance(channels_last, bool):
        raise TypeError(f"channels_last must be True or False; got {channels_last!r}")
    return cfg, seed, checkpoint


def _restore_best(cfg: FitConfig, has_val: bool) -> bool:
    """Whether :func:`fit` ends with the best weights; `patience` needs validation data."""
    if not has_val and cfg.patience is not None:
        raise ValueError(f"patience={cfg.patience} needs validation data; pass x_val and y_val")
    restore_best = cfg.patience is not None if cfg.restore_best is None else cfg.restore_best
    return bool(restore_best) and has_val


def _validation_step(model, opt, x_va, y_va, eval_batch: int, elapsed):
    """The validation of every epoch: loss and accuracy (NaN without validation data), lr and seconds."""

    def validate(epoch: int) -> dict:
        model.eval()
        val_loss, val_acc = _evaluate(model, x_va, y_va, eval_batch) if x_va is not None else (math.nan, math.nan)
        return {"val_loss": val_loss, "val_accuracy": val_acc, "lr": opt.param_groups[0]["lr"], "seconds": elapsed()}

    return validate


def _train_result(model, stopping, history: list, checkpoint, has_val: bool, elapsed) -> TrainResult:
    """The end of :func:`fit`: the best weights back (with validation data), eval mode, the checkpoint removed."""
    best_loss, best_epoch = stopping.best, stopping.best_epoch
    if not has_val:
        best_epoch, best_loss = len(history), math.nan
    else:
        stopping.restore(model.load_state_dict)
    model.eval()
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    return TrainResult(
        model=model,
        history=history,
        best_epoch=best_epoch,
        best_val_loss=float(best_loss),
        epochs_run=len(history),
        seconds=elapsed(),
    )


def _epoch_function(model, opt, cfg: FitConfig, x_tr, y_tr, shuffle_gen, dev, layout):
    """One pass over the shuffled training minibatches; returns ``{"train_loss": mean loss}``."""
    n = x_tr.shape[0]
    batch_size, augment = cfg.batch_size, cfg.augment

    def train_epoch(epoch: int) -> dict:
        model.train()
        perm = torch.randperm(n, generator=shuffle_gen).to(dev)
        loss_sum, seen = 0.0, 0
        for start in range(0, n, batch_size):
            idx = perm[start : start + batch_size]
            if idx.numel() == 1 and n > 1:
                continue
            xb, yb = x_tr[idx], y_tr[idx]
            if augment is not None:
                xb = _augmented(augment, xb, idx.numel())
            if layout is not None and xb.ndim == 4:
                xb = xb.contiguous(memory_format=layout)
            loss = F.cross_entropy(model(xb).float(), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += float(loss.detach()) * idx.numel()
            seen += idx.numel()
        train_loss = loss_sum / max(seen, 1)
        if not math.isfinite(train_loss):
            raise FloatingPointError(f"training loss became {train_loss} in epoch {epoch}; lower lr (={cfg.lr})")
        return {"train_loss": train_loss}

    return train_epoch


def fit(
    model: nn.Module,
    x_train,
    y_train,
    *,
    x_val=None,
    y_val=None,
    config: FitConfig | None = None,
    seed: int = 0,
    device: str | torch.device = "auto",
    progress: bool = True,
    checkpoint: str | os.PathLike | None = None,
    channels_last: bool = False,
    **options,
) -> TrainResult:
    """Train a classifier with minibatch cross-entropy, optionally with early stopping.

    Minimises the mean cross-entropy of the logits :math:`f_\\theta(x)`,

    .. math::

        \\mathcal{L}(\\theta) = -\\frac{1}{|B|} \\sum_{i \\in B}
        \\log \\operatorname{softmax}\\big(f_\\theta(x_i)\\big)_{y_i},

    over shuffled minibatches B with Adam or SGD with momentum. The model is trained in
    place, moved to `device` and returned in eval mode.

    Parameters
    ----------
    model : torch.nn.Module
        Network mapping a batch of `x_train` to logits (N, K).
    x_train : array-like or torch.Tensor, shape (N, ...)
        Training inputs (converted to float32), e.g. images (N, C, H, W).
    y_train : array-like or torch.Tensor, shape (N,)
        Integer labels in [0, K).
    x_val, y_val : array-like or torch.Tensor, optional
        Validation data, evaluated after every epoch (required for `patience`).
    config : FitConfig or None, default=None
        The training settings below (`epochs` to `lr_decay`) as one object; None gives the
        defaults. Options given as keywords replace the config's fields.
    seed : int, default=0
        Seeds the shuffling and the dropout masks (the caller's RNG state is unchanged).
        It does not re-initialise the weights: seed before constructing the model for that.
    device : str or torch.device, default="auto"
        See :func:`credalbook.nn.resolve_device`.
    progress : bool, default=True
        Show a tqdm progress bar over epochs.
    checkpoint : path or None, default=None
        File that makes a long run resumable. After every epoch the weights, the optimiser state,
        the shuffling and torch RNG states, the history and the early-stopping state are written
        to it (atomically); a call that finds the file resumes after the last completed epoch,
        so an interrupted run (a killed session, a lost GPU lease) continues where it stopped
        and, on the CPU, ends with the same weights and history as an uninterrupted one (an
        `augment` that draws from torch's global RNG is covered; one with its own generator is
        not). The file is deleted when training ends. Its recorded settings (optimiser, learning
        rates, epochs, batch size, patience, seed, data sizes, parameter shapes) must match the
        call's. ``seconds`` then count the training time of all calls together.
    channels_last : bool, default=False
        Train with the model's 4-D weights and the image batches (N, C, H, W) in the channels-last
        memory layout (``torch.channels_last``): the same network and updates, with other convolution
        kernels, so the weights differ in the last bits. On one CPU thread (PyTorch 2.13, oneDNN) a step of
        the Wu & Gales chapter's CPU-sized DenseNet took 0.16 s instead of 0.26 s (batch 64), of LeNet-5 0.013
        s instead of 0.020 s (batch 128). Inputs of other shapes are left as they are.

    **options
        Fields of :class:`FitConfig`:

    epochs : int, default=10
        Maximum number of passes over the training data.
    batch_size : int, default=128
        Minibatch size (also the evaluation batch size, at least 512).
    optimizer : {"adam", "sgd"}, default="adam"
        ``"sgd"`` uses `momentum`; both use `weight_decay` (L2, as in torch).
    lr : float, default=1e-3
        Base learning rate; constant unless `warmup_epochs` or `milestones` are given.
    momentum : float, default=0.9
        SGD momentum in [0, 1); ignored by Adam.
    weight_decay : float, default=0.0
        L2 penalty coefficient.
    patience : int or None, default=None
        Stop after `patience` consecutive epochs without a decrease of the validation loss.
        ``None`` trains for all `epochs`.
    restore_best : bool or None, default=None
        Load the weights of the epoch with the lowest validation loss at the end. ``None``
        means "when `patience` is set"; without validation data there is nothing to restore.
    augment : callable or None, default=None
        Applied to every training minibatch tensor (already on the device) before the
        forward pass, e.g. random flips; must return a tensor of the same batch size.
    warmup_epochs : int, default=0
        Linear warm-up: epoch e ≤ `warmup_epochs` uses ``lr * e / warmup_epochs``.
    milestones : tuple of int, default=()
        Step decay: after each listed epoch the learning rate is multiplied by `lr_decay`
        (Mimori et al., App. E.3, CIFAR-10: 5 warm-up epochs, milestones (100, 150), decay 0.1).
    lr_decay : float, default=0.1
        Factor of the step decay, in (0, 1].
    Returns
    -------
    TrainResult

    Raises
    ------
    ValueError
        For an unknown `optimizer`, non-positive `epochs`/`batch_size`/`lr`, mismatched
        lengths of `x_train` and `y_train` (or `x_val`, `y_val`), labels outside the
        model's K outputs, `patience` without validation data, a non-callable `augment`, or a
        `checkpoint` that is not a path or was written by a run with other settings.
    TypeError
        For an option that is not a field of :class:`FitConfig`.

    Notes
    -----
    Repeatability: with the same initial weights, data and `seed`, two CPU runs give
    identical weights and history. On GPUs some kernels are non-deterministic.
    A final minibatch of a single instance is skipped (batch normalisation cannot train on
    one instance); that instance is seen in other epochs because batches are reshuffled.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from credalbook.nn.models import MLP
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2)).astype("float32"); y = (x[:, 0] > 0).astype(int)
    >>> _ = torch.manual_seed(0)
    >>> res = fit(MLP(2, 2, hidden=(8,)), x, y, x_val=x, y_val=y, epochs=20, lr=1e-2,
    ...           device="cpu", progress=False)
    >>> res.epochs_run, len(res.history), res.history[-1]["val_accuracy"] > 0.9
    (20, 20, True)
    """
    start_time = time.perf_counter()
    cfg, seed, checkpoint = _checked_options(model, config, options, seed, checkpoint, channels_last)
    dev = resolve_device(device)
    data = _checked_data(x_train, y_train, x_val, y_val)
    has_val = data[2] is not None
    restore_best = _restore_best(cfg, has_val)

    x_tr, y_tr, x_va, y_va = _device_data(model, cfg, data, dev, channels_last)
    eval_batch = max(cfg.batch_size, 512)
    opt = _optimizer(model, cfg)
    shuffle_gen = torch.Generator(device="cpu").manual_seed(int(seed))
    fork_devices = [dev.index if dev.index is not None else torch.cuda.current_device()] if dev.type == "cuda" else []
    stopping = EarlyStopping(
        cfg.patience,
        better=lambda new, best: has_val and new < best,
        snapshot=(lambda: {k: v.detach().clone() for k, v in model.state_dict().items()}) if restore_best else None,
    )
    settings = _settings(
        model,
        cfg,
        restore_best=restore_best,
        seed=seed,
        channels_last=channels_last,
        n_train=x_tr.shape[0],
        n_val=x_va.shape[0] if has_val else 0,
    )
    resumed = load_checkpoint(checkpoint, settings) if checkpoint is not None else None
    history, first_epoch, elapsed_before = _resume(resumed, model, opt, stopping, cfg.epochs)
    start_time -= elapsed_before

    def elapsed() -> float:
        return time.perf_counter() - start_time

    callbacks = [_LRSchedule(opt, cfg.lr, cfg.warmup_epochs, cfg.milestones, cfg.lr_decay)]
    if checkpoint is not None:
        callbacks.append(
            _FitCheckpoint(checkpoint, settings, model, opt, shuffle_gen, fork_devices, history, stopping, elapsed)
        )
    with torch.random.fork_rng(devices=fork_devices):
        torch.manual_seed(int(seed))
        if resumed is not None:
            restore_rng_states(resumed, shuffle_gen, fork_devices)
        train_loop(
            _epoch_function(
                model, opt, cfg, x_tr, y_tr, shuffle_gen, dev, torch.channels_last if channels_last else None
            ),
            range(first_epoch, cfg.epochs + 1),
            validate=_validation_step(model, opt, x_va, y_va, eval_batch, elapsed),
            stopping=stopping,
            callbacks=callbacks,
            history=history,
            progress=progress,
            postfix=_postfix(has_val),
            desc="fit",
            unit="epoch",
            leave=False,
        )
    return _train_result(model, stopping, history, checkpoint, has_val, elapsed)


def predict_logits(model: nn.Module, x, *, batch_size: int = 1024, device: str | torch.device = "auto") -> np.ndarray:
    """Logits of `model` on `x`, computed in eval mode without gradients.

    The model is moved to `device`; its train/eval flags are restored afterwards.

    Parameters
    ----------
    model : torch.nn.Module
        Network returning logits (N, K).
    x : array-like or torch.Tensor, shape (N, ...)
        Inputs (converted to float32 and moved to the device batch by batch).
    batch_size : int, default=1024
        Instances per forward pass.
    device : str or torch.device, default="auto"
        See :func:`credalbook.nn.resolve_device`.

    Returns
    -------
    logits : numpy.ndarray, shape (N, K), float64

    Examples
    --------
    >>> import torch
    >>> from credalbook.nn.models import MLP
    >>> _ = torch.manual_seed(0)
    >>> predict_logits(MLP(4, 3, hidden=()), torch.rand(5, 4), device="cpu").shape
    (5, 3)
    """
    if not isinstance(model, nn.Module):
        raise ValueError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    batch_size = check_positive_int(batch_size, "batch_size")
    dev = resolve_device(device)
    xt = as_float_tensor(x, "x")
    modes = {m: m.training for m in model.modules()}
    model.to(dev)
    model.eval()
    try:
        with torch.no_grad():
            out = [
                model(xt[s : s + batch_size].to(dev, non_blocking=True)).to(torch.float64).cpu()
                for s in range(0, xt.shape[0], batch_size)
            ]
    finally:
        for m, mode in modes.items():
            m.train(mode)
    logits = torch.cat(out, dim=0)
    if logits.ndim != 2:
        raise ValueError(f"model must return logits of shape (N, K); got {tuple(logits.shape)}")
    return logits.numpy()


def predict_proba(model: nn.Module, x, *, batch_size: int = 1024, device: str | torch.device = "auto") -> np.ndarray:
    """Class probabilities ``softmax(logits)`` of `model` on `x` (eval mode, no gradients).

    .. math:: p_{nk} = \\exp(z_{nk}) / \\sum_j \\exp(z_{nj})

    Parameters are those of :func:`predict_logits`.

    Returns
    -------
    probs : numpy.ndarray, shape (N, K), float64
        Rows sum to one (softmax taken in float64).

    Examples
    --------
    >>> import torch
    >>> from credalbook.nn.models import MLP
    >>> _ = torch.manual_seed(0)
    >>> p = predict_proba(MLP(4, 3, hidden=(8,)), torch.rand(5, 4), device="cpu")
    >>> p.shape, bool(abs(p.sum(axis=1) - 1).max() < 1e-12)
    ((5, 3), True)
    """
    logits = predict_logits(model, x, batch_size=batch_size, device=device)
    return torch.softmax(torch.from_numpy(logits), dim=1).numpy()
