r"""The EECE floor: what a perfectly calibrated EU estimate scores on a given test set (EU paper, Def. 5).

The EECE compares, in each interval :math:`B_m` of the estimates, the mean estimate with the mean gain of the
:math:`n_m` test points that fall in it. An estimate that is perfectly calibrated has, in every interval, a mean
equal to the interval's *expected* gain :math:`\mu_m`; its EECE is still not zero, because the observed mean gain
:math:`\bar g_m` of a finite test set misses :math:`\mu_m`:

.. math::

    \mathrm{floor} = E\Bigl[\sum_m \frac{n_m}{T}\,\bigl|\bar g_m - \mu_m\bigr|\Bigr].

The floor depends on the estimator through its intervals: the counts :math:`n_m` (equal mass for distinct
estimates, unequal where estimates tie, as the mutual information does at 0) and the spread of the gains within
each interval (intervals of large estimates hold more gains of -1 and 1). :func:`eece_floor` computes it on the
test set at hand, per estimator, by resampling: the test points of interval :math:`m` are taken as a sample of
that interval's population, :math:`\mu_m` as their mean gain :math:`\bar g_m`, and :math:`\bar g_m^*` as the mean
of :math:`n_m` gains drawn from them with replacement; ``method="normal"`` gives the normal approximation
:math:`\sum_m \frac{n_m}{T}\sqrt{2 v_m/(\pi n_m)}` (:math:`v_m` the plug-in variance of the gains in the
interval) instead.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._validation import check_positive_int
from credalbook.metrics.binning import cut_index
from credalbook.metrics.epistemic import interval_cuts

__all__ = ["eece_floor", "study_floors"]


def _vector(values, name: str, n: int | None = None) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64) if not isinstance(values, np.ndarray) else values.astype(np.float64)
    if arr.ndim != 1 or arr.size < 1 or not np.isfinite(arr).all():
        raise ValueError(f"{name} must be a non-empty 1-D array of finite numbers; got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have {n} entries like eu; got {arr.shape[0]}")
    return arr


def eece_floor(
    eu, gain, *, cuts=None, n_bins: int = 20, method: str = "resample", n_resamples: int = 2000, seed: int = 0
) -> float:
    r"""Expected EECE of a perfectly calibrated estimate on this test set, with the intervals of ``eu``.

    See the module docstring. The intervals are those of :func:`credalbook.metrics.eu_reliability`: ``cuts``
    (e.g. the run's, ``run.evaluations["M"].reliability.cuts``) or the ``n_bins`` equal-mass intervals of
    ``eu``; an estimate equal to a cut falls in the upper interval. Only the intervals matter, not the
    estimates' values: the floor of :math:`\hat{\mathcal E}_M` and that of :math:`\hat{\mathcal E}_E` differ
    because their intervals group the test points differently.

    Parameters
    ----------
    eu : array-like, shape (T,)
        The estimates that define the intervals.
    gain : array-like, shape (T,)
        Accuracy gains of the test points (any real values; -1, 0, 1 in the paper).
    cuts : array-like, optional
        Interior cuts; by default :func:`credalbook.metrics.interval_cuts` of ``eu`` with ``n_bins``.
    n_bins : int, default=20
    method : {"resample", "normal"}, default="resample"
        ``"resample"``: the mean over ``n_resamples`` draws of :math:`\sum_m \frac{n_m}{T}|\bar g_m^* - \bar g_m|`
        (each interval's gains drawn with replacement from its own; a multinomial over their distinct values,
        which is the same distribution); ``"normal"``: :math:`\sum_m \frac{n_m}{T}\sqrt{2 v_m/(\pi n_m)}`.
    n_resamples : int, default=2000
    seed : int, default=0

    Returns
    -------
    float

    Examples
    --------
    One interval of four gains 0, 0, 1, 1: :math:`\bar g^*` is :math:`k/4` with :math:`k \sim` Binomial(4, 1/2),
    so the floor is :math:`E|k/4 - 1/2| = (2 \cdot \frac{1}{16} \cdot \frac12 + 2 \cdot \frac{4}{16} \cdot \frac14)
    = 0.1875`.

    >>> round(eece_floor([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1], n_bins=1, n_resamples=200_000), 2)
    0.19
    >>> round(eece_floor([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1], n_bins=1, method="normal"), 4)
    0.1995
    """
    e = _vector(eu, "eu")
    g = _vector(gain, "gain", n=e.shape[0])
    if method not in ("resample", "normal"):
        raise ValueError(f"method must be 'resample' or 'normal'; got {method!r}")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    if cuts is None:
        cuts = interval_cuts(e, n_bins=n_bins)
    else:
        cuts = _vector(cuts, "cuts") if np.size(cuts) else np.empty(0)
        if (np.diff(cuts) < 0).any():
            raise ValueError("cuts must be non-decreasing")
    idx = cut_index(e, cuts)
    rng = np.random.default_rng(seed)
    total = 0.0
    for m in np.unique(idx):
        gm = g[idx == m]
        n_m = gm.shape[0]
        values, counts = np.unique(gm, return_counts=True)
        mean = float(np.mean(gm))
        if method == "normal":
            total += n_m * math.sqrt(2.0 * float(np.var(gm)) / (math.pi * n_m))
            continue
        draws = rng.multinomial(n_m, counts / n_m, size=n_resamples) @ values / n_m
        total += n_m * float(np.mean(np.abs(draws - mean)))
    return total / e.shape[0]


def study_floors(study, *, method: str = "resample", n_resamples: int = 2000, seed: int = 0) -> dict:
    r"""The EECE floor of each estimator in every run of a study: estimator -> list over the runs (seed order).

    Each run's floor is :func:`eece_floor` of its raw estimates and gains on :math:`\mathcal D_{test}` with the
    intervals the run evaluated (``run.evaluations[k].reliability.cuts``), so that the floor of
    :math:`\hat{\mathcal E}_M` is computed on :math:`\hat{\mathcal E}_M`'s intervals and that of
    :math:`\hat{\mathcal E}_E` on its own. ``study``: a :class:`credalbook.papers.eu.EUStudy`. Below, two intervals
    of gains (0, 1) each: :math:`\sqrt{2 \cdot 0.25/(2\pi)} = 1/(2\sqrt\pi)`.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> rel = NS(reliability=NS(cuts=np.array([0.25])))
    >>> run = NS(eu={"M": np.array([0.1, 0.2, 0.3, 0.4]), "E": np.array([0.1, 0.2, 0.3, 0.4])},
    ...          gain=np.array([0, 1, 0, 1]), evaluations={"M": rel, "E": rel})
    >>> {k: [round(v, 4) for v in f] for k, f in study_floors(NS(runs=(run,)), method="normal").items()}
    {'M': [0.2821], 'E': [0.2821]}
    """
    from credalbook.papers.eu.reported import EU_ESTIMATORS

    runs = getattr(study, "runs", None)
    if not runs:
        raise ValueError("study must be an EUStudy with at least one run")
    return {
        k: [
            eece_floor(
                r.eu[k],
                r.gain,
                cuts=r.evaluations[k].reliability.cuts,
                method=method,
                n_resamples=n_resamples,
                seed=seed,
            )
            for r in runs
        ]
        for k in EU_ESTIMATORS
    }
