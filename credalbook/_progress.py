"""Progress bars for long loops (tqdm), switchable off for non-interactive builds.

The chapter runner sets ``CREDALBOOK_PROGRESS=0`` so that executed pages of the book do not carry
progress-bar output (papermill shows per-cell progress on the terminal instead); JupyterLab users
get tqdm's notebook bars (ipywidgets), terminals get text bars.
"""

from __future__ import annotations

import os

from tqdm.auto import tqdm


def progress_enabled(progress: bool = True) -> bool:
    """``progress`` unless ``$CREDALBOOK_PROGRESS`` is ``0``/``false``/``no``/``off``."""
    return bool(progress) and os.environ.get("CREDALBOOK_PROGRESS", "1").strip().lower() not in {
        "0",
        "false",
        "no",
        "off",
    }


def progress_bar(iterable=None, *, progress: bool = True, **kwargs):
    """A ``tqdm`` bar over ``iterable`` that honours :func:`progress_enabled`."""
    return tqdm(iterable, disable=not progress_enabled(progress), **kwargs)
