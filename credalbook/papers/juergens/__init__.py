"""Jürgens et al., *A calibration test for evaluating set-based epistemic uncertainty
representations*: the instance-dependent test's error rates, estimator analyses, real sets, figures, and the
chapter's resumable parts.
"""

from credalbook.papers.juergens.authors_code import authors_lp_kde, authors_mmd_kce, kl_gradient_check, lp_clamp_effect
from credalbook.papers.juergens.authors_settings import (
    authors_binary_scenario,
    AUTHORS_FIG34_SETTINGS,
    AUTHORS_LEARNER,
    authors_multiclass_scenario,
)
from credalbook.papers.juergens.chapter_views import authors_runs, AuthorsRuns, chapter_results, estimator_checks
from credalbook.papers.juergens.compare import compare, paper_table1, paper_table1_cells, paper_table1_summary
from credalbook.papers.juergens.error_rates import (
    instance_test_error_rates,
    instance_test_error_summary,
    JUERGENS_ESTIMATORS,
    JUERGENS_H1_ALPHAS,
    JUERGENS_SUMMARY_ALPHAS,
    resampling_pitfall,
    summarise_error_rates,
)
from credalbook.papers.juergens.estimators import (
    APP_B_COMBINATIONS,
    calibrated_combinations_example,
    combination_rejections,
    estimator_demo_draws,
    estimator_landscape,
    estimator_landscapes,
    Landscape,
    median_heuristic_bandwidth,
    simplex_grid,
    skce_kernel_summary,
    weight_landscape,
)
from credalbook.papers.juergens.figures import plot_instance_error_rates, plot_landscape
from credalbook.papers.juergens.mortier_v0 import mortier_v0_null, mortier_v0_test, MortierV0Result
from credalbook.papers.juergens.oracle import oracle_error_summary, oracle_study
from credalbook.papers.juergens.parts import (
    fig4_h0_studies,
    juergens_parts,
    juergens_plan,
    JuergensPlan,
    study_part_name,
)
from credalbook.papers.juergens.real_sets import evaluate_instance_test, TABLE1_ARCHITECTURES, TABLE1_KINDS, table1_rows
from credalbook.papers.juergens.regime import floored, regime_tables, table1_regime_rows
from credalbook.papers.juergens.tiled import AUTHORS_TILES, relative_spread, tiled_landscape, TiledLandscape

__all__ = [
    "authors_runs",
    "AuthorsRuns",
    "chapter_results",
    "estimator_checks",
    "compare",
    "paper_table1",
    "paper_table1_cells",
    "AUTHORS_FIG34_SETTINGS",
    "AUTHORS_LEARNER",
    "authors_binary_scenario",
    "authors_multiclass_scenario",
    "paper_table1_summary",
    "instance_test_error_rates",
    "instance_test_error_summary",
    "JUERGENS_ESTIMATORS",
    "JUERGENS_H1_ALPHAS",
    "JUERGENS_SUMMARY_ALPHAS",
    "resampling_pitfall",
    "summarise_error_rates",
    "authors_lp_kde",
    "authors_mmd_kce",
    "APP_B_COMBINATIONS",
    "calibrated_combinations_example",
    "combination_rejections",
    "estimator_demo_draws",
    "estimator_landscape",
    "estimator_landscapes",
    "kl_gradient_check",
    "Landscape",
    "lp_clamp_effect",
    "median_heuristic_bandwidth",
    "simplex_grid",
    "skce_kernel_summary",
    "weight_landscape",
    "plot_instance_error_rates",
    "plot_landscape",
    "evaluate_instance_test",
    "oracle_error_summary",
    "oracle_study",
    "floored",
    "regime_tables",
    "table1_regime_rows",
    "table1_rows",
    "TABLE1_ARCHITECTURES",
    "TABLE1_KINDS",
    "juergens_parts",
    "mortier_v0_null",
    "mortier_v0_test",
    "AUTHORS_TILES",
    "TiledLandscape",
    "relative_spread",
    "tiled_landscape",
    "MortierV0Result",
    "juergens_plan",
    "JuergensPlan",
    "fig4_h0_studies",
    "study_part_name",
]
