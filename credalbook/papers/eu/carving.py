r"""Evaluation and calibration splits made by carving balls out of a dataset (EU paper, Secs. 4.2-4.3).

To measure the accuracy gain of Def. 4 one needs test points on which a near-optimal classifier is
available. The EU paper (Sec. 4.2.1) gets them by removing ball-shaped regions from the data:
"in each iteration :math:`i`, we identify a center :math:`c_i` and obtain the set of points within a
radius :math:`R` of :math:`c_i`", of which

* :math:`p_i` % go to :math:`\mathcal D_{train}`,
* :math:`q_i` % go to :math:`\mathcal D_{test}`,
* the remaining :math:`(1 - p_i - q_i)` % are combined with :math:`\mathcal D_{train}` to form
  :math:`\mathcal D_{aug}`.

The paper's Algorithm 1 is in its (unavailable) supplement. :func:`carve_balls` implements the
natural reading, which also matches Fig. 1 (:math:`\mathcal D_{aug}` "fills in the circular region
carved out in :math:`\mathcal D_{train}`"):

1. Balls are processed in the given order; a point belongs to the first ball that contains it
   (:math:`\lVert x - c_i\rVert \le R`) and is not re-assigned by later, overlapping balls.
2. Within ball :math:`i` the :math:`n_i` points are randomly permuted;
   :math:`\mathrm{round}(p_i n_i)` go to :math:`\mathcal D_{train}`, then
   :math:`\mathrm{round}(q_i n_i)` to :math:`\mathcal D_{test}`, the rest to
   :math:`\mathcal D_{aug}` only.
3. Every point outside all balls is in :math:`\mathcal D_{train}` (the balls are *removed* from the
   data; everything else is training data).
4. :math:`\mathcal D_{aug} = \mathcal D_{train} \cup \{\text{rest of the balls}\}`; the test points
   are in neither :math:`\mathcal D_{train}` nor :math:`\mathcal D_{aug}`.

Centres: on toy data, a regular grid of non-overlapping discs (:func:`grid_centres`, Sec. 5.3); on
real data, high-density points found by counting neighbours of random candidates
(:func:`dense_centres`, Sec. 5.4). The calibration datasets :math:`\mathcal D_{train,2}`,
:math:`\mathcal D_{test,2}`, :math:`\mathcal D_{aug,2}` of Sec. 4.3 are carved out of
:math:`\mathcal D_{train}` with the same procedure: pass ``subset=split.train`` (Sec. 4.3.1, "we
sidestep this issue by using the procedure used to create the evaluation datasets as the splitting
procedure for the calibration datasets").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from credalbook._validation import as_numpy, check_positive_int, check_unit_values

__all__ = [
    "BallLayout",
    "BallSplit",
    "DenseCentres",
    "carve_balls",
    "dense_centres",
    "grid_centres",
    "neighbour_radius",
]


# ------------------------------------------------------------------------------ checks
def _points(x, name: str = "x") -> np.ndarray:
    arr = as_numpy(x, name)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have shape (N, D) with N, D >= 1; got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        i = tuple(int(v) for v in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; {name}[{i[0]}, {i[1]}] = {arr[i]}")
    return arr


def _radius(radius) -> float:
    ok = isinstance(radius, (int, float, np.integer, np.floating)) and not isinstance(radius, bool)
    if not ok or not math.isfinite(float(radius)) or float(radius) <= 0:
        raise ValueError(f"radius must be a finite number > 0; got {radius!r}")
    return float(radius)


def _fractions(value, name: str, n: int) -> np.ndarray:
    arr = as_numpy(value, name)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a number in [0, 1] or an array of {n}; got {value!r}")
    arr = arr.astype(np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a number or have shape ({n},), one value per centre; got {arr.shape}")
    return check_unit_values(arr, name)


def _subset(subset, n: int) -> np.ndarray:
    """Boolean mask of the points that may be carved (all when None)."""
    if subset is None:
        return np.ones(n, dtype=bool)
    idx = as_numpy(subset, "subset")
    if idx.dtype == bool:
        if idx.shape != (n,):
            raise ValueError(f"subset as a boolean mask must have shape ({n},); got {idx.shape}")
        return idx.copy()
    if idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise ValueError(
            f"subset must be a 1-D array of integer indices or a boolean mask; got shape {idx.shape}, dtype {idx.dtype}"
        )
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise ValueError(f"subset indices must lie in [0, {n}); got {int(bad)}")
    mask = np.zeros(n, dtype=bool)
    mask[idx] = True
    return mask


_TREE_MAX_DIM = 15  # k-d trees degrade to scanning every point in more dimensions (scikit-learn's own switch)
_CHUNK = 2**22  # squared distances held at once by the brute-force queries (32 MiB)


def _squared_distances(pool_pts: np.ndarray, queries: np.ndarray):
    """Yield (slice, squared Euclidean distances (chunk, n_pool)) for chunks of the queries."""
    sq_pool = np.einsum("ij,ij->i", pool_pts, pool_pts)
    step = max(1, _CHUNK // max(1, pool_pts.shape[0]))
    for s in range(0, queries.shape[0], step):
        q = queries[s : s + step]
        d2 = np.einsum("ij,ij->i", q, q)[:, None] + sq_pool[None, :] - 2.0 * (q @ pool_pts.T)
        yield slice(s, s + step), np.maximum(d2, 0.0)


def _kth_neighbour_distance(pool_pts: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Distance from each query to its (k+1)-th nearest pool point (0-based k; a query in the pool is its own first)."""
    if pool_pts.shape[1] <= _TREE_MAX_DIM:
        from sklearn.neighbors import KDTree

        return KDTree(pool_pts).query(queries, k=k + 1)[0][:, k]
    out = np.empty(queries.shape[0])
    for sl, d2 in _squared_distances(pool_pts, queries):
        out[sl] = np.sqrt(np.partition(d2, k, axis=1)[:, k])
    return out


def _count_within(pool_pts: np.ndarray, queries: np.ndarray, radius: float) -> np.ndarray:
    """Number of pool points within ``radius`` of each query (k-d tree in low, brute force in high dimension)."""
    if pool_pts.shape[1] <= _TREE_MAX_DIM:
        from sklearn.neighbors import KDTree

        return KDTree(pool_pts).query_radius(queries, r=radius, count_only=True)
    out = np.empty(queries.shape[0], dtype=np.int64)
    for sl, d2 in _squared_distances(pool_pts, queries):
        out[sl] = np.count_nonzero(d2 <= radius * radius, axis=1)
    return out


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class BallSplit:
    r"""Index sets of one ball-carving split (all sorted int64 indices into the rows of ``x``).

    Attributes
    ----------
    train : ndarray
        :math:`\mathcal D_{train}`: every eligible point outside the balls plus :math:`p_i` % of ball :math:`i`.
    test : ndarray
        :math:`\mathcal D_{test}`: :math:`q_i` % of ball :math:`i`.
    aug : ndarray
        :math:`\mathcal D_{aug} = \mathcal D_{train} \cup` ``aug_only``.
    aug_only : ndarray
        The remaining :math:`(1 - p_i - q_i)` % of the balls.
    ball : ndarray, shape (N,)
        Ball of each row of ``x`` (``-1``: outside every ball or not eligible).
    test_ball : ndarray
        Ball of each test point (``ball[test]``), to analyse results per disc.
    """

    train: np.ndarray
    test: np.ndarray
    aug: np.ndarray
    aug_only: np.ndarray
    ball: np.ndarray

    @property
    def test_ball(self) -> np.ndarray:
        return self.ball[self.test]

    @property
    def ball_sizes(self) -> np.ndarray:
        """Number of points assigned to each ball (length = number of centres with any point)."""
        return np.bincount(self.ball[self.ball >= 0])


@dataclass(frozen=True)
class BallLayout:
    """Centres, radius and per-ball fractions of a carving design; ``layout.carve(x)`` applies it.

    Attributes
    ----------
    centres : ndarray, shape (B, D)
    radius : float
    p_train, q_test : ndarray, shape (B,)
        Fractions of each ball kept in :math:`\\mathcal D_{train}` and moved to :math:`\\mathcal D_{test}`.
    """

    centres: np.ndarray
    radius: float
    p_train: np.ndarray
    q_test: np.ndarray

    def carve(self, x, *, subset=None, seed=0) -> BallSplit:
        """:func:`carve_balls` with this layout."""
        return carve_balls(
            x, self.centres, radius=self.radius, p_train=self.p_train, q_test=self.q_test, subset=subset, seed=seed
        )


@dataclass(frozen=True)
class DenseCentres:
    """High-density ball centres found by :func:`dense_centres`.

    Attributes
    ----------
    index : ndarray of int, shape (B,)
        Rows of ``x`` used as centres, in the order they were accepted.
    centres : ndarray, shape (B, D)
        ``x[index]``.
    counts : ndarray of int, shape (B,)
        Number of eligible points within the radius of each centre (the centre included).
    """

    index: np.ndarray
    centres: np.ndarray
    counts: np.ndarray


# ------------------------------------------------------------------------------ carving
def carve_balls(x, centres, *, radius, p_train, q_test, subset=None, seed=0) -> BallSplit:
    r"""Split a dataset into :math:`\mathcal D_{train}`, :math:`\mathcal D_{test}`, :math:`\mathcal D_{aug}` by carving balls.

    For ball :math:`i` with centre :math:`c_i` and the :math:`n_i` eligible, not yet assigned points
    :math:`\{j : \lVert x_j - c_i\rVert_2 \le R\}` (in random order):

    .. math::

        \underbrace{\mathrm{round}(p_i n_i)}_{\mathcal D_{train}}
        + \underbrace{\mathrm{round}(q_i n_i)}_{\mathcal D_{test}}
        + \underbrace{n_i - \mathrm{round}(p_i n_i) - \mathrm{round}(q_i n_i)}_{\mathcal D_{aug}\ \text{only}}
        = n_i,

    every eligible point outside the balls goes to :math:`\mathcal D_{train}`, and
    :math:`\mathcal D_{aug} = \mathcal D_{train} \cup \mathcal D_{aug\ only}` (see the module
    docstring for the reading of the paper's procedure).

    Parameters
    ----------
    x : array-like, shape (N, D)
    centres : array-like, shape (B, D)
        Ball centres, processed in this order (overlaps go to the earlier ball).
    radius : float
        :math:`R`.
    p_train, q_test : float or array-like of shape (B,)
        Fractions :math:`p_i, q_i \in [0, 1]` with :math:`p_i + q_i \le 1`.
    subset : array-like of int or bool, optional
        Only these points are split; the others appear in no output set. Use ``subset=split.train``
        to carve the calibration datasets of Sec. 4.3 out of :math:`\mathcal D_{train}`.
    seed : int, numpy.random.Generator or None, default=0
        For the random order within each ball.

    Returns
    -------
    BallSplit

    References
    ----------
    EU paper, Sec. 4.2.1 (data splitting procedure), Sec. 4.3 (calibration datasets), Fig. 1.

    Examples
    --------
    >>> x = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.2], [0.3, 0.0], [5.0, 5.0]])
    >>> s = carve_balls(x, [[0.0, 0.0]], radius=1.0, p_train=0.25, q_test=0.25, seed=0)
    >>> len(s.train), len(s.test), len(s.aug_only), 4 in s.train, s.ball.tolist()
    (2, 1, 2, True, [0, 0, 0, 0, -1])
    >>> sorted(set(s.aug)) == sorted(set(s.train) | set(s.aug_only))
    True
    """
    from sklearn.neighbors import KDTree

    pts = _points(x)
    c = _points(centres, "centres")
    if c.shape[1] != pts.shape[1]:
        raise ValueError(f"centres must have {pts.shape[1]} columns like x; got shape {c.shape}")
    r = _radius(radius)
    p = _fractions(p_train, "p_train", c.shape[0])
    q = _fractions(q_test, "q_test", c.shape[0])
    over = p + q > 1 + 1e-12
    if over.any():
        i = int(np.argmax(over))
        raise ValueError(
            f"p_train + q_test must be at most 1 for every ball; ball {i} has {p[i]!r} + {q[i]!r} = {p[i] + q[i]!r}"
        )
    eligible = _subset(subset, pts.shape[0])
    rng = np.random.default_rng(seed)
    n = pts.shape[0]
    ball = np.full(n, -1, dtype=np.int64)
    train, test, aug_only = [], [], []
    pool = np.flatnonzero(eligible)
    if pool.size:
        tree = KDTree(pts[pool])
        members = tree.query_radius(c, r=r)
        for i, local in enumerate(members):
            idx = pool[np.sort(local)]
            idx = idx[ball[idx] < 0]  # first ball wins
            ball[idx] = i
            idx = rng.permutation(idx)
            n_i = idx.shape[0]
            n_tr = int(math.floor(p[i] * n_i + 0.5))
            n_te = min(int(math.floor(q[i] * n_i + 0.5)), n_i - n_tr)
            train.append(idx[:n_tr])
            test.append(idx[n_tr : n_tr + n_te])
            aug_only.append(idx[n_tr + n_te :])
    train.append(np.flatnonzero(eligible & (ball < 0)))
    empty = np.empty(0, dtype=np.int64)
    train = np.sort(np.concatenate(train)).astype(np.int64)
    test = np.sort(np.concatenate(test)).astype(np.int64) if test else empty
    aug_only = np.sort(np.concatenate(aug_only)).astype(np.int64) if aug_only else empty
    return BallSplit(
        train=train, test=test, aug=np.union1d(train, aug_only).astype(np.int64), aug_only=aug_only, ball=ball
    )


def grid_centres(lower, upper, *, shape) -> np.ndarray:
    r"""Centres of the cells of a regular grid over the box ``[lower, upper]`` (toy data, Sec. 5.3).

    Along dimension :math:`d` the box is divided into ``shape[d]`` equal cells and the centres are the
    cell midpoints :math:`l_d + (k + 1/2)(u_d - l_d)/n_d`, :math:`k = 0, \dots, n_d - 1`. Balls of
    radius below half the smallest cell width do not overlap and stay inside the box.

    Returns
    -------
    ndarray, shape (prod(shape), D)
        In C order (last dimension fastest).

    Examples
    --------
    >>> grid_centres([0, 0], [4, 2], shape=(2, 1))
    array([[1., 1.],
           [3., 1.]])
    """
    lo = np.asarray(as_numpy(lower, "lower"), dtype=np.float64).ravel()
    hi = np.asarray(as_numpy(upper, "upper"), dtype=np.float64).ravel()
    if lo.shape != hi.shape or lo.size < 1:
        raise ValueError(f"lower and upper must have the same length >= 1; got {lo.shape} and {hi.shape}")
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or (hi <= lo).any():
        raise ValueError(f"upper must exceed lower in every dimension; got lower={lo.tolist()}, upper={hi.tolist()}")
    shape = tuple(shape) if np.iterable(shape) else (shape,)
    if len(shape) != lo.size:
        raise ValueError(f"shape must have one entry per dimension ({lo.size}); got {shape!r}")
    shape = tuple(check_positive_int(s, "shape") for s in shape)
    axes = [lo[d] + (np.arange(s) + 0.5) * (hi[d] - lo[d]) / s for d, s in enumerate(shape)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, lo.size)


def neighbour_radius(
    x, *, n_neighbours: int, quantile: float = 0.5, n_candidates: int = 1000, subset=None, seed=0
) -> float:
    r"""A radius at which a random point has about ``n_neighbours`` neighbours (helps choose :math:`R`).

    The ``quantile`` of the distance from ``n_candidates`` random eligible points to their
    ``n_neighbours``-th nearest eligible point (the point itself excluded). The paper chooses
    :math:`R` in its supplement; this is a data-driven starting value for high-dimensional data.

    Examples
    --------
    >>> x = np.arange(10.0)[:, None]
    >>> neighbour_radius(x, n_neighbours=2, n_candidates=10)
    1.0
    """
    pts = _points(x)
    k = check_positive_int(n_neighbours, "n_neighbours")
    n_candidates = check_positive_int(n_candidates, "n_candidates")
    if not 0.0 <= float(quantile) <= 1.0:
        raise ValueError(f"quantile must lie in [0, 1]; got {quantile!r}")
    pool = np.flatnonzero(_subset(subset, pts.shape[0]))
    if pool.size <= k:
        raise ValueError(f"n_neighbours must be smaller than the number of eligible points ({pool.size}); got {k}")
    rng = np.random.default_rng(seed)
    cand = rng.choice(pool, size=min(n_candidates, pool.size), replace=False)
    return float(np.quantile(_kth_neighbour_distance(pts[pool], pts[cand], k), float(quantile)))


def dense_centres(
    x,
    *,
    radius,
    n_centres: int,
    min_neighbours: int,
    n_candidates: int = 1000,
    min_separation: float | None = None,
    subset=None,
    seed=0,
) -> DenseCentres:
    r"""Centres of high-density balls for real data (EU paper, Secs. 4.2.1 and 5.4).

    "We search for regions of high density by sampling random points, calculating the number of
    points in a ball around them, and selecting points that have a sufficient number of neighbors"
    (Sec. 5.4; the full description is in the unavailable supplement). Here:

    1. draw ``n_candidates`` distinct eligible points at random;
    2. count the eligible points within ``radius`` of each, :math:`n(c) = |\{j : \lVert x_j - c\rVert \le R\}|`;
    3. go through the candidates in their random order and accept :math:`c` when
       :math:`n(c) \ge` ``min_neighbours`` and it is at least ``min_separation`` (default :math:`R`)
       away from every accepted centre, until ``n_centres`` are accepted.

    With the default separation :math:`R` no centre lies inside another ball, but balls may overlap,
    as the paper notes for its real data; ``min_separation = 2R`` gives disjoint balls. Fewer than
    ``n_centres`` centres are returned when not enough candidates qualify.

    Parameters
    ----------
    x : array-like, shape (N, D)
    radius : float
        Ball radius :math:`R`.
    n_centres : int
    min_neighbours : int
        Required :math:`n(c)`.
    n_candidates : int, default=1000
    min_separation : float or None, default=None
        Minimum distance between accepted centres (``None``: ``radius``; 0: no constraint).
    subset : array-like of int or bool, optional
        Eligible points (candidates and neighbours); e.g. ``split.train`` for the calibration balls.
    seed : int, numpy.random.Generator or None, default=0

    Returns
    -------
    DenseCentres

    References
    ----------
    EU paper, Sec. 4.2.1 ("on real data, we find data-rich regions by sampling points and computing the
    number of neighbors in the ball-shaped region around them") and Sec. 5.4.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.vstack([rng.normal(0, 0.1, (50, 2)), rng.uniform(-5, 5, (50, 2))])
    >>> found = dense_centres(x, radius=0.5, n_centres=3, min_neighbours=20, n_candidates=100)
    >>> len(found.index), bool((np.linalg.norm(found.centres, axis=1) < 0.5).all())
    (1, True)
    """
    pts = _points(x)
    r = _radius(radius)
    n_centres = check_positive_int(n_centres, "n_centres")
    min_neighbours = check_positive_int(min_neighbours, "min_neighbours")
    n_candidates = check_positive_int(n_candidates, "n_candidates")
    if min_separation is None:
        sep = r
    else:
        ok = isinstance(min_separation, (int, float, np.integer, np.floating)) and not isinstance(min_separation, bool)
        if not ok or not math.isfinite(float(min_separation)) or float(min_separation) < 0:
            raise ValueError(f"min_separation must be a finite number >= 0 or None; got {min_separation!r}")
        sep = float(min_separation)
    pool = np.flatnonzero(_subset(subset, pts.shape[0]))
    if pool.size == 0:
        raise ValueError("subset must contain at least one point")
    rng = np.random.default_rng(seed)
    cand = rng.choice(pool, size=min(n_candidates, pool.size), replace=False)
    counts = _count_within(pts[pool], pts[cand], r)
    chosen, chosen_counts = [], []
    for j, cnt in zip(cand, counts):
        if cnt < min_neighbours:
            continue
        if chosen and sep > 0 and np.min(np.linalg.norm(pts[chosen] - pts[j], axis=1)) < sep:
            continue
        chosen.append(int(j))
        chosen_counts.append(int(cnt))
        if len(chosen) == n_centres:
            break
    index = np.asarray(chosen, dtype=np.int64)
    return DenseCentres(
        index=index, centres=pts[index].reshape(-1, pts.shape[1]), counts=np.asarray(chosen_counts, dtype=np.int64)
    )
