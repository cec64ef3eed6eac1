"""The EU paper's reported numbers (credalbook/papers/eu/reported.json) and its "Paper vs. this book" rows."""

import json
from pathlib import Path

import pytest

from credalbook.papers.eu import EU_ESTIMATORS, EU_METRICS, EU_PAPER_TABLE1, EU_PAPER_TABLE2, compare, compare_summary
from credalbook.papers.report import Comparison, reported

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "05_epistemic_uncertainty_gp.ipynb"
NAN = float("nan")


def _summary(rho, eece, cal, sd=0.01, bits=None):
    """A study summary (estimator -> metric -> (mean, sd)) with the same sd everywhere."""
    out = {k: {"rho_epi": (rho[k], sd), "eece": (eece[k], sd), "calibrated_eece": (cal[k], sd)} for k in EU_ESTIMATORS}
    if bits is not None:
        for k in EU_ESTIMATORS:
            out[k]["eece_bits"] = (bits[k], sd)
    return out


def _results():
    toy = _summary(rho={"M": 0.1, "E": 0.12}, eece={"M": 0.025, "E": 0.30}, cal={"M": 0.021, "E": 0.015},
                   bits={"M": 0.036, "E": 0.39})
    m1 = _summary(rho={"M": 0.1, "E": 0.12}, eece={"M": 0.025, "E": 0.30}, cal={"M": 0.022, "E": 0.016})
    m2 = _summary(rho={"M": 0.11, "E": 0.10}, eece={"M": 0.025, "E": 0.30}, cal={"M": 0.023, "E": 0.025})
    real = _summary(rho={"M": 0.07, "E": 0.2}, eece={"M": 0.0065, "E": 0.33}, cal={"M": 0.0058, "E": 0.0045}, sd=NAN)
    return dict(toy=toy, toy_seeds=2, toy_window=(8, 10), toy_floor=0.0123, toy_over_M=0.4, mismatch=[toy, m1, m2],
                real=real, real_seeds=1, real_over_M=0.7, dataset="kuzushiji49")


def _row(cmp, artifact, quantity):
    rows = [r for r in cmp.rows if r.artifact == artifact and r.quantity == quantity]
    assert len(rows) == 1, (artifact, quantity, [r.quantity for r in cmp.rows if r.artifact == artifact])
    return rows[0]


class TestReported:
    def test_main(self):
        rep = reported("eu")
        assert isinstance(rep["_paper"], str) and "Epistemic Uncertainty" in rep["_paper"]
        entries = {k: v for k, v in rep.items() if k != "_paper"}
        assert {"table1", "table2"} <= set(entries)
        for name, entry in entries.items():
            assert isinstance(entry.get("source"), str) and entry["source"], name
        assert rep["table1"]["source"].startswith("Table 1") and rep["table2"]["source"].startswith("Table 2")
        assert rep["table1"]["seeds"] == 6
        # rows -> columns -> [mean, sd] (null where the paper reports nothing; it reports every cell)
        for d in rep["table2"]["rows"].values():
            for row in d.values():
                assert list(row) == list(EU_METRICS) and all(len(v) == 2 for v in row.values())
        assert rep["table1"]["rows"]["E"]["eece"] == [0.393, 0.014]
        assert rep["table2"]["rows"]["EMNIST"]["M"]["calibrated_eece"] == [0.0122, 0.0027]
        assert rep["text_sec5_3_1"]["calibrated_eece_below"] == 0.02
        assert rep["text_sec5_4"]["datasets"]["EMNIST"] == {"observations": 131600, "classes": 47}

    def test_constants_from_json(self):
        rep = reported("eu")
        assert EU_PAPER_TABLE1 == {k: {m: tuple(v) for m, v in row.items()} for k, row in rep["table1"]["rows"].items()}
        assert list(EU_PAPER_TABLE2) == ["EMNIST", "K-49"]
        assert EU_PAPER_TABLE2["K-49"]["M"]["calibrated_eece"] == (0.0060, 0.0004)
        assert list(EU_PAPER_TABLE1) == list(EU_ESTIMATORS) and list(EU_PAPER_TABLE1["M"]) == list(EU_METRICS)

    def test_fresh_copy(self):
        rep = reported("eu")
        rep["table1"]["rows"]["E"]["eece"][0] = 1.0
        assert reported("eu")["table1"]["rows"]["E"]["eece"][0] == 0.393


class TestCompareSummary:
    def test_main(self):
        out = compare_summary(_results()["toy"], EU_PAPER_TABLE1)
        assert out["E"]["eece"] == ("0.393 ± 0.014", "0.3 ± 0.01", False)  # 0.093 > 2 hypot(0.014, 0.01)
        assert out["M"]["rho_epi"] == ("0.108 ± 0.023", "0.1 ± 0.01", True)


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        assert isinstance(cmp, Comparison) and cmp.chapter == "05_epistemic_uncertainty_gp"
        artifacts = [r.artifact for r in cmp.rows]
        assert artifacts == (["Table 1"] * 7 + ["Table 1 / Fig. 3"] * 6 + ["Sec. 5.3.2"] * 3 + ["Table 2 (EMNIST)"] * 6
                             + ["Table 2 (K-49)"] * 6 + ["Table 2 / Fig. 4"] * 5)
        # Table 1: mean ± sd against the paper's, within 2 combined sds
        r = _row(cmp, "Table 1", "EECE of Ê_E (mean ± sd)")
        assert (r.paper, r.book, r.agrees) == ("0.393 ± 0.014", "0.3 ± 0.01", False)
        assert r.note == "2 seeds, 8 × 10 cluster window; EECE floor of our test sets ≈ 0.012"
        r = _row(cmp, "Table 1", "calibrated EECE of Ê_M (mean ± sd)")
        assert (r.paper, r.agrees, r.note) == ("0.0182 ± 0.005", True, "2 seeds, 8 × 10 cluster window")
        r = _row(cmp, "Table 1", "EECE of Ê_E with entropies in bits")
        assert (r.paper, r.book, r.agrees) == ("0.393 ± 0.014", "0.39 ± 0.01", True)
        # claims of Sec. 5.3.1: 0.021 is not below the paper's 0.02; over_M 0.4 is not over half
        r = _row(cmp, "Table 1 / Fig. 3", "both calibrate to a small EECE (below 0.02)")
        assert (r.paper, r.book, r.agrees, r.note) == ("yes", "M 0.0210, E 0.0150", False, "sampling floor of our test sets ≈ 0.012")
        r = _row(cmp, "Table 1 / Fig. 3", "Ê_M over-estimates the gain before calibration (share of intervals)")
        assert (r.book, r.agrees, r.note) == ("0.40", False, "")
        assert _row(cmp, "Table 1 / Fig. 3", "after calibration Ê_E has the lower EECE").agrees
        # Sec. 5.3.2
        r = cmp.rows[13]
        assert r.quantity.startswith("variant 1") and (r.book, r.agrees) == ("Δ M +0.0010, Δ E +0.0010", True)
        r = cmp.rows[14]
        assert (r.book, r.agrees) == ("Δ M +0.0020, Δ E +0.0100", True)
        assert (cmp.rows[15].book, cmp.rows[15].agrees) == ("M 0.110 vs E 0.100", True)
        # Table 2: K-49 is our dataset (judged by sds; ours NaN with one seed), EMNIST by the paper's range
        r = _row(cmp, "Table 2 (K-49)", "ρ_epi of Ê_M")
        assert (r.paper, r.book, r.agrees, r.note) == ("0.065 ± 0.015", "0.07", True, "")
        assert not _row(cmp, "Table 2 (K-49)", "ρ_epi of Ê_E").agrees  # 0.2 vs 0.101 ± 0.014
        r = _row(cmp, "Table 2 (EMNIST)", "ρ_epi of Ê_M")  # range [0.035, 0.128]
        assert r.agrees and r.note == "ours on kuzushiji49; judged against the range of the paper's two datasets"
        assert not _row(cmp, "Table 2 (EMNIST)", "ρ_epi of Ê_E").agrees  # range [0.073, 0.14]
        r = _row(cmp, "Table 2 / Fig. 4", "calibrated Ê_E has a lower EECE than calibrated Ê_M")
        assert (r.book, r.agrees, r.note) == ("E 0.0045 vs M 0.0058", True, "kuzushiji49, 1 seed")
        assert cmp.n_agree == sum(r.agrees for r in cmp.rows) and 0 < cmp.n_agree < len(cmp.rows)

    def test_matches_paper(self):
        """Our values equal to the paper's agree on every Table 1 and Table 2 row."""
        res = _results()
        res["toy"] = {k: {**{m: EU_PAPER_TABLE1[k][m] for m in EU_METRICS}, "eece_bits": (0.393, 0.0)} for k in EU_ESTIMATORS}
        res["real"] = {k: {m: EU_PAPER_TABLE2["EMNIST"][k][m] for m in EU_METRICS} for k in EU_ESTIMATORS}
        res["dataset"] = "emnist_letters"
        cmp = compare(res)
        assert all(r.agrees for r in cmp.rows if r.artifact in ("Table 1", "Table 2 (EMNIST)"))
        assert json.loads(json.dumps(cmp.to_dict()))["rows"][0]["book"] == "0.108 ± 0.023"

    def test_errors(self):
        with pytest.raises(TypeError, match="results must be a mapping"):
            compare([1, 2])
        res = _results()
        del res["toy_floor"]
        with pytest.raises(ValueError, match="missing the keys \\['toy_floor'\\]"):
            compare(res)
        res = _results()
        res["mismatch"] = res["mismatch"][:2]
        with pytest.raises(ValueError, match="three summaries"):
            compare(res)


def test_chapter_has_no_typed_paper_numbers():
    """The chapter reads the paper's numbers from reported.json; none is typed into a cell."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells)
    typed = {f"{v:g}" for table in (EU_PAPER_TABLE1, *EU_PAPER_TABLE2.values())
             for row in table.values() for pair in row.values() for v in pair}
    typed = {t for t in typed if len(t) >= 5}  # 0.108, 0.0249, 0.393, ... (not 0.02, 0.41 or 0.33 alone)
    assert "0.393" in typed and "0.0063" in typed
    found = sorted(t for t in typed if t in source)
    assert not found, f"paper numbers typed into the chapter: {found}"
    for text in ("0.41", "0.33", "142{,}693", "142,693", "131,600", "38\\times46", "0.015 to 0.018", "0.1 in the paper"):
        assert text not in source, text
    assert "compare(results)" in source and "Comparison(" not in source
