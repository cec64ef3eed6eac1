"""Tests of the synthetic scenarios of Jürgens et al. (App. D.1)."""

import numpy as np
import pytest

from credalbook.credal import hull_distance
from credalbook.synthetic import HYPOTHESES, instance_scenario


class TestInstanceScenario:
    @pytest.mark.parametrize("hypothesis", HYPOTHESES)
    def test_binary(self, hypothesis):
        sc = instance_scenario("binary", hypothesis, n_datasets=4, n_instances=300, seed=0)
        assert sc.ens_probs.shape == (4, 300, 2, 2) and sc.features.shape == (4, 300, 1)
        p1 = sc.ens_probs[..., 1]
        assert p1[..., 0].min() >= 0.5 - 1e-12 and p1[..., 0].max() <= 0.8 + 1e-12
        assert p1[..., 1].min() >= 0.7 - 1e-12 and p1[..., 1].max() <= 0.9 + 1e-12
        t = sc.truth[..., 1]
        lo, hi = p1.min(-1), p1.max(-1)
        if sc.is_null:
            assert ((t >= lo - 1e-12) & (t <= hi + 1e-12)).all()
            np.testing.assert_allclose(np.einsum("rnmk,rnm->rnk", sc.ens_probs, sc.weights), sc.truth)
        else:
            outside = (t > hi) | (t < lo)
            assert outside.mean() > 0.95 and sc.weights is None
            # each dataset leaves the hull on one side only
            assert all(((t[r] >= hi[r] - 1e-12).all() or (t[r] <= lo[r] + 1e-12).all()) for r in range(4))

    def test_binary_distances_increase(self):
        dist = []
        for h in ("H1-1", "H1-2", "H1-3"):
            sc = instance_scenario("binary", h, n_datasets=30, n_instances=400, seed=1)
            p1 = sc.ens_probs[..., 1]
            t = sc.truth[..., 1]
            dist.append(np.maximum(t - p1.max(-1), p1.min(-1) - t).mean())
        assert dist[0] < 0.05 and dist[0] < dist[2] and dist[1] < dist[2]

    def test_binary_instance_weights_vary(self):
        sc = instance_scenario("binary", "H0-inst", n_datasets=3, n_instances=500, seed=2)
        assert (sc.weights[..., 0].max(-1) - sc.weights[..., 0].min(-1) > 0.5).all()
        const = instance_scenario("binary", "H0-const", n_datasets=3, n_instances=500, seed=2)
        assert np.ptp(const.weights[..., 0], axis=-1).max() == 0

    @pytest.mark.parametrize("hypothesis", HYPOTHESES)
    def test_multiclass(self, hypothesis):
        sc = instance_scenario("multiclass", hypothesis, n_datasets=2, n_instances=60, seed=3)
        assert sc.ens_probs.shape == (2, 60, 10, 10)
        np.testing.assert_allclose(sc.truth.sum(-1), 1.0)
        d = hull_distance(sc.ens_probs, sc.truth)
        if sc.is_null:
            assert d.max() < 1e-7
        else:  # outside every hull (a segment nearly tangent to a face can leave it very slowly)
            assert (d > 1e-9).all() and np.median(d) > 1e-3

    def test_multiclass_delta_orders_distance(self):
        d = [
            hull_distance(sc.ens_probs, sc.truth).mean()
            for sc in (
                instance_scenario("multiclass", h, n_datasets=2, n_instances=80, seed=4)
                for h in ("H1-1", "H1-2", "H1-3")
            )
        ]
        assert d[0] < d[1] < d[2]
        # same seed: same members and corners, only δ differs, so the distance scales with δ
        assert d[2] / d[0] == pytest.approx(0.15 / 0.02 * (1 - 0.02) / (1 - 0.15), rel=0.5)

    def test_labels_follow_truth(self):
        sc = instance_scenario("multiclass", "H0-const", n_datasets=1, n_instances=20000, seed=5)
        freq = np.bincount(sc.labels[0], minlength=10) / 20000
        np.testing.assert_allclose(freq, sc.truth[0].mean(0), atol=0.012)

    def test_reproducible(self):
        a = instance_scenario("binary", "H1-2", n_datasets=2, n_instances=50, seed=7)
        b = instance_scenario("binary", "H1-2", n_datasets=2, n_instances=50, seed=7)
        np.testing.assert_array_equal(a.labels, b.labels)

    def test_errors(self):
        with pytest.raises(ValueError, match="setting"):
            instance_scenario("ternary", "H0-const")
        with pytest.raises(ValueError, match="hypothesis"):
            instance_scenario("binary", "H2")
        with pytest.raises(ValueError, match="n_datasets"):
            instance_scenario("binary", "H0-const", n_datasets=0)
        with pytest.raises(ValueError, match="n_instances"):
            instance_scenario("binary", "H0-const", n_instances=1)
        with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
            instance_scenario("binary", "H0-const", seed=-1)
