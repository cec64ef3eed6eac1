r"""Whether a test split can show over-confidence at all: the premise rows of chapters 01 and 02.

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

__all__ = ["Z95", "cells_able", "largest_shown"]

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


def cells_able(cells, *, z: float = Z95) -> int:
    """How many ``(accuracy, n)`` cells could show over-confidence at all (:func:`largest_shown`: ``1 − a`` above its
    own ``z`` · SE).

    >>> cells_able([(0.989, 269), (0.97, 269), (0.812, 500)])
    2
    """
    bounds = [largest_shown(float(a), int(n), z=z) for a, n in cells]
    return sum(most > half for most, half in bounds)
