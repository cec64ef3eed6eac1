"""Renamed keywords that keep working for one minor version (scikit-learn's deprecation pattern).

A public callable whose keyword was renamed is wrapped with :func:`renamed`::

    @renamed(n_bootstrap="n_resamples", since="0.6")
    def set_calibration_test(ens_probs, labels, *, n_resamples=100, ...): ...

A call with the old name gets a :class:`FutureWarning` naming the new one and runs as if the new name had been
given; passing both is a :class:`TypeError`. The wrapped function keeps its signature (``functools.wraps``), so
the vocabulary test in ``tests/test_vocabulary.py`` sees only the new names, and the old ones are listed in
:data:`RENAMED` (the changelog's table of renames is written from the same list).
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

#: Release that removes the old names: one minor version after the rename.
REMOVED_IN = "0.7"

#: Every renamed keyword: ``{"module:qualname": {old: new}}``, filled by :func:`renamed` at import time.
RENAMED: dict = {}


def renamed(since: str = "0.6", **old_to_new: str):
    """Decorator: accept each old keyword of ``old_to_new`` with a :class:`FutureWarning` naming the new one.

    >>> @renamed(n_boot="n_resamples")
    ... def f(x, *, n_resamples=10):
    ...     return x + n_resamples
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(1, n_boot=2), w[0].category.__name__
    (3, 'FutureWarning')
    >>> f(1, n_boot=2, n_resamples=3)
    Traceback (most recent call last):
    ...
    TypeError: f() got both 'n_boot' (renamed in 0.6) and its new name 'n_resamples'; pass only n_resamples
    """
    for old, new in old_to_new.items():
        if not (isinstance(new, str) and new.isidentifier()) or old == new:
            raise ValueError(f"renamed(): {old}={new!r} is not a renaming to a new keyword")

    def wrap(func):
        name = getattr(func, "__qualname__", func.__name__)
        RENAMED[f"{func.__module__}:{name}"] = dict(old_to_new)

        @functools.wraps(func)
        def inner(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{func.__name__}() got both {old!r} (renamed in {since}) and its new name "
                            f"{new!r}; pass only {new}"
                        )
                    warnings.warn(
                        f"{func.__name__}(): the keyword {old!r} was renamed to {new!r} in {since}; "
                        f"{old!r} will be removed in {REMOVED_IN}",
                        FutureWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        inner.__renamed__ = dict(old_to_new)
        return inner

    return wrap


def renamed_value(argument: str, value, renames: dict, *, since: str = "0.6", where: str = ""):
    """``renames[value]`` with a :class:`FutureWarning` when ``value`` is an old spelling of a string option,
    else ``value`` unchanged (e.g. ``strategy="equal_mass"`` -> ``"quantile"``).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     renamed_value("strategy", "equal_mass", {"equal_mass": "quantile"})
    'quantile'
    >>> renamed_value("strategy", "uniform", {"equal_mass": "quantile"})
    'uniform'
    """
    if isinstance(value, str) and value in renames:
        new = renames[value]
        warnings.warn(
            f"{where + '(): ' if where else ''}{argument}={value!r} was renamed to {argument}={new!r} in "
            f"{since}; {value!r} will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=3,
        )
        return new
    return value


class RenamedKeys(dict):
    """A dict whose keys were renamed: reading an old key (``renames``: ``{old: new}``) gives the new key's value
    with a :class:`FutureWarning`; iteration, ``len`` and ``in`` see only the new keys.

    >>> import warnings
    >>> d = RenamedKeys({"ece_confidence": 0.1}, renames={"ece_conf": "ece_confidence"}, where="summary")
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     d["ece_conf"], d.get("ece_conf"), w[0].category.__name__, list(d)
    (0.1, 0.1, 'FutureWarning', ['ece_confidence'])
    """

    def __init__(self, data, *, renames: dict, since: str = "0.6", where: str = ""):
        super().__init__(data)
        self._renames, self._since, self._where = dict(renames), since, where

    def _new_key(self, key):
        if isinstance(key, str) and key in self._renames and not dict.__contains__(self, key):
            new = self._renames[key]
            warnings.warn(
                f"{self._where + ': ' if self._where else ''}the key {key!r} was renamed to {new!r} in "
                f"{self._since}; {key!r} will be removed in {REMOVED_IN}",
                FutureWarning,
                stacklevel=3,
            )
            return new
        return key

    def __getitem__(self, key):
        return dict.__getitem__(self, self._new_key(key))

    def get(self, key, default=None):
        return dict.get(self, self._new_key(key), default)

    def __reduce__(self):  # pickles (and joblib copies) as the plain dict it holds
        return (dict, (dict(self),))


#: Every callable whose data order became ``(<predictions>, label_hist)``: ``{"module:qualname": (new first, new
#: second)}``, filled by :func:`swapped_label_hist` at import time.
SWAPPED: dict = {}

#: Tolerance on the row sums and the [0, 1] range of predictions when telling them from label histograms (the
#: row sums of a histogram are whole numbers, so any tolerance below 1 separates a sum of 1 from the others).
_ORDER_ATOL = 1e-2


def _real_array(x):
    """``x`` as a real NumPy array (torch tensors read on the CPU), or None when it is not one."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu()
        x = (x.double() if x.is_floating_point() else x).numpy()
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        return None
    return arr if arr.dtype.kind in "iuf" and arr.size > 0 else None


def is_label_hist(x) -> bool:
    """Whether ``x`` can be label histograms: a 2-D array of non-negative whole numbers (any real dtype)."""
    arr = _real_array(x)
    if arr is None or arr.ndim != 2:
        return False
    return bool(np.all(np.isfinite(arr)) and np.all(arr >= 0) and np.all(arr == np.round(arr)))


def is_predictions(x, ndim: int = 2) -> bool:
    """Whether ``x`` can be predictions: (N, K) float rows on the simplex (``ndim=2``), or (N,) values in [0, 1]
    (``ndim=1``: probabilities of an event, e.g. the ``phi_probs`` of :mod:`credalbook.metrics.label_stats`)."""
    arr = _real_array(x)
    if arr is None or arr.ndim != ndim or (ndim == 2 and arr.dtype.kind != "f"):
        return False
    if not (np.all(np.isfinite(arr)) and np.all(arr >= -_ORDER_ATOL) and np.all(arr <= 1 + _ORDER_ATOL)):
        return False
    return ndim == 1 or bool(np.all(np.abs(arr.sum(axis=-1) - 1.0) <= _ORDER_ATOL))


def is_old_order(first, second, ndim: int = 2) -> bool:
    """Whether positional data ``(first, second)`` are in the old order ``(label_hist, <predictions>)``.

    True only when ``first`` is a label histogram and not predictions, and ``second`` is predictions and not a
    label histogram (:func:`is_label_hist`, :func:`is_predictions`). Predictions of ``ndim=1`` are never
    histograms, so there the rule is never ambiguous. With ``ndim=2`` the one ambiguous array is a float array of
    one-hot rows: a histogram of one annotator per instance and hard predictions at once; a call holding one is
    read in the new order.

    >>> hist, probs = [[2, 0], [1, 1]], [[0.8, 0.2], [0.5, 0.5]]
    >>> is_old_order(hist, probs), is_old_order(probs, hist)
    (True, False)
    >>> is_old_order([[1.0, 0.0], [0.0, 1.0]], probs)   # one-hot floats: one label each, or hard predictions
    False
    >>> is_old_order([[1, 1], [2, 0]], [0.5, 0.0], ndim=1)
    True
    """
    return (
        is_label_hist(first)
        and not is_predictions(first, ndim)
        and is_predictions(second, ndim)
        and not is_label_hist(second)
    )


def swapped_label_hist(since: str = "0.6", *, ndim: int = 2):
    """Decorator: accept the old data order ``f(label_hist, probs, ...)`` of a callable that now takes
    ``f(probs, label_hist, ...)``, with a :class:`FutureWarning` naming the new order.

    The first two parameters of the decorated callable are the predictions (``probs`` (N, K) rows on the simplex,
    or with ``ndim=1`` ``phi_probs`` (N,) in [0, 1]) and ``label_hist`` (N, K) annotator counts. Keyword calls need
    no detection. Two positional arguments are swapped when :func:`is_old_order` says they are in the old order: the
    first is a label histogram (non-negative whole numbers, integer or float dtype; its rows may sum to more than
    1) and not predictions, and the second is predictions (float rows summing to 1, or (N,) values in [0, 1]) and
    not a histogram. The one ambiguous case, a float array of one-hot rows (one annotator per instance, or hard
    predictions), is read in the new order. One positional argument with the predictions given by keyword
    (``f(label_hist, probs=...)``) is the old order too.

    >>> @swapped_label_hist()
    ... def f(probs, label_hist):
    ...     return probs[0][0]
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f([[2, 0]], [[0.25, 0.75]]), f([[0.25, 0.75]], [[2, 0]]), len(w)
    (0.25, 0.25, 1)
    >>> str(w[0].message)
    'f(label_hist, probs) is deprecated since 0.6: pass (probs, label_hist); the old order is removed in 0.7'
    """

    def wrap(func):
        first, second = list(inspect.signature(func).parameters)[:2]
        name = getattr(func, "__qualname__", func.__name__)
        SWAPPED[f"{func.__module__}:{name}"] = (first, second)
        message = (
            f"{func.__name__}({second}, {first}) is deprecated since {since}: pass ({first}, {second}); "
            f"the old order is removed in {REMOVED_IN}"
        )

        @functools.wraps(func)
        def inner(*args, **kwargs):
            if len(args) >= 2 and is_old_order(args[0], args[1], ndim):
                warnings.warn(message, FutureWarning, stacklevel=2)
                args = (args[1], args[0], *args[2:])
            elif len(args) == 1 and first in kwargs and second not in kwargs:
                warnings.warn(message, FutureWarning, stacklevel=2)
                kwargs[second] = args[0]
                args = ()
            return func(*args, **kwargs)

        inner.__swapped__ = (first, second)
        return inner

    return wrap
