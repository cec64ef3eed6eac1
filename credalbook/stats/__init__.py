"""Calibration tests with p-values: the bootstrap test of one classifier and of a set of
classifiers, the instance-dependent test with a learned weight function, Hosmer-Lemeshow, the
classical binary tests (Spiegelhalter's z, Hosmer-Lemeshow's C and H), and the
calibration measures the tests evaluate; the SKCE tests of Widmann et al.; one entry point,
:func:`calibration_test`, whose results share :class:`TestResult` (one field ``pvalue``, one
decision rule).

The engines underneath (:mod:`credalbook.stats.null_distribution`: ``null_statistics``,
``null_replicates``; :mod:`credalbook.stats.minimise`: ``MeasureObjective``, ``minimise_objective``;
:mod:`credalbook.stats.kernel_tests`: ``skce_block_values``, ``skce_quadratic_statistic``,
``skce_bootstrap_null``, ``skce_asymptotic_test``) do not validate their inputs; they are importable here and from their
modules but are not part of ``__all__``.
"""

from typing import TYPE_CHECKING

from credalbook.stats.binary_tests import BINARY_NULLS, hosmer_lemeshow_binary_test, spiegelhalter_test
from credalbook.stats.bootstrap import (
    bootstrap_calibration_test,
    CalibrationTestResult,
    DECISION_RULES,
    exact_size,
    set_calibration_test,
    set_null_distribution,
    SetTestOptions,
)
from credalbook.stats.classifier import calibration_test, METHODS
from credalbook.stats.comparison import compare_models, DEFAULT_METRICS, ModelComparison
from credalbook.stats.hosmer_lemeshow import (
    hosmer_lemeshow,
    hosmer_lemeshow_statistic,
    HosmerLemeshowResult,
    null_rejection_rate,
)
from credalbook.stats.kernel_tests import SKCE_NULLS, skce_test, SKCE_TEST_ESTIMATORS, SKCETestOptions
from credalbook.stats.measures import as_measure, calibration_measure, CalibrationMeasure, estimator_measure, MEASURES
from credalbook.stats.minimise import minimise_calibration_measure, Minimum, SOLVERS
from credalbook.stats.null_distribution import NULL_CHUNK
from credalbook.stats.result import TestResult

if TYPE_CHECKING:  # imported on first access (they import torch); named here for readers, type checkers
    # and the provenance of records, which follows these statements to the defining modules
    from credalbook.stats.instance import (
        instance_calibration_test,
        InstanceTestOptions,
        InstanceTestResult,
        split_indices,
    )
    from credalbook.stats.weight_learning import (
        fit_weight_function,
        LOSS_PRESETS,
        PROPER_SCORES,
        WeightFunction,
        WeightLearningConfig,
    )

#: Names of the instance-dependent test and its weight learning (they import torch): name -> module.
_LAZY = {
    **dict.fromkeys(
        ("instance_calibration_test", "InstanceTestOptions", "InstanceTestResult", "split_indices"),
        "credalbook.stats.instance",
    ),
    **dict.fromkeys(
        ("fit_weight_function", "LOSS_PRESETS", "PROPER_SCORES", "WeightFunction", "WeightLearningConfig"),
        "credalbook.stats.weight_learning",
    ),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "bootstrap_calibration_test",
    "CalibrationTestResult",
    "DECISION_RULES",
    "exact_size",
    "minimise_calibration_measure",
    "Minimum",
    "NULL_CHUNK",
    "set_calibration_test",
    "set_null_distribution",
    "SetTestOptions",
    "SOLVERS",
    "hosmer_lemeshow",
    "hosmer_lemeshow_statistic",
    "HosmerLemeshowResult",
    "null_rejection_rate",
    "spiegelhalter_test",
    "hosmer_lemeshow_binary_test",
    "BINARY_NULLS",
    "instance_calibration_test",
    "InstanceTestOptions",
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
    "compare_models",
    "ModelComparison",
    "DEFAULT_METRICS",
    "skce_test",
    "SKCETestOptions",
    "SKCE_TEST_ESTIMATORS",
    "SKCE_NULLS",
]
