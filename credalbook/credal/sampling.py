r"""Uniform sampling in the credal set of a finite set of classifiers (Jürgens et al., App. C).

At one instance, M classifiers with predictions :math:`\mathbf p^{(1)}, \dots, \mathbf p^{(M)} \in
\Delta_K` span the polytope

.. math::
    P = \operatorname{conv}\{\mathbf p^{(1)}, \dots, \mathbf p^{(M)}\}
      = \Bigl\{\textstyle\sum_{m=1}^M \lambda_m \mathbf p^{(m)} : \boldsymbol\lambda \in \Delta_M\Bigr\}.

Drawing :math:`\boldsymbol\lambda \sim \mathrm{Dir}(1, \dots, 1)` (uniform on :math:`\Delta_M`, as
Mortier et al. 2023 do) does *not* give points uniform on :math:`P` once M exceeds the affine
dimension plus one: the map :math:`\boldsymbol\lambda \mapsto \sum_m \lambda_m \mathbf p^{(m)}`
squashes the (M−1)-dimensional simplex onto the lower-dimensional :math:`P`, and the points pile up
in its middle (Jürgens et al., Fig. 8). This module samples :math:`P` exactly uniformly:

* ``"triangulation"`` (exact, independent draws): triangulate :math:`P` (Delaunay of its extreme
  points), choose a simplex :math:`T_j` with probability :math:`\mathrm{vol}(T_j) / \mathrm{vol}(P)`
  and a point in it with :math:`\mathrm{Dir}(1)` barycentric weights, which is uniform on
  :math:`T_j` because barycentric coordinates are an affine map.
* ``"hit_and_run"`` (MCMC, Smith 1984): from the current point draw a uniform direction and move
  to a uniform point of the chord through :math:`P`; the chain's stationary law is uniform on
  :math:`P`.
* ``"weights"``: the naive :math:`\boldsymbol\lambda \sim \mathrm{Dir}(1)`, for comparison.

All computations take place in orthonormal coordinates of the affine hull of the members: its
dimension :math:`d = \operatorname{rank}(\mathbf p^{(m)} - \mathbf p^{(1)})_m \le \min(M, K) - 1`
is found by an SVD, singular values up to ``AFFINE_TOL`` counting as zero.

References
----------
Jürgens, Mortier, Hüllermeier, Bengs, Waegeman. A calibration test for evaluating set-based
epistemic uncertainty representations. App. C and Fig. 8.
Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the calibration of probabilistic classifier sets.
AISTATS 2023, Alg. 1.
Smith. Efficient Monte Carlo procedures for generating points uniformly distributed over bounded
regions. Operations Research 32(6), 1984.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, Delaunay, QhullError

from credalbook._validation import as_rng, check_choice, check_positive_int, check_vertices

__all__ = ["sample_polytope", "polytope_volume"]

#: Singular values of the centred members up to this size count as zero when finding the affine
#: dimension. Dropping them moves no member by more than ``AFFINE_TOL`` (Euclidean), far below
#: the float32 resolution of softmax outputs summed over a few members.
AFFINE_TOL = 1e-6
METHODS = ("triangulation", "hit_and_run", "weights")
#: Parallel hit-and-run chains used when ``n_chains`` is None (capped at ``n_samples``).
DEFAULT_CHAINS = 100
_TINY = np.finfo(np.float64).tiny


@dataclass(frozen=True)
class _AffineFrame:
    """Members in orthonormal coordinates of their affine hull: ``vertices ≈ origin + coords @ basis``."""

    vertices: np.ndarray  # (M, K) rows renormalised onto the simplex
    origin: np.ndarray  # (K,) mean of the members
    basis: np.ndarray  # (d, K) orthonormal rows spanning the affine hull's directions
    coords: np.ndarray  # (M, d)

    @property
    def dim(self) -> int:
        return self.basis.shape[0]


def _to_simplex(points: np.ndarray) -> np.ndarray:
    """Clip round-off negatives and renormalise rows to sum to one."""
    points = np.clip(points, 0.0, None)
    return points / points.sum(axis=-1, keepdims=True)


def _affine_frame(v: np.ndarray) -> _AffineFrame:
    v = _to_simplex(v)  # check_probs allows |sum - 1| up to 1e-4: put every row on the hyperplane
    origin = v.mean(axis=0)
    _, s, vt = np.linalg.svd(v - origin, full_matrices=False)
    d = int((s > AFFINE_TOL).sum())
    basis = vt[:d]
    return _AffineFrame(v, origin, basis, (v - origin) @ basis.T)


def _qhull(cls, points: np.ndarray):
    """Build a Qhull object; joggle the input ("QJ") only if the default options fail."""
    try:
        return cls(points)
    except QhullError:
        return cls(points, qhull_options="QJ")


def _triangulation(frame: _AffineFrame) -> tuple[np.ndarray, np.ndarray]:
    """Delaunay simplices of the extreme members (S, d + 1), as row indices into the members, and
    their d-dimensional volumes (S,)."""
    y = frame.coords
    extreme = _qhull(ConvexHull, y).vertices
    simplices = extreme[_qhull(Delaunay, y[extreme]).simplices]
    corners = y[simplices]
    edges = corners[:, 1:] - corners[:, :1]
    volumes = np.abs(np.linalg.det(edges)) / math.factorial(frame.dim)
    return simplices, volumes


def _segment_ends(frame: _AffineFrame) -> tuple[np.ndarray, np.ndarray]:
    t = frame.coords[:, 0]
    return frame.vertices[t.argmin()], frame.vertices[t.argmax()]


def polytope_volume(vertices) -> float:
    r"""The d-dimensional volume of the convex hull of the rows of ``vertices``.

    d is the affine dimension of the hull (see :func:`sample_polytope`); the volume is measured in
    orthonormal coordinates of the affine hull, i.e. with the Euclidean metric of
    :math:`\mathbb R^K` restricted to it. So the whole simplex :math:`\Delta_K` (edges of length
    :math:`\sqrt 2`) has volume :math:`\sqrt K / (K - 1)!`: :math:`\sqrt 2` for K = 2,
    :math:`\sqrt 3 / 2` for K = 3, 1/3 for K = 4. A segment has its Euclidean length and a single
    point volume 0. For d ≥ 2 it is the sum of the Delaunay simplex volumes, which equals
    ``scipy.spatial.ConvexHull(coords).volume``.

    Parameters
    ----------
    vertices : array-like, shape (M, K)
        Probability vectors (rows on the simplex); interior and repeated points are allowed.

    Returns
    -------
    float

    References
    ----------
    Jürgens et al., App. C (the uniform density on the credal set is 1 / volume).

    Examples
    --------
    >>> round(polytope_volume(np.eye(3)), 6)  # the simplex Δ_3: √3 / 2
    0.866025
    >>> round(polytope_volume([[1.0, 0.0], [0.0, 1.0]]), 6)  # a segment of length √2
    1.414214
    """
    frame = _affine_frame(check_vertices(vertices))
    if frame.dim == 0:
        return 0.0
    if frame.dim == 1:
        return float(np.ptp(frame.coords[:, 0]))
    return float(_triangulation(frame)[1].sum())


def _sample_triangulation(frame: _AffineFrame, n: int, rng: np.random.Generator) -> np.ndarray:
    simplices, volumes = _triangulation(frame)
    chosen = rng.choice(len(volumes), size=n, p=volumes / volumes.sum())
    bary = rng.exponential(size=(n, frame.dim + 1))  # normalised exponentials: Dir(1, ..., 1)
    bary /= bary.sum(axis=1, keepdims=True)
    return np.einsum("nj,njk->nk", bary, frame.vertices[simplices[chosen]])


def _sample_hit_and_run(
    frame: _AffineFrame, n: int, rng: np.random.Generator, burn_in: int, thin: int, n_chains: int
) -> np.ndarray:
    y = frame.coords
    hull = _qhull(ConvexHull, y)
    ext = y[hull.vertices]
    # Round the body: in the principal axes of the extreme points, scaled to unit spread, it is
    # closer to isotropic, and hit-and-run mixes faster. Uniformity is kept (affine map).
    mean = ext.mean(axis=0)
    _, s, vt = np.linalg.svd(ext - mean, full_matrices=False)
    transform = s[:, None] * vt  # y = mean + z @ transform
    normals = hull.equations[:, :-1] @ transform.T  # facets: normals @ z + offsets <= 0
    offsets = hull.equations[:, -1] + hull.equations[:, :-1] @ mean
    z = np.zeros((n_chains, frame.dim))  # start at the mean of the extreme points (interior)
    n_keep = -(-n // n_chains)
    out = np.empty((n_keep, n_chains, frame.dim))
    kept = 0
    for step in range(burn_in + thin * n_keep):
        u = rng.standard_normal(z.shape)
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        slack = np.maximum(-(z @ normals.T + offsets), _TINY)  # (C, F), > 0 inside
        with np.errstate(over="ignore", divide="ignore"):
            # z + t u stays inside facet f iff t * rate_f <= slack_f with rate_f = normal_f . u; the
            # chord is 1 / min(rate / slack) <= t <= 1 / max(rate / slack) (a bounded P has both signs)
            ratio = (u @ normals.T) / slack
            t_hi, t_lo = 1.0 / ratio.max(axis=1), 1.0 / ratio.min(axis=1)
        z = z + (t_lo + (t_hi - t_lo) * rng.random(n_chains))[:, None] * u
        if step >= burn_in and (step - burn_in + 1) % thin == 0:
            out[kept] = z
            kept += 1
    ys = mean + out.reshape(-1, frame.dim)[:n] @ transform
    return frame.origin + ys @ frame.basis


def sample_polytope(
    vertices,
    n_samples: int,
    *,
    method: str = "triangulation",
    seed=None,
    burn_in: int | None = None,
    thin: int | None = None,
    n_chains: int | None = None,
) -> np.ndarray:
    r"""Points uniformly distributed on the convex hull of M probability vectors.

    The target density is :math:`1 / \mathrm{vol}_d(P)` on
    :math:`P = \operatorname{conv}\{\mathbf p^{(1)}, \dots, \mathbf p^{(M)}\}`, where d is the
    affine dimension of the members (rank of :math:`\mathbf p^{(m)} - \mathbf p^{(1)}`, from an
    SVD with tolerance ``AFFINE_TOL``). The members are projected onto orthonormal coordinates
    of their affine hull, sampled there and mapped back. For d = 0 every sample is the single
    point; for d = 1 the samples are uniform on the segment between the two extreme members
    (both exact methods then coincide).

    .. math::
        \mathbf x = \sum_{i=0}^{d} \mu_i \mathbf v_{j,i},\quad
        j \sim \mathrm{Cat}\Bigl(\tfrac{\mathrm{vol}(T_j)}{\mathrm{vol}(P)}\Bigr),\quad
        \boldsymbol\mu \sim \mathrm{Dir}(\mathbf 1_{d+1})
        \qquad\text{("triangulation", } T_j = \operatorname{conv}\{\mathbf v_{j,0}, \dots,
        \mathbf v_{j,d}\}\text{)}.

    Parameters
    ----------
    vertices : array-like, shape (M, K)
        The members, rows on the simplex; M ≥ 1. Members inside the hull or repeated are allowed
        (they do not change P). Rows are clipped at 0 and renormalised before use.
    n_samples : int
        Number of points, ≥ 1.
    method : {"triangulation", "hit_and_run", "weights"}
        ``"triangulation"``: exact and independent draws from a Delaunay triangulation of the
        extreme members (Qhull), simplices chosen with probability ∝ volume and
        :math:`\mathrm{Dir}(1)` barycentric weights inside; fully vectorised. The number of
        simplices, and Qhull's cost, grow quickly with d (up to :math:`O(M^{\lceil d/2 \rceil})`).
        ``"hit_and_run"``: Markov chain Monte Carlo with the facets of the hull (its
        H-representation from Qhull): from the current point a uniformly random direction, the
        chord of P along it, and a uniform point on the chord. Draws are approximately uniform
        (after burn-in) and correlated within a chain. The body is first rounded (principal axes
        of the extreme members, unit spread), which keeps uniformity and speeds mixing. It needs
        only the hull's facets, not a triangulation (a convex hull in d + 1 dimensions, with
        several times more simplices than P has facets), so it is the fallback for large d and many
        members, where triangulating no longer fits in time or memory; each step costs
        O(n_chains · facets · d). For credal sets of the papers' size (M ≤ 20, K ≤ 10)
        triangulation is exact and much faster (0.03 s against 1.3 s for 20 000 points, M = 20,
        K = 10, one core).
        ``"weights"``: the naive :math:`\sum_m \lambda_m \mathbf p^{(m)}` with
        :math:`\boldsymbol\lambda \sim \mathrm{Dir}(1)` (Mortier et al., Alg. 1), *not* uniform on
        P once M > d + 1: points concentrate in the middle (Jürgens et al., Fig. 8).
    seed : int, numpy Generator or None
    burn_in : int, optional
        ``"hit_and_run"`` only: steps discarded at the start of each chain, ≥ 0. Default
        :math:`\max(50, 20 d)`. From the start at the centre, the rounded chain reaches the uniform
        law (quantiles of random projections within Monte-Carlo error) after 20–50 steps for random
        polytopes with d = 3, 5 and 9; the default leaves a margin of several times that.
    thin : int, optional
        ``"hit_and_run"`` only: keep every ``thin``-th state of a chain after burn-in, ≥ 1.
        Default d.
    n_chains : int, optional
        ``"hit_and_run"`` only: independent chains run side by side (vectorised), all started at
        the mean of the extreme members; each contributes ``ceil(n_samples / n_chains)`` points.
        Default ``min(n_samples, 100)``.

    Returns
    -------
    ndarray, shape (n_samples, K)
        Rows on the simplex (round-off negatives clipped, rows renormalised).

    References
    ----------
    Jürgens et al., App. C and Fig. 8; Mortier et al. 2023, Alg. 1; Smith 1984 (hit-and-run).

    Examples
    --------
    >>> square = [[0.5, 0.5, 0, 0], [0, 0.5, 0.5, 0], [0, 0, 0.5, 0.5], [0.5, 0, 0, 0.5], [0.25] * 4]
    >>> x = sample_polytope(square, 1000, seed=0)
    >>> x.shape, bool(np.allclose(x.sum(axis=1), 1)), bool((x >= 0).all())
    ((1000, 4), True, True)
    >>> sample_polytope([[0.2, 0.8], [0.2, 0.8]], 2, method="hit_and_run").tolist()
    [[0.2, 0.8], [0.2, 0.8]]
    """
    v = check_vertices(vertices)
    n = check_positive_int(n_samples, "n_samples")
    check_choice(method, "method", METHODS)
    burn_in = None if burn_in is None else check_positive_int(burn_in, "burn_in", minimum=0)
    thin = None if thin is None else check_positive_int(thin, "thin")
    n_chains = None if n_chains is None else check_positive_int(n_chains, "n_chains")
    rng = as_rng(seed)
    frame = _affine_frame(v)
    d = frame.dim
    if method == "weights":
        lam = rng.exponential(size=(n, len(v)))  # Dir(1, ..., 1)
        points = (lam / lam.sum(axis=1, keepdims=True)) @ frame.vertices
    elif d == 0:
        points = np.repeat(frame.origin[None], n, axis=0)
    elif d == 1:
        lo, hi = _segment_ends(frame)
        points = lo + rng.random((n, 1)) * (hi - lo)
    elif method == "triangulation":
        points = _sample_triangulation(frame, n, rng)
    else:
        points = _sample_hit_and_run(
            frame,
            n,
            rng,
            max(50, 20 * d) if burn_in is None else burn_in,
            d if thin is None else thin,
            min(n, n_chains or DEFAULT_CHAINS),
        )
    return _to_simplex(points)
