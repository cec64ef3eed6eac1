"""Tests for credalbook.synthetic: calibrated predictions and the non-top scramble."""

import math

import numpy as np
import pytest

from credalbook.metrics import ece_classwise, ece_confidence
from credalbook.synthetic import calibrated_predictions, sample_labels, scramble_non_top


class TestCalibratedPredictions:
    def test_main(self):
        p, y = calibrated_predictions(50, 4, seed=0)
        assert p.shape == (50, 4) and y.shape == (50,)
        assert p.dtype == np.float64 and np.issubdtype(y.dtype, np.integer)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(p >= 0)
        assert y.min() >= 0 and y.max() < 4

    def test_deterministic_by_seed(self):
        a = calibrated_predictions(100, 3, seed=5)
        b = calibrated_predictions(100, 3, seed=5)
        c = calibrated_predictions(100, 3, seed=6)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert not np.array_equal(a[0], c[0])
        # a Generator is consumed: two calls from one generator differ
        rng = np.random.default_rng(0)
        assert not np.array_equal(
            calibrated_predictions(10, 3, seed=rng)[0], calibrated_predictions(10, 3, seed=rng)[0]
        )

    def test_labels_follow_probs(self):
        """Mean one-hot label ≈ mean prediction; within bins of p_k the frequency of k ≈ p_k."""
        n, k = 200_000, 4
        p, y = calibrated_predictions(n, k, seed=1)
        onehot = np.eye(k)[y]
        se = np.sqrt(p.mean(0) * (1 - p.mean(0)) / n)
        assert np.all(np.abs(onehot.mean(0) - p.mean(0)) < 5 * se)
        # conditional: instances with p_0 in [0.6, 0.7) have class 0 at rate ≈ their mean p_0
        sel = (p[:, 0] >= 0.6) & (p[:, 0] < 0.7)
        rate, mean_p = onehot[sel, 0].mean(), p[sel, 0].mean()
        assert abs(rate - mean_p) < 5 * math.sqrt(mean_p * (1 - mean_p) / sel.sum())

    @pytest.mark.parametrize("concentration", [0.3, 1.0, 5.0])
    def test_dirichlet_moments(self, concentration):
        # Dir(c 1_K): E p_k = 1/K, Var p_k = (1/K)(1 - 1/K) / (K c + 1)
        n, k = 100_000, 5
        p, _ = calibrated_predictions(n, k, concentration=concentration, seed=2)
        np.testing.assert_allclose(p.mean(0), 1 / k, atol=5e-3)
        var = (1 / k) * (1 - 1 / k) / (k * concentration + 1)
        np.testing.assert_allclose(p.var(0), var, rtol=0.05)

    def test_errors(self):
        for bad in (0, -3, 2.5, True):
            with pytest.raises(ValueError, match="n_instances"):
                calibrated_predictions(bad, 3)
        for bad in (1, 0, 3.0):
            with pytest.raises(ValueError, match="n_classes"):
                calibrated_predictions(10, bad)
        for bad in (0, -1.0, float("nan"), True, "1"):
            with pytest.raises(ValueError, match="concentration must be a positive number"):
                calibrated_predictions(10, 3, concentration=bad)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                calibrated_predictions(10, 3, seed=bad)


class TestScrambleNonTop:
    def test_main(self):
        p, _ = calibrated_predictions(2000, 5, seed=0)
        q = scramble_non_top(p, seed=1)
        assert q.shape == p.shape
        np.testing.assert_array_equal(q.max(axis=1), p.max(axis=1))
        np.testing.assert_array_equal(q.argmax(axis=1), p.argmax(axis=1))
        np.testing.assert_array_equal(np.sort(q, axis=1), np.sort(p, axis=1))  # same multiset per row
        np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-12)
        assert not np.array_equal(q, p)

    def test_docstring_example(self):
        q = scramble_non_top(np.array([[0.6, 0.3, 0.1]]), seed=1)
        assert q[0, 0] == 0.6
        assert sorted(q[0, 1:].tolist()) == [0.1, 0.3]

    def test_uniform_permutation_of_non_top(self):
        # The non-top entries get a uniformly random permutation: a row is unchanged w.p. 1/(K-1)!.
        for k, unchanged in ((3, 1 / 2), (4, 1 / 6)):
            p, _ = calibrated_predictions(20_000, k, seed=k)
            q = scramble_non_top(p, seed=0)
            frac = np.mean(np.all(q == p, axis=1))
            assert abs(frac - unchanged) < 5 * math.sqrt(unchanged * (1 - unchanged) / 20_000)
        # K = 2: nothing to permute
        p, _ = calibrated_predictions(100, 2, seed=0)
        np.testing.assert_array_equal(scramble_non_top(p, seed=0), p)

    def test_deterministic_and_input_untouched(self):
        p, _ = calibrated_predictions(100, 4, seed=3)
        before = p.copy()
        a = scramble_non_top(p, seed=9)
        np.testing.assert_array_equal(a, scramble_non_top(p, seed=9))
        assert not np.array_equal(a, scramble_non_top(p, seed=10))
        np.testing.assert_array_equal(p, before)

    def test_separates_confidence_from_classwise(self):
        p, y = calibrated_predictions(200_000, 5, seed=0)
        q = scramble_non_top(p, seed=1)
        before_conf, before_cwise = ece_confidence(p, y), ece_classwise(p, y)
        assert before_conf < 0.01 and before_cwise < 0.01
        # confidence and prediction unchanged, so ECE_conf is exactly the same (measured 0.0013) ...
        assert ece_confidence(q, y) == before_conf
        # ... while ECE_cwise grows by more than an order of magnitude (measured 0.0016 -> 0.054)
        assert ece_classwise(q, y) > 0.04
        assert ece_classwise(q, y) > 10 * before_cwise

    def test_tied_maximum_keeps_prediction(self):
        p = np.tile([0.1, 0.45, 0.45], (20, 1))  # argmax 1 (first of the tied maxima)
        q = scramble_non_top(p, seed=0)
        np.testing.assert_array_equal(q.argmax(axis=1), p.argmax(axis=1))

    def test_errors(self):
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            scramble_non_top(np.full((2, 3, 3), 1 / 3))
        with pytest.raises(ValueError, match="probs"):
            scramble_non_top([[0.5, 0.6, 0.1]])
        with pytest.raises(ValueError, match="probs"):
            scramble_non_top([0.5, 0.5])
        with pytest.raises(ValueError, match="seed must be None, a non-negative integer.*; got -1"):
            scramble_non_top([[0.5, 0.5]], seed=-1)


class TestSampleLabels:
    def test_main(self):
        p = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
        y = sample_labels(p, np.random.default_rng(0), size=2000)
        assert y.shape == (2000, 3)
        assert (y[:, 0] == 1).all() and (y[:, 1] == 0).all()  # probabilities exactly 0 and 1
        assert abs(y[:, 2].mean() - 0.5) < 4 * 0.5 / math.sqrt(2000)  # within 4 standard errors
        # a seed instead of a Generator (used to raise AttributeError): same draws as its Generator
        np.testing.assert_array_equal(sample_labels(p, 0), sample_labels(p, np.random.default_rng(0)))
        assert sample_labels(p, 0, size=0).shape == (0, 3)
        assert sample_labels([0.25, 0.75], 1).shape == ()  # one distribution, one label

    def test_old_keyword(self):
        p = np.array([[0.2, 0.8], [0.6, 0.4]])
        with pytest.warns(FutureWarning, match="'rng' was renamed to 'seed'"):
            old = sample_labels(p, rng=np.random.default_rng(3), size=5)
        np.testing.assert_array_equal(old, sample_labels(p, seed=np.random.default_rng(3), size=5))
        assert sample_labels(p).shape == (2,)  # seed=None by default

    def test_errors(self):
        p = np.array([[0.5, 0.5]])
        for bad in (-1, 1.5, "a", True, [0, -1]):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                sample_labels(p, bad)
        for bad in (-1, 2.5, True, "3"):
            with pytest.raises(ValueError, match="size must be an integer >= 0"):
                sample_labels(p, 0, size=bad)
        with pytest.raises(ValueError, match="probs must sum to 1"):
            sample_labels([[0.5, 0.6]], 0)
