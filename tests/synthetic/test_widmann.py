"""Tests for credalbook.synthetic.widmann: the generative models of Widmann et al. (2019) and the
empirical errors of the SKCE tests on them, against closed forms and the paper's published numbers.

Published numbers: the coordinates of Fig. 2 (``paper/figures/pvalues_comparison.tex``) and the
means of Fig. 1 (``paper/figures/errors_comparison.tex``) of devmotion/CalibrationPaper at commit
a164e8ba0f37ea6cdd8f04a34abe43ed06b87a66 (10^4 data sets of N = 250 each). They are typed here
once, with their source, until the lead places the data file (H6 report, widmann_reported.json).
"""

import math
from functools import partial

import numpy as np
import pytest
from scipy import special, stats

from credalbook.metrics import skce
from credalbook.stats import calibration_test
from credalbook.synthetic import (
    median_tv_distance,
    TVExponentialKernel,
    widmann_model,
    WIDMANN_MODELS,
    widmann_test_errors,
    WidmannModel,
)

#: Fig. 2, empirical test error at alpha = 0.05 (row alpha = 0.05 of the plotted tables).
PUBLISHED_FIG2_AT_005 = {("skce_linear", "M1"): 0.0455, ("skce_linear", "M3"): 0.8141, ("skce_quadratic", "M1"): 0.0347}
#: Fig. 1, mean of 10^4 unbiased quadratic SKCE estimates (median heuristic), and the analytic ECE of M3.
PUBLISHED_SKCE_UQ_MEAN = {"M1": -8.624308735909002e-06, "M2": 0.09655136747590723, "M3": 0.015170498621422451}
PUBLISHED_ECE_M3 = 0.7106418012290426


def clopper_pearson(k, n, level=0.999):
    ci = stats.binomtest(int(k), int(n)).proportion_ci(level, method="exact")
    return ci.low, ci.high


class TestWidmannModel:
    def test_main(self):
        for name, params in WIDMANN_MODELS.items():
            mdl = widmann_model(name)
            assert mdl == WidmannModel(**params) and mdl.name == name
        assert widmann_model("M1").calibrated and not widmann_model("M2").calibrated
        np.testing.assert_array_equal(widmann_model("M2").beta, np.eye(10)[0])
        np.testing.assert_allclose(widmann_model("M3").beta, np.full(10, 0.1))
        p, y = widmann_model("M2").sample(250, n_datasets=4, seed=0)
        assert p.shape == (4, 250, 10) and y.shape == (4, 250) and y.dtype == np.int64
        np.testing.assert_allclose(p.sum(-1), 1.0, atol=1e-12)
        assert y.min() >= 0 and y.max() < 10
        p1, y1 = widmann_model("M1").sample(7, seed=0)
        assert p1.shape == (7, 10) and y1.shape == (7,)

    def test_seeds_reproduce(self):
        mdl = widmann_model("M2")
        a, b, c = (mdl.sample(100, n_datasets=3, seed=s) for s in (5, 5, 6))
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert not np.array_equal(a[0], c[0])
        rng = np.random.default_rng(0)
        assert not np.array_equal(mdl.sample(10, seed=rng)[0], mdl.sample(10, seed=rng)[0])

    def test_label_law_is_the_defined_mixture(self):
        # E[(e_Y - P(Y|g)) * w(g)] = 0 for the model's P(Y|g) = pi*beta + (1 - pi)*g and any w: here w = g, 1.
        # M1: P(Y|g) = g (calibrated). M2: E[e_Y - g] = pi (e_1 - 1/m) = 0.5 (e_1 - 0.1), closed form.
        n = 200_000
        for name in ("M1", "M2", "M3"):
            mdl = widmann_model(name)
            p, y = mdl.sample(n, seed=1)
            resid = np.eye(10)[y] - mdl.conditional_probs(p)
            for w in (np.ones_like(p), p):
                terms = resid * w
                z = terms.mean(0) / (terms.std(0) / math.sqrt(n))
                assert np.abs(z).max() < 5.0, (name, z)
        p, y = widmann_model("M2").sample(n, seed=2)
        dev = (np.eye(10)[y] - p).mean(0)
        expected = 0.5 * (np.eye(10)[0] - 0.1)
        np.testing.assert_allclose(dev, expected, atol=5 * math.sqrt(0.25 / n))
        # M1 is calibrated: P(Y = argmax g | max g in a bin) equals the mean of max g in the bin
        p, y = widmann_model("M1").sample(n, seed=3)
        conf, hit = p.max(1), (y == p.argmax(1))
        for lo, hi in ((0.3, 0.6), (0.6, 0.9), (0.9, 1.0)):
            s = (conf >= lo) & (conf < hi)
            se = math.sqrt(hit[s].var() / s.sum())
            assert abs(hit[s].mean() - conf[s].mean()) < 5 * se

    def test_ece_closed_forms(self):
        # the general formula against the paper's special cases (App. A.2.2) and the published M3 value
        for m, a, pi in ((2, 1.0, 0.25), (10, 0.1, 1.0), (100, 0.1, 0.5)):
            first = widmann_model(n_classes=m, alpha_i=a, pi=pi, only_firstclass=True).ece_tv()
            assert first == pytest.approx(pi * (m - 1) / m, rel=1e-12)
            unif = widmann_model(n_classes=m, alpha_i=a, pi=pi).ece_tv()
            closed = pi / (a * special.beta(a, (m - 1) * a)) * ((m - 1) ** (m - 1) / m**m) ** a
            assert unif == pytest.approx(closed, rel=1e-10)
        assert widmann_model("M3").ece_tv() == pytest.approx(PUBLISHED_ECE_M3, rel=1e-12)
        assert widmann_model("M2").ece_tv() == pytest.approx(0.45, rel=1e-12)
        assert widmann_model("M1").ece_tv() == 0.0
        # Monte Carlo: ECE = pi * E d_TV(beta, g(X))
        n = 100_000
        p, _ = widmann_model("M3").sample(n, seed=4)
        d = 0.5 * np.abs(p - 0.1).sum(1)
        assert abs(d.mean() - PUBLISHED_ECE_M3) < 5 * d.std() / math.sqrt(n)

    def test_mean_tv_distance(self):
        # the Julia closed form (src/kernels.jl) against the paper's sum form (App. A.2.3) and Monte Carlo
        for m, a in ((2, 1.0), (10, 0.1), (10, 1.0)):
            mdl = widmann_model(n_classes=m, alpha_i=a)
            a0 = m * a
            paper = 2 * special.beta(a0, a0) / a0 * m / (special.beta(a, a) * special.beta(a0 - a, a0 - a))
            assert mdl.mean_tv_distance() == pytest.approx(paper, rel=1e-10)
            n = 100_000
            p, _ = mdl.sample(2 * n, seed=5)
            d = 0.5 * np.abs(p[:n] - p[n:]).sum(1)
            assert abs(d.mean() - mdl.mean_tv_distance()) < 5 * d.std() / math.sqrt(n)

    def test_errors(self):
        with pytest.raises(ValueError, match="name"):
            widmann_model("M4")
        with pytest.raises(ValueError, match="pi"):
            widmann_model(pi=1.5)
        with pytest.raises(ValueError, match="alpha_i"):
            widmann_model(alpha_i=0.0)
        with pytest.raises(ValueError, match="n_classes"):
            widmann_model(n_classes=1)
        with pytest.raises(TypeError, match="only_firstclass"):
            widmann_model(only_firstclass="yes")
        with pytest.raises(ValueError, match="n_instances"):
            widmann_model("M1").sample(0)
        with pytest.raises(ValueError, match="seed"):
            widmann_model("M1").sample(5, seed=-1)


class TestKernelAndBandwidth:
    def test_main(self):
        rng = np.random.default_rng(0)
        a, b = rng.dirichlet(np.ones(4), 6), rng.dirichlet(np.ones(4), 5)
        kern = TVExponentialKernel(0.3)
        g = kern.gram(a, b)
        pairs = kern(a[:, None, :], b[None, :, :])
        by_hand = np.exp(-0.5 * np.abs(a[:, None] - b[None]).sum(-1) / 0.3)
        np.testing.assert_allclose(g, by_hand, rtol=1e-14)
        np.testing.assert_allclose(pairs, by_hand, rtol=1e-14)
        # the SKCE of credalbook.metrics with this kernel equals the pair sum by hand
        y = rng.integers(0, 4, 6)
        r = a - np.eye(4)[y]
        h = np.exp(-0.5 * np.abs(a[:, None] - a[None]).sum(-1) / 0.3) * (r @ r.T)
        by_hand_uq = (h.sum() - np.trace(h)) / 30
        assert skce(a, y, kernel=kern, estimator="quadratic") == pytest.approx(by_hand_uq, rel=1e-12)

    def test_median_includes_diagonal(self):
        # full 3x3 matrix: 0, 0, 0, .5, .5, .5, .5, 1, 1 -> 0.5 (pairs only: .5, .5, 1 -> 0.5; N = 4 differs)
        assert median_tv_distance([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]) == 0.5
        p = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.2, 0.8]])
        d = 0.5 * np.abs(p[:, None] - p[None]).sum(-1)
        assert median_tv_distance(p) == pytest.approx(np.median(d))
        assert median_tv_distance(p) != pytest.approx(np.median(d[np.triu_indices(4, 1)]))
        np.testing.assert_allclose(median_tv_distance(np.stack([p, p[::-1]])), [np.median(d)] * 2)
        assert median_tv_distance([[1.0, 0.0]]) == 0.0
        with pytest.raises(ValueError, match="probs"):
            median_tv_distance([[0.5, 0.6]])
        with pytest.raises(ValueError, match="probs"):
            median_tv_distance(np.full((2, 2, 2, 2), 0.5))


class TestPublishedNumbers:
    def test_skce_uq_means_of_fig1(self):
        # mean of the unbiased quadratic SKCE (median heuristic) over R data sets vs the mean over 10^4
        # published in Fig. 1; band: 5 standard errors of the difference (our sample SD for both). With
        # R = 1000 the band separates the paper's TV kernel from the Euclidean Laplacian kernel on M2 (z ~ -6).
        r = 1000
        for name in ("M1", "M2", "M3"):
            probs, labels = widmann_model(name).sample(250, n_datasets=r, seed=7)
            est = np.empty(r)
            for i, (p, y) in enumerate(zip(probs, labels)):  # quadratic SKCE, as in TestKernelAndBandwidth
                res = p - np.eye(10)[y]
                h = TVExponentialKernel(median_tv_distance(p)).gram(p, p) * (res @ res.T)
                est[i] = (h.sum() - np.trace(h)) / (250 * 249)
            se = est.std(ddof=1) * math.sqrt(1 / r + 1 / 10_000)
            assert abs(est.mean() - PUBLISHED_SKCE_UQ_MEAN[name]) < 5 * se, (name, est.mean(), se)

    @pytest.mark.parametrize(
        ("method", "model", "r"),
        [("skce_linear", "M1", 2000), ("skce_linear", "M3", 2000), ("skce_quadratic", "M1", 1000)],
    )
    def test_fig2_test_error_at_005(self, method, model, r):
        # empirical test error at alpha = 0.05 on R data sets; band: Clopper-Pearson 99.9% interval of our
        # count must contain the published value (itself from 10^4 data sets, SE <= 0.004).
        res = widmann_test_errors(
            partial(calibration_test, method=method), model=model, n_datasets=r, alphas=(0.05,), seed=11
        )
        assert res.kind == ("type_I" if model == "M1" else "type_II")
        k = round(res.errors[0] * r)
        lo, hi = clopper_pearson(k, r)
        np.testing.assert_allclose(res.band()[0], [lo, hi])
        assert lo <= PUBLISHED_FIG2_AT_005[(method, model)] <= hi, (res.errors, lo, hi)


class TestWidmannTestErrors:
    def test_main(self):
        free = partial(calibration_test, method="skce_distribution_free", bound=2.0)
        a = widmann_test_errors(free, model="M1", n_datasets=60, alphas=(0.0, 0.5, 1.0), seed=3)
        b = widmann_test_errors(free, model="M1", n_datasets=60, alphas=(0.0, 0.5, 1.0), seed=3)
        np.testing.assert_array_equal(a.p_values, b.p_values)
        assert a.n_datasets == 60 and a.kind == "type_I"
        # at alpha = 1 every test rejects: type I error 1; M2 at alpha = 1: type II error 0
        assert a.errors[-1] == 1.0
        linear = partial(calibration_test, method="skce_linear")
        m2 = widmann_test_errors(linear, model="M2", n_datasets=60, alphas=(1.0,), seed=3)
        assert m2.kind == "type_II" and m2.errors[0] == 0.0
        # the errors are the empirical CDF of the p-values
        np.testing.assert_allclose(a.errors, [(a.p_values <= x).mean() for x in (0.0, 0.5, 1.0)])
        # the "mean" bandwidth gives a fixed kernel; a given kernel overrides the bandwidth
        mean_bw = widmann_test_errors(linear, model="M3", n_datasets=50, bandwidth="mean", seed=3)
        fixed = widmann_test_errors(
            linear,
            model="M3",
            n_datasets=50,
            seed=3,
            bandwidth=None,
            kernel=TVExponentialKernel(widmann_model("M3").mean_tv_distance()),
        )
        median_bw = widmann_test_errors(linear, model="M3", n_datasets=50, seed=3)
        assert not np.allclose(mean_bw.p_values, median_bw.p_values)
        np.testing.assert_allclose(mean_bw.p_values, fixed.p_values)
        # band(ci): the old keyword level still works
        with pytest.warns(FutureWarning, match="'level' was renamed to 'ci'"):
            old = a.band(level=0.9)
        np.testing.assert_array_equal(old, a.band(ci=0.9))

    def test_errors(self):
        linear = partial(calibration_test, method="skce_linear")
        with pytest.raises(TypeError, match="test"):
            widmann_test_errors("skce_linear")
        with pytest.raises(TypeError, match="model"):
            widmann_test_errors(linear, model=3)
        with pytest.raises(ValueError, match="alphas"):
            widmann_test_errors(linear, alphas=(1.5,))
        with pytest.raises(ValueError, match="alphas"):
            widmann_test_errors(linear, alphas="low")
        with pytest.raises(ValueError, match="bandwidth"):
            widmann_test_errors(linear, bandwidth="mode")
        with pytest.raises(ValueError, match="n_datasets"):
            widmann_test_errors(linear, n_datasets=0)
        with pytest.raises(ValueError, match="bandwidth"):
            TVExponentialKernel(0.0)
