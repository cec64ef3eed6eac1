"""Mortier et al. (2023): the reported numbers as data, and the chapter's "Paper vs. this book" rows."""

import json
from pathlib import Path

import numpy as np
import pytest

from credalbook.papers.mortier import compare, paper_table1
from credalbook.papers.report import Comparison, reported

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "01_mortier_set_calibration.ipynb"
COLUMNS = ("avg_acc", "avg_ece_conf", "avg_ece_cwise", "h0_conf", "acc_conf", "ece_conf", "h0_cwise", "acc_cwise",
           "ece_cwise")


def _results(**over):
    row = {"h0_conf": "REJ.", "avg_ece_conf": 0.1, "ece_conf": 0.05}
    res = dict(skce_excess=0.12, skce_excess_code=0.2, binned_excess=-0.01, hl_s2=0.9, s2_ece=0.5, s3_ece=0.1,
               mean_type1={"Fig. 1": 0.30, "Fig. 2": 0.25, "Fig. 3": 0.3, "Fig. 4": 0.3},
               gap={"Fig. 1": 0.20, "Fig. 2": 0.2, "Fig. 3": 0.25, "Fig. 4": 0.1},
               table1={"S": dict(row), "DE": dict(row, h0_conf="¬REJ.", avg_ece_conf=0.08, ece_conf=0.01),
                       "DN(0.1)": dict(row, avg_ece_conf=0.0612), "DN(0.6)": dict(row, avg_ece_conf=0.0196)},
               dataset="digits")
    res.update(over)
    return res


def _old_cells(skce_excess, skce_excess_code, binned_excess, hl_s2, s2_ece, s3_ece, mean_type1, gap, table1, dataset):
    """The chapter's comparison cells before they moved into :func:`compare` (the reference)."""
    cmp = Comparison("01_mortier_set_calibration")
    cmp.add("Fig. 1 right", "SKCE_ul: Type I error exceeds α (max over α of rate − upper 95% band)",
            paper="exceeds α", book=skce_excess, agrees=bool(skce_excess > 0),
            note="the unbiased estimator's null sample is evaluated at λ0, the statistic at a minimum")
    cmp.add("Fig. 1 right (authors' code)", "SKCE_ul Type I error with Dir(1/M) weights and permuted instances "
            "(max over α of rate − upper band)", paper="exceeds α", book=skce_excess_code, agrees=bool(skce_excess_code > 0),
            note="the reading of Alg. 1 in the released code")
    cmp.add("Fig. 1 right", "HL, ECE tests: Type I error at or below α (max over α of rate − upper band)",
            paper="≤ α", book=binned_excess, agrees=bool(binned_excess <= 0))
    cmp.add("Fig. 1 right", "HL has low power in S2: mean Type II error of HL (5, 10 bins) at α = 0.05",
            paper="high Type II", book=hl_s2, agrees=bool(hl_s2 > 0.5))
    cmp.add("Fig. 1 right", "S3 easier than S2: mean Type II of the ECE tests at α = 0.05 (S2 → S3)",
            paper="S3 < S2", book=f"{s2_ece:.3f} → {s3_ece:.3f}", agrees=bool(s3_ece < s2_ece))
    cmp.add("Fig. 1 right", "ECE_conf and ECE_cwise reliable for both errors: their mean Type II in S3 at α = 0.05",
            paper="low", book=s3_ece, agrees=bool(s3_ece < 0.3))
    cmp.add("App. Fig. 2", "larger sets (u = 0.1 vs 0.01) more conservative: mean Type I over α",
            paper="lower with u = 0.1", book=f"{mean_type1['Fig. 1']:.3f} → {mean_type1['Fig. 2']:.3f}",
            agrees=bool(mean_type1["Fig. 2"] < mean_type1["Fig. 1"]))
    cmp.add("App. Fig. 3", "M = 100 changes little: mean |Type I − α| (M = 10 → 100)",
            paper="no significant influence", book=f"{gap['Fig. 1']:.3f} → {gap['Fig. 3']:.3f}",
            agrees=bool(abs(gap["Fig. 3"] - gap["Fig. 1"]) < 0.1), note="Fig. 3 here uses the batched search minimiser")
    cmp.add("App. Fig. 4", "K = 100 brings the Type I error closer to α: mean |Type I − α| (K = 10 → 100)",
            paper="closer to α", book=f"{gap['Fig. 1']:.3f} → {gap['Fig. 4']:.3f}", agrees=bool(gap["Fig. 4"] < gap["Fig. 1"]),
            note="bootstrap with replacement biases the ECE_cwise null at K = 100 (table above)")
    s_row, de_row, dn1, dn6 = (table1[name] for name in ("S", "DE", "DN(0.1)", "DN(0.6)"))
    cmp.add("Table 1", "single network S rejected for ECE_conf", paper="REJ. (all datasets)",
            book=s_row["h0_conf"], agrees=s_row["h0_conf"] == "REJ.", note=f"{dataset}, small CNN backbone")
    cmp.add("Table 1", "deep ensemble DE not rejected for ECE_conf", paper="¬REJ. (almost always)",
            book=de_row["h0_conf"], agrees=de_row["h0_conf"] == "¬REJ.", note=f"{dataset}, small CNN backbone")
    cmp.add("Table 1", "DN(0.6) better confidence-calibrated than DN(0.1): average ECE_conf on the test split",
            paper="DN(0.6) lower", book=f"{dn1['avg_ece_conf']:.4f} vs {dn6['avg_ece_conf']:.4f}",
            agrees=bool(dn6["avg_ece_conf"] < dn1["avg_ece_conf"]))
    cmp.add("Table 1", "DE: weighted average better confidence-calibrated than the plain average (ECE_conf)",
            paper="0.1680 → 0.0150 (CIFAR-10, MOB)", book=f"{de_row['avg_ece_conf']:.4f} → {de_row['ece_conf']:.4f}",
            agrees=bool(de_row["ece_conf"] <= de_row["avg_ece_conf"]))
    return cmp


class TestReported:
    def test_main(self):
        data = reported("mortier")
        assert "Mortier" in data["_paper"] and "AISTATS 2023" in data["_paper"]
        table = data["table1"]
        assert table["source"].startswith("Table 1")
        assert tuple(table["columns"]) == COLUMNS
        n = 0
        for dataset, archs in table["rows"].items():
            for arch, rows in archs.items():
                assert tuple(rows) == ("S", "DN(0.1)", "DN(0.6)", "DE"), (dataset, arch)
                for row in rows.values():
                    assert tuple(row) == COLUMNS
                    for key, value in row.items():
                        if key.startswith("h0"):
                            assert value in ("REJ.", "¬REJ.")
                        else:
                            assert 0 <= value <= 1
                    n += 1
        assert n == 40  # 4 image datasets × 2 architectures + 2 others, 4 classifiers each
        for name, claim in data["claims"].items():
            assert claim["source"] and claim["paper"], name

    def test_values(self):
        """Cells checked against the paper (the former chapter prose and the DE row of the comparison)."""
        vgg = paper_table1("CIFAR-10", "VGG")
        assert [vgg[n]["avg_acc"] for n in ("S", "DN(0.1)", "DN(0.6)", "DE")] == [0.8438, 0.8476, 0.8355, 0.8754]
        assert [vgg[n]["avg_ece_conf"] for n in ("S", "DN(0.1)", "DN(0.6)", "DE")] == [0.0828, 0.0821, 0.0950, 0.0044]
        assert [vgg[n]["avg_ece_cwise"] for n in ("S", "DN(0.1)", "DN(0.6)", "DE")] == [0.0183, 0.0183, 0.0202, 0.0042]
        assert [vgg[n]["h0_conf"] for n in ("S", "DN(0.1)", "DN(0.6)", "DE")] == ["REJ.", "REJ.", "REJ.", "¬REJ."]
        de = paper_table1("CIFAR-10", "MOB")["DE"]
        assert (de["avg_ece_conf"], de["ece_conf"], de["h0_conf"]) == (0.1680, 0.0150, "¬REJ.")
        assert paper_table1("PROTEINS", "-")["DE"]["ece_cwise"] == 0.0001

    def test_errors(self):
        with pytest.raises(ValueError, match="dataset"):
            paper_table1("MNIST")
        with pytest.raises(ValueError, match="arch"):
            paper_table1("BACTERIA", "VGG")


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        rows = cmp.rows
        assert len(rows) == 13 and cmp.chapter == "01_mortier_set_calibration"
        assert [r.agrees for r in rows] == [True, True, True, True, True, True, True, True, True, True, True, True, True]
        assert rows[0].paper == "exceeds α" and rows[0].book == 0.12
        assert rows[4].book == "0.500 → 0.100"
        assert rows[11].book == "0.0612 vs 0.0196"
        assert rows[12].paper == "0.1680 → 0.0150 (CIFAR-10, MOB)" and rows[12].book == "0.0800 → 0.0100"
        assert rows[9].note == "digits, small CNN backbone"

    def test_disagreements(self):
        res = _results(skce_excess=-0.05, binned_excess=0.02, hl_s2=0.4, s3_ece=0.6,
                       gap={"Fig. 1": 0.1, "Fig. 2": 0.1, "Fig. 3": 0.35, "Fig. 4": 0.2})
        res["table1"]["DE"]["h0_conf"] = "REJ."
        agrees = [r.agrees for r in compare(res).rows]
        assert agrees == [False, True, False, False, False, False, True, False, False, True, False, True, True]

    def test_same_rows_as_the_chapter_cells(self):
        """:func:`compare` builds exactly the rows the chapter's cells built before they moved."""
        rng = np.random.default_rng(0)
        for _ in range(20):
            u = rng.uniform(-0.2, 0.8, size=10)
            tab = {n: {"h0_conf": rng.choice(["REJ.", "¬REJ."]), "avg_ece_conf": rng.uniform(0, 0.2),
                       "ece_conf": rng.uniform(0, 0.2)} for n in ("S", "DE", "DN(0.1)", "DN(0.6)")}
            res = _results(skce_excess=np.float64(u[0]), skce_excess_code=u[1], binned_excess=u[2], hl_s2=u[3],
                           s2_ece=u[4], s3_ece=u[5], mean_type1={f"Fig. {i}": rng.uniform() for i in range(1, 5)},
                           gap={f"Fig. {i}": rng.uniform(0, 0.3) for i in range(1, 5)}, table1=tab)
            assert compare(res).to_dict() == _old_cells(**res).to_dict()

    def test_errors(self):
        with pytest.raises(TypeError, match="results"):
            compare([1, 2])
        res = _results()
        del res["gap"]
        with pytest.raises(ValueError, match="gap"):
            compare(res)


def test_chapter_has_no_typed_paper_numbers():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells)
    for number in ("0.1680", "0.0150", "0.8438", "0.0828", "0.0183", "0.8476", "0.0821", "0.8355", "0.0950", "0.0202",
                   "0.8754", "0.0044", "0.0042"):
        assert number not in source, number
    assert "compare(results)" in source
