"""Mimori et al. (2022), *Diagnostic Uncertainty Calibration*: simulations, Mix-data networks,
optimal α0, the reported numbers (``reported.json``), the chapter's figures and its comparison rows.
"""

from credalbook.papers.mimori.alpha0 import (
    Alpha0Interval,
    dpe_alpha0_interval,
    dpe_conditional_loss,
    optimal_log_alpha0,
    posterior_alpha0_interval,
    posterior_conditional_epistemic_loss,
)
from credalbook.papers.mimori.compare import compare, POST_ROWS
from credalbook.papers.mimori.controls import (
    best_constant_alpha0,
    constant_alpha0_posterior_el,
    constant_dpe_shrinkage,
    SharedTemperatureEnsembleScaling,
)
from credalbook.papers.mimori.evaluation import (
    bootstrap_metrics,
    dpe_reliability,
    ensemble_temperature_scan,
    evaluate_predictors,
    pool_seeds,
    ts_dpe_shift,
)
from credalbook.papers.mimori.figures import (
    plot_calibration_dispersion_map,
    plot_debiasing_study,
    plot_dpe_reliability,
    plot_optimal_log_alpha0,
    plot_theorem1_check,
    plot_ts_shifts,
)
from credalbook.papers.mimori.networks import (
    AUTHORS_NETWORK,
    build_mix_network,
    chapter_setting,
    MIX_AUGMENTATIONS,
    mix_training_settings,
    MixNetwork,
    STRONG_TTA_AUGMENT,
    train_mix_network,
)
from credalbook.papers.mimori.predictions import mimori_predictions, MimoriPredictions, PredictorOutputs
from credalbook.papers.mimori.released_code import released_code_demo, released_code_el_cl
from credalbook.papers.mimori.reported import PAPER_DELTA_D, PAPER_VALUES, paper_values, side_by_side
from credalbook.papers.mimori.simulations import (
    AlphaOptimumGrid,
    debiasing_study,
    DebiasingStudy,
    optimal_log_alpha0_grid,
    PAPER_Z1_GRID,
    theorem1_check,
    Theorem1Check,
)

__all__ = [
    "Alpha0Interval",
    "dpe_alpha0_interval",
    "dpe_conditional_loss",
    "optimal_log_alpha0",
    "posterior_alpha0_interval",
    "posterior_conditional_epistemic_loss",
    "compare",
    "POST_ROWS",
    "AlphaOptimumGrid",
    "best_constant_alpha0",
    "constant_alpha0_posterior_el",
    "constant_dpe_shrinkage",
    "SharedTemperatureEnsembleScaling",
    "ensemble_temperature_scan",
    "pool_seeds",
    "AUTHORS_NETWORK",
    "chapter_setting",
    "STRONG_TTA_AUGMENT",
    "bootstrap_metrics",
    "build_mix_network",
    "debiasing_study",
    "DebiasingStudy",
    "dpe_reliability",
    "evaluate_predictors",
    "mimori_predictions",
    "MimoriPredictions",
    "MIX_AUGMENTATIONS",
    "mix_training_settings",
    "MixNetwork",
    "optimal_log_alpha0_grid",
    "PAPER_Z1_GRID",
    "PredictorOutputs",
    "released_code_demo",
    "released_code_el_cl",
    "theorem1_check",
    "Theorem1Check",
    "train_mix_network",
    "ts_dpe_shift",
    "plot_calibration_dispersion_map",
    "plot_debiasing_study",
    "plot_dpe_reliability",
    "plot_optimal_log_alpha0",
    "plot_theorem1_check",
    "plot_ts_shifts",
    "PAPER_DELTA_D",
    "PAPER_VALUES",
    "paper_values",
    "side_by_side",
]
