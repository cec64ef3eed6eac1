"""The book's API reference (book/api/): every public name has its page entry, the table of
contents lists every page, and the build configuration fails on broken cross-references.
(The rendered pages are checked in tests/test_book.py, which builds the book.)"""

from pathlib import Path

import pytest
import yaml

from credalbook.book import api_pages, runner

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "book" / "api"


class TestApiPages:
    def test_every_public_name_is_documented(self):
        problems = api_pages.page_problems(API)
        assert not problems, (
            "\n".join(problems) + "\nadd the names to the page, or rewrite the pages with "
            "`python -m credalbook.book.api_pages`"
        )

    @pytest.mark.parametrize("stem", list(api_pages.PAGES))
    def test_page_covers_all(self, stem):
        """Parsed directly from the Markdown: each module's ``__all__`` under its ``currentmodule``."""
        import importlib
        import types

        documented = api_pages.documented_names((API / f"{stem}.md").read_text())
        for modname in api_pages.PAGES[stem]:
            module = importlib.import_module(modname)
            public = {n for n in module.__all__ if not isinstance(getattr(module, n), types.ModuleType)}
            assert public <= documented.get(modname, set()), f"{stem}.md lacks {sorted(public - documented[modname])}"

    def test_toc_lists_the_pages(self):
        toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
        part = next(p for p in toc["parts"] if p["caption"] == "API reference")
        index = part["chapters"][0]
        assert index["file"] == "book/api/index"
        assert [s["file"] for s in index["sections"]] == [f"book/api/{stem}" for stem in api_pages.PAGES]
        text = (API / "index.md").read_text()
        for stem in api_pages.PAGES:
            assert f"{{py:mod}}`{api_pages.TITLES.get(stem, api_pages.PAGES[stem][0])}`" in text

    def test_pages_are_staged(self, tmp_path):
        runner.stage_book(tmp_path)
        for stem in ["index", *api_pages.PAGES]:
            assert (tmp_path / "book" / "api" / f"{stem}.md").read_text() == (API / f"{stem}.md").read_text()
        assert (tmp_path / "book" / "_ext" / "credalbook_api.py").exists()

    def test_page_text_documents_everything(self, tmp_path):
        api_pages.write_pages(tmp_path, stems=["credal", "papers"])
        text = (tmp_path / "credal.md").read_text()
        assert ".. autofunction:: convex_combination" in text and ".. autoclass:: BoundaryPoint" in text
        assert ".. py:module:: credalbook.credal.geometry" in text  # :mod: links to the section resolve
        problems = [p for p in api_pages.page_problems(tmp_path) if "credal.md" in p or "papers.md" in p]
        assert problems == []

    def test_problems_name_missing_and_stale_entries(self, tmp_path):
        api_pages.write_pages(tmp_path)
        page = tmp_path / "cache.md"
        text = page.read_text().replace(".. autofunction:: clear_cache\n", ".. autofunction:: not_public\n")
        page.write_text(text)
        assert api_pages.page_problems(tmp_path) == [
            "book/api/cache.md lacks credalbook.cache.clear_cache (in credalbook.cache.__all__)",
            "book/api/cache.md documents credalbook.cache.not_public, which is not public "
            "(not in an __all__ of the page's modules)",
        ]


class TestBuildConfig:
    def test_autodoc_and_nitpicky(self):
        config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]
        assert {"sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"} <= set(
            config["extra_extensions"]
        )
        assert config["config"]["nitpicky"] is True
        assert config["config"]["mathjax_path"] == "mathjax/tex-mml-chtml.js"  # offline MathJax kept
        assert "intersphinx_mapping" not in config["config"]  # no remote inventories offline

    def test_broken_references_fail_the_build(self):
        log = [
            "reading sources... [ 50%] book/api/metrics\n",
            "/x/kernel.py:docstring of credalbook.metrics.skce_uq:3: WARNING: py:func reference target not found: "
            "credalbook.metrics.kernel_old [ref.func]\n",
            "WARNING: autodoc: failed to import function 'gone' from module 'credalbook.metrics'\n",
            "/x/book/executed/01.ipynb:5: WARNING: image file not readable: x.png\n",
            "\x1b[91m/x/a.py:docstring of f:1: WARNING: py:mod reference target not found: m\x1b[39;49;00m\n",
        ]
        assert [line.split("WARNING: ")[1][:22] for line in runner.build_problems(log)] == [
            "py:func reference targ",
            "autodoc: failed to imp",
            "py:mod reference targe",
        ]
        assert (
            runner.build_problems(log)[-1] == "/x/a.py:docstring of f:1: WARNING: py:mod reference target not found: m"
        )


class TestDocExtension:
    """book/_ext/credalbook_api.py: constants re-exported by a subpackage keep their `#:` comment."""

    @pytest.fixture
    def ext(self, monkeypatch):
        monkeypatch.syspath_prepend(str(ROOT / "book" / "_ext"))
        import credalbook_api

        return credalbook_api

    def test_source_module(self, ext):
        assert ext.source_module("credalbook.metrics", "ESTIMATORS") == "credalbook.metrics.distribution"
        assert ext.source_module("credalbook.metrics.distribution", "ESTIMATORS") == "credalbook.metrics.distribution"

    def test_doc_comment(self, ext):
        assert ext.doc_comment("credalbook.metrics", "ESTIMATORS")  # the `#:` comment in metrics/distribution.py
        assert ext.doc_comment("credalbook.metrics", "no_such_name") == []
