"""Tests for credalbook.calibration.scaling, on synthetic logits with known miscalibration."""

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.optimize import minimize, minimize_scalar
from scipy.special import log_softmax, softmax
from sklearn.exceptions import ConvergenceWarning

from credalbook.calibration import (
    Calibrator,
    CALIBRATORS,
    histogram_nll,
    MatrixScaling,
    TemperatureScaling,
    VectorScaling,
)
from tests.helpers import draw_hist, synthetic_logits


# ---- independent references: the objectives in NumPy, minimised by scipy.optimize -----------
def _nll_and_grad(u, hist):
    """Eq. 84 of calibrated logits u (N, K) and its gradient in u."""
    total = hist.sum()
    nll = -(hist * log_softmax(u, axis=1)).sum() / total
    return nll, (softmax(u, axis=1) * hist.sum(1, keepdims=True) - hist) / total


def _reference_temperature(logits, hist):
    """T minimising the NLL: bounded Brent on log T (as scikit-learn's temperature scaling)."""
    res = minimize_scalar(
        lambda lt: _nll_and_grad(logits * np.exp(-lt), hist)[0],
        bounds=(-10, 10),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return float(np.exp(res.x)), float(res.fun)


def _reference_vector(logits, hist, lambda_b):
    """(v, b, objective) minimising NLL(v * u + b) + lambda_b mean(b^2) (Eq. 48) by BFGS."""
    k = logits.shape[1]

    def fun(x):
        v, b = x[:k], x[k:]
        nll, g = _nll_and_grad(logits * v + b, hist)
        return nll + lambda_b * np.mean(b**2), np.concatenate([(g * logits).sum(0), g.sum(0) + 2 * lambda_b * b / k])

    res = minimize(
        fun, np.r_[np.ones(k), np.zeros(k)], jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 10000}
    )
    return res.x[:k], res.x[k:], float(res.fun)


def _reference_matrix(logits, hist, lambda_w, lambda_b):
    """(W, b, objective) minimising NLL(u W^T + b) + ODIR (Eq. 49) by BFGS."""
    k = logits.shape[1]
    off = 1.0 - np.eye(k)

    def fun(x):
        w, b = x[: k * k].reshape(k, k), x[k * k :]
        nll, g = _nll_and_grad(logits @ w.T + b, hist)
        pen = lambda_w * ((w * off) ** 2).sum() / (k * (k - 1)) + lambda_b * np.mean(b**2)
        gw = g.T @ logits + 2 * lambda_w * w * off / (k * (k - 1))
        return nll + pen, np.concatenate([gw.ravel(), g.sum(0) + 2 * lambda_b * b / k])

    res = minimize(
        fun, np.r_[np.eye(k).ravel(), np.zeros(k)], jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 10000}
    )
    return res.x[: k * k].reshape(k, k), res.x[k * k :], float(res.fun)


def _overconfident(n, k=10, seed=0):
    """3 x calibrated logits (labels drawn from softmax of the calibrated ones): T near 3."""
    rng = np.random.default_rng(seed)
    calibrated = 1.5 * rng.normal(size=(n, k))
    y = (rng.random((n, 1)) > np.cumsum(softmax(calibrated, axis=1), axis=1)).sum(1)
    return 3 * calibrated, np.eye(k, dtype=int)[np.minimum(y, k - 1)]


class TestHistogramNll:
    def test_main(self):
        rng = np.random.default_rng(0)
        logits = rng.normal(size=(50, 5))
        labels = rng.integers(0, 5, size=50)
        # one label per instance: the cross-entropy, from labels or one-hot histograms
        ce = F.cross_entropy(torch.from_numpy(logits), torch.from_numpy(labels)).item()
        assert histogram_nll(logits, labels) == pytest.approx(ce, rel=1e-12)
        assert histogram_nll(logits, np.eye(5, dtype=int)[labels]) == pytest.approx(ce, rel=1e-12)
        # hand computation of Eq. 84 with several labels
        hist = rng.integers(0, 4, size=(50, 5))
        hist[:, 0] += 1
        expected = -(hist * log_softmax(logits, axis=1)).sum() / hist.sum()
        assert histogram_nll(logits, hist) == pytest.approx(expected, rel=1e-12)
        # probabilities instead of logits; zero probability with zero count contributes 0
        probs = np.array([[1.0, 0.0], [0.25, 0.75]])
        value = histogram_nll(probs, [[2, 0], [1, 1]], from_logits=False)
        assert value == pytest.approx(-(math.log(0.25) + math.log(0.75)) / 4)
        # torch inputs
        assert histogram_nll(torch.from_numpy(logits), torch.from_numpy(labels)) == pytest.approx(ce)

    def test_old_keyword(self):
        logits, labels = np.array([[0.0, 1.0], [2.0, 0.0]]), [1, 0]
        with pytest.warns(FutureWarning, match="'targets' was renamed to 'labels'"):
            old = histogram_nll(logits, targets=labels)
        assert old == histogram_nll(logits, labels=labels)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"labels must have shape \(2,\) or \(2, 3\)"):
            histogram_nll(np.zeros((2, 3)), [0, 1, 2])
        with pytest.raises(ValueError, match=r"labels must be labels in \[0, 3\)"):
            histogram_nll(np.zeros((2, 3)), [0, 3])
        with pytest.raises(ValueError, match=r"labels must hold integer counts; labels\[\(0, 1\)\] = 0.5"):
            histogram_nll(np.zeros((2, 3)), [[1, 0.5, 0], [0, 1, 0]])
        with pytest.raises(ValueError, match="at least one label"):
            histogram_nll(np.zeros((2, 3)), np.zeros((2, 3), dtype=int))
        with pytest.raises(ValueError, match=r"logits must be finite; logits\[1, 0\] = nan"):
            histogram_nll([[0, 0], [np.nan, 0]], [0, 1])
        with pytest.raises(ValueError, match=r"logits must have shape \(N, K\)"):
            histogram_nll(np.zeros(3), [0, 1, 2])
        with pytest.raises(ValueError, match="simplex"):
            histogram_nll([[0.7, 0.7]], [0], from_logits=False)


class TestTemperatureScaling:
    def test_main(self):  # the default fit is the NLL optimum on all the data
        logits, hist = synthetic_logits(n=6000, temperature=2.5, seed=0)
        ts = TemperatureScaling().fit(logits, hist)
        t_ref, nll_ref = _reference_temperature(logits, hist)
        assert ts.temperature == pytest.approx(t_ref, rel=1e-5)
        assert histogram_nll(ts.predict_logits(logits), hist) == pytest.approx(nll_ref, abs=1e-9)
        assert ts.history_[-1]["train_loss"] == pytest.approx(nll_ref, abs=1e-9)
        assert math.isnan(ts.cv_nll_) and ts.n_iter_ >= 1
        # the MLE of T from 6000 labels: standard error ~ 0.05 here
        assert ts.temperature == pytest.approx(2.5, abs=0.15)
        # the optimiser options on the 80 % part move towards the same value from T = 1
        lbfgs = TemperatureScaling().fit(logits, hist, optimizer="lbfgs", seed=0)
        assert lbfgs.temperature == pytest.approx(2.5, abs=0.15)
        adam = TemperatureScaling().fit(logits, hist, optimizer="adam", lr=1e-2, max_epochs=30, seed=0)
        assert adam.temperature == pytest.approx(2.5, abs=0.3)

    @pytest.mark.parametrize("n, seed", [(5000, 0), (5000, 1), (300, 2)])
    def test_overconfident_logits(self, n, seed):
        # issue #27: Adam with early stopping on 80 / 20, the former default, stops at T = 2.51
        # for (5000, 0) and at 1.10 for (300, 2) (too few minibatch steps) where the optima are
        # 2.95 and 3.26; the default reaches them
        logits, hist = _overconfident(n, seed=seed)
        t_ref, nll_ref = _reference_temperature(logits, hist)
        ts = TemperatureScaling().fit(logits, hist)
        assert ts.temperature == pytest.approx(t_ref, rel=1e-3)
        assert histogram_nll(ts.predict_logits(logits), hist) == pytest.approx(nll_ref, abs=1e-6)
        if n == 5000:
            assert t_ref == pytest.approx(3.0, abs=0.15)
        else:  # App. E.4's Adam is kept as an option, unchanged
            adam = TemperatureScaling().fit(logits, hist, optimizer="adam", seed=0)
            assert adam.temperature == pytest.approx(1.1025, abs=1e-3)

    def test_held_out_part(self):
        # cv_fraction > 0: the optimum on the training part, the NLL of the held-out part
        logits, hist = synthetic_logits(n=1000, temperature=2.0, seed=11)
        ts = TemperatureScaling().fit(logits, hist, cv_fraction=0.2, seed=3)
        perm = np.random.default_rng(3).permutation(1000)
        cv, tr = perm[:200], perm[200:]
        assert ts.temperature == pytest.approx(_reference_temperature(logits[tr], hist[tr])[0], rel=1e-5)
        assert ts.cv_nll_ == pytest.approx(histogram_nll(ts.predict_logits(logits[cv]), hist[cv]))

    def test_convergence_warning(self):
        logits, hist = _overconfident(500)
        with pytest.warns(
            ConvergenceWarning,
            match=r"TemperatureScaling\.fit: .*max_iter=1 "
            r".*raise max_iter",
        ):
            TemperatureScaling().fit(logits, hist, max_iter=1)
        # the optimum at the edge of the search interval: perfectly separated classes
        separable = np.array([[5.0, -5.0], [-5.0, 5.0]] * 20)
        with pytest.warns(ConvergenceWarning, match="edge of the search interval"):
            ts = TemperatureScaling().fit(separable, [0, 1] * 20)
        assert ts.temperature < 1e-4
        with warnings.catch_warnings():  # converged: no warning
            warnings.simplefilter("error", ConvergenceWarning)
            TemperatureScaling().fit(logits, hist)

    def test_lowers_nll_and_keeps_argmax(self):
        logits, hist = synthetic_logits(temperature=3.0, seed=1)
        val_logits, val_hist = synthetic_logits(temperature=3.0, seed=2)
        ts = TemperatureScaling().fit(logits, hist, optimizer="lbfgs", seed=0)
        before, after = histogram_nll(val_logits, val_hist), histogram_nll(ts.predict_logits(val_logits), val_hist)
        assert after < before - 0.1
        probs = ts.predict_proba(val_logits)
        np.testing.assert_array_equal(probs.argmax(1), val_logits.argmax(1))
        np.testing.assert_allclose(probs.sum(1), 1.0)
        np.testing.assert_allclose(probs, softmax(val_logits / ts.temperature, axis=1), rtol=1e-10)

    def test_histograms_with_several_labels(self):
        # five labels per instance give a sharper estimate of the same temperature
        logits, hist = synthetic_logits(n=2000, temperature=0.5, seed=3, n_labels=5)
        assert (hist.sum(1) == 5).all()
        ts = TemperatureScaling().fit(logits, hist, optimizer="lbfgs", seed=0)
        assert ts.temperature == pytest.approx(0.5, abs=0.05)
        assert ts.history_ and ts.best_epoch_ >= 1 and ts.cv_nll_ < histogram_nll(logits, hist)

    def test_errors(self):
        with pytest.raises(ValueError, match="not fitted yet"):
            TemperatureScaling().predict_proba(np.zeros((2, 3)))
        z, y = np.zeros((10, 3)), np.arange(10) % 3
        ts = TemperatureScaling().fit(z, y, optimizer="lbfgs", max_epochs=1, seed=0)
        with pytest.raises(ValueError, match="logits must have 3 classes"):
            ts.predict_proba(np.zeros((2, 4)))
        with pytest.raises(ValueError, match="optimizer must be one of"):
            TemperatureScaling().fit(z, y, optimizer="sgd")
        with pytest.raises(ValueError, match="cv_fraction must be a finite number"):
            TemperatureScaling().fit(z, y, cv_fraction=1.0)
        with pytest.raises(ValueError, match="leaves no held-out"):
            TemperatureScaling().fit(np.zeros((2, 3)), [0, 1], cv_fraction=0.1)
        with pytest.raises(ValueError, match="lr must be"):
            TemperatureScaling().fit(z, y, optimizer="adam", lr=0)
        with pytest.raises(ValueError, match="patience"):
            TemperatureScaling().fit(z, y, optimizer="adam", patience=0)
        # options of the other optimisers are refused, not ignored
        with pytest.raises(
            ValueError,
            match=r"\['lr', 'max_epochs'\] apply only to "
            r"optimizer='adam' or 'lbfgs'",
        ):
            TemperatureScaling().fit(z, y, lr=0.1, max_epochs=5)
        with pytest.raises(ValueError, match=r"\['max_iter'\] apply only to optimizer='auto'"):
            TemperatureScaling().fit(z, y, optimizer="adam", max_iter=5)
        with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
            TemperatureScaling().fit(z, y, max_iter=0)
        with pytest.raises(ValueError, match="tol must be a finite number > 0"):
            TemperatureScaling().fit(z, y, tol=-1.0)
        with pytest.raises(ValueError, match="seed must be None, a non-negative int or a numpy Generator"):
            TemperatureScaling().fit(z, y, seed=-1)


class TestVectorScaling:
    def test_main(self):
        # miscalibration with a class bias: vector scaling fixes it, temperature scaling cannot
        bias = [1.0, 0.0, -1.0, 0.0]
        logits, hist = synthetic_logits(temperature=2.0, bias=bias, seed=4)
        val_logits, val_hist = synthetic_logits(temperature=2.0, bias=bias, seed=5)
        vs = VectorScaling(lambda_b=0.0).fit(logits, hist, optimizer="lbfgs", seed=0)
        ts = TemperatureScaling().fit(logits, hist, optimizer="lbfgs", seed=0)
        nll_vs = histogram_nll(vs.predict_logits(val_logits), val_hist)
        assert nll_vs < histogram_nll(ts.predict_logits(val_logits), val_hist) - 0.02
        np.testing.assert_allclose(vs.scale.detach().numpy(), 0.5, atol=0.08)
        b = vs.bias.detach().numpy()
        np.testing.assert_allclose(b - b.mean(), np.array(bias) - np.mean(bias), atol=0.15)

    @pytest.mark.parametrize("lambda_b", [0.1, 10.0])
    def test_matches_scipy(self, lambda_b):  # the default fit minimises Eq. 48's objective
        logits, hist = synthetic_logits(n=3000, k=5, temperature=2.0, bias=[1.0, 0.0, -1.0, 0.0, 0.5], seed=12)
        vs = VectorScaling(lambda_b=lambda_b).fit(logits, hist)
        v, b, objective = _reference_vector(logits, hist, lambda_b)
        fitted = vs.history_[-1]["train_loss"]
        assert fitted == pytest.approx(objective, abs=1e-6)
        assert histogram_nll(vs.predict_logits(logits), hist) + lambda_b * np.mean(
            vs.bias.detach().numpy() ** 2
        ) == pytest.approx(fitted, abs=1e-12)
        np.testing.assert_allclose(vs.scale.detach().numpy(), v, rtol=1e-3)
        np.testing.assert_allclose(vs.bias.detach().numpy(), b, atol=1e-3)

    def test_convergence_warning(self):
        logits, hist = synthetic_logits(n=500, bias=[1.0, 0, 0, -1.0], seed=13)
        with pytest.warns(
            ConvergenceWarning,
            match=r"VectorScaling\.fit: L-BFGS stopped at "
            r"max_iter=2 iterations",
        ):
            VectorScaling().fit(logits, hist, max_iter=2)

    def test_penalty(self):
        vs = VectorScaling(lambda_b=2.0).fit(
            np.zeros((4, 2)), [0, 1, 0, 1], max_epochs=1, optimizer="lbfgs", cv_fraction=0
        )
        with torch.no_grad():
            vs.bias.copy_(torch.tensor([1.0, -3.0], dtype=torch.float64))
        assert vs.penalty().item() == pytest.approx(2.0 * (1 + 9) / 2)  # Eq. 48
        # a large lambda_b shrinks the bias
        logits, hist = synthetic_logits(n=1000, bias=[2.0, 0, 0, 0], seed=6)
        small = VectorScaling(lambda_b=0.0).fit(logits, hist, optimizer="lbfgs", seed=0)
        large = VectorScaling(lambda_b=100.0).fit(logits, hist, optimizer="lbfgs", seed=0)
        assert large.bias.detach().abs().max() < 0.5 * small.bias.detach().abs().max()

    def test_errors(self):
        with pytest.raises(ValueError, match="lambda_b must be a finite number >= 0"):
            VectorScaling(lambda_b=-1)


class TestMatrixScaling:
    def test_main(self):
        # labels follow a class permutation of the logits: only a full matrix can learn it
        rng = np.random.default_rng(7)
        logits = 3.0 * rng.normal(size=(3000, 3))
        hist = draw_hist(softmax(logits[:, [1, 2, 0]], axis=1), rng)
        val_logits = 3.0 * rng.normal(size=(1000, 3))
        val_hist = draw_hist(softmax(val_logits[:, [1, 2, 0]], axis=1), rng)
        ms = MatrixScaling(lambda_w=0.0, lambda_b=0.0).fit(logits, hist, optimizer="lbfgs", seed=0)
        ts = TemperatureScaling().fit(logits, hist, optimizer="lbfgs", seed=0)
        nll_ms = histogram_nll(ms.predict_logits(val_logits), val_hist)
        assert nll_ms < histogram_nll(ts.predict_logits(val_logits), val_hist) - 0.5
        assert nll_ms < histogram_nll(val_logits, val_hist)
        # the learned matrix is close to the permutation (up to a per-row shift)
        w = ms.weight.detach().numpy()
        assert (w.argmax(axis=1) == [1, 2, 0]).all()

    @pytest.mark.parametrize("lambda_w, lambda_b", [(10.0, 0.1), (0.1, 1.0), (0.0, 0.0)])
    def test_matches_scipy(self, lambda_w, lambda_b):  # the default fit minimises Eq. 49's objective
        rng = np.random.default_rng(14)
        logits = 2.0 * rng.normal(size=(2000, 4))
        hist = draw_hist(softmax(logits[:, [1, 0, 2, 3]] / 1.5, axis=1), rng)
        ms = MatrixScaling(lambda_w=lambda_w, lambda_b=lambda_b).fit(logits, hist)
        w, b, objective = _reference_matrix(logits, hist, lambda_w, lambda_b)
        with torch.no_grad():
            penalty = ms.penalty().item()
        fitted = histogram_nll(ms.predict_logits(logits), hist) + penalty
        assert fitted == pytest.approx(ms.history_[-1]["train_loss"], abs=1e-12)
        assert fitted == pytest.approx(objective, abs=1e-6)
        # the same calibrated probabilities (W, b are unique only up to a shift without penalty)
        np.testing.assert_allclose(ms.predict_proba(logits), softmax(logits @ w.T + b, axis=1), atol=1e-3)
        if lambda_w > 0 and lambda_b > 0:  # the penalties remove the shift: the parameters agree
            np.testing.assert_allclose(ms.weight.detach().numpy(), w, atol=1e-3)

    def test_penalty(self):
        ms = MatrixScaling(lambda_w=3.0, lambda_b=2.0).fit(
            np.zeros((4, 3)), [0, 1, 2, 0], max_epochs=1, optimizer="lbfgs", cv_fraction=0
        )
        with torch.no_grad():
            ms.weight.copy_(torch.tensor([[5.0, 1, 0], [0, 7, 2], [1, 0, 9]], dtype=torch.float64))
            ms.bias.copy_(torch.tensor([1.0, 0, -1], dtype=torch.float64))
        # Eq. 49: off-diagonal squares 1 + 4 + 1 = 6 over K(K-1) = 6; bias squares 2 over K = 3
        assert ms.penalty().item() == pytest.approx(3.0 * 6 / 6 + 2.0 * 2 / 3)

    def test_errors(self):
        with pytest.raises(ValueError, match="lambda_w"):
            MatrixScaling(lambda_w=float("nan"))


class TestCalibrator:
    def test_old_keyword_and_seed(self):
        logits, hist = synthetic_logits(n=400, temperature=2.0, seed=4)
        new = TemperatureScaling().fit(logits, labels=hist, optimizer="adam", max_epochs=3, seed=0)
        with pytest.warns(FutureWarning, match="'targets' was renamed to 'labels'"):
            old = TemperatureScaling().fit(logits, targets=hist, optimizer="adam", max_epochs=3, seed=0)
        assert old.temperature == new.temperature
        # a Generator seeds the split through one integer drawn from it
        gen = TemperatureScaling().fit(logits, hist, cv_fraction=0.2, seed=np.random.default_rng(1))
        seed = int(np.random.default_rng(1).integers(2**63))
        assert gen.temperature == TemperatureScaling().fit(logits, hist, cv_fraction=0.2, seed=seed).temperature
        # without a held-out part the default fit is deterministic (seed None = the rows of seed 0)
        assert (
            TemperatureScaling().fit(logits, hist).temperature
            == TemperatureScaling().fit(logits, hist, seed=0).temperature
        )

    def test_main(self):
        assert set(CALIBRATORS) == {"ts", "vs", "ms"}
        assert all(issubclass(c, Calibrator) for c in CALIBRATORS.values())
        with pytest.raises(NotImplementedError):
            Calibrator().transform(torch.zeros(5, 2))
        with pytest.raises(ValueError, match="Calibrator has no trainable parameters"):
            Calibrator().fit(np.zeros((5, 2)), [0, 1, 0, 1, 0])

    def test_ensemble_subclass(self):
        """A pre-combination ensemble temperature only overrides hooks (Wu & Gales 2021)."""

        class PreCombinationTS(TemperatureScaling):
            logits_ndim = 3

            def log_predict(self, logits):  # logits (N, M, K): scale members, then average
                members = torch.log_softmax(self.transform(logits), dim=-1)
                return torch.logsumexp(members, dim=1) - math.log(logits.shape[1])

        rng = np.random.default_rng(8)
        member_logits = 3.0 * rng.normal(size=(2000, 1, 3)) + 0.5 * rng.normal(size=(2000, 4, 3))
        truth = softmax(member_logits / 3.0, axis=2).mean(axis=1)
        hist = draw_hist(truth, rng)
        cal = PreCombinationTS().fit(member_logits, hist, optimizer="lbfgs", seed=0)
        assert cal.temperature == pytest.approx(3.0, abs=0.4)
        probs = cal.predict_proba(member_logits)
        assert probs.shape == (2000, 3)
        np.testing.assert_allclose(probs.sum(1), 1.0)
        uncal = np.log(softmax(member_logits, axis=2).mean(axis=1))
        assert histogram_nll(np.log(probs), hist) < histogram_nll(uncal, hist) - 0.1
        with pytest.raises(ValueError, match=r"logits must have shape \(N, M, K\)"):
            cal.fit(np.zeros((5, 3)), [0, 1, 2, 0, 1])

    def test_early_stopping_and_history(self):
        logits, hist = synthetic_logits(n=500, temperature=2.0, seed=9)
        ts = TemperatureScaling().fit(logits, hist, optimizer="adam", lr=0.05, seed=0, max_epochs=200, patience=3)
        cvs = [h["cv_nll"] for h in ts.history_]
        assert len(cvs) < 200  # stopped early
        assert ts.cv_nll_ == pytest.approx(min(cvs))
        assert ts.history_[ts.best_epoch_ - 1]["cv_nll"] == pytest.approx(ts.cv_nll_)
        assert len(cvs) - ts.best_epoch_ == 3
        # the kept parameters are those of the best epoch: recompute the held-out NLL
        perm = np.random.default_rng(0).permutation(500)
        cv = perm[:100]
        assert histogram_nll(ts.predict_logits(logits[cv]), hist[cv]) == pytest.approx(ts.cv_nll_)
        # reproducible, and refitting starts afresh
        again = TemperatureScaling().fit(logits, hist, optimizer="adam", lr=0.05, seed=0, max_epochs=200, patience=3)
        assert again.temperature == ts.temperature
        assert (
            ts.fit(logits, hist, optimizer="adam", lr=0.05, seed=0, max_epochs=200, patience=3).temperature
            == again.temperature
        )
