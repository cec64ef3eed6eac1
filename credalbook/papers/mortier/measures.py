"""Mortier et al.'s names of the calibration measures and the core's.

The paper names its measures ECE_conf, ECE_cwise, HL, SKCE_ul and SKCE_uq (Sec. 3, Eqs. 3-8); this package
keys its studies, figures and records by those names in lower case (``"ece_conf"``, ``"ece_cwise"``, ``"hl"``,
``"skce_ul"``, ``"skce_uq"``). The core names a measure as the function that computes it
(:data:`credalbook.stats.MEASURES`); :func:`core_measure` translates where this package calls the core.
"""

from __future__ import annotations

__all__ = ["CORE_MEASURE_NAMES", "core_measure"]

#: The paper's measure names (this package's keys) -> the core's (:data:`credalbook.stats.MEASURES`).
CORE_MEASURE_NAMES = {
    "ece_conf": "ece_confidence",
    "ece_cwise": "ece_classwise",
    "hl": "hosmer_lemeshow",
    "skce_ul": "skce_ul",
    "skce_uq": "skce_uq",
}


def core_measure(measure):
    """The core's name of ``measure`` when it is one of the paper's names; anything else (a core name, a
    :class:`~credalbook.stats.CalibrationMeasure`, a callable) as is.

    >>> core_measure("hl"), core_measure("ece_confidence")
    ('hosmer_lemeshow', 'ece_confidence')
    """
    return CORE_MEASURE_NAMES.get(measure, measure) if isinstance(measure, str) else measure
