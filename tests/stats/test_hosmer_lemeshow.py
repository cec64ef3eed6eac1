"""Tests for credalbook.stats.hosmer_lemeshow (Mortier et al. 2023, Eqs. 3-4; Fagerland et al. 2008).

Hand-computed statistics, an independent loop implementation with equal-frequency bins, batched vs
loop agreement, the resampling p-value formula, the Type I error of each reference on perfectly
calibrated models (binomial band around α) and the power against an over-confident model.
"""

import dataclasses
import importlib

import numpy as np
import pytest
from scipy import stats

from credalbook.stats import hosmer_lemeshow, hosmer_lemeshow_statistic, HosmerLemeshowResult, null_rejection_rate
from credalbook.stats.hosmer_lemeshow import _bin_starts, _binning, _cell_table, _stable_argsort
from credalbook.synthetic import calibrated_predictions, sample_labels

hl_module = importlib.import_module("credalbook.stats.hosmer_lemeshow")  # the function of that name shadows it

# Hand example (K=2, N=5, B=2, bin sizes 3 and 2).
#   per_class, class 0 sorted by p0: {.2 (y=0), .4 (1), .6 (0)} p=.4 o=1/3 ; {.7 (1), .9 (1)} p=.8 o=1
#              class 1 sorted by p1: {.1 (0), .3 (0), .4 (1)} p=.8/3 o=1/3 ; {.6 (0), .8 (1)} p=.7 o=.5
#     HL = 1/90 + 1/20 + 1/60 + 2/35 = 17/126 ; count form (O-E)²/E: 1/30 + 1/10 + 1/20 + 4/35 = 25/84
#   single (class 1 binned in the order of p0): {.8 (1), .6 (0), .4 (1)} p=.6 o=2/3 ; {.3 (0), .1 (0)} p=.2 o=0
#     HL = 1/90 + 1/20 + 1/135 + 1/5 = 29/108 ; count form: 1/30 + 1/10 + 1/45 + 2/5 = 5/9
HAND_P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]])
HAND_Y = np.array([0, 1, 1, 0, 0])


def _ref_hl(probs, labels, n_bins, grouping="per_class"):
    """Loop implementation of Eq. 3 and the count form, bins from np.array_split of the sorted order."""
    n, k = probs.shape
    mean_stat = count_stat = 0.0
    for c in range(k):
        key = probs[:, c] if grouping == "per_class" else probs[:, 0]
        order = np.argsort(key, kind="stable")
        for members in np.array_split(order, n_bins):
            size = len(members)
            o = sum(1.0 for i in members if labels[i] == c) / size
            p = sum(probs[i, c] for i in members) / size
            mean_stat += (o - p) ** 2 / p
            count_stat += (size * o - size * p) ** 2 / (size * p)
    return mean_stat, count_stat


def _sharpen(p, power=3.0):
    s = p**power
    return s / s.sum(axis=-1, keepdims=True)


def _binom_band(n, alpha, level=0.99):
    lo = stats.binom.ppf((1 - level) / 2, n, alpha)
    hi = stats.binom.ppf(1 - (1 - level) / 2, n, alpha)
    return lo, hi


class TestBinStarts:
    def test_main(self):
        assert _bin_starts(10, 5).tolist() == [0, 2, 4, 6, 8]
        assert _bin_starts(7, 3).tolist() == [0, 3, 5]
        for n in range(1, 60):
            for b in range(1, n + 1):
                starts = _bin_starts(n, b)
                sizes = np.diff(np.append(starts, n))
                assert len(sizes) == b and sizes.sum() == n
                assert sizes.max() - sizes.min() <= 1
                assert sizes.min() >= 1

    def test_errors(self):
        # N < B is refused by the public functions before bins are formed
        with pytest.raises(ValueError, match="at least 5 instances"):
            hosmer_lemeshow_statistic(HAND_P[:4], HAND_Y[:4], n_bins=5)


class TestHosmerLemeshowStatistic:
    def test_main(self):
        # docstring example: class 0: .2²/.2 + .2²/.7; class 1: .2²/.3 + .2²/.8
        p = np.array([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7], [0.1, 0.9]])
        expected = 0.04 / 0.2 + 0.04 / 0.7 + 0.04 / 0.3 + 0.04 / 0.8
        assert hosmer_lemeshow_statistic(p, [0, 1, 1, 1], n_bins=2) == pytest.approx(expected, abs=1e-12)
        assert expected == pytest.approx(0.440476, abs=1e-6)
        assert isinstance(hosmer_lemeshow_statistic(p, [0, 1, 1, 1], n_bins=2), float)

    def test_hand_example_unequal_bins(self):
        assert hosmer_lemeshow_statistic(HAND_P, HAND_Y, n_bins=2) == pytest.approx(17 / 126, abs=1e-12)
        assert hosmer_lemeshow_statistic(HAND_P, HAND_Y, n_bins=2, grouping="single") == pytest.approx(
            29 / 108, abs=1e-12
        )
        res = hosmer_lemeshow(HAND_P, HAND_Y, n_bins=2, null="resampling", n_resamples=9, seed=0)
        assert res.statistic == pytest.approx(17 / 126, abs=1e-12)
        assert res.count_statistic == pytest.approx(25 / 84, abs=1e-12)
        single = hosmer_lemeshow(HAND_P, HAND_Y, n_bins=2, grouping="single", n_resamples=9, seed=0)
        assert single.count_statistic == pytest.approx(5 / 9, abs=1e-12)

    def test_one_bin(self):
        # B = 1: per class (mean(y_k) - mean(p_k))² / mean(p_k)
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(3), size=40)
        y = rng.integers(0, 3, size=40)
        o = np.bincount(y, minlength=3) / 40
        m = p.mean(axis=0)
        assert hosmer_lemeshow_statistic(p, y, n_bins=1) == pytest.approx(((o - m) ** 2 / m).sum(), abs=1e-12)

    @pytest.mark.parametrize("grouping", ["per_class", "single"])
    @pytest.mark.parametrize("n, n_bins", [(100, 10), (103, 10), (57, 5), (31, 31)])
    def test_reference_implementation(self, grouping, n, n_bins):
        for seed in range(3):
            rng = np.random.default_rng(seed)
            p = rng.dirichlet(np.ones(4), size=n)
            y = rng.integers(0, 4, size=n)
            ref_mean, ref_count = _ref_hl(p, y, n_bins, grouping)
            assert hosmer_lemeshow_statistic(p, y, n_bins=n_bins, grouping=grouping) == pytest.approx(
                ref_mean, rel=1e-12
            )
            res = hosmer_lemeshow(p, y, n_bins=n_bins, grouping=grouping, null="chi2_external")
            assert res.count_statistic == pytest.approx(ref_count, rel=1e-12)

    def test_count_statistic_is_size_weighted(self):
        # With equal bin sizes n/B the count form is (n/B) times Eq. 3.
        p, y = calibrated_predictions(200, 3, seed=1)
        res = hosmer_lemeshow(p, y, n_bins=10, null="chi2")
        assert res.count_statistic == pytest.approx(20 * res.statistic, rel=1e-12)

    def test_groupings_agree_for_two_classes(self):
        # K = 2: sorting by p1 is sorting by p0 reversed, so with equal-size bins (B | N) the
        # per-class groups of class 1 are the single grouping's groups in reverse order.
        for seed in range(5):
            p, y = calibrated_predictions(100, 2, seed=seed)
            for n_bins in (2, 5, 10):
                a = hosmer_lemeshow_statistic(p, y, n_bins=n_bins, grouping="per_class")
                b = hosmer_lemeshow_statistic(p, y, n_bins=n_bins, grouping="single")
                assert a == pytest.approx(b, rel=1e-12)
        # ...but not when B does not divide N: bin sizes (3, 2) are not reversed with the order
        assert 17 / 126 != pytest.approx(29 / 108)

    def test_groupings_differ_for_more_classes(self):
        p, y = calibrated_predictions(200, 4, seed=2)
        a = hosmer_lemeshow_statistic(p, y, grouping="per_class")
        b = hosmer_lemeshow_statistic(p, y, grouping="single")
        assert abs(a - b) > 1e-3

    def test_invariances(self):
        p, y = calibrated_predictions(150, 4, seed=3)
        base = hosmer_lemeshow_statistic(p, y, n_bins=7)
        perm = np.random.default_rng(4).permutation(150)
        assert hosmer_lemeshow_statistic(p[perm], y[perm], n_bins=7) == pytest.approx(base, rel=1e-12)
        cls = np.array([2, 0, 3, 1])
        assert hosmer_lemeshow_statistic(p[:, cls], np.argsort(cls)[y], n_bins=7) == pytest.approx(base, rel=1e-12)

    @pytest.mark.parametrize("grouping", ["per_class", "single"])
    def test_batched_equals_loop(self, grouping):
        rng = np.random.default_rng(5)
        p = rng.dirichlet(np.ones(3), size=(2, 4, 53))
        y = rng.integers(0, 3, size=(2, 4, 53))
        got = hosmer_lemeshow_statistic(p, y, n_bins=6, grouping=grouping)
        assert got.shape == (2, 4)
        loop = [
            [hosmer_lemeshow_statistic(p[a, b], y[a, b], n_bins=6, grouping=grouping) for b in range(4)]
            for a in range(2)
        ]
        np.testing.assert_allclose(got, loop, rtol=1e-12, atol=0)

    def test_zero_probability_class(self):
        p = np.array([[0.5, 0.5, 0.0], [0.6, 0.4, 0.0], [0.2, 0.8, 0.0], [0.7, 0.3, 0.0]])
        # never observed: the empty class contributes 0, not NaN
        finite = hosmer_lemeshow_statistic(p, [0, 1, 1, 0], n_bins=2)
        assert np.isfinite(finite)
        assert finite == pytest.approx(hosmer_lemeshow_statistic(p[:, :2], [0, 1, 1, 0], n_bins=2), rel=1e-12)
        # observed although predicted impossible: infinite
        assert hosmer_lemeshow_statistic(p, [0, 1, 2, 0], n_bins=2) == np.inf
        res = hosmer_lemeshow(p, [0, 1, 2, 0], n_bins=2, n_resamples=19, seed=0)
        assert res.pvalue == pytest.approx(1 / 20)

    def test_errors(self):
        p, y = calibrated_predictions(20, 3, seed=0)
        with pytest.raises(ValueError, match="grouping"):
            hosmer_lemeshow_statistic(p, y, grouping="pooled")
        for bad in (0, 2.0, True, 10**9):  # 10**9 bins: named as n_bins, not as too few instances in probs
            with pytest.raises(ValueError, match="^n_bins"):
                hosmer_lemeshow_statistic(p, y, n_bins=bad)
        with pytest.raises(ValueError, match=r"probs must contain at least 21 instances.*got N = 20"):
            hosmer_lemeshow_statistic(p, y, n_bins=21)
        with pytest.raises(ValueError, match="probs"):
            hosmer_lemeshow_statistic(p * 2, y)
        with pytest.raises(ValueError, match="labels"):
            hosmer_lemeshow_statistic(p, y + 3)


class TestHosmerLemeshow:
    def test_main(self):
        p, y = calibrated_predictions(500, 3, seed=1)
        res = hosmer_lemeshow(p, y, n_bins=10, seed=0, n_resamples=199)
        assert isinstance(res, HosmerLemeshowResult)
        assert res.null == "resampling" and res.grouping == "per_class" and res.n_bins == 10
        assert res.dof is None
        assert res.statistic == pytest.approx(hosmer_lemeshow_statistic(p, y, n_bins=10), rel=1e-12)
        assert res.null_distribution.shape == (199,)
        assert np.all(res.null_distribution >= 0)
        assert 0 < res.pvalue <= 1
        expected = (1 + np.count_nonzero(res.null_distribution >= res.statistic)) / 200
        assert res.pvalue == expected
        assert res.pvalue * 200 == pytest.approx(round(res.pvalue * 200))  # a multiple of 1/(R+1)

    def test_seed_reproducible(self):
        p, y = calibrated_predictions(300, 4, seed=2)
        a = hosmer_lemeshow(p, y, seed=7, n_resamples=99)
        b = hosmer_lemeshow(p, y, seed=7, n_resamples=99)
        c = hosmer_lemeshow(p, y, seed=8, n_resamples=99)
        assert a.pvalue == b.pvalue
        np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
        assert not np.array_equal(a.null_distribution, c.null_distribution)
        # a Generator is accepted as seed
        d = hosmer_lemeshow(p, y, seed=np.random.default_rng(7), n_resamples=99)
        np.testing.assert_array_equal(a.null_distribution, d.null_distribution)

    def test_null_distribution_is_resampled_statistic(self):
        # The null distribution is Eq. 3 on labels y* ~ Cat(p): its mean matches a direct simulation.
        p, y = calibrated_predictions(200, 3, seed=3)
        res = hosmer_lemeshow(p, y, n_bins=5, n_resamples=400, seed=0)
        rng = np.random.default_rng(1)
        direct = hosmer_lemeshow_statistic(np.broadcast_to(p, (400, 200, 3)), sample_labels(p, rng, size=400), n_bins=5)
        se = np.hypot(res.null_distribution.std(), direct.std()) / np.sqrt(400)
        assert abs(res.null_distribution.mean() - direct.mean()) < 4 * se

    @pytest.mark.parametrize("grouping", ["per_class", "single"])
    def test_null_distribution_equals_direct_resampling(self, grouping, monkeypatch):
        # draw for draw: the cell counts of the fast resampling are the statistics of the labels
        # sample_labels draws from the same generator (to rounding; equal bins, same labels),
        # whatever the chunking of resamples and instances
        p, y = calibrated_predictions(203, 4, seed=6)
        direct = hosmer_lemeshow_statistic(
            np.broadcast_to(p, (60, 203, 4)),
            sample_labels(p, np.random.default_rng(3), size=60),
            n_bins=7,
            grouping=grouping,
        )
        res = hosmer_lemeshow(p, y, n_bins=7, grouping=grouping, n_resamples=60, seed=3, chunk_size=None)
        np.testing.assert_allclose(res.null_distribution, direct, rtol=1e-12)
        monkeypatch.setattr(hl_module, "_RESAMPLE_DRAWS", 203 * 7)  # 7 resamples at a time
        monkeypatch.setattr(hl_module, "_INSTANCE_CHUNK", 50)  # in steps of 50 instances
        chunked = hosmer_lemeshow(p, y, n_bins=7, grouping=grouping, n_resamples=60, seed=3, chunk_size=None)
        np.testing.assert_array_equal(chunked.null_distribution, res.null_distribution)

    def test_previous_values(self):
        # null distribution and p-value of the code before issue #27 (commit 11fc112), same seed, one stream
        p, y = calibrated_predictions(300, 4, seed=2)
        res = hosmer_lemeshow(p, y, seed=7, n_resamples=99, chunk_size=None)
        assert res.pvalue == 0.31
        assert res.null_distribution[:3].tolist() == pytest.approx(
            [0.9442579656001414, 1.034661904221051, 0.6887854745340732], rel=1e-12
        )

    def test_null_distribution_matches_independent_resampling(self):
        # two-sample Kolmogorov-Smirnov test against a direct simulation with another generator
        p, y = calibrated_predictions(150, 3, seed=8)
        res = hosmer_lemeshow(p, y, n_bins=5, n_resamples=1500, seed=0)
        rng = np.random.default_rng(99)
        direct = hosmer_lemeshow_statistic(
            np.broadcast_to(p, (1500, 150, 3)), sample_labels(p, rng, size=1500), n_bins=5
        )
        assert stats.ks_2samp(res.null_distribution, direct).pvalue > 0.001

    def test_type_one_error_at_five_percent(self):
        n_datasets, alpha = 300, 0.05
        rate = null_rejection_rate(
            n_datasets=n_datasets, n_instances=150, n_classes=3, n_bins=5, alpha=alpha, n_resamples=99, seed=1
        )
        lo, hi = _binom_band(n_datasets, alpha)
        assert lo <= rate * n_datasets <= hi

    def test_chi2_references(self):
        p, y = calibrated_predictions(400, 4, seed=4)
        res = hosmer_lemeshow(p, y, n_bins=10, null="chi2")
        assert res.dof == 3 * 8
        assert res.null_distribution is None
        assert res.pvalue == pytest.approx(stats.chi2.sf(res.count_statistic, 24), rel=1e-12)
        ext = hosmer_lemeshow(p, y, n_bins=10, null="chi2_external")
        assert ext.dof == 3 * 10
        assert ext.pvalue == pytest.approx(stats.chi2.sf(ext.count_statistic, 30), rel=1e-12)
        assert ext.count_statistic == res.count_statistic and ext.pvalue > res.pvalue
        # chi2_external has B(K-1) > 0 dof even with two bins
        assert hosmer_lemeshow(p, y, n_bins=2, null="chi2_external").dof == 6

    def test_decision(self):
        res = HosmerLemeshowResult(1.0, 2.0, 0.045, "chi2", "per_class", 10, 8)
        assert res.decision(0.05) is True and res.decision(0.045) is False  # chi2: p < alpha
        assert res.decision(0.04) is False
        assert res.decision() is True
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.pvalue = 0.5

    def test_type_one_error_resampling(self):
        """Exact size: the rejection rate under H0 lies in the 99% binomial band around α."""
        n_datasets, alpha = 200, 0.1
        rate = null_rejection_rate(
            n_datasets=n_datasets,
            n_instances=300,
            n_classes=5,
            n_bins=10,
            alpha=alpha,
            null="resampling",
            n_resamples=99,
            seed=0,
        )
        lo, hi = _binom_band(n_datasets, alpha)
        assert lo <= rate * n_datasets <= hi

    def test_chi2_per_class_over_rejects(self):
        """The paper's χ²_{(K-1)(B-2)} reference with per-class sorting is far too liberal (measured 0.30 at α=0.05)."""
        n_datasets, alpha = 200, 0.05
        rate = null_rejection_rate(
            n_datasets=n_datasets,
            n_instances=1000,
            n_classes=10,
            n_bins=10,
            alpha=alpha,
            null="chi2",
            grouping="per_class",
            seed=0,
        )
        _, hi = _binom_band(n_datasets, alpha)
        assert rate > 0.15
        assert rate * n_datasets > hi

    def test_chi2_external_is_not_liberal(self):
        n_datasets, alpha = 200, 0.05
        rate = null_rejection_rate(
            n_datasets=n_datasets, n_instances=1000, n_classes=10, n_bins=10, alpha=alpha, null="chi2_external", seed=0
        )
        _, hi = _binom_band(n_datasets, alpha)
        assert rate * n_datasets <= hi

    def test_power_against_overconfidence(self):
        p, y = calibrated_predictions(2000, 5, seed=5)  # labels drawn from p
        res = hosmer_lemeshow(_sharpen(p), y, n_bins=10, n_resamples=199, seed=0)
        assert res.pvalue < 0.01
        assert res.decision(0.01)
        # the calibrated model itself is not rejected
        assert hosmer_lemeshow(p, y, n_bins=10, n_resamples=199, seed=0).pvalue > 0.01

    def test_errors(self):
        p, y = calibrated_predictions(30, 3, seed=0)
        with pytest.raises(ValueError, match="null"):
            hosmer_lemeshow(p, y, null="bootstrap")
        with pytest.raises(ValueError, match="grouping"):
            hosmer_lemeshow(p, y, grouping="by_class")
        with pytest.raises(ValueError, match=r"n_bins must be > 2 for the chi2 null.*got 2"):
            hosmer_lemeshow(p, y, n_bins=2, null="chi2")
        for bad in (0, 1.5, True):
            with pytest.raises(ValueError, match="n_resamples"):
                hosmer_lemeshow(p, y, n_resamples=bad)
        with pytest.raises(ValueError, match="n_bins"):
            hosmer_lemeshow(p, y, n_bins=0)
        with pytest.raises(ValueError, match="at least 31 instances"):
            hosmer_lemeshow(p, y, n_bins=31)
        with pytest.raises(ValueError, match=r"shape \(N, K\)"):
            hosmer_lemeshow(np.stack([p, p]), np.stack([y, y]), n_resamples=9)
        for bad in (-1, "a", 1.5, True):
            with pytest.raises(ValueError, match="seed"):
                hosmer_lemeshow(p, y, n_resamples=9, seed=bad)
        with pytest.raises(ValueError, match="^n_bins"):
            hosmer_lemeshow(p, y, n_bins=10**9)
        # n_resamples and seed are checked at the door, also with a chi2 reference that does not use them
        for ref in ("chi2", "chi2_external"):
            with pytest.raises(ValueError, match="n_resamples"):
                hosmer_lemeshow(p, y, n_bins=3, null=ref, n_resamples=0)
            with pytest.raises(ValueError, match="seed"):
                hosmer_lemeshow(p, y, n_bins=3, null=ref, seed=1.5)
        res = hosmer_lemeshow(p, y, n_resamples=9, seed=0)
        for bad in (0, 1, -0.1, 1.5, "x", None, float("nan")):
            with pytest.raises(ValueError, match="alpha"):
                res.decision(bad)


class TestResamplingInternals:
    @pytest.mark.parametrize("grouping", ["per_class", "single"])
    def test_cell_table(self, grouping):
        # cell (bin, class) of every (instance, class), from the loop definition of the bins
        p, _ = calibrated_predictions(23, 3, seed=4)
        cells = _cell_table(p, _binning(p, 4, grouping)).reshape(23, 3)
        for c in range(3):
            key = p[:, c] if grouping == "per_class" else p[:, 0]
            for b, members in enumerate(np.array_split(np.argsort(key, kind="stable"), 4)):
                assert np.all(cells[members, c] == b * 3 + c)

    def test_stable_argsort(self):
        rng = np.random.default_rng(0)
        x = rng.random((3, 50))
        np.testing.assert_array_equal(_stable_argsort(x), np.argsort(x, axis=-1, kind="stable"))
        ties = rng.integers(0, 4, size=(3, 50)).astype(float)  # ties ordered by index
        np.testing.assert_array_equal(_stable_argsort(ties), np.argsort(ties, axis=-1, kind="stable"))


class TestNullRejectionRate:
    def test_main(self):
        r = null_rejection_rate(n_datasets=20, n_instances=200, n_classes=3, n_resamples=49, seed=0)
        assert 0.0 <= r <= 1.0
        assert r * 20 == pytest.approx(round(r * 20))
        assert r == null_rejection_rate(n_datasets=20, n_instances=200, n_classes=3, n_resamples=49, seed=0)

    def test_rate_is_monotone_in_alpha(self):
        kw = dict(n_datasets=50, n_instances=300, n_classes=4, null="chi2", seed=1)
        rates = [null_rejection_rate(alpha=a, **kw) for a in (0.01, 0.1, 0.5, 0.9)]
        assert rates == sorted(rates)
        assert rates[-1] > 0.5

    def test_errors(self):
        kw = dict(n_instances=50, n_classes=3)
        with pytest.raises(ValueError, match="n_datasets"):
            null_rejection_rate(n_datasets=0, **kw)
        for bad in (0.0, 1.0, 2):
            with pytest.raises(ValueError, match="alpha"):
                null_rejection_rate(n_datasets=2, alpha=bad, **kw)
        with pytest.raises(ValueError, match="null"):
            null_rejection_rate(n_datasets=2, null="chi3", **kw)
        with pytest.raises(ValueError, match="n_classes"):
            null_rejection_rate(n_datasets=2, n_instances=50, n_classes=1)
        with pytest.raises(ValueError, match="at least 10 instances"):
            null_rejection_rate(n_datasets=2, n_instances=5, n_classes=3)
        for bad in (0, True, 2.5, 10**9):
            with pytest.raises(ValueError, match="^n_bins"):
                null_rejection_rate(n_datasets=2, n_bins=bad, **kw)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed"):
                null_rejection_rate(n_datasets=2, seed=bad, **kw)


class TestSampleLabels:
    def test_main(self):
        rng = np.random.default_rng(0)
        p = np.array([[0.2, 0.5, 0.3], [0.7, 0.1, 0.2], [0.0, 0.5, 0.5]])
        n_rep = 100_000
        draws = sample_labels(p, rng, size=n_rep)
        assert draws.shape == (n_rep, 3)
        assert np.issubdtype(draws.dtype, np.integer)
        for i in range(3):
            freq = np.bincount(draws[:, i], minlength=3) / n_rep
            se = np.sqrt(p[i] * (1 - p[i]) / n_rep)
            assert np.all(np.abs(freq - p[i]) <= 5 * se + 1e-12), (i, freq)
        assert not np.any(draws[:, 2] == 0)  # zero-probability class never drawn

    def test_degenerate_rows(self):
        rng = np.random.default_rng(1)
        onehot = np.eye(4)
        draws = sample_labels(onehot, rng, size=1000)
        assert np.all(draws == np.arange(4))
        # zero probabilities between and after the mass
        p = np.array([[0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]])
        draws = sample_labels(p, rng, size=5000)
        assert set(np.unique(draws[:, 0])) == {0, 2}
        assert np.all(draws[:, 1] == 3)

    def test_shapes_and_seed(self):
        p = np.random.default_rng(2).dirichlet(np.ones(3), size=(2, 5))
        assert sample_labels(p, np.random.default_rng(0)).shape == (2, 5)
        assert sample_labels(p, np.random.default_rng(0), size=7).shape == (7, 2, 5)
        assert sample_labels(p[0, 0], np.random.default_rng(0)).shape == ()
        np.testing.assert_array_equal(
            sample_labels(p, np.random.default_rng(3), size=4), sample_labels(p, np.random.default_rng(3), size=4)
        )

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            sample_labels(np.array([[0.2, 0.2]]), np.random.default_rng(0))


class TestAuthorsVariant:
    """``variant="authors"``: the statistic of tfmortie/calibration's ``hl``, checked on hand-computed cases."""

    def test_hand_example(self):
        # order: argsort(1 − p0) = [0, 1, 2, 3], reversed [3, 2, 1, 0]; groups {3, 2}, {1, 0}
        # {3, 2}: class 0 (0 − 0.4)²/0.4 = 0.4, class 1 (2 − 1.6)²/1.6 = 0.1
        # {1, 0}: class 0 (1 − 1.4)²/1.4 = 0.114286, class 1 (1 − 0.6)²/0.6 = 0.266667
        p = np.array([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7], [0.1, 0.9]])
        y = [0, 1, 1, 1]
        assert hosmer_lemeshow_statistic(p, y, n_bins=2, variant="authors") == pytest.approx(
            0.4 + 0.1 + 0.16 / 1.4 + 0.16 / 0.6
        )
        # tie-free: counts instead of bin means, i.e. the bin size (2) times the book's single grouping
        assert hosmer_lemeshow_statistic(p, y, n_bins=2, variant="authors") == pytest.approx(
            2 * hosmer_lemeshow_statistic(p, y, n_bins=2, grouping="single")
        )

    def test_ties_reversed(self):
        # p0 = 0.5, 0.5, 0.5, 0.2: ascending 1 − p0 is [0, 1, 2, 3] (stable), reversed [3, 2, 1, 0], so the tied
        # instances 0, 1, 2 come in descending index order and the groups are {3, 2}, {1, 0}:
        # {3, 2}: class 0 (0 − 0.7)²/0.7 = 0.7, class 1 (2 − 1.3)²/1.3 = 0.376923; {1, 0}: (1 − 1)² = 0 twice
        p = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.2, 0.8]])
        y = [0, 1, 1, 1]
        authors = hosmer_lemeshow_statistic(p, y, n_bins=2, variant="authors")
        assert authors == pytest.approx(0.7 + 0.49 / 1.3)
        # a stable ascending sort by p0 (the book's single grouping) forms {3, 0}, {1, 2}: counts 2.197802
        single = hosmer_lemeshow_statistic(p, y, n_bins=2, grouping="single")
        assert 2 * single == pytest.approx(0.09 / 0.7 + 0.09 / 1.3 + 1.0 + 1.0)
        assert authors != pytest.approx(2 * single)

    def test_empty_group_and_zero_expectation(self):
        p = np.array([[0.7, 0.3], [0.4, 0.6]])
        # N = 2 < B = 3: np.array_split leaves the last group empty, 0/0 = NaN, and the statistic is NaN
        assert np.isnan(hosmer_lemeshow_statistic(p, [0, 1], n_bins=3, variant="authors"))
        # a class with probability 0 in a group: 0/0 (NaN) when never observed, ∞ when observed
        q = np.array([[0.5, 0.5, 0.0], [0.4, 0.6, 0.0], [0.3, 0.3, 0.4], [0.2, 0.2, 0.6]])
        assert np.isnan(hosmer_lemeshow_statistic(q, [0, 1, 2, 2], n_bins=2, variant="authors"))
        # (the group {2, 3} holds class 2 with E = 1.0; the group {1, 0} has E = 0 for class 2)
        with np.errstate(all="ignore"):
            assert hosmer_lemeshow_statistic(q[[0, 1, 2, 3]], [2, 1, 2, 2], n_bins=2, variant="authors") == np.inf

    def test_batched_and_errors(self):
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(3), size=(4, 30))
        y = rng.integers(0, 3, size=(4, 30))
        batched = hosmer_lemeshow_statistic(p, y, n_bins=5, variant="authors")
        loop = [hosmer_lemeshow_statistic(p[i], y[i], n_bins=5, variant="authors") for i in range(4)]
        np.testing.assert_allclose(batched, loop)
        with pytest.raises(ValueError, match="variant"):
            hosmer_lemeshow_statistic(p[0], y[0], variant="fagerland")
