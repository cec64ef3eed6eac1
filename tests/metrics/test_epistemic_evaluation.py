"""Tests for credalbook.metrics.epistemic: accuracy gain, EECE, ρ_epi and isotonic calibration of EU (EU paper, Secs. 4.1, 4.3)."""

import math

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from credalbook.metrics import (
    accuracy_gain,
    eece,
    epistemic_correlation,
    eu_reliability,
    EUCalibrationMap,
    EUEvaluation,
    EUReliability,
    evaluate_eu,
    fit_eu_calibration,
    interval_cuts,
    interval_index,
    uncertainty_decomposition,
)


class TestAccuracyGain:
    def test_main(self):
        gain = accuracy_gain([1, 1, 0, 0, 1], pred=[0, 1, 0, 1, 1], pred_optimal=[1, 1, 1, 0, 0])
        np.testing.assert_array_equal(gain, [1, 0, -1, 1, -1])

    def test_expectation_is_epistemic_uncertainty(self):
        """E_y[gain] = P(f*|x) − P(f̂|x) = 𝓔(x) (Def. 4 and the identity below it)."""
        rng = np.random.default_rng(0)
        p_true = np.array([0.9, 0.9, 0.6, 0.3, 0.5, 0.05])
        pred = np.array([1, 0, 0, 1, 1, 1])
        f_star = (p_true > 0.5).astype(int)
        n_rep = 200_000
        y = (rng.random((n_rep, p_true.size)) < p_true).astype(int)
        gains = np.stack([accuracy_gain(row, pred=pred, pred_optimal=f_star) for row in y[:2000]])
        # vectorised check on all replicates, equal to the function on the first 2000
        all_gains = (f_star == y).astype(int) - (pred == y).astype(int)
        np.testing.assert_array_equal(all_gains[:2000], gains)
        truth = uncertainty_decomposition(p_true, pred).epistemic
        np.testing.assert_allclose(truth, [0.0, 0.8, 0.2, 0.4, 0.0, 0.9], atol=1e-12)
        se = all_gains.std(axis=0) / math.sqrt(n_rep)
        assert (np.abs(all_gains.mean(axis=0) - truth) <= 4 * se + 1e-12).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="labels must hold binary"):
            accuracy_gain([2], pred=[0], pred_optimal=[0])
        with pytest.raises(ValueError, match="pred_optimal must have length 2"):
            accuracy_gain([0, 1], pred=[0, 1], pred_optimal=[0])
        with pytest.raises(TypeError):
            accuracy_gain([0, 1], [0, 1], [0, 1])  # keyword-only predictions


class TestEqualMassEdges:
    def test_main(self):
        np.testing.assert_allclose(interval_cuts([0.1, 0.4, 0.2, 0.3, 0.6, 0.5], n_bins=3), [0.25, 0.45])
        rng = np.random.default_rng(0)
        eu = rng.random(1000)
        counts = np.bincount(interval_index(eu, interval_cuts(eu, n_bins=20)), minlength=20)
        np.testing.assert_array_equal(counts, np.full(20, 50))
        counts = np.bincount(interval_index(eu[:997], interval_cuts(eu[:997], n_bins=20)), minlength=20)
        assert counts.sum() == 997 and counts.max() - counts.min() <= 1

    def test_errors(self):
        with pytest.raises(ValueError, match="at least n_bins = 3"):
            interval_cuts([0.1, 0.2], n_bins=3)
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
            interval_cuts([0.1, 0.2], n_bins=0)


class TestIntervalIndex:
    def test_main(self):
        np.testing.assert_array_equal(
            interval_index([-5.0, 0.0, 0.25, 0.3, 0.45, 9.0], [0.25, 0.45]), [0, 0, 1, 1, 2, 2]
        )

    def test_errors(self):
        with pytest.raises(ValueError, match="cuts must be non-decreasing"):
            interval_index([0.1], [0.5, 0.2])


class TestEUReliability:
    def test_main(self):
        rel = eu_reliability([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0, 1, 0, 1, 1, 1], cuts=[0.25, 0.45])
        assert isinstance(rel, EUReliability)
        np.testing.assert_array_equal(rel.counts, [2, 2, 2])
        np.testing.assert_allclose(rel.mean_eu, [0.15, 0.35, 0.55])
        np.testing.assert_allclose(rel.mean_gain, [0.5, 0.5, 1.0])
        # (2|0.5-0.15| + 2|0.5-0.35| + 2|1-0.55|)/6
        assert rel.eece == pytest.approx((0.35 + 0.15 + 0.45) / 3)

    def test_empty_interval_and_bin_by(self):
        rel = eu_reliability([0.1, 0.2, 0.9], [0, 1, 1], cuts=[0.5, 0.7])
        np.testing.assert_array_equal(rel.counts, [2, 0, 1])
        assert np.isnan(rel.mean_eu[1]) and np.isnan(rel.mean_gain[1])
        assert rel.eece == pytest.approx((2 * abs(0.5 - 0.15) + 1 * abs(1 - 0.9)) / 3)
        # bin by another array: intervals of the raw values, averages of the given ones
        rel2 = eu_reliability([0.0, 0.0, 0.3], [0, 1, 1], cuts=[0.5, 0.7], bin_by=[0.1, 0.2, 0.9])
        np.testing.assert_array_equal(rel2.counts, rel.counts)
        np.testing.assert_allclose(rel2.mean_eu[[0, 2]], [0.0, 0.3])


class TestEECE:
    def test_main(self):
        assert eece([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], n_bins=2) == pytest.approx(0.15)
        # perfectly calibrated per interval -> 0
        eu = np.array([0.25, 0.25, 0.25, 0.25, 0.5, 0.5])
        assert eece(eu, [1, 0, 0, 0, 1, 0], cuts=[0.4]) == pytest.approx(0.0)
        # a single interval: |mean gain - mean EU|
        assert eece([0.2, 0.4], [1, -1], n_bins=1) == pytest.approx(0.3)

    def test_printed_normalisation(self):
        """With equal-mass intervals, Def. 5 as printed = (T/M) x the weighted average used here."""
        rng = np.random.default_rng(1)
        eu = rng.random(400)
        gain = (rng.random(400) < eu / 2).astype(int)
        rel = eu_reliability(eu, gain, n_bins=20)
        printed = np.sum(rel.counts * np.abs(rel.mean_gain - rel.mean_eu)) / 20
        assert printed == pytest.approx(400 / 20 * rel.eece)
        assert rel.eece == pytest.approx(np.mean(np.abs(rel.mean_gain - rel.mean_eu)))

    def test_permutation_invariance(self):
        rng = np.random.default_rng(2)
        eu, gain = rng.random(300), rng.integers(-1, 2, 300)
        perm = rng.permutation(300)
        assert eece(eu[perm], gain[perm], n_bins=10) == pytest.approx(eece(eu, gain, n_bins=10), abs=1e-15)

    def test_errors(self):
        with pytest.raises(ValueError, match="gain must have length 2"):
            eece([0.1, 0.2], [1], n_bins=1)
        with pytest.raises(ValueError, match="eu must be finite"):
            eece([np.inf, 0.2], [1, 0], n_bins=1)


class TestEpistemicCorrelation:
    def test_main(self):
        # average ranks for ties: Pearson of ranks (1, 2, 3, 4) and (1.5, 1.5, 3.5, 3.5) = 4 / sqrt(20)
        assert epistemic_correlation([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1]) == pytest.approx(4 / math.sqrt(20))
        assert epistemic_correlation([0.1, 0.2, 0.3], [-1, 0, 1]) == pytest.approx(1.0)
        assert epistemic_correlation([0.1, 0.2, 0.3], [1, 0, -1]) == pytest.approx(-1.0)

    def test_invariant_to_monotone_maps(self):
        rng = np.random.default_rng(3)
        eu, gain = rng.random(200), rng.integers(-1, 2, 200)
        assert epistemic_correlation(np.exp(5 * eu), gain) == pytest.approx(epistemic_correlation(eu, gain))

    def test_constant_is_nan(self):
        assert math.isnan(epistemic_correlation([0.1, 0.2, 0.3], [0, 0, 0]))
        assert math.isnan(epistemic_correlation([0.1, 0.1], [0, 1]))

    def test_errors(self):
        with pytest.raises(ValueError, match="gain must have length 3"):
            epistemic_correlation([0.1, 0.2, 0.3], [0, 1])


class TestFitEUCalibration:
    def test_main(self):
        gamma = fit_eu_calibration([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], cuts=[0.25])
        assert isinstance(gamma, EUCalibrationMap)
        np.testing.assert_allclose(gamma.bin_gain, [0.0, 0.5])
        np.testing.assert_array_equal(gamma.counts, [2, 2])
        np.testing.assert_allclose(gamma([0.0, 0.2, 0.35, 1.0]), [0.0, 0.0, 0.5, 0.5])

    def test_pooling_and_clip(self):
        # interval gains 0.5 then 0.1 violate monotonicity: isotonic regression pools them to 0.3
        eu = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]
        gain = [1, 1, 0, 0, 0, 0, 0, 0, 1, 0]
        gamma = fit_eu_calibration(eu, gain, cuts=[0.5])
        np.testing.assert_allclose(gamma.bin_gain, [0.5, 1 / 6])
        np.testing.assert_allclose(gamma([0.0, 1.0]), [0.3, 0.3])
        neg = fit_eu_calibration([0.1, 0.2, 0.8, 0.9], [-1, -1, 1, 0], cuts=[0.5])
        assert neg([0.0]) == pytest.approx(0.0)  # clipped at 0
        unclipped = fit_eu_calibration([0.1, 0.2, 0.8, 0.9], [-1, -1, 1, 0], cuts=[0.5], clip=False)
        assert unclipped([0.0]) == pytest.approx(-1.0)

    def test_monotone_and_matches_sklearn(self):
        rng = np.random.default_rng(4)
        eu = rng.random(500)
        gain = (rng.random(500) < 0.3 * eu).astype(int) - (rng.random(500) < 0.05).astype(int)
        edges = interval_cuts(rng.random(300), n_bins=20)
        gamma = fit_eu_calibration(eu, gain, cuts=edges)
        grid = np.linspace(-0.5, 1.5, 2001)
        out = gamma(grid)
        assert (np.diff(out) >= 0).all()
        assert out.min() >= 0 and out.max() <= 1
        gamma_hat = gamma.bin_gain[interval_index(eu, edges)]
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(eu, gamma_hat)
        np.testing.assert_allclose(out, iso.predict(grid), atol=1e-12)

    def test_calibration_lowers_eece(self):
        """EU estimates three times too large: the map learnt on calibration data fixes the scale."""
        rng = np.random.default_rng(5)

        def sample(n):
            true_eu = 0.3 * rng.random(n)
            gain = (rng.random(n) < true_eu).astype(int)
            return 3 * true_eu, gain

        eu_test, gain_test = sample(4000)
        eu_cal, gain_cal = sample(4000)
        edges = interval_cuts(eu_test, n_bins=20)
        gamma = fit_eu_calibration(eu_cal, gain_cal, cuts=edges)
        raw = eece(eu_test, gain_test, cuts=edges)
        calibrated = eece(gamma(eu_test), gain_test, cuts=edges, bin_by=eu_test)
        assert raw == pytest.approx(0.3, abs=0.03)  # mean |3e - e| = 2 x mean e = 0.3
        assert calibrated < 0.03

    def test_errors(self):
        with pytest.raises(ValueError, match="cuts must be non-decreasing"):
            fit_eu_calibration([0.1, 0.2], [0, 1], cuts=[0.5, 0.1])
        with pytest.raises(ValueError, match="gain must have length 2"):
            fit_eu_calibration([0.1, 0.2], [0], cuts=[0.5])


class TestEvaluateEU:
    def test_main(self):
        rng = np.random.default_rng(6)
        eu = rng.random(300)
        gain = (rng.random(300) < 0.5 * eu).astype(int)
        gamma = fit_eu_calibration(
            rng.random(300), (rng.random(300) < 0.2).astype(int), cuts=interval_cuts(eu, n_bins=10)
        )
        ev = evaluate_eu(eu, gain, n_bins=10, calibration=gamma)
        assert isinstance(ev, EUEvaluation)
        assert ev.rho_epi == pytest.approx(epistemic_correlation(eu, gain))
        assert ev.eece == pytest.approx(eece(eu, gain, n_bins=10))
        assert ev.calibrated_eece == pytest.approx(eece(gamma(eu), gain, n_bins=10, bin_by=eu))
        np.testing.assert_array_equal(ev.calibrated_reliability.counts, ev.reliability.counts)

    def test_errors(self):
        with pytest.raises(ValueError, match="calibration must be an EUCalibrationMap"):
            evaluate_eu([0.1, 0.2], [0, 1], n_bins=1, calibration=lambda e: e)


class TestRenamedCuts:
    """The interior cuts were called ``edges`` before 0.6 (edges are the M + 1 boundaries); the old names warn."""

    EU = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    GAIN = [0, 1, 0, 1, 1, 1]

    def test_equal_mass_edges(self):
        from credalbook.metrics import equal_mass_edges

        with pytest.warns(FutureWarning, match="renamed to interval_cuts"):
            np.testing.assert_array_equal(equal_mass_edges(self.EU, n_bins=3), interval_cuts(self.EU, n_bins=3))

    def test_edges_keyword_and_attribute(self):
        cuts = [0.25, 0.45]
        with pytest.warns(FutureWarning, match="'edges' was renamed to 'cuts'"):
            old = eu_reliability(self.EU, self.GAIN, edges=cuts)
        new = eu_reliability(self.EU, self.GAIN, cuts=cuts)
        np.testing.assert_array_equal(old.mean_gain, new.mean_gain)
        with pytest.warns(FutureWarning, match="EUReliability.edges was renamed to EUReliability.cuts"):
            np.testing.assert_array_equal(new.edges, new.cuts)
        with pytest.warns(FutureWarning, match="'edges' was renamed to 'cuts'"):
            assert eece(self.EU, self.GAIN, edges=cuts) == eece(self.EU, self.GAIN, cuts=cuts)
        with pytest.warns(FutureWarning, match="'edges' was renamed to 'cuts'"):
            np.testing.assert_array_equal(interval_index(self.EU, edges=cuts), interval_index(self.EU, cuts))
        with pytest.warns(FutureWarning, match="'edges' was renamed to 'cuts'"):
            gamma = fit_eu_calibration(self.EU, self.GAIN, edges=cuts)
        with pytest.warns(FutureWarning, match="EUCalibrationMap.edges was renamed"):
            np.testing.assert_array_equal(gamma.edges, fit_eu_calibration(self.EU, self.GAIN, cuts=cuts).cuts)
        with pytest.warns(FutureWarning, match="'edges' was renamed to 'cuts'"):
            assert evaluate_eu(self.EU, self.GAIN, edges=cuts).eece == evaluate_eu(self.EU, self.GAIN, cuts=cuts).eece
