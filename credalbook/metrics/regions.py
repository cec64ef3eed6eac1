r"""Calibration-region criteria of Wu & Gales (2021, Sec. 3) in their sample-based forms.

A *calibration region* collects the instances (and classes) whose predicted probability lies
within :math:`\epsilon` of a value :math:`p` (Eq. 9); the top-label region keeps only the predicted
class (Eq. 11):

.. math::
    \mathcal S_j^p(\epsilon) = \{i : |\hat p_{ij} - p| \le \epsilon\}, \qquad
    \tilde{\mathcal S}_j^p(\epsilon) = \mathcal S_j^p(\epsilon) \cap \{i : j = \hat y_i\},

with centres :math:`p \in \mathcal P(\epsilon) = \{(2z-1)\epsilon : z = 1, 2, \dots\}`. The four
criteria sum the residuals :math:`\hat p_{ij} - \delta(y_i, \omega_j)` over a region and take
absolute values, either after pooling the classes that share :math:`p` (ACE, ECE) or per class
(ACCE, ECCE):

.. math::
    \mathrm{ACE} = \frac1{NK} \sum_p \Bigl|\sum_j \sum_{i\in\mathcal S_j^p} r_{ij}\Bigr| \;(\text{Eq. 12}),
    \qquad
    \mathrm{ACCE} = \frac1{NK} \sum_j \sum_p \Bigl|\sum_{i\in\mathcal S_j^p} r_{ij}\Bigr| \;(\text{Eq. 6}),

.. math::
    \mathrm{ECE} = \frac1N \sum_p \Bigl|\sum_j \sum_{i\in\tilde{\mathcal S}_j^p} r_{ij}\Bigr| \;(\text{Eq. 13-14}),
    \qquad
    \mathrm{ECCE} = \frac1N \sum_j \sum_p \Bigl|\sum_{i\in\tilde{\mathcal S}_j^p} r_{ij}\Bigr| \;(\text{Sec. 3.1}),

so that ACE ≤ ACCE and ECE ≤ ECCE (triangle inequality). Wu & Gales' ACE is
:func:`all_label_ece` here: the name ``ace`` belongs to the adaptive calibration error of Nixon et al.
(2019), :func:`credalbook.metrics.ace`, a different quantity. The normalisations follow Eqs. 6-7: ACE
and ACCE carry a :math:`1/K`, the top-label criteria do not (consistent with Tables 1-7, which
print ACE and ACCE in units of 1e-4 and ECE and ECCE in units of 1e-2 for K = 100, with
ECCE ≥ ECE and ACCE ≥ ACE in every row).

**Regions used here.** Read literally, Eq. 9 uses closed intervals (a value on a boundary belongs
to two regions) and :math:`\mathcal P(\epsilon)` always contains :math:`p = 1` (the ``min{1, ·}``),
whose region :math:`[1-\epsilon, 1]` overlaps the last one. We use the partition that the
construction describes: cells :math:`[2(z-1)\epsilon, 2z\epsilon)` of width :math:`2\epsilon` centred on
:math:`(2z-1)\epsilon`, the last one truncated at 1 and right-closed, so every prediction is counted
once. Hence

- ``epsilon = 1 / (2 B)`` gives the B equal-width bins of :mod:`credalbook.metrics` (the paper's
  tables use 15 bins, ``epsilon = 1/30``, the default here; see :func:`epsilon_from_bins`).
  ε is a half-width (Eq. 3), so B bins are ε = 1/(2B), not 1/B;
- ``epsilon >= 1/2`` gives one region: the global criteria of Eqs. 15-16. ACCE then is the mean
  absolute global gap of Eq. 15 and ECE the absolute gap of Eq. 16, while ACE is identically
  zero for *every* predictor (rows of probabilities and of one-hot labels both sum to one), which
  is why ACE "reduces to zero" at ε = 1 in the paper's Fig. 4a; Eq. 15 must be checked with ACCE
  or :func:`global_calibration_gap`;
- ``epsilon = 0`` makes each distinct predicted value its own region (the :math:`\mathcal R(\theta, 0)`
  of App. A.3, Example 3).

**Relation to** :mod:`credalbook.metrics` (tested in ``tests/metrics/test_regions.py``),
for ``epsilon = 1 / (2 * n_bins)``:

- ``ece(p, y, epsilon=ε) == ece_confidence(p, y, n_bins=B)`` (Guo et al.'s ECE, Eqs. 13-14);
- ``acce(p, y, epsilon=ε) == ece_classwise(p, y, n_bins=B)`` (classwise ECE, Kull et al. 2019);
- ``all_label_ece(p, y, epsilon=ε) == reliability_curve(p, y, n_bins=B, kind="classwise").calibration_error``
  (all (instance, class) pairs pooled into one reliability diagram);
- ``ecce(p, y, epsilon=ε) == Σ_j (N_j / N) · ece_confidence(p[ŷ = j], y[ŷ = j], n_bins=B)``, the
  confidence ECE computed separately on the instances predicted as each class ``j``.

For ``epsilon = 0`` or a ``1 / (2 epsilon)`` that is not an integer there is no counterpart in
:mod:`credalbook.metrics`. Ties in the arg-max go to the lowest class index, as there.

**True distributions instead of labels.** Every function here accepts ``labels`` either as
integer classes (N,) or as rows (N, K) on the simplex, the true class probabilities
:math:`P(\omega_j \mid \mathbf x_i)` of the distributional definitions (Eqs. 2 and 5); the
one-hot label is then replaced by that row. The toy examples of App. A.3
(:mod:`credalbook.papers.wu_gales.toys`) know these probabilities.

The top-label ECE of Eqs. 13-14 is :func:`credalbook.metrics.ece`, a thin alias of
:func:`credalbook.metrics.ece_confidence` next to it (``epsilon = 1/(2B)`` is ``n_bins=B``, bit for bit);
the SKCE with a Laplacian kernel of the tables is :func:`credalbook.metrics.skce_laplacian` and its
bandwidth :func:`credalbook.metrics.median_heuristic`. The NLL of the tables is
:func:`credalbook.metrics.nll`; :func:`credalbook.metrics.criteria_summary` collects one table row
(:mod:`credalbook.metrics.criteria`).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 3, Eqs. 2-16.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._validation import (
    as_numpy,
    check_binary_labels,
    check_labels,
    check_n_bins,
    check_probs,
    check_probs_or_scores,
)
from credalbook.metrics.binning import _equal_width_statistics, bin_index, bin_sums, equal_width_bin_index, one_hot

__all__ = [
    "DEFAULT_EPSILON",
    "epsilon_from_bins",
    "region_ids",
    "all_label_ece",
    "acce",
    "ecce",
    "global_calibration_gap",
    "global_top_label_gap",
    "check_epsilon",
    "check_probs_label_rows",
    "region_ids",
]

#: Region half-width of the paper's tables: 15 equal-width bins (App. A.4, following Guo et al.).
DEFAULT_EPSILON = 1.0 / 30.0


# ----------------------------------------------------------------------------------------------
# Inputs and regions
# ----------------------------------------------------------------------------------------------
def check_probs_label_rows(probs, labels, *, label_rows: bool = True) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate (N, K) probabilities (or (N,) binary scores P(y = 1): rows [1 - p, p]) and labels (N,) or label
    rows (N, K); return p, label rows, is_onehot.

    Integer labels become one-hot float64 rows (with ``label_rows=False`` they are returned as the int64
    labels (N,)); label rows (true class probabilities) must lie on the simplex.

    Examples
    --------
    >>> p, t, onehot = check_probs_label_rows([[0.7, 0.3]], [1])
    >>> t.tolist(), onehot
    ([[0.0, 1.0]], True)
    """
    p, binary = check_probs_or_scores(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    n, k = p.shape
    raw = as_numpy(labels, "labels")
    if raw.ndim == 2:
        if raw.shape != p.shape:
            raise ValueError(
                f"labels given as class probabilities must have shape {p.shape} like probs; got {raw.shape}"
            )
        return p, check_probs(raw, name="labels"), False
    y = check_binary_labels(raw, n) if binary else check_labels(raw, n_classes=k, shape=(n,))
    return p, (one_hot(y, k) if label_rows else y), True


def check_epsilon(epsilon) -> float:
    """Validate a region half-width ε in [0, 1] and return it as a float.

    Examples
    --------
    >>> check_epsilon(1 / 30) == DEFAULT_EPSILON
    True
    """
    if isinstance(epsilon, (bool, np.bool_, str, bytes)):  # float(True) == 1.0 and float("0.1") would pass
        raise ValueError(f"epsilon must be a number in [0, 1]; got {epsilon!r}")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a number in [0, 1]; got {epsilon!r}") from None
    if not (math.isfinite(eps) and 0.0 <= eps <= 1.0):
        raise ValueError(f"epsilon must lie in [0, 1]; got {epsilon!r}")
    return eps


def epsilon_from_bins(n_bins: int) -> float:
    r"""Region half-width :math:`\epsilon = 1 / (2B)` that reproduces B equal-width bins.

    Examples
    --------
    >>> epsilon_from_bins(15)   # the paper's tables
    0.03333333333333333
    """
    return 1.0 / (2 * check_n_bins(n_bins))


def region_ids(values: np.ndarray, epsilon: float) -> tuple[np.ndarray, int]:
    """Region index of each value (any shape) and the number of regions; no validation.

    ε = 0: one region per distinct value. ε > 0: cells [2(z-1)ε, 2zε), the last truncated at 1 and
    right-closed; when 1/(2ε) is an integer B, exactly
    ``credalbook.metrics.binning.equal_width_bin_index`` with B bins.

    Examples
    --------
    >>> ids, n = region_ids(np.array([0.0, 0.1, 0.5, 1.0]), 0.25)   # two regions, [0, 0.5) and [0.5, 1]
    >>> ids.tolist(), n
    ([0, 0, 1, 1], 2)
    """
    if epsilon == 0.0:
        uniq, inv = np.unique(values.ravel(), return_inverse=True)
        return inv.reshape(values.shape), len(uniq)
    b = equal_width_regions(epsilon)
    if b is not None:
        return equal_width_bin_index(values, b), b
    n = math.ceil(1.0 / (2.0 * epsilon))
    return bin_index(values, 2.0 * epsilon * np.arange(n + 1)), n


def equal_width_regions(epsilon: float) -> int | None:
    """B when the regions of half-width ``epsilon`` are B equal-width bins (1/(2ε) an integer, to 1e-9), else None.

    Examples
    --------
    >>> equal_width_regions(1 / 30), equal_width_regions(0.3), equal_width_regions(0.0)
    (15, None, None)
    """
    if epsilon <= 0.0:
        return None
    x = 1.0 / (2.0 * epsilon)
    b = round(x)
    return b if abs(x - b) <= 1e-9 * max(1.0, x) else None


def _abs_engine_sums(p: np.ndarray, y: np.ndarray, n_bins: int, *, pooled: bool) -> float:
    """Σ over bins of |Σ residuals| for (N, K) probabilities ``p`` and integer labels ``y`` (N,), with B equal-width
    bins per class (``pooled=False``) or shared by the classes (``pooled=True``): the value of
    :func:`_abs_region_sums` of ``p - one_hot(y)`` bit for bit, from the binning engine
    (``credalbook.metrics.binning._equal_width_statistics``), without the one-hot rows. The engine sums o - x
    where the regions sum x - o; each term and every partial sum is the other's exact negative (IEEE rounding
    is symmetric), so the absolute values agree."""
    gap = _equal_width_statistics(p[None], y[None], n_bins, counts=False, pooled=pooled)[0]
    return float(np.abs(gap.reshape(-1)).sum())


def _abs_region_sums(ids: np.ndarray, residuals: np.ndarray, n_regions: int) -> float:
    """Σ over regions of |Σ residuals in the region|."""
    return float(np.abs(bin_sums(ids.ravel(), residuals.ravel(), n_regions)).sum())


def _all_label_error(probs, labels, epsilon, *, per_class: bool) -> float:
    """ACE (regions pooled over the classes) or, with ``per_class``, ACCE (one set of regions per class), checked:
    from the binning engine for integer labels and equal-width regions, else from the regions of ``p - t``."""
    eps = check_epsilon(epsilon)
    p, t, onehot = check_probs_label_rows(probs, labels, label_rows=False)
    if onehot and (b := equal_width_regions(eps)) is not None:
        return _abs_engine_sums(p, t, b, pooled=not per_class) / p.size
    if onehot:
        t = one_hot(t, p.shape[1])
    ids, n_regions = region_ids(p, eps)
    if per_class:
        ids = ids + n_regions * np.arange(p.shape[1])  # one set of regions per class
        n_regions *= p.shape[1]
    return _abs_region_sums(ids, p - t, n_regions) / p.size


def _top_label(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted class, confidence and target probability of the predicted class."""
    yhat = p.argmax(axis=1)
    rows = np.arange(len(p))
    return yhat, p[rows, yhat], t[rows, yhat]


def _region_ece(p: np.ndarray, t: np.ndarray, eps: float) -> float:
    """Eqs. 13-14 on checked (N, K) probabilities and label rows, for any ε (see :func:`credalbook.metrics.ece`)."""
    _, conf, t_top = _top_label(p, t)
    ids, n_regions = region_ids(conf, eps)
    return _abs_region_sums(ids, conf - t_top, n_regions) / len(p)


# ----------------------------------------------------------------------------------------------
# Region criteria
# ----------------------------------------------------------------------------------------------
def all_label_ece(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""All-label calibration error, which Wu & Gales call ACE (Wu & Gales 2021, Eq. 12; distributional form Eq. 6).

    Not to be confused with :func:`credalbook.metrics.ace`, the adaptive calibration error of Nixon et
    al. (2019): a classwise error with equal-mass ranges and a different value.

    .. math::
        \mathrm{ACE}(\epsilon) = \frac1{NK} \sum_{p\in\mathcal P(\epsilon)}
        \Bigl| \sum_{j=1}^K \sum_{i\in\mathcal S_j^p(\epsilon)}
        \bigl(\hat p_{ij} - \delta(y_i, \omega_j)\bigr) \Bigr|

    All (instance, class) pairs whose probability falls in the same region are pooled before the
    absolute value. Regions are described in the module docstring; with
    ``epsilon = 1/(2B)`` this is the calibration error of the pooled classwise reliability curve
    (:func:`credalbook.metrics.reliability_curve` with ``kind="classwise"``). It is zero for every
    predictor at ``epsilon >= 1/2``.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    labels : array-like, shape (N,) of int, or (N, K) true class probabilities
    epsilon : float in [0, 1], default 1/30
        Region half-width (Eq. 9); 0 gives one region per distinct predicted value.

    Returns
    -------
    float

    References
    ----------
    Wu & Gales (2021), Eqs. (6), (9), (12); Hendrycks et al. (2019).

    Examples
    --------
    Probabilities 0.9 (label 1) and 0.1 (label 0) fall into separate regions at ε = 0.05:

    >>> round(all_label_ece([[0.9, 0.1], [0.9, 0.1]], [0, 1], epsilon=0.05), 6)   # (|1.8-1| + |0.2-1|) / 4
    0.4
    >>> all_label_ece([[0.9, 0.1], [0.9, 0.1]], [0, 1], epsilon=1.0)             # one region: always 0
    0.0
    """
    return _all_label_error(probs, labels, epsilon, per_class=False)


def acce(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""All-label class-wise calibration error ACCE (Wu & Gales 2021, Eq. 6, sample form).

    .. math::
        \mathrm{ACCE}(\epsilon) = \frac1{NK} \sum_{j=1}^K \sum_{p\in\mathcal P(\epsilon)}
        \Bigl| \sum_{i\in\mathcal S_j^p(\epsilon)} \bigl(\hat p_{ij} - \delta(y_i, \omega_j)\bigr) \Bigr|

    With ``epsilon = 1/(2B)`` this equals :func:`credalbook.metrics.ece_classwise` with B bins; at
    ``epsilon >= 1/2`` it is :math:`\frac1K\sum_j|g_j|` with :math:`g` the global gaps of Eq. 15
    (:func:`global_calibration_gap`).

    Parameters and return value as in :func:`all_label_ece`.

    References
    ----------
    Wu & Gales (2021), Eqs. (6), (9); Kull et al. (2019); Kumar et al. (2019).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(acce(p, [0, 0, 0, 1], epsilon=0.05), 6)   # = ece_classwise(p, y, n_bins=10)
    0.45
    """
    return _all_label_error(probs, labels, epsilon, per_class=True)


def ecce(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""Top-label class-wise calibration error ECCE (Wu & Gales 2021, Sec. 3.1).

    .. math::
        \mathrm{ECCE}(\epsilon) = \frac1N \sum_{j=1}^K \sum_{p\in\mathcal P(\epsilon)}
        \Bigl| \sum_{i\in\tilde{\mathcal S}_j^p(\epsilon)} \bigl(\hat p_{ij} - \delta(y_i, \omega_j)\bigr) \Bigr|

    The paper defines ECCE only in words, as the top-label counterpart of ACCE; like ECE it has
    no :math:`1/K`, which matches its tables (ECCE ≥ ECE there). Equivalently, the confidence ECE
    computed separately on the instances predicted as each class, weighted by their share.

    Parameters and return value as in :func:`all_label_ece`.

    References
    ----------
    Wu & Gales (2021), Sec. 3.1 and Eqs. (4), (6), (11).

    Examples
    --------
    Two instances at confidence 0.8, predicted as different classes, one of them correct: ECE
    pools them (gap 0.8 + 0.8 − 1), ECCE does not.

    >>> from credalbook.metrics import ece
    >>> p, y = [[0.8, 0.2], [0.2, 0.8]], [0, 0]
    >>> round(ece(p, y, epsilon=0.05), 6), round(ecce(p, y, epsilon=0.05), 6)
    (0.3, 0.5)
    """
    eps = check_epsilon(epsilon)
    p, t = check_probs_label_rows(probs, labels)[:2]
    yhat, conf, t_top = _top_label(p, t)
    ids, n_regions = region_ids(conf, eps)
    return _abs_region_sums(ids + n_regions * yhat, conf - t_top, n_regions * p.shape[1]) / len(p)


# ----------------------------------------------------------------------------------------------
# Global calibration (ε = 1)
# ----------------------------------------------------------------------------------------------
def global_calibration_gap(probs, labels) -> np.ndarray:
    r"""Per-class global calibration gap (Wu & Gales 2021, Eq. 15).

    .. math:: g_j = \frac1N\sum_{i=1}^N \hat p_{ij} - \frac1N\sum_{i=1}^N \delta(y_i, \omega_j)

    A model is globally calibrated when all :math:`g_j = 0`. The gaps sum to zero over classes.

    Returns
    -------
    ndarray, shape (K,)

    Examples
    --------
    >>> global_calibration_gap([[0.7, 0.3], [0.5, 0.5]], [0, 1]).round(6).tolist()
    [0.1, -0.1]
    """
    p, t = check_probs_label_rows(probs, labels)[:2]
    return (p - t).mean(axis=0)


def global_top_label_gap(probs, labels) -> float:
    r"""Global top-label calibration gap: mean confidence minus accuracy (Wu & Gales 2021, Eq. 16).

    .. math:: g = \frac1N\sum_{i=1}^N \hat p_{i\hat y_i} - \frac1N\sum_{i=1}^N \delta(y_i, \hat y_i)

    Positive: over-confident; negative: under-confident; zero: globally top-label calibrated.

    Examples
    --------
    >>> round(global_top_label_gap([[0.7, 0.3], [0.4, 0.6]], [0, 0]), 6)   # 0.65 - 0.5
    0.15
    """
    p, t = check_probs_label_rows(probs, labels)[:2]
    _, conf, t_top = _top_label(p, t)
    return float((conf - t_top).mean())
