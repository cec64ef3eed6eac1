"""Input validation shared by every public function.

Each checker converts its input to a NumPy array and raises a :class:`ValueError` that names the
argument and the offending value (conventions: never ``assert``). The checks on large arrays make
a few cheap reductions (minimum, maximum, row sums) and look for the offending entry only when one
fails, so validating N = 10⁶ rows of K = 10 probabilities costs a few milliseconds.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

#: Smallest tolerance on ``|sum(row) - 1|`` and on the [0, 1] range for probability rows. Softmax
#: outputs in float32 are off by ~1e-7; anything beyond 1e-4 is a real mistake. Low-precision
#: inputs get a wider tolerance, see :func:`simplex_atol`.
SIMPLEX_ATOL = 1e-4

#: Largest number of bins a binned estimator accepts (:func:`check_n_bins`). Estimators hold a few
#: arrays of n_bins × K floats; beyond 10⁶ bins (widths below 1e-6) every bin holds at most one of
#: the 10⁶ predictions of the largest evaluation sets the library targets, so larger values are
#: mistakes (and 10⁹ bins would need tens of GiB).
MAX_BINS = 10**6

# dtype kinds accepted as real numbers: bool, signed and unsigned integers, floats
_REAL_KINDS = "biuf"


def _is_tensor(x) -> bool:
    return hasattr(x, "detach") and hasattr(x, "cpu")  # torch.Tensor without an isinstance check


def loaded_torch():
    """The torch module if it is imported (a tensor or a torch dtype can exist only then), else None."""
    return sys.modules.get("torch")


def is_torch_tensor(x) -> bool:
    """Whether ``x`` is a torch tensor, without importing torch (no tensor exists before it is imported)."""
    return (torch := loaded_torch()) is not None and isinstance(x, torch.Tensor)


class _LazyTorch:
    """``torch``, imported on the first use of one of its attributes (``torch.softmax``, ``torch.Tensor``):
    a module that handles tensors only in some of its calls imports it as ``torch`` from here."""

    def __getattr__(self, name: str):
        import torch

        return getattr(torch, name)


lazy_torch = _LazyTorch()


class _LazyModule:
    """A module imported on the first use of one of its attributes: ``scipy.stats`` costs about half a second
    to import, which a command that never reaches a p-value (``credalbook --help``, the metrics) need not pay."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


#: ``scipy.stats``, imported on first use (the modules of p-values import it as ``stats`` from here).
lazy_scipy_stats = _LazyModule("scipy.stats")


def as_numpy(x, name: str) -> np.ndarray:
    """Return ``x`` as a NumPy array; torch tensors are detached and moved to the CPU.

    bfloat16 tensors, which NumPy cannot hold, become float32.
    """
    if x is None:
        raise ValueError(f"{name} must be an array, got None")
    if _is_tensor(x):
        x = x.detach().cpu()
        if x.dtype == lazy_torch.bfloat16:
            x = x.float()
        x = x.numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as err:  # ragged lists and the like
        raise ValueError(f"{name} could not be converted to an array: {err}") from None


def check_real_dtype(
    arr: np.ndarray, name: str, *, allow_bool: bool = True, what: str = "be numeric (real numbers)"
) -> np.ndarray:
    """Raise unless ``arr`` holds real numbers (bools only with ``allow_bool``): no complex, object or string dtypes.

    The message reads ``f"{name} must {what}, got dtype {dtype}"``.
    """
    kinds = _REAL_KINDS if allow_bool else _REAL_KINDS[1:]
    if arr.dtype.kind not in kinds:
        raise ValueError(f"{name} must {what}, got dtype {arr.dtype}")
    return arr


def simplex_atol(dtype, n_classes: int) -> float:
    r"""Tolerance on the row sums and the [0, 1] range of probabilities stored in ``dtype``.

    .. math::

        \mathrm{atol} = \max(10^{-4},\ K\,\varepsilon_{\mathrm{dtype}}),

    the worst-case rounding of K entries each rounded to the dtype's precision (relative error
    :math:`\varepsilon/2`) and summed in it. It is :data:`SIMPLEX_ATOL` for float64 and float32
    (up to K = 838) and widens for float16 (:math:`\varepsilon \approx 9.8\cdot10^{-4}`) and
    bfloat16 (:math:`\varepsilon \approx 7.8\cdot10^{-3}`).

    Examples
    --------
    >>> simplex_atol(np.float64, 10), round(simplex_atol(np.float16, 10), 6)
    (0.0001, 0.009766)
    """
    torch = loaded_torch()
    is_torch_dtype = torch is not None and isinstance(dtype, torch.dtype)
    dtype = dtype if is_torch_dtype else np.dtype(dtype)
    if is_torch_dtype:
        eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
    else:
        eps = float(np.finfo(dtype).eps) if dtype.kind == "f" else 0.0
    return max(SIMPLEX_ATOL, n_classes * eps)


def first_index(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (for error messages)."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def fmt_index(idx: tuple[int, ...]) -> str:
    """``7`` for a 1-d index, ``(3, 1)`` otherwise (for error messages)."""
    return str(idx[0]) if len(idx) == 1 else str(idx)


def check_probs(probs, *, name: str = "probs", atol: float | None = None, min_ndim: int = 2) -> np.ndarray:
    """Validate probability vectors along the last axis; return them as float64.

    Shape ``(..., N, K)`` with ``K >= 2``; real (bool, integer or float: no complex, object or
    string dtypes); finite; entries in [0, 1]; rows summing to one, each within ``atol`` (default:
    :func:`simplex_atol` of the input's dtype, so float16 and bfloat16 softmax outputs pass).
    float64 input is returned without a copy.
    """
    arr = as_numpy(probs, name)
    check_real_dtype(arr, name)
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions (..., N, K); got shape {arr.shape}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must have at least 2 classes along the last axis; got shape {arr.shape}")
    if arr.ndim >= 2 and arr.shape[-2] < 1:
        raise ValueError(f"{name} must contain at least one instance; got shape {arr.shape}")
    if atol is None:
        atol = simplex_atol(probs.dtype if _is_tensor(probs) else arr.dtype, arr.shape[-1])
    arr = arr.astype(np.float64, copy=False)
    if arr.size == 0:  # an empty batch dimension
        return arr
    # Fast path: NaN propagates through min/max and ±inf falls outside the range, so two reductions
    # check finiteness and range; the row sums are one more pass. The slow path finds the culprit.
    lo, hi, sums = _range_and_row_sums(arr)
    if not (lo >= -atol and hi <= 1 + atol):
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = first_index(bad)
            raise ValueError(f"{name} must be finite; {name}[{fmt_index(idx)}] = {arr[idx]}")
        idx = first_index((arr < -atol) | (arr > 1 + atol))
        raise ValueError(f"{name} must lie in [0, 1]; {name}[{fmt_index(idx)}] = {arr[idx]:.6g}")
    if not (sums.min() >= 1.0 - atol and sums.max() <= 1.0 + atol):  # no temporaries of size N
        idx = first_index(np.abs(sums - 1.0) > atol)
        raise ValueError(f"{name} must sum to 1 along the last axis; row {fmt_index(idx)} sums to {sums[idx]:.6g}")
    return arr


#: Entries from which :func:`check_probs` scans the rows in blocks on several threads (``credalbook._threads``).
THREADED_CHECK_ENTRIES = 1 << 21
_CHECK_BLOCK_ENTRIES = 1 << 20


def _range_and_row_sums(arr: np.ndarray):
    """``(arr.min(), arr.max(), row sums (..., N))`` of float64 ``arr`` (..., N, K).

    A large C-contiguous array is scanned in blocks of rows on the threads of ``credalbook._threads.map_blocks``:
    the minimum and maximum of the blocks' minima and maxima (NaN propagates) and each row's own sum are the
    whole array's, bit for bit.
    """
    if arr.size < THREADED_CHECK_ENTRIES or not arr.flags.c_contiguous:
        return arr.min(), arr.max(), np.einsum("...k->...", arr)
    from credalbook._threads import map_blocks

    k = arr.shape[-1]
    rows = arr.reshape(-1, k)
    sums = np.empty(rows.shape[0])

    def scan(s: int, e: int):
        b = rows[s:e]
        sums[s:e] = np.einsum("...k->...", b)
        return b.min(), b.max()

    ranges = np.array(map_blocks(scan, rows.shape[0], max(1, _CHECK_BLOCK_ENTRIES // k)))
    return ranges[:, 0].min(), ranges[:, 1].max(), sums.reshape(arr.shape[:-1])


def check_labels(labels, *, n_classes: int, shape: tuple[int, ...], name: str = "labels") -> np.ndarray:
    """Validate integer class labels of the given shape with values in ``[0, n_classes)``.

    Integer dtypes, or floats holding whole numbers (no bool, complex, object or string dtypes);
    int64 input is returned without a copy.
    """
    arr = as_numpy(labels, name)
    if arr.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)} to match the predictions; got {arr.shape}")
    check_real_dtype(arr, name, allow_bool=False, what="hold integer class indices")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            idx = first_index(bad)
            raise ValueError(f"{name} must hold integer class indices; {name}[{fmt_index(idx)}] = {arr[idx]}")
    if arr.min() < 0 or arr.max() >= n_classes:  # before the cast, so huge floats are reported as they are
        idx = first_index((arr < 0) | (arr >= n_classes))
        raise ValueError(f"{name} must lie in [0, {n_classes}); {name}[{fmt_index(idx)}] = {arr[idx]}")
    return arr.astype(np.int64, copy=False)


def _array_or_tensor(x, name: str):
    """``x`` itself when it is a NumPy array or a tensor (whose dtype sets the tolerance), else ``as_numpy(x)``."""
    return x if x is None or isinstance(x, np.ndarray) or _is_tensor(x) else as_numpy(x, name)


def as_binary_probs(scores, name: str = "probs", *, from_logits: bool = False) -> np.ndarray:
    r"""Binary scores of shape (N,) as the (N, 2) float64 rows :math:`[1 - p_i,\ p_i]` of two-class predictions.

    ``scores`` hold :math:`p_i = P(y_i = 1)`, as scikit-learn's ``predict_proba(X)[:, 1]``: real
    numbers (NumPy, lists or tensors of any float dtype) in [0, 1], within the tolerance
    :func:`simplex_atol` of their dtype. They are converted to float64 before ``1 - p``, so the
    rows equal ``np.stack([1 - p, p], axis=1)`` of the float64 scores bit for bit. With
    ``from_logits=True`` they are finite logits :math:`z_i` and the rows are
    :math:`[\sigma(-z_i),\ \sigma(z_i)]` with the logistic sigmoid ``scipy.special.expit`` in
    float64 (no overflow for large :math:`|z_i|`).

    Examples
    --------
    >>> as_binary_probs([0.25, 1.0]).tolist()
    [[0.75, 0.25], [0.0, 1.0]]
    >>> import torch
    >>> as_binary_probs(torch.tensor([0.0, 800.0]), from_logits=True).tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    if not isinstance(from_logits, (bool, np.bool_)):
        raise ValueError(f"from_logits must be True or False; got {from_logits!r}")
    if from_logits:
        from scipy.special import expit

        z = check_logits(scores, name, ndim=1).numpy()
        return np.stack([expit(-z), expit(z)], axis=1)
    arr = check_real_dtype(as_numpy(scores, name), name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must have shape (N,) (binary scores P(y = 1)); got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one instance; got shape {arr.shape}")
    atol = simplex_atol(scores.dtype if _is_tensor(scores) else arr.dtype, 2)
    p = arr.astype(np.float64, copy=False)
    if not (p.min() >= -atol and p.max() <= 1 + atol):  # NaN fails both comparisons
        i = int(np.argmax(~np.isfinite(p) | (p < -atol) | (p > 1 + atol)))
        what = "be finite" if not np.isfinite(p[i]) else "lie in [0, 1]"
        raise ValueError(f"{name} given as binary scores P(y = 1) must {what}; {name}[{i}] = {float(p[i])!r}")
    rows = np.empty((p.shape[0], 2))
    np.subtract(1.0, p, out=rows[:, 0])
    rows[:, 1] = p
    return rows


def is_binary_scores(probs) -> bool:
    """Whether ``probs`` is one-dimensional, binary scores P(y = 1) of shape (N,) (False for what is no array).

    Examples
    --------
    >>> is_binary_scores([0.2, 0.9]), is_binary_scores([[0.8, 0.2]]), is_binary_scores(None)
    (True, False, False)
    """
    if isinstance(probs, np.ndarray) or _is_tensor(probs):
        return probs.ndim == 1
    try:
        return probs is not None and np.ndim(probs) == 1
    except (TypeError, ValueError):  # ragged: the checks that follow say what is wrong
        return False


def check_probs_or_scores(probs, *, name: str = "probs") -> tuple[np.ndarray, bool]:
    """``(rows, binary)``: :func:`check_probs` of (..., N, K) rows, or the (N, 2) rows of (N,) binary scores.

    ``binary`` is True for binary scores (:func:`as_binary_probs`); rows with K >= 2 are returned
    exactly as :func:`check_probs` returns them.

    Examples
    --------
    >>> check_probs_or_scores([0.5, 1.0])[1], check_probs_or_scores([[0.5, 0.5]])[1]
    (True, False)
    """
    x = _array_or_tensor(probs, name)
    if x is not None and x.ndim == 1:
        return as_binary_probs(x, name), True
    return check_probs(x, name=name), False


def check_binary_labels(labels, n_instances: int, *, name: str = "labels", probs_name: str = "probs") -> np.ndarray:
    """Labels (N,) in {0, 1} of binary scores: integers, whole floats or bools; returned as int64.

    Examples
    --------
    >>> check_binary_labels([True, False], 2).tolist()
    [1, 0]
    >>> check_binary_labels([0, 2], 2)
    Traceback (most recent call last):
    ...
    ValueError: labels must lie in {0, 1} for binary scores probs of shape (N,); labels[1] = 2 (pass probs of shape (N, K) for K > 2 classes)
    """
    arr = as_numpy(labels, name)
    if arr.shape != (n_instances,):
        raise ValueError(
            f"{name} must have shape ({n_instances},) to match the binary scores {probs_name} of shape "
            f"({n_instances},); got {arr.shape}"
        )
    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    check_real_dtype(arr, name, allow_bool=False, what="hold binary labels 0 and 1 (integers, whole floats or bools)")
    bad = (arr != 0) & (arr != 1)  # NaN and fractions too
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name} must lie in {{0, 1}} for binary scores {probs_name} of shape (N,); {name}[{i}] = {arr[i].item()!r} "
            f"(pass {probs_name} of shape (N, K) for K > 2 classes)"
        )
    return arr.astype(np.int64, copy=False)


def check_probs_labels(probs, labels, *, min_instances: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Validate a ``(probs, labels)`` pair: ``(..., N, K)`` probabilities and ``(..., N)`` labels.

    Binary scores ``probs`` of shape (N,), P(y = 1), become the (N, 2) rows ``[1 - p, p]``
    (:func:`as_binary_probs`) and their labels are checked by :func:`check_binary_labels` (0/1 as
    integers, whole floats or bools).

    Examples
    --------
    >>> p, y = check_probs_labels([0.2, 0.9], [False, True])
    >>> p.tolist(), y.tolist()
    ([[0.8, 0.2], [0.09999999999999998, 0.9]], [0, 1])
    """
    p, binary = check_probs_or_scores(probs)
    if binary:
        y = check_binary_labels(labels, p.shape[0])
    else:
        y = check_labels(labels, n_classes=p.shape[-1], shape=p.shape[:-1])
    if p.shape[-2] < min_instances:
        raise ValueError(
            f"probs must contain at least {min_instances} instances for this measure; got N = {p.shape[-2]}"
        )
    return p, y


def check_positive_int(value, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Validate an integer argument in ``[minimum, maximum]`` (Python or NumPy integers; not bools)."""
    bounds = f">= {minimum}" if maximum is None else f">= {minimum} and <= {maximum}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer {bounds}; got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer {bounds}; got {value!r}")
    return int(value)


def check_n_bins(n_bins, name: str = "n_bins") -> int:
    """Validate a number of bins: an integer in ``[1, MAX_BINS]`` (see :data:`MAX_BINS`).

    Examples
    --------
    >>> check_n_bins(15)
    15
    """
    return check_positive_int(n_bins, name, minimum=1, maximum=MAX_BINS)


def _real_scalar(value, name: str, expected: str) -> float:
    """``value`` as a float: real numbers (Python, NumPy, 0-d arrays or tensors); no bools, strings or complex."""
    if isinstance(value, (bool, np.bool_, str, bytes, complex, np.complexfloating)) or value is None:
        raise ValueError(f"{name} must be {expected}; got {value!r}")
    if isinstance(value, np.ndarray) or _is_tensor(value):
        arr = as_numpy(value, name)
        if arr.ndim != 0 and arr.size != 1 or arr.dtype.kind not in "iuf":
            raise ValueError(f"{name} must be {expected}; got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {expected}; got {value!r}") from None


def check_positive_float(value, name: str, *, allow_zero: bool = False) -> float:
    """Validate a finite number ``> 0`` (``>= 0`` with ``allow_zero``), e.g. a kernel ``bandwidth``; return it as a float.

    Python and NumPy numbers and 0-d arrays or tensors are accepted; bools, strings and complex
    numbers are rejected.
    """
    what = "a non-negative number" if allow_zero else "a positive number"
    v = _real_scalar(value, name, what)
    if not (np.isfinite(v) and (v > 0 or (allow_zero and v == 0))):
        raise ValueError(f"{name} must be {what}; got {value!r}")
    return v


def check_unit_values(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise unless every entry of the 1-D float array ``arr`` is finite and in [0, 1]; returns ``arr``."""
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must lie in [0, 1]; {name}[{i}] = {float(arr[i])!r}")
    return arr


def check_probability(value, name: str, *, open_interval: bool = True) -> float:
    """Validate a number in (0, 1) (or [0, 1] with ``open_interval=False``), e.g. ``alpha``. Bools and strings are rejected."""
    interval = "(0, 1)" if open_interval else "[0, 1]"
    v = _real_scalar(value, name, f"a number in {interval}")
    ok = 0.0 < v < 1.0 if open_interval else 0.0 <= v <= 1.0
    if not ok:
        raise ValueError(f"{name} must lie in {interval}; got {value!r}")
    return v


def check_choice(value, name: str, choices) -> str:
    """Validate a string option against the allowed ``choices``."""
    try:
        ok = isinstance(value, str) and value in choices
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {sorted(choices, key=str)}; got {value!r}")
    return value


def check_seed(seed, name: str = "seed", *, generator: bool = True):
    """Validate a random seed before it reaches NumPy; return it (integers as Python ``int``).

    Accepted: None, a non-negative integer (Python or NumPy; not a bool), a non-empty sequence of
    them, a :class:`numpy.random.SeedSequence`, and, when ``generator`` is true, a
    :class:`numpy.random.Generator` or ``BitGenerator`` (used as they are, so draws continue its
    stream). Anything else (negative or non-integer numbers, strings, bools) raises a ValueError
    that names the argument; NumPy's own errors do not.

    Examples
    --------
    >>> check_seed(3), check_seed(None)
    (3, None)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be None, a non-negative integer, a numpy SeedSequence or a numpy Generator; got -1
    """
    what = "None, a non-negative integer, a numpy SeedSequence" + (" or a numpy Generator" if generator else "")
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        if generator:
            return seed
        raise ValueError(f"{name} must be {what} (not a Generator here); got {seed!r}")

    def is_int(v):
        return not isinstance(v, (bool, np.bool_)) and isinstance(v, numbers.Integral) and v >= 0

    if is_int(seed):
        return int(seed)
    if isinstance(seed, (list, tuple)) and seed and all(is_int(v) for v in seed):
        return [int(v) for v in seed]
    raise ValueError(f"{name} must be {what}; got {seed!r}")


def as_rng(seed, name: str = "seed") -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` after :func:`check_seed` (a Generator is returned as it is).

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> as_rng(g) is g, type(as_rng(5)).__name__
    (True, 'Generator')
    """
    return np.random.default_rng(check_seed(seed, name))


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
    check_real_dtype(a, name, allow_bool=False)
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


def check_logits(logits, name: str = "logits", ndim: int = 2):
    """Finite real logits of shape (N, ..., K) with `ndim` dimensions (``ndim=1``: binary logits (N,)) -> float64 tensor (CPU)."""
    import torch

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
    shape = {1: "(N,)", 2: "(N, K)", 3: "(N, M, K)"}.get(ndim, f"{ndim} dimensions")
    if t.ndim != ndim:
        raise ValueError(f"{name} must have shape {shape}; got shape {tuple(t.shape)}")
    if ndim == 1 and t.shape[0] < 1:
        raise ValueError(f"{name} must have at least one instance; got shape {tuple(t.shape)}")
    if ndim > 1 and (t.shape[0] < 1 or t.shape[-1] < 2):
        raise ValueError(f"{name} must have at least one instance and two classes; got shape {tuple(t.shape)}")
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
    atol = simplex_atol(ens_probs.dtype if _is_tensor(ens_probs) else arr.dtype, arr.shape[-1])
    return check_probs(arr, name=name, min_ndim=3, atol=atol)


def check_weights(weights, n_members: int, *, name: str = "weights", atol: float | None = None) -> np.ndarray:
    """Validate convex weights (..., M): real, finite, non-negative, summing to one; return float64.

    ``atol`` defaults to ``max(1e-6, M·eps)`` of the input's dtype (1e-6 for float64).
    """
    w = check_real_dtype(as_numpy(weights, name), name, allow_bool=False)
    if atol is None:
        eps = float(np.finfo(w.dtype).eps) if w.dtype.kind == "f" else 0.0
        atol = max(1e-6, n_members * eps)
    w = w.astype(np.float64, copy=False)
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


def as_predictions(x, name: str = "probs", *, from_logits: bool = False, ndim: int = 2) -> np.ndarray:
    """Predictions as float64 NumPy rows on the simplex: the one door for probabilities or logits.

    ``x`` is a NumPy array or a torch tensor (CPU or CUDA; float16, bfloat16, float32 or float64)
    of shape (N, K) (``ndim=2``) or (N, M, K) (``ndim=3``, an ensemble); with ``ndim=2`` a 1-D ``x`` of
    shape (N,) holds binary scores P(y = 1) (or binary logits) and becomes the (N, 2) rows ``[1 - p, p]``
    (:func:`as_binary_probs`: logits through the sigmoid, in float64). Probabilities are checked
    by :func:`check_probs` (with the tolerance of their dtype, :func:`simplex_atol`); with
    ``from_logits=True`` finite logits are checked by :func:`check_logits` and turned into
    probabilities by a softmax over the last axis in float64. Probabilities stored in a lower
    precision (float16, float32, integers) are clipped at 0 and renormalised in float64, so that
    their rows sum to one within float64 rounding; float64 input is returned as it is (no copy).

    Examples
    --------
    >>> import torch
    >>> as_predictions(torch.tensor([[0.0, 0.0], [2.0, 0.0]], dtype=torch.float16), from_logits=True).round(4)
    array([[0.5   , 0.5   ],
           [0.8808, 0.1192]])
    >>> as_predictions(np.ones((2, 3)) / 3).dtype
    dtype('float64')
    >>> as_predictions([0.0, 2.0], from_logits=True).round(4)   # binary logits: [sigmoid(-z), sigmoid(z)]
    array([[0.5   , 0.5   ],
           [0.1192, 0.8808]])
    """
    if not isinstance(from_logits, (bool, np.bool_)):
        raise ValueError(f"from_logits must be True or False; got {from_logits!r}")
    if ndim == 2:
        x = _array_or_tensor(x, name)
        if x is not None and x.ndim == 1:
            return as_binary_probs(x, name, from_logits=from_logits)
    shape = "(N, K)" if ndim == 2 else "(N, M, K)" if ndim == 3 else f"{ndim} dimensions"
    if from_logits:
        return lazy_torch.softmax(check_logits(x, name, ndim=ndim), dim=-1).numpy()
    if x is not None and not _is_tensor(x) and not isinstance(x, np.ndarray):
        x = as_numpy(x, name)
    if x is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have shape {shape}; got shape {tuple(x.shape)}")
    dtype = x.dtype if x is not None else None
    p = check_ens_probs(x, name, exact_ndim=True) if ndim == 3 else check_probs(x, name=name, min_ndim=ndim)
    torch = loaded_torch()
    if dtype not in (
        np.float64,
        *(() if torch is None else (torch.float64,)),
    ):  # float16/32 rows: back onto the simplex in float64
        p = np.maximum(p, 0.0)
        p /= p.sum(axis=-1, keepdims=True)
    return p
