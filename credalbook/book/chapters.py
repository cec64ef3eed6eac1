"""The chapter notebooks of a source checkout: where they are, and which are guides."""

from __future__ import annotations

import json
from pathlib import Path

from credalbook._paths import repo_root

__all__ = ["chapter_paths", "is_guide", "chapter_seconds", "chapter_reuses"]


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
            raise ValueError(
                f"unknown chapters {sorted(unknown)}; available: {[p.stem for p in paths]} (or their numbers)"
            )
        chosen = {by_name[n] for n in wanted}
        paths = [p for p in paths if p in chosen]
    return paths


def _meta(nb: Path) -> dict:
    """The notebook's ``credalbook`` metadata (``{}`` without it)."""
    meta = json.loads(Path(nb).read_text()).get("metadata", {}).get("credalbook", {})
    if not isinstance(meta, dict):
        raise ValueError(f"{nb}: metadata 'credalbook' must be a mapping; got {type(meta).__name__}")
    return meta


def is_guide(nb: Path) -> bool:
    """Whether a chapter is a guide (notebook metadata ``credalbook.kind == "guide"``): it reproduces no
    paper, so it writes no "Paper vs. this book" results file."""
    return _meta(nb).get("kind") == "guide"


def chapter_seconds(nb: Path, scale) -> float:
    """The notebook's estimate of its wall time at ``scale`` (metadata ``credalbook.seconds``, e.g.
    ``{"quick": 380}``; 0 without one).

    Only the order in which ``build --jobs N`` starts chapters uses it, and only where this checkout holds no
    record of the chapter at that scale (the records of ``quick`` and ``tiny`` runs are not committed, so a fresh
    clone has none): the figures are one core's wall times of a quick build on a 2-core machine, to be updated
    when a chapter's cost changes much. A wrong figure costs time, never a result.
    """
    value = _meta(nb).get("seconds", {}).get(scale, 0) if scale else 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"{nb}: metadata credalbook.seconds.{scale} must be a non-negative number; got {value!r}")
    return float(value)


def chapter_reuses(nb: Path) -> set:
    """The chapters whose cached computations chapter ``nb`` reuses (metadata ``credalbook.reuses``, a list
    of stems): run side by side, both would compute them; ``build --jobs N`` starts ``nb`` after them."""
    value = _meta(nb).get("reuses", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{nb}: metadata credalbook.reuses must be a list of chapter stems; got {value!r}")
    return set(value)
