r"""ECE and accuracy of ensemble members and their ensemble against a shared temperature (Wu & Gales 2021, Fig. 1).

:func:`temperature_sweep` scales every member's logits by one temperature t and scores the members,
their "pre" ensemble (Eq. 27 with :math:`t_m = t`) and the post-combination prediction (Eq. 28) with
the sample ECE of :func:`credalbook.metrics.ece`, giving the curves of Fig. 1 and the
optimal temperatures of members and ensemble. :func:`temperature_study` adds the reliability curves of
the members at their optimal temperatures and of their ensemble. The fitted ensemble calibrators live in
:mod:`credalbook.calibration.ensemble`.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Fig. 1 and Sec. 4.3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_softmax, softmax

from credalbook._validation import as_numpy, check_labels, check_logits, check_weights
from credalbook.metrics.classification import ece
from credalbook.metrics.regions import check_epsilon, DEFAULT_EPSILON, global_top_label_gap
from credalbook.metrics.reliability import reliability_curve, ReliabilityCurve
from credalbook.papers.wu_gales.fitting import _probs
from credalbook.papers.wu_gales.topologies import TopologyEnsemble

__all__ = ["TemperatureStudy", "TemperatureSweep", "temperature_study", "temperature_sweep"]


@dataclass(frozen=True)
class TemperatureSweep:
    """ECE and accuracy of the members and the ensemble against a shared temperature (Fig. 1).

    Attributes
    ----------
    temperatures : numpy.ndarray, shape (T,)
    member_ece, member_accuracy : numpy.ndarray, shape (T, M)
        ECE and accuracy of :math:`\\operatorname{softmax}(z^{(m)} / t)` (the accuracy does not
        depend on t; it is repeated for plotting).
    ensemble_ece, ensemble_accuracy : numpy.ndarray, shape (T,)
        Of the "pre" ensemble :math:`\\sum_m w_m \\operatorname{softmax}(z^{(m)} / t)`, whose
        arg-max, hence accuracy, can change with t.
    post_ece : numpy.ndarray, shape (T,)
        Of the post-combination prediction :math:`\\operatorname{softmax}(\\log \\bar P / t)`.
    epsilon : float
        Region half-width of the ECE (1/30: 15 bins).
    """

    temperatures: np.ndarray
    member_ece: np.ndarray = field(repr=False)
    member_accuracy: np.ndarray = field(repr=False)
    ensemble_ece: np.ndarray = field(repr=False)
    ensemble_accuracy: np.ndarray = field(repr=False)
    post_ece: np.ndarray = field(repr=False)
    epsilon: float = DEFAULT_EPSILON

    @property
    def member_optimal_temperature(self) -> np.ndarray:
        """Grid temperature of lowest ECE of each member, shape (M,)."""
        return self.temperatures[np.argmin(self.member_ece, axis=0)]

    @property
    def ensemble_optimal_temperature(self) -> float:
        """Grid temperature of lowest ECE of the "pre" ensemble with a shared temperature."""
        return float(self.temperatures[np.argmin(self.ensemble_ece)])

    @property
    def post_optimal_temperature(self) -> float:
        """Grid temperature of lowest ECE of the post-combination prediction."""
        return float(self.temperatures[np.argmin(self.post_ece)])


def temperature_sweep(
    logits, labels, *, temperatures=None, weights=None, epsilon: float = DEFAULT_EPSILON
) -> TemperatureSweep:
    r"""ECE and accuracy of members and ensemble over a grid of shared temperatures (Fig. 1).

    For every temperature t of the grid, each member :math:`\operatorname{softmax}(z^{(m)}/t)`,
    the ensemble of the scaled members (the "pre" curves of Fig. 1, Eq. 27 with
    :math:`t_m = t`) and the post-combination prediction (Eq. 28) are scored with
    :func:`credalbook.metrics.ece`. The paper's observation: the ensemble's optimal
    temperature is smaller than its members' (the ensemble of calibrated members is
    under-confident, Eq. 23), and the ensemble's accuracy is flat over a wide range of t.

    Parameters
    ----------
    logits : array-like, shape (N, M, K)
        Member logits.
    labels : array-like of int, shape (N,)
    temperatures : array-like of positive floats, shape (T,), or None
        Default: 41 values :math:`2^{-2}, \dots, 2^{2}` evenly spaced in log (1 included).
    weights : array-like, shape (M,), or None
        Combination weights; None for 1/M.
    epsilon : float, default=1/30
        ECE region half-width (15 bins).

    Returns
    -------
    TemperatureSweep

    References
    ----------
    Wu & Gales (2021), Fig. 1 and Sec. 4.3.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = 5 * rng.normal(size=(3000, 4, 3)); y = z.mean(1).argmax(1)
    >>> sweep = temperature_sweep(z, y, temperatures=[0.5, 1.0, 2.0])
    >>> sweep.member_ece.shape, sweep.ensemble_ece.shape
    ((3, 4), (3,))
    """
    z = check_logits(logits, ndim=3).numpy()
    n, m, k = z.shape
    y = check_labels(labels, n_classes=k, shape=(n,))
    eps = check_epsilon(epsilon)
    if temperatures is None:
        temps = 2.0 ** np.linspace(-2.0, 2.0, 41)
    else:
        temps = as_numpy(temperatures, "temperatures").astype(np.float64).ravel()
        if temps.size == 0 or not np.all(np.isfinite(temps)) or np.any(temps <= 0):
            raise ValueError(f"temperatures must be a non-empty sequence of positive numbers; got {temperatures!r}")
    w = np.full(m, 1.0 / m) if weights is None else check_weights(weights, m)
    if w.ndim != 1:
        raise ValueError(f"weights must have shape (M,) = ({m},); got {w.shape}")
    log_bar = np.log(np.clip(np.einsum("nmk,m->nk", softmax(z, axis=2), w), 1e-300, None))
    member_ece = np.empty((len(temps), m))
    member_acc = np.empty((len(temps), m))
    ens_ece, ens_acc, post_ece = (np.empty(len(temps)) for _ in range(3))
    member_correct = (z.argmax(axis=2) == y[:, None]).mean(axis=0)
    for i, t in enumerate(temps):
        p = softmax(z / t, axis=2)
        for j in range(m):
            member_ece[i, j] = ece(p[:, j], y, epsilon=eps)
        member_acc[i] = member_correct
        p_ens = np.einsum("nmk,m->nk", p, w)
        ens_ece[i] = ece(p_ens, y, epsilon=eps)
        ens_acc[i] = float((p_ens.argmax(axis=1) == y).mean())
        post_ece[i] = ece(np.exp(log_softmax(log_bar / t, axis=1)), y, epsilon=eps)
    return TemperatureSweep(
        temperatures=temps,
        member_ece=member_ece,
        member_accuracy=member_acc,
        ensemble_ece=ens_ece,
        ensemble_accuracy=ens_acc,
        post_ece=post_ece,
        epsilon=eps,
    )


@dataclass(frozen=True)
class TemperatureStudy:
    """Fig. 1 for one topology (test set).

    Attributes
    ----------
    topology : str
    sweep : TemperatureSweep  ECE and accuracy of members, "pre" ensemble and post prediction against t
    member_curves : list of ReliabilityCurve  each member at its own optimal temperature
    calibrated_members_curve : ReliabilityCurve  the ensemble of those calibrated members
    calibrated_ensemble_curve : ReliabilityCurve  the ensemble at its optimal shared temperature
    calibrated_members_gap : float  global top-label gap (confidence − accuracy) of the ensemble of
        calibrated members; negative: under-confident
    calibrated_members_ece : float
    calibrated_members_gap_se : float  standard error of that gap over the test instances (sd/√N)
    accuracy_gain : float  the ensemble's accuracy (t = 1) minus its members' mean accuracy
    """

    topology: str
    sweep: TemperatureSweep = field(repr=False)
    member_curves: list = field(repr=False)
    calibrated_members_curve: ReliabilityCurve = field(repr=False)
    calibrated_ensemble_curve: ReliabilityCurve = field(repr=False)
    calibrated_members_gap: float = math.nan
    calibrated_members_ece: float = math.nan
    calibrated_members_gap_se: float = math.nan
    accuracy_gain: float = math.nan


def temperature_study(
    ens: TopologyEnsemble, *, temperatures=None, n_bins: int = 15, epsilon: float = DEFAULT_EPSILON
) -> TemperatureStudy:
    """Fig. 1: :func:`~credalbook.papers.wu_gales.temperature_sweep` on the test logits and reliability curves.

    Optimal temperatures are read off the sweep on the test set, as the paper's figure does.

    Examples
    --------
    Members that share a signal but add their own noise, each twice too sharp:

    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=(2000, 1, 4)); y = np.array([rng.choice(4, p=p) for p in softmax(s[:, 0], axis=1)])
    >>> z = 2 * (s + 0.7 * rng.normal(size=(2000, 3, 4)))
    >>> st = temperature_study(TopologyEnsemble(z, y, z, y, "RSN", (0, 1, 2), ([],) * 3, np.zeros(3), 0, {}))
    >>> bool(st.sweep.ensemble_optimal_temperature < st.sweep.member_optimal_temperature.min())
    True
    >>> bool(st.calibrated_members_gap < 0)   # the ensemble of calibrated members is under-confident
    True
    """
    sweep = temperature_sweep(ens.logits_test, ens.y_test, temperatures=temperatures, epsilon=epsilon)
    z, y = ens.logits_test.astype(np.float64), ens.y_test
    calibrated = _probs(z / sweep.member_optimal_temperature[:, None])
    ens_cal = calibrated.mean(axis=1)
    shared = _probs(z / sweep.ensemble_optimal_temperature).mean(axis=1)
    gap_i = ens_cal.max(axis=1) - (ens_cal.argmax(axis=1) == y)
    gain = float((_probs(z).mean(axis=1).argmax(axis=1) == y).mean() - (z.argmax(axis=2) == y[:, None]).mean())
    return TemperatureStudy(
        topology=ens.topology,
        sweep=sweep,
        member_curves=[reliability_curve(calibrated[:, m], y, n_bins=n_bins) for m in range(ens.n_members)],
        calibrated_members_curve=reliability_curve(ens_cal, y, n_bins=n_bins),
        calibrated_ensemble_curve=reliability_curve(shared, y, n_bins=n_bins),
        calibrated_members_gap=global_top_label_gap(ens_cal, y),
        calibrated_members_ece=ece(ens_cal, y, epsilon=epsilon),
        calibrated_members_gap_se=float(gap_i.std(ddof=1) / math.sqrt(len(y))),
        accuracy_gain=gain,
    )
