"""credalbook: calibration of classifier sets and evaluation of epistemic uncertainty.

The package behind an executable book that reproduces five papers. Public names are re-exported
here; each lives in a module named for its concept:

- foundations: metrics, hosmer_lemeshow, synthetic, data, idx_format, data_splits, models, training,
  predictions, cache, plotting, report, presets, runner, device;
- Mortier et al.: skce, measures, credal, credal_scenarios, calibration_tests, error_rates,
  ensembles, set_evaluation;
- Jürgens et al.: calibration_estimators, weight_learning, instance_scenarios,
  instance_calibration_test, polytope_sampling, estimator_analysis;
- Mimori et al.: label_histograms, label_statistics, dirichlet_predictions, alpha0_optima, mix_datasets,
  calibrators, calibrator_selection, alpha_calibration, mimori_networks, mimori_experiments, mimori_paper, mimori_plotting;
- Wu & Gales: calibration_criteria, ensemble_combination, ensemble_toys, ensemble_temperature, temperature_curves,
  topology_networks, topologies, wu_gales_experiments, wu_gales_paper, wu_gales_plotting;
- epistemic uncertainty: gp_classifier, epistemic_uncertainty, eu_evaluation, ball_carving, eu_toy_data,
  eu_experiments, eu_real_data, eu_plotting.
"""

__version__ = "0.1.0"

from credalbook.cache import cache_dir, cached, clear_cache, memory
from credalbook.calibration_estimators import (
    ESTIMATOR_BANDWIDTHS,
    ESTIMATORS,
    brier_estimator,
    dirichlet_kde_calibration_map,
    estimator_measure,
    kl_calibration_error,
    lp_calibration_error,
    mmd_calibration_error,
    skce_estimator,
)
from credalbook.calibration_tests import (
    SOLVERS,
    CalibrationTestResult,
    Minimum,
    bootstrap_calibration_test,
    exact_size,
    minimise_calibration_measure,
    set_calibration_test,
    set_null_distribution,
)
from credalbook.credal import (
    BoundaryPoint,
    boundary_point,
    check_weights,
    convex_combination,
    hull_distance,
    in_credal_set,
    sample_weights,
)
from credalbook.polytope_sampling import polytope_volume, sample_polytope
from credalbook.credal_scenarios import SCENARIOS, CredalScenario, credal_scenario
from credalbook.data import (
    DATASETS,
    Dataset,
    DatasetNotFoundError,
    load_cifar,
    load_dataset,
    load_digits,
    load_emnist,
    load_fashion_mnist,
    load_mnist,
    read_idx,
    split_dataset,
    train_val_test_split,
    write_idx,
)
from credalbook.device import resolve_device, seed_everything
from credalbook.ensembles import (
    BackboneFeatures,
    ClassifierSet,
    backbone_features,
    classifier_sets,
    train_classifier_set,
)
from credalbook.estimator_analysis import (
    Landscape,
    calibrated_combinations_example,
    estimator_landscape,
    simplex_grid,
    weight_landscape,
)
from credalbook.error_rates import PAPER_ALPHAS, PAPER_MEASURES, PAPER_SETTINGS, ErrorRateStudy, set_test_error_rates
from credalbook.instance_calibration_test import (
    JUERGENS_ESTIMATORS,
    JUERGENS_H1_ALPHAS,
    InstanceTestResult,
    instance_calibration_test,
    instance_test_error_rates,
    split_indices,
)
from credalbook.instance_scenarios import HYPOTHESES, INSTANCE_SETTINGS, InstanceScenario, instance_scenario
from credalbook.hosmer_lemeshow import (
    HosmerLemeshowResult,
    hosmer_lemeshow,
    hosmer_lemeshow_statistic,
    null_rejection_rate,
    sample_labels,
)
from credalbook.metrics import (
    ReliabilityCurve,
    accuracy,
    brier_score,
    calibration_summary,
    ece_classwise,
    ece_confidence,
    nll,
    reliability_curve,
)
from credalbook.calibration_criteria import (
    DEFAULT_EPSILON,
    ace,
    acce,
    calibrated_sampling_floor,
    criteria_summary,
    ecce,
    ece,
    epsilon_from_bins,
    global_calibration_gap,
    global_top_label_gap,
    median_heuristic,
    skce_laplacian,
)
from credalbook.ensemble_combination import (
    EnsembleCalibration,
    RegionalConfidence,
    auc_weights,
    average_members,
    ensemble_calibration,
    ensemble_confidence_gap,
    ml_weights,
    multiclass_auc,
    perturb_non_top_label,
    regional_confidence,
)
from credalbook.ensemble_toys import (
    ToySample,
    all_vs_top_label_example,
    calibrated_members_ensemble,
    paired_label_predictions,
    paired_label_theoretical_ace,
)
from credalbook.ensemble_temperature import (
    ENSEMBLE_CALIBRATORS,
    PAPER_ENSEMBLE_FIT,
    PAPER_N_REGIONS,
    DynamicTemperatureScaling,
    PostCombinationScaling,
    PreCombinationScaling,
    differentiable_ece,
)
from credalbook.temperature_curves import TemperatureSweep, temperature_sweep
from credalbook.topologies import (
    PAPER_TOPOLOGIES,
    QUICK_TOPOLOGIES,
    TopologyEnsemble,
    resolve_network_scale,
    topology_ensemble_logits,
    topology_member_logits,
)
from credalbook.topology_networks import FAMILIES, DenseNet, LeNet5, PadCropFlip, WideResNet, build_topology
from credalbook.gp_classifier import (
    GP_LIKELIHOODS,
    GPClassifierFit,
    LatentPredictive,
    fit_gp_classifier,
    fit_gp_classifier_cached,
)
from credalbook.epistemic_uncertainty import (
    EUEstimates,
    UncertaintyDecomposition,
    binary_entropy,
    eu_estimates,
    mutual_information,
    predictive_entropy,
    predictive_probability,
    uncertainty_decomposition,
)
from credalbook.eu_evaluation import (
    EUCalibrationMap,
    EUEvaluation,
    EUReliability,
    accuracy_gain,
    eece,
    epistemic_correlation,
    equal_mass_edges,
    eu_reliability,
    evaluate_eu,
    fit_eu_calibration,
    interval_index,
)
from credalbook.ball_carving import (
    BallLayout,
    BallSplit,
    DenseCentres,
    carve_balls,
    dense_centres,
    grid_centres,
    neighbour_radius,
)
from credalbook.eu_toy_data import TOY_GRID, TOY_N, EUToyData, eu_toy_data, toy_disc_layout
from credalbook.label_histograms import (
    CPELossDecomposition,
    binned_calibration_error,
    binned_calibration_loss,
    check_label_hist,
    cpe_loss_decomposition,
    dispersion_loss,
    epistemic_loss,
    expected_squared_loss,
)
from credalbook.label_statistics import (
    StatisticCalibration,
    disagreement_statistic,
    statistic_calibration,
    statistic_calibration_error,
    statistic_calibration_loss,
    statistic_mean_estimate,
    statistic_squared_loss,
)
from credalbook.dirichlet_predictions import (
    dirichlet_disagreement,
    dirichlet_multinomial_nll,
    dirichlet_multinomial_nll_torch,
    dirichlet_posterior_probs,
    ensemble_disagreement,
    ensemble_posterior_probs,
)
from credalbook.alpha0_optima import (
    Alpha0Interval,
    dpe_alpha0_interval,
    dpe_conditional_loss,
    optimal_log_alpha0,
    posterior_alpha0_interval,
    posterior_conditional_epistemic_loss,
)
from credalbook.measures import MEASURES, CalibrationMeasure, as_measure, calibration_measure
from credalbook.models import MLP, SmallCNN, count_parameters, mc_dropout_predict
from credalbook.mimori_networks import VGG16_LAYERS, ThreeConvNet, VGGNet
from credalbook.mix_datasets import (
    PAPER_MIX_SIZES,
    MixDataset,
    MixSplit,
    make_mix_dataset,
    mix_images,
    sample_label_hist,
    variable_label_counts,
)
from credalbook.calibrators import (
    CALIBRATORS,
    Calibrator,
    MatrixScaling,
    TemperatureScaling,
    VectorScaling,
    fit_with_early_stopping,
    histogram_nll,
)
from credalbook.calibrator_selection import PAPER_CALIBRATOR_GRIDS, CalibratorSelection, select_calibrator
from credalbook.alpha_calibration import (
    PAPER_AUGMENTATIONS,
    AlphaCalibrator,
    RandomAugment,
    extract_features,
    fit_alpha_calibration,
    mc_dropout_samples,
    tta_samples,
)
from credalbook.plotting import (
    plot_credal_scenario,
    plot_error_rate_figure,
    plot_error_rates,
    plot_instance_error_rates,
    plot_landscape,
    plot_null_distributions,
    plot_polytope_sampling,
    plot_rejection_rates,
    plot_reliability_diagram,
    set_theme,
    simplex_coordinates,
)
from credalbook.predictions import ModelPredictions, build_model, train_predictions
from credalbook.presets import preset
from credalbook.report import Comparison, Table, count_of, glue, load_comparison
from credalbook.set_evaluation import compare_solvers, evaluate_classifier_set, evaluate_instance_test
from credalbook.skce import skce_ul, skce_uq, tv_kernel
from credalbook.synthetic import calibrated_predictions, scramble_non_top
from credalbook.training import TrainResult, fit, predict_logits, predict_proba
from credalbook.weight_learning import LOSS_PRESETS, PROPER_SCORES, WeightFunction, fit_weight_function

from credalbook.mimori_experiments import (
    MIX_AUGMENTATIONS,
    PAPER_Z1_GRID,
    AlphaOptimumGrid,
    DebiasingStudy,
    MimoriPredictions,
    MixNetwork,
    PredictorOutputs,
    Theorem1Check,
    build_mix_network,
    debiasing_study,
    dpe_reliability,
    evaluate_predictors,
    mimori_predictions,
    mix_training_settings,
    optimal_log_alpha0_grid,
    theorem1_check,
    train_mix_network,
    ts_dpe_shift,
)
from credalbook.mimori_paper import PAPER_DELTA_D, PAPER_VALUES, paper_values, side_by_side
from credalbook.mimori_plotting import (
    plot_calibration_dispersion_map,
    plot_debiasing_study,
    plot_dpe_reliability,
    plot_optimal_log_alpha0,
    plot_theorem1_check,
    plot_ts_shifts,
)

from credalbook.eu_experiments import (
    EU_ESTIMATORS,
    EU_METRICS,
    EU_PAPER_TABLE1,
    EU_PAPER_TABLE2,
    TOY_NOISE_SD,
    EUIntervalCurves,
    EURun,
    EUStudy,
    ToySplits,
    run_eu_experiment,
    toy_eu_experiment,
    toy_eu_splits,
    toy_eu_study,
    toy_noise_summary,
)
from credalbook.eu_real_data import (
    BinaryFeatures,
    RealSplits,
    pca_even_odd,
    real_eu_experiment,
    real_eu_splits,
    real_eu_study,
)
from credalbook.eu_plotting import EU_CURVE_STYLE, plot_carved_discs, plot_eu_interval_figure, plot_eu_intervals
from credalbook.data import load_kuzushiji49

from credalbook.wu_gales_experiments import (
    WG_EPSILONS,
    WG_METHODS,
    CalibrationStudy,
    PropositionChecks,
    TemperatureStudy,
    TopologyCombination,
    ToyStudy,
    appendix_toys,
    calibration_study,
    calibration_table,
    combination_configs,
    combination_table,
    member_subsets,
    proposition_checks,
    region_study,
    single_model_study,
    temperature_study,
    topology_combinations,
)
from credalbook.wu_gales_paper import (
    WG_METRICS,
    WG_PAPER_COMBINATION,
    WG_PAPER_FINDINGS,
    WG_PAPER_SINGLE,
    WG_PAPER_TABLE1,
    WG_PAPER_TABLE5,
    WG_PAPER_TOYS,
    WG_UNITS,
    wg_paper_reference,
)
from credalbook.wu_gales_plotting import (
    plot_combination_reliability,
    plot_epsilon_curves,
    plot_region_study,
    plot_temperature_study,
)

import types as _types

__all__ = [n for n, v in dict(globals()).items() if not n.startswith("_") and not isinstance(v, _types.ModuleType)]
