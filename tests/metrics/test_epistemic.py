"""Tests for credalbook.metrics.uncertainty (EU paper, Secs. 3.1, 4.1 and 4.3)."""

import math

import numpy as np
import pytest
from scipy.special import expit

from credalbook.metrics import (
    binary_entropy,
    eu_estimates,
    EUEstimates,
    mutual_information,
    predictive_entropy,
    predictive_probability,
    uncertainty_decomposition,
    UncertaintyDecomposition,
)


def _riemann(mu, sd):
    """Reference E[σ(g)] and E[H(σ(g))] by a fine Riemann sum on the standardised variable."""
    z = np.linspace(-12, 12, 400001)
    dz = z[1] - z[0]
    phi = np.exp(-0.5 * z**2) / math.sqrt(2 * math.pi)
    g = mu + sd * z
    return np.sum(expit(g) * phi) * dz, np.sum(binary_entropy(expit(g)) * phi) * dz


class TestBinaryEntropy:
    def test_main(self):
        h = binary_entropy([0.0, 0.25, 0.5, 0.75, 1.0])
        expected = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
        np.testing.assert_allclose(h, [0.0, expected, math.log(2), expected, 0.0], atol=1e-15)
        assert binary_entropy(0.5) == pytest.approx(math.log(2)) and binary_entropy([[1.0]]).shape == (1, 1)
        np.testing.assert_array_equal(binary_entropy([True, False]), [0.0, 0.0])
        np.testing.assert_allclose(binary_entropy(np.float16([0.25])), [expected])

    def test_errors(self):
        # values outside [0, 1] used to give -inf or NaN silently
        for bad, shown in (
            (1.5, "p = 1.5"),
            (-0.1, "p = -0.1"),
            ([0.5, np.nan], r"p\[1\] = nan"),
            ([[0.2], [np.inf]], r"p\[1, 0\] = inf"),
        ):
            with pytest.raises(ValueError, match=rf"p must lie in \[0, 1\]; {shown}"):
                binary_entropy(bad)
        for bad in (0.5j, ["a"], np.array([0.5], dtype=object)):
            with pytest.raises(ValueError, match="p must hold probabilities in"):
                binary_entropy(bad)
        with pytest.raises(ValueError, match="p must be an array, got None"):
            binary_entropy(None)


class TestUncertaintyDecomposition:
    def test_main(self):
        d = uncertainty_decomposition([0.9, 0.9, 0.2, 0.5], [1, 0, 1, 1])
        assert isinstance(d, UncertaintyDecomposition)
        np.testing.assert_allclose(d.predictive, [0.1, 0.9, 0.8, 0.5])
        np.testing.assert_allclose(d.aleatoric, [0.1, 0.1, 0.2, 0.5])
        np.testing.assert_allclose(d.epistemic, [0.0, 0.8, 0.6, 0.0])
        np.testing.assert_allclose(d.predictive, d.aleatoric + d.epistemic)  # U = A + E

    def test_errors(self):
        with pytest.raises(ValueError, match="prob_true must lie in"):
            uncertainty_decomposition([1.2], [1])
        with pytest.raises(ValueError, match="pred must hold binary"):
            uncertainty_decomposition([0.2], [2])
        with pytest.raises(ValueError, match="pred must have length 2"):
            uncertainty_decomposition([0.2, 0.3], [1])


class TestEUEstimates:
    MU = np.array([-3.0, -0.5, 0.0, 0.4, 1.0, 2.5, 6.0, -1.0])
    VAR = np.array([0.01, 0.5, 1.0, 2.0, 9.0, 0.2, 400.0, 64.0])

    def test_main(self):
        for method in ("mc", "quadrature"):
            est = eu_estimates(self.MU, self.VAR, method=method, seed=0)
            assert isinstance(est, EUEstimates) and est.method == method
            assert (est.mutual_information >= 0).all()
            assert (est.mutual_information <= est.entropy).all()
            assert (est.entropy <= math.log(2) + 1e-12).all()
            np.testing.assert_array_equal(est.pred, (self.MU > 0).astype(int))
            # pred is the arg-max of the predictive probability
            np.testing.assert_array_equal(est.pred, (est.prob > 0.5).astype(int))
            np.testing.assert_allclose(est.entropy, binary_entropy(est.prob))

    def test_quadrature_matches_reference(self):
        est = eu_estimates(self.MU, self.VAR, method="quadrature")
        for i, (m, v) in enumerate(zip(self.MU, self.VAR)):
            p_ref, h_ref = _riemann(m, math.sqrt(v))
            assert est.prob[i] == pytest.approx(p_ref, abs=1e-8)
            assert est.expected_entropy[i] == pytest.approx(h_ref, abs=1e-8)

    def test_mc_agrees_with_quadrature(self):
        quad = eu_estimates(self.MU, self.VAR, method="quadrature")
        mc = eu_estimates(self.MU, self.VAR, method="mc", n_samples=40000, seed=3)
        # binomial-type standard errors of the MC means are at most 0.5/sqrt(S) = 0.0025
        np.testing.assert_allclose(mc.prob, quad.prob, atol=0.01)
        np.testing.assert_allclose(mc.entropy, quad.entropy, atol=0.01)
        np.testing.assert_allclose(mc.mutual_information, quad.mutual_information, atol=0.01)

    def test_closed_forms(self):
        # zero latent variance: p = σ(μ) and no epistemic part
        est = eu_estimates([0.0, 2.0, -1.0], [0.0, 0.0, 0.0], method="quadrature")
        np.testing.assert_allclose(est.prob, expit([0.0, 2.0, -1.0]), atol=1e-14)
        np.testing.assert_allclose(est.mutual_information, 0.0, atol=1e-12)
        # μ = 0: p = 1/2 exactly, entropy log 2
        est = eu_estimates([0.0], [5.0], method="quadrature")
        assert est.prob[0] == pytest.approx(0.5, abs=1e-12)
        assert est.entropy[0] == pytest.approx(math.log(2))
        # the logistic link is odd-symmetric: μ → −μ gives 1 − p and the same EU
        a = eu_estimates(self.MU, self.VAR, method="quadrature")
        b = eu_estimates(-self.MU, self.VAR, method="quadrature")
        np.testing.assert_allclose(a.prob, 1 - b.prob, atol=1e-12)
        np.testing.assert_allclose(a.mutual_information, b.mutual_information, atol=1e-12)

    def test_mutual_information_grows_with_variance(self):
        mi = mutual_information(np.zeros(5), [0.1, 1.0, 4.0, 25.0, 400.0], method="quadrature")
        assert (np.diff(mi) > 0).all()
        assert mi[-1] < math.log(2)

    def test_seed_and_dtype_errors(self):
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                eu_estimates([0.0], [1.0], seed=bad)
        with pytest.raises(ValueError, match="latent_mean must hold real numbers, got dtype complex"):
            eu_estimates([0j], [1.0])
        with pytest.raises(ValueError, match="latent_var must be non-negative"):
            eu_estimates([0.0], [-1.0])

    def test_seeded_mc_reproducible(self):
        a = eu_estimates(self.MU, self.VAR, method="mc", n_samples=500, seed=7)
        b = eu_estimates(self.MU, self.VAR, method="mc", n_samples=500, seed=7)
        c = eu_estimates(self.MU, self.VAR, method="mc", n_samples=500, seed=8)
        np.testing.assert_array_equal(a.prob, b.prob)
        np.testing.assert_array_equal(a.expected_entropy, b.expected_entropy)
        assert not np.array_equal(a.prob, c.prob)

    def test_chunking(self, monkeypatch):
        import credalbook.metrics.uncertainty as eu

        mu = np.linspace(-3, 3, 50)
        var = np.linspace(0.01, 30, 50)
        ref_q = eu_estimates(mu, var, method="quadrature")
        ref_mc = eu_estimates(mu, var, method="mc", n_samples=64, seed=1)
        monkeypatch.setattr(eu, "_CHUNK_ELEMS", 64 * 7)  # chunks of 7 rows
        np.testing.assert_allclose(eu_estimates(mu, var, method="quadrature").prob, ref_q.prob, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(eu_estimates(mu, var, method="mc", n_samples=64, seed=1).prob, ref_mc.prob)

    def test_wrappers(self):
        est = eu_estimates(self.MU, self.VAR, method="quadrature")
        np.testing.assert_array_equal(predictive_probability(self.MU, self.VAR, method="quadrature"), est.prob)
        np.testing.assert_array_equal(predictive_entropy(self.MU, self.VAR, method="quadrature"), est.entropy)
        np.testing.assert_array_equal(
            mutual_information(self.MU, self.VAR, method="quadrature"), est.mutual_information
        )

    def test_errors(self):
        with pytest.raises(ValueError, match="latent_var must be non-negative"):
            eu_estimates([0.0], [-1.0])
        with pytest.raises(ValueError, match="latent_var must have length 2"):
            eu_estimates([0.0, 1.0], [1.0])
        with pytest.raises(ValueError, match="latent_mean must be finite"):
            eu_estimates([np.nan], [1.0])
        with pytest.raises(ValueError, match="method must be one of"):
            eu_estimates([0.0], [1.0], method="laplace")
        with pytest.raises(ValueError, match="n_points must be at most 150"):
            eu_estimates([0.0], [1.0], method="quadrature", n_points=200)
        with pytest.raises(ValueError, match="n_samples must be an integer"):
            eu_estimates([0.0], [1.0], n_samples=0)
        with pytest.raises(ValueError, match="latent_mean must be one-dimensional"):
            eu_estimates([[0.0]], [1.0])
