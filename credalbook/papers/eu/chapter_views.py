"""Helpers of the EU chapter's cells that no part of the plan (:func:`credalbook.papers.eu.eu_plan`) runs.

The chapter's later sections (carving ranges, the cause of the toy results, the real-data analogue) use, at paper
scale, only the parts whose records are already computed: :func:`recorded_fits` selects and runs them. It takes
the book's record functions as arguments, so that the papers' code does not import the book.
"""

from __future__ import annotations

from collections.abc import Callable

from credalbook._validation import check_choice
from credalbook.papers.presets import SCALES

__all__ = ["recorded_fits"]


def recorded_fits(parts, *, scale: str, part_state: Callable, run_parts: Callable) -> dict:
    """``{part name: value}`` of the ``parts`` a later section of the chapter may use: all of them below ``"paper"``
    scale, at ``"paper"`` scale only those whose record is up to date (``"recorded"``); ``{}`` when none is.

    Parameters
    ----------
    parts : iterable of Part
        The parts of a group of the plan (:meth:`credalbook.papers.eu.EUPlan.group_parts`).
    scale : {"tiny", "quick", "paper"}
        The chapter's scale.
    part_state : callable
        ``part_state(part)``: the state of the part's record, a str or an object with a ``state`` attribute (the
        book's ``credalbook.book.records.part_state`` with the chapter and scale bound). Called at ``"paper"``
        scale only.
    run_parts : callable
        ``run_parts(parts)``: ``{part name: value}`` of the chosen parts, loaded from their records or computed (the
        book's ``credalbook.book.records.run_parts`` with the chapter and scale bound). Not called when no part is
        chosen.

    Returns
    -------
    dict
        What ``run_parts`` returns for the chosen parts, or ``{}``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> parts = [SimpleNamespace(name="a"), SimpleNamespace(name="b")]
    >>> state = {"a": "recorded", "b": "missing"}.get
    >>> run = lambda chosen: {p.name: len(p.name) for p in chosen}
    >>> recorded_fits(parts, scale="paper", part_state=lambda p: state(p.name), run_parts=run)
    {'a': 1}
    >>> recorded_fits(parts, scale="tiny", part_state=lambda p: state(p.name), run_parts=run)
    {'a': 1, 'b': 1}
    """
    scale = check_choice(scale, "scale", SCALES)
    if not callable(part_state):
        raise TypeError(f"part_state must be callable; got {type(part_state).__name__}")
    if not callable(run_parts):
        raise TypeError(f"run_parts must be callable; got {type(run_parts).__name__}")
    ready = [p for p in parts if scale != "paper" or getattr(s := part_state(p), "state", s) == "recorded"]
    return run_parts(ready) if ready else {}
