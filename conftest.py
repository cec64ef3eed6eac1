"""Doctests of ``credalbook`` run with a fresh cache and results folder each.

Examples that train and cache (``train_classifier_set``, ``topology_member_logits``, ...) then need no
set-up lines of their own, and no doctest reads from or writes to the user's cache.
"""

import pytest
from _pytest.doctest import DoctestItem


@pytest.fixture(autouse=True)
def _doctest_tmp_dirs(request, monkeypatch):
    """Point ``$CREDALBOOK_CACHE_DIR`` and ``$CREDALBOOK_RESULTS_DIR`` at a temporary folder for every doctest."""
    if isinstance(request.node, DoctestItem):
        tmp = request.getfixturevalue("tmp_path")
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp / "cache"))
        monkeypatch.setenv("CREDALBOOK_RESULTS_DIR", str(tmp / "results"))
