"""*The Evaluation and Calibration of Epistemic Uncertainty Estimates*: toy and real-data
experiments with GP classifiers, ball carving, and the chapter's figures (imports gpytorch).
"""

from credalbook.papers.eu.carving import (
    BallLayout,
    BallSplit,
    carve_balls,
    dense_centres,
    DenseCentres,
    grid_centres,
    neighbour_radius,
)
from credalbook.papers.eu.compare import compare
from credalbook.papers.eu.experiments import (
    EU_ESTIMATORS,
    EU_METRICS,
    EU_PAPER_TABLE1,
    EU_PAPER_TABLE2,
    EUIntervalCurves,
    EURun,
    EUStudy,
    compare_summary,
    run_eu_experiment,
    toy_eu_experiment,
    toy_eu_splits,
    toy_eu_study,
    TOY_NOISE_SD,
    toy_noise_summary,
    ToySplits,
)
from credalbook.papers.eu.figures import (
    EU_CURVE_STYLE,
    plot_carved_discs,
    plot_eu_interval_figure,
    plot_eu_intervals,
)
from credalbook.papers.eu.real_data import (
    BinaryFeatures,
    pca_even_odd,
    real_eu_experiment,
    real_eu_splits,
    real_eu_study,
    RealSplits,
)
from credalbook.papers.eu.toy_data import (
    eu_toy_data,
    EUToyData,
    toy_disc_layout,
    TOY_GRID,
    TOY_N,
)

__all__ = [
    "BallLayout",
    "BallSplit",
    "carve_balls",
    "dense_centres",
    "DenseCentres",
    "grid_centres",
    "neighbour_radius",
    "EU_ESTIMATORS",
    "EU_METRICS",
    "EU_PAPER_TABLE1",
    "EU_PAPER_TABLE2",
    "EUIntervalCurves",
    "EURun",
    "EUStudy",
    "compare",
    "compare_summary",
    "run_eu_experiment",
    "toy_eu_experiment",
    "toy_eu_splits",
    "toy_eu_study",
    "TOY_NOISE_SD",
    "toy_noise_summary",
    "ToySplits",
    "EU_CURVE_STYLE",
    "plot_carved_discs",
    "plot_eu_interval_figure",
    "plot_eu_intervals",
    "BinaryFeatures",
    "pca_even_odd",
    "real_eu_experiment",
    "real_eu_splits",
    "real_eu_study",
    "RealSplits",
    "eu_toy_data",
    "EUToyData",
    "toy_disc_layout",
    "TOY_GRID",
    "TOY_N",
]
