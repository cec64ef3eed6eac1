"""Shared fixtures: fixed seeds for every test, figures closed after it, and opt-in temporary cache/results folders.

Records (``credalbook.book.records``) go to a temporary folder for the whole session, so that no test writes
into the repository's committed ``results/``; a test that reads the committed records sets
``$CREDALBOOK_RECORDS_DIR`` back itself.
"""

import os
import random
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from credalbook.book.runner import OPENMP_SETTINGS

for _k, _v in OPENMP_SETTINGS.items():  # as the chapter kernels get them; before torch loads GNU OpenMP
    os.environ.setdefault(_k, _v)

import torch  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _records_elsewhere(tmp_path_factory):
    """``$CREDALBOOK_RECORDS_DIR`` in a temporary folder for the session (restored afterwards)."""
    old = os.environ.get("CREDALBOOK_RECORDS_DIR")
    os.environ["CREDALBOOK_RECORDS_DIR"] = str(tmp_path_factory.mktemp("records"))
    yield
    if old is None:
        os.environ.pop("CREDALBOOK_RECORDS_DIR", None)
    else:
        os.environ["CREDALBOOK_RECORDS_DIR"] = old


@pytest.fixture(autouse=True)
def _seed_everything():
    """Seed Python's, NumPy's and torch's global generators before each test."""
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure a test left open (only if the test imported pyplot)."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


@pytest.fixture()
def tmp_dirs(tmp_path, monkeypatch):
    """Point ``$CREDALBOOK_CACHE_DIR``, ``$CREDALBOOK_RESULTS_DIR`` and ``$CREDALBOOK_RECORDS_DIR`` at fresh folders under tmp_path."""
    dirs = SimpleNamespace(cache=tmp_path / "cache", results=tmp_path / "results", records=tmp_path / "records")
    monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(dirs.cache))
    monkeypatch.setenv("CREDALBOOK_RESULTS_DIR", str(dirs.results))
    monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(dirs.records))
    return dirs


@pytest.fixture()
def tmp_cache(tmp_dirs):
    """The temporary cache folder (``$CREDALBOOK_CACHE_DIR``); results go to a sibling folder."""
    return tmp_dirs.cache


@pytest.fixture()
def tmp_results(tmp_dirs):
    """The temporary results folder (``$CREDALBOOK_RESULTS_DIR``); the cache goes to a sibling folder."""
    return tmp_dirs.results
