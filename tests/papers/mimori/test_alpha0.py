"""Tests for credalbook.papers.mimori.alpha0: Newton's optimal log α0 (App. D.2) and Theorem 1 (App. D.3) of Mimori et al. 2022."""

import warnings

import numpy as np
import pytest
import torch
from scipy.optimize import minimize_scalar

from credalbook.calibration import (
    dirichlet_disagreement,
    dirichlet_multinomial_nll,
    dirichlet_multinomial_nll_torch,
    dirichlet_posterior_probs,
)
from credalbook.papers.mimori import (
    Alpha0Interval,
    dpe_alpha0_interval,
    dpe_conditional_loss,
    optimal_log_alpha0,
    posterior_alpha0_interval,
    posterior_conditional_epistemic_loss,
)
from tests.helpers import dirichlet_moments, within_se

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


class TestOptimalLogAlpha0:
    @staticmethod
    def _grid():
        """The binary grid of Fig. 3: n in {2, 5, 10}, every histogram, z1 in {.001, .01, .1, ..., .999}."""
        z1 = [0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 0.999]
        rows = [(n, y1, z) for n in (2, 5, 10) for y1 in range(n + 1) for z in z1]
        y = np.array([[y1, n - y1] for n, y1, _ in rows])
        p = np.array([[z, 1 - z] for _, _, z in rows])
        return y, p

    def test_main(self):
        y, p = self._grid()
        rng = np.random.default_rng(6)
        for lam in (0.001, 0.005, 0.1):
            t = optimal_log_alpha0(p, y, reg=lam)
            for i in rng.choice(len(y), size=25, replace=False):
                obj = lambda s: dirichlet_multinomial_nll(p[i : i + 1], y[i : i + 1], s, reg=lam)  # noqa: E731
                bound = 1 / (2 * lam)
                ref = minimize_scalar(obj, bounds=(-bound, bound), method="bounded", options={"xatol": 1e-10})
                assert obj(t[i]) <= ref.fun + 1e-10, (lam, y[i], p[i])
                assert t[i] == pytest.approx(ref.x, abs=1e-4), (lam, y[i], p[i])
        # Autograd gradient of Eq. (50) vanishes at the optimum (a second check of Eq. 51).
        t = optimal_log_alpha0(p, y, reg=0.005)
        n = y.sum(1)
        tt = torch.tensor(t, requires_grad=True)
        total = sum(
            dirichlet_multinomial_nll_torch(torch.tensor(p[g]), torch.tensor(y[g]), tt[g], reg=0.005)
            for g in (n == 2, n == 5, n == 10)
        )
        total.backward()
        assert tt.grad.abs().max().item() < 1e-8

    def test_paper_claims(self):
        """App. D.2 and Fig. 3: the range of optimal log alpha0 contains 0 and narrows as reg grows."""
        y, p = self._grid()
        lams = np.array([0.001, 0.005, 0.02, 0.1])
        grid = np.repeat(lams, len(y))
        t = optimal_log_alpha0(np.tile(p, (4, 1)), np.tile(y, (4, 1)), reg=grid).reshape(4, -1)
        assert (t.min(1) < 0).all() and (t.max(1) > 0).all()
        assert np.all(np.diff(t.max(1) - t.min(1)) < 0)
        # Unanimous labels with f_1 < 1 push alpha0 down; a split pair (n = 2, K = 2) pushes it up.
        t = optimal_log_alpha0([[0.6, 0.4], [0.6, 0.4], [0.6, 0.4], [0.6, 0.4]], [[5, 0], [1, 1], [1, 0], [0, 0]])
        assert t[0] < -1 and t[1] > 1 and t[2] == 0.0 and t[3] == 0.0
        # Larger K and counts (the finite-sum form of Eq. 51) against minimize_scalar.
        rng = np.random.default_rng(7)
        f = rng.dirichlet(np.ones(6))
        h = rng.multinomial(40, rng.dirichlet(3 * f))[None]
        t = optimal_log_alpha0([f], h, reg=0.005)[0]
        obj = lambda s: dirichlet_multinomial_nll([f], h, s, reg=0.005)  # noqa: E731
        assert t == pytest.approx(
            minimize_scalar(obj, bounds=(-100, 100), method="bounded", options={"xatol": 1e-10}).x, abs=1e-5
        )

    def test_errors(self):
        with pytest.raises(ValueError, match="reg must be positive"):
            optimal_log_alpha0([[0.5, 0.5]], [[1, 1]], reg=0.0)
        with pytest.raises(ValueError, match=r"probs\[0, 1\] = 0 but label_hist\[0, 1\] = 1"):
            optimal_log_alpha0([[1.0, 0.0]], [[1, 1]])
        with pytest.raises(ValueError, match="reg must be a scalar or have shape"):
            optimal_log_alpha0([[0.5, 0.5]], [[1, 1]], reg=[0.1, 0.2])
        with pytest.raises(ValueError, match="same number of instances"):
            optimal_log_alpha0([[0.5, 0.5]], [[1, 1], [2, 0]])


class TestAlpha0Intervals:
    def test_main(self):
        # If Q | G ~ Dir(alpha0 Z), both optima recover alpha0 (Z = E[Q | G], Eqs. 63 and 72).
        z = np.array([0.5, 0.3, 0.2])
        for a0 in (0.5, 3.0, 20.0):
            u, v = dirichlet_moments(a0, z)
            d, q = dpe_alpha0_interval(u, (z**2).sum()), posterior_alpha0_interval(u, v)
            assert isinstance(d, Alpha0Interval)
            assert d.optimum == pytest.approx(a0) and q.optimum == pytest.approx(a0)
            assert d.lower == pytest.approx(max((1 - u - v) / (2 * v), 0)) and q.lower == pytest.approx(d.lower)
        # Optima minimise the conditional losses; at the lower bound the loss equals alpha0 = inf.
        for u, s, e in [(0.6, 0.5, 0.1), (0.45, 0.3, 0.03), (0.9, 0.2, 0.4)]:
            d, q = dpe_alpha0_interval(u, s), posterior_alpha0_interval(u, e)
            for interval, loss in [
                (d, lambda a: dpe_conditional_loss(a, u_q=u, s_z=s)),
                (q, lambda a: posterior_conditional_epistemic_loss(a, u_q=u, el_g=e)),
            ]:
                res = minimize_scalar(
                    lambda la: loss(np.exp(la)), bounds=(-15, 15), method="bounded", options={"xatol": 1e-10}
                )
                assert np.exp(res.x) == pytest.approx(interval.optimum, rel=1e-4)
                if interval.lower > 0:
                    assert loss(interval.lower) == pytest.approx(loss(np.inf), abs=1e-12)
                    assert loss(0.9 * interval.lower) > loss(np.inf) > loss(1.1 * interval.lower)
                else:
                    assert loss(1e-6) < loss(np.inf)
        # No finite alpha0 helps when u_Q <= s_Z, or when EL_G = 0; vectorised inputs.
        d = dpe_alpha0_interval([0.6, 0.4], [0.5, 0.5])
        assert d.optimum[1] == np.inf and d.lower[1] == np.inf and d.optimum[0] == pytest.approx(4.0)
        assert posterior_alpha0_interval(0.5, 0.0).optimum == np.inf

    def test_monte_carlo(self):
        """Eqs. (57) and (67) against simulation: Q | G ~ Dir(c qbar), labels ~ Cat(Q), a fixed Z."""
        rng = np.random.default_rng(8)
        c, qbar, z = 4.0, np.array([0.5, 0.3, 0.2]), np.array([0.6, 0.25, 0.15])
        u, var = dirichlet_moments(c, qbar)
        el_g = ((z - qbar) ** 2).sum() + var
        q = rng.dirichlet(c * qbar, size=200_000)
        u1, u2 = rng.uniform(size=(2, len(q), 1))
        cdf = q.cumsum(1)
        y1, y2 = (u1 > cdf).sum(1).clip(max=2), (u2 > cdf).sum(1).clip(max=2)
        phi = (y1 != y2).astype(float)
        for a0 in (0.5, 2.0, np.inf):
            dpe = dirichlet_disagreement([z], a0)[0]
            assert within_se((phi - dpe) ** 2, dpe_conditional_loss(a0, u_q=u, s_z=(z**2).sum()))
            zp = dirichlet_posterior_probs(np.tile(z, (len(q), 1)), a0, np.eye(3, dtype=int)[y1])
            assert within_se(((zp - q) ** 2).sum(1), posterior_conditional_epistemic_loss(a0, u_q=u, el_g=el_g))

    def test_errors(self):
        with pytest.raises(ValueError, match=r"u_q must lie in \[0, 1\]"):
            dpe_alpha0_interval(1.2, 0.5)
        with pytest.raises(ValueError, match="el_g must be finite and non-negative"):
            posterior_alpha0_interval(0.5, -0.1)
        with pytest.raises(ValueError, match="alpha0 must be positive"):
            dpe_conditional_loss(-1.0, u_q=0.5, s_z=0.5)
        with pytest.raises(ValueError, match=r"s_z must lie in \[0, 1\]"):
            dpe_conditional_loss(1.0, u_q=0.5, s_z=np.nan)


class TestOldDataOrder:
    """``optimal_log_alpha0(label_hist, probs)`` (the order before 0.6) gives the same numbers with a FutureWarning."""

    def test_main(self):
        y, p = TestOptimalLogAlpha0._grid()
        new = optimal_log_alpha0(p, y, reg=0.005)
        with pytest.warns(FutureWarning, match=r"optimal_log_alpha0\(label_hist, probs\) is deprecated since 0\.6"):
            np.testing.assert_array_equal(optimal_log_alpha0(y, p, reg=0.005), new)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(optimal_log_alpha0(p, y, reg=0.005), new)
            np.testing.assert_array_equal(optimal_log_alpha0(label_hist=y, probs=p, reg=0.005), new)

    def test_ambiguous(self):
        """One-hot float rows (one label each, or hard predictions) are read as (probs, label_hist)."""
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="label_hist must hold integer counts"):
                optimal_log_alpha0([[1.0, 0.0]], [[0.3, 0.7]])
