r"""Evaluation and calibration of epistemic-uncertainty (EU) estimates (EU paper, Secs. 4.1 and 4.3).

Follows "The Evaluation and Calibration of Epistemic Uncertainty Estimates" (anonymous AISTATS 2023
submission; the "EU paper"), binary classification, labels in {0, 1}; the estimates themselves come
from :mod:`credalbook.metrics.uncertainty`.

* Sec. 4.1: the accuracy gain (Def. 4, :func:`accuracy_gain`), the epistemic expected calibration
  error over equal-mass intervals (Def. 5, :func:`eece`, :func:`eu_reliability`) and the epistemic
  correlation (Def. 6, :func:`epistemic_correlation`).
* Sec. 4.3: the calibration map :math:`\gamma` (per-interval mean gain on calibration data, then
  isotonic regression; :func:`fit_eu_calibration`) and the evaluation before and after it
  (:func:`evaluate_eu`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import REMOVED_IN, renamed
from credalbook._validation import as_numpy, check_n_bins
from credalbook._validation import lazy_scipy_stats as stats
from credalbook.metrics.binning import bin_sums, cut_index, equal_mass_cuts
from credalbook.metrics.uncertainty import _binary, _vector

__all__ = [
    "EUCalibrationMap",
    "EUEvaluation",
    "EUReliability",
    "accuracy_gain",
    "eece",
    "epistemic_correlation",
    "eu_reliability",
    "evaluate_eu",
    "fit_eu_calibration",
    "interval_cuts",
    "interval_index",
]


def _cuts(cuts) -> np.ndarray:
    e = as_numpy(cuts, "cuts")
    if e.ndim != 1 or e.dtype.kind not in "iuf":
        raise ValueError(f"cuts must be a 1-D array of interior cut points; got shape {e.shape}, dtype {e.dtype}")
    e = e.astype(np.float64)
    if not np.isfinite(e).all():
        raise ValueError("cuts must be finite")
    if (np.diff(e) < 0).any():
        i = int(np.argmax(np.diff(e) < 0))
        raise ValueError(f"cuts must be non-decreasing; cuts[{i}] = {e[i]:g} > cuts[{i + 1}] = {e[i + 1]:g}")
    return e


def _edges_property(cls_name: str):
    """``edges``: the old name of the ``cuts`` field (the interior cuts, not the M + 1 edges), with a FutureWarning."""

    def edges(self) -> np.ndarray:
        warnings.warn(
            f"{cls_name}.edges was renamed to {cls_name}.cuts in 0.6 (they are the interior cuts); "
            f"'edges' will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        return self.cuts

    edges.__doc__ = "Old name of ``cuts`` (FutureWarning)."
    return property(edges)


# ------------------------------------------------------------------------------ Sec. 4.1
def accuracy_gain(labels, *, pred, pred_optimal) -> np.ndarray:
    r"""Accuracy gain of the (near-)optimal over the current prediction (EU paper, Def. 4).

    .. math::

        \mathrm{gain}(x, y) = 1[f^*(x) = y] - 1[\hat f(x) = y] \in \{-1, 0, 1\},

    whose expectation over :math:`y \sim P(y|x)` is the epistemic uncertainty :math:`\mathcal E(x)` of
    Def. 3. In the experiments :math:`f^*` is replaced by :math:`\hat f_{aug}`, the classifier trained on
    the augmented data (Sec. 4.2).

    Parameters
    ----------
    labels : array-like of {0, 1}, shape (N,)
    pred : array-like of {0, 1}, shape (N,)
        Current predictions :math:`\hat f(x_i)` (e.g. of :math:`\hat f_{tr}`).
    pred_optimal : array-like of {0, 1}, shape (N,)
        Optimal or improved predictions :math:`f^*(x_i)` (e.g. of :math:`\hat f_{aug}`).

    Returns
    -------
    ndarray of int, shape (N,)

    References
    ----------
    EU paper, Definition 4 and the identity below it; Sec. 4.3 for :math:`\bar\gamma_m`.

    Examples
    --------
    >>> accuracy_gain([1, 1, 0, 0], pred=[0, 1, 0, 0], pred_optimal=[1, 1, 1, 0])
    array([ 1,  0, -1,  0])
    """
    y = _binary(labels, "labels")
    f = _binary(pred, "pred", n=y.shape[0])
    f_opt = _binary(pred_optimal, "pred_optimal", n=y.shape[0])
    return (f_opt == y).astype(np.int64) - (f == y).astype(np.int64)


def interval_cuts(eu, *, n_bins: int = 20) -> np.ndarray:
    r"""Interior cut points of a partition into ``n_bins`` intervals with equal numbers of points.

    The EU paper (Sec. 5.2, step 3) computes "a partition of twenty intervals over the range of the EU
    estimates on :math:`\mathcal D_{test}`", each containing "roughly the same number of points". With
    the estimates sorted, :math:`s_{(1)} \le \dots \le s_{(T)}`, cut :math:`m` is the midpoint
    :math:`(s_{(k_m)} + s_{(k_m+1)})/2`, :math:`k_m = \mathrm{round}(mT/M)`, so interval :math:`m`
    holds exactly :math:`k_m - k_{m-1}` points when the estimates are distinct (ties at a cut all go
    to the upper interval). The outer intervals are unbounded, so that estimates of other data
    (the calibration data of Sec. 4.3) always fall into some interval; see :func:`interval_index`.

    Parameters
    ----------
    eu : array-like, shape (T,)
        EU estimates on the evaluation test set; ``T >= n_bins``.
    n_bins : int, default=20

    Returns
    -------
    ndarray, shape (n_bins - 1,)
        Non-decreasing cuts :math:`e_1 \le \dots \le e_{M-1}`; interval :math:`m` (0-based) is
        :math:`[e_m, e_{m+1})` with :math:`e_0 = -\infty`, :math:`e_M = \infty`.

    Examples
    --------
    >>> interval_cuts([0.1, 0.4, 0.2, 0.3, 0.6, 0.5], n_bins=3)
    array([0.25, 0.45])
    """
    values = _vector(eu, "eu")
    n_bins = check_n_bins(n_bins)
    if values.shape[0] < n_bins:
        raise ValueError(f"eu must contain at least n_bins = {n_bins} values; got {values.shape[0]}")
    return equal_mass_cuts(values, n_bins)


def equal_mass_edges(eu, *, n_bins: int = 20) -> np.ndarray:
    """Old name of :func:`interval_cuts` (FutureWarning): it returns interior cuts, not edges."""
    warnings.warn(
        f"equal_mass_edges was renamed to interval_cuts in 0.6 (it returns the interior cuts); "
        f"'equal_mass_edges' will be removed in {REMOVED_IN}",
        FutureWarning,
        stacklevel=2,
    )
    return interval_cuts(eu, n_bins=n_bins)


@renamed(edges="cuts")
def interval_index(eu, cuts) -> np.ndarray:
    r"""0-based interval :math:`m_i` of each estimate for cuts from :func:`interval_cuts`.

    Interval :math:`m` is :math:`[e_m, e_{m+1})` with :math:`e_0 = -\infty` and :math:`e_M = +\infty`.

    Examples
    --------
    >>> interval_index([0.0, 0.25, 0.3, 0.9], [0.25, 0.45])
    array([0, 1, 1, 2])
    """
    values = _vector(eu, "eu")
    return cut_index(values, _cuts(cuts)).astype(np.int64)


def _interval_means(idx: np.ndarray, n_intervals: int, *values: np.ndarray) -> list[np.ndarray]:
    """Counts per interval, then the mean of each of ``values`` per interval (NaN where empty)."""
    counts = bin_sums(idx, None, n_intervals)
    with np.errstate(invalid="ignore", divide="ignore"):
        return [counts, *[bin_sums(idx, v, n_intervals) / counts for v in values]]


@dataclass(frozen=True)
class EUReliability:
    r"""Per-interval averages behind the EECE (EU paper, Def. 5 and Fig. 3).

    Attributes
    ----------
    cuts : ndarray, shape (M - 1,)
        Interior cuts of the intervals (``edges`` is its old name).
    counts : ndarray of int, shape (M,)
        :math:`|B_m|`.
    mean_eu : ndarray, shape (M,)
        :math:`\hat{\mathcal E}(B_m)` (NaN for an empty interval).
    mean_gain : ndarray, shape (M,)
        :math:`\mathrm{gain}(B_m)` (NaN for an empty interval).
    """

    cuts: np.ndarray
    counts: np.ndarray
    mean_eu: np.ndarray
    mean_gain: np.ndarray

    edges = _edges_property("EUReliability")

    @property
    def eece(self) -> float:
        r"""Weighted average :math:`\sum_m \frac{|B_m|}{T}\,|\mathrm{gain}(B_m) - \hat{\mathcal E}(B_m)|`."""
        keep = self.counts > 0
        w = self.counts[keep] / self.counts.sum()
        return float(np.sum(w * np.abs(self.mean_gain[keep] - self.mean_eu[keep])))


@renamed(edges="cuts")
def eu_reliability(eu, gain, *, cuts=None, n_bins: int = 20, bin_by=None) -> EUReliability:
    r"""Mean EU estimate and mean accuracy gain in each interval (EU paper, Def. 5, Fig. 3).

    .. math::

        B_m = \{i : b_i \in I_m\}, \quad
        \mathrm{gain}(B_m) = \frac{1}{|B_m|}\sum_{i\in B_m} \mathrm{gain}(x_i, y_i), \quad
        \hat{\mathcal E}(B_m) = \frac{1}{|B_m|}\sum_{i\in B_m} \hat{\mathcal E}(x_i),

    where the binning values :math:`b_i` are the estimates themselves (``bin_by=None``) or another
    array. To evaluate calibrated estimates :math:`\gamma(\hat{\mathcal E})` on the intervals of the
    raw estimates, as Fig. 3 of the paper does (interval number of the raw estimate on the x-axis),
    pass ``eu=gamma(raw)`` and ``bin_by=raw``; because :math:`\gamma` is non-decreasing these are also
    intervals of the calibrated values. This is the design choice behind the "Calib. EECE" of
    :func:`evaluate_eu` (the paper does not spell it out).

    Ties at a cut. Interval :math:`m` is :math:`[e_m, e_{m+1})`: a binning value equal to a cut falls in the
    interval *above* it (:func:`interval_index`). Ties are common: the mutual information is clipped at 0, so
    many estimates are exactly 0; then several equal-mass cuts of :func:`interval_cuts` are 0 as well, every
    estimate equal to 0 falls in the interval above the last of those cuts, and the intervals below it stay
    empty (count 0, left out of the EECE). Values tied at an interior cut likewise all go to the upper
    interval, so its count exceeds the others'.

    Parameters
    ----------
    eu : array-like, shape (T,)
        EU estimates :math:`\hat{\mathcal E}(x_i)`.
    gain : array-like, shape (T,)
        Accuracy gains (:func:`accuracy_gain`).
    cuts : array-like, optional
        Interior cuts of the intervals; by default :func:`interval_cuts` of the binning values with
        ``n_bins`` (``edges`` is its old name).
    n_bins : int, default=20
        Used only when `cuts` is None.
    bin_by : array-like, shape (T,), optional
        Values that define the intervals (default: `eu`).

    Returns
    -------
    EUReliability

    Examples
    --------
    >>> rel = eu_reliability([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], n_bins=2)
    >>> rel.counts, rel.mean_eu.round(2), rel.mean_gain
    (array([2, 2]), array([0.15, 0.35]), array([0. , 0.5]))
    """
    e = _vector(eu, "eu")
    g = _vector(gain, "gain", n=e.shape[0])
    b = e if bin_by is None else _vector(bin_by, "bin_by", n=e.shape[0])
    cuts = interval_cuts(b, n_bins=n_bins) if cuts is None else _cuts(cuts)
    counts, mean_eu, mean_gain = _interval_means(cut_index(b, cuts), cuts.shape[0] + 1, e, g)
    return EUReliability(cuts=cuts, counts=counts, mean_eu=mean_eu, mean_gain=mean_gain)


@renamed(edges="cuts")
def eece(eu, gain, *, cuts=None, n_bins: int = 20, bin_by=None) -> float:
    r"""Epistemic expected calibration error (EU paper, Def. 5), as a weighted average over intervals.

    .. math::

        \mathrm{EECE} = \sum_{m=1}^M \frac{|B_m|}{T}\,
        \bigl|\mathrm{gain}(B_m) - \hat{\mathcal E}(B_m)\bigr|

    with :math:`B_m`, :math:`\mathrm{gain}(B_m)`, :math:`\hat{\mathcal E}(B_m)` as in
    :func:`eu_reliability` and, by default, the ``n_bins`` equal-mass intervals of Sec. 5.2.

    Normalisation. Def. 5 prints :math:`\frac1M\sum_m |B_m|\,|\mathrm{gain}(B_m) -
    \hat{\mathcal E}(B_m)|`, which is :math:`T/M` times the weighted average and grows with the test
    size :math:`T`; the text ("the average of the absolute differences, weighted by the number of
    points in each bin", the analogy with the ECE of Guo et al. 2017) and the magnitudes of Tables 1-2
    (0.004-0.4) match the weighted average implemented here. With exactly equal-mass intervals the
    weighted average equals the plain mean :math:`\frac1M\sum_m|\mathrm{gain}(B_m) -
    \hat{\mathcal E}(B_m)|`, so the printed :math:`|B_m|` is presumably a slip.

    References
    ----------
    EU paper, Definition 5 and Sec. 5.2 (20 intervals); Guo et al. (2017) for the ECE.

    Examples
    --------
    Two intervals; gain means 0 and 0.5, EU means 0.15 and 0.35: ``(|0 − 0.15| + |0.5 − 0.35|) / 2``.

    >>> round(eece([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], n_bins=2), 6)
    0.15
    """
    return eu_reliability(eu, gain, cuts=cuts, n_bins=n_bins, bin_by=bin_by).eece


def epistemic_correlation(eu, gain) -> float:
    r"""Epistemic correlation :math:`\rho_{epi}` (EU paper, Def. 6): Spearman's rank correlation.

    .. math::

        \rho_{epi} = r_s\bigl(\{\hat{\mathcal E}(x_i), \mathrm{gain}(x_i, y_i)\}_{i=1}^T\bigr)

    computed with :func:`scipy.stats.spearmanr` (ties get average ranks, which matters because the
    gain takes only the values -1, 0, 1). NaN, without a warning, when either input is constant.

    References
    ----------
    EU paper, Definition 6.

    Examples
    --------
    >>> epistemic_correlation([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    0.8944271909999159
    """
    e = _vector(eu, "eu")
    g = _vector(gain, "gain", n=e.shape[0])
    if e.shape[0] < 2 or np.all(e == e[0]) or np.all(g == g[0]):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        return float(stats.spearmanr(e, g).statistic)


# ------------------------------------------------------------------------------ Sec. 4.3
@dataclass(frozen=True)
class EUCalibrationMap:
    r"""A calibration map :math:`\gamma` for EU estimates (EU paper, Sec. 4.3); call it on estimates.

    Attributes
    ----------
    cuts : ndarray, shape (M - 1,)
        Interior cuts of the intervals :math:`I_m` (``edges`` is its old name).
    counts : ndarray of int, shape (M,)
        Calibration points per interval.
    bin_gain : ndarray, shape (M,)
        :math:`\bar\gamma_m`, the mean accuracy gain per interval (NaN when empty).
    x_thresholds, y_thresholds : ndarray
        Knots of the fitted isotonic regression (``IsotonicRegression.X_thresholds_`` and
        ``y_thresholds_``); :math:`\gamma` interpolates linearly between them and is constant
        beyond them, exactly as ``IsotonicRegression(out_of_bounds="clip").predict``.
    """

    cuts: np.ndarray
    counts: np.ndarray
    bin_gain: np.ndarray
    x_thresholds: np.ndarray
    y_thresholds: np.ndarray

    edges = _edges_property("EUCalibrationMap")

    def __call__(self, eu) -> np.ndarray:
        """Calibrated estimates :math:`\\gamma(\\hat{\\mathcal E}(x))`, shape (N,)."""
        return np.interp(_vector(eu, "eu"), self.x_thresholds, self.y_thresholds)


@renamed(edges="cuts")
def fit_eu_calibration(eu, gain, *, cuts, clip: bool = True) -> EUCalibrationMap:
    r"""Learn the EU calibration map :math:`\gamma` on calibration data (EU paper, Sec. 4.3).

    On :math:`\mathcal D_{test,2}` with estimates :math:`\hat{\mathcal E}(x_i)` (from
    :math:`\mathcal D_{train,2}`) and gains of :math:`\hat f_{aug,2}` over :math:`\hat f_{tr,2}`:

    .. math::

        \bar\gamma_m = \frac{1}{|B_m|}\sum_{i \in B_m} \mathrm{gain}(x_i, y_i), \qquad
        \hat\gamma_i = \bar\gamma_{m_i}, \qquad
        \gamma = \mathrm{IsotonicRegression}\bigl(\{(\hat{\mathcal E}(x_i), \hat\gamma_i)\}_{i=1}^T\bigr),

    with :math:`B_m = \{i : \hat{\mathcal E}(x_i) \in I_m\}` for the intervals :math:`I_m` of the
    *evaluation* test set (Sec. 5.2, steps 3-4: the partition is computed on the EU estimates on
    :math:`\mathcal D_{test}` and then used here). The isotonic regression is
    :class:`sklearn.isotonic.IsotonicRegression` (non-decreasing; ``out_of_bounds="clip"``). With
    ``clip=True`` its outputs are bounded to [0, 1], the range :math:`\gamma:[0,1]\to[0,1]` stated in
    the paper (a negative mean gain is sampling noise: :math:`\mathcal E \ge 0` by Def. 3).

    Parameters
    ----------
    eu : array-like, shape (T,)
        EU estimates on the calibration test set.
    gain : array-like, shape (T,)
        Accuracy gains on the calibration test set (:func:`accuracy_gain`).
    cuts : array-like, shape (M - 1,)
        Interior cuts of :math:`I_1, \dots, I_M` (:func:`interval_cuts` of the evaluation estimates;
        ``edges`` is its old name).
    clip : bool, default=True
        Bound :math:`\gamma` to [0, 1] (``y_min=0, y_max=1``).

    Returns
    -------
    EUCalibrationMap

    References
    ----------
    EU paper, Sec. 4.3 (equations for :math:`\bar\gamma_m`, :math:`\hat\gamma_i` and :math:`\gamma`) and
    Sec. 5.2.

    Examples
    --------
    >>> gamma = fit_eu_calibration([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], cuts=[0.25])
    >>> gamma.bin_gain, gamma([0.0, 0.2, 0.35, 1.0])
    (array([0. , 0.5]), array([0. , 0. , 0.5, 0.5]))
    """
    from sklearn.isotonic import IsotonicRegression

    e = _vector(eu, "eu")
    g = _vector(gain, "gain", n=e.shape[0])
    cuts = _cuts(cuts)
    idx = cut_index(e, cuts)
    counts, bin_gain = _interval_means(idx, cuts.shape[0] + 1, g)
    gamma_hat = bin_gain[idx]
    bounds = dict(y_min=0.0, y_max=1.0) if clip else {}
    iso = IsotonicRegression(increasing=True, out_of_bounds="clip", **bounds).fit(e, gamma_hat)
    return EUCalibrationMap(
        cuts=cuts,
        counts=counts,
        bin_gain=bin_gain,
        x_thresholds=np.asarray(iso.X_thresholds_, dtype=np.float64),
        y_thresholds=np.asarray(iso.y_thresholds_, dtype=np.float64),
    )


@dataclass(frozen=True)
class EUEvaluation:
    """Evaluation metrics of one EU estimator (one row of Tables 1-2 of the EU paper).

    Attributes
    ----------
    rho_epi : float
        Epistemic correlation of the raw estimates (Def. 6).
    eece : float
        EECE of the raw estimates (Def. 5).
    calibrated_eece : float
        EECE of :math:`\\gamma(\\hat{\\mathcal E})` on the intervals of the raw estimates (NaN without a map).
    reliability, calibrated_reliability : EUReliability or None
        Per-interval averages (Fig. 3); the second is None without a map.
    """

    rho_epi: float
    eece: float
    calibrated_eece: float
    reliability: EUReliability
    calibrated_reliability: EUReliability | None


@renamed(edges="cuts")
def evaluate_eu(eu, gain, *, cuts=None, n_bins: int = 20, calibration: EUCalibrationMap | None = None) -> EUEvaluation:
    r"""All metrics of Sec. 5.2, step 5, for one estimator on the evaluation test set.

    :math:`\rho_{epi}` (Def. 6), the EECE (Def. 5) on the intervals of the interior `cuts` (``edges`` is
    its old name; by default the
    ``n_bins`` equal-mass intervals of `eu`), and, given a map :math:`\gamma` from
    :func:`fit_eu_calibration`, the EECE of :math:`\gamma(\hat{\mathcal E})` on the same intervals.

    Examples
    --------
    >>> ev = evaluate_eu([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 0], n_bins=2)
    >>> round(ev.eece, 6), round(ev.rho_epi, 4), ev.calibrated_eece
    (0.15, 0.2582, nan)
    """
    e = _vector(eu, "eu")
    g = _vector(gain, "gain", n=e.shape[0])
    cuts = interval_cuts(e, n_bins=n_bins) if cuts is None else _cuts(cuts)
    rel = eu_reliability(e, g, cuts=cuts)
    cal_rel = None
    if calibration is not None:
        if not isinstance(calibration, EUCalibrationMap):
            raise ValueError(f"calibration must be an EUCalibrationMap or None; got {type(calibration).__name__}")
        cal_rel = eu_reliability(calibration(e), g, cuts=cuts, bin_by=e)
    return EUEvaluation(
        rho_epi=epistemic_correlation(e, g),
        eece=rel.eece,
        calibrated_eece=float("nan") if cal_rel is None else cal_rel.eece,
        reliability=rel,
        calibrated_reliability=cal_rel,
    )
