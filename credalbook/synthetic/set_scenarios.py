r"""Synthetic sets of classifiers with a known answer: scenarios S1, S2 and S3 of Mortier et al. (2023).

For every instance a centre :math:`\mathbf p_e \sim \mathrm{Dir}(\mathbf 1_K / K)` is drawn and
the M members around it, :math:`\hat{\mathbf p}^{(m)} \sim \mathrm{Dir}(K\mathbf p_e / u)`; the
spread u controls the size of the credal set (Sec. 4.1). Labels come from a ground truth that is

* **S1** (:math:`H_0` true): :math:`\mathbf p_{\boldsymbol\lambda}` for one
  :math:`\boldsymbol\lambda \in \Delta_M` per dataset, uniform on the simplex as the paper says
  (``weight_prior="uniform"``) or :math:`\mathrm{Dir}(1/M)` as the authors' code does
  (``"sparse"``);
* **S2** (:math:`H_1`): a point drawn uniformly on the segment from the boundary point
  :math:`\mathbf p_b` (where the segment from the set's mean towards a corner leaves the hull, Alg. 2)
  to the corner :math:`\mathbf e_c` of the mean's largest class: :math:`\mathbf p = l\,\mathbf e_c
  + (1-l)\,\mathbf p_b`, :math:`l \sim U(0, 1)`;
* **S3** (:math:`H_1`): as S2 with a corner chosen uniformly at random ("somewhat easier to
  reject", Sec. 4.1).

Choices where the paper is ambiguous (Sec. 4.1 and App. A.1 start the segment at
:math:`\mathbf p_e`, "the mean", without saying of what): the segment starts at the members'
mean (``segment_start="mean"``), which always lies in the hull, so Alg. 2 has a valid start. The
authors' code starts at the centre :math:`\mathbf p_e` (``segment_start="centre"``;
tfmortie/calibration@686d453, ``calibration/src/test/final_experiments_alpha_fast.py``, l. 101 and
116), which for M ≤ K lies outside the hull of the members almost surely (Wendel's theorem:
probability ≈ 1 − 2^{-(M-1)} for M = K). For such a start the printed Alg. 2 returns
:math:`\mathbf p_e` itself (its first check fails, line 10 returns the initial value), while the
authors' ``getBoundary`` (same file, l. 46-58) returns the corner :math:`\mathbf e_c`: it sets
``bi = i - 1 = -1`` and returns ``L[-1]``, the last point of the segment. The ground truth is then
the corner itself and the labels are that corner's class. ``outside_start="start"`` (default)
follows the printed Alg. 2, ``"end"`` the authors' code.
Every instance gets its own :math:`l` (in the released H1 code, l. 118-120 of the same file, the
first instance overwrites ``l`` with a probability vector that all later instances reuse; not
reproduced).

All draws are batched over datasets and instances; Dirichlet draws with tiny concentrations
(:math:`1/K` for K = 100) are made in log space so that no row degenerates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook._random import dirichlet, draw_labels, draw_weights, WEIGHT_PRIORS
from credalbook._validation import as_rng, check_choice, check_positive_float, check_positive_int
from credalbook.credal.geometry import boundary_point, in_credal_set

__all__ = ["CredalScenario", "credal_scenario", "SCENARIOS"]

SCENARIOS = ("S1", "S2", "S3")
_STARTS = ("mean", "centre")
_BOUNDARY_METHODS = ("lp", "bisection", "grid")  # those of credalbook.credal.boundary_point
_OUTSIDE = ("start", "end")


@dataclass(frozen=True)
class CredalScenario:
    """R synthetic datasets of one scenario.

    Attributes
    ----------
    scenario : str
        ``"S1"``, ``"S2"`` or ``"S3"``.
    ens_probs : ndarray (R, N, M, K)
        The members' predictions.
    labels : ndarray (R, N)
        Labels drawn from ``truth``.
    truth : ndarray (R, N, K)
        The distribution the labels were drawn from.
    centre : ndarray (R, N, K)
        :math:`\\mathbf p_e`, the Dirichlet centre of the members.
    weights : ndarray (R, M) or None
        S1: the calibrated combination :math:`\\boldsymbol\\lambda` of each dataset.
    boundary : ndarray (R, N, K) or None
        S2/S3: the boundary point :math:`\\mathbf p_b`.
    corner : ndarray (R, N) or None
        S2/S3: the class of the corner :math:`\\mathbf e_c`.
    config : dict
    """

    scenario: str
    ens_probs: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    truth: np.ndarray = field(repr=False)
    centre: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    boundary: np.ndarray | None = field(default=None, repr=False)
    corner: np.ndarray | None = field(default=None, repr=False)
    config: dict = field(default_factory=dict)

    @property
    def is_null(self) -> bool:
        """Whether H0 (the set is calibrated) holds by construction."""
        return self.scenario == "S1"


def credal_scenario(
    scenario: str,
    *,
    n_datasets: int = 1,
    n_instances: int = 100,
    n_members: int = 10,
    n_classes: int = 10,
    u: float = 0.01,
    weight_prior: str = "uniform",
    segment_start: str = "mean",
    boundary_method: str = "lp",
    outside_start: str = "start",
    seed=None,
) -> CredalScenario:
    r"""Draw R datasets of scenario S1, S2 or S3 (Mortier et al. 2023, Sec. 4.1 and App. A.1).

    Parameters
    ----------
    scenario : {"S1", "S2", "S3"}
    n_datasets, n_instances, n_members, n_classes : int
        R, N, M, K. The paper's settings are (N, M, K, u) = (100, 10, 10, 0.01) (Fig. 1),
        (100, 10, 10, 0.1), (100, 100, 10, 0.01) and (100, 10, 100, 0.01) (App. Figs. 2-4).
    u : float, default 0.01
        Spread of the members around the centre.
    weight_prior : {"uniform", "sparse"}, default "uniform"
        S1's :math:`\boldsymbol\lambda`: Dir(1) (the paper) or Dir(1/M) (the authors' code).
    segment_start : {"mean", "centre"}, default "mean"
        Start of the S2/S3 segment (see the module docstring).
    boundary_method : {"lp", "bisection", "grid"}, default "lp"
        How :func:`~credalbook.credal.boundary_point` finds :math:`\mathbf p_b`.
    outside_start : {"start", "end"}, default "start"
        :math:`\mathbf p_b` when the segment's start lies outside the hull (only possible with
        ``segment_start="centre"``): the start (the printed Alg. 2) or the corner :math:`\mathbf e_c`
        (the authors' ``getBoundary``; see the module docstring).
    seed : int, numpy Generator or None

    Returns
    -------
    CredalScenario

    Examples
    --------
    >>> sc = credal_scenario("S2", n_datasets=2, n_instances=5, n_members=3, n_classes=3, u=0.5, seed=0)
    >>> sc.ens_probs.shape, sc.labels.shape, sc.is_null
    ((2, 5, 3, 3), (2, 5), False)
    """
    check_choice(scenario, "scenario", SCENARIOS)
    r = check_positive_int(n_datasets, "n_datasets")
    n = check_positive_int(n_instances, "n_instances")
    m = check_positive_int(n_members, "n_members")
    k = check_positive_int(n_classes, "n_classes", minimum=2)
    u = check_positive_float(u, "u")
    check_choice(weight_prior, "weight_prior", WEIGHT_PRIORS)
    check_choice(segment_start, "segment_start", _STARTS)
    check_choice(boundary_method, "boundary_method", _BOUNDARY_METHODS)
    check_choice(outside_start, "outside_start", _OUTSIDE)
    rng = as_rng(seed)
    centre = dirichlet(np.full(k, 1.0 / k), rng, (r, n))
    alpha = np.maximum(k * centre / u, 1e-300)[:, :, None, :]
    ens = dirichlet(np.broadcast_to(alpha, (r, n, m, k)), rng)
    config = dict(
        n_datasets=r,
        n_instances=n,
        n_members=m,
        n_classes=k,
        u=u,
        weight_prior=weight_prior,
        segment_start=segment_start,
        boundary_method=boundary_method,
        outside_start=outside_start,
    )
    if scenario == "S1":
        weights = draw_weights(m, weight_prior, rng, (r,))
        truth = np.einsum("rnmk,rm->rnk", ens, weights)
        labels = draw_labels(truth, rng)
        return CredalScenario(scenario, ens, labels, truth, centre, weights=weights, config=config)
    start = ens.mean(axis=2) if segment_start == "mean" else centre
    corner = start.argmax(axis=-1) if scenario == "S2" else rng.integers(0, k, size=(r, n))
    target = np.eye(k)[corner]
    boundary = boundary_point(ens, start, target, method=boundary_method).point
    if outside_start == "end" and segment_start == "centre":
        outside = ~in_credal_set(ens, start)
        boundary[outside] = target[outside]
    step = rng.random((r, n, 1))
    truth = step * target + (1 - step) * boundary
    truth /= truth.sum(axis=-1, keepdims=True)
    labels = draw_labels(truth, rng)
    return CredalScenario(scenario, ens, labels, truth, centre, boundary=boundary, corner=corner, config=config)
