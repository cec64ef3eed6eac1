"""The one epoch loop of credalbook: epochs, early stopping with best-weights restore, callbacks.

Every iterative fit in the package runs through :func:`train_loop`: the network trainer
:func:`credalbook.nn.fit`, the post-hoc calibrators' stochastic fit
(:func:`credalbook.calibration.fit_with_early_stopping`), the learned combination weights
(:func:`credalbook.stats.fit_weight_function`) and the sparse GP classifier
(:func:`credalbook.gp.fit_gp_classifier`). What an epoch *does* (minibatches, optimisers,
natural gradients, L-BFGS closures) stays with the caller as a function ``train_epoch(epoch) ->
dict``; the loop owns what they share:

- the epochs and the progress bar (:mod:`credalbook._progress`),
- the validation criterion after every epoch and the history of per-epoch records,
- early stopping (:class:`EarlyStopping`): the best value, its epoch, a snapshot of the best
  weights and the patience counter,
- callbacks (:class:`Callback`) called at the start and at the end of every epoch (learning-rate
  schedules, checkpoints, logging).

The loop draws no random numbers itself, so a caller that moves its epoch body into
``train_epoch`` keeps its random stream and its results bit for bit.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Sequence

from credalbook._progress import progress_bar
from credalbook._validation import check_positive_int

__all__ = ["Callback", "EarlyStopping", "LambdaCallback", "train_loop"]


class Callback:
    """Hooks called by :func:`train_loop`; subclass and override what you need.

    ``on_epoch_begin(epoch)`` runs before the epoch's training step (e.g. to set the learning
    rate), ``on_epoch_end(epoch, logs)`` after the validation and the early-stopping update
    (e.g. to write a checkpoint), with ``logs`` the epoch's record as stored in the history.
    ``on_train_end(history)`` runs once after the last epoch (also after early stopping).
    """

    def on_epoch_begin(self, epoch: int) -> None:
        """Called before the training step of `epoch`."""

    def on_epoch_end(self, epoch: int, logs: dict) -> None:
        """Called after `epoch` was trained, validated and recorded."""

    def on_train_end(self, history: list) -> None:
        """Called once when the loop ends."""


class LambdaCallback(Callback):
    """A :class:`Callback` from plain functions, e.g. ``LambdaCallback(on_epoch_end=save)``.

    Examples
    --------
    >>> seen = []
    >>> _ = train_loop(lambda e: {"loss": 1.0 / e}, range(1, 4),
    ...                callbacks=[LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))])
    >>> seen
    [1, 2, 3]
    """

    def __init__(
        self,
        *,
        on_epoch_begin: Callable | None = None,
        on_epoch_end: Callable | None = None,
        on_train_end: Callable | None = None,
    ) -> None:
        for name, fn in (
            ("on_epoch_begin", on_epoch_begin),
            ("on_epoch_end", on_epoch_end),
            ("on_train_end", on_train_end),
        ):
            if fn is not None and not callable(fn):
                raise ValueError(f"{name} must be a callable or None; got {fn!r}")
        self._begin, self._end, self._train_end = on_epoch_begin, on_epoch_end, on_train_end

    def on_epoch_begin(self, epoch: int) -> None:
        if self._begin is not None:
            self._begin(epoch)

    def on_epoch_end(self, epoch: int, logs: dict) -> None:
        if self._end is not None:
            self._end(epoch, logs)

    def on_train_end(self, history: list) -> None:
        if self._train_end is not None:
            self._train_end(history)


class EarlyStopping:
    """Best value of a monitored criterion, its epoch, the best weights and the patience counter.

    After each epoch :meth:`update` compares the new value with the best one (``better(new,
    best)``, by default ``new < best``). An improvement stores the value and the epoch, takes
    ``snapshot()`` (a copy of the weights) when `snapshot` is given and resets the counter;
    otherwise the counter grows, and :attr:`should_stop` turns true once it reaches `patience`.
    :meth:`restore` hands the best snapshot to ``load(state)`` (e.g. ``model.load_state_dict``).

    Parameters
    ----------
    patience : int or None, default=None
        Epochs without improvement before stopping; ``None`` never stops early.
    snapshot : callable or None, default=None
        ``snapshot() -> state`` copies the weights at an improvement.
    better : callable, default=operator.lt
        ``better(new, best) -> bool``.
    best : float, default=inf
        Starting best value (e.g. the criterion of the initial weights).
    best_epoch : int, default=0
    best_state : object, default=None
        Starting snapshot (e.g. the initial weights).
    since_best : int, default=0
        Starting counter (used when a run resumes from a checkpoint).

    Examples
    --------
    >>> stop = EarlyStopping(patience=2)
    >>> for epoch, value in enumerate([3.0, 2.0, 2.5, 2.1, 1.0], start=1):
    ...     improved = stop.update(epoch, value)
    ...     if stop.should_stop:
    ...         break
    >>> epoch, stop.best, stop.best_epoch
    (4, 2.0, 2)
    """

    def __init__(
        self,
        patience: int | None = None,
        *,
        snapshot: Callable[[], object] | None = None,
        better: Callable[[float, float], bool] = operator.lt,
        best: float = math.inf,
        best_epoch: int = 0,
        best_state=None,
        since_best: int = 0,
    ) -> None:
        if patience is not None:
            patience = check_positive_int(patience, "patience")
        if snapshot is not None and not callable(snapshot):
            raise ValueError(f"snapshot must be a callable or None; got {snapshot!r}")
        self.patience = patience
        self.snapshot = snapshot
        self.better = better
        self.best = best
        self.best_epoch = best_epoch
        self.best_state = best_state
        self.since_best = since_best

    def update(self, epoch: int, value) -> bool:
        """Record the criterion `value` of `epoch`; returns whether it improved on the best."""
        if self.better(value, self.best):
            self.best, self.best_epoch, self.since_best = value, epoch, 0
            if self.snapshot is not None:
                self.best_state = self.snapshot()
            return True
        self.since_best += 1
        return False

    @property
    def should_stop(self) -> bool:
        """Whether `patience` epochs have passed without an improvement."""
        return self.patience is not None and self.since_best >= self.patience

    def restore(self, load: Callable[[object], object]) -> None:
        """``load(best_state)`` when a snapshot exists."""
        if self.best_state is not None:
            load(self.best_state)


def train_loop(
    train_epoch: Callable[[int], dict],
    epochs: Iterable[int],
    *,
    validate: Callable[[int], dict] | None = None,
    stopping: EarlyStopping | None = None,
    monitor: str = "val_loss",
    callbacks: Sequence[Callback] = (),
    history: list | None = None,
    progress: bool = False,
    postfix: Callable[[dict], dict] | None = None,
    **bar_options,
) -> list:
    """Run ``train_epoch`` for each epoch, validate, record, stop early, call the callbacks.

    Per epoch, in this order: ``callback.on_epoch_begin(epoch)``; ``logs = {"epoch": epoch,
    **train_epoch(epoch)}``; ``logs.update(validate(epoch))`` when `validate` is given; the
    record is appended to the history; ``stopping.update(epoch, logs[monitor])`` when `stopping`
    is given; ``callback.on_epoch_end(epoch, logs)``; the progress bar shows ``postfix(logs)``;
    the loop ends when ``stopping.should_stop``. Finally ``callback.on_train_end(history)``.
    Restoring the best weights is left to the caller (``stopping.restore(load)``), which knows
    whether it wants them.

    Parameters
    ----------
    train_epoch : callable
        ``train_epoch(epoch) -> dict``: one pass of training (the caller's minibatches and
        optimiser steps), returning the epoch's training record (e.g. ``{"train_loss": ...}``).
    epochs : iterable of int
        The epoch numbers to run, e.g. ``range(1, n_epochs + 1)`` (or a later start when resuming).
    validate : callable or None, default=None
        ``validate(epoch) -> dict``, e.g. ``{"val_loss": ...}``, merged into the record.
    stopping : EarlyStopping or None, default=None
    monitor : str, default="val_loss"
        Key of the record that `stopping` watches.
    callbacks : sequence of Callback, default=()
    history : list or None, default=None
        Records of earlier epochs (a resumed run); the new ones are appended to it.
    progress : bool, default=False
        Show a progress bar over the epochs.
    postfix : callable or None, default=None
        ``postfix(logs) -> dict`` of strings shown on the bar.
    **bar_options
        Passed to the progress bar (``desc``, ``unit``, ``leave``).

    Returns
    -------
    history : list of dict
        The records, one per epoch run.

    Examples
    --------
    A scripted validation loss: the best epoch is 2, patience 2 stops after epoch 4.

    >>> losses = {1: 1.0, 2: 0.5, 3: 0.7, 4: 0.6, 5: 0.1}
    >>> stop = EarlyStopping(patience=2)
    >>> hist = train_loop(lambda e: {}, range(1, 6), validate=lambda e: {"val_loss": losses[e]},
    ...                   stopping=stop)
    >>> [h["epoch"] for h in hist], stop.best_epoch
    ([1, 2, 3, 4], 2)
    """
    if not callable(train_epoch):
        raise ValueError(f"train_epoch must be callable; got {train_epoch!r}")
    history = [] if history is None else history
    bar = progress_bar(epochs, progress=progress, **bar_options)
    try:
        for epoch in bar:
            for callback in callbacks:
                callback.on_epoch_begin(epoch)
            logs = {"epoch": epoch, **train_epoch(epoch)}
            if validate is not None:
                logs.update(validate(epoch))
            history.append(logs)
            if stopping is not None:
                stopping.update(epoch, logs[monitor])
            for callback in callbacks:
                callback.on_epoch_end(epoch, logs)
            if progress and postfix is not None and hasattr(bar, "set_postfix"):
                bar.set_postfix(postfix(logs))
            if stopping is not None and stopping.should_stop:
                break
    finally:
        bar.close()
    for callback in callbacks:
        callback.on_train_end(history)
    return history
