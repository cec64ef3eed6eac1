"""Tests for credalbook.calibration.dirichlet (Mimori et al. 2022, Sec. 5, App. D).

Closed forms against Monte-Carlo integration over the Dirichlet, Bayes' rule written out for
ensembles, the NLL against scipy's Dirichlet-multinomial and torch against NumPy, Newton's optimum
against scipy.optimize.minimize_scalar on the same objective (the grid of Fig. 3), and Theorem 1
against Monte-Carlo estimates of the conditional losses it analyses.
"""

import warnings

import numpy as np
import pytest
import torch
from scipy.stats import dirichlet_multinomial

from credalbook.calibration import (
    dirichlet_disagreement,
    dirichlet_multinomial_nll,
    dirichlet_multinomial_nll_torch,
    dirichlet_posterior_probs,
    ensemble_disagreement,
    ensemble_posterior_probs,
)
from tests.helpers import within_se

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


class TestDirichletDisagreement:
    def test_main(self):
        rng = np.random.default_rng(0)
        cases = [([0.7, 0.2, 0.1], 0.3), ([0.25, 0.25, 0.25, 0.25], 5.0), ([0.5, 0.5], 40.0)]
        for f, a0 in cases:
            zeta = rng.dirichlet(a0 * np.asarray(f), size=200_000)
            mc = 1 - (zeta**2).sum(axis=1)
            assert within_se(mc, dirichlet_disagreement([f], a0)[0])
        p = rng.dirichlet(np.ones(3), size=5)
        np.testing.assert_allclose(dirichlet_disagreement(p, np.inf), 1 - (p**2).sum(1))
        values = [dirichlet_disagreement(p[:1], a)[0] for a in (0.1, 1.0, 10.0, np.inf)]
        assert np.all(np.diff(values) > 0)  # concentrating the Dirichlet raises the DPE to 1 - sum f^2
        assert dirichlet_disagreement([[1.0, 0.0]], 3.0)[0] == 0.0

    def test_errors(self):
        with pytest.raises(ValueError, match="alpha0 must be positive"):
            dirichlet_disagreement([[0.5, 0.5]], 0.0)
        with pytest.raises(ValueError, match="alpha0 must be positive"):
            dirichlet_disagreement([[0.5, 0.5]], np.nan)
        with pytest.raises(ValueError, match=r"broadcast to shape \(2,\)"):
            dirichlet_disagreement([[0.5, 0.5], [0.1, 0.9]], [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="probs must sum to 1"):
            dirichlet_disagreement([[0.5, 0.6]], 1.0)


class TestEnsembleDisagreement:
    def test_main(self):
        rng = np.random.default_rng(1)
        ens = rng.dirichlet(np.ones(4), size=(6, 5))
        a0 = rng.uniform(0.5, 5, size=(6, 5))
        ref = np.array(
            [[a0[i, s] / (a0[i, s] + 1) * (1 - (ens[i, s] ** 2).sum()) for s in range(5)] for i in range(6)]
        ).mean(1)
        np.testing.assert_allclose(ensemble_disagreement(ens, alpha0=a0), ref)
        np.testing.assert_allclose(ensemble_disagreement(ens), (1 - (ens**2).sum(2)).mean(1))
        np.testing.assert_allclose(
            ensemble_disagreement(ens[:, :1], alpha0=a0[:, :1]), dirichlet_disagreement(ens[:, 0], a0[:, 0])
        )
        # Jensen: the ensemble DPE is at most the DPE of the mean prediction.
        assert np.all(ensemble_disagreement(ens) <= dirichlet_disagreement(ens.mean(1), np.inf) + 1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"shape \(N, M, K\)"):
            ensemble_disagreement(np.full((2, 3, 2, 2), 0.5))
        with pytest.raises(ValueError, match="at least 3 dimensions"):
            ensemble_disagreement([[0.5, 0.5]])
        with pytest.raises(ValueError, match="alpha0"):
            ensemble_disagreement(np.full((2, 3, 2), 0.5), alpha0=np.ones((2, 2)))


class TestDirichletPosteriorProbs:
    def test_main(self):
        rng = np.random.default_rng(2)
        f, a0, y = np.array([0.6, 0.3, 0.1]), 2.5, np.array([0, 2, 1])
        zeta = rng.dirichlet(a0 * f, size=400_000)
        w = (zeta**y).prod(axis=1)  # likelihood of the labels: importance weights
        mc = (w[:, None] * zeta).sum(0) / w.sum()
        closed = dirichlet_posterior_probs([f], a0, [y])[0]
        np.testing.assert_allclose(closed, (a0 * f + y) / (a0 + 3))
        np.testing.assert_allclose(mc, closed, atol=5e-3)
        # Updating twice (concentration a0 + n1, then the second labels) equals one update.
        y1, y2 = np.array([[1, 0, 0]]), np.array([[0, 1, 1]])
        step = dirichlet_posterior_probs([f], a0, y1)
        np.testing.assert_allclose(
            dirichlet_posterior_probs(step, a0 + 1, y2), dirichlet_posterior_probs([f], a0, y1 + y2)
        )
        p = rng.dirichlet(np.ones(3), size=4)
        np.testing.assert_allclose(dirichlet_posterior_probs(p, [1.0, 2.0, np.inf, 3.0], np.zeros((4, 3), int)), p)
        np.testing.assert_allclose(dirichlet_posterior_probs(p, np.inf, np.eye(3, dtype=int)[[0, 1, 2, 0]]), p)
        out = dirichlet_posterior_probs(p, 0.7, rng.multinomial(4, [0.2, 0.3, 0.5], size=4))
        np.testing.assert_allclose(out.sum(1), 1.0)

    def test_errors(self):
        with pytest.raises(ValueError, match="same number of instances"):
            dirichlet_posterior_probs([[0.5, 0.5]], 1.0, [[1, 0], [0, 1]])
        with pytest.raises(ValueError, match="non-negative"):
            dirichlet_posterior_probs([[0.5, 0.5]], 1.0, [[-1, 0]])
        with pytest.raises(ValueError, match="alpha0"):
            dirichlet_posterior_probs([[0.5, 0.5]], -2.0, [[1, 0]])


class TestEnsemblePosteriorProbs:
    def test_main(self):
        rng = np.random.default_rng(3)
        ens = rng.dirichlet(np.ones(3), size=(5, 4))
        y = rng.multinomial(3, [0.3, 0.3, 0.4], size=5)
        w = rng.dirichlet(np.ones(4), size=5)
        for weights in (None, w):
            ww = np.full((5, 4), 0.25) if weights is None else w
            lik = np.array([[np.prod(ens[i, s] ** y[i]) for s in range(4)] for i in range(5)])
            post = ww * lik / (ww * lik).sum(1, keepdims=True)
            np.testing.assert_allclose(
                ensemble_posterior_probs(ens, y, weights=weights), (post[:, :, None] * ens).sum(1)
            )
        # The released code's likelihood: sum over classes instead of the product.
        lik = (ens ** y[:, None, :]).sum(2)
        ref = ((lik / lik.sum(1, keepdims=True))[:, :, None] * ens).sum(1)
        np.testing.assert_allclose(ensemble_posterior_probs(ens, y, likelihood="sum"), ref)
        # No labels, or a single member: the prior mean.
        np.testing.assert_allclose(ensemble_posterior_probs(ens, np.zeros_like(y)), ens.mean(1))
        np.testing.assert_allclose(ensemble_posterior_probs(ens[:, :1], y), ens[:, 0])
        # Zero probabilities are handled in log space (0 log 0 = 0).
        out = ensemble_posterior_probs([[[1.0, 0.0], [0.5, 0.5]]], [[0, 2]])
        np.testing.assert_allclose(out, [[0.5, 0.5]])

    def test_errors(self):
        with pytest.raises(ValueError, match="zero likelihood"):
            ensemble_posterior_probs([[[1.0, 0.0]]], [[0, 1]])
        ens, hist = np.full((1, 2, 2), 0.5), [[1, 0]]
        with pytest.raises(ValueError, match="weights must sum to 1"):
            ensemble_posterior_probs(ens, hist, weights=[0.7, 0.7])
        with pytest.raises(ValueError, match="weights must be non-negative"):
            ensemble_posterior_probs(ens, hist, weights=[1.5, -0.5])
        with pytest.raises(ValueError, match="weights must have last dimension M = 2"):
            ensemble_posterior_probs(ens, hist, weights=[0.5, 0.25, 0.25])
        with pytest.raises(ValueError, match=r"weights must have shape \(2,\) or \(1, 2\)"):
            ensemble_posterior_probs(ens, hist, weights=np.full((3, 2), 0.5))
        # complex and string weights were cast by astype(float): "0.5" passed, 0.5+1j lost its imaginary part
        with pytest.raises(ValueError, match="weights must be numeric"):
            ensemble_posterior_probs(ens, hist, weights=np.array(["0.5", "0.5"]))
        with pytest.raises(ValueError, match="weights must be numeric"):
            ensemble_posterior_probs(ens, hist, weights=[0.5 + 1j, 0.5])

    def test_rounding_negative_weight(self):
        """A weight of -1e-9 (within check_weights' rounding tolerance) counts as 0, not NaN."""
        ens = np.array([[[0.9, 0.1], [0.3, 0.7]]])
        out = ensemble_posterior_probs(ens, [[0, 1]], weights=[1 + 1e-9, -1e-9])
        np.testing.assert_allclose(out, [[0.9, 0.1]], atol=1e-12)
        with pytest.raises(ValueError, match="likelihood must be one of"):
            ensemble_posterior_probs(np.full((1, 2, 2), 0.5), [[1, 0]], likelihood="product")


class TestDirichletMultinomialNLL:
    def test_main(self):
        rng = np.random.default_rng(4)
        p = rng.dirichlet(np.ones(4), size=40)
        n = rng.integers(0, 8, size=40)
        y = np.array([rng.multinomial(k, q) for k, q in zip(n, p)])
        t = rng.normal(size=40)
        ref = -sum(dirichlet_multinomial.logpmf(y[i], np.exp(t[i]) * p[i], n[i]) for i in range(40)) / n.sum()
        assert dirichlet_multinomial_nll(p, y, t, reg=0.0) == pytest.approx(ref, rel=1e-12)
        assert dirichlet_multinomial_nll(p, y, t, reg=0.3) == pytest.approx(ref + 0.3 * np.mean(t**2), rel=1e-12)
        # One label: Cat(f) whatever alpha0.
        one = np.eye(4, dtype=int)[rng.integers(0, 4, size=40)]
        assert dirichlet_multinomial_nll(p, one, t, reg=0.0) == pytest.approx(-np.log((one * p).sum(1)).mean())
        assert dirichlet_multinomial_nll([[1.0, 0.0]], [[0, 2]], 0.0) == np.inf

    def test_errors(self):
        with pytest.raises(ValueError, match="at least one label"):
            dirichlet_multinomial_nll([[0.5, 0.5]], [[0, 0]], 0.0)
        with pytest.raises(ValueError, match="log_alpha0 must be finite"):
            dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], np.inf)
        with pytest.raises(ValueError, match="log_alpha0 must be a scalar"):
            dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], [0.0, 1.0])
        with pytest.raises(ValueError, match="reg"):
            dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], 0.0, reg=-1.0)
        # reg went through float(): "0.1" and True passed, a complex raised a TypeError without its name
        for reg in ("0.1", True, 1j, None, np.nan):
            with pytest.raises(ValueError, match="reg must be a non-negative number"):
                dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], 0.0, reg=reg)
        # log_alpha0 went through astype(float64): a string "0.5" passed, a complex lost its imaginary part
        for t in (np.array(["0.5"]), np.array([0.5 + 1j]), np.array([True])):
            with pytest.raises(ValueError, match="log_alpha0 must be numeric"):
                dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], t)
        with pytest.raises(ValueError, match="log_alpha0 must be finite; got nan"):
            dirichlet_multinomial_nll([[0.5, 0.5]], [[1, 1]], np.nan)


class TestDirichletMultinomialNLLTorch:
    @pytest.mark.parametrize("device", DEVICES)
    def test_main(self, device):
        rng = np.random.default_rng(5)
        p = rng.dirichlet(np.ones(3), size=30)
        y = rng.multinomial(4, [0.5, 0.3, 0.2], size=30)
        t = rng.normal(size=30)
        tt = torch.tensor(t, device=device, requires_grad=True)
        loss = dirichlet_multinomial_nll_torch(torch.tensor(p, device=device), torch.tensor(y, device=device), tt)
        assert loss.item() == pytest.approx(dirichlet_multinomial_nll(p, y, t), rel=1e-10)
        loss.backward()
        # Central finite differences of the NumPy objective.
        eps = 1e-6
        for i in (0, 7, 29):
            tp, tm = t.copy(), t.copy()
            tp[i] += eps
            tm[i] -= eps
            fd = (dirichlet_multinomial_nll(p, y, tp) - dirichlet_multinomial_nll(p, y, tm)) / (2 * eps)
            assert tt.grad[i].item() == pytest.approx(fd, rel=1e-5, abs=1e-9)
        # Gradients to the probabilities (through a temperature-scaled softmax) are finite.
        logits = torch.randn(30, 3, device=device, dtype=torch.float64, requires_grad=True)
        loss = dirichlet_multinomial_nll_torch(
            torch.softmax(logits, 1),
            torch.tensor(y, device=device),
            torch.zeros(30, 1, device=device, dtype=torch.float64),
        )
        loss.backward()
        assert torch.isfinite(logits.grad).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="torch tensors"):
            dirichlet_multinomial_nll_torch(torch.tensor([[0.5, 0.5]]), [[1, 1]], torch.zeros(1))
        with pytest.raises(ValueError, match="same shape"):
            dirichlet_multinomial_nll_torch(torch.tensor([[0.5, 0.5]]), torch.tensor([[1, 1, 0]]), torch.zeros(1))
        with pytest.raises(ValueError, match="log_alpha0 must have shape"):
            dirichlet_multinomial_nll_torch(torch.tensor([[0.5, 0.5]]), torch.tensor([[1, 1]]), torch.zeros(2))


class TestOldDataOrder:
    """``(label_hist, probs, log_alpha0)`` (the order before 0.6) gives the same numbers with a FutureWarning."""

    def test_main(self):
        rng = np.random.default_rng(6)
        p = rng.dirichlet(np.ones(3), size=20)
        y = rng.multinomial(4, [0.5, 0.3, 0.2], size=20)
        t = rng.normal(size=20)
        new = dirichlet_multinomial_nll(p, y, t)
        match = r"dirichlet_multinomial_nll\(label_hist, probs\) is deprecated since 0\.6: pass \(probs, label_hist\)"
        with pytest.warns(FutureWarning, match=match):
            assert dirichlet_multinomial_nll(y, p, t) == new
        new_t = dirichlet_multinomial_nll_torch(torch.tensor(p), torch.tensor(y), torch.tensor(t))
        with pytest.warns(FutureWarning, match=r"dirichlet_multinomial_nll_torch\(label_hist, probs\)"):
            assert (
                dirichlet_multinomial_nll_torch(torch.tensor(y), torch.tensor(p), torch.tensor(t)).item()
                == new_t.item()
            )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert dirichlet_multinomial_nll(p, y, t) == new
            assert dirichlet_multinomial_nll(label_hist=y, probs=p, log_alpha0=t) == new
            loss = dirichlet_multinomial_nll_torch(
                probs=torch.tensor(p), label_hist=torch.tensor(y), log_alpha0=torch.tensor(t)
            )
            assert loss.item() == new_t.item()

    def test_ambiguous(self):
        """One-hot float rows (one label each, or hard predictions) are read as (probs, label_hist)."""
        one_hot = np.eye(2)[[0, 1]]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="label_hist must hold integer counts"):
                dirichlet_multinomial_nll(one_hot, [[0.7, 0.3], [0.4, 0.6]], 0.0)
