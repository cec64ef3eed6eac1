"""The package's shape stays as CONTRIBUTING.md ("Layers: where things live") describes it (the mechanical rules):

- a small face: ``credalbook/__init__.py`` at most 40 lines; every subpackage lists ``__all__``;
- ``import credalbook`` and ``import credalbook.metrics`` load neither gpytorch, seaborn, papermill
  nor jupyter-book; only ``credalbook.gp`` (and what builds on it) loads gpytorch;
- dependencies point down: the core never imports ``credalbook.papers`` or ``credalbook.book``,
  ``papers`` never imports ``book``; no import cycle between modules;
- no module imports another subpackage's ``_private`` names;
- no module name pytest would collect as a test (``*_test.py``, ``test_*.py``);
- the contributor guide names only files the repository has, and nothing in the repository cites a file
  that a clone does not have.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "credalbook"
SUBPACKAGES = ("metrics", "stats", "credal", "calibration", "gp", "nn", "data", "synthetic")
HEAVY = ("gpytorch", "seaborn", "papermill", "jupyter_book", "myst_nb", "sphinx")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, imported names) of every credalbook import in ``path``, made absolute."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "credalbook":
                out.append((module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names if a.name.split(".")[0] == "credalbook")
    return out


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _area(module: str) -> str:
    """``credalbook.metrics.kernel`` → ``metrics``; ``credalbook.papers.eu.x`` → ``papers``; top-level modules → their name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _resolve(module: str, names: list[str]) -> list[str]:
    """The modules an import statement loads: ``from pkg import submodule`` counts the submodule."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return subs or [module]


class TestFace:
    def test_init_is_small(self):
        assert len((PACKAGE / "__init__.py").read_text().splitlines()) <= 40

    def test_top_level_names(self):
        import credalbook

        assert sorted(credalbook.__all__) == sorted(
            ["__version__", *SUBPACKAGES, "plotting", "cache", "papers", "book"]
        )
        assert dir(credalbook) == sorted(credalbook.__all__)
        assert credalbook.metrics.__name__ == "credalbook.metrics"  # loaded on first access
        with pytest.raises(AttributeError, match="ece_confidence"):
            credalbook.ece_confidence  # noqa: B018 - methods live in the subpackages

    @pytest.mark.parametrize("sub", [*SUBPACKAGES, "papers", "book"])
    def test_subpackages_list_public_names(self, sub):
        mod = importlib.import_module(f"credalbook.{sub}")
        assert isinstance(mod.__all__, (list, tuple)) and mod.__all__
        missing = [
            n for n in mod.__all__ if not hasattr(mod, n) and importlib.util.find_spec(f"credalbook.{sub}.{n}") is None
        ]
        assert not missing, f"credalbook.{sub}.__all__ names what it does not define: {missing}"
        assert not [n for n in mod.__all__ if n.startswith("_")]

    @pytest.mark.parametrize(
        "statement, allowed",
        [
            ("import credalbook", ()),
            ("import credalbook.metrics", ()),
            ("import credalbook.stats, credalbook.calibration, credalbook.credal, credalbook.synthetic", ()),
            ("import credalbook.nn, credalbook.data, credalbook.plotting", ()),
            ("import credalbook.gp", ("gpytorch",)),
        ],
    )
    def test_no_heavy_imports(self, statement, allowed):
        code = f"import sys; {statement}; print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
        loaded = set(
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        )
        assert not (loaded & set(HEAVY)) - set(allowed), f"{statement} loads {sorted(loaded & set(HEAVY))}"

    def test_only_gp_imports_gpytorch(self):
        users = sorted(
            m
            for m, p in MODULES.items()
            if "gpytorch" in p.read_text(encoding="utf-8")
            and any(
                isinstance(n, (ast.Import, ast.ImportFrom)) and "gpytorch" in ast.dump(n)
                for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
            )
        )
        assert all(_area(m) in ("gp", "papers") for m in users), users


class TestDependencies:
    def test_core_does_not_import_papers_or_book(self):
        bad = [
            (m, t)
            for m, p in MODULES.items()
            if _area(m) not in ("papers", "book")
            for t, _ in _imports(p)
            if _area(t) in ("papers", "book")
        ]
        assert not bad

    def test_papers_do_not_import_book(self):
        bad = [(m, t) for m, p in MODULES.items() if _area(m) == "papers" for t, _ in _imports(p) if _area(t) == "book"]
        assert not bad

    def test_no_private_names_across_subpackages(self):
        bad = [
            (m, t, n)
            for m, p in MODULES.items()
            for t, names in _imports(p)
            for n in names
            if n.startswith("_") and not n.startswith("__") and _area(t) != _area(m)
        ]
        assert not bad, "\n".join(f"{m} imports {t}.{n}" for m, t, n in bad)

    def test_no_import_cycles(self):
        graph = {
            m: {t for mod, names in _imports(p) for t in _resolve(mod, names) if t in MODULES and t != m}
            for m, p in MODULES.items()
        }
        # a package's __init__ re-exporting its modules is not a dependency of those modules on it
        state, cycles = {}, []

        def visit(node, stack):
            state[node] = "open"
            stack.append(node)
            for nxt in graph[node]:
                if state.get(nxt) == "open" and not node.startswith(nxt + ".") and nxt != "credalbook":
                    cycles.append(stack[stack.index(nxt) :] + [nxt])
                elif nxt not in state:
                    visit(nxt, stack)
            stack.pop()
            state[node] = "done"

        for m in graph:
            if m not in state:
                visit(m, [])
        assert not cycles, "\n".join(" -> ".join(c) for c in cycles)

    def test_subpackage_graph_is_acyclic(self):
        """Subpackages depend on each other in one direction only (e.g. stats on metrics, never back)."""
        edges = {
            (_area(m), _area(t))
            for m, p in MODULES.items()
            for mod, names in _imports(p)
            for t in _resolve(mod, names)
            if _area(t) and _area(m) and _area(t) != _area(m)
        }
        both = sorted({tuple(sorted(e)) for e in edges if (e[1], e[0]) in edges})
        assert not both, f"subpackages importing each other: {both}"


def test_no_module_looks_like_a_test():
    bad = [p.name for p in PACKAGE.rglob("*.py") if p.name.endswith("_test.py") or p.name.startswith("test_")]
    assert not bad


def test_tests_mirror_the_package():
    """tests/<sub>/test_<module>[_<topic>].py sits beside a module credalbook/<sub>/<module>.py."""
    tests = PACKAGE.parent / "tests"
    stray = []
    for path in tests.rglob("test_*.py"):
        rel = path.relative_to(tests)
        if len(rel.parts) == 1 or rel.as_posix() == "book/test_book.py":
            continue  # whole-package checks (layout, packaging, ...) and the chapters' end-to-end run
        folder = PACKAGE.joinpath(*rel.parts[:-1])
        stem = rel.stem[len("test_") :]
        modules = {p.stem for p in folder.glob("*.py")} if folder.is_dir() else set()
        if not any(stem == m or stem.startswith(m + "_") for m in modules):
            stray.append(str(rel))
    assert not stray, f"test files with no module of that name beside them in credalbook/: {stray}"


ROOT = PACKAGE.parent
#: Paths a clone does not have: files outside the repository (a team's notes, a local copy of a paper).
OUTSIDE = ("/work/", "../shared", "architecture" + ".md", "conventions" + ".md")
#: What CONTRIBUTING.md names that is made by a build or a run, not kept in git.
MADE = ("book/_build", "book/executed", "book/chapters/", "results/benchmark/", ".cache", ".venv")


def _tracked_text_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        pytest.skip("not a git checkout")
    paths = [ROOT / p for p in out.stdout.splitlines()]
    return [p for p in paths if p.is_file() and p.suffix not in (".png", ".pdf", ".gz", ".npz", ".npy", ".pt")]


class TestGuide:
    def test_contributing_names_existing_paths(self):
        """Every repository path CONTRIBUTING.md names in backticks exists (templates like ``<chapter>`` aside)."""
        text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
        named = set()
        for span in re.findall(r"`([^`\n]+)`", text):
            for word in span.split():
                word = word.strip("(),;:'\"")
                if ("/" in word or re.search(r"\.(py|md|sh|yml|toml|cff)$", word)) and not word.startswith(("-", "$")):
                    named.add(word)
        missing = sorted(
            w
            for w in named
            if not any(c in w for c in "<>*[]{}=")
            and not w.startswith(MADE)
            and "://" not in w
            and not (ROOT / w).exists()
            and not (PACKAGE.parent / "credalbook" / w).exists()
        )
        assert not missing, f"CONTRIBUTING.md names paths this repository does not have: {missing}"

    def test_contributing_has_the_vocabulary_table(self):
        text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
        rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
        words = {m for line in rows for m in re.findall(r"`([a-z_]+)`", line.split("|")[2])}
        assert {
            "n_resamples",
            "n_bins",
            "ci",
            "seed",
            "alpha",
            "probs",
            "labels",
            "label_hist",
            "n_jobs",
            "pvalue",
            "null",
            "measure",
            "estimator",
            "edges",
            "cuts",
        } <= words

    def test_changelog_lists_every_renamed_keyword(self):
        """Every keyword renamed with ``credalbook._deprecation.renamed`` has a row in book/changelog.md's table
        (``| `old` | `new` | ... name ... |``); the failure message gives the missing rows."""
        import pkgutil
        import warnings

        import credalbook
        from credalbook import _deprecation

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for info in pkgutil.walk_packages(credalbook.__path__, prefix="credalbook."):
                if not info.name.startswith("credalbook.book"):
                    importlib.import_module(info.name)
        rows = [
            line
            for line in (ROOT / "book" / "changelog.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")
        ]
        missing = []
        for key, renames in sorted(_deprecation.RENAMED.items()):
            module, qualname = key.split(":")
            name = qualname.replace(".__init__", "").rsplit(".", 1)[-1]
            for old, new in renames.items():
                if not any(
                    line.startswith(f"| `{old}` | `{new}` |") and re.search(rf"\b{re.escape(name)}\b", line)
                    for line in rows
                ):
                    missing.append(f"| `{old}` | `{new}` | `{module}.{qualname.replace('.__init__', '')}` |")
        assert not missing, "book/changelog.md's table of renames lacks:\n" + "\n".join(missing)

    def test_nothing_cites_files_a_clone_lacks(self):
        me = Path(__file__).resolve()
        offenders = []
        for path in _tracked_text_files():
            if path.resolve() == me:
                continue
            text = path.read_bytes().decode("utf-8", errors="ignore")
            for lineno, line in enumerate(text.splitlines(), start=1):
                if any(needle in line for needle in OUTSIDE):
                    offenders.append(f"{path.relative_to(ROOT).as_posix()}:{lineno}: {line.strip()[:120]}")
        assert not offenders, "cite what a reader has (a paper, public code), not a local file:\n" + "\n".join(
            offenders
        )
