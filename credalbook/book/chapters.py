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
    """The chapter notebooks in ``chapters_dir`` (default ``<repo>/chapters``), sorted, optionally only the given
    ones: a name is a stem (``02_juergens_instance_calibration``) or its number (``02``; ``00b``)."""
    src = Path(chapters_dir) if chapters_dir is not None else _source_root() / "chapters"
    paths = sorted(p for p in src.glob("*.ipynb") if not p.name.startswith("."))
    if names:
        by_name = {p.stem: p for p in paths} | {p.stem.split("_", 1)[0]: p for p in paths}
        wanted = [Path(n).stem for n in names]
        unknown = [n for n in wanted if n not in by_name]
        if unknown:
            raise ValueError(f"unknown chapters {sorted(unknown)}; available: {[p.stem for p in paths]} "
                             "(or their numbers)")
        chosen = {by_name[n] for n in wanted}
        paths = [p for p in paths if p in chosen]
    return paths


def is_guide(nb: Path) -> bool:
    """Whether a chapter is a guide (notebook metadata ``credalbook.kind == "guide"``): it reproduces no
    paper, so it writes no "Paper vs. this book" results file."""
    meta = json.loads(Path(nb).read_text()).get("metadata", {})
    return meta.get("credalbook", {}).get("kind") == "guide"
