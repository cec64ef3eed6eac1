"""The pages of the book's API reference, ``book/api/<subpackage>.md``, written from ``__all__``.

Each page documents one public subpackage: its docstring, then one section per module that
implements its names, with a summary table and every name's rendered docstring (Sphinx autodoc
through the ``{eval-rst}`` blocks; ``_config.yml`` configures autodoc and napoleon). The pages are
kept in the repository and may be edited by hand; ``tests/book/test_api_pages.py`` checks that every
name in every public ``__all__`` is on its page. After adding public names, either add them to
the page or rewrite the pages (``book/api/index.md`` is written by hand and kept)::

    python -m credalbook.book.api_pages            # rewrite book/api/<subpackage>.md
    python -m credalbook.book.api_pages --check    # list the public names missing from the pages
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import re
import sys
import types
from pathlib import Path

from credalbook._paths import repo_root

__all__ = ["PAGES", "documented_names", "page_problems", "page_text", "write_pages", "main"]

#: Page stem → the modules it documents (each with its ``__all__``), in the order of ``_toc.yml``.
PAGES = {
    "metrics": ("credalbook.metrics",),
    "stats": ("credalbook.stats",),
    "credal": ("credalbook.credal",),
    "calibration": ("credalbook.calibration",),
    "synthetic": ("credalbook.synthetic",),
    "data": ("credalbook.data",),
    "nn": ("credalbook.nn",),
    "gp": ("credalbook.gp",),
    "plotting": ("credalbook.plotting",),
    "cache": ("credalbook.cache",),
    "cli": ("credalbook.cli",),
    "papers": tuple(
        f"credalbook.papers.{p}"
        for p in (
            "mortier",
            "juergens",
            "mimori",
            "wu_gales",
            "eu",
            "primer",
            "presets",
            "criteria",
            "premises",
            "report",
            "parts",
            "plans",
        )
    ),
    "book": (
        "credalbook.book.runner",
        "credalbook.book.chapters",
        "credalbook.book.pages",
        "credalbook.book.records",
        "credalbook.book.reproduce",
        "credalbook.book.api_pages",
    ),
}
#: The package a page's title names, when it is not the page's only module.
TITLES = {"papers": "credalbook.papers", "book": "credalbook.book"}

_DIRECTIVE = re.compile(r"^\.\. (?:py:)?(currentmodule|automodule|module|auto\w+):: *(\S+)", re.M)


def documented_names(text: str) -> dict[str, set[str]]:
    """The names an API page documents, by module: ``auto*`` directives under ``currentmodule``.

    Examples
    --------
    >>> page = '''
    ... .. automodule:: credalbook.cache
    ...
    ... .. currentmodule:: credalbook.cache
    ...
    ... .. autofunction:: cached
    ... .. autoclass:: Thing
    ...    :members:
    ... '''
    >>> {module: sorted(names) for module, names in documented_names(page).items()}
    {'credalbook.cache': ['Thing', 'cached']}
    """
    found: dict[str, set[str]] = {}
    current = None
    for kind, target in _DIRECTIVE.findall(text):
        if kind in ("currentmodule", "automodule"):
            current = target
            found.setdefault(current, set())
        elif kind.startswith("auto") and current is not None:
            found[current].add(target)
    return found


def _api_dir(api_dir) -> Path:
    if api_dir is not None:
        return Path(api_dir)
    root = repo_root()
    if root is None:
        raise RuntimeError("the API pages live in a source checkout of credalbook (book/api/)")
    return root / "book" / "api"


def page_problems(api_dir=None) -> list[str]:
    """What the pages lack or have too many: one sentence per name; empty when they match ``__all__``.

    A page documents every name in the ``__all__`` of each of its modules (:data:`PAGES`), and
    each module itself (``automodule``); ``credalbook.papers`` and ``credalbook.book`` list their
    modules in ``__all__``, which are then documented as sections of their page.
    """
    api_dir = _api_dir(api_dir)
    problems = []
    for stem, modules in PAGES.items():
        page = api_dir / f"{stem}.md"
        if not page.exists():
            problems.append(f"book/api/{stem}.md is missing (python -m credalbook.book.api_pages writes it)")
            continue
        documented = documented_names(page.read_text())
        wanted = {}
        if stem in TITLES:
            wanted.update({f"{TITLES[stem]}.{n}": TITLES[stem] for n in importlib.import_module(TITLES[stem]).__all__})
        for modname in modules:
            module = importlib.import_module(modname)
            wanted[modname] = modname
            wanted.update(
                {
                    f"{modname}.{n}": modname
                    for n in module.__all__
                    if not isinstance(getattr(module, n), types.ModuleType)
                }
            )
        have = set(documented) | {f"{m}.{n}" for m, names in documented.items() for n in names}
        problems += [
            f"book/api/{stem}.md lacks {name} (in {where}.__all__)"
            for name, where in wanted.items()
            if name not in have
        ]
        problems += [
            f"book/api/{stem}.md documents {name}, which is not public (not in an __all__ of the page's modules)"
            for name in sorted(have - set(wanted) - {TITLES.get(stem)})
        ]
    return problems


def _defining_module(package: types.ModuleType, name: str) -> str:
    """The module of ``package`` that defines ``name`` (for constants: the one assigning it)."""
    obj = getattr(package, name)
    module = (
        getattr(obj, "__module__", None)
        if (inspect.isclass(obj) or inspect.isroutine(obj) or hasattr(obj, "__wrapped__"))
        else None
    )
    if module and module.startswith(package.__name__ + "."):
        return module
    if hasattr(package, "__path__"):
        for path in sorted(Path(package.__file__).parent.glob("*.py")):
            for node in ast.parse(path.read_text()).body:
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else []
                )
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    return package.__name__ if path.stem == "__init__" else f"{package.__name__}.{path.stem}"
    return package.__name__


def _directive(name: str, obj) -> list[str]:
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return [f".. autoexception:: {name}"]
        return [f".. autoclass:: {name}", "   :members:"]
    if inspect.isroutine(obj) or (callable(obj) and hasattr(obj, "__wrapped__")):
        return [f".. autofunction:: {name}"]
    # A constant: its value unless long; its description is the `#:` comment above it.
    return [f".. autodata:: {name}"] + (["   :no-value:"] if len(repr(obj)) > 60 or "\n" in repr(obj) else [])


def _module_sections(modname: str, level: str) -> list[str]:
    module = importlib.import_module(modname)
    names = [n for n in module.__all__ if not isinstance(getattr(module, n), types.ModuleType)]
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(_defining_module(module, name), []).append(name)

    def is_submodule(where):
        return where.startswith(modname + ".") and not where.rsplit(".", 1)[-1].startswith("_")

    lines = []
    for where, group in sorted(groups.items(), key=lambda item: not is_submodule(item[0])):  # "More" last
        block = ["```{eval-rst}"]
        submodule = is_submodule(where)
        if len(groups) > 1:
            lines += [f"{level} `{where}`" if submodule else f"{level} More", ""]
        if submodule and where.rsplit(".", 1)[-1] not in names:  # a target of :mod:`...` unless a name clashes
            block += [f".. py:module:: {where}", ""]
        block += [f".. currentmodule:: {modname}", "", ".. autosummary::", "   :nosignatures:", ""]
        block += [f"   {n}" for n in group] + [""]
        for name in group:
            block += _directive(name, getattr(module, name)) + [""]
        lines += block[:-1] + ["```", ""]
    return lines


def page_text(stem: str) -> str:
    """The Markdown of ``book/api/<stem>.md`` (see :data:`PAGES`)."""
    modules = PAGES[stem]
    title = TITLES.get(stem, modules[0])
    lines = [f"# `{title}`", "", "```{eval-rst}", f".. automodule:: {title}", "```", ""]
    for modname in modules:
        if modname == title:
            lines += _module_sections(modname, "##")
        else:
            lines += [f"## `{modname}`", "", "```{eval-rst}", f".. automodule:: {modname}", "```", ""]
            lines += _module_sections(modname, "###")
    return "\n".join(lines).rstrip() + "\n"


def write_pages(api_dir=None, stems=None) -> list[Path]:
    """Write the pages (all of :data:`PAGES` by default) into ``api_dir`` (default ``<repo>/book/api``)."""
    api_dir = _api_dir(api_dir)
    api_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem in stems or PAGES:
        path = api_dir / f"{stem}.md"
        path.write_text(page_text(stem))
        written.append(path)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m credalbook.book.api_pages", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only list the public names missing from the pages")
    parser.add_argument("--api-dir", type=Path, default=None, help="default: <repo>/book/api")
    args = parser.parse_args(argv)
    if args.check:
        problems = page_problems(args.api_dir)
        print("\n".join(problems) or "the API pages document every public name")
        return 1 if problems else 0
    for path in write_pages(args.api_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
