"""Eqs. 18, 23 and Propositions 1, 2, 4 of Wu & Gales (2021) on a trained ensemble whose members are calibrated
each by its own temperature (:func:`proposition_checks`).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from credalbook.calibration.combination import (
    ensemble_calibration,
    ensemble_confidence_gap,
    EnsembleCalibration,
    perturb_non_top_label,
    regional_confidence,
    RegionalConfidence,
)
from credalbook.calibration.ensemble import PreCombinationScaling
from credalbook.metrics.regions import DEFAULT_EPSILON
from credalbook.papers.wu_gales.fitting import _probs
from credalbook.papers.wu_gales.topologies import TopologyEnsemble

__all__ = ["PropositionChecks", "proposition_checks"]


@dataclass(frozen=True)
class PropositionChecks:
    """Eqs. 18, 23 and Propositions 1, 2, 4 on one ensemble (test set), its members calibrated.

    Attributes
    ----------
    topology : str
    member_temperatures : ndarray (M,)  temperatures calibrating each member on its own (validation set)
    min_confidence_gap, mean_confidence_gap : float  Eq. 23: mean member confidence − ensemble
        confidence per instance (≥ 0)
    regional : RegionalConfidence  Eq. 18 per region of the ensemble confidence (calibrated members)
    calibration : EnsembleCalibration  Props. 1-2 numbers (calibrated members)
    ensemble_gap_se : float  standard error over the test instances of the ensemble's global top-label
        gap ``calibration.ensemble_top_label_gap`` (sd/√N)
    prop2_error : float  max |ensemble class gaps − mean member class gaps| (0 up to rounding)
    prop4 : dict  instance, member, tau, the member's top label/confidence change (0) and the ensemble's
        confidence change (= τ/M) and label change (False)
    """

    topology: str
    member_temperatures: np.ndarray
    min_confidence_gap: float
    mean_confidence_gap: float
    regional: RegionalConfidence = field(repr=False)
    calibration: EnsembleCalibration = field(repr=False)
    prop2_error: float
    prop4: dict = field(repr=False)
    ensemble_gap_se: float = math.nan


def proposition_checks(
    ens: TopologyEnsemble,
    *,
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    tau: float = 0.01,
) -> PropositionChecks:
    """Numbers behind Eq. 18/23 and Props. 1, 2, 4 for members calibrated each by its own temperature.

    The temperatures are fitted on the validation logits (each member to itself: the "pre_members"
    reading of :func:`calibration_study`, the premise of Prop. 1), the checks use the
    test logits; Prop. 4 perturbs the first instance (of the first 1000 disagreements) where a member's
    top label differs from the ensemble's and a third class can give up `tau`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = 3 * rng.normal(size=(600, 3, 4)); y = z.mean(1).argmax(1)
    >>> pc = proposition_checks(TopologyEnsemble(z, y, z, y, "LEN", (0, 1, 2), ([],) * 3, np.zeros(3), 0, {}),
    ...                         n_iter=50)
    >>> bool(pc.min_confidence_gap >= -1e-12), bool(pc.prop2_error < 1e-12)
    (True, True)
    >>> round(3 * pc.prop4["ensemble_confidence_change"] / pc.prop4["tau"], 6)   # τ / M
    1.0
    """
    # App. A.4: SGD, learning rate 0.1, 400 iterations (the library's default fits to convergence instead);
    # here each member is calibrated on its own (fit_to="members"), the premise of Prop. 1
    pre = PreCombinationScaling(fit_to="members", criterion=criterion).fit(
        ens.logits_val, ens.y_val, optimizer="sgd", n_iter=n_iter
    )
    t = pre.temperatures
    members = _probs(ens.logits_test.astype(np.float64) / t[:, None])
    y = ens.y_test
    gap = ensemble_confidence_gap(members)
    calib = ensemble_calibration(members, y)
    prop2 = float(np.abs(calib.ensemble_class_gaps - calib.weights @ calib.member_class_gaps).max())
    prop4 = {}
    y_ens = members.mean(axis=1).argmax(axis=1)
    for n, m in np.argwhere(members.argmax(axis=2) != y_ens[:, None])[:1000]:
        one = members[n : n + 1]
        try:
            new = perturb_non_top_label(one, instance=0, member=int(m), tau=tau)
        except ValueError:  # no donor class with mass tau, or tau would change the member's label
            continue
        prop4 = dict(
            instance=int(n),
            member=int(m),
            tau=tau,
            member_confidence_change=float(new[0, m].max() - one[0, m].max()),
            member_label_changed=bool(new[0, m].argmax() != one[0, m].argmax()),
            ensemble_confidence_change=float(new[0].mean(0).max() - one[0].mean(0).max()),
            ensemble_label_changed=bool(new[0].mean(0).argmax() != y_ens[n]),
        )
        break
    ens_p = members.mean(axis=1)
    gap_i = ens_p.max(axis=1) - (ens_p.argmax(axis=1) == y)
    return PropositionChecks(
        ens.topology,
        t,
        float(gap.min()),
        float(gap.mean()),
        regional_confidence(members, y, epsilon=epsilon),
        calib,
        prop2,
        prop4,
        float(gap_i.std(ddof=1) / math.sqrt(len(y))),
    )
