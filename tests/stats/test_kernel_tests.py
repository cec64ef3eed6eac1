"""SKCE calibration tests (Widmann et al. 2019): closed forms, O(N) / O(N²) loops, inputs, errors."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from credalbook.metrics import LaplacianKernel, skce, skce_ul, skce_uq, TVKernel
from credalbook.stats import kernel_tests, SKCE_NULLS, skce_test, TestResult
from credalbook.stats.kernel_tests import skce_block_values, skce_bootstrap_null, skce_quadratic_statistic

P4 = np.array([[0.8, 0.2], [0.4, 0.6], [0.3, 0.7], [0.5, 0.5]])
Y4 = np.array([0, 1, 1, 0])
# pair terms of the linear estimator with exp(-TV²/2): r1·r2 = -0.16 at TV 0.4, r3·r4 = -0.3 at TV 0.2
H12, H34 = -0.16 * math.exp(-0.08), -0.3 * math.exp(-0.02)
TV = TVKernel(2.0)


def _data(n, k, seed, temperature=1.0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), size=n)
    y = np.minimum((rng.random(n)[:, None] >= p.cumsum(1)).sum(1), k - 1)
    q = p ** (1 / temperature)
    return q / q.sum(1, keepdims=True), y


def _h_loop(p, y, kernel):
    """H_ij = k(p_i, p_j) r_i·r_j by a double loop."""
    r = p - np.eye(p.shape[1])[y]
    n = len(p)
    return np.array([[float(kernel(p[i], p[j])) * r[i] @ r[j] for j in range(n)] for i in range(n)])


class TestLinear:
    def test_main(self):
        """Hand example: two pairs; mean, standard error, z and p in closed form."""
        res = skce_test(P4, Y4, kernel=TV)
        assert isinstance(res, TestResult) and res.method == "skce_linear"
        mean, se = (H12 + H34) / 2, abs(H12 - H34) / 2  # s(ddof=1)/sqrt(2) of two values
        assert res.statistic == pytest.approx(mean, abs=1e-15)
        assert res.details["stderr"] == pytest.approx(se, abs=1e-15)
        assert res.details["z"] == pytest.approx(mean / se, abs=1e-12)
        assert res.pvalue == pytest.approx(stats.norm.sf(mean / se), abs=1e-12)
        assert res.threshold == pytest.approx(se * stats.norm.isf(0.05), abs=1e-12)
        assert res.null_model.std() == pytest.approx(se) and res.null_model.mean() == 0
        assert res.rejected is False and res.details["n_blocks"] == 2

    def test_against_loop(self):
        """Mean and variance of the pair terms against a direct O(N) loop (N odd: the last instance is dropped)."""
        p, y = _data(201, 4, 0)
        kern = LaplacianKernel(0.7)
        r = p - np.eye(4)[y]
        terms = np.array([float(kern(p[2 * i], p[2 * i + 1])) * r[2 * i] @ r[2 * i + 1] for i in range(100)])
        np.testing.assert_allclose(skce_block_values(p, y, kern, 2), terms, rtol=1e-12, atol=1e-15)
        res = skce_test(p, y, kernel=kern, alpha=0.1)
        assert res.statistic == pytest.approx(terms.mean(), rel=1e-12)
        assert res.statistic == pytest.approx(skce_ul(p, y, kernel=kern), rel=1e-12)  # the one SKCE
        se = terms.std(ddof=1) / 10
        assert res.pvalue == pytest.approx(stats.norm.sf(terms.mean() / se), rel=1e-9)
        assert res.rejected == (res.pvalue <= 0.1) and res.alpha == 0.1

    def test_zero_variance(self):
        """Perfect one-hot predictions: every term is 0, p = 1, never NaN."""
        p = np.eye(3)[[0, 1, 2, 0]]
        res = skce_test(p, [0, 1, 2, 0])
        assert res.pvalue == 1.0 and res.rejected is False and res.null_model is None


class TestBlock:
    @pytest.mark.parametrize("m", [3, 5, 70])
    def test_block_values(self, m):
        """Block U-statistics against loops over the pairs of each block, and their mean against skce(block)."""
        p, y = _data(150, 3, 1)
        kern = TVKernel(2.0)
        values = skce_block_values(p, y, kern, m)
        nb = 150 // m
        assert values.shape == (nb,)
        h = _h_loop(p[: m * 2], y[: m * 2], kern)
        for b in range(2):
            blk = h[b * m : (b + 1) * m, b * m : (b + 1) * m]
            assert values[b] == pytest.approx((blk.sum() - np.trace(blk)) / (m * (m - 1)), rel=1e-10)
        assert values.mean() == pytest.approx(skce(p, y, estimator="block", block_size=m), rel=1e-10)

    def test_main(self):
        p, y = _data(300, 3, 2)
        res = skce_test(p, y, estimator="block", block_size=10, kernel=TV)
        v = skce_block_values(p, y, TVKernel(2.0), 10)
        assert res.method == "skce_block" and res.details["block_size"] == 10 and res.details["n_blocks"] == 30
        assert res.pvalue == pytest.approx(stats.norm.sf(v.mean() / (v.std(ddof=1) / math.sqrt(30))), rel=1e-9)


class TestQuadratic:
    def test_statistic_against_loop(self):
        """SKCE_uq and T = N/(N-1) SKCE_uq - SKCE_b against the O(N²) loop (CalibrationTests.jl's running sums)."""
        p, y = _data(40, 3, 3)
        kern = TVKernel(2.0)
        h = _h_loop(p, y, kern)
        n = 40
        est, t = skce_quadratic_statistic(p, y, kern)
        assert est == pytest.approx((h.sum() - np.trace(h)) / (n * (n - 1)), rel=1e-12)
        assert est == pytest.approx(skce_uq(p, y), rel=1e-12)
        alpha = (2 * n - 1) / (n - 1) ** 2  # estimate_statistic_kernelmatrix: α h_ij off the diagonal, -h_ii on it
        assert t == pytest.approx((alpha * (h.sum() - np.trace(h)) - np.trace(h)) / n**2, rel=1e-12)

    def test_bootstrap_against_resampling_loop(self):
        """Each replicate T* equals the U-statistic of the resample minus (2/N²) Σ h(Z*_i, Z_r) (bootstrap_ccdf)."""
        p, y = _data(25, 3, 4)
        kern = TVKernel(2.0)
        h = _h_loop(p, y, kern)
        r = p - np.eye(3)[y]
        n = 25
        got = kernel_tests._bootstrap_chunk(4, np.random.default_rng(7), p, r, kern, kernel_tests._h_matrix(p, r, kern))
        idx = np.random.default_rng(7).integers(0, n, size=(4, n))
        for b in range(4):
            hs = h[np.ix_(idx[b], idx[b])]
            u = (hs.sum() - np.trace(hs)) / (n * (n - 1))
            assert got[b] == pytest.approx(u - 2 / n**2 * h[idx[b]].sum(), rel=1e-10, abs=1e-15)

    def test_tiles_equal_matrix(self, monkeypatch):
        """The row-tile path (large N) gives the values of the in-memory kernel matrix."""
        p, y = _data(90, 4, 5, temperature=0.7)
        whole = skce_test(p, y, estimator="quadratic", n_resamples=150, seed=3)
        monkeypatch.setattr(kernel_tests, "_H_MAX_ELEMENTS", 0)
        monkeypatch.setattr(kernel_tests, "_TILE_ELEMENTS", 500)
        tiled = skce_test(p, y, estimator="quadratic", n_resamples=150, seed=3)
        assert tiled.statistic == pytest.approx(whole.statistic, rel=1e-12)
        np.testing.assert_allclose(tiled.null_distribution, whole.null_distribution, rtol=1e-10, atol=1e-15)
        assert tiled.pvalue == whole.pvalue

    def test_main(self):
        p, y = _data(200, 3, 6, temperature=0.5)
        res = skce_test(p, y, estimator="quadratic", n_resamples=300, seed=0, kernel=TV, alpha=0.3)
        assert res.method == "skce_quadratic" and res.null_distribution.shape == (300,)
        assert res.pvalue == pytest.approx((1 + (res.null_distribution >= res.statistic).sum()) / 301)
        assert res.threshold == pytest.approx(np.quantile(res.null_distribution, 0.7))
        assert res.rejected == (res.pvalue <= 0.3)
        assert res.details["estimate"] == pytest.approx(skce_uq(p, y), rel=1e-12)
        again = skce_test(p, y, estimator="quadratic", n_resamples=300, seed=0, n_jobs=2, kernel=TV, alpha=0.3)
        np.testing.assert_array_equal(res.null_distribution, again.null_distribution)

    def test_matrix_kernel(self):
        """A user kernel returning Γ = k I as (..., K, K) matrices gives the scalar kernel's numbers."""
        p, y = _data(60, 3, 8)
        tv = TVKernel(2.0)

        def matrix_kernel(a, b):
            return tv(a, b)[..., None, None] * np.eye(3)

        for est, null in [("linear", "asymptotic"), ("quadratic", "bootstrap")]:
            a = skce_test(p, y, estimator=est, null=null, n_resamples=50, seed=1, kernel=tv)
            b = skce_test(p, y, estimator=est, null=null, kernel=matrix_kernel, n_resamples=50, seed=1)
            assert b.statistic == pytest.approx(a.statistic, rel=1e-10)
            assert b.pvalue == pytest.approx(a.pvalue, rel=1e-9)
        for m in (3, 70):
            np.testing.assert_allclose(
                skce_block_values(p, y, matrix_kernel, m), skce_block_values(p, y, tv, m), rtol=1e-10, atol=1e-15
            )


class TestDistributionFree:
    @pytest.mark.parametrize("estimator", ["linear", "quadratic", "block"])
    def test_main(self, estimator):
        """p = exp(-n_eff max(SKCE, 0)² / (2B²)), B = 2, n_eff = ⌊N/m⌋⌊m/2⌋ (Hoeffding)."""
        p, y = _data(101, 3, 9, temperature=0.3)
        res = skce_test(p, y, estimator=estimator, null="distribution_free", block_size=7, kernel=TV)
        n_eff = {"linear": 50, "quadratic": 50, "block": 14 * 3}[estimator]
        est = {
            "linear": skce(p, y, estimator="linear"),
            "quadratic": skce_uq(p, y),
            "block": skce(p, y, estimator="block", block_size=7),
        }[estimator]
        assert res.method == "skce_distribution_free" and res.details["n_effective"] == n_eff
        assert res.statistic == pytest.approx(est, rel=1e-10)
        assert res.pvalue == pytest.approx(math.exp(-n_eff * max(est, 0) ** 2 / 8), rel=1e-10)
        assert res.threshold == pytest.approx(2 * math.sqrt(2 * math.log(20) / n_eff))
        assert res.rejected == (res.statistic >= res.threshold)

    def test_negative_estimate_and_bound(self):
        res = skce_test(P4, Y4, null="distribution_free", kernel=TV)  # estimate < 0: the bound is 1
        assert res.statistic < 0 and res.pvalue == 1.0
        b = skce_test(P4, Y4, null="distribution_free", bound=0.5)
        assert b.details["bound"] == 0.5
        with pytest.raises(ValueError, match="bound must be given"):
            skce_test(P4, Y4, null="distribution_free", kernel=lambda a, c: np.ones(a.shape[:-1]))


class TestInputs:
    def test_torch_and_logits(self):
        p, y = _data(120, 4, 10, temperature=0.6)
        ref = skce_test(p, y)
        for dtype in (torch.float64, torch.float32):
            res = skce_test(torch.tensor(p, dtype=dtype), torch.tensor(y), estimator="linear")
            assert res.statistic == pytest.approx(ref.statistic, rel=1e-5)
        half = skce_test(torch.tensor(p, dtype=torch.float16), torch.tensor(y))
        assert half.statistic == pytest.approx(ref.statistic, rel=0.05, abs=1e-3)
        logits = torch.tensor(np.log(p) + 3.0, dtype=torch.float64)
        from_logits = skce_test(logits, y, from_logits=True)
        assert from_logits.statistic == pytest.approx(ref.statistic, rel=1e-10)

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
    def test_cuda(self):
        p, y = _data(120, 4, 10)
        ref = skce_test(p, y, estimator="quadratic", n_resamples=100, seed=0)
        res = skce_test(
            torch.tensor(p, device="cuda"),
            torch.tensor(y, device="cuda"),
            estimator="quadratic",
            n_resamples=100,
            seed=0,
        )
        assert res.pvalue == ref.pvalue

    def test_errors(self):
        p, y = _data(30, 3, 11)
        with pytest.raises(ValueError, match="estimator"):
            skce_test(p, y, estimator="cubic")
        with pytest.raises(ValueError, match="null"):
            skce_test(p, y, null="permutation")
        with pytest.raises(ValueError, match="estimator='quadratic'"):
            skce_test(p, y, estimator="linear", null="bootstrap")
        with pytest.raises(ValueError, match="degenerate"):
            skce_test(p, y, estimator="quadratic", null="asymptotic")
        with pytest.raises(ValueError, match="at least 4 instances"):
            skce_test(p[:3], y[:3])
        with pytest.raises(ValueError, match="at least 20 instances"):
            skce_test(p[:19], y[:19], estimator="block", block_size=10)
        with pytest.raises(ValueError, match="block_size"):
            skce_test(p, y, estimator="block", block_size=1)
        with pytest.raises(ValueError, match="alpha"):
            skce_test(p, y, alpha=1.5)
        with pytest.raises(ValueError, match="labels"):
            skce_test(p, y[:-1])
        with pytest.raises(ValueError, match="probs must sum to 1"):
            skce_test(p * 0.5, y)
        with pytest.raises(ValueError, match="n_resamples"):
            skce_test(p, y, estimator="quadratic", n_resamples=0)
        with pytest.raises(ValueError, match="n_jobs"):
            skce_test(p, y, estimator="quadratic", n_jobs=0)
        with pytest.raises(ValueError, match="seed"):
            skce_test(p, y, estimator="quadratic", seed=-1)
        with pytest.raises(ValueError, match=r"probs must be finite"):
            skce_test(np.full((10, 3), np.inf), np.zeros(10, int), from_logits=True)
        assert set(SKCE_NULLS) == {"asymptotic", "bootstrap", "distribution_free"}

    def test_bootstrap_null_helper(self):
        p, y = _data(50, 3, 12)
        a = skce_bootstrap_null(p, y, TVKernel(2.0), 120, seed=4)
        b = skce_bootstrap_null(p, y, TVKernel(2.0), 120, seed=4, n_jobs=2)
        assert a.shape == (120,) and np.array_equal(a, b)


def test_default_kernel_is_laplacian_with_median_heuristic():
    """kernel=None: exp(-‖p - q‖/ν) with ν the median distance (Widmann et al. 2019, Sec. 6)."""
    from credalbook.metrics import median_heuristic

    p, y = _data(80, 3, 13, temperature=0.5)
    res = skce_test(p, y)
    ref = skce_test(p, y, kernel=LaplacianKernel(median_heuristic(p)))
    assert res.statistic == ref.statistic and res.pvalue == ref.pvalue
    assert res.details["kernel"] == repr(LaplacianKernel(median_heuristic(p)))
    assert skce_test(p, y, bandwidth=0.3).statistic == pytest.approx(skce_ul(p, y, kernel=LaplacianKernel(0.3)))
