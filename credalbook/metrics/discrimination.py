r"""How well a classifier separates the classes (not how well it is calibrated): the multi-class AUC.

Calibration and discrimination are the two halves of a proper score's decomposition; the calibration errors
live in :mod:`credalbook.metrics.classification`, which re-exports :func:`multiclass_auc`.
"""

from __future__ import annotations

from credalbook._validation import check_choice
from credalbook.metrics.regions import check_probs_label_rows

__all__ = ["multiclass_auc", "AUC_KINDS"]


#: Kinds of :func:`multiclass_auc`: macro one-vs-rest, or the confidence as a score of correctness.
AUC_KINDS = ("ovr", "confidence")


def multiclass_auc(probs, labels, *, kind: str = "ovr") -> float:
    r"""Area under the ROC curve of a multi-class predictor.

    ``kind="ovr"``: the macro average over classes of the one-vs-rest AUC of :math:`\hat p_{ik}`
    for "class k vs the rest" (classes that are absent or the only class in ``labels`` are
    skipped); for K = 2 this is the usual binary AUC. ``kind="confidence"``: the AUC of the
    confidence :math:`\max_k \hat p_{ik}` for telling correct from wrong predictions. Both use the
    Mann-Whitney form with ties counted one half,

    .. math:: \mathrm{AUC} = \frac{\sum_{i\in\mathrm{pos}} \mathrm{rank}(s_i) - n_+(n_+ + 1)/2}{n_+ n_-}.

    Examples
    --------
    >>> multiclass_auc([[0.9, 0.1], [0.4, 0.6], [0.6, 0.4], [0.2, 0.8]], [0, 1, 1, 1])
    1.0
    """
    check_choice(kind, "kind", AUC_KINDS)
    p, t, onehot = check_probs_label_rows(probs, labels)
    if not onehot:
        raise ValueError("labels must be integer classes (N,) for an AUC")
    if kind == "confidence":
        scores = p.max(axis=1, keepdims=True)
        pos = (p.argmax(axis=1) == t.argmax(axis=1))[:, None]
    else:
        scores, pos = p, t.astype(bool)
    n_pos = pos.sum(axis=0)
    n_neg = len(p) - n_pos
    valid = (n_pos > 0) & (n_neg > 0)
    if not valid.any():
        if kind == "confidence":
            raise ValueError("labels must make some predictions correct and some wrong for a confidence AUC")
        raise ValueError("labels must contain at least two classes for a one-vs-rest AUC")
    from scipy.stats import rankdata  # imported here: scipy.stats is slow to import

    ranks = rankdata(scores, axis=0)  # average ranks for ties
    u = (ranks * pos).sum(axis=0) - n_pos * (n_pos + 1) / 2.0
    return float((u[valid] / (n_pos[valid] * n_neg[valid])).mean())
