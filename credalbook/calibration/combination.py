r"""Combining ensemble members, and what calibrated members imply for the ensemble (Wu & Gales 2021, Sec. 4).

An ensemble of M members, ``ens_probs`` of shape (N, M, K), predicts the convex combination

.. math::
    P(\omega_j \mid \mathbf x; \boldsymbol\Theta) = \sum_{m=1}^M w_m\, P(\omega_j \mid \mathbf x; \boldsymbol\theta^{(m)}),
    \qquad \mathbf w \in \Delta_M,

with uniform weights :math:`w_m = 1/M` for a deep ensemble (Eq. 17) and learned weights when
members of different topologies are combined (Sec. 4.1, Tables 2, 6, 7): by maximum likelihood on
validation data (:func:`ml_weights`) or from each member's AUC (:func:`auc_weights`, after Zhong &
Kwok 2013).

The remaining functions return the numbers behind the paper's theory:

- :func:`ensemble_confidence_gap`: Eq. 23, per instance the ensemble's confidence never exceeds
  the members' mean confidence, :math:`P(\hat y_E\mid\mathbf x;\boldsymbol\Theta) =
  \sum_m w_m P(\hat y_E\mid\mathbf x;\boldsymbol\theta^{(m)}) \le \sum_m w_m P(\hat y_m\mid\mathbf
  x;\boldsymbol\theta^{(m)})`;
- :func:`regional_confidence`: the same inside each confidence region of the ensemble (Eq. 18),
  with accuracies, i.e. the data of the reliability curves of Figs. 1-2;
- :func:`ensemble_calibration`: global all-label and top-label gaps of members and ensemble
  (Eqs. 15-16, 21-22, 25-26) and the accuracy bound of Proposition 1 in the form valid without
  assumptions, :math:`\mathrm{Acc}_E - \sum_m w_m \mathrm{Acc}_m \le \sum_m w_m g_m - g_E` with
  :math:`g` the top-label gaps (confidence minus accuracy). Calibrated members (:math:`g_m = 0`)
  and an ensemble more accurate than its members therefore force :math:`g_E < 0`: an
  under-confident ensemble, the paper's main finding. Proposition 2 is the identity
  ``ensemble_class_gaps == weights @ member_class_gaps``;
- :func:`perturb_non_top_label`: the construction in the proof of Proposition 4.

Weights here are one vector (M,) for all instances; :func:`credalbook.credal.convex_combination`
also takes per-instance weights (N, M).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4, App. A.1.
Zhong, Kwok. Accurate probability calibration for multiple classifiers. IJCAI 2013.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax

from credalbook._validation import (
    check_choice,
    check_ens_probs,
    check_labels,
    check_positive_float,
    check_positive_int,
    check_weights,
)
from credalbook.credal.geometry import convex_combination
from credalbook.metrics.binning import bin_sums
from credalbook.metrics.classification import AUC_KINDS, multiclass_auc
from credalbook.metrics.regions import check_epsilon, check_probs_label_rows, DEFAULT_EPSILON, region_ids

__all__ = [
    "average_members",
    "ml_weights",
    "auc_weights",
    "ensemble_confidence_gap",
    "RegionalConfidence",
    "regional_confidence",
    "EnsembleCalibration",
    "ensemble_calibration",
    "perturb_non_top_label",
]


def _weights(weights, m: int) -> np.ndarray:
    if weights is None:
        return np.full(m, 1.0 / m)
    w = check_weights(weights, m)
    if w.ndim != 1:
        raise ValueError(f"weights must have shape (M,) = ({m},); got {w.shape}")
    return w


def _ens_targets(ens_probs, labels) -> tuple[np.ndarray, np.ndarray]:
    """Validate ens_probs (N, M, K) and labels (N,) or target rows (N, K); return ens, targets (N, K)."""
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    _, t, _ = check_probs_label_rows(ens[:, 0, :], labels)
    return ens, t


def average_members(ens_probs, *, weights=None) -> np.ndarray:
    r"""Ensemble prediction: the (weighted) average of the member probabilities (Eq. 17).

    .. math:: \hat p_{ij} = \sum_{m=1}^M w_m\, \hat p^{(m)}_{ij}, \qquad w_m = 1/M \text{ by default}

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    weights : array-like, shape (M,) or (N, M), or None (uniform)

    Returns
    -------
    ndarray, shape (N, K)

    Examples
    --------
    >>> ens = [[[0.9, 0.1], [0.5, 0.5]]]                       # N=1, M=2, K=2
    >>> average_members(ens).tolist(), average_members(ens, weights=[0.5, 0.5]).tolist()
    ([[0.7, 0.3]], [[0.7, 0.3]])
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    if weights is None:
        return ens.mean(axis=1)
    return convex_combination(ens, weights)


# ----------------------------------------------------------------------------------------------
# Combination weights
# ----------------------------------------------------------------------------------------------
def ml_weights(ens_probs, labels, *, max_iter: int = 1000, tol: float = 1e-10, floor: float = 1e-12) -> np.ndarray:
    r"""Combination weights that maximise the validation likelihood ("Max LL", Tables 2 and 7).

    .. math::
        \hat{\mathbf w} = \arg\max_{\mathbf w\in\Delta_M} \frac1N \sum_{i=1}^N
        \log \sum_{m=1}^M w_m\, \hat p^{(m)}_{i y_i}

    The objective is concave in :math:`\mathbf w` (a mixture likelihood), so the maximiser is global.
    It is found with L-BFGS on the softmax parametrisation :math:`\mathbf w = \mathrm{softmax}(\boldsymbol\eta)`
    from uniform weights, then polished with EM fixed-point steps
    :math:`w_m \leftarrow w_m \frac1N\sum_i \hat p^{(m)}_{iy_i} / \hat p_{iy_i}`, which increase the
    likelihood monotonically and settle weights that belong on the boundary of the simplex. At the
    optimum :math:`\frac1N\sum_i \hat p^{(m)}_{iy_i}/\hat p_{iy_i}` is 1 for members with positive
    weight and at most 1 for the others (KKT conditions).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
        Member predictions on validation data.
    labels : array-like of int, shape (N,)
    max_iter : int, default 1000
        Iterations of L-BFGS, and at most as many EM steps.
    tol : float >= 0, default 1e-10
        Gradient tolerance of L-BFGS; EM stops when no weight moves by more than ``tol`` (0: run
        ``max_iter`` EM steps).
    floor : float > 0, default 1e-12
        Member probabilities of the true class are clipped below at ``floor`` (as in
        :func:`credalbook.metrics.nll`), so a member that rules out a label does not make the
        likelihood zero for every weight.

    Returns
    -------
    ndarray, shape (M,)
        Weights on the simplex.

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and Table 2 ("Max LL").

    Examples
    --------
    The second member predicts every label perfectly, so it takes all the weight:

    >>> ens = [[[0.6, 0.4], [1.0, 0.0]], [[0.5, 0.5], [0.0, 1.0]]]
    >>> ml_weights(ens, [0, 1]).round(6).tolist()
    [0.0, 1.0]
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    n, m, k = ens.shape
    y = check_labels(labels, n_classes=k, shape=(n,))
    max_iter = check_positive_int(max_iter, "max_iter")
    tol = check_positive_float(tol, "tol", allow_zero=True)
    floor = check_positive_float(floor, "floor")
    if m == 1:
        return np.ones(1)
    a = np.clip(ens[np.arange(n), :, y], floor, None)  # (N, M) member probability of the label

    def objective(eta):
        w = softmax(eta)
        mix = a @ w
        g = -(a / mix[:, None]).mean(axis=0)  # ∂/∂w of the mean negative log-likelihood
        return -np.log(mix).mean(), w * (g - w @ g)

    res = minimize(
        objective, np.zeros(m), jac=True, method="L-BFGS-B", options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15}
    )
    w = softmax(res.x)
    for _ in range(max_iter):
        w_new = w * (a / (a @ w)[:, None]).mean(axis=0)
        w_new /= w_new.sum()
        done = np.abs(w_new - w).max() <= tol
        w = w_new
        if done:
            break
    return w


def auc_weights(ens_probs, labels, *, kind: str = "ovr", chance_corrected: bool = False) -> np.ndarray:
    r"""Combination weights proportional to each member's validation AUC (Zhong & Kwok 2013; Table 6).

    .. math:: w_m = \frac{A_m - b}{\sum_{m'} (A_{m'} - b)}, \qquad A_m = \mathrm{AUC}(\hat{\mathbf p}^{(m)}),

    with :math:`b = 0` by default, or :math:`b = 1/2` (``chance_corrected=True``, members at or
    below chance get weight 0). Wu & Gales only say the weights are "based on AUC"; plain
    proportionality is the direct reading, and the chance-corrected variant gives a weaker member
    less weight (closer to Table 6's 0.20 for LeNet against 0.26-0.27). The AUC is
    :func:`multiclass_auc` of each member.

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    labels : array-like of int, shape (N,)
    kind : {"ovr", "confidence"}
    chance_corrected : bool, default False

    Returns
    -------
    ndarray, shape (M,)

    References
    ----------
    Zhong, Kwok, IJCAI 2013; Wu & Gales (2021), App. A.4, Table 6.

    Examples
    --------
    >>> ens = [[[0.9, 0.1], [0.6, 0.4]], [[0.3, 0.7], [0.4, 0.6]], [[0.8, 0.2], [0.7, 0.3]]]
    >>> auc_weights(ens, [0, 1, 1]).round(4).tolist()          # AUCs 1.0 and 0.5
    [0.6667, 0.3333]
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    check_choice(kind, "kind", AUC_KINDS)
    aucs = np.array([multiclass_auc(ens[:, m, :], labels, kind=kind) for m in range(ens.shape[1])])
    score = np.clip(aucs - 0.5, 0.0, None) if chance_corrected else aucs
    if score.sum() <= 0:
        raise ValueError(
            f"no member is better than chance (AUCs {np.round(aucs, 4).tolist()}); "
            "chance-corrected AUC weights are undefined"
        )
    return score / score.sum()


# ----------------------------------------------------------------------------------------------
# Eqs. 18 and 23: the ensemble is never more confident than its members on average
# ----------------------------------------------------------------------------------------------
def _member_terms(ens: np.ndarray, w: np.ndarray, t: np.ndarray | None = None):
    """Ensemble probs, its top label and confidence, weighted mean member confidence (and accuracy)."""
    probs = np.einsum("nmk,m->nk", ens, w)
    yhat = probs.argmax(axis=1)
    rows = np.arange(len(ens))
    conf_e = probs[rows, yhat]
    conf_m = ens.max(axis=2) @ w
    if t is None:
        return probs, yhat, conf_e, conf_m, None, None
    acc_e = t[rows, yhat]
    acc_m = np.take_along_axis(t, ens.argmax(axis=2), axis=1) @ w  # Σ_m w_m P(ŷ_m | x) or δ(y, ŷ_m)
    return probs, yhat, conf_e, conf_m, acc_e, acc_m


def ensemble_confidence_gap(ens_probs, *, weights=None) -> np.ndarray:
    r"""Mean member confidence minus ensemble confidence, per instance (Wu & Gales 2021, Eq. 23).

    .. math::
        \Delta_i = \sum_{m=1}^M w_m P(\hat y_m^{(i)}\mid\mathbf x_i;\boldsymbol\theta^{(m)})
        - P(\hat y_E^{(i)}\mid\mathbf x_i;\boldsymbol\Theta) \;\ge\; 0

    since :math:`P(\hat y_E\mid\mathbf x;\boldsymbol\theta^{(m)}) \le P(\hat y_m\mid\mathbf x;\boldsymbol\theta^{(m)})`
    for every member. Zero exactly when all members with positive weight predict the ensemble's
    class.

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    >>> ensemble_confidence_gap([[[0.9, 0.1], [0.3, 0.7]]]).round(6).tolist()   # 0.8 - 0.6
    [0.2]
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True)
    _, _, conf_e, conf_m, _, _ = _member_terms(ens, _weights(weights, ens.shape[1]))
    return conf_m - conf_e


@dataclass(frozen=True)
class RegionalConfidence:
    """Confidences and accuracies in the ensemble's top-label regions (Eqs. 18-19).

    One entry per non-empty region of the ensemble confidence, in increasing order.

    Attributes
    ----------
    counts : ndarray (R,) instances in the region
    ensemble_confidence : ndarray (R,) mean :math:`P(\\hat y_E\\mid x;\\Theta)`
    member_confidence : ndarray (R,) mean of :math:`\\sum_m w_m P(\\hat y_m\\mid x;\\theta^{(m)})`; never below
        ``ensemble_confidence`` (Eq. 18)
    ensemble_accuracy : ndarray (R,) or None (no labels): mean :math:`\\delta(y, \\hat y_E)`
    member_accuracy : ndarray (R,) or None: mean of :math:`\\sum_m w_m \\delta(y, \\hat y_m)`
    """

    counts: np.ndarray
    ensemble_confidence: np.ndarray
    member_confidence: np.ndarray
    ensemble_accuracy: np.ndarray | None = None
    member_accuracy: np.ndarray | None = None


def regional_confidence(
    ens_probs, labels=None, *, weights=None, epsilon: float = DEFAULT_EPSILON
) -> RegionalConfidence:
    r"""Ensemble vs mean member confidence (and accuracy) in each region of the ensemble confidence (Eq. 18).

    .. math::
        \sum_{i\in\tilde{\mathcal S}^p(\boldsymbol\Theta,\epsilon)} \sum_m w_m P(\hat y_E^{(i)}\mid\mathbf x_i;\boldsymbol\theta^{(m)})
        \;\le\; \sum_{i\in\tilde{\mathcal S}^p(\boldsymbol\Theta,\epsilon)} \sum_m w_m P(\hat y_m^{(i)}\mid\mathbf x_i;\boldsymbol\theta^{(m)})

    Regions are those of :func:`credalbook.metrics.ece` (half-width ``epsilon``). With
    labels, the accuracies show the consequence: if the members are top-label calibrated on these
    regions (member accuracy = member confidence) and the ensemble is more accurate than its
    members, its accuracy exceeds its confidence: it is under-confident (Eq. 19 fails).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    labels : array-like, shape (N,) of int, (N, K) true class probabilities, or None
    weights : array-like (M,) or None (uniform)
    epsilon : float in [0, 1], default 1/30

    Returns
    -------
    RegionalConfidence

    Examples
    --------
    >>> r = regional_confidence([[[0.9, 0.1], [0.3, 0.7]], [[0.8, 0.2], [0.6, 0.4]]], [0, 0], epsilon=0.5)
    >>> r.counts.tolist(), r.ensemble_confidence.round(4).tolist(), r.member_confidence.round(4).tolist()
    ([2], [0.65], [0.75])
    """
    eps = check_epsilon(epsilon)
    if labels is None:
        ens, t = check_ens_probs(ens_probs, exact_ndim=True), None
    else:
        ens, t = _ens_targets(ens_probs, labels)
    _, _, conf_e, conf_m, acc_e, acc_m = _member_terms(ens, _weights(weights, ens.shape[1]), t)
    ids, n_regions = region_ids(conf_e, eps)
    counts = bin_sums(ids, None, n_regions)
    keep = counts > 0

    def mean(values):
        return bin_sums(ids, values, n_regions)[keep] / counts[keep]

    return RegionalConfidence(
        counts=counts[keep],
        ensemble_confidence=mean(conf_e),
        member_confidence=mean(conf_m),
        ensemble_accuracy=None if t is None else mean(acc_e),
        member_accuracy=None if t is None else mean(acc_m),
    )


# ----------------------------------------------------------------------------------------------
# Propositions 1, 2 and 4: global calibration of members and ensemble
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EnsembleCalibration:
    """Global calibration of the members and of their combination (Wu & Gales 2021, Props. 1-2).

    Attributes
    ----------
    weights : ndarray (M,)
    member_accuracy, member_confidence : ndarray (M,) accuracy and mean confidence of each member
    ensemble_accuracy, ensemble_confidence : float
    member_class_gaps : ndarray (M, K) per-class global gaps of each member (Eq. 25)
    ensemble_class_gaps : ndarray (K,) those of the ensemble (Eq. 26); always
        ``weights @ member_class_gaps`` (Proposition 2)
    """

    weights: np.ndarray
    member_accuracy: np.ndarray
    member_confidence: np.ndarray
    ensemble_accuracy: float
    ensemble_confidence: float
    member_class_gaps: np.ndarray
    ensemble_class_gaps: np.ndarray

    @property
    def member_top_label_gaps(self) -> np.ndarray:
        """Confidence minus accuracy of each member (Eq. 21 holds when these are 0)."""
        return self.member_confidence - self.member_accuracy

    @property
    def ensemble_top_label_gap(self) -> float:
        """Confidence minus accuracy of the ensemble (Eq. 22 holds when 0; negative: under-confident)."""
        return self.ensemble_confidence - self.ensemble_accuracy

    @property
    def accuracy_gain(self) -> float:
        """Ensemble accuracy minus the weighted mean member accuracy."""
        return self.ensemble_accuracy - float(self.weights @ self.member_accuracy)

    @property
    def accuracy_gain_bound(self) -> float:
        """Upper bound on :attr:`accuracy_gain`: Σ w_m g_m − g_E (Eq. 23 averaged; Prop. 1 when 0)."""
        return float(self.weights @ self.member_top_label_gaps) - self.ensemble_top_label_gap


def ensemble_calibration(ens_probs, labels, *, weights=None) -> EnsembleCalibration:
    r"""Global calibration numbers behind Propositions 1, 2 and 4 of Wu & Gales (2021).

    Averaging Eq. 23 over instances gives :math:`\mathrm{Conf}_E \le \sum_m w_m \mathrm{Conf}_m`,
    hence, with top-label gaps :math:`g = \mathrm{Conf} - \mathrm{Acc}`,

    .. math::
        \mathrm{Acc}_E - \sum_m w_m \mathrm{Acc}_m \;\le\; \sum_m w_m g_m - g_E .

    Proposition 1 is the case :math:`g_m = g_E = 0` (Eq. 20); with calibrated members and an
    accuracy gain the ensemble must have :math:`g_E < 0`. Proposition 2: the ensemble's per-class
    gaps are the weighted mean of the members' (Eqs. 25-26), so globally all-label calibrated
    members give a globally all-label calibrated ensemble; the top-label gaps have no such
    relation (Proposition 4, :func:`perturb_non_top_label`).

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    labels : array-like, shape (N,) of int, or (N, K) true class probabilities
    weights : array-like (M,) or None (uniform)

    Returns
    -------
    EnsembleCalibration

    Examples
    --------
    >>> ens = [[[0.9, 0.1], [0.3, 0.7]], [[0.8, 0.2], [0.6, 0.4]]]
    >>> c = ensemble_calibration(ens, [0, 0])
    >>> round(c.accuracy_gain, 4), round(c.accuracy_gain_bound, 4)
    (0.25, 0.35)
    """
    ens, t = _ens_targets(ens_probs, labels)
    w = _weights(weights, ens.shape[1])
    probs, yhat, conf_e, _, acc_e, _ = _member_terms(ens, w, t)
    m_yhat = ens.argmax(axis=2)  # (N, M)
    member_acc = np.take_along_axis(t, m_yhat, axis=1).mean(axis=0)
    member_conf = ens.max(axis=2).mean(axis=0)
    return EnsembleCalibration(
        weights=w,
        member_accuracy=member_acc,
        member_confidence=member_conf,
        ensemble_accuracy=float(acc_e.mean()),
        ensemble_confidence=float(conf_e.mean()),
        member_class_gaps=(ens - t[:, None, :]).mean(axis=0),
        ensemble_class_gaps=(probs - t).mean(axis=0),
    )


def perturb_non_top_label(ens_probs, *, instance: int, member: int, tau: float, weights=None) -> np.ndarray:
    r"""The member change in the proof of Proposition 4 (Wu & Gales 2021, Eqs. 33-40).

    For an instance :math:`n` whose ensemble label :math:`\hat y_E` differs from member
    :math:`\tilde m`'s label :math:`\hat y_{\tilde m}`, move mass :math:`\tau` to
    :math:`\hat y_E` in that member from the largest other class (neither :math:`\hat y_E` nor
    :math:`\hat y_{\tilde m}`; needs K > 2). The member's top label and confidence are unchanged
    (Eqs. 35-36), so its top-label calibration is too; the ensemble keeps its label (Eq. 38) but
    its confidence rises by :math:`w_{\tilde m}\tau` (Eq. 39). Both ensembles cannot be globally
    top-label calibrated: top-label calibrated members do not make a calibrated ensemble.

    Parameters
    ----------
    ens_probs : array-like, shape (N, M, K)
    instance, member : int
        :math:`n` and :math:`\tilde m`.
    tau : float > 0
        Must keep :math:`P(\hat y_E) + \tau < P(\hat y_{\tilde m})` (Eq. 34) and not exceed the
        donor class's probability.
    weights : array-like (M,) or None
        Used to find :math:`\hat y_E`.

    Returns
    -------
    ndarray, shape (N, M, K): a modified copy.

    Examples
    --------
    >>> ens = np.array([[[0.5, 0.1, 0.4], [0.0, 0.6, 0.4], [0.1, 0.6, 0.3]]])   # ŷ_E = 1, ŷ_0 = 0
    >>> perturb_non_top_label(ens, instance=0, member=0, tau=0.2)[0, 0].round(6).tolist()
    [0.5, 0.3, 0.2]
    """
    ens = check_ens_probs(ens_probs, exact_ndim=True).copy()
    n, m, k = ens.shape
    if k <= 2:
        raise ValueError(f"ens_probs must have K > 2 classes for Proposition 4; got K = {k}")
    for name, value, size in (("instance", instance, n), ("member", member, m)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < size:
            raise ValueError(f"{name} must be an integer in [0, {size}); got {value!r}")
    tau = check_positive_float(tau, "tau")
    w = _weights(weights, m)
    y_e = int(np.einsum("mk,m->k", ens[instance], w).argmax())
    row = ens[instance, member]
    y_m = int(row.argmax())
    if y_e == y_m:
        raise ValueError(
            f"member {member} predicts the ensemble's class {y_e} at instance {instance}; "
            "Proposition 4 needs an instance where they differ"
        )
    others = [j for j in range(k) if j not in (y_e, y_m)]
    donor = max(others, key=lambda j: row[j])
    if tau > row[donor] or row[y_e] + tau >= row[y_m]:
        raise ValueError(
            f"tau must be at most {row[donor]:.6g} (the donor class's probability) and below "
            f"{row[y_m] - row[y_e]:.6g} (so the member's top label stays); got {tau!r}"
        )
    row[y_e] += tau
    row[donor] -= tau
    return ens
