"""Tests for credalbook.stats.binary_tests: Spiegelhalter's z-test and Hosmer-Lemeshow's C and H.

Closed forms on hand-computed data, the Brier-score identity of Spiegelhalter's numerator, MAPIE's
documented examples and MAPIE itself on the same data (skipped without it), a transcription of R's
``ResourceSelection::hoslem.test`` and the project's multi-class Hosmer-Lemeshow (K = 2, one grouping)
as independent computations of C, the Type I error on calibrated data within its exact binomial band
(and the χ²(g − 2) reference above it), and the power against miscalibrated predictions.
"""

import matplotlib
import numpy as np
import pytest
import torch
from scipy import stats

from credalbook.stats import (
    BINARY_NULLS,
    calibration_test,
    hosmer_lemeshow,
    hosmer_lemeshow_binary_test,
    METHODS,
    spiegelhalter_test,
)

matplotlib.use("Agg")

ALPHA = 0.05


def _two(p1):
    p1 = np.asarray(p1, dtype=float)
    return np.c_[1 - p1, p1]


def _calibrated(n, rng):
    """p ~ U(0, 1), y ~ Bernoulli(p): H0 holds exactly."""
    p = rng.random(n)
    return p, (rng.random(n) < p).astype(np.int64)


def _band(reps, alpha=ALPHA, ci=0.999):
    """Exact binomial band of the number of rejections of a test of size alpha over reps data sets."""
    return stats.binom.ppf([(1 - ci) / 2, (1 + ci) / 2], reps, alpha)


def _rejections(test, reps, n, seed, transform=None):
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(reps):
        p, y = _calibrated(n, rng)
        q = p if transform is None else transform(p)
        count += test(_two(q), y).rejected
    return count


def _scale_logit(p, t):
    z = np.log(p) - np.log1p(-p)
    return 1 / (1 + np.exp(-t * z))


def _hoslem_test_r(p1, y, g):
    """R's ResourceSelection::hoslem.test (rdrr.io/rforge/ResourceSelection/src/R/hoslem.test.R) in NumPy:
    cut points unique(quantile(yhat, seq(0, 1, 1/g))) (R's default type 7 = NumPy's "linear"), right-closed
    groups with the lowest value included, Pearson's sum over the g × 2 table."""
    qq = np.unique(np.quantile(p1, np.arange(g + 1) / g))
    group = np.clip(np.searchsorted(qq, p1, side="left") - 1, 0, len(qq) - 2)
    stat = 0.0
    for j in range(len(qq) - 1):
        m = group == j
        for obs, exp in ((y[m].sum(), p1[m].sum()), ((1 - y[m]).sum(), (1 - p1[m]).sum())):
            stat += (obs - exp) ** 2 / exp
    return stat


class TestSpiegelhalterTest:
    def test_main(self):
        """p = (.2, .8), y = (1, 1): numerator .8·.6 − .2·.6 = .36, variance 2·.36·.16, Z = 3 / (2√2)."""
        res = spiegelhalter_test(_two([0.2, 0.8]), [1, 1])
        z = 3 / (2 * np.sqrt(2))
        assert res.details["z"] == pytest.approx(z, rel=1e-14)
        assert res.statistic == pytest.approx(z, rel=1e-14)
        assert res.pvalue == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)
        assert res.threshold == pytest.approx(stats.norm.isf(ALPHA / 2), rel=1e-12)
        assert res.method == "spiegelhalter" and not res.rejected and res.details["n"] == 2
        assert res.null_model.dist.name == "halfnorm"
        # the one decision rule at another level: |Z| = 1.0607 > Φ⁻¹(1 − 0.3/2) = 1.036
        assert res.decision(0.3) and not res.decision(0.28)

    def test_brier_identity(self):
        """The numerator is N (Brier score − its expectation under H0); the sign follows it."""
        rng = np.random.default_rng(3)
        p, y = _calibrated(500, rng)
        res = spiegelhalter_test(_two(p), y)
        w = 1 - 2 * p
        numerator = np.sum((y - p) ** 2 - p * (1 - p))
        assert numerator == pytest.approx(np.sum((y - p) * w), rel=1e-12)
        z = numerator / np.sqrt(np.sum(w**2 * p * (1 - p)))
        assert res.details["z"] == pytest.approx(z, rel=1e-10)
        d = res.details
        assert 500 * (d["brier_score"] - d["expected_brier_score"]) == pytest.approx(numerator, rel=1e-10)

    def test_mapie_documented_examples(self):
        """The examples of MAPIE's documentation (mapie.metrics.calibration, v1.6): Z = −0.757 and a
        one-sided p-value 1 − Φ(Z) = 0.8486, i.e. a two-sided 2 (1 − 0.8486)."""
        res = spiegelhalter_test(_two([0.1, 0.9, 0.21, 0.9, 0.5]), [0, 1, 0, 1, 0])
        assert round(res.details["z"], 3) == -0.757
        res = spiegelhalter_test(_two([0.8, 0.3, 0.5, 0.5, 0.7, 0.1]), [1, 0, 1, 0, 1, 0])
        assert round(stats.norm.sf(res.details["z"]), 4) == 0.8486
        assert res.pvalue == pytest.approx(2 * stats.norm.cdf(res.details["z"]), rel=1e-12)

    def test_against_mapie(self):
        calibration = pytest.importorskip("mapie.metrics.calibration")
        rng = np.random.default_rng(5)
        for n, t in ((50, 1.0), (2000, 1.5), (2000, 0.7)):
            p, y = _calibrated(n, rng)
            p = _scale_logit(p, t)
            res = spiegelhalter_test(_two(p), y)
            z = calibration.spiegelhalter_statistic(y, p)
            one_sided = calibration.spiegelhalter_p_value(y, p)  # 1 − Φ(Z)
            assert res.details["z"] == pytest.approx(z, rel=1e-12, abs=1e-14)
            assert res.pvalue == pytest.approx(2 * min(one_sided, 1 - one_sided), rel=1e-9, abs=1e-15)

    def test_inputs(self):
        """Logits, torch tensors, float32 and calibration_test give the same test."""
        rng = np.random.default_rng(7)
        p, y = _calibrated(300, rng)
        ref = spiegelhalter_test(_two(p), y)
        logits = np.log(_two(p))
        assert spiegelhalter_test(logits, y, from_logits=True).statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert spiegelhalter_test(torch.tensor(_two(p)), torch.tensor(y)).statistic == ref.statistic
        via = calibration_test(_two(p), y, method="spiegelhalter")
        assert via.statistic == ref.statistic and via.pvalue == ref.pvalue
        assert calibration_test(logits, y, method="spiegelhalter", from_logits=True).pvalue == pytest.approx(
            ref.pvalue, rel=1e-9
        )
        assert "spiegelhalter" in METHODS

    def test_scores(self):
        """(N,) scores P(y = 1) with 0/1 or bool labels, and (N,) logits, mean the same as (N, 2) rows."""
        p = np.array([0.1, 0.4, 0.7, 0.9, 0.35])
        y = np.array([0, 1, 1, 0, 1])
        ref = spiegelhalter_test(_two(p), y)
        assert spiegelhalter_test(p, y).statistic == ref.statistic
        assert spiegelhalter_test(p, y.astype(bool)).statistic == ref.statistic
        logit = np.log(p) - np.log1p(-p)
        assert spiegelhalter_test(logit, y, from_logits=True).statistic == pytest.approx(ref.statistic, rel=1e-12)
        via = calibration_test(p, y.astype(bool), method="spiegelhalter")
        assert via.statistic == ref.statistic and via.pvalue == ref.pvalue
        with pytest.raises(ValueError, match="labels"):
            spiegelhalter_test(p, [0, 1, 2, 0, 1])

    def test_type_one_error(self):
        """400 calibrated data sets of N = 200: the rejections lie in the 99.9% binomial band of α."""
        lo, hi = _band(400)
        count = _rejections(spiegelhalter_test, 400, 200, seed=11)
        assert lo <= count <= hi, (count, lo, hi)

    def test_power(self):
        """Over-confident (logit ×2) and under-confident (logit ×0.5) predictions of N = 1000: rejected, with
        the sign of Z saying which; p² is rejected too."""
        rng = np.random.default_rng(13)
        p, y = _calibrated(1000, rng)
        over = spiegelhalter_test(_two(_scale_logit(p, 2.0)), y)
        under = spiegelhalter_test(_two(_scale_logit(p, 0.5)), y)
        assert over.rejected and over.details["z"] > 0
        assert under.rejected and under.details["z"] < 0
        assert spiegelhalter_test(_two(p**2), y).rejected

    def test_plot(self):
        res = spiegelhalter_test(_two([0.2, 0.8, 0.6]), [1, 1, 0])
        ax = res.plot()
        assert ax.get_title().startswith("spiegelhalter: p = ")
        assert len(ax.lines) == 3  # the half-normal density, the statistic, the critical value

    def test_errors(self):
        with pytest.raises(ValueError, match="binary"):
            spiegelhalter_test(np.full((4, 3), 1 / 3), [0, 1, 2, 0])
        with pytest.raises(ValueError, match="variance"):
            spiegelhalter_test(_two([0.0, 0.5, 1.0, 0.5]), [0, 1, 1, 0])
        with pytest.raises(ValueError, match="labels"):
            spiegelhalter_test(_two([0.2, 0.8]), [0, 2])
        with pytest.raises(ValueError, match="alpha"):
            spiegelhalter_test(_two([0.2, 0.8]), [0, 1], alpha=1.5)
        with pytest.raises(TypeError, match="unexpected options"):
            calibration_test(_two([0.2, 0.8]), [0, 1], method="spiegelhalter", null="chi2")


class TestHosmerLemeshowBinaryTest:
    def test_main(self):
        """C on 8 instances in 4 groups of 2; each group adds (O − E)² / (n π̄ (1 − π̄))."""
        p1 = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
        y = [0, 0, 1, 0, 1, 1, 0, 1]
        res = hosmer_lemeshow_binary_test(_two(p1), y, n_bins=4)
        hand = 0.3**2 / (0.3 * 1.7 / 2) + 0.3**2 / (0.7 * 1.3 / 2) + 0.7**2 / (1.3 * 0.7 / 2) + 0.7**2 / (1.7 * 0.3 / 2)
        assert res.statistic == pytest.approx(hand, rel=1e-12)
        d = res.details
        assert d["groups"] == 4 and d["dof"] == 4 and d["sizes"].tolist() == [2, 2, 2, 2]
        np.testing.assert_allclose(d["expected"], [0.3, 0.7, 1.3, 1.7], rtol=1e-12)
        assert d["observed"].tolist() == [0, 1, 2, 1] and d["min_expected"] == pytest.approx(0.3)
        assert res.pvalue == pytest.approx(stats.chi2.sf(hand, 4), rel=1e-12)
        assert res.threshold == pytest.approx(stats.chi2.isf(ALPHA, 4), rel=1e-12)
        assert res.method == "hosmer_lemeshow_c" and res.null_model.kwds == {} and res.null_model.args == (4,)
        g2 = hosmer_lemeshow_binary_test(_two(p1), y, n_bins=4, null="chi2")
        assert g2.statistic == res.statistic and g2.details["dof"] == 2
        assert g2.pvalue == pytest.approx(stats.chi2.sf(hand, 2), rel=1e-12)

    def test_h_statistic(self):
        """H: fixed groups [j/10, (j+1)/10); the empty ones are dropped and the degrees of freedom follow."""
        p1 = [0.05, 0.15, 0.15, 0.55, 0.95, 0.98]
        y = [0, 1, 0, 1, 1, 1]
        res = hosmer_lemeshow_binary_test(_two(p1), y, strategy="uniform")
        hand = (
            0.05**2 / (0.05 * 0.95) + 0.7**2 / (0.3 * 1.7 / 2) + 0.45**2 / (0.55 * 0.45) + 0.07**2 / (1.93 * 0.07 / 2)
        )
        assert res.statistic == pytest.approx(hand, rel=1e-12)
        assert res.method == "hosmer_lemeshow_h" and res.details["groups"] == 4 and res.details["dof"] == 4
        assert res.details["sizes"].tolist() == [1, 2, 1, 2]
        assert hosmer_lemeshow_binary_test(_two(p1), y, strategy="uniform", null="chi2").details["dof"] == 2

    def test_pearson_table(self):
        """C is Pearson's Σ (O − E)² / E over the g × 2 table of events and non-events."""
        rng = np.random.default_rng(17)
        p, y = _calibrated(1000, rng)
        for strategy in ("quantile", "uniform"):
            d = hosmer_lemeshow_binary_test(_two(p), y, strategy=strategy).details
            o, e, n = d["observed"], d["expected"], d["sizes"]
            pearson = np.sum((o - e) ** 2 / e + ((n - o) - (n - e)) ** 2 / (n - e))
            res = hosmer_lemeshow_binary_test(_two(p), y, strategy=strategy)
            assert res.statistic == pytest.approx(pearson, rel=1e-12)

    def test_against_hoslem_test(self):
        """R's hoslem.test transcribed (see _hoslem_test_r): the same C and, with null="chi2", the same p-value,
        where its quantile groups and the equal-mass groups coincide (no ties, N a multiple of g)."""
        rng = np.random.default_rng(19)
        for n in (200, 1000):
            p, y = _calibrated(n, rng)
            res = hosmer_lemeshow_binary_test(_two(p), y, null="chi2")
            stat = _hoslem_test_r(p, y, 10)
            assert res.statistic == pytest.approx(stat, rel=1e-10)
            assert res.pvalue == pytest.approx(stats.chi2.sf(stat, 8), rel=1e-9)

    def test_against_multiclass_hosmer_lemeshow(self):
        """For K = 2 with one grouping, the count statistic of hosmer_lemeshow and its χ² references
        ((K − 1)(B − 2) and B(K − 1)) are C and its two references."""
        rng = np.random.default_rng(23)
        p, y = _calibrated(500, rng)
        for null in BINARY_NULLS:
            res = hosmer_lemeshow_binary_test(_two(p), y, null=null)
            old = hosmer_lemeshow(_two(p), y, grouping="single", null=null)
            assert res.statistic == pytest.approx(old.count_statistic, rel=1e-10)
            assert res.details["dof"] == old.dof and res.pvalue == pytest.approx(old.pvalue, rel=1e-8)

    def test_invariances(self):
        """Permuting the instances changes nothing; ties are never split between groups."""
        rng = np.random.default_rng(29)
        p, y = _calibrated(300, rng)
        perm = rng.permutation(300)
        for strategy in ("quantile", "uniform"):
            a = hosmer_lemeshow_binary_test(_two(p), y, strategy=strategy)
            b = hosmer_lemeshow_binary_test(_two(p[perm]), y[perm], strategy=strategy)
            assert a.statistic == pytest.approx(b.statistic, rel=1e-12)
        ties = np.repeat([0.2, 0.5, 0.7], [50, 30, 20])
        res = hosmer_lemeshow_binary_test(_two(ties), (rng.random(100) < ties).astype(int))
        assert res.details["groups"] == 3 and res.details["sizes"].tolist() == [50, 30, 20]
        assert res.details["dof"] == 3
        assert (
            hosmer_lemeshow_binary_test(_two(ties), (rng.random(100) < ties).astype(int), null="chi2").details["dof"]
            == 1
        )

    def test_degenerate_groups(self):
        """Groups whose probabilities are all 0 (or 1) are dropped; an event in one gives +inf and p = 0."""
        p1 = np.r_[np.zeros(10), np.linspace(0.2, 0.8, 30)]
        y = (np.arange(40) % 2 == 0).astype(int)
        y[:10] = 0
        res = hosmer_lemeshow_binary_test(_two(p1), y, n_bins=4)
        assert res.details["groups"] == 3 and res.details["dof"] == 3 and np.isfinite(res.statistic)
        y[3] = 1
        res = hosmer_lemeshow_binary_test(_two(p1), y, n_bins=4)
        assert res.statistic == np.inf and res.pvalue == 0.0 and res.rejected

    def test_calibration_test_methods(self):
        rng = np.random.default_rng(31)
        p, y = _calibrated(400, rng)
        for method, strategy in (("hosmer_lemeshow_c", "quantile"), ("hosmer_lemeshow_h", "uniform")):
            assert method in METHODS
            for null in BINARY_NULLS:
                via = calibration_test(_two(p), y, method=method, n_bins=8, null=null)
                ref = hosmer_lemeshow_binary_test(_two(p), y, n_bins=8, strategy=strategy, null=null)
                assert via.statistic == ref.statistic and via.pvalue == ref.pvalue and via.method == method
        logits = np.log(_two(p))
        via = calibration_test(logits, y, method="hosmer_lemeshow_c", from_logits=True)
        assert via.statistic == pytest.approx(hosmer_lemeshow_binary_test(_two(p), y).statistic, rel=1e-9)
        assert calibration_test(p, y.astype(bool), method="hosmer_lemeshow_h").statistic == pytest.approx(
            hosmer_lemeshow_binary_test(_two(p), y, strategy="uniform").statistic, rel=1e-12
        )
        assert hosmer_lemeshow_binary_test(torch.tensor(_two(p)), torch.tensor(y)).statistic == pytest.approx(
            hosmer_lemeshow_binary_test(_two(p), y).statistic, rel=1e-12
        )

    @pytest.mark.parametrize("strategy", ["quantile", "uniform"])
    def test_type_one_error(self, strategy):
        """400 calibrated data sets of N = 200: χ²(g) (the default) in the 99.9% binomial band of α;
        χ²(g − 2), derived for a model fitted on the data, above it."""
        lo, hi = _band(400)

        def external(p, y):
            return hosmer_lemeshow_binary_test(p, y, strategy=strategy)

        def fitted(p, y):
            return hosmer_lemeshow_binary_test(p, y, strategy=strategy, null="chi2")

        count = _rejections(external, 400, 200, seed=37)
        assert lo <= count <= hi, (count, lo, hi)
        assert _rejections(fitted, 400, 200, seed=37) > hi

    @pytest.mark.parametrize("strategy", ["quantile", "uniform"])
    def test_power(self, strategy):
        rng = np.random.default_rng(41)
        p, y = _calibrated(1000, rng)
        for q in (_scale_logit(p, 2.0), _scale_logit(p, 0.5), p**2):
            assert hosmer_lemeshow_binary_test(_two(q), y, strategy=strategy).rejected

    def test_plot(self):
        rng = np.random.default_rng(43)
        p, y = _calibrated(100, rng)
        ax = hosmer_lemeshow_binary_test(_two(p), y).plot()
        assert ax.get_title().startswith("hosmer_lemeshow_c: p = ") and len(ax.lines) == 3

    def test_errors(self):
        with pytest.raises(ValueError, match="binary"):
            hosmer_lemeshow_binary_test(np.full((20, 3), 1 / 3), np.arange(20) % 3)
        with pytest.raises(ValueError, match="n_bins=10"):
            hosmer_lemeshow_binary_test(_two(np.linspace(0.1, 0.9, 9)), np.arange(9) % 2)
        with pytest.raises(ValueError, match="needs at least 3 groups"):
            hosmer_lemeshow_binary_test(_two(np.repeat([0.3, 0.6], 10)), np.arange(20) % 2, null="chi2")
        with pytest.raises(ValueError, match="needs at least 1 groups"):
            hosmer_lemeshow_binary_test(_two(np.repeat([0.0, 1.0], 10)), np.repeat([0, 1], 10))
        with pytest.raises(ValueError, match="null"):
            hosmer_lemeshow_binary_test(_two([0.2, 0.8, 0.5]), [0, 1, 1], n_bins=3, null="resampling")
        with pytest.raises(ValueError, match="strategy"):
            hosmer_lemeshow_binary_test(_two([0.2, 0.8, 0.5]), [0, 1, 1], n_bins=3, strategy="kmeans")
        with pytest.raises(TypeError, match="unexpected options"):
            calibration_test(_two([0.2, 0.8, 0.5]), [0, 1, 1], method="hosmer_lemeshow_c", grouping="single")


@pytest.mark.slow
@pytest.mark.parametrize("n", [100, 2000])
def test_type_one_error_large(n):
    """2000 calibrated data sets: Spiegelhalter and C / H with χ²(g) in the 99.9% binomial band of α."""
    lo, hi = _band(2000)
    tests = {
        "spiegelhalter": spiegelhalter_test,
        "c": lambda p, y: hosmer_lemeshow_binary_test(p, y),
        "h": lambda p, y: hosmer_lemeshow_binary_test(p, y, strategy="uniform"),
    }
    for name, test in tests.items():
        count = _rejections(test, 2000, n, seed=47)
        assert lo <= count <= hi, (name, n, count, lo, hi)
