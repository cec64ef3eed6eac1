r"""The authors' baseline of Mortier et al.'s test, ``npbe_test_ensemble_v0`` (mkjuergens/EnsembleCalibration@8dff2b5,
``src/cal_test/bootstrap_test.py``, l. 245-347), the Mortier test of their Figs. 3-4.

Its statistic is Mortier et al.'s: the estimator minimised over one constant λ (their ``calculate_min`` with
``COBYLA``, ``src/utils/minimization.py``, l. 134-147, minimises and evaluates on the same instances). Its null
differs from Mortier et al.'s Alg. 1 in three ways (l. 314-330):

* the instances are drawn **with replacement** (``torch.randint``, l. 316);
* a :math:`\boldsymbol\lambda \sim \mathrm{Dir}(\mathbf 1_M)` is drawn **per instance** (``sample_p_bar_torch``,
  l. 378-399), not one per replicate;
* the combined predictions are truncated to three decimals (``torch.trunc(P * 1e3) / 1e3``, l. 323) before the
  labels are drawn (rows renormalised for the draw, as ``torch.multinomial`` does) and the statistic computed.

The p-value is the share of null statistics *above* the statistic (l. 345).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook._random import dirichlet, draw_labels
from credalbook._validation import as_rng, check_choice, check_ens_probs, check_labels, check_positive_int
from credalbook.metrics.distribution import ESTIMATORS
from credalbook.stats.bootstrap import MeasureObjective, minimise_objective, SOLVERS
from credalbook.stats.measures import estimator_measure

__all__ = ["MortierV0Result", "mortier_v0_null", "mortier_v0_test"]

#: Decimals kept of the null's combined predictions (``bootstrap_test.py``, l. 323).
V0_DECIMALS = 3


def mortier_v0_null(ens_probs, func, n_resamples: int, seed) -> np.ndarray:
    """Null statistics (..., D) of ``npbe_test_ensemble_v0`` for validated ``ens_probs`` (..., N, M, K).

    ``func`` is a batched statistic ``func(p, labels)`` of :func:`~credalbook.stats.estimator_measure`. Each
    replicate draws N indices with replacement, a Dir(1) λ per drawn instance, truncates the combination to
    three decimals, draws labels and evaluates ``func``; all from one stream.

    Examples
    --------
    >>> from credalbook.stats import estimator_measure
    >>> ens = np.full((50, 3, 2), 0.5)
    >>> null = mortier_v0_null(ens, estimator_measure("lp", bandwidth=0.1).func, 4, seed=0)
    >>> null.shape
    (4,)
    """
    ens = np.asarray(ens_probs, dtype=np.float64)
    d = check_positive_int(n_resamples, "n_resamples")
    rng = as_rng(seed)
    *batch, n, m, k = ens.shape
    idx = rng.integers(0, n, size=(*batch, d, n))
    lam = dirichlet(np.ones(m), rng, (*batch, d, n))
    picked = np.take_along_axis(ens[..., None, :, :, :], idx[..., None, None], axis=-3)  # (..., D, N, M, K)
    p = np.einsum("...nm,...nmk->...nk", lam, picked)
    scale = 10.0**V0_DECIMALS
    p = np.clip(np.trunc(p * scale) / scale, 0.0, 1.0)
    y = draw_labels(p / p.sum(-1, keepdims=True), rng)
    return np.asarray(func(p, y), dtype=np.float64)


@dataclass(frozen=True)
class MortierV0Result:
    """The authors' Mortier baseline on one dataset.

    Attributes
    ----------
    statistic : float
        The estimator minimised over a constant λ.
    weights : numpy.ndarray
        The minimising λ (M,).
    null : numpy.ndarray
        The D null statistics.
    p_value : float
        Share of ``null`` above ``statistic``.
    """

    statistic: float
    weights: np.ndarray
    null: np.ndarray
    p_value: float

    def reject(self, alpha: float) -> bool:
        """``|statistic|`` above the (1 − α) quantile of the null (``bootstrap_test.py``, l. 333-344)."""
        return bool(abs(self.statistic) > np.quantile(self.null, 1 - alpha))


def mortier_v0_test(
    ens_probs,
    labels,
    *,
    estimator: str = "lp",
    estimator_options: dict | None = None,
    n_resamples: int = 100,
    solver: str = "cobyla_powell",
    seed=None,
) -> MortierV0Result:
    """The authors' Mortier baseline ``npbe_test_ensemble_v0`` on one dataset (see the module docstring).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
        The members' predictions on the instances it minimises and tests on.
    labels : array-like, shape (N,)
    estimator : str, default "lp"
        One of :data:`credalbook.metrics.ESTIMATORS`.
    estimator_options : dict, optional
        Options of the estimator (e.g. ``bandwidth``).
    n_resamples : int, default 100
        D.
    solver : str, default "cobyla_powell"
        The minimiser of the statistic (one of ``credalbook.stats.bootstrap.SOLVERS``).
    seed : int, numpy Generator or None

    Returns
    -------
    MortierV0Result

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ens = rng.dirichlet(np.ones(3), size=(200, 2))
    >>> y = np.array([rng.choice(3, p=p) for p in ens.mean(1)])
    >>> res = mortier_v0_test(ens, y, estimator_options={"bandwidth": 0.1}, n_resamples=20, seed=0)
    >>> res.null.shape, 0.0 <= res.p_value <= 1.0
    ((20,), True)
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    n, m, k = ens.shape
    y = check_labels(labels, n_classes=k, shape=(n,))
    check_choice(estimator, "estimator", ESTIMATORS)
    check_choice(solver, "solver", SOLVERS)
    if estimator_options is not None and not isinstance(estimator_options, dict):
        raise TypeError(f"estimator_options must be a dict or None; got {type(estimator_options).__name__}")
    d = check_positive_int(n_resamples, "n_resamples")
    rng = as_rng(seed)
    g = estimator_measure(estimator, **(estimator_options or {}))
    obj = MeasureObjective(ens, y, g.func)
    lam = np.asarray(minimise_objective(obj, m, solver, {}, rng), dtype=np.float64)
    stat = float(obj(lam))
    null = mortier_v0_null(ens, g.func, d, rng)
    return MortierV0Result(stat, lam, null, float(np.mean(null > stat)))
