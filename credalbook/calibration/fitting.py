r"""How the post-hoc calibrators are fitted: to the optimum, or in epochs with early stopping.

:meth:`credalbook.calibration.Calibrator.fit`, the ensemble temperatures and the α head
(:class:`credalbook.calibration.AlphaCalibrator`) hand their objective to one of two loops:

- ``optimizer="auto"`` (the default): the minimum of the objective on the given instances, to
  convergence, as Guo et al. (2017), netcal and scikit-learn fit temperature scaling. One
  log-parameter (a temperature) is found by a bracketing scalar search: a grid of step 0.5 on
  :math:`\log T \in [-10, 10]` brackets the minimum, bounded Brent
  (:func:`scipy.optimize.minimize_scalar`) refines it; several parameters by full-batch
  L-BFGS-B (:func:`scipy.optimize.minimize`, a strong-Wolfe line search, gradients by autograd)
  until the largest gradient entry is at most ``tol``; several log-parameters of a non-smooth
  objective (the hard-binned ECE) by cyclic scalar searches. Hitting the iteration limit first
  emits a :class:`sklearn.exceptions.ConvergenceWarning` that names the calibrator, the limit
  and how to raise it.
- ``optimizer="adam"`` or ``"lbfgs"``: :func:`fit_with_early_stopping`, the training scheme of
  Mimori et al. (2022), App. E.4 (Adam in minibatches, at most 50 epochs, early stopping with
  patience 10 on a held-out 20 %).

.. math::

    \hat\theta = \arg\min_\theta \; \mathcal L(\theta) + \Omega(\theta)
    \quad \text{(auto)}, \qquad
    \hat\theta = \theta_{e^*}, \; e^* = \arg\min_{e \le E} \mathcal L_{\mathrm{cv}}(\theta_e)
    \quad \text{(early stopping)}

References
----------
Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017, Sec. 4.2.
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration. arXiv:2007.01659 (2022), App. E.4.
"""

from __future__ import annotations

import copy
import math
import numbers
import os
import sys
import warnings

import numpy as np
import torch
from scipy.optimize import minimize, minimize_scalar
from sklearn.exceptions import ConvergenceWarning
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from credalbook._deprecation import renamed
from credalbook._validation import as_rng, check_positive_int
from credalbook.nn.loop import EarlyStopping, train_loop

__all__ = ["fit_with_early_stopping"]

_OPTIMIZERS = ("auto", "adam", "lbfgs")
#: Options of the epoch loop (Adam / torch L-BFGS, early stopping) and their defaults (App. E.4).
_EPOCH_DEFAULTS = {"lr": None, "max_epochs": 50, "batch_size": 128, "lbfgs_iter": 20}
#: Default iteration limit and tolerance of ``optimizer="auto"``.
_AUTO_MAX_ITER, _AUTO_TOL = 1000, 1e-6
#: Search interval and grid step of the scalar search on a log-parameter (log T in [-10, 10]).
_LOG_BOUND, _GRID_STEP = 10.0, 0.5


def _check_real(value, name: str, *, low: float, high: float = math.inf, low_open: bool = False) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))
    ok = ok and (float(value) > low if low_open else float(value) >= low) and float(value) < high
    if not ok:
        bound = f"{'>' if low_open else '>='} {low}" + (f" and < {high}" if high < math.inf else "")
        raise ValueError(f"{name} must be a finite number {bound}; got {value!r}")
    return float(value)


def _check_optimizer(optimizer) -> str:
    if not isinstance(optimizer, str) or optimizer.lower() not in _OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {_OPTIMIZERS}; got {optimizer!r}")
    return optimizer.lower()


def _reject(options: dict, applies_to: str, hint: str = "") -> None:
    """ValueError naming the options that were set (not None) but do not apply."""
    given = sorted(k for k, v in options.items() if v is not None)
    if given:
        raise ValueError(f"{given} apply only to {applies_to}" + (f"; {hint}" if hint else ""))


def _trainable(module: nn.Module) -> list:
    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        raise ValueError(f"{type(module).__name__} has no trainable parameters")
    return params


def _int_seed(seed) -> int:
    """The integer that seeds the split and the minibatch order: `seed` itself when it is a
    non-negative int, else one drawn from ``numpy.random.default_rng(seed)`` (None: fresh
    entropy; a Generator: continues its stream)."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    if seed is None or isinstance(seed, np.random.Generator):
        return int(as_rng(seed, "seed").integers(2**63))
    raise ValueError(f"seed must be None, a non-negative int or a numpy Generator; got {seed!r}")


def _split(inputs: tuple, labels: torch.Tensor, cv_fraction: float, seed: int) -> tuple:
    """Random training and held-out parts of row-aligned tensors, each (inputs, labels)."""
    n = labels.shape[0]
    n_cv = int(round(cv_fraction * n))
    if cv_fraction > 0 and not 1 <= n_cv < n:
        raise ValueError(
            f"cv_fraction={cv_fraction} leaves no held-out or no training instance "
            f"among N={n}; use cv_fraction=0 or more data"
        )
    perm = torch.from_numpy(np.random.default_rng(int(seed)).permutation(n))
    cv_idx, tr_idx = perm[:n_cv], perm[n_cv:]
    return ((tuple(t[tr_idx] for t in inputs), labels[tr_idx]), (tuple(t[cv_idx] for t in inputs), labels[cv_idx]))


def _warn_convergence(message: str) -> None:
    """A ConvergenceWarning attributed to the first caller outside credalbook.calibration (and the
    wrapper of renamed keywords)."""
    here, level, frame = os.path.dirname(os.path.abspath(__file__)), 1, sys._getframe(0)
    wrapper = os.path.abspath(sys.modules[renamed.__module__].__file__)

    def inside(f) -> bool:
        path = os.path.abspath(f.f_code.co_filename)
        return os.path.dirname(path) == here or path == wrapper

    while frame is not None and inside(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, ConvergenceWarning, stacklevel=level)


def _scalar_search(fun, x0: float, *, max_iter: int, tol: float, span: float | None = None) -> tuple:
    """Minimise ``fun`` of one log-parameter on [-10, 10]: a grid (step 0.5, over the whole
    interval, or over ``x0 ± span``) brackets the minimum, bounded Brent refines it. Returns
    (x, f, n_iter, status) with status "ok", "max_iter" or "bound".

    The current value `x0` wins ties, so that a parameter the objective does not depend on
    stays where it is.
    """
    f0 = fun(x0)

    def bracket(grid, x_best, f_best, width):
        values = np.array([fun(g) for g in grid])
        i = int(np.argmin(values))
        if values[i] < f_best:
            return (float(grid[i]), float(values[i]), grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)])
        return x_best, f_best, max(x_best - width, -_LOG_BOUND), min(x_best + width, _LOG_BOUND)

    grid = np.arange(-_LOG_BOUND, _LOG_BOUND + _GRID_STEP / 2, _GRID_STEP)
    if span is not None:
        grid = grid[np.abs(grid - x0) <= span]
    x_best, f_best, low, high = bracket(grid, float(x0), float(f0), _GRID_STEP)
    res = minimize_scalar(
        fun, bounds=(float(low), float(high)), method="bounded", options={"xatol": tol, "maxiter": max_iter}
    )
    if res.fun < f_best:
        x_best, f_best = float(res.x), float(res.fun)
    if res.status == 1:
        status = "max_iter"
    elif _LOG_BOUND - abs(x_best) < 1e-3 and (x_best != x0 or f_best < f0):
        status = "bound"
    else:
        status = "ok"
    return x_best, f_best, int(res.nit), status


def _scalar_method(value, x0: np.ndarray, max_iter: int, tol: float) -> tuple:
    """``method="scalar"`` of :func:`_fit_to_optimum`: returns (x, iterations, problem or "")."""
    x, _, n_iter, status = _scalar_search(value, float(x0[0]), max_iter=max_iter, tol=tol)
    x, problem = np.array([x]), ""
    if status == "max_iter":
        problem = (
            f"the scalar search stopped at max_iter={max_iter} Brent iterations "
            f"before the bracket shrank to tol={tol}; raise max_iter or tol"
        )
    elif status == "bound":
        problem = (
            f"the optimum lies at the edge of the search interval (log-parameter "
            f"{x[0]:+.1f}): the objective keeps decreasing beyond it (separable "
            f"data, or labels unrelated to the logits)"
        )
    return x, n_iter, problem


def _bounded_method(value, x0: np.ndarray, f_start: float, max_iter: int, tol: float) -> tuple:
    """``method="bounded"``: bounded Brent on the whole interval [-10, 10] of one log-parameter, for an
    objective known to be unimodal there (no bracketing grid), and the two edges (a flat tail, as of separable
    data, goes to its edge as in :func:`_scalar_search`); `x0` wins ties. Returns as :func:`_scalar_method`."""
    res = minimize_scalar(
        value, bounds=(-_LOG_BOUND, _LOG_BOUND), method="bounded", options={"xatol": tol, "maxiter": max_iter}
    )
    candidates = [(f_start, float(x0[0])), (value(-_LOG_BOUND), -_LOG_BOUND), (float(res.fun), float(res.x))]
    _, x = min([*candidates, (value(_LOG_BOUND), _LOG_BOUND)], key=lambda c: c[0])  # the first of the smallest
    problem = ""
    if res.status == 1:
        problem = (
            f"the scalar search stopped at max_iter={max_iter} Brent iterations "
            f"before the bracket shrank to tol={tol}; raise max_iter or tol"
        )
    elif _LOG_BOUND - abs(x) < 1e-3 and x != x0[0]:
        problem = (
            f"the optimum lies at the edge of the search interval (log-parameter "
            f"{x:+.1f}): the objective keeps decreasing beyond it (separable "
            f"data, or labels unrelated to the logits)"
        )
    return np.array([x]), int(res.nit), problem


def _coordinate_method(value, x0: np.ndarray, f_start: float, max_iter: int, tol: float) -> tuple:
    """``method="coordinate"``: cyclic scalar searches until a sweep gains at most `tol`."""
    x, f, n_iter = x0.copy(), f_start, 0
    converged = False
    while n_iter < max_iter and not converged:
        n_iter += 1
        f_sweep = f
        for j in range(len(x)):

            def along(v, j=j):
                y = x.copy()
                y[j] = v
                return value(y)

            # the whole interval in the first sweep, the neighbourhood afterwards
            xj, fj, _, _ = _scalar_search(
                along, float(x[j]), max_iter=_AUTO_MAX_ITER, tol=tol, span=None if n_iter == 1 else 1.0
            )
            if fj < f:
                x[j], f = xj, fj
        converged = f_sweep - f <= tol
    problem = (
        ""
        if converged
        else (
            f"the coordinate search stopped at max_iter={max_iter} sweeps while "
            f"the objective still decreased by more than tol={tol}; raise max_iter "
            f"or tol"
        )
    )
    return x, n_iter, problem


def _lbfgs_method(value_and_grad, x0: np.ndarray, max_iter: int, tol: float) -> tuple:
    """``method="lbfgs"``: scipy's L-BFGS-B with autograd gradients."""
    res = minimize(
        value_and_grad,
        x0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxfun": max(15000, 20 * max_iter)},
    )
    g_max = float(np.max(np.abs(res.jac))) if res.jac is not None else math.nan
    problem = ""
    if res.status == 1:
        problem = (
            f"L-BFGS stopped at max_iter={max_iter} iterations before convergence "
            f"(largest gradient entry {g_max:.2e} > tol={tol}); raise max_iter or tol"
        )
    elif res.status != 0 and not g_max <= max(1e3 * tol, 1e-4):
        problem = f"L-BFGS stopped without converging ({res.message}; largest gradient entry {g_max:.2e} > tol={tol})"
    return res.x, int(res.nit), problem


def _fit_to_optimum(
    module: nn.Module,
    inputs: tuple,
    labels: torch.Tensor,
    *,
    loss,
    cv_loss,
    method: str = "lbfgs",
    max_iter: int | None = None,
    tol: float | None = None,
    cv_fraction: float = 0.0,
    seed=None,
) -> tuple[list, int, float]:
    """Minimise ``loss(*inputs, labels)`` over `module`'s parameters to convergence.

    The ``optimizer="auto"`` path of :meth:`~credalbook.calibration.Calibrator.fit` and of the α
    head. `method`:
    ``"lbfgs"`` (scipy's L-BFGS-B on all parameters, gradients by autograd, stopping when the
    largest gradient entry is at most `tol`), ``"scalar"`` (one log-parameter, see
    :func:`_scalar_search`), ``"bounded"`` (one log-parameter of a unimodal objective, see
    :func:`_bounded_method`) or ``"coordinate"`` (cyclic scalar searches over log-parameters
    until a sweep lowers the loss by at most `tol`; for non-smooth losses). Returns what
    :func:`fit_with_early_stopping` returns: a two-entry history (start, end), the number of
    iterations in place of the best epoch, and the held-out ``cv_loss`` (NaN without a
    held-out part).
    """
    name = type(module).__name__
    max_iter = _AUTO_MAX_ITER if max_iter is None else check_positive_int(max_iter, "max_iter")
    tol = _AUTO_TOL if tol is None else _check_real(tol, "tol", low=0.0, low_open=True)
    cv_fraction = _check_real(cv_fraction, "cv_fraction", low=0.0, high=1.0)
    if seed is None and cv_fraction == 0:
        seed = 0  # nothing held out: the fit is deterministic (the rows' order is that of seed 0)
    (tr_in, tr_y), (cv_in, cv_y) = _split(inputs, labels, cv_fraction, _int_seed(seed))
    params = _trainable(module)
    dtype = params[0].dtype
    x0 = parameters_to_vector(params).detach().to(torch.float64).numpy().copy()

    def assign(x: np.ndarray) -> None:
        with torch.no_grad():
            vector_to_parameters(torch.as_tensor(x, dtype=dtype), params)

    def value(x) -> float:
        assign(np.atleast_1d(np.asarray(x, dtype=np.float64)))
        with torch.no_grad():
            f = float(loss(*tr_in, tr_y))
        return f if math.isfinite(f) else math.inf

    def value_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        assign(x)
        f = loss(*tr_in, tr_y)
        grads = torch.autograd.grad(f, params, allow_unused=True)
        g = (
            torch.cat(
                [torch.zeros(p.numel(), dtype=dtype) if gr is None else gr.reshape(-1) for p, gr in zip(params, grads)]
            )
            .to(torch.float64)
            .numpy()
        )
        f = float(f.detach())
        if not (math.isfinite(f) and np.all(np.isfinite(g))):
            return math.inf, np.zeros_like(g)
        return f, g

    def held_out() -> float:
        if not len(cv_y):
            return math.nan
        with torch.no_grad():
            return float(cv_loss(*cv_in, cv_y))

    f_start = value(x0)
    if not math.isfinite(f_start):
        raise FloatingPointError(f"{name}: the training loss is not finite at the initial parameters")
    start = {"epoch": 0, "train_loss": f_start, "cv_nll": held_out()}
    searches = {
        "scalar": lambda: _scalar_method(value, x0, max_iter, tol),
        "bounded": lambda: _bounded_method(value, x0, f_start, max_iter, tol),
        "coordinate": lambda: _coordinate_method(value, x0, f_start, max_iter, tol),
        "lbfgs": lambda: _lbfgs_method(value_and_grad, x0, max_iter, tol),
    }
    if method not in searches:
        raise ValueError(f"method must be 'lbfgs', 'scalar', 'bounded' or 'coordinate'; got {method!r}")
    x, n_iter, problem = searches[method]()
    assign(np.asarray(x, dtype=np.float64))
    f = value(x)
    if not math.isfinite(f):
        raise FloatingPointError(f"{name}: the training loss became {f}")
    if problem:
        _warn_convergence(f"{name}.fit: {problem}.")
    end = {"epoch": n_iter, "train_loss": f, "cv_nll": held_out()}
    return [start, end], n_iter, end["cv_nll"]


@renamed(targets="labels")
def fit_with_early_stopping(
    module: nn.Module,
    inputs: tuple,
    labels: torch.Tensor,
    *,
    loss,
    cv_loss,
    optimizer: str = "adam",
    patience: int | None = 10,
    cv_fraction: float = 0.2,
    seed=None,
    **epoch_options,
) -> tuple[list, int, float]:
    """Fit `module`'s parameters by minimising ``loss(*inputs, labels)`` with early stopping.

    The optimisation loop shared by :class:`~credalbook.calibration.Calibrator` and the α head
    (:mod:`credalbook.calibration.alpha`). Rows (dimension 0 of every tensor) are split at
    random into a training part and a held-out ``cv_fraction``; after every epoch
    ``cv_loss(*held_out_inputs, held_out_labels)`` is evaluated and the parameters of the best
    epoch are restored at the end (App. E.4: Adam, learning rate 1e-3, at most 50 epochs,
    patience 10, 80 / 20 split).

    Parameters
    ----------
    module : torch.nn.Module
        Holds the parameters to fit (all of its parameters with ``requires_grad``).
    inputs : tuple of torch.Tensor
        Row-aligned inputs of `loss`.
    labels : torch.Tensor
        Row-aligned labels (or label histograms).
    loss, cv_loss : callable
        Training objective and held-out criterion, both ``f(*inputs, labels) -> scalar``.
    optimizer, patience, cv_fraction
        As in :meth:`~credalbook.calibration.Calibrator.fit`.
    seed : None, int or numpy.random.Generator, default=None
        Seeds the split and the minibatch order (an int is used as it is; None draws one).
    **epoch_options
        ``lr`` (None: 1e-3 for Adam, 1 for L-BFGS), ``max_epochs`` (50), ``batch_size`` (128),
        ``lbfgs_iter`` (20), as in :meth:`~credalbook.calibration.Calibrator.fit`.

    Returns
    -------
    history : list of dict
        ``epoch``, ``train_loss`` (loss on the training part after the epoch), ``cv_nll``.
    best_epoch : int
        Epoch whose parameters are kept (0: the initial ones were best, which emits a
        :class:`sklearn.exceptions.ConvergenceWarning`: the fit ended where it started).
    best_cv : float
        Held-out criterion of the kept parameters (NaN without a held-out part).

    Examples
    --------
    >>> scale = nn.Parameter(torch.zeros((), dtype=torch.float64))
    >>> holder = nn.Module(); holder.scale = scale
    >>> x = torch.linspace(-1, 1, 50, dtype=torch.float64); y = 2 * x
    >>> mse = lambda a, b: ((scale * a - b) ** 2).mean()
    >>> _, _, cv = fit_with_early_stopping(holder, (x,), y, loss=mse, cv_loss=mse,
    ...                                    optimizer="lbfgs", seed=0)
    >>> round(scale.item(), 4), cv < 1e-12
    (2.0, True)
    """
    if not isinstance(optimizer, str) or optimizer.lower() not in _OPTIMIZERS[1:]:
        raise ValueError(f"optimizer must be one of {_OPTIMIZERS[1:]}; got {optimizer!r}")
    optimizer = optimizer.lower()
    unknown = sorted(set(epoch_options) - set(_EPOCH_DEFAULTS))
    if unknown:
        raise TypeError(
            f"fit_with_early_stopping() got unexpected keyword arguments {unknown}; the epoch "
            f"options are {sorted(_EPOCH_DEFAULTS)}"
        )
    lr, max_epochs, batch_size, lbfgs_iter = (
        {**_EPOCH_DEFAULTS, **epoch_options}[k] for k in ("lr", "max_epochs", "batch_size", "lbfgs_iter")
    )
    if lr is None:
        lr = 1e-3 if optimizer == "adam" else 1.0
    lr = _check_real(lr, "lr", low=0.0, low_open=True)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    lbfgs_iter = check_positive_int(lbfgs_iter, "lbfgs_iter")
    if patience is not None:
        patience = check_positive_int(patience, "patience")
    cv_fraction = _check_real(cv_fraction, "cv_fraction", low=0.0, high=1.0)
    if seed is None and cv_fraction == 0 and optimizer == "lbfgs":
        seed = 0  # full batches and nothing held out: deterministic (the rows' order is that of seed 0)
    seed = _int_seed(seed)
    (tr_in, tr_y), (cv_in, cv_y) = _split(inputs, labels, cv_fraction, seed)
    n_cv = len(cv_y)
    params = _trainable(module)
    if optimizer == "adam":
        opt = torch.optim.Adam(params, lr=lr)
    else:
        opt = torch.optim.LBFGS(params, lr=lr, max_iter=lbfgs_iter, line_search_fn="strong_wolfe")
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
                idx = order[start : start + batch_size]
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
            raise FloatingPointError(f"the training loss became {train} in epoch {epoch}; lower lr (={lr})")
        return {"train_loss": train, "cv_nll": cv}

    stopping = EarlyStopping(
        patience,
        best=evaluate()[1],
        best_state=copy.deepcopy(module.state_dict()),
        snapshot=lambda: copy.deepcopy(module.state_dict()),
        better=lambda new, best: n_cv == 0 or new < best,
    )
    history = train_loop(train_epoch, range(1, max_epochs + 1), stopping=stopping, monitor="cv_nll")
    stopping.restore(module.load_state_dict)
    best_cv, best_epoch = stopping.best, stopping.best_epoch
    if best_epoch == 0 and n_cv and history:
        _warn_convergence(
            f"{type(module).__name__}.fit: kept its initial parameters: no epoch lowered the held-out loss "
            f"below its value at the start ({float(best_cv):.6g}; {len(history)} epochs of {optimizer}, patience "
            f"{patience}), so the fit ended where it started; raise lr (={lr}) or max_epochs, or use optimizer='auto'."
        )
    return history, best_epoch, float(best_cv)
