"""Tests for credalbook.metrics.label_stats (Mimori et al. 2022, Sec. 4 and App. C): the U-statistic for any phi of n labels, disagreement, L_phi and CL_phi / CE_phi."""

import itertools
import math
import warnings

import numpy as np
import pytest

from credalbook.metrics import (
    disagreement_statistic,
    ReliabilityCurve,
    statistic_calibration,
    statistic_calibration_error,
    statistic_calibration_loss,
    statistic_mean_estimate,
    statistic_squared_loss,
    StatisticCalibration,
)
from tests.helpers import bin_index, draw_label_hists, label_case, within_se_detail


# ----------------------------------------------------------------------------------------------
# Literal references
# ----------------------------------------------------------------------------------------------
def _brute_u(counts, phi, order):
    """Eq. (16) literally: average of phi over all size-`order` subsets of the expanded labels."""
    labels = [c for c, cnt in enumerate(counts) for _ in range(cnt)]
    vals = [phi(tuple(sorted(s))) for s in itertools.combinations(labels, order)]
    return float(np.mean(vals)) if vals else float("nan")


def _all_differ(labels):
    return float(len(set(labels)) == len(labels))


class TestDisagreementStatistic:
    def test_main(self):
        assert disagreement_statistic((0, 1)) == 1.0 and disagreement_statistic((2, 2)) == 0.0
        assert disagreement_statistic((1, 1, 3)) == 1.0 and disagreement_statistic((0, 0, 0)) == 0.0

    def test_errors(self):
        with pytest.raises(TypeError):
            disagreement_statistic(3)


class TestStatisticMeanEstimate:
    def test_main(self):
        rng = np.random.default_rng(2)
        hists = np.vstack([rng.multinomial(n, rng.dirichlet(np.ones(4))) for n in rng.integers(0, 9, size=60)])
        for order in (2, 3):
            closed = statistic_mean_estimate(hists, order=order)
            general = statistic_mean_estimate(hists, disagreement_statistic, order=order)
            brute = np.array([_brute_u(h, disagreement_statistic, order) for h in hists])
            np.testing.assert_allclose(closed, brute, atol=1e-12)
            np.testing.assert_allclose(general, brute, atol=1e-12)
            assert np.isnan(closed[hists.sum(1) < order]).all()
        brute = np.array([_brute_u(h, _all_differ, 3) for h in hists])
        np.testing.assert_allclose(statistic_mean_estimate(hists, _all_differ, order=3), brute, atol=1e-12)
        # Gini-Simpson form for pairs.
        n = hists.sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gs = 1 - (hists * (hists - 1)).sum(1) / (n * (n - 1))
        np.testing.assert_allclose(statistic_mean_estimate(hists)[n >= 2], gs[n >= 2])

    def test_unbiased(self):
        q, _, counts = label_case(n=40, k=4, seed=12, n_labels=(3, 4, 6))
        hists = draw_label_hists(q, counts, 1500)
        e3 = sum(q[:, a] * q[:, b] * q[:, c] for a, b, c in itertools.combinations(range(4), 3))
        for phi, order, truth in [
            ("disagreement", 2, 1 - (q**2).sum(1)),
            ("disagreement", 3, 1 - (q**3).sum(1)),
            (_all_differ, 3, 6 * e3),
        ]:
            est = [statistic_mean_estimate(h, phi, order=order).mean() for h in hists]
            ok, mean, truth_mean, se = within_se_detail(est, truth.mean())
            assert ok, (phi, order, mean, truth_mean, se)

    def test_errors(self):
        with pytest.raises(ValueError, match="phi must be 'disagreement' or a callable"):
            statistic_mean_estimate([[1, 1]], "agreement")
        with pytest.raises(ValueError, match="order must be >= 2"):
            statistic_mean_estimate([[1, 1]], order=1)
        with pytest.raises(ValueError, match=r"phi must return values in \[0, 1\]"):
            statistic_mean_estimate([[1, 1]], lambda labels: 2.0)
        with pytest.raises(ValueError, match="non-negative"):
            statistic_mean_estimate([[1, -1]])


class TestStatisticSquaredLoss:
    def test_main(self):
        assert statistic_squared_loss([0.5, 0.0], [[1, 1], [2, 0]]) == pytest.approx(0.125)
        # Eq. (40) literally: mean over label pairs of (phi - varphi)^2, instances with n_i < 2 left out.
        rng = np.random.default_rng(4)
        hists = np.vstack([rng.multinomial(n, rng.dirichlet(np.ones(3))) for n in rng.integers(1, 7, size=40)])
        v = rng.uniform(size=40)
        ref = []
        for h, vi in zip(hists, v):
            labels = [c for c, cnt in enumerate(h) for _ in range(cnt)]
            pairs = list(itertools.combinations(labels, 2))
            if pairs:
                ref.append(np.mean([(float(a != b) - vi) ** 2 for a, b in pairs]))
        assert statistic_squared_loss(v, hists) == pytest.approx(np.mean(ref))
        assert statistic_squared_loss(v, hists, phi=disagreement_statistic) == pytest.approx(np.mean(ref))

    def test_unbiased(self):
        q, _, counts = label_case(n=50, k=3, seed=13, n_labels=(2, 3, 5))
        v = np.random.default_rng(0).uniform(size=50)
        mu = 1 - (q**2).sum(1)
        truth = ((mu - v) ** 2 + mu * (1 - mu)).mean()
        est = [statistic_squared_loss(v, h) for h in draw_label_hists(q, counts, 2000)]
        ok, mean, truth, se = within_se_detail(est, truth)
        assert ok, (mean, truth, se)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"phi_probs must have shape \(2,\)"):
            statistic_squared_loss([0.5], [[1, 1], [2, 0]])
        with pytest.raises(ValueError, match=r"phi_probs must lie in \[0, 1\]; phi_probs\[1\] = 1.5"):
            statistic_squared_loss([0.5, 1.5], [[1, 1], [2, 0]])
        with pytest.raises(ValueError, match="n_i >= 2"):
            statistic_squared_loss([0.5, 0.5], [[1, 0], [0, 1]])


class TestStatisticCalibration:
    def test_main(self):
        c = statistic_calibration([0.5, 0.5, 0.5], [[1, 1], [2, 0], [1, 1]], n_bins=2)
        assert isinstance(c, StatisticCalibration)
        assert c.counts.tolist() == [0, 3] and c.cl_plugin == pytest.approx(1 / 36)
        # sigma^2 = 2/9 (biased); debiased = 1/36 - (3/3) (2/9) / 2
        assert c.cl_debiased == pytest.approx(1 / 36 - 1 / 9)
        assert statistic_calibration_loss([0.5] * 3, [[1, 1], [2, 0], [1, 1]], n_bins=2) == pytest.approx(c.cl_debiased)
        assert statistic_calibration_error(
            [0.5] * 3, [[1, 1], [2, 0], [1, 1]], n_bins=2, debiased=False
        ) == pytest.approx(1 / 6)
        curve = c.reliability_curve()
        assert isinstance(curve, ReliabilityCurve) and curve.observed[1] == pytest.approx(2 / 3)
        # Same as the CPE machinery applied to the scalar (mu_hat, varphi) pairs: literal loop.
        rng = np.random.default_rng(6)
        hists = rng.multinomial(4, rng.dirichlet(np.ones(3), size=70))
        v = rng.uniform(size=70)
        mu = statistic_mean_estimate(hists)
        plug = deb = 0.0
        for b in range(15):
            members = [i for i in range(70) if bin_index(v[i], 15) == b]
            m = len(members)
            if m:
                cbar, vbar = mu[members].mean(), v[members].mean()
                plug += m / 70 * (cbar - vbar) ** 2
                if m >= 2:
                    deb += m / 70 * ((cbar - vbar) ** 2 - mu[members].var() / (m - 1))
        c = statistic_calibration(v, hists)
        assert c.cl_plugin == pytest.approx(plug) and c.cl_debiased == pytest.approx(deb)

    def test_debiasing_calibrated(self):
        """A calibrated DPE varphi_i = 1 - sum_k Q_ik^2: debiased CL_phi near 0, plug-in clearly positive."""
        rng = np.random.default_rng(21)
        reps, n = 150, 800
        deb, plug = [], []
        for _ in range(reps):
            q = rng.dirichlet(np.ones(3), size=n)
            h = rng.multinomial(2, q)
            c = statistic_calibration(1 - (q**2).sum(1), h)
            deb.append(c.cl_debiased), plug.append(c.cl_plugin)
        ok, mean, _, se = within_se_detail(deb, 0.0)
        assert ok, (mean, se)
        plug = np.asarray(plug)
        assert plug.mean() > 10 * plug.std() / math.sqrt(reps)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_bins"):
            statistic_calibration([0.5], [[1, 1]], n_bins=-1)
        with pytest.raises(ValueError, match="phi_probs must be numeric"):
            statistic_calibration(["a"], [[1, 1]])
        with pytest.raises(ValueError, match="phi_probs must be numeric"):
            statistic_calibration([0.5 + 0j], [[1, 1]])  # complex is not a real number
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1 and <= 1000000"):
            statistic_calibration([0.5], [[1, 1]], n_bins=10**9)
        with pytest.raises(ValueError, match="n_i >= 3"):
            statistic_calibration([0.5], [[1, 1]], order=3)


class TestOldDataOrder:
    """``(label_hist, phi_probs)`` (the order before 0.6) gives the same numbers with a FutureWarning until 0.7."""

    @pytest.mark.parametrize(
        "func",
        [statistic_squared_loss, statistic_calibration_loss, statistic_calibration_error],
        ids=lambda f: f.__name__,
    )
    def test_main(self, func):
        rng = np.random.default_rng(4)
        hist, v = rng.multinomial(3, [0.5, 0.3, 0.2], size=40), rng.uniform(size=40)
        new = func(v, hist)
        with pytest.warns(FutureWarning, match=rf"{func.__name__}\(label_hist, phi_probs\) is deprecated since 0\.6"):
            assert func(hist, v) == new
        with pytest.warns(FutureWarning, match=r"pass \(phi_probs, label_hist\)"):
            assert func(hist, phi_probs=v) == new
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert func(v, hist) == new and func(label_hist=hist, phi_probs=v) == new

    def test_calibration(self):
        hist, v = [[1, 1], [2, 0], [1, 1]], [0.5, 0.1, 0.6]
        new = statistic_calibration(v, hist, n_bins=5)
        with pytest.warns(FutureWarning, match="the old order is removed in 0.7"):
            old = statistic_calibration(hist, v, n_bins=5)
        np.testing.assert_array_equal(old.cl_debiased_bins, new.cl_debiased_bins)
        np.testing.assert_array_equal(old.counts, new.counts)

    def test_never_ambiguous(self):
        """phi_probs are (N,) and label histograms (N, K): even one-hot histograms and 0/1 values are told apart."""
        hist, v = np.eye(2)[[0, 1, 1]] * 2, np.array([0.0, 1.0, 1.0])
        with pytest.warns(FutureWarning):
            assert statistic_squared_loss(hist, v) == statistic_squared_loss(v, hist)
