"""Tests for credalbook.cache."""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

import credalbook
from credalbook import cache as cache_mod
from credalbook.cache import cache_dir, cached, clear_cache, memory

CALLS = {"n": 0}


@dataclass(frozen=True)
class Summary:
    mean: float
    values: np.ndarray


def _expensive(n, *, scale=1.0, progress=False):
    CALLS["n"] += 1
    return Summary(mean=scale * (n - 1) / 2, values=scale * np.arange(n, dtype=float))


def _takes_model(model, n=1):
    return n


@pytest.fixture()
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "store"))
    CALLS["n"] = 0
    return tmp_path / "store"


class TestCacheDir:
    def test_main(self, tmp_cache):
        assert cache_dir() == tmp_cache

    def test_default(self, monkeypatch):
        monkeypatch.delenv("CREDALBOOK_CACHE_DIR", raising=False)
        root = Path(cache_mod.__file__).resolve().parent.parent
        if (root / "_config.yml").is_file():
            assert cache_dir() == root / ".cache" / "credalbook"
        else:
            assert cache_dir() == Path.home() / ".cache" / "credalbook"
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", "")  # empty counts as unset
        assert cache_dir() in {root / ".cache" / "credalbook", Path.home() / ".cache" / "credalbook"}

    def test_source_checkout_detection(self, tmp_path, monkeypatch):
        import credalbook._paths as paths_mod

        monkeypatch.delenv("CREDALBOOK_CACHE_DIR", raising=False)
        fake_pkg = tmp_path / "repo" / "credalbook"
        fake_pkg.mkdir(parents=True)
        monkeypatch.setattr(paths_mod, "__file__", str(fake_pkg / "_paths.py"))
        assert paths_mod.repo_root() is None
        assert cache_dir() == Path.home() / ".cache" / "credalbook"
        (tmp_path / "repo" / "_config.yml").write_text("title: x\n")
        assert paths_mod.repo_root() == tmp_path / "repo"
        assert cache_dir() == tmp_path / "repo" / ".cache" / "credalbook"


class TestMemory:
    def test_main(self, tmp_cache):
        assert Path(memory().location) == tmp_cache / f"v{credalbook.__version__}"
        assert Path(memory(version="7").location) == tmp_cache / "v7"

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="version"):
            memory(version="../x")
        with pytest.raises(ValueError, match="version"):
            memory(version="")


class TestCached:
    def test_main(self, tmp_cache, monkeypatch):
        f = cached(_expensive)
        a = f(5, scale=2.0)
        b = f(5, scale=2.0)
        assert CALLS["n"] == 1  # second call loaded from disk
        assert a.mean == b.mean == 4.0
        np.testing.assert_array_equal(a.values, b.values)
        f(6, scale=2.0)
        assert CALLS["n"] == 2  # new arguments
        f(5, scale=3.0)
        assert CALLS["n"] == 3
        f(5, scale=2.0)
        assert CALLS["n"] == 3
        monkeypatch.setattr(credalbook, "__version__", "99.0")
        c = f(5, scale=2.0)
        assert CALLS["n"] == 4  # new package version: recomputed
        np.testing.assert_array_equal(c.values, a.values)
        assert (tmp_cache / "v99.0").is_dir()

    def test_decorator_forms(self, tmp_cache):
        g = cached(ignore=["progress"])(_expensive)
        g(3, progress=False)
        g(3, progress=True)  # ignored argument: same key
        assert CALLS["n"] == 1
        h = cached(version="fixed")(_expensive)
        h(3)
        assert CALLS["n"] == 2 and (tmp_cache / "vfixed").is_dir()
        assert g.__name__ == "_expensive" and g.__wrapped__ is _expensive

    def test_env_redirect(self, tmp_path, monkeypatch):
        CALLS["n"] = 0
        f = cached(_expensive)
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "one"))
        f(4)
        f(4)
        assert CALLS["n"] == 1
        assert any((tmp_path / "one").rglob("output.pkl"))
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "two"))
        f(4)
        assert CALLS["n"] == 2  # a fresh location has no results
        assert any((tmp_path / "two").rglob("output.pkl"))

    def test_clear(self, tmp_cache):
        f = cached(_expensive)
        f(2)
        f.clear()
        f(2)
        assert CALLS["n"] == 2
        clear_cache()
        f(2)
        assert CALLS["n"] == 3

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="func"):
            cached(3)
        with pytest.raises(ValueError, match="ignore"):
            cached(_expensive, ignore="progress")
        with pytest.raises(ValueError, match="model is a torch.nn.Module"):
            cached(_takes_model)(torch.nn.Linear(2, 2))
        with pytest.raises(ValueError, match="model is a torch.nn.Module"):
            cached(_takes_model)([torch.nn.Linear(2, 2)], n=2)


class TestClearCache:
    def test_main(self, tmp_cache):
        f = cached(_expensive)
        f(2)
        cached(version="old")(_expensive)(2)
        (tmp_cache / "notes.txt").write_text("keep me")
        clear_cache(version="old")
        assert not (tmp_cache / "vold").exists()
        assert (tmp_cache / f"v{credalbook.__version__}").exists()
        clear_cache()
        assert sorted(p.name for p in tmp_cache.iterdir()) == ["notes.txt"]
        clear_cache()  # idempotent

    def test_missing_dir(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "absent"))
        clear_cache()
        assert not (tmp_path / "absent").exists()


class TestCheckpointPath:
    def test_keyed_by_arguments_and_cleared(self, tmp_cache):
        a = cache_mod.checkpoint_path("net", {"seed": 0, "lr": 1e-3})
        assert a == cache_mod.checkpoint_path("net", {"lr": 1e-3, "seed": 0})  # order does not matter
        assert a != cache_mod.checkpoint_path("net", {"seed": 1, "lr": 1e-3})
        assert a.parent == tmp_cache / f"v{credalbook.__version__}" / "checkpoints"
        a.parent.mkdir(parents=True)
        a.write_bytes(b"x")
        clear_cache()
        assert not a.exists()

    def test_cleared_next_to_other_files(self, tmp_cache):
        a = cache_mod.checkpoint_path("net", {"seed": 0})
        a.parent.mkdir(parents=True)
        a.write_bytes(b"x")
        (a.parent.parent / "notes.txt").write_text("keep")
        clear_cache()
        assert not a.exists() and (a.parent.parent / "notes.txt").read_text() == "keep"

    @pytest.mark.parametrize(
        "name, key, match", [("", {}, "name must be"), ("a/b", {}, "name must be"), ("net", [1], "key must be a dict")]
    )
    def test_errors(self, name, key, match):
        with pytest.raises(ValueError, match=match):
            cache_mod.checkpoint_path(name, key)
