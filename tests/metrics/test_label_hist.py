"""Tests for credalbook.metrics.label_hist (Mimori et al. 2022, Secs. 3-4, Apps. B-C).

Hand-computed values, literal loop implementations of the paper's equations, Monte-Carlo checks
of unbiasedness (label histograms simulated from a known Q; the mean over replicates is compared
with the value computed from Q within 4 standard errors), the debiasing experiment of Sec. 3.3,
and agreement of the general-phi U-statistic with the closed-form disagreement path.
"""

import math
import warnings

import numpy as np
import pytest
import torch

from credalbook.metrics import (
    binned_calibration_error,
    binned_calibration_loss,
    brier_score,
    check_label_hist,
    cpe_loss_decomposition,
    CPELossDecomposition,
    dispersion_loss,
    epistemic_loss,
    expected_squared_loss,
    ReliabilityCurve,
)
from credalbook.metrics.label_hist import as_label_hist_tensor
from tests.helpers import bin_index, draw_label_hists, label_case, within_se_detail


# ----------------------------------------------------------------------------------------------
# Literal references (simulation helpers: tests/helpers.py)
# ----------------------------------------------------------------------------------------------
def _ref_decomposition(y, z, n_bins):
    """Eqs. (27)-(31), (35)-(36) written out with loops (the EL/DL terms assume every n_i >= 2)."""
    n_inst, k = y.shape
    n = y.sum(axis=1)
    mu = y / n[:, None]
    out = dict(el_p=0.0, el_d=0.0, cl_p=0.0, cl_d=0.0, dl_p=0.0, dl_d=0.0)
    for c in range(k):
        for b in range(n_bins):
            members = [i for i in range(n_inst) if bin_index(z[i, c], n_bins) == b]
            m = len(members)
            if m == 0:
                continue
            cbar = sum(mu[i, c] for i in members) / m
            zbar = sum(z[i, c] for i in members) / m
            cl_p = m / n_inst * (cbar - zbar) ** 2
            sigma2 = sum(mu[i, c] ** 2 for i in members) / m - cbar**2
            cl_d = cl_p - m / n_inst * sigma2 / (m - 1) if m >= 2 else 0.0
            dl_p = sum(((mu[i, c] - cbar) - (z[i, c] - zbar)) ** 2 for i in members) / n_inst
            el_p = sum((mu[i, c] - z[i, c]) ** 2 for i in members) / n_inst
            el_corr = sum(mu[i, c] * (1 - mu[i, c]) / (n[i] - 1) for i in members if n[i] > 1) / n_inst
            out["el_p"] += el_p
            out["el_d"] += el_p - el_corr
            out["cl_p"] += cl_p
            out["cl_d"] += cl_d
            out["dl_p"] += dl_p
            # Eq. (36); a one-instance bin has CL_hat = 0, so its DL_hat is its EL_hat.
            out["dl_d"] += dl_p - el_corr + (m / n_inst * sigma2 / (m - 1) if m >= 2 else cl_p)
    return out


# ----------------------------------------------------------------------------------------------
class TestCheckLabelHist:
    def test_main(self):
        out = check_label_hist([[2.0, 0.0, 1.0], [0, 3, 0]], n_classes=3)
        assert out.dtype == np.int64 and out.tolist() == [[2, 0, 1], [0, 3, 0]]
        assert check_label_hist([[0, 0], [1, 0]], min_labels=0).shape == (2, 2)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"label_hist must hold non-negative counts; label_hist\[\(0, 1\)\] = -1"):
            check_label_hist([[1, -1], [1, 1]])
        with pytest.raises(ValueError, match="integer counts"):
            check_label_hist([[1.5, 0.5]])
        with pytest.raises(ValueError, match="finite"):
            check_label_hist([[np.nan, 1.0]])
        with pytest.raises(ValueError, match="shape"):
            check_label_hist([1, 2, 3])
        with pytest.raises(ValueError, match="K = 3"):
            check_label_hist([[1, 1]], n_classes=3)
        with pytest.raises(ValueError, match="row 1 has n_i = 0"):
            check_label_hist([[1, 1], [0, 0]])
        with pytest.raises(ValueError, match="dtype"):
            check_label_hist([[True, False]])
        for bad in (np.array([[1 + 0j, 2]]), np.array([[1, 2]], dtype=object), [["1", "2"]]):  # complex was accepted
            with pytest.raises(ValueError, match="label_hist must hold non-negative integer counts, got dtype"):
                check_label_hist(bad)


class TestAsLabelHistTensor:
    def test_main(self):
        hist = as_label_hist_tensor(np.array([2, 0, 1]), 3, 3)
        assert hist.dtype == torch.float64 and hist.tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
        assert as_label_hist_tensor(np.array([2.0, 0.0]), 2, 3).tolist() == [[0, 0, 1], [1, 0, 0]]
        counts = as_label_hist_tensor([[2, 0], [0, 0]], 2, 2)
        assert counts.dtype == torch.float64 and counts.tolist() == [[2, 0], [0, 0]]  # rows without labels allowed

    def test_errors(self):
        with pytest.raises(ValueError, match="labels must hold integer labels"):
            as_label_hist_tensor(np.array([True, False]), 2, 2)
        with pytest.raises(ValueError, match=r"must have shape \(3,\) or \(3, 2\)"):
            as_label_hist_tensor(np.zeros(2, int), 3, 2)
        with pytest.raises(ValueError, match=r"y given as labels \(N,\) must be integers"):
            as_label_hist_tensor(np.array([0.5, 1.0]), 2, 2, name="y")
        with pytest.raises(ValueError, match=r"must be labels in \[0, 2\); got labels from 0 to 2"):
            as_label_hist_tensor(np.array([0, 2]), 2, 2)
        with pytest.raises(ValueError, match="at least one label; all counts are 0"):
            as_label_hist_tensor(np.zeros((2, 2), int), 2, 2)
        with pytest.raises(ValueError, match="non-negative counts"):
            as_label_hist_tensor([[1, -1], [0, 1]], 2, 2)


class TestExpectedSquaredLoss:
    def test_main(self):
        assert expected_squared_loss([[0.8, 0.2], [0.5, 0.5]], [[2, 0], [1, 1]]) == pytest.approx(0.29)
        # One label per instance: the multi-class Brier score.
        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(4), size=30)
        y = rng.integers(0, 4, size=30)
        assert expected_squared_loss(p, np.eye(4, dtype=int)[y]) == pytest.approx(brier_score(p, y))

    def test_unbiased(self):
        q, z, counts = label_case(n_labels=(1, 2, 3, 7))
        w = np.random.default_rng(5).uniform(0.1, 2.0, size=len(counts))
        per_instance = (q * (1 - q) + (q - z) ** 2).sum(axis=1)
        hists = draw_label_hists(q, counts, 2000)
        for weights, truth in [(None, per_instance.mean()), (w, (w * per_instance).sum() / w.sum())]:
            est = [expected_squared_loss(z, h, instance_weights=weights) for h in hists]
            ok, mean, truth, se = within_se_detail(est, truth)
            assert ok, (mean, truth, se)

    def test_errors(self):
        p = [[0.5, 0.5], [0.2, 0.8]]
        with pytest.raises(ValueError, match="n_i = 0"):
            expected_squared_loss(p, [[1, 0], [0, 0]])
        with pytest.raises(ValueError, match="same number of instances"):
            expected_squared_loss(p, [[1, 0]])
        with pytest.raises(ValueError, match="K = 2"):
            expected_squared_loss(p, [[1, 0, 0], [0, 1, 0]])
        with pytest.raises(ValueError, match="sum to 1"):
            expected_squared_loss([[0.5, 0.6], [0.2, 0.8]], [[1, 0], [0, 1]])
        with pytest.raises(ValueError, match="instance_weights"):
            expected_squared_loss(p, [[1, 0], [0, 1]], instance_weights=[1.0, -1.0])
        with pytest.raises(ValueError, match="instance_weights must be numeric"):
            expected_squared_loss(p, [[1, 0], [0, 1]], instance_weights=[1.0, 1j])


class TestEpistemicLoss:
    def test_main(self):
        h, p = [[2, 0], [1, 1]], [[0.8, 0.2], [0.5, 0.5]]
        assert epistemic_loss(p, h, debiased=False) == pytest.approx(0.04)
        assert epistemic_loss(p, h) == pytest.approx((0.08 - 0.5) / 2)
        # Single-label instances are left out of the unbiased estimate only.
        h1, p1 = h + [[1, 0]], p + [[0.1, 0.9]]
        assert epistemic_loss(p1, h1) == pytest.approx(epistemic_loss(p, h))
        assert epistemic_loss(p1, h1, debiased=False) == pytest.approx((0.08 + 0 + 1.62) / 3)

    def test_unbiased(self):
        q, z, counts = label_case(n_labels=(1, 2, 3, 5))
        keep = counts >= 2
        truth = ((q - z) ** 2).sum(axis=1)[keep].mean()
        hists = draw_label_hists(q, counts, 2000)
        est = [epistemic_loss(z, h) for h in hists]
        ok, mean, truth, se = within_se_detail(est, truth)
        assert ok, (mean, truth, se)
        plug = np.array([epistemic_loss(z, h, debiased=False) for h in hists[:300]])
        assert plug.mean() - ((q - z) ** 2).sum(axis=1).mean() > 20 * plug.std() / math.sqrt(300)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_i >= 2"):
            epistemic_loss([[0.5, 0.5], [0.5, 0.5]], [[1, 0], [0, 1]])
        with pytest.raises(ValueError, match="non-negative"):
            epistemic_loss([[0.5, 0.5], [0.5, 0.5]], [[3, -1], [0, 2]])


class TestCPELossDecomposition:
    def test_main(self):
        q, z, counts = label_case(n=80, k=3, seed=3)
        y = draw_label_hists(q, counts, 1, seed=4)[0]
        d = cpe_loss_decomposition(z, y, n_bins=5)
        assert isinstance(d, CPELossDecomposition)
        ref = _ref_decomposition(y, z, 5)
        for got, key in [
            (d.el_plugin, "el_p"),
            (d.el_debiased, "el_d"),
            (d.cl_plugin, "cl_p"),
            (d.cl_debiased, "cl_d"),
            (d.dl_plugin, "dl_p"),
            (d.dl_debiased, "dl_d"),
        ]:
            assert got == pytest.approx(ref[key], abs=1e-12), key
        # EL = CL + DL bin by bin; the plug-in DL terms are sums of squares (Prop. 4).
        np.testing.assert_allclose(d.el_plugin_bins, d.cl_plugin_bins + d.dl_plugin_bins, atol=1e-15)
        np.testing.assert_allclose(d.el_debiased_bins, d.cl_debiased_bins + d.dl_debiased_bins, atol=1e-15)
        assert (d.dl_plugin_bins >= -1e-15).all()
        assert d.el_plugin == pytest.approx(epistemic_loss(z, y, debiased=False))
        assert d.el_debiased == pytest.approx(epistemic_loss(z, y))
        assert d.cl_debiased == pytest.approx(binned_calibration_loss(z, y, n_bins=5))
        assert d.ce_plugin == pytest.approx(math.sqrt(d.cl_plugin))
        np.testing.assert_allclose(
            d.cl_per_class(debiased=False), binned_calibration_loss(z, y, n_bins=5, debiased=False, per_class=True)
        )
        assert d.counts.sum() == 80 * 3 and d.n_instances == d.n_debiased_instances == 80
        # Invariances: permuting instances, relabelling classes.
        perm, cls = np.random.default_rng(0).permutation(80), [2, 0, 1]
        d2 = cpe_loss_decomposition(z[perm][:, cls], y[perm][:, cls], n_bins=5)
        assert d2.el_debiased == pytest.approx(d.el_debiased) and d2.cl_debiased == pytest.approx(d.cl_debiased)
        # Reliability curves: per class, and pooled over classes.
        c0 = d.reliability_curve(0)
        assert isinstance(c0, ReliabilityCurve) and c0.counts.tolist() == d.counts[0].tolist()
        pooled = d.reliability_curve()
        filled = pooled.counts > 0
        assert np.nansum(pooled.observed * pooled.counts) == pytest.approx((y / y.sum(1, keepdims=True)).sum())
        assert np.all(pooled.mean_predicted[filled] >= pooled.bin_edges[:-1][filled] - 1e-12)
        # Explicit edges equal to the default ones give the same result.
        d3 = cpe_loss_decomposition(z, y, bin_edges=np.linspace(0, 1, 6))
        assert d3.cl_debiased == pytest.approx(d.cl_debiased)

    def test_errors(self):
        d = cpe_loss_decomposition([[0.5, 0.5], [0.9, 0.1]], [[1, 1], [2, 0]])
        with pytest.raises(ValueError, match="class_index"):
            d.reliability_curve(2)
        with pytest.raises(ValueError, match="bin_edges"):
            cpe_loss_decomposition([[0.5, 0.5], [0.9, 0.1]], [[1, 1], [2, 0]], bin_edges=[0.0, 0.7, 0.5, 1.0])
        with pytest.raises(ValueError, match="n_bins"):
            cpe_loss_decomposition([[0.5, 0.5], [0.9, 0.1]], [[1, 1], [2, 0]], n_bins=0)


class TestBinnedCalibrationLoss:
    def test_main(self):
        h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
        assert binned_calibration_loss(p, h, n_bins=2, debiased=False) == pytest.approx(2 * (0.015 + 0.04 / 3))
        # Debiased: bins of one instance give 0; the two-instance bin subtracts (2/3) * 0.0625 / 1.
        assert binned_calibration_loss(p, h, n_bins=2) == pytest.approx(2 * (0.015 - 2 / 3 * 0.0625))
        # Single labels are allowed and agree with the loop reference (with mu = y).
        q, z, _ = label_case(n=50, k=2, seed=7)
        y1 = draw_label_hists(q, np.ones(50, dtype=int), 1)[0]
        ref = _ref_decomposition(np.vstack([y1]), z, 15)
        assert binned_calibration_loss(z, y1) == pytest.approx(ref["cl_d"], abs=1e-12)

    def test_debiasing_calibrated(self):
        """Sec. 3.3 / App. B.5: a perfect predictor (z = Q, Q ~ U(0, 1)), two labels, 15 bins."""
        rng = np.random.default_rng(11)
        reps, n = 150, 1000
        deb, plug, el_deb, el_plug = [], [], [], []
        for _ in range(reps):
            q1 = rng.uniform(size=n)
            z = np.stack([q1, 1 - q1], axis=1)
            y = rng.binomial(2, q1)
            h = np.stack([y, 2 - y], axis=1)
            d = cpe_loss_decomposition(z, h)
            deb.append(d.cl_debiased), plug.append(d.cl_plugin)
            el_deb.append(d.el_debiased), el_plug.append(d.el_plugin)
        for est in (deb, el_deb):
            ok, mean, truth, se = within_se_detail(est, 0.0)
            assert ok, (mean, se)
        for est in (plug, el_plug):
            est = np.asarray(est)
            assert est.mean() > 10 * est.std() / math.sqrt(reps)
        assert abs(np.mean(deb)) < 0.25 * np.mean(plug)  # most of the plug-in bias removed

    def test_errors(self):
        with pytest.raises(ValueError, match="probs must sum to 1"):
            binned_calibration_loss([[0.3, 0.3]], [[1, 1]])
        with pytest.raises(ValueError, match="n_i = 0"):
            binned_calibration_loss([[0.5, 0.5], [0.5, 0.5]], [[0, 0], [1, 1]])
        for bad in (True, 10**9, 0, 2.5):
            with pytest.raises(ValueError, match="n_bins must be an integer >= 1 and <= 1000000"):
                binned_calibration_loss([[0.5, 0.5]], [[1, 1]], n_bins=bad)
        for bad in (["0", "1"], [0.0, 0.5j, 1.0], [0.0, 1.0, 0.5], [[0.0, 1.0]]):
            with pytest.raises(ValueError, match="bin_edges must be a strictly increasing 1-D array from 0 to 1"):
                binned_calibration_loss([[0.5, 0.5]], [[1, 1]], bin_edges=bad)


class TestBinnedCalibrationError:
    def test_main(self):
        h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
        assert binned_calibration_error(p, h, n_bins=2, debiased=False) == pytest.approx(
            math.sqrt(binned_calibration_loss(p, h, n_bins=2, debiased=False))
        )
        assert binned_calibration_loss(p, h, n_bins=2) < 0
        assert binned_calibration_error(p, h, n_bins=2) == 0.0  # negative CL clipped

    def test_errors(self):
        with pytest.raises(ValueError, match="same number of instances"):
            binned_calibration_error([[0.5, 0.5], [0.5, 0.5]], [[1, 1]])


class TestDispersionLoss:
    def test_main(self):
        h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
        assert dispersion_loss(p, h, n_bins=2, debiased=False) == pytest.approx(2 * 2 * 0.0625 / 3)
        q, z, counts = label_case(n=60, seed=9)
        y = draw_label_hists(q, counts, 1)[0]
        assert dispersion_loss(z, y) == pytest.approx(epistemic_loss(z, y) - binned_calibration_loss(z, y))
        # With single-label instances the debiased DL is formed on the n_i >= 2 instances.
        y1 = np.vstack([y, [[1, 0, 0]]])
        z1 = np.vstack([z, [[0.2, 0.3, 0.5]]])
        assert dispersion_loss(z1, y1) == pytest.approx(dispersion_loss(z, y))
        assert dispersion_loss(z1, y1, debiased=False) >= 0

    def test_errors(self):
        with pytest.raises(ValueError, match="n_i >= 2"):
            dispersion_loss([[0.5, 0.5], [0.5, 0.5]], [[1, 0], [0, 1]])


class TestOldDataOrder:
    """``(label_hist, probs)`` (the order before 0.6) gives the same numbers with a FutureWarning until 0.7."""

    FUNCS = (expected_squared_loss, epistemic_loss, binned_calibration_loss, binned_calibration_error, dispersion_loss)

    def _case(self):
        rng = np.random.default_rng(3)
        z = rng.dirichlet(np.ones(3), size=40)
        return z, rng.multinomial(3, [0.5, 0.3, 0.2], size=40)

    @pytest.mark.parametrize("func", FUNCS, ids=lambda f: f.__name__)
    def test_main(self, func):
        z, y = self._case()
        new = func(z, y)
        with pytest.warns(FutureWarning, match=rf"{func.__name__}\(label_hist, probs\) is deprecated since 0\.6"):
            assert func(y, z) == new
        with pytest.warns(FutureWarning, match=r"pass \(probs, label_hist\)"):
            assert func(y, probs=z) == new
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert func(z, y) == new and func(label_hist=y, probs=z) == new and func(z, label_hist=y) == new

    def test_decomposition(self):
        z, y = self._case()
        new = cpe_loss_decomposition(z, y, n_bins=5)
        with pytest.warns(FutureWarning, match="the old order is removed in 0.7"):
            old = cpe_loss_decomposition(y, z, n_bins=5)
        for field in ("counts", "mean_predicted", "mean_observed", "cl_debiased_bins", "el_debiased_bins"):
            np.testing.assert_array_equal(getattr(old, field), getattr(new, field))

    def test_ambiguous(self):
        """One-hot float rows are one label per instance or hard predictions: read as (probs, label_hist)."""
        one_hot = np.eye(2)[[0, 1, 1]]
        z = np.array([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert expected_squared_loss(one_hot, 2 * one_hot.astype(int)) == 0.0
            with pytest.raises(ValueError, match="label_hist must hold integer counts"):
                expected_squared_loss(one_hot, z)  # the old order with a one-annotator float histogram
        with pytest.warns(FutureWarning):  # integer counts are never predictions
            assert expected_squared_loss(one_hot.astype(int), z) == expected_squared_loss(z, one_hot.astype(int))
