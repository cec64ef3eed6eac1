"""Jürgens et al., *A calibration test for evaluating set-based epistemic uncertainty
representations*: the instance-dependent test's error rates, estimator analyses, real sets, figures.
"""

from credalbook.papers.juergens.compare import (
    compare,
    paper_table1,
)
from credalbook.papers.juergens.error_rates import (
    instance_test_error_rates,
    JUERGENS_ESTIMATORS,
    JUERGENS_H1_ALPHAS,
)
from credalbook.papers.juergens.estimators import (
    calibrated_combinations_example,
    estimator_landscape,
    Landscape,
    simplex_grid,
    weight_landscape,
)
from credalbook.papers.juergens.figures import (
    plot_instance_error_rates,
    plot_landscape,
)
from credalbook.papers.juergens.real_sets import (
    evaluate_instance_test,
)

__all__ = [
    "compare",
    "paper_table1",
    "instance_test_error_rates",
    "JUERGENS_ESTIMATORS",
    "JUERGENS_H1_ALPHAS",
    "calibrated_combinations_example",
    "estimator_landscape",
    "Landscape",
    "simplex_grid",
    "weight_landscape",
    "plot_instance_error_rates",
    "plot_landscape",
    "evaluate_instance_test",
]
