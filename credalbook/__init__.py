"""credalbook: calibration of classifier sets and evaluation of epistemic uncertainty.

The package behind an executable book that reproduces five papers. Public names are re-exported
here; each lives in a module named for its concept (metrics, hosmer_lemeshow, synthetic, data,
models, training, predictions, cache, plotting, report, presets, runner).
"""

__version__ = "0.1.0"

from credalbook.cache import cache_dir, cached, clear_cache, memory
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
from credalbook.models import MLP, SmallCNN, count_parameters, mc_dropout_predict
from credalbook.plotting import plot_rejection_rates, plot_reliability_diagram, set_theme
from credalbook.predictions import ModelPredictions, build_model, train_predictions
from credalbook.presets import preset
from credalbook.report import Comparison, Table, load_comparison
from credalbook.synthetic import calibrated_predictions, scramble_non_top
from credalbook.training import TrainResult, fit, predict_logits, predict_proba

import types as _types

__all__ = [n for n, v in dict(globals()).items() if not n.startswith("_") and not isinstance(v, _types.ModuleType)]
