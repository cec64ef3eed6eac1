r"""Rows that the evidence cannot decide: premises a test split cannot show, claims the paper's own numbers do not
decide.

* :func:`premise_undecided`, :func:`largest_shown`: whether a test split can show over-confidence at all (the
  premise rows of chapters 01 and 02);
* :func:`not_decided_by_paper`: a row whose claim the paper's own numbers do not decide is *inconclusive* and not
  counted against the book (every chapter's rows).

A premise row asks whether a set's predictions are over-confident, mean confidence − accuracy above 0 by more than
its noise. On a test split of :math:`n` instances with accuracy :math:`a` the largest over-confidence possible (every
confidence 1) is :math:`1 - a`, and the noise of confidence − accuracy is then that of the accuracy alone,
:math:`\sqrt{a(1 - a)/n}`. A cell can show over-confidence only when :math:`1 - a` exceeds :math:`z` times that
standard error; networks near perfect accuracy on a small split (scikit-learn's digits: 99 % on a few hundred
instances) cannot, so a premise that fails on such cells is *inconclusive*, not a difference.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

from credalbook.papers.criteria import AGREES, INCONCLUSIVE, Judgement

__all__ = ["Z95", "largest_shown", "not_decided_by_paper", "premise_undecided"]

#: The two-sided 95 % normal quantile.
Z95 = 1.959963984540054


def largest_shown(accuracy: float, n: int, *, z: float = Z95) -> tuple[float, float]:
    """The largest over-confidence a test split can hold, ``1 − accuracy``, and ``z`` times its standard error.

    Parameters
    ----------
    accuracy : float in [0, 1]
    n : int
        Test instances.
    z : float, default Z95
        The criterion's multiple of the standard error (``2`` for "> 2 SE").

    Examples
    --------
    >>> [round(v, 4) for v in largest_shown(0.989, 269)], [round(v, 4) for v in largest_shown(0.812, 500)]
    ([0.011, 0.0125], [0.188, 0.0342])
    """
    if isinstance(accuracy, bool) or not isinstance(accuracy, Real) or not 0 <= accuracy <= 1:
        raise ValueError(f"accuracy must be a number in [0, 1]; got {accuracy!r}")
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ValueError(f"n must be a positive int; got {n!r}")
    if isinstance(z, bool) or not isinstance(z, Real) or not z > 0:
        raise ValueError(f"z must be a positive number; got {z!r}")
    a = float(accuracy)
    return 1 - a, float(z) * math.sqrt(a * (1 - a) / int(n))


def premise_undecided(judgement: Judgement, cells, *, z: float = Z95) -> Judgement:
    """``judgement`` of an over-confidence premise, *inconclusive* instead when it does not agree and fewer than a
    majority of the ``(accuracy, test instances)`` ``cells`` could show over-confidence at all (:func:`largest_shown`:
    ``1 − a`` above its own ``z`` · SE, ``z`` the row's criterion); as is when it agrees, when there are no cells or
    when a cell's test size is not recorded (0).

    Examples
    --------
    >>> from credalbook.papers.criteria import at_least
    >>> j = at_least(0, 3, 2, what="cells over-confident")
    >>> premise_undecided(j, [(0.99, 269)] * 3, z=2).verdict, premise_undecided(j, [(0.99, 5000)] * 3, z=2).verdict
    ('inconclusive', 'differs')
    """
    cells = [(float(a), int(n)) for a, n in cells]
    if judgement.verdict == AGREES or not cells or any(n < 1 for _, n in cells):
        return judgement
    bound = [largest_shown(a, n, z=z) for a, n in cells]
    able = sum(most > half for most, half in bound)
    if able >= len(cells) // 2 + 1:
        return judgement
    width = "95% half-width" if z == Z95 else f"{z:g} SE"
    return Judgement(
        INCONCLUSIVE,
        f"{judgement.criterion}; only {able} of {len(cells)} cells could show over-confidence at all: 1 − accuracy, the "
        f"largest possible (every confidence 1), is {min(b[0] for b in bound):.3f}–{max(b[0] for b in bound):.3f}, "
        f"within its own {width} {min(b[1] for b in bound):.3f}–{max(b[1] for b in bound):.3f} (test instances: "
        f"{', '.join(str(n) for _, n in cells)})",
        None,
        f"{judgement.tolerance_source}; a cell can show it only when 1 − accuracy exceeds "
        f"{round(z, 2):g}·sqrt(a(1 − a)/n)",
        None,
    )


def not_decided_by_paper(book: Judgement, why: str, *, tolerance_source: str | None = None) -> Judgement:
    """The verdict of a row whose claim the paper's own numbers do not decide: *inconclusive*, not counted against
    the book, with the book's own judgement kept in the criterion (comparison rule: "when the paper's own numbers do
    not decide its claim, the row says so and is not counted against the book").

    Parameters
    ----------
    book : Judgement
        The criterion applied to the book's numbers.
    why : str
        Why the paper's numbers do not decide it (e.g. "its difference 0.03 is within its ±2σ 0.15").
    tolerance_source : str, optional
        Where the margins of both judgements come from (default: the book's).

    Examples
    --------
    >>> j = not_decided_by_paper(Judgement("differs", "gain > 0 by 2 SE"), "its mean gain is within 2 SE of 0")
    >>> j.verdict, j.criterion
    ('inconclusive', "the paper's own numbers do not decide this claim: its mean gain is within 2 SE of 0; the book: gain > 0 by 2 SE (differs)")
    """
    if not isinstance(book, Judgement):
        raise TypeError(f"book must be a Judgement; got {type(book).__name__}")
    if not isinstance(why, str) or not why.strip():
        raise ValueError("why must say in words why the paper's numbers do not decide the claim; got an empty string")
    return Judgement(
        INCONCLUSIVE,
        f"the paper's own numbers do not decide this claim: {why}; the book: {book.criterion} ({book.verdict})",
        book.tolerance,
        book.tolerance_source if tolerance_source is None else tolerance_source,
        book.replicates,
    )
