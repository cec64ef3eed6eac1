r"""Learning an instance-dependent convex combination :math:`\boldsymbol\lambda(\mathbf x)` (Jürgens et al., Sec. 3.5).

A small MLP maps features :math:`\mathbf x` to weights on the simplex :math:`\Delta_M` (softmax
over the M members); the combined prediction is :math:`\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x)
= \sum_m \lambda_m(\mathbf x)\,\hat{\mathbf p}^{(m)}(\mathbf x)`. It is trained on an optimisation
split with the combined loss of Eq. (16),

.. math::
    \mathcal L(\boldsymbol\lambda) = S(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D_{opt})
    + \gamma\, \widehat{CE}(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D_{opt}),

with a proper score S (Brier or log loss) and a differentiable calibration estimator
(:mod:`credalbook.metrics.distribution`); estimators that can be negative (SKCE, MMD) enter
squared (App. A). Training uses Adam with minibatches, early stopping on a held-out validation part
and restores the best weights, as the authors' code does (mkjuergens/EnsembleCalibration@8dff2b5:
``src/meta_model/primary_model.py``, l. 44-64, a linear input layer, LeakyReLU hidden layers and a
softmax over the members; ``src/meta_model/train.py``, l. 1060-1134, Adam with early stopping on
the validation loss, and l. 53-61, the best model kept; ``src/run_t1t2_analysis.py``, l. 324-334,
3 hidden layers of width 16, batch 512, 250 epochs, patience 100; ``src/main_t1t2_synthetic.py``,
l. 193-197, width 32, 300 epochs, patience 100).

**Many problems at once.** The error-rate experiments learn one :math:`\boldsymbol\lambda(\mathbf x)`
per synthetic dataset. :func:`fit_weight_function` stacks the R networks' parameters along a leading
dimension (batched matrix products), so R independent networks train in one loop: each has its
own loss, Adam state (Adam is element-wise), early-stopping counter and best weights. Results equal
R separate trainings with the same minibatch order. A problem whose early-stopping patience has
run out leaves the batch (its best weights are already kept), so the cost of an epoch follows the
number of problems still training rather than the slowest one.
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from credalbook._validation import (
    as_numpy,
    as_rng,
    check_choice,
    check_ens_probs,
    check_labels,
    check_positive_int,
    check_real_dtype,
)
from credalbook.metrics.distribution import estimator_function, ESTIMATORS
from credalbook.nn.device import resolve_device
from credalbook.nn.loop import Callback, EarlyStopping, train_loop

__all__ = ["WeightFunction", "WeightLearningConfig", "fit_weight_function", "LOSS_PRESETS", "PROPER_SCORES"]

PROPER_SCORES = ("brier", "log")
#: (proper score, γ) per estimator: the values of the authors' ``create_config_proper_losses``
#: (mkjuergens/EnsembleCalibration@8dff2b5, ``src/config/config_cal_test.py``, l. 88, 115, 141, 167).
LOSS_PRESETS = {
    "lp": ("brier", 0.5),
    "kl": ("log", 0.0),
    "mmd": ("brier", 0.1),
    "skce": ("brier", 1.0),
    "brier": ("brier", 0.0),
}
_SQUARED = ("skce", "mmd")  # estimators that can be negative


class _BatchedMLP(torch.nn.Module):
    """R independent MLPs d → hidden… → M, parameters stacked along dim 0."""

    def __init__(self, n_problems: int, n_in: int, hidden: tuple, n_out: int, generator: torch.Generator, dtype):
        super().__init__()
        sizes = (n_in, *hidden, n_out)
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        for a, b in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / math.sqrt(a)  # torch.nn.Linear's default initialisation
            w = (torch.rand(n_problems, a, b, generator=generator, dtype=dtype) * 2 - 1) * bound
            bias = (torch.rand(n_problems, 1, b, generator=generator, dtype=dtype) * 2 - 1) * bound
            self.weights.append(torch.nn.Parameter(w))
            self.biases.append(torch.nn.Parameter(bias))

    def forward(self, x: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
        """Weights (R', N, M) for inputs (R', N, d); ``rows`` selects R' of the R networks (default all)."""
        h = x
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if rows is not None:
                w, b = w[rows], b[rows]
            h = torch.baddbmm(b, h, w)
            if i < last:
                h = torch.nn.functional.leaky_relu(h)
        return torch.softmax(h, dim=-1)


@dataclass(frozen=True)
class WeightFunction:
    r"""A learned :math:`\boldsymbol\lambda(\mathbf x)` for R problems (R = 1 for a single one).

    Call :meth:`weights` on features to get convex weights and :meth:`combine` to form
    :math:`\hat{\mathbf p}_{\boldsymbol\lambda}`. Parameters live on the CPU as float tensors.

    Attributes
    ----------
    state : dict
        Stacked network parameters (``w0, b0, w1, b1, …``), each with leading dimension R.
    mean, scale : ndarray (R, 1, d)
        Feature standardisation fitted on the optimisation split.
    best_epoch : ndarray (R,)
        Epoch whose validation loss was lowest (its weights are the ones kept).
    best_loss : ndarray (R,)
    history : ndarray (R, epochs run, 2)
        Training and validation loss per epoch (NaN after a problem stopped early).
    config : dict
    seconds : float
    """

    state: dict = field(repr=False)
    mean: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    best_epoch: np.ndarray
    best_loss: np.ndarray
    history: np.ndarray = field(repr=False)
    config: dict
    seconds: float
    batched: bool = True

    def _net(self, dtype=torch.float64) -> _BatchedMLP:
        n_layers = len(self.state) // 2
        ws = [self.state[f"w{i}"] for i in range(n_layers)]
        net = _BatchedMLP(
            ws[0].shape[0],
            ws[0].shape[1],
            tuple(w.shape[2] for w in ws[:-1]),
            ws[-1].shape[2],
            torch.Generator().manual_seed(0),
            dtype,
        )
        with torch.no_grad():
            for i in range(n_layers):
                net.weights[i].copy_(self.state[f"w{i}"])
                net.biases[i].copy_(self.state[f"b{i}"])
        return net

    def weights(self, features) -> np.ndarray:
        """Convex weights (R, N, M) (or (N, M) for a single problem) at ``features`` (R, N, d) / (N, d)."""
        x = _features(features, "features", self.batched)
        if x.shape[0] != self.mean.shape[0] or x.shape[-1] != self.mean.shape[-1]:
            raise ValueError(
                f"features must have shape ({self.mean.shape[0]}, N, {self.mean.shape[-1]}) "
                f"(or (N, d) for one problem); got {tuple(np.shape(features))}"
            )
        z = torch.from_numpy((x - self.mean) / self.scale)
        with torch.no_grad():
            lam = self._net()(z).numpy()
        return lam if self.batched else lam[0]

    def combine(self, features, ens_probs) -> np.ndarray:
        r""":math:`\hat{\mathbf p}_{\boldsymbol\lambda}(\mathbf x_i) = \sum_m \lambda_m(\mathbf x_i)\hat{\mathbf p}^{(m)}_i`, shape (R, N, K) / (N, K)."""
        lam = self.weights(features)
        ens = check_ens_probs(ens_probs)
        if ens.shape[:-1] != lam.shape:
            raise ValueError(f"ens_probs must have shape {(*lam.shape, '…')} to match features; got {ens.shape}")
        return np.einsum("...nmk,...nm->...nk", ens, lam)


def _features(x, name: str, batched: bool) -> np.ndarray:
    arr = check_real_dtype(as_numpy(x, name), name).astype(np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if not batched:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError(f"{name} must have shape (R, N, d) (or (N, d) / (N,) for one problem); got {np.shape(x)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def _score(p: torch.Tensor, y: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "brier":
        return ((p - torch.nn.functional.one_hot(y, p.shape[-1]).to(p.dtype)) ** 2).sum(-1).mean(-1)
    return -torch.log(p.gather(-1, y[..., None]).squeeze(-1).clamp_min(1e-12)).mean(-1)


def _split_validation(n: int, fraction: float, rng: np.random.Generator):
    perm = rng.permutation(n)
    n_val = max(1, int(round(fraction * n)))
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


@dataclass(frozen=True)
class WeightLearningConfig:
    """The validated settings of :func:`fit_weight_function` (loss, network and optimisation).

    Build it with :meth:`from_options`, which applies the defaults of :data:`LOSS_PRESETS`.

    Examples
    --------
    >>> cfg = WeightLearningConfig.from_options(estimator="skce")
    >>> cfg.score, cfg.gamma, cfg.hidden
    ('brier', 1.0, (32, 32, 32))
    """

    estimator: str = "lp"
    estimator_options: dict = field(default_factory=dict)
    score: str = "brier"
    gamma: float = 0.5
    val_fraction: float = 0.25
    hidden: tuple = (32, 32, 32)
    lr: float = 1e-3
    batch_size: int = 512
    max_epochs: int = 300
    patience: int = 100

    @classmethod
    def from_options(
        cls,
        *,
        estimator: str = "lp",
        estimator_options: dict | None = None,
        score: str | None = None,
        gamma: float | None = None,
        val_fraction: float = 0.25,
        hidden=(32, 32, 32),
        lr: float = 1e-3,
        batch_size: int = 512,
        max_epochs: int = 300,
        patience: int = 100,
    ) -> WeightLearningConfig:
        """Check the options (``ValueError`` naming the argument) and fill `score`/`gamma` from the presets."""
        check_choice(estimator, "estimator", ESTIMATORS)
        default_score, default_gamma = LOSS_PRESETS[estimator]
        score = default_score if score is None else check_choice(score, "score", PROPER_SCORES)
        gamma = default_gamma if gamma is None else float(gamma)
        if not (math.isfinite(gamma) and gamma >= 0):
            raise ValueError(f"gamma must be a finite number >= 0; got {gamma!r}")
        options = dict(estimator_options or {})
        estimator_function(estimator, **options)  # bandwidths are checked here, before any work
        return cls(
            estimator=estimator,
            estimator_options=options,
            score=score,
            gamma=gamma,
            val_fraction=val_fraction,
            hidden=tuple(check_positive_int(h, "hidden") for h in hidden),
            lr=lr,
            batch_size=check_positive_int(batch_size, "batch_size"),
            max_epochs=check_positive_int(max_epochs, "max_epochs"),
            patience=check_positive_int(patience, "patience"),
        )

    def record(self, **extra) -> dict:
        """The configuration stored with a :class:`WeightFunction` (plus `extra`, e.g. the device and sizes)."""
        return dict(
            estimator=self.estimator,
            estimator_options=dict(self.estimator_options),
            score=self.score,
            gamma=self.gamma,
            hidden=self.hidden,
            lr=self.lr,
            batch_size=self.batch_size,
            max_epochs=self.max_epochs,
            patience=self.patience,
            **extra,
        )


def fit_weight_function(
    features,
    ens_probs,
    labels,
    *,
    config: WeightLearningConfig | None = None,
    val_features=None,
    val_ens_probs=None,
    val_labels=None,
    device="cpu",
    dtype=torch.float32,
    seed=0,
    progress: bool = False,
    **options,
) -> WeightFunction:
    r"""Train :math:`\boldsymbol\lambda(\mathbf x)` with the loss of Jürgens et al. Eq. (16), for one or R problems at once.

    Parameters
    ----------
    features : array (N, d) / (N,), or (R, N, d) for R independent problems
    ens_probs : array (N, M, K) or (R, N, M, K)
        Member predictions on the optimisation split.
    labels : array (N,) or (R, N)
    config : WeightLearningConfig, optional
        The loss, network and optimisation settings at once; or give them one by one as
        ``**options`` (not both).
    val_features, val_ens_probs, val_labels : optional
        Early-stopping split (same layout). If omitted, ``val_fraction`` of the optimisation data
        is held out (the paper's 60/20 split corresponds to 0.25 of the 80%).
    device : str or torch.device, default "cpu"
        ``"auto"`` picks CUDA when available.
    dtype : torch dtype, default float32
    seed : int
    progress : bool
        A progress bar over epochs.
    **options
        The settings of :meth:`WeightLearningConfig.from_options` when ``config`` is None:

        - ``estimator`` ({"lp", "kl", "skce", "mmd", "brier"}, default "lp"): the calibration estimator of the
          loss (``"brier"``: the score alone).
        - ``estimator_options`` (dict, optional): e.g. ``{"bandwidth": 0.01}``; defaults in
          :data:`~credalbook.metrics.ESTIMATOR_BANDWIDTHS`.
        - ``score`` ({"brier", "log"}, optional): the proper score S; default from :data:`LOSS_PRESETS` (the
          authors' pairing).
        - ``gamma`` (float ≥ 0, optional): γ; default from :data:`LOSS_PRESETS` (L_p 0.5, KL 0, MMD 0.1, SKCE 1).
        - ``val_fraction`` (float, default 0.25): the share held out for early stopping without ``val_*``.
        - ``hidden`` (tuple of int, default (32, 32, 32)): hidden widths (LeakyReLU).
        - ``lr``, ``batch_size``, ``max_epochs``, ``patience`` (default 1e-3, 512, 300, 100): Adam's learning
          rate, the minibatch size, the epoch limit, the early-stopping patience (epochs).

    Returns
    -------
    WeightFunction

    Notes
    -----
    The steps: the options become a :class:`WeightLearningConfig` (checked once); the problems
    are checked to agree; the early-stopping part is split off (or taken from the ``val_*``
    arguments); the features are standardised on the optimisation part; the R stacked networks
    are trained by :func:`credalbook.nn.train_loop` with per-problem early stopping. The random
    stream is, in this order: the validation split, the network initialisation and the minibatch
    order, all from ``numpy.random.default_rng(seed)``.

    Examples
    --------
    Two members; the labels come from :math:`0.3\,\hat{\mathbf p}^{(1)} + 0.7\,\hat{\mathbf p}^{(2)}`:

    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(0, 5, size=(1500, 1))
    >>> ens = np.stack([np.c_[0.2 + 0.1 * x, 0.8 - 0.1 * x], np.full((1500, 2), 0.5)], axis=1)
    >>> truth = 0.3 * ens[:, 0] + 0.7 * ens[:, 1]
    >>> y = (rng.random(1500) < truth[:, 1]).astype(int)
    >>> fw = fit_weight_function(x, ens, y, estimator="brier", max_epochs=60, seed=0)
    >>> bool(abs(fw.weights(x)[:, 0].mean() - 0.3) < 0.15)
    True
    """
    cfg = _config(config, options)
    rng = as_rng(seed)
    batched, x, ens, y = _problems(features, ens_probs, labels)
    dev = resolve_device(device)
    (x, ens, y), (xv, ev, yv) = _optimisation_and_validation(
        (x, ens, y), (val_features, val_ens_probs, val_labels), batched, cfg.val_fraction, rng
    )
    mean, scale = _standardisation(x)
    start = time.perf_counter()
    trainer = _BatchedTrainer(cfg, [((x - mean) / scale, ens, y), ((xv - mean) / scale, ev, yv)], dev, dtype, rng)
    history = trainer.run(progress)
    config = cfg.record(device=str(dev), n_train=y.shape[1], n_val=yv.shape[1])
    return WeightFunction(
        trainer.best_weights(),
        mean,
        scale,
        trainer.stopping.best_epoch,
        trainer.stopping.best.numpy(),
        history,
        config,
        time.perf_counter() - start,
        batched,
    )


def _config(config, options: dict) -> WeightLearningConfig:
    """``config``, or the :class:`WeightLearningConfig` of ``options`` (TypeError naming what does not fit)."""
    if config is not None:
        if options:
            raise TypeError(f"fit_weight_function() got config and the options {sorted(options)}; pass one of them")
        if not isinstance(config, WeightLearningConfig):
            raise TypeError(f"config must be a WeightLearningConfig; got {type(config).__name__}")
        return config
    known = set(inspect.signature(WeightLearningConfig.from_options).parameters) - {"cls"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"fit_weight_function() got unexpected options {unknown}; it accepts {sorted(known)}")
    return WeightLearningConfig.from_options(**options)


def _problems(features, ens_probs, labels):
    """(batched, features (R, N, d), ens_probs (R, N, M, K), labels (R, N)), checked to agree."""
    # labels (N,) or (R, N) say whether the problems are batched; their shape is checked against
    # ens_probs before the features are read, so a labels array of the wrong shape is named as such
    y = as_numpy(labels, "labels")
    if y.ndim not in (1, 2):
        raise ValueError(f"labels must have shape (N,) (or (R, N) for R problems); got {y.shape}")
    batched = y.ndim == 2
    ens = check_ens_probs(ens_probs)
    if ens.ndim != y.ndim + 2 or ens.shape[:-2] != y.shape:
        raise ValueError(
            f"labels must have shape ens_probs.shape[:-2] = {ens.shape[:-2]} (ens_probs "
            f"{'(R, N, M, K)' if batched else '(N, M, K)'}); got labels {y.shape}, ens_probs {ens.shape}"
        )
    y = check_labels(y, n_classes=ens.shape[-1], shape=y.shape)
    x = _features(features, "features", batched)
    ens = ens if batched else ens[None]
    y = y if batched else y[None]
    if ens.shape[:2] != x.shape[:2]:
        raise ValueError(
            f"features (R, N, d), ens_probs (R, N, M, K) and labels (R, N) must agree; got "
            f"{np.shape(features)}, {np.shape(ens_probs)}, {np.shape(labels)}"
        )
    return batched, x, ens, y


def _optimisation_and_validation(data, val_data, batched: bool, val_fraction: float, rng):
    """The optimisation part and the early-stopping part: given, or ``val_fraction`` held out (draws from `rng`)."""
    x, ens, y = data
    val_features, val_ens_probs, val_labels = val_data
    if val_features is None:
        tr, va = _split_validation(x.shape[1], val_fraction, rng)
        return (x[:, tr], ens[:, tr], y[:, tr]), (x[:, va], ens[:, va], y[:, va])
    xv = _features(val_features, "val_features", batched)
    ev = check_ens_probs(val_ens_probs, "val_ens_probs")
    yv = as_numpy(val_labels, "val_labels")
    ev, yv = (ev, yv) if batched else (ev[None], yv[None])
    if ev.shape[:2] != xv.shape[:2] or yv.shape != xv.shape[:2] or ev.shape[2:] != ens.shape[2:]:
        raise ValueError("val_features, val_ens_probs and val_labels must match the optimisation data's layout")
    yv = check_labels(yv, n_classes=ens.shape[-1], shape=yv.shape, name="val_labels")
    return (x, ens, y), (xv, ev, yv)


def _standardisation(x: np.ndarray):
    """Per-problem mean and scale (R, 1, d) of the features; constant features keep scale 1."""
    mean = x.mean(axis=1, keepdims=True)
    scale = x.std(axis=1, keepdims=True)
    return mean, np.where(scale > 0, scale, 1.0)


class _BatchedStopping(EarlyStopping):
    """Early stopping of R problems at once: per-problem best loss, epoch, weights and patience.

    Only the problems in ``active`` are trained; a problem whose patience has run out leaves
    ``active`` (its best weights are kept), and the loop stops when none is left.
    """

    def __init__(self, net, r: int, patience: int, dev) -> None:
        super().__init__(
            patience,
            best=torch.full((r,), float("inf"), dtype=torch.float64),
            best_state={k: v.detach().clone() for k, v in net.state_dict().items()},
        )
        self.net, self.dev = net, dev
        self.best_epoch = np.zeros(r, dtype=np.int64)
        self.waited = np.zeros(r, dtype=np.int64)
        self.active = np.arange(r)
        self.still = np.ones(r, dtype=bool)

    def update(self, epoch: int, value) -> bool:
        act_t = torch.from_numpy(self.active)
        improved = (value < self.best[act_t]).numpy()
        if improved.any():
            mask = torch.zeros(len(self.best), dtype=torch.bool)
            mask[self.active[improved]] = True
            mask = mask.to(self.dev)
            for k, v in self.net.state_dict().items():
                self.best_state[k] = torch.where(mask.view(-1, *([1] * (v.dim() - 1))), v.detach(), self.best_state[k])
            self.best[act_t[torch.from_numpy(improved)]] = value[torch.from_numpy(improved)]
            self.best_epoch[self.active[improved]] = epoch
        self.waited[self.active] = np.where(improved, 0, self.waited[self.active] + 1)
        self.still = self.waited[self.active] < self.patience
        return bool(improved.any())

    @property
    def should_stop(self) -> bool:
        return not self.still.any()


class _BatchedTrainer(Callback):
    """Adam on R stacked networks in shuffled minibatches; drops the problems that stopped (a callback)."""

    def __init__(self, cfg: WeightLearningConfig, data, dev, dtype, rng: np.random.Generator) -> None:
        (x, ens, y), (xv, ev, yv) = data

        def to(a, kind=dtype):
            return torch.as_tensor(a, dtype=kind, device=dev)

        self.cfg, self.dev = cfg, dev
        self.full = (to(x), to(ens), to(y, torch.long), to(xv), to(ev), to(yv, torch.long))
        self.r, self.n = y.shape
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        self.net = _BatchedMLP(self.r, x.shape[-1], cfg.hidden, ens.shape[2], gen, dtype).to(dev)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.ce = estimator_function(cfg.estimator, **dict(cfg.estimator_options))
        self.stopping = _BatchedStopping(self.net, self.r, cfg.patience, dev)
        self.perm_gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        self.data = (*self.full, None)

    def loss(self, xb, eb, yb, rows):
        """Eq. (16) per problem: proper score + γ · calibration estimate (squared where it can be negative)."""
        cfg = self.cfg
        lam = self.net(xb, rows)
        p = torch.einsum("rnmk,rnm->rnk", eb, lam).clamp_min(0)
        loss = _score(p, yb, cfg.score)
        if cfg.gamma > 0:
            c = self.ce(p, yb)
            loss = loss + cfg.gamma * (c * c if cfg.estimator in _SQUARED else c)
        return loss

    def train_epoch(self, epoch: int) -> dict:
        xa, ea, ya, _, _, _, rows = self.data
        n, batch_size = self.n, self.cfg.batch_size
        perm = torch.randperm(n, generator=self.perm_gen).to(self.dev)
        total = torch.zeros(len(self.stopping.active), dtype=torch.float64)
        for lo in range(0, n, batch_size):
            idx = perm[lo : lo + batch_size]
            if len(idx) < 2:
                continue
            losses = self.loss(xa[:, idx], ea[:, idx], ya[:, idx], rows)
            self.opt.zero_grad(set_to_none=True)
            losses.sum().backward()
            self.opt.step()
            total += losses.detach().double().cpu() * len(idx) / n
        return {"train_loss": total}

    def validate(self, epoch: int) -> dict:
        _, _, _, xva, eva, yva, rows = self.data
        with torch.no_grad():
            return {"val_loss": self.loss(xva, eva, yva, rows).double().cpu()}

    def on_epoch_end(self, epoch: int, logs: dict) -> None:
        row = np.full((self.r, 2), np.nan)
        row[self.stopping.active] = torch.stack([logs["train_loss"], logs["val_loss"]], -1).numpy()
        logs["row"] = row
        still = self.stopping.still
        if still.any() and not still.all():  # later epochs cost only what still trains
            self.stopping.active = active = self.stopping.active[still]
            keep = torch.as_tensor(active, device=self.dev)
            self.data = (*(t[keep] for t in self.full), keep)

    def run(self, progress: bool) -> np.ndarray:
        """Train until every problem stopped or `max_epochs`; the history (R, epochs run, 2)."""
        history = train_loop(
            self.train_epoch,
            range(self.cfg.max_epochs),
            validate=self.validate,
            stopping=self.stopping,
            callbacks=[self],
            progress=progress,
            desc="λ(x)",
        )
        return np.stack([logs["row"] for logs in history], axis=1)

    def best_weights(self) -> dict:
        """The kept parameters ``w0, b0, w1, b1, …`` on the CPU in float64."""
        best = self.stopping.best_state
        state = {}
        for i in range(len(self.cfg.hidden) + 1):
            state[f"w{i}"] = best[f"weights.{i}"].detach().double().cpu()
            state[f"b{i}"] = best[f"biases.{i}"].detach().double().cpu()
        return state
