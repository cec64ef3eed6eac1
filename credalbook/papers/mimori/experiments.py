r"""The experiments of Mimori et al. (2022), gathered from the modules of their concepts.

* :mod:`~credalbook.papers.mimori.simulations` — :func:`debiasing_study` (Fig. 2 / App. B.5),
  :func:`optimal_log_alpha0_grid` (Fig. 3 / App. D.2), :func:`theorem1_check` (Theorem 1 / App. D.3);
* :mod:`~credalbook.papers.mimori.networks` — :func:`train_mix_network` (cached), the base network on a
  Mix dataset (App. E.2-E.3);
* :mod:`~credalbook.papers.mimori.predictions` — :func:`mimori_predictions` (cached), every predictor of
  Tables 1, 2, 4-6 on the test split;
* :mod:`~credalbook.papers.mimori.evaluation` — :func:`evaluate_predictors`, :func:`bootstrap_metrics`
  (the metrics of Tables 1, 2, 4-6), :func:`ts_dpe_shift` (App. F.2, Fig. 4), :func:`dpe_reliability`;
* :mod:`~credalbook.papers.mimori.released_code` — the authors' released estimators of ÊL and ĈL.

Every name stays importable from this module. The paper's own numbers are in
:mod:`credalbook.papers.mimori.reported`.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from credalbook.papers.mimori.evaluation import (  # noqa: F401  (the engine helpers, importable from here too)
    _boot_rows,
    _cpe_groups,
    _metric_rows,
    BOOT_CHUNK,
    bootstrap_metrics,
    dpe_reliability,
    evaluate_predictors,
    ts_dpe_shift,
)
from credalbook.papers.mimori.networks import (
    build_mix_network,
    MIX_AUGMENTATIONS,
    mix_training_settings,
    MixNetwork,
    train_mix_network,
)
from credalbook.papers.mimori.predictions import mimori_predictions, MimoriPredictions, PredictorOutputs
from credalbook.papers.mimori.released_code import released_code_demo, released_code_el_cl
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
    "MIX_AUGMENTATIONS",
    "PAPER_Z1_GRID",
    "DebiasingStudy",
    "debiasing_study",
    "AlphaOptimumGrid",
    "optimal_log_alpha0_grid",
    "Theorem1Check",
    "theorem1_check",
    "MixNetwork",
    "build_mix_network",
    "mix_training_settings",
    "train_mix_network",
    "PredictorOutputs",
    "MimoriPredictions",
    "mimori_predictions",
    "evaluate_predictors",
    "bootstrap_metrics",
    "ts_dpe_shift",
    "dpe_reliability",
    "released_code_el_cl",
    "released_code_demo",
]
