"""Tests for credalbook.credal: convex combinations, weight sampling, hull membership by LP and
the boundary point of Alg. 2 (Mortier et al. 2023), against closed forms and barycentric
coordinates for K = 3."""

import numpy as np
import pytest

from credalbook.credal import (
    boundary_point,
    check_weights,
    convex_combination,
    hull_distance,
    in_credal_set,
    sample_weights,
)

TRIANGLE = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])


def _barycentric_inside(vertices, points):
    """Independent membership for a triangle spanning the simplex plane: solve for barycentric coordinates."""
    a = np.vstack([vertices.T[:2], np.ones(3)])
    coords = np.linalg.solve(a, np.vstack([points.T[:2], np.ones(len(points))]))
    return (coords >= -1e-9).all(axis=0)


class TestConvexCombination:
    def test_main(self):
        rng = np.random.default_rng(0)
        ens = rng.dirichlet(np.ones(4), size=(6, 3))
        w = np.array([0.2, 0.3, 0.5])
        np.testing.assert_allclose(convex_combination(ens, w), 0.2 * ens[:, 0] + 0.3 * ens[:, 1] + 0.5 * ens[:, 2])
        wi = rng.dirichlet(np.ones(3), size=6)
        expected = np.stack([wi[i] @ ens[i] for i in range(6)])
        np.testing.assert_allclose(convex_combination(ens, wi), expected)
        np.testing.assert_allclose(convex_combination(ens, w).sum(axis=1), 1.0)

    def test_errors(self):
        ens = np.full((2, 3, 2), 0.5)
        with pytest.raises(ValueError, match="weights must be non-negative"):
            convex_combination(ens, [1.2, -0.2, 0.0])
        with pytest.raises(ValueError, match="weights must sum to 1"):
            convex_combination(ens, [0.5, 0.5, 0.5])
        with pytest.raises(ValueError, match="last dimension M = 3"):
            convex_combination(ens, [0.5, 0.5])
        with pytest.raises(ValueError, match=r"shape \(M,\)"):
            convex_combination(ens, np.full((5, 3), 1 / 3))
        with pytest.raises(ValueError, match="weights must be finite"):
            convex_combination(ens, [np.nan, 0.5, 0.5])
        with pytest.raises(ValueError, match="at least one member"):
            convex_combination(np.zeros((2, 0, 2)), np.zeros(0))
        with pytest.raises(ValueError, match=r"ens_probs must have shape \(N, M, K\)"):
            convex_combination(np.full((3, 2), 0.5), [0.5, 0.5])
        with pytest.raises(ValueError, match="ens_probs must sum to 1"):
            convex_combination(np.full((2, 3, 2), 0.7), [1 / 3] * 3)

    def test_check_weights(self):
        assert check_weights([0.25, 0.75], 2).dtype == np.float64


class TestSampleWeights:
    @pytest.mark.parametrize("m", [2, 5, 10])
    def test_uniform_moments(self, m):
        # Dir(1): E[λ_1] = 1/M, E[λ_1²] = 2 / (M (M + 1)).
        w = sample_weights(m, size=200_000, seed=1)
        np.testing.assert_allclose(w.sum(axis=1), 1.0)
        assert w[:, 0].mean() == pytest.approx(1 / m, rel=0.02)
        assert (w[:, 0] ** 2).mean() == pytest.approx(2 / (m * (m + 1)), rel=0.03)

    def test_sparse_moments(self):
        # Dir(1/M): E[λ_1²] = α(α + 1) / (A (A + 1)) with α = 1/M, A = 1.
        m = 10
        w = sample_weights(m, size=200_000, prior="sparse", seed=2)
        assert (w[:, 0] ** 2).mean() == pytest.approx(0.1 * 1.1 / 2, rel=0.03)

    def test_tiny_concentrations_stay_on_simplex(self):
        w = sample_weights(1000, size=50, prior="sparse", seed=3)  # α = 0.001: NumPy gives NaN rows
        assert np.isfinite(w).all()
        np.testing.assert_allclose(w.sum(axis=1), 1.0)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_members"):
            sample_weights(0)
        with pytest.raises(ValueError, match="prior"):
            sample_weights(3, prior="beta")
        for bad in (1.5, -1, True, "2", (2, -1)):  # 1.5 used to become 1 silently
            with pytest.raises(ValueError, match="size must be an integer >= 0"):
                sample_weights(3, size=bad)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                sample_weights(3, seed=bad)
        with pytest.raises(ValueError, match="seed must be None"):
            sample_weights(1, seed=-1)  # M = 1 draws nothing, but the seed is still checked

    def test_sizes(self):
        assert sample_weights(3, seed=0).shape == (3,)
        assert sample_weights(3, size=(2, 4), seed=0).shape == (2, 4, 3)
        assert sample_weights(3, size=np.int64(2), seed=0).shape == (2, 3)
        assert sample_weights(3, size=0, seed=0).shape == (0, 3)


class TestMembership:
    def test_main(self):
        rng = np.random.default_rng(4)
        points = rng.dirichlet(np.ones(3), size=300)
        expected = _barycentric_inside(TRIANGLE, points)
        assert 0 < expected.sum() < 300
        np.testing.assert_array_equal(in_credal_set(TRIANGLE, points), expected)

    def test_known_points(self):
        inside = np.vstack([TRIANGLE, TRIANGLE.mean(axis=0), 0.5 * (TRIANGLE[0] + TRIANGLE[1])])
        outside = np.array([[1.0, 0.0, 0.0], [0.1, 0.45, 0.45], [0.62, 0.19, 0.19]])
        assert in_credal_set(TRIANGLE, inside).all()
        assert not in_credal_set(TRIANGLE, outside).any()

    def test_distance(self):
        # Distance from e_1 to the triangle: nearest point (0.6, 0.2, 0.2), L1 distance 0.8.
        assert hull_distance(TRIANGLE, [1.0, 0.0, 0.0]) == pytest.approx(0.8, abs=1e-7)

    def test_batched_hulls(self):
        rng = np.random.default_rng(5)
        ens = rng.dirichlet(np.ones(3) * 5, size=(4, 6))  # 4 instances, 6 members each
        pts = rng.dirichlet(np.ones(3), size=4)
        expected = [bool(in_credal_set(ens[i], pts[i])) for i in range(4)]
        assert in_credal_set(ens, pts).tolist() == expected
        assert in_credal_set(ens, ens.mean(axis=1)).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="points must have K = 3"):
            in_credal_set(TRIANGLE, [0.5, 0.5])
        with pytest.raises(ValueError, match="does not match ens_probs"):
            in_credal_set(np.stack([TRIANGLE] * 3), np.full((2, 3), 1 / 3))
        with pytest.raises(ValueError, match="points must sum to 1"):
            in_credal_set(TRIANGLE, [0.5, 0.5, 0.5])
        for bad in (-1e-3, float("nan"), True, "0.1"):
            with pytest.raises(ValueError, match="tol must be a non-negative number"):
                in_credal_set(TRIANGLE, [1 / 3] * 3, tol=bad)
        assert in_credal_set(TRIANGLE, [0.6, 0.2, 0.2], tol=0.0)  # a vertex: residual exactly 0


class TestBoundaryPoint:
    def test_closed_form(self):
        # From the centre towards e_1 the triangle is left at (0.6, 0.2, 0.2): t = (0.6 - 1/3) / (2/3) = 0.4.
        centre = np.full(3, 1 / 3)
        for method in ("lp", "bisection"):
            res = boundary_point(TRIANGLE, centre, [1.0, 0.0, 0.0], method=method)
            assert float(res.t) == pytest.approx(0.4, abs=1e-6)
            np.testing.assert_allclose(res.point, [0.6, 0.2, 0.2], atol=1e-6)
        grid = boundary_point(TRIANGLE, centre, [1.0, 0.0, 0.0], method="grid", n_grid=101)
        assert float(grid.t) == pytest.approx(0.4, abs=1e-9)  # 0.4 is on the 101-point grid

    def test_methods_agree_and_point_is_on_boundary(self):
        rng = np.random.default_rng(6)
        ens = rng.dirichlet(np.ones(4) * 3, size=(20, 5))
        start = ens.mean(axis=1)
        corner = np.eye(4)[rng.integers(0, 4, size=20)]
        lp = boundary_point(ens, start, corner)
        bis = boundary_point(ens, start, corner, method="bisection")
        grid = boundary_point(ens, start, corner, method="grid", n_grid=50)
        np.testing.assert_allclose(lp.t, bis.t, atol=1e-6)
        assert (grid.t <= lp.t + 1e-9).all() and (lp.t - grid.t < 1 / 49 + 1e-9).all()
        assert (hull_distance(ens, lp.point) < 1e-7).all()
        beyond = lp.point + 1e-3 * (corner - start)
        assert (hull_distance(ens, beyond) > 1e-5).all()

    def test_start_outside_returns_start(self):
        res = boundary_point(TRIANGLE, [0.8, 0.1, 0.1], [1.0, 0.0, 0.0])
        assert float(res.t) == 0.0
        np.testing.assert_allclose(res.point, [0.8, 0.1, 0.1])

    def test_errors(self):
        with pytest.raises(ValueError, match="method"):
            boundary_point(TRIANGLE, [1 / 3] * 3, [1, 0, 0], method="newton")
        with pytest.raises(ValueError, match="end must have K = 3"):
            boundary_point(TRIANGLE, [1 / 3] * 3, [1, 0])
        with pytest.raises(ValueError, match="n_grid"):
            boundary_point(TRIANGLE, [1 / 3] * 3, [1, 0, 0], method="grid", n_grid=1)
        # checked at the door, whatever the method (n_grid used to be checked only for "grid")
        for bad in (1, True, 2.5, 10**9):
            with pytest.raises(ValueError, match="n_grid must be an integer >= 2"):
                boundary_point(TRIANGLE, [1 / 3] * 3, [1, 0, 0], n_grid=bad)
        for bad in (0, -1e-9, float("nan"), True):  # tol = 0 made the bisection loop forever
            with pytest.raises(ValueError, match="tol must be a positive number"):
                boundary_point(TRIANGLE, [1 / 3] * 3, [1, 0, 0], method="bisection", tol=bad)
