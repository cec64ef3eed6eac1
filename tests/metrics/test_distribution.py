"""Tests of the differentiable calibration estimators (Jürgens et al., Sec. 2.2)."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

import credalbook.metrics.kernel as kernel_module
from credalbook._random import draw_labels
from credalbook.metrics import (
    brier_estimator,
    dirichlet_kde_calibration_map,
    kl_calibration_error,
    lp_calibration_error,
    mmd_calibration_error,
    skce,
    skce_estimator,
    skce_ul,
    skce_uq,
)
from credalbook.metrics.distribution import estimator_function
from credalbook.stats.measures import estimator_measure


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _data(rng, n=60, k=3, conc=1.0):
    p = rng.dirichlet(np.full(k, conc), size=n)
    y = draw_labels(p, rng)
    return p, y


def _slow_kde_map(p, y, h):
    """Direct leave-one-out Dirichlet KDE with scipy's Dirichlet density."""
    n, k = p.shape
    out = np.zeros((n, k))
    for i in range(n):
        w = np.array([stats.dirichlet.pdf(p[i], p[j] / h + 1) if j != i else 0.0 for j in range(n)])
        out[i] = (w[:, None] * np.eye(k)[y]).sum(0) / w.sum()
    return out


class TestDirichletKDE:
    def test_main(self, rng):
        p, y = _data(rng, n=25, conc=3.0)
        p = 0.98 * p + 0.02 / 3  # keep scipy's density finite
        fast = dirichlet_kde_calibration_map(p, y, bandwidth=0.2).numpy()
        np.testing.assert_allclose(fast, _slow_kde_map(p, y, 0.2), rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(fast.sum(1), 1.0)

    def test_errors(self):
        with pytest.raises(ValueError, match="bandwidth"):
            dirichlet_kde_calibration_map([[0.5, 0.5], [0.2, 0.8]], [0, 1], bandwidth=0)
        with pytest.raises(ValueError, match="at least 2 instances"):
            dirichlet_kde_calibration_map([[0.5, 0.5]], [0])


class TestLpKL:
    def test_direct(self, rng):
        p, y = _data(rng, n=25, conc=3.0)
        p = 0.98 * p + 0.02 / 3
        ratio = _slow_kde_map(p, y, 0.2)
        assert float(lp_calibration_error(p, y, bandwidth=0.2)) == pytest.approx(
            ((ratio - p) ** 2).sum(1).mean(), rel=1e-8
        )
        kl = np.where(ratio > 0, ratio * np.log(np.where(ratio > 0, ratio, 1) / p), 0).sum(1).mean()
        assert float(kl_calibration_error(p, y, bandwidth=0.2)) == pytest.approx(kl, rel=1e-8)
        l1 = np.abs(ratio - p).sum(1).mean()
        assert float(lp_calibration_error(p, y, bandwidth=0.2, order=1)) == pytest.approx(l1, rel=1e-8)

    def test_calibrated_small_miscalibrated_large(self, rng):
        vals_cal, vals_mis = [], []
        for _ in range(20):
            p, y = _data(rng, n=400, k=3, conc=2.0)
            sharp = p**3 / (p**3).sum(1, keepdims=True)
            vals_cal.append(float(lp_calibration_error(p, y, bandwidth=0.05)))
            vals_mis.append(float(lp_calibration_error(sharp, y, bandwidth=0.05)))
        # asymptotically unbiased: a small positive bias for a calibrated model, far below the miscalibrated one
        assert 0 < np.mean(vals_cal) < 0.3 * np.mean(vals_mis)
        assert min(vals_mis) > max(vals_cal)

    def test_kl_nonnegative_and_zero_for_perfect_map(self):
        p = np.array([[0.7, 0.3]] * 10)
        y = np.array([0] * 7 + [1] * 3)
        assert float(kl_calibration_error(p, y, bandwidth=0.1)) == pytest.approx(
            (3 / 9) * 0 + 0.0, abs=0.02
        )  # leave-one-out frequencies 6/9 or 7/9 ≈ 0.7
        assert float(kl_calibration_error(p, y, bandwidth=0.1)) >= 0

    def test_gradcheck(self, rng):
        p, y = _data(rng, n=12, k=3, conc=3.0)
        logits = torch.tensor(np.log(p), requires_grad=True)
        yt = torch.from_numpy(y)
        for fn in (
            lambda q: lp_calibration_error(q, yt, bandwidth=0.1),
            lambda q: kl_calibration_error(q, yt, bandwidth=0.1),
            lambda q: skce_estimator(q, yt, bandwidth=0.5, estimator="quadratic"),
            lambda q: mmd_calibration_error(q, yt, bandwidth=0.3),
            lambda q: brier_estimator(q, yt),
        ):
            assert torch.autograd.gradcheck(lambda z: fn(torch.softmax(z, -1)), (logits,))

    def test_batched_equals_loop(self, rng):
        p = rng.dirichlet(np.ones(4), size=(3, 2, 30))
        y = draw_labels(p, rng)
        for fn in (lp_calibration_error, kl_calibration_error, skce_estimator, mmd_calibration_error):
            batch = fn(p, y).numpy()
            assert batch.shape == (3, 2)
            loop = np.array([[float(fn(p[a, b], y[a, b])) for b in range(2)] for a in range(3)])
            np.testing.assert_allclose(batch, loop, rtol=1e-10)

    def test_errors(self):
        p = [[0.5, 0.5], [0.2, 0.8]]
        with pytest.raises(ValueError, match="order"):
            lp_calibration_error(p, [0, 1], order=0.5)
        for order in (True, "2", 2j, None, float("nan"), float("inf")):  # no float() of bools and strings
            with pytest.raises(ValueError, match="order"):
                lp_calibration_error(p, [0, 1], order=order)
        with pytest.raises(ValueError, match="probs"):
            lp_calibration_error([[0.5, 0.6], [0.2, 0.8]], [0, 1])
        with pytest.raises(ValueError, match="probs"):
            kl_calibration_error([[np.nan, 1.0], [0.2, 0.8]], [0, 1])
        with pytest.raises(ValueError, match="labels"):
            kl_calibration_error(p, [0, 2])
        with pytest.raises(ValueError, match="labels"):
            kl_calibration_error(p, [0])


class TestKernelEstimators:
    def test_skce_matches_numpy(self, rng):
        p, y = _data(rng, n=41, k=4)
        assert float(skce_estimator(p, y, bandwidth=0.3)) == pytest.approx(
            float(skce_ul(p, y, bandwidth=0.3)), rel=1e-10
        )
        assert float(skce_estimator(p, y, bandwidth=0.3, estimator="quadratic")) == pytest.approx(
            float(skce_uq(p, y, bandwidth=0.3)), rel=1e-10
        )

    def test_skce_block_and_auto(self, rng):
        p, y = _data(rng, n=41, k=4)
        for estimator in ("block", "auto"):
            got = float(skce_estimator(p, y, bandwidth=0.3, estimator=estimator, block_size=10))
            assert got == pytest.approx(float(skce(p, y, bandwidth=0.3, estimator=estimator, block_size=10)), rel=1e-10)
        assert float(skce_estimator(p, y, bandwidth=0.3, estimator="auto")) == pytest.approx(
            float(skce_uq(p, y, bandwidth=0.3)), rel=1e-10
        )
        fn = estimator_function("skce", estimator="block", block_size=10, bandwidth=0.3)
        assert float(fn(torch.from_numpy(p), torch.from_numpy(y))) == pytest.approx(
            float(skce(p, y, bandwidth=0.3, estimator="block", block_size=10)), rel=1e-10
        )

    def test_quadratic_row_blocks_keep_values_and_gradients(self, rng, monkeypatch):
        # large N: the (N, N) kernel matrix in checkpointed row blocks (memory O(N) with gradients)
        p, y = _data(rng, n=50, k=3)
        yt = torch.from_numpy(y)
        results = []
        for limit in (kernel_module._TORCH_GRAM_ELEMS, 50 * 6):
            monkeypatch.setattr(kernel_module, "_TORCH_GRAM_ELEMS", limit)
            t = torch.tensor(p, requires_grad=True)
            value = skce_estimator(t, yt, bandwidth=0.5, estimator="quadratic") + mmd_calibration_error(t, yt)
            value.backward()
            results.append((value.detach(), t.grad))
        torch.testing.assert_close(results[1][0], results[0][0], rtol=1e-12, atol=1e-15)
        torch.testing.assert_close(results[1][1], results[0][1], rtol=1e-10, atol=1e-13)

    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    def test_low_precision_tensors(self, rng, dtype):
        # softmax rows in half precision sum to 1 only within ~K·eps: accepted (dtype-aware
        # tolerance), computed in their dtype, and finite for the tiny default bandwidth 1e-4
        p, y = _data(rng, n=40, k=10)
        t = torch.tensor(p, dtype=dtype)
        for estimator in ("linear", "quadratic"):
            value = skce_estimator(t, y, estimator=estimator)
            assert value.dtype == dtype and torch.isfinite(value)
            assert float(value) == pytest.approx(float(skce_estimator(p, y, estimator=estimator)), abs=0.02)
        value = mmd_calibration_error(t, y)
        assert value.dtype == dtype and torch.isfinite(value)

    def test_mmd_is_scaled_skce_with_gaussian_kernel(self, rng):
        p, y = _data(rng, n=40, k=3)
        sigma, sigma_y = 0.4, 0.8

        def gauss(a, b):
            return np.exp(-((a - b) ** 2).sum(-1) / (2 * sigma**2))

        expected = (1 - math.exp(-1 / sigma_y**2)) * float(skce_uq(p, y, kernel=gauss))
        got = float(mmd_calibration_error(p, y, bandwidth=sigma, label_bandwidth=sigma_y))
        assert got == pytest.approx(expected, rel=1e-10)

    def test_unbiased_under_calibration(self, rng):
        # Monte Carlo: mean over 400 calibrated datasets within 4 standard errors of zero
        p = rng.dirichlet(np.ones(3), size=(400, 100))
        y = draw_labels(p, rng)
        for fn, kw in (
            (skce_estimator, dict(bandwidth=0.5)),
            (skce_estimator, dict(bandwidth=0.5, estimator="quadratic")),
            (mmd_calibration_error, dict(bandwidth=0.3)),
        ):
            vals = fn(p, y, **kw).numpy()
            assert abs(vals.mean()) < 4 * vals.std(ddof=1) / math.sqrt(len(vals))
            sharp = p**4 / (p**4).sum(-1, keepdims=True)
            assert fn(sharp, y, **kw).numpy().mean() > 5 * vals.std(ddof=1) / math.sqrt(len(vals))

    def test_unconditioned_mmd_only_checks_frequencies(self, rng):
        # truth 0.5 everywhere, predictions (0.9, 0.1) or (0.1, 0.9): class frequencies match the mean
        n = 2000
        p = np.where(rng.random(n)[:, None] < 0.5, [0.9, 0.1], [0.1, 0.9])
        y = (rng.random(n) < 0.5).astype(int)
        none = float(mmd_calibration_error(p, y, conditioning="none"))
        cond = float(mmd_calibration_error(p, y, bandwidth=0.1))
        assert abs(none) < 0.005 < cond

    def test_errors(self):
        p = [[0.5, 0.5], [0.2, 0.8]]
        with pytest.raises(ValueError, match="estimator"):
            skce_estimator(p, [0, 1], estimator="cubic")
        with pytest.raises(ValueError, match="conditioning"):
            mmd_calibration_error(p, [0, 1], conditioning="label")
        with pytest.raises(ValueError, match="label_bandwidth"):
            mmd_calibration_error(p, [0, 1], label_bandwidth=-1)
        for bad in (True, 0.0, float("nan"), float("inf"), 1j, "a"):
            with pytest.raises(ValueError, match="bandwidth"):
                skce_estimator(p, [0, 1], bandwidth=bad)
            with pytest.raises(ValueError, match="bandwidth"):
                mmd_calibration_error(p, [0, 1], bandwidth=bad)
        with pytest.raises(ValueError, match="block_size"):
            skce_estimator(p, [0, 1], estimator="block", block_size=3)


class TestEstimatorMeasure:
    def test_main(self, rng):
        p = rng.dirichlet(np.ones(3), size=(5, 50))
        y = draw_labels(p, rng)
        for name in ("brier", "lp", "kl", "skce", "mmd"):
            g = estimator_measure(name)
            fn = estimator_function(name)
            np.testing.assert_allclose(g.func(p, y), fn(torch.from_numpy(p), torch.from_numpy(y)).numpy(), rtol=1e-12)
            assert g(p[0], y[0]) == pytest.approx(float(fn(torch.from_numpy(p[0]), torch.from_numpy(y[0]))))

    def test_chunking(self, rng):
        from credalbook.stats.measures import _numpy_batched

        p = rng.dirichlet(np.ones(3), size=(7, 20))
        y = draw_labels(p, rng)
        fn = estimator_function("lp")
        np.testing.assert_allclose(_numpy_batched(fn, p, y, max_pairs=800), _numpy_batched(fn, p, y), rtol=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="estimator"):
            estimator_measure("ece")
        for name in ("ece", None, 3, ["lp"]):  # the argument is called name
            with pytest.raises(ValueError, match=r"^name must be one of the estimators"):
                estimator_function(name)
            with pytest.raises(ValueError, match=r"^name must be one of the estimators"):
                estimator_measure(name)
        with pytest.raises(ValueError, match="bandwidth"):
            estimator_measure("lp", bandwidth=-0.1)
        with pytest.raises(ValueError, match="bandwidth"):
            estimator_measure("brier", bandwidth=0.1)


@pytest.mark.parametrize(
    "device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]
)
def test_device(device, rng):
    p, y = _data(rng, n=30)
    pt, yt = torch.tensor(p, device=device), torch.tensor(y, device=device)
    for fn in (lp_calibration_error, kl_calibration_error, skce_estimator, mmd_calibration_error, brier_estimator):
        out = fn(pt, yt)
        assert out.device.type == device
        assert float(out) == pytest.approx(float(fn(p, y)), rel=1e-10)
    for estimator in ("quadratic", "block", "auto"):
        out = skce_estimator(pt, yt, estimator=estimator, block_size=10, bandwidth=0.5)
        assert out.device.type == device
        assert float(out) == pytest.approx(
            float(skce_estimator(p, y, estimator=estimator, block_size=10, bandwidth=0.5)), rel=1e-10
        )
