"""Calibration tests with p-values: the bootstrap test of one classifier and of a set of
classifiers, the instance-dependent test with a learned weight function, Hosmer-Lemeshow, and the
calibration measures the tests evaluate; the SKCE tests of Widmann et al.; one entry point,
:func:`calibration_test`, whose results share :class:`TestResult`.
"""

from credalbook.stats.bootstrap import (
    bootstrap_calibration_test,
    CalibrationTestResult,
    DECISION_RULES,
    exact_size,
    minimise_calibration_measure,
    MeasureObjective,
    minimise_objective,
    Minimum,
    null_statistics,
    set_calibration_test,
    set_null_distribution,
    SOLVERS,
)
from credalbook.stats.hosmer_lemeshow import (
    hosmer_lemeshow,
    hosmer_lemeshow_statistic,
    HosmerLemeshowResult,
    null_rejection_rate,
)
from credalbook.stats.instance import (
    instance_calibration_test,
    InstanceTestResult,
    split_indices,
)
from credalbook.stats.measures import (
    as_measure,
    calibration_measure,
    CalibrationMeasure,
    estimator_measure,
    MEASURES,
)
from credalbook.stats.result import TestResult
from credalbook.stats.kernel_tests import (
    SKCE_NULLS,
    SKCE_TEST_ESTIMATORS,
    skce_block_values,
    skce_bootstrap_null,
    skce_quadratic_statistic,
    skce_test,
)
from credalbook.stats.classifier import METHODS, calibration_test
from credalbook.stats.weight_learning import (
    fit_weight_function,
    LOSS_PRESETS,
    PROPER_SCORES,
    WeightFunction,
    WeightLearningConfig,
)

__all__ = [
    "bootstrap_calibration_test",
    "CalibrationTestResult",
    "DECISION_RULES",
    "exact_size",
    "minimise_calibration_measure",
    "MeasureObjective",
    "minimise_objective",
    "Minimum",
    "null_statistics",
    "set_calibration_test",
    "set_null_distribution",
    "SOLVERS",
    "hosmer_lemeshow",
    "hosmer_lemeshow_statistic",
    "HosmerLemeshowResult",
    "null_rejection_rate",
    "instance_calibration_test",
    "InstanceTestResult",
    "split_indices",
    "as_measure",
    "calibration_measure",
    "CalibrationMeasure",
    "estimator_measure",
    "MEASURES",
    "fit_weight_function",
    "LOSS_PRESETS",
    "PROPER_SCORES",
    "WeightFunction",
    "WeightLearningConfig",
    "TestResult",
    "calibration_test",
    "METHODS",
    "skce_test",
    "SKCE_TEST_ESTIMATORS",
    "SKCE_NULLS",
    "skce_block_values",
    "skce_quadratic_statistic",
    "skce_bootstrap_null",
]
