"""Synthetic predictions with known calibration: calibrated draws, label sampling, and the
set and instance-dependent scenarios with known ground truth.
"""

from credalbook.synthetic.instance_scenarios import (
    HYPOTHESES,
    instance_scenario,
    INSTANCE_SETTINGS,
    InstanceScenario,
)
from credalbook.synthetic.predictions import (
    calibrated_predictions,
    sample_labels,
    scramble_non_top,
)
from credalbook.synthetic.set_scenarios import (
    credal_scenario,
    CredalScenario,
    SCENARIOS,
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
]
