"""Tests for credalbook.metrics.regions (Wu & Gales 2021, Sec. 3, Eqs. 6-16) and the SKCE with a Laplacian kernel.

Hand-computed cases, the exact equalities with credalbook.metrics that the module docstring
states, the global (ε ≥ 1/2) limits, an O(N²) double sum and credalbook.metrics.skce_uq for the SKCE,
and a Monte-Carlo check that the SKCE estimator is unbiased (zero mean) for a calibrated model.
"""

import math

import numpy as np
import pytest
import torch

import credalbook.metrics.kernel as kernel_module
import credalbook.metrics.skce_core as skce_core
from credalbook.metrics import (
    acce,
    accuracy,
    all_label_ece,
    calibrated_sampling_floor,
    criteria_summary,
    DEFAULT_EPSILON,
    ecce,
    ece,
    ece_classwise,
    ece_confidence,
    epsilon_from_bins,
    global_calibration_gap,
    global_top_label_gap,
    median_heuristic,
    nll,
    reliability_curve,
    skce,
    skce_laplacian,
    skce_uq,
)
from credalbook.metrics.regions import check_epsilon
from credalbook.synthetic import sample_labels

# Hand-computed case (K = 3, N = 4). Residuals p - onehot(y):
#   row 0: [-0.3, 0.2, 0.1]   row 1: [0.5, -0.7, 0.2]   row 2: [0.1, 0.1, -0.2]   row 3: [-0.7, 0.3, 0.4]
P = np.array([[0.7, 0.2, 0.1], [0.5, 0.3, 0.2], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
Y = np.array([0, 1, 2, 0])
CRITERIA = [all_label_ece, acce, ece, ecce]


def _random_case(n=300, k=4, seed=0, concentration=1.0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(k, concentration), size=n), rng.integers(0, k, size=n)


def _grid_case(n=400, k=3, seed=0):
    """Probabilities on the grid {0, 1/20, ..., 1}: many values sit exactly on bin edges."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(20, np.full(k, 1.0 / k), size=n) / 20.0, rng.integers(0, k, size=n)


def _onehot(y, k):
    return (np.asarray(y)[:, None] == np.arange(k)).astype(float)


def _common_errors(fn):
    with pytest.raises(ValueError, match="epsilon"):
        fn(P, Y, epsilon=-0.1)
    with pytest.raises(ValueError, match="epsilon"):
        fn(P, Y, epsilon=1.5)
    with pytest.raises(ValueError, match="epsilon"):
        fn(P, Y, epsilon="wide")
    with pytest.raises(ValueError, match="epsilon"):
        fn(P, Y, epsilon=float("nan"))
    with pytest.raises(ValueError, match="labels"):
        fn(P, [0, 1, 3, 0])
    with pytest.raises(ValueError, match="labels"):
        fn(P, [0, 1, 2])
    with pytest.raises(ValueError, match="labels"):
        fn(P, np.full((4, 3), 0.5))  # target rows off the simplex
    with pytest.raises(ValueError, match="labels"):
        fn(P, np.full((4, 2), 0.5))  # target rows of the wrong shape
    with pytest.raises(ValueError, match="probs"):
        fn(P[None], Y)
    with pytest.raises(ValueError, match="probs"):
        fn([[0.5, 0.6]], [0])


# ----------------------------------------------------------------------------------------------
class TestEpsilonFromBins:
    def test_main(self):
        assert epsilon_from_bins(15) == pytest.approx(1 / 30, abs=1e-15)
        assert epsilon_from_bins(15) == DEFAULT_EPSILON
        assert epsilon_from_bins(1) == 0.5

    def test_errors(self):
        from credalbook._validation import MAX_BINS

        assert epsilon_from_bins(MAX_BINS) == 0.5 / MAX_BINS
        for bad in (0, -2, 1.5, True, MAX_BINS + 1, 10**9):  # 10**9 bins: a mistake, named as n_bins
            with pytest.raises(ValueError, match="n_bins"):
                epsilon_from_bins(bad)


class TestCheckEpsilon:
    def test_main(self):
        assert check_epsilon(0.1) == 0.1 and check_epsilon(0) == 0.0 and check_epsilon(1) == 1.0
        assert check_epsilon(np.float32(0.25)) == 0.25 and check_epsilon(np.array(0.5)) == 0.5

    def test_errors(self):
        # float(True) == 1.0 and float("0.1") == 0.1: bools and strings are rejected before float()
        for bad in (True, False, np.bool_(True), "0.1", b"0.1", None, 1j, -0.1, 1.5, float("nan"), float("inf")):
            with pytest.raises(ValueError, match="epsilon"):
                check_epsilon(bad)
        for fn in (acce, all_label_ece, ecce, ece):
            with pytest.raises(ValueError, match="epsilon"):
                fn(P, Y, epsilon=True)


class TestAllLabelEce:
    def test_main(self):
        # ε = 0.1: five cells of width 0.2; pooled residuals 0.3, -0.7, 0.9, -0.3, -0.2 → 2.4 / 12
        assert all_label_ece(P, Y, epsilon=0.1) == pytest.approx(0.2, abs=1e-12)
        # ε = 0: one region per distinct value 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.8 → 3.2 / 12
        assert all_label_ece(P, Y, epsilon=0) == pytest.approx(3.2 / 12, abs=1e-12)
        # ε = 0.3: cells [0, 0.6) and [0.6, 1] → (0.5 + 0.5) / 12
        assert all_label_ece(P, Y, epsilon=0.3) == pytest.approx(1.0 / 12, abs=1e-12)
        assert isinstance(all_label_ece(P, Y), float)

    @pytest.mark.parametrize("epsilon", [0.5, 0.75, 1.0])
    def test_global_limit_is_zero(self, epsilon):
        """One region: residuals of every row sum to zero, so ACE vanishes for every predictor."""
        for seed in range(3):
            p, y = _random_case(seed=seed)
            assert all_label_ece(p, y, epsilon=epsilon) == pytest.approx(0.0, abs=1e-14)

    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_equals_pooled_reliability_curve(self, n_bins):
        for case in (_random_case, _grid_case):
            p, y = case(seed=n_bins)
            curve = reliability_curve(p, y, n_bins=n_bins, kind="classwise")
            assert all_label_ece(p, y, epsilon=epsilon_from_bins(n_bins)) == pytest.approx(
                curve.calibration_error, abs=1e-12
            )

    def test_onehot_targets_and_torch(self):
        p, y = _random_case(seed=4)
        base = all_label_ece(p, y)
        assert all_label_ece(p, _onehot(y, 4)) == pytest.approx(base, abs=1e-14)
        assert all_label_ece(torch.tensor(p), torch.tensor(y)) == pytest.approx(base, abs=1e-14)

    def test_errors(self):
        _common_errors(all_label_ece)


class TestAcce:
    def test_main(self):
        # per class at ε = 0.1: 1.6 + 0.3 + 0.9 → 2.8 / 12
        assert acce(P, Y, epsilon=0.1) == pytest.approx(2.8 / 12, abs=1e-12)
        # global: (|-0.1| + |-0.025| + |0.125|) / 3
        assert acce(P, Y, epsilon=1.0) == pytest.approx(0.25 / 3, abs=1e-12)

    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15])
    def test_equals_ece_classwise(self, n_bins):
        for case in (_random_case, _grid_case):
            for seed in range(2):
                p, y = case(seed=seed)
                expected = ece_classwise(p, y, n_bins=n_bins)
                assert acce(p, y, epsilon=epsilon_from_bins(n_bins)) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize("epsilon", [0.5, 0.8, 1.0])
    def test_global_limit(self, epsilon):
        """ε ≥ 1/2: the mean absolute per-class gap of Eq. 15."""
        p, y = _random_case(seed=2, concentration=0.3)
        expected = np.abs(global_calibration_gap(p, y)).mean()
        assert acce(p, y, epsilon=epsilon) == pytest.approx(expected, abs=1e-14)

    @pytest.mark.parametrize("epsilon", [0.0, 0.01, 1 / 30, 0.07, 0.3])
    def test_dominates_ace_and_invariances(self, epsilon):
        p, y = _random_case(n=500, k=5, seed=1)
        base = acce(p, y, epsilon=epsilon)
        assert all_label_ece(p, y, epsilon=epsilon) <= base + 1e-12
        perm = np.random.default_rng(2).permutation(len(y))
        assert acce(p[perm], y[perm], epsilon=epsilon) == pytest.approx(base, abs=1e-12)
        classes = np.random.default_rng(3).permutation(5)
        assert acce(p[:, classes], np.argsort(classes)[y], epsilon=epsilon) == pytest.approx(base, abs=1e-12)

    def test_errors(self):
        _common_errors(acce)


class TestEce:
    def test_main(self):
        # confidences 0.7 (-0.3), 0.5 (+0.5), 0.8 (-0.2), 0.4 (+0.4); 0.5 and 0.4 share [0.4, 0.6)
        assert ece(P, Y, epsilon=0.1) == pytest.approx(1.4 / 4, abs=1e-12)
        assert ece(P, Y, epsilon=0.3) == pytest.approx(1.4 / 4, abs=1e-12)
        assert ece(P, Y, epsilon=1.0) == pytest.approx(0.1, abs=1e-12)
        assert ece(P, Y, epsilon=0) == pytest.approx(1.4 / 4, abs=1e-12)

    @pytest.mark.parametrize("n_bins", [1, 7, 10, 15, 100])
    def test_equals_ece_confidence(self, n_bins):
        for case in (_random_case, _grid_case):
            for seed in range(2):
                p, y = case(seed=seed)
                expected = ece_confidence(p, y, n_bins=n_bins)
                assert ece(p, y, epsilon=epsilon_from_bins(n_bins)) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize("epsilon", [0.5, 1.0])
    def test_global_limit(self, epsilon):
        p, y = _random_case(seed=5, concentration=0.2)
        assert ece(p, y, epsilon=epsilon) == pytest.approx(abs(global_top_label_gap(p, y)), abs=1e-14)

    def test_ties_go_to_lowest_class(self):
        # tie between classes 0 and 1: the prediction is class 0, which is correct
        assert ece([[0.4, 0.4, 0.2]], [0], epsilon=0.05) == pytest.approx(0.6, abs=1e-12)
        assert ece([[0.4, 0.4, 0.2]], [1], epsilon=0.05) == pytest.approx(0.4, abs=1e-12)

    def test_errors(self):
        _common_errors(ece)


class TestEcce:
    def test_main(self):
        assert ecce(P, Y, epsilon=0.1) == pytest.approx(1.4 / 4, abs=1e-12)
        # global: predicted class 0 (rows 0, 1): |-0.3 + 0.5|; class 2 (rows 2, 3): |-0.2 + 0.4|
        assert ecce(P, Y, epsilon=1.0) == pytest.approx(0.1, abs=1e-12)
        # one region, two predicted classes with residuals of opposite sign: ECE pools, ECCE not
        p, y = [[0.8, 0.2], [0.2, 0.8]], [0, 0]
        assert ece(p, y, epsilon=0.05) == pytest.approx(0.3, abs=1e-12)
        assert ecce(p, y, epsilon=0.05) == pytest.approx(0.5, abs=1e-12)

    @pytest.mark.parametrize("n_bins", [1, 10, 15])
    def test_equals_per_class_ece_confidence(self, n_bins):
        """ECCE = Σ_j (N_j / N) ece_confidence on the instances predicted as class j."""
        for case in (_random_case, _grid_case):
            p, y = case(seed=n_bins)
            pred = p.argmax(axis=1)
            expected = sum(
                (pred == j).mean() * ece_confidence(p[pred == j], y[pred == j], n_bins=n_bins) for j in np.unique(pred)
            )
            assert ecce(p, y, epsilon=epsilon_from_bins(n_bins)) == pytest.approx(expected, abs=1e-12)

    def test_dominates_ece_and_global_limit(self):
        for seed in range(4):
            p, y = _random_case(seed=seed, k=6)
            for eps in (0.0, 0.02, 1 / 30, 0.2):
                assert ece(p, y, epsilon=eps) <= ecce(p, y, epsilon=eps) + 1e-12
            pred = p.argmax(axis=1)
            resid = p.max(axis=1) - (pred == y)
            expected = sum(abs(resid[pred == j].sum()) for j in range(6)) / len(y)
            assert ecce(p, y, epsilon=1.0) == pytest.approx(expected, abs=1e-14)

    def test_errors(self):
        _common_errors(ecce)


class TestGlobalCalibrationGap:
    def test_main(self):
        assert global_calibration_gap(P, Y) == pytest.approx([-0.1, -0.025, 0.125], abs=1e-12)
        p, y = _random_case(seed=7)
        assert global_calibration_gap(p, y).sum() == pytest.approx(0.0, abs=1e-14)
        # the predictor that always outputs the label frequencies is globally calibrated (Sec. 3)
        prior = np.bincount(y, minlength=4) / len(y)
        assert global_calibration_gap(np.tile(prior, (len(y), 1)), y) == pytest.approx(np.zeros(4), abs=1e-14)

    def test_errors(self):
        with pytest.raises(ValueError, match="labels"):
            global_calibration_gap(P, [0, 1])
        with pytest.raises(ValueError, match="probs"):
            global_calibration_gap([0.5, 0.5], [0])


class TestGlobalTopLabelGap:
    def test_main(self):
        # mean confidence (0.7 + 0.5 + 0.8 + 0.4) / 4 = 0.6, accuracy 0.5
        assert global_top_label_gap(P, Y) == pytest.approx(0.1, abs=1e-12)
        assert global_top_label_gap(P, _onehot(Y, 3)) == pytest.approx(0.1, abs=1e-12)
        # with true class probabilities the "accuracy" is P(ŷ | x): zero gap if predictions are the truth
        assert global_top_label_gap(P, P) == 0.0

    def test_errors(self):
        with pytest.raises(ValueError, match="labels"):
            global_top_label_gap(P, [0, 1, 2, 7])


# ----------------------------------------------------------------------------------------------
def _direct_skce(p, y, nu):
    """O(N²) double sum over i < j, with explicit loops."""
    n, k = p.shape
    r = p - _onehot(y, k) if np.ndim(y) == 1 else p - y
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            total += math.exp(-math.sqrt(sum((p[i, c] - p[j, c]) ** 2 for c in range(k))) / nu) * float(r[i] @ r[j])
    return total / (n * (n - 1) / 2)


class TestMedianHeuristic:
    def test_main(self):
        p, _ = _random_case(n=60, k=3, seed=1)
        dists = [np.linalg.norm(p[i] - p[j]) for i in range(60) for j in range(i + 1, 60)]
        assert median_heuristic(p) == pytest.approx(float(np.median(dists)), abs=1e-14)

    def test_subsample_and_degenerate(self):
        p, _ = _random_case(n=300, k=3, seed=2)
        sub = p[np.random.default_rng(5).choice(300, size=50, replace=False)]
        assert median_heuristic(p, max_instances=50, seed=5) == pytest.approx(median_heuristic(sub, max_instances=50))
        assert median_heuristic(np.tile([0.2, 0.8], (5, 1))) == 1.0
        # more than half of the distances are zero: median of the positive ones
        assert median_heuristic([[1.0, 0.0]] * 4 + [[0.0, 1.0]]) == pytest.approx(math.sqrt(2))

    def test_errors(self):
        with pytest.raises(ValueError, match="at least 2"):
            median_heuristic([[0.5, 0.5]])
        with pytest.raises(ValueError, match="max_instances"):
            median_heuristic(P, max_instances=1)
        for bad in (-1, "a", 1.5, True):
            with pytest.raises(ValueError, match="seed"):
                median_heuristic(P, seed=bad)
        with pytest.raises(ValueError, match="probs"):
            median_heuristic(P[None])


class TestSkceLaplacian:
    def test_main(self):
        # one pair: -0.16 exp(-0.4 √2 / ν)
        for nu in (0.5, 1.0, 3.0):
            value = skce_laplacian([[0.8, 0.2], [0.4, 0.6]], [0, 1], bandwidth=nu)
            assert value == pytest.approx(-0.16 * math.exp(-0.4 * math.sqrt(2) / nu), abs=1e-14)

    def test_double_sum_and_skce_uq(self):
        for seed, (n, k) in enumerate([(25, 3), (40, 5)]):
            p, y = _random_case(n=n, k=k, seed=seed)
            nu = median_heuristic(p)
            value = skce_laplacian(p, y)
            assert value == pytest.approx(_direct_skce(p, y, nu), abs=1e-13)
            kern = lambda a, b: np.exp(-np.linalg.norm(a - b, axis=-1) / nu)  # noqa: E731
            assert value == pytest.approx(skce_uq(p, y, kernel=kern), abs=1e-13)
            # true class probabilities in place of labels
            t = np.random.default_rng(seed).dirichlet(np.ones(k), size=n)
            assert skce_laplacian(p, t, bandwidth=nu) == pytest.approx(_direct_skce(p, t, nu), abs=1e-13)

    def test_blocks(self, monkeypatch):
        p, y = _random_case(n=101, k=4, seed=3)
        full = skce_laplacian(p, y, bandwidth=0.7)
        monkeypatch.setattr(skce_core, "_TILE_ROWS", 7)  # tiles of 7 x 11, the last ones shorter
        monkeypatch.setattr(skce_core, "_TILE_COLS", 11)
        assert skce_laplacian(p, y, bandwidth=0.7) == pytest.approx(full, abs=1e-14)

    def test_previous_values(self):
        # N <= QUADRATIC_MAX_N: the value of the code before issue #27 (commit 11fc112)
        rng = np.random.default_rng(21)
        p, y = rng.dirichlet(np.ones(5), size=3000), rng.integers(0, 5, size=3000)
        assert median_heuristic(p) == 0.4764733698564476
        assert skce_laplacian(p, y) == pytest.approx(0.007372340939044376, rel=1e-10)

    def test_block_estimator_above_quadratic_max_n(self, monkeypatch):
        # above QUADRATIC_MAX_N the default is the block estimator of skce (linear time in N)
        p, y = _random_case(n=120, k=3, seed=6)
        nu = median_heuristic(p)
        kern = kernel_module.LaplacianKernel(nu)
        assert skce_laplacian(p, y) == skce(p, y, kernel=kern, estimator="quadratic")
        monkeypatch.setattr(kernel_module, "QUADRATIC_MAX_N", 100)
        block = skce_laplacian(p, y, block_size=30)
        assert block == pytest.approx(
            np.mean([_direct_skce(p[s : s + 30], y[s : s + 30], nu) for s in range(0, 120, 30)]), abs=1e-13
        )
        assert block == skce(p, y, kernel=kern, estimator="block", block_size=30)
        assert skce_laplacian(p, y, estimator="quadratic") == skce(p, y, kernel=kern, estimator="quadratic")
        assert skce_laplacian(p, y, estimator="linear") == skce(p, y, kernel=kern, estimator="linear")

    def test_unbiased_zero_for_calibrated_model(self):
        """Labels drawn from the predictions: the estimates average to 0 (Monte Carlo, 4 SE)."""
        rng = np.random.default_rng(11)
        p = rng.dirichlet(np.ones(3), size=80)
        nu = median_heuristic(p)
        labels = sample_labels(p, rng, size=1500)
        est = np.array([skce_laplacian(p, y, bandwidth=nu) for y in labels])
        se = est.std(ddof=1) / math.sqrt(len(est))
        assert abs(est.mean()) < 4 * se
        # a sharpened (over-confident) model with the same labels is clearly miscalibrated
        sharp = p**4 / (p**4).sum(axis=1, keepdims=True)
        est_sharp = np.array([skce_laplacian(sharp, y, bandwidth=nu) for y in labels[:300]])
        assert est_sharp.mean() > 10 * se + abs(est.mean())

    def test_errors(self):
        for bad in (0, -1.0, float("inf"), "wide"):
            with pytest.raises(ValueError, match="bandwidth"):
                skce_laplacian(P, Y, bandwidth=bad)
        with pytest.raises(ValueError, match="at least 2"):
            skce_laplacian([[0.5, 0.5]], [0])
        with pytest.raises(ValueError, match="labels"):
            skce_laplacian(P, [0, 1])
        for bad in (True, 1j, float("nan")):
            with pytest.raises(ValueError, match="bandwidth"):
                skce_laplacian(P, Y, bandwidth=bad)
        with pytest.raises(ValueError, match="estimator"):
            skce_laplacian(P, Y, estimator="fast")
        with pytest.raises(ValueError, match="block_size"):
            skce_laplacian(P, Y, estimator="block", block_size=1)
        with pytest.raises(ValueError, match="seed"):
            skce_laplacian(P, Y, seed=-1)
        # max_instances and seed are checked at the door, also when a bandwidth makes them unused
        for bad in (0, 1, -5, True, 2.5, "10", None):
            with pytest.raises(ValueError, match="max_instances"):
                skce_laplacian(P, Y, bandwidth=0.5, max_instances=bad)
        for bad in (-1, 1.5, "a", True, [1, -1], object()):
            with pytest.raises(ValueError, match="seed"):
                skce_laplacian(P, Y, bandwidth=0.5, seed=bad)


class TestCriteriaSummary:
    def test_main(self):
        p, y = _random_case(n=200, seed=8)
        s = criteria_summary(p, y, epsilon=0.05)
        assert list(s) == ["accuracy", "nll", "acce", "all_label_ece", "ecce", "ece", "skce"]
        assert s["accuracy"] == accuracy(p, y)
        assert s["nll"] == nll(p, y)
        for name, fn in zip(["acce", "all_label_ece", "ecce", "ece"], [acce, all_label_ece, ecce, ece]):
            assert s[name] == fn(p, y, epsilon=0.05)
        assert s["skce"] == skce_laplacian(p, y)
        assert "skce" not in criteria_summary(p, y, skce=False)

    def test_skce_estimator(self, monkeypatch):
        # the SKCE of the summary follows skce_laplacian's default: quadratic up to QUADRATIC_MAX_N
        p, y = _random_case(n=200, seed=10)
        assert criteria_summary(p, y)["skce"] == skce_laplacian(p, y, estimator="quadratic")
        assert criteria_summary(p, y, skce_estimator="linear")["skce"] == skce_laplacian(p, y, estimator="linear")
        monkeypatch.setattr(kernel_module, "QUADRATIC_MAX_N", 2000)
        p, y = _random_case(n=2100, seed=11)  # two blocks of 1000, the last 100 instances ignored
        assert criteria_summary(p, y)["skce"] == skce_laplacian(p, y, estimator="block", block_size=1000)
        with pytest.raises(ValueError, match="estimator"):
            criteria_summary(p, y, skce_estimator="fast")

    def test_true_probabilities(self):
        p, y = _random_case(n=150, seed=9)
        onehot = criteria_summary(p, _onehot(y, 4))
        labelled = criteria_summary(p, y)
        assert onehot == pytest.approx(labelled, abs=1e-12)
        t = np.random.default_rng(1).dirichlet(np.ones(4), size=150)
        s = criteria_summary(p, t, skce=False)
        assert s["accuracy"] == pytest.approx(t[np.arange(150), p.argmax(1)].mean(), abs=1e-14)
        assert s["nll"] == pytest.approx(-(t * np.log(p)).sum(1).mean(), abs=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="epsilon"):
            criteria_summary(P, Y, epsilon=2)
        with pytest.raises(ValueError, match="labels"):
            criteria_summary(P, [0, 1, 2, 3])
        for bad in (0, -1.0, float("nan"), float("inf"), True, "a", 1j):  # checked also with skce=False
            with pytest.raises(ValueError, match="bandwidth"):
                criteria_summary(P, Y, skce=False, bandwidth=bad)
        assert criteria_summary(P, Y, bandwidth=np.float32(0.5))["skce"] == skce_laplacian(P, Y, bandwidth=0.5)


class TestCalibratedSamplingFloor:
    @pytest.mark.parametrize("criterion", ["ece", "all_label_ece"])
    def test_binomial_mean_absolute_deviation(self, criterion):
        # Every row [c, 1 - c]: one region per class, and ECE = ACE = |X/N − c| with X ~ Bin(N, c);
        # its expectation is the binomial mean absolute deviation, summed exactly here.
        from scipy.stats import binom

        n, c, draws = 100, 0.9, 4000
        exact = float((binom.pmf(np.arange(n + 1), n, c) * np.abs(np.arange(n + 1) / n - c)).sum())
        mean, sd = calibrated_sampling_floor(np.tile([c, 1 - c], (n, 1)), criterion, n_draws=draws, seed=3)
        assert abs(mean - exact) < 4 * sd / math.sqrt(draws)
        assert 0.3 * exact < sd < 1.5 * exact

    def test_observed_criterion_of_a_calibrated_model_lies_in_the_band(self):
        rng = np.random.default_rng(5)
        p = rng.dirichlet(np.ones(5) * 0.5, size=3000)
        mean, sd = calibrated_sampling_floor(p, "ecce", n_draws=300, seed=6)
        observed = np.array([ecce(p, sample_labels(p, rng)) for _ in range(40)])
        assert abs(observed.mean() - mean) < 4 * sd / math.sqrt(40)
        # the floor shrinks with N, about as 1 / sqrt(N)
        small = calibrated_sampling_floor(p[:750], "ecce", n_draws=300, seed=6)[0]
        assert 1.5 < small / mean < 2.6

    def test_seeded(self):
        p, _ = _random_case(n=300, seed=2)
        a = calibrated_sampling_floor(p, "acce", n_draws=20, seed=7)
        assert a == calibrated_sampling_floor(p, "acce", n_draws=20, seed=7)
        assert a != calibrated_sampling_floor(p, "acce", n_draws=20, seed=8)
        assert math.isnan(calibrated_sampling_floor(p, n_draws=1, seed=0)[1])

    def test_errors(self):
        with pytest.raises(ValueError, match="criterion"):
            calibrated_sampling_floor(P, "skce")
        with pytest.raises(ValueError, match="n_draws"):
            calibrated_sampling_floor(P, n_draws=0)
        with pytest.raises(ValueError, match="probs"):
            calibrated_sampling_floor(np.stack([P, P]))
        with pytest.raises(ValueError, match="probs"):
            calibrated_sampling_floor([[0.5, 0.6]])
        with pytest.raises(ValueError, match="epsilon"):
            calibrated_sampling_floor(P, epsilon=-1)
        with pytest.raises(ValueError, match="epsilon"):
            calibrated_sampling_floor(P, epsilon=True)
        for bad in (-1, 1.5, "a", True, [1, -1], object()):
            with pytest.raises(ValueError, match="seed"):
                calibrated_sampling_floor(P, seed=bad)

    def test_same_draws_as_numpy_default_rng(self):
        """An integer seed and a Generator give the draws of numpy.random.default_rng, as before the seed check."""
        p, _ = _random_case(n=50, seed=4)
        values = [ece(p, y) for y in sample_labels(p, np.random.default_rng(9), size=5)]
        expected = (float(np.mean(values)), float(np.std(values, ddof=1)))
        assert calibrated_sampling_floor(p, n_draws=5, seed=9) == pytest.approx(expected, abs=1e-15)
        assert calibrated_sampling_floor(p, n_draws=5, seed=np.random.default_rng(9)) == pytest.approx(
            expected, abs=1e-15
        )


def test_skce_laplacian_is_skce_with_a_laplacian_kernel():
    """A thin alias: skce(kernel=LaplacianKernel(median_heuristic(p))), bit for bit, for every estimator."""
    p, y = _random_case(n=120, k=4, seed=9)
    nu = median_heuristic(p)
    for est, block in (("auto", 1000), ("quadratic", 1000), ("linear", 1000), ("block", 10)):
        assert skce_laplacian(p, y, estimator=est, block_size=block) == skce(
            p, y, kernel=kernel_module.LaplacianKernel(nu), estimator=est, block_size=block
        )
