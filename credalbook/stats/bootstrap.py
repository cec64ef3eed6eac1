r"""Bootstrap calibration tests for one classifier and for a set of classifiers.

**Single classifier** (Vaicenavicius et al., 2019; "consistency resampling"): under
:math:`H_0` the labels are draws from the predictions, so the null distribution of any calibration
measure :math:`g` is obtained by resampling instances, drawing labels
:math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}(\mathbf x_i))` and re-evaluating :math:`g`.

**Set of classifiers** (Mortier et al., 2023, Alg. 1): :math:`H_0`: some convex combination
:math:`\hat{\mathbf p}_{\boldsymbol\lambda}`, :math:`\boldsymbol\lambda \in \Delta_M`, is calibrated.

1. For :math:`d = 1..D`: resample the instances, draw :math:`\boldsymbol\lambda_{0,d}` on
   :math:`\Delta_M`, draw labels from :math:`\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}` and record
   :math:`t_{0,d} = g(\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}, \mathcal D_d)`
   (:mod:`credalbook.stats.null_distribution`, which also describes ``seed``, ``n_jobs`` and
   ``chunk_size``).
2. :math:`q_{1-\alpha}` is the :math:`(1-\alpha)` quantile of :math:`\{t_{0,d}\}`.
3. :math:`t = \min_{\boldsymbol\lambda \in \Delta_M} g(\hat{\mathbf p}_{\boldsymbol\lambda}, \mathcal D_{val})`
   (:mod:`credalbook.stats.minimise`, which describes the solvers); reject :math:`H_0` when
   :math:`t > q_{1-\alpha}`, the decision rule of every :class:`~credalbook.stats.TestResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs
from credalbook._random import WEIGHT_PRIORS
from credalbook._validation import (
    as_predictions,
    as_rng,
    check_binary_labels,
    check_choice,
    check_ens_probs,
    check_positive_int,
    check_probability,
    is_binary_scores,
)
from credalbook.metrics.intervals import BLOCKED_MIN_N, replicate_indices
from credalbook.stats.hosmer_lemeshow import _drawn_ahead
from credalbook.stats.measures import as_measure

# the names marked F401 are re-exported where they were before the minimiser moved to its own module
from credalbook.stats.minimise import (
    _check_set,
    AUTO_MAX_SIZE,  # noqa: F401
    MeasureObjective,  # noqa: F401
    minimise_calibration_measure,
    minimise_objective,  # noqa: F401
    Minimum,  # noqa: F401
    SOLVERS,
)
from credalbook.stats.null_distribution import (
    _draw_indices,
    check_chunk_size,
    check_null_args,
    NULL_CHUNK,
    null_replicates,
    null_statistics,
    resample_null,
    RESAMPLING,
)
from credalbook.stats.result import ALPHA_OF_RESULT, critical_value, TestResult

__all__ = [
    "CalibrationTestResult",
    "DECISION_RULES",
    "SetTestOptions",
    "bootstrap_calibration_test",
    "exact_size",
    "reject",
    "set_calibration_test",
    "set_null_distribution",
    "top_label_consistency_test",
]


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
    pvalue : float
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
        return bool(reject(self.statistic, critical_value(self.null_distribution, alpha), self.rule))


@renamed(n_bootstrap="n_resamples")
def set_null_distribution(
    ens_probs,
    *,
    measure="ece_confidence",
    n_bins: int = 10,
    n_resamples: int = 100,
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
    n_resamples : int, default 100
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
    >>> set_null_distribution(ens, n_resamples=20, seed=0).shape
    (4, 20)
    """
    ens = check_ens_probs(ens_probs)
    g = as_measure(measure, n_bins=n_bins)
    if ens.shape[-3] < g.min_instances:
        raise ValueError(
            f"ens_probs must hold at least {g.min_instances} instances for {g.name}; got N = {ens.shape[-3]}"
        )
    n_resamples = check_null_args(n_resamples, weight_prior, resample)
    return null_statistics(ens, g.func, n_resamples, weight_prior, resample, as_rng(seed))


@dataclass(frozen=True)
class SetTestOptions:
    """The less common options of :func:`set_calibration_test` (its ``**options``), validated.

    Examples
    --------
    >>> SetTestOptions.from_options(resample="permutation").resample
    'permutation'
    """

    solver_options: dict | None = None
    weight_prior: str = "uniform"
    resample: str = "bootstrap"
    rule: str = "t"

    @classmethod
    def from_options(cls, **options) -> SetTestOptions:
        """Check the options: TypeError for an unknown one, ValueError naming a bad value."""
        unknown = sorted(set(options) - set(cls.__dataclass_fields__))
        if unknown:
            raise TypeError(
                f"set_calibration_test() got unexpected options {unknown}; "
                f"it accepts {sorted(cls.__dataclass_fields__)}"
            )
        opts = cls(**options)
        check_choice(opts.weight_prior, "weight_prior", WEIGHT_PRIORS)
        check_choice(opts.resample, "resample", RESAMPLING)
        check_choice(opts.rule, "rule", DECISION_RULES)
        if opts.solver_options is not None and not isinstance(opts.solver_options, dict):
            raise TypeError(f"solver_options must be a dict or None; got {type(opts.solver_options).__name__}")
        return opts


@renamed(n_bootstrap="n_resamples")
def exact_size(alpha: float, n_resamples: int) -> float:
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
    d = check_positive_int(n_resamples, "n_resamples")
    return (d - math.floor((d - 1) * (1 - alpha))) / (d + 1)


def _result(
    t: float,
    null: np.ndarray,
    alpha: float,
    name: str,
    weights,
    solver,
    nfev,
    rule: str = "t",
    method: str = "set",
    details: dict | None = None,
) -> CalibrationTestResult:
    threshold = critical_value(null, alpha)
    # "abs": the p-value of |t| against the signed null, so that p <= α tracks the decision |t| > q
    pvalue = (1 + np.count_nonzero(null >= (abs(t) if rule == "abs" else t))) / (1 + null.size)
    return CalibrationTestResult(
        statistic=float(t),
        pvalue=float(pvalue),
        alpha=alpha,
        threshold=threshold,
        rejected=bool(reject(t, threshold, rule)),
        null_distribution=null,
        method=method,
        measure=name,
        weights=np.asarray(weights, dtype=np.float64),
        solver=solver,
        n_evaluations=int(nfev),
        rule=rule,
        details={"measure": name, "n_resamples": int(null.size), **(details or {})},
    )


#: Instances × replicates of the top-label consistency null drawn in one block (2**20: 8 MiB per array).
TOP_LABEL_BLOCK = 2**20


def _top_label_null(
    size: int, rng: np.random.Generator, conf: np.ndarray, bins: np.ndarray, n_bins: int, resample: str
) -> np.ndarray:
    """``size`` replicates of the top-label ECE under consistency resampling, from the confidences alone.

    ``conf`` (N,) are the confidences :math:`c_i = \\max_k \\hat p_{ik}` and ``bins`` (N,) their
    equal-width bins. Under :math:`H_0` a label :math:`y^* \\sim \\mathrm{Cat}(\\hat{\\mathbf p}_i)` hits
    the arg-max class with probability :math:`c_i`, and the top-label ECE depends on the labels only
    through these hits: a replicate resamples the instances, draws the hits as ``u < c`` with
    ``u ~ U(0, 1)`` and sums the weights :math:`1[\\text{hit}] - c` per bin (as
    :func:`credalbook.metrics.bin_statistics` sums :math:`o - x`). O(N) per replicate instead of
    O(N·K). Replicates are drawn in blocks of about :data:`TOP_LABEL_BLOCK` values (indices of the
    whole block, then its uniforms; the next block drawn in a background thread while this one is
    summed), a number fixed by N and ``size``. From N = 2¹⁵ (``resample="bootstrap"``) each replicate's
    indices are those of :func:`credalbook.metrics.intervals.replicate_indices` (the same distribution,
    grouped by blocks of instances, so that the gathers read the tables block by block: 1.0 → 0.8 s for
    100 replicates at N = 10⁶). The work per value: two gathers from 1-D tables (the
    small ``bins`` table stays in cache), one comparison and one subtraction written in place, one
    ``bincount``.
    """
    n = conf.shape[0]
    by_blocks = resample == "bootstrap" and n >= BLOCKED_MIN_N
    per = max(1, min(size, TOP_LABEL_BLOCK // n))
    out = np.empty(size)
    blocks = [(s, min(per, size - s)) for s in range(0, size, per)]
    largest = blocks[0][1] * n
    # filled in turn (fresh arrays cost page faults): uniforms and bins of the drawn instances
    buffers = [(np.empty(largest), np.empty(largest, dtype=np.intp)) for _ in blocks[:2]]
    hit, c_buffer = np.empty(largest, dtype=bool), np.empty(largest)

    def draw(j):  # in the background thread: the draws of block j, and the small gather of its bins
        m, (u, flat) = blocks[j][1], buffers[j % 2]
        if by_blocks:  # grouped by blocks of instances: the gathers below read the tables block by block
            idx = np.concatenate([replicate_indices(rng, n) for _ in range(m)])
        else:
            idx = _draw_indices(rng, n, (m,), resample).ravel()
        np.copyto(flat[: m * n], bins.take(idx))
        return idx, rng.random(out=u[: m * n]), flat[: m * n]

    for (s, m), (idx, u, flat) in zip(blocks, _drawn_ahead(draw, len(blocks))):
        c = conf.take(idx, out=c_buffer[: m * n], mode="clip")  # valid indices; "clip" writes out unbuffered
        w = np.subtract(np.less(u, c, out=hit[: m * n]), c, out=c)  # 1 - c for a hit, -c otherwise: o - x
        if m > 1:
            flat.reshape(m, n)[...] += (n_bins * np.arange(m, dtype=np.intp))[:, None]
        gap = np.bincount(flat, weights=w, minlength=m * n_bins).reshape(m, n_bins)
        out[s : s + m] = np.abs(gap).sum(axis=1) / n
    return out


def top_label_consistency_test(
    p: np.ndarray,
    y: np.ndarray,
    *,
    n_bins: int,
    n_resamples: int,
    alpha: float,
    resample: str = "bootstrap",
    rule: str = "t",
    seed=None,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
) -> CalibrationTestResult:
    r"""Consistency test of the top-label ECE (equal-width bins) with an O(N)-per-replicate null; no validation.

    The test of :func:`bootstrap_calibration_test` with ``measure="ece_confidence"``: the same statistic
    and the same null *distribution*, drawn by a cheaper route. Under :math:`H_0` the resampled
    label :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)` equals the predicted class
    :math:`\arg\max_k \hat p_{ik}` with probability :math:`c_i = \max_k \hat p_{ik}`, and
    :math:`\mathrm{ECE}_{conf}` depends on the data only through the confidences and these hits;
    so a replicate draws N indices, gathers their confidences and bins (computed once) and draws
    N Bernoulli(:math:`c_i`) hits, instead of gathering (N, K) predictions, drawing K-class
    labels and re-binning (24 s → under 2 s for 100 replicates at N = 10⁶, K = 10). The random
    stream is another one, so the null samples and p-values differ from those of
    :func:`bootstrap_calibration_test` with the same seed (only in Monte Carlo error; the tests
    compare the two distributions). ``seed``, ``n_jobs`` and ``chunk_size``: see
    :mod:`credalbook.stats.null_distribution`.

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting,
    2007. Vaicenavicius et al. Evaluating model calibration in classification. AISTATS 2019.
    """
    from credalbook.metrics.binning import equal_width_bin_index
    from credalbook.metrics.classification import ece_confidence_batched

    conf = np.ascontiguousarray(p.max(axis=-1))
    bins = equal_width_bin_index(conf, n_bins)
    bins = bins.astype(np.uint8 if n_bins <= 256 else np.intp)  # a small table gathers faster
    null = resample_null(
        _top_label_null,
        n_resamples,
        seed=seed,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        args=(conf, bins, n_bins, resample),
    )
    t = float(ece_confidence_batched(p, y, n_bins))
    return _result(
        t,
        null,
        alpha,
        f"ECE_conf (B={n_bins})",
        [1.0],
        None,
        1,
        rule,
        method="consistency",
        details={"n": p.shape[0], "M": 1, "K": p.shape[1], "resample": resample, "null": "top-label hits"},
    )


@renamed(n_bootstrap="n_resamples")
def set_calibration_test(
    ens_probs,
    labels,
    *,
    measure="ece_confidence",
    n_bins: int = 10,
    n_resamples: int = 100,
    alpha: float = 0.05,
    solver: str = "auto",
    from_logits: bool = False,
    seed=None,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
    **options,
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
    measure : str, CalibrationMeasure or callable, default "ece_confidence"
        :math:`g`; see :func:`~credalbook.stats.as_measure` (``n_bins`` applies to built-in binned measures).
    n_resamples : int, default 100
        D, the number of null replicates (the paper's D = 100).
    alpha : float, default 0.05
    solver : str, default "auto"
        Minimiser of line 7; see :func:`~credalbook.stats.minimise_calibration_measure`. ``"auto"`` is
        the batched ``"search_descent"`` up to N·K = 10⁵ and COBYLA above (see
        :mod:`credalbook.stats.minimise`). ``"cobyla"`` gives the paper's solver at any size;
        ``"uniform"`` does not minimise (a diagnostic).
    from_logits : bool, default False
        ``ens_probs`` holds logits (N, M, K): softmax over the classes in float64 first. Inputs
        may be NumPy arrays or torch tensors (CPU/CUDA, float16/32/64).
    seed : int, numpy Generator or None
    n_jobs : int or None
        Joblib's ``n_jobs`` for the chunks of the null sample (None: joblib's default); the values
        do not depend on it.
    chunk_size : int or None, default ``NULL_CHUNK`` (50)
        Replicates per independently seeded chunk; None: one random stream (the layout before
        version 0.6). See :mod:`credalbook.stats.null_distribution`.
    **options
        The less common options (:class:`SetTestOptions`):

        - ``solver_options`` (dict, optional): see :func:`~credalbook.stats.minimise_calibration_measure`.
        - ``weight_prior`` ({"uniform", "sparse"}, default "uniform"): see
          :func:`~credalbook.stats.set_null_distribution`.
        - ``resample`` ({"bootstrap", "permutation"}, default "bootstrap"): how the null replicates draw the
          instances.
        - ``rule`` ({"t", "abs"}, default "t"): the decision of line 8, :math:`t > q_{1-\alpha}` (the paper) or
          :math:`|t| > q_{1-\alpha}` (the authors' code; see :data:`DECISION_RULES`).

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
    >>> res = set_calibration_test(ens, y, n_resamples=100, seed=0)
    >>> res.rejected, res.weights.shape, bool(res.statistic <= res.threshold)
    (False, (2,), True)
    >>> set_calibration_test(ens[:, :1], y, n_resamples=100, seed=0).rejected
    True
    """
    opts = SetTestOptions.from_options(**options)
    g = as_measure(measure, n_bins=n_bins)
    ens, y = _check_set(as_predictions(ens_probs, "ens_probs", from_logits=from_logits, ndim=3), labels, g)
    alpha = check_probability(alpha, "alpha")
    n_resamples = check_null_args(n_resamples, opts.weight_prior, opts.resample)
    check_choice(solver, "solver", SOLVERS)
    n_jobs, chunk_size = check_n_jobs(n_jobs), check_chunk_size(chunk_size)
    rng = as_rng(seed)
    null = null_replicates(ens, g.func, n_resamples, opts.weight_prior, opts.resample, rng, n_jobs, chunk_size)
    best = minimise_calibration_measure(ens, y, measure=g, solver=solver, solver_options=opts.solver_options, seed=rng)
    one = ens.shape[1] == 1
    return _result(
        best.value,
        null,
        alpha,
        g.name,
        best.weights,
        None if one else best.solver,
        best.n_evaluations,
        opts.rule,
        method="consistency" if one else "set",
        details={"n": ens.shape[0], "M": ens.shape[1], "K": ens.shape[2], "resample": opts.resample},
    )


@renamed(n_bootstrap="n_resamples")
def bootstrap_calibration_test(
    probs,
    labels,
    *,
    measure="ece_confidence",
    n_bins: int = 10,
    n_resamples: int = 100,
    alpha: float = 0.05,
    resample: str = "bootstrap",
    rule: str = "t",
    from_logits: bool = False,
    seed=None,
    n_jobs=None,
    chunk_size=NULL_CHUNK,
) -> CalibrationTestResult:
    r"""Consistency-resampling calibration test of one classifier (Vaicenavicius et al., 2019).

    The null distribution comes from D replicates that resample the instances and draw labels
    :math:`y^*_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)`; :math:`H_0` (calibration in the measure's
    sense) is rejected when :math:`g(\hat{\mathbf p}, \mathcal D)` exceeds their :math:`(1-\alpha)`
    quantile. This is :func:`set_calibration_test` with a single member (Mortier et al., Sec. 4.2):
    the same seed gives the same null sample.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    labels : array-like of int, shape (N,)
    measure, n_bins, n_resamples, alpha, resample, rule, from_logits, seed, n_jobs, chunk_size
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
    if is_binary_scores(probs):
        labels = check_binary_labels(labels, len(p))
    return set_calibration_test(
        p[:, None, :],
        labels,
        measure=measure,
        n_bins=n_bins,
        n_resamples=n_resamples,
        alpha=alpha,
        resample=resample,
        rule=rule,
        seed=seed,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
    )
