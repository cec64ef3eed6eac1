"""The calibrators of the Wu & Gales chapter, fitted as in App. A.4 (SGD, learning rate 0.1, ``n_iter`` steps).

``"pre"`` fits the member temperatures to the combined prediction, ``"pre_members"`` each to its own member
(see :mod:`credalbook.papers.wu_gales.experiments`), ``"post"`` / ``"ts"`` one temperature after the
combination, ``"dyn"`` one per region of the ensemble's confidence.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from credalbook.calibration.combination import average_members
from credalbook.calibration.ensemble import DynamicTemperatureScaling, PostCombinationScaling, PreCombinationScaling

__all__: list = []


def _probs(logits) -> np.ndarray:
    return softmax(np.asarray(logits, dtype=np.float64), axis=-1)


def _calibrator(method: str, n_regions: int, regions, criterion: str, weights=None):
    if method in ("pre", "pre_members"):  # temperatures fitted to the ensemble ("pre") or each to its member
        target = "ensemble" if method == "pre" else "members"
        return PreCombinationScaling(fit_to=target, criterion=criterion, weights=weights)
    if method in ("post", "ts"):
        return PostCombinationScaling(criterion=criterion, weights=weights)
    return DynamicTemperatureScaling(n_regions, regions=regions, criterion=criterion, weights=weights)


def _fitted(method, z_val, y_val, *, n_regions=6, regions="equal_mass", criterion="ece", n_iter=400, weights=None):
    """`method` fitted on validation logits: a map from logits to calibrated probabilities, and its temperatures."""
    if method in (None, "none"):
        return (lambda z: average_members(_probs(z), weights=weights)), np.empty(0)
    # App. A.4: SGD, learning rate 0.1, 400 iterations (the library's default fits to convergence instead)
    cal = _calibrator(method, n_regions, regions, criterion, weights).fit(z_val, y_val, optimizer="sgd", n_iter=n_iter)
    return cal.predict_proba, np.atleast_1d(cal.temperatures if hasattr(cal, "temperatures") else cal.temperature)
