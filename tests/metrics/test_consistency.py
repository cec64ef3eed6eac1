"""Tests for credalbook.metrics.consistency: consistency bands of reliability diagrams (Bröcker & Smith 2007).

A closed form (one bin of equal forecasts: binomial quantiles), agreement of the exact
multinomial-binomial draw with literal consistency resampling (resample forecasts, draw outcomes
from them), the bins of :func:`reliability_curve`, and the coverage of the bands on calibrated data.
"""

import numpy as np
import pytest
from scipy import stats

from credalbook.metrics import consistency_bands, ConsistencyBands, reliability_curve
from credalbook.metrics.binning import equal_width_bin_index
from credalbook.synthetic import calibrated_predictions

CASES = [
    ("confidence", None, "uniform"),
    ("confidence", None, "quantile"),
    ("classwise", 1, "uniform"),
    ("classwise", None, "quantile"),
]


def _curve(p, y, kind, class_index, strategy, n_bins):
    return reliability_curve(p, y, kind=kind, class_index=class_index, n_bins=n_bins, strategy=strategy)


class TestConsistencyBands:
    def test_main(self):
        # one bin of 100 forecasts of 0.5: n* = 100 always, o* ~ Binomial(100, 0.5) / 100
        b = consistency_bands(np.full((100, 2), 0.5), n_bins=1, ci=0.9, n_resamples=4000, seed=0)
        assert isinstance(b, ConsistencyBands) and b.kind == "confidence" and b.class_index is None
        assert b.counts.tolist() == [100] and b.mean_predicted.tolist() == [0.5]
        assert (b.low[0], b.high[0]) == pytest.approx(tuple(stats.binom.ppf([0.05, 0.95], 100, 0.5) / 100), abs=0.011)
        # a forecast of exactly 0 or 1 is always right: a band of zero width
        b = consistency_bands([[1.0, 0.0], [0.0, 1.0]], kind="classwise", class_index=0, n_bins=2, seed=0)
        assert b.low.tolist() == [0.0, 1.0] and b.high.tolist() == [0.0, 1.0]

    @pytest.mark.parametrize("kind, class_index, strategy", CASES)
    def test_bins_of_the_curve(self, kind, class_index, strategy):
        p, y = calibrated_predictions(300, 4, seed=1)
        b = consistency_bands(
            p, kind=kind, class_index=class_index, n_bins=7, strategy=strategy, n_resamples=50, seed=0
        )
        c = _curve(p, y, kind, class_index, strategy, 7)
        np.testing.assert_array_equal(b.bin_edges, c.bin_edges)
        np.testing.assert_array_equal(b.counts, c.counts)
        np.testing.assert_array_equal(b.mean_predicted, c.mean_predicted)
        ok = c.counts > 0
        assert np.all(b.low[ok] <= b.mean_predicted[ok] + 1e-12) and np.all(b.mean_predicted[ok] <= b.high[ok] + 1e-12)
        assert np.isnan(b.low[~ok]).all() and np.isnan(b.high[~ok]).all()
        np.testing.assert_array_equal(b.contains(c.observed)[~ok], False)

    def test_matches_literal_consistency_resampling(self):
        """Bröcker & Smith's procedure (resample N forecasts, draw each outcome from its forecast, bin with
        the fixed bins) has the distribution of the exact draw: per-bin mean and 5/95 % quantiles agree."""
        p, _ = calibrated_predictions(200, 3, seed=2)
        conf = p.max(axis=1)
        ids = equal_width_bin_index(conf, 5)
        rng = np.random.default_rng(0)
        r = 4000
        freq = np.full((r, 5), np.nan)
        for i in range(r):
            idx = rng.integers(0, 200, 200)
            outcome = rng.random(200) < conf[idx]
            n = np.bincount(ids[idx], minlength=5)
            s = np.bincount(ids[idx], weights=outcome, minlength=5)
            freq[i, n > 0] = s[n > 0] / n[n > 0]
        b = consistency_bands(p, n_bins=5, ci=0.9, n_resamples=r, seed=1)
        ok = b.counts >= 10
        assert ok.sum() >= 3
        literal = np.nanquantile(freq[:, ok], [0.05, 0.95], axis=0)
        np.testing.assert_allclose(b.low[ok], literal[0], atol=0.03)
        np.testing.assert_allclose(b.high[ok], literal[1], atol=0.03)
        np.testing.assert_allclose(np.nanmean(freq[:, ok], axis=0), b.mean_predicted[ok], atol=0.01)

    @pytest.mark.parametrize("kind, class_index, strategy", CASES)
    def test_coverage_on_calibrated_data(self, kind, class_index, strategy):
        """Observed frequencies of calibrated predictions fall inside the 90 % band at about 90 %.

        300 data sets (N = 400, K = 3, Dir(1) predictions, labels drawn from them), 8 bins, bins with
        at least 20 forecasts (about 1300 to 2400 of them). The rate must lie in the central 99.9 %
        binomial region around 0.9 of that many bins; the pooled classwise band resamples (i, k)
        pairs and is conservative by design (module docstring): there the rate must lie between the
        lower end of that region and 0.95.
        """
        rng = np.random.default_rng(0)
        inside = total = 0
        for _ in range(300):
            p, y = calibrated_predictions(400, 3, seed=rng)
            b = consistency_bands(
                p, kind=kind, class_index=class_index, n_bins=8, strategy=strategy, ci=0.9, n_resamples=500, seed=rng
            )
            c = _curve(p, y, kind, class_index, strategy, 8)
            ok = c.counts >= 20
            inside += int(b.contains(c.observed)[ok].sum())
            total += int(ok.sum())
        lo, hi = stats.binom.ppf([0.0005, 0.9995], total, 0.9) / total
        if kind == "classwise" and class_index is None:
            hi = 0.95
        assert lo <= inside / total <= hi, (inside / total, total)

    def test_seeds(self):
        p, _ = calibrated_predictions(100, 3, seed=0)
        a = consistency_bands(p, seed=3, n_resamples=100)
        b = consistency_bands(p, seed=3, n_resamples=100)
        c = consistency_bands(p, seed=4, n_resamples=100)
        np.testing.assert_array_equal(a.low, b.low)
        assert not (np.array_equal(a.low, c.low, equal_nan=True) and np.array_equal(a.high, c.high, equal_nan=True))

    def test_errors(self):
        p, _ = calibrated_predictions(30, 3, seed=0)
        with pytest.raises(ValueError, match="kind must be one of"):
            consistency_bands(p, kind="top")
        with pytest.raises(ValueError, match="strategy must be one of"):
            consistency_bands(p, strategy="adaptive")
        with pytest.raises(ValueError, match="ci must lie in"):
            consistency_bands(p, ci=1.0)
        with pytest.raises(ValueError, match="n_resamples must be an integer >= 2"):
            consistency_bands(p, n_resamples=1)
        with pytest.raises(ValueError, match="n_bins"):
            consistency_bands(p, n_bins=0)
        with pytest.raises(ValueError, match="class_index is only used"):
            consistency_bands(p, class_index=0)
        with pytest.raises(ValueError, match=r"class_index must be an integer in \[0, 3\)"):
            consistency_bands(p, kind="classwise", class_index=3)
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            consistency_bands(p[None])
        with pytest.raises(ValueError, match="probs"):
            consistency_bands(p * 2)


class TestRenamedOptions:
    def test_level_is_ci(self):
        p, _ = calibrated_predictions(200, 3, seed=0)
        with pytest.warns(FutureWarning, match="'level' was renamed to 'ci'"):
            old = consistency_bands(p, level=0.8, n_resamples=100, seed=1)
        new = consistency_bands(p, ci=0.8, n_resamples=100, seed=1)
        np.testing.assert_array_equal(old.low, new.low)
        np.testing.assert_array_equal(old.high, new.high)
        with pytest.warns(FutureWarning, match="ConsistencyBands.level was renamed to ConsistencyBands.ci"):
            assert new.level == new.ci == 0.8

    def test_old_kind_and_strategies(self):
        p, _ = calibrated_predictions(200, 3, seed=2)
        with pytest.warns(FutureWarning, match="kind='top_label' was renamed"):
            old = consistency_bands(p, kind="top_label", n_resamples=100, seed=3)
        new = consistency_bands(p, kind="confidence", n_resamples=100, seed=3)
        assert old.kind == new.kind == "confidence"
        np.testing.assert_array_equal(old.low, new.low)
        with pytest.warns(FutureWarning, match="strategy='equal_mass' was renamed to strategy='quantile'"):
            old = consistency_bands(p, strategy="equal_mass", n_resamples=100, seed=3)
        np.testing.assert_array_equal(old.high, consistency_bands(p, strategy="quantile", n_resamples=100, seed=3).high)
