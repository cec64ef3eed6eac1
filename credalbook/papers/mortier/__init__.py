"""Mortier et al. (2023), *On the Calibration of Probabilistic Classifier Sets*: Type I/II error
studies of the set calibration test, real classifier sets, the chapter's figures, and its parts (the
computations whose small results are recorded).
"""

from credalbook.papers.mortier.authors_code import authors_code_type2, merge_released
from credalbook.papers.mortier.compare import (
    chapter_results,
    compare,
    paper_table1,
    s2_corner_check,
    table1_cell_results,
    type_one_gap,
)
from credalbook.papers.mortier.compare_table1 import added_seeds_note
from credalbook.papers.mortier.end_to_end import (
    end_to_end_set,
    RegimeCell,
    table1_cell,
    table1_regime_cell,
    TABLE1_SETS,
    Table1Cell,
    TEST_VARIANTS,
)
from credalbook.papers.mortier.error_rates import (
    ErrorRateStudy,
    ErrorRateSummary,
    PAPER_ALPHAS,
    PAPER_MEASURES,
    PAPER_SETTINGS,
    set_test_error_rates,
    set_test_error_summary,
)
from credalbook.papers.mortier.figures import plot_decision_rules, plot_error_rate_figure, plot_error_rates
from credalbook.papers.mortier.measures import core_measure, CORE_MEASURE_NAMES
from credalbook.papers.mortier.parts import (
    classifier_set_table,
    ClassifierSetTable,
    ECE_MEASURES,
    error_rate_chunk,
    error_rate_chunks,
    join_tests,
    merge_summaries,
    MORTIER_GROUPS,
    mortier_parts,
    mortier_plan,
    MortierPlan,
    solver_comparison,
    table1_differences,
)
from credalbook.papers.mortier.real_sets import compare_solvers, evaluate_classifier_set, solver_agreement
from credalbook.papers.mortier.tables import (
    app_fig3_gaps,
    app_fig3_numbers,
    boundary_table,
    cells_table,
    gaps_table,
    readings_table,
    set_and_average_tests,
    table1_table,
)

__all__ = [
    "added_seeds_note",
    "chapter_results",
    "compare",
    "paper_table1",
    "s2_corner_check",
    "table1_differences",
    "ErrorRateStudy",
    "ErrorRateSummary",
    "PAPER_ALPHAS",
    "PAPER_MEASURES",
    "PAPER_SETTINGS",
    "core_measure",
    "CORE_MEASURE_NAMES",
    "set_test_error_rates",
    "set_test_error_summary",
    "plot_decision_rules",
    "plot_error_rate_figure",
    "plot_error_rates",
    "compare_solvers",
    "evaluate_classifier_set",
    "solver_agreement",
    "ClassifierSetTable",
    "classifier_set_table",
    "MORTIER_GROUPS",
    "MortierPlan",
    "mortier_parts",
    "mortier_plan",
    "solver_comparison",
    "table1_cell_results",
    "end_to_end_set",
    "table1_cell",
    "table1_regime_cell",
    "RegimeCell",
    "Table1Cell",
    "TABLE1_SETS",
    "TEST_VARIANTS",
    "ECE_MEASURES",
    "error_rate_chunk",
    "error_rate_chunks",
    "join_tests",
    "merge_summaries",
    "type_one_gap",
    "app_fig3_gaps",
    "app_fig3_numbers",
    "boundary_table",
    "cells_table",
    "gaps_table",
    "readings_table",
    "set_and_average_tests",
    "table1_table",
    "authors_code_type2",
    "merge_released",
]
