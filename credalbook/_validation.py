"""Input validation shared by every public function.

Each checker converts its input to a NumPy array and raises a :class:`ValueError` that names the
argument and the offending value (conventions: never ``assert``).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

#: Tolerance on ``|sum(row) - 1|`` and on the [0, 1] range for probability rows. Softmax outputs
#: in float32 are off by ~1e-7; anything beyond 1e-4 is a real mistake.
SIMPLEX_ATOL = 1e-4


def as_numpy(x, name: str) -> np.ndarray:
    """Return ``x`` as a NumPy array; torch tensors are detached and moved to the CPU."""
    if x is None:
        raise ValueError(f"{name} must be an array, got None")
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch.Tensor without importing torch
        x = x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as err:  # ragged lists and the like
        raise ValueError(f"{name} could not be converted to an array: {err}") from None


def first_index(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (for error messages)."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def fmt_index(idx: tuple[int, ...]) -> str:
    """``7`` for a 1-d index, ``(3, 1)`` otherwise (for error messages)."""
    return str(idx[0]) if len(idx) == 1 else str(idx)


def check_probs(probs, *, name: str = "probs", atol: float = SIMPLEX_ATOL, min_ndim: int = 2) -> np.ndarray:
    """Validate probability vectors along the last axis; return them as float64.

    Shape ``(..., N, K)`` with ``K >= 2``; finite; entries in [0, 1]; rows summing to one, each
    within ``atol``.
    """
    arr = as_numpy(probs, name)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions (..., N, K); got shape {arr.shape}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must have at least 2 classes along the last axis; got shape {arr.shape}")
    if arr.ndim >= 2 and arr.shape[-2] < 1:
        raise ValueError(f"{name} must contain at least one instance; got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = first_index(bad)
        raise ValueError(f"{name} must be finite; {name}[{fmt_index(idx)}] = {arr[idx]}")
    out = (arr < -atol) | (arr > 1 + atol)
    if out.any():
        idx = first_index(out)
        raise ValueError(f"{name} must lie in [0, 1]; {name}[{fmt_index(idx)}] = {arr[idx]:.6g}")
    sums = arr.sum(axis=-1)
    off = np.abs(sums - 1.0) > atol
    if off.any():
        idx = first_index(off)
        raise ValueError(
            f"{name} must sum to 1 along the last axis; row {fmt_index(idx)} sums to {sums[idx]:.6g}"
        )
    return arr


def check_labels(labels, *, n_classes: int, shape: tuple[int, ...], name: str = "labels") -> np.ndarray:
    """Validate integer class labels of the given shape with values in ``[0, n_classes)``."""
    arr = as_numpy(labels, name)
    if arr.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)} to match the predictions; got {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must hold integer class indices, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.integer):
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            idx = first_index(bad)
            raise ValueError(f"{name} must hold integer class indices; {name}[{fmt_index(idx)}] = {arr[idx]}")
    out = (arr < 0) | (arr >= n_classes)  # before the cast, so huge floats are reported as they are
    if out.any():
        idx = first_index(out)
        raise ValueError(f"{name} must lie in [0, {n_classes}); {name}[{fmt_index(idx)}] = {arr[idx]}")
    return arr.astype(np.int64)


def check_probs_labels(probs, labels, *, min_instances: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Validate a ``(probs, labels)`` pair: ``(..., N, K)`` probabilities and ``(..., N)`` labels."""
    p = check_probs(probs)
    y = check_labels(labels, n_classes=p.shape[-1], shape=p.shape[:-1])
    if p.shape[-2] < min_instances:
        raise ValueError(
            f"probs must contain at least {min_instances} instances for this measure; got N = {p.shape[-2]}"
        )
    return p, y


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Validate an integer argument ``>= minimum`` (e.g. ``n_bins``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_positive_float(value, name: str) -> float:
    """Validate a finite number ``> 0`` (e.g. a kernel ``bandwidth``); returns it as a float."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number; got {value!r}") from None
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    return v


def check_unit_values(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise unless every entry of the 1-D float array ``arr`` is finite and in [0, 1]; returns ``arr``."""
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must lie in [0, 1]; {name}[{i}] = {float(arr[i])!r}")
    return arr


def check_probability(value, name: str, *, open_interval: bool = True) -> float:
    """Validate a number in (0, 1) (or [0, 1] with ``open_interval=False``), e.g. ``alpha``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1); got {value!r}") from None
    ok = 0.0 < v < 1.0 if open_interval else 0.0 <= v <= 1.0
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}; got {value!r}")
    return v


def check_choice(value, name: str, choices) -> str:
    """Validate a string option against the allowed ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {value!r}")
    return value


def check_vertices(vertices) -> np.ndarray:
    """Vertices of a credal set: probability rows of shape (M, K)."""
    v = check_probs(vertices, name="vertices")
    if v.ndim != 2:
        raise ValueError(f"vertices must have shape (M, K) (members, classes); got shape {v.shape}")
    return v


def check_probs_2d(probs, name: str = "probs") -> np.ndarray:
    """Probability rows of shape exactly (N, K)."""
    p = check_probs(probs, name=name)
    if p.ndim != 2:
        raise ValueError(f"{name} must have shape (N, K); got shape {p.shape}")
    return p


def check_alpha0(alpha0, shape, name: str = "alpha0") -> np.ndarray:
    """alpha0 > 0 (inf allowed) broadcast to `shape`."""
    a = as_numpy(alpha0, name)
    if a.dtype == bool or not np.issubdtype(a.dtype, np.number):
        raise ValueError(f"{name} must be numeric, got dtype {a.dtype}")
    a = a.astype(np.float64)
    bad = np.isnan(a) | (a <= 0)
    if bad.any():
        raise ValueError(f"{name} must be positive (inf allowed); got {a[bad].ravel()[0]}")
    try:
        return np.broadcast_to(a, shape)
    except ValueError:
        raise ValueError(f"{name} must be a scalar or broadcast to shape {shape}; got shape {a.shape}") from None


def as_scalar(x):
    """A 0-d result as a Python ``float``; arrays with batch dimensions are returned unchanged.

    Examples
    --------
    >>> as_scalar(np.float64(0.5)), as_scalar(np.array([0.5, 0.25])).tolist()
    (0.5, [0.5, 0.25])
    """
    return float(x) if np.ndim(x) == 0 else x


def check_logits(logits, name: str = "logits", ndim: int = 2) -> torch.Tensor:
    """Finite real logits of shape (N, ..., K) with `ndim` dimensions -> float64 tensor (CPU)."""
    if isinstance(logits, torch.Tensor):
        t = logits.detach().cpu()
        if t.is_complex() or t.dtype == torch.bool:
            raise ValueError(f"{name} must hold real numbers; got dtype {t.dtype}")
        t = t.to(torch.float64)
    else:
        arr = as_numpy(logits, name)
        if arr.dtype.kind not in "fiu" or arr.dtype == bool:
            raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}")
        t = torch.from_numpy(np.array(arr, dtype=np.float64))
    shape = "(N, K)" if ndim == 2 else "(N, M, K)" if ndim == 3 else f"{ndim} dimensions"
    if t.ndim != ndim:
        raise ValueError(f"{name} must have shape {shape}; got shape {tuple(t.shape)}")
    if t.shape[0] < 1 or t.shape[-1] < 2:
        raise ValueError(f"{name} must have at least one instance and two classes; got shape "
                         f"{tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        bad = tuple(int(i) for i in torch.nonzero(~torch.isfinite(t))[0])
        raise ValueError(f"{name} must be finite; {name}{list(bad)} = {float(t[bad])}")
    return t


def check_ens_probs(ens_probs, name: str = "ens_probs", *, exact_ndim: bool = False) -> np.ndarray:
    """Validate ``ens_probs`` of shape (..., N, M, K) with M >= 1 (exactly (N, M, K) if ``exact_ndim``)."""
    arr = as_numpy(ens_probs, name)
    if arr.ndim < 3 or (exact_ndim and arr.ndim != 3):
        raise ValueError(f"{name} must have shape (N, M, K) (instances, members, classes); got shape {arr.shape}")
    if arr.shape[-2] < 1:
        raise ValueError(f"{name} must hold at least one member (M >= 1); got shape {arr.shape}")
    return check_probs(arr, name=name, min_ndim=3)


def check_weights(weights, n_members: int, *, name: str = "weights", atol: float = 1e-6) -> np.ndarray:
    """Validate convex weights (..., M): finite, non-negative, summing to one; return float64."""
    w = as_numpy(weights, name).astype(np.float64, copy=False)
    if w.ndim < 1 or w.shape[-1] != n_members:
        raise ValueError(f"{name} must have last dimension M = {n_members}; got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError(f"{name} must be finite; got {w[~np.isfinite(w)][0]}")
    if (w < -atol).any():
        raise ValueError(f"{name} must be non-negative (a point of the simplex Δ_M); found {w.min():.6g}")
    sums = w.sum(axis=-1)
    if (np.abs(sums - 1) > atol).any():
        bad = np.abs(sums - 1).argmax()
        raise ValueError(f"{name} must sum to 1 (a point of the simplex Δ_M); a row sums to {np.ravel(sums)[bad]:.6g}")
    return w
