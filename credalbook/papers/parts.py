"""The resumable parts of the long chapters: named computations whose small results are recorded.

A chapter at ``paper`` scale runs for hours; split into parts (one seed, one panel, one study), each
well under 90 minutes on two cores, it can be finished piece by piece on several machines and days.
A :class:`Part` is a library call with its arguments; its value (numbers, arrays, the dataclasses the
chapter shows) is what gets recorded. The chapter and ``python -m credalbook.book run --part`` build
the same parts from the same plan (:mod:`credalbook.papers.plans`), so a part computed from the command line is
the one the chapter loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Part"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


@dataclass(frozen=True)
class Part:
    """One resumable computation of a chapter: ``func(**kwargs)``, named ``name``.

    Parameters
    ----------
    name : str
        Lower-case letters, digits, ``-``, ``_``, ``.``; unique within its chapter (it names the
        record file).
    func : callable
        A module-level function (its module and name go into the record).
    kwargs : dict
        Its arguments. Those in ``ignore`` (where it runs, how it reports progress) do not change its
        value and are left out of ``parameters()``, which decides whether a record is stale.
    ignore : tuple of str

    Examples
    --------
    >>> import math
    >>> p = Part("isclose", math.isclose, {"a": 1.0, "b": 1.0 + 1e-12})
    >>> p.run(), p.parameters()["function"]
    (True, 'math:isclose')
    """

    name: str
    func: Callable
    kwargs: dict = field(default_factory=dict)
    ignore: tuple = ("device", "progress", "n_jobs")

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"name must be lower-case letters, digits, '-', '_' or '.'; got {self.name!r}")
        if not callable(self.func):
            raise TypeError(f"func must be callable; got {type(self.func).__name__}")
        if not isinstance(self.kwargs, dict):
            raise TypeError(f"kwargs must be a dict; got {type(self.kwargs).__name__}")

    @property
    def function(self) -> str:
        """``module:qualified name`` of ``func``."""
        return f"{self.func.__module__}:{self.func.__qualname__}"

    def parameters(self) -> dict:
        """The function and the arguments that determine the value (``ignore`` left out)."""
        return {"function": self.function, **{k: v for k, v in sorted(self.kwargs.items()) if k not in self.ignore}}

    def run(self):
        """``func(**kwargs)``."""
        return self.func(**self.kwargs)
