"""Tests for credalbook.calibration.ensemble on synthetic member logits with known miscalibration."""

import warnings

import numpy as np
import pytest
import torch
from scipy.optimize import brute, minimize, minimize_scalar
from scipy.special import log_softmax, logsumexp, softmax
from sklearn.exceptions import ConvergenceWarning

from credalbook.calibration import (
    average_members,
    differentiable_ece,
    DynamicTemperatureScaling,
    ENSEMBLE_CALIBRATORS,
    PAPER_ENSEMBLE_FIT,
    PAPER_N_REGIONS,
    PostCombinationScaling,
    PreCombinationScaling,
    TemperatureScaling,
)
from credalbook.metrics import ece
from tests.helpers import labels_from, overconfident_members, tempered_members


def _ens_ece(probs, y):
    return ece(probs, y)  # 15 bins, the paper's


# ---- independent references: the objectives in NumPy, minimised by scipy.optimize -----------
def _np_nll(log_probs, y):
    return -log_softmax(log_probs, axis=-1)[np.arange(len(y)), y].mean()


def _np_ece(probs, y, n_bins=15):
    """Top-label ECE with equal-width bins [b/B, (b+1)/B) (Eqs. 13-14)."""
    conf, right = probs.max(1), (probs.argmax(1) == y)
    bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
    return np.abs(np.bincount(bins, weights=conf - right, minlength=n_bins)).sum() / len(y)


def _log_mean(z):
    """log of the uniform combination of the members' softmax (N, K)."""
    return logsumexp(log_softmax(z, axis=2), axis=1) - np.log(z.shape[1])


def _best_log_t(fun):
    """Bounded Brent on log t (for objectives unimodal in log t)."""
    res = minimize_scalar(fun, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12})
    return float(res.x), float(res.fun)


class TestConstants:
    def test_main(self):
        assert PAPER_ENSEMBLE_FIT == {"optimizer": "sgd", "lr": 0.1, "n_iter": 400}
        assert PAPER_N_REGIONS == 6
        assert ENSEMBLE_CALIBRATORS == {
            "pre": PreCombinationScaling,
            "post": PostCombinationScaling,
            "dyn": DynamicTemperatureScaling,
        }
        assert DynamicTemperatureScaling().n_regions == 6


class TestDifferentiableEce:
    def test_main(self):
        rng = np.random.default_rng(0)
        p = softmax(2 * rng.normal(size=(500, 4)), axis=1)
        y = rng.integers(0, 4, size=500)
        # hard bins: the value is the paper's ECE (15 bins = epsilon 1/30; 10 bins = 1/20)
        assert differentiable_ece(p, y).item() == pytest.approx(ece(p, y, epsilon=1 / 30), abs=1e-12)
        assert differentiable_ece(p, y, n_bins=10).item() == pytest.approx(ece(p, y, epsilon=0.05), abs=1e-12)
        # one bin: the DCA, |mean confidence - accuracy| (Eq. 16)
        dca = abs(p.max(1).mean() - (p.argmax(1) == y).mean())
        assert differentiable_ece(p, y, n_bins=1).item() == pytest.approx(dca, abs=1e-12)
        # label histograms: a_i is the share of labels equal to the arg-max
        hist = rng.integers(0, 3, size=(500, 4))
        hist[:, 0] += 1
        assert differentiable_ece(p, hist).item() == pytest.approx(ece(p, hist / hist.sum(1, keepdims=True)), abs=1e-12)
        # soft bins tend to the hard ECE as the bin temperature goes to 0
        hard = differentiable_ece(p, y).item()
        gaps = [abs(differentiable_ece(p, y, bin_temperature=s).item() - hard) for s in (1e-3, 1e-5, 1e-8)]
        assert gaps[0] > gaps[2] and gaps[2] < 1e-3

    def test_gradient(self):
        # the hard-bin gradient is the ECE's derivative (finite differences within the bins)
        rng = np.random.default_rng(1)
        logits = torch.tensor(rng.normal(size=(300, 3)), dtype=torch.float64)
        y = rng.integers(0, 3, size=300)
        log_t = torch.zeros((), dtype=torch.float64, requires_grad=True)
        value = differentiable_ece(torch.softmax(logits * torch.exp(-log_t), 1), y)
        value.backward()
        h = 1e-7
        plus = ece(torch.softmax(logits * np.exp(-h), 1).numpy(), y)
        minus = ece(torch.softmax(logits * np.exp(h), 1).numpy(), y)
        assert log_t.grad.item() == pytest.approx((plus - minus) / (2 * h), rel=1e-5)
        # the soft surrogate is differentiable too and gives a finite, non-zero gradient
        p = torch.softmax(logits, 1).requires_grad_(True)
        differentiable_ece(p, y, bin_temperature=1e-3).backward()
        assert torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0

    def test_errors(self):
        p = np.full((3, 2), 0.5)
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
            differentiable_ece(p, [0, 1, 0], n_bins=0)
        with pytest.raises(ValueError, match="bin_temperature must be a finite number > 0"):
            differentiable_ece(p, [0, 1, 0], bin_temperature=0.0)
        with pytest.raises(ValueError, match="probs must sum to 1 along the last axis; row 0 sums to 1.4"):
            differentiable_ece(np.full((3, 2), 0.7), [0, 1, 0])
        with pytest.raises(ValueError, match="simplex"):
            differentiable_ece(torch.full((3, 2), 0.7), [0, 1, 0])
        with pytest.raises(ValueError, match=r"labels must have shape \(3,\) or \(3, 2\)"):
            differentiable_ece(p, [0, 1])
        with pytest.raises(ValueError, match=r"probs must have shape \(N, K\)"):
            differentiable_ece(torch.ones(3, 2, 2), [0, 1, 0])
        with pytest.raises(ValueError, match=r"binary scores P\(y = 1\): finite and in \[0, 1\]"):
            differentiable_ece(torch.full((3,), 1.5), [0, 1, 0])
        with pytest.raises(ValueError, match=r"labels must lie in \{0, 1\}"):
            differentiable_ece(torch.full((3,), 0.5), [0, 2, 0])

        with pytest.raises(ValueError, match=r"n_bins must be an integer >= 1 and <= 1000000"):
            differentiable_ece(p, [0, 1, 0], n_bins=10**9)  # once tried to allocate 10^9 bins
        with pytest.raises(ValueError, match="probs must be numeric"):
            differentiable_ece(torch.full((3, 2), 0.5, dtype=torch.complex128), [0, 1, 0])  # was cast, imag dropped
        with pytest.raises(ValueError, match="probs must be numeric"):
            differentiable_ece(p.astype(complex), [0, 1, 0])

    def test_binary_scores(self):
        """1-D scores P(y = 1), as arrays and as tensors (gradient through the stacking), are the rows [1 - p, p]."""
        rng = np.random.default_rng(0)
        s = rng.random(50)
        y = rng.random(50) < s
        want = differentiable_ece(np.stack([1 - s, s], axis=1), y.astype(int), n_bins=5)
        assert float(differentiable_ece(s, y, n_bins=5)) == float(want)
        t = torch.tensor(s, requires_grad=True)
        value = differentiable_ece(t, y, n_bins=5, bin_temperature=1e-2)
        value.backward()
        assert t.grad is not None and torch.isfinite(t.grad).all()

    def test_low_precision(self):
        """float16 softmax rows (off by ~1e-3) are accepted as tensors and arrays, with the float64 value."""
        rng = np.random.default_rng(2)
        p = softmax(rng.normal(size=(200, 10)), axis=1)
        y = rng.integers(0, 10, size=200)
        p16 = p.astype(np.float16)
        assert np.abs(p16.astype(np.float64).sum(1) - 1).max() > 1e-4  # the old fixed tolerance rejected it
        ref = ece(p16, y, epsilon=1 / 30)  # hard bins: the ECE of the same (float16) rows
        assert differentiable_ece(torch.from_numpy(p16), y).item() == pytest.approx(ref, abs=1e-12)
        assert differentiable_ece(p16, y).item() == pytest.approx(ref, abs=1e-12)
        with pytest.raises(ValueError, match="simplex"):  # float16 rows still have to sum to 1
            differentiable_ece(torch.from_numpy(p16 * np.float16(1.1)), y)


class TestPreCombinationScaling:
    def test_main(self):
        # member m is calibrated at temperature 2 * scales[m]: both criteria recover it, by
        # default and with the paper's SGD (App. A.4)
        z, y = tempered_members(temperature=2.0, scales=(0.5, 1.0, 2.0), seed=0)
        for criterion, options, tol in (("nll", {}, 0.05), ("ece", {}, 0.1), ("ece", PAPER_ENSEMBLE_FIT, 0.1)):
            pre = PreCombinationScaling(criterion=criterion).fit(z, y, **options)
            np.testing.assert_allclose(pre.temperatures, [1.0, 2.0, 4.0], rtol=tol)
            assert pre.n_members_ == 3
        assert len(pre.history_) == 401 and pre.n_iter_ == 400  # SGD: the objective per step
        # calibrated member logits and the combined prediction (Eq. 27)
        member = pre.predict_logits(z)
        np.testing.assert_allclose(member, z / pre.temperatures[:, None], rtol=1e-12)
        np.testing.assert_allclose(pre.predict_proba(z), softmax(member, axis=2).mean(axis=1), rtol=1e-10)

    def test_single_member_is_temperature_scaling(self):
        z, y = tempered_members(n=3000, temperature=1.7, seed=1)
        pre = PreCombinationScaling(criterion="nll").fit(z, y, optimizer="lbfgs", cv_fraction=0)
        ts = TemperatureScaling().fit(z[:, 0], y, optimizer="lbfgs", cv_fraction=0)
        assert pre.temperatures[0] == pytest.approx(ts.temperature, rel=1e-8)
        np.testing.assert_allclose(pre.predict_proba(z), ts.predict_proba(z[:, 0]), atol=1e-10)
        # with SGD and the ECE, M = 1 pre- and post-combination take identical steps
        pre = PreCombinationScaling(criterion="ece").fit(z, y, optimizer="sgd")
        post = PostCombinationScaling(criterion="ece").fit(z, y, optimizer="sgd")
        assert pre.temperatures[0] == pytest.approx(post.temperature, rel=1e-10)
        # by default both reach the optimum of the one member's criterion
        for criterion in ("nll", "ece"):
            pre = PreCombinationScaling(criterion=criterion).fit(z, y)
            post = PostCombinationScaling(criterion=criterion).fit(z, y)
            assert pre.temperatures[0] == pytest.approx(post.temperature, rel=1e-5)

    def test_matches_scipy(self):
        # target "members", NLL: each t_m is temperature scaling of member m alone
        z, y = overconfident_members(n=2000, seed=10)
        pre = PreCombinationScaling().fit(z, y)  # the default criterion
        for m in range(3):
            log_t, _ = _best_log_t(lambda lt: _np_nll(z[:, m] * np.exp(-lt), y))
            assert pre.temperatures[m] == pytest.approx(np.exp(log_t), rel=1e-3)
        # target "ensemble", NLL of Eq. 27: BFGS on the log-temperatures
        joint = PreCombinationScaling(criterion="nll", fit_to="ensemble").fit(z, y)

        def nll(log_t):
            members = log_softmax(z * np.exp(-log_t)[:, None], axis=2)
            return _np_nll(logsumexp(members, axis=1) - np.log(3), y)

        ref = minimize(nll, np.zeros(3), method="BFGS", options={"gtol": 1e-9})
        assert nll(np.log(joint.temperatures)) == pytest.approx(ref.fun, abs=1e-6)
        np.testing.assert_allclose(joint.temperatures, np.exp(ref.x), rtol=1e-3)
        # target "members", ECE: each member's own ECE, within the 1/N-scale ruggedness of the
        # hard-binned ECE of the minimum on a fine grid of log t
        pre = PreCombinationScaling(criterion="ece").fit(z, y)
        for m in range(3):

            def member_ece(lt, m=m):
                return _np_ece(softmax(z[:, m] * np.exp(-np.ravel(lt)[0]), axis=1), y)

            grid_min = brute(member_ece, [(-1.0, 3.0)], Ns=801, finish=None, full_output=True)[1]
            assert member_ece(np.log(pre.temperatures[m])) <= grid_min + 1e-3

    def test_targets_and_weights(self):
        z, y = overconfident_members(seed=2)
        members = PreCombinationScaling(criterion="nll").fit(z, y)
        joint = PreCombinationScaling(criterion="nll", fit_to="ensemble").fit(z, y)
        # calibrating each member leaves the ensemble under-confident (Sec. 4.1): temperatures
        # fitted for the ensemble are lower and its NLL is better
        assert np.all(joint.temperatures < members.temperatures)
        nll = [-np.log(c.predict_proba(z)[np.arange(len(y)), y]).mean() for c in (members, joint)]
        assert nll[1] < nll[0] - 0.01
        # weight 0 on all but member 0: its temperature is ordinary temperature scaling
        pre = PreCombinationScaling(criterion="nll", fit_to="ensemble", weights=[1.0, 0.0, 0.0]).fit(
            z, y, optimizer="lbfgs", cv_fraction=0
        )
        ts = TemperatureScaling().fit(z[:, 0], y, optimizer="lbfgs", cv_fraction=0)
        assert pre.temperatures[0] == pytest.approx(ts.temperature, rel=1e-6)
        np.testing.assert_array_equal(pre.temperatures[1:], 1.0)  # no gradient reaches them

    def test_errors(self):
        z, y = tempered_members(n=50, scales=(1.0, 2.0))
        with pytest.raises(ValueError, match="fit_to must be one of"):
            PreCombinationScaling(fit_to="member")
        with pytest.warns(FutureWarning, match="'target' was renamed to 'fit_to'"):
            assert PreCombinationScaling(target="ensemble").fit_to == "ensemble"
        with pytest.warns(FutureWarning, match="'targets' was renamed to 'labels'"):
            old = PreCombinationScaling().fit(z, targets=y)
        assert old.temperatures.tolist() == PreCombinationScaling().fit(z, labels=y).temperatures.tolist()
        with pytest.raises(ValueError, match="criterion must be one of"):
            PreCombinationScaling(criterion="brier")
        with pytest.raises(ValueError, match=r"logits must have shape \(N, M, K\)"):
            PreCombinationScaling().fit(z[:, 0], y)
        with pytest.raises(ValueError, match="weights must have last dimension M = 2"):
            PreCombinationScaling(weights=[0.2, 0.3, 0.5]).fit(z, y)
        with pytest.raises(ValueError, match="weights must sum to 1"):
            PreCombinationScaling(weights=[0.2, 0.3]).fit(z, y)
        with pytest.raises(ValueError, match="not fitted yet"):
            PreCombinationScaling().predict_proba(z)
        with pytest.raises(ValueError, match="n_iter sets the steps of optimizer='sgd'"):
            PreCombinationScaling().fit(z, y, n_iter=2)
        pre = PreCombinationScaling().fit(z, y, optimizer="sgd", n_iter=2)
        with pytest.raises(ValueError, match="logits must have 2 members"):
            pre.predict_proba(np.concatenate([z, z], axis=1))
        with pytest.raises(ValueError, match="logits must have 4 classes"):
            pre.predict_proba(z[:, :, :3])


class TestPostCombinationScaling:
    def test_main(self):
        # identical members: the ensemble is the member, calibrated at the known temperature
        for temperature in (0.5, 2.5):
            z, y = tempered_members(n=6000, temperature=temperature, scales=(1.0, 1.0), seed=3)
            for criterion, tol in (("nll", 0.04), ("ece", 0.06)):
                post = PostCombinationScaling(criterion=criterion).fit(z, y)
                assert post.temperature == pytest.approx(temperature, rel=tol)
        sgd = PostCombinationScaling(criterion="ece").fit(z, y, **PAPER_ENSEMBLE_FIT)
        assert sgd.temperature == pytest.approx(temperature, rel=0.06)
        # Eq. 28: softmax(log p̄ / t)
        expected = softmax(np.log(softmax(z, axis=2).mean(axis=1)) / post.temperature, axis=1)
        np.testing.assert_allclose(post.predict_proba(z), expected, rtol=1e-9)

    def test_matches_scipy(self):
        z, y = overconfident_members(n=2000, seed=11)
        log_p = _log_mean(z)
        # NLL of Eq. 28: unimodal in log t, so bounded Brent finds its minimum
        post = PostCombinationScaling().fit(z, y)  # the default criterion
        log_t, nll = _best_log_t(lambda lt: _np_nll(log_p * np.exp(-lt), y))
        assert post.temperature == pytest.approx(np.exp(log_t), rel=1e-3)
        assert _np_nll(log_p / post.temperature, y) == pytest.approx(nll, abs=1e-6)
        # the hard-binned ECE (the paper's criterion) is rugged at the 1/N scale: the default
        # comes within 1e-3 of the minimum on a fine grid
        post = PostCombinationScaling(criterion="ece").fit(z, y)

        def ens_ece(lt):
            return _np_ece(softmax(log_p * np.exp(-np.ravel(lt)[0]), axis=1), y)

        grid_min = brute(ens_ece, [(-1.0, 3.0)], Ns=801, finish=None, full_output=True)[1]
        assert ens_ece(np.log(post.temperature)) <= grid_min + 1e-3

    def test_lowers_ece_and_keeps_argmax(self):
        z, y = overconfident_members(seed=4)
        z_test, y_test = overconfident_members(seed=5)
        before = _ens_ece(average_members(softmax(z, axis=2)), y)
        post = PostCombinationScaling(criterion="ece").fit(z, y)
        assert post.temperature > 1.5  # the ensemble is over-confident
        assert _ens_ece(post.predict_proba(z), y) < 0.3 * before
        p_test, p_raw = post.predict_proba(z_test), average_members(softmax(z_test, axis=2))
        assert _ens_ece(p_test, y_test) < 0.4 * _ens_ece(p_raw, y_test)
        np.testing.assert_array_equal(p_test.argmax(1), p_raw.argmax(1))
        np.testing.assert_allclose(p_test.sum(1), 1.0, atol=1e-12)
        # Adam through the base class's loop reaches a similar temperature
        adam = PostCombinationScaling(criterion="nll").fit(z, y, optimizer="adam", lr=0.05, seed=0, max_epochs=20)
        nll = PostCombinationScaling(criterion="nll").fit(z, y)
        assert adam.temperature == pytest.approx(nll.temperature, rel=0.1)

    def test_errors(self):
        z, y = tempered_members(n=60, scales=(1.0, 2.0))
        with pytest.raises(ValueError, match="optimizer must be one of"):
            PostCombinationScaling().fit(z, y, optimizer="rmsprop")
        with pytest.raises(ValueError, match=r"\['max_epochs'\] apply only to optimizer"):
            PostCombinationScaling().fit(z, y, max_epochs=3)
        with pytest.raises(
            ValueError,
            match=r"\['max_iter'\] apply only to optimizer='auto', "
            r"'adam' or 'lbfgs'",
        ):
            PostCombinationScaling().fit(z, y, optimizer="sgd", max_iter=3)
        with pytest.raises(ValueError, match=r"\['lr'\] apply only to optimizer='adam'"):
            PostCombinationScaling().fit(z, y, lr=0.1)
        with pytest.raises(ValueError, match="lr must be a finite number > 0"):
            PostCombinationScaling().fit(z, y, optimizer="sgd", lr=0.0)
        with pytest.raises(ValueError, match="n_iter must be an integer >= 1"):
            PostCombinationScaling().fit(z, y, optimizer="sgd", n_iter=0)
        with pytest.raises(ValueError, match="n_iter sets the steps of optimizer='sgd'.*max_iter"):
            PostCombinationScaling().fit(z, y, n_iter=10)
        with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
            PostCombinationScaling(n_bins=0)
        with pytest.raises(ValueError, match="bin_temperature must be a finite number > 0"):
            PostCombinationScaling(bin_temperature=-1.0)
        with pytest.raises(ValueError, match=r"weights must have shape \(M,\)"):
            PostCombinationScaling(weights=[[0.5, 0.5]])
        with pytest.raises(FloatingPointError, match="lower lr"):
            PostCombinationScaling(criterion="nll").fit(z, z.mean(1).argmax(1), optimizer="sgd", lr=1e6)
        with pytest.raises(ValueError, match=r"labels must be labels in \[0, 4\)"):
            PostCombinationScaling().fit(z, y + 4)


class TestDynamicTemperatureScaling:
    def test_main(self):
        # two kinds of instances: over-confident ones (logits 2x too large) with high and
        # under-confident ones (logits 2x too small) with low ensemble max probability; one
        # temperature cannot serve both, region-specific ones can
        rng = np.random.default_rng(6)
        n, k = 4000, 4
        s = rng.normal(size=(n, k)) * np.where(rng.random(n) < 0.5, 2.0, 0.7)[:, None]
        y = labels_from(softmax(s, axis=1), rng)
        sure = softmax(s, axis=1).max(1) > 0.6
        z = np.where(sure[:, None], 2 * s, s / 2)[:, None, :].repeat(2, axis=1)
        dyn = DynamicTemperatureScaling().fit(z, y)
        post = PostCombinationScaling().fit(z, y)
        assert dyn.temperatures.shape == (6,) and dyn.region_edges_.shape == (7,)
        assert np.all(dyn.temperatures[:3] < 0.8) and np.all(dyn.temperatures[-2:] > 1.5)
        assert _ens_ece(dyn.predict_proba(z), y) < 0.3 * _ens_ece(post.predict_proba(z), y)
        # equal-mass regions: N / R instances each
        np.testing.assert_allclose(np.bincount(dyn.region_index(z), minlength=6), n / 6, atol=2)
        np.testing.assert_array_equal(dyn.predict_proba(z).argmax(1), z[:, 0].argmax(1))
        # Eq. 29 by hand
        conf = softmax(z[:, 0], axis=1).max(1)
        r = np.searchsorted(dyn.region_edges_[1:-1], conf, side="right")
        expected = softmax(np.log(softmax(z[:, 0], axis=1)) / dyn.temperatures[r][:, None], axis=1)
        np.testing.assert_allclose(dyn.predict_proba(z), expected, rtol=1e-9)

    def test_matches_scipy(self):
        z, y = overconfident_members(n=3000, seed=12)
        log_p = _log_mean(z)
        # NLL: each region's temperature only scales its own instances, so it is the bounded
        # Brent minimum of that region's NLL
        dyn = DynamicTemperatureScaling(4).fit(z, y)  # the default criterion
        r = dyn.region_index(z)
        for j in range(4):
            log_t, _ = _best_log_t(lambda lt: _np_nll(log_p[r == j] * np.exp(-lt), y[r == j]))
            assert dyn.temperatures[j] == pytest.approx(np.exp(log_t), rel=1e-3)

        def nll(log_t):
            return _np_nll(log_p * np.exp(-np.asarray(log_t))[r][:, None], y)

        ref = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-9})
        assert nll(np.log(dyn.temperatures)) == pytest.approx(ref.fun, abs=1e-6)
        # the hard-binned ECE couples the regions through the bins and has many local minima:
        # the default reaches a coordinate-wise minimum (none of the temperatures alone can
        # lower it beyond the 1/N ruggedness, on a fine grid), with a lower ECE than the
        # paper's SGD
        dyn = DynamicTemperatureScaling(4, criterion="ece").fit(z, y)
        assert np.array_equal(dyn.region_index(z), r)

        def ens_ece(log_t):
            return _np_ece(softmax(log_p * np.exp(-np.ravel(log_t))[r][:, None], axis=1), y)

        fitted = np.log(dyn.temperatures)
        for j in range(4):

            def along(v, j=j):
                return ens_ece(np.r_[fitted[:j], np.ravel(v)[0], fitted[j + 1 :]])

            grid_min = brute(along, [(-1.0, 3.0)], Ns=401, finish=None, full_output=True)[1]
            assert ens_ece(fitted) <= grid_min + 1e-3
        sgd = DynamicTemperatureScaling(4, criterion="ece").fit(z, y, **PAPER_ENSEMBLE_FIT)
        assert ens_ece(fitted) < ens_ece(np.log(sgd.temperatures))

    def test_convergence_warning(self):
        z, y = overconfident_members(n=1000, seed=13)
        with pytest.warns(
            ConvergenceWarning,
            match=r"DynamicTemperatureScaling\.fit: the "
            r"coordinate search stopped at max_iter=1",
        ):
            DynamicTemperatureScaling(3, criterion="ece").fit(z, y, max_iter=1)
        with pytest.warns(ConvergenceWarning, match=r"PreCombinationScaling\.fit: L-BFGS stopped"):
            PreCombinationScaling().fit(z, y, max_iter=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            DynamicTemperatureScaling(3, criterion="ece").fit(z, y)
            DynamicTemperatureScaling(3).fit(z, y)

    def test_one_region_is_post_combination(self):
        z, y = overconfident_members(n=2000, seed=7)
        for criterion in ("ece", "nll"):
            dyn = DynamicTemperatureScaling(1, criterion=criterion).fit(z, y)
            post = PostCombinationScaling(criterion=criterion).fit(z, y)
            assert dyn.temperatures[0] == pytest.approx(post.temperature, rel=1e-12)
            np.testing.assert_allclose(dyn.predict_proba(z), post.predict_proba(z), rtol=1e-12)
        np.testing.assert_array_equal(dyn.region_edges_, [0.0, 1.0])

    def test_lowers_ece_of_overconfident_ensemble(self):
        z, y = overconfident_members(seed=8)
        before = _ens_ece(average_members(softmax(z, axis=2)), y)
        nll_before = -np.log(average_members(softmax(z, axis=2))[np.arange(len(y)), y]).mean()
        for regions in ("equal_mass", "equal_width", (0.3, 0.6)):
            # the NLL (default) and the paper's ECE criterion; the members' noise is not a
            # temperature, so the NLL optimum lowers the ECE less than the ECE criterion does
            dyn = DynamicTemperatureScaling(regions=regions).fit(z, y)
            probs = dyn.predict_proba(z)
            assert -np.log(probs[np.arange(len(y)), y]).mean() < nll_before - 0.1
            assert _ens_ece(probs, y) < 0.5 * before
            dyn = DynamicTemperatureScaling(regions=regions, criterion="ece").fit(z, y)
            assert _ens_ece(dyn.predict_proba(z), y) < 0.3 * before
            np.testing.assert_array_equal(dyn.predict_proba(z).argmax(1), softmax(z, axis=2).mean(1).argmax(1))
        np.testing.assert_allclose(dyn.region_edges_, [0.0, 0.3, 0.6, 1.0])
        width = DynamicTemperatureScaling(4, regions="equal_width").fit(z, y, optimizer="sgd", n_iter=1)
        np.testing.assert_allclose(width.region_edges_, [0, 0.25, 0.5, 0.75, 1.0])

    def test_errors(self):
        z, y = tempered_members(n=60, scales=(1.0, 2.0))
        with pytest.raises(ValueError, match="n_regions must be an integer >= 1"):
            DynamicTemperatureScaling(0)
        with pytest.raises(ValueError, match="regions must be one of"):
            DynamicTemperatureScaling(regions="quantile")
        with pytest.raises(ValueError, match="increasing sequence of numbers in"):
            DynamicTemperatureScaling(regions=(0.6, 0.3))
        with pytest.raises(ValueError, match="increasing sequence of numbers in"):
            DynamicTemperatureScaling(regions=(0.0, 0.5))
        with pytest.raises(ValueError, match="not fitted yet"):
            DynamicTemperatureScaling().region_index(z)
