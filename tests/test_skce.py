"""Tests for credalbook.metrics.kernel (Widmann et al. 2019; Mortier et al. 2023, Eqs. 7-8).

Direct double loops against the vectorised estimators, scalar vs matrix-valued kernels, and the
unbiasedness of both estimators for a calibrated model by Monte Carlo (mean within a few standard
errors of 0), against a clearly positive mean for an over-confident model.
"""

import numpy as np
import pytest

from credalbook.metrics import skce_ul, skce_uq, tv_kernel
from credalbook.synthetic import calibrated_predictions, sample_labels


def _loop_uq(p, y, h=2.0):
    n, k = p.shape
    r = p - np.eye(k)[y]
    total = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            tv = 0.5 * np.abs(p[i] - p[j]).sum()
            total += np.exp(-tv**2 / h) * r[i] @ r[j]
    return total / (n * (n - 1) / 2)


def _loop_ul(p, y, h=2.0):
    n, k = p.shape
    r = p - np.eye(k)[y]
    terms = [np.exp(-(0.5 * np.abs(p[2 * i] - p[2 * i + 1]).sum()) ** 2 / h) * r[2 * i] @ r[2 * i + 1]
             for i in range(n // 2)]
    return np.mean(terms)


class TestTvKernel:
    def test_main(self):
        p, q = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])
        assert tv_kernel(p, q) == pytest.approx(np.exp(-0.25 / 2))
        assert tv_kernel(p, q, bandwidth=1.0) == pytest.approx(np.exp(-0.25))
        assert tv_kernel(p, p) == 1.0

    def test_errors(self):
        with pytest.raises(ValueError, match="bandwidth"):
            tv_kernel([1.0, 0.0], [0.0, 1.0], bandwidth=0)


class TestSkceUq:
    def test_main(self):
        rng = np.random.default_rng(1)
        p = rng.dirichlet(np.ones(4), size=37)
        y = rng.integers(0, 4, size=37)
        assert skce_uq(p, y) == pytest.approx(_loop_uq(p, y), rel=1e-12)
        assert skce_uq(p, y, bandwidth=0.3) == pytest.approx(_loop_uq(p, y, 0.3), rel=1e-12)

    def test_matrix_kernel_equals_scalar_times_identity(self):
        rng = np.random.default_rng(2)
        p = rng.dirichlet(np.ones(3), size=20)
        y = rng.integers(0, 3, size=20)

        def matrix_kernel(a, b):
            return tv_kernel(a, b)[..., None, None] * np.eye(3)

        assert skce_uq(p, y, kernel=matrix_kernel) == pytest.approx(skce_uq(p, y), rel=1e-12)
        assert skce_ul(p, y, kernel=matrix_kernel) == pytest.approx(skce_ul(p, y), rel=1e-12)

    def test_batched(self):
        rng = np.random.default_rng(3)
        p = rng.dirichlet(np.ones(3), size=(5, 30))
        y = sample_labels(p, rng)
        np.testing.assert_allclose(skce_uq(p, y), [_loop_uq(p[i], y[i]) for i in range(5)], rtol=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="at least 2 instances"):
            skce_uq([[0.5, 0.5]], [0])
        with pytest.raises(ValueError, match="kernel must return shape"):
            skce_uq([[0.5, 0.5], [0.2, 0.8]], [0, 1], kernel=lambda a, b: np.ones(7))
        with pytest.raises(ValueError, match="kernel must be a callable"):
            skce_ul([[0.5, 0.5], [0.2, 0.8]], [0, 1], kernel=3)
        with pytest.raises(ValueError, match="labels must lie in"):
            skce_ul([[0.5, 0.5], [0.2, 0.8]], [0, 2])


class TestSkceUl:
    def test_main(self):
        rng = np.random.default_rng(4)
        p = rng.dirichlet(np.ones(5), size=41)  # odd N: the last instance is ignored
        y = rng.integers(0, 5, size=41)
        assert skce_ul(p, y) == pytest.approx(_loop_ul(p, y), rel=1e-12)

    @pytest.mark.parametrize("estimator", [skce_ul, skce_uq])
    def test_unbiased_for_calibrated_model(self, estimator):
        # Labels drawn from the predictions: E[SKCE] = 0; each estimate is a mean of terms with
        # zero expectation, so the Monte-Carlo mean must be within 4 standard errors of 0.
        probs, _ = calibrated_predictions(60, 4, seed=0)
        rng = np.random.default_rng(5)
        labels = sample_labels(probs, rng, size=4000)
        values = estimator(np.broadcast_to(probs, (4000, 60, 4)), labels)
        se = values.std(ddof=1) / np.sqrt(len(values))
        assert abs(values.mean()) < 4 * se

    def test_positive_for_miscalibrated_model_and_estimators_agree(self):
        # An over-confident model, predictions and labels redrawn in every replicate: both
        # unbiased estimators have the same positive expectation, the population SKCE.
        rng = np.random.default_rng(6)
        probs = rng.dirichlet(np.ones(4), size=(4000, 100))
        labels = sample_labels(probs, rng)
        sharp = probs**4 / (probs**4).sum(axis=-1, keepdims=True)
        ul, uq = skce_ul(sharp, labels), skce_uq(sharp[:800], labels[:800])
        se_ul = ul.std(ddof=1) / np.sqrt(len(ul))
        se_uq = uq.std(ddof=1) / np.sqrt(len(uq))
        assert uq.mean() > 10 * se_uq
        assert ul.mean() > 4 * se_ul
        assert abs(ul.mean() - uq.mean()) < 4 * np.hypot(se_ul, se_uq)
