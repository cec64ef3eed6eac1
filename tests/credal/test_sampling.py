"""Tests for credalbook.credal.sampling: uniform sampling in the credal set (Jürgens et al., App. C).

Areas are checked against the closed form for K = 3: the triangle with probability vectors p, q, r
as rows has area √3/2 · |det[p; q; r]| in orthonormal coordinates of the simplex plane (the whole
simplex, det I = 1, has area √3/2). Uniformity is checked by the fraction of samples in sub-regions
of known area share, within a binomial band; uniform weights λ ~ Dir(1) fail that check
(Fig. 8 of the paper).
"""

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402
from scipy.spatial import ConvexHull  # noqa: E402

from credalbook.credal import polytope_volume, sample_polytope  # noqa: E402
from credalbook.plotting import plot_polytope_sampling, simplex_coordinates

SQRT3_2 = np.sqrt(3) / 2
#: A convex pentagon in the K = 3 simplex, vertices in cyclic order.
PENTAGON = np.array([[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.1, 0.6, 0.3], [0.1, 0.2, 0.7], [0.4, 0.1, 0.5]])
#: Points strictly inside the pentagon; they must not change the sampled distribution.
INTERIOR = np.array([[0.35, 0.35, 0.3], [0.3, 0.3, 0.4], [0.4, 0.3, 0.3], PENTAGON.mean(axis=0)])
#: The simplex scaled by 0.4 about its centre: area 0.4² · √3/2.
TRIANGLE = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
N = 20_000
UNIFORM = ("triangulation", "hit_and_run")


def _area(p, q, r):
    """Area of the triangle pqr of the K = 3 simplex, by the determinant formula."""
    return SQRT3_2 * abs(np.linalg.det(np.stack([p, q, r])))


def _in_triangle(points, tri):
    """Barycentric coordinates λ = x T⁻¹ for a triangle T of the K = 3 simplex (rows = vertices)."""
    return ((points @ np.linalg.inv(tri)) >= 0).all(axis=1)


def _band(p, n, k=4.0):
    """k binomial standard errors of a fraction with probability p over n draws."""
    return k * np.sqrt(p * (1 - p) / n)


def _on_simplex(x):
    return bool((x >= 0).all() and np.allclose(x.sum(axis=1), 1, atol=1e-12, rtol=0))


class TestPolytopeVolume:
    def test_main(self):
        assert polytope_volume(TRIANGLE) == pytest.approx(0.16 * SQRT3_2, rel=1e-12)  # det(0.4 I + 0.2 J) = 0.16
        # whole simplex Δ_K, edges √2: volume √K / (K − 1)!
        for k in range(2, 7):
            assert polytope_volume(np.eye(k)) == pytest.approx(np.sqrt(k) / math.factorial(k - 1), rel=1e-12)
        # midpoints of the tetrahedron edges e1e2, e2e3, e3e4, e4e1: a square of side 1/√2 in K = 4
        square = np.array([[0.5, 0.5, 0, 0], [0, 0.5, 0.5, 0], [0, 0, 0.5, 0.5], [0.5, 0, 0, 0.5]])
        assert polytope_volume(square) == pytest.approx(0.5, rel=1e-12)
        # pentagon: fan of triangles from vertex 0, and the planar hull area (simplex_coordinates
        # shrinks lengths by 1/√2, so areas by 1/2): two independent computations
        fan = sum(_area(PENTAGON[0], PENTAGON[j], PENTAGON[j + 1]) for j in (1, 2, 3))
        assert polytope_volume(PENTAGON) == pytest.approx(fan, rel=1e-12)
        assert polytope_volume(PENTAGON) == pytest.approx(2 * ConvexHull(simplex_coordinates(PENTAGON)).volume)

    def test_invariances_and_degenerate(self):
        members = np.vstack([PENTAGON, INTERIOR])
        vol = polytope_volume(PENTAGON)
        assert polytope_volume(members) == pytest.approx(vol, rel=1e-12)  # interior points ignored
        assert polytope_volume(members[::-1]) == pytest.approx(vol, rel=1e-12)  # member order
        assert polytope_volume(PENTAGON[:, [2, 0, 1]]) == pytest.approx(vol, rel=1e-12)  # relabelled classes
        # the same triangle embedded in K = 4 (an empty class) keeps its area
        assert polytope_volume(np.hstack([TRIANGLE, np.zeros((3, 1))])) == pytest.approx(0.16 * SQRT3_2)
        p0, p1 = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.3, 0.1, 0.1])
        segment = p0 + np.array([[0.3], [1.0], [0.0], [0.6]]) * (p1 - p0)
        assert polytope_volume(segment) == pytest.approx(np.linalg.norm(p1 - p0), rel=1e-12)
        assert polytope_volume([[0.2, 0.3, 0.5]]) == 0.0
        assert polytope_volume([[0.2, 0.3, 0.5]] * 3) == 0.0

    def test_errors(self):
        with pytest.raises(ValueError, match="vertices must be finite"):
            polytope_volume([[0.5, np.nan], [0.5, 0.5]])
        with pytest.raises(ValueError, match="vertices must sum to 1"):
            polytope_volume([[0.5, 0.6], [0.5, 0.5]])
        with pytest.raises(ValueError, match=r"vertices must have shape \(M, K\)"):
            polytope_volume(np.full((2, 2, 2), 0.5))


class TestSamplePolytope:
    def test_main(self):
        """Fraction of samples in each fan triangle of the pentagon = its area share (4 SE band),
        with interior members present."""
        members = np.vstack([INTERIOR[:2], PENTAGON, INTERIOR[2:]])
        assert sorted(ConvexHull(simplex_coordinates(members)).vertices) == [2, 3, 4, 5, 6]
        fan = [PENTAGON[[0, j, j + 1]] for j in (1, 2, 3)]
        shares = np.array([_area(*tri) for tri in fan]) / polytope_volume(PENTAGON)
        assert shares.sum() == pytest.approx(1.0)
        for method in UNIFORM:
            x = sample_polytope(members, N, method=method, seed=1)
            assert x.shape == (N, 3) and _on_simplex(x)
            fractions = np.array([_in_triangle(x, tri).mean() for tri in fan])
            np.testing.assert_array_less(np.abs(fractions - shares), _band(shares, N), err_msg=method)

    def test_weights_pile_up_in_the_centre(self):
        """Fig. 8: six members (the permutations of (0.6, 0.3, 0.1), a hexagon), uniform weights
        over-sample the hull scaled by 1/2 about its centre (area share exactly 1/4); both uniform
        methods match the share."""
        members = np.array(list(itertools.permutations([0.6, 0.3, 0.1])))
        pts = simplex_coordinates(members)
        hull = ConvexHull(pts)
        assert len(hull.vertices) == 6
        centre = pts[hull.vertices].mean(axis=0)

        def central_fraction(x):
            y = centre + 2 * (simplex_coordinates(x) - centre)  # x in the half-size hull ⇔ y in the hull
            return ((y @ hull.equations[:, :2].T + hull.equations[:, 2]) <= 0).all(axis=1).mean()

        for method in UNIFORM:
            assert abs(central_fraction(sample_polytope(members, N, method=method, seed=2)) - 0.25) < _band(0.25, N)
        naive = central_fraction(sample_polytope(members, N, method="weights", seed=2))
        assert naive > 0.25 + _band(0.25, N, k=10)
        assert naive > 0.5  # ≈ 0.74: the bias is large, not a marginal effect

    def test_weights_uniform_on_a_triangle(self):
        """With M = d + 1 affinely independent members Dir(1) weights *are* uniform (the bias needs M > d + 1)."""
        half = TRIANGLE[[0, 1]].mean(axis=0)
        sub = np.stack([TRIANGLE[0], half, TRIANGLE[2]])  # half of the triangle
        for method in ("weights", *UNIFORM):
            frac = _in_triangle(sample_polytope(TRIANGLE, N, method=method, seed=3), sub).mean()
            assert abs(frac - 0.5) < _band(0.5, N), method

    def test_mean_is_centroid(self):
        """A triangle embedded in K = 4 (d = 2 < K − 1): the sample mean is its centroid."""
        tri = np.array([[0.5, 0.3, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.2, 0.1, 0.3, 0.4]])
        for method in UNIFORM:
            x = sample_polytope(tri, N, method=method, seed=4)
            assert x.shape == (N, 4) and _on_simplex(x)
            se = x.std(axis=0) / np.sqrt(N)
            np.testing.assert_array_less(np.abs(x.mean(axis=0) - tri.mean(axis=0)), 5 * se, err_msg=method)

    def test_higher_dimension(self):
        """M = 12 members in K = 6 (d = 5): hit-and-run agrees with the exact triangulation in mean
        and in the quantiles of a projection. Within-chain correlation inflates hit-and-run's
        standard error by ≤ 2.2 at the defaults (20 seeds), so its band uses 3 SE."""
        members = np.random.default_rng(1).dirichlet(np.ones(6), size=12)
        exact = sample_polytope(members, N, seed=5)
        mcmc = sample_polytope(members, N, method="hit_and_run", seed=6)
        se = exact.std(axis=0) / np.sqrt(N)
        np.testing.assert_array_less(np.abs(mcmc.mean(axis=0) - exact.mean(axis=0)), 4 * np.sqrt(1 + 3**2) * se)
        direction = np.array([1.0, -1.0, 0.5, 0.0, -0.5, 0.2])
        qs = [0.05, 0.5, 0.95]
        np.testing.assert_allclose(np.quantile(mcmc @ direction, qs), np.quantile(exact @ direction, qs), atol=0.01)
        # the naive weights are visibly more concentrated than the uniform law
        naive = sample_polytope(members, N, method="weights", seed=7)
        assert (naive @ direction).std() < 0.8 * (exact @ direction).std()
        assert _on_simplex(exact) and _on_simplex(mcmc)

    def test_degenerate(self):
        # collinear members in K = 4: uniform on the segment between the two extreme members
        p0, p1 = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.3, 0.1, 0.1])
        segment = p0 + np.array([[0.3], [1.0], [0.0], [0.6], [0.6]]) * (p1 - p0)
        for method in UNIFORM:
            x = sample_polytope(segment, 2000, method=method, seed=8)
            t = (x - p0) @ (p1 - p0) / np.sum((p1 - p0) ** 2)
            np.testing.assert_allclose(x, p0 + t[:, None] * (p1 - p0), atol=1e-12)
            assert t.min() >= 0 and t.max() <= 1
            assert stats.kstest(t, "uniform").pvalue > 1e-3
        # a single point, given once or repeated
        for members in ([[0.2, 0.3, 0.5]], [[0.2, 0.3, 0.5]] * 4):
            for method in ("weights", *UNIFORM):
                np.testing.assert_allclose(sample_polytope(members, 5, method=method, seed=0), [[0.2, 0.3, 0.5]] * 5)

    def test_more_members_than_classes(self):
        """M = 10 > K = 3: every sample lies in the hull and on the simplex; the whole simplex too."""
        members = np.random.default_rng(9).dirichlet(np.ones(3), size=10)
        hull = ConvexHull(simplex_coordinates(members))
        for method in ("weights", *UNIFORM):
            x = sample_polytope(members, 3000, method=method, seed=9)
            assert x.shape == (3000, 3) and _on_simplex(x)
            assert (simplex_coordinates(x) @ hull.equations[:, :2].T + hull.equations[:, 2]).max() < 1e-9
            corners = sample_polytope(np.eye(4), 3000, method=method, seed=9)  # P touches every face
            assert _on_simplex(corners)

    def test_seed(self):
        for method in ("weights", *UNIFORM):
            a = sample_polytope(PENTAGON, 200, method=method, seed=11)
            np.testing.assert_array_equal(a, sample_polytope(PENTAGON, 200, method=method, seed=11))
            np.testing.assert_array_equal(
                a, sample_polytope(PENTAGON, 200, method=method, seed=np.random.default_rng(11))
            )
            assert not np.allclose(a, sample_polytope(PENTAGON, 200, method=method, seed=12))

    def test_hit_and_run_options(self):
        """burn_in, thin and n_chains change the chain but not the law."""
        x = sample_polytope(TRIANGLE, 999, method="hit_and_run", burn_in=0, thin=3, n_chains=7, seed=0)
        assert x.shape == (999, 3) and _on_simplex(x)
        assert _in_triangle(x, TRIANGLE).all()
        assert len(np.unique(x, axis=0)) == 999

    def test_errors(self):
        with pytest.raises(ValueError, match="vertices must be finite"):
            sample_polytope([[0.5, np.nan, 0.5], [0.2, 0.3, 0.5]], 10)
        with pytest.raises(ValueError, match="vertices must sum to 1"):
            sample_polytope([[0.5, 0.5, 0.5], [0.2, 0.3, 0.5]], 10)
        with pytest.raises(ValueError, match="vertices must have at least 2 dimensions"):
            sample_polytope([0.2, 0.3, 0.5], 10)
        with pytest.raises(ValueError, match=r"vertices must have shape \(M, K\)"):
            sample_polytope(np.full((2, 2, 2), 0.5), 10)
        with pytest.raises(ValueError, match="vertices must contain at least one"):
            sample_polytope(np.zeros((0, 3)), 10)
        with pytest.raises(ValueError, match="method must be one of"):
            sample_polytope(TRIANGLE, 10, method="rejection")
        for bad in (0, -3, 2.5, True):
            with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
                sample_polytope(TRIANGLE, bad)
        with pytest.raises(ValueError, match="burn_in must be an integer >= 0"):
            sample_polytope(TRIANGLE, 10, method="hit_and_run", burn_in=-1)
        with pytest.raises(ValueError, match="thin must be an integer >= 1"):
            sample_polytope(TRIANGLE, 10, method="hit_and_run", thin=0)
        with pytest.raises(ValueError, match="n_chains must be an integer >= 1"):
            sample_polytope(TRIANGLE, 10, method="hit_and_run", n_chains=0)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                sample_polytope(TRIANGLE, 10, seed=bad)
        with pytest.raises(ValueError, match="vertices must be numeric"):
            sample_polytope(np.asarray(TRIANGLE, dtype=complex), 10)


class TestPlotPolytopeSampling:
    def test_main(self):
        members = np.random.default_rng(8).dirichlet(np.ones(3), size=6)
        fig = plot_polytope_sampling(members, 300)
        assert isinstance(fig, matplotlib.figure.Figure)
        assert [ax.get_title() for ax in fig.axes] == [
            "uniform weights λ ~ Dir(1)",
            "uniform in the polytope (triangulation)",
        ]
        for ax in fig.axes:  # the samples, then the members
            assert [len(c.get_offsets()) for c in ax.collections] == [300, 6]
            np.testing.assert_allclose(ax.collections[1].get_offsets(), simplex_coordinates(members))
        fig = plot_polytope_sampling(members, 50, methods=("weights", "triangulation", "hit_and_run"))
        assert len(fig.axes) == 3 and fig.axes[2].get_title() == "uniform in the polytope (hit-and-run)"

    def test_given_axes_and_degenerate(self):
        fig, axes = plt.subplots(1, 2)
        out = plot_polytope_sampling(
            [[0.2, 0.3, 0.5], [0.6, 0.2, 0.2], [0.4, 0.25, 0.35]], 40, ax=axes, methods=("triangulation", "hit_and_run")
        )  # collinear members
        assert out is fig and len(fig.axes) == 2

    def test_errors(self):
        with pytest.raises(ValueError, match="vertices must have K = 3"):
            plot_polytope_sampling(np.eye(4), 10)
        with pytest.raises(ValueError, match="methods must be one of"):
            plot_polytope_sampling(TRIANGLE, 10, methods=("weights", "grid"))
        with pytest.raises(ValueError, match="ax must hold one Axes per method"):
            _, ax = plt.subplots()
            plot_polytope_sampling(TRIANGLE, 10, ax=ax)
        # checked before any figure is drawn
        plt.close("all")
        with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
            plot_polytope_sampling(TRIANGLE, 10, seed=-1)
        with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
            plot_polytope_sampling(TRIANGLE, 0)
        assert not plt.get_fignums()
