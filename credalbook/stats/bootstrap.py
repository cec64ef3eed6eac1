r"""Bootstrap calibration tests for one classifier and for a set of classifiers.

**Single classifier** (Vaicenavicius et al., 2019; "consistency resampling"): under
:math:`H_0` the labels are draws from the predictions, so the null distribution of any calibration
measure :math:`g` is obtained by resampling instances, drawing labels
:math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}(\mathbf x_i))` and re-evaluating :math:`g`.

**Set of classifiers** (Mortier et al., 2023, Alg. 1): :math:`H_0`: some convex combination
:math:`\hat{\mathbf p}_{\boldsymbol\lambda}`, :math:`\boldsymbol\lambda \in \Delta_M`, is calibrated.

1. For :math:`d = 1..D`: resample the instances, draw :math:`\boldsymbol\lambda_{0,d}` on
   :math:`\Delta_M`, draw labels from :math:`\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}` and record
   :math:`t_{0,d} = g(\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}, \mathcal D_d)`.
2. :math:`q_{1-\alpha}` is the :math:`(1-\alpha)` quantile of :math:`\{t_{0,d}\}`.
3. :math:`t = \min_{\boldsymbol\lambda \in \Delta_M} g(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D_{val})`;
   reject :math:`H_0` when :math:`t > q_{1-\alpha}`.

The D replicates are evaluated as one batch (arrays of shape (D, N, K)); :func:`set_null_distribution`
also batches over datasets. Line 3 is a non-smooth, non-convex problem; the paper uses COBYLA.
Solvers here (``solver=``):

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
    Batched evaluation of ``n_candidates`` weight vectors (uniform, the M vertices, draws from
    Dir(1) and Dir(1/M)) in one vectorised call, then the best of them.
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
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy.optimize import minimize

from credalbook._validation import (
    as_numpy,
    check_choice,
    check_labels,
    check_positive_int,
    check_probability,
    check_probs,
)
from credalbook._random import WEIGHT_PRIORS, draw_labels, draw_weights
from credalbook._validation import check_ens_probs
from credalbook.stats.measures import CalibrationMeasure, as_measure

__all__ = [
    "CalibrationTestResult",
    "Minimum",
    "bootstrap_calibration_test",
    "set_calibration_test",
    "set_null_distribution",
    "minimise_calibration_measure",
    "exact_size",
    "SOLVERS",
    "null_statistics",
    "MeasureObjective",
    "minimise_objective",
]

SOLVERS = ("cobyla", "cobyla_powell", "multistart", "slsqp", "search", "grid")
RESAMPLING = ("bootstrap", "permutation")



@dataclass(frozen=True)
class CalibrationTestResult:
    """Outcome of :func:`bootstrap_calibration_test` or :func:`set_calibration_test`.

    Attributes
    ----------
    statistic : float
        :math:`t`, the measure on the real labels (for a set: minimised over :math:`\\Delta_M`).
    p_value : float
        :math:`(1 + \\#\\{t_{0,d} \\ge t\\}) / (1 + D)`.
    alpha : float
        Significance level of ``rejected``.
    threshold : float
        :math:`q_{1-\\alpha}`, the (1 − α) quantile of the null distribution (``numpy.quantile``).
    rejected : bool
        :math:`t > q_{1-\\alpha}` (Alg. 1, line 8).
    null_distribution : ndarray (D,)
    measure : str
    weights : ndarray (M,)
        The minimising :math:`\\boldsymbol\\lambda` (``[1.0]`` for one classifier).
    solver : str or None
    n_evaluations : int
        Objective evaluations spent in the minimisation.
    """

    statistic: float
    p_value: float
    alpha: float
    threshold: float
    rejected: bool
    null_distribution: np.ndarray = field(repr=False)
    measure: str
    weights: np.ndarray
    solver: str | None = None
    n_evaluations: int = 1

    def decision(self, alpha: float) -> bool:
        """Whether the test rejects at another significance level (same null sample)."""
        alpha = check_probability(alpha, "alpha")
        return bool(self.statistic > np.quantile(self.null_distribution, 1 - alpha))


@dataclass(frozen=True)
class Minimum:
    """Result of :func:`minimise_calibration_measure`: value, minimising weights, evaluations."""

    value: float
    weights: np.ndarray
    n_evaluations: int
    solver: str


# --------------------------------------------------------------------------------------------
# null distribution (Alg. 1, lines 1-6), batched over replicates and datasets
# --------------------------------------------------------------------------------------------


def null_statistics(ens: np.ndarray, func, n_bootstrap: int, weight_prior: str, resample: str,
          rng: np.random.Generator) -> np.ndarray:
    """Null statistics of shape (..., D) for validated ``ens`` (..., N, M, K): the engine of the tests.

    Each of the ``n_bootstrap`` rounds draws convex weights λ from ``weight_prior``, resamples the
    instances (``"bootstrap"``: with replacement; ``"permutation"``: the authors' code) and labels from
    the combined prediction, and evaluates the batched measure ``func``. No validation: the error-rate
    studies of the papers call it on thousands of checked datasets at once; users call
    :func:`set_null_distribution`.
    """
    *batch, n, m, _ = ens.shape
    d = n_bootstrap
    lam = draw_weights(m, weight_prior, rng, (*batch, d))  # (..., D, M); λ ≡ 1 for one classifier
    combined = np.einsum("...nmk,...dm->...dnk", ens, lam)
    if resample == "bootstrap":
        idx = rng.integers(0, n, size=(*batch, d, n))
    else:  # the authors' code: a permutation, i.e. "bootstrap" without replacement
        idx = rng.permuted(np.broadcast_to(np.arange(n), (*batch, d, n)), axis=-1)
    p0 = np.take_along_axis(combined, idx[..., None], axis=-2)
    y0 = draw_labels(p0, rng)
    return np.asarray(func(p0, y0), dtype=np.float64)


def _check_test_args(n_bootstrap, weight_prior, resample):
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap")
    check_choice(weight_prior, "weight_prior", WEIGHT_PRIORS)
    check_choice(resample, "resample", RESAMPLING)
    return n_bootstrap


def set_null_distribution(
    ens_probs,
    *,
    measure="ece_conf",
    n_bins: int = 10,
    n_bootstrap: int = 100,
    weight_prior: str = "uniform",
    resample: str = "bootstrap",
    seed=None,
) -> np.ndarray:
    r"""Null distribution of a calibration measure for a set of classifiers (Alg. 1, lines 1-5).

    Parameters
    ----------
    ens_probs : array-like, shape (..., N, M, K)
        Leading dimensions are independent datasets, all handled in one vectorised pass.
    measure : str, CalibrationMeasure or callable
        See :func:`~credalbook.stats.as_measure`; ``n_bins`` applies to the binned built-ins.
    n_bootstrap : int, default 100
        D.
    weight_prior : {"uniform", "sparse"}
        Distribution of :math:`\boldsymbol\lambda_{0,d}`: Dir(1) (the paper) or Dir(1/M) (the
        authors' code).
    resample : {"bootstrap", "permutation"}
        Instances drawn with replacement (the paper) or permuted (the authors' code).
    seed : int, numpy Generator or None

    Returns
    -------
    ndarray, shape (..., D)

    Examples
    --------
    >>> ens = np.random.default_rng(0).dirichlet(np.ones(3), size=(4, 50, 2))   # 4 datasets
    >>> set_null_distribution(ens, n_bootstrap=20, seed=0).shape
    (4, 20)
    """
    ens = check_ens_probs(ens_probs)
    g = as_measure(measure, n_bins=n_bins)
    if ens.shape[-3] < g.min_instances:
        raise ValueError(f"ens_probs must hold at least {g.min_instances} instances for {g.name}; got N = {ens.shape[-3]}")
    n_bootstrap = _check_test_args(n_bootstrap, weight_prior, resample)
    return null_statistics(ens, g.func, n_bootstrap, weight_prior, resample, np.random.default_rng(seed))


# --------------------------------------------------------------------------------------------
# minimisation over the simplex (Alg. 1, line 7)
# --------------------------------------------------------------------------------------------


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

    def batch(self, weights: np.ndarray) -> np.ndarray:
        """The measure at C weight vectors ``weights`` (C, M) (normalised to sum to 1): shape (C,)."""
        self.n_evaluations += len(weights)
        p = np.einsum("nkm,cm->cnk", self.ens_t, _normalise(weights))
        values = np.asarray(self.func(p, np.broadcast_to(self.labels, p.shape[:-1])), dtype=np.float64)
        return np.minimum(np.nan_to_num(values, nan=OBJECTIVE_CAP), OBJECTIVE_CAP)


def _cobyla_scipy(obj, x0, options):
    m = len(x0)
    cons = [{"type": "ineq", "fun": lambda x: x.sum() - 1.0}, {"type": "ineq", "fun": lambda x: 1.0 - x.sum()}]
    opts = {"maxiter": options.get("maxiter", 1000)}
    if "rhobeg" in options:
        opts["rhobeg"] = options["rhobeg"]
    res = minimize(obj, x0, method="COBYLA", constraints=cons, bounds=[(0.0, 1.0)] * m,
                   tol=options.get("tol", 1e-4), options=opts)
    return res.x


@functools.lru_cache(maxsize=1)
def _nlopt():
    try:
        import nlopt
    except ImportError:  # pragma: no cover - nlopt is a declared dependency
        raise ImportError("solver 'cobyla_powell' needs NLopt: pip install nlopt") from None
    return nlopt


def _cobyla_powell(obj, x0, options):
    nlopt = _nlopt()
    m = len(x0)
    best = [np.inf, np.asarray(x0, dtype=np.float64)]

    def f(x, grad):
        value = obj(x)
        if value < best[0]:
            best[0], best[1] = value, x.copy()
        # NLopt's COBYLA can loop forever, without evaluating again, on values near the underflow
        # threshold (an SKCE with a tiny bandwidth gives ~1e-236); such values are zero in effect.
        return value if abs(value) > TINY_OBJECTIVE else 0.0

    opt = nlopt.opt(nlopt.LN_COBYLA, m)
    opt.set_lower_bounds(np.zeros(m))
    opt.set_upper_bounds(np.ones(m))
    opt.set_min_objective(f)
    opt.add_equality_constraint(lambda x, grad: x.sum() - 1.0, 1e-8)  # Σλ = 1
    opt.set_initial_step(options.get("rhobeg", 0.5))
    opt.set_xtol_abs(options.get("tol", 1e-3))
    opt.set_maxeval(options.get("maxiter", 1000))
    opt.set_maxtime(options.get("maxtime", 120.0))  # a safety net; never reached in the experiments
    try:
        return opt.optimize(best[1].copy())
    except nlopt.RoundoffLimited:  # pragma: no cover - keep the best point seen
        return best[1]


def _slsqp(obj, x0, options):
    m = len(x0)
    res = minimize(obj, x0, method="SLSQP", bounds=[(0.0, 1.0)] * m,
                   constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0, "jac": lambda x: np.ones_like(x)}],
                   options={"maxiter": options.get("maxiter", 200), "ftol": options.get("tol", 1e-9)})
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
    return np.concatenate([np.full((1, m), 1.0 / m), np.eye(m),
                           draw_weights(m, "uniform", rng, (n_rand - n_rand // 2,)),
                           draw_weights(m, "sparse", rng, (n_rand // 2,))])


def _best_of(obj, weights: np.ndarray, chunk: int = 256) -> np.ndarray:
    values = np.concatenate([obj.batch(weights[lo:lo + chunk]) for lo in range(0, len(weights), chunk)])
    return weights[int(np.argmin(values))]


def minimise_objective(obj: MeasureObjective, m: int, solver: str, options: dict, rng: np.random.Generator) -> np.ndarray:
    """The weights minimising ``obj`` with ``solver`` (one of :data:`SOLVERS`), normalised onto Δ_M
    (ones for a single member). No validation; users call :func:`minimise_calibration_measure`."""
    if m == 1:
        return np.ones(1)
    return _normalise(np.asarray(_solve(obj, m, solver, options, rng), dtype=np.float64))


def _solve(obj: MeasureObjective, m: int, solver: str, options: dict, rng: np.random.Generator) -> np.ndarray:
    x0 = np.full(m, 1.0 / m)
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
        raise ValueError(f"solver 'grid' with M = {m} and resolution = {resolution} needs {size} points; "
                         "lower the resolution or use another solver")
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


def minimise_calibration_measure(ens_probs, labels, *, measure="ece_conf", n_bins: int = 10, solver: str = "cobyla",
                                 solver_options: dict | None = None, seed=None) -> Minimum:
    r""":math:`\min_{\boldsymbol\lambda \in \Delta_M} g(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D)`
    (Mortier et al. 2023, Alg. 1 line 7).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    labels : array-like of int, shape (N,)
    measure, n_bins
        See :func:`~credalbook.stats.as_measure`.
    solver : {"cobyla", "cobyla_powell", "multistart", "slsqp", "search", "grid"}
        See the module docstring.
    solver_options : dict, optional
        ``maxiter``, ``tol``, ``rhobeg`` (COBYLA), ``n_starts`` (multistart), ``n_candidates``
        (search), ``resolution`` (grid).
    seed : int, numpy Generator or None
        Randomness of the multistart and search solvers.

    Returns
    -------
    Minimum

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
    w = minimise_objective(obj, ens.shape[1], solver, dict(solver_options or {}), np.random.default_rng(seed))
    return Minimum(obj(w), w, obj.n_evaluations, solver)


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------


def exact_size(alpha: float, n_bootstrap: int) -> float:
    r"""Rejection probability of "reject if :math:`t > q_{1-\alpha}`" when :math:`t` and the D null values are exchangeable.

    ``numpy.quantile`` interpolates at position :math:`h = (D-1)(1-\alpha)` of the sorted null
    sample, so (without ties) the test rejects exactly when :math:`t` exceeds at least
    :math:`\lfloor h\rfloor + 1` of the D null values, which happens with probability
    :math:`(D - \lfloor h\rfloor)/(D+1)`. For D = 100 this is 6/101 ≈ 0.059 at α = 0.05 and
    11/101 ≈ 0.109 at α = 0.1: Alg. 1 with a perfect null sample is slightly liberal, by less than
    1/D. This is the reference a Type I error should be compared with.

    Examples
    --------
    >>> round(exact_size(0.05, 100), 4), round(exact_size(0.05, 1000), 4)
    (0.0594, 0.0509)
    """
    alpha = check_probability(alpha, "alpha")
    d = check_positive_int(n_bootstrap, "n_bootstrap")
    return (d - math.floor((d - 1) * (1 - alpha))) / (d + 1)


def _result(t: float, null: np.ndarray, alpha: float, name: str, weights, solver, nfev) -> CalibrationTestResult:
    threshold = float(np.quantile(null, 1 - alpha))
    p_value = (1 + np.count_nonzero(null >= t)) / (1 + null.size)
    return CalibrationTestResult(float(t), float(p_value), alpha, threshold, bool(t > threshold), null, name,
                                 np.asarray(weights, dtype=np.float64), solver, int(nfev))


def set_calibration_test(
    ens_probs,
    labels,
    *,
    measure="ece_conf",
    n_bins: int = 10,
    n_bootstrap: int = 100,
    alpha: float = 0.05,
    solver: str = "cobyla",
    solver_options: dict | None = None,
    weight_prior: str = "uniform",
    resample: str = "bootstrap",
    seed=None,
) -> CalibrationTestResult:
    r"""Test whether a set of classifiers contains a calibrated convex combination (Mortier et al. 2023, Alg. 1).

    :math:`H_0: \exists \boldsymbol\lambda \in \Delta_M` such that :math:`\hat{\mathbf p}_{\boldsymbol\lambda}`
    is calibrated (Eq. 10), in the sense of the chosen measure (ECE_conf: confidence; ECE_cwise and
    HL: classwise; SKCE: strong calibration).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
        Predictions of the M members on a calibration set.
    labels : array-like of int, shape (N,)
    measure : str, CalibrationMeasure or callable, default "ece_conf"
        :math:`g`; see :func:`~credalbook.stats.as_measure` (``n_bins`` applies to built-in binned measures).
    n_bootstrap : int, default 100
        D, the number of null replicates (the paper's D = 100).
    alpha : float, default 0.05
    solver : str, default "cobyla"
        Minimiser of line 7; see :func:`minimise_calibration_measure`.
    solver_options : dict, optional
    weight_prior : {"uniform", "sparse"}, default "uniform"
        See :func:`set_null_distribution`.
    resample : {"bootstrap", "permutation"}, default "bootstrap"
    seed : int, numpy Generator or None

    Returns
    -------
    CalibrationTestResult
        With the minimising weights: the calibrated convex combination when :math:`H_0` is kept.

    References
    ----------
    Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of Probabilistic Classifier
    Sets. AISTATS 2023, Alg. 1 and Eqs. (9)-(10).

    Examples
    --------
    Members that straddle the true distribution (truth = ½ sharp + ½ flat) are not rejected,
    while the sharp member alone is:

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.dirichlet(np.ones(4), size=500)
    >>> y = np.array([rng.choice(4, p=q) for q in truth])
    >>> sharp = 0.3 * np.eye(4)[truth.argmax(1)] + 0.7 * truth
    >>> ens = np.stack([sharp, 2 * truth - sharp], axis=1)       # both rows stay on the simplex
    >>> res = set_calibration_test(ens, y, n_bootstrap=100, seed=0)
    >>> res.rejected, res.weights.shape, bool(res.statistic <= res.threshold)
    (False, (2,), True)
    >>> set_calibration_test(ens[:, :1], y, n_bootstrap=100, seed=0).rejected
    True
    """
    g = as_measure(measure, n_bins=n_bins)
    ens, y = _check_set(ens_probs, labels, g)
    alpha = check_probability(alpha, "alpha")
    n_bootstrap = _check_test_args(n_bootstrap, weight_prior, resample)
    check_choice(solver, "solver", SOLVERS)
    rng = np.random.default_rng(seed)
    null = null_statistics(ens, g.func, n_bootstrap, weight_prior, resample, rng)
    best = minimise_calibration_measure(ens, y, measure=g, solver=solver, solver_options=solver_options, seed=rng)
    return _result(best.value, null, alpha, g.name, best.weights, solver if ens.shape[1] > 1 else None,
                   best.n_evaluations)


def bootstrap_calibration_test(
    probs,
    labels,
    *,
    measure="ece_conf",
    n_bins: int = 10,
    n_bootstrap: int = 100,
    alpha: float = 0.05,
    resample: str = "bootstrap",
    seed=None,
) -> CalibrationTestResult:
    r"""Consistency-resampling calibration test of one classifier (Vaicenavicius et al., 2019).

    The null distribution comes from D replicates that resample the instances and draw labels
    :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)`; :math:`H_0` (calibration in the measure's
    sense) is rejected when :math:`g(\hat{\mathbf p}, \mathcal D)` exceeds their :math:`(1-\alpha)`
    quantile. This is :func:`set_calibration_test` with a single member (Mortier et al., Sec. 4.2).

    Parameters
    ----------
    probs : array-like, shape (N, K)
    labels : array-like of int, shape (N,)
    measure, n_bins, n_bootstrap, alpha, resample, seed
        As in :func:`set_calibration_test`.

    Returns
    -------
    CalibrationTestResult

    References
    ----------
    Vaicenavicius, Widmann, Andersson, Lindsten, Roll, Schön. Evaluating model calibration in
    classification. AISTATS 2019.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=500)
    >>> over = p**4 / (p**4).sum(1, keepdims=True)              # over-confident copy
    >>> y = np.array([rng.choice(3, p=q) for q in p])
    >>> bootstrap_calibration_test(p, y, seed=0).rejected, bootstrap_calibration_test(over, y, seed=0).rejected
    (False, True)
    """
    p = check_probs(as_numpy(probs, "probs"), name="probs")
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    return set_calibration_test(p[:, None, :], labels, measure=measure, n_bins=n_bins, n_bootstrap=n_bootstrap,
                                alpha=alpha, resample=resample, seed=seed)
