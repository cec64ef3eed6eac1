"""Tests of the estimator analyses of Jürgens et al. (App. A and B)."""

import numpy as np
import pytest

from credalbook.stats import estimator_measure
from credalbook.papers.juergens import (
    calibrated_combinations_example,
    estimator_landscape,
    simplex_grid,
    weight_landscape,
)
from credalbook.stats import bootstrap_calibration_test


class TestSimplexGrid:
    def test_main(self):
        g = simplex_grid(10)
        assert g.shape == (66, 3)  # C(12, 2)
        np.testing.assert_allclose(g.sum(1), 1.0)

    def test_errors(self):
        with pytest.raises(ValueError, match="resolution"):
            simplex_grid(0)


class TestLandscapes:
    def test_estimator_landscape_minimum_near_truth(self):
        land = estimator_landscape("lp", truth=(0.6, 0.3, 0.1), n_instances=300, n_repeats=2, resolution=10, seed=0)
        assert np.abs(land.argmin - land.truth).sum() <= 0.21  # within one grid step per coordinate
        far = land.values[np.abs(land.grid - land.truth).sum(1) > 1.0]
        assert far.min() > land.values.min()

    def test_weight_landscape(self):
        land = weight_landscape("kl", weights=(0.8, 0.1, 0.1), n_instances=400, n_repeats=2, resolution=10,
                                spread=2.0, seed=0)
        assert land.grid.shape == (66, 3) and land.values.shape == (66,)
        assert np.abs(land.argmin - land.truth).sum() <= 0.41

    def test_errors(self):
        with pytest.raises(ValueError, match="truth"):
            estimator_landscape(truth=(0.5, 0.5))
        with pytest.raises(ValueError, match="truth"):
            estimator_landscape(truth=(0.5, 0.6, 0.1))
        with pytest.raises(ValueError, match="weights"):
            weight_landscape(weights=(1.0, 0.0))
        with pytest.raises(ValueError, match="estimator"):
            estimator_landscape("ece")


class TestCalibratedCombinations:
    def test_main(self):
        ex = calibrated_combinations_example(20000, seed=1)
        x = ex["features"][:, 0]
        decisions = []
        for w in ex["combinations"].values():
            p = np.einsum("nmk,nm->nk", ex["ens_probs"], w)
            # exact calibration check: frequency of Y=1 among instances with each predicted value
            for v in np.unique(p[:, 1]):
                sel = p[:, 1] == v
                decisions.append(abs(ex["labels"][sel].mean() - v) < 4 * np.sqrt(v * (1 - v) / sel.sum()))
        assert decisions == [True, True, True, False]  # two values, one value, one value (miscalibrated)
        lam = ex["combinations"]["conditional (λ₁(a)=7/8, λ₁(b)=1/8)"]
        np.testing.assert_allclose(np.einsum("nmk,nm->nk", ex["ens_probs"], lam)[:, 1], np.where(x == 0, 0.2, 0.8))

    def test_test_decisions(self):
        ex = calibrated_combinations_example(1500, seed=0)
        g = estimator_measure("kl")
        rej = [bootstrap_calibration_test(np.einsum("nmk,nm->nk", ex["ens_probs"], w), ex["labels"], measure=g,
                                          resample="permutation", n_bootstrap=99, alpha=0.01, seed=0).rejected
               for w in ex["combinations"].values()]
        assert rej == [False, False, True]
