"""The chapter notebooks of a source checkout: where they are, and which are guides."""

from __future__ import annotations

import json
from pathlib import Path

from credalbook._paths import repo_root

__all__ = ["chapter_paths", "is_guide"]


def _source_root() -> Path:
    root = repo_root()
    if root is None:
        raise RuntimeError("the chapter runner needs a source checkout of credalbook (with chapters/ and _config.yml)")
    return root


def chapter_paths(names=None, *, chapters_dir: Path | None = None) -> list[Path]:
    """The chapter notebooks in ``chapters_dir`` (default ``<repo>/chapters``), sorted, optionally only the given stems."""
    src = Path(chapters_dir) if chapters_dir is not None else _source_root() / "chapters"
    paths = sorted(p for p in src.glob("*.ipynb") if not p.name.startswith("."))
    if names:
        wanted = {Path(n).stem for n in names}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            raise ValueError(f"unknown chapters {sorted(unknown)}; available: {[p.stem for p in paths]}")
        paths = [p for p in paths if p.stem in wanted]
    return paths


def is_guide(nb: Path) -> bool:
    """Whether a chapter is a guide (notebook metadata ``credalbook.kind == "guide"``): it reproduces no
    paper, so it writes no "Paper vs. this book" results file."""
    meta = json.loads(Path(nb).read_text()).get("metadata", {})
    return meta.get("credalbook", {}).get("kind") == "guide"
