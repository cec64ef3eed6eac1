r"""The generative models of Widmann, Lindsten & Zachariah (2019) and the empirical errors of calibration tests on them.

Labeled predictions :math:`(g(X), Y)` without inputs :math:`X` (Widmann et al. 2019, Sec. 6 and
App. A.2, "Generative models"):

.. math::
    g(X) \sim \mathrm{Dir}(\alpha_i \mathbf 1_m), \qquad Z \sim \mathrm{Ber}(\pi), \qquad
    Y \mid Z = 1, g(X) = \boldsymbol\gamma \sim \mathrm{Cat}(\boldsymbol\beta), \qquad
    Y \mid Z = 0, g(X) = \boldsymbol\gamma \sim \mathrm{Cat}(\boldsymbol\gamma),

with :math:`\boldsymbol\beta = (1, 0, \ldots, 0)` ("only_firstclass") or
:math:`(1/m, \ldots, 1/m)`. Hence :math:`P(Y = y \mid g(X)) = \pi\beta_y + (1 - \pi) g_y(X)`: the
model is calibrated if and only if :math:`\pi = 0`, and its calibration error is
:math:`\Delta = \pi(\boldsymbol\beta - g(X))`.

The paper's figures (``paper/figures.jl`` of devmotion/CalibrationPaper) use :math:`m = 10`
classes, :math:`\alpha_i = 0.1`, data sets of N = 250 and :math:`10^4` data sets per model:

========  ========  ===================  =========================================
model     pi        beta                 labels
========  ========  ===================  =========================================
``M1``    0         (unused)             :math:`\mathrm{Cat}(g(X))` (calibrated)
``M2``    0.5       (1, 0, ..., 0)       :math:`0.5\,\mathrm{Cat}(g(X)) + 0.5\,\mathrm{Cat}(\mathbf e_1)`
``M3``    1         (1/m, ..., 1/m)      :math:`\mathrm{Cat}(1/m, \ldots, 1/m)`
========  ========  ===================  =========================================

The kernel of the paper is :math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)/\nu)
\mathbf I_m` with :math:`d_{TV} = \tfrac12\lVert\mathbf p - \mathbf q\rVert_1` and the bandwidth
:math:`\nu` either the median of the N×N matrix of pairwise TV distances of the data set (the
"median heuristic", diagonal zeros included as in ``median_TV_distance`` of
``src/kernels.jl``) or the model's mean TV distance (App. A.2.3).

References
----------
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying framework.
NeurIPS 2019, Sec. 6 (models M1-M3, Fig. 2) and App. A.2 (generative models, analytic ECE, mean TV
distance). Code and data: https://github.com/devmotion/CalibrationPaper (commit a164e8b):
``src/model.jl``, ``src/kernels.jl``, ``experiments/scripts/pvalues.jl``, ``paper/figures.jl``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special
from scipy.spatial.distance import cdist

from credalbook._deprecation import renamed
from credalbook._parallel import run_chunks
from credalbook._random import dirichlet, draw_labels
from credalbook._validation import (
    as_rng,
    check_choice,
    check_positive_float,
    check_positive_int,
    check_probability,
    check_probs,
    check_seed,
)
from credalbook._validation import lazy_scipy_stats as stats

__all__ = [
    "WIDMANN_MODELS",
    "WidmannModel",
    "widmann_model",
    "TVExponentialKernel",
    "median_tv_distance",
    "WidmannTestErrors",
    "widmann_test_errors",
]

#: The three models of the paper's Sec. 6 (m = 10, α_i = 0.1): keyword arguments of :func:`widmann_model`.
WIDMANN_MODELS = {
    "M1": {"n_classes": 10, "alpha_i": 0.1, "pi": 0.0, "only_firstclass": False},
    "M2": {"n_classes": 10, "alpha_i": 0.1, "pi": 0.5, "only_firstclass": True},
    "M3": {"n_classes": 10, "alpha_i": 0.1, "pi": 1.0, "only_firstclass": False},
}
#: Bandwidth rules of the paper's kernel.
BANDWIDTHS = ("median", "mean")


@dataclass(frozen=True)
class TVExponentialKernel:
    r"""The exponential kernel in the TV distance, :math:`k(\mathbf p, \mathbf q) = \exp(-d_{TV}(\mathbf p, \mathbf q)/\nu)`.

    :math:`d_{TV}(\mathbf p, \mathbf q) = \tfrac12\lVert\mathbf p - \mathbf q\rVert_1`.

    The kernel of Widmann et al. (2019, Sec. 6 and App. A.1.2) (``ExponentialKernel(1/ν,
    TotalVariation())`` of CalibrationErrors.jl), with ``bandwidth`` :math:`\nu`: a callable
    ``kernel(p, q)`` on paired rows (..., K) → (...), as the SKCE estimators and tests of
    :mod:`credalbook.metrics` and :mod:`credalbook.stats` accept (matrix kernel
    :math:`k\,\mathbf I_K`; :math:`0 < k \le 1`, so the pair terms are bounded by 2, the
    ``bound`` of the distribution-free test).

    Examples
    --------
    >>> round(float(TVExponentialKernel(0.5)(np.array([1.0, 0.0]), np.array([0.0, 1.0]))), 6)   # exp(-1/0.5)
    0.135335
    """

    bandwidth: float

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", check_positive_float(self.bandwidth, "bandwidth"))

    def __call__(self, p, q) -> np.ndarray:
        d = 0.5 * np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum(axis=-1)
        return np.exp(-d / self.bandwidth)

    def gram(self, a, b) -> np.ndarray:
        """k between all rows of ``a`` (n, K) and ``b`` (m, K) → (n, m)."""
        d = cdist(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), "cityblock")
        d *= -0.5 / self.bandwidth
        return np.exp(d, out=d)


def median_tv_distance(probs) -> float:
    r"""The median heuristic of Widmann et al. (2019): median of the N×N matrix of TV distances, diagonal included.

    As ``median_TV_distance`` in ``src/kernels.jl`` of devmotion/CalibrationPaper, the median is
    taken over all :math:`N^2` entries :math:`d_{TV}(\mathbf p_i, \mathbf p_j)` (the N zeros of
    the diagonal and every pair twice), not over the pairs i < j.

    Parameters
    ----------
    probs : array-like, shape (N, K) or (R, N, K)
        One data set, or R of them (one median each); N = 1 gives 0.

    Examples
    --------
    >>> median_tv_distance([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])   # 0, 0, 0, .5, .5, .5, .5, 1, 1
    0.5
    """
    p = check_probs(probs)
    if p.ndim > 3:
        raise ValueError(f"probs must have shape (N, K) or (R, N, K); got {p.shape}")
    if p.ndim == 3:
        return np.array([_median_tv(x) for x in p])
    return _median_tv(p)


def _median_tv(p: np.ndarray) -> float:
    return float(np.median(0.5 * cdist(p, p, "cityblock")))


@dataclass(frozen=True)
class WidmannModel:
    r"""One generative model :math:`(\alpha_i, \pi, \boldsymbol\beta)` of Widmann et al. (2019, App. A.2).

    Attributes
    ----------
    n_classes : int
        m.
    alpha_i : float
        Dirichlet parameter of every class: :math:`g(X) \sim \mathrm{Dir}(\alpha_i\mathbf 1_m)`.
    pi : float
        Probability :math:`\pi` that the label is drawn from :math:`\boldsymbol\beta` instead of
        :math:`g(X)`; 0 gives a calibrated model.
    only_firstclass : bool
        :math:`\boldsymbol\beta = \mathbf e_1` if true, else :math:`(1/m, \ldots, 1/m)`.
    name : str
        ``"M1"``, ``"M2"``, ``"M3"`` for the paper's models, else ``""``.
    """

    n_classes: int
    alpha_i: float
    pi: float
    only_firstclass: bool
    name: str = field(default="", compare=False, repr=False)

    @property
    def calibrated(self) -> bool:
        """True if and only if :math:`\\pi = 0`."""
        return self.pi == 0.0

    @property
    def beta(self) -> np.ndarray:
        r""":math:`\boldsymbol\beta` (m,)."""
        if self.only_firstclass:
            return np.eye(self.n_classes)[0]
        return np.full(self.n_classes, 1.0 / self.n_classes)

    def conditional_probs(self, probs) -> np.ndarray:
        r""":math:`P(Y = \cdot \mid g(X) = \mathbf p) = \pi\boldsymbol\beta + (1 - \pi)\mathbf p`, for rows (..., m)."""
        return self.pi * self.beta + (1.0 - self.pi) * np.asarray(probs, dtype=np.float64)

    def ece_tv(self) -> float:
        r"""The analytic ECE w.r.t. the TV distance, :math:`\mathbb E\lVert\Delta\rVert_{TV}` (App. A.2.2).

        .. math::
            \mathrm{ECE} = \pi\sum_{i=1}^m\Big(\beta_i I(\beta_i; a, (m-1)a)
            - \tfrac1m I(\beta_i; a + 1, (m-1)a)\Big),

        :math:`I` the regularised incomplete Beta function: :math:`\pi(m-1)/m` for
        :math:`\boldsymbol\beta = \mathbf e_1`; :math:`\pi\,((m-1)^{m-1}/m^m)^a / (a B(a, (m-1)a))`
        for the uniform :math:`\boldsymbol\beta` (``analytic_ece`` of ``src/model.jl``).
        """
        a, m, b = self.alpha_i, self.n_classes, self.beta
        terms = b * special.betainc(a, (m - 1) * a, b) - special.betainc(a + 1, (m - 1) * a, b) / m
        return float(self.pi * terms.sum())

    def mean_tv_distance(self) -> float:
        r""":math:`\mathbb E\,d_{TV}(g(X), g(X'))` for independent predictions (App. A.2.3).

        .. math::
            \frac{2 B(\alpha_0, \alpha_0)}{\alpha_0} \sum_{i=1}^m
            \big[B(\alpha_i, \alpha_i) B(\alpha_0 - \alpha_i, \alpha_0 - \alpha_i)\big]^{-1},
            \qquad \alpha_0 = m\alpha_i

        (``mean_TV_distance`` of ``src/kernels.jl``), the bandwidth of the "mean" kernel.
        """
        a, m = self.alpha_i, self.n_classes
        a0, r = m * a, (m - 1) * a
        return float(2.0 / a * math.exp(special.betaln(a0, a0) - special.betaln(a, a) - special.betaln(r, r)))

    def sample(self, n_instances: int = 250, *, n_datasets: int | None = None, seed=None):
        r"""Draw labeled predictions: ``probs`` (N, m) and ``labels`` (N,), or (R, N, m) and (R, N) for R data sets.

        All R·N instances are drawn at once: :math:`g(X)` from the (underflow-safe) Dirichlet sampler
        of ``credalbook._random``, :math:`Z \sim \mathrm{Ber}(\pi)`, the label from
        :math:`\boldsymbol\beta` where :math:`Z = 1` and from :math:`g(X)` otherwise (as
        ``Random.rand!`` in ``experiments/scripts/pvalues.jl``, lines 97-140). Seeded by ``seed``.

        Examples
        --------
        >>> p, y = widmann_model("M2").sample(250, n_datasets=3, seed=0)
        >>> p.shape, y.shape, bool(np.allclose(p.sum(-1), 1))
        ((3, 250, 10), (3, 250), True)
        """
        n = check_positive_int(n_instances, "n_instances")
        shape = (n,) if n_datasets is None else (check_positive_int(n_datasets, "n_datasets"), n)
        rng = as_rng(seed)
        probs = dirichlet(np.full(self.n_classes, self.alpha_i), rng, shape)
        labels = draw_labels(probs, rng)
        if self.pi > 0:
            z = rng.random(shape) < self.pi
            fixed = 0 if self.only_firstclass else rng.integers(0, self.n_classes, size=shape)
            labels = np.where(z, fixed, labels)
        return probs, labels.astype(np.int64)


def widmann_model(
    name: str | None = None,
    *,
    n_classes: int = 10,
    alpha_i: float = 0.1,
    pi: float = 0.0,
    only_firstclass: bool = False,
) -> WidmannModel:
    r"""A generative model of Widmann et al. (2019): one of ``"M1"``, ``"M2"``, ``"M3"``, or its parameters.

    Parameters
    ----------
    name : {"M1", "M2", "M3"} or None
        The paper's models (:data:`WIDMANN_MODELS`); the keyword arguments are then ignored.
    n_classes : int, default 10
    alpha_i : float, default 0.1
    pi : float in [0, 1], default 0
    only_firstclass : bool, default False

    Examples
    --------
    >>> widmann_model("M2")
    WidmannModel(n_classes=10, alpha_i=0.1, pi=0.5, only_firstclass=True)
    >>> round(widmann_model("M3").ece_tv(), 4), widmann_model("M2").ece_tv()
    (0.7106, 0.45)
    """
    if name is not None:
        check_choice(name, "name", tuple(WIDMANN_MODELS))
        return WidmannModel(**WIDMANN_MODELS[name], name=name)
    n_classes = check_positive_int(n_classes, "n_classes", minimum=2)
    alpha_i = check_positive_float(alpha_i, "alpha_i")
    pi = check_probability(pi, "pi", open_interval=False)
    if not isinstance(only_firstclass, (bool, np.bool_)):
        raise TypeError(f"only_firstclass must be True or False; got {only_firstclass!r}")
    return WidmannModel(n_classes, alpha_i, pi, bool(only_firstclass))


@dataclass(frozen=True)
class WidmannTestErrors:
    r"""Empirical test errors of a calibration test on R data sets of a :class:`WidmannModel`.

    ``errors[j]`` is :math:`\#\{p_r \le \alpha_j\}/R` (type I error) for a calibrated model and
    :math:`\#\{p_r > \alpha_j\}/R` (type II error) otherwise, as in Widmann et al. (2019, Sec. 6).
    """

    model: WidmannModel
    test: object
    bandwidth: str | float | None
    n_instances: int
    p_values: np.ndarray
    alphas: np.ndarray
    errors: np.ndarray
    kind: str
    seconds: float

    @property
    def n_datasets(self) -> int:
        return len(self.p_values)

    @renamed(level="ci")
    def band(self, ci: float = 0.999) -> np.ndarray:
        """Clopper-Pearson intervals (len(alphas), 2) of the true test errors at confidence level ``ci``."""
        ci = check_probability(ci, "ci")
        k = np.rint(self.errors * self.n_datasets).astype(int)
        out = [stats.binomtest(int(c), self.n_datasets).proportion_ci(ci, method="exact") for c in k]
        return np.array([[interval.low, interval.high] for interval in out])


def _kernel_for(probs: np.ndarray, model: WidmannModel, bandwidth) -> TVExponentialKernel:
    if bandwidth == "median":
        nu = median_tv_distance(probs)
        return TVExponentialKernel(nu if nu > 0 else 1.0)
    if bandwidth == "mean":
        return TVExponentialKernel(model.mean_tv_distance())
    return TVExponentialKernel(bandwidth)


def _error_chunk(size, rng, test, model, n_instances, bandwidth, options):
    probs, labels = model.sample(n_instances, n_datasets=size, seed=rng)
    out = np.empty(size)
    for r in range(size):
        opts = dict(options)
        if bandwidth is not None:
            opts["kernel"] = _kernel_for(probs[r], model, bandwidth)
        out[r] = float(test(probs[r], labels[r], seed=rng, **opts).pvalue)
    return out


def widmann_test_errors(
    test,
    *,
    model="M1",
    n_datasets: int = 1000,
    n_instances: int = 250,
    alphas=(0.01, 0.05, 0.1),
    bandwidth="median",
    seed=None,
    n_jobs=None,
    **options,
) -> WidmannTestErrors:
    r"""Empirical type I / type II errors of a calibration test in Widmann et al.'s setting (Sec. 6, Fig. 2).

    R data sets of ``n_instances`` labeled predictions are drawn from ``model``; the test's p-value
    :math:`p_r` is computed on each; the empirical test error at significance level
    :math:`\alpha` is :math:`\#\{p_r \le \alpha\}/R` for a calibrated model (type I) and
    :math:`\#\{p_r > \alpha\}/R` otherwise (type II) (Widmann et al. 2019, Sec. 6, Fig. 2).

    Parameters
    ----------
    test : callable
        ``test(probs, labels, *, seed, **options)`` returning a result with a ``pvalue``, e.g.
        ``functools.partial(credalbook.stats.calibration_test, method="skce_linear")``. The paper's
        tests: ``method="skce_linear"`` (:math:`\mathbf A_l`), ``"skce_quadratic"``
        (:math:`\mathbf A_{uq}`, bootstrap), ``"skce_distribution_free"`` with ``bound=2.0``
        (:math:`\mathbf D_{uq}`; with ``estimator="linear"``: :math:`\mathbf D_l`).
        (:math:`\mathbf D_b` has no counterpart in :mod:`credalbook.stats`, and
        ``method="consistency"`` resamples the top-label ECE, not the paper's ECE binned in every
        class dimension, so it is not the paper's :math:`\mathbf C`.)
    model : {"M1", "M2", "M3"} or WidmannModel, default "M1"
    n_datasets : int, default 1000
        R (the paper: :math:`10^4`).
    n_instances : int, default 250
        N of each data set (the paper: 250).
    alphas : sequence of float, default (0.01, 0.05, 0.1)
        Significance levels in [0, 1].
    bandwidth : {"median", "mean"}, float or None, default "median"
        The ``kernel=`` passed to ``test``: :class:`TVExponentialKernel` with :math:`\nu` the
        :func:`median_tv_distance` of each data set, the model's
        :meth:`WidmannModel.mean_tv_distance`, or a number; None passes no kernel (tests without
        one, or a ``kernel`` given in ``options``).
    seed : int, SeedSequence or None
        Data sets and the test's randomness (bootstrap) are drawn in chunks of 50 data sets with
        seeds spawned from ``seed`` (``credalbook._parallel.run_chunks``), so the result does
        not depend on ``n_jobs``.
    n_jobs : int or None
        Chunks through joblib.
    **options
        Passed to ``test`` (``n_resamples``, ``estimator``, ``bound``, ...).

    Returns
    -------
    WidmannTestErrors
        ``p_values`` (R,), ``alphas``, ``errors``, ``kind`` ("type_I" or "type_II"),
        ``band(ci)`` (Clopper-Pearson intervals), ``seconds`` (wall time).

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019, Sec. 6, Fig. 2; ``experiments/scripts/pvalues.jl``
    and ``paper/figures.jl`` (lines 106-198) of devmotion/CalibrationPaper.

    Examples
    --------
    >>> from functools import partial
    >>> from credalbook.stats import calibration_test
    >>> linear = partial(calibration_test, method="skce_linear")
    >>> res = widmann_test_errors(linear, model="M2", n_datasets=20, alphas=(0.05,), seed=0)
    >>> res.kind, res.errors.tolist()
    ('type_II', [0.0])
    """
    import time

    if not callable(test):
        raise TypeError(f"test must be a callable test(probs, labels, *, seed, **options); got {test!r}")
    if isinstance(model, str):
        model = widmann_model(model)
    elif not isinstance(model, WidmannModel):
        raise TypeError(f"model must be 'M1', 'M2', 'M3' or a WidmannModel; got {model!r}")
    n_datasets = check_positive_int(n_datasets, "n_datasets")
    n_instances = check_positive_int(n_instances, "n_instances", minimum=4)
    try:
        a = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    except (TypeError, ValueError):
        a = np.array([np.nan])
    if a.ndim != 1 or a.size == 0 or not np.all((a >= 0) & (a <= 1)):
        raise ValueError(f"alphas must be a non-empty sequence of levels in [0, 1]; got {alphas!r}")
    if isinstance(bandwidth, str):
        check_choice(bandwidth, "bandwidth", BANDWIDTHS)
    elif bandwidth is not None:
        bandwidth = check_positive_float(bandwidth, "bandwidth")
    check_seed(seed, generator=False)
    start = time.perf_counter()
    p = run_chunks(
        _error_chunk,
        n_datasets,
        seed=seed,
        chunk_size=50,
        n_jobs=n_jobs,
        args=(test, model, n_instances, bandwidth, options),
    )
    seconds = time.perf_counter() - start
    rejected = (p[:, None] <= a[None, :]).mean(axis=0)
    kind = "type_I" if model.calibrated else "type_II"
    errors = rejected if model.calibrated else 1.0 - rejected
    return WidmannTestErrors(
        model=model,
        test=test,
        bandwidth=bandwidth,
        n_instances=n_instances,
        p_values=p,
        alphas=a,
        errors=errors,
        kind=kind,
        seconds=seconds,
    )
