"""Post-hoc calibrators fitted on stored logits with labels or label histograms.

Temperature, vector and matrix scaling transform the logits u of a trained network linearly,

.. math::

    \\tilde u = W u + b, \\qquad \\tilde f = \\operatorname{softmax}(\\tilde u)

(Mimori et al. 2022, App. D.1, Eqs. 46-47): matrix scaling learns W and b, vector scaling
``W = diag(v)``, temperature scaling ``W = I / T`` and ``b = 0``. With label histograms they are
fitted by the multinomial negative log-likelihood of Eq. 84 (:func:`histogram_nll`), which is the
usual cross-entropy when every instance has one label (Sec. 5.1).

Design. :class:`Calibrator` is a :class:`torch.nn.Module` that owns everything except the map:
input checks, the 80 / 20 calibration / early-stopping split, the optimiser (Adam in minibatches
as in App. E.4, or full-batch L-BFGS) and prediction. A subclass adds parameters in
``_build(n_classes)`` and the differentiable map in ``transform(logits)``, optionally a
``penalty()``. The fitting loop only ever calls ``objective(logits, label_hist)``, which is
``nll(logits, label_hist) + penalty()`` with ``nll`` evaluating :func:`histogram_nll` on
``log_predict(logits)`` (by default ``log_softmax(transform(logits))``). Ensemble calibrators
(Wu & Gales 2021) therefore only override these hooks: set ``logits_ndim = 3`` to take member
logits (N, M, K) and override ``log_predict`` to combine members after a per-member temperature
(pre-combination), or to apply the temperature to the combined log-probabilities
(post-combination); a region-specific ("dynamic") temperature is a ``transform`` that picks one
of several temperatures from each instance's own logits. The hyper-parameter grids of App. F.3 and
their selection by held-out NLL are in :mod:`credalbook.calibration.selection`.
"""

from __future__ import annotations

import copy
import math
import numbers

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from credalbook._validation import as_numpy, check_logits, check_positive_int
from credalbook.nn.loop import EarlyStopping, train_loop
from credalbook.metrics.label_hist import check_label_hist

__all__ = ["CALIBRATORS", "Calibrator", "MatrixScaling", "TemperatureScaling", "VectorScaling",
           "fit_with_early_stopping", "histogram_nll"]

_OPTIMIZERS = ("adam", "lbfgs")


# ------------------------------------------------------------------------------ input checks
def _as_label_hist(targets, n: int, k: int, name: str = "targets") -> torch.Tensor:
    """Labels (N,) or label histograms (N, K) of non-negative integer counts -> float64 (N, K)."""
    arr = as_numpy(targets, name)
    if arr.dtype == bool or arr.dtype.kind not in "fiu":
        raise ValueError(f"{name} must hold integer labels (N,) or counts (N, K); got dtype "
                         f"{arr.dtype}")
    if arr.ndim == 1:
        if arr.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) or ({n}, {k}) to match the logits; "
                             f"got {arr.shape}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
            raise ValueError(f"{name} given as labels (N,) must be integers")
        if n and (arr.min() < 0 or arr.max() >= k):
            raise ValueError(f"{name} must be labels in [0, {k}); got labels from {arr.min()} to "
                             f"{arr.max()}")
        return F.one_hot(torch.from_numpy(arr.astype(np.int64)), k).to(torch.float64)
    if arr.shape != (n, k):
        raise ValueError(f"{name} must have shape ({n},) or ({n}, {k}) to match the logits; got "
                         f"{arr.shape}")
    counts = check_label_hist(arr, n_classes=k, min_labels=0, name=name)
    if counts.sum() == 0:
        raise ValueError(f"{name} must contain at least one label; all counts are 0")
    return torch.from_numpy(counts.astype(np.float64))


def _hist_nll(log_probs: torch.Tensor, hist: torch.Tensor) -> torch.Tensor:
    """Eq. 84 on tensors: -sum(y log z) / sum(y); 0 * log 0 counts as 0."""
    terms = torch.where(hist > 0, hist * log_probs, torch.zeros_like(log_probs))
    return -terms.sum() / hist.sum()


def histogram_nll(logits, targets, *, from_logits: bool = True) -> float:
    """Multinomial negative log-likelihood of label histograms, per label (Eq. 84).

    .. math::

        \\mathcal L(y, z) = -\\frac{1}{\\sum_i n_i} \\sum_{i=1}^N \\sum_{k=1}^K y_{ik} \\log z_{ik},
        \\qquad n_i = \\sum_k y_{ik},

    the multinomial NLL up to the constant :math:`-\\sum_i \\log\\binom{n_i}{y_i}`. With one label
    per instance it is the mean cross-entropy.

    Parameters
    ----------
    logits : array-like or torch.Tensor, shape (N, K)
        Logits (or probabilities with ``from_logits=False``).
    targets : array-like, shape (N,) or (N, K)
        Integer labels in [0, K) or label histograms (non-negative integer counts).
    from_logits : bool, default=True
        Whether `logits` are logits (softmax applied) or probabilities.

    Returns
    -------
    float

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Eq. 84 (and Eq. 7 with the
    multinomial likelihood, Sec. 5.1).

    Examples
    --------
    >>> round(histogram_nll([[0.0, 0.0]], [[1, 3]]), 4)  # log 2
    0.6931
    >>> histogram_nll([[0.5, 0.5], [0.9, 0.1]], [0, 0], from_logits=False) == histogram_nll(
    ...     [[0.5, 0.5], [0.9, 0.1]], [[1, 0], [1, 0]], from_logits=False)
    True
    """
    z = check_logits(logits)
    hist = _as_label_hist(targets, z.shape[0], z.shape[1])
    if from_logits:
        log_probs = torch.log_softmax(z, dim=1)
    else:
        if bool((z < 0).any()) or bool(((z.sum(dim=1) - 1).abs() > 1e-4).any()):
            raise ValueError("logits given as probabilities (from_logits=False) must be rows on "
                             "the simplex")
        log_probs = torch.log(z)
    return float(_hist_nll(log_probs, hist))


# --------------------------------------------------------------------------------- base class
class Calibrator(nn.Module):
    """Base class of post-hoc calibrators on stored logits (see the module docstring).

    Subclasses implement ``_build(n_classes)`` (create parameters for K classes) and
    ``transform(logits)`` (a differentiable map of logits of shape ``(..., K)``); they may add
    ``penalty()`` and, for ensembles, set ``logits_ndim`` and override ``log_predict``.
    :meth:`fit` minimises :meth:`objective` and sets ``history_`` (a list of dicts with
    ``epoch``, ``train_loss`` and ``cv_nll``), ``best_epoch_``, ``cv_nll_`` (the Eq. 84 NLL of
    the held-out part at the kept parameters; NaN with ``cv_fraction=0``) and ``n_classes_``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> logits = 3 * rng.normal(size=(500, 3))
    >>> labels = np.array([rng.choice(3, p=p) for p in np.exp(logits / 3) /
    ...                    np.exp(logits / 3).sum(1, keepdims=True)])
    >>> ts = TemperatureScaling().fit(logits, labels, optimizer="lbfgs")
    >>> histogram_nll(ts.predict_logits(logits), labels) < histogram_nll(logits, labels)
    True
    """

    #: Dimensions of the logits this calibrator takes: 2 for (N, K), 3 for members (N, M, K).
    logits_ndim = 2

    def __init__(self) -> None:
        super().__init__()
        self.n_classes_: int | None = None
        self.history_: list = []
        self.best_epoch_: int = 0
        self.cv_nll_: float = math.nan

    # ---- hooks ---------------------------------------------------------------------------
    def _build(self, n_classes: int) -> None:
        """Create the parameters for `n_classes` classes (called by :meth:`fit`)."""

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        """Calibrated logits, same shape as `logits` (differentiable)."""
        raise NotImplementedError

    def penalty(self) -> torch.Tensor:
        """Regularisation added to the training objective (0 by default)."""
        return torch.zeros((), dtype=torch.float64)

    def log_predict(self, logits: torch.Tensor) -> torch.Tensor:
        """Calibrated log-probabilities (N, K): ``log_softmax(transform(logits))`` by default."""
        return torch.log_softmax(self.transform(logits), dim=-1)

    def nll(self, logits: torch.Tensor, label_hist: torch.Tensor) -> torch.Tensor:
        """Eq. 84 NLL of the calibrated predictions (tensors; differentiable)."""
        return _hist_nll(self.log_predict(logits), label_hist)

    def objective(self, logits: torch.Tensor, label_hist: torch.Tensor) -> torch.Tensor:
        """Training objective: :meth:`nll` plus :meth:`penalty` (tensors; differentiable)."""
        return self.nll(logits, label_hist) + self.penalty()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return self.transform(logits)

    # ---- fitting -------------------------------------------------------------------------
    def fit(self, logits, targets, *, optimizer: str = "adam", lr: float | None = None,
            max_epochs: int = 50, batch_size: int = 128, patience: int | None = 10,
            cv_fraction: float = 0.2, lbfgs_iter: int = 20, seed: int = 0) -> Calibrator:
        """Fit on stored logits and labels or label histograms; returns ``self``.

        A random ``cv_fraction`` of the instances (20 % in App. E.4) is held out; the
        parameters are trained on the rest and the epoch with the lowest held-out NLL
        (Eq. 84, without penalty) is kept, stopping after `patience` epochs without
        improvement. ``cv_fraction=0`` trains on everything for `max_epochs` epochs.

        Parameters
        ----------
        logits : array-like or torch.Tensor, shape (N, K)
            Stored logits (``(N, M, K)`` for calibrators with ``logits_ndim = 3``).
        targets : array-like, shape (N,) or (N, K)
            Labels or label histograms.
        optimizer : {"adam", "lbfgs"}, default="adam"
            Adam in shuffled minibatches (the paper's choice), or full-batch L-BFGS with a
            strong-Wolfe line search, one ``step`` of at most `lbfgs_iter` iterations per epoch.
        lr : float or None, default=None
            Learning rate; ``None`` gives 1e-3 for Adam (App. E.4) and 1 for L-BFGS.
        max_epochs : int, default=50
        batch_size : int, default=128
            Adam minibatch size.
        patience : int or None, default=10
            Early-stopping patience in epochs; ``None`` runs all epochs (still keeping the best).
        cv_fraction : float, default=0.2
            Held-out fraction in [0, 1).
        lbfgs_iter : int, default=20
        seed : int, default=0
            Seeds the split and the minibatch order.

        Returns
        -------
        self
        """
        z = check_logits(logits, ndim=self.logits_ndim)
        hist = _as_label_hist(targets, z.shape[0], z.shape[-1])
        n_classes = z.shape[-1]
        self._build(n_classes)  # fresh parameters at every fit
        self.n_classes_ = n_classes
        self.to(torch.float64)
        result = fit_with_early_stopping(
            self, (z,), hist, loss=self.objective, cv_loss=self.nll, optimizer=optimizer, lr=lr,
            max_epochs=max_epochs, batch_size=batch_size, patience=patience,
            cv_fraction=cv_fraction, lbfgs_iter=lbfgs_iter, seed=seed)
        self.history_, self.best_epoch_, self.cv_nll_ = result
        return self

    # ---- prediction ----------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if self.n_classes_ is None:
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _prepared(self, logits) -> torch.Tensor:
        self._check_fitted()
        z = check_logits(logits, ndim=self.logits_ndim)
        if z.shape[-1] != self.n_classes_:
            raise ValueError(f"logits must have {self.n_classes_} classes like the fitting data; "
                             f"got {z.shape[-1]}")
        return z

    @torch.no_grad()
    def predict_logits(self, logits) -> np.ndarray:
        """Calibrated logits ``transform(logits)`` as a float64 array."""
        return self.transform(self._prepared(logits)).numpy()

    @torch.no_grad()
    def predict_proba(self, logits) -> np.ndarray:
        """Calibrated probabilities ``exp(log_predict(logits))``, shape (N, K), float64."""
        return torch.exp(self.log_predict(self._prepared(logits))).numpy()


# ----------------------------------------------------------------------------- optimisation
def _check_real(value, name: str, *, low: float, high: float = math.inf,
                low_open: bool = False) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and math.isfinite(float(value))
    ok = ok and (float(value) > low if low_open else float(value) >= low) and float(value) < high
    if not ok:
        bound = f"{'>' if low_open else '>='} {low}" + (f" and < {high}" if high < math.inf else "")
        raise ValueError(f"{name} must be a finite number {bound}; got {value!r}")
    return float(value)


def fit_with_early_stopping(module: nn.Module, inputs: tuple, targets: torch.Tensor, *, loss,
                            cv_loss, optimizer: str = "adam", lr: float | None = None,
                            max_epochs: int = 50, batch_size: int = 128,
                            patience: int | None = 10, cv_fraction: float = 0.2,
                            lbfgs_iter: int = 20, seed: int = 0) -> tuple[list, int, float]:
    """Fit `module`'s parameters by minimising ``loss(*inputs, targets)`` with early stopping.

    The optimisation loop shared by :class:`Calibrator` and the α-calibration head
    (:mod:`credalbook.calibration.alpha`). Rows (dimension 0 of every tensor) are split at
    random into a training part and a held-out ``cv_fraction``; after every epoch
    ``cv_loss(*held_out_inputs, held_out_targets)`` is evaluated and the parameters of the best
    epoch are restored at the end (App. E.4: Adam, learning rate 1e-3, at most 50 epochs,
    patience 10, 80 / 20 split).

    Parameters
    ----------
    module : torch.nn.Module
        Holds the parameters to fit (all of its parameters with ``requires_grad``).
    inputs : tuple of torch.Tensor
        Row-aligned inputs of `loss`.
    targets : torch.Tensor
        Row-aligned targets.
    loss, cv_loss : callable
        Training objective and held-out criterion, both ``f(*inputs, targets) -> scalar``.
    optimizer, lr, max_epochs, batch_size, patience, cv_fraction, lbfgs_iter, seed
        As in :meth:`Calibrator.fit`.

    Returns
    -------
    history : list of dict
        ``epoch``, ``train_loss`` (loss on the training part after the epoch), ``cv_nll``.
    best_epoch : int
        Epoch whose parameters are kept (0: the initial ones were best).
    best_cv : float
        Held-out criterion of the kept parameters (NaN without a held-out part).

    Examples
    --------
    >>> scale = nn.Parameter(torch.zeros((), dtype=torch.float64))
    >>> holder = nn.Module(); holder.scale = scale
    >>> x = torch.linspace(-1, 1, 50, dtype=torch.float64); y = 2 * x
    >>> mse = lambda a, b: ((scale * a - b) ** 2).mean()
    >>> _, _, cv = fit_with_early_stopping(holder, (x,), y, loss=mse, cv_loss=mse,
    ...                                    optimizer="lbfgs")
    >>> round(scale.item(), 4), cv < 1e-12
    (2.0, True)
    """
    if not isinstance(optimizer, str) or optimizer.lower() not in _OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {_OPTIMIZERS}; got {optimizer!r}")
    optimizer = optimizer.lower()
    if lr is None:
        lr = 1e-3 if optimizer == "adam" else 1.0
    lr = _check_real(lr, "lr", low=0.0, low_open=True)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    lbfgs_iter = check_positive_int(lbfgs_iter, "lbfgs_iter")
    if patience is not None:
        patience = check_positive_int(patience, "patience")
    cv_fraction = _check_real(cv_fraction, "cv_fraction", low=0.0, high=1.0)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")

    n = targets.shape[0]
    n_cv = int(round(cv_fraction * n))
    if cv_fraction > 0 and not 1 <= n_cv < n:
        raise ValueError(f"cv_fraction={cv_fraction} leaves no held-out or no training instance "
                         f"among N={n}; use cv_fraction=0 or more data")
    perm = torch.from_numpy(np.random.default_rng(int(seed)).permutation(n))
    cv_idx, tr_idx = perm[:n_cv], perm[n_cv:]
    tr_in, tr_y = tuple(t[tr_idx] for t in inputs), targets[tr_idx]
    cv_in, cv_y = tuple(t[cv_idx] for t in inputs), targets[cv_idx]

    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        raise ValueError(f"{type(module).__name__} has no trainable parameters")
    if optimizer == "adam":
        opt = torch.optim.Adam(params, lr=lr)
    else:
        opt = torch.optim.LBFGS(params, lr=lr, max_iter=lbfgs_iter,
                                line_search_fn="strong_wolfe")
    gen = torch.Generator().manual_seed(int(seed))

    def evaluate():
        with torch.no_grad():
            train = float(loss(*tr_in, tr_y))
            cv = float(cv_loss(*cv_in, cv_y)) if n_cv else math.nan
        return train, cv

    def train_epoch(epoch: int) -> dict:
        if optimizer == "adam":
            order = torch.randperm(len(tr_y), generator=gen)
            for start in range(0, len(tr_y), batch_size):
                idx = order[start:start + batch_size]
                opt.zero_grad(set_to_none=True)
                loss(*(t[idx] for t in tr_in), tr_y[idx]).backward()
                opt.step()
        else:
            def closure():
                opt.zero_grad(set_to_none=True)
                value = loss(*tr_in, tr_y)
                value.backward()
                return value
            opt.step(closure)
        train, cv = evaluate()
        if not math.isfinite(train):
            raise FloatingPointError(f"the training loss became {train} in epoch {epoch}; "
                                     f"lower lr (={lr})")
        return {"train_loss": train, "cv_nll": cv}

    stopping = EarlyStopping(patience, best=evaluate()[1], best_state=copy.deepcopy(module.state_dict()),
                             snapshot=lambda: copy.deepcopy(module.state_dict()),
                             better=lambda new, best: n_cv == 0 or new < best)
    history = train_loop(train_epoch, range(1, max_epochs + 1), stopping=stopping, monitor="cv_nll")
    stopping.restore(module.load_state_dict)
    best_cv, best_epoch = stopping.best, stopping.best_epoch
    return history, best_epoch, float(best_cv)


# ------------------------------------------------------------------------------ calibrators
class TemperatureScaling(Calibrator):
    """Temperature scaling: :math:`\\tilde u = u / T` with one temperature T > 0.

    .. math::

        \\tilde f(x) = \\operatorname{softmax}\\big(u(x) / T\\big)

    T is parameterised as ``exp(log_t)`` (initialised at 1). It keeps the arg-max of every
    instance, hence the accuracy.

    References
    ----------
    Guo et al. (2017), On calibration of modern neural networks, ICML (Sec. 4.2).
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. D.1 (Eq. 46 with W = I/T,
    b = 0) and App. E.4.

    Examples
    --------
    >>> import numpy as np
    >>> ts = TemperatureScaling().fit(np.array([[4.0, 0.0]] * 6), [0, 0, 0, 0, 1, 1],
    ...                               optimizer="lbfgs", cv_fraction=0)
    >>> round(ts.temperature, 3)  # softmax(4 / T)_0 = 2/3 at T = 4 / log 2
    5.771
    """

    def _build(self, n_classes: int) -> None:
        self.log_t = nn.Parameter(torch.zeros((), dtype=torch.float64))

    @property
    def temperature(self) -> float:
        """The fitted temperature T."""
        self._check_fitted()
        return float(torch.exp(self.log_t.detach()))

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        return logits * torch.exp(-self.log_t)


class VectorScaling(Calibrator):
    """Vector scaling with an L2 penalty on the bias (Eqs. 46 and 48).

    .. math::

        \\tilde u = v \\odot u + b, \\qquad
        \\Omega_{L2}(b) = \\lambda_b \\frac{1}{K} \\sum_k b_k^2

    v is initialised at 1 and b at 0.

    Parameters
    ----------
    lambda_b : float, default=0.1
        Bias penalty :math:`\\lambda_b \\ge 0` (the paper picks from {0.1, 1, 10}, App. F.3).

    References
    ----------
    Guo et al. (2017), ICML (vector scaling). Mimori et al. (2022), Diagnostic Uncertainty
    Calibration, App. D.1, Eqs. 46 and 48, and App. F.3.

    Examples
    --------
    >>> import numpy as np
    >>> vs = VectorScaling(lambda_b=1.0).fit(np.zeros((8, 2)), [0] * 6 + [1] * 2,
    ...                                      optimizer="lbfgs", cv_fraction=0)
    >>> bool(vs.predict_proba(np.zeros((1, 2)))[0, 0] > 0.5)
    True
    """

    def __init__(self, lambda_b: float = 0.1) -> None:
        super().__init__()
        self.lambda_b = _check_real(lambda_b, "lambda_b", low=0.0)

    def _build(self, n_classes: int) -> None:
        self.scale = nn.Parameter(torch.ones(n_classes, dtype=torch.float64))
        self.bias = nn.Parameter(torch.zeros(n_classes, dtype=torch.float64))

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        return logits * self.scale + self.bias

    def penalty(self) -> torch.Tensor:
        return self.lambda_b * self.bias.pow(2).mean()


class MatrixScaling(Calibrator):
    """Matrix scaling with off-diagonal and intercept regularisation (ODIR; Eqs. 46 and 49).

    .. math::

        \\tilde u = W u + b, \\qquad
        \\Omega_{\\mathrm{ODIR}}(W, b) = \\lambda_w \\frac{1}{K(K-1)} \\sum_{k \\ne k'} W_{kk'}^2
        + \\lambda_b \\frac{1}{K} \\sum_k b_k^2

    W is initialised at the identity and b at 0.

    Parameters
    ----------
    lambda_w : float, default=10.0
        Off-diagonal penalty (the paper picks from {0.1, 1, 10}, App. F.3).
    lambda_b : float, default=0.1
        Bias penalty.

    References
    ----------
    Kull et al. (2019), Beyond temperature scaling: obtaining well-calibrated multiclass
    probabilities with Dirichlet calibration, NeurIPS (ODIR). Mimori et al. (2022), Diagnostic
    Uncertainty Calibration, App. D.1, Eqs. 46 and 49, and App. F.3.

    Examples
    --------
    >>> import numpy as np
    >>> ms = MatrixScaling().fit(np.eye(3)[[0, 1, 2] * 4] * 2, [0, 1, 2] * 4, optimizer="lbfgs",
    ...                          cv_fraction=0)
    >>> ms.predict_proba(np.eye(3) * 2).argmax(axis=1)
    array([0, 1, 2])
    """

    def __init__(self, lambda_w: float = 10.0, lambda_b: float = 0.1) -> None:
        super().__init__()
        self.lambda_w = _check_real(lambda_w, "lambda_w", low=0.0)
        self.lambda_b = _check_real(lambda_b, "lambda_b", low=0.0)

    def _build(self, n_classes: int) -> None:
        self.weight = nn.Parameter(torch.eye(n_classes, dtype=torch.float64))
        self.bias = nn.Parameter(torch.zeros(n_classes, dtype=torch.float64))
        self.register_buffer("off_diagonal", 1.0 - torch.eye(n_classes, dtype=torch.float64))

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        return logits @ self.weight.T + self.bias

    def penalty(self) -> torch.Tensor:
        k = self.weight.shape[0]
        off = (self.weight * self.off_diagonal).pow(2).sum() / (k * (k - 1))
        return self.lambda_w * off + self.lambda_b * self.bias.pow(2).mean()


#: Calibrators by the paper's abbreviations (ts, vs, ms).
CALIBRATORS = {"ts": TemperatureScaling, "vs": VectorScaling, "ms": MatrixScaling}
