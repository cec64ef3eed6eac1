r"""Geometry of credal sets spanned by a set of probabilistic classifiers.

A set :math:`\mathcal P = \{\hat{\mathbf p}^{(1)}, \dots, \hat{\mathbf p}^{(M)}\}` of classifiers,
stored as ``ens_probs`` of shape (N, M, K), spans at every instance the convex hull

.. math::
    S(\mathcal P)(\mathbf x) = \Bigl\{\textstyle\sum_{m=1}^M \lambda_m \hat{\mathbf p}^{(m)}(\mathbf x)
    : \boldsymbol\lambda \in \Delta_M\Bigr\}
    \qquad\text{(Mortier et al. 2023, Eq. 2)}.

This module combines members with weights, samples weights on :math:`\Delta_M`, decides membership
of a distribution in the hull by linear programming and finds where a segment leaves the hull
(Alg. 2 of Mortier et al., its grid line search, an exact bisection and a one-shot LP).

All LPs are solved with HiGHS (:func:`scipy.optimize.linprog`). Independent instances are stacked
in groups of a few dozen into one block-diagonal sparse LP whose objective is a sum over blocks
(≈ 0.3 ms per instance for M = K = 10, against ≈ 1.6 ms for separate calls). Membership is decided
up to HiGHS's feasibility tolerance (1e-7 per equation), so classes whose probabilities are all
below that scale barely constrain the hull.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from credalbook._random import draw_weights, WEIGHT_PRIORS
from credalbook._validation import (
    as_rng,
    check_choice,
    check_ens_probs,
    check_positive_float,
    check_positive_int,
    check_probs,
    check_weights,
)

__all__ = [
    "convex_combination",
    "sample_weights",
    "check_weights",
    "in_credal_set",
    "hull_distance",
    "boundary_point",
    "BoundaryPoint",
]

#: Residual (L1 distance to the hull) below which a point counts as inside.
HULL_TOL = 1e-7
_BOUNDARY_METHODS = ("lp", "bisection", "grid")


def convex_combination(ens_probs, weights) -> np.ndarray:
    r"""The combined prediction :math:`\hat{\mathbf p}_{\boldsymbol\lambda} = \sum_m \lambda_m \hat{\mathbf p}^{(m)}`.

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    weights : array-like, shape (M,) or (N, M)
        One weight vector for all instances (Mortier et al., Eq. 2), or one per instance,
        :math:`\boldsymbol\lambda(\mathbf x_i)` (Jürgens et al.). Rows must lie on :math:`\Delta_M`.

    Returns
    -------
    ndarray, shape (N, K)

    Examples
    --------
    >>> ens = np.array([[[1.0, 0.0], [0.0, 1.0]]])        # N=1, M=2, K=2
    >>> convex_combination(ens, [0.25, 0.75]).tolist()
    [[0.25, 0.75]]
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    n, m, _ = ens.shape
    w = check_weights(weights, m)
    if w.ndim == 1:
        return np.einsum("nmk,m->nk", ens, w)
    if w.shape != (n, m):
        raise ValueError(f"weights must have shape (M,) = ({m},) or (N, M) = ({n}, {m}); got {w.shape}")
    return np.einsum("nmk,nm->nk", ens, w)


def sample_weights(n_members: int, *, size=None, prior: str = "uniform", seed=None) -> np.ndarray:
    r"""Random convex weights :math:`\boldsymbol\lambda \in \Delta_M`.

    ``prior="uniform"``: :math:`\mathrm{Dir}(1, \dots, 1)`, the uniform distribution on the simplex
    (Mortier et al., Alg. 1 line 3 and scenario S1; also the null weights of the authors'
    synthetic experiments, which pass ``l_prior = 1``). ``prior="sparse"``:
    :math:`\mathrm{Dir}(1/M, \dots, 1/M)`; most mass then sits on a few members. The authors'
    code draws S1's *true* weights from it, and its null sampler falls back to it when no prior is
    passed (as in their real-data script); tfmortie/calibration@686d453. (Uniform on :math:`\Delta_M` is *not* uniform on the credal set itself: Jürgens et
    al., App. C.)

    Parameters
    ----------
    n_members : int
        M.
    size : int, tuple or None
        Number (or shape) of weight vectors; None gives one vector of shape (M,).
    prior : {"uniform", "sparse"}
    seed : int, numpy Generator or None

    Returns
    -------
    ndarray, shape (*size, M)

    Examples
    --------
    >>> w = sample_weights(4, size=3, seed=0)
    >>> w.shape, np.allclose(w.sum(axis=1), 1)
    ((3, 4), True)
    """
    m = check_positive_int(n_members, "n_members")
    check_choice(prior, "prior", WEIGHT_PRIORS)
    if size is None:
        size = ()
    elif isinstance(size, (tuple, list)):
        size = tuple(check_positive_int(s, "size", minimum=0) for s in size)
    else:
        size = (check_positive_int(size, "size", minimum=0),)
    return draw_weights(m, prior, as_rng(seed), size)


def _as_batch(ens_probs, points, points_name: str):
    """Broadcast members (..., M, K) against points (..., K) to a common batch shape."""
    ens = check_probs(ens_probs, name="ens_probs", min_ndim=2)
    pts = check_probs(points, name=points_name, min_ndim=1)
    if pts.shape[-1] != ens.shape[-1]:
        raise ValueError(f"{points_name} must have K = {ens.shape[-1]} classes like ens_probs; got shape {pts.shape}")
    try:
        batch = np.broadcast_shapes(ens.shape[:-2], pts.shape[:-1])
    except ValueError:
        raise ValueError(
            f"{points_name} of shape {pts.shape} does not match ens_probs of shape {ens.shape} "
            "(expected (..., K) against (..., M, K))"
        ) from None
    return np.broadcast_to(ens, (*batch, *ens.shape[-2:])), np.broadcast_to(pts, (*batch, pts.shape[-1]))


def _block_lp(
    members: np.ndarray, start: np.ndarray, direction: np.ndarray | None, *, scale: bool = True
) -> np.ndarray:
    """Solve B independent LPs stacked block-diagonally.

    With ``direction`` None: min Σ_b ‖P_bᵀ λ_b − start_b‖₁ over λ_b ∈ Δ_M (the L1 distance of each
    point to its hull). Otherwise: max Σ_b t_b over λ_b ∈ Δ_M, t_b ∈ [0, 1] with
    P_bᵀ λ_b = start_b + t_b · direction_b (how far each ray stays inside its hull); there the last
    class's equation is dropped, because Σλ = 1 implies it and the redundant row only adds
    round-off that can make HiGHS declare a feasible problem infeasible.
    Returns the per-block objective values (distances or t), shape (B,).
    """
    b, m, k = members.shape
    if scale:  # equilibrate each class equation, so classes with tiny probabilities still count
        size = np.maximum(members.max(axis=1), start)
        if direction is not None:
            size = np.maximum(size, np.abs(direction))
        s = 1.0 / np.maximum(size, 1e-12)
        members, start = members * s[:, None, :], start * s
        direction = None if direction is None else direction * s
    ke = k if direction is None else k - 1  # class equations per block
    nv = m + (2 * k if direction is None else 1)  # λ, then slacks s⁻, s⁺ (K each) or t
    nr = ke + 1
    blk = np.arange(b)
    rows = [np.broadcast_to((blk[:, None, None] * nr + np.arange(ke)[None, None, :]), (b, m, ke)).ravel()]
    cols = [np.broadcast_to((blk[:, None, None] * nv + np.arange(m)[None, :, None]), (b, m, ke)).ravel()]
    vals = [members[..., :ke].ravel()]
    class_rows = (blk[:, None] * nr + np.arange(ke)).ravel()
    if direction is None:
        for sign, off in ((1.0, m), (-1.0, m + k)):
            rows.append(class_rows)
            cols.append((blk[:, None] * nv + off + np.arange(k)).ravel())
            vals.append(np.full(b * k, sign))
    else:
        rows.append(class_rows)
        cols.append(np.repeat(blk * nv + m, ke))
        vals.append(-direction[:, :ke].ravel())
    rows.append(np.repeat(blk * nr + ke, m))  # Σ_m λ_m = 1
    cols.append((blk[:, None] * nv + np.arange(m)).ravel())
    vals.append(np.ones(b * m))
    a_eq = sparse.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(b * nr, b * nv)
    )
    b_eq = np.concatenate([start[:, :ke], np.ones((b, 1))], axis=1).ravel()
    c = np.zeros((b, nv))
    bounds = np.zeros((b, nv, 2))
    bounds[..., 1] = np.inf
    if direction is None:
        c[:, m:] = 1.0
    else:
        c[:, m] = -1.0
        bounds[:, m, 1] = 1.0
    res = linprog(c.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=bounds.reshape(-1, 2), method="highs")
    if res.status != 0:
        if b > 1:  # isolate the offending block(s): solve one by one
            return np.concatenate(
                [
                    _block_lp(members[i : i + 1], start[i : i + 1], None if direction is None else direction[i : i + 1])
                    for i in range(b)
                ]
            )
        if direction is not None and res.status == 2:  # start on the boundary up to round-off
            return np.zeros(1)
        if direction is not None:  # numerical trouble (HiGHS "unknown" status): bisect instead
            return _bisect(members, start, direction, 1e-9)
        raise RuntimeError(f"linear program failed: {res.message}")
    x = res.x.reshape(b, nv)
    return x[:, m:].sum(axis=1) if direction is None else x[:, m]


def _chunked_lp(members, start, direction=None, chunk: int = 24, scale: bool = True) -> np.ndarray:
    out = np.empty(members.shape[0])
    for lo in range(0, members.shape[0], chunk):
        sl = slice(lo, lo + chunk)
        out[sl] = _block_lp(members[sl], start[sl], None if direction is None else direction[sl], scale=scale)
    return out


def hull_distance(ens_probs, points) -> np.ndarray:
    r"""L1 distance from each point to its credal set, :math:`\min_{\boldsymbol\lambda \in \Delta_M}
    \lVert \mathbf P^\top \boldsymbol\lambda - \mathbf p \rVert_1` (one LP per instance, batched).

    Parameters
    ----------
    ens_probs : array-like, shape (..., M, K)
        The members spanning each hull; (M, K) for a single hull.
    points : array-like, shape (..., K)

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> corners = np.eye(3)[:2]                      # the edge between e_1 and e_2
    >>> hull_distance(corners, [[0.5, 0.5, 0.0], [0.4, 0.4, 0.2]]).round(6).tolist()
    [0.0, 0.4]
    """
    ens, pts = _as_batch(ens_probs, points, "points")
    batch = pts.shape[:-1]
    m, k = ens.shape[-2:]
    dist = _chunked_lp(ens.reshape(-1, m, k), pts.reshape(-1, k), scale=False).reshape(batch)
    return np.maximum(dist, 0.0)


def in_credal_set(ens_probs, points, *, tol: float = HULL_TOL) -> np.ndarray:
    r"""Whether each point lies in the convex hull of its members (LP feasibility of
    :math:`\mathbf P^\top\boldsymbol\lambda = \mathbf p,\ \mathbf 1^\top\boldsymbol\lambda = 1,\
    \boldsymbol\lambda \ge 0`; Mortier et al., Alg. 2 line 7).

    Decided by the L1 residual of the equations after scaling each class's equation by the
    largest probability in it, ``<= tol`` (a relative tolerance per class, the same criterion as
    the exact LP of :func:`boundary_point`).

    Examples
    --------
    >>> members = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    >>> in_credal_set(members, [[1/3, 1/3, 1/3], [0.8, 0.1, 0.1]]).tolist()
    [True, False]
    """
    tol = check_positive_float(tol, "tol", allow_zero=True)
    ens, pts = _as_batch(ens_probs, points, "points")
    m, k = ens.shape[-2:]
    return (_chunked_lp(ens.reshape(-1, m, k), pts.reshape(-1, k)) <= tol).reshape(pts.shape[:-1])


@dataclass(frozen=True)
class BoundaryPoint:
    """Result of :func:`boundary_point`.

    Attributes
    ----------
    point : ndarray (..., K)
        :math:`\\mathbf p_{\\lambda_b} = (1 - \\lambda_b)\\,\\mathbf p_0 + \\lambda_b\\,\\mathbf p_c`.
    t : ndarray (...)
        :math:`\\lambda_b \\in [0, 1]`, the largest step along the segment that stays in the hull.
    method : str
    """

    point: np.ndarray
    t: np.ndarray
    method: str


def boundary_point(ens_probs, start, end, *, method: str = "lp", n_grid: int = 100, tol: float = 1e-9) -> BoundaryPoint:
    r"""Where the segment from ``start`` to ``end`` leaves the credal set (Mortier et al., Alg. 2).

    Finds the largest :math:`\lambda_b \in [0, 1]` with
    :math:`(1-\lambda_b)\,\mathbf p_0 + \lambda_b\,\mathbf p_c \in S(\mathcal P)`.

    Parameters
    ----------
    ens_probs : array-like, shape (..., M, K)
        Members of each hull; (M, K) for one hull.
    start : array-like, shape (..., K)
        :math:`\mathbf p_0`, inside the hull (e.g. the members' mean). A start outside the hull
        returns :math:`\lambda_b = 0`, as the printed Alg. 2 does (it returns :math:`\mathbf p_0`
        when the first check fails). The authors' ``getBoundary`` returns the *end* point
        :math:`\mathbf p_c` there instead (its index ``i - 1`` is −1); see
        :func:`~credalbook.synthetic.credal_scenario` (``outside_start="end"``).
    end : array-like, shape (..., K)
        :math:`\mathbf p_c`, e.g. a corner of the simplex.
    method : {"lp", "bisection", "grid"}
        ``"grid"``: Alg. 2 as printed, an exhaustive search over ``n_grid`` equally spaced
        :math:`\lambda'` in [0, 1] with one LP feasibility check each, stopping at the first point
        outside (error up to 1/(n_grid − 1)). ``"bisection"``: bisection on :math:`\lambda'` with the
        same membership check until the bracket is below ``tol`` (hulls are convex, so membership
        along the segment is an interval). ``"lp"`` (default, exact): a single LP,
        :math:`\max t` s.t. :math:`\mathbf P^\top\boldsymbol\lambda = \mathbf p_0 + t(\mathbf p_c - \mathbf p_0)`.
    n_grid : int, default 100
        Grid points of ``method="grid"``, from 2 to 10⁶.
    tol : float, default 1e-9
        Width of the final bracket of ``method="bisection"``, > 0.

    Returns
    -------
    BoundaryPoint

    Examples
    --------
    >>> members = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    >>> res = boundary_point(members, [1/3, 1/3, 1/3], [1.0, 0.0, 0.0])
    >>> res.point.round(6).tolist(), round(float(res.t), 6)
    ([0.6, 0.2, 0.2], 0.4)
    """
    check_choice(method, "method", _BOUNDARY_METHODS)
    n_grid = check_positive_int(n_grid, "n_grid", minimum=2, maximum=10**6)
    tol = check_positive_float(tol, "tol")
    ens, p0 = _as_batch(ens_probs, start, "start")
    pc = check_probs(end, name="end", min_ndim=1)
    if pc.shape[-1] != p0.shape[-1]:
        raise ValueError(f"end must have K = {p0.shape[-1]} classes; got shape {pc.shape}")
    pc = np.broadcast_to(pc, p0.shape)
    batch = p0.shape[:-1]
    m, k = ens.shape[-2:]
    members, p0f, pcf = ens.reshape(-1, m, k), p0.reshape(-1, k), pc.reshape(-1, k)
    t = np.zeros(len(p0f))
    if method == "lp":  # an infeasible block (start outside its hull) yields t = 0
        t[:] = np.clip(_chunked_lp(members, p0f, pcf - p0f), 0.0, 1.0)
        idx = np.array([], dtype=np.int64)
    else:
        idx = np.flatnonzero(_chunked_lp(members, p0f) <= HULL_TOL)
    if idx.size:
        mem, a, d = members[idx], p0f[idx], pcf[idx] - p0f[idx]
        if method == "bisection":
            t[idx] = _bisect(mem, a, d, tol)
        else:
            t[idx] = _grid(mem, a, d, n_grid)
    t = t.reshape(batch)
    point = (1 - t[..., None]) * p0 + t[..., None] * pc
    return BoundaryPoint(point=point, t=t, method=method)


def _inside(members, a, d, t):
    return _chunked_lp(members, a + t[:, None] * d) <= HULL_TOL


def _bisect(members, a, d, tol) -> np.ndarray:
    lo = np.zeros(len(a))
    hi = np.ones(len(a))
    at_end = _inside(members, a, d, hi)
    lo[at_end] = 1.0
    active = ~at_end
    while active.any() and (hi[active] - lo[active]).max() > tol:
        mid = 0.5 * (lo + hi)
        ok = _inside(members[active], a[active], d[active], mid[active])
        sel = np.flatnonzero(active)
        lo[sel[ok]] = mid[sel[ok]]
        hi[sel[~ok]] = mid[sel[~ok]]
    return lo


def _grid(members, a, d, n_grid) -> np.ndarray:
    grid = np.linspace(0.0, 1.0, n_grid)
    b = len(a)
    ok = _inside(
        np.repeat(members, n_grid, axis=0), np.repeat(a, n_grid, axis=0), np.repeat(d, n_grid, axis=0), np.tile(grid, b)
    ).reshape(b, n_grid)
    # Alg. 2 breaks at the first grid point outside and returns the previous one.
    first_out = np.where(ok.all(axis=1), n_grid, np.argmin(ok, axis=1))
    return grid[np.maximum(first_out - 1, 0)]
