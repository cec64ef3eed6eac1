r"""Calibration criteria of Wu & Gales (2021, Sec. 3) in their sample-based forms.

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

**Relation to** :mod:`credalbook.metrics` (tested to 1e-12 in ``tests/test_calibration_criteria.py``),
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

The NLL of the tables is :func:`credalbook.metrics.nll`; :func:`criteria_summary` collects one
table row.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 3, Eqs. 2-16.
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019 (SKCE).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import pdist

from credalbook._validation import (as_numpy, as_rng, check_choice, check_labels, check_n_bins, check_positive_float,
                                    check_positive_int, check_probs, check_seed)
from credalbook.synthetic.predictions import sample_labels
from credalbook.metrics.classification import accuracy as _accuracy
from credalbook.metrics.binning import bin_index, bin_sums, equal_width_bin_index
from credalbook.metrics.classification import nll as _nll
from credalbook.metrics.classification import one_hot
from credalbook.metrics.kernel import (
    AUTO_BLOCK_SIZE,
    LaplacianKernel,
    _check_block_size,
    resolve_estimator,
    skce_batched,
)

__all__ = [
    "DEFAULT_EPSILON",
    "epsilon_from_bins",
    "check_epsilon",
    "check_probs_targets",
    "region_ids",
    "all_label_ece",
    "acce",
    "ece",
    "ecce",
    "global_calibration_gap",
    "global_top_label_gap",
    "median_heuristic",
    "skce_laplacian",
    "criteria_summary",
    "calibrated_sampling_floor",
]

#: Region half-width of the paper's tables: 15 equal-width bins (App. A.4, following Guo et al.).
DEFAULT_EPSILON = 1.0 / 30.0


# ----------------------------------------------------------------------------------------------
# Inputs and regions
# ----------------------------------------------------------------------------------------------
def check_probs_targets(probs, labels) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate (N, K) probabilities and labels (N,) or target rows (N, K); return p, targets, is_onehot.

    Integer labels become one-hot float64 rows; target rows must lie on the simplex.

    Examples
    --------
    >>> p, t, onehot = check_probs_targets([[0.7, 0.3]], [1])
    >>> t.tolist(), onehot
    ([[0.0, 1.0]], True)
    """
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    n, k = p.shape
    raw = as_numpy(labels, "labels")
    if raw.ndim == 2:
        if raw.shape != p.shape:
            raise ValueError(f"labels given as class probabilities must have shape {p.shape} like probs; got {raw.shape}")
        return p, check_probs(raw, name="labels"), False
    y = check_labels(raw, n_classes=k, shape=(n,))
    return p, one_hot(y, k), True


def check_epsilon(epsilon) -> float:
    """Validate a region half-width ε in [0, 1] and return it as a float.

    Examples
    --------
    >>> check_epsilon(1 / 30) == DEFAULT_EPSILON
    True
    """
    if isinstance(epsilon, (bool, np.bool_, str, bytes)):   # float(True) == 1.0 and float("0.1") would pass
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
    :func:`~credalbook.metrics.equal_width_bin_index` with B bins.

    Examples
    --------
    >>> ids, n = region_ids(np.array([0.0, 0.1, 0.5, 1.0]), 0.25)   # two regions, [0, 0.5) and [0.5, 1]
    >>> ids.tolist(), n
    ([0, 0, 1, 1], 2)
    """
    if epsilon == 0.0:
        uniq, inv = np.unique(values.ravel(), return_inverse=True)
        return inv.reshape(values.shape), len(uniq)
    x = 1.0 / (2.0 * epsilon)
    b = round(x)
    if abs(x - b) <= 1e-9 * max(1.0, x):
        return equal_width_bin_index(values, b), b
    n = math.ceil(x)
    return bin_index(values, 2.0 * epsilon * np.arange(n + 1)), n




def _abs_region_sums(ids: np.ndarray, residuals: np.ndarray, n_regions: int) -> float:
    """Σ over regions of |Σ residuals in the region|."""
    return float(np.abs(bin_sums(ids.ravel(), residuals.ravel(), n_regions)).sum())


def _top_label(p: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted class, confidence and target probability of the predicted class."""
    yhat = p.argmax(axis=1)
    rows = np.arange(len(p))
    return yhat, p[rows, yhat], t[rows, yhat]


# ----------------------------------------------------------------------------------------------
# Region criteria
# ----------------------------------------------------------------------------------------------
def all_label_ece(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""All-label calibration error, which Wu & Gales call ACE (Wu & Gales 2021, Eq. 12; distributional form Eq. 6).

    Named ``ace`` in credalbook before issue #27; that name now belongs to the adaptive calibration
    error of Nixon et al. (2019), :func:`credalbook.metrics.ace`, a classwise error with equal-mass
    ranges and a different value.

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
    eps = check_epsilon(epsilon)
    p, t = check_probs_targets(probs, labels)[:2]
    ids, n_regions = region_ids(p, eps)
    return _abs_region_sums(ids, p - t, n_regions) / p.size


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
    eps = check_epsilon(epsilon)
    p, t = check_probs_targets(probs, labels)[:2]
    ids, n_regions = region_ids(p, eps)
    ids = ids + n_regions * np.arange(p.shape[1])  # one set of regions per class
    return _abs_region_sums(ids, p - t, n_regions * p.shape[1]) / p.size


def ece(probs, labels, *, epsilon: float = DEFAULT_EPSILON) -> float:
    r"""Top-label expected calibration error ECE (Wu & Gales 2021, Eqs. 13-14).

    .. math::
        \mathrm{ECE}(\epsilon) = \frac1N \sum_{p\in\mathcal P(\epsilon)}
        \Bigl| \sum_{j=1}^K \sum_{i\in\tilde{\mathcal S}_j^p(\epsilon)}
        \bigl(\hat p_{ij} - \delta(y_i, \omega_j)\bigr) \Bigr|
        = \sum_p \frac{\sum_j |\tilde{\mathcal S}_j^p|}{N}\,
        \bigl|\mathrm{Conf}(p) - \mathrm{Acc}(p)\bigr|

    With ``epsilon = 1/(2B)`` this equals :func:`credalbook.metrics.ece_confidence` with B bins
    (Guo et al. 2017); at ``epsilon >= 1/2`` it is the absolute global top-label gap of Eq. 16.

    Parameters and return value as in :func:`all_label_ece`.

    References
    ----------
    Wu & Gales (2021), Eqs. (7), (11), (13)-(14); Guo et al. (2017).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece(p, [0, 0, 0, 1], epsilon=0.05), 6)   # (2/4)|0.5-0.9| + (2/4)|1-0.6|
    0.4
    """
    eps = check_epsilon(epsilon)
    p, t = check_probs_targets(probs, labels)[:2]
    _, conf, t_top = _top_label(p, t)
    ids, n_regions = region_ids(conf, eps)
    return _abs_region_sums(ids, conf - t_top, n_regions) / len(p)


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

    >>> p, y = [[0.8, 0.2], [0.2, 0.8]], [0, 0]
    >>> round(ece(p, y, epsilon=0.05), 6), round(ecce(p, y, epsilon=0.05), 6)
    (0.3, 0.5)
    """
    eps = check_epsilon(epsilon)
    p, t = check_probs_targets(probs, labels)[:2]
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
    p, t = check_probs_targets(probs, labels)[:2]
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
    p, t = check_probs_targets(probs, labels)[:2]
    _, conf, t_top = _top_label(p, t)
    return float((conf - t_top).mean())


# ----------------------------------------------------------------------------------------------
# SKCE with a Laplacian kernel
# ----------------------------------------------------------------------------------------------
def median_heuristic(probs, *, max_instances: int = 2000, seed=0) -> float:
    r"""Median of the pairwise Euclidean distances :math:`\lVert\hat{\mathbf p}_i - \hat{\mathbf p}_j\rVert_2`, i < j.

    The kernel bandwidth of Widmann et al. (2019). Above ``max_instances`` predictions the median
    is taken over the pairs of a random subset of that size (drawn with ``seed``), which keeps the
    cost at ~2·10⁶ distances. If more than half of the distances are zero, the median of the
    positive ones is returned (1.0 if all predictions coincide).

    Examples
    --------
    >>> round(median_heuristic([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), 6)   # distances √2/2, √2/2, √2
    0.707107
    """
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    if len(p) < 2:
        raise ValueError(f"probs must contain at least 2 instances for the median heuristic; got N = {len(p)}")
    m = check_positive_int(max_instances, "max_instances", minimum=2)
    rng = as_rng(seed)
    if len(p) > m:
        p = p[rng.choice(len(p), size=m, replace=False)]
    d = pdist(p)
    med = float(np.median(d))
    if med > 0:
        return med
    pos = d[d > 0]
    return float(np.median(pos)) if pos.size else 1.0


def skce_laplacian(probs, labels, *, bandwidth: float | None = None, max_instances: int = 2000, seed=0,
                   estimator: str = "auto", block_size: int = AUTO_BLOCK_SIZE) -> float:
    r"""Unbiased SKCE with a Laplacian kernel, as in Wu & Gales' Tables 1 and 5.

    .. math::
        \widehat{\mathrm{SKCE}}_{uq} = \binom N2^{-1} \sum_{i<j}
        e^{-\lVert\hat{\mathbf p}_i - \hat{\mathbf p}_j\rVert_2/\nu}\,
        (\hat{\mathbf p}_i - \mathbf e_{y_i})^\top (\hat{\mathbf p}_j - \mathbf e_{y_j})

    i.e. the matrix-valued kernel :math:`\Gamma = e^{-\lVert\mathbf p - \mathbf p'\rVert/\nu}\,
    \mathbf I_K` with bandwidth :math:`\nu` from :func:`median_heuristic` (Widmann et al. 2019,
    Sec. 6). This is :func:`credalbook.metrics.skce` with :class:`~credalbook.metrics.LaplacianKernel`;
    it is an unbiased estimate (it can be negative) and zero in expectation for a calibrated model.

    **Estimator.** The default ``estimator="auto"`` is the quadratic estimator above (all pairs,
    computed in tiles: N = 10⁴ takes about a second) for N <= ``QUADRATIC_MAX_N`` = 10⁴, the sizes
    of the paper's test sets, and above it the block estimator of Widmann et al. (2021): the same
    U-statistic averaged over consecutive blocks of ``block_size`` = 1000 instances, unbiased as
    well, in time linear in N (N = 10⁶, K = 10: seconds; all pairs would take hours). The
    bandwidth is computed on at most ``max_instances`` predictions, so it costs the same at any N.

    Parameters
    ----------
    probs : array-like, shape (N, K), N >= 2
    labels : array-like, shape (N,) of int, or (N, K) true class probabilities
    bandwidth : float or None
        :math:`\nu > 0`; None uses the median heuristic (which depends on ``probs`` only).
    max_instances, seed
        Passed to :func:`median_heuristic`.
    estimator : {"auto", "quadratic", "block", "linear"}, default "auto"
        See above and :func:`credalbook.metrics.skce`.
    block_size : int, default 1000
        Instances per block of the block estimator (2 <= ``block_size`` <= N).

    References
    ----------
    Widmann, Lindsten, Zachariah, NeurIPS 2019, Eq. (4) and Sec. 6; Widmann, Lindsten, Zachariah,
    Calibration tests beyond classification, ICLR 2021 (block estimator); Wu & Gales (2021), Sec. 4.3.

    Examples
    --------
    One pair at Euclidean distance √2·0.4 with bandwidth 1, residuals (−0.2, 0.2) and (0.4, −0.4):

    >>> round(skce_laplacian([[0.8, 0.2], [0.4, 0.6]], [0, 1], bandwidth=1.0), 6)   # -0.16 exp(-0.4√2)
    -0.090875
    """
    p, t = check_probs_targets(probs, labels)[:2]
    max_instances = check_positive_int(max_instances, "max_instances", minimum=2)   # checked even when unused
    seed = check_seed(seed)
    if len(p) < 2:
        raise ValueError(f"probs must contain at least 2 instances for the SKCE; got N = {len(p)}")
    est = resolve_estimator(estimator, len(p))
    if est == "block":
        _check_block_size(block_size, len(p))
    if bandwidth is None:
        nu = median_heuristic(p, max_instances=max_instances, seed=seed)
    else:
        nu = check_positive_float(bandwidth, "bandwidth")
    return float(skce_batched(p, t, LaplacianKernel(nu), estimator=est, block_size=block_size))


# ----------------------------------------------------------------------------------------------
# One row of the paper's tables
# ----------------------------------------------------------------------------------------------
def criteria_summary(probs, labels, *, epsilon: float = DEFAULT_EPSILON, skce: bool = True,
                     bandwidth: float | None = None, skce_estimator: str = "auto") -> dict:
    r"""Accuracy, NLL, ACCE, ACE, ECCE, ECE and SKCE of one model: a row of Tables 1-7.

    Keys: ``accuracy``, ``nll``, ``acce``, ``all_label_ece`` (the paper's ACE), ``ecce``, ``ece`` and
    (with ``skce=True``) ``skce``. Values are raw numbers; the paper prints ACE, ACCE and SKCE in units of 1e-4 and
    ECE, ECCE in units of 1e-2. With integer labels ``accuracy`` and ``nll`` are
    :func:`credalbook.metrics.accuracy` and :func:`credalbook.metrics.nll`; with true class
    probabilities they are their expectations, :math:`\frac1N\sum_i P(\hat y_i\mid\mathbf x_i)` and
    the cross-entropy :math:`-\frac1N\sum_{i,j} P(\omega_j\mid\mathbf x_i)\log\hat p_{ij}`.
    ``skce`` is :func:`skce_laplacian` with ``bandwidth`` and ``estimator=skce_estimator``: by
    default all pairs up to N = 10⁴ (``QUADRATIC_MAX_N``) and blocks of 1000 instances above, so
    a row at N = 10⁶ takes seconds.

    Examples
    --------
    >>> s = criteria_summary([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], [0, 1, 1], skce=False)
    >>> list(s), round(s["accuracy"], 4)
    (['accuracy', 'nll', 'acce', 'all_label_ece', 'ecce', 'ece'], 0.6667)
    """
    eps = check_epsilon(epsilon)
    p, t, onehot = check_probs_targets(probs, labels)
    if bandwidth is not None:   # checked even with skce=False
        bandwidth = check_positive_float(bandwidth, "bandwidth")
    if onehot:
        y = t.argmax(axis=1)
        acc, loss = _accuracy(p, y), _nll(p, y)
    else:
        acc = float(_top_label(p, t)[2].mean())
        loss = float(-(t * np.log(np.clip(p, 1e-12, None))).sum(axis=1).mean())
    out = {
        "accuracy": acc,
        "nll": loss,
        "acce": acce(p, t, epsilon=eps),
        "all_label_ece": all_label_ece(p, t, epsilon=eps),
        "ecce": ecce(p, t, epsilon=eps),
        "ece": ece(p, t, epsilon=eps),
    }
    if skce:
        out["skce"] = skce_laplacian(p, t, bandwidth=bandwidth, estimator=skce_estimator)
    return out


# ----------------------------------------------------------------------------------------------
# What a perfectly calibrated predictor would score on a finite test set
# ----------------------------------------------------------------------------------------------
def calibrated_sampling_floor(probs, criterion: str = "ece", *, epsilon: float = DEFAULT_EPSILON,
                              n_draws: int = 200, seed=None) -> tuple[float, float]:
    r"""Mean and standard deviation of a criterion when ``probs`` are *exactly* calibrated.

    Draws the labels from the predictor's own probabilities, :math:`y_i \sim \hat{\mathbf p}_i`
    (the null of consistency resampling, Vaicenavicius et al. 2019), ``n_draws`` times and scores
    ``probs`` against each draw. The sample criteria of Eqs. 6 and 12-14 sum absolute residuals,
    so they are positive even for a calibrated predictor; the mean returned here is that bias at
    this N and these confidences, and differences between calibration methods smaller than a
    few standard deviations of it cannot be told apart on this test set (Wu & Gales 2021 call such
    criteria "sample-based" and note their dependence on N in App. A.3).

    Parameters
    ----------
    probs : array-like, shape (N, K)
    criterion : {"ece", "ecce", "all_label_ece", "acce"}, default "ece"
    epsilon : float, default 1/30 (15 bins)
    n_draws : int, default 200
    seed : int, numpy Generator or None

    Returns
    -------
    (mean, sd) : tuple of float

    Examples
    --------
    A predictor that always says 0.9 for class 0, on N = 100: ECE = ``|mean correct − 0.9|`` with
    100 Bernoulli(0.9) draws, whose expectation is about :math:`\sqrt{2/\pi}\,\sqrt{0.09/100} \approx 0.024`.

    >>> p = np.tile([0.9, 0.1], (100, 1))
    >>> m, sd = calibrated_sampling_floor(p, n_draws=2000, seed=0)
    >>> round(m, 2)
    0.02
    """
    criteria = {"ece": ece, "ecce": ecce, "all_label_ece": all_label_ece, "acce": acce}
    check_choice(criterion, "criterion", tuple(criteria))
    n_draws = check_positive_int(n_draws, "n_draws")
    eps = check_epsilon(epsilon)
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got shape {p.shape}")
    rng = as_rng(seed)
    fn = criteria[criterion]
    draws = sample_labels(p, rng, size=n_draws)
    values = np.array([fn(p, y, epsilon=eps) for y in draws])
    return float(values.mean()), float(values.std(ddof=1)) if n_draws > 1 else math.nan
