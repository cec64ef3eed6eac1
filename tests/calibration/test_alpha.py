"""Tests for credalbook.calibration.alpha: the α head, feature extraction and fitting on a network."""

import copy
import warnings

import numpy as np
import pytest
import torch
from scipy.optimize import brentq, minimize
from scipy.special import digamma, gammaln, softmax
from sklearn.exceptions import ConvergenceWarning

from credalbook.calibration import AlphaCalibrator, extract_features, fit_alpha_calibration, TemperatureScaling
from credalbook.nn import MLP, SmallCNN


def _eq51_root(f, y, lam):
    """Optimal log α0 of one instance from the optimality condition Eq. 51 (App. D.2)."""
    f, y = np.asarray(f, float), np.asarray(y, float)
    n = y.sum()

    def grad(log_a):
        a = np.exp(log_a)
        first = (f * (digamma(a * f + y) - digamma(a + n))).sum()
        second = (f * (digamma(a * f) - digamma(a))).sum()
        return -a / n * (first - second) + 2 * lam * log_a

    return brentq(grad, -30, 30)


def _eq50(params, feats, probs, hist, lam):
    """Eq. 50 in NumPy with log-gamma functions: log α0 = feats @ w + c, params = (w, c)."""
    log_a = feats @ params[:-1] + params[-1]
    a = np.exp(log_a)[:, None]
    n = hist.sum(1)
    log_dm = (
        gammaln(n + 1)
        - gammaln(hist + 1).sum(1)
        + gammaln(a[:, 0])
        - gammaln(a[:, 0] + n)
        + (gammaln(a * probs + hist) - gammaln(a * probs)).sum(1)
    )
    return -log_dm.sum() / n.sum() + lam * np.mean(log_a**2)


class TestAlphaCalibrator:
    def test_main(self):  # the fitted log α0 solves Eq. 51
        # constant (zero) features: log α0 is the bias alone, whose optimum solves Eq. 51
        f = np.array([0.7, 0.2, 0.1])
        hist = np.array([[2, 0, 0], [1, 1, 0], [1, 0, 1], [2, 0, 0], [0, 1, 1]] * 40)
        feats = np.zeros((len(hist), 2))
        lam = 0.005
        head = AlphaCalibrator(lam).fit(
            feats, np.tile(f, (len(hist), 1)), hist, optimizer="lbfgs", cv_fraction=0, max_epochs=5
        )
        fitted = np.log(head.predict_alpha0(feats[:1]))[0]

        # several histograms: the mean of their Eq. 51 gradients must vanish
        def total_grad(log_a):
            a = np.exp(log_a)
            g = 0.0
            for y in hist[:5]:
                n = y.sum()
                g += (
                    -a
                    / n
                    * ((f * (digamma(a * f + y) - digamma(a + n))).sum() - (f * (digamma(a * f) - digamma(a))).sum())
                )
            return g / 5 + 2 * lam * log_a

        root = brentq(total_grad, -30, 30)
        assert fitted == pytest.approx(root, abs=1e-4)
        # the default fit (L-BFGS on all instances, to a gradient tolerance) solves it too, as
        # tightly as `tol` asks
        probs = np.tile(f, (len(hist), 1))
        default = AlphaCalibrator(lam).fit(feats, probs, hist)
        assert np.log(default.predict_alpha0(feats[:1]))[0] == pytest.approx(root, abs=1e-4)
        tight = AlphaCalibrator(lam).fit(feats, probs, hist, tol=1e-11)
        assert np.log(tight.predict_alpha0(feats[:1]))[0] == pytest.approx(root, abs=1e-8)
        # a single unanimous histogram: finite optimum thanks to λ_α (Eq. 51 discussion)
        unanimous = AlphaCalibrator(lam).fit(
            np.zeros((10, 1)),
            np.tile(f, (10, 1)),
            np.tile([2, 0, 0], (10, 1)),
            optimizer="lbfgs",
            cv_fraction=0,
            max_epochs=5,
        )
        log_a0 = np.log(unanimous.predict_alpha0(np.zeros((1, 1))))[0]
        assert log_a0 == pytest.approx(_eq51_root(f, [2, 0, 0], lam), abs=1e-4)
        assert log_a0 < 0

    @pytest.mark.parametrize("lam", [0.005, 0.0])
    def test_matches_scipy(self, lam):  # the default fit minimises Eq. 50 on all the data
        rng = np.random.default_rng(4)
        n = 800
        feats = rng.normal(size=(n, 2))
        probs = rng.dirichlet(np.ones(3), size=n)
        alpha0 = np.exp(1.0 + feats[:, 0] - 0.5 * feats[:, 1])
        hist = np.array([rng.multinomial(4, rng.dirichlet(a * p)) for a, p in zip(alpha0, probs)])
        head = AlphaCalibrator(lam).fit(feats, probs, hist)
        fitted = np.r_[head.linear.weight.detach().numpy().ravel(), head.linear.bias.item()]
        ref = minimize(
            _eq50,
            np.zeros(3),
            args=(feats, probs, hist, lam),
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000},
        )
        assert _eq50(fitted, feats, probs, hist, lam) == pytest.approx(ref.fun, abs=1e-6)
        assert head.history_[-1]["train_loss"] == pytest.approx(ref.fun, abs=1e-6)
        np.testing.assert_allclose(fitted, ref.x, atol=1e-3)
        assert np.isnan(head.cv_loss_)
        # App. E.4's Adam with early stopping is an option; within its 50 epochs it stays short
        adam = AlphaCalibrator(lam).fit(feats, probs, hist, optimizer="adam", seed=0)
        params = np.r_[adam.linear.weight.detach().numpy().ravel(), adam.linear.bias.item()]
        assert _eq50(params, feats, probs, hist, lam) > ref.fun + 1e-3

    def test_convergence_warning(self):
        rng = np.random.default_rng(5)
        feats, probs = rng.normal(size=(100, 3)), rng.dirichlet(np.ones(2), 100)
        hist = rng.multinomial(3, [0.5, 0.5], 100)
        with pytest.warns(
            ConvergenceWarning,
            match=r"AlphaCalibrator\.fit: L-BFGS stopped at "
            r"max_iter=1 iterations",
        ):
            AlphaCalibrator().fit(feats, probs, hist, max_iter=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            AlphaCalibrator().fit(feats, probs, hist)

    def test_learns_instance_dependent_concentration(self):
        # labels from Dir(α0(x) f) with α0 = exp(2 x1): the head must find the slope
        rng = np.random.default_rng(1)
        n = 3000
        feats = rng.normal(size=(n, 2))
        probs = rng.dirichlet(np.ones(3), size=n)
        alpha0 = np.exp(2.0 * feats[:, 0])
        zeta = np.array([rng.dirichlet(np.maximum(a * p, 1e-3)) for a, p in zip(alpha0, probs)])
        hist = np.array([rng.multinomial(5, z) for z in zeta])
        head = AlphaCalibrator(lambda_alpha=0.0).fit(feats, probs, hist, optimizer="lbfgs", seed=0)
        w = head.linear.weight.detach().numpy().ravel()
        assert w[0] == pytest.approx(2.0, abs=0.4) and abs(w[1]) < 0.3
        # Eq. 50 is lower than at the start (α0 = 1 everywhere)
        start = AlphaCalibrator(0.0)
        start._build(2)
        tensors = [torch.from_numpy(a).double() for a in (feats, probs, hist)]
        with torch.no_grad():
            assert head.objective(*tensors) < start.objective(*tensors) - 0.03
        # the mean of the Dirichlet is the input CPE (CPEs unchanged)
        conc = head.predict_concentration(feats, probs)
        np.testing.assert_allclose(conc / conc.sum(1, keepdims=True), probs, rtol=1e-12)
        np.testing.assert_allclose(conc.sum(1), head.predict_alpha0(feats), rtol=1e-12)

    def test_broadcast_over_samples(self):
        rng = np.random.default_rng(2)
        head = AlphaCalibrator().fit(
            rng.normal(size=(50, 3)),
            rng.dirichlet(np.ones(2), 50),
            rng.multinomial(2, [0.5, 0.5], 50),
            optimizer="lbfgs",
            seed=0,
        )
        feats = rng.normal(size=(4, 6, 3))
        a0 = head.predict_alpha0(feats)
        assert a0.shape == (4, 6)
        np.testing.assert_allclose(a0[2], head.predict_alpha0(feats[2]))
        assert head.predict_concentration(feats, rng.dirichlet(np.ones(2), (4, 6))).shape == (4, 6, 2)

    def test_errors(self):
        with pytest.raises(ValueError, match="lambda_alpha"):
            AlphaCalibrator(lambda_alpha=-0.1)
        with pytest.raises(ValueError, match="not fitted yet"):
            AlphaCalibrator().predict_alpha0(np.zeros((2, 3)))
        with pytest.raises(ValueError, match="share their leading dimensions"):
            AlphaCalibrator().fit(np.zeros((5, 3)), np.full((4, 2), 0.5), np.ones((4, 2), int))
        with pytest.raises(ValueError, match="probs must sum to 1"):
            AlphaCalibrator().fit(np.zeros((5, 3)), np.full((5, 2), 0.7), np.ones((5, 2), int))
        with pytest.raises(ValueError, match=r"label_hist must hold non-negative counts; label_hist\[\(0, 0\)\] = -1"):
            AlphaCalibrator().fit(np.zeros((5, 3)), np.full((5, 2), 0.5), -np.ones((5, 2)))
        with pytest.raises(ValueError, match="features contains NaN"):
            AlphaCalibrator().fit(np.full((5, 3), np.nan), np.full((5, 2), 0.5), np.ones((5, 2), int))
        head = AlphaCalibrator().fit(np.zeros((10, 3)), np.full((10, 2), 0.5), np.ones((10, 2), int))
        with pytest.raises(ValueError, match="features must have 3 columns"):
            head.predict_alpha0(np.zeros((2, 4)))
        args = np.zeros((10, 3)), np.full((10, 2), 0.5), np.ones((10, 2), int)
        with pytest.raises(ValueError, match=r"\['max_epochs'\] apply only to optimizer='adam'"):
            AlphaCalibrator().fit(*args, max_epochs=1)
        with pytest.raises(ValueError, match=r"\['tol'\] apply only to optimizer='auto'"):
            AlphaCalibrator().fit(*args, optimizer="adam", tol=1e-3)
        with pytest.raises(ValueError, match="optimizer must be one of"):
            AlphaCalibrator().fit(*args, optimizer="sgd")


class TestFitAlphaCalibration:
    def test_main(self):  # the base network stays frozen
        torch.manual_seed(0)
        net = MLP(6, 3, hidden=(8,), dropout=0.3)
        rng = np.random.default_rng(3)
        x = rng.normal(size=(200, 6)).astype(np.float32)
        hist = rng.multinomial(3, [0.5, 0.3, 0.2], size=200)
        before = copy.deepcopy(net.state_dict())
        logits_before = net.eval()(torch.from_numpy(x)).detach().numpy()
        net.train()
        head = fit_alpha_calibration(net, x, hist, device="cpu", optimizer="adam", max_epochs=5, seed=0)
        for k, v in net.state_dict().items():
            assert torch.equal(v, before[k]), k
        assert net.training  # mode restored
        assert all(p.grad is None for p in net.parameters())
        logits, feats = extract_features(net, x, device="cpu")
        np.testing.assert_allclose(logits, logits_before, rtol=1e-6)
        # CPEs unchanged: the Dirichlet mean equals softmax(logits)
        conc = head.predict_concentration(feats, softmax(logits, axis=1))
        np.testing.assert_allclose(conc / conc.sum(1, keepdims=True), softmax(logits, axis=1), rtol=1e-10)

    def test_with_temperature_scaling(self):
        torch.manual_seed(1)
        net = MLP(4, 2, hidden=(5,))
        x = torch.rand(120, 4)
        hist = np.tile([[1, 1]], (120, 1))
        logits, feats = extract_features(net, x, device="cpu")
        ts = TemperatureScaling().fit(3 * logits, hist, optimizer="lbfgs", seed=0)
        head = fit_alpha_calibration(
            net, x, hist, calibrator=ts, device="cpu", optimizer="lbfgs", cv_fraction=0, max_epochs=3
        )
        direct = AlphaCalibrator().fit(
            feats, ts.predict_proba(logits), hist, optimizer="lbfgs", cv_fraction=0, max_epochs=3
        )
        np.testing.assert_allclose(head.predict_alpha0(feats), direct.predict_alpha0(feats))
        # two labels that always disagree: ζ must stay away from the corners, so α0 > 1
        assert (head.predict_alpha0(feats) > 1).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="features\\(x\\) method and a head"):
            fit_alpha_calibration(torch.nn.Linear(3, 2), np.zeros((4, 3)), np.ones((4, 2), int))
        with pytest.raises(ValueError, match="calibrator must be"):
            fit_alpha_calibration(
                MLP(3, 2, hidden=(2,)),
                np.zeros((4, 3), np.float32),
                np.ones((4, 2), int),
                calibrator="ts",
                device="cpu",
            )


class TestExtractFeatures:
    def test_main(self):
        torch.manual_seed(2)
        net = SmallCNN(image_size=8, channels=(4,), hidden=6, dropout=0.5)
        x = torch.rand(7, 1, 8, 8)
        logits, feats = extract_features(net, x, batch_size=3, device="cpu")
        assert logits.shape == (7, 10) and feats.shape == (7, 6) and logits.dtype == np.float64
        net.eval()
        np.testing.assert_allclose(logits, net(x).detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(feats, net.features(x).detach().numpy(), rtol=1e-6)

    def test_errors(self):
        with pytest.raises(ValueError, match="features"):
            extract_features(torch.nn.Linear(2, 2), np.zeros((3, 2)))
