"""The callbacks of :func:`credalbook.nn.fit`: the learning-rate schedule and the resumable checkpoint.

:class:`_LRSchedule` sets the learning rate of every epoch (linear warm-up, then a step decay after
each milestone) before it starts. After every epoch :class:`_FitCheckpoint` writes the weights, the
optimiser state, the shuffling and torch RNG states, the history and the early-stopping state
(:func:`credalbook.cache.save_checkpoint`); :func:`_settings` is what the file records of the run, so
that a call with other settings refuses to resume it, and :func:`_resume` loads a checkpoint's state
into the model, the optimiser and the early stopping.
"""

from __future__ import annotations

from credalbook.cache import rng_states, save_checkpoint
from credalbook.nn.loop import Callback


def _scheduled_lr(lr: float, epoch: int, warmup_epochs: int, milestones: tuple, decay: float) -> float:
    """Learning rate of (1-based) ``epoch``: linear warm-up, then a step decay after each milestone."""
    factor = decay ** sum(epoch > m for m in milestones)
    if warmup_epochs and epoch <= warmup_epochs:
        factor *= epoch / warmup_epochs
    return lr * factor


class _LRSchedule(Callback):
    """Sets the learning rate of every epoch (warm-up, then step decay) before it starts."""

    def __init__(self, opt, lr, warmup_epochs, milestones, decay) -> None:
        self.opt, self.args = opt, (lr, warmup_epochs, milestones, decay)

    def on_epoch_begin(self, epoch: int) -> None:
        lr, warmup, milestones, decay = self.args
        for group in self.opt.param_groups:
            group["lr"] = _scheduled_lr(lr, epoch, warmup, milestones, decay)


class _FitCheckpoint(Callback):
    """Writes what :func:`credalbook.nn.fit` needs to resume after every epoch."""

    def __init__(self, path, settings, model, opt, shuffle_gen, fork_devices, history, stopping, elapsed) -> None:
        self.path, self.settings, self.model, self.opt = path, settings, model, opt
        self.shuffle_gen, self.fork_devices, self.history = shuffle_gen, fork_devices, history
        self.stopping, self.elapsed = stopping, elapsed

    def on_epoch_end(self, epoch: int, logs: dict) -> None:
        stop = self.stopping
        save_checkpoint(
            self.path,
            dict(
                settings=self.settings,
                model=self.model.state_dict(),
                optimizer=self.opt.state_dict(),
                **rng_states(self.shuffle_gen, self.fork_devices),
                history=self.history,
                best_loss=stop.best,
                best_epoch=stop.best_epoch,
                since_best=stop.since_best,
                best_state=stop.best_state,
                seconds=self.elapsed(),
            ),
        )


def _settings(model, cfg, *, restore_best: bool, seed: int, channels_last: bool, n_train: int, n_val: int) -> dict:
    """What a checkpoint records of the run, to refuse resuming another one."""
    return dict(
        epochs=cfg.epochs,
        batch_size=cfg.batch_size,
        optimizer=cfg.optimizer,
        lr=cfg.lr,
        momentum=cfg.momentum,
        weight_decay=cfg.weight_decay,
        patience=cfg.patience,
        restore_best=restore_best,
        seed=int(seed),
        warmup_epochs=cfg.warmup_epochs,
        milestones=list(cfg.milestones),
        lr_decay=cfg.lr_decay,
        **({"channels_last": True} if channels_last else {}),
        n_train=int(n_train),
        n_val=int(n_val),
        shapes=[list(v.shape) for v in model.state_dict().values()],
    )


def _resume(resumed: dict | None, model, opt, stopping, epochs: int) -> tuple[list, int, float]:
    """Load a checkpoint's state; returns (history, first epoch, seconds already spent)."""
    history, first_epoch, elapsed_before = [], 1, 0.0
    if resumed is not None:
        model.load_state_dict(resumed["model"])
        opt.load_state_dict(resumed["optimizer"])
        history = list(resumed["history"])
        stopping.best, stopping.best_epoch = resumed["best_loss"], resumed["best_epoch"]
        stopping.since_best, stopping.best_state = resumed["since_best"], resumed["best_state"]
        first_epoch = len(history) + 1
        elapsed_before = float(resumed["seconds"])
    if stopping.should_stop:  # killed between the last save and the clean-up
        first_epoch = epochs + 1
    return history, first_epoch, elapsed_before
