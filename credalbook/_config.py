"""Settings objects of the long-running entry points (``nn.fit``, ``fit_gp_classifier``, ...).

A function with many options takes ``config=`` (a frozen dataclass of its settings) and, for the
keyword calls written before the config existed, ``**options`` naming the config's fields::

    fit(model, x, y, epochs=20, lr=1e-2)                   # as before
    fit(model, x, y, config=FitConfig(epochs=20, lr=1e-2))  # the same run
    fit(model, x, y, config=base, lr=1e-2)                  # base, with lr replaced

:func:`resolve_config` merges the two (options override the config's fields) and names an unknown
option in a :class:`TypeError`, as Python does for an unexpected keyword.
"""

from __future__ import annotations

import dataclasses


def config_fields(cls) -> tuple[str, ...]:
    """The field names of the config class `cls`, in order."""
    return tuple(f.name for f in dataclasses.fields(cls))


def resolve_config(cls, config, options: dict, where: str):
    """``config`` (an instance of `cls`, or None for the defaults) with the fields in `options` replaced.

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class C:
    ...     a: int = 1
    ...     b: int = 2
    >>> resolve_config(C, None, {"b": 3}, "f")
    C(a=1, b=3)
    >>> resolve_config(C, C(a=5), {}, "f")
    C(a=5, b=2)
    >>> resolve_config(C, None, {"c": 3}, "f")
    Traceback (most recent call last):
    ...
    TypeError: f() got unexpected keyword arguments ['c']; its options are the fields of C: a, b
    """
    if config is None:
        config = cls()
    elif not isinstance(config, cls):
        raise TypeError(f"{where}(): config must be a {cls.__name__} or None; got {type(config).__name__}")
    unknown = sorted(set(options) - set(config_fields(cls)))
    if unknown:
        raise TypeError(
            f"{where}() got unexpected keyword arguments {unknown}; its options are the fields of "
            f"{cls.__name__}: {', '.join(config_fields(cls))}"
        )
    return dataclasses.replace(config, **options) if options else config
