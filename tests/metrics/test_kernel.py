"""Tests for credalbook.metrics.kernel (Widmann et al. 2019; Mortier et al. 2023, Eqs. 7-8).

Direct double loops against the vectorised estimators, scalar vs matrix-valued kernels, and the
unbiasedness of both estimators for a calibrated model by Monte Carlo (mean within a few standard
errors of 0), against a clearly positive mean for an over-confident model.
"""

import math

import numpy as np
import pytest
import torch

import credalbook.metrics.kernel as kernel_module
from credalbook.metrics import (
    GaussianKernel,
    LaplacianKernel,
    TVKernel,
    as_kernel,
    gaussian_kernel,
    laplacian_kernel,
    median_heuristic,
    skce,
    skce_batched,
    skce_estimator,
    skce_laplacian,
    skce_ul,
    skce_uq,
    tv_kernel,
)
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


# ----------------------------------------------------------------------------------------------
# One SKCE: kernels, brute force, the torch path
# ----------------------------------------------------------------------------------------------
def _k_tv(a, b, h):
    return math.exp(-(0.5 * sum(abs(x - y) for x, y in zip(a, b))) ** 2 / h)


def _k_laplace(a, b, nu):
    return math.exp(-math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b))) / nu)


def _k_gauss(a, b, sigma):
    return math.exp(-sum((x - y) ** 2 for x, y in zip(a, b)) / (2 * sigma**2))


KERNELS = [(TVKernel(0.7), _k_tv, 0.7), (LaplacianKernel(0.4), _k_laplace, 0.4), (GaussianKernel(0.3), _k_gauss, 0.3)]
KERNEL_IDS = ["tv", "laplacian", "gaussian"]


def _brute(p, t, k, bw, estimator, matrix=None):
    """Explicit double loop with Python floats; ``t`` one-hot or target rows; Γ = k·matrix."""
    n, c = p.shape
    r = (p - t).tolist()
    m = np.eye(c) if matrix is None else matrix

    def term(i, j):
        return k(p[i], p[j], bw) * sum(r[i][a] * m[a, b] * r[j][b] for a in range(c) for b in range(c))

    if estimator == "linear":
        terms = [term(2 * i, 2 * i + 1) for i in range(n // 2)]
        return sum(terms) / len(terms)
    return sum(term(i, j) for i in range(n) for j in range(i + 1, n)) / (n * (n - 1) / 2)


def _case(seed, n=23, k=4):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, 0.7), size=n)
    return p, rng.integers(0, k, size=n)


class TestKernels:
    @pytest.mark.parametrize("kern,ref,bw", KERNELS, ids=KERNEL_IDS)
    def test_main(self, kern, ref, bw):
        a, b = _case(0, n=5)[0], _case(1, n=7)[0]
        expected = np.array([[ref(x, y, bw) for y in b] for x in a])
        np.testing.assert_allclose(kern(a[:, None, :], b[None, :, :]), expected, rtol=1e-13)
        np.testing.assert_allclose(kern.gram(a, b), expected, rtol=1e-13)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        np.testing.assert_allclose(kern.torch_gram(ta[None], tb[None])[0].numpy(), expected, rtol=1e-13)
        np.testing.assert_allclose(kern.torch_pairs(ta, tb[:5]).numpy(), np.diag(expected), rtol=1e-13)
        np.testing.assert_allclose(np.diag(kern.gram(a, a)), 1.0)  # k(p, p) = 1

    def test_functions(self):
        p, q = [0.8, 0.2], [0.4, 0.6]
        assert laplacian_kernel(p, q, bandwidth=1.0) == pytest.approx(math.exp(-0.4 * math.sqrt(2)), rel=1e-14)
        assert gaussian_kernel(p, q, bandwidth=2.0) == pytest.approx(math.exp(-0.32 / 8), rel=1e-14)
        assert tv_kernel(p, q, bandwidth=0.5) == TVKernel(0.5)(np.array(p), np.array(q))
        assert as_kernel(None, 0.5) == TVKernel(0.5)
        kern = LaplacianKernel(1.0)
        assert as_kernel(kern) is kern

    def test_errors(self):
        with pytest.raises(ValueError, match="bandwidth"):
            LaplacianKernel(-1.0)
        with pytest.raises(ValueError, match="bandwidth"):
            GaussianKernel("wide")
        with pytest.raises(TypeError):
            LaplacianKernel()  # no default bandwidth
        with pytest.raises(ValueError, match="kernel must be a callable"):
            as_kernel("tv")


class TestSkce:
    @pytest.mark.parametrize("estimator", ["quadratic", "linear"])
    @pytest.mark.parametrize("kern,ref,bw", KERNELS, ids=KERNEL_IDS)
    def test_brute_force(self, kern, ref, bw, estimator):
        p, y = _case(2)  # odd N: the linear estimator ignores the last instance
        expected = _brute(p, np.eye(4)[y], ref, bw, estimator)
        assert skce(p, y, kernel=kern, estimator=estimator) == pytest.approx(expected, rel=1e-12, abs=1e-15)
        # target probabilities in place of labels (skce_batched, as used by skce_laplacian)
        t = np.random.default_rng(3).dirichlet(np.ones(4), size=len(p))
        got = float(skce_batched(p, t, kern, estimator=estimator))
        assert got == pytest.approx(_brute(p, t, ref, bw, estimator), rel=1e-12, abs=1e-15)

    @pytest.mark.parametrize("estimator", ["quadratic", "linear"])
    def test_matrix_valued_kernel(self, estimator):
        # Γ(p, q) = k_TV(p, q) A with a fixed symmetric A: not a multiple of the identity
        p, y = _case(4, n=17, k=3)
        a = np.array([[1.0, 0.3, 0.1], [0.3, 2.0, -0.2], [0.1, -0.2, 0.5]])

        def kern(u, v):
            return tv_kernel(u, v, bandwidth=0.7)[..., None, None] * a

        expected = _brute(p, np.eye(3)[y], _k_tv, 0.7, estimator, matrix=a)
        assert skce(p, y, kernel=kern, estimator=estimator) == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("estimator", ["quadratic", "linear"])
    @pytest.mark.parametrize("kern,ref,bw", KERNELS, ids=KERNEL_IDS)
    def test_torch_equals_numpy(self, kern, ref, bw, estimator):
        rng = np.random.default_rng(5)
        p = rng.dirichlet(np.full(5, 0.5), size=(3, 41))
        y = rng.integers(0, 5, size=(3, 41))
        numpy_value = skce(p, y, kernel=kern, estimator=estimator)
        torch_value = skce(torch.from_numpy(p), torch.from_numpy(y), kernel=kern, estimator=estimator)
        assert isinstance(torch_value, torch.Tensor) and torch_value.dtype == torch.float64
        np.testing.assert_allclose(torch_value.numpy(), numpy_value, rtol=1e-10)
        np.testing.assert_allclose(skce_batched(torch.from_numpy(p), torch.from_numpy(y), kern,
                                                estimator=estimator).numpy(), numpy_value, rtol=1e-10)

    @pytest.mark.parametrize("kern", [TVKernel(0.7), GaussianKernel(0.3)], ids=["tv", "gaussian"])
    def test_gradients(self, kern):
        p, y = _case(6, n=8, k=3)
        y = torch.from_numpy(y)
        for estimator in ("quadratic", "linear"):
            torch.autograd.gradcheck(lambda q: skce(q, y, kernel=kern, estimator=estimator),
                                     torch.from_numpy(p).requires_grad_())

    @pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
        not torch.cuda.is_available(), reason="no CUDA"))])
    def test_device(self, device):
        p, y = _case(9, n=40, k=3)
        for kern, _, _ in KERNELS:
            for estimator in ("quadratic", "linear"):
                t = torch.tensor(p, device=device)
                value = skce(t, torch.tensor(y, device=device), kernel=kern, estimator=estimator)
                assert value.device.type == device
                assert float(value) == pytest.approx(skce(p, y, kernel=kern, estimator=estimator), rel=1e-10)

    def test_wrappers_are_the_one_implementation(self):
        p, y = _case(7, n=30, k=3)
        assert skce(p, y) == skce_uq(p, y)
        assert skce(p, y, estimator="linear") == skce_ul(p, y)
        nu = median_heuristic(p)
        assert skce_laplacian(p, y) == skce(p, y, kernel=LaplacianKernel(nu))
        t = torch.from_numpy(p)
        for estimator in ("quadratic", "linear"):
            assert float(skce_estimator(p, y, bandwidth=0.3, estimator=estimator)) == float(
                skce(t, y, kernel=TVKernel(0.3), estimator=estimator))

    def test_blocks(self, monkeypatch):
        p, y = _case(8, n=53, k=4)
        for kern in (TVKernel(), lambda a, b: tv_kernel(a, b)[..., None, None] * np.eye(4)):
            full = skce(p, y, kernel=kern)
            monkeypatch.setattr(kernel_module, "_PAIRS_PER_BLOCK", 5 * 53 * 16)  # rows in blocks of 1-5
            assert skce(p, y, kernel=kern) == pytest.approx(full, rel=1e-12)
            monkeypatch.undo()

    def test_errors(self):
        p, y = [[0.5, 0.5], [0.2, 0.8]], [0, 1]
        with pytest.raises(ValueError, match="estimator"):
            skce(p, y, estimator="cubic")
        with pytest.raises(TypeError, match="ScalarKernel"):
            skce(torch.tensor(p), y, kernel=lambda a, b: a.sum(-1))
        with pytest.raises(ValueError, match="at least 2 instances"):
            skce(torch.tensor([[0.5, 0.5]]), [0])
