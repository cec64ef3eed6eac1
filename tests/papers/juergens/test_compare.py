"""Jürgens et al.: the reported numbers as data, and the chapter's "Paper vs. this book" rows."""

import json
from pathlib import Path

import numpy as np
import pytest

from credalbook.papers.criteria import AGREES, DIFFERS_SHOWN, DIFFERS_UNKNOWN, INCONCLUSIVE, NOT_RUN
from credalbook.papers.juergens import (
    compare,
    paper_table1,
    paper_table1_cells,
    paper_table1_summary,
    summarise_error_rates,
)
from credalbook.papers.juergens.compare import RESULT_KEYS
from credalbook.papers.juergens.rows import app_b_closed_form, table1_decision_counts
from credalbook.papers.mortier import ErrorRateStudy
from credalbook.papers.report import reported

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "02_juergens_instance_calibration.ipynb"
PAPER = (
    Path(__file__).resolve().parents[3].parent / "shared" / "papers" / "juergens2025_calibration_test_credal_sets.md"
)
COLUMNS = ("mean_acc", "mean_h0", "mean_p", "mean_ce", "lambda_acc", "lambda_h0", "lambda_p", "lambda_ce")
SETTINGS = ("binary", "multiclass")
NAMES = (
    "L2-CE · new",
    "L2-CE · Mortier",
    "KL-CE · new",
    "KL-CE · Mortier",
    "MMD · new",
    "MMD · Mortier",
    "SKCE · new",
    "SKCE · Mortier",
)


def _study(h, reject, r, rng, names=NAMES):
    """A study whose tests reject on a share ``reject[t]`` of the R datasets at every level α ≤ 0.5."""
    t = len(names)
    null = np.tile(np.linspace(0, 1, 101)[None, None, :], (t, r, 1))
    k = np.round(np.asarray(reject) * r).astype(int)
    stats = np.where(np.stack([rng.permutation(r) for _ in range(t)]) < k[:, None], 2.0, -1.0)
    return ErrorRateStudy(h, names, stats, null, np.zeros((t, r), dtype=np.int64))


def _settings_rates(r=200, h0_new=0.05, h0_v0=0.3, h1_new=0.9, h1_v0=0.4, seed=1):
    """Studies under the authors' settings: the new test, Mortier et al.'s and the authors' baseline v0."""
    rng = np.random.default_rng(seed)
    names = tuple(f"{e} · {k}" for e in ("L2-CE", "KL-CE", "MMD", "SKCE") for k in ("new", "Mortier", "Mortier v0"))
    h0 = [h0_new, 0.0, h0_v0] * 4
    h1 = [h1_new, 0.5, h1_v0] * 4
    studies = {h: _study(h, h0 if h.startswith("H0") else h1, r, rng, names) for h in ("H0-const", "H0-inst", "H1-3")}
    return summarise_error_rates(studies, alphas=(0.05, 0.1), n_resamples=300, seed=seed)


def _error_rates(r=200, h0_new=0.05, h0_mortier=0.0, h1_new=1.0, h1_mortier=0.5, skce=0.2, seed=0):
    rng = np.random.default_rng(seed)
    h0 = [h0_new, h0_mortier] * 3 + [h0_new, h0_mortier]
    h1 = [h1_new, h1_mortier] * 3 + [skce, skce]
    studies = {
        h: _study(h, h0 if h.startswith("H0") else h1, r, rng) for h in ("H0-const", "H0-inst", "H1-1", "H1-2", "H1-3")
    }
    return summarise_error_rates(studies, alphas=(0.05, 0.1), n_resamples=300, seed=seed)


def _results(**over):
    rows = {}
    for arch in ("A", "B"):
        for kind in ("DE", "DN(0.1)", "DN(0.6)"):
            rows[f"{arch} · {kind} · L2-CE"] = {
                "mean_h0": "¬REJ.",
                "lambda_h0": "¬REJ.",
                "mean_p": 0.2,
                "lambda_p": 0.3,
                "mean_acc": 0.80,
                "lambda_acc": 0.81,
            }
            rows[f"{arch} · {kind} · KL-CE"] = {
                "mean_h0": "¬REJ.",
                "lambda_h0": "¬REJ.",
                "mean_p": 0.6,
                "lambda_p": 0.8,
                "mean_acc": 0.80,
                "lambda_acc": 0.812,
            }
    res = dict(
        error_rates={s: _error_rates() for s in SETTINGS},
        skce_bandwidth={"binary": 0.004, "multiclass": 0.2, "fig5": 0.22},
        null_means={"L2-CE": 0.1, "KL-CE": 0.2, "MMD": 0.001, "SKCE": -0.002},
        null_se={"L2-CE": 0.01, "KL-CE": 0.01, "MMD": 0.01, "SKCE": 0.01},
        landscape_miss={"lp": [0.1, 0.1, 0.2], "kl": [0.1, 0.2, 0.1], "mmd": [0.1, 0.1, 0.1], "skce": [0.6, 0.7, 0.5]},
        app_b=[{"k": 50, "n": 1000}, {"k": 55, "n": 1000}, {"k": 1000, "n": 1000}],
        centre_share={"weights": 0.6, "triangulation": 0.25, "n": 3000},
        table1=rows,
        table1_setting={
            "n_members": 10,
            "kinds": ["DE", "DN(0.1)", "DN(0.6)"],
            "learner": "3 × 32, lr 1e-3, batch 512",
        },
        dataset="digits",
    )
    res.update(over)
    return res


class TestReported:
    def test_main(self):
        data = reported("juergens")
        assert "Jürgens" in data["_paper"]
        table = data["table1"]
        assert table["source"].startswith("Table 1") and table["caveats"]
        assert tuple(table["columns"]) == COLUMNS
        n = 0
        for dataset, archs in table["rows"].items():
            for arch, sets in archs.items():
                assert tuple(sets) == ("DE", "DN (rate 1 of 2)", "DN (rate 2 of 2)"), (dataset, arch)
                for rows in sets.values():
                    assert tuple(rows) == ("row 1", "row 2")
                    for row in rows.values():
                        assert tuple(row) == COLUMNS
                        assert row["mean_h0"] == row["lambda_h0"] == "REJ."  # as printed in our copy
                        assert 0 <= row["mean_p"] <= 1 and 0 <= row["lambda_p"] <= 1
                        assert 0 < row["mean_acc"] < 1 and 0 < row["lambda_acc"] < 1
                        n += 1
        assert n == 24  # 2 datasets × 2 backbones × 3 sets × 2 estimators
        for name, claim in data["claims"].items():
            assert claim["source"] and claim["paper"], name

    @pytest.mark.skipif(not PAPER.is_file(), reason="the paper's text is not on this machine")
    def test_quotes_are_the_papers_words(self):
        text = PAPER.read_text(encoding="utf-8")
        for name, claim in reported("juergens")["claims"].items():
            assert claim["quote"] is None or claim["quote"] in text, name

    def test_values(self):
        """Cells checked against the paper (the former chapter prose and other spot checks)."""
        de = paper_table1("CIFAR-10", "ResNet-18")["DE"]["row 1"]
        assert (de["mean_acc"], de["lambda_acc"], de["mean_p"], de["lambda_p"], de["mean_ce"], de["lambda_ce"]) == (
            0.869,
            0.873,
            1.000,
            0.990,
            0.259,
            0.262,
        )
        dn = paper_table1("CIFAR-100", "ResNet-18")["DN (rate 1 of 2)"]
        assert (dn["row 1"]["mean_acc"], dn["row 1"]["mean_ce"], dn["row 2"]["lambda_ce"]) == (0.5162, 1.4419, 0.4423)
        assert paper_table1("CIFAR-100", "VGG-19")["DN (rate 2 of 2)"]["row 2"]["lambda_ce"] == 0.416

    def test_summary(self):
        """The paper's Table 1 counted: all 48 cells REJ., but only 17 p-values below α = 0.01."""
        s = paper_table1_summary()
        assert (s["n_rows"], s["n_rej"], s["n_p_below"], s["n_acc_up"]) == (24, 48, 17, 10)
        assert s["mean_p_row1"] == pytest.approx(0.48583, abs=1e-5) and s["mean_p_row2"] == pytest.approx(
            0.18667, abs=1e-5
        )
        assert s["acc_gain"] == pytest.approx(0.000383, abs=1e-6)

    def test_errors(self):
        with pytest.raises(ValueError, match="dataset"):
            paper_table1("CIFAR-1000")
        with pytest.raises(ValueError, match="arch"):
            paper_table1("CIFAR-10", "VGG")


class TestSummarise:
    def test_counts(self):
        s = _error_rates(r=10, h0_new=1.0, h0_mortier=0.0)
        assert s["R"] == 10 and s["alphas"] == [0.05, 0.1]
        new = [c for c in s["h0_cells"] if c["kind"] == "new"]
        assert len(s["h0_cells"]) == 2 * 8 * 2 and all(c["k"] == 10 and c["n"] == 10 for c in new)
        assert s["gap"]["new"] == pytest.approx(1 - 0.075) and s["gap"]["Mortier"] == pytest.approx(0.075)
        assert s["gap"]["diff"] == pytest.approx(0.075 - 0.925) and s["gap"]["se"] < 1e-12
        assert len(s["h1_cells"]) == 3 * 8 and s["type2"]["new"] == 0.0
        assert set(s["type2_by_panel"]) == {"H1-1", "H1-2", "H1-3"}

    def test_paired_se(self):
        s = _error_rates(r=40)
        assert s["skce"]["others"] == 1.0 and 0 < s["skce"]["se"] < 0.2 and s["type2"]["se"] > 0

    def test_errors(self):
        rng = np.random.default_rng(0)
        with pytest.raises(ValueError, match="same number"):
            summarise_error_rates(
                {"H0-const": _study("H0-const", [0.1] * 8, 5, rng), "H1-1": _study("H1-1", [0.1] * 8, 6, rng)}
            )


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        rows = cmp.rows
        assert len(rows) == 19 and cmp.chapter == "02_juergens_instance_calibration"
        assert [r.artifact for r in rows[:8]] == ["Fig. 3"] * 5 + ["Fig. 4"] * 3
        assert all(r.criterion and r.verdict for r in rows)
        by = {(r.artifact, r.quantity.split(":")[0]): r for r in rows}
        assert by[("Fig. 5", "SKCE and MMD empirically unbiased under H0")].verdict == AGREES
        fig8 = next(r for r in rows if r.artifact == "Fig. 8")
        assert fig8.verdict == AGREES
        app_b = next(r for r in rows if r.artifact == "App. B")
        assert app_b.verdict == AGREES and "book's own" in app_b.note and "1000/1000" in app_b.note
        # without the authors' studies, Table 1 bootstrap, spreads and minima: honest "not run here" rows
        assert sum(r.verdict == NOT_RUN for r in rows) == 5
        t1 = [r for r in rows if r.artifact == "Table 1"]
        assert t1[0].book == "0 of 24 cells" and t1[0].verdict == DIFFERS_UNKNOWN
        assert "17–20 of 48" in t1[0].paper and "CIFAR-10 7–8 of 24" in t1[0].paper and "¬" in t1[0].paper
        assert "fewest rejections" in t1[0].paper and "rejects more often" in t1[0].paper
        assert "authors' code: 5" in t1[0].note and t1[1].verdict == NOT_RUN
        kl = next(r for r in t1 if r.quantity.startswith("KL gives"))
        assert kl.verdict == AGREES and kl.book == "+0.450 ± 0.015"
        acc = t1[-1]
        assert acc.quantity.startswith("λ(x) slightly increases") and "10 of 24 rows" in acc.paper
        assert acc.verdict == INCONCLUSIVE and "paper's own numbers do not decide" in acc.criterion

    def test_new_rows_with_their_results(self):
        res = _results(
            authors_binary=_error_rates(r=200, h1_new=1.0),
            table1_bootstrap={k: {**v, "mean_h0": "REJ."} for k, v in _results()["table1"].items()},
            landscape_spread={
                e: {"at_truth": v, "range": 1.0}
                for e, v in {
                    "lp": [1.0, 1.1, 0.9, 1.0],
                    "kl": [2.0, 2.1, 1.9, 2.0],
                    "mmd": [1, 1.05, 0.95, 1.0],
                    "skce": [0.1, 1.0, 0.3, 0.9],
                }.items()
            },
            landscape_argmins={
                "lp": {"simplex": [0.2, 0.3, 0.5], "lambda": [1, 0, 0]},
                "skce": {"simplex": [0.2, 0.4, 0.4], "lambda": [0, 1, 0]},
            },
        )
        res["test_size"] = {"base": [[0.05, 60, 600]], "large": [[0.05, 33, 600]]}
        rows = compare(res).rows
        assert len(rows) == 19
        power = next(r for r in rows if r.quantity.startswith("high power"))
        assert power.verdict == AGREES and "H1-3" in power.book
        boot = [r for r in rows if r.artifact == "Table 1"][1]
        assert boot.book == "12 of 24 cells" and boot.verdict == AGREES  # share 0.5 vs the paper's 0.3125 within 2 SE
        assert [r for r in rows if r.artifact == "Table 1"][0].verdict == DIFFERS_UNKNOWN  # 0 of 24
        assert next(r for r in rows if r.artifact == "Fig. 6").verdict == AGREES
        assert next(r for r in rows if r.artifact == "Fig. 7").verdict == AGREES
        assert not any(r.verdict == NOT_RUN for r in rows)  # the test-size row has its studies too

    def test_authors_settings_rows(self):
        settings = {s: _settings_rates() for s in SETTINGS}
        rows = compare(_results(authors_settings=settings)).rows
        assert len(rows) == 22  # v0: Type I in both figures, Type II in Fig. 4
        v0 = [r for r in rows if "Mortier v0" in r.quantity]
        assert [(r.artifact, r.verdict) for r in v0] == [("Fig. 3", AGREES), ("Fig. 4", AGREES), ("Fig. 4", AGREES)]
        gap = settings["binary"]["gap_v0"]
        assert gap["Mortier v0"] > gap["new"] and v0[0].book == f"new {gap['new']:.3f} vs v0 {gap['Mortier v0']:.3f}"
        assert "not conservative by construction" in v0[0].note
        # the Type I rows judge the authors' settings, the book's beside them
        t1 = next(r for r in rows if r.quantity.startswith("new test's Type I error close to α"))
        assert "(the authors' settings); the book's settings:" in t1.book and "under the authors' settings" in t1.note
        # a baseline as close to α as the new test: the row cannot agree
        near = compare(_results(authors_settings={s: _settings_rates(h0_v0=0.05) for s in SETTINGS})).rows
        assert next(r for r in near if "Mortier v0" in r.quantity).verdict != AGREES

    def test_tiled_row(self):
        spread = {"lp": [0.11, 0.01, 75], "kl": [0.09, 0.01, 75], "mmd": [0.1, 0.01, 75], "skce": [0.45, 0.06, 75]}
        rows = compare(_results(tiled_spread=spread)).rows
        fig6 = [r for r in rows if r.artifact == "Fig. 6"]
        assert len(fig6) == 1 and fig6[0].verdict == AGREES and "on the authors' tiles" in fig6[0].quantity
        assert fig6[0].book == "lp 0.110 vs SKCE 0.450" and "cells 3-5" in fig6[0].note
        assert fig6[0].tolerance == pytest.approx(2 * np.hypot(0.01, 0.06))
        spread["skce"] = [0.12, 0.06, 75]  # no noisier than L2 within its SE
        assert next(r for r in compare(_results(tiled_spread=spread)).rows if r.artifact == "Fig. 6").verdict != AGREES

    def test_test_size_row(self):
        base = [[0.05, 60, 600], [0.1, 100, 600]]  # excess +0.05 and +0.0667
        row = lambda large: next(  # noqa: E731
            r for r in compare(_results(test_size={"base": base, "large": large})).rows if "test size" in r.quantity
        )
        falls = row([[0.05, 33, 600], [0.1, 62, 600]])  # excess +0.005, +0.0033
        assert falls.verdict == AGREES and falls.book == "+0.0583 → +0.0042 with 4 × the test split (falls)"
        assert "This depends on the test set sample size" in falls.paper
        # the SE: each mean's bounded by the mean of its levels' binomial SEs, combined in quadrature
        se = lambda lv: np.mean([np.sqrt(k / n * (1 - k / n) / n) for _, k, n in lv])  # noqa: E731
        assert falls.tolerance == pytest.approx(2 * np.hypot(se(base), se([[0.05, 33, 600], [0.1, 62, 600]])))
        # 'depends' is two-sided: growth agrees too, no change within 2 SE does not decide
        grows = row([[0.05, 100, 600], [0.1, 150, 600]])
        assert grows.verdict == AGREES and grows.book.endswith("(grows)") and "two-sided" in grows.tolerance_source
        assert row(base).verdict == INCONCLUSIVE
        with pytest.raises(ValueError, match="levels"):
            compare(_results(test_size={"base": base, "large": [[0.05, 700, 600]]}))

    def test_type_one_rows_inconclusive_at_small_r(self):
        """At R = 6 even the pooled rate (2 panels × 3 estimators) cannot decide Bradley's band."""
        res = _results(error_rates={s: _error_rates(r=6, h0_new=0.05) for s in SETTINGS})
        rows = compare(res).rows
        fig4_level = next(r for r in rows if r.artifact == "Fig. 4" and "does not exceed α" in r.quantity)
        assert fig4_level.verdict == INCONCLUSIVE and fig4_level.replicates == 36

    def test_type_one_rows_decide_at_large_r(self):
        res = _results(error_rates={s: _error_rates(r=3000, h0_new=0.03) for s in SETTINGS})
        fig4_level = next(r for r in compare(res).rows if r.artifact == "Fig. 4" and "does not exceed α" in r.quantity)
        # α = 0.05 and 0.1: 3% rejections are below α/2 = 0.05 at α = 0.1
        assert fig4_level.verdict.startswith("differs")
        res = _results(error_rates={s: _error_rates(r=3000, h0_new=0.065) for s in SETTINGS})
        fig4_level = next(r for r in compare(res).rows if r.artifact == "Fig. 4" and "does not exceed α" in r.quantity)
        assert fig4_level.verdict == AGREES

    def test_pooling_decides_where_cells_cannot(self):
        """R = 100 per cell cannot decide [α/2, 3α/2] at α = 0.05; the pooled 600 draws can."""
        res = _results(error_rates={s: _error_rates(r=100, h0_new=0.10) for s in SETTINGS})
        fig3 = next(r for r in compare(res).rows if r.quantity.startswith("new test's Type I error close to α"))
        assert fig3.verdict.startswith("differs")

    def test_no_tie_agrees(self):
        """Equal p-values of KL and L2 (a tie, e.g. zeros) never agree."""
        res = _results()
        for row in res["table1"].values():
            row["mean_p"] = row["lambda_p"] = 0.0
        kl = next(r for r in compare(res).rows if r.quantity.startswith("KL gives"))
        assert kl.verdict.startswith("differs")

    def test_disagreements(self):
        res = _results(error_rates={s: _error_rates(r=200, h0_new=0.5, h1_new=0.0, skce=1.0) for s in SETTINGS})
        rows = compare(res).rows
        assert rows[0].verdict.startswith("differs")  # new far from α
        assert rows[3].verdict.startswith("differs")  # SKCE not less powerful

    def test_errors(self):
        with pytest.raises(TypeError, match="results"):
            compare(None)
        res = _results()
        del res["centre_share"]
        with pytest.raises(ValueError, match="centre_share"):
            compare(res)
        assert set(RESULT_KEYS) == set(_results())


def _regime(n_over=5, n_cells=6, reject=0.5, seed=0, kl_shift=0.2):
    """Regime cells ``"ds-s<seed> · <set>"``: ``n_over`` of ``n_cells`` over-confident; a share ``reject`` of the
    mean predictor's p-values below 0.01."""
    rng = np.random.default_rng(seed)
    cells = [
        f"{ds}-s{s} · {kind}"
        for ds in ("fashion_mnist", "digits")
        for s in (0,)
        for kind in ("DE", "DN(0.1)", "DN(0.6)")
    ]
    cells = cells[:n_cells]
    signed = {c: ([0.04, 0.02, 0.06] if i < n_over else [0.01, -0.01, 0.03]) for i, c in enumerate(cells)}
    rows = {}
    for c in cells:
        for est, shift in (("L2-CE", 0.0), ("KL-CE", kl_shift)):
            low = rng.random() < reject
            rows[f"{c} · {est}"] = {
                "mean_h0": "REJ." if low else "¬REJ.",
                "lambda_h0": "¬REJ.",
                "mean_p": (0.001 if low else 0.3) + shift,
                "lambda_p": 0.4 + shift,
                "mean_acc": 0.86,
                "lambda_acc": 0.87,
            }
    boot = {k: dict(v) for k, v in rows.items()}
    return {"permutation": rows, "bootstrap": boot, "signed": signed, "setting": "networks trained 80 epochs"}


class TestFloorCause:
    """The KL row's computed cause: the same cells with the members' probabilities floored (parts table1rfloor-*)."""

    def _kl_row(self, floor_shift, kl_shift=-0.25):
        regime = _regime(n_over=1, kl_shift=kl_shift)
        floor = {**_regime(n_over=1, kl_shift=floor_shift), "prob_floor": 1e-3}
        res = _results(table1_bootstrap=_results()["table1"], table1_regime=regime, table1_regime_floor=floor)
        return next(r for r in compare(res).rows if r.quantity.startswith("KL gives"))

    def test_cause_shown_when_kl_moves_up(self):
        row = self._kl_row(floor_shift=0.1)
        assert row.verdict == DIFFERS_SHOWN
        assert row.cause.startswith("near-0 probabilities: with every member's probabilities floored at 0.001")
        assert (
            "; with every member's probabilities floored at 0.001 (parts table1rfloor-*): +0.050 ± 0.034, a "
            "change of +0.350 ± 0.000 over 12 pairs" in row.book
        )

    def test_no_cause_when_kl_stays(self):
        row = self._kl_row(floor_shift=-0.25)
        assert row.verdict == DIFFERS_UNKNOWN and row.cause == ""
        assert "a change of +0.000 ± 0.000 over 12 pairs" in row.book

    def test_no_cause_when_change_within_noise(self):
        """A change of +0.05 on half the pairs and −0.03 on the other half: mean +0.01, SE 0.012 — not 2 SE."""
        regime = _regime(n_over=1, kl_shift=-0.25)
        floor = {**_regime(n_over=1, kl_shift=-0.25), "prob_floor": 1e-3}
        for i, (name, row) in enumerate(sorted(floor["permutation"].items())):
            if name.endswith("KL-CE"):
                row["lambda_p"] += 0.05 if i % 4 == 1 else -0.03
        res = _results(table1_bootstrap=_results()["table1"], table1_regime=regime, table1_regime_floor=floor)
        row = next(r for r in compare(res).rows if r.quantity.startswith("KL gives"))
        assert row.verdict == DIFFERS_UNKNOWN and row.cause == ""

    def test_without_floor_nothing_said(self):
        res = _results(table1_bootstrap=_results()["table1"], table1_regime=_regime(n_over=1, kl_shift=-0.25))
        row = next(r for r in compare(res).rows if r.quantity.startswith("KL gives"))
        assert "floored" not in row.book and row.cause == ""


class TestOracleRows:
    def _oracle(self, rate, r=600):
        k = int(round(rate * r))
        return {"R": r, "h0_cells": [dict(panel="H0-const", estimator="L2-CE", kind="oracle", alpha=a, k=round(a * r) if a != 0.05
                             else k, n=r) for a in (0.05, 0.1, 0.3)]}  # fmt: skip

    def _rows(self, oracle):
        settings = {s: _settings_rates(h0_new=0.15) for s in SETTINGS}
        return compare(_results(authors_settings=settings, oracle={"binary": oracle})).rows

    def test_cause_shown(self):
        row = next(r for r in self._rows(self._oracle(0.05)) if r.quantity.startswith("new test's Type I error close"))
        assert row.verdict == DIFFERS_SHOWN and row.cause.startswith("λ(x) is learned: with the generator's true λ*(x)")
        assert "with the true λ*(x) (R = 600): α=0.05: 0.050" in row.book

    def test_no_cause_when_the_oracle_misses_too(self):
        row = next(r for r in self._rows(self._oracle(0.15)) if r.quantity.startswith("new test's Type I error close"))
        assert row.verdict == DIFFERS_UNKNOWN and not row.cause and "α=0.05: 0.150" in row.book


class TestFig4MoreRows:
    """With ``authors_settings_h0`` (the H0 studies merged with further datasets) Fig. 4's band row judges those; its
    other rows keep the studies' R."""

    def _band(self, **over):
        rows = compare(_results(authors_settings={s: _settings_rates(h0_new=0.09) for s in SETTINGS}, **over)).rows
        return [r for r in rows if r.artifact == "Fig. 4"]

    def test_band_row_judges_the_merged_studies(self):
        rng = np.random.default_rng(5)
        names = tuple(f"{e} · new" for e in ("L2-CE", "KL-CE", "MMD", "SKCE"))
        merged = {h: _study(h, [0.09] * 4, 900, rng, names) for h in ("H0-const", "H0-inst")}
        h0 = summarise_error_rates(merged, alphas=(0.05, 0.1), n_resamples=50, seed=0)
        before, after = self._band(), self._band(authors_settings_h0={"multiclass": h0})
        band = [r for r in after if r.quantity.startswith("new test's Type I error does not exceed")][0]
        old = [r for r in before if r.quantity.startswith("new test's Type I error does not exceed")][0]
        assert old.replicates == 1200 and band.replicates == 5400  # 2 panels × 3 estimators × R
        assert "R = 900 datasets per H0 panel (paper: 100; 200 as in the other rows" in band.note
        assert band.verdict == DIFFERS_UNKNOWN  # 0.09 at α = 0.05: above 3α/2 = 0.075 with 5 400 draws
        k = round(0.09 * 900)
        assert band.book.startswith(f"α=0.05: {k / 900:.3f}, α=0.1: {k / 900:.3f} (the authors' settings)")
        # the other rows are unchanged
        assert [r.book for r in after if r is not band] == [r.book for r in before if r is not old]


class TestMortierSkceRow:
    """Sec. 4.2's "Mortier et al.'s test too conservative except SKCE" judges what the paper's figures show, the
    authors' baseline v0 under their settings, when those studies ran; Mortier et al.'s Alg. 1 is stated beside."""

    def _row(self, **over):
        rows = compare(_results(**over)).rows
        return next(r for r in rows if r.quantity.startswith("Mortier et al.'s test"))

    def test_alg1_without_the_authors_settings(self):
        row = self._row()
        assert row.quantity.startswith("Mortier et al.'s test (Alg. 1)") and "holds by construction" in row.note

    def test_v0_under_the_authors_settings(self):
        settings = {s: _settings_rates(h0_v0=0.0) for s in SETTINGS}  # v0 never rejects, with any estimator
        row = self._row(authors_settings=settings)
        assert row.quantity.startswith("Mortier et al.'s test (the authors' baseline v0)")
        assert row.book.startswith("v0 (the authors' settings): L2/KL/MMD 0.000, SKCE 0.000; Mortier et al.'s Alg. 1")
        assert row.verdict == DIFFERS_UNKNOWN and "which the row judges" in row.note  # SKCE 0/400: not ≥ α/2
        settings = {s: _settings_rates(h0_v0=0.05, r=600) for s in SETTINGS}  # SKCE at α: the exception holds ...
        assert self._row(authors_settings=settings).verdict == DIFFERS_UNKNOWN  # ... but L2/KL/MMD are not below α/2


class TestStopCause:
    """The share rows' computed cause: the same cells with every network early-stopped (parts table1rstop-*)."""

    @staticmethod
    def _rejecting(n_rejected):
        """The regime's cells with the first ``n_rejected`` rows rejected in both columns, the others in neither."""
        regime = _regime(n_over=5)
        for resample in ("permutation", "bootstrap"):
            for i, row in enumerate(regime[resample].values()):
                row["mean_p"] = row["lambda_p"] = 0.001 if i < n_rejected else 0.5
                row["mean_h0"] = row["lambda_h0"] = "REJ." if i < n_rejected else "¬REJ."
        return regime

    def _shares(self, n_stopped, **extra):
        res = _results(table1_bootstrap=_results()["table1"], table1_regime=self._rejecting(12), **extra)
        if n_stopped is not None:
            res["table1_regime_stop"] = self._rejecting(n_stopped)
        return [r for r in compare(res).rows if r.quantity.startswith("H0 rejected at α = 0.01")]

    def test_cause_shown_when_stopping_reproduces_the_papers_share(self):
        for row in self._shares(4):  # 8 of 24 cells: 0.333 against the paper's 0.3125
            assert row.verdict == DIFFERS_SHOWN and row.book.startswith("24 of 24 cells")
            assert "; networks early-stopped on their validation loss (parts table1rstop-*): 8 of 24 cells" in row.book
            assert row.cause.startswith("members trained past their best validation loss: with every network")
            assert "; here networks trained 80 epochs, with Adam as App. D" in row.cause  # the stopped cells' setting
            assert "8 of 24 cells are rejected, |0.333 − 0.312| within 0.270; the one setting changed" in row.cause

    def test_no_cause_when_stopping_leaves_the_share(self):
        for row in self._shares(12):
            assert row.verdict == DIFFERS_UNKNOWN and row.cause == ""
            assert "(parts table1rstop-*): 24 of 24 cells (not within 0.189 of the paper's share)" in row.book

    def test_no_cause_when_stopping_overshoots(self):
        for row in self._shares(0):  # 0 of 24: as far below the paper's share as the regime is above it
            assert row.verdict == DIFFERS_UNKNOWN and row.cause == ""
            assert ": 0 of 24 cells (not within" in row.book

    def test_without_stopped_cells_nothing_said(self):
        for row in self._shares(None):
            assert "early-stopped" not in row.book and row.verdict == DIFFERS_UNKNOWN


class TestRegimeRows:
    def test_premise_holds(self):
        res = _results(table1_bootstrap=_results()["table1"], table1_regime=_regime(n_over=5))
        rows = compare(res).rows
        t1 = [r for r in rows if r.artifact.startswith("Table 1")]
        assert t1[0].artifact == "Table 1 (premise)" and t1[0].verdict == AGREES
        assert [r.quantity.split(":")[0] for r in t1[:2]] == ["fashion_mnist", "digits"]
        assert "over-confident in 3 of 3 cells" in t1[0].book and "over-confident in 2 of 3 cells" in t1[1].book
        assert all("fashion_mnist held, digits held; the rows judge fashion_mnist, digits" in r.note for r in t1[2:])
        # the regime's cells are judged, the frozen analogue stated beside as the control
        share = t1[2]
        k = sum(v["mean_h0"] == "REJ." for v in _regime()["permutation"].values())  # both columns of 12 rows
        assert share.book == f"{k} of 24 cells; frozen backbone (the control): 0 of 24" and k > 0
        kl = next(r for r in t1 if r.quantity.startswith("KL gives"))
        assert "frozen backbone (the control): +0.450 ± 0.015" in kl.book and kl.verdict == AGREES
        acc = next(r for r in t1 if r.quantity.startswith("λ(x) slightly"))
        assert "the control" in acc.book and acc.verdict == INCONCLUSIVE  # the paper's own numbers do not decide
        assert len(rows) == len(compare(_results(table1_bootstrap=_results()["table1"])).rows) + 2

    def test_premise_fails(self):
        rows = compare(_results(table1_bootstrap=_results()["table1"], table1_regime=_regime(n_over=1))).rows
        premise = [r for r in rows if r.artifact == "Table 1 (premise)"]
        assert [p.verdict for p in premise] == [DIFFERS_UNKNOWN] * 2 and "1 of 3" in premise[0].book
        share = next(r for r in rows if r.artifact == "Table 1")
        assert (
            "none held: the rows judge every cell" in share.note and share.book.startswith("") and "of 24" in share.book
        )

    def test_one_data_set_held(self):
        """The rows judge the cells of the data set whose premise held (4 of 6: fashion 3 of 3, digits 1 of 3)."""
        rows = compare(_results(table1_bootstrap=_results()["table1"], table1_regime=_regime(n_over=4))).rows
        premise = [r for r in rows if r.artifact == "Table 1 (premise)"]
        assert [p.verdict for p in premise] == [AGREES, DIFFERS_UNKNOWN]
        share = next(r for r in rows if r.artifact == "Table 1")
        assert "fashion_mnist held, digits did not hold; the rows judge fashion_mnist" in share.note
        assert " of 12 cells;" in share.book  # fashion's 3 sets × 2 estimators × 2 columns

    def test_members_stated_beside(self):
        """The members' own signed errors (the regime table's cells) are stated beside the premise, not judged."""
        regime = _regime(n_over=1)
        regime["cells"] = {c: {"members' mean conf. − acc.": 0.031 + i / 1000} for i, c in enumerate(regime["signed"])}
        premise = [r for r in compare(_results(table1_regime=regime)).rows if r.artifact == "Table 1 (premise)"]
        assert "; the members' own, mean per cell: +0.031, +0.032, +0.033)" in premise[0].book
        assert [p.verdict for p in premise] == [DIFFERS_UNKNOWN] * 2  # judged on the sets' mean predictor only

    def test_premise_undecidable_near_perfect_accuracy(self):
        """A data set whose cells cannot show over-confidence at all (1 − accuracy, the largest possible, within its
        own 95% half-width 1.96·sqrt(a(1 − a)/n)) is inconclusive, not a difference; at accuracy 0.8 it differs."""
        regime = _regime(n_over=4)  # fashion 3 of 3, digits 1 of 3

        def rows(acc_digits, n=300):
            regime["cells"] = {
                c: {"accuracy": acc_digits if c.startswith("digits") else 0.8, "test instances": n}
                for c in regime["signed"]
            }
            return [r for r in compare(_results(table1_regime=regime)).rows if r.artifact.startswith("Table 1")]

        t1 = rows(0.99)  # 0.010 against 1.96 sqrt(0.99 · 0.01 / 300) = 0.0113
        assert [r.verdict for r in t1[:2]] == [AGREES, INCONCLUSIVE]
        assert "only 0 of 3 cells could show over-confidence at all" in t1[1].criterion
        assert "is 0.010–0.010, within its own 95% half-width 0.011–0.011 (test instances: 300, 300, 300)" in (
            t1[1].criterion
        )
        assert "fashion_mnist held, digits undecided; the rows judge fashion_mnist" in t1[2].note
        assert rows(0.99, n=400)[1].verdict == DIFFERS_UNKNOWN  # 0.010 > 0.0098: a larger split could show it
        t1 = rows(0.8)
        assert [r.verdict for r in t1[:2]] == [AGREES, DIFFERS_UNKNOWN]
        assert "fashion_mnist held, digits did not hold" in t1[2].note

    def test_no_premise_without_regime(self):
        rows = compare(_results(table1_bootstrap=_results()["table1"])).rows
        assert not any(r.artifact == "Table 1 (premise)" or "the control" in (r.book or "") for r in rows)


class TestRowsHelpers:
    def test_paper_decisions(self):
        """The decisions the paper's own p-values imply: 17-20 of 48 (CIFAR-100 10-12, CIFAR-10 7-8)."""
        assert table1_decision_counts(paper_table1_cells()) == {"k": 17, "k_le": 20, "n": 48}
        assert table1_decision_counts(paper_table1_cells("CIFAR-100")) == {"k": 10, "k_le": 12, "n": 24}
        assert table1_decision_counts(paper_table1_cells("CIFAR-10")) == {"k": 7, "k_le": 8, "n": 24}

    def test_app_b_closed_form(self):
        gaps = app_b_closed_form()
        assert gaps["conditional"] == pytest.approx(0.0, abs=1e-15) and gaps["marginal"] == pytest.approx(0.0)
        assert gaps["uncalibrated"] == pytest.approx(0.2)  # predicts 0.3, E[Y] = 0.5

    def test_paper_accuracy_gain_does_not_decide(self):
        s = paper_table1_summary()
        assert s["n_acc_up"] == 10 and abs(s["acc_gain"]) < 0.001


def test_non_negative_estimators_are_positive_under_h0():
    """Fig. 5's L2/KL half holds for any predictor: both estimators are non-negative (a test, not a row)."""
    from credalbook.stats import estimator_measure

    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=(20, 60))
    y = (rng.random((20, 60, 1)) > p.cumsum(-1)).sum(-1)
    for name in ("lp", "kl"):
        v = np.asarray(estimator_measure(name, bandwidth=0.1).func(p, y))
        assert (v >= 0).all(), name


def test_new_test_closer_to_alpha_than_mortier_by_construction():
    """Mortier's rate sits at 0 under H0 by construction (below); then |rate − α| of any test whose rate lies in
    [0, 2α] is at most Mortier's α: "closer to α than Mortier's" and "lower Type II than Mortier's" compare with a
    test that cannot reject, so they are checks here, not rows."""
    s = _error_rates(r=200, h0_new=0.08, h0_mortier=0.0, h1_new=0.9, h1_mortier=0.0)
    assert s["gap"]["Mortier"] > s["gap"]["new"] and s["type2"]["Mortier"] > s["type2"]["new"]


def test_mortier_conservative_by_construction():
    """Mortier et al.'s statistic is a minimum over λ; its null draws λ at random. On H0 data the minimum is
    at most the statistic of the true combination, so it rejects at most as often as a test of the truth
    against the same null: "Mortier's test is conservative" holds by construction (not a row)."""
    from credalbook.stats import estimator_measure
    from credalbook.stats.bootstrap import MeasureObjective, minimise_objective, null_statistics
    from credalbook.synthetic import instance_scenario

    sc = instance_scenario("binary", "H0-const", n_datasets=8, n_instances=150, seed=1)
    g = estimator_measure("lp", bandwidth=0.01)
    rng = np.random.default_rng(0)
    at_truth = np.asarray(g.func(sc.truth, sc.labels))
    minimum = np.array([MeasureObjective(sc.ens_probs[i], sc.labels[i], g.func) for i in range(8)])
    minimum = np.array([obj(minimise_objective(obj, 2, "cobyla_powell", {}, rng)) for obj in minimum])
    assert np.all(minimum <= at_truth + 1e-9)
    null = null_statistics(sc.ens_probs, g.func, 50, "uniform", "permutation", rng)
    q = np.quantile(null, 0.95, axis=-1)
    assert (minimum > q).sum() <= (at_truth > q).sum()


def test_chapter_has_no_typed_paper_numbers():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells)
    for number in ("0.869", "0.873", "1.000", "0.990", "0.259", "0.262"):
        assert number not in source, number
    assert "compare(results)" in source
