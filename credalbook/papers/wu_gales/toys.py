r"""Toy data of Wu & Gales (2021, App. A.3): where calibration regions and ensembles part ways.

- :func:`all_vs_top_label_example` (Example 1, Eqs. 41-45): a 3-region, 4-class predictor that is
  all-label calibrated (ACE = ACCE = 0 with ε → 0) but not top-label calibrated
  (ECE = ECCE = τ/3).
- :func:`calibrated_members_ensemble` (Example 2, Alg. 1): M members that are each perfectly
  calibrated by construction, whose average is not (ACE ≈ 0.0697 for K = 4, M = 10, b = 2).
  With ``shared_regions=True`` all members use the same regions, the trivial case of
  Proposition 3, and the ensemble is calibrated too.
- :func:`paired_label_predictions` (Example 3, Alg. 2): predictions built from the labels of the
  sample itself, whose finite-sample ACE is exactly 0 while the ACE against the true distribution
  is 9/32 (:func:`paired_label_theoretical_ace`).
- :func:`appendix_toys`: the values of all three (Example 1, Alg. 1 with the Fig. 4 curves over ε, Alg. 2).

All generators are vectorised over instances and seeded with a :class:`numpy.random.Generator`
(``seed`` may be an int, a Generator or None). The criteria are those of
:mod:`credalbook.metrics.regions`, which accept the true class probabilities in place of labels.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), App. A.3, Algs. 1-2,
Eqs. 41-50, Fig. 4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import binom

from credalbook._random import draw_labels
from credalbook._validation import check_positive_float, check_positive_int
from credalbook.cache import cached
from credalbook.calibration.combination import ensemble_calibration
from credalbook.metrics.classification import ece
from credalbook.metrics.regions import acce, all_label_ece, DEFAULT_EPSILON, ecce

__all__ = [
    "WG_EPSILONS",
    "alg1_seed_spread",
    "ToySample",
    "ToyStudy",
    "appendix_toys",
    "all_vs_top_label_example",
    "calibrated_members_ensemble",
    "paired_label_predictions",
    "paired_label_theoretical_ace",
]

#: Alg. 1 at the paper's scale.
PAPER_ALG1 = {"n_samples": 1_000_000, "n_classes": 4, "n_members": 10, "bin_size": 2}


@dataclass(frozen=True)
class ToySample:
    """Predictions with the true class probabilities that generated them.

    Attributes
    ----------
    probs : ndarray (N, K) the predictions (for an ensemble: the uniform average of its members)
    true_probs : ndarray (N, K) the true :math:`P(\\omega_j \\mid \\mathbf x_i)`
    labels : ndarray (N,) of int or None: labels (sampled from ``true_probs`` for Alg. 1, the
        balanced labels of Alg. 2); None for Example 1, whose rows are regions, not instances
    ens_probs : ndarray (N, M, K) or None: the members (Alg. 1 only)
    """

    probs: np.ndarray
    true_probs: np.ndarray
    labels: np.ndarray | None = None
    ens_probs: np.ndarray | None = None


def _group_means(values: np.ndarray, order: np.ndarray, bin_size: int) -> np.ndarray:
    """Replace each row by the mean of its group: rows ``order[0:b], order[b:2b], …`` form the groups."""
    n = len(order)
    starts = np.arange(0, n, bin_size)
    sizes = np.diff(np.append(starts, n))
    means = np.add.reduceat(values[order], starts, axis=0) / sizes[:, None]
    out = np.empty_like(values)
    out[order] = np.repeat(means, sizes, axis=0)
    return out


def all_vs_top_label_example(tau: float = 0.05) -> ToySample:
    r"""Example 1 (Eqs. 41-45): all-label calibrated, not top-label calibrated.

    Three regions of equal mass, four classes. Predictions and true probabilities:

    .. math::
        \hat{\mathbf P} = \begin{pmatrix} 0.5 & 0.4 & 0.05 & 0.05 \\ 0.3 & 0.4 & 0.2 & 0.1 \\
        0.3 & 0.3 & 0.35 & 0.05 \end{pmatrix}, \quad
        \mathbf P = \begin{pmatrix} 0.5 & 0.4-\tau & 0.05 & 0.05+\tau \\ 0.3-\tau & 0.4+\tau & 0.2 & 0.1 \\
        0.3+\tau & 0.3 & 0.35 & 0.05-\tau \end{pmatrix}

    Rows that share a predicted value for a class have residuals :math:`\pm\tau` that cancel, so
    Eq. 44 holds for every class and value; but the top-label region :math:`p = 0.4, j = 2`
    holds region 2 only, with residual :math:`-\tau` (Eq. 45). Treating the rows as three equally
    weighted instances, with ``epsilon = 0``: ACE = ACCE = 0 and ECE = ECCE = τ/3.

    Parameters
    ----------
    tau : float in (0, 0.05]
        The paper's τ > 0; at most 0.05 so that the true probabilities stay non-negative.

    Returns
    -------
    ToySample with ``probs`` and ``true_probs`` of shape (3, 4) and no labels.

    Examples
    --------
    >>> from credalbook.metrics import all_label_ece, ece
    >>> ex = all_vs_top_label_example(0.03)
    >>> all_label_ece(ex.probs, ex.true_probs, epsilon=0), round(ece(ex.probs, ex.true_probs, epsilon=0), 6)
    (0.0, 0.01)
    """
    try:
        t = float(tau)
    except (TypeError, ValueError):
        raise ValueError(f"tau must be a number in (0, 0.05]; got {tau!r}") from None
    if not (0.0 < t <= 0.05):
        raise ValueError(f"tau must lie in (0, 0.05] so that the true probabilities stay in [0, 1]; got {tau!r}")
    probs = np.array([[0.5, 0.4, 0.05, 0.05], [0.3, 0.4, 0.2, 0.1], [0.3, 0.3, 0.35, 0.05]])
    shift = np.array([[0.0, -t, 0.0, t], [-t, t, 0.0, 0.0], [t, 0.0, 0.0, -t]])
    return ToySample(probs=probs, true_probs=probs + shift)


def calibrated_members_ensemble(
    n_samples: int = 100_000,
    *,
    n_classes: int = 4,
    n_members: int = 10,
    bin_size: int = 2,
    concentration: float = 1.0,
    shared_regions: bool = False,
    seed=None,
) -> ToySample:
    r"""Algorithm 1 (Example 2): perfectly calibrated members whose ensemble is not calibrated.

    True distributions :math:`\mathbf p^{(i)} \sim \mathrm{Dir}(\alpha\mathbf 1_K)`. Each member
    shuffles the instances, cuts them into bins of ``bin_size`` and predicts for every instance the
    mean true distribution of its bin,

    .. math:: \hat{\mathbf p}^{(i,m)} = \frac1{|B|}\sum_{l\in B}\mathbf p^{(l)}, \qquad i \in B,

    so that the residuals of each bin sum to zero: every member satisfies Eq. 2 on its own regions
    (ACE = ACCE = ECE = ECCE = 0 against ``true_probs``, for any ε, up to rounding). The members'
    regions differ, and the uniform ensemble is under-confident; its ACE is ≈ 0.0697 at the paper
    scale (``PAPER_ALG1``: N = 10⁶, K = 4, M = 10, b = 2), for ε between 1/30 and 1/200 and against
    either the labels or the true probabilities (0.0695-0.0697 measured here), and tends to 0 only at
    ε ≥ 1/2 (Fig. 4a). A last, smaller bin is averaged over its actual size (the algorithm divides
    by b).

    Parameters
    ----------
    n_samples : int, default 100_000
        N; the paper uses 10⁶ (the ensemble then takes N·M·K·8 bytes = 320 MB).
    n_classes, n_members, bin_size : int
        K, M and b.
    concentration : float > 0, default 1.0
        α of the Dirichlet distribution of the true probabilities.
    shared_regions : bool, default False
        Use one shuffle for all members: identical regions (here identical members), the case
        of Proposition 3, where the ensemble is calibrated as well.
    seed : int, numpy Generator or None

    Returns
    -------
    ToySample with ``probs`` the uniform ensemble (N, K), ``ens_probs`` (N, M, K), ``true_probs``
    and labels drawn from ``true_probs``.

    Examples
    --------
    >>> toy = calibrated_members_ensemble(1000, n_members=3, seed=0)
    >>> toy.ens_probs.shape, bool(np.allclose(toy.probs, toy.ens_probs.mean(axis=1)))
    ((1000, 3, 4), True)
    """
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    m = check_positive_int(n_members, "n_members")
    b = check_positive_int(bin_size, "bin_size")
    alpha = check_positive_float(concentration, "concentration")
    rng = np.random.default_rng(seed)
    true = rng.dirichlet(np.full(k, alpha), size=n)
    ens = np.empty((n, m, k))
    order = rng.permutation(n)
    for j in range(m):
        if j and not shared_regions:
            order = rng.permutation(n)
        ens[:, j, :] = _group_means(true, order, b)
    return ToySample(probs=ens.mean(axis=1), true_probs=true, labels=draw_labels(true, rng), ens_probs=ens)


def paired_label_predictions(
    n_samples: int = 100_000, *, n_classes: int = 4, bin_size: int = 2, seed=None
) -> ToySample:
    r"""Algorithm 2 (Example 3): finite-sample ACE 0, theoretical ACE 9/32.

    The true distribution is uniform, :math:`P(\omega_j\mid\mathbf x) = 1/K`, and the labels are
    balanced (N/K of each class, shuffled). Instances are cut into bins of ``bin_size`` and each
    predicts the class frequencies of its bin, e.g. for b = 2 the values 0, 1/2 or 1. Within every
    region of predicted values the residuals against the labels cancel bin by bin, so the sample
    ACE is exactly 0 (for any ε); against the true probabilities it is
    :func:`paired_label_theoretical_ace` (9/32 for K = 4, b = 2; Eqs. 46-50) up to Monte-Carlo error.

    Parameters
    ----------
    n_samples : int, default 100_000
        N, a multiple of ``n_classes``.
    n_classes, bin_size : int
    seed : int, numpy Generator or None

    Returns
    -------
    ToySample with ``probs`` (N, K), the balanced ``labels`` (N,) and ``true_probs`` all 1/K.

    Examples
    --------
    >>> from credalbook.metrics import all_label_ece
    >>> toy = paired_label_predictions(4000, seed=0)
    >>> all_label_ece(toy.probs, toy.labels, epsilon=0), round(all_label_ece(toy.probs, toy.true_probs, epsilon=0), 2)
    (0.0, 0.28)
    """
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    b = check_positive_int(bin_size, "bin_size")
    if n % k:
        raise ValueError(f"n_samples must be a multiple of n_classes = {k} (balanced labels); got {n}")
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.repeat(np.arange(k), n // k))
    onehot = (labels[:, None] == np.arange(k)).astype(np.float64)
    probs = _group_means(onehot, np.arange(n), b)  # labels are already shuffled
    return ToySample(probs=probs, true_probs=np.full((n, k), 1.0 / k), labels=labels)


def paired_label_theoretical_ace(n_classes: int = 4, bin_size: int = 2) -> float:
    r"""Population ACE of Algorithm 2 (Eqs. 46-50).

    A bin holds :math:`C \sim \mathrm{Bin}(b, 1/K)` instances of class :math:`\omega_j`, so the
    prediction :math:`p = C/b` occurs with probability :math:`P(\mathbf B_p)` and

    .. math::
        \mathrm{ACE} = \frac1K\sum_p \Bigl|\sum_{j=1}^K (p - \tfrac1K)\,P(\mathbf B_p)\Bigr|
        = \sum_{c=0}^{b} \Bigl|\frac cb - \frac1K\Bigr| \binom bc K^{-c}(1 - K^{-1})^{b-c}.

    Examples
    --------
    >>> paired_label_theoretical_ace() == 9 / 32
    True
    """
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    b = check_positive_int(bin_size, "bin_size")
    c = np.arange(b + 1)
    return float((np.abs(c / b - 1.0 / k) * binom.pmf(c, b, 1.0 / k)).sum())


#: Region half-widths of the Fig. 4 curves (1/2 and above: one region, the global criteria).
WG_EPSILONS = (0.002, 0.005, 0.01, 1 / 60, 1 / 30, 0.05, 0.1, 0.2, 0.3, 0.5)


@dataclass(frozen=True)
class ToyStudy:
    """App. A.3: Example 1, Alg. 1 (Fig. 4) and Alg. 2.

    Attributes
    ----------
    example1 : dict  ACE, ACCE, ECE, ECCE of Example 1 (ε = 0) and τ
    epsilons : ndarray (E,)
    ensemble_ace, ensemble_ece : ndarray (E,)  Alg. 1 ensemble against the true probabilities
    member_ace, member_ece : ndarray (E,)  largest value over the members (0: all calibrated)
    alg1_ace : float  ensemble ACE at ε = 1/30 (the paper's 0.0697)
    alg1_ace_se : float  its Monte-Carlo standard error: the spread of the ACE over 10 equal parts of the
        sample, divided by √10
    alg1_gap_se : float  standard error of ``alg1_gap`` over the instances (sd/√N)
    alg1_shared_ace : float  the same with regions shared by all members (Prop. 3: 0)
    alg1_gap, alg1_accuracy_gain : float  the ensemble's global top-label gap and its accuracy gain over
        the members (Prop. 1: calibrated members and a gain force a negative gap)
    alg2_sample_ace, alg2_true_ace, alg2_theory : float  Alg. 2 ACE against the labels, against the true
        distribution, and 9/32
    sizes : dict  N of Alg. 1 and 2, K, M, b
    """

    example1: dict
    epsilons: np.ndarray
    ensemble_ace: np.ndarray
    ensemble_ece: np.ndarray
    member_ace: np.ndarray
    member_ece: np.ndarray
    alg1_ace: float
    alg1_shared_ace: float
    alg1_gap: float
    alg1_accuracy_gain: float
    alg2_sample_ace: float
    alg2_true_ace: float
    alg2_theory: float
    sizes: dict = field(default_factory=dict)
    alg1_ace_se: float = math.nan
    alg1_gap_se: float = math.nan


@cached
def appendix_toys(
    alg1_samples: int = 100_000,
    alg2_samples: int = 100_000,
    *,
    n_members: int = 10,
    n_classes: int = 4,
    bin_size: int = 2,
    epsilons: Sequence[float] = WG_EPSILONS,
    tau: float = 0.05,
    seed: int = 0,
) -> ToyStudy:
    """App. A.3 toy values: Example 1, Alg. 1 with the Fig. 4 curves over ε, and Alg. 2. Cached on disk.

    Criteria are taken against the true class probabilities (the distributional definitions), so
    every Alg. 1 member is exactly calibrated; the paper's N = 10⁶ is ``alg1_samples=1_000_000``.

    Examples
    --------
    >>> toy = appendix_toys.__wrapped__(2000, 2000, n_members=3, epsilons=(1 / 30, 0.5))
    >>> bool(toy.member_ace.max() < 1e-12), bool(toy.ensemble_ace[-1] < 1e-12), toy.alg2_sample_ace
    (True, True, 0.0)
    """
    ex = all_vs_top_label_example(tau)
    example1 = dict(
        tau=tau,
        **{
            name: f(ex.probs, ex.true_probs, epsilon=0.0)
            for name, f in (("ace", all_label_ece), ("acce", acce), ("ece", ece), ("ecce", ecce))
        },
    )
    toy = calibrated_members_ensemble(
        alg1_samples, n_classes=n_classes, n_members=n_members, bin_size=bin_size, seed=seed
    )
    eps = np.asarray(epsilons, dtype=np.float64)
    truth = toy.true_probs
    curves = {
        name: np.array([f(toy.probs, truth, epsilon=e) for e in eps])
        for name, f in (("ace", all_label_ece), ("ece", ece))
    }
    members = {
        name: np.array([max(f(toy.ens_probs[:, m], truth, epsilon=e) for m in range(n_members)) for e in eps])
        for name, f in (("ace", all_label_ece), ("ece", ece))
    }
    calib = ensemble_calibration(toy.ens_probs, truth)
    shared = calibrated_members_ensemble(
        alg1_samples, n_classes=n_classes, n_members=n_members, bin_size=bin_size, shared_regions=True, seed=seed
    )
    parts = np.array_split(np.arange(alg1_samples), 10)
    ace_parts = [all_label_ece(toy.probs[i], truth[i], epsilon=DEFAULT_EPSILON) for i in parts]
    ens_top = toy.probs.argmax(axis=1)
    gap_i = toy.probs.max(axis=1) - truth[np.arange(alg1_samples), ens_top]
    alg2 = paired_label_predictions(
        alg2_samples - alg2_samples % n_classes, n_classes=n_classes, bin_size=bin_size, seed=seed
    )
    return ToyStudy(
        example1=example1,
        epsilons=eps,
        ensemble_ace=curves["ace"],
        ensemble_ece=curves["ece"],
        member_ace=members["ace"],
        member_ece=members["ece"],
        alg1_ace=all_label_ece(toy.probs, truth, epsilon=DEFAULT_EPSILON),
        alg1_shared_ace=all_label_ece(shared.probs, shared.true_probs, epsilon=DEFAULT_EPSILON),
        alg1_gap=calib.ensemble_top_label_gap,
        alg1_accuracy_gain=calib.accuracy_gain,
        alg2_sample_ace=all_label_ece(alg2.probs, alg2.labels, epsilon=0.0),
        alg2_true_ace=all_label_ece(alg2.probs, alg2.true_probs, epsilon=0.0),
        alg2_theory=paired_label_theoretical_ace(n_classes, bin_size),
        sizes=dict(
            alg1_samples=alg1_samples,
            alg2_samples=alg2_samples,
            n_classes=n_classes,
            n_members=n_members,
            bin_size=bin_size,
        ),
        alg1_ace_se=float(np.std(ace_parts, ddof=1) / math.sqrt(len(parts))),
        alg1_gap_se=float(gap_i.std(ddof=1) / math.sqrt(alg1_samples)),
    )


def alg1_seed_spread(n_samples: int = 1_000_000, *, n_seeds: int = 11, seed: int = 0) -> dict:
    """The ACE (ε = 1/30) of Alg. 1's ensemble over independent draws, against the labels and the truth.

    Eq. 12 sums the residuals :math:`P(\\omega_j\\mid\\mathbf x_i) - \\delta(y_i, \\omega_j)` against
    sampled labels; the true class probabilities remove the labels' noise. The paper prints one draw
    (0.0697 at N = 10⁶) without saying which; the spread over draws (seeds ``seed, ..., seed + n_seeds - 1``
    of :func:`calibrated_members_ensemble` at the paper's K, M, b) is what one draw can differ by.

    Parameters
    ----------
    n_samples : int, default=1_000_000
    n_seeds : int, default=11
        At least 2.
    seed : int, default=0

    Returns
    -------
    dict
        ``labels`` and ``truth``: the ACE of every draw (ndarray (n_seeds,)), ``n_samples``, ``seeds``.

    References
    ----------
    Wu & Gales (2021), App. A.3, Example 2 and Alg. 1.

    Examples
    --------
    >>> out = alg1_seed_spread(2000, n_seeds=3)
    >>> out["labels"].shape, bool(out["truth"].std() > 0)
    ((3,), True)
    """
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    s = check_positive_int(n_seeds, "n_seeds", minimum=2)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    labels, truth = [], []
    for k in range(int(seed), int(seed) + s):
        toy = calibrated_members_ensemble(n, seed=k)
        labels.append(all_label_ece(toy.probs, toy.labels, epsilon=DEFAULT_EPSILON))
        truth.append(all_label_ece(toy.probs, toy.true_probs, epsilon=DEFAULT_EPSILON))
    return dict(labels=np.array(labels), truth=np.array(truth), n_samples=n, seeds=tuple(range(seed, seed + s)))
