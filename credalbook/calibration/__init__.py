"""Post-hoc calibrators on stored logits: temperature/vector/matrix scaling, ensemble
temperatures (pre, post, dynamic), α-calibration, Dirichlet predictive closed forms, member
combination weights, hyper-parameter selection, and the loops that fit them.
"""

from credalbook.calibration.alpha import (
    AlphaCalibrator,
    extract_features,
    fit_alpha_calibration,
    mc_dropout_samples,
    PAPER_AUGMENTATIONS,
    RandomAugment,
    tta_samples,
)
from credalbook.calibration.combination import (
    auc_weights,
    average_members,
    ensemble_calibration,
    ensemble_confidence_gap,
    EnsembleCalibration,
    ml_weights,
    multiclass_auc,
    perturb_non_top_label,
    regional_confidence,
    RegionalConfidence,
)
from credalbook.calibration.dirichlet import (
    dirichlet_disagreement,
    dirichlet_multinomial_nll,
    dirichlet_multinomial_nll_torch,
    dirichlet_posterior_probs,
    ensemble_disagreement,
    ensemble_posterior_probs,
)
from credalbook.calibration.ensemble import (
    differentiable_ece,
    DynamicTemperatureScaling,
    ENSEMBLE_CALIBRATORS,
    PAPER_ENSEMBLE_FIT,
    PAPER_N_REGIONS,
    PostCombinationScaling,
    PreCombinationScaling,
)
from credalbook.calibration.fitting import fit_with_early_stopping
from credalbook.calibration.scaling import (
    Calibrator,
    CALIBRATORS,
    histogram_nll,
    MatrixScaling,
    TemperatureScaling,
    VectorScaling,
)
from credalbook.calibration.selection import CalibratorSelection, PAPER_CALIBRATOR_GRIDS, select_calibrator

__all__ = [
    "AlphaCalibrator",
    "extract_features",
    "fit_alpha_calibration",
    "mc_dropout_samples",
    "PAPER_AUGMENTATIONS",
    "RandomAugment",
    "tta_samples",
    "auc_weights",
    "average_members",
    "ensemble_calibration",
    "ensemble_confidence_gap",
    "EnsembleCalibration",
    "ml_weights",
    "multiclass_auc",
    "perturb_non_top_label",
    "regional_confidence",
    "RegionalConfidence",
    "dirichlet_disagreement",
    "dirichlet_multinomial_nll",
    "dirichlet_multinomial_nll_torch",
    "dirichlet_posterior_probs",
    "ensemble_disagreement",
    "ensemble_posterior_probs",
    "differentiable_ece",
    "DynamicTemperatureScaling",
    "ENSEMBLE_CALIBRATORS",
    "PAPER_ENSEMBLE_FIT",
    "PAPER_N_REGIONS",
    "PostCombinationScaling",
    "PreCombinationScaling",
    "fit_with_early_stopping",
    "Calibrator",
    "CALIBRATORS",
    "histogram_nll",
    "MatrixScaling",
    "TemperatureScaling",
    "VectorScaling",
    "CalibratorSelection",
    "PAPER_CALIBRATOR_GRIDS",
    "select_calibrator",
]
