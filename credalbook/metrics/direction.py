r"""The direction of miscalibration: over- or under-confident, with an interval, and the ECE split by direction.

A calibration error such as the ECE says *how much* predictions and outcomes disagree, not *which
way*. The signed calibration error keeps the sign:

.. math::
    \Delta_{conf} = \frac1N \sum_{i=1}^N \bigl(c_i - 1[\hat y_i = y_i]\bigr)
    = \bar c - \mathrm{Acc},
    \qquad
    \Delta_k = \frac1N \sum_{i=1}^N \bigl(\hat p_{ik} - y_{ik}\bigr)
    = \bar p_k - \mathrm{freq}_k,

with :math:`c_i = \max_k \hat p_{ik}` the confidence and :math:`\hat y_i` the predicted label
(ties towards the lowest index, as :func:`credalbook.metrics.accuracy`). :math:`\Delta_{conf} > 0`:
the model is **over-confident** (its confidence exceeds its accuracy); :math:`< 0`:
**under-confident**. Per class, :math:`\Delta_k > 0` says class k is predicted more often than it
occurs; the :math:`\Delta_k` sum to 0. Each is a mean of per-instance terms, so its bootstrap
interval resamples the terms (:func:`signed_calibration_error` with ``ci=``).

A model can be over-confident at high confidence and under-confident at low confidence, which the
mean hides. :func:`ece_split` splits the top-label (or classwise) ECE into the bins where the mean
prediction exceeds the observed frequency (over) and those where it falls short (under):

.. math::
    \mathrm{ECE} = \underbrace{\sum_{j:\, c_j > a_j} \tfrac{|\mathcal B_j|}{N}(c_j - a_j)}_{\text{over}}
    + \underbrace{\sum_{j:\, c_j < a_j} \tfrac{|\mathcal B_j|}{N}(a_j - c_j)}_{\text{under}},
    \qquad \text{over} - \text{under} = \Delta_{conf},

with :math:`c_j` and :math:`a_j` the mean confidence and the accuracy of bin :math:`j` (the bins of
:func:`credalbook.metrics.ece_confidence`). :func:`describe_direction` turns a signed error, with
or without its interval, into the words of a report.

References
----------
Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017, Sec. 2 (the
reliability diagram: bins above or below the diagonal). Kull, Perello-Nieto, Kängsepp, Silva Filho,
Song, Flach. Beyond temperature scaling. NeurIPS 2019 (classwise calibration).
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from credalbook._validation import as_scalar, check_choice, check_n_bins, check_positive_float, check_probs_labels
from credalbook.metrics.binning import _bin_statistics, check_strategy, one_hot
from credalbook.metrics.classification import _top_label
from credalbook.metrics.intervals import (
    check_ci_keyword,
    check_ci_options,
    check_unbatched,
    Estimate,
    interval,
    mean_of_counts,
    resample_counts,
)
from credalbook.metrics.mean_terms import _mean_estimate

__all__ = ["DIRECTION_KINDS", "ECESplit", "describe_direction", "ece_split", "signed_calibration_error"]

#: What a signed error or an ECE split is about: the top-label confidence, or each class.
DIRECTION_KINDS = ("confidence", "classwise")

_WORDS = {
    "confidence": ("over-confident", "under-confident", "confidence", "accuracy"),
    "classwise": ("over-predicted", "under-predicted", "mean probability", "frequency"),
}


def _signed_terms(p: np.ndarray, y: np.ndarray, kind: str) -> np.ndarray:
    """Per-instance terms: ``c_i - 1[hit]`` (..., N) for ``"confidence"``, ``p_ik - y_ik`` (..., N, K) else."""
    if kind == "confidence":
        conf, positive = _top_label(p, y)
        return conf[..., 0] - (positive == 0)
    return p - one_hot(y, p.shape[-1])


def signed_calibration_error(
    probs, labels, *, kind: str = "confidence", ci: float | None = None, n_resamples: int = 1000, seed=None
):
    r"""Signed calibration error: mean confidence minus accuracy (> 0: over-confident), or per class.

    .. math::
        \Delta_{conf} = \frac1N \sum_{i=1}^N \bigl(c_i - 1[\hat y_i = y_i]\bigr),
        \qquad
        \Delta_k = \frac1N \sum_{i=1}^N \bigl(\hat p_{ik} - 1[y_i = k]\bigr)

    :math:`\Delta_{conf}` is the signed top-label error over a single bin: its absolute value is
    ``ece_confidence(probs, labels, n_bins=1)``, and it is ``over - under`` of :func:`ece_split`
    for any binning. The classwise errors sum to 0 over the classes.

    Parameters
    ----------
    probs : array-like, shape (..., N, K) or (N,)
        Probabilities (rows on the simplex), or binary scores P(y = 1) (the rows ``[1 - p, p]``;
        then entry 1 of ``kind="classwise"`` is the mean score minus the rate of positives,
        "calibration-in-the-large").
    labels : array-like of int, shape (..., N)
    kind : {"confidence", "classwise"}, default "confidence"
        ``"confidence"``: :math:`\Delta_{conf}`, a float (shape (...) with batch dimensions).
        ``"classwise"``: :math:`\Delta_k` for every class, an array (..., K).
    ci : float in (0, 1) or None, default None
        With a level (e.g. 0.95), ``probs`` of shape (N, K): the bootstrap percentile interval.
        ``"confidence"``: an :class:`~credalbook.metrics.Estimate`, the interval of
        :func:`credalbook.metrics.bootstrap_ci` on the same statistic with the same seed (the
        per-instance terms resampled, as for :func:`~credalbook.metrics.accuracy`).
        ``"classwise"``: a tuple of K Estimates, one per class, all from the same resamples
        (class k's is the interval ``bootstrap_ci`` gives the k-th error with the same seed, up to
        the order of the floating-point sums: the replicates weight the terms by the resampled
        multiplicities, one matrix product for all classes).
    n_resamples : int, default 1000
        Bootstrap replicates (with ``ci``).
    seed : None, int, SeedSequence or Generator
        Seed of the resamples (with ``ci``).

    Returns
    -------
    float, ndarray, Estimate or tuple of Estimate

    References
    ----------
    Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017, Sec. 2
    (average confidence against accuracy). Kull et al. Beyond temperature scaling. NeurIPS 2019.

    Examples
    --------
    Confidences 0.9, 0.9, 0.6, 0.6 (mean 0.75). Three of four correct: no signed error, but class 0
    has mean probability 0.5 and occurs 3/4 of the time. Two of four correct: over-confident by 0.25.

    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(signed_calibration_error(p, [0, 0, 0, 1]), 6), round(signed_calibration_error(p, [0, 1, 1, 0]), 6)
    (0.0, 0.25)
    >>> signed_calibration_error(p, [0, 0, 0, 1], kind="classwise").round(6).tolist()   # mean p_k - freq_k
    [-0.25, 0.25]
    >>> e = signed_calibration_error(p, [0, 1, 1, 0], ci=0.9, n_resamples=200, seed=0)
    >>> e.value, e.low <= e.value <= e.high
    (0.25, True)
    """
    kind = check_choice(kind, "kind", DIRECTION_KINDS)
    check_ci_keyword(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    if ci is not None:
        check_unbatched(p)
    terms = _signed_terms(p, y, kind)
    if kind == "confidence":
        value = as_scalar(terms.mean(axis=-1))
        if ci is None:
            return value
        return _mean_estimate(terms, value, ci=ci, n_resamples=n_resamples, seed=seed)
    per_class = np.ascontiguousarray(np.moveaxis(terms, -1, -2))  # (..., K, N): each class's terms contiguous
    values = per_class.mean(axis=-1)
    if ci is None:
        return values
    level, n_resamples, seed, method = check_ci_options(ci, n_resamples, seed)
    reps = _class_replicates(terms, n_resamples=n_resamples, seed=seed)
    return tuple(interval(float(v), reps[:, k], ci=level, method=method) for k, v in enumerate(values))


def _class_replicates(terms: np.ndarray, *, n_resamples: int, seed) -> np.ndarray:
    """Bootstrap means of each column of ``terms`` (N, K) → (R, K), one set of resamples for all columns.

    The resamples are those of :func:`credalbook.metrics.intervals.resample_statistic` with the same seed,
    given by their multiplicities :math:`m_r` (:func:`~credalbook.metrics.intervals.resample_counts`), so a
    replicate's means are :math:`m_r^\top T / N`: one matrix product per chunk of replicates instead of
    gathering N·K terms per replicate. Column k equals the replicates of the k-th column resampled on its own
    up to the order of the sums (1e-16). No validation.
    """
    return resample_counts(functools.partial(mean_of_counts, terms), terms.shape[0], n_resamples=n_resamples, seed=seed)


@dataclass(frozen=True)
class ECESplit:
    r"""A binned calibration error split into its over- and under-confident bins (:func:`ece_split`).

    Attributes
    ----------
    over : float or ndarray (K,)
        :math:`\sum_j \frac{|\mathcal B_j|}{N}\max(c_j - a_j, 0)`: the bins whose mean prediction
        exceeds the observed frequency (over-confident; per class with ``kind="classwise"``).
    under : float or ndarray (K,)
        :math:`\sum_j \frac{|\mathcal B_j|}{N}\max(a_j - c_j, 0)`: the bins where it falls short.
    kind : str
        ``"confidence"`` (floats) or ``"classwise"`` (one entry per class).
    n_bins : int
    strategy : str
        ``"uniform"`` or ``"quantile"``, as in :func:`credalbook.metrics.ece_confidence`.

    Examples
    --------
    >>> s = ECESplit(over=0.03, under=0.01, kind="confidence", n_bins=10, strategy="uniform")
    >>> round(s.ece, 6), round(s.signed, 6)
    (0.04, 0.02)
    """

    over: float | np.ndarray
    under: float | np.ndarray
    kind: str
    n_bins: int
    strategy: str

    @property
    def ece(self):
        """The ECE of the same bins: ``over + under`` (``"confidence"``), their mean over classes (``"classwise"``)."""
        total = np.asarray(self.over) + np.asarray(self.under)
        return as_scalar(total if self.kind == "confidence" else total.mean(axis=-1))

    @property
    def signed(self):
        """``over - under``: the signed error (:func:`signed_calibration_error` of the same ``kind``)."""
        return as_scalar(np.asarray(self.over) - np.asarray(self.under))


def ece_split(probs, labels, *, kind: str = "confidence", n_bins: int = 10, strategy: str = "uniform") -> ECESplit:
    r"""The ECE split into the bins where predictions exceed outcomes (over) and where they fall short (under).

    .. math::
        \mathrm{over} = \frac1N \sum_{j} \max\Bigl(-\sum_{i \in \mathcal B_j} (o_i - x_i),\ 0\Bigr),
        \qquad
        \mathrm{under} = \frac1N \sum_{j} \max\Bigl(\sum_{i \in \mathcal B_j} (o_i - x_i),\ 0\Bigr)

    with :math:`x_i` the confidence and :math:`o_i` the hit of instance :math:`i`
    (``kind="confidence"``), or each class's probability and one-hot label (``"classwise"``, per
    class). The bins are those of :func:`credalbook.metrics.ece_confidence` /
    :func:`credalbook.metrics.ece_classwise` with the same ``n_bins`` and ``strategy``, so
    ``over + under`` is ``ece_confidence`` (per class: its mean over classes is ``ece_classwise``)
    up to the order of the floating-point sums, and ``over - under`` is
    :func:`signed_calibration_error`.

    Parameters
    ----------
    probs : array-like, shape (..., N, K) or (N,)
        Probabilities, or binary scores P(y = 1) as in :func:`signed_calibration_error`.
    labels : array-like of int, shape (..., N)
    kind : {"confidence", "classwise"}, default "confidence"
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.

    Returns
    -------
    ECESplit
        ``over`` and ``under``: floats (shape (...) with batch dimensions) for ``"confidence"``,
        arrays (..., K) for ``"classwise"``.

    References
    ----------
    Guo et al. (2017), Eq. (3) (the ECE) and Fig. 1 (bins above and below the diagonal).

    Examples
    --------
    Bin 0.9: two at 0.9, one correct (over-confident by 0.4); bin 0.6: two at 0.6, both correct
    (under-confident by 0.4):

    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> s = ece_split(p, [0, 0, 0, 1])
    >>> round(s.over, 6), round(s.under, 6), round(s.ece, 6)   # (2/4) 0.4 each; ece_confidence is 0.4
    (0.2, 0.2, 0.4)
    """
    kind = check_choice(kind, "kind", DIRECTION_KINDS)
    n_bins = check_n_bins(n_bins)
    strategy = check_strategy(strategy, "ece_split")
    p, y = check_probs_labels(probs, labels)
    if kind == "confidence":
        conf, positive = _top_label(p, y)
        s = _bin_statistics(conf, positive, n_bins, strategy, counts=False)
    else:
        s = _bin_statistics(np.ascontiguousarray(p), y.astype(np.intp, copy=False), n_bins, strategy, counts=False)
    over = np.maximum(-s.gap, 0.0).sum(axis=-1) / s.n
    under = np.maximum(s.gap, 0.0).sum(axis=-1) / s.n
    if kind == "confidence":
        over, under = as_scalar(over[..., 0]), as_scalar(under[..., 0])
    return ECESplit(over=over, under=under, kind=kind, n_bins=n_bins, strategy=strategy)


def _fmt(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals and a typographic minus (no sign on a value that rounds to zero)."""
    text = f"{x:.{digits}f}"
    if text.startswith("-"):
        text = text[1:] if float(text[1:]) == 0 else "\N{MINUS SIGN}" + text[1:]
    return text


def _check_signed_error(signed_error) -> tuple[float, float | None, float | None]:
    """The value and interval (or None) of a float or :class:`Estimate`, all finite."""
    if isinstance(signed_error, Estimate):
        parts = (signed_error.value, signed_error.low, signed_error.high)
    elif isinstance(signed_error, numbers.Real) and not isinstance(signed_error, (bool, np.bool_)):
        parts = (signed_error, None, None)
    elif isinstance(signed_error, np.ndarray) and signed_error.ndim == 0 and signed_error.dtype.kind == "f":
        parts = (signed_error.item(), None, None)
    else:
        raise TypeError(
            "signed_error must be a number or an Estimate (signed_calibration_error with or without ci); "
            f"got {signed_error!r}"
        )
    if not all(v is None or math.isfinite(v) for v in parts):
        raise ValueError(f"signed_error must be finite; got {signed_error!r}")
    value, low, high = (None if v is None else float(v) for v in parts)
    return value, low, high


def describe_direction(signed_error, *, kind: str = "confidence", tolerance: float = 0.0, digits: int = 3) -> str:
    """The direction of a signed calibration error in words, with its interval when it has one.

    With an :class:`~credalbook.metrics.Estimate`: over-confident when the whole interval lies
    above ``tolerance``, under-confident when it lies below ``-tolerance``, else "no clear
    direction". With a number: its sign decides (beyond ``tolerance``). The magnitudes are shown
    as the larger side minus the smaller, so both directions read as positive numbers.

    Parameters
    ----------
    signed_error : float or Estimate
        :func:`signed_calibration_error` (confidence minus accuracy), or one class's entry of it
        with ``kind="classwise"`` (mean probability minus frequency).
    kind : {"confidence", "classwise"}, default "confidence"
        The words: over-/under-confident, or over-/under-predicted for one class.
    tolerance : float >= 0, default 0
        Differences within ±tolerance count as no direction.
    digits : int, default 3
        Decimals of the numbers.

    Returns
    -------
    str

    Examples
    --------
    >>> from credalbook.metrics import Estimate
    >>> describe_direction(Estimate(0.031, 0.027, 0.035, 0.95, 1000, "percentile"))
    'over-confident (confidence exceeds accuracy by 0.031 [0.027, 0.035])'
    >>> describe_direction(Estimate(-0.012, -0.016, -0.008, 0.95, 1000, "percentile"))
    'under-confident (accuracy exceeds confidence by 0.012 [0.008, 0.016])'
    >>> describe_direction(Estimate(0.001, -0.002, 0.004, 0.95, 1000, "percentile"))
    'no clear direction (confidence − accuracy 0.001 [−0.002, 0.004])'
    >>> describe_direction(0.05, tolerance=0.01)
    'over-confident (confidence exceeds accuracy by 0.050)'
    """
    kind = check_choice(kind, "kind", DIRECTION_KINDS)
    tolerance = check_positive_float(tolerance, "tolerance", allow_zero=True)
    if isinstance(digits, (bool, np.bool_)) or not isinstance(digits, numbers.Integral) or not 0 <= digits <= 15:
        raise ValueError(f"digits must be an integer in [0, 15]; got {digits!r}")
    value, low, high = _check_signed_error(signed_error)
    over, under, predicted, observed = _WORDS[kind]
    lo, hi = (value, value) if low is None else (low, high)

    def shown(v: float, a: float | None, b: float | None) -> str:
        return _fmt(v, digits) + ("" if a is None else f" [{_fmt(a, digits)}, {_fmt(b, digits)}]")

    if lo > tolerance:
        return f"{over} ({predicted} exceeds {observed} by {shown(value, low, high)})"
    if hi < -tolerance:
        flipped = (None, None) if low is None else (-high, -low)
        return f"{under} ({observed} exceeds {predicted} by {shown(-value, *flipped)})"
    return f"no clear direction ({predicted} \N{MINUS SIGN} {observed} {shown(value, low, high)})"
