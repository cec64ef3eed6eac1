"""Where the source checkout, the book build and the result files live."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path | None:
    """The source checkout holding this package (a folder with ``_config.yml`` and ``credalbook/``).

    None when the package is installed elsewhere (e.g. a wheel in site-packages).
    """
    here = Path(__file__).resolve().parent
    for parent in here.parents:
        if (parent / "_config.yml").is_file() and (parent / "credalbook").is_dir():
            return parent
    return None


def results_dir() -> Path:
    """Folder for the chapters' "Paper vs. this book" JSON files.

    ``$CREDALBOOK_RESULTS_DIR`` if set (the chapter runner sets it), else
    ``<repo>/book/_build/results`` in a source checkout, else ``./results``.
    """
    env = os.environ.get("CREDALBOOK_RESULTS_DIR")
    if env:
        return Path(env)
    root = repo_root()
    return root / "book" / "_build" / "results" if root is not None else Path.cwd() / "results"
