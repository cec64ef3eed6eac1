"""The package and the book cite only sources that readers have.

The team's private notes (``NOTES.md``) are not shipped; every fact taken from them must be stated
with its real source (a paper section, or the authors' public code with file and line).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Folders whose text reaches readers, and the top-level files that configure the book.
FOLDERS = ("credalbook", "chapters", "book")
FILES = ("README.md", "_config.yml", "_toc.yml")
#: Build output and vendored third-party files, not written by us.
EXCLUDED = ("book/_build", "book/executed", "book/chapters", "book/_vendor")
FORBIDDEN = ("NOTES.md", "(NOTES)")


def _reader_files() -> list[Path]:
    paths = [ROOT / name for name in FILES if (ROOT / name).is_file()]
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if not path.is_file() or any(rel == ex or rel.startswith(ex + "/") for ex in EXCLUDED):
                continue
            parts = path.relative_to(ROOT).parts
            if any(part == "__pycache__" or part.startswith(".") for part in parts):
                continue  # caches, checkpoints and hidden files are not shipped
            paths.append(path)
    return paths


def test_reader_files_found():
    names = {p.relative_to(ROOT).as_posix() for p in _reader_files()}
    assert "credalbook/__init__.py" in names
    assert any(n.startswith("chapters/") and n.endswith(".ipynb") for n in names)


@pytest.mark.parametrize("needle", FORBIDDEN)
def test_no_file_cites_private_notes(needle):
    offenders = []
    for path in _reader_files():
        text = path.read_bytes().decode("utf-8", errors="ignore")
        for lineno, line in enumerate(text.splitlines(), start=1):
            if needle in line:
                offenders.append(f"{path.relative_to(ROOT).as_posix()}:{lineno}: {line.strip()[:120]}")
    assert not offenders, (
        f"{needle!r} is private to the team; state the fact with its source "
        "(paper section, or owner/repo@commit, file and line):\n" + "\n".join(offenders)
    )
