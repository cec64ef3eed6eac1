r"""Reliability diagrams: the binned data a reliability diagram plots (Mortier et al., Eqs. 4-6).

:func:`reliability_curve` bins the confidences (``kind="confidence"``: accuracy per bin) or the class
probabilities (``kind="classwise"``: frequency of the class per bin) into equal-width
(``strategy="uniform"``) or equal-mass (``strategy="quantile"``) bins; its
:attr:`ReliabilityCurve.calibration_error` is the binned ECE of the same bins. The consistency bands of
:mod:`credalbook.metrics.consistency` and the displays of :mod:`credalbook.plotting` use the same bins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import renamed, renamed_value
from credalbook._validation import check_choice, check_n_bins, check_probs_labels, is_binary_scores
from credalbook.metrics.binning import (
    bin_sums,
    check_strategy,
    cut_index,
    equal_mass_cuts,
    equal_width_bin_index,
    one_hot,
    uniform_edges,
)
from credalbook.metrics.mean_terms import row_argmax

__all__ = ["RELIABILITY_KINDS", "ReliabilityCurve", "reliability_curve"]


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
    binary : bool
        True when computed from binary scores (N,), P(y = 1) (displays then label the axes with P(y = 1)).
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    observed: np.ndarray
    kind: str
    class_index: int | None = None
    binary: bool = False

    @property
    def calibration_error(self) -> float:
        """Count-weighted mean of ``|observed - mean_predicted|`` over non-empty bins.

        For ``kind="confidence"`` this is :func:`~credalbook.metrics.ece_confidence` (with the curve's strategy); for
        ``kind="classwise"`` with a ``class_index`` it is the binary ECE of that class, whose mean
        over classes is :func:`~credalbook.metrics.ece_classwise`.
        """
        nonempty = self.counts > 0
        gaps = np.abs(self.observed[nonempty] - self.mean_predicted[nonempty])
        return float((self.counts[nonempty] * gaps).sum() / self.counts.sum())


#: Kinds of reliability diagram: the confidence (top-label) diagram and the classwise one.
RELIABILITY_KINDS = ("confidence", "classwise")


def check_kind(kind, where: str = "") -> str:
    """Validate a reliability-diagram ``kind`` (:data:`RELIABILITY_KINDS`); the old ``"top_label"`` is
    translated to ``"confidence"`` with a FutureWarning."""
    return check_choice(
        renamed_value("kind", kind, {"top_label": "confidence"}, where=where), "kind", RELIABILITY_KINDS
    )


def default_kind(kind, class_index, binary: bool, where: str = "") -> tuple[str, int | None]:
    """``(kind, class_index)`` with ``kind=None`` resolved: ``"confidence"`` for (N, K) rows, the class-1 curve
    (``"classwise"``, ``class_index`` 1 unless given) for binary scores (N,), as scikit-learn's
    ``calibration_curve``; a given ``kind`` is checked by :func:`check_kind`.

    Examples
    --------
    >>> default_kind(None, None, True), default_kind(None, None, False), default_kind("confidence", None, True)
    (('classwise', 1), ('confidence', None), ('confidence', None))
    """
    if kind is None:
        if binary:
            return "classwise", 1 if class_index is None else class_index
        return "confidence", class_index
    return check_kind(kind, where), class_index


@renamed(binning="strategy")
def reliability_curve(
    probs,
    labels,
    *,
    n_bins: int = 10,
    kind: str | None = None,
    class_index: int | None = None,
    strategy: str = "uniform",
):
    r"""Reliability-diagram data with equal-width or equal-mass bins (Mortier et al., Eqs. 4-6).

    ``kind="confidence"`` bins the confidence :math:`c_i` and reports accuracy per bin;
    ``kind="classwise"`` bins :math:`\hat p_{ik}` and reports the frequency of class :math:`k`,
    for one ``class_index`` or pooled over all classes (every (i, k) pair counted once).
    ``strategy="quantile"`` cuts the binned values into bins of about equal counts
    (``credalbook.metrics.binning.equal_mass_cuts``); ``bin_edges`` then holds 0, the cuts and 1.

    Binary scores (N,), P(y = 1), are the two-class rows ``[1 - p, p]``; by default their curve is
    that of P(y = 1) (``kind="classwise"``, ``class_index=1``: scikit-learn's ``calibration_curve``).

    Parameters
    ----------
    probs : array-like, shape (N, K), or (N,) binary scores P(y = 1)
    labels : array-like of int, shape (N,) (0/1 or bools for binary scores)
    n_bins : int, default 10
    kind : {"confidence", "classwise"} or None, default None
        None: ``"confidence"`` for (N, K) rows, the class-1 curve for binary scores. ``"top_label"``
        is an old spelling of ``"confidence"``.
    class_index : int or None
        With ``kind="classwise"``: one class, or None for all (i, k) pairs pooled.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.

    Returns
    -------
    ReliabilityCurve

    Examples
    --------
    >>> c = reliability_curve([[0.9, 0.1], [0.1, 0.9], [0.6, 0.4]], [0, 0, 0], n_bins=2)
    >>> c.counts.tolist(), c.observed.tolist()
    ([0, 3], [nan, 0.6666666666666666])
    >>> b = reliability_curve([0.1, 0.8, 0.9], [False, True, False], n_bins=2)   # binary scores: P(y = 1)
    >>> b.kind, b.class_index, b.mean_predicted.tolist(), b.observed.tolist()
    ('classwise', 1, [0.1, 0.8500000000000001], [0.0, 0.5])
    """
    n_bins = check_n_bins(n_bins)
    binary = is_binary_scores(probs)
    kind, class_index = default_kind(kind, class_index, binary, "reliability_curve")
    strategy = check_strategy(strategy, "reliability_curve")
    p, y = check_probs_labels(probs, labels)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) for a reliability curve; got {p.shape}")
    check_class_index(class_index, kind, p.shape[1])
    pred, obs = reliability_values(p, y, kind, class_index)
    idx, edges, counts, mean_pred = reliability_bin_means(pred, n_bins, strategy)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = bin_sums(idx, obs, n_bins) / counts
    return ReliabilityCurve(
        bin_edges=edges,
        counts=counts,
        mean_predicted=mean_pred,
        observed=observed,
        kind=kind,
        class_index=None if class_index is None else int(class_index),
        binary=binary,
    )


def check_class_index(class_index, kind: str, n_classes: int) -> None:
    """``class_index``: None, or with ``kind="classwise"`` an integer in [0, K)."""
    if kind != "classwise":
        if class_index is not None:
            raise ValueError("class_index is only used with kind='classwise'")
        return
    integer = isinstance(class_index, (int, np.integer)) and not isinstance(class_index, (bool, np.bool_))
    if class_index is not None and not (integer and 0 <= class_index < n_classes):
        raise ValueError(f"class_index must be an integer in [0, {n_classes}); got {class_index!r}")


def reliability_values(p: np.ndarray, y: np.ndarray | None, kind: str, class_index: int | None):
    r"""The values a reliability diagram bins and their outcomes (None without ``y``); checked (N, K) inputs.

    ``"confidence"``: :math:`c_i` and :math:`1[\hat y_i = y_i]`; ``"classwise"``: :math:`\hat p_{ik}` and
    :math:`1[y_i = k]` of one class, or of all (i, k) pairs (flattened) when ``class_index`` is None.
    """
    if kind == "confidence":
        return p.max(axis=1), None if y is None else (row_argmax(p) == y).astype(np.float64)
    if class_index is None:
        return p.ravel(), None if y is None else one_hot(y, p.shape[1]).ravel()
    return p[:, class_index], None if y is None else (y == class_index).astype(np.float64)


def reliability_bins(pred: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """Bin of each value (``credalbook.metrics.binning.equal_width_bin_index`` or equal-mass cuts) and the edges
    (B + 1,) a diagram draws: 0, the cuts clipped to [0, 1], and 1 for equal-mass bins."""
    if strategy == "uniform":
        return equal_width_bin_index(pred, n_bins), uniform_edges(n_bins)
    cuts = equal_mass_cuts(pred, n_bins)
    return cut_index(pred, cuts), np.concatenate(([0.0], np.clip(cuts, 0.0, 1.0), [1.0]))


def reliability_bin_means(pred: np.ndarray, n_bins: int, strategy: str):
    """:func:`reliability_bins` plus each bin's count and mean prediction (NaN in an empty bin):
    ``(ids, edges, counts, mean_predicted)``, what a reliability curve and its consistency bands share."""
    idx, edges = reliability_bins(pred, n_bins, strategy)
    counts = bin_sums(idx, None, n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_pred = bin_sums(idx, pred, n_bins) / counts
    return idx, edges, counts, mean_pred
