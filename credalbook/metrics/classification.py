r"""Core metrics for probabilistic classifiers: accuracy, proper scores and binned calibration errors.

Every function takes ``probs`` of shape ``(..., N, K)`` (rows on the probability simplex) and
``labels`` of shape ``(..., N)`` (integers in ``[0, K)``), as NumPy arrays or torch tensors, and
returns a float, or an array of shape ``(...)`` when leading batch dimensions are given. Batching
lets the bootstrap tests of later chapters evaluate a measure on many replicates at once.

Notation (Mortier et al., 2023, Sec. 2): :math:`\hat p_{ik}` is the predicted probability of class
:math:`k` for instance :math:`i`, :math:`c_i = \max_k \hat p_{ik}` its confidence,
:math:`\hat y_i = \arg\max_k \hat p_{ik}` the predicted label and :math:`y_{ik} = 1[y_i = k]` the
one-hot label.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook._validation import as_scalar, check_choice, check_positive_int, check_probs_labels
from credalbook.metrics.binning import bin_sums, equal_width_bin_index, uniform_edges

__all__ = [
    "accuracy",
    "brier_score",
    "calibration_summary",
    "nll",
    "ece_confidence",
    "ece_classwise",
    "ece_confidence_batched",
    "ece_classwise_batched",
    "ReliabilityCurve",
    "reliability_curve",
    "one_hot",
]


def one_hot(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot float64 encoding ``(..., K)`` of integer ``labels`` (...); no validation.

    Examples
    --------
    >>> one_hot(np.array([2, 0]), 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return (labels[..., None] == np.arange(n_classes)).astype(np.float64)


def accuracy(probs, labels):
    r"""Fraction of instances whose arg-max class equals the label.

    .. math:: \mathrm{Acc} = \frac1N \sum_{i=1}^N 1[\hat y_i = y_i]

    Ties are broken towards the lowest class index (``numpy.argmax``).

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)

    Returns
    -------
    float or ndarray of shape (...)

    Examples
    --------
    >>> accuracy([[0.7, 0.3], [0.4, 0.6], [0.9, 0.1]], [0, 0, 0])
    0.6666666666666666
    """
    p, y = check_probs_labels(probs, labels)
    return as_scalar((p.argmax(axis=-1) == y).mean(axis=-1))


def brier_score(probs, labels):
    r"""Multi-class Brier score: mean squared distance to the one-hot label, summed over classes.

    .. math:: \mathrm{BS} = \frac1N \sum_{i=1}^N \sum_{k=1}^K (\hat p_{ik} - y_{ik})^2

    (Brier, 1950; the "proper score" of Jürgens et al., Eq. 16.) It lies in [0, 2].

    Examples
    --------
    >>> round(brier_score([[0.7, 0.3], [0.4, 0.6]], [0, 0]), 6)
    0.45
    """
    p, y = check_probs_labels(probs, labels)
    return as_scalar(((p - one_hot(y, p.shape[-1])) ** 2).sum(axis=-1).mean(axis=-1))


def nll(probs, labels, *, eps: float = 1e-12):
    r"""Negative log-likelihood (log loss) of the labels, in nats.

    .. math:: \mathrm{NLL} = -\frac1N \sum_{i=1}^N \log \hat p_{i y_i}

    Probabilities are clipped below at ``eps`` so that a zero probability on the true class gives
    a large finite value (``-log(eps)`` ≈ 27.6) instead of ``inf``.

    Examples
    --------
    >>> round(nll([[0.5, 0.5], [0.25, 0.75]], [0, 1]), 6)
    0.490415
    """
    p, y = check_probs_labels(probs, labels)
    p_true = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]
    return as_scalar(-np.log(np.clip(p_true, eps, None)).mean(axis=-1))


def _binned_abs_gap(bin_idx: np.ndarray, predicted: np.ndarray, observed: np.ndarray, n_bins: int) -> np.ndarray:
    """Σ_j |B_j|/N · |mean(observed) − mean(predicted)| over bins, along the last axis.

    All inputs have shape (..., N); returns shape (...), vectorised over leading axes.
    """
    # |Σ_{i∈B} (observed − predicted)| / N  ==  |B|/N · |o(B) − p(B)|
    gap = bin_sums(bin_idx, observed - predicted, n_bins)
    return np.abs(gap).sum(axis=-1) / bin_idx.shape[-1]


def ece_confidence(probs, labels, *, n_bins: int = 10):
    r"""Confidence expected calibration error with equal-width bins (Mortier et al., Eq. 6).

    .. math::
        \mathrm{ECE}_{conf} = \sum_{j=1}^B \frac{|\mathcal B_j|}{N}
        \bigl|\mathrm{Acc}(\mathcal B_j) - c(\mathcal B_j)\bigr|,
        \qquad \mathcal B_j = \{i : \tfrac{j-1}{B} \le c_i < \tfrac jB\}

    with :math:`\mathrm{Acc}(\mathcal B_j)` the accuracy and :math:`c(\mathcal B_j)` the mean
    confidence of bin :math:`j`; the last bin is right-closed. This is the ECE of Guo et al. (2017)
    and the top-label ECE of Wu & Gales (2021, Eq. 13) with ``B = 1/(2ε)`` regions (ε is the half-width of a region; see :func:`credalbook.metrics.ece`).

    Parameters
    ----------
    probs : array-like, shape (..., N, K)
    labels : array-like of int, shape (..., N)
    n_bins : int, default 10

    Returns
    -------
    float or ndarray of shape (...)

    References
    ----------
    Mortier, Bengs, Hüllermeier, Luca, Waegeman. On the Calibration of Probabilistic Classifier
    Sets. AISTATS 2023, Eq. (6).

    Examples
    --------
    Two instances at confidence 0.9 (one correct) and two at 0.6 (both correct):

    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece_confidence(p, [0, 0, 0, 1], n_bins=10), 6)   # (2/4)|0.5-0.9| + (2/4)|1-0.6|
    0.4
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    p, y = check_probs_labels(probs, labels)
    return as_scalar(ece_confidence_batched(p, y, n_bins))


def ece_confidence_batched(p: np.ndarray, y: np.ndarray, n_bins: int) -> np.ndarray:
    """:func:`ece_confidence` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    conf = p.max(axis=-1)
    correct = (p.argmax(axis=-1) == y).astype(np.float64)
    return _binned_abs_gap(equal_width_bin_index(conf, n_bins), conf, correct, n_bins)


def ece_classwise(probs, labels, *, n_bins: int = 10):
    r"""Classwise expected calibration error with equal-width bins (Mortier et al., Eq. 5).

    .. math::
        \mathrm{ECE}_{cwise} = \frac1K \sum_{k=1}^K \sum_{j=1}^B \frac{|\mathcal B_{jk}|}{N}
        \bigl|o(\mathcal B_{jk}) - p(\mathcal B_{jk})\bigr|,
        \qquad \mathcal B_{jk} = \{i : \tfrac{j-1}{B} \le \hat p_{ik} < \tfrac jB\}

    with :math:`o` the observed frequency of class :math:`k` and :math:`p` the mean predicted
    probability in the bin (Eq. 4); the last bin is right-closed. It is the mean over classes of
    the binary ECE of "class k vs rest" (Kull et al., 2019; see
    :attr:`ReliabilityCurve.calibration_error`).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.1, 0.9], [0.6, 0.4], [0.4, 0.6]]
    >>> round(ece_classwise(p, [0, 0, 0, 1], n_bins=10), 6)   # each class: (.1 + .9 + .4 + .4) / 4
    0.45
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    p, y = check_probs_labels(probs, labels)
    return as_scalar(ece_classwise_batched(p, y, n_bins))


def ece_classwise_batched(p: np.ndarray, y: np.ndarray, n_bins: int) -> np.ndarray:
    """:func:`ece_classwise` without validation: float64 ``p`` (..., N, K), int ``y`` (..., N) → (...).

    For inner loops over checked inputs (bootstrap replicates); always returns an array.
    """
    # Move classes in front of instances: (..., K, N), one binary problem per class.
    pk = np.moveaxis(p, -1, -2)
    yk = np.moveaxis(one_hot(y, p.shape[-1]), -1, -2)
    return _binned_abs_gap(equal_width_bin_index(pk, n_bins), pk, yk, n_bins).mean(axis=-1)


@dataclass(frozen=True)
class ReliabilityCurve:
    """Binned reliability data: what a reliability diagram plots.

    Attributes
    ----------
    bin_edges : ndarray (B + 1,)
    counts : ndarray (B,) number of (instance, class) pairs per bin
    mean_predicted : ndarray (B,) mean predicted probability / confidence per bin (NaN if empty)
    observed : ndarray (B,) observed frequency / accuracy per bin (NaN if empty)
    kind : "confidence" or "classwise"
    class_index : int or None (classwise only; None pools all classes)
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    observed: np.ndarray
    kind: str
    class_index: int | None = None

    @property
    def calibration_error(self) -> float:
        """Count-weighted mean of ``|observed - mean_predicted|`` over non-empty bins.

        For ``kind="confidence"`` this is :func:`ece_confidence`; for ``kind="classwise"`` with a
        ``class_index`` it is the binary ECE of that class, whose mean over classes is
        :func:`ece_classwise`.
        """
        nonempty = self.counts > 0
        gaps = np.abs(self.observed[nonempty] - self.mean_predicted[nonempty])
        return float((self.counts[nonempty] * gaps).sum() / self.counts.sum())


def reliability_curve(probs, labels, *, n_bins: int = 10, kind: str = "confidence", class_index: int | None = None):
    r"""Reliability-diagram data with equal-width bins (Mortier et al., Eqs. 4-6).

    ``kind="confidence"`` bins the confidence :math:`c_i` and reports accuracy per bin;
    ``kind="classwise"`` bins :math:`\hat p_{ik}` and reports the frequency of class :math:`k`,
    for one ``class_index`` or pooled over all classes (every (i, k) pair counted once).

    Returns
    -------
    ReliabilityCurve

    Examples
    --------
    >>> c = reliability_curve([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]], [0, 0, 0], n_bins=2)
    >>> c.counts.tolist(), c.observed.tolist()
    ([0, 3], [nan, 0.6666666666666666])
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    check_choice(kind, "kind", {"confidence", "classwise"})
    p, y = check_probs_labels(probs, labels)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) for a reliability curve; got {p.shape}")
    k = p.shape[1]
    if kind == "confidence":
        if class_index is not None:
            raise ValueError("class_index is only used with kind='classwise'")
        pred = p.max(axis=1)
        obs = (p.argmax(axis=1) == y).astype(np.float64)
    else:
        onehot = one_hot(y, k)
        if class_index is None:
            pred, obs = p.ravel(), onehot.ravel()
        else:
            if isinstance(class_index, bool) or not isinstance(class_index, (int, np.integer)) or not 0 <= class_index < k:
                raise ValueError(f"class_index must be an integer in [0, {k}); got {class_index!r}")
            pred, obs = p[:, class_index], onehot[:, class_index]
    idx = equal_width_bin_index(pred, n_bins)
    counts = bin_sums(idx, None, n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_pred = bin_sums(idx, pred, n_bins) / counts
        observed = bin_sums(idx, obs, n_bins) / counts
    return ReliabilityCurve(
        bin_edges=uniform_edges(n_bins),
        counts=counts,
        mean_predicted=mean_pred,
        observed=observed,
        kind=kind,
        class_index=None if class_index is None else int(class_index),
    )


def calibration_summary(probs, labels, *, n_bins: int = 10) -> dict:
    """All the metrics of this module for one model, as a dict (one row of a results table).

    Keys: ``accuracy``, ``mean_confidence``, ``brier``, ``nll``, ``ece_conf``, ``ece_cwise``.

    Examples
    --------
    >>> s = calibration_summary([[0.9, 0.1], [0.2, 0.8]], [0, 1], n_bins=10)
    >>> round(s["mean_confidence"] - s["accuracy"], 2)
    -0.15
    """
    p, y = check_probs_labels(probs, labels)
    return {
        "accuracy": accuracy(p, y),
        "mean_confidence": as_scalar(p.max(axis=-1).mean(axis=-1)),
        "brier": brier_score(p, y),
        "nll": nll(p, y),
        "ece_conf": ece_confidence(p, y, n_bins=n_bins),
        "ece_cwise": ece_classwise(p, y, n_bins=n_bins),
    }
