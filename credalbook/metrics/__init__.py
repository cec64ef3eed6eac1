"""Calibration metrics: one classifier (binned ECEs, proper scores, reliability diagrams), kernel and
distribution calibration errors (SKCE, Lp/KL/MMD), Wu & Gales' calibration-region criteria,
label-histogram metrics and the evaluation of epistemic-uncertainty estimates.

Binary classifiers: every metric and interval taking ``(probs, labels)`` also takes one score per
instance, P(y = 1), of shape (N,) (scikit-learn's ``predict_proba(X)[:, 1]``) with labels 0/1 (integers,
whole floats or bools), and gives exactly what the two-class rows ``np.stack([1 - p, p], axis=1)`` give
(``credalbook._validation.as_binary_probs``). The exceptions say so: :func:`reliability_curve` and
:func:`consistency_bands` default to the diagram of P(y = 1), and :func:`smooth_ece` is the binary
smooth ECE of P(y = 1).

Only what a user calls is listed here; the engine helpers of the metrics (per-bin sums, bin indices
without validation, the unvalidated ``*_batched`` forms, ...) are imported from their modules
(:mod:`credalbook.metrics.binning`, :mod:`credalbook.metrics.classification`, :mod:`credalbook.metrics.kernel`, ...).
"""

from credalbook.metrics.binning import bin_ids, bin_statistics, BIN_STRATEGIES, BinStatistics
from credalbook.metrics.classification import (
    accuracy,
    ace,
    brier_score,
    calibration_summary,
    ece,
    ece_classwise,
    ece_confidence,
    multiclass_auc,
    nll,
)
from credalbook.metrics.consistency import consistency_bands, ConsistencyBands
from credalbook.metrics.criteria import calibrated_sampling_floor, criteria_summary
from credalbook.metrics.differentiable import differentiable_ece
from credalbook.metrics.direction import (
    describe_direction,
    DIRECTION_KINDS,
    ece_split,
    ECESplit,
    signed_calibration_error,
)
from credalbook.metrics.distribution import (
    brier_estimator,
    dirichlet_kde_calibration_map,
    ESTIMATOR_BANDWIDTHS,
    estimator_function,
    ESTIMATORS,
    kl_calibration_error,
    lp_calibration_error,
    mmd_calibration_error,
    skce_estimator,
)
from credalbook.metrics.epistemic import (
    accuracy_gain,
    eece,
    epistemic_correlation,
    equal_mass_edges,  # noqa: F401 - old name of interval_cuts (FutureWarning), not in __all__
    eu_reliability,
    EUCalibrationMap,
    EUEvaluation,
    EUReliability,
    evaluate_eu,
    fit_eu_calibration,
    interval_cuts,
    interval_index,
)
from credalbook.metrics.intervals import bootstrap_ci, CI_METHODS, Estimate
from credalbook.metrics.joint import joint_intervals, JOINT_METRICS
from credalbook.metrics.kernel import AUTO_BLOCK_SIZE, QUADRATIC_MAX_N, skce, skce_laplacian, skce_ul, skce_uq
from credalbook.metrics.kernels import (
    as_kernel,
    DEFAULT_BANDWIDTH,
    gaussian_kernel,
    GaussianKernel,
    laplacian_kernel,
    LaplacianKernel,
    median_heuristic,
    ScalarKernel,
    tv_kernel,
    TVKernel,
)
from credalbook.metrics.label_hist import (
    binned_calibration_error,
    binned_calibration_loss,
    check_label_hist,
    cpe_loss_decomposition,
    CPELossDecomposition,
    dispersion_loss,
    epistemic_loss,
    expected_squared_loss,
)
from credalbook.metrics.label_stats import (
    disagreement_statistic,
    statistic_calibration,
    statistic_calibration_error,
    statistic_calibration_loss,
    statistic_mean_estimate,
    statistic_squared_loss,
    StatisticCalibration,
)
from credalbook.metrics.regions import (
    acce,
    all_label_ece,
    DEFAULT_EPSILON,
    ecce,
    epsilon_from_bins,
    global_calibration_gap,
    global_top_label_gap,
)
from credalbook.metrics.reliability import reliability_curve, RELIABILITY_KINDS, ReliabilityCurve
from credalbook.metrics.smooth import MIN_SMOOTH_ECE_BANDWIDTH, smooth_ece, smooth_ece_bandwidth
from credalbook.metrics.uncertainty import (
    binary_entropy,
    eu_estimates,
    EUEstimates,
    mutual_information,
    predictive_entropy,
    predictive_probability,
    uncertainty_decomposition,
    UncertaintyDecomposition,
)

__all__ = [
    # binning
    "BIN_STRATEGIES",
    "BinStatistics",
    "bin_ids",
    "bin_statistics",
    # one classifier: scores, binned calibration errors, AUC
    "accuracy",
    "ace",
    "brier_score",
    "calibration_summary",
    "ece",
    "ece_classwise",
    "ece_confidence",
    "multiclass_auc",
    "nll",
    "differentiable_ece",
    # the direction of miscalibration: over- or under-confident
    "DIRECTION_KINDS",
    "ECESplit",
    "describe_direction",
    "ece_split",
    "signed_calibration_error",
    # reliability diagrams and their consistency bands
    "RELIABILITY_KINDS",
    "ReliabilityCurve",
    "reliability_curve",
    "ConsistencyBands",
    "consistency_bands",
    # bootstrap intervals
    "JOINT_METRICS",
    "joint_intervals",
    "CI_METHODS",
    "Estimate",
    "bootstrap_ci",
    # kernels and the SKCE
    "DEFAULT_BANDWIDTH",
    "ScalarKernel",
    "TVKernel",
    "LaplacianKernel",
    "GaussianKernel",
    "tv_kernel",
    "laplacian_kernel",
    "gaussian_kernel",
    "as_kernel",
    "median_heuristic",
    "AUTO_BLOCK_SIZE",
    "QUADRATIC_MAX_N",
    "skce",
    "skce_ul",
    "skce_uq",
    "skce_laplacian",
    # distribution calibration errors (Jürgens et al.)
    "ESTIMATORS",
    "ESTIMATOR_BANDWIDTHS",
    "brier_estimator",
    "dirichlet_kde_calibration_map",
    "estimator_function",
    "kl_calibration_error",
    "lp_calibration_error",
    "mmd_calibration_error",
    "skce_estimator",
    # calibration-region criteria (Wu & Gales)
    "DEFAULT_EPSILON",
    "epsilon_from_bins",
    "acce",
    "all_label_ece",
    "ecce",
    "global_calibration_gap",
    "global_top_label_gap",
    "criteria_summary",
    "calibrated_sampling_floor",
    # smooth ECE
    "MIN_SMOOTH_ECE_BANDWIDTH",
    "smooth_ece",
    "smooth_ece_bandwidth",
    # label histograms
    "check_label_hist",
    "binned_calibration_error",
    "binned_calibration_loss",
    "cpe_loss_decomposition",
    "CPELossDecomposition",
    "dispersion_loss",
    "epistemic_loss",
    "expected_squared_loss",
    "disagreement_statistic",
    "statistic_calibration",
    "statistic_calibration_error",
    "statistic_calibration_loss",
    "statistic_mean_estimate",
    "statistic_squared_loss",
    "StatisticCalibration",
    # epistemic uncertainty: estimates and their evaluation
    "binary_entropy",
    "eu_estimates",
    "EUEstimates",
    "mutual_information",
    "predictive_entropy",
    "predictive_probability",
    "uncertainty_decomposition",
    "UncertaintyDecomposition",
    "accuracy_gain",
    "eece",
    "epistemic_correlation",
    "eu_reliability",
    "EUCalibrationMap",
    "EUEvaluation",
    "EUReliability",
    "evaluate_eu",
    "fit_eu_calibration",
    "interval_cuts",
    "interval_index",
]
