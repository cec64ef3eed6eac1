"""Tests for credalbook.papers.eu.toy_data (EU paper, Sec. 5.3)."""

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.eu import BallLayout, eu_toy_data, EUToyData, toy_disc_layout, TOY_GRID, TOY_N

K = 38 * 46


@pytest.fixture(scope="module")
def toy():
    return eu_toy_data(seed=0)


class TestEUToyData:
    def test_main(self, toy):
        assert isinstance(toy, EUToyData)
        assert TOY_N == 142_693 and toy.n == TOY_N and toy.x.shape == (TOY_N, 2)
        assert TOY_GRID == (38, 46) and toy.cluster_labels.shape == (K,)
        assert int(toy.cluster_labels.sum()) == K // 2 == 874  # equal groups of clusters
        np.testing.assert_array_equal(toy.y, toy.cluster_labels[toy.cluster])  # one label per cluster
        np.testing.assert_array_equal(toy.index, np.arange(TOY_N))
        # clusters uniform over the K grid cells (chi-square goodness of fit)
        counts = np.bincount(toy.cluster, minlength=K)
        assert stats.chisquare(counts).pvalue > 0.001
        # x = [j, k] + N(0, I2) with c = 46 (j - 1) + (k - 1)
        means = np.stack([toy.cluster // 46 + 1, toy.cluster % 46 + 1], axis=1)
        resid = toy.x - means
        np.testing.assert_allclose(resid.mean(axis=0), 0.0, atol=0.01)
        np.testing.assert_allclose(resid.std(axis=0), 1.0, atol=0.01)
        assert abs(np.corrcoef(resid.T)[0, 1]) < 0.01
        assert means[:, 0].max() == 38 and means[:, 1].max() == 46 and means.min() == 1

    def test_reproducible_and_subsample(self, toy):
        again = eu_toy_data(seed=0)
        np.testing.assert_array_equal(again.x, toy.x)
        np.testing.assert_array_equal(again.y, toy.y)
        other = eu_toy_data(seed=1)
        assert not np.array_equal(other.cluster_labels, toy.cluster_labels)
        sub = eu_toy_data(seed=0, subsample=5000)
        assert sub.n == 5000 and (np.diff(sub.index) > 0).all()
        np.testing.assert_array_equal(sub.x, toy.x[sub.index])
        np.testing.assert_array_equal(sub.y, toy.y[sub.index])
        frac = eu_toy_data(seed=0, subsample=0.1)
        assert frac.n == round(0.1 * TOY_N)
        assert eu_toy_data(seed=0, subsample=1.0).n == TOY_N

    def test_bayes_probability(self, toy):
        pts = toy.x[:50]
        p = toy.bayes_probability(pts)
        # brute force over all K clusters
        grid = np.stack(np.meshgrid(np.arange(1, 39), np.arange(1, 47), indexing="ij"), -1).reshape(-1, 2)
        dens = np.exp(-0.5 * ((pts[:, None] - grid[None]) ** 2).sum(-1))
        brute = (dens * toy.cluster_labels).sum(1) / dens.sum(1)
        np.testing.assert_allclose(p, brute, rtol=1e-10)
        np.testing.assert_allclose(toy.bayes_probability()[:50], p)
        # a narrow noise: at a cluster mean the Bayes probability is that cluster's label
        sharp = eu_toy_data(seed=0, subsample=100, noise_sd=0.1)
        at_means = np.stack([np.arange(K) // 46 + 1, np.arange(K) % 46 + 1], 1).astype(float)
        np.testing.assert_allclose(sharp.bayes_probability(at_means), sharp.cluster_labels, atol=1e-12)

    def test_errors(self, toy):
        with pytest.raises(ValueError, match="subsample as a count must lie in"):
            eu_toy_data(subsample=TOY_N + 1)
        with pytest.raises(ValueError, match="subsample as a fraction must lie in"):
            eu_toy_data(subsample=1.5)
        with pytest.raises(ValueError, match="subsample must be an int"):
            eu_toy_data(subsample="all")
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            eu_toy_data(seed=-1)
        with pytest.raises(ValueError, match="noise_sd must be a finite number > 0"):
            eu_toy_data(noise_sd=0.0)
        with pytest.raises(ValueError, match=r"x must have shape \(N, 2\)"):
            toy.bayes_probability(np.zeros((3, 3)))


class TestToyDiscLayout:
    def test_main(self, toy):
        ev = toy_disc_layout("evaluation")
        cal = toy_disc_layout("calibration")
        assert isinstance(ev, BallLayout) and ev.centres.shape == cal.centres.shape == (12, 2)
        for lay, (lo, hi) in ((ev, (0.5, 23.5)), (cal, (23.5, 46.5))):
            assert (lay.centres[:, 1] - lay.radius >= lo).all() and (lay.centres[:, 1] + lay.radius <= hi).all()
            assert (lay.centres[:, 0] - lay.radius >= 0.5).all() and (lay.centres[:, 0] + lay.radius <= 38.5).all()
            pair = np.linalg.norm(lay.centres[:, None] - lay.centres[None], axis=2)
            assert pair[np.triu_indices(12, 1)].min() > 2 * lay.radius  # non-overlapping discs
        np.testing.assert_allclose(ev.p_train, np.linspace(0.0, 0.6, 12))
        np.testing.assert_allclose(ev.q_test, 0.1)
        large = toy_disc_layout("calibration", shape=(3, 1), radius=6.0)
        assert large.centres.shape == (3, 2) and large.radius == 6.0

    def test_window_grid(self):
        # the full grid by default; a (G1, G2) window halves at G2 / 2 + 0.5
        np.testing.assert_array_equal(
            toy_disc_layout("evaluation", grid=TOY_GRID).centres, toy_disc_layout("evaluation").centres
        )
        ev = toy_disc_layout("evaluation", grid=(16, 16), shape=(4, 2), radius=1.9)
        cal = toy_disc_layout("calibration", grid=(16, 16), shape=(4, 2), radius=1.9)
        np.testing.assert_allclose(np.unique(ev.centres[:, 0]), [2.5, 6.5, 10.5, 14.5])
        np.testing.assert_allclose(np.unique(ev.centres[:, 1]), [2.5, 6.5])
        np.testing.assert_allclose(np.unique(cal.centres[:, 1]), [10.5, 14.5])
        with pytest.raises(ValueError, match=r"grid must be a pair \(G1, G2\)"):
            toy_disc_layout(grid=(16,))
        with pytest.raises(ValueError, match="grid must be a pair"):
            toy_disc_layout(grid=(0, 16))

    def test_carving_the_toy_data(self, toy):
        split = toy_disc_layout("evaluation").carve(toy.x, seed=0)
        cal = toy_disc_layout("calibration").carve(toy.x, subset=split.train, seed=0)
        assert 2000 < split.test.size < 3500 and 2000 < cal.test.size < 3500
        assert np.isin(cal.test, split.train).all() and not np.isin(cal.test, split.test).any()
        # the calibration discs lie in the untouched upper region: D_train,2 ∪ D_test,2 ∪ aug-only = D_train
        np.testing.assert_array_equal(np.union1d(np.union1d(cal.train, cal.test), cal.aug_only), split.train)
        assert (toy.x[split.test, 1] < 23.5).all() and (toy.x[cal.test, 1] > 23.5).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="part must be 'evaluation' or 'calibration'"):
            toy_disc_layout("test")
        with pytest.raises(ValueError, match="p_train must be a pair"):
            toy_disc_layout(p_train=(0.0, 1.2))
        with pytest.raises(ValueError, match="q_test must lie in"):
            toy_disc_layout(p_train=(0.0, 0.95), q_test=0.1)
        with pytest.raises(ValueError, match="radius must be a finite number > 0"):
            toy_disc_layout(radius=0)
