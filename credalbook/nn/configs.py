"""Settings of the cached training entry points of :mod:`credalbook.nn` (frozen dataclasses).

:class:`PredictionsConfig` holds the network and the training of :func:`credalbook.nn.train_predictions`,
:class:`HeadConfig` the heads of :func:`credalbook.nn.train_classifier_set`; both functions also take
the fields as keyword options (see :mod:`credalbook._config`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HeadConfig", "PredictionsConfig"]


@dataclass(frozen=True)
class PredictionsConfig:
    """The network and its training in :func:`~credalbook.nn.train_predictions` (the options of its keyword calls).

    Attributes
    ----------
    arch : {"mlp", "cnn"}, default="mlp"
        :func:`~credalbook.nn.build_model`'s architecture, with its `hidden`, `channels` and `dropout`.
    hidden, channels, dropout
        As in :func:`~credalbook.nn.build_model`.
    epochs, batch_size, optimizer, lr, weight_decay, patience
        As in :func:`credalbook.nn.fit` (``patience``: early stopping on the validation NLL).
    """

    arch: str = "mlp"
    hidden: tuple = (256,)
    channels: tuple = (32, 64)
    dropout: float = 0.0
    epochs: int = 20
    batch_size: int = 128
    optimizer: str = "adam"
    lr: float = 1e-3
    weight_decay: float = 0.0
    patience: int | None = None


@dataclass(frozen=True)
class HeadConfig:
    """The heads of :func:`~credalbook.nn.train_classifier_set` and their training (the options of its keyword calls).

    Attributes
    ----------
    head_hidden : int, default=1000
        Hidden ReLU units of every head (the paper's 1000).
    epochs : int, default=20
        Training epochs of every head (the paper's 20).
    batch_size : int, default=128
    optimizer : {"sgd", "adam"}, default="sgd"
    lr : float, default=1e-2
        Learning rate; see :func:`~credalbook.nn.train_classifier_set`'s Notes for why it differs from the paper's 1e-5.
    momentum : float, default=0.9
        SGD momentum (the paper's 0.99 goes with its lr of 1e-5).
    """

    head_hidden: int = 1000
    epochs: int = 20
    batch_size: int = 128
    optimizer: str = "sgd"
    lr: float = 1e-2
    momentum: float = 0.9
