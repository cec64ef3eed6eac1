"""Tests for credalbook.metrics.binning: the one binning helper of the binned metrics.

The bin rule at the edges (j/B opens bin j; 0 in the first bin, 1.0 in the last), where it
differs from ``floor(x * B)``, equal-mass bins against the EU paper's rule, batched per-bin sums
against a loop of ``numpy.bincount``, and the binned metrics that use the helper.
"""

import numpy as np
import pytest

from credalbook.metrics import (
    bin_ids,
    bin_index,
    bin_sums,
    ece_classwise,
    ece_confidence,
    equal_mass_cuts,
    equal_mass_edges,
    equal_width_bin_index,
    interval_index,
    reliability_curve,
    uniform_edges,
)


class TestBinIds:
    def test_main(self):
        assert bin_ids([0.0, 0.05, 0.1, 0.3, 0.7, 0.99, 1.0], 10).tolist() == [0, 0, 1, 3, 7, 9, 9]
        assert bin_ids(np.array([[0.0, 1.0], [0.5, 0.49]]), 2).tolist() == [[0, 1], [1, 0]]
        assert bin_ids([0.3], 1).tolist() == [0]

    @pytest.mark.parametrize("n_bins", [1, 2, 3, 7, 10, 15, 20, 33, 50])
    def test_edges(self, n_bins):
        # j/B opens bin j, the float just below it is still in bin j-1; 0 -> first bin, 1.0 -> last
        j = np.arange(n_bins + 1)
        edges = j / n_bins
        np.testing.assert_array_equal(bin_ids(edges, n_bins), np.minimum(j, n_bins - 1))
        below = np.nextafter(edges[1:], 0.0)
        np.testing.assert_array_equal(bin_ids(below, n_bins), j[:-1])
        np.testing.assert_array_equal(uniform_edges(n_bins), edges)

    def test_rule_is_edges_not_floor(self):
        # floor(x * B) disagrees with the edges j / B for some values just below an edge (x * B
        # rounds up to the integer); the helper follows the edges, as the metrics always have.
        found = 0
        for n_bins in range(2, 60):
            x = np.nextafter(np.arange(1, n_bins) / n_bins, 0.0)
            floor = np.floor(x * n_bins).astype(int)
            ours = bin_ids(x, n_bins)
            np.testing.assert_array_equal(ours, np.arange(n_bins - 1))
            found += int((floor != ours).sum())
        assert found > 0

    def test_quantile(self):
        rng = np.random.default_rng(0)
        x = rng.random(203)
        ids = bin_ids(x, 10, strategy="quantile")
        assert np.bincount(ids, minlength=10).max() - np.bincount(ids, minlength=10).min() <= 1
        # the EU paper's equal-mass intervals, computed by credalbook.metrics.epistemic
        np.testing.assert_array_equal(equal_mass_cuts(x, 10), equal_mass_edges(x, n_bins=10))
        np.testing.assert_array_equal(ids, interval_index(x, equal_mass_edges(x, n_bins=10)))
        # values sorted: bins are consecutive runs
        assert np.all(np.diff(bin_ids(np.sort(x), 10, strategy="quantile")) >= 0)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_bins"):
            bin_ids([0.5], 0)
        with pytest.raises(ValueError, match="strategy"):
            bin_ids([0.5], 2, strategy="log")
        with pytest.raises(ValueError, match="values"):
            bin_ids([0.5, np.nan], 2)
        with pytest.raises(ValueError, match="at least n_bins"):
            bin_ids([0.1, 0.2], 3, strategy="quantile")
        with pytest.raises(ValueError, match="1-D"):
            bin_ids(np.zeros((4, 4)), 3, strategy="quantile")


class TestBinIndex:
    def test_main(self):
        edges = np.array([0.0, 0.2, 0.3, 0.75, 1.0])
        values = np.array([-1e-9, 0.0, 0.2, 0.29, 0.3, 0.75, 0.99, 1.0, 1 + 1e-9])
        assert bin_index(values, edges).tolist() == [0, 0, 1, 1, 2, 3, 3, 3, 3]
        x = np.random.default_rng(1).random(50)
        np.testing.assert_array_equal(bin_index(x, uniform_edges(7)), equal_width_bin_index(x, 7))


class TestBinSums:
    def test_main(self):
        rng = np.random.default_rng(2)
        ids = rng.integers(0, 6, size=(3, 4, 40))
        w = rng.normal(size=(3, 4, 40))
        got = bin_sums(ids, w, 6)
        assert got.shape == (3, 4, 6)
        for a in range(3):
            for b in range(4):
                np.testing.assert_array_equal(got[a, b], np.bincount(ids[a, b], weights=w[a, b], minlength=6))
        counts = bin_sums(ids, None, 6)
        assert counts.dtype.kind == "i"
        np.testing.assert_array_equal(counts.sum(axis=-1), 40)
        np.testing.assert_array_equal(bin_sums(ids[0, 0], w[0, 0], 6), got[0, 0])


class TestUsers:
    def test_ece_and_reliability_curve_on_the_helper(self):
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(3), size=200)
        p[:5] = [1.0, 0.0, 0.0]  # confidence exactly 1: the last bin
        y = rng.integers(0, 3, size=200)
        conf, correct = p.max(axis=1), (p.argmax(axis=1) == y).astype(float)
        ids = bin_ids(conf, 10)
        expected = np.abs(bin_sums(ids, correct - conf, 10)).sum() / 200
        assert ece_confidence(p, y, n_bins=10) == expected
        curve = reliability_curve(p, y, n_bins=10)
        np.testing.assert_array_equal(curve.counts, bin_sums(ids, None, 10))
        assert curve.counts[-1] >= 5
        # classwise: values 0 go to the first bin
        curve = reliability_curve(p, y, n_bins=10, kind="classwise", class_index=1)
        assert curve.counts[0] >= 5
        assert ece_classwise(p, y, n_bins=10) == pytest.approx(
            np.mean([reliability_curve(p, y, n_bins=10, kind="classwise", class_index=k).calibration_error
                     for k in range(3)]), abs=1e-15)
