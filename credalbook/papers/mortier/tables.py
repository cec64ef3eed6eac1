"""The tables of the Mortier chapter: its studies' numbers laid out as the chapter shows them.

Each function takes what the chapter's parts give (error-rate summaries, Table 1 cells, solver runs) and returns a
:class:`~credalbook.papers.report.Table` (and, where the chapter's text quotes them, the numbers it shows), so that
a cell of the chapter is the call and its table.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.mortier.results import _rounds_cap, type_one_gap
from credalbook.papers.report import Table

__all__ = [
    "app_fig3_gaps",
    "app_fig3_numbers",
    "boundary_table",
    "cells_table",
    "gaps_table",
    "readings_table",
    "set_and_average_tests",
    "table1_table",
]

#: Table 1's columns as the chapter shows them (key of a ``ClassifierSetTable`` row -> column).
TABLE1_COLUMNS = (
    ("avg_acc", "AVG. Acc."),
    ("avg_ece_conf", "AVG. ECE_conf"),
    ("avg_ece_cwise", "AVG. ECE_cwise"),
    ("h0_conf", "H0 (λ_conf)"),
    ("acc_conf", "λ_conf Acc."),
    ("ece_conf", "λ_conf ECE_conf"),
    ("h0_cwise", "H0 (λ_cwise)"),
    ("acc_cwise", "λ_cwise Acc."),
    ("ece_cwise", "λ_cwise ECE_cwise"),
)


def app_fig3_gaps(one_minimiser, fig1_s1, fig3_s1, fig3_cobyla=None, fig3_rounds=None) -> dict:
    """App. Fig. 3 with one minimiser per comparison: label -> (gap at M = 10, gap at M = 100), each gap
    :func:`~credalbook.papers.mortier.type_one_gap` (the mean absolute difference of Type I error and α, its SE, R).

    ``one_minimiser``: S1 at M = 10 minimised like Fig. 3's S1 (``fig3_s1``, M = 100); ``fig3_rounds``: Fig. 3's S1
    datasets minimised like ``one_minimiser`` with its rounds cap, or None while its parts are pending;
    ``fig3_cobyla``: S1 at M = 100 with Fig. 1's minimiser (``fig1_s1``, M = 10) on the ECE tests, or None while its
    parts are pending; Fig. 1's gap is then taken on the same tests and its first datasets.
    """
    solver = one_minimiser.config["solver"]
    gaps = {f"{solver}, seven tests": (type_one_gap(one_minimiser), type_one_gap(fig3_s1))}
    if fig3_rounds is not None:
        gaps[f"{solver}, seven tests, up to {_rounds_cap(fig3_rounds)} rounds at both sizes"] = (
            type_one_gap(one_minimiser),
            type_one_gap(fig3_rounds),
        )
    if fig3_cobyla is not None:
        gaps[f"{fig1_s1.config['solver']} (NLopt COBYLA), ECE tests"] = (
            type_one_gap(fig1_s1, measures=list(fig3_cobyla.measures), n_datasets=fig3_cobyla.n_datasets),
            type_one_gap(fig3_cobyla),
        )
    return gaps


def app_fig3_numbers(
    one_minimiser,
    studies: Mapping,
    fig3_uniform,
    *,
    fig3_cobyla=None,
    cobyla_pending=None,
    fig3_rounds=None,
    rounds_cap: int,
    cobyla_budget: int,
) -> tuple[dict, dict]:
    """App. Fig. 3's gaps (:func:`app_fig3_gaps`) and the numbers its text quotes: ``(gaps, glues)``.

    ``studies``: figure → scenario → summary (Figs. 1 and 3's S1 used); ``fig3_uniform``: Fig. 3's S1 datasets with
    t taken at the uniform weights. ``glues``: ``rounds_cap`` and ``cobyla_budget`` as given; ``depth_step``, the
    change of the mean absolute difference of Type I error and α from the uniform weights' t to Fig. 3's minimiser
    (M = 100, up to its rounds);
    ``rounds_step``, from there to the rounds cap of M = 10 (NaN while ``fig3_rounds`` is pending);
    ``cobyla_r`` (its datasets, or what is pending: ``cobyla_pending``), ``cobyla_s_per_test`` and
    ``cobyla_evals`` of NLopt's COBYLA at M = 100 (NaN while pending).
    """
    gaps = app_fig3_gaps(one_minimiser, studies["Fig. 1"]["S1"], studies["Fig. 3"]["S1"], fig3_cobyla, fig3_rounds)
    capped = type_one_gap(studies["Fig. 3"]["S1"])[0]  # M = 100, up to 10 rounds: the steps of depth for the text
    cob, nan = fig3_cobyla, float("nan")
    glues = {
        "rounds_cap": rounds_cap,
        "depth_step": capped - type_one_gap(fig3_uniform)[0],
        "rounds_step": type_one_gap(fig3_rounds)[0] - capped if fig3_rounds is not None else nan,
        "cobyla_r": cob.n_datasets if cob is not None else cobyla_pending,
        "cobyla_s_per_test": cob.seconds / cob.n_tests if cob is not None else nan,
        "cobyla_evals": float(cob.mean_evaluations.mean()) if cob is not None else nan,
        "cobyla_budget": cobyla_budget,
    }
    return gaps, glues


def boundary_table(boundary: Mapping) -> tuple[Table, dict]:
    """Alg. 2's boundary steps by three methods against the LP's: a table and the numbers the text quotes.

    ``boundary``: method (``"lp"``, ``"bisection"``, ``"grid"``) → (its :func:`~credalbook.credal.boundary_point`
    result, seconds). ``glues``: ``grid_short``, how much shorter the grid's mean step is than the LP's, and
    ``bisect_max``, the largest difference of a bisection step from the LP's.
    """
    ref = boundary["lp"][0].t
    glues = {
        "grid_short": float((ref - boundary["grid"][0].t).mean()),
        "bisect_max": float(np.abs(boundary["bisection"][0].t - ref).max()),
    }
    rows = {
        m: {
            "mean step λ_b": r.t.mean(),
            "max |λ_b − λ_b(LP)|": np.abs(r.t - ref).max(),
            "time per instance": f"{s / len(ref):.6f} s",  # a duration: masked where runs are compared
        }
        for m, (r, s) in boundary.items()
    }
    return Table(rows, index_name=f"Alg. 2, N = {len(ref)}, M = K = 10, u = 0.01"), glues


def gaps_table(gaps: Mapping) -> Table:
    """:func:`app_fig3_gaps` as a table: both sizes, the change and its SE (independent datasets), the R's."""
    return Table(
        {
            k: {
                "M = 10": a[0],
                "M = 100": b[0],
                "change": b[0] - a[0],
                "SE of the change": float(np.hypot(a[1], b[1])),
                "R (M = 10, 100)": f"{a[2]}, {b[2]}",
            }
            for k, (a, b) in gaps.items()
        },
        index_name="mean |Type I − α|, S1",
    )


def readings_table(readings: Mapping, measures, *, alpha: float = 0.05) -> Table:
    """The error of each test at ``alpha`` under each reading of the paper: ``readings`` maps a reading to
    ``(scenario -> study, rule)`` (``rule`` "t" or "abs", :meth:`~credalbook.papers.mortier.ErrorRateSummary.error_rates`);
    a test a study did not run is left out of its column."""
    return Table(
        {
            name: {
                f"{reading}, {s}": st.error_rates([alpha], rule=rule)[st.measures.index(name), 0]
                for reading, (by_s, rule) in readings.items()
                for s, st in by_s.items()
                if name in st.measures
            }
            for name in measures
        },
        index_name=f"Type I (S1) and Type II (S2, S3) error, α = {alpha:g}",
    )


def table1_table(rows: Mapping, *, index_name: str = "") -> Table:
    """Table 1 as the paper lays it out (the columns of ``TABLE1_COLUMNS``): ``rows`` maps a classifier set to its row (the
    ``rows`` of a :class:`~credalbook.papers.mortier.ClassifierSetTable`, or the paper's,
    :func:`~credalbook.papers.mortier.paper_table1`)."""
    return Table(
        {name: {label: row[key] for key, label in TABLE1_COLUMNS} for name, row in rows.items()}, index_name=index_name
    )


def cells_table(cell_rows, *, regime: bool = False) -> Table:
    """The Table 1 cells (:func:`~credalbook.papers.mortier.table1_cell_results`), one row per (data set, seed,
    classifier set): accuracy, ECE_conf and the decisions; ``regime``: the over-confident regime's cells, with the
    signed error (confidence − accuracy) of the average and of the members instead of the members' accuracies and
    the decisions of Alg. 1 as printed."""
    rows = {}
    for c in cell_rows:
        for name, v in c["sets"].items():
            row = {"AVG. Acc.": v["avg_acc"]}
            if regime:
                row["conf. − acc. (SE)"] = "{:+.4f} ({:.4f})".format(*v["signed"])
                row["members' conf. − acc. (min, max)"] = "{:+.3f}, {:+.3f}".format(*v["member_signed"])
            else:
                row["members' Acc. (min, max)"] = "{:.3f}, {:.3f}".format(*v["member_acc"])
            row["AVG. ECE_conf"] = v["avg_ece_conf"]
            variants = ("authors",) if regime else ("authors", "paper")
            for variant in variants:
                label = "authors'" if variant == "authors" else "Alg. 1"
                for m in ("conf", "cwise"):
                    row[f"H0 {m} ({label})"] = v["decisions"][variant][m]
            rows[f"{c['dataset']}, seed {c['seed']}, {name}"] = row
    return Table(rows, index_name="over-confident regime, test split" if regime else "end to end, test split")


def set_and_average_tests(ens_probs, labels, *, measures=("ece_confidence", "ece_classwise"), n_bins: int = 5,
                          n_resamples: int = 100, seed=0) -> dict:  # fmt: skip
    """A classifier set's test (:func:`~credalbook.stats.set_calibration_test`) beside the test of its plain average
    (:func:`~credalbook.stats.bootstrap_calibration_test`), per measure: the statistic t, both p-values, the decision,
    the largest weight of the fitted combination and how many members weigh more than 1 %.

    ``ens_probs``: (N, M, K) members' probabilities (e.g. the trees of a random forest); ``labels``: (N,).
    """
    from credalbook.stats import bootstrap_calibration_test, set_calibration_test

    out = {}
    for name in measures:
        opts = dict(measure=name, n_bins=n_bins, n_resamples=n_resamples, seed=seed, chunk_size=None)
        res = set_calibration_test(ens_probs, labels, **opts)
        mean_only = bootstrap_calibration_test(np.asarray(ens_probs).mean(axis=1), labels, **opts)
        out[name] = {
            "set: statistic t": res.statistic,
            "set: p-value": res.pvalue,
            "set: H0": "REJ." if res.rejected else "¬REJ.",
            "set average: p-value": mean_only.pvalue,
            "largest weight": res.weights.max(),
            "members with weight > 1%": int((res.weights > 0.01).sum()),
        }
    return out
