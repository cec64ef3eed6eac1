r"""Minimising a calibration measure over the convex combinations of a set of classifiers.

Line 7 of Mortier et al.'s Alg. 1 (the statistic of :func:`~credalbook.stats.set_calibration_test`):
:math:`t = \min_{\boldsymbol\lambda \in \Delta_M} g(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D_{val})`,
a non-smooth, non-convex problem; the paper uses COBYLA. Solvers (``solver=``):

``"auto"`` (the default)
    ``"search_descent"`` when one combined prediction holds at most ``AUTO_MAX_SIZE`` = 10⁵
    numbers (N·K), else ``"cobyla"`` (at large N an evaluation costs more than COBYLA's own work
    per step, and COBYLA needs fewer evaluations).
``"search_descent"``
    Batched and derivative-free: the ``"search"`` candidates (``n_candidates`` = 200: uniform
    weights, the M vertices, draws from Dir(1) and Dir(1/M)) and points at 10-90 % along
    ``n_pairs`` = 45 edges of :math:`\Delta_M` (all edges for M ≤ 10) in one batch; from the best
    of them, repeated line searches towards every vertex,
    :math:`\boldsymbol\lambda \leftarrow (1-s)\boldsymbol\lambda + s\,\mathbf e_m` for
    :math:`s \in` ``steps`` = (1, ½, ¼, 0.12, 0.06, 0.03, 0.015), all M·7 points of a round
    evaluated in one batch, moving to the best point while it improves. Above
    ``DESCENT_LARGE_M`` = 10 members the budget scales with M: ``n_candidates`` = max(2 000, 20·M)
    (up to M = 100 the 2 000 candidates of ``"search"``, drawn identically for the same seed, so
    it never ends above ``"search"``), each round also tries removing each member's weight and
    renormalising the others (``away_steps`` = (1,)), and at most ``maxiter`` = 10 rounds are run
    (about 10⁴ evaluations in total); up to M = 10: 200 candidates, no away moves, up to 100 rounds.
    The Mortier chapter compares it with COBYLA.
``"cobyla"``
    SciPy's COBYLA (the PRIMA implementation since SciPy 1.16) from uniform weights, with
    :math:`\sum_m\lambda_m = 1` as two inequalities and :math:`0 \le \lambda_m \le 1` (as in the
    authors' code).
``"cobyla_powell"``
    Powell's original COBYLA (the algorithm SciPy < 1.16 wrapped, which the authors ran) through
    NLopt, with :math:`\sum_m\lambda_m = 1` as an equality constraint: a compiled inner loop,
    several times faster per call than SciPy's, but it needs more evaluations and tends to stop
    at slightly higher values (compared in the Mortier chapter).
``"multistart"``
    ``"cobyla_powell"`` (or ``"cobyla"`` without NLopt) from uniform weights and
    ``n_starts - 1`` random points of :math:`\Delta_M`; the best run wins.
``"slsqp"``
    SciPy's SLSQP with the equality constraint and bounds; sensible for smooth measures (SKCE).
``"search"``
    Batched evaluation of ``n_candidates`` = 2 000 weight vectors (uniform, the M vertices, draws
    from Dir(1) and Dir(1/M)) in one vectorised call, then the best of them.
``"uniform"``
    No minimisation: :math:`t` is the measure at uniform weights (the members' average), the point
    where every other solver here starts, so it bounds from above the minimum any of them returns.
    A diagnostic of how much the minimisation matters, not the paper's test: its :math:`t` is not
    the minimum of line 3, so the test rejects more often than Alg. 1.
``"grid"``
    Exhaustive search on the lattice :math:`\{\boldsymbol\lambda \in \Delta_M : r\lambda_m \in \mathbb N\}`
    with ``resolution`` r, for small M.

Every objective evaluation uses :math:`\max(\boldsymbol\lambda, 0) / \lVert\max(\boldsymbol\lambda,
0)\rVert_1`, so the measure only ever sees members of the credal set even when a solver steps
slightly outside its constraints.
"""

from __future__ import annotations

import functools
import math
import sys
import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.optimize import minimize

from credalbook._deprecation import renamed
from credalbook._random import draw_weights
from credalbook._validation import as_rng, check_choice, check_ens_probs, check_labels, check_positive_int
from credalbook.stats.measures import as_measure, CalibrationMeasure

__all__ = [
    "AUTO_MAX_SIZE",
    "SOLVERS",
    "Minimum",
    "MeasureObjective",
    "minimise_calibration_measure",
    "minimise_objective",
]

SOLVERS = ("auto", "search_descent", "cobyla", "cobyla_powell", "multistart", "slsqp", "search", "grid", "uniform")
#: ``solver="auto"`` runs ``"search_descent"`` when one combined prediction holds at most this many
#: numbers (N·K), and ``"cobyla"`` above, where an evaluation of the measure costs more than
#: COBYLA's own work per step and COBYLA's fewer evaluations win.
AUTO_MAX_SIZE = 10**5


@dataclass(frozen=True)
class Minimum:
    """Result of :func:`minimise_calibration_measure`: value, minimising weights, evaluations."""

    value: float
    weights: np.ndarray
    n_evaluations: int
    solver: str


def _normalise(x: np.ndarray) -> np.ndarray:
    w = np.clip(x, 0.0, None)
    s = w.sum(axis=-1, keepdims=True)
    return np.where(s > 0, w / np.where(s > 0, s, 1.0), 1.0 / x.shape[-1])


#: Objective values are capped here: HL is infinite (or overflows) when a label falls in a bin
#: whose predicted probability is (numerically) zero, and infinite or NaN values break the
#: trust-region models of COBYLA (NLopt's can loop forever on them).
OBJECTIVE_CAP = 1e12
#: Objective values of smaller magnitude are passed to NLopt's COBYLA as 0 (see ``_cobyla_powell``).
TINY_OBJECTIVE = 1e-100


class MeasureObjective:
    """g(p_λ) for one validated dataset (``ens`` (N, M, K), ``labels`` (N,)), counting evaluations.

    Calling it with weights λ (M,) evaluates the measure of the combination; :meth:`batch`
    evaluates many λ at once. The objective :func:`minimise_objective` minimises.
    """

    def __init__(self, ens: np.ndarray, labels: np.ndarray, func):
        self.ens_t = np.ascontiguousarray(ens.transpose(0, 2, 1))  # (N, K, M)
        self.labels = labels
        self.func = func
        self.n_evaluations = 0

    def __call__(self, x) -> float:
        self.n_evaluations += 1
        w = np.maximum(x, 0.0)
        s = w.sum()
        w = w / s if s > 0 else np.full(len(w), 1.0 / len(w))
        value = float(self.func(self.ens_t @ w, self.labels))
        return value if value < OBJECTIVE_CAP else OBJECTIVE_CAP  # also maps NaN to the cap

    def raw(self, x) -> float:
        r"""The measure of :math:`\sum_m x_m \hat{\mathbf p}^{(m)}` for the weights ``x`` as they are: not clipped
        at 0 nor normalised to sum to 1, so not scale-invariant (the objectives of Mortier et al.'s code,
        tfmortie/calibration ``caltest.py``, ``confece_obj`` and ``classece_obj``: ``np.matmul(np.swapaxes(P, 1, 2),
        x)``). The measure sees whatever the combination is (values outside [0, 1] fall in the edge bins of a
        binned error). Counted and capped as a call."""
        self.n_evaluations += 1
        value = float(self.func(self.ens_t @ np.asarray(x, dtype=np.float64), self.labels))
        return value if value < OBJECTIVE_CAP else OBJECTIVE_CAP

    def batch(self, weights: np.ndarray, *, blas: bool = False) -> np.ndarray:
        """The measure at C weight vectors ``weights`` (C, M) (normalised to sum to 1): shape (C,).

        ``blas=True`` forms the C combinations with one matrix product (several times faster for
        large M; the predictions may differ from the default's in the last bit).
        """
        self.n_evaluations += len(weights)
        if blas:
            n, k, m = self.ens_t.shape
            p = (_normalise(weights) @ self.ens_t.reshape(n * k, m).T).reshape(len(weights), n, k)
        else:
            p = np.einsum("nkm,cm->cnk", self.ens_t, _normalise(weights))
        values = np.asarray(self.func(p, np.broadcast_to(self.labels, p.shape[:-1])), dtype=np.float64)
        return np.minimum(np.nan_to_num(values, nan=OBJECTIVE_CAP), OBJECTIVE_CAP)


def _cobyla_scipy(obj, x0, options):
    m = len(x0)
    cons = [{"type": "ineq", "fun": lambda x: x.sum() - 1.0}, {"type": "ineq", "fun": lambda x: 1.0 - x.sum()}]
    opts = {"maxiter": options.get("maxiter", 1000)}
    if "rhobeg" in options:
        opts["rhobeg"] = options["rhobeg"]
    res = minimize(
        obj, x0, method="COBYLA", constraints=cons, bounds=[(0.0, 1.0)] * m, tol=options.get("tol", 1e-4), options=opts
    )
    return res.x


@functools.lru_cache(maxsize=1)
def _nlopt():
    try:
        import nlopt
    except ImportError:  # pragma: no cover - nlopt is a declared dependency
        raise ImportError("solver 'cobyla_powell' needs NLopt: pip install nlopt") from None
    return nlopt


def _cobyla_powell(obj, x0, options):
    """NLopt's COBYLA from ``x0``; with ``options["stall_seconds"]`` in a forked child watched by a watchdog.

    NLopt's COBYLA can stall inside its trust-region step without evaluating again (seen at M = 100 with the
    200 bound constraints and Σλ = 1), and its ``maxtime`` is only checked at an evaluation, so nothing ends such a
    run. With ``stall_seconds`` the same minimisation runs in a forked child that counts its evaluations in shared
    memory and reports every improvement through a pipe; when the count has not moved for ``stall_seconds`` the
    child is killed and the best point it reported is returned (the objective's ``n_stalls`` counts these runs).
    A run that does not stall returns the same point, bit for bit.
    """
    stall = options.get("stall_seconds")
    if stall is None:
        return _cobyla_powell_run(obj, x0, options)
    return _cobyla_powell_watched(obj, x0, options, float(stall))


def _cobyla_powell_run(obj, x0, options, report=None, counter=None):
    """NLopt's COBYLA; ``report(("best", count, x))`` at every improvement and ``counter.value = count`` at every
    evaluation, when given (the watched child's pipe and shared count).

    ``options["authors_objective"]``: the problem as Mortier et al.'s code poses it to SciPy's COBYLA
    (tfmortie/calibration ``caltest.py``, ``npbetest_alpha``): the objective at the weights as proposed
    (:meth:`MeasureObjective.raw`), Σλ = 1 as the two inequalities Σλ − 1 ≥ 0 and 1 − Σλ ≥ 0, and each bound
    0 ≤ λ_m ≤ 1 as two inequalities (no bounds of NLopt's, so the search may leave the box as theirs may).
    """
    nlopt = _nlopt()
    m = len(x0)
    best = [np.inf, np.asarray(x0, dtype=np.float64)]
    authors = bool(options.get("authors_objective", False))
    evaluate = obj.raw if authors else obj

    def f(x, grad):
        value = evaluate(x)
        if counter is not None:
            counter.value = obj.n_evaluations  # a write to shared memory: the heartbeat, ~0.05 µs (a pipe message: ~7)
        if value < best[0]:
            best[0], best[1] = value, x.copy()
            if report is not None:
                report(("best", obj.n_evaluations, best[1]))
        # NLopt's COBYLA can loop forever, without evaluating again, on values near the underflow
        # threshold (an SKCE with a tiny bandwidth gives ~1e-236); such values are zero in effect.
        return value if abs(value) > TINY_OBJECTIVE else 0.0

    opt = nlopt.opt(nlopt.LN_COBYLA, m)
    opt.set_min_objective(f)
    if authors:  # NLopt's inequalities are fc(x) ≤ 0

        def inequalities(result, x, grad):
            result[0], result[1] = 1.0 - x.sum(), x.sum() - 1.0
            result[2:] = np.concatenate([-x, x - 1.0])

        opt.add_inequality_mconstraint(inequalities, np.zeros(2 + 2 * m))
    else:
        opt.set_lower_bounds(np.zeros(m))
        opt.set_upper_bounds(np.ones(m))
        opt.add_equality_constraint(lambda x, grad: x.sum() - 1.0, 1e-8)  # Σλ = 1
    opt.set_initial_step(options.get("rhobeg", 0.5))
    opt.set_xtol_abs(options.get("tol", 1e-3))
    opt.set_maxeval(options.get("maxiter", 1000))
    opt.set_maxtime(options.get("maxtime", 120.0))  # a safety net; checked by NLopt only at an evaluation
    try:
        return opt.optimize(best[1].copy())
    except nlopt.RoundoffLimited:  # pragma: no cover - keep the best point seen
        return best[1]


def _cobyla_powell_watched(obj, x0, options, stall: float):
    import multiprocessing

    if not stall > 0:
        raise ValueError(f"stall_seconds must be a positive number of seconds; got {stall!r}")
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    start = obj.n_evaluations
    counter = ctx.RawValue("q", start)  # evaluations so far, written by the child, read here

    def child():
        torch = sys.modules.get("torch")
        if torch is not None:  # a forked child must not enter the parent's OpenMP pool (GNU OpenMP would hang)
            torch.set_num_threads(1)
        x = _cobyla_powell_run(obj, x0, options, report=send.send, counter=counter)
        send.send(("done", obj.n_evaluations, np.asarray(x, dtype=np.float64)))

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    best = np.asarray(x0, dtype=np.float64)
    seen, moved = counter.value, time.monotonic()
    try:
        while True:
            if not receive.poll(stall / 10):  # look at the count ten times per stall_seconds
                now = time.monotonic()
                if counter.value != seen:
                    seen, moved = counter.value, now
                elif now - moved >= stall:
                    obj.n_stalls = getattr(obj, "n_stalls", 0) + 1
                    return best
                continue
            try:
                kind, _, x = receive.recv()
            except EOFError:
                raise RuntimeError("NLopt's COBYLA ended without a result in its watched process") from None
            seen, moved = counter.value, time.monotonic()
            if kind == "done":
                return x
            best = x
    finally:
        obj.n_evaluations = counter.value
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def _slsqp(obj, x0, options):
    m = len(x0)
    res = minimize(
        obj,
        x0,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * m,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0, "jac": lambda x: np.ones_like(x)}],
        options={"maxiter": options.get("maxiter", 200), "ftol": options.get("tol", 1e-9)},
    )
    return res.x


def _lattice(m: int, resolution: int) -> np.ndarray:
    """All λ with r·λ_m ∈ ℕ (stars and bars), shape (C(r + M − 1, M − 1), M)."""
    pts = []
    for bars in combinations(range(resolution + m - 1), m - 1):
        edges = np.array((-1, *bars, resolution + m - 1))
        pts.append(np.diff(edges) - 1)
    return np.array(pts, dtype=np.float64) / resolution


def _candidates(m: int, n_candidates: int, rng: np.random.Generator) -> np.ndarray:
    n_rand = max(n_candidates - m - 1, 0)
    return np.concatenate(
        [
            np.full((1, m), 1.0 / m),
            np.eye(m),
            draw_weights(m, "uniform", rng, (n_rand - n_rand // 2,)),
            draw_weights(m, "sparse", rng, (n_rand // 2,)),
        ]
    )


#: Largest number of floats (candidates × instances × classes) in one batched evaluation of the
#: objective (2**24 floats = 128 MiB).
BATCH_ELEMENTS = 2**24


def _values(obj: MeasureObjective, weights: np.ndarray, blas: bool = False) -> np.ndarray:
    """``obj.batch`` over the rows of ``weights`` in chunks of at most 256 rows and ``BATCH_ELEMENTS`` floats."""
    n, k, _ = obj.ens_t.shape
    chunk = max(1, min(256, BATCH_ELEMENTS // (n * k)))
    return np.concatenate([obj.batch(weights[lo : lo + chunk], blas=blas) for lo in range(0, len(weights), chunk)])


def _best_of(obj, weights: np.ndarray) -> np.ndarray:
    return weights[int(np.argmin(_values(obj, weights)))]


#: Step sizes of the line searches of ``"search_descent"``: fractions t of the way to a vertex.
DESCENT_STEPS = (1.0, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015)
#: ``"search_descent"`` scales its budget with M above this many members (App. Fig. 3 of Mortier et
#: al.: M = 100); up to it (Fig. 1: M = 10): 200 candidates, no away moves, up to 100 rounds.
DESCENT_LARGE_M = 10
#: Fractions of a member's weight that the "away" line searches of ``"search_descent"`` move to the
#: other members in proportion to their weights (M > ``DESCENT_LARGE_M``; 1.0 drops the member).
DESCENT_AWAY_STEPS = (1.0,)


def _edge_points(m: int, n_pairs: int, rng: np.random.Generator) -> np.ndarray:
    """Points at 10, 25, 50, 75 and 90 % of the way along ``n_pairs`` edges of Δ_M (all edges if fewer)."""
    a, b = np.triu_indices(m, 1)
    if len(a) > n_pairs:
        pick = np.sort(rng.choice(len(a), n_pairs, replace=False))
        a, b = a[pick], b[pick]
    t = np.array([0.1, 0.25, 0.5, 0.75, 0.9])[:, None, None]
    eye = np.eye(m)
    return ((1 - t) * eye[a] + t * eye[b]).reshape(-1, m)


def _search_descent(obj: MeasureObjective, m: int, options: dict, rng: np.random.Generator) -> np.ndarray:
    from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

    # The matrix products are small: BLAS threads only cost time (much of it on a busy machine).
    with threadpool_limits(1, user_api="blas"):
        return _descent(obj, m, options, rng)


def _fractions(options: dict, name: str, default, allow_empty: bool = False) -> np.ndarray:
    values = np.asarray(options.get(name, default), dtype=np.float64)
    if values.ndim != 1 or (values.size == 0 and not allow_empty) or not ((values > 0) & (values <= 1)).all():
        raise ValueError(f"{name} must be a sequence of numbers in (0, 1]; got {options.get(name)!r}")
    return values


def _away_moves(x: np.ndarray, away: np.ndarray, eye: np.ndarray) -> np.ndarray:
    r"""Away moves of ``"search_descent"``: λ with a fraction c of λ_m moved to the other members.

    For each c in ``away`` and each member with 0 < λ_m < 1, in proportion to the others' weights:
    the line :math:`(1-s)\boldsymbol\lambda + s\,\mathbf e_m` at :math:`s = -c\lambda_m/(1-\lambda_m)`.
    """
    members = np.flatnonzero((x > 0) & (x < 1))
    s = -away[:, None] * x[members] / (1 - x[members])  # (A, members)
    return ((1 - s)[..., None] * x + s[..., None] * eye[members]).reshape(-1, len(x))


def _descent(obj: MeasureObjective, m: int, options: dict, rng: np.random.Generator) -> np.ndarray:
    large = m > DESCENT_LARGE_M
    n_candidates = options.get("n_candidates", max(2000, 20 * m) if large else 200)
    n_candidates = check_positive_int(n_candidates, "n_candidates")
    n_pairs = check_positive_int(options.get("n_pairs", 45), "n_pairs")
    max_iter = check_positive_int(options.get("maxiter", 10 if large else 100), "maxiter")
    steps = _fractions(options, "steps", DESCENT_STEPS)[:, None, None]
    away = _fractions(options, "away_steps", DESCENT_AWAY_STEPS if large else (), allow_empty=True)
    start = np.concatenate([_candidates(m, n_candidates, rng), _edge_points(m, n_pairs, rng)])
    values = _values(obj, start, blas=True)
    i = int(np.argmin(values))
    x, fx = start[i], values[i]
    eye = np.eye(m)
    for _ in range(max_iter):  # batched line searches towards every vertex; move to the best point
        moves = ((1 - steps) * x + steps * eye).reshape(-1, m)
        if away.size:
            moves = np.concatenate([moves, _away_moves(x, away, eye)])
        values = _values(obj, moves, blas=True)
        j = int(np.argmin(values))
        if not values[j] < fx:
            break
        x, fx = moves[j], values[j]
    return x


@renamed(rng="seed")
def minimise_objective(obj: MeasureObjective, m: int, solver: str, options: dict, seed) -> np.ndarray:
    """The weights minimising ``obj`` with ``solver`` (one of :data:`SOLVERS`), normalised onto Δ_M
    (ones for a single member). No validation of the problem; users call :func:`minimise_calibration_measure`.

    ``seed`` (None, int or Generator) drives the randomised solvers; a Generator is drawn from as it is.
    """
    if m == 1:
        return np.ones(1)
    return _normalise(np.asarray(_solve(obj, m, solver, options, as_rng(seed)), dtype=np.float64))


def _resolve(solver: str, n: int, k: int) -> str:
    """The solver that ``solver`` stands for on N instances and K classes (``"auto"``: see ``AUTO_MAX_SIZE``)."""
    if solver != "auto":
        return solver
    return "search_descent" if n * k <= AUTO_MAX_SIZE else "cobyla"


def _solve(obj: MeasureObjective, m: int, solver: str, options: dict, rng: np.random.Generator) -> np.ndarray:
    x0 = np.full(m, 1.0 / m)
    n, k, _ = obj.ens_t.shape
    solver = _resolve(solver, n, k)
    if solver == "uniform":
        return x0
    if solver == "search_descent":
        return _search_descent(obj, m, options, rng)
    if solver == "cobyla":
        return _cobyla_scipy(obj, x0, options)
    if solver == "cobyla_powell":
        return _cobyla_powell(obj, x0, options)
    if solver == "slsqp":
        return _slsqp(obj, x0, options)
    if solver == "multistart":
        n_starts = check_positive_int(options.get("n_starts", 5), "n_starts")
        try:
            _nlopt()
            local = _cobyla_powell
        except ImportError:  # pragma: no cover
            local = _cobyla_scipy
        starts = np.concatenate([x0[None], draw_weights(m, "uniform", rng, (n_starts - 1,))])
        results = [_normalise(local(obj, s, options)) for s in starts]
        return results[int(np.argmin([obj(x) for x in results]))]
    if solver == "search":
        n_candidates = check_positive_int(options.get("n_candidates", 2000), "n_candidates")
        return _best_of(obj, _candidates(m, n_candidates, rng))
    resolution = check_positive_int(options.get("resolution", 10), "resolution")
    size = math.comb(resolution + m - 1, m - 1)
    if size > options.get("max_points", 200_000):
        raise ValueError(
            f"solver 'grid' with M = {m} and resolution = {resolution} needs {size} points; "
            "lower the resolution or use another solver"
        )
    return _best_of(obj, _lattice(m, resolution))


def _check_set(ens_probs, labels, g: CalibrationMeasure):
    ens = check_ens_probs(ens_probs)
    if ens.ndim != 3:
        raise ValueError(f"ens_probs must have shape (N, M, K); got {ens.shape}")
    n, _, k = ens.shape
    y = check_labels(labels, n_classes=k, shape=(n,))
    if n < g.min_instances:
        raise ValueError(f"ens_probs must hold at least {g.min_instances} instances for {g.name}; got N = {n}")
    return ens, y


def minimise_calibration_measure(
    ens_probs,
    labels,
    *,
    measure="ece_confidence",
    n_bins: int = 10,
    solver: str = "auto",
    solver_options: dict | None = None,
    seed=None,
) -> Minimum:
    r""":math:`\min_{\boldsymbol\lambda \in \Delta_M} g(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D)`
    (Mortier et al. 2023, Alg. 1 line 7).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    labels : array-like of int, shape (N,)
    measure, n_bins
        See :func:`~credalbook.stats.as_measure`.
    solver : {"auto", "search_descent", "cobyla", "cobyla_powell", "multistart", "slsqp", "search", "grid", "uniform"}, default "auto"
        See the module docstring: ``"auto"`` is ``"search_descent"`` for N·K ≤ 10⁵, else ``"cobyla"``.
    solver_options : dict, optional
        ``maxiter``, ``tol``, ``rhobeg`` (COBYLA), ``n_starts`` (multistart), ``n_candidates``
        (search, search_descent), ``n_pairs``, ``steps``, ``away_steps``, ``maxiter`` (search_descent;
        defaults that scale with M above M = 10, see the module docstring), ``resolution`` (grid).
    seed : int, numpy Generator or None
        Randomness of the multistart and search solvers.

    Returns
    -------
    Minimum
        Its ``solver`` names the solver that ran (for ``"auto"``, the one it chose).

    Examples
    --------
    Two members, one over- and one under-confident; a mixture in between is better calibrated
    than either (by the measure on these labels):

    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=400)
    >>> y = np.array([rng.choice(3, p=pi) for pi in p])
    >>> sharp = p**3 / (p**3).sum(1, keepdims=True); flat = (p + 1) / (p + 1).sum(1, keepdims=True)
    >>> res = minimise_calibration_measure(np.stack([sharp, flat], 1), y, solver="grid",
    ...                                    solver_options={"resolution": 50})
    >>> bool(0.05 < res.weights[0] < 0.95)
    True
    """
    g = as_measure(measure, n_bins=n_bins)
    ens, y = _check_set(ens_probs, labels, g)
    check_choice(solver, "solver", SOLVERS)
    obj = MeasureObjective(ens, y, g.func)
    w = minimise_objective(obj, ens.shape[1], solver, dict(solver_options or {}), as_rng(seed))
    return Minimum(obj(w), w, obj.n_evaluations, _resolve(solver, ens.shape[0], ens.shape[2]))
