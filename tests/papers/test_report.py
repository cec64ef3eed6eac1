"""Tests for credalbook.papers.report: the "Paper vs. this book" table and its JSON file."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from credalbook.papers.criteria import at_least, close_to, ordered, rate_claim, sign_claim, VERDICTS
from credalbook.papers.report import Comparison, ComparisonRow, load_comparison, Table

ROW_KEYS = [
    "artifact",
    "quantity",
    "paper",
    "book",
    "verdict",
    "criterion",
    "tolerance",
    "tolerance_source",
    "replicates",
    "cause",
    "note",
]


def _comparison():
    c = Comparison("00_demo")
    c.add(
        "Eq. 6",
        "ECE of a perfect model",
        paper=0.0,
        book=np.float64(0.004),
        judgement=close_to(0.004, 0.0, tol=0.01, tolerance_source="finite-N bias", bounds=(0, 1)),
        note="finite N",
    )
    c.add(
        "Fig. 1",
        "Type I error",
        paper=0.05,
        book=np.float32(0.25),
        judgement=rate_claim(15, 60, accept=(0.025, 0.075)),
        cause="the cell above: chi2 reference over-rejects",
    )
    c.add("Table 1", "rejections", paper=np.int64(3), book=torch.tensor(4), judgement=at_least(2, 4, 3))
    return c


class TestComparison:
    def test_main(self, tmp_results):
        c = _comparison()
        assert len(c.rows) == 3 and c.n_agree == 1
        assert all(isinstance(r, ComparisonRow) for r in c.rows)
        assert [r.verdict for r in c.rows] == ["agrees", "differs — cause shown", "differs — cause unknown"]
        assert [r.agrees for r in c.rows] == [True, False, False]
        path = c.save({"scale": "tiny", "seed": np.int64(0), "hidden": (128,), "alpha": np.float64(0.05)})
        assert path == tmp_results / "00_demo.json"
        data = json.loads(path.read_text())
        assert list(data) == ["chapter", "parameters", "counts", "rows", "provenance"]
        # fingerprints of the package code this process imported, and the recorded parts it used
        assert "credalbook/papers/report.py" in data["provenance"]["modules"] and data["provenance"]["parts"] == {}
        assert data["chapter"] == "00_demo"
        assert data["parameters"] == {"scale": "tiny", "seed": 0, "hidden": [128], "alpha": 0.05}
        assert data["counts"] == {
            "agrees": 1,
            "differs — cause shown": 1,
            "differs — cause unknown": 1,
            "inconclusive": 0,
            "not run here": 0,
        }
        assert len(data["rows"]) == 3
        for row in data["rows"]:
            assert list(row) == ROW_KEYS
            assert row["verdict"] in VERDICTS and row["criterion"]
            assert isinstance(row["note"], str)
        first, second, third = data["rows"]
        assert first["paper"] == 0.0 and first["book"] == 0.004 and first["tolerance"] == 0.01
        assert first["criterion"] == "|book − paper| ≤ 0.01: |0.004 − 0| = 0.004"
        assert first["tolerance_source"] == "finite-N bias" and first["note"] == "finite N"
        assert second["book"] == pytest.approx(0.25) and second["replicates"] == 60
        assert second["cause"] == "the cell above: chi2 reference over-rejects"
        assert third["paper"] == 3 and third["book"] == 4 and third["note"] == ""
        # numpy / torch scalars are stored as plain JSON numbers
        text = path.read_text()
        assert "np." not in text and "tensor" not in text
        assert isinstance(third["paper"], int) and isinstance(third["book"], int)

    def test_plain_values_in_memory(self):
        c = _comparison()
        assert type(c.rows[0].book) is float
        assert type(c.rows[1].book) is float
        assert type(c.rows[2].paper) is int
        assert type(c.rows[2].book) is int
        j = ordered(1.0, 2.0, relation="<")
        c.add("x", "array", paper=np.array([1.0, 2.0]), book={"a": np.float32(0.5), 1: (np.int8(2),)}, judgement=j)
        assert c.rows[-1].paper == [1.0, 2.0]
        assert c.rows[-1].book == {"a": 0.5, "1": [2]}
        # non-numbers are kept
        c.add("x", "claim", paper="over-confident", book=None, judgement=j)
        assert c.rows[-1].paper == "over-confident" and c.rows[-1].book is None

    def test_not_run_and_fidelity(self):
        c = _comparison()
        c.add("Fig. 2", "power", paper="high", book=0.5, judgement=rate_claim(30, 60, accept=(0.4, 1.0)))
        c.not_run(
            "Table 3",
            "CIFAR-100 ECE",
            paper=11.55,
            reason="CIFAR-100 is not on this machine",
            tested_by="tests/data/test_cifar.py",
        )
        assert c.rows[-1].verdict == "not run here" and c.rows[-1].book is None
        assert c.rows[-1].cause == "code path tested by tests/data/test_cifar.py"
        assert c.counts()["not run here"] == 1 and c.counts()["inconclusive"] == 1
        assert c.fidelity == (
            "1 of 4 agree (1 differs — cause shown; 1 differs — cause unknown; 1 inconclusive; 1 not run here)"
        )
        with pytest.raises(ValueError, match="needs a reason"):
            c.not_run("a", "q", paper=1, reason="", tested_by="x")
        with pytest.raises(ValueError, match="needs a reason"):
            c.not_run("a", "q", paper=1, reason="no data", tested_by=" ")

    def test_save_to_directory(self, tmp_path):
        c = _comparison()
        path = c.save(directory=tmp_path / "a" / "b")
        assert path == tmp_path / "a" / "b" / "00_demo.json"
        assert json.loads(path.read_text())["parameters"] == {}
        # saving again overwrites
        c.add("Extra", "q", paper=1, book=1, judgement=at_least(1, 1, 1))
        assert len(json.loads(c.save(directory=tmp_path / "a" / "b").read_text())["rows"]) == 4

    def test_nan_round_trip(self, tmp_path):
        c = Comparison("nan")
        c.add("Fig. 2", "not reported", paper=float("nan"), book=0.1, judgement=sign_claim(0.1, relation=">"))
        data = load_comparison(c.save(directory=tmp_path))
        assert math.isnan(data["rows"][0]["paper"])

    def test_html_and_str(self):
        c = _comparison()
        c.add(
            "Eq. <3>",
            "p < 0.05 & more",
            paper=0.123456,
            book=1e-5,
            judgement=ordered(1e-5, 0.1, relation="<"),
            note='"quoted"',
        )
        html = c._repr_html_()
        assert html.startswith('<table class="credalbook-table') and html.endswith("</p>")
        for header in ("Artifact", "Quantity", "Paper", "This book", "Criterion", "Verdict", "Note"):
            assert f"<th>{header}</th>" in html
        assert "<td>0.004</td>" in html and "<td>0.25</td>" in html and "<td>3</td>" in html
        assert "<td>0.1235</td>" in html and "<td>1e-05</td>" in html  # 4 significant digits
        assert "Eq. &lt;3&gt;" in html and "p &lt; 0.05 &amp; more" in html and "&quot;quoted&quot;" in html
        assert "<3>" not in html and "p < 0.05" not in html
        assert html.count("<tr>") == 1 + 4
        assert "<td>differs — cause shown: the cell above: chi2 reference over-rejects</td>" in html
        assert "2 of 4 agree (1 differs — cause shown; 1 differs — cause unknown)." in html
        text = str(c)
        assert text.splitlines()[0] == "Eq. 6 | ECE of a perfect model | paper 0 | book 0.004 | agrees"
        assert text.splitlines()[1].endswith("differs — cause shown")
        assert text.splitlines()[-1] == "2 of 4 agree (1 differs — cause shown; 1 differs — cause unknown)"

    def test_errors(self, tmp_path):
        c = Comparison("empty")
        with pytest.raises(ValueError, match="'empty' has no rows to save"):
            c.save(directory=tmp_path)
        assert not (tmp_path / "empty.json").exists()
        for bad in (True, "agrees", None, {"verdict": "agrees"}):
            with pytest.raises(TypeError, match="judgement must be"):
                c.add("a", "q", paper=1, book=1, judgement=bad)
        with pytest.raises(TypeError):
            c.add("a", "q", paper=1, book=1, agrees=True)  # the old boolean is gone
        assert c.rows == []
        c.add("a", "q", paper=1, book=2, judgement=ordered(1, 2, relation="<"), cause="Sec. 3")
        assert c.rows[0].verdict == "agrees" and c.rows[0].cause == ""  # a cause is kept only for a difference


class TestLoadComparison:
    def test_main(self, tmp_results):
        c = _comparison()
        path = c.save({"scale": "quick"})
        data = load_comparison(path)
        assert data == json.loads(json.dumps(c.to_dict({"scale": "quick"})))
        assert load_comparison(str(path)) == data
        assert [r["verdict"] for r in data["rows"]] == ["agrees", "differs — cause shown", "differs — cause unknown"]

    def test_errors(self, tmp_path):
        for missing in ("chapter", "parameters", "rows"):
            content = {"chapter": "x", "parameters": {}, "rows": []}
            del content[missing]
            path = tmp_path / f"no_{missing}.json"
            path.write_text(json.dumps(content))
            with pytest.raises(ValueError, match=rf"not a comparison file; missing keys \['{missing}'\]"):
                load_comparison(path)
        path = tmp_path / "other.json"
        path.write_text(json.dumps({"rows": []}))
        with pytest.raises(ValueError, match=r"missing keys \['chapter', 'parameters'\]"):
            load_comparison(path)
        with pytest.raises(FileNotFoundError):
            load_comparison(tmp_path / "absent.json")


class TestTable:
    def test_main(self):
        t = Table(
            {"model A": {"acc": 0.9, "ece": 0.0312}, "model B": {"acc": 0.8, "nll": np.float64(0.41234)}},
            index_name="model",
        )
        assert t.columns == ["acc", "ece", "nll"]  # union, in order of first appearance
        html = t._repr_html_()
        assert "<th>model</th><th>acc</th><th>ece</th><th>nll</th>" in html
        assert "<tr><td>model A</td><td>0.9</td><td>0.0312</td><td></td></tr>" in html
        assert "<tr><td>model B</td><td>0.8</td><td></td><td>0.4123</td></tr>" in html
        lines = str(t).splitlines()
        assert lines[0] == "model\tacc\tece\tnll"
        assert lines[1] == "model A\t0.9\t0.0312\t"
        assert lines[2] == "model B\t0.8\t\t0.4123"

    def test_formatting_and_escaping(self):
        t = Table({"<b>": {"n": 3, "flag": True, "x": float("nan"), "s": "a&b", "v": None}})
        html = t._repr_html_()
        assert "<td>&lt;b&gt;</td>" in html
        assert "<td>3</td><td>True</td><td>—</td><td>a&amp;b</td><td>None</td>" in html
        assert "<b>" not in html
        assert Table({}).columns == []

    def test_errors(self):
        t = Table({"a": {"x": 1}})
        with pytest.raises(AttributeError):
            t.rows = {}  # frozen


class TestGlue:
    def test_numpy_scalars_glued_as_plain_numbers(self, monkeypatch):
        import myst_nb
        from myst_nb.core.variables import format_plain_text

        from credalbook.papers.report import glue

        seen = {}
        monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=True: seen.update({name: (value, display)}))
        glue("x", np.float64(0.25), display=False)
        glue("v", np.arange(3))
        assert seen["x"] == (0.25, False) and type(seen["x"][0]) is float
        assert seen["v"] == ([0, 1, 2], True)
        assert format_plain_text(repr(seen["x"][0]), ".2f") == "0.25"
        with pytest.raises(ValueError):  # what myst-nb would have been given without the conversion
            format_plain_text(repr(np.float64(0.25)), ".2f")


class TestCountOf:
    def test_plural_only_when_not_one(self):
        from credalbook.papers.report import count_of

        assert [count_of(n, "seed") for n in (0, 1, 2, 6)] == ["0 seeds", "1 seed", "2 seeds", "6 seeds"]


@pytest.mark.parametrize(
    "chapter", sorted((Path(__file__).resolve().parents[2] / "chapters").glob("0*.ipynb")), ids=lambda p: p.stem
)
def test_every_chapter_has_its_comparison_section(chapter):
    """Each chapter has a "Paper vs. this book" heading, and the paper chapters build their rows with compare()."""
    nb = json.loads(chapter.read_text(encoding="utf-8"))
    markdown = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    if nb["metadata"].get("credalbook", {}).get("kind") == "guide":  # reproduces no paper
        assert "## Paper vs. this book" not in markdown and "Comparison(" not in code
        return
    assert "## Paper vs. this book" in markdown
    if not chapter.stem.startswith("00_"):
        assert "compare(results" in code


class TestFidelityOf:
    def test_main(self):
        from credalbook.papers.report import fidelity_of

        assert fidelity_of({"agrees": 2}) == "2 of 2 agree"
        assert fidelity_of({"agrees": 0, "not run here": 3}) == "0 of 0 agree (3 not run here)"
        assert fidelity_of(_comparison().counts()) == _comparison().fidelity

    def test_errors(self):
        from credalbook.papers.report import fidelity_of

        with pytest.raises(ValueError, match=r"not verdicts: \['agree'\]"):
            fidelity_of({"agree": 1})

    def test_runner_prints_the_count(self, tmp_path):
        from credalbook.book.runner import _fidelity

        path = _comparison().save(directory=tmp_path)
        assert _fidelity(path) == "1 of 3 agree (1 differs — cause shown; 1 differs — cause unknown)"
        path.write_text(json.dumps({"chapter": "x", "parameters": {}, "rows": []}))
        assert _fidelity(path).startswith("no verdict count")


def test_widmann_reported_figure_2():
    """The published curves of Widmann et al. (2019) Fig. 2: six tests x three models on 101 levels; the
    type I curves (M1) are empirical CDFs of p-values, so non-decreasing in alpha, and they hold the values
    tests/synthetic/test_widmann.py compares with."""
    from credalbook.papers.report import reported

    fig = reported("widmann")["figure_2_pvalues_comparison"]
    alphas = np.asarray(fig["alphas"])
    assert alphas.shape == (101,) and alphas[0] == 0 and alphas[-1] == 1
    curves = fig["test_error"]
    assert set(curves) == {"C", "D_b", "D_uq", "D_l", "A_uq", "A_l"}
    for test, models in curves.items():
        assert set(models) == {"M1", "M2", "M3"}, test
        for model, curve in models.items():
            c = np.asarray(curve)
            assert c.shape == (101,) and np.all((c >= 0) & (c <= 1)), (test, model)
        assert np.all(np.diff(models["M1"]) >= 0), test
    at = int(np.flatnonzero(np.isclose(alphas, 0.05))[0])
    assert curves["A_l"]["M1"][at] == 0.0455 and curves["A_l"]["M3"][at] == 0.8141
