"""Tests for credalbook.metrics.intervals: bootstrap confidence intervals and the ``ci=`` keyword of the metrics.

Coverage of the percentile (and basic) interval where the sampling distribution is known: the
accuracy, Brier score and linear SKCE of calibrated Dirichlet predictions are means of i.i.d.
terms with closed-form expectations (E[max p] = (1/K) sum_j 1/j, E[1 - |p|^2] = 1/2 for Dir(1, 1, 1),
SKCE = 0); the vectorised bootstrap against a plain loop with the same seed; seeds; errors.
"""

import functools
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
import torch
from scipy import stats

import credalbook.metrics.intervals as intervals
from credalbook.metrics import (
    accuracy,
    ace,
    bootstrap_ci,
    brier_score,
    ece_classwise,
    ece_confidence,
    Estimate,
    skce,
    skce_ul,
    skce_uq,
    smooth_ece,
    TVKernel,
)
from credalbook.metrics.classification import ece_classwise_batched, ece_confidence_batched
from credalbook.synthetic import calibrated_predictions


def _loop_replicates(metric, p, y, n_resamples, seed):
    """The plain loop the vectorised bootstrap must reproduce: one index draw of size N per replicate."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_resamples):
        idx = rng.integers(0, p.shape[0], size=p.shape[0])
        out.append(float(metric(p[idx], y[idx])))
    return np.array(out)


def _percentile(reps, level):
    return np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])


class TestEstimate:
    def test_main(self):
        e = Estimate(0.125, 0.1, 0.15, 0.9, 500, "percentile", replicates=np.arange(3.0))
        assert float(e) == 0.125
        assert f"{e:.3f}" == "0.125 [0.100, 0.150]"
        assert e.to_dict() == {
            "value": 0.125,
            "low": 0.1,
            "high": 0.15,
            "level": 0.9,
            "n_resamples": 500,
            "method": "percentile",
        }
        assert "replicates" not in repr(e)
        assert e == Estimate(0.125, 0.1, 0.15, 0.9, 500, "percentile")  # replicates are not compared
        with pytest.raises(FrozenInstanceError):
            e.value = 1.0


class TestBootstrapCi:
    def test_matches_plain_loop(self, monkeypatch):
        p, y = calibrated_predictions(120, 4, seed=1)
        for metric in (accuracy, functools.partial(ece_confidence, n_bins=5), lambda a, b: brier_score(a, b)):
            est = bootstrap_ci(p, y, metric, ci=0.8, n_resamples=60, seed=7)
            reps = _loop_replicates(metric, p, y, 60, 7)
            np.testing.assert_allclose(est.replicates, reps, rtol=1e-13, atol=1e-15)
            assert (est.low, est.high) == pytest.approx(tuple(_percentile(reps, 0.8)), rel=1e-12)
            assert est.value == float(metric(p, y)) and est.level == 0.8 and est.n_resamples == 60
        # chunks of one replicate give the same replicates as chunks of all of them
        whole = bootstrap_ci(p, y, ece_classwise, n_resamples=30, seed=3)
        monkeypatch.setattr(intervals, "CHUNK_BYTES", 1)
        assert intervals._chunk_size(120, (p, y), 30) == 1
        single = bootstrap_ci(p, y, ece_classwise, n_resamples=30, seed=3)
        np.testing.assert_array_equal(whole.replicates, single.replicates)

    @pytest.mark.parametrize("norm,debiased", [(1, False), (2, False), (2, True), (1.5, False)])
    def test_classwise_counts_match_plain_loop(self, norm, debiased, monkeypatch):
        """The equal-width classwise interval from multiplicities (bins computed once) against a plain loop
        that gathers and re-bins, and against the previous engine (bootstrap of the batched error on
        gathered rows): equal to 1e-12, for N odd, K = 5, and for chunks of one replicate."""
        p, y = calibrated_predictions(1001, 5, seed=3)
        p = p**1.3 / (p**1.3).sum(1, keepdims=True)  # miscalibrated: gaps of both signs
        metric = functools.partial(ece_classwise, n_bins=7, norm=norm, debiased=debiased)
        est = metric(p, y, ci=0.9, n_resamples=40, seed=5)
        loop = _loop_replicates(metric, p, y, 40, 5)
        np.testing.assert_allclose(est.replicates, loop, rtol=1e-12, atol=1e-15)
        batched = functools.partial(ece_classwise_batched, n_bins=7, norm=norm, debiased=debiased)
        old = intervals.bootstrap_estimate(batched, (p, y), est.value, ci=0.9, n_resamples=40, seed=5)
        np.testing.assert_allclose(est.replicates, old.replicates, rtol=1e-12, atol=1e-15)
        assert est.value == metric(p, y) and np.all(est.replicates > 0)
        monkeypatch.setattr(intervals, "CHUNK_BYTES", 1)
        np.testing.assert_array_equal(metric(p, y, ci=0.9, n_resamples=40, seed=5).replicates, est.replicates)

    def test_resample_counts(self):
        """Multiplicities of the indices of resample_statistic: they sum to N and weight a mean as gathering does."""
        x = np.random.default_rng(0).random(37)
        counts = []
        reps = intervals.resample_counts(lambda c: counts.append(c.copy()) or c @ x / 37, 37, n_resamples=9, seed=4)
        c = np.concatenate(counts)
        assert c.shape == (9, 37) and np.all(c.sum(1) == 37)
        gathered = intervals.resample_statistic(lambda a: a.mean(axis=-1), (x,), n_resamples=9, seed=4)
        np.testing.assert_allclose(reps, gathered, rtol=1e-14)

    def test_metrics_with_ci_keyword_do_the_work(self):
        p, y = calibrated_predictions(100, 3, seed=2)
        for metric in (ece_confidence, functools.partial(ece_classwise, n_bins=4), skce_ul, smooth_ece):
            est = bootstrap_ci(p, y, metric, ci=0.9, n_resamples=30, seed=4)
            assert est == metric(p, y, ci=0.9, n_resamples=30, seed=4)
            basic = bootstrap_ci(p, y, metric, ci=0.9, n_resamples=30, seed=4, method="basic")
            lo, hi = _percentile(est.replicates, 0.9)
            assert (basic.low, basic.high) == pytest.approx((2 * est.value - hi, 2 * est.value - lo), rel=1e-12)

    def test_calibration_measure_and_basic(self):
        from credalbook.stats import calibration_measure

        p, y = calibrated_predictions(100, 3, seed=2)
        g = calibration_measure("ece_classwise", n_bins=4)
        est = bootstrap_ci(p, y, g, n_resamples=40, seed=0)
        ref = bootstrap_ci(p, y, functools.partial(ece_classwise, n_bins=4), n_resamples=40, seed=0)
        np.testing.assert_allclose(est.replicates, ref.replicates, rtol=1e-13)
        basic = bootstrap_ci(p, y, g, n_resamples=40, seed=0, method="basic")
        lo, hi = _percentile(est.replicates, 0.95)
        assert (basic.low, basic.high) == pytest.approx((2 * est.value - hi, 2 * est.value - lo), rel=1e-12)
        assert basic.method == "basic"

    def test_coverage_of_means(self):
        """Percentile intervals of accuracy, Brier score and linear SKCE cover their population values.

        R = 1000 calibrated data sets of N = 150, Dir(1, 1, 1) predictions: E[acc] = E[max p] = 11/18,
        E[Brier] = 1 - E|p|^2 = 1/2, SKCE = 0 (a calibrated model). Each coverage rate must lie in
        the central 99.9 % binomial region of R trials at the nominal 0.9, [0.868, 0.930] (the
        bootstrap of a mean under-covers by O(1/N), well inside it).
        """
        r, n, level = 1000, 150, 0.9
        targets = {"accuracy": 11 / 18, "brier": 0.5, "skce_ul": 0.0}
        hits = {name: 0 for name in targets}
        rng = np.random.default_rng(0)
        for _ in range(r):
            p, y = calibrated_predictions(n, 3, seed=rng)
            estimates = {
                "accuracy": bootstrap_ci(p, y, accuracy, ci=level, n_resamples=200, seed=rng),
                "brier": bootstrap_ci(p, y, brier_score, ci=level, n_resamples=200, seed=rng),
                "skce_ul": skce_ul(p, y, ci=level, n_resamples=200, seed=rng),
            }
            for name, e in estimates.items():
                hits[name] += e.low <= targets[name] <= e.high
        lo, hi = stats.binom.ppf([0.0005, 0.9995], r, level) / r
        assert (lo, hi) == (0.868, 0.93)
        for name, h in hits.items():
            assert lo <= h / r <= hi, (name, h / r)

    def test_seeds(self):
        p, y = calibrated_predictions(80, 3, seed=0)
        a = bootstrap_ci(p, y, brier_score, n_resamples=50, seed=11)
        b = bootstrap_ci(p, y, brier_score, n_resamples=50, seed=11)
        c = bootstrap_ci(p, y, brier_score, n_resamples=50, seed=12)
        np.testing.assert_array_equal(a.replicates, b.replicates)
        assert a == b and not np.array_equal(a.replicates, c.replicates)
        g = np.random.default_rng(11)
        d = bootstrap_ci(p, y, brier_score, n_resamples=50, seed=g)  # a Generator continues its stream
        np.testing.assert_array_equal(a.replicates, d.replicates)

    def test_torch_inputs(self):
        p, y = calibrated_predictions(60, 3, seed=0)
        a = bootstrap_ci(torch.tensor(p, dtype=torch.float32), torch.tensor(y), accuracy, n_resamples=20, seed=0)
        b = bootstrap_ci(p.astype(np.float32), y, accuracy, n_resamples=20, seed=0)
        assert a == b

    def test_memory_bound(self):
        # N = 10^6, K = 10: a chunk of replicates holds at most CHUNK_BYTES (256 MiB) of indices and gathered data
        p_shape, n = (10,), 10**6
        dummy = (np.empty((1, *p_shape)), np.empty(1, dtype=np.int64))
        m = intervals._chunk_size(n, dummy, 1000)
        assert m >= 1 and m * n * (8 + 2 * (80 + 8)) <= intervals.CHUNK_BYTES

    def test_errors(self):
        p, y = calibrated_predictions(20, 3, seed=0)
        for ci in (0, 1, 1.5, -0.1, "0.95", True, None):
            with pytest.raises(ValueError, match="ci must"):
                bootstrap_ci(p, y, accuracy, ci=ci)
        for n in (1, 0, 2.5, True):
            with pytest.raises(ValueError, match="n_resamples must be an integer >= 2"):
                bootstrap_ci(p, y, accuracy, n_resamples=n)
        with pytest.raises(ValueError, match="method must be one of"):
            bootstrap_ci(p, y, accuracy, method="bca")
        with pytest.raises(ValueError, match="seed must be"):
            bootstrap_ci(p, y, accuracy, seed=-1)
        with pytest.raises(TypeError, match="metric must be a callable"):
            bootstrap_ci(p, y, "accuracy")
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            bootstrap_ci(p[None], y[None], accuracy)
        with pytest.raises(ValueError, match="one value per replicate"):
            bootstrap_ci(p, y, lambda a, b: float(np.mean(a)), batched=True, n_resamples=5)
        with pytest.raises(ValueError, match="one real number"):
            bootstrap_ci(p, y, lambda a, b: a.mean(axis=0), n_resamples=5)
        with pytest.raises(ValueError, match="not finite on"):
            bootstrap_ci(p, y, lambda a, b: np.nan if b[0] == b[1] else 0.0, n_resamples=50, seed=0)
        with pytest.raises(ValueError, match="batched must be"):
            bootstrap_ci(p, y, accuracy, batched="yes")


class TestCiKeyword:
    """ci= on every calibration error: an Estimate whose replicates are the metric on the resampled data."""

    @pytest.mark.parametrize(
        "metric",
        [
            functools.partial(ece_confidence, n_bins=5),
            functools.partial(ece_confidence, n_bins=5, strategy="quantile", norm=2, debiased=True),
            functools.partial(ece_classwise, n_bins=5),
            functools.partial(ece_classwise, n_bins=4, norm=2),
            functools.partial(ace, n_bins=4),
            functools.partial(smooth_ece),
            functools.partial(smooth_ece, bandwidth=0.05),
        ],
        ids=[
            "ece_confidence",
            "ece_confidence_l2_mass",
            "ece_classwise",
            "ece_classwise_l2",
            "ace",
            "smooth",
            "smooth_bw",
        ],
    )
    def test_instance_resampling(self, metric):
        p, y = calibrated_predictions(90, 3, seed=4)
        value = metric(p, y)
        assert type(value) is float
        est = metric(p, y, ci=0.9, n_resamples=25, seed=5)
        assert isinstance(est, Estimate) and est.value == value and est.level == 0.9 and est.n_resamples == 25
        reps = _loop_replicates(metric, p, y, 25, 5)
        np.testing.assert_allclose(est.replicates, reps, rtol=1e-12, atol=1e-15)
        assert (est.low, est.high) == pytest.approx(tuple(_percentile(reps, 0.9)), rel=1e-12)

    def test_default_unchanged(self):
        p, y = calibrated_predictions(200, 4, seed=0)
        assert ece_confidence(p, y, n_bins=7) == float(ece_confidence_batched(p, y, 7))
        assert ece_classwise(p, y, n_bins=7) == float(ece_classwise_batched(p, y, 7))
        # batch dimensions still work without ci, and are refused with it
        pb, yb = np.stack([p, p]), np.stack([y, y])
        assert ece_confidence(pb, yb).shape == (2,)
        with pytest.raises(ValueError, match="when ci is given"):
            ece_confidence(pb, yb, ci=0.9)

    def test_skce_linear_and_block_resample_terms(self):
        p, y = calibrated_predictions(60, 3, seed=3)
        r = p - np.eye(3)[y]
        terms = np.exp(-((0.5 * np.abs(p[0::2] - p[1::2]).sum(1)) ** 2) / 2) * (r[0::2] * r[1::2]).sum(1)
        for est in (
            skce_ul(p, y, ci=0.9, n_resamples=40, seed=1),
            skce(p, y, estimator="linear", ci=0.9, n_resamples=40, seed=1),
            skce(p, y, estimator="block", block_size=2, ci=0.9, n_resamples=40, seed=1),
        ):
            rng = np.random.default_rng(1)
            reps = [terms[rng.integers(0, 30, 30)].mean() for _ in range(40)]
            np.testing.assert_allclose(est.replicates, reps, rtol=1e-12, atol=1e-15)
            assert est.value == pytest.approx(terms.mean(), rel=1e-12)
        blocks = np.array([skce_uq(p[i : i + 10], y[i : i + 10]) for i in range(0, 60, 10)])
        est = skce(p, y, estimator="block", block_size=10, ci=0.9, n_resamples=30, seed=2)
        rng = np.random.default_rng(2)
        np.testing.assert_allclose(
            est.replicates, [blocks[rng.integers(0, 6, 6)].mean() for _ in range(30)], rtol=1e-12, atol=1e-15
        )

    def test_skce_quadratic_leaves_out_copies(self):
        """Each replicate is Eq. 7 over the pairs of positions whose instances differ (brute force, N = 25)."""
        p, y = calibrated_predictions(25, 3, seed=6)
        kern = TVKernel(2.0)
        est = skce_uq(p, y, ci=0.9, n_resamples=8, seed=0)
        assert est.value == skce_uq(p, y)
        rng = np.random.default_rng(0)
        for rep in est.replicates:
            idx = rng.integers(0, 25, 25)
            r = p[idx] - np.eye(3)[y[idx]]
            h = kern.gram(p[idx], p[idx]) * (r @ r.T)
            keep = idx[:, None] != idx[None, :]
            assert rep == pytest.approx(h[keep].mean(), rel=1e-10)
        est_t = skce(torch.tensor(p), torch.tensor(y), estimator="quadratic", ci=0.9, n_resamples=8, seed=0)
        np.testing.assert_allclose(est_t.replicates, est.replicates, rtol=1e-12)

    def test_errors(self):
        p, y = calibrated_predictions(20, 3, seed=0)
        for fn in (ece_confidence, ece_classwise, ace, skce, skce_ul, skce_uq, smooth_ece):
            with pytest.raises(ValueError, match="ci must"):
                fn(p, y, ci=2)
            with pytest.raises(ValueError, match="n_resamples must"):
                fn(p, y, ci=0.9, n_resamples=1)
        with pytest.raises(ValueError, match="at least two blocks"):
            skce(p, y, estimator="block", block_size=15, ci=0.9)
        with pytest.raises(ValueError, match="N >= 4"):
            skce_ul(p[:3], y[:3], ci=0.9)


def test_old_argument_order_warns():
    """bootstrap_ci(metric, probs, labels) of 0.5 is bootstrap_ci(probs, labels, metric) since 0.6."""
    p, y = calibrated_predictions(100, 3, seed=0)
    with pytest.warns(FutureWarning, match="data first"):
        old = bootstrap_ci(brier_score, p, y, n_resamples=30, seed=2)
    assert old == bootstrap_ci(p, y, brier_score, n_resamples=30, seed=2)
