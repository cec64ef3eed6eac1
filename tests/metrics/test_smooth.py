"""Tests for credalbook.metrics.smooth: the smooth ECE of Błasiok & Nakkiran (2023).

relplot's ``smECE`` / ``smECE_sigma`` on the same data when relplot (the authors' package) is
installed; without it: values that do not depend on the kernel (predictions equal to their
outcomes, a constant prediction, whose smoothed residual is the same constant everywhere), the
fixed point of the bandwidth, a perfectly calibrated large sample near 0, invariances (instances,
the mirror f -> 1 - f, numpy/torch) and the input checks.
"""

import numpy as np
import pytest
import torch

from credalbook.metrics import ece_confidence, smooth_ece, smooth_ece_bandwidth
from credalbook.synthetic import calibrated_predictions


def _binary(n, seed, power=1.0):
    """f ~ U(0, 1), y ~ Bernoulli(f**power): calibrated for power = 1."""
    rng = np.random.default_rng(seed)
    f = rng.random(n)
    return f, (rng.random(n) < f**power).astype(int)


class TestSmoothEce:
    def test_main(self):
        # docstring: predictions equal to their outcomes; a constant 0.7 for outcomes of mean 0.5
        assert smooth_ece([0.0, 1.0, 1.0, 0.0], [0, 1, 1, 0]) == 0.0
        assert smooth_ece([0.7] * 4, [0, 1, 1, 0], bandwidth=0.1) == pytest.approx(0.2, rel=1e-4)
        assert smooth_ece([0.7] * 4, [0, 1, 1, 0]) == pytest.approx(0.2, rel=1e-4)
        # top-label: (N, K) rows give the smooth ECE of (confidence, correct)
        p = [[0.7, 0.2, 0.1], [0.1, 0.7, 0.2], [0.2, 0.1, 0.7], [0.7, 0.1, 0.2]]
        assert smooth_ece(p, [0, 1, 0, 2], bandwidth=0.05) == pytest.approx(0.2, rel=1e-4)
        assert isinstance(smooth_ece(p, [0, 1, 0, 2]), float)

    @pytest.mark.parametrize("value, outcomes", [(0.9, [1, 1, 1, 0]), (0.2, [0, 1, 1, 1, 1]), (0.5, [1, 1])])
    def test_constant_prediction(self, value, outcomes):
        # the smoothed residual is the constant |mean(y) - f| wherever the kernel reaches (relplot's
        # 1e-4 added to the density shrinks it by a relative ~1e-4 / N here)
        gap = abs(np.mean(outcomes) - value)
        for sigma in (0.02, 0.1, 0.3):
            assert smooth_ece([value] * len(outcomes), outcomes, bandwidth=sigma) == pytest.approx(gap, rel=2e-4)
        # fixed point: smECE_σ = gap for every σ, so σ* is the first tried σ >= gap (to 2⁻¹⁰)
        sigma = smooth_ece_bandwidth([value] * len(outcomes), outcomes)
        assert gap - 1e-6 <= sigma <= gap + 2.0**-10

    def test_fixed_point(self):
        f, y = _binary(2000, seed=1, power=2.0)
        sigma = smooth_ece_bandwidth(f, y)
        assert smooth_ece(f, y) == smooth_ece(f, y, bandwidth=sigma)
        # the bracket of the bisection: smECE at σ* is at most σ*, just below it larger than σ
        assert smooth_ece(f, y, bandwidth=sigma) <= sigma
        below = sigma - 2.0**-10
        assert smooth_ece(f, y, bandwidth=below) > below

    def test_calibrated_sample_is_near_zero(self):
        f, y = _binary(200_000, seed=2)
        assert smooth_ece(f, y) < 0.01
        f, y = _binary(200_000, seed=2, power=2.0)  # y ~ Bernoulli(f²): E|f - f²| = 1/6
        assert 0.12 < smooth_ece(f, y) < 0.18
        p, labels = calibrated_predictions(100_000, 5, seed=3)
        assert smooth_ece(p, labels) < 0.01
        sharp = p**3 / (p**3).sum(axis=1, keepdims=True)
        assert smooth_ece(sharp, labels) > 0.05
        # close to the binned ECE when the bins are fine and the sample large
        assert smooth_ece(sharp, labels) == pytest.approx(ece_confidence(sharp, labels, n_bins=20), abs=0.02)

    def test_invariances(self):
        f, y = _binary(3000, seed=4, power=1.5)
        base = smooth_ece(f, y, bandwidth=0.05)
        perm = np.random.default_rng(5).permutation(3000)
        assert smooth_ece(f[perm], y[perm], bandwidth=0.05) == pytest.approx(base, abs=1e-12)
        # the kernel is reflected at both ends: predicting 1 - f for the outcome 1 - y is the same
        assert smooth_ece(1 - f, 1 - y, bandwidth=0.05) == pytest.approx(base, abs=1e-12)
        assert smooth_ece(torch.tensor(f), torch.tensor(y), bandwidth=0.05) == base
        p, labels = calibrated_predictions(500, 4, seed=6)
        assert smooth_ece(torch.tensor(p), torch.tensor(labels)) == smooth_ece(p, labels)

    def test_matches_relplot(self):
        relplot = pytest.importorskip("relplot")
        rng = np.random.default_rng(7)
        for n, power in [(5, 1.0), (200, 1.0), (3000, 2.0), (50_000, 0.5)]:
            f = rng.random(n)
            y = (rng.random(n) < f**power).astype(int)
            smece, sigma = relplot.smECE(f, y.astype(float), return_width=True)
            assert smooth_ece(f, y) == pytest.approx(smece, abs=1e-12)
            assert smooth_ece_bandwidth(f, y) == sigma
            for s in (0.004, 0.03, 0.2):
                assert smooth_ece(f, y, bandwidth=s) == pytest.approx(
                    relplot.smECE_sigma(f, y.astype(float), s), abs=1e-12
                )
        # ties and atoms at 0 and 1
        f = np.round(rng.random(400), 1)
        y = (rng.random(400) < 0.5).astype(int)
        assert smooth_ece(f, y) == pytest.approx(relplot.smECE(f, y.astype(float)), abs=1e-12)
        # top-label, with relplot's own conversion
        p = rng.dirichlet(np.ones(5), size=2000)
        labels = rng.integers(0, 5, 2000)
        conf, correct = relplot.multiclass_logits_to_confidences(p, labels, probs=True)
        assert smooth_ece(p, labels) == pytest.approx(relplot.smECE(conf, correct), abs=1e-12)

    def test_errors(self):
        with pytest.raises(ValueError, match="probs"):
            smooth_ece([0.5, 1.2], [0, 1])
        with pytest.raises(ValueError, match="probs"):
            smooth_ece([0.5, np.nan], [0, 1])
        with pytest.raises(ValueError, match="probs"):
            smooth_ece(np.zeros((2, 2, 2)), [0, 1])
        with pytest.raises(ValueError, match="probs"):
            smooth_ece([[0.6, 0.6]], [0])
        with pytest.raises(ValueError, match="probs"):
            smooth_ece(np.array([], dtype=float), [])
        with pytest.raises(ValueError, match="labels"):
            smooth_ece([0.5, 0.2], [0, 2])  # binary outcomes are 0 or 1
        with pytest.raises(ValueError, match="labels"):
            smooth_ece([0.5, 0.2], [0])
        with pytest.raises(ValueError, match="labels"):
            smooth_ece([[0.6, 0.4]], [2])
        for bad in (0, -0.1, 1e-6, np.nan, True, "0.1"):
            with pytest.raises(ValueError, match="bandwidth"):
                smooth_ece([0.5, 0.2], [0, 1], bandwidth=bad)


class TestSmoothEceBandwidth:
    def test_main(self):
        # docstring: smECE is 0.2 at every bandwidth, so σ* ≈ 0.2
        assert smooth_ece_bandwidth([0.7] * 4, [0, 1, 1, 0]) == pytest.approx(0.2, abs=2.0**-10)
        # calibrated data: small σ*, never below 0.001
        f, y = _binary(100_000, seed=8)
        assert 0.001 <= smooth_ece_bandwidth(f, y) < 0.02
        # smECE = 0 at every σ: the bisection halves down to the smallest σ it tries above 0.001
        assert smooth_ece_bandwidth([0.0, 1.0], [0, 1]) == 2.0**-9

    def test_errors(self):
        with pytest.raises(ValueError, match="labels"):
            smooth_ece_bandwidth([0.5], [3])
