"""Tests for credalbook.metrics (Mortier et al. 2023, Eqs. 4-6).

Hand-computed values, an independent loop-based reference for the binned calibration errors,
invariances (instances, class labels), torch/numpy and batched/loop agreement, and Monte-Carlo
checks on perfectly calibrated synthetic predictions.
"""

import math

import numpy as np
import pytest
import torch

from credalbook.synthetic import calibrated_predictions, sample_labels
from credalbook._validation import as_scalar
from credalbook.metrics import (
    ReliabilityCurve,
    accuracy,
    brier_score,
    calibration_summary,
    ece_classwise,
    ece_confidence,
    equal_width_bin_index,
    one_hot,
    nll,
    reliability_curve,
)

ALL_METRICS = [accuracy, brier_score, nll, ece_confidence, ece_classwise]


# ----------------------------------------------------------------------------------------------
# Independent slow references: explicit Python loops over bins, edges j/B, last bin right-closed.
# ----------------------------------------------------------------------------------------------
def _in_bin(value, j, n_bins):
    lo, hi = j / n_bins, (j + 1) / n_bins
    if j == n_bins - 1:
        return lo <= value <= hi
    return lo <= value < hi


def _ref_ece_confidence(probs, labels, n_bins):
    n = len(labels)
    conf = [max(row) for row in probs]
    pred = [int(np.argmax(row)) for row in probs]
    total = 0.0
    for j in range(n_bins):
        members = [i for i in range(n) if _in_bin(conf[i], j, n_bins)]
        if not members:
            continue
        acc = sum(1.0 for i in members if pred[i] == labels[i]) / len(members)
        mean_conf = sum(conf[i] for i in members) / len(members)
        total += len(members) / n * abs(acc - mean_conf)
    return total


def _ref_ece_classwise(probs, labels, n_bins):
    n, k = np.shape(probs)
    total = 0.0
    for c in range(k):
        for j in range(n_bins):
            members = [i for i in range(n) if _in_bin(probs[i][c], j, n_bins)]
            if not members:
                continue
            obs = sum(1.0 for i in members if labels[i] == c) / len(members)
            mean_p = sum(probs[i][c] for i in members) / len(members)
            total += len(members) / n * abs(obs - mean_p)
    return total / k


def _random_case(n=300, k=4, seed=0, concentration=1.0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, concentration), size=n)
    y = rng.integers(0, k, size=n)
    return p, y


def _grid_case(n=400, k=3, seed=0):
    """Probabilities on the grid {0, 1/20, ..., 1}: many values sit exactly on bin edges j/10."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(20, np.full(k, 1.0 / k), size=n)
    return counts / 20.0, rng.integers(0, k, size=n)


def _relabel(p, y, perm):
    """New class j is old class perm[j]."""
    inv = np.argsort(perm)
    return p[:, perm], inv[y]


def _sharpen(p, power=3.0):
    s = p**power
    return s / s.sum(axis=-1, keepdims=True)


# ----------------------------------------------------------------------------------------------
class TestAccuracy:
    def test_main(self):
        p = [[0.7, 0.3], [0.4, 0.6], [0.9, 0.1], [0.5, 0.5]]
        # correct, correct, wrong, tie -> argmax 0 -> correct
        assert accuracy(p, [0, 1, 1, 0]) == pytest.approx(0.75, abs=1e-15)
        assert accuracy(p, [1, 0, 0, 1]) == pytest.approx(0.25, abs=1e-15)
        assert isinstance(accuracy(p, [0, 1, 1, 0]), float)

    def test_ties_go_to_lowest_index(self):
        p = [[0.4, 0.4, 0.2], [0.2, 0.4, 0.4]]
        assert accuracy(p, [0, 1]) == 1.0
        assert accuracy(p, [1, 2]) == 0.0

    def test_float_integer_labels(self):
        p = [[0.7, 0.3], [0.4, 0.6]]
        assert accuracy(p, np.array([0.0, 1.0])) == 1.0

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            accuracy([0.5, 0.5], [0])
        with pytest.raises(ValueError, match="labels"):
            accuracy([[0.5, 0.5]], [2])


class TestBrierScore:
    def test_main(self):
        assert brier_score([[0.7, 0.3], [0.4, 0.6]], [0, 0]) == pytest.approx(0.45, abs=1e-12)
        # 0.5² + 0.3² + 0.8²
        assert brier_score([[0.5, 0.3, 0.2]], [2]) == pytest.approx(0.98, abs=1e-12)
        # range [0, 2]: perfect and maximally wrong predictions
        assert brier_score([[1.0, 0.0], [0.0, 1.0]], [0, 1]) == 0.0
        assert brier_score([[1.0, 0.0], [0.0, 1.0]], [1, 0]) == pytest.approx(2.0)

    def test_monte_carlo_expectation(self):
        """For labels y ~ p, E[BS] = mean_i (1 - ||p_i||²)."""
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(4), size=50)
        n_rep = 20_000
        y = sample_labels(p, rng, size=n_rep)  # (R, N)
        scores = brier_score(np.broadcast_to(p, (n_rep, *p.shape)), y)
        assert scores.shape == (n_rep,)
        expected = float(np.mean(1.0 - (p**2).sum(axis=1)))
        se = scores.std() / math.sqrt(n_rep)
        assert abs(scores.mean() - expected) < 5 * se
        assert abs(scores.mean() - expected) < 3e-3

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            brier_score([[0.5, 0.6]], [0])
        with pytest.raises(ValueError, match="labels"):
            brier_score([[0.5, 0.5]], [-1])


class TestNLL:
    def test_main(self):
        expected = -(math.log(0.5) + math.log(0.75)) / 2
        assert nll([[0.5, 0.5], [0.25, 0.75]], [0, 1]) == pytest.approx(expected, abs=1e-12)
        assert expected == pytest.approx(0.490415, abs=1e-6)
        assert nll([[1.0, 0.0]], [0]) == 0.0

    def test_zero_probability_is_clipped(self):
        assert nll([[1.0, 0.0]], [1]) == pytest.approx(-math.log(1e-12))
        assert nll([[1.0, 0.0]], [1], eps=1e-3) == pytest.approx(-math.log(1e-3))
        assert math.isfinite(nll([[1.0, 0.0, 0.0]], [2]))

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            nll([[np.nan, 1.0]], [0])
        with pytest.raises(ValueError, match="labels"):
            nll([[0.5, 0.5]], [[0]])


class TestHelpers:
    def test_main(self):
        np.testing.assert_array_equal(one_hot(np.array([[1, 0], [2, 2]]), 3),
                                      [[[0, 1, 0], [1, 0, 0]], [[0, 0, 1], [0, 0, 1]]])
        assert one_hot(np.array([1]), 3).dtype == np.float64
        assert as_scalar(np.array(0.25)) == 0.25 and type(as_scalar(np.float64(1.0))) is float
        np.testing.assert_array_equal(as_scalar(np.array([1.0, 2.0])), [1.0, 2.0])


class TestEqualWidthBinIndex:
    def test_main(self):
        values = np.array([0.0, 0.05, 0.1, 0.3, 0.7, 0.99, 1.0])
        assert equal_width_bin_index(values, 10).tolist() == [0, 0, 1, 3, 7, 9, 9]
        assert equal_width_bin_index(np.array([1 / 3, 2 / 3, 1.0]), 3).tolist() == [1, 2, 2]
        # every grid value k/20 with k even is an edge j/10 and opens bin j
        grid = np.arange(21) / 20
        assert equal_width_bin_index(grid, 10).tolist() == [min(k // 2, 9) for k in range(21)]

    def test_out_of_range_values_are_clipped(self):
        # probabilities within the simplex tolerance may be slightly outside [0, 1]
        assert equal_width_bin_index(np.array([-1e-6, 1 + 1e-6]), 10).tolist() == [0, 9]

    def test_errors(self):
        # not validated itself: the public metrics validate n_bins before calling it
        with pytest.raises(ValueError, match="n_bins"):
            ece_confidence([[0.5, 0.5]], [0], n_bins=0)


class TestECEConfidence:
    def test_main(self):
        # docstring: (2/4)|0.5-0.9| + (2/4)|1-0.6|
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
        assert ece_confidence(p, [0, 0, 0, 1], n_bins=10) == pytest.approx(0.4, abs=1e-12)
        # one bin: |acc - mean confidence| = |3/4 - 0.75|
        assert ece_confidence(p, [0, 0, 0, 1], n_bins=1) == pytest.approx(0.0, abs=1e-12)

    def test_bin_edges(self):
        # conf 0.3 (correct) lies exactly on the edge 3/10 and shares bin [0.3, 0.4) with conf 0.35
        # (wrong): |0.5 - 0.325| = 0.175 (0.525 if 0.3 fell into [0.2, 0.3)).
        p_edge = [[0.3, 0.3, 0.2, 0.2], [0.35, 0.25, 0.2, 0.2]]
        assert ece_confidence(p_edge, [0, 1], n_bins=10) == pytest.approx(0.175, abs=1e-12)
        # conf 1.0 (correct) falls into the right-closed last bin together with 0.95 (wrong)
        p_top = [[1.0, 0.0, 0.0, 0.0], [0.95, 0.05, 0.0, 0.0]]
        assert ece_confidence(p_top, [0, 1], n_bins=10) == pytest.approx(0.475, abs=1e-12)
        # all four: (2/4) 0.175 + (2/4) 0.475
        assert ece_confidence(p_edge + p_top, [0, 1, 0, 1], n_bins=10) == pytest.approx(0.325, abs=1e-12)
        # a single instance at confidence 1.0, correct: perfectly calibrated
        assert ece_confidence([[1.0, 0.0]], [0]) == 0.0

    @pytest.mark.parametrize("case", [_random_case, _grid_case])
    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_reference_implementation(self, case, n_bins):
        for seed in range(3):
            p, y = case(seed=seed)
            ref = _ref_ece_confidence(p.tolist(), y.tolist(), n_bins)
            assert ece_confidence(p, y, n_bins=n_bins) == pytest.approx(ref, abs=1e-12)

    def test_invariances(self):
        p, y = _random_case(n=500, k=5, seed=1)
        base = ece_confidence(p, y)
        perm = np.random.default_rng(2).permutation(len(y))
        assert ece_confidence(p[perm], y[perm]) == pytest.approx(base, abs=1e-12)
        p2, y2 = _relabel(p, y, np.random.default_rng(3).permutation(5))
        assert ece_confidence(p2, y2) == pytest.approx(base, abs=1e-12)

    def test_calibrated_vs_overconfident(self):
        p, y = calibrated_predictions(200_000, 5, seed=0)
        assert ece_confidence(p, y) < 0.01
        assert ece_confidence(_sharpen(p), y) > 0.05  # labels still drawn from p

    def test_errors(self):
        p = [[0.6, 0.4]]
        for bad in (0, -1, 2.5, True, "10", None):
            with pytest.raises(ValueError, match="n_bins"):
                ece_confidence(p, [0], n_bins=bad)
        assert ece_confidence(p, [0], n_bins=np.int64(4)) == pytest.approx(0.4)


class TestECEClasswise:
    def test_main(self):
        # docstring: each class (.1 + .9 + .4 + .4) / 4
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
        assert ece_classwise(p, [0, 0, 0, 1], n_bins=10) == pytest.approx(0.45, abs=1e-12)

    def test_bin_edges(self):
        # class 0: {0.3 (y=1), 0.35 (y=0)} in [0.3, 0.4): (2/3)|0.5-0.325|; {0.7 (y=0)}: (1/3)0.7  -> 0.35
        # class 1: {0.65 (y=1)}: (1/3)0.35; {0.7 (y=0)}: (1/3)0.7; {0.3 (y=1)}: (1/3)0.7      -> 0.58333
        p = [[0.3, 0.7], [0.35, 0.65], [0.7, 0.3]]
        expected = (0.35 + (0.35 + 0.7 + 0.7) / 3) / 2
        assert ece_classwise(p, [0, 1, 1], n_bins=10) == pytest.approx(expected, abs=1e-12)
        # 1.0 and 0.0 predictions, correct: zero error (1.0 in the last bin, 0.0 in the first)
        assert ece_classwise([[1.0, 0.0], [0.0, 1.0]], [0, 1]) == 0.0

    @pytest.mark.parametrize("case", [_random_case, _grid_case])
    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_reference_implementation(self, case, n_bins):
        for seed in range(3):
            p, y = case(seed=seed)
            ref = _ref_ece_classwise(p.tolist(), y.tolist(), n_bins)
            assert ece_classwise(p, y, n_bins=n_bins) == pytest.approx(ref, abs=1e-12)

    def test_equals_mean_of_classwise_curves(self):
        p, y = _random_case(n=400, k=6, seed=4)
        for n_bins in (5, 10):
            per_class = [reliability_curve(p, y, n_bins=n_bins, kind="classwise", class_index=k).calibration_error
                         for k in range(6)]
            assert ece_classwise(p, y, n_bins=n_bins) == pytest.approx(np.mean(per_class), abs=1e-12)

    def test_invariances(self):
        p, y = _random_case(n=500, k=5, seed=1)
        base = ece_classwise(p, y)
        perm = np.random.default_rng(2).permutation(len(y))
        assert ece_classwise(p[perm], y[perm]) == pytest.approx(base, abs=1e-12)
        p2, y2 = _relabel(p, y, np.random.default_rng(3).permutation(5))
        assert ece_classwise(p2, y2) == pytest.approx(base, abs=1e-12)

    def test_calibrated_vs_overconfident(self):
        p, y = calibrated_predictions(200_000, 5, seed=0)
        assert ece_classwise(p, y) < 0.01
        assert ece_classwise(_sharpen(p), y) > 0.05

    def test_errors(self):
        for bad in (0, 1.0, True):
            with pytest.raises(ValueError, match="n_bins"):
                ece_classwise([[0.6, 0.4]], [0], n_bins=bad)


class TestAllMetrics:
    """Properties shared by every metric."""

    @pytest.mark.parametrize("metric", ALL_METRICS)
    def test_permutation_of_instances(self, metric):
        p, y = _random_case(n=200, k=4, seed=5)
        perm = np.random.default_rng(6).permutation(200)
        assert metric(p[perm], y[perm]) == pytest.approx(metric(p, y), abs=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS)
    def test_relabelling_classes(self, metric):
        p, y = _random_case(n=200, k=4, seed=5)
        for s in range(3):
            p2, y2 = _relabel(p, y, np.random.default_rng(s).permutation(4))
            assert metric(p2, y2) == pytest.approx(metric(p, y), abs=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS)
    def test_torch_equals_numpy(self, metric):
        p, y = _random_case(n=100, k=3, seed=7)
        expected = metric(p, y)
        got = metric(torch.tensor(p), torch.tensor(y))
        assert isinstance(got, float)
        assert got == expected
        # float32 tensors give the numbers of float32 arrays
        p32 = p.astype(np.float32)
        assert metric(torch.from_numpy(p32), torch.from_numpy(y)) == metric(p32, y)

    @pytest.mark.parametrize("metric", ALL_METRICS)
    def test_batched_equals_loop(self, metric):
        rng = np.random.default_rng(8)
        p = rng.dirichlet(np.ones(4), size=(2, 3, 50))
        y = rng.integers(0, 4, size=(2, 3, 50))
        got = metric(p, y)
        assert isinstance(got, np.ndarray) and got.shape == (2, 3)
        loop = np.array([[metric(p[a, b], y[a, b]) for b in range(3)] for a in range(2)])
        np.testing.assert_allclose(got, loop, rtol=0, atol=1e-12)

    @pytest.mark.parametrize("metric", ALL_METRICS)
    def test_errors(self, metric):
        with pytest.raises(ValueError, match="probs"):
            metric([[0.2, 0.2]], [0])
        with pytest.raises(ValueError, match="labels"):
            metric([[0.5, 0.5], [0.5, 0.5]], [0])


class TestReliabilityCurve:
    def test_main(self):
        c = reliability_curve([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]], [0, 0, 0], n_bins=2)
        assert isinstance(c, ReliabilityCurve)
        assert c.kind == "confidence" and c.class_index is None
        np.testing.assert_array_equal(c.bin_edges, [0.0, 0.5, 1.0])
        assert c.counts.tolist() == [0, 3]
        assert np.isnan(c.observed[0]) and np.isnan(c.mean_predicted[0])
        assert c.observed[1] == pytest.approx(2 / 3)
        assert c.mean_predicted[1] == pytest.approx(0.8)
        assert c.calibration_error == pytest.approx(abs(2 / 3 - 0.8))

    def test_classwise(self):
        p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]]
        c0 = reliability_curve(p, [0, 0, 0], n_bins=2, kind="classwise", class_index=0)
        assert c0.class_index == 0
        assert c0.counts.tolist() == [1, 2]
        np.testing.assert_allclose(c0.observed, [1.0, 1.0])
        np.testing.assert_allclose(c0.mean_predicted, [0.1, 0.75])
        # pooled: all (i, k) pairs
        pooled = reliability_curve(p, [0, 0, 0], n_bins=2, kind="classwise")
        assert pooled.class_index is None
        assert pooled.counts.sum() == 6
        assert pooled.counts.tolist() == [3, 3]
        np.testing.assert_allclose(pooled.observed, [1 / 3, 2 / 3])
        # np.integer class indices are accepted and stored as int
        assert reliability_curve(p, [0, 0, 0], kind="classwise", class_index=np.int64(1)).class_index == 1

    def test_confidence_equals_ece(self):
        for seed in range(3):
            p, y = _random_case(n=500, k=4, seed=seed)
            for n_bins in (5, 10, 20):
                c = reliability_curve(p, y, n_bins=n_bins, kind="confidence")
                assert c.calibration_error == pytest.approx(ece_confidence(p, y, n_bins=n_bins), abs=1e-12)
                assert c.counts.sum() == 500

    def test_bin_edge_in_curve(self):
        c = reliability_curve([[0.3, 0.3, 0.2, 0.2], [1.0, 0.0, 0.0, 0.0]], [0, 0], n_bins=10)
        assert c.counts.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 1]

    def test_errors(self):
        p = [[0.6, 0.4], [0.3, 0.7]]
        with pytest.raises(ValueError, match="kind"):
            reliability_curve(p, [0, 1], kind="top-label")
        with pytest.raises(ValueError, match="class_index"):
            reliability_curve(p, [0, 1], kind="confidence", class_index=0)
        for bad in (-1, 2, 1.0, True, "0"):
            with pytest.raises(ValueError, match="class_index"):
                reliability_curve(p, [0, 1], kind="classwise", class_index=bad)
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            reliability_curve(np.array([p, p]), [[0, 1], [0, 1]])
        with pytest.raises(ValueError, match="n_bins"):
            reliability_curve(p, [0, 1], n_bins=0)


class TestCalibrationSummary:
    def test_main(self):
        p, y = _random_case(n=300, k=4, seed=9)
        s = calibration_summary(p, y, n_bins=15)
        assert list(s) == ["accuracy", "mean_confidence", "brier", "nll", "ece_conf", "ece_cwise"]
        assert s["accuracy"] == accuracy(p, y)
        assert s["mean_confidence"] == pytest.approx(p.max(axis=1).mean(), abs=1e-15)
        assert s["brier"] == brier_score(p, y)
        assert s["nll"] == nll(p, y)
        assert s["ece_conf"] == ece_confidence(p, y, n_bins=15)
        assert s["ece_cwise"] == ece_classwise(p, y, n_bins=15)
        assert all(isinstance(v, float) for v in s.values())

    def test_docstring_example(self):
        s = calibration_summary([[0.9, 0.1], [0.2, 0.8]], [0, 1], n_bins=10)
        assert s["accuracy"] == 1.0
        assert s["mean_confidence"] == pytest.approx(0.85)
        assert s["ece_conf"] == pytest.approx(0.15)

    def test_batched(self):
        rng = np.random.default_rng(10)
        p = rng.dirichlet(np.ones(3), size=(4, 60))
        y = rng.integers(0, 3, size=(4, 60))
        s = calibration_summary(p, y)
        for key, value in s.items():
            assert np.shape(value) == (4,), key
        np.testing.assert_allclose(s["ece_cwise"], [ece_classwise(p[b], y[b]) for b in range(4)], atol=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            calibration_summary([[0.5, 0.4]], [0])
        with pytest.raises(ValueError, match="n_bins"):
            calibration_summary([[0.5, 0.5]], [0], n_bins=0)
