"""credalbook.papers.mortier.tables: the chapter's tables from its studies' numbers."""

from types import SimpleNamespace as NS

import numpy as np
import pytest

from credalbook.papers.mortier import (
    app_fig3_gaps,
    app_fig3_numbers,
    boundary_table,
    cells_table,
    gaps_table,
    readings_table,
    set_and_average_tests,
    table1_table,
    type_one_gap,
)
from credalbook.papers.mortier.error_rates import set_test_error_rates
from credalbook.papers.mortier.tables import TABLE1_COLUMNS
from credalbook.stats import bootstrap_calibration_test, set_calibration_test


def _s1(solver, n_datasets=6, seed=0, members=2, measures=("ece_conf", "skce_ul")):
    return set_test_error_rates.__wrapped__(
        "S1", n_datasets=n_datasets, n_instances=30, n_members=members, n_classes=3, u=0.5, n_resamples=10,
        measures=measures, solver=solver, seed=seed, n_jobs=1, progress=False,
    )  # fmt: skip


class TestAppFig3Gaps:
    def test_main(self):
        one, fig1, fig3 = _s1("search"), _s1("cobyla_powell", n_datasets=8), _s1("search", members=3, seed=1)
        cob = _s1("cobyla_powell", n_datasets=4, members=3, measures=("ece_conf",), seed=2)
        gaps = app_fig3_gaps(one, fig1, fig3, cob)
        assert list(gaps) == ["search, seven tests", "cobyla_powell (NLopt COBYLA), ECE tests"]
        assert gaps["search, seven tests"] == (type_one_gap(one), type_one_gap(fig3))
        # Fig. 1's gap on the COBYLA study's tests and first datasets only
        a, b = gaps["cobyla_powell (NLopt COBYLA), ECE tests"]
        assert a == type_one_gap(fig1, measures=["ECE_conf (B=10)"], n_datasets=4) != type_one_gap(fig1)
        assert b == type_one_gap(cob) and a[2] == b[2] == 4
        assert list(app_fig3_gaps(one, fig1, fig3)) == ["search, seven tests"]  # COBYLA pending
        deep = set_test_error_rates.__wrapped__(
            "S1", n_datasets=6, n_instances=30, n_members=3, n_classes=3, u=0.5, n_resamples=10,
            measures=("ece_conf", "skce_ul"), solver="search", solver_options={"maxiter": 100}, seed=1, n_jobs=1,
            progress=False,
        )  # fmt: skip
        with_rounds = app_fig3_gaps(one, fig1, fig3, None, deep)
        assert list(with_rounds) == ["search, seven tests", "search, seven tests, up to 100 rounds at both sizes"]
        assert with_rounds["search, seven tests, up to 100 rounds at both sizes"] == (
            type_one_gap(one),
            type_one_gap(deep),
        )
        t = gaps_table(gaps).rows["search, seven tests"]
        (g1, e1, r1), (g3, e3, r3) = gaps["search, seven tests"]
        assert t["change"] == pytest.approx(g3 - g1) and t["SE of the change"] == pytest.approx(np.hypot(e1, e3))
        assert t["R (M = 10, 100)"] == f"{r1}, {r3}" == "6, 6"


def test_readings_table():
    def study(measures, rates):
        def error_rates(alphas, rule="t"):
            assert list(alphas) == [0.05]
            return np.array([[rates[rule][i]] for i in range(len(measures))])

        return NS(measures=list(measures), error_rates=error_rates)

    a = study(["X", "Y"], {"t": [0.1, 0.2], "abs": [0.3, 0.4]})
    b = study(["Y"], {"t": [0.5], "abs": [0.6]})
    t = readings_table({"text": ({"S1": a, "S2": b}, "t"), "code": ({"S1": a}, "abs")}, ["X", "Y"])
    assert t.rows == {
        "X": {"text, S1": 0.1, "code, S1": 0.3},  # S2's study did not run X
        "Y": {"text, S1": 0.2, "text, S2": 0.5, "code, S1": 0.4},
    }
    assert t.index_name == "Type I (S1) and Type II (S2, S3) error, α = 0.05"


def test_table1_table():
    row = {key: i for i, (key, _) in enumerate(TABLE1_COLUMNS)}
    t = table1_table({"S": row, "DE": {**row, "avg_acc": 0.5}}, index_name="digits")
    assert t.rows["S"] == {label: i for i, (_, label) in enumerate(TABLE1_COLUMNS)}
    assert t.rows["DE"]["AVG. Acc."] == 0.5 and t.index_name == "digits"


def test_cells_table():
    decisions = {"authors": {"conf": "REJ.", "cwise": "¬REJ."}, "paper": {"conf": "¬REJ.", "cwise": "REJ."}}
    v = dict(avg_acc=0.9, avg_ece_conf=0.03, member_acc=[0.8, 0.85], decisions=decisions, signed=[0.012, 0.004],
             member_signed=[-0.01, 0.02])  # fmt: skip
    rows = [{"dataset": "digits", "seed": 1, "sets": {"DE": v}}]
    assert cells_table(rows).rows["digits, seed 1, DE"] == {
        "AVG. Acc.": 0.9,
        "members' Acc. (min, max)": "0.800, 0.850",
        "AVG. ECE_conf": 0.03,
        "H0 conf (authors')": "REJ.",
        "H0 cwise (authors')": "¬REJ.",
        "H0 conf (Alg. 1)": "¬REJ.",
        "H0 cwise (Alg. 1)": "REJ.",
    }
    regime = cells_table(rows, regime=True)
    assert regime.rows["digits, seed 1, DE"] == {
        "AVG. Acc.": 0.9,
        "conf. − acc. (SE)": "+0.0120 (0.0040)",
        "members' conf. − acc. (min, max)": "-0.010, +0.020",
        "AVG. ECE_conf": 0.03,
        "H0 conf (authors')": "REJ.",
        "H0 cwise (authors')": "¬REJ.",
    }
    assert regime.index_name == "over-confident regime, test split"


def test_set_and_average_tests():
    rng = np.random.default_rng(0)
    ens = rng.dirichlet(np.ones(3), size=(80, 4))
    y = rng.integers(0, 3, 80)
    out = set_and_average_tests(ens, y, n_resamples=30, seed=3)
    assert list(out) == ["ece_confidence", "ece_classwise"]
    for name, row in out.items():
        opts = dict(measure=name, n_bins=5, n_resamples=30, seed=3, chunk_size=None)
        res, avg = set_calibration_test(ens, y, **opts), bootstrap_calibration_test(ens.mean(axis=1), y, **opts)
        assert row["set: statistic t"] == res.statistic and row["set: p-value"] == res.pvalue
        assert row["set average: p-value"] == avg.pvalue
        assert row["set: H0"] == ("REJ." if res.rejected else "¬REJ.")
        assert row["largest weight"] == res.weights.max() and row["members with weight > 1%"] == int(
            (res.weights > 0.01).sum()
        )


class TestAppFig3Numbers:
    def test_main(self):
        one, fig1, fig3 = _s1("search"), _s1("cobyla_powell", n_datasets=8), _s1("search", members=3, seed=1)
        uniform = _s1("search", members=3, seed=3)
        cob = _s1("cobyla_powell", n_datasets=4, members=3, seed=2).summary()  # as the chapter merges its parts
        studies = {"Fig. 1": {"S1": fig1}, "Fig. 3": {"S1": fig3}}
        gaps, glues = app_fig3_numbers(one, studies, uniform, fig3_cobyla=cob, rounds_cap=100, cobyla_budget=1000)
        assert gaps == app_fig3_gaps(one, fig1, fig3, cob)
        assert glues["depth_step"] == type_one_gap(fig3)[0] - type_one_gap(uniform)[0]
        assert glues["cobyla_r"] == 4 and glues["cobyla_s_per_test"] == cob.seconds / cob.n_tests
        assert glues["cobyla_evals"] == float(cob.mean_evaluations.mean()) and np.isnan(glues["rounds_step"])
        assert (glues["rounds_cap"], glues["cobyla_budget"]) == (100, 1000)
        rounds = set_test_error_rates.__wrapped__(
            "S1", n_datasets=6, n_instances=30, n_members=3, n_classes=3, u=0.5, n_resamples=10,
            measures=("ece_conf", "skce_ul"), solver="search", solver_options={"maxiter": 100}, seed=1, n_jobs=1,
            progress=False,
        )  # fmt: skip
        _, pending = app_fig3_numbers(one, studies, uniform, cobyla_pending="3 of 20", fig3_rounds=rounds,
                                      rounds_cap=100, cobyla_budget=1000)  # fmt: skip
        assert pending["cobyla_r"] == "3 of 20" and np.isnan(pending["cobyla_evals"])
        assert pending["rounds_step"] == type_one_gap(rounds)[0] - type_one_gap(fig3)[0]


def test_boundary_table():
    lp, grid, bis = (NS(t=np.array(v)) for v in ([0.5, 0.4], [0.45, 0.3], [0.5, 0.41]))
    table, glues = boundary_table({"lp": (lp, 0.2), "bisection": (bis, 0.4), "grid": (grid, 1.0)})
    assert glues == {"grid_short": pytest.approx(0.075), "bisect_max": pytest.approx(0.01)}
    assert table.rows["grid"]["max |λ_b − λ_b(LP)|"] == pytest.approx(0.1)
    assert table.rows["bisection"]["time per instance"] == "0.200000 s" and "N = 2" in table.index_name
