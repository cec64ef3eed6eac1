"""Tests for credalbook.papers.report: the "Paper vs. this book" table and its JSON file."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from credalbook.papers.report import Comparison, ComparisonRow, Table, load_comparison

ROW_KEYS = ["artifact", "quantity", "paper", "book", "agrees", "note"]


def _comparison():
    c = Comparison("00_demo")
    c.add("Eq. 6", "ECE of a perfect model", paper=0.0, book=np.float64(0.004), agrees=True, note="finite N")
    c.add("Fig. 1", "Type I error", paper=0.05, book=np.float32(0.25), agrees=np.bool_(False),
          note="chi2 reference over-rejects")
    c.add("Table 1", "rejections", paper=np.int64(3), book=torch.tensor(4), agrees=False)
    return c


class TestComparison:
    def test_main(self, tmp_results):
        c = _comparison()
        assert len(c.rows) == 3 and c.n_agree == 1
        assert all(isinstance(r, ComparisonRow) for r in c.rows)
        path = c.save({"scale": "tiny", "seed": np.int64(0), "hidden": (128,), "alpha": np.float64(0.05)})
        assert path == tmp_results / "00_demo.json"
        data = json.loads(path.read_text())
        assert list(data) == ["chapter", "parameters", "rows"]
        assert data["chapter"] == "00_demo"
        assert data["parameters"] == {"scale": "tiny", "seed": 0, "hidden": [128], "alpha": 0.05}
        assert len(data["rows"]) == 3
        for row in data["rows"]:
            assert list(row) == ROW_KEYS
            assert isinstance(row["agrees"], bool)
            assert isinstance(row["note"], str)
        first, second, third = data["rows"]
        assert first == {"artifact": "Eq. 6", "quantity": "ECE of a perfect model", "paper": 0.0, "book": 0.004,
                         "agrees": True, "note": "finite N"}
        assert second["book"] == pytest.approx(0.25) and second["agrees"] is False
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
        c.add("x", "array", paper=np.array([1.0, 2.0]), book={"a": np.float32(0.5), 1: (np.int8(2),)}, agrees=True)
        assert c.rows[-1].paper == [1.0, 2.0]
        assert c.rows[-1].book == {"a": 0.5, "1": [2]}
        assert c.rows[1].agrees is False and type(c.rows[1].agrees) is bool
        # non-numbers are kept
        c.add("x", "claim", paper="over-confident", book=None, agrees=True)
        assert c.rows[-1].paper == "over-confident" and c.rows[-1].book is None

    def test_save_to_directory(self, tmp_path):
        c = _comparison()
        path = c.save(directory=tmp_path / "a" / "b")
        assert path == tmp_path / "a" / "b" / "00_demo.json"
        assert json.loads(path.read_text())["parameters"] == {}
        # saving again overwrites
        c.add("Extra", "q", paper=1, book=1, agrees=True)
        assert len(json.loads(c.save(directory=tmp_path / "a" / "b").read_text())["rows"]) == 4

    def test_nan_round_trip(self, tmp_path):
        c = Comparison("nan")
        c.add("Fig. 2", "not reported", paper=float("nan"), book=0.1, agrees=True)
        data = load_comparison(c.save(directory=tmp_path))
        assert math.isnan(data["rows"][0]["paper"])

    def test_html_and_str(self):
        c = _comparison()
        c.add("Eq. <3>", "p < 0.05 & more", paper=0.123456, book=1e-5, agrees=True, note='"quoted"')
        html = c._repr_html_()
        assert html.startswith('<table class="credalbook-table') and html.endswith("</tbody></table>")
        for header in ("Artifact", "Quantity", "Paper", "This book", "Agrees", "Note"):
            assert f"<th>{header}</th>" in html
        assert "<td>0.004</td>" in html and "<td>0.25</td>" in html and "<td>3</td>" in html
        assert "<td>0.1235</td>" in html and "<td>1e-05</td>" in html  # 4 significant digits
        assert "Eq. &lt;3&gt;" in html and "p &lt; 0.05 &amp; more" in html and "&quot;quoted&quot;" in html
        assert "<3>" not in html and "p < 0.05" not in html
        assert html.count("<tr>") == 1 + 4
        assert html.count("✓") == 2 and html.count("✗") == 2
        text = str(c)
        assert text.splitlines()[0] == "Eq. 6 | ECE of a perfect model | paper 0 | book 0.004 | agrees"
        assert "differs" in text.splitlines()[1]

    def test_errors(self, tmp_path):
        c = Comparison("empty")
        with pytest.raises(ValueError, match="'empty' has no rows to save"):
            c.save(directory=tmp_path)
        assert not (tmp_path / "empty.json").exists()
        for bad in (1, 0, "yes", None, 1.0, np.int64(1)):
            with pytest.raises(ValueError, match="agrees must be True or False"):
                c.add("a", "q", paper=1, book=1, agrees=bad)
        assert c.rows == []


class TestLoadComparison:
    def test_main(self, tmp_results):
        c = _comparison()
        path = c.save({"scale": "quick"})
        data = load_comparison(path)
        assert data == c.to_dict({"scale": "quick"})
        assert load_comparison(str(path)) == data
        assert [r["agrees"] for r in data["rows"]] == [True, False, False]

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
        t = Table({"model A": {"acc": 0.9, "ece": 0.0312}, "model B": {"acc": 0.8, "nll": np.float64(0.41234)}},
                  index_name="model")
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

        from credalbook.papers.report import glue
        from myst_nb.core.variables import format_plain_text

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


@pytest.mark.parametrize("chapter", sorted((Path(__file__).resolve().parents[2] / "chapters").glob("0*.ipynb")),
                         ids=lambda p: p.stem)
def test_every_chapter_has_its_comparison_section(chapter):
    """Each chapter has a "Paper vs. this book" heading, and the paper chapters build their rows with compare()."""
    nb = json.loads(chapter.read_text(encoding="utf-8"))
    markdown = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "## Paper vs. this book" in markdown
    if not chapter.stem.startswith("00_"):
        assert "compare(results" in code
