"""Tests for credalbook.gp.classifier (sparse variational GP classification, EU paper Secs. 3.1, 5.1)."""

import gpytorch
import linear_operator
import numpy as np
import pytest
import torch
from scipy.special import expit

from credalbook.gp import (
    fit_gp_classifier,
    fit_gp_classifier_cached,
    GP_LIKELIHOODS,
    GPClassifierFit,
    GPConfig,
    LatentPredictive,
)
from credalbook.gp.classifier import _LogitBernoulliLikelihood, _PolyaGammaLikelihood
from credalbook.metrics import EUEstimates

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]
FAST = dict(n_inducing=16, epochs=25, batch_size=100, lr=0.05)


@pytest.fixture(scope="module")
def blobs():
    """Two separable Gaussian blobs in 2-D: 300 training and 300 test points."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    x = rng.normal(size=(600, 2)) * 0.6 + np.where(y[:, None] == 1, 1.5, -1.5)
    return x[:300], y[:300], x[300:], y[300:]


@pytest.fixture(scope="module")
def fitted(blobs):
    x, y, _, _ = blobs
    return fit_gp_classifier(x, y, device="cpu", **FAST)


class TestFitGPClassifier:
    @pytest.mark.parametrize("device", DEVICES)
    def test_main(self, blobs, device):
        x, y, x_te, y_te = blobs
        fit = fit_gp_classifier(x, y, device=device, **FAST)  # its speed: scripts/benchmark.py --only-gp
        assert isinstance(fit, GPClassifierFit)
        acc = float((fit.predict(x_te, device=device) == y_te).mean())
        assert acc >= 0.97
        assert len(fit.history) == 25 and fit.history[-1] > fit.history[0]
        assert all(v.device.type == "cpu" for v in fit.state_dict.values())
        assert fit.config["n_inducing"] == 16 and fit.config["input_dim"] == 2 and fit.config["n_train"] == 300
        assert fit.config["likelihood"] == "polya_gamma"

    def test_bernoulli_logit_and_natural_gradient(self, blobs):
        x, y, x_te, y_te = blobs
        for kwargs in (dict(likelihood="bernoulli_logit"), dict(natural_gradient=True, epochs=10)):
            fit = fit_gp_classifier(x, y, device="cpu", **{**FAST, **kwargs})
            assert float((fit.predict(x_te, device="cpu") == y_te).mean()) >= 0.97

    def test_config(self, blobs):
        """config= runs the fit of the keyword options; options replace the config's fields."""
        x, y, _, _ = blobs
        a = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 2})
        b = fit_gp_classifier(x, y, device="cpu", config=GPConfig(**{**FAST, "epochs": 5}), epochs=2)
        assert a.config == b.config and a.history == b.history
        assert all(torch.equal(a.state_dict[k], b.state_dict[k]) for k in a.state_dict)
        with pytest.raises(TypeError, match=r"unexpected keyword arguments \['inducing'\]"):
            fit_gp_classifier(x, y, inducing=3)
        with pytest.raises(ValueError, match="ard must be True or False"):
            GPConfig(ard="yes").checked()

    def test_reproducible(self, blobs):
        x, y, _, _ = blobs
        state = torch.get_rng_state()
        a = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 3})
        assert torch.equal(torch.get_rng_state(), state)  # the caller's RNG is left alone
        b = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 3})
        c = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 3, "seed": 1})
        assert a.state_dict.keys() == b.state_dict.keys()
        assert all(torch.equal(a.state_dict[k], b.state_dict[k]) for k in a.state_dict)
        assert a.history == b.history
        assert not torch.equal(
            a.state_dict["variational_strategy.inducing_points"], c.state_dict["variational_strategy.inducing_points"]
        )

    def test_initial_hyperparameters_and_dtype(self, blobs):
        x, y, _, _ = blobs
        fit = fit_gp_classifier(
            x,
            y,
            device="cpu",
            n_inducing=8,
            epochs=1,
            batch_size=300,
            lr=1e-6,
            lengthscale=2.0,
            outputscale=3.0,
            dtype="float64",
            ard=True,
        )
        model, _ = fit.build("cpu")
        np.testing.assert_allclose(model.covar_module.base_kernel.lengthscale.detach().numpy(), [[2.0, 2.0]], rtol=1e-4)
        assert float(model.covar_module.outputscale.detach()) == pytest.approx(3.0, rel=1e-4)
        assert fit.state_dict["variational_strategy.inducing_points"].dtype == torch.float64

    def test_errors(self, blobs):
        x, y, _, _ = blobs
        with pytest.raises(ValueError, match="y must hold binary labels"):
            fit_gp_classifier(x, np.where(y == 1, 2, 0), device="cpu")
        with pytest.raises(ValueError, match=r"y must have shape \(300,\)"):
            fit_gp_classifier(x, y[:-1], device="cpu")
        with pytest.raises(ValueError, match="n_inducing must be at most"):
            fit_gp_classifier(x[:10], y[:10], n_inducing=11, device="cpu")
        with pytest.raises(ValueError, match="likelihood must be one of"):
            fit_gp_classifier(x, y, likelihood="probit", device="cpu")
        with pytest.raises(ValueError, match="x must be finite"):
            fit_gp_classifier(np.where(np.arange(600).reshape(300, 2) == 5, np.nan, x), y, device="cpu")
        with pytest.raises(ValueError, match="x must have shape"):
            fit_gp_classifier(x[:, 0], y, device="cpu")
        with pytest.raises(ValueError, match="lr must be a finite number > 0"):
            fit_gp_classifier(x, y, lr=0.0, device="cpu")
        with pytest.raises(ValueError, match="dtype must be one of"):
            fit_gp_classifier(x, y, dtype="float16", device="cpu")
        for bad in (-1, 1.5, True, np.bool_(False), "0", None, 2**63):  # no truncation of 1.5, no bools
            with pytest.raises(ValueError, match="seed must be an integer >= 0"):
                fit_gp_classifier(x, y, seed=bad, device="cpu")
        with pytest.raises(ValueError, match="epochs must be an integer"):
            fit_gp_classifier(x, y, epochs=0, device="cpu")


class TestLikelihoods:
    def test_polya_gamma_bound(self):
        """The PG term is the Jaakkola-Jordan lower bound: ≤ E_q[log σ(ỹ g)], equal when var = 0."""
        torch.manual_seed(0)
        mean = torch.randn(200, dtype=torch.float64) * 3
        var = torch.rand(200, dtype=torch.float64) * 5
        y = (torch.rand(200) < 0.5).to(torch.float64)
        dist = torch.distributions.Normal(mean, var.sqrt())  # the likelihoods use .mean and .variance
        pg = _PolyaGammaLikelihood().double().expected_log_prob(y, dist)
        exact = _LogitBernoulliLikelihood().double()
        exact.quadrature = gpytorch.utils.quadrature.GaussHermiteQuadrature1D(num_locs=100).double()
        ell = exact.expected_log_prob(y, dist)
        assert (pg <= ell + 1e-9).all()
        assert float((ell - pg).max()) < 1.5
        point = torch.distributions.Normal(mean, torch.full_like(var, 1e-9))
        signs = 2 * y - 1
        np.testing.assert_allclose(
            _PolyaGammaLikelihood().double().expected_log_prob(y, point).numpy(),
            torch.nn.functional.logsigmoid(signs * mean).numpy(),
            atol=1e-6,
        )

    def test_logistic_link(self):
        out = _LogitBernoulliLikelihood()(torch.tensor([0.0, 2.0]))
        np.testing.assert_allclose(out.probs.numpy(), expit([0.0, 2.0]), rtol=1e-6)
        assert GP_LIKELIHOODS == ("polya_gamma", "bernoulli_logit")


class TestGPClassifierFit:
    def test_main(self, fitted, blobs):
        _, _, x_te, _ = blobs
        lat = fitted.latent(x_te, device="cpu")
        assert isinstance(lat, LatentPredictive)
        assert lat.mean.shape == lat.variance.shape == (300,)
        assert (lat.variance > 0).all()
        np.testing.assert_allclose(lat.std, np.sqrt(lat.variance))
        # batch size does not change the prediction
        small = fitted.latent(x_te, device="cpu", batch_size=7)
        np.testing.assert_allclose(small.mean, lat.mean, rtol=1e-4, atol=1e-5)  # float32 round-off
        np.testing.assert_allclose(small.variance, lat.variance, rtol=1e-4, atol=1e-5)
        proba = fitted.predict_proba(x_te, device="cpu")
        np.testing.assert_array_equal(fitted.predict(x_te, device="cpu"), (lat.mean > 0).astype(int))
        np.testing.assert_array_equal(fitted.predict(x_te, device="cpu"), (proba > 0.5).astype(int))
        mc = fitted.predict_proba(x_te, device="cpu", method="mc", n_samples=20000)
        np.testing.assert_allclose(mc, proba, atol=0.02)
        est = fitted.eu_estimates(x_te, device="cpu", method="quadrature")
        assert isinstance(est, EUEstimates)
        assert (est.mutual_information <= est.entropy).all() and (est.mutual_information >= 0).all()

    def test_far_from_data_reverts_to_prior(self, fitted):
        """Zero prior mean: far away the latent predictive is N(0, outputscale), p = 1/2, EU maximal."""
        model, _ = fitted.build("cpu")
        lat = fitted.latent([[100.0, -100.0], [0.0, 0.0]], device="cpu")
        assert lat.mean[0] == pytest.approx(0.0, abs=1e-5)
        assert lat.variance[0] == pytest.approx(float(model.covar_module.outputscale.detach()), rel=1e-4)
        est = fitted.eu_estimates([[100.0, -100.0], [1.5, 1.5]], device="cpu", method="quadrature")
        assert est.prob[0] == pytest.approx(0.5, abs=1e-5)
        assert est.mutual_information[0] > est.mutual_information[1]

    def test_errors(self, fitted):
        with pytest.raises(ValueError, match="x must have 2 columns"):
            fitted.latent(np.zeros((3, 3)), device="cpu")
        with pytest.raises(ValueError, match="batch_size must be an integer"):
            fitted.latent(np.zeros((3, 2)), device="cpu", batch_size=0)


class TestFitGPClassifierCached:
    def test_main(self, blobs, tmp_cache):
        x, y, _, _ = blobs
        a = fit_gp_classifier_cached(x, y, device="cpu", **{**FAST, "epochs": 2})
        b = fit_gp_classifier_cached(x, y, device="cpu", progress=True, **{**FAST, "epochs": 2})
        assert a.seconds == b.seconds  # loaded, not recomputed
        assert all(torch.equal(a.state_dict[k], b.state_dict[k]) for k in a.state_dict)
        c = fit_gp_classifier_cached(x[:200], y[:200], device="cpu", **{**FAST, "epochs": 2})
        assert c.config["n_train"] == 200
        assert any(tmp_cache.rglob("*.pkl"))

    def test_errors(self, blobs, tmp_cache):
        x, y, _, _ = blobs
        with pytest.raises(ValueError, match="n_inducing must be an integer"):
            fit_gp_classifier_cached(x, y, n_inducing=0, device="cpu")


class TestCheckpoint:
    """An interrupted fit resumes from its per-epoch checkpoint and ends as an uninterrupted one."""

    @pytest.mark.parametrize("natural_gradient", [False, True])
    def test_resume_matches_uninterrupted(self, blobs, tmp_path, monkeypatch, natural_gradient):
        import credalbook.gp.classifier as gpc

        x, y, _, _ = blobs
        opts = dict(FAST, epochs=6, natural_gradient=natural_gradient, device="cpu")
        ref = fit_gp_classifier(x, y, **opts)
        real_save, saves = gpc.save_checkpoint, []

        class Killed(Exception):
            pass

        def save_then_die(path, state):
            real_save(path, state)
            saves.append(len(state["history"]))
            if len(saves) == 3:
                raise Killed

        ckpt = tmp_path / "gp.pt"
        monkeypatch.setattr(gpc, "save_checkpoint", save_then_die)
        with pytest.raises(Killed):
            fit_gp_classifier(x, y, checkpoint=ckpt, **opts)
        monkeypatch.setattr(gpc, "save_checkpoint", real_save)
        assert ckpt.exists()
        res = fit_gp_classifier(x, y, checkpoint=ckpt, **opts)
        assert not ckpt.exists()
        assert res.history == ref.history and len(res.history) == 6
        for k in ref.state_dict:
            assert torch.equal(ref.state_dict[k], res.state_dict[k]), k

    def test_other_configuration_refused(self, blobs, tmp_path, monkeypatch):
        import credalbook.gp.classifier as gpc

        x, y, _, _ = blobs
        ckpt = tmp_path / "gp.pt"

        def die(path, state):
            gpc.torch.save(dict(state), path)
            raise KeyboardInterrupt

        monkeypatch.setattr(gpc, "save_checkpoint", die)
        with pytest.raises(KeyboardInterrupt):
            fit_gp_classifier(x, y, checkpoint=ckpt, device="cpu", **FAST)
        monkeypatch.undo()
        with pytest.raises(ValueError, match=r"other settings \(lr differ\)"):
            fit_gp_classifier(x, y, checkpoint=ckpt, device="cpu", **{**FAST, "lr": 0.1})
        with pytest.raises(ValueError, match="checkpoint must be a file path"):
            fit_gp_classifier(x, y, checkpoint=5, device="cpu", **FAST)


class TestToyPipeline:
    def test_main(self):
        """Sec. 5.2 end to end at a tiny scale: carve, fit f_tr and f_aug, gains, EU, calibrate, evaluate."""
        from credalbook.metrics import accuracy_gain, evaluate_eu, fit_eu_calibration, interval_cuts
        from credalbook.papers.eu import eu_toy_data, toy_disc_layout

        toy = eu_toy_data(seed=0, subsample=0.05, noise_sd=0.3)
        split = toy_disc_layout("evaluation").carve(toy.x, seed=0)
        cal = toy_disc_layout("calibration").carve(toy.x, subset=split.train, seed=0)
        kw = dict(n_inducing=32, epochs=3, batch_size=512, lr=0.05, lengthscale=1.0, device="cpu")

        def gains_and_eu(s):
            f_tr = fit_gp_classifier(toy.x[s.train], toy.y[s.train], **kw)
            f_aug = fit_gp_classifier(toy.x[s.aug], toy.y[s.aug], **kw)
            est = f_tr.eu_estimates(toy.x[s.test], device="cpu", method="quadrature")
            gain = accuracy_gain(toy.y[s.test], pred=est.pred, pred_optimal=f_aug.predict(toy.x[s.test], device="cpu"))
            return est.entropy, gain

        eu, gain = gains_and_eu(split)
        eu2, gain2 = gains_and_eu(cal)
        edges = interval_cuts(eu, n_bins=10)
        ev = evaluate_eu(eu, gain, cuts=edges, calibration=fit_eu_calibration(eu2, gain2, cuts=edges))
        assert -1 <= ev.rho_epi <= 1
        assert ev.reliability.counts.sum() == len(split.test)
        # the entropy is far above the accuracy gain (Table 1: EECE 0.39); calibration removes most of it
        assert ev.eece > 0.3 and ev.calibrated_eece < 0.5 * ev.eece


class TestFastStep:
    """``fast_step=True`` computes GPyTorch's training step with fewer m×m operations: same ELBO and updates."""

    @staticmethod
    def _pair(dtype, natural, likelihood="polya_gamma", m=64, d=2):
        """The GPyTorch model and the fast one with the same (initialised) parameters, in train mode."""
        from credalbook.gp.classifier import _build

        torch.manual_seed(0)
        z = torch.randn(m, d, dtype=getattr(torch, dtype))
        cfg = dict(likelihood=likelihood, ard=False, dtype=dtype, natural_gradient=natural)
        old, lik = _build(cfg, z)
        new, _ = _build({**cfg, "fast_step": True}, z)
        old.eval()(z[:2])  # initialises q(u) (random mean)
        if natural:  # a non-trivial q(u): S ≠ I, mean ≠ 0
            a = torch.randn(m, m, dtype=z.dtype) / m**0.5
            old.variational_strategy._variational_distribution.natural_mat.data = -0.5 * (a @ a.T + torch.eye(m))
            old.variational_strategy._variational_distribution.natural_vec.data = torch.randn(m, dtype=z.dtype)
        else:
            dist = old.variational_strategy._variational_distribution
            dist.chol_variational_covar.data = torch.randn(m, m, dtype=z.dtype).tril() / m**0.5 + torch.eye(m)
            dist.variational_mean.data = torch.randn(m, dtype=z.dtype)
        new.load_state_dict(old.state_dict())
        return old.train(), new.train(), lik.train()

    @pytest.mark.parametrize(
        "natural,likelihood,m",
        [
            (True, "polya_gamma", 64),
            (False, "polya_gamma", 64),
            (True, "bernoulli_logit", 64),
            (True, "polya_gamma", 32),
        ],
    )
    def test_elbo_and_gradients_equal(self, natural, likelihood, m):
        # float64, m = 64 inducing points > |B| = 50 (the case the fast variances serve): the ELBO agrees to
        # 1e-12 and every gradient (the natural gradient of q(u), those of the kernel and of the inducing
        # points) to 1e-10, relative to the largest entry. m = 32 < |B|: GPyTorch's variances with the fast
        # q(u) moments and KL term.
        old, new, lik = self._pair("float64", natural, likelihood, m=m)
        torch.manual_seed(1)
        x = torch.randn(50, 2, dtype=torch.float64)
        y = (x[:, 0] > 0).double()
        values = []
        for model in (old, new):
            mll = gpytorch.mlls.VariationalELBO(lik, model, num_data=2000)
            loss = -mll(model(x), y)
            loss.backward()
            values.append((float(loss.detach()), {k: p.grad.clone() for k, p in model.named_parameters()}))
        (l_old, g_old), (l_new, g_new) = values
        assert l_new == pytest.approx(l_old, rel=1e-12, abs=0)
        assert g_old.keys() == g_new.keys() and len(g_old) >= 5
        for k in g_old:
            scale = float(g_old[k].abs().max())
            assert scale > 0 and float((g_new[k] - g_old[k]).abs().max()) <= 1e-10 * scale, k

    def test_cholesky_solve_gradients(self):
        # W = chol(A)^{-1} K by _CholeskySolve: W bit for bit, and the gradients with respect to A and K those of
        # autograd through torch's Cholesky and triangular solve (float64, 1e-10 relative), for m > |B| and m < |B|
        from credalbook.gp.classifier import _CholeskySolve

        gen = torch.Generator().manual_seed(0)
        for m, b in ((40, 25), (20, 60)):
            z = torch.randn(m + b, 2, dtype=torch.float64, generator=gen)
            k = torch.exp(-0.5 * torch.cdist(z, z) ** 2)
            a0, k0 = k[:m, :m] + 1e-2 * torch.eye(m, dtype=torch.float64), k[:m, m:].clone()
            g = torch.randn(m, b, dtype=torch.float64, generator=gen)
            out = []
            for fused in (False, True):
                a, rhs = a0.clone().requires_grad_(), k0.clone().requires_grad_()
                if fused:
                    w = _CholeskySolve.apply(a, torch.linalg.cholesky(a.detach()), rhs)
                else:
                    w = torch.linalg.solve_triangular(torch.linalg.cholesky(a), rhs, upper=False)
                w.backward(g)
                out.append((w.detach(), a.grad, rhs.grad))
            (w_ref, ga_ref, gk_ref), (w_new, ga_new, gk_new) = out
            assert torch.equal(w_ref, w_new)
            for ref, new in ((ga_ref, ga_new), (gk_ref, gk_new)):
                assert float((new - ref).abs().max()) <= 1e-10 * float(ref.abs().max())

    def test_underflowing_exp_is_exp(self):
        # float32 exp with the exponents below -104 set to +0 first: torch.exp bit for bit (compared as integers, since
        # with denormals flushed comparisons read a denormal as 0), with and without flushing (exponents in
        # (-104, -87.3) give denormals either way: they must survive), and the same gradient up to the sign of a zero
        from credalbook.gp.classifier import _exp_underflowing, _flush_denormals, _flushing_denormals

        gen = torch.Generator().manual_seed(0)
        x = torch.cat([torch.linspace(-120, 5, 250_001), -torch.rand(20_001, generator=gen) * 1e4]).float()
        g = torch.randn(x.shape, generator=gen)
        assert not _flushing_denormals()
        for flush in (False, True):
            with _flush_denormals(flush):
                assert _flushing_denormals() == flush
                a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
                ea, eb = _exp_underflowing(a), b.exp()
                bits = ea.detach().view(torch.int32)
                assert torch.equal(bits, eb.detach().view(torch.int32))
                assert int((bits == 0).sum()) > 20_000 and int(((bits > 0) & (bits < 0x00800000)).sum()) > 1_000
                ea.backward(g)
                eb.backward(g)
            assert torch.equal((a.grad + 0.0).view(torch.int32), (b.grad + 0.0).view(torch.int32))
        x64 = torch.tensor([-1e3, -120.0, 0.0], dtype=torch.float64)
        assert torch.equal(_exp_underflowing(x64), x64.exp()) and float(_exp_underflowing(x64)[1]) > 0

    def test_underflow_kernel_is_gpytorchs(self):
        # the fast model's RBF kernel: GPyTorch's matrix bit for bit on points many length scales apart, float32,
        # with learned inputs (the training path), and the same gradients for the inputs and the length scale
        from credalbook.gp.classifier import _flush_denormals, _UnderflowRBFKernel

        gen = torch.Generator().manual_seed(0)
        z = torch.randn(300, 2, generator=gen) * 8
        for flush in (False, True):
            with _flush_denormals(flush):
                out = []
                for cls in (gpytorch.kernels.RBFKernel, _UnderflowRBFKernel):
                    k = cls()
                    k.lengthscale = 0.3
                    zz = z.clone().requires_grad_()
                    mat = k(zz, zz[:200]).to_dense()
                    (mat * torch.arange(200.0)).sum().backward()
                    out.append((mat.detach(), zz.grad + 0.0, k.raw_lengthscale.grad + 0.0))
                (m0, gz0, gl0), (m1, gz1, gl1) = out
                assert torch.equal(m0.view(torch.int32), m1.view(torch.int32)) and float((m0 == 0).float().mean()) > 0.3
                assert torch.equal(gz0.view(torch.int32), gz1.view(torch.int32))
                assert torch.equal(gl0.view(torch.int32), gl1.view(torch.int32))

    def test_predictions_are_gpytorchs(self):
        # in eval mode the fast model runs GPyTorch's own code: bit-identical latent mean and variance
        old, new, _ = self._pair("float64", True)
        x = torch.randn(30, 2, dtype=torch.float64)
        with torch.no_grad():
            a, b = old.eval()(x), new.eval()(x)
        assert torch.equal(a.mean, b.mean) and torch.equal(a.variance, b.variance)

    def test_fit_matches(self):
        # the chapter's configuration (natural gradients), one epoch (40 steps) on N = 2 000 points, m = 64 >
        # |B| = 50. float64: state dict within 1e-9 and ELBO history within 1e-10 of GPyTorch's path
        # (relative to the largest entry). float32 (the default dtype): the fast path moves the fit by less
        # than float32 rounding itself does (old float32 vs old float64). With Adam on q(u) the single-step
        # gradients agree as closely (test_elbo_and_gradients_equal), but Adam's normalisation magnifies
        # rounding differences of near-zero gradients over many steps (about 1e-6 after 120 steps).
        rng = np.random.default_rng(0)
        x = rng.normal(size=(2000, 2))
        y = (x[:, 0] + 0.5 * rng.normal(size=2000) > 0).astype(int)
        kw = dict(n_inducing=64, epochs=1, batch_size=50, lr=0.05, natural_gradient=True, device="cpu")
        fits = {
            (dt, fast): fit_gp_classifier(x, y, dtype=dt, fast_step=fast, **kw)
            for dt in ("float64", "float32")
            for fast in (False, True)
        }

        def diff(a, b):
            return max(
                float(
                    (a.state_dict[k].double() - b.state_dict[k].double()).abs().max()
                    / a.state_dict[k].double().abs().max().clamp_min(1e-300)
                )
                for k in a.state_dict
                if a.state_dict[k].is_floating_point()
            )

        def hist(a, b):
            return max(abs(p - q) / abs(p) for p, q in zip(a.history, b.history))

        old64, new64, old32, new32 = (
            fits["float64", False],
            fits["float64", True],
            fits["float32", False],
            fits["float32", True],
        )
        assert new64.config == {**old64.config, "fast_step": True} and "fast_step" not in old64.config
        assert hist(old64, new64) <= 1e-10
        assert diff(old64, new64) <= 1e-9
        assert hist(old32, new32) <= hist(old64, old32)
        assert diff(old32, new32) <= diff(old64, old32)

    def test_small_models_run_gpytorchs_step(self, blobs):
        # with fewer inducing points than the minibatch and Adam on q(u), nothing changes: bit-identical fits
        x, y, _, _ = blobs
        a = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 3})
        b = fit_gp_classifier(x, y, device="cpu", fast_step=True, **{**FAST, "epochs": 3})
        assert all(torch.equal(a.state_dict[k], b.state_dict[k]) for k in a.state_dict)
        assert a.history == b.history

    def test_errors(self, blobs):
        x, y, _, _ = blobs
        with pytest.raises(ValueError, match="fast_step"):
            fit_gp_classifier(x, y, device="cpu", fast_step="yes", **FAST)


class TestFlushDenormals:
    @staticmethod
    def _far_apart():
        """Toy-like data: 600 points spread over a 40 × 40 square, ten default length scales across (kernel
        entries of far pairs fall below the smallest normal float32)."""
        rng = np.random.default_rng(1)
        x = rng.uniform(0, 40, size=(600, 2))
        y = (np.sin(x[:, 0] / 4) + 0.3 * rng.normal(size=600) > 0).astype(int)
        return x, y

    def test_values_move_only_below_the_normal_range(self):
        x, y = self._far_apart()
        xt = torch.as_tensor(x, dtype=torch.float32)
        k = torch.exp(-torch.cdist(xt, xt).square() / (2 * 0.6931**2))
        tiny = torch.finfo(torch.float32).tiny
        assert int(((k > 0) & (k < tiny)).sum()) > 100  # the regime the mode is for: denormal kernel entries
        kw = dict(n_inducing=64, epochs=2, batch_size=100, lr=0.05, natural_gradient=True, fast_step=True, device="cpu")
        a = fit_gp_classifier(x, y, flush_denormals=False, **kw)
        b = fit_gp_classifier(x, y, **kw)
        assert a.config == b.config and "flush_denormals" not in b.config
        assert not all(torch.equal(v, b.state_dict[key]) for key, v in a.state_dict.items())  # the mode acted
        assert max(abs(p - q) / abs(p) for p, q in zip(a.history, b.history)) <= 1e-6
        for key, v in a.state_dict.items():
            if v.is_floating_point() and v.isfinite().all():
                assert float((v - b.state_dict[key]).abs().max()) <= 1e-6 * float(v.abs().max()), key
            else:  # flags and the constraints' bounds (inf)
                assert torch.equal(v, b.state_dict[key]), key
        la, lb = a.latent(x, device="cpu", flush_denormals=False), b.latent(x, device="cpu")
        np.testing.assert_allclose(lb.mean, la.mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(lb.variance, la.variance, rtol=1e-5, atol=1e-6)

    def test_mode_is_set_for_the_fit_and_restored(self, blobs, monkeypatch):
        from credalbook.gp.classifier import _flushing_denormals

        x, y, _, _ = blobs
        calls = []
        real = torch.set_flush_denormal
        monkeypatch.setattr(torch, "set_flush_denormal", lambda on: calls.append(on) or real(on))
        assert not _flushing_denormals()
        fit = fit_gp_classifier(x, y, device="cpu", **{**FAST, "epochs": 1})
        assert calls == [True, False] and not _flushing_denormals()
        fit.latent(x, device="cpu")
        assert calls == [True, False] * 2 and not _flushing_denormals()
        calls.clear()
        fit_gp_classifier(x, y, device="cpu", flush_denormals=False, **{**FAST, "epochs": 1})
        fit.latent(x, device="cpu", flush_denormals=False)
        assert calls == []
        real(True)  # a caller that flushes already keeps flushing
        try:
            assert _flushing_denormals()
            fit.latent(x, device="cpu")
            assert calls == [True, True] and _flushing_denormals()
        finally:
            real(False)
        assert not _flushing_denormals()

    def test_errors(self, blobs, fitted):
        x, y, _, _ = blobs
        with pytest.raises(ValueError, match="flush_denormals"):
            fit_gp_classifier(x, y, device="cpu", flush_denormals="yes", **FAST)
        with pytest.raises(ValueError, match="flush_denormals"):
            fitted.latent(x, device="cpu", flush_denormals=1)


class TestCholeskyRetries:
    """K_uu that GPyTorch's three jittered Cholesky attempts (up to 1e-6) cannot factor: more attempts, up to 1e-3."""

    @staticmethod
    def _indefinite_fit(x, y, *, fast_step):
        # a negative variational jitter makes K_uu of these tightly clustered points indefinite (smallest eigenvalue
        # about -5e-5), as float32 rounding made it in the EU paper's toy fit of seed 5 ("train_2"), at step 146
        with gpytorch.settings.variational_cholesky_jitter(float_value=-5e-5):
            fit = fit_gp_classifier(x, y, n_inducing=64, epochs=2, batch_size=32, fast_step=fast_step, device="cpu")
            return fit, fit.latent(x, device="cpu")

    @pytest.mark.parametrize("fast_step", [False, True])
    def test_indefinite_kuu_is_factored(self, monkeypatch, fast_step):
        from linear_operator.utils.errors import NotPSDError

        import credalbook.gp.classifier as module

        rng = np.random.default_rng(0)
        x = 0.05 * rng.normal(size=(64, 2))
        y = (x[:, 0] > 0).astype(int)
        with pytest.warns(gpytorch.utils.warnings.NumericalWarning, match="added jitter of 1.0e-04"):
            fit, lat = self._indefinite_fit(x, y, fast_step=fast_step)
        assert np.isfinite(fit.history).all() and lat.mean.shape == (64,)
        assert np.isfinite(lat.mean).all() and (lat.variance > 0).all()
        # the same fit with GPyTorch's attempts fails; a caller's larger setting is kept
        monkeypatch.setattr(module, "CHOLESKY_MAX_TRIES", 3)
        with pytest.raises(NotPSDError, match="up to 1.0e-06"):
            self._indefinite_fit(x, y, fast_step=fast_step)
        with linear_operator.settings.cholesky_max_tries(6):
            again, _ = self._indefinite_fit(x, y, fast_step=fast_step)
        for k, v in fit.state_dict.items():
            assert torch.equal(v, again.state_dict[k]), k

    def test_factorable_fits_unchanged(self, blobs, monkeypatch):
        # only a matrix that three attempts fail to factor gets more: other fits are the same bit for bit
        import credalbook.gp.classifier as module

        x, y, _, _ = blobs
        now = fit_gp_classifier(x, y, device="cpu", **FAST)
        monkeypatch.setattr(module, "CHOLESKY_MAX_TRIES", 3)
        before = fit_gp_classifier(x, y, device="cpu", **FAST)
        for k, v in now.state_dict.items():
            assert torch.equal(v, before.state_dict[k]), k


def test_import_without_gpytorch_names_the_extra():
    """Without GPyTorch, ``import credalbook.gp`` says which extra to install."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['gpytorch'] = None\n"
        "try:\n    import credalbook.gp\n"
        "except ImportError as err:\n    print(type(err).__name__, err)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ImportError ") and 'pip install "credalbook[gp]"' in done.stdout
