"""End to end: every chapter executes at tiny scale on real data, the book builds, and the built
site renders (navigation, figures, typeset math) in headless Chromium with no network."""

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from credalbook.book import api_pages, pages, runner
from credalbook.papers.criteria import VERDICTS
from credalbook.papers.report import ComparisonRow

ROW_FIELDS = [f.name for f in fields(ComparisonRow)]
RESULTS = Path(__file__).resolve().parents[2] / "results"

pytestmark = pytest.mark.slow

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--virtual-time-budget=5000",
]


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    """Stage the book, execute every chapter at tiny scale with a fresh cache, build the HTML."""
    root = tmp_path_factory.mktemp("book")
    mp = pytest.MonkeyPatch()
    mp.setenv("CREDALBOOK_CACHE_DIR", str(root / "cache"))
    # the committed records (the pages show the paper-scale ones beside the run), copied: the tiny run adds its own
    shutil.copytree(RESULTS, root / "results", ignore=shutil.ignore_patterns("tiny", "quick"))
    mp.setenv("CREDALBOOK_RECORDS_DIR", str(root / "results"))
    runner.stage_book(root)
    start = time.perf_counter()
    # two chapters side by side, as `bash scripts/build_book.sh` runs them (--jobs 2): on two cores 277 s instead
    # of 548 s for the chapters (same machine, one after the other), the numbers the same (each chapter seeds its own)
    jobs = min(2, os.cpu_count() or 1)
    failures = runner.run_chapters("tiny", book_root=root, progress=False, jobs=jobs)
    assert not failures, "\n".join(map(str, failures))
    first = time.perf_counter() - start
    html = runner.build_book(book_root=root)
    yield {"root": root, "html": html, "first_run_seconds": first}
    mp.undo()


def _chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.fail(
            "headless Chromium is needed for the site check: run `bash scripts/setup.sh` (installs Debian's chromium)"
        )
    return exe


def _browse(page: Path, tmp_path: Path, *, screenshot: Path | None = None) -> str:
    """Load ``page`` in headless Chromium; return the DOM after scripts ran (optionally screenshot it)."""
    exe = _chromium()
    base = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1600"]
    if screenshot is not None:
        subprocess.run(
            [*base, f"--screenshot={screenshot}", page.as_uri()], capture_output=True, timeout=120, check=True
        )
    dom = subprocess.run([*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True)
    return dom.stdout


GLUE_TEXT = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")


def glue_problems(executed: dict) -> list[str]:
    """The ``{glue:text}`key:fmt``` references of a chapter's prose that will not render.

    myst-nb drops such a reference from the page with only a build warning, leaving a hole in a
    sentence: when the key was never glued, or when its stored ``text/plain`` does not format
    with the spec (a NumPy scalar is stored as ``np.float64(...)``, which ``.2f`` cannot format).
    The check uses myst-nb's own formatter.
    """
    from myst_nb.core.variables import format_plain_text

    glued = {
        o["metadata"]["scrapbook"]["name"]: o["data"]
        for c in executed["cells"]
        for o in c.get("outputs", [])
        if "scrapbook" in o.get("metadata", {})
    }
    problems = []
    for cell in executed["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for key, fmt in GLUE_TEXT.findall("".join(cell["source"])):
            if key not in glued:
                problems.append(f"{key}: never glued")
                continue
            text = glued[key].get("application/papermill.record/text/plain", glued[key].get("text/plain"))
            try:
                format_plain_text(text, fmt)
            except (TypeError, ValueError) as exc:
                problems.append(f"{key}:{fmt} cannot format {text!r} ({exc})")
    return problems


def _ink(png: Path) -> tuple[float, float]:
    """Fraction of non-white pixels and the grey-level standard deviation of a screenshot."""
    grey = np.asarray(Image.open(png).convert("L"), dtype=float)
    return float((grey < 235).mean()), float(grey.std())


class TestChapters:
    def test_results_files(self, tiny_book):
        results = tiny_book["root"] / "book" / "_build" / "results"
        for nb in runner.chapter_paths():
            if runner.is_guide(nb):  # a guide reproduces no paper and writes no comparison
                assert not (results / f"{nb.stem}.json").exists(), nb.stem
                continue
            data = json.loads((results / f"{nb.stem}.json").read_text())
            assert data["chapter"] == nb.stem
            assert data["parameters"]["scale"] == "tiny"
            assert data["rows"], f"{nb.stem} reports no 'Paper vs. this book' rows"
            assert data["counts"] == {v: sum(r["verdict"] == v for r in data["rows"]) for v in VERDICTS}
            for row in data["rows"]:
                assert set(row) == set(ROW_FIELDS), nb.stem
                where = f"{nb.stem}: {row['artifact']} / {row['quantity']}"
                assert row["verdict"] in VERDICTS, where
                assert row["criterion"].strip(), f"{where} states no criterion"
                if row["verdict"] in ("differs — cause shown", "not run here"):
                    assert row["cause"].strip(), f"{where} names no cause"

    def test_executed_outputs(self, tiny_book):
        for nb in runner.chapter_paths():
            executed = json.loads((tiny_book["root"] / "book" / "executed" / nb.name).read_text())
            outputs = [o for c in executed["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
            assert not [o for o in outputs if o["output_type"] == "error"]
            assert any("image/png" in o.get("data", {}) for o in outputs), f"{nb.stem} shows no figure"
            tags = [c["metadata"].get("tags", []) for c in executed["cells"]]
            assert ["injected-parameters"] in tags, "papermill did not inject the scale"
            # The page shows the same code and outputs (credalbook.book.pages only folds and relinks).
            page = json.loads(pages.page_path(nb.stem, tiny_book["root"]).read_text())
            assert [(c["cell_type"], c.get("outputs")) for c in page["cells"]] == [
                (c["cell_type"], c.get("outputs")) for c in executed["cells"]
            ]
            # Sources stay unexecuted.
            src = json.loads(nb.read_text())
            assert all(not c.get("outputs") for c in src["cells"] if c["cell_type"] == "code")

    def test_glued_text_renders(self, tiny_book):
        for nb in runner.chapter_paths():
            executed = json.loads((tiny_book["root"] / "book" / "executed" / nb.name).read_text())
            problems = glue_problems(executed)
            assert not problems, f"{nb.stem}: " + "; ".join(problems)

    def test_rerun_is_cached(self, tiny_book, capsys):
        start = time.perf_counter()
        assert runner.run_chapters("tiny", book_root=tiny_book["root"], progress=False) == []
        assert "up to date" in capsys.readouterr().out
        assert time.perf_counter() - start < 5.0

    def test_results_of_another_run_are_not_reused(self, tiny_book, tmp_path):
        results = tiny_book["root"] / "book" / "_build" / "results"
        for nb in runner.chapter_paths():
            if runner.is_guide(nb):  # writes no results file (test_results_files)
                continue
            path = results / f"{nb.stem}.json"
            assert runner._results_match(path, {"scale": "tiny"})
            assert not runner._results_match(path, {"scale": "quick"})
            assert not runner._results_match(path, {"scale": "tiny", "seed": 12345})
        assert not runner._results_match(tmp_path / "missing.json", {"scale": "tiny"})


class TestSite:
    def test_pages_exist_and_are_offline(self, tiny_book):
        html = tiny_book["html"]
        assert (html / "index.html").exists() and (html / "book" / "intro.html").exists()
        # chapters at their readable addresses; the runner's working copies are not part of the site
        for nb in runner.chapter_paths():
            assert (html / "book" / "chapters" / f"{pages.page_name(nb.stem)}.html").exists(), nb.stem
        assert not (html / "book" / "executed").exists()
        assert (html / "_static" / "mathjax" / "tex-mml-chtml.js").exists()
        for page in html.rglob("*.html"):
            text = page.read_text(errors="ignore")
            assert "cdn.jsdelivr.net" not in text and "mathjax@3" not in text, f"{page} loads MathJax from a CDN"

    def test_index_renders(self, tiny_book, tmp_path):
        png = tmp_path / "index.png"
        dom = _browse(tiny_book["html"] / "index.html", tmp_path, screenshot=png)
        ink, std = _ink(png)
        assert ink > 0.03 and std > 20, f"index screenshot looks blank (ink {ink:.3f}, std {std:.1f})"
        assert "A calibration primer" in dom  # navigation lists the chapters
        assert "mjx-container" in dom, "MathJax did not typeset the landing page"

    def test_chapter_renders_math_and_figures(self, tiny_book, tmp_path):
        page = tiny_book["html"] / "book" / "chapters" / "calibration-primer.html"
        png = tmp_path / "chapter.png"
        dom = _browse(page, tmp_path, screenshot=png)
        ink, std = _ink(png)
        assert ink > 0.03 and std > 20, f"chapter screenshot looks blank (ink {ink:.3f}, std {std:.1f})"
        assert dom.count("mjx-container") > 20, "math was not typeset"
        assert "Paper vs. this book" in dom
        assert dom.count("<img") >= 2  # reliability diagrams and the Type I error figure

    def test_injected_parameters_folded_and_chapters_linked(self, tiny_book):
        """papermill's injected cell is folded behind its prompt; links between chapters reach their pages."""
        chapters = tiny_book["html"] / "book" / "chapters"
        for nb in runner.chapter_paths():
            text = (chapters / f"{pages.page_name(nb.stem)}.html").read_text()
            assert "<details" in text and pages.INJECTED_PROMPTS["code_prompt_show"] in text, nb.stem
        assert 'href="calibration-primer.html' in (chapters / "mortier-set-calibration.html").read_text()
        assert 'href="mortier-set-calibration.html' in (chapters / "juergens-instance-calibration.html").read_text()

    def test_paper_scale_records_with_provenance(self, tiny_book, tmp_path):
        """Every chapter page shows its paper-scale record beside the run, with provenance, or says it is missing."""
        from credalbook.book import records

        for nb in runner.chapter_paths():
            if runner.is_guide(nb):
                continue
            dom = _browse(tiny_book["html"] / "book" / "chapters" / f"{pages.page_name(nb.stem)}.html", tmp_path)
            assert "paper scale (record)" in dom and "credalbook-provenance" in dom, nb.stem
            rec = records.read_chapter_record(nb.stem, "paper", root=RESULTS)
            if rec is None:
                assert "No paper-scale record yet" in dom, nb.stem
                continue
            assert f"commit {rec['manifest']['commit'][:7]}" in dom, nb.stem
            state = records.chapter_state(nb.stem, "paper", notebook=nb, root=RESULTS)
            assert ("STALE" in dom) == (state.state == "stale"), (nb.stem, state.reasons)
            assert "Paper-scale record: " in dom and " agree" in dom, nb.stem


def _object_html(page_html: str, object_id: str) -> str:
    """The HTML of one documented object's description, up to the next object's."""
    start = page_html.index(f'id="{object_id}"')
    end = page_html.find('<dl class="py ', start)
    return page_html[start : end if end > 0 else None]


class TestApiReference:
    """The API reference part (book/api/): autodoc pages, rendered docstrings and math."""

    def test_pages_exist(self, tiny_book):
        api = tiny_book["html"] / "book" / "api"
        for stem in ["index", *api_pages.PAGES]:
            assert (api / f"{stem}.html").exists(), f"book/api/{stem}.html was not built"
        index = (api / "index.html").read_text()
        assert 'href="metrics.html' in index and 'href="papers.html' in index  # {py:mod} links resolve

    def test_docstrings_and_math_render(self, tiny_book, tmp_path):
        api = tiny_book["html"] / "book" / "api"
        ece = _object_html((api / "metrics.html").read_text(), "credalbook.metrics.ece_confidence")
        assert "Confidence (top-label) expected calibration error" in ece
        assert r"\mathrm{ECE}_{conf}" in ece and 'class="math' in ece  # the .. math:: block
        assert "Parameters" in ece and "n_bins" in ece and "Examples" in ece
        test = _object_html((api / "stats.html").read_text(), "credalbook.stats.set_calibration_test")
        assert "Test whether a set of classifiers contains a calibrated convex combination" in test
        assert r"\exists \boldsymbol\lambda" in test
        assert 'href="#credalbook.stats.as_measure"' in test  # :func:`~credalbook.stats.as_measure`
        dom = _browse(api / "metrics.html", tmp_path)
        assert dom.count("mjx-container") > 20, "MathJax did not typeset the API page"

    def test_every_public_name_is_on_its_page(self, tiny_book):
        api = tiny_book["html"] / "book" / "api"
        import importlib
        import types

        for stem, modules in api_pages.PAGES.items():
            page = (api / f"{stem}.html").read_text()
            for modname in modules:
                module = importlib.import_module(modname)
                missing = [
                    n
                    for n in module.__all__
                    if not isinstance(getattr(module, n), types.ModuleType) and f'id="{modname}.{n}"' not in page
                ]
                assert not missing, f"{stem}.html does not document {modname}: {missing}"


def test_broken_reference_fails_the_build(tmp_path):
    """A docstring reference to a name that does not exist fails ``build_book`` (and the next build)."""
    runner.stage_book(tmp_path)
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/api/broken\n")
    (tmp_path / "book" / "api" / "broken.md").write_text(
        "# Broken\n\n```{eval-rst}\n.. currentmodule:: credalbook.metrics\n\n.. autofunction:: ece_confidence\n\n"
        "See :func:`credalbook.metrics.no_such_function`.\n```\n"
    )
    for _ in range(2):  # the failure removes Sphinx's cache, so the unchanged page is read again
        with pytest.raises(RuntimeError, match="reference target not found: credalbook.metrics.no_such_function"):
            runner.build_book(book_root=tmp_path)


def test_eu_chapter_n_seeds(tmp_path, monkeypatch):
    """The EU chapter's `n_seeds` parameter overrides the scale's seed count and is validated."""
    monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "cache"))
    chapter = "05_epistemic_uncertainty_gp"
    failures = runner.run_chapters(
        "tiny", book_root=tmp_path / "one", chapters=[chapter], extra_parameters={"n_seeds": 1}, progress=False
    )
    assert not failures, "\n".join(map(str, failures))
    result = json.loads((tmp_path / "one" / "book" / "_build" / "results" / f"{chapter}.json").read_text())
    assert result["parameters"]["n_seeds"] == 1
    table1 = [r for r in result["rows"] if r["artifact"] == "Table 1" and r["quantity"].startswith("ρ_epi")]
    assert table1 and all(r["note"].startswith("1 seed ") for r in table1)  # tiny scale has two seeds
    assert all(r["verdict"] == "inconclusive" for r in table1)  # one seed: no standard error, no verdict
    failures = runner.run_chapters(
        "tiny", book_root=tmp_path / "zero", chapters=[chapter], extra_parameters={"n_seeds": 0}, progress=False
    )
    assert len(failures) == 1 and "n_seeds must be a positive integer or None; got 0" in failures[0].error
