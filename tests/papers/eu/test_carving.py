"""Tests for credalbook.papers.eu.carving (EU paper, Secs. 4.2.1, 4.3 and 5.4)."""

import math

import numpy as np
import pytest

from credalbook.papers.eu import (
    BallLayout,
    BallSplit,
    carve_balls,
    dense_centres,
    DenseCentres,
    grid_centres,
    neighbour_radius,
)


@pytest.fixture(scope="module")
def points():
    """A 2-D point cloud: uniform on [0, 10]^2."""
    return np.random.default_rng(0).uniform(0, 10, size=(3000, 2))


def _membership(split: BallSplit, n: int) -> np.ndarray:
    """(n, 4) booleans: in train, test, aug, aug_only."""
    out = np.zeros((n, 4), dtype=bool)
    for col, idx in enumerate((split.train, split.test, split.aug, split.aug_only)):
        out[idx, col] = True
    return out


class TestCarveBalls:
    CENTRES = np.array([[2.5, 2.5], [7.5, 2.5], [5.0, 7.5]])

    def test_main(self, points):
        p = np.array([0.0, 0.3, 0.6])
        q = np.array([0.2, 0.1, 0.4])
        split = carve_balls(points, self.CENTRES, radius=2.0, p_train=p, q_test=q, seed=0)
        assert isinstance(split, BallSplit)
        n = points.shape[0]
        member = _membership(split, n)
        dist = np.linalg.norm(points[:, None] - self.CENTRES[None], axis=2)
        in_ball = (dist <= 2.0).any(axis=1)
        # outside the balls: train and aug, never test
        out = ~in_ball
        assert member[out, 0].all() and member[out, 2].all() and not member[out, 1].any()
        assert not member[out, 3].any()
        # inside: exactly one of train / test / aug_only; aug = train ∪ aug_only; test ∉ aug
        assert (member[in_ball][:, [0, 1, 3]].sum(axis=1) == 1).all()
        np.testing.assert_array_equal(member[:, 2], member[:, 0] | member[:, 3])
        assert not (member[:, 1] & member[:, 2]).any()
        # ball ids follow the distances (these balls do not overlap)
        np.testing.assert_array_equal(split.ball, np.where(in_ball, dist.argmin(axis=1), -1))
        # per-ball counts: round(p n), round(q n), the rest
        for i in range(3):
            idx = np.flatnonzero(split.ball == i)
            n_i = idx.size
            assert np.isin(idx, split.train).sum() == math.floor(p[i] * n_i + 0.5)
            assert np.isin(idx, split.test).sum() == math.floor(q[i] * n_i + 0.5)
        np.testing.assert_array_equal(split.test_ball, split.ball[split.test])
        np.testing.assert_array_equal(split.ball_sizes, np.bincount(split.ball[split.ball >= 0]))
        for arr in (split.train, split.test, split.aug, split.aug_only):
            assert arr.dtype == np.int64 and (np.diff(arr) > 0).all()

    def test_overlap_first_ball_wins(self, points):
        centres = np.array([[5.0, 5.0], [6.0, 5.0]])
        split = carve_balls(points, centres, radius=1.5, p_train=0.0, q_test=1.0, seed=0)
        d0 = np.linalg.norm(points - centres[0], axis=1) <= 1.5
        d1 = np.linalg.norm(points - centres[1], axis=1) <= 1.5
        np.testing.assert_array_equal(split.ball, np.where(d0, 0, np.where(d1, 1, -1)))
        np.testing.assert_array_equal(split.test, np.flatnonzero(d0 | d1))  # q = 1: every ball point is a test point
        assert split.aug_only.size == 0

    def test_extreme_fractions(self, points):
        keep = carve_balls(points, self.CENTRES, radius=2.0, p_train=1.0, q_test=0.0)
        np.testing.assert_array_equal(keep.train, np.arange(points.shape[0]))
        assert keep.test.size == 0 and keep.aug_only.size == 0
        removed = carve_balls(points, self.CENTRES, radius=2.0, p_train=0.0, q_test=0.0)
        np.testing.assert_array_equal(removed.aug, np.arange(points.shape[0]))
        np.testing.assert_array_equal(removed.aug_only, np.flatnonzero(removed.ball >= 0))

    def test_subset_for_calibration(self, points):
        """Sec. 4.3: the calibration sets are carved out of D_train only."""
        split = carve_balls(points, self.CENTRES, radius=2.0, p_train=0.3, q_test=0.2, seed=0)
        cal = carve_balls(
            points, [[5.0, 5.0], [1.0, 8.0]], radius=1.5, p_train=0.2, q_test=0.3, subset=split.train, seed=1
        )
        for arr in (cal.train, cal.test, cal.aug):
            assert np.isin(arr, split.train).all()
        # every D_train point is in exactly the calibration sets the procedure says; others in none
        np.testing.assert_array_equal(np.union1d(np.union1d(cal.train, cal.test), cal.aug_only), split.train)
        assert (cal.ball[np.setdiff1d(np.arange(points.shape[0]), split.train)] == -1).all()
        mask = np.zeros(points.shape[0], dtype=bool)
        mask[split.train] = True
        by_mask = carve_balls(
            points, [[5.0, 5.0], [1.0, 8.0]], radius=1.5, p_train=0.2, q_test=0.3, subset=mask, seed=1
        )
        np.testing.assert_array_equal(by_mask.test, cal.test)

    def test_reproducible(self, points):
        a = carve_balls(points, self.CENTRES, radius=2.0, p_train=0.3, q_test=0.2, seed=5)
        b = carve_balls(points, self.CENTRES, radius=2.0, p_train=0.3, q_test=0.2, seed=5)
        c = carve_balls(points, self.CENTRES, radius=2.0, p_train=0.3, q_test=0.2, seed=6)
        np.testing.assert_array_equal(a.test, b.test)
        np.testing.assert_array_equal(a.train, b.train)
        assert not np.array_equal(a.test, c.test)
        assert a.test.size == c.test.size

    def test_errors(self, points):
        kw = dict(radius=1.0, p_train=0.5, q_test=0.2)
        with pytest.raises(ValueError, match="p_train \\+ q_test must be at most 1"):
            carve_balls(points, self.CENTRES, radius=1.0, p_train=0.9, q_test=[0.2, 0.0, 0.0])
        with pytest.raises(ValueError, match="radius must be a finite number > 0"):
            carve_balls(points, self.CENTRES, radius=0.0, p_train=0.5, q_test=0.2)
        with pytest.raises(ValueError, match="centres must have 2 columns"):
            carve_balls(points, [[1.0, 2.0, 3.0]], **kw)
        with pytest.raises(ValueError, match=r"p_train must be a number or have shape \(3,\)"):
            carve_balls(points, self.CENTRES, radius=1.0, p_train=[0.1, 0.2], q_test=0.1)
        with pytest.raises(ValueError, match="q_test must lie in"):
            carve_balls(points, self.CENTRES, radius=1.0, p_train=0.1, q_test=-0.1)
        with pytest.raises(ValueError, match="subset indices must lie in"):
            carve_balls(points, self.CENTRES, subset=[3000], **kw)
        with pytest.raises(ValueError, match="x must be finite"):
            carve_balls(np.array([[np.nan, 0.0]]), [[0.0, 0.0]], **kw)


class TestBallLayout:
    def test_main(self, points):
        layout = BallLayout(
            centres=TestCarveBalls.CENTRES, radius=2.0, p_train=np.array([0.1, 0.2, 0.3]), q_test=np.full(3, 0.2)
        )
        a = layout.carve(points, seed=3)
        b = carve_balls(points, layout.centres, radius=2.0, p_train=layout.p_train, q_test=layout.q_test, seed=3)
        np.testing.assert_array_equal(a.test, b.test)
        np.testing.assert_array_equal(a.aug, b.aug)

    def test_errors(self, points):
        with pytest.raises(ValueError, match="radius must be a finite number > 0"):
            BallLayout(centres=TestCarveBalls.CENTRES, radius=-1.0, p_train=0.1, q_test=0.1).carve(points)


class TestGridCentres:
    def test_main(self):
        np.testing.assert_allclose(grid_centres([0, 0], [4, 2], shape=(2, 1)), [[1, 1], [3, 1]])
        c = grid_centres([0.5, 0.5], [38.5, 23.5], shape=(4, 3))
        assert c.shape == (12, 2)
        np.testing.assert_allclose(np.unique(c[:, 0]), [5.25, 14.75, 24.25, 33.75])
        np.testing.assert_allclose(np.unique(c[:, 1]), 0.5 + (np.arange(3) + 0.5) * 23 / 3)
        np.testing.assert_allclose(c[:3, 0], 5.25)  # C order: last dimension fastest

    def test_errors(self):
        with pytest.raises(ValueError, match="upper must exceed lower"):
            grid_centres([0, 0], [0, 1], shape=(1, 1))
        with pytest.raises(ValueError, match="shape must have one entry per dimension"):
            grid_centres([0, 0], [1, 1], shape=(2,))
        with pytest.raises(ValueError, match="shape must be an integer >= 1"):
            grid_centres([0, 0], [1, 1], shape=(2, 0))


@pytest.fixture(scope="module")
def clustered():
    """Three dense 3-D clusters of 200 points plus 300 uniform background points."""
    rng = np.random.default_rng(1)
    dense = [rng.normal(c, 0.2, size=(200, 3)) for c in ([0, 0, 0], [5, 5, 5], [-5, 5, 0])]
    return np.vstack(dense + [rng.uniform(-10, 10, size=(300, 3))])


class TestDenseCentres:
    def test_main(self, clustered):
        found = dense_centres(
            clustered, radius=0.6, n_centres=3, min_neighbours=50, n_candidates=400, min_separation=3.0, seed=0
        )
        assert isinstance(found, DenseCentres)
        assert len(found.index) == 3
        np.testing.assert_array_equal(found.centres, clustered[found.index])
        brute = (np.linalg.norm(clustered[None] - found.centres[:, None], axis=2) <= 0.6).sum(axis=1)
        np.testing.assert_array_equal(found.counts, brute)
        assert (found.counts >= 50).all()
        # one centre near each dense cluster
        nearest = np.linalg.norm(found.centres[:, None] - np.array([[0, 0, 0], [5, 5, 5], [-5, 5, 0]])[None], axis=2)
        assert sorted(nearest.argmin(axis=1).tolist()) == [0, 1, 2]
        pair = np.linalg.norm(found.centres[:, None] - found.centres[None], axis=2)
        assert pair[np.triu_indices(3, 1)].min() >= 3.0

    def test_fewer_and_subset(self, clustered):
        none = dense_centres(clustered, radius=0.6, n_centres=3, min_neighbours=10_000, n_candidates=100)
        assert none.index.size == 0 and none.centres.shape == (0, 3)
        subset = np.arange(200)  # only the first cluster is eligible
        found = dense_centres(clustered, radius=0.6, n_centres=5, min_neighbours=20, subset=subset, seed=2)
        assert np.isin(found.index, subset).all() and len(found.index) >= 1
        again = dense_centres(clustered, radius=0.6, n_centres=5, min_neighbours=20, subset=subset, seed=2)
        np.testing.assert_array_equal(found.index, again.index)

    def test_errors(self, clustered):
        with pytest.raises(ValueError, match="min_separation must be a finite number >= 0"):
            dense_centres(clustered, radius=1.0, n_centres=1, min_neighbours=1, min_separation=-1.0)
        with pytest.raises(ValueError, match="min_neighbours must be an integer"):
            dense_centres(clustered, radius=1.0, n_centres=1, min_neighbours=0)
        with pytest.raises(ValueError, match="subset must contain at least one point"):
            dense_centres(clustered, radius=1.0, n_centres=1, min_neighbours=1, subset=np.array([], dtype=int))


class TestNeighbourRadius:
    def test_main(self):
        x = np.arange(10.0)[:, None]
        assert neighbour_radius(x, n_neighbours=2, n_candidates=10) == 1.0
        assert neighbour_radius(x, n_neighbours=2, n_candidates=10, quantile=1.0) == 2.0

    def test_errors(self):
        with pytest.raises(ValueError, match="n_neighbours must be smaller"):
            neighbour_radius(np.zeros((3, 2)), n_neighbours=3)
        with pytest.raises(ValueError, match="quantile must lie in"):
            neighbour_radius(np.zeros((3, 2)), n_neighbours=1, quantile=2)


class TestHighDimensionalQueries:
    """Above 15 dimensions neighbour counts and distances are computed by brute force (k-d trees degrade)."""

    def test_brute_force_matches_kdtree(self):
        from sklearn.neighbors import KDTree

        from credalbook.papers.eu.carving import _count_within, _kth_neighbour_distance

        rng = np.random.default_rng(0)
        pool = rng.normal(size=(600, 20))
        queries = np.vstack([pool[:50], rng.normal(size=(30, 20))])
        tree = KDTree(pool)
        np.testing.assert_array_equal(
            _count_within(pool, queries, 5.0), tree.query_radius(queries, r=5.0, count_only=True)
        )
        np.testing.assert_allclose(
            _kth_neighbour_distance(pool, queries, 7), tree.query(queries, k=8)[0][:, 7], rtol=1e-10
        )
        # the same through the public functions: a hand-computed radius and neighbour counts
        d = np.linalg.norm(pool[:, None] - pool[None], axis=2)
        r = neighbour_radius(pool, n_neighbours=10, quantile=0.5, n_candidates=600)
        assert r == pytest.approx(np.quantile(np.sort(d, axis=1)[:, 10], 0.5))
        found = dense_centres(pool, radius=r, n_centres=5, min_neighbours=12, n_candidates=600, min_separation=0)
        np.testing.assert_array_equal(found.counts, (d[found.index] <= r).sum(axis=1))
        assert (found.counts >= 12).all()
