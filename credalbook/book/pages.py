"""The chapter pages of the site: executed chapters published under stable, readable addresses.

The runner executes a chapter into ``book/executed/<stem>.ipynb`` (its working copy: records read its
figures and outputs from there). What readers see and cite is a page of its own,
``book/chapters/<name>.ipynb``, rendered as ``book/chapters/<name>.html``: ``<name>`` is the chapter's
stem without its number, with hyphens (``01_mortier_set_calibration`` → ``mortier-set-calibration``),
so that the address changes neither with the build pipeline nor when chapters are renumbered.
``_toc.yml`` lists these pages.

Publishing changes only how the page shows what was computed, never a value:

- papermill's injected cell (tag ``injected-parameters``: the values this build ran with, e.g.
  ``scale = "quick"``) would stand as a second parameters cell beside the chapter's own; it is folded
  (``hide-input``) behind a prompt that says what it holds;
- links between chapters (``[primer](00_calibration_primer.ipynb)`` in a chapter's prose) point at the
  other chapters' pages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["PAGES_DIR", "INJECTED_PROMPTS", "page_name", "page_path", "publish_page", "publish_pages"]

#: Folder of the chapter pages, relative to the book's root (``_toc.yml`` lists ``book/chapters/<name>``).
PAGES_DIR = Path("book") / "chapters"
#: myst-nb's prompts of the folded injected-parameters cell (cell metadata ``mystnb``).
INJECTED_PROMPTS = {"code_prompt_show": "Parameters of this run", "code_prompt_hide": "Hide the parameters of this run"}
_NUMBER = re.compile(r"^[0-9]+[a-z]?_")


def page_name(stem: str) -> str:
    """The page name of chapter ``stem``: without its leading number, ``_`` as ``-``.

    Examples
    --------
    >>> page_name("01_mortier_set_calibration"), page_name("00b_is_my_classifier_calibrated")
    ('mortier-set-calibration', 'is-my-classifier-calibrated')
    >>> page_name("guide")
    'guide'
    """
    if not isinstance(stem, str) or not stem or "/" in stem:
        raise ValueError(f"stem must be a chapter's file stem; got {stem!r}")
    name = _NUMBER.sub("", stem).replace("_", "-")
    if not name:
        raise ValueError(f"chapter {stem!r} has no name after its number")
    return name


def page_path(stem: str, book_root) -> Path:
    """``<book_root>/book/chapters/<name>.ipynb``, the published page of chapter ``stem``."""
    return Path(book_root) / PAGES_DIR / f"{page_name(stem)}.ipynb"


def _link_pattern(stems) -> re.Pattern | None:
    stems = sorted(stems, key=len, reverse=True)
    if not stems:
        return None
    # a relative Markdown link target "(<stem>.ipynb)", "(./<stem>.ipynb)" or MyST's "(<stem>)" for a document,
    # optionally with an anchor
    return re.compile(r"\((\./)?(" + "|".join(map(re.escape, stems)) + r")(?:\.ipynb)?(#[^)\s]*)?\)")


def _page(nb: dict, stems) -> dict:
    """The page of an executed notebook ``nb`` (a new dict; ``nb`` is left as it is)."""
    page = json.loads(json.dumps(nb))
    pattern = _link_pattern(stems)
    for cell in page.get("cells", []):
        meta = cell.setdefault("metadata", {})
        tags = meta.get("tags", [])
        if cell.get("cell_type") == "code" and "injected-parameters" in tags:
            if "hide-input" not in tags:
                meta["tags"] = [*tags, "hide-input"]
            meta["mystnb"] = {**meta.get("mystnb", {}), **INJECTED_PROMPTS}
        elif cell.get("cell_type") == "markdown" and pattern is not None:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            new = pattern.sub(lambda m: f"({page_name(m.group(2))}.ipynb{m.group(3) or ''})", source)
            if new != source:
                cell["source"] = new.splitlines(keepends=True)
    return page


def publish_page(executed, stem: str, book_root, *, stems=()) -> Path:
    """Write the page of chapter ``stem`` from its executed notebook ``executed``; return its path.

    ``stems`` are the stems of the chapters whose links are rewritten to their pages (``stem`` is always
    among them). The page is written only when its text changes, so that an unchanged chapter is not read
    again by an incremental Sphinx build.
    """
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    text = json.dumps(_page(nb, {stem, *stems}), indent=1, ensure_ascii=False) + "\n"
    out = page_path(stem, book_root)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return out


def publish_pages(notebooks, book_root) -> list:
    """Publish the page of every chapter of ``notebooks`` (source paths) that has an executed copy in
    ``<book_root>/book/executed/``; return the pages' paths. Links to any chapter beside them (in the
    same source folder) point at its page.

    Raises
    ------
    ValueError
        When two chapters would have the same page name.
    """
    notebooks = [Path(nb) for nb in notebooks]
    stems = sorted({p.stem for nb in notebooks for p in nb.parent.glob("*.ipynb") if not p.name.startswith(".")})
    names = {}
    for stem in stems:
        other = names.setdefault(page_name(stem), stem)
        if other != stem:
            raise ValueError(f"chapters {other} and {stem} would both be the page {page_name(stem)!r}")
    executed = Path(book_root) / "book" / "executed"
    return [
        publish_page(executed / nb.name, nb.stem, book_root, stems=stems)
        for nb in notebooks
        if (executed / nb.name).is_file()
    ]
