"""The chapter pages of the site (credalbook.book.pages): readable addresses, the injected cell folded,
links between chapters, and the table of contents pointing at the pages."""

import json
import os
from pathlib import Path

import nbformat
import pytest
import yaml

from credalbook.book import pages, runner

ROOT = Path(__file__).resolve().parents[2]


def _executed(path: Path, cells) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _papermill_like(root: Path, stem: str, prose: str = "Some text.") -> Path:
    """An executed notebook as papermill leaves it: the parameters cell, then the injected one."""
    out = nbformat.v4.new_output("stream", name="stdout", text="42\n")
    return _executed(
        root / "book" / "executed" / f"{stem}.ipynb",
        [
            nbformat.v4.new_markdown_cell(f"# Title\n\n{prose}"),
            nbformat.v4.new_code_cell('scale = "quick"\nseed = 0', metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell('# Parameters\nscale = "tiny"\n', metadata={"tags": ["injected-parameters"]}),
            nbformat.v4.new_code_cell("print(42)", outputs=[out], execution_count=3),
        ],
    )


class TestPageName:
    def test_main(self):
        assert pages.page_name("01_mortier_set_calibration") == "mortier-set-calibration"
        assert pages.page_name("00b_is_my_classifier_calibrated") == "is-my-classifier-calibrated"
        assert pages.page_name("05_epistemic_uncertainty_gp") == "epistemic-uncertainty-gp"
        assert pages.page_name("guide") == "guide"
        assert pages.page_path("02_x_y", "/r") == Path("/r/book/chapters/x-y.ipynb")

    def test_every_chapter_has_its_own_page(self):
        names = [pages.page_name(nb.stem) for nb in runner.chapter_paths()]
        assert len(set(names)) == len(names)
        assert all(n and n == n.lower() and "_" not in n and not n[0].isdigit() for n in names)

    def test_errors(self):
        for bad in ("", "a/b", None, "01_"):
            with pytest.raises((ValueError, TypeError)):
                pages.page_name(bad)


class TestToc:
    def test_toc_lists_the_chapter_pages_in_order(self):
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
        files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
        chapters = [f for f in files if f.startswith("book/chapters/")]
        assert chapters == [f"book/chapters/{pages.page_name(nb.stem)}" for nb in runner.chapter_paths()]
        assert not [f for f in files if "executed" in f], "the site must not show the runner's working copies"

    def test_config_leaves_working_copies_out(self):
        config = yaml.safe_load((ROOT / "_config.yml").read_text())
        assert "book/executed" in config["exclude_patterns"]

    def test_staging_skips_built_pages(self, tmp_path):
        src = tmp_path / "src"
        (src / "book" / "chapters").mkdir(parents=True)
        (src / "book" / "chapters" / "old.ipynb").write_text("{}")
        (src / "book" / "intro.md").write_text("# Intro\n")
        for name in ("_config.yml", "_toc.yml"):
            (src / name).write_text("")
        runner.stage_book(tmp_path / "dest", source_root=src)
        assert (tmp_path / "dest" / "book" / "intro.md").exists()
        assert not (tmp_path / "dest" / "book" / "chapters").exists()


class TestPublish:
    def test_injected_cell_is_folded(self, tmp_path):
        executed = _papermill_like(tmp_path, "01_first")
        page = pages.publish_page(executed, "01_first", tmp_path)
        assert page == tmp_path / "book" / "chapters" / "first.ipynb"
        nb = json.loads(page.read_text())
        injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
        assert len(injected) == 1
        assert "hide-input" in injected[0]["metadata"]["tags"]
        assert injected[0]["metadata"]["mystnb"] == pages.INJECTED_PROMPTS
        own = [c for c in nb["cells"] if c["metadata"].get("tags") == ["parameters"]]
        assert len(own) == 1, "the chapter's own parameters cell stays as it is"

    def test_same_code_and_outputs(self, tmp_path):
        """Publishing changes how a page shows its cells, never their code or outputs; the executed copy stays."""
        executed = _papermill_like(tmp_path, "01_first")
        before = executed.read_text()
        nb = json.loads(pages.publish_page(executed, "01_first", tmp_path).read_text())
        src = json.loads(before)
        assert executed.read_text() == before
        assert [
            (c["cell_type"], c["source"] if c["cell_type"] == "code" else None, c.get("outputs")) for c in nb["cells"]
        ] == [
            (c["cell_type"], c["source"] if c["cell_type"] == "code" else None, c.get("outputs")) for c in src["cells"]
        ]

    def test_links_between_chapters(self, tmp_path):
        prose = (
            "See the [primer](00_primer.ipynb), its [notation](./00_primer.ipynb#notation), MyST's [page](00_primer), "
            "[a file](data.ipynb) and [the web](https://example.org/00_primer.ipynb)."
        )
        executed = _papermill_like(tmp_path, "01_first", prose)
        page = pages.publish_page(executed, "01_first", tmp_path, stems=["00_primer"])
        text = "".join(json.loads(page.read_text())["cells"][0]["source"])
        assert "[primer](primer.ipynb)" in text and "[notation](primer.ipynb#notation)" in text
        assert "[page](primer.ipynb)" in text
        assert "[a file](data.ipynb)" in text and "(https://example.org/00_primer.ipynb)" in text

    def test_unchanged_page_is_not_rewritten(self, tmp_path):
        executed = _papermill_like(tmp_path, "01_first")
        page = pages.publish_page(executed, "01_first", tmp_path)
        old = page.stat().st_mtime_ns - 10**9
        os.utime(page, ns=(old, old))
        pages.publish_page(executed, "01_first", tmp_path)
        assert page.stat().st_mtime_ns == old

    def test_publish_pages(self, tmp_path):
        src = tmp_path / "chapters"
        for stem in ("00_primer", "01_first", "02_second"):
            _executed(src / f"{stem}.ipynb", [nbformat.v4.new_markdown_cell("x")])
        _papermill_like(tmp_path, "01_first", "After the [primer](00_primer.ipynb).")
        out = pages.publish_pages(sorted(src.glob("*.ipynb")), tmp_path)
        assert out == [tmp_path / "book" / "chapters" / "first.ipynb"]  # only chapters that were executed
        assert "[primer](primer.ipynb)" in "".join(json.loads(out[0].read_text())["cells"][0]["source"])

    def test_errors(self, tmp_path):
        src = tmp_path / "chapters"
        for stem in ("01_same", "02_same"):
            _executed(src / f"{stem}.ipynb", [])
        with pytest.raises(ValueError, match="would both be the page 'same'"):
            pages.publish_pages(sorted(src.glob("*.ipynb")), tmp_path)


def test_runner_publishes_pages(tmp_path):
    """run_chapters executes into book/executed/ and publishes book/chapters/<name>.ipynb."""
    src = tmp_path / "chapters"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('scale = "quick"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("x = 1"),
    ]
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["credalbook"] = {"kind": "guide"}
    src.mkdir()
    nbformat.write(nb, src / "00z_a_guide.ipynb")
    root = tmp_path / "root"
    assert runner.run_chapters("tiny", book_root=root, chapters_dir=src, progress=False) == []
    assert (root / "book" / "executed" / "00z_a_guide.ipynb").is_file()
    page = json.loads((root / "book" / "chapters" / "a-guide.ipynb").read_text())
    (injected,) = [c for c in page["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert "hide-input" in injected["metadata"]["tags"] and 'scale = "tiny"' in "".join(injected["source"])
