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
import warnings

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
