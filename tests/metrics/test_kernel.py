"""Tests for credalbook.metrics.kernel (Widmann et al. 2019; Mortier et al. 2023, Eqs. 7-8).

Direct double loops against the vectorised estimators, scalar vs matrix-valued kernels, and the
unbiasedness of both estimators for a calibrated model by Monte Carlo (mean within a few standard
errors of 0), against a clearly positive mean for an over-confident model.
"""

import math
import tracemalloc

import numpy as np
import pytest
import torch

import credalbook.metrics.kernel as kernel_module
import credalbook.metrics.skce_core as skce_core
from credalbook.metrics import (
    as_kernel,
    gaussian_kernel,
    GaussianKernel,
    laplacian_kernel,
    LaplacianKernel,
    median_heuristic,
    skce,
    skce_estimator,
    skce_laplacian,
    skce_ul,
    skce_uq,
    tv_kernel,
    TVKernel,
)
from credalbook.metrics.kernel import AUTO_BLOCK_SIZE, QUADRATIC_MAX_N, resolve_estimator, skce_batched
from credalbook.synthetic import calibrated_predictions, sample_labels


def _loop_uq(p, y, h=2.0):
    n, k = p.shape
    r = p - np.eye(k)[y]
    total = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            tv = 0.5 * np.abs(p[i] - p[j]).sum()
            total += np.exp(-(tv**2) / h) * r[i] @ r[j]
    return total / (n * (n - 1) / 2)


def _loop_ul(p, y, h=2.0):
    n, k = p.shape
    r = p - np.eye(k)[y]
    terms = [
        np.exp(-((0.5 * np.abs(p[2 * i] - p[2 * i + 1]).sum()) ** 2) / h) * r[2 * i] @ r[2 * i + 1]
        for i in range(n // 2)
    ]
    return np.mean(terms)


CUDA = pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))
BAD_BANDWIDTHS = [
    0,
    -1.0,
    True,
    False,
    float("nan"),
    float("inf"),
    -float("inf"),
    1j,
    1 + 0j,
    "wide",
    None,
    np.array([1.0, 2.0]),
    np.bool_(True),
]


def _unblocked_uq(p, y, kern):
    """Eq. 7 from the whole (N, N) kernel matrix at once: the previous code's formula."""
    r = p - np.eye(p.shape[1])[y]
    return (np.einsum("ij,ij->", kern.gram(p, p), r @ r.T) - (r * r).sum()) / (len(p) * (len(p) - 1))


class TestTvKernel:
    def test_main(self):
        p, q = np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])
        assert tv_kernel(p, q) == pytest.approx(np.exp(-0.25 / 2))
        assert tv_kernel(p, q, bandwidth=1.0) == pytest.approx(np.exp(-0.25))
        assert tv_kernel(p, p) == 1.0

    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
    @pytest.mark.parametrize("bandwidth", [5e-324, 1e-300, 1e-46, 1e-9, 1e-4, 2.0, 1e300, 1.7e308])
    def test_no_nan_at_extreme_bandwidths(self, dtype, bandwidth):
        # A valid float64 bandwidth that rounds to 0 in float32/float16 gave 0/0 = NaN for
        # identical rows (issue #27): k(p, p) = 1 for every bandwidth, and exp(-TV²/h) otherwise.
        p = np.array([[0.3, 0.7], [0.3, 0.7], [1.0, 0.0], [0.3 + 2e-16, 0.7 - 2e-16]])
        t = torch.tensor(p, dtype=dtype)
        for kern in (TVKernel(bandwidth), LaplacianKernel(bandwidth), GaussianKernel(bandwidth)):
            expected = kern.gram(p, p)
            assert np.isfinite(expected).all() and np.all(np.diag(expected) == 1.0)
            gram = kern.torch_gram(t[None], t[None])[0]
            pairs = kern.torch_pairs(t, t.flip(0))
            assert gram.dtype == dtype and pairs.dtype == dtype
            assert torch.isfinite(gram).all() and torch.isfinite(pairs).all()
            assert torch.all(torch.diagonal(gram) == 1)
            tol = {torch.float16: 1e-2, torch.bfloat16: 1e-2, torch.float32: 1e-6, torch.float64: 1e-12}[dtype]
            if 1e-4 <= bandwidth <= 1e300:  # well inside the dtype's range: the float64 values
                np.testing.assert_allclose(gram.double().numpy(), expected, atol=tol)
        assert tv_kernel(p[0], p[1], bandwidth=bandwidth) == 1.0
        assert np.isfinite(tv_kernel(p[0], p[2], bandwidth=bandwidth))

    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    def test_skce_of_low_precision_tensors(self, dtype):
        # float16/bfloat16 softmax rows, off the simplex by more than 1e-4: accepted, finite, and
        # close to the float64 value; a tiny bandwidth gives no NaN either
        rng = np.random.default_rng(12)
        p, y = rng.dirichlet(np.ones(10), size=64), rng.integers(0, 10, size=64)
        t = torch.tensor(p, dtype=dtype)
        for estimator in ("linear", "quadratic"):
            value = skce_estimator(t, y, bandwidth=0.5, estimator=estimator)
            assert value.dtype == dtype
            assert float(value) == pytest.approx(skce(p, y, bandwidth=0.5, estimator=estimator), abs=0.02)
            assert torch.isfinite(skce_estimator(t, y, bandwidth=1e-9, estimator=estimator))

    def test_errors(self):
        with pytest.raises(ValueError, match="bandwidth"):
            tv_kernel([1.0, 0.0], [0.0, 1.0], bandwidth=0)

    @pytest.mark.parametrize("bad", BAD_BANDWIDTHS, ids=repr)
    def test_bad_bandwidths_are_named(self, bad):
        p, y = [[0.8, 0.2], [0.4, 0.6]], [0, 1]
        calls = [
            lambda: tv_kernel(p[0], p[1], bandwidth=bad),
            lambda: TVKernel(bad),
            lambda: LaplacianKernel(bad),
            lambda: GaussianKernel(bad),
            lambda: skce(p, y, bandwidth=bad),
            lambda: skce_ul(p, y, bandwidth=bad),
            lambda: skce_uq(p, y, bandwidth=bad),
            lambda: skce_estimator(p, y, bandwidth=bad),
        ]
        if bad is not None:  # None: the median heuristic
            calls.append(lambda: skce_laplacian(p, y, bandwidth=bad))
        for call in calls:
            with pytest.raises((ValueError, TypeError), match="bandwidth"):
                call()


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

    @pytest.mark.parametrize("n", [2, 3, 257, 700])
    @pytest.mark.parametrize(
        "kern", [TVKernel(), LaplacianKernel(0.4), GaussianKernel(0.3)], ids=["tv", "laplacian", "gaussian"]
    )
    def test_equals_previous_unblocked_code(self, kern, n, monkeypatch):
        # the tiled upper-triangle sum equals the whole-matrix formula of the previous code, with
        # the default tiles and with tiles of 7 x 13 (ragged last tiles), serial and on threads
        rng = np.random.default_rng(n)
        p, y = rng.dirichlet(np.full(10, 0.5), size=n), rng.integers(0, 10, size=n)
        expected = _unblocked_uq(p, y, kern)
        assert skce_uq(p, y, kernel=kern) == pytest.approx(expected, rel=1e-10, abs=1e-16)
        monkeypatch.setattr(skce_core, "_TILE_ROWS", 7)
        monkeypatch.setattr(skce_core, "_TILE_COLS", 13)
        serial = skce_uq(p, y, kernel=kern)
        monkeypatch.setattr(skce_core, "_THREADED_PAIRS", 1)
        monkeypatch.setattr(skce_core, "_n_threads", lambda: 3)
        threaded = skce_uq(p, y, kernel=kern)
        assert serial == pytest.approx(expected, rel=1e-10, abs=1e-16)
        assert threaded == serial  # partial sums are added in a fixed order

    def test_previous_values(self):
        # values of the code before issue #27 (commit 11fc112) on these inputs
        rng = np.random.default_rng(0)
        p, y = rng.dirichlet(np.full(10, 0.5), size=300), rng.integers(0, 10, size=300)
        assert skce_uq(p, y) == pytest.approx(_loop_uq(p, y), rel=1e-10)
        assert skce_uq(p, y) == pytest.approx(0.003041062160477935, rel=1e-10)

    def test_memory_is_linear_in_n(self):
        # N = 6000: the (N, N) kernel matrix alone would be 275 MiB, (N, N, K) 2.7 GiB
        rng = np.random.default_rng(1)
        p, y = rng.dirichlet(np.ones(10), size=6000), rng.integers(0, 10, size=6000)
        tracemalloc.start()
        try:
            skce_uq(p, y)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 40 * 2**20

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


class TestResolveEstimator:
    def test_main(self):
        assert resolve_estimator("auto", 2) == "quadratic"
        assert resolve_estimator("auto", QUADRATIC_MAX_N) == "quadratic"
        assert resolve_estimator("auto", QUADRATIC_MAX_N + 1) == "block"
        for name in ("linear", "quadratic", "block"):
            assert resolve_estimator(name, 10**9) == name
        assert AUTO_BLOCK_SIZE <= QUADRATIC_MAX_N

    def test_errors(self):
        with pytest.raises(ValueError, match="estimator"):
            resolve_estimator("fast", 10)


# ----------------------------------------------------------------------------------------------
# One SKCE: kernels, brute force, the torch path
# ----------------------------------------------------------------------------------------------
def _k_tv(a, b, h):
    return math.exp(-((0.5 * sum(abs(x - y) for x, y in zip(a, b))) ** 2) / h)


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

    @pytest.mark.parametrize("fn", [tv_kernel, laplacian_kernel, gaussian_kernel])
    def test_probability_arguments(self, fn):
        """p and q are checked probability vectors (..., K) with one K that broadcast; valid ones give the class's values."""
        a, b = _case(0, n=4)[0], _case(1, n=4)[0]
        kern = {tv_kernel: TVKernel, laplacian_kernel: LaplacianKernel, gaussian_kernel: GaussianKernel}[fn](0.7)
        np.testing.assert_array_equal(fn(a, b, bandwidth=0.7), kern(a, b))
        np.testing.assert_array_equal(fn(a, b[0], bandwidth=0.7), kern(a, b[:1]))  # (N, K) with (K,)
        np.testing.assert_allclose(
            fn(torch.from_numpy(a).half(), b, bandwidth=0.7),  # float16 rows pass
            kern(torch.from_numpy(a).half().double().numpy(), b),
            rtol=1e-12,
        )
        for bad in ([0.5, 0.6], [1.2, -0.2], [np.nan, 1.0], [1.0], 0.5, [0.5 + 0j, 0.5], ["0.5", "0.5"], None):
            with pytest.raises(ValueError, match=r"^p "):
                fn(bad, [0.5, 0.5], bandwidth=1.0)
            with pytest.raises(ValueError, match=r"^q "):
                fn([0.5, 0.5], bad, bandwidth=1.0)
        with pytest.raises(ValueError, match="p and q must have the same number of classes"):
            fn([0.5, 0.5], [0.2, 0.3, 0.5], bandwidth=1.0)
        with pytest.raises(ValueError, match="p and q must broadcast"):
            fn(a[:3], b, bandwidth=1.0)


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
        np.testing.assert_allclose(
            skce_batched(torch.from_numpy(p), torch.from_numpy(y), kern, estimator=estimator).numpy(),
            numpy_value,
            rtol=1e-10,
        )

    @pytest.mark.parametrize("kern", [TVKernel(0.7), GaussianKernel(0.3)], ids=["tv", "gaussian"])
    def test_gradients(self, kern):
        p, y = _case(6, n=8, k=3)
        y = torch.from_numpy(y)
        for estimator in ("quadratic", "linear"):
            torch.autograd.gradcheck(
                lambda q: skce(q, y, kernel=kern, estimator=estimator), torch.from_numpy(p).requires_grad_()
            )

    @pytest.mark.parametrize(
        "device",
        ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))],
    )
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
                skce(t, y, kernel=TVKernel(0.3), estimator=estimator)
            )

    def test_blocks(self, monkeypatch):
        p, y = _case(8, n=53, k=4)
        for kern in (TVKernel(), lambda a, b: tv_kernel(a, b)[..., None, None] * np.eye(4)):
            full = skce(p, y, kernel=kern)
            monkeypatch.setattr(skce_core, "_PAIRS_PER_BLOCK", 5 * 53 * 16)  # rows in blocks of 1-5
            monkeypatch.setattr(skce_core, "_TILE_ROWS", 5)  # tiles of 5 x 3
            monkeypatch.setattr(skce_core, "_TILE_COLS", 3)
            assert skce(p, y, kernel=kern) == pytest.approx(full, rel=1e-12)
            monkeypatch.undo()

    @pytest.mark.parametrize("kern,ref,bw", KERNELS, ids=KERNEL_IDS)
    def test_block_estimator_brute_force(self, kern, ref, bw):
        # mean over consecutive blocks of the quadratic estimator; the last 3 instances are ignored
        p, y = _case(10, n=23, k=4)
        t = np.eye(4)[y]
        expected = np.mean([_brute(p[s : s + 5], t[s : s + 5], ref, bw, "quadratic") for s in range(0, 20, 5)])
        assert skce(p, y, kernel=kern, estimator="block", block_size=5) == pytest.approx(expected, rel=1e-12)
        assert skce(p, y, kernel=kern, estimator="block", block_size=2) == pytest.approx(
            skce(p, y, kernel=kern, estimator="linear"), rel=1e-12
        )
        assert skce(p, y, kernel=kern, estimator="block", block_size=23) == pytest.approx(
            skce(p, y, kernel=kern, estimator="quadratic"), rel=1e-12
        )
        value = skce(torch.from_numpy(p), torch.from_numpy(y), kernel=kern, estimator="block", block_size=5)
        assert float(value) == pytest.approx(expected, rel=1e-10)
        # batched, and with target probabilities
        pb = np.stack([p, p[::-1]])
        yb = np.stack([y, y[::-1]])
        np.testing.assert_allclose(
            skce(pb, yb, kernel=kern, estimator="block", block_size=5),
            [skce(q, z, kernel=kern, estimator="block", block_size=5) for q, z in zip(pb, yb)],
            rtol=1e-12,
        )
        target = np.random.default_rng(3).dirichlet(np.ones(4), size=23)
        expected_t = np.mean([_brute(p[s : s + 5], target[s : s + 5], ref, bw, "quadratic") for s in range(0, 20, 5)])
        assert float(skce_batched(p, target, kern, estimator="block", block_size=5)) == pytest.approx(
            expected_t, rel=1e-12
        )

    def test_block_estimator_is_unbiased(self):
        # calibrated model: mean within 4 standard errors of 0; the variance lies between those of
        # the linear and the quadratic estimators
        probs, _ = calibrated_predictions(60, 4, seed=3)
        labels = sample_labels(probs, np.random.default_rng(4), size=3000)
        p = np.broadcast_to(probs, (3000, 60, 4))
        values = {e: skce(p, labels, estimator=e, block_size=10) for e in ("linear", "block", "quadratic")}
        se = values["block"].std(ddof=1) / np.sqrt(3000)
        assert abs(values["block"].mean()) < 4 * se
        assert values["quadratic"].std() < values["block"].std() < values["linear"].std()

    def test_auto(self, monkeypatch):
        p, y = _case(11, n=40, k=3)
        assert skce(p, y) == skce(p, y, estimator="quadratic")
        monkeypatch.setattr(kernel_module, "QUADRATIC_MAX_N", 39)
        assert skce(p, y, block_size=4) == skce(p, y, estimator="block", block_size=4)
        t = torch.from_numpy(p)
        assert float(skce(t, y, block_size=4)) == pytest.approx(skce(p, y, estimator="block", block_size=4), rel=1e-12)
        assert float(skce_estimator(t, y, estimator="auto", bandwidth=2.0, block_size=4)) == pytest.approx(
            skce(p, y, block_size=4), rel=1e-12
        )

    @pytest.mark.parametrize("kern", [TVKernel(0.7), LaplacianKernel(0.4), GaussianKernel(0.3)], ids=KERNEL_IDS)
    def test_torch_row_blocks(self, kern, monkeypatch):
        # above _TORCH_GRAM_ELEMS the kernel matrix is formed in row blocks (checkpointed with
        # gradients): same value and same gradient as the whole matrix
        rng = np.random.default_rng(13)
        p, y = rng.dirichlet(np.ones(4), size=(2, 57)), torch.from_numpy(rng.integers(0, 4, size=(2, 57)))
        whole = torch.tensor(p, requires_grad=True)
        value = skce(whole, y, kernel=kern, estimator="quadratic")
        value.sum().backward()
        monkeypatch.setattr(kernel_module, "_TORCH_GRAM_ELEMS", 2 * 57 * 5)  # blocks of 5 rows
        blocked = torch.tensor(p, requires_grad=True)
        value_blocked = skce(blocked, y, kernel=kern, estimator="quadratic")
        value_blocked.sum().backward()
        torch.testing.assert_close(value_blocked, value, rtol=1e-12, atol=1e-15)
        torch.testing.assert_close(blocked.grad, whole.grad, rtol=1e-10, atol=1e-13)
        with torch.no_grad():
            torch.testing.assert_close(
                skce(torch.tensor(p), y, kernel=kern, estimator="quadratic"), value.detach(), rtol=1e-12, atol=1e-15
            )

    @pytest.mark.parametrize("device", ["cpu", CUDA])
    def test_device_of_every_estimator(self, device, monkeypatch):
        # the result stays on the input's device for every estimator, blocked paths included
        monkeypatch.setattr(kernel_module, "_TORCH_GRAM_ELEMS", 40 * 7)
        p, y = _case(14, n=40, k=3)
        t, ty = torch.tensor(p, device=device, requires_grad=True), torch.tensor(y, device=device)
        for estimator in ("linear", "quadratic", "block", "auto"):
            value = skce(t, ty, kernel=LaplacianKernel(0.5), estimator=estimator, block_size=8)
            assert value.device.type == device
            assert float(value.detach()) == pytest.approx(
                skce(p, y, kernel=LaplacianKernel(0.5), estimator=estimator, block_size=8), rel=1e-10
            )
            value.backward()
            assert t.grad.device.type == device and torch.isfinite(t.grad).all()
            t.grad = None

    def test_errors(self):
        p, y = [[0.5, 0.5], [0.2, 0.8]], [0, 1]
        with pytest.raises(ValueError, match="estimator"):
            skce(p, y, estimator="cubic")
        for bad in (1, 3, 0, True, 2.0, "2"):
            with pytest.raises(ValueError, match="block_size"):
                skce(p, y, estimator="block", block_size=bad)
            with pytest.raises(ValueError, match="block_size"):
                skce(torch.tensor(p), y, estimator="block", block_size=bad)
            with pytest.raises(ValueError, match="block_size"):
                skce_estimator(p, y, estimator="block", block_size=bad)
        with pytest.raises(TypeError, match="ScalarKernel"):
            skce(torch.tensor(p), y, kernel=lambda a, b: a.sum(-1))
        with pytest.raises(ValueError, match="at least 2 instances"):
            skce(torch.tensor([[0.5, 0.5]]), [0])
