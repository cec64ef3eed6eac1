r"""Calibration tests based on the squared kernel calibration error (Widmann et al. 2019, 2021).

With residuals :math:`\mathbf r_i = \hat{\mathbf p}_i - \mathbf e_{y_i}` and a scalar kernel
:math:`k` (matrix kernel :math:`\Gamma = k\,\mathbf I_K`), the SKCE estimators of
:mod:`credalbook.metrics.kernel` (the one SKCE of the package) average the pair terms

.. math::
    h_{ij} = \mathbf r_i^\top \Gamma(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,\mathbf r_j ,

whose mean is zero for every pair :math:`i \ne j` under :math:`H_0` (the model is calibrated in the
strong sense). Three tests, as in CalibrationTests.jl (devmotion/CalibrationTests.jl@fa3fcac):

``estimator="linear"`` / ``"block"``, ``null="asymptotic"``
    The block estimator (blocks of m instances; m = 2 is the linear estimator of Eq. 8) averages
    :math:`B = \lfloor N/m\rfloor` independent, identically distributed block U-statistics
    :math:`u_b`, so by the central limit theorem
    :math:`z = \bar u / (s_u/\sqrt B)` is asymptotically standard normal under :math:`H_0` and
    :math:`p = 1 - \Phi(z)` (Widmann et al. 2019, Sec. 5 and Cor. C.1 for m = 2; Widmann et al.
    2021, Sec. 5 for blocks). This is ``AsymptoticBlockSKCETest`` of
    ``src/skce/asymptotic_block.jl``: the estimate, its standard error
    :math:`s_u/\sqrt B` from the sample variance of the block values, the z-statistic and
    ``StatsFuns.normccdf(z)``.
``estimator="quadratic"``, ``null="bootstrap"``
    The unbiased quadratic estimator :math:`\widehat{SKCE}_{uq}` is a *degenerate* U-statistic
    under :math:`H_0`; :math:`N\widehat{SKCE}_{uq}` converges to a weighted sum of
    :math:`\chi^2` variables, approximated by the bootstrap of degenerate U-statistics (Arcones &
    Giné 1992; Widmann et al. 2019, Sec. 5 and Thm. C.2). As in ``AsymptoticSKCETest`` of
    ``src/skce/asymptotic.jl`` (functions ``estimate_statistic_kernelmatrix`` and
    ``bootstrap_ccdf``), with the kernel matrix :math:`H = (h_{ij})` including the diagonal,
    the statistic is

    .. math::
        T = \frac{N}{N-1}\widehat{SKCE}_{uq} - \widehat{SKCE}_b, \qquad
        \widehat{SKCE}_b = \frac1{N^2}\sum_{i,j} h_{ij},

    and each bootstrap replicate with resampling counts :math:`C_i` (a multinomial draw of N
    instances with replacement) gives

    .. math::
        T^* = \frac1{N^2}\sum_{i,j} C_i\Big(\frac{N}{N-1}(C_j - \delta_{ij}) - 2\Big) h_{ij}.

    Here the p-value is :math:`(1 + \#\{T^* \ge T\})/(1 + R)` (the package's convention, never
    zero) where the Julia code returns :math:`\#\{T^* \ge T\}/R`. :math:`H` is held in memory up to
    N = 4096 and computed in row tiles otherwise (memory O(N·R/chunks), time O(N²R)).
``null="distribution_free"``
    Hoeffding's inequality for U-statistics with terms bounded by :math:`|h_{ij}| \le B`:
    :math:`p = \exp(-n_{\mathrm{eff}}\,\max(\widehat{SKCE}, 0)^2 / (2B^2))` with
    :math:`n_{\mathrm{eff}} = \lfloor N/m\rfloor\lfloor m/2\rfloor` (:math:`\lfloor N/2\rfloor`
    for the linear and quadratic estimators; Widmann et al. 2019, Lemma/Thm. D.1-D.2;
    ``DistributionFreeSKCETest`` of ``src/skce/distribution_free.jl``, which uses
    :math:`\lfloor N/2\rfloor` for every block size and squares negative estimates too; here a
    negative estimate gives p = 1, the bound for :math:`t \le 0`). For the built-in scalar kernels
    (:math:`0 < k \le 1`) and one-hot targets, :math:`|h_{ij}| \le \lVert\mathbf r_i\rVert
    \lVert\mathbf r_j\rVert \le 2`, so B = 2 (the Julia ``uniformbound`` of an exponential kernel
    times the white kernel, doubled); other kernels need ``bound=``. Valid for every N but
    conservative.

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019 (Sec. 5; App. C-D). Widmann, Lindsten, Zachariah. Calibration tests beyond
classification. ICLR 2021 (block estimator). Arcones, Giné. On the bootstrap of U and V
statistics. Ann. Statist. 20(2), 1992. D. Widmann, CalibrationTests.jl,
https://github.com/devmotion/CalibrationTests.jl (``src/skce/*.jl``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from credalbook._parallel import run_chunks
from credalbook._validation import (
    as_predictions,
    check_binary_labels,
    check_choice,
    check_labels,
    check_positive_float,
    check_positive_int,
    check_probability,
    check_seed,
    is_binary_scores,
)
from credalbook._validation import lazy_scipy_stats as stats
from credalbook.metrics.kernel import skce_batched
from credalbook.metrics.kernels import as_kernel, LaplacianKernel, median_heuristic, ScalarKernel
from credalbook.metrics.skce_core import skce_pair_term, skce_residuals
from credalbook.stats.result import critical_value, exceeds, TestResult

__all__ = [
    "SKCETestOptions",
    "SKCE_TEST_ESTIMATORS",
    "SKCE_NULLS",
    "skce_test",
    "skce_block_values",
    "skce_quadratic_statistic",
    "skce_bootstrap_null",
]

#: Estimators :func:`skce_test` accepts.
SKCE_TEST_ESTIMATORS = ("linear", "block", "quadratic")
#: Null distributions of :func:`skce_test` (None picks the one that fits the estimator).
SKCE_NULLS = ("asymptotic", "bootstrap", "distribution_free")
#: Replicates per chunk of the quadratic bootstrap (fixed, so results do not depend on ``n_jobs``).
BOOTSTRAP_CHUNK = 100
#: Largest kernel matrix H (N × N) the quadratic bootstrap holds in memory: N = 4096, 128 MiB.
_H_MAX_ELEMENTS = 1 << 24
#: Entries of H (or kernel values) per row tile otherwise.
_TILE_ELEMENTS = 1 << 21
#: Blocks per vectorised step of the block estimator with small blocks.
_BLOCK_PAIRS = 1 << 20


# --------------------------------------------------------------------------------------------
# unvalidated cores: pair terms, block values, the kernel matrix and the bootstrap
# --------------------------------------------------------------------------------------------


def skce_block_values(p: np.ndarray, y: np.ndarray, kernel, block_size: int) -> np.ndarray:
    r"""The :math:`\lfloor N/m\rfloor` block U-statistics :math:`u_b` whose mean is the block SKCE (no validation).

    ``p`` (N, K) float64, ``y`` (N,) int, ``kernel`` from :func:`~credalbook.metrics.as_kernel`,
    ``block_size`` m ≥ 2 (m = 2: the pair terms :math:`h_{2i-1,2i}` of the linear estimator).
    Instances after the last full block are ignored, as in :func:`credalbook.metrics.skce`.

    Examples
    --------
    >>> from credalbook.metrics import TVKernel, skce
    >>> rng = np.random.default_rng(0); p = rng.dirichlet(np.ones(3), 9); y = rng.integers(0, 3, 9)
    >>> u = skce_block_values(p, y, TVKernel(2.0), 3)
    >>> u.shape, bool(np.isclose(u.mean(), skce(p, y, estimator="block", block_size=3)))
    ((3,), True)
    """
    n, k = p.shape
    m = block_size
    nb = n // m
    if m == 2:
        r = skce_residuals(p, y)
        a, b = slice(0, 2 * nb, 2), slice(1, 2 * nb, 2)
        return np.asarray(skce_pair_term(np.asarray(kernel(p[a], p[b])), r[a], r[b]), dtype=np.float64)
    pb, yb = p[: nb * m].reshape(nb, m, k), y[: nb * m].reshape(nb, m)
    if m > 64:  # the tiled quadratic estimator, one data set per block
        return np.asarray(skce_batched(pb, yb, kernel, estimator="quadratic"), dtype=np.float64)
    # small blocks: all pairs i < j of every block at once, in chunks of blocks
    iu, ju = np.triu_indices(m, 1)
    rb = skce_residuals(pb, yb)
    out = np.empty(nb)
    step = max(1, _BLOCK_PAIRS // (len(iu) * k))
    for s in range(0, nb, step):
        e = min(nb, s + step)
        pa, pc = pb[s:e, iu], pb[s:e, ju]
        terms = skce_pair_term(np.asarray(kernel(pa, pc)), rb[s:e, iu], rb[s:e, ju])
        out[s:e] = terms.mean(axis=-1)
    return out


def _h_rows(p: np.ndarray, r: np.ndarray, kernel, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of the kernel matrix :math:`H_{ij} = r_i^T Γ(p_i, p_j) r_j` (diagonal included)."""
    a, r_a = p[start:stop], r[start:stop]
    if isinstance(kernel, ScalarKernel):
        return kernel.gram(a, p) * (r_a @ r.T)
    kern = np.asarray(kernel(*np.broadcast_arrays(a[:, None, :], p[None, :, :])))
    return skce_pair_term(kern, *np.broadcast_arrays(r_a[:, None, :], r[None, :, :]))


def _tiles(n: int, kernel, k: int):
    per_row = n * (1 if isinstance(kernel, ScalarKernel) else k * k)
    rows = max(1, _TILE_ELEMENTS // per_row)
    return [(s, min(n, s + rows)) for s in range(0, n, rows)]


def _h_matrix(p, r, kernel) -> np.ndarray | None:
    """The whole kernel matrix H when it holds at most ``_H_MAX_ELEMENTS`` entries, else None."""
    n = len(p)
    if n * n > _H_MAX_ELEMENTS:
        return None
    return np.concatenate([_h_rows(p, r, kernel, s, e) for s, e in _tiles(n, kernel, p.shape[1])])


def skce_quadratic_statistic(p: np.ndarray, y: np.ndarray, kernel, h: np.ndarray | None = None) -> tuple[float, float]:
    r"""(:math:`\widehat{SKCE}_{uq}`, :math:`T = \tfrac{N}{N-1}\widehat{SKCE}_{uq} - \widehat{SKCE}_b`) (no validation).

    ``h`` is the kernel matrix if it was already computed; otherwise the sums are taken over row
    tiles. :math:`T` is the statistic of ``estimate_statistic_kernelmatrix`` in
    CalibrationTests.jl (``src/skce/asymptotic.jl``).

    Examples
    --------
    >>> from credalbook.metrics import TVKernel, skce_uq
    >>> rng = np.random.default_rng(0); p = rng.dirichlet(np.ones(3), 20); y = rng.integers(0, 3, 20)
    >>> est, t = skce_quadratic_statistic(p, y, TVKernel(2.0))
    >>> bool(np.isclose(est, skce_uq(p, y)))
    True
    """
    n = len(p)
    r = skce_residuals(p, y)
    if h is not None:
        total, trace = float(h.sum()), float(np.trace(h))
    else:
        total = trace = 0.0
        for s, e in _tiles(n, kernel, p.shape[1]):
            rows = _h_rows(p, r, kernel, s, e)
            total += float(rows.sum())
            trace += float(np.einsum("ii->", rows[:, s:e]))
    estimate = (total - trace) / (n * (n - 1))
    return estimate, n / (n - 1) * estimate - total / (n * n)


def _bootstrap_chunk(size: int, rng: np.random.Generator, p, r, kernel, h) -> np.ndarray:
    """``size`` bootstrap replicates :math:`T^*` (``bootstrap_ccdf`` of CalibrationTests.jl), vectorised."""
    n = len(r)
    idx = rng.integers(0, n, size=(size, n))
    counts = np.bincount((idx + n * np.arange(size)[:, None]).ravel(), minlength=size * n)
    counts = counts.reshape(size, n).astype(np.float64)
    if h is not None:
        ch, diag, rowsum = counts @ h, np.diagonal(h), h.sum(axis=1)
    else:  # H is symmetric: (C H)[:, rows] = C @ H[rows].T
        ch, diag, rowsum = np.empty((size, n)), np.empty(n), np.empty(n)
        for s, e in _tiles(n, kernel, p.shape[1]):
            rows = _h_rows(p, r, kernel, s, e)
            ch[:, s:e] = counts @ rows.T
            diag[s:e] = rows[np.arange(e - s), np.arange(s, e)]
            rowsum[s:e] = rows.sum(axis=1)
    quad = np.einsum("bi,bi->b", ch, counts)
    return (n / (n - 1) * (quad - counts @ diag) - 2.0 * (counts @ rowsum)) / (n * n)


def skce_bootstrap_null(
    p: np.ndarray, y: np.ndarray, kernel, n_resamples: int, *, seed=None, n_jobs=None, h: np.ndarray | None = None
) -> np.ndarray:
    r"""R bootstrap replicates of :math:`T` under :math:`H_0` (Arcones & Giné 1992), in chunks (no validation).

    Chunks of ``BOOTSTRAP_CHUNK`` replicates, seeded by ``credalbook._parallel.run_chunks``, so
    the values do not depend on ``n_jobs``.
    """
    r = skce_residuals(p, y)
    if h is None:
        h = _h_matrix(p, r, kernel)
    return run_chunks(
        _bootstrap_chunk, n_resamples, seed=seed, chunk_size=BOOTSTRAP_CHUNK, n_jobs=n_jobs, args=(p, r, kernel, h)
    )


# --------------------------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------------------------


def _default_null(estimator: str) -> str:
    return "bootstrap" if estimator == "quadratic" else "asymptotic"


def _check_bound(bound, kernel) -> float:
    if bound is not None:
        return check_positive_float(bound, "bound")
    if isinstance(kernel, ScalarKernel):
        return 2.0
    raise ValueError(
        "bound must be given for the distribution-free test with a user kernel: a number B with "
        "|r_i^T Γ(p_i, p_j) r_j| <= B for all predictions and labels (2 sup|Γ| for one-hot labels)"
    )


@dataclass(frozen=True)
class SKCETestOptions:
    """The options of :func:`skce_test` that only some of its tests use (its ``**options``).

    Examples
    --------
    >>> SKCETestOptions.from_options(block_size=10).bound is None
    True
    """

    block_size: int = 2
    bound: float | None = None

    @classmethod
    def from_options(cls, **options) -> SKCETestOptions:
        """The options, with a TypeError naming an unknown one (values are checked where they are used)."""
        unknown = sorted(set(options) - {"block_size", "bound"})
        if unknown:
            raise TypeError(f"skce_test() got unexpected options {unknown}; it accepts ['block_size', 'bound']")
        return cls(**options)


def skce_test(
    probs,
    labels,
    *,
    estimator: str = "linear",
    null: str | None = None,
    kernel=None,
    bandwidth: float | None = None,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    from_logits: bool = False,
    seed=None,
    n_jobs=None,
    **options,
) -> TestResult:
    r"""SKCE calibration test of one classifier (Widmann et al. 2019): :math:`H_0`: the model is calibrated.

    Parameters
    ----------
    probs : array-like or tensor, shape (N, K)
        Predicted probabilities (or logits with ``from_logits=True``); numpy or torch (CPU/CUDA,
        float16/32/64).
    labels : array-like or tensor of int, shape (N,)
    estimator : {"linear", "block", "quadratic"}, default "linear"
        See the module docstring; ``"block"`` uses blocks of ``block_size``.
    null : {"asymptotic", "bootstrap", "distribution_free"} or None
        None: ``"asymptotic"`` (normal) for the linear and block estimators, ``"bootstrap"``
        (degenerate U-statistic) for the quadratic one. ``"distribution_free"``: Hoeffding's bound.
    kernel : callable or None
        A kernel of :func:`credalbook.metrics.skce` (:class:`~credalbook.metrics.TVKernel`,
        :class:`~credalbook.metrics.LaplacianKernel`, ..., or a user kernel). None: an exponential kernel
        :math:`k(\mathbf p, \mathbf q) = \exp(-\lVert\mathbf p - \mathbf q\rVert_2/\nu)\,\mathbf I_K`
        (``LaplacianKernel(bandwidth)``). Widmann et al. (2019, Sec. 6) use the same form with the total
        variation distance in place of the Euclidean one (``TVExponentialKernel`` of
        :mod:`credalbook.synthetic.widmann` reproduces their setting).
    bandwidth : float or None
        :math:`\nu` of the default kernel; None: the median heuristic, the median distance between
        predictions (:func:`credalbook.metrics.median_heuristic`; Widmann et al. take the median TV distance). The
        kernel then depends on the predictions only, so the tests stay valid conditionally on them.
        (The TV kernel :math:`\exp(-d_{TV}^2/2)`, the default of :func:`credalbook.metrics.skce`,
        varies little over the simplex and tests little more than
        :math:`\mathbb E[\hat{\mathbf p} - \mathbf e_Y] = 0`: against over-confident
        Dirichlet predictions it has almost no power.)
    n_resamples : int, default 1000
        R, bootstrap replicates (``null="bootstrap"``).
    alpha : float, default 0.05
    from_logits : bool, default False
        ``probs`` are logits: softmax in float64 first.
    seed : int, numpy Generator or None
        Randomness of the bootstrap.
    n_jobs : int or None
        Bootstrap chunks through joblib (``credalbook._parallel``); results do not depend on it.
    **options
        :class:`SKCETestOptions`: ``block_size`` (int, default 2: m of the block estimator,
        ``estimator="block"``, and of the distribution-free test) and ``bound`` (float, optional:
        B with :math:`|h_{ij}| \le B` for ``null="distribution_free"``; 2 for the built-in kernels).

    Returns
    -------
    TestResult
        ``statistic``: the SKCE estimate (asymptotic and distribution-free tests) or :math:`T`
        (bootstrap); ``null_model``: the normal :math:`N(0, \mathrm{se}^2)` of the asymptotic test;
        ``null_distribution``: the bootstrap replicates :math:`T^*`; ``details``: ``n``, ``K``,
        ``estimator``, ``null``, ``kernel``, ``estimate`` and the test's own numbers (``z``,
        ``stderr``, ``n_blocks``, ``bound``, ``n_effective``, ``n_resamples``).

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019, Sec. 5 and App. C-D; Widmann et al., ICLR 2021;
    CalibrationTests.jl, ``src/skce/asymptotic.jl`` (``AsymptoticSKCETest``),
    ``src/skce/asymptotic_block.jl`` (``AsymptoticBlockSKCETest``),
    ``src/skce/distribution_free.jl`` (``DistributionFreeSKCETest``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=2000)
    >>> y = (rng.random(2000)[:, None] > p.cumsum(1)).sum(1)            # labels drawn from p
    >>> over = p**3 / (p**3).sum(1, keepdims=True)                      # over-confident copy
    >>> skce_test(p, y).rejected, skce_test(over, y).rejected
    (False, True)
    >>> res = skce_test(over[:300], y[:300], estimator="quadratic", n_resamples=200, seed=0)
    >>> res.null_distribution.shape, res.rejected
    ((200,), True)
    """
    opts = SKCETestOptions.from_options(**options)
    null = _check_estimator_null(estimator, null)
    alpha = check_probability(alpha, "alpha")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    check_seed(seed)
    p = as_predictions(probs, "probs", from_logits=from_logits)
    y = (
        check_binary_labels(labels, len(p))
        if is_binary_scores(probs)
        else check_labels(labels, n_classes=p.shape[1], shape=p.shape[:1])
    )
    n, k = p.shape
    kern = _resolve_kernel(p, kernel, bandwidth)
    m = _resolve_block_size(estimator, null, n, opts.block_size)
    details = {"n": n, "K": k, "estimator": estimator, "null": null, "kernel": repr(kern)}
    if estimator == "block":
        details["block_size"] = m
    if null == "bootstrap":
        return _bootstrap_test(p, y, kern, alpha, n_resamples, seed, n_jobs, details)
    if estimator == "quadratic":
        values, n_blocks, estimate = None, 1, skce_quadratic_statistic(p, y, kern)[0]
    else:
        values = skce_block_values(p, y, kern, m)
        n_blocks, estimate = len(values), float(values.mean())
    if null == "distribution_free":
        return _distribution_free_test(estimate, n_blocks * (m // 2), _check_bound(opts.bound, kern), alpha, details)
    return skce_asymptotic_test(values, estimate, estimator, alpha, details)


def _check_estimator_null(estimator: str, null: str | None) -> str:
    """The null distribution of :func:`skce_test` (None: the one that fits ``estimator``), checked against it."""
    check_choice(estimator, "estimator", SKCE_TEST_ESTIMATORS)
    null = _default_null(estimator) if null is None else check_choice(null, "null", SKCE_NULLS)
    if null == "bootstrap" and estimator != "quadratic":
        raise ValueError(
            f"null='bootstrap' is the bootstrap of the quadratic estimator; use estimator='quadratic' "
            f"(or null='asymptotic' with estimator={estimator!r})"
        )
    if null == "asymptotic" and estimator == "quadratic":
        raise ValueError(
            "the quadratic estimator is a degenerate U-statistic without a normal limit under H0; "
            "use null='bootstrap' (or estimator='linear'/'block' with null='asymptotic')"
        )
    return null


def _resolve_kernel(p: np.ndarray, kernel, bandwidth):
    """The kernel of :func:`skce_test`: ``kernel``, or a Laplacian kernel with ``bandwidth`` (None: the median heuristic)."""
    if kernel is not None:
        return as_kernel(kernel)
    return LaplacianKernel(
        median_heuristic(p)
        if bandwidth is None and len(p) >= 2
        else check_positive_float(1.0 if bandwidth is None else bandwidth, "bandwidth")
    )


def _resolve_block_size(estimator: str, null: str, n: int, block_size) -> int:
    """m of the estimator (2 linear, N quadratic, ``block_size`` block), checked against the N instances it needs."""
    m = {"linear": 2, "quadratic": n}.get(estimator) or check_positive_int(block_size, "block_size", minimum=2)
    min_n = 2 * m if null == "asymptotic" else m
    if n < max(min_n, 2):
        raise ValueError(
            f"probs must hold at least {max(min_n, 2)} instances for estimator={estimator!r} with "
            f"null={null!r} (block_size = {m}); got N = {n}"
        )
    return m


def _bootstrap_test(p, y, kern, alpha: float, n_resamples: int, seed, n_jobs, details: dict) -> TestResult:
    """The quadratic estimator's test against the bootstrap of its degenerate U-statistic."""
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    h = _h_matrix(p, skce_residuals(p, y), kern)
    estimate, t = skce_quadratic_statistic(p, y, kern, h)
    t_null = skce_bootstrap_null(p, y, kern, n_resamples, seed=seed, n_jobs=n_jobs, h=h)
    pvalue = (1 + np.count_nonzero(t_null >= t)) / (1 + n_resamples)
    threshold = critical_value(t_null, alpha)
    return TestResult(
        statistic=float(t),
        pvalue=float(pvalue),
        alpha=alpha,
        rejected=exceeds(t, threshold),
        method="skce_quadratic",
        null_distribution=t_null,
        threshold=threshold,
        details={**details, "estimate": estimate, "n_resamples": n_resamples},
    )


def _distribution_free_test(estimate: float, n_eff: int, b: float, alpha: float, details: dict) -> TestResult:
    """Hoeffding's bound for U-statistics with terms bounded by ``b`` and ``n_eff`` independent pairs."""
    pvalue = math.exp(-n_eff * max(estimate, 0.0) ** 2 / (2.0 * b * b))
    threshold = b * math.sqrt(2.0 * math.log(1.0 / alpha) / n_eff)
    return TestResult(
        statistic=estimate,
        pvalue=pvalue,
        alpha=alpha,
        rejected=exceeds(estimate, threshold),
        method="skce_distribution_free",
        threshold=threshold,
        details={**details, "estimate": estimate, "bound": b, "n_effective": n_eff},
    )


def skce_asymptotic_test(
    values: np.ndarray, estimate: float, estimator: str, alpha: float, details: dict
) -> TestResult:
    """The normal limit of the mean of the block values (the linear and block estimators): the test of
    :func:`skce_test` from its block values (an engine: no validation)."""
    n_blocks = len(values)
    stderr = float(values.std(ddof=1) / math.sqrt(n_blocks))
    if stderr > 0:
        z = estimate / stderr
        pvalue, model, threshold = (
            float(stats.norm.sf(z)),
            stats.norm(0.0, stderr),
            stderr * float(stats.norm.isf(alpha)),
        )
    else:  # every block value equal: no variance to test against
        z, pvalue, model, threshold = (math.inf if estimate > 0 else 0.0), float(estimate <= 0), None, 0.0
    return TestResult(
        statistic=estimate,
        pvalue=pvalue,
        alpha=alpha,
        rejected=exceeds(estimate, threshold),
        method=f"skce_{estimator}",
        null_model=model,
        threshold=threshold,
        details={**details, "estimate": estimate, "z": z, "stderr": stderr, "n_blocks": n_blocks},
    )
