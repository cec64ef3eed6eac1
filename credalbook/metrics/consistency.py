r"""Consistency bands of reliability diagrams (Bröcker & Smith 2007).

A reliability diagram of a *calibrated* classifier still scatters about the diagonal: each bin
holds finitely many instances. Bröcker & Smith's *consistency resampling* shows how far: draw N
forecasts with replacement from the N forecasts, draw for each an outcome from the forecast
itself (the model is taken to be calibrated), and compute the observed frequency of every bin;
the central ``ci`` range of these frequencies over many resamples is the bin's consistency
bar. An observed frequency outside its bar is evidence of miscalibration at that level (per bin,
not corrected for the B bins).

**Exact draw, O(B) per resample.** With the bins held fixed (those of the observed diagram: equal
width, or the equal-mass cuts of the data), a resampled forecast falls into bin j with probability
:math:`n_j/T` (T forecasts, :math:`n_j` of them in bin j), and its outcome is 1 with probability
:math:`\bar f_j`, the mean forecast of bin j. The resampled pairs are independent, so

.. math::
    (n^*_1, \dots, n^*_B) \sim \mathrm{Multinomial}\bigl(T;\ n_1/T, \dots, n_B/T\bigr), \qquad
    S^*_j \mid n^*_j \sim \mathrm{Binomial}(n^*_j, \bar f_j), \qquad o^*_j = S^*_j / n^*_j ,

which is the distribution of consistency resampling, drawn without touching the N forecasts
again (10³ resamples of a diagram of N = 10⁶ instances take milliseconds). Resamples in which a
bin is empty do not count for that bin. The band is centred on the diagonal at :math:`\bar f_j`
(:math:`E[o^*_j] = \bar f_j`).

Kinds, as :func:`credalbook.metrics.reliability_curve`: ``"confidence"`` (top-label):
the confidences :math:`c_i`, whose outcome under calibration is a correct prediction with
probability :math:`c_i`; ``"classwise"`` with a ``class_index``: the probabilities
:math:`\hat p_{ik}` of one class; ``"classwise"`` without: all N·K pairs pooled, resampled as
pairs (which ignores that the K outcomes of one instance sum to 1; this makes the band slightly
wider than instance resampling would).

References
----------
Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting 22(3),
651-661, 2007 (Sec. 3: consistency resampling and consistency bars).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import REMOVED_IN, renamed
from credalbook._validation import (
    as_rng,
    check_n_bins,
    check_positive_int,
    check_probability,
    check_probs_or_scores,
    is_binary_scores,
)
from credalbook.metrics.binning import bin_sums, check_strategy
from credalbook.metrics.reliability import (
    check_class_index,
    default_kind,
    reliability_bin_means,
    RELIABILITY_KINDS,
    reliability_values,
    ReliabilityCurve,
)

__all__ = ["RELIABILITY_KINDS", "ConsistencyBands", "consistency_bands"]


@dataclass(frozen=True)
class ConsistencyBands:
    """Consistency bars of a reliability diagram, one per bin (Bröcker & Smith 2007).

    Attributes
    ----------
    bin_edges : ndarray (B + 1,)
        As the ``bin_edges`` of :class:`~credalbook.metrics.ReliabilityCurve` for the same data and options.
    counts : ndarray (B,)
        Forecasts per bin.
    mean_predicted : ndarray (B,)
        Mean forecast :math:`\\bar f_j` per bin, where the band is centred (NaN if empty).
    low, high : ndarray (B,)
        The central ``ci`` range of the resampled observed frequencies (NaN if empty).
    ci : float
        The level of the bands (``level`` is its old name).
    n_resamples : int
    kind : "confidence" or "classwise"
    class_index : int or None
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ci: float
    n_resamples: int
    kind: str
    class_index: int | None = None

    @property
    def level(self) -> float:
        """Old name of ``ci`` (FutureWarning)."""
        warnings.warn(
            f"ConsistencyBands.level was renamed to ConsistencyBands.ci in 0.6; 'level' will be removed "
            f"in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        return self.ci

    def contains(self, observed) -> np.ndarray:
        """Whether each bin's observed frequency (B,) lies in its band (False for empty bins)."""
        o = np.asarray(observed, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            return (self.low <= o) & (o <= self.high)


@renamed(level="ci")
def consistency_bands(
    probs,
    *,
    kind: str | None = None,
    class_index: int | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed=None,
) -> ConsistencyBands:
    r"""Consistency bands of the reliability diagram of ``probs`` under the hypothesis of calibration.

    Parameters
    ----------
    probs : array-like or tensor, shape (N, K), or (N,) binary scores P(y = 1)
        The predictions; no labels are needed (the outcomes are drawn from the predictions). Binary
        scores are the two-class rows ``[1 - p, p]``.
    kind : {"confidence", "classwise"} or None, default None
        The confidence (top-label) diagram or the classwise one; None: ``"confidence"`` for (N, K)
        rows, the class-1 diagram (P(y = 1)) for binary scores, as
        :func:`credalbook.metrics.reliability_curve`. ``"top_label"`` is an old spelling of ``"confidence"``.
    class_index : int or None
        With ``kind="classwise"``: one class, or None for all (i, k) pairs pooled.
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins of [0, 1] or equal-mass bins (the cuts of
        ``credalbook.metrics.binning.equal_mass_cuts`` computed from the predictions).
    ci : float in (0, 1), default 0.95
        The level of the bands (``level`` is its old name).
    n_resamples : int >= 2, default 1000
    seed : None, int, SeedSequence or Generator

    Returns
    -------
    ConsistencyBands
        For the bins of ``reliability_curve(probs, labels, kind=..., class_index=..., n_bins=...,
        strategy=...)``: its ``observed`` falls in the band of a bin with probability about
        ``ci`` when the predictions are calibrated.

    References
    ----------
    Bröcker, Smith. Increasing the reliability of reliability diagrams. Weather and Forecasting
    22, 651-661, 2007, Sec. 3.

    Examples
    --------
    One bin of 100 forecasts of 0.5: the band is the central 90 % of Binomial(n*, 0.5)/n*, n* = 100:

    >>> b = consistency_bands(np.full((100, 2), 0.5), n_bins=1, ci=0.9, n_resamples=4000, seed=0)
    >>> b.mean_predicted.tolist(), b.low.tolist(), b.high.tolist()
    ([0.5], [0.42], [0.58])
    """
    kind, class_index = default_kind(kind, class_index, is_binary_scores(probs), "consistency_bands")
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, "consistency_bands")
    ci = check_probability(ci, "ci")
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    rng = as_rng(seed)
    p, _ = check_probs_or_scores(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) for consistency bands; got shape {p.shape}")
    check_class_index(class_index, kind, p.shape[1])
    pred, _ = reliability_values(p, None, kind, class_index)
    _, edges, counts, mean_pred = reliability_bin_means(pred, n_bins, strategy)
    return _bands(edges, counts, mean_pred, ci=ci, n_resamples=n_resamples, rng=rng, kind=kind, class_index=class_index)


def _bands(edges, counts, mean_pred, *, ci: float, n_resamples: int, rng, kind: str, class_index) -> ConsistencyBands:
    """The :class:`ConsistencyBands` of binned predictions (their edges, counts and mean predictions)."""
    low, high = _band(counts, mean_pred, ci=ci, n_resamples=n_resamples, rng=rng)
    return ConsistencyBands(
        bin_edges=edges,
        counts=counts,
        mean_predicted=mean_pred,
        low=low,
        high=high,
        ci=ci,
        n_resamples=n_resamples,
        kind=kind,
        class_index=None if class_index is None else int(class_index),
    )


def _band(
    counts: np.ndarray, mean_pred: np.ndarray, *, ci: float, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles (B,) of o*_j = Binomial(n*_j, f_j) / n*_j with n* ~ Multinomial(T, n / T) (module docstring)."""
    total = int(counts.sum())
    nonempty = counts > 0
    f = np.clip(np.where(nonempty, mean_pred, 0.0), 0.0, 1.0)
    n_star = rng.multinomial(total, counts / total, size=n_resamples)
    s_star = rng.binomial(n_star, f)
    with np.errstate(invalid="ignore", divide="ignore"):
        o_star = np.where(n_star > 0, s_star / np.maximum(n_star, 1), np.nan)
    low = np.full(counts.shape, np.nan)
    high = np.full(counts.shape, np.nan)
    if nonempty.any():
        with warnings.catch_warnings():  # a bin empty in every resample (tiny bin, few resamples): NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            q = np.nanquantile(o_star[:, nonempty], [(1 - ci) / 2, (1 + ci) / 2], axis=0)
        low[nonempty], high[nonempty] = q
    return low, high


def curve_and_band(p, y, kind, class_index, n_bins, strategy, ci, n_resamples, seed):
    """``(reliability_curve(p, y, ...), consistency_bands(p, ..., seed=seed))`` of checked (N, K) inputs from one
    binning and no further validation: the same numbers and the same draws of the Generator ``seed``; the band is None
    when ``ci`` is None. What ``credalbook.plotting.ReliabilityDisplay.from_predictions`` draws."""
    pred, obs = reliability_values(p, y, kind, class_index)
    idx, edges, counts, mean_pred = reliability_bin_means(pred, n_bins, strategy)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = bin_sums(idx, obs, n_bins) / counts
    index = None if class_index is None else int(class_index)
    curve = ReliabilityCurve(
        bin_edges=edges, counts=counts, mean_predicted=mean_pred, observed=observed, kind=kind, class_index=index
    )
    if ci is None:
        return curve, None
    return curve, _bands(
        edges, counts, mean_pred, ci=ci, n_resamples=n_resamples, rng=seed, kind=kind, class_index=class_index
    )
