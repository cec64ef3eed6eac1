"""The direction of miscalibration: signed calibration error, the ECE split by direction, the words."""

import numpy as np
import pytest
from scipy import special

from credalbook.metrics import (
    accuracy,
    bootstrap_ci,
    describe_direction,
    ece_classwise,
    ece_confidence,
    ece_split,
    ECESplit,
    Estimate,
    signed_calibration_error,
)
from credalbook.synthetic import calibrated_predictions

P4 = np.array([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]])


def _random(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, 0.7), size=n)
    return p, rng.integers(0, k, size=n)


def _tempered(temperature, n=4000, k=5, seed=0):
    """Calibrated data (labels drawn from softmax(z)) and the predictions softmax(z / temperature):
    temperature < 1 sharpens them (over-confident), > 1 flattens them (under-confident)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, size=(n, k))
    y = (rng.random(n)[:, None] > special.softmax(z, axis=1).cumsum(axis=1)).sum(axis=1)
    return special.softmax(z / temperature, axis=1), np.minimum(y, k - 1)


class TestSignedCalibrationError:
    def test_main(self):
        """Hand-computed: mean confidence 0.75 against accuracies 0.75 and 0.5; class 0 has mean 0.5, frequency 0.75."""
        assert signed_calibration_error(P4, [0, 0, 0, 1]) == pytest.approx(0.0, abs=1e-15)
        assert signed_calibration_error(P4, [0, 1, 1, 0]) == pytest.approx(0.25, abs=1e-15)
        assert signed_calibration_error(P4, [1, 0, 1, 0]) == pytest.approx(0.75, abs=1e-15)  # all wrong
        cw = signed_calibration_error(P4, [0, 0, 0, 1], kind="classwise")
        assert cw.shape == (2,)
        np.testing.assert_allclose(cw, [-0.25, 0.25], atol=1e-15)
        # a one-hot perfect predictor: 0 everywhere
        assert signed_calibration_error(np.eye(3)[[0, 2, 1]], [0, 2, 1]) == 0.0

    def test_against_accuracy_and_one_bin(self):
        p, y = _random()
        s = signed_calibration_error(p, y)
        assert s == pytest.approx(p.max(axis=1).mean() - accuracy(p, y), abs=1e-14)
        assert abs(s) == pytest.approx(ece_confidence(p, y, n_bins=1), abs=1e-14)
        cw = signed_calibration_error(p, y, kind="classwise")
        np.testing.assert_allclose(cw, p.mean(axis=0) - np.bincount(y, minlength=4) / len(y), atol=1e-14)
        assert cw.sum() == pytest.approx(0.0, abs=1e-14)  # rows and frequencies both sum to 1

    def test_invariances(self):
        p, y = _random(seed=1)
        perm = np.random.default_rng(2).permutation(len(y))
        assert signed_calibration_error(p[perm], y[perm]) == pytest.approx(signed_calibration_error(p, y), abs=1e-14)
        cls = np.array([2, 0, 3, 1])  # relabel classes: class k becomes cls[k]
        q = np.empty_like(p)
        q[:, cls] = p
        np.testing.assert_allclose(
            signed_calibration_error(q, cls[y], kind="classwise")[cls],
            signed_calibration_error(p, y, kind="classwise"),
            atol=1e-14,
        )

    def test_batched(self):
        ps, ys = zip(*(_random(n=50, seed=s) for s in range(3)))
        p, y = np.stack(ps), np.stack(ys)
        out = signed_calibration_error(p, y)
        assert out.shape == (3,)
        np.testing.assert_array_equal(out, [signed_calibration_error(a, b) for a, b in zip(ps, ys)])
        cw = signed_calibration_error(p, y, kind="classwise")
        assert cw.shape == (3, 4)
        np.testing.assert_allclose(cw[1], signed_calibration_error(ps[1], ys[1], kind="classwise"), atol=1e-15)

    def test_binary_scores(self):
        """Scores P(y = 1) of shape (N,) are the rows [1 - p, p]; classwise entry 1 is mean score minus positive rate."""
        rng = np.random.default_rng(4)
        s = rng.random(200)
        y = rng.random(200) < s**2  # bool labels; scores too high: over-predicted positives
        rows = np.stack([1 - s, s], axis=1)
        assert signed_calibration_error(s, y) == signed_calibration_error(rows, y.astype(int))
        cw = signed_calibration_error(s, y, kind="classwise")
        assert cw[1] == pytest.approx(s.mean() - y.mean(), abs=1e-14) and cw[1] > 0.1
        assert cw[0] == pytest.approx(-cw[1], abs=1e-14)
        split = ece_split(s, y, n_bins=8)
        assert split.ece == pytest.approx(ece_confidence(rows, y.astype(int), n_bins=8), rel=1e-13)
        e = signed_calibration_error(s, y, ci=0.9, n_resamples=100, seed=0)
        assert e == signed_calibration_error(rows, y.astype(int), ci=0.9, n_resamples=100, seed=0)

    def test_ci_is_bootstrap_ci_of_the_statistic(self):
        """The same replicates as bootstrap_ci on an independent implementation with the same seed, up to the
        order of the sums (the interval weights per-instance terms by the multiplicities of the same indices)."""
        p, y = _random(n=400, seed=3)

        def conf_minus_acc(pp, yy):  # batched: (..., N, K), (..., N)
            return (pp.max(axis=-1) - (pp.argmax(axis=-1) == yy)).mean(axis=-1)

        est = signed_calibration_error(p, y, ci=0.9, n_resamples=300, seed=7)
        ref = bootstrap_ci(p, y, conf_minus_acc, ci=0.9, n_resamples=300, seed=7, batched=True)
        assert isinstance(est, Estimate) and est.level == 0.9 and est.n_resamples == 300
        assert est.value == ref.value
        assert (est.low, est.high) == pytest.approx((ref.low, ref.high), rel=1e-13, abs=0)
        np.testing.assert_allclose(est.replicates, ref.replicates, rtol=1e-13, atol=1e-16)
        # an unbatched metric (one call per replicate) agrees too
        slow = bootstrap_ci(p, y, conf_minus_acc, ci=0.9, n_resamples=300, seed=7, batched=False)
        assert (slow.low, slow.high) == pytest.approx((est.low, est.high), abs=1e-15)
        # the classwise intervals: class k's is bootstrap_ci of the k-th error, from the same resamples
        # (weighted by multiplicities: equal up to the order of the sums)
        ests = signed_calibration_error(p, y, kind="classwise", ci=0.9, n_resamples=300, seed=7)
        assert isinstance(ests, tuple) and len(ests) == 4
        for k, e in enumerate(ests):
            ref_k = bootstrap_ci(
                p,
                y,
                lambda pp, yy, k=k: (pp[..., k] - (yy == k)).mean(axis=-1),
                ci=0.9,
                n_resamples=300,
                seed=7,
                batched=True,
            )
            assert e.value == ref_k.value and (e.level, e.n_resamples) == (0.9, 300)
            np.testing.assert_allclose(e.replicates, ref_k.replicates, rtol=0, atol=1e-15)
            assert (e.low, e.high) == pytest.approx((ref_k.low, ref_k.high), abs=1e-15)
        # the replicates of the classes sum to 0, as the errors do
        assert np.abs(sum(e.replicates for e in ests)).max() < 1e-14

    def test_known_directions(self):
        """Sharpened logits of calibrated data: over-confident, interval above 0; flattened: under-confident."""
        for temperature, sign in ((0.5, 1), (2.0, -1)):
            p, y = _tempered(temperature)
            est = signed_calibration_error(p, y, ci=0.95, n_resamples=300, seed=0)
            assert sign * est.low > 0 and sign * est.high > 0 and sign * est.value > 0.03
            assert describe_direction(est).startswith("over-confident" if sign > 0 else "under-confident")
            split = ece_split(p, y, n_bins=15)
            assert sign * (split.over - split.under) > 0
        p, y = _tempered(1.0)
        assert abs(signed_calibration_error(p, y)) < 0.02

    def test_interval_coverage_on_calibrated_data(self):
        """On calibrated data the population signed error is 0 (E[c - 1(hit)] = E[c - c]); the 90% intervals of
        200 data sets cover it at a rate within the binomial band (3 sd: [0.836, 0.964])."""
        covered = 0
        for s in range(200):
            p, y = calibrated_predictions(300, 3, seed=s)
            e = signed_calibration_error(p, y, ci=0.9, n_resamples=200, seed=s)
            covered += e.low <= 0.0 <= e.high
        assert 0.836 <= covered / 200 <= 0.964

    def test_errors(self):
        with pytest.raises(ValueError, match="kind"):
            signed_calibration_error(P4, [0, 0, 0, 1], kind="top_label")
        with pytest.raises(ValueError, match="ci"):
            signed_calibration_error(P4, [0, 0, 0, 1], ci=1.5)
        with pytest.raises(ValueError, match="n_resamples"):
            signed_calibration_error(P4, [0, 0, 0, 1], n_resamples=1)
        with pytest.raises(ValueError, match="probs"):
            signed_calibration_error(np.stack([P4, P4]), [[0, 0, 0, 1]] * 2, ci=0.9)  # an interval: one data set
        with pytest.raises(ValueError, match="probs"):
            signed_calibration_error(P4 * 2, [0, 0, 0, 1])
        with pytest.raises(ValueError, match="labels"):
            signed_calibration_error(P4, [0, 0, 0, 2])


class TestECESplit:
    def test_main(self):
        """Bin [0.9, 1): two at 0.9, one correct: over by (2/4) 0.4; bin [0.6, 0.7): both correct: under by (2/4) 0.4."""
        s = ece_split(P4, [0, 0, 0, 1])
        assert isinstance(s, ECESplit) and (s.kind, s.n_bins, s.strategy) == ("confidence", 10, "uniform")
        assert (s.over, s.under) == pytest.approx((0.2, 0.2), abs=1e-15)
        assert s.ece == pytest.approx(ece_confidence(P4, [0, 0, 0, 1]), abs=1e-15)
        assert s.signed == pytest.approx(0.0, abs=1e-15)
        s = ece_split(P4, [1, 0, 1, 0])  # every prediction wrong: only over-confidence
        assert (s.over, s.under) == (pytest.approx(0.75, abs=1e-15), 0.0)
        cw = ece_split(P4, [0, 0, 0, 1], kind="classwise", n_bins=2)
        # class 0, bins [0, .5): p 0.1, 0.4 with outcomes 0, 1 -> gap +0.5; [.5, 1]: 0.9, 0.6 both 1 -> gap +0.5
        np.testing.assert_allclose(cw.under, [0.25, 0.0], atol=1e-15)
        np.testing.assert_allclose(cw.over, [0.0, 0.25], atol=1e-15)
        assert cw.ece == pytest.approx(ece_classwise(P4, [0, 0, 0, 1], n_bins=2), abs=1e-15)

    @pytest.mark.parametrize("strategy", ["uniform", "quantile"])
    @pytest.mark.parametrize("n_bins", [1, 2, 7, 15, 40])
    def test_over_plus_under_is_the_ece(self, n_bins, strategy):
        for seed in range(3):
            p, y = _random(n=257, k=3 + seed, seed=seed)
            s = ece_split(p, y, n_bins=n_bins, strategy=strategy)
            ece = ece_confidence(p, y, n_bins=n_bins, strategy=strategy)
            assert s.over + s.under == pytest.approx(ece, rel=1e-13, abs=1e-16)
            assert s.over - s.under == pytest.approx(signed_calibration_error(p, y), abs=1e-14)
            assert s.over >= 0 and s.under >= 0
            c = ece_split(p, y, kind="classwise", n_bins=n_bins, strategy=strategy)
            assert c.over.shape == c.under.shape == (p.shape[1],)
            assert c.ece == pytest.approx(ece_classwise(p, y, n_bins=n_bins, strategy=strategy), rel=1e-13)
            np.testing.assert_allclose(c.signed, signed_calibration_error(p, y, kind="classwise"), atol=1e-14)

    def test_batched(self):
        ps, ys = zip(*(_random(n=60, seed=s) for s in range(3)))
        s = ece_split(np.stack(ps), np.stack(ys), n_bins=5)
        assert s.over.shape == (3,)
        for i in range(3):
            one = ece_split(ps[i], ys[i], n_bins=5)
            assert (s.over[i], s.under[i]) == (one.over, one.under)

    def test_errors(self):
        with pytest.raises(ValueError, match="kind"):
            ece_split(P4, [0, 0, 0, 1], kind="all")
        with pytest.raises(ValueError, match="n_bins"):
            ece_split(P4, [0, 0, 0, 1], n_bins=0)
        with pytest.raises(ValueError, match="strategy"):
            ece_split(P4, [0, 0, 0, 1], strategy="log")
        with pytest.raises(ValueError, match="probs"):
            ece_split(P4[:, :1], [0, 0, 0, 0])


class TestDescribeDirection:
    def test_main(self):
        e = Estimate(0.031, 0.027, 0.035, 0.95, 1000, "percentile")
        assert describe_direction(e) == "over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])"
        e = Estimate(-0.012, -0.016, -0.008, 0.95, 1000, "percentile")
        assert describe_direction(e) == "under-confident (accuracy exceeds confidence by 0.012 [0.008, 0.016])"
        e = Estimate(0.001, -0.002, 0.004, 0.95, 1000, "percentile")
        assert describe_direction(e) == "no clear direction (confidence \u2212 accuracy 0.001 [\u22120.002, 0.004])"

    def test_numbers_and_tolerance(self):
        assert describe_direction(0.0123) == "over-confident (confidence exceeds accuracy by 0.012)"
        assert describe_direction(np.float64(-0.5), digits=1) == "under-confident (accuracy exceeds confidence by 0.5)"
        assert describe_direction(0.0) == "no clear direction (confidence \u2212 accuracy 0.000)"
        assert describe_direction(-0.0001) == "under-confident (accuracy exceeds confidence by 0.000)"
        assert describe_direction(-0.0001, tolerance=0.001) == "no clear direction (confidence \u2212 accuracy 0.000)"
        e = Estimate(0.031, 0.027, 0.035, 0.95, 1000, "percentile")
        assert describe_direction(e, tolerance=0.03).startswith("no clear direction")
        assert describe_direction(e, tolerance=0.02).startswith("over-confident")
        assert (
            describe_direction(-0.25, kind="classwise")
            == "under-predicted (frequency exceeds mean probability by 0.250)"
        )
        assert describe_direction(0.25, kind="classwise", digits=2).startswith("over-predicted (mean probability")

    def test_errors(self):
        for bad in ("0.1", None, True, [0.1], np.zeros(2)):
            with pytest.raises(TypeError, match="signed_error"):
                describe_direction(bad)
        for bad in (float("nan"), Estimate(0.1, float("nan"), 0.2, 0.95, 10, "percentile")):
            with pytest.raises(ValueError, match="signed_error"):
                describe_direction(bad)
        with pytest.raises(ValueError, match="tolerance"):
            describe_direction(0.1, tolerance=-0.1)
        with pytest.raises(ValueError, match="digits"):
            describe_direction(0.1, digits=2.5)
        with pytest.raises(ValueError, match="kind"):
            describe_direction(0.1, kind="top")
