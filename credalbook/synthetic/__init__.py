"""Synthetic predictions with known calibration: calibrated draws, label sampling, and the
set and instance-dependent scenarios with known ground truth, and the generative models of
Widmann et al. (2019) with the empirical errors of calibration tests on them.
"""

from credalbook.synthetic.instance_scenarios import HYPOTHESES, instance_scenario, INSTANCE_SETTINGS, InstanceScenario
from credalbook.synthetic.predictions import calibrated_predictions, sample_labels, scramble_non_top
from credalbook.synthetic.set_scenarios import credal_scenario, CredalScenario, SCENARIOS
from credalbook.synthetic.widmann import (
    median_tv_distance,
    TVExponentialKernel,
    widmann_model,
    WIDMANN_MODELS,
    widmann_test_errors,
    WidmannModel,
    WidmannTestErrors,
)

__all__ = [
    "HYPOTHESES",
    "instance_scenario",
    "INSTANCE_SETTINGS",
    "InstanceScenario",
    "calibrated_predictions",
    "sample_labels",
    "scramble_non_top",
    "credal_scenario",
    "CredalScenario",
    "SCENARIOS",
    "WIDMANN_MODELS",
    "WidmannModel",
    "widmann_model",
    "TVExponentialKernel",
    "median_tv_distance",
    "WidmannTestErrors",
    "widmann_test_errors",
]
