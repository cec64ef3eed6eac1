"""Mortier et al. (2023), *On the Calibration of Probabilistic Classifier Sets*: Type I/II error
studies of the set calibration test, real classifier sets, and the chapter's figures.
"""

from credalbook.papers.mortier.compare import (
    chapter_results,
    compare,
    paper_table1,
    s2_corner_check,
)
from credalbook.papers.mortier.error_rates import (
    ErrorRateStudy,
    PAPER_ALPHAS,
    PAPER_MEASURES,
    PAPER_SETTINGS,
    set_test_error_rates,
)
from credalbook.papers.mortier.figures import (
    plot_decision_rules,
    plot_error_rate_figure,
    plot_error_rates,
)
from credalbook.papers.mortier.real_sets import (
    compare_solvers,
    evaluate_classifier_set,
    solver_agreement,
)

__all__ = [
    "chapter_results",
    "compare",
    "paper_table1",
    "s2_corner_check",
    "ErrorRateStudy",
    "PAPER_ALPHAS",
    "PAPER_MEASURES",
    "PAPER_SETTINGS",
    "set_test_error_rates",
    "plot_decision_rules",
    "plot_error_rate_figure",
    "plot_error_rates",
    "compare_solvers",
    "evaluate_classifier_set",
    "solver_agreement",
]
