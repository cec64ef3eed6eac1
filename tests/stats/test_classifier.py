"""The one entry point calibration_test: agreement with the tests it calls, inputs, and Monte Carlo validation.

Type I error: on calibrated synthetic data (probs ~ Dir(1_K), labels ~ Cat(probs)) the rejection
rate at α = 0.05 must lie in the central 99.9 % binomial band of Binomial(R, 0.05) / R, per cell of
the grid N ∈ {50, 200, 1000} × K ∈ {2, 5, 10} and pooled over the grid (the distribution-free
test is conservative by construction: only the upper end applies). Power: on over-confident
predictions (probs² renormalised) the consistent tests reject most data sets at N = 1000.
"""

import numpy as np
import pytest
import torch

from credalbook.stats import (
    bootstrap_calibration_test,
    calibration_test,
    hosmer_lemeshow,
    instance_calibration_test,
    METHODS,
    set_calibration_test,
    skce_test,
    TestResult,
)
from tests.stats._calibration_mc import binomial_band, MC_METHODS, rejection_rate, synthetic

#: The methods of binary predictions only (K = 2), tested in tests/stats/test_binary_tests.py.
BINARY_ONLY = ("spiegelhalter", "hosmer_lemeshow_c", "hosmer_lemeshow_h")
GRID = [(n, k) for n in (50, 200, 1000) for k in (2, 5, 10)]


def _data(n=300, k=4, seed=0, temperature=1.0):
    return synthetic(n, k, np.random.default_rng(seed), temperature=temperature)


class TestCalibrationTest:
    @pytest.mark.parametrize("method", METHODS)
    def test_main(self, method):
        p, y = _data(k=2 if method in BINARY_ONLY else 4, temperature=0.5)
        res = calibration_test(p, y, method=method, n_resamples=99, seed=0)
        assert isinstance(res, TestResult) and 0 < res.pvalue <= 1
        # the one decision rule: the statistic beyond the critical value (Alg. 1's quantile rule for resampling tests)
        assert res.rejected == (res.statistic > res.threshold) == res.decision(0.05)
        assert res.summary()["pvalue"] == res.pvalue and res.summary()["method"] == res.method
        assert (res.null_distribution is not None) == (method in ("consistency", "skce_quadratic", "hosmer_lemeshow"))

    def test_agrees_with_the_tests_it_calls(self):
        p, y = _data(seed=1, temperature=0.8)
        a = calibration_test(p, y, n_resamples=99, seed=3, measure="ece_classwise", n_bins=5)
        b = bootstrap_calibration_test(p, y, n_resamples=99, seed=3, measure="ece_classwise", n_bins=5, n_jobs=1)
        assert a.pvalue == b.pvalue and np.array_equal(a.null_distribution, b.null_distribution)
        a = calibration_test(p, y, method="hosmer_lemeshow", n_resamples=99, seed=3, grouping="single")
        b = hosmer_lemeshow(p, y, n_resamples=99, seed=3, grouping="single", n_jobs=1)
        assert a.pvalue == b.pvalue and a.statistic == b.statistic
        a = calibration_test(p, y, method="skce_quadratic", n_resamples=99, seed=3, bandwidth=0.5)
        b = skce_test(p, y, estimator="quadratic", n_resamples=99, seed=3, bandwidth=0.5)
        assert a.pvalue == b.pvalue and a.statistic == b.statistic
        a = calibration_test(p, y, method="skce_block", block_size=6)
        b = skce_test(p, y, estimator="block", block_size=6)
        assert a.pvalue == b.pvalue
        a = calibration_test(p, y, method="skce_distribution_free")
        assert a.details["estimator"] == "quadratic" and a.method == "skce_distribution_free"

    @pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16])
    def test_torch_and_logits(self, dtype):
        """Torch tensors of any float dtype, probabilities or logits (softmax in float64)."""
        p, y = _data(seed=2)
        logits = np.log(p) + 1.7
        for method in ("consistency", "skce_linear", "hosmer_lemeshow"):
            ref = calibration_test(p, y, method=method, n_resamples=49, seed=0)
            res = calibration_test(
                torch.tensor(logits, dtype=torch.float64),
                torch.tensor(y),
                method=method,
                from_logits=True,
                n_resamples=49,
                seed=0,
            )
            assert res.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
            low = calibration_test(torch.tensor(p, dtype=dtype), torch.tensor(y), method=method, n_resamples=49, seed=0)
            tol = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 2e-2}[dtype]
            assert low.statistic == pytest.approx(ref.statistic, rel=tol, abs=tol)

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
    def test_cuda(self):
        for method in METHODS:
            p, y = _data(k=2 if method in BINARY_ONLY else 4, seed=2)
            ref = calibration_test(p, y, method=method, n_resamples=49, seed=0)
            res = calibration_test(
                torch.tensor(p, device="cuda"), torch.tensor(y, device="cuda"), method=method, n_resamples=49, seed=0
            )
            assert res.pvalue == ref.pvalue

    def test_errors(self):
        p, y = _data(n=60)
        with pytest.raises(ValueError, match="method"):
            calibration_test(p, y, method="t-test")
        with pytest.raises(TypeError, match="unexpected options.*block_size"):
            calibration_test(p, y, method="skce_linear", block_size=4)
        with pytest.raises(ValueError, match="n_resamples"):
            calibration_test(p, y, n_resamples=0)
        with pytest.raises(ValueError, match="alpha"):
            calibration_test(p, y, alpha=0)
        with pytest.raises(ValueError, match="n_jobs"):
            calibration_test(p, y, n_jobs=1.5)
        with pytest.raises(ValueError, match="from_logits"):
            calibration_test(p, y, from_logits="yes")
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            calibration_test(p[None], y)
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\)"):
            calibration_test(p, y + 4)
        with pytest.raises(ValueError, match=r"probs must lie in \[0, 1\]"):
            calibration_test(np.log(p), y)  # logits without from_logits=True


class TestSetAndInstanceInputs:
    def test_set_calibration_test(self):
        """Torch (float32) or logits in, a TestResult out, with the numbers of float64 probabilities."""
        rng = np.random.default_rng(3)
        truth = rng.dirichlet(np.ones(3), size=200)
        y = np.minimum((rng.random(200)[:, None] >= truth.cumsum(1)).sum(1), 2)
        ens = np.stack([truth, 0.5 * truth + 0.5 / 3], axis=1)
        ref = set_calibration_test(ens, y, n_resamples=50, seed=0)
        res = set_calibration_test(
            torch.tensor(np.log(ens) - 2.0), torch.tensor(y), from_logits=True, n_resamples=50, seed=0
        )
        assert isinstance(res, TestResult) and res.method == "set" and res.details["M"] == 2
        assert res.pvalue == ref.pvalue and res.statistic == pytest.approx(ref.statistic, rel=1e-9)
        f32 = set_calibration_test(torch.tensor(ens, dtype=torch.float32), y, n_resamples=50, seed=0)
        assert f32.statistic == pytest.approx(ref.statistic, rel=1e-4, abs=1e-6)
        with pytest.raises(ValueError, match=r"ens_probs must have shape \(N, M, K\)"):
            set_calibration_test(ens[:, 0], y, from_logits=True)

    def test_instance_calibration_test(self):
        from credalbook.synthetic.instance_scenarios import instance_scenario

        sc = instance_scenario("binary", "H0-inst", n_datasets=1, n_instances=300, seed=0)
        kw = dict(n_resamples=20, learner_options={"max_epochs": 3}, seed=0)
        ref = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], **kw)
        res = instance_calibration_test(
            torch.tensor(sc.features[0]),
            torch.tensor(np.log(sc.ens_probs[0])),
            torch.tensor(sc.labels[0]),
            from_logits=True,
            **kw,
        )
        assert isinstance(res, TestResult) and res.method == "instance"
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-6)
        par = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], n_jobs=2, **kw)
        one = instance_calibration_test(sc.features[0], sc.ens_probs[0], sc.labels[0], n_jobs=1, **kw)
        np.testing.assert_array_equal(par.null_distribution, one.null_distribution)


# --------------------------------------------------------------------------------------------
# Monte Carlo validation
# --------------------------------------------------------------------------------------------


#: Tests whose null distribution is exact (exchangeable resamples): two-sided bands in every cell.
EXACT = ("consistency", "hosmer_lemeshow")
#: Asymptotic tests: valid (upper band) everywhere, and at N = 1000 close to α (lower band) too.
#: The block test with blocks of 10 and the distribution-free bound are conservative (upper band only).
ASYMPTOTIC = ("skce_linear", "skce_quadratic")


def _check_type_one(method, rates, r, alpha):
    lo, hi = binomial_band(r, alpha)
    assert all(rate <= hi for rate in rates.values()), rates
    plo, phi = binomial_band(r * len(rates), alpha)
    assert np.mean(list(rates.values())) <= phi, rates
    if method in EXACT:
        assert all(rate >= lo for rate in rates.values()), rates
        assert np.mean(list(rates.values())) >= plo, rates
    elif method in ASYMPTOTIC:
        large = [rate for (n, _), rate in rates.items() if n == 1000]
        llo, _ = binomial_band(r * len(large), alpha)
        assert np.mean(large) >= llo, rates


@pytest.mark.parametrize("method", list(MC_METHODS))
def test_type_one_error(method):
    """R = 60 calibrated data sets per cell of the 3 × 3 grid (540 in all), D = 99 resamples, α = 0.05.

    Bands (central 99.9 % of Binomial(R, 0.05)/R): [0, 0.167] per cell and [0.022, 0.083] pooled
    (two-sided for the exact tests, upper for all), [0.006, 0.111] pooled over the N = 1000 cells
    (lower, for the asymptotic tests).
    """
    rates = {(n, k): rejection_rate(method, n, k, n_datasets=60, n_resamples=99, seed=11) for n, k in GRID}
    _check_type_one(method, rates, 60, 0.05)


@pytest.mark.slow
@pytest.mark.parametrize("method", list(MC_METHODS))
def test_type_one_error_full(method):
    """R = 200 per cell (1800 per method), D = 199 (about 2-3 minutes for the six methods on one core).

    99.9 % bands: [0.010, 0.105] per cell, [0.034, 0.068] pooled, [0.023, 0.082] over the N = 1000 cells.
    The note's table (R = 1000 per cell) was made with ``rejection_rate(..., n_datasets=1000,
    n_resamples=199, seed=1)``.
    """
    rates = {(n, k): rejection_rate(method, n, k, n_datasets=200, n_resamples=199, seed=21) for n, k in GRID}
    _check_type_one(method, rates, 200, 0.05)


@pytest.mark.parametrize(
    "method,n,min_power",
    [
        ("consistency", 1000, 0.9),
        ("skce_linear", 5000, 0.2),
        ("skce_block", 1000, 0.25),
        ("skce_quadratic", 1000, 0.9),
        ("hosmer_lemeshow", 1000, 0.9),
    ],
)
def test_power(method, n, min_power):
    """Over-confident predictions (probs² renormalised), K = 5: rejection rate of 30 data sets ≥ min_power.

    Measured (seed 12): consistency, quadratic SKCE and HL reject all 30 at N = 1000; the block test
    12 of 30; the linear test 2 of 30 at N = 1000 and 10 of 30 at N = 5000 (its known low power).
    """
    rate = rejection_rate(method, n, 5, n_datasets=30, n_resamples=99, temperature=0.5, seed=12)
    assert rate >= min_power


# --------------------------------------------------------------------------------------------
# the O(N) consistency null of the top-label ECE (calibration_test(method="consistency", measure="ece_confidence"))
# --------------------------------------------------------------------------------------------


def _exact_top_label_null(conf, n_bins):
    """Exact distribution {ECE value: probability} of the top-label ECE of one consistency replicate.

    Enumerates every resample (N^N index tuples, equally likely) and every hit pattern (hit i with
    probability conf[idx_i]); bins of the confidences are equal-width.
    """
    from itertools import product

    n = len(conf)
    bins = np.minimum((np.asarray(conf) * n_bins).astype(int), n_bins - 1)
    dist = {}
    for idx in product(range(n), repeat=n):
        for hits in product((0, 1), repeat=n):
            prob = np.prod([conf[i] if h else 1 - conf[i] for i, h in zip(idx, hits)]) / n**n
            gap = np.zeros(n_bins)
            for i, h in zip(idx, hits):
                gap[bins[i]] += h - conf[i]
            key = round(float(np.abs(gap).sum() / n), 9)
            dist[key] = dist.get(key, 0.0) + prob
    return dist


class TestFastTopLabelNull:
    def test_same_null_as_generic(self):
        """N = 2000, K = 4, R = 2000 null samples from both routes: two-sample KS p > 0.001 for three seeds,
        the same statistic, and the same p-value up to Monte Carlo error (|Δp| < 4 SE of one p-value)."""
        from scipy import stats

        for seed in range(3):
            p, y = _data(n=2000, k=4, seed=seed, temperature=0.9 if seed == 2 else 1.0)
            fast = calibration_test(p, y, n_resamples=2000, seed=seed)
            generic = bootstrap_calibration_test(p, y, n_resamples=2000, seed=seed)
            assert fast.details["null"] == "top-label hits" and "null" not in generic.details
            assert fast.statistic == generic.statistic and fast.measure == generic.measure
            assert stats.ks_2samp(fast.null_distribution, generic.null_distribution).pvalue > 1e-3
            se = np.sqrt(generic.pvalue * (1 - generic.pvalue) / 2000) + 1e-3
            assert abs(fast.pvalue - generic.pvalue) < 4 * np.sqrt(2) * se
        # permutation resampling too
        p, y = _data(n=500, k=3, seed=5)
        fast = calibration_test(p, y, n_resamples=2000, seed=1, resample="permutation")
        generic = bootstrap_calibration_test(p, y, n_resamples=2000, seed=1, resample="permutation")
        assert fast.details["resample"] == "permutation"
        assert stats.ks_2samp(fast.null_distribution, generic.null_distribution).pvalue > 1e-3

    def test_closed_form(self):
        """Three instances (confidences 0.9, 0.4, 0.45; bins 9, 4, 4 of 10): the exact distribution of
        one replicate's ECE (27 resamples × 8 hit patterns) against 20 000 null samples, chi-square
        goodness of fit p > 0.001, and the exact mean within 4 standard errors."""
        from scipy import stats

        p = np.array([[0.9, 0.05, 0.05], [0.4, 0.3, 0.3], [0.3, 0.45, 0.25]])
        dist = _exact_top_label_null(p.max(1), 10)
        null = calibration_test(p, [0, 1, 2], n_resamples=20_000, seed=3).null_distribution
        keys = np.array(sorted(dist))
        probs = np.array([dist[k] for k in keys])
        assert probs.sum() == pytest.approx(1.0, abs=1e-12)
        pos = np.searchsorted(keys, np.round(null, 9))
        assert np.all(keys[np.minimum(pos, len(keys) - 1)] == np.round(null, 9))  # only values of the support
        observed = np.bincount(pos, minlength=len(keys))
        assert stats.chisquare(observed, probs * null.size).pvalue > 1e-3
        mean = (keys * probs).sum()
        sd = np.sqrt(((keys - mean) ** 2 * probs).sum())
        assert abs(null.mean() - mean) < 4 * sd / np.sqrt(null.size)

    def test_degenerate(self):
        """One-hot predictions always hit: every null value is 0; correct labels give ECE 0 and p = 1,
        one wrong label out of 4 gives ECE 1/4 and p = 1/(R + 1)."""
        p = np.eye(3)[[0, 1, 2, 1]]
        res = calibration_test(p, [0, 1, 2, 1], n_resamples=99, seed=0)
        assert np.all(res.null_distribution == 0) and res.statistic == 0 and res.pvalue == 1.0
        res = calibration_test(p, [0, 1, 2, 0], n_resamples=99, seed=0)
        assert res.statistic == 0.25 and res.pvalue == 0.01 and res.rejected

    def test_seeds_and_n_jobs(self):
        from credalbook.stats.bootstrap import NULL_CHUNK

        p, y = _data(n=400, k=5, seed=4)
        r = 2 * NULL_CHUNK + 7
        a, b = calibration_test(p, y, n_resamples=r, seed=11), calibration_test(p, y, n_resamples=r, seed=11)
        np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
        assert not np.array_equal(a.null_distribution, calibration_test(p, y, n_resamples=r, seed=12).null_distribution)
        one = calibration_test(p, y, n_resamples=r, seed=11, n_jobs=1)
        two = calibration_test(p, y, n_resamples=r, seed=11, n_jobs=2)
        np.testing.assert_array_equal(one.null_distribution, two.null_distribution)
        assert one.pvalue == two.pvalue and one.null_distribution.shape == (r,)
        np.testing.assert_array_equal(one.null_distribution, a.null_distribution)  # None runs the chunks as 1

    def test_blocks_do_not_change_values(self, monkeypatch):
        """Replicates drawn in blocks of one, or many, give the same values: the draws of a block are
        (indices, uniforms) of its replicates, and a block of one replicate is one of each."""
        from credalbook.stats import bootstrap

        p, y = _data(n=300, k=3, seed=6)
        monkeypatch.setattr(bootstrap, "TOP_LABEL_BLOCK", 1)
        single = bootstrap.top_label_consistency_test(
            p, y, n_bins=10, n_resamples=20, alpha=0.05, seed=2, chunk_size=None
        ).null_distribution  # one stream
        rng = np.random.default_rng(2)
        conf = p.max(1)
        bins = np.minimum((conf * 10).astype(int), 9)
        expected = []
        for _ in range(20):  # a plain loop over replicates
            idx = rng.integers(0, 300, 300)
            hit = rng.random(300) < conf[idx]
            expected.append(np.abs(np.bincount(bins[idx], weights=hit - conf[idx], minlength=10)).sum() / 300)
        np.testing.assert_allclose(single, expected, rtol=1e-12, atol=1e-15)

    def test_fast_null_false_and_other_measures(self):
        """fast_null=False, or any other measure, is bootstrap_calibration_test (its chunked stream)."""
        p, y = _data(n=200, k=3, seed=7)
        ref = bootstrap_calibration_test(p, y, n_resamples=60, seed=8, n_jobs=1)
        res = calibration_test(p, y, n_resamples=60, seed=8, fast_null=False)
        np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
        assert res.pvalue == ref.pvalue
        from credalbook.stats import calibration_measure

        res = calibration_test(p, y, n_resamples=60, seed=8, measure=calibration_measure("ece_confidence"))
        np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
        with pytest.raises(ValueError, match="fast_null"):
            calibration_test(p, y, fast_null="yes")
        with pytest.raises(ValueError, match="resample"):
            calibration_test(p, y, resample="jackknife")
        with pytest.raises(ValueError, match="rule"):
            calibration_test(p, y, rule="two-sided")
        with pytest.raises(ValueError, match="n_bins"):
            calibration_test(p, y, n_bins=0)

    def test_type_one_error_large_n(self):
        """H0 at N = 5000, K = 10 (out of reach of the generic route in a unit test): 300 calibrated data
        sets, D = 99, α = 0.05 (p ≤ α when t exceeds 95 of the 99 null values: probability 5/100 for
        exchangeable values); the rate must lie in the central 99.9 % binomial band of
        Binomial(300, 0.05)/300, [0.013, 0.097]. The grid of
        :func:`test_type_one_error` (N ≤ 1000) runs this route too."""
        lo, hi = binomial_band(300, 0.05)
        rng = np.random.default_rng(31)
        rejected = 0
        for i in range(300):
            p, y = synthetic(5000, 10, rng)
            rejected += calibration_test(p, y, n_resamples=99, seed=[31, i]).pvalue <= 0.05
        assert lo <= rejected / 300 <= hi, (rejected, lo, hi)


class TestOneSeedOneNullSample:
    """One seed -> one null sample, whatever the entry point and n_jobs (joblib's meaning everywhere)."""

    def test_consistency_entry_points(self):
        from credalbook.stats import NULL_CHUNK, set_calibration_test

        p, y = _data(n=120, k=3, seed=9)
        r = 2 * NULL_CHUNK + 7
        kw = dict(measure="ece_classwise", n_bins=5, n_resamples=r, seed=13)
        ref = bootstrap_calibration_test(p, y, **kw)
        runs = [bootstrap_calibration_test(p, y, n_jobs=j, **kw) for j in (None, 1, 2)]
        runs += [set_calibration_test(p[:, None], y, n_jobs=j, **kw) for j in (None, 1, 2)]
        runs += [calibration_test(p, y, method="consistency", n_jobs=j, **kw) for j in (None, 1, 2)]
        for res in runs:
            np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
            assert (res.statistic, res.pvalue, res.rejected) == (ref.statistic, ref.pvalue, ref.rejected)

    def test_hosmer_lemeshow_entry_points(self):
        p, y = _data(n=150, k=3, seed=10)
        ref = hosmer_lemeshow(p, y, n_resamples=120, seed=3)
        for res in [hosmer_lemeshow(p, y, n_resamples=120, seed=3, n_jobs=j) for j in (None, 1, 2)] + [
            calibration_test(p, y, method="hosmer_lemeshow", n_resamples=120, seed=3, n_jobs=j) for j in (None, 1, 2)
        ]:
            np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
            assert res.pvalue == ref.pvalue

    def test_one_stream(self):
        """chunk_size=None: the one random stream of releases before 0.6, the same for every entry point
        and n_jobs; it is set_null_distribution's stream for one member."""
        from credalbook.stats import set_calibration_test, set_null_distribution

        p, y = _data(n=100, k=3, seed=11)
        kw = dict(n_resamples=60, seed=4, chunk_size=None)
        ref = set_null_distribution(p[:, None], n_resamples=60, seed=4)
        for res in (
            [bootstrap_calibration_test(p, y, n_jobs=j, **kw) for j in (None, 2)]
            + [set_calibration_test(p[:, None], y, n_jobs=j, **kw) for j in (None, 2)]
            + [calibration_test(p, y, fast_null=False, n_jobs=j, **kw) for j in (None, 2)]
        ):
            np.testing.assert_array_equal(res.null_distribution, ref)
        a = hosmer_lemeshow(p, y, n_resamples=60, seed=4, chunk_size=None)
        b = calibration_test(p, y, method="hosmer_lemeshow", n_resamples=60, seed=4, chunk_size=None, n_jobs=2)
        np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
        with pytest.raises(ValueError, match="chunk_size"):
            calibration_test(p, y, chunk_size=0)


class TestRenamedKeywords:
    """The old keywords still work for one minor version, with a FutureWarning and the same result."""

    def test_n_bootstrap(self):
        from credalbook.stats import exact_size, set_calibration_test, set_null_distribution

        p, y = _data(n=80, k=3, seed=12)
        calls = [
            (bootstrap_calibration_test, (p, y), dict(seed=0)),
            (set_calibration_test, (p[:, None], y), dict(seed=0)),
            (set_null_distribution, (p[:, None],), dict(seed=0)),
            (exact_size, (0.05,), {}),
        ]
        for func, args, kw in calls:
            new = func(*args, n_resamples=30, **kw)
            with pytest.warns(FutureWarning, match="n_resamples"):
                old = func(*args, n_bootstrap=30, **kw)
            if isinstance(new, TestResult):
                np.testing.assert_array_equal(old.null_distribution, new.null_distribution)
                assert old.pvalue == new.pvalue
            else:
                np.testing.assert_array_equal(old, new)

    def test_reference(self):
        from credalbook.stats import null_rejection_rate

        p, y = _data(n=80, k=3, seed=13)
        new = hosmer_lemeshow(p, y, n_bins=5, null="chi2")
        with pytest.warns(FutureWarning, match="null"):
            old = hosmer_lemeshow(p, y, n_bins=5, reference="chi2")
        assert old == new
        with pytest.warns(FutureWarning, match="null"):
            old = calibration_test(p, y, method="hosmer_lemeshow", n_bins=5, reference="chi2")
        assert old.pvalue == calibration_test(p, y, method="hosmer_lemeshow", n_bins=5, null="chi2").pvalue
        with pytest.raises(TypeError, match="both"):
            calibration_test(p, y, method="hosmer_lemeshow", reference="chi2", null="chi2")
        kw = dict(n_datasets=2, n_instances=60, n_classes=3, n_bins=5, n_resamples=19, seed=0)
        with pytest.warns(FutureWarning, match="null"):
            assert null_rejection_rate(reference="chi2", **kw) == null_rejection_rate(null="chi2", **kw)

    def test_engine_rng(self):
        from credalbook.stats.null_distribution import null_statistics

        ens = np.random.default_rng(0).dirichlet(np.ones(3), size=(30, 2))
        from credalbook.stats import calibration_measure

        g = calibration_measure("ece_confidence")
        new = null_statistics(ens, g.func, 10, "uniform", "bootstrap", np.random.default_rng(1))
        with pytest.warns(FutureWarning, match="renamed"):
            old = null_statistics(
                ens, g.func, n_bootstrap=10, weight_prior="uniform", resample="bootstrap", rng=np.random.default_rng(1)
            )
        np.testing.assert_array_equal(old, new)
