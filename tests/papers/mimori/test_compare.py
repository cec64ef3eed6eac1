"""Tests for the Mimori et al. (2022) reported numbers (reported.json) and credalbook.papers.mimori.compare."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from credalbook.papers.mimori import PAPER_DELTA_D, PAPER_VALUES, POST_ROWS, compare
from credalbook.papers.report import Comparison, reported

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "03_mimori_label_histograms.ipynb"
TABLES = ("table1", "table2", "table4", "table5", "table6", "appF2_delta_d", "mds_data", "claims")


class TestReported:
    def test_main(self):
        numbers = reported("mimori")
        assert "arXiv:2007.01659" in numbers["_paper"]
        for key in TABLES:
            assert numbers[key]["source"], key                       # every table says where it comes from
        for key, claim in numbers["claims"]["values"].items():
            assert claim["source"], key
        for key in ("table1", "table2", "table4", "table5", "table6"):
            for setting, rows in numbers[key]["values"].items():
                columns = {tuple(row) for row in rows.values()}
                assert len(columns) == 1, (key, setting)             # rows → the same columns → value
                assert all(v is None or 0 < v < 1 for row in rows.values() for v in row.values())

    def test_numbers(self):
        n = reported("mimori")
        assert n["table4"]["values"]["Mix-MNIST(2)"]["Raw"] == {"Acc": 0.9629, "L_sq": 0.1386, "EL": 0.0388, "CE": 0.0518}
        assert n["table5"]["values"]["Mix-CIFAR-10(2)"]["TTA"]["Acc"] == 0.8221
        assert n["table1"]["values"]["Mix-MNIST(5)"]["TTA"] == {"L_phi": None, "CE_phi": None}   # NA in the paper
        assert n["table2"]["values"]["MDS"]["TTA+ts"] == {"EL": 0.0379, "EL post": 0.0383}
        assert n["table6"]["values"]["MDS-1"]["Raw"]["EL"] == 0.0435
        assert n["table6"]["values"]["MDS-1"]["MCDO+vs"]["Acc"] is None                      # illegible
        assert n["mds_data"]["values"]["mean_labels_test"] == 7.58
        # the chapter's shapes are built from the data file
        assert PAPER_VALUES[("Mix-CIFAR-10", 5)]["TTA+ts+α"]["CE_phi"] == n["table1"]["values"]["Mix-CIFAR-10(5)"]["TTA+ts+α"]["CE_phi"]
        assert PAPER_DELTA_D == {("Mix-MNIST", 2): 0.027, ("Mix-MNIST", 5): 0.025, ("Mix-CIFAR-10", 2): 0.101,
                                 ("Mix-CIFAR-10", 5): 0.103, ("MDS", None): 0.019}
        assert "L_sq" not in PAPER_VALUES[("MDS", None)]["Raw"]              # only Table 6's vs / ms rows are merged
        assert PAPER_VALUES[("MDS", None)]["Raw+vs"]["L_sq"] == 0.2515

    def test_fresh_copy(self):
        reported("mimori")["table4"]["values"]["Mix-MNIST(2)"]["Raw"]["EL"] = 1.0
        assert reported("mimori")["table4"]["values"]["Mix-MNIST(2)"]["Raw"]["EL"] == 0.0388


class TestChapterHasNoPaperNumbers:
    def test_main(self):
        cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells)
        for number in (".0388", ".0379", ".0435", ".0391", ".0456", ".8221", ".7965", ".2216", ".2504", ".2474",
                       "0.027", "0.019", "25 %", "5.67", "5.79", "7.58", "90 000"):
            assert number not in text, number
        assert "compare(results)" in text and "Comparison(" not in text


def _row(acc, el, ce, l_phi, ce_phi, **extra):
    return {"Acc": acc, "L_sq": el + 0.1, "EL": el, "CE": ce, "EL true": el, "L_phi": l_phi, "CE_phi": ce_phi, **extra}


def _metrics():
    """Each config: ts worsens ÊL and ĈE of Raw (Table 4 disagrees), α halves the DPE losses and lowers
    ÊL by 25 % after one more label, the ensembles by 1 %."""
    rows = {"Raw": _row(0.8, 0.04, 0.05, 0.08, 0.07), "Raw+ts": _row(0.8, 0.045, 0.06, 0.09, 0.08),
            "Raw+vs": _row(0.81, 0.041, 0.05, 0.08, 0.07), "Raw+ms": _row(0.79, 0.042, 0.05, 0.08, 0.07),
            "MCDO": _row(0.8, 0.039, 0.05, 0.08, 0.07), "MCDO+ts": _row(0.8, 0.043, 0.05, 0.08, 0.07)}
    out = {}
    for name, row in rows.items():
        out[name] = dict(row, **({"EL post": row["EL"] * 0.99} if name.startswith("MCDO") else {}))
        out[name + "+α"] = dict(row, L_phi=row["L_phi"] / 2, CE_phi=row["CE_phi"] / 2, **{"EL post": row["EL"] * 0.75})
    return out


def _results(**changes):
    summary = {("EL", "plug-in", 2): (np.array([0.25, 0.25]), np.array([0.01, 0.01])),
               ("EL", "debiased", 2): (np.array([0.001, -0.0005]), np.array([0.01, 0.005])),
               ("CL", "plug-in", 2): (np.array([0.02, 0.0002]), np.array([0.005, 0.0001])),
               ("CL", "debiased", 2): (np.array([0.0, 0.00001]), np.array([0.004, 0.0001]))}
    results = dict(
        dataset="fashion_mnist", data_name="Mix-Fashion-MNIST",
        metrics={c: _metrics() for c in (2, 5, "variable")},
        temperatures={2: 1.25, 5: 1.1, "variable": 0.9},
        mean_delta={2: 0.01, 5: 0.02, "variable": -0.005},
        fig2=dict(n_instances=np.array([100, 10_000]), n_labels=(2,), summary=summary),
        fig3=dict(reg=(0.001, 0.5), ranges=np.array([[-3.0, 4.0], [-1.0, 1.0]])),
        theorem1=dict(alpha0=np.array([1.0, 2.0, 4.0, 8.0, np.inf]), max_z=2.0,
                      scenarios={"calibrated Z": dict(dpe_argmin=4.0, dpe_optimum=4.2, post_argmin=4.0, post_optimum=3.9),
                                 "sharper Z": dict(dpe_argmin=np.inf, dpe_optimum=np.inf, post_argmin=2.0, post_optimum=2.1)}),
    )
    results.update(changes)
    return results


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        assert isinstance(cmp, Comparison) and cmp.chapter == "03_mimori_label_histograms"
        rows = {(r.artifact, r.quantity[:25]): r for r in cmp.rows}
        assert [r.artifact for r in cmp.rows] == [
            "Fig. 2", "Fig. 3", "Theorem 1", "Table 4 (2)", "Table 4 (5)", "Prop. 2 (our check)", "Tables 4-6",
            "Table 1 (2)", "Table 1 (2)", "Table 1 (5)", "Table 1 (5)", "Tables 1, 6 (MDS-like)", "Tables 1, 6 (MDS-like)",
            "Table 1 (2) / F.2", "Table 1 (5) / F.2", "App. F.2", "App. F.2", "App. F.2",
            "Table 2 (2)", "Table 2 (2)", "Table 2 (5)", "Table 2 (5)", "Table 2 (variable)", "Table 2 (variable)",
            "Table 6 (MDS-like)", "Sec. 7 (data)"]
        fig2 = cmp.rows[0]
        assert fig2.agrees and fig2.paper == "debiased close to 0, plug-in biased"
        assert fig2.book.endswith("90% CI covers 0 at 100% of points")
        assert cmp.rows[1].agrees and cmp.rows[1].book == "λ=0.001: [-3.00, 4.00], λ=0.5: [-1.00, 1.00]"
        assert cmp.rows[2].agrees and cmp.rows[2].book.startswith("calibrated Z: 4.00 and 4.00 (grid step ×2.00)")
        # Table 4: the paper's numbers from reported.json; ours: ts raises ÊL → disagrees, with the note
        t4 = cmp.rows[3]
        assert t4.paper == "Mix-MNIST(2): ÊL 0.0388 → 0.0379, ĈE 0.0518 → 0.0473"
        assert t4.book == "Acc 0.8000 → 0.8000, ÊL 0.0400 → 0.0450, ĈE 0.0500 → 0.0600"
        assert t4.agrees is False and t4.note.startswith("T = 1.25 minimises the validation NLL")
        assert cmp.rows[5].agrees and cmp.rows[5].book == "0.0%"                   # EL true = ÊL
        assert cmp.rows[6].agrees and cmp.rows[6].book == "largest difference 0.0e+00"
        t1 = cmp.rows[7]
        assert (t1.paper, t1.book, t1.agrees) == ("Mix-MNIST(2): 4 of 4", "6 of 6", True)
        assert cmp.rows[11].paper == "MDS: 12 of 12"
        t1f2 = cmp.rows[13]
        assert t1f2.agrees and t1f2.paper == "Mix-MNIST(2): L̂φ 0.0755 → 0.0775, ĈEφ 0.0782 → 0.0933"
        f2 = cmp.rows[15:18]
        assert [r.paper for r in f2] == ["Mix-MNIST(2): 0.027", "Mix-MNIST(5): 0.025", "MDS: 0.019"]
        assert [r.agrees for r in f2] == [True, True, False] and f2[2].book == "-0.0050 (T = 0.900)"
        t2, t2_ens = cmp.rows[18:20]
        assert t2.paper == "Mix-MNIST(2): Raw+α 0.0388 → 0.0292" and t2.agrees
        assert t2_ens.paper == "Mix-MNIST(2): Raw+α 25%, MCDO 1%"
        assert t2_ens.book == "Raw+α 25%, Raw+ts+α 25%, MCDO 1%, MCDO+ts 1%" and t2_ens.agrees
        t6 = cmp.rows[24]
        assert (t6.paper, t6.book, t6.agrees) == ("MDS-1: ÊL .0435 (Raw) vs .0391-.0456", "5.0%", True)
        data = cmp.rows[25]
        assert data.agrees is False and data.note == "different images: compare findings, not digits"
        assert cmp.n_agree == 22

    def test_tta_and_real_data(self):
        metrics = {c: _metrics() for c in (2, 5, "variable")}
        for c in metrics:                            # TTA: most accurate, lowest ÊL → the Table 5 / 6 row agrees
            tta = _row(0.9, 0.03, 0.05, 0.08, 0.07, **{"EL post": 0.0297})
            metrics[c].update({"TTA": tta, "TTA+α": dict(tta, L_phi=0.04, CE_phi=0.035, **{"EL post": 0.0225})})
        cmp = compare(_results(dataset="cifar10", data_name="Mix-CIFAR-10", metrics=metrics))
        t5 = next(r for r in cmp.rows if r.artifact == "Table 5 / 6")
        assert t5.paper == "Mix-CIFAR-10(2): Acc .8221 vs .7965/.7983; ÊL .2216 vs .2504/.2474" and t5.agrees
        assert cmp.rows[3].paper == "Mix-CIFAR-10(2): ÊL 0.2504 → 0.2423, ĈE 0.1093 → 0.0687"
        assert cmp.rows[-1].agrees and cmp.rows[-1].note == ""
        assert "TTA 1%" in next(r for r in cmp.rows if r.artifact == "Table 2 (2)" and "ensembles" in r.quantity).book

    def test_theorem1_disagrees(self):
        thm = _results()["theorem1"]
        thm["scenarios"]["calibrated Z"]["dpe_optimum"] = 9.0             # more than one grid step away
        row = compare(_results(theorem1=thm)).rows[2]
        assert row.agrees is False and math.isclose(float(row.book.split("within ")[1].split(" ")[0]), 2.0)

    def test_post_rows(self):
        assert POST_ROWS == ("Raw+α", "Raw+ts+α", "MCDO", "MCDO+ts", "TTA", "TTA+ts")
        assert list(POST_ROWS) == list(reported("mimori")["table2"]["values"]["Mix-CIFAR-10(2)"])

    def test_errors(self):
        with pytest.raises(TypeError, match="results"):
            compare([1, 2])
        results = _results()
        del results["fig3"]
        with pytest.raises(ValueError, match=re.escape("results is missing the keys ['fig3']")):
            compare(results)
