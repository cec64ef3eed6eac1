"""An early-stopping fit that keeps its initial parameters says so (a ConvergenceWarning naming the reason)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from credalbook.calibration import AlphaCalibrator, TemperatureScaling


class TestFitThatStaysAtItsStart:
    def test_main(self):
        """Every row's NLL is lowest at T = 1 exactly: no epoch improves the held-out NLL, the fit warns, T stays 1."""
        z, h = np.tile([[np.log(2), 0.0]], (200, 1)), np.tile([[2, 1]], (200, 1))
        with pytest.warns(ConvergenceWarning, match=r"TemperatureScaling\.fit: kept its initial parameters.*adam"):
            ts = TemperatureScaling(precompute=False).fit(z, h, optimizer="adam", seed=0)
        assert ts.temperature == 1.0 and ts.best_epoch_ == 0

    def test_moving_fit_is_silent(self):
        """Over-confident logits: the held-out NLL falls, T moves above 1, nothing is warned."""
        rng = np.random.default_rng(0)
        s = rng.normal(size=(300, 3))
        h = np.stack([rng.multinomial(3, np.exp(r) / np.exp(r).sum()) for r in s])
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            ts = TemperatureScaling(precompute=False).fit(3 * s, h, optimizer="adam", seed=0)
        assert ts.temperature > 1.05 and ts.best_epoch_ > 0

    def test_alpha_head(self):
        """The α head shares the loop: a head whose held-out loss never falls warns too."""
        rng = np.random.default_rng(1)
        feats, probs = rng.normal(size=(200, 2)), np.full((200, 2), 0.5)
        hist = np.tile([[1, 1]], (200, 1))
        with pytest.warns(ConvergenceWarning, match=r"AlphaCalibrator\.fit: kept its initial parameters"):
            AlphaCalibrator(1e6).fit(feats, probs, hist, optimizer="adam", seed=0)
