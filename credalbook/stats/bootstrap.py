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

The D replicates are evaluated as one batch (arrays of shape (D, N, K)), in chunks of replicates
when that would exceed 128 MiB (same values; at N = 10⁶, K = 10, M = 10, D = 100 the test peaks
below 2 GiB); :func:`set_null_distribution` also batches over datasets. Line 3 is a non-smooth,
non-convex problem; the paper uses COBYLA. Solvers here (``solver=``):

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
    (about 10⁴ evaluations in total). Up to M = 10 the defaults are those of earlier releases
    (200 candidates, no away moves, up to 100 rounds), so Fig. 1's results do not move.

    Measured against SciPy's COBYLA by :func:`credalbook.papers.mortier.solver_agreement` on 150
    S1 datasets (:math:`H_0` true) in the setting of Fig. 1 (N = 100, M = 10, K = 10, u = 0.01,
    ECE_conf with 10 bins, D = 100, the same null samples): the same decision at α = 0.05 on
    149 of 150 datasets; a lower minimum on 96 % of them and never higher by more than 10⁻³
    (mean difference −0.011, largest +0.0007); 0.007-0.017 s per test against COBYLA's 0.22-0.9 s
    (30-60× faster, on a shared 2-core machine). Lower minima make the test more conservative:
    Type I error 0.013 against COBYLA's 0.020 at α = 0.05, and at the larger levels of the
    paper's figures it rejects less often (mean rejection rate over its twelve levels 0.18 against 0.30); in S2
    (:math:`H_1`) it rejects 71 % of the datasets at α = 0.05 against COBYLA's 80 %.

    At M = 100 (App. Fig. 3: N = 100, K = 10, u = 0.01) both COBYLAs mostly stop at or near
    their budget of 1 000 evaluations (SciPy's after 500-1 000, taking 1.5-13 min per test on a
    shared 2-core machine; NLopt's after 995-1 000, 0.2-2 min), short of the minimum. On a sample
    of S1 and S2 datasets (ECE_conf and ECE_cwise with 10 bins, HL with 5, SKCE_ul; D = 100)
    ``"search_descent"`` reached a minimum at or below SciPy COBYLA's on all 11 tests where that
    ran (mean difference −0.016; SKCE_ul equal to 10⁻¹⁵) and below NLopt COBYLA's on all 14
    (mean −0.014, largest −0.0007), with the same decision at α = 0.05 on every one, in
    0.27 s per test on average (median 0.17 s, 1.4× ``"search"``; 28 tests on the same
    loaded machine). NLopt's (Powell's) COBYLA, the authors' algorithm, stopped above SciPy's
    by up to 0.013. So at M = 100 the paper's minima are higher than this solver's (and
    ``"search"``'s), which makes its test less conservative: a better minimiser moves the Type I
    errors of App. Fig. 3 further below α, not towards the paper's (on 100 S1 datasets, mean
    :math:`|\text{Type I} - \alpha|` over the seven tests and twelve levels: 0.258 with this
    solver, 0.232 with ``"search"``, 0.062 with :math:`t` taken at the uniform weights where
    COBYLA starts). On small problems (M = 30 and 50, N = 60, K = 5; ECE_conf and HL with 5
    bins) the scaled defaults matter: 200 candidates and vertex line searches alone ended
    0.004 and 0.006 above SciPy COBYLA on two of nine problems (HL), the scaled defaults at most
    2·10⁻⁵ above it.
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
    the minimum of line 3, so the test rejects more often than Alg. 1 (at M = 100, mean
    :math:`|\text{Type I} - \alpha|` 0.062 against 0.258 with ``"search_descent"``, above).
``"grid"``
    Exhaustive search on the lattice :math:`\{\boldsymbol\lambda \in \Delta_M : r\lambda_m \in \mathbb N\}`
    with ``resolution`` r, for small M.

Every objective evaluation uses :math:`\max(\boldsymbol\lambda, 0) / \lVert\max(\boldsymbol\lambda,
0)\rVert_1`, so the measure only ever sees members of the credal set even when a solver steps
slightly outside its constraints.
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.optimize import minimize

from credalbook._validation import (
    as_predictions,
    as_rng,
    check_choice,
    check_labels,
    check_positive_int,
    check_probability,
)
from credalbook._random import WEIGHT_PRIORS, draw_labels, draw_weights
from credalbook._validation import check_ens_probs
from credalbook.stats.measures import CalibrationMeasure, as_measure
from credalbook.stats.result import ALPHA_OF_RESULT, TestResult
from credalbook._parallel import check_n_jobs, run_chunks

__all__ = [
    "CalibrationTestResult",
    "Minimum",
    "bootstrap_calibration_test",
    "set_calibration_test",
    "set_null_distribution",
    "minimise_calibration_measure",
    "exact_size",
    "DECISION_RULES",
    "reject",
    "SOLVERS",
    "null_statistics",
    "MeasureObjective",
    "minimise_objective",
    "top_label_consistency_test",
]

SOLVERS = ("auto", "search_descent", "cobyla", "cobyla_powell", "multistart", "slsqp", "search", "grid", "uniform")
#: ``solver="auto"`` runs ``"search_descent"`` when one combined prediction holds at most this many
#: numbers (N·K), and ``"cobyla"`` above, where an evaluation of the measure costs more than
#: COBYLA's own work per step and COBYLA's fewer evaluations win.
AUTO_MAX_SIZE = 10**5
RESAMPLING = ("bootstrap", "permutation")
#: Decision rules of Alg. 1 line 8: ``"t"`` rejects when :math:`t > q_{1-\alpha}` (the paper);
#: ``"abs"`` when :math:`|t| > q_{1-\alpha}` with :math:`q` a quantile of the *signed* null sample
#: (the authors' code: ``np.abs(minstat) > q_alpha`` in ``npbetest``/``npbetest_alpha`` of
#: tfmortie/calibration@686d453, ``calibration/src/main/py/caltest.py``). The two differ only for
#: measures that can be negative (the unbiased SKCE estimators), where ``"abs"`` also rejects a
#: very negative minimum.
DECISION_RULES = ("t", "abs")


def reject(statistic, threshold, rule: str = "t"):
    """Alg. 1 line 8 under a decision rule of :data:`DECISION_RULES` (element-wise for arrays).

    >>> bool(reject(-0.3, 0.1)), bool(reject(-0.3, 0.1, "abs"))
    (False, True)
    """
    check_choice(rule, "rule", DECISION_RULES)
    t = np.asarray(statistic)
    return (np.abs(t) if rule == "abs" else t) > threshold


@dataclass(frozen=True, kw_only=True)
class CalibrationTestResult(TestResult):
    """Outcome of :func:`bootstrap_calibration_test` or :func:`set_calibration_test`: a :class:`~credalbook.stats.TestResult`.

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
        :math:`t > q_{1-\\alpha}` (Alg. 1, line 8), or :math:`|t| > q_{1-\\alpha}` with ``rule="abs"``.
    null_distribution : ndarray (D,)
    method : str
        ``"consistency"`` (one classifier), ``"set"`` (Mortier et al.) or ``"instance"`` (Jürgens et al.).
    measure : str
    weights : ndarray (M,)
        The minimising :math:`\\boldsymbol\\lambda` (``[1.0]`` for one classifier).
    solver : str or None
        The minimiser that ran (for ``solver="auto"``, the one it chose); None for one classifier.
    n_evaluations : int
        Objective evaluations spent in the minimisation.
    """

    measure: str
    weights: np.ndarray
    solver: str | None = None
    n_evaluations: int = 1
    rule: str = "t"

    def decision(self, alpha: float = ALPHA_OF_RESULT) -> bool:
        """Whether the test rejects at another significance level (same null sample and rule; default ``self.alpha``)."""
        alpha = self.alpha if alpha is ALPHA_OF_RESULT else check_probability(alpha, "alpha")
        return bool(reject(self.statistic, np.quantile(self.null_distribution, 1 - alpha), self.rule))


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


#: Largest number of floats (replicates × instances × classes) that :func:`null_statistics` holds in
#: one array (2**24 floats = 128 MiB); larger problems are computed in chunks of replicates.
NULL_CHUNK_ELEMENTS = 2**24


def _draw_indices(rng: np.random.Generator, n: int, shape: tuple, resample: str) -> np.ndarray:
    if resample == "bootstrap":
        return rng.integers(0, n, size=(*shape, n))
    # the authors' code: a permutation, i.e. "bootstrap" without replacement
    return rng.permuted(np.broadcast_to(np.arange(n), (*shape, n)), axis=-1)


def _null_block(ens, lam, idx, func, rng):
    combined = np.einsum("...nmk,...dm->...dnk", ens, lam)
    *lead, n, k = combined.shape
    # p0[..., i, :] = combined[..., idx[..., i], :], as rows of one (rows, K) array (faster than take_along_axis)
    rows = (idx.reshape(-1, n) + n * np.arange(math.prod(lead))[:, None]).ravel()
    p0 = combined.reshape(-1, k)[rows].reshape(*lead, n, k)
    del combined, rows
    y0 = draw_labels(p0, rng)
    return np.asarray(func(p0, y0), dtype=np.float64)


def null_statistics(ens: np.ndarray, func, n_bootstrap: int, weight_prior: str, resample: str,
                    rng: np.random.Generator, *, chunk_elements: int | None = None) -> np.ndarray:
    """Null statistics of shape (..., D) for validated ``ens`` (..., N, M, K): the engine of the tests.

    Each of the ``n_bootstrap`` rounds draws convex weights λ from ``weight_prior``, resamples the
    instances (``"bootstrap"``: with replacement; ``"permutation"``: the authors' code) and labels from
    the combined prediction, and evaluates the batched measure ``func``. No validation: the error-rate
    studies of the papers call it on thousands of checked datasets at once; users call
    :func:`set_null_distribution`.

    Memory: when all replicates together hold more than ``chunk_elements`` floats (datasets × D ×
    N × K; default ``NULL_CHUNK_ELEMENTS`` = 2²⁴, 128 MiB), they are computed in chunks of whole
    datasets or of replicates, so no array of shape (..., D, N, K) is formed. The random draws
    are made in the same order from the same stream as in one pass (the resampling indices come
    from a copy of ``rng`` that is then advanced past them), so neither the result nor the state
    ``rng`` is left in depends on the chunking.
    """
    *batch, n, m, k = ens.shape
    d = n_bootstrap
    lam = draw_weights(m, weight_prior, rng, (*batch, d))  # (..., D, M); λ ≡ 1 for one classifier
    n_sets = math.prod(batch)
    if chunk_elements is None:
        chunk_elements = NULL_CHUNK_ELEMENTS
    if n_sets * d * n * k <= chunk_elements:
        idx = _draw_indices(rng, n, (*batch, d), resample)
        return _null_block(ens, lam, idx, func, rng)
    # Chunks in the order of the stream (datasets, then replicates), each ≤ chunk_elements floats.
    ens_f, lam_f = ens.reshape(n_sets, n, m, k), lam.reshape(n_sets, d, m)
    per_set = max(1, chunk_elements // (d * n * k))  # whole datasets per chunk ...
    per_rep = max(1, chunk_elements // (n * k))  # ... or replicates of one dataset per chunk
    if per_set > 1 or d * n * k <= chunk_elements:
        blocks = [(slice(lo, lo + per_set), slice(None)) for lo in range(0, n_sets, per_set)]
    else:
        blocks = [(slice(s, s + 1), slice(lo, lo + per_rep)) for s in range(n_sets) for lo in range(0, d, per_rep)]
    idx_rng = np.random.Generator(copy.deepcopy(rng.bit_generator))
    for sets, reps in blocks:  # advance rng past the index draws, as one call would have
        _draw_indices(rng, n, (len(range(n_sets)[sets]), len(range(d)[reps])), resample)
    out = np.empty((n_sets, d))
    for sets, reps in blocks:
        idx = _draw_indices(idx_rng, n, (len(range(n_sets)[sets]), len(range(d)[reps])), resample)
        out[sets, reps] = _null_block(ens_f[sets], lam_f[sets, reps], idx, func, rng)
    return out.reshape(*batch, d)


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
        Distribution of :math:`\boldsymbol\lambda_{0,d}`: Dir(1), uniform on :math:`\Delta_M` (the
        paper's Alg. 1 line 3, and the authors' synthetic experiments, which pass ``l_prior = 1``
        to their null sampler), or Dir(1/M) (the default of that sampler, ``sample_l`` in
        tfmortie/calibration@686d453 ``calibration/src/main/py/caltest.py``, which their
        real-data script keeps). Dir(1/M) is also how the authors' code draws S1's *true*
        :math:`\boldsymbol\lambda` (see :func:`~credalbook.synthetic.credal_scenario`).
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
    return null_statistics(ens, g.func, n_bootstrap, weight_prior, resample, as_rng(seed))


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


#: Largest number of floats (candidates × instances × classes) in one batched evaluation of the
#: objective (2**24 floats = 128 MiB).
BATCH_ELEMENTS = 2**24


def _values(obj: MeasureObjective, weights: np.ndarray, blas: bool = False) -> np.ndarray:
    """``obj.batch`` over the rows of ``weights`` in chunks of at most 256 rows and ``BATCH_ELEMENTS`` floats."""
    n, k, _ = obj.ens_t.shape
    chunk = max(1, min(256, BATCH_ELEMENTS // (n * k)))
    return np.concatenate([obj.batch(weights[lo:lo + chunk], blas=blas) for lo in range(0, len(weights), chunk)])


def _best_of(obj, weights: np.ndarray) -> np.ndarray:
    return weights[int(np.argmin(_values(obj, weights)))]


#: Step sizes of the line searches of ``"search_descent"``: fractions t of the way to a vertex.
DESCENT_STEPS = (1.0, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015)
#: ``"search_descent"`` scales its budget with M above this many members (App. Fig. 3 of Mortier et
#: al.: M = 100); up to it (Fig. 1: M = 10) its defaults are those of earlier releases.
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


def minimise_objective(obj: MeasureObjective, m: int, solver: str, options: dict, rng: np.random.Generator) -> np.ndarray:
    """The weights minimising ``obj`` with ``solver`` (one of :data:`SOLVERS`), normalised onto Δ_M
    (ones for a single member). No validation; users call :func:`minimise_calibration_measure`."""
    if m == 1:
        return np.ones(1)
    return _normalise(np.asarray(_solve(obj, m, solver, options, rng), dtype=np.float64))


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


def minimise_calibration_measure(ens_probs, labels, *, measure="ece_conf", n_bins: int = 10, solver: str = "auto",
                                 solver_options: dict | None = None, seed=None) -> Minimum:
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


def _result(t: float, null: np.ndarray, alpha: float, name: str, weights, solver, nfev,
            rule: str = "t", method: str = "set", details: dict | None = None) -> CalibrationTestResult:
    threshold = float(np.quantile(null, 1 - alpha))
    # "abs": the p-value of |t| against the signed null, so that p <= α tracks the decision |t| > q
    p_value = (1 + np.count_nonzero(null >= (abs(t) if rule == "abs" else t))) / (1 + null.size)
    return CalibrationTestResult(statistic=float(t), p_value=float(p_value), alpha=alpha, threshold=threshold,
                                 rejected=bool(reject(t, threshold, rule)), null_distribution=null, method=method,
                                 measure=name, weights=np.asarray(weights, dtype=np.float64), solver=solver,
                                 n_evaluations=int(nfev), rule=rule,
                                 details={"measure": name, "n_resamples": int(null.size), **(details or {})})


#: Replicates per chunk of the null distribution when ``n_jobs`` is given (fixed, so the values do
#: not depend on ``n_jobs``).
NULL_CHUNK = 50


def _null_chunk(size, rng, ens, func, weight_prior, resample):
    return null_statistics(ens, func, size, weight_prior, resample, rng)


def null_replicates(ens: np.ndarray, func, n_bootstrap: int, weight_prior: str, resample: str,
                      rng: np.random.Generator, n_jobs=None) -> np.ndarray:
    """:func:`null_statistics` of one checked set (N, M, K), serial or in chunks through joblib.

    ``n_jobs=None`` draws all replicates from ``rng`` in one stream (the values of earlier
    releases). Any integer splits them into chunks of ``NULL_CHUNK`` replicates, each seeded
    from a SeedSequence drawn from ``rng`` (``credalbook._parallel.run_chunks``): the same
    values for every ``n_jobs`` (1, 8, or a dask cluster inside ``joblib.parallel_config``), but
    not the values of ``n_jobs=None``.
    """
    if n_jobs is None:
        return null_statistics(ens, func, n_bootstrap, weight_prior, resample, rng)
    return run_chunks(_null_chunk, n_bootstrap, seed=rng, chunk_size=NULL_CHUNK, n_jobs=check_n_jobs(n_jobs),
                      args=(ens, func, weight_prior, resample))


#: Instances × replicates of the top-label consistency null drawn in one block (2**20: 8 MiB per array).
TOP_LABEL_BLOCK = 2**20


def _top_label_null(size: int, rng: np.random.Generator, conf: np.ndarray, bins: np.ndarray, n_bins: int,
                    resample: str) -> np.ndarray:
    """``size`` replicates of the top-label ECE under consistency resampling, from the confidences alone.

    ``conf`` (N,) are the confidences :math:`c_i = \\max_k \\hat p_{ik}` and ``bins`` (N,) their
    equal-width bins. Under :math:`H_0` a label :math:`y^* \\sim \\mathrm{Cat}(\\hat{\\mathbf p}_i)` hits
    the arg-max class with probability :math:`c_i`, and the top-label ECE depends on the labels only
    through these hits: a replicate resamples the instances, draws the hits as ``u < c`` with
    ``u ~ U(0, 1)`` and sums the weights :math:`1[\\text{hit}] - c` per bin (as
    :func:`credalbook.metrics.bin_statistics` sums :math:`o - x`). O(N) per replicate instead of
    O(N·K). Replicates are drawn in blocks of about :data:`TOP_LABEL_BLOCK` values (indices of the
    whole block, then its uniforms), a number fixed by N and ``size``.
    """
    n = conf.shape[0]
    per = max(1, min(size, TOP_LABEL_BLOCK // n))
    out = np.empty(size)
    for s in range(0, size, per):
        m = min(per, size - s)
        idx = _draw_indices(rng, n, (m,), resample)
        c = conf[idx]
        w = np.subtract(rng.random((m, n)) < c, c)   # 1 - c for a hit, -c otherwise: o - x
        flat = (bins[idx] + (n_bins * np.arange(m, dtype=np.intp))[:, None]).ravel()
        gap = np.bincount(flat, weights=w.ravel(), minlength=m * n_bins).reshape(m, n_bins)
        out[s:s + m] = np.abs(gap).sum(axis=1) / n
    return out


def top_label_consistency_test(p: np.ndarray, y: np.ndarray, *, n_bins: int, n_resamples: int, alpha: float,
                               resample: str = "bootstrap", rule: str = "t", seed=None,
                               n_jobs=None) -> CalibrationTestResult:
    r"""Consistency test of the top-label ECE (equal-width bins) with an O(N)-per-replicate null; no validation.

    The test of :func:`bootstrap_calibration_test` with ``measure="ece_conf"``: the same statistic
    and the same null *distribution*, drawn by a cheaper route. Under :math:`H_0` the resampled
    label :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)` equals the predicted class
    :math:`\arg\max_k \hat p_{ik}` with probability :math:`c_i = \max_k \hat p_{ik}`, and
    :math:`\mathrm{ECE}_{conf}` depends on the data only through the confidences and these hits;
    so a replicate draws N indices, gathers their confidences and bins (computed once) and draws
    N Bernoulli(:math:`c_i`) hits, instead of gathering (N, K) predictions, drawing K-class
    labels and re-binning (24 s → under 2 s for 100 replicates at N = 10⁶, K = 10). The random
    stream is another one, so the null samples and p-values differ from those of
    :func:`bootstrap_calibration_test` with the same seed (only in Monte Carlo error; the tests
    compare the two distributions). ``n_jobs``: None draws one serial stream; an integer runs
    chunks of ``NULL_CHUNK`` replicates through joblib, with values that do not depend on it.

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting,
    2007. Vaicenavicius et al. Evaluating model calibration in classification. AISTATS 2019.
    """
    from credalbook.metrics.binning import equal_width_bin_index
    from credalbook.metrics.classification import ece_confidence_batched

    conf = np.ascontiguousarray(p.max(axis=-1))
    bins = equal_width_bin_index(conf, n_bins)
    bins = bins.astype(np.uint8 if n_bins <= 256 else np.intp)   # a small table gathers faster
    rng = as_rng(seed)
    if n_jobs is None:
        null = _top_label_null(n_resamples, rng, conf, bins, n_bins, resample)
    else:
        null = run_chunks(_top_label_null, n_resamples, seed=rng, chunk_size=NULL_CHUNK, n_jobs=check_n_jobs(n_jobs),
                          args=(conf, bins, n_bins, resample))
    t = float(ece_confidence_batched(p, y, n_bins))
    return _result(t, null, alpha, f"ECE_conf (B={n_bins})", [1.0], None, 1, rule, method="consistency",
                   details={"n": p.shape[0], "M": 1, "K": p.shape[1], "resample": resample,
                            "null": "top-label hits"})


def set_calibration_test(
    ens_probs,
    labels,
    *,
    measure="ece_conf",
    n_bins: int = 10,
    n_bootstrap: int = 100,
    alpha: float = 0.05,
    solver: str = "auto",
    solver_options: dict | None = None,
    weight_prior: str = "uniform",
    resample: str = "bootstrap",
    rule: str = "t",
    from_logits: bool = False,
    seed=None,
    n_jobs=None,
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
    solver : str, default "auto"
        Minimiser of line 7; see :func:`minimise_calibration_measure`. ``"auto"`` is the batched
        ``"search_descent"`` up to N·K = 10⁵ (on 150 S1 datasets of Fig. 1 it makes the decision
        of SciPy's COBYLA, the paper's solver, on 149 at α = 0.05, in a thirtieth of the time or
        less, reaching lower minima; see the module docstring) and COBYLA above. ``"cobyla"``
        gives the paper's solver at any size; ``"uniform"`` does not minimise (a diagnostic).
    solver_options : dict, optional
    weight_prior : {"uniform", "sparse"}, default "uniform"
        See :func:`set_null_distribution`.
    resample : {"bootstrap", "permutation"}, default "bootstrap"
    rule : {"t", "abs"}, default "t"
        Decision of line 8: :math:`t > q_{1-\alpha}` (the paper) or :math:`|t| > q_{1-\alpha}`
        (the authors' code; see :data:`DECISION_RULES`).
    from_logits : bool, default False
        ``ens_probs`` holds logits (N, M, K): softmax over the classes in float64 first. Inputs
        may be NumPy arrays or torch tensors (CPU/CUDA, float16/32/64).
    seed : int, numpy Generator or None
    n_jobs : int or None
        None: the D replicates in one serial stream. An integer: in chunks of ``NULL_CHUNK``
        through joblib (-1: all CPUs; a dask cluster inside ``joblib.parallel_config(backend="dask")``),
        with values that do not depend on ``n_jobs`` (but differ from those of ``n_jobs=None``);
        see ``null_replicates``.

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
    ens, y = _check_set(as_predictions(ens_probs, "ens_probs", from_logits=from_logits, ndim=3), labels, g)
    alpha = check_probability(alpha, "alpha")
    n_bootstrap = _check_test_args(n_bootstrap, weight_prior, resample)
    check_choice(solver, "solver", SOLVERS)
    check_choice(rule, "rule", DECISION_RULES)
    n_jobs = check_n_jobs(n_jobs)
    rng = as_rng(seed)
    null = null_replicates(ens, g.func, n_bootstrap, weight_prior, resample, rng, n_jobs)
    best = minimise_calibration_measure(ens, y, measure=g, solver=solver, solver_options=solver_options, seed=rng)
    one = ens.shape[1] == 1
    return _result(best.value, null, alpha, g.name, best.weights, None if one else best.solver,
                   best.n_evaluations, rule, method="consistency" if one else "set",
                   details={"n": ens.shape[0], "M": ens.shape[1], "K": ens.shape[2], "resample": resample})


def bootstrap_calibration_test(
    probs,
    labels,
    *,
    measure="ece_conf",
    n_bins: int = 10,
    n_bootstrap: int = 100,
    alpha: float = 0.05,
    resample: str = "bootstrap",
    rule: str = "t",
    from_logits: bool = False,
    seed=None,
    n_jobs=None,
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
    measure, n_bins, n_bootstrap, alpha, resample, rule, from_logits, seed, n_jobs
        As in :func:`set_calibration_test` (``probs`` may be logits (N, K) with ``from_logits=True``).

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
    p = as_predictions(probs, "probs", from_logits=from_logits)
    return set_calibration_test(p[:, None, :], labels, measure=measure, n_bins=n_bins, n_bootstrap=n_bootstrap,
                                alpha=alpha, resample=resample, rule=rule, seed=seed, n_jobs=n_jobs)
