"""Plotting: one seaborn theme, reliability diagrams and the figures of the two calibration-test chapters.

Compute functions never plot; plot functions take their results and an ``ax=`` argument
(as scikit-learn's ``calibration_curve`` vs ``CalibrationDisplay``) and return the axes. The figures
of the other chapters live in :mod:`credalbook.papers.mimori.figures`, :mod:`credalbook.papers.wu_gales.figures`
and :mod:`credalbook.papers.eu.figures`, built on the helpers here (``axes_or_new``, ``panel_row``).

The figures are grouped by subject: :mod:`credalbook.plotting.theme` (theme and axes helpers),
:mod:`credalbook.plotting.reliability` (reliability diagrams), :mod:`credalbook.plotting.calibration_tests`
(null distributions, test errors, rejection rates) and :mod:`credalbook.plotting.simplex` (the 2-simplex).
"""

from credalbook.plotting.calibration_tests import (
    plot_null_distributions,
    plot_rejection_rates,
    plot_test_errors,
    plot_test_result,
)
from credalbook.plotting.comparison import plot_reliability_comparison
from credalbook.plotting.reliability import (  # noqa: F401 - helpers of the papers' figures too
    draw_consistency_band,
    MAX_CLASS_PANELS,
    plot_reliability_diagram,
    ReliabilityDisplay,
)
from credalbook.plotting.simplex import (  # noqa: F401 - helpers of the papers' figures too
    draw_hull_outline,
    plot_credal_scenario,
    plot_polytope_sampling,
    POLYTOPE_TITLES,
    simplex_coordinates,
)
from credalbook.plotting.theme import axes_or_new, PALETTE, panel_row, set_theme  # noqa: F401 - axes helpers

__all__ = [
    "set_theme",
    "PALETTE",
    "plot_reliability_diagram",
    "plot_reliability_comparison",
    "plot_rejection_rates",
    "simplex_coordinates",
    "plot_credal_scenario",
    "plot_polytope_sampling",
    "plot_null_distributions",
    "ReliabilityDisplay",
    "plot_test_result",
    "plot_test_errors",
]
