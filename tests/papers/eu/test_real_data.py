"""Tests for credalbook.papers.eu.real_data (Sec. 5.4 of the EU paper)."""


import numpy as np
import pytest

from credalbook.papers.eu import carve_balls
from credalbook.papers.eu import EU_ESTIMATORS
from credalbook.papers.eu import BinaryFeatures, pca_even_odd, real_eu_experiment, real_eu_splits

GP = dict(n_inducing=16, epochs=2, batch_size=512, lr=0.05, natural_gradient=True)
DISCS = dict(shape=(2, 1), radius=1.6, p_train=(0.0, 0.6), q_test=0.15)
TOY = dict(window=(8, 8), evaluation=DISCS, calibration=DISCS, gp=GP, n_samples=200, device="cpu")


class TestRealExperiments:
    def test_pca_even_odd(self, tmp_cache):
        from sklearn.datasets import load_digits

        f = pca_even_odd("digits", n_components=10)
        assert isinstance(f, BinaryFeatures) and f.name == "digits" and f.x.shape == (1797, 10)
        assert f.x.dtype == np.float32 and 0.5 < f.explained_variance <= 1.0
        np.testing.assert_array_equal(f.y, f.labels % 2)
        assert sorted(np.bincount(f.labels)) == sorted(np.bincount(load_digits().target))  # train + test pooled
        np.testing.assert_allclose(f.x.mean(axis=0), 0.0, atol=1e-4)  # PCA scores are centred
        again = pca_even_odd("digits", n_components=10)  # from the cache
        np.testing.assert_array_equal(again.x, f.x)
        np.testing.assert_array_equal(pca_even_odd("digits", n_components=10, cache=False).x, f.x)
        sub = pca_even_odd("digits", n_components=3, n_points=500, cache=False)
        assert sub.x.shape == (500, 3)
        with pytest.raises(ValueError, match=r"n_points must lie in \[1, 1797\]"):
            pca_even_odd("digits", n_points=5000, cache=False)
        with pytest.raises(ValueError, match="n_components"):
            pca_even_odd("digits", n_components=0, cache=False)

    def test_splits(self):
        x = pca_even_odd("digits", n_components=10, cache=False).x
        s = real_eu_splits(x, seed=0, n_centres=4, ball_size=0.05, q_test=0.15)
        assert s.radius > 0 and 1 <= len(s.evaluation_centres) <= 4
        assert np.isin(s.calibration.aug, s.evaluation.train).all() and np.isin(s.calibration_centres, s.evaluation.train).all()
        sizes = np.bincount(s.evaluation.ball[s.evaluation.ball >= 0])
        assert (sizes > 0).all()
        again = real_eu_splits(x, seed=0, n_centres=4, ball_size=90, q_test=0.15)  # 0.05 · 1797 = 89.85 → 90
        np.testing.assert_array_equal(again.evaluation.test, s.evaluation.test)
        with pytest.raises(ValueError, match="no centre with"):
            real_eu_splits(x, ball_size=1000, radius_quantile=0.0, n_candidates=20)

    def test_experiment(self, tmp_cache):
        kwargs = dict(n_components=10, split=dict(n_centres=4, ball_size=0.05, q_test=0.15),
                      gp=dict(GP, lengthscale="auto"), n_samples=200, device="cpu")
        run = real_eu_experiment("digits", 0, **kwargs)
        again = real_eu_experiment("digits", 0, **kwargs)
        assert run.sizes["test"] >= 20 and run.sizes["aug"] > run.sizes["train"]
        for k in EU_ESTIMATORS:
            np.testing.assert_array_equal(run.eu[k], again.eu[k])
        feats = pca_even_odd("digits", n_components=10)
        s = real_eu_splits(feats.x, seed=0, n_centres=4, ball_size=0.05, q_test=0.15)
        np.testing.assert_array_equal(run.test_index, s.evaluation.test)
        split_direct = carve_balls(feats.x.astype(np.float64), feats.x[s.evaluation_centres].astype(np.float64),
                                   radius=s.radius, p_train=np.linspace(0.0, 0.6, len(s.evaluation_centres)),
                                   q_test=0.15, seed=0)
        np.testing.assert_array_equal(split_direct.test, s.evaluation.test)
