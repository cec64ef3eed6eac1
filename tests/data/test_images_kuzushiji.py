"""Tests for the Kuzushiji-49 loader of credalbook.data (npz files written by the tests)."""

import numpy as np
import pytest

from credalbook.data import Dataset, DatasetNotFoundError, DATASETS, load_dataset, load_kuzushiji49

FILES = ("k49-train-imgs.npz", "k49-train-labels.npz", "k49-test-imgs.npz", "k49-test-labels.npz")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Isolate the tests from the user's data folders."""
    for var in ("CREDALBOOK_DATA_DIR", "CREDALBOOK_KUZUSHIJI49_DIR"):
        monkeypatch.delenv(var, raising=False)


def write_k49(folder, *, n_train=30, n_test=12, seed=0):
    """Four npz files as in the release (uint8 images, uint8 labels 0..48, one array 'arr_0' each)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for part, n in (("train", n_train), ("test", n_test)):
        arrays[part] = (
            rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8),
            rng.integers(0, 49, size=n).astype(np.uint8),
        )
        np.savez_compressed(folder / f"k49-{part}-imgs.npz", arrays[part][0])
        np.savez_compressed(folder / f"k49-{part}-labels.npz", arrays[part][1])
    return arrays


class TestLoadKuzushiji49:
    def test_main(self, tmp_path):
        arrays = write_k49(tmp_path / "k49")
        ds = load_kuzushiji49(tmp_path / "k49")
        assert isinstance(ds, Dataset) and ds.name == "kuzushiji49"
        assert ds.x_train.shape == (30, 1, 28, 28) and ds.x_test.shape == (12, 1, 28, 28)
        assert ds.n_classes == 49 and ds.classes[0] == "あ" and ds.classes[43] == "わ" and ds.classes[48] == "ゝ"
        assert len(set(ds.classes)) == 49
        # pixels: uint8 / 255 exactly, labels unchanged
        np.testing.assert_array_equal(ds.x_train[:, 0] * 255, arrays["train"][0].astype(np.float32))
        np.testing.assert_array_equal(ds.y_test, arrays["test"][1].astype(np.int64))
        assert ds.x_train.dtype == np.float32 and ds.y_train.dtype == np.int64
        assert not ds.x_train.flags.writeable  # shared, read-only arrays as the other loaders

    def test_environment_variables_and_registry(self, tmp_path, monkeypatch):
        assert "kuzushiji49" in DATASETS
        write_k49(tmp_path / "data" / "kuzushiji49", n_train=5, n_test=3)
        monkeypatch.setenv("CREDALBOOK_DATA_DIR", str(tmp_path / "data"))
        assert load_dataset("Kuzushiji49").x_train.shape[0] == 5  # $CREDALBOOK_DATA_DIR/kuzushiji49
        write_k49(tmp_path / "own", n_train=7, n_test=2)
        monkeypatch.setenv("CREDALBOOK_KUZUSHIJI49_DIR", str(tmp_path / "own"))
        assert load_kuzushiji49().x_train.shape[0] == 7  # the dedicated variable wins

    def test_errors(self, tmp_path):
        with pytest.raises(DatasetNotFoundError, match="CREDALBOOK_KUZUSHIJI49_DIR") as info:
            load_kuzushiji49(tmp_path / "nowhere")
        assert "does not exist" in str(info.value) and "k49-train-imgs.npz" in str(info.value)
        write_k49(tmp_path / "partial")
        (tmp_path / "partial" / "k49-test-labels.npz").unlink()
        with pytest.raises(DatasetNotFoundError, match="lacks k49-test-labels.npz"):
            load_kuzushiji49(tmp_path / "partial")
        bad = tmp_path / "bad"
        write_k49(bad)
        np.savez(bad / "k49-train-labels.npz", np.full(30, 49, dtype=np.uint8))
        with pytest.raises(ValueError, match=r"labels from 49 to 49; expected \[0, 49\)"):
            load_kuzushiji49(bad)
        np.savez(bad / "k49-train-labels.npz", np.zeros(29, dtype=np.uint8))
        with pytest.raises(ValueError, match="must hold 30 integer labels"):
            load_kuzushiji49(bad)
        np.savez(bad / "k49-train-imgs.npz", np.zeros((30, 32, 32), dtype=np.uint8))
        with pytest.raises(ValueError, match=r"uint8 images of shape \(N, 28, 28\)"):
            load_kuzushiji49(bad)
        np.savez(bad / "k49-train-imgs.npz", images=np.zeros((30, 28, 28), dtype=np.uint8))
        with pytest.raises(ValueError, match="must hold an array named 'arr_0'"):
            load_kuzushiji49(bad)
        (bad / "k49-train-imgs.npz").write_bytes(b"not an archive")
        with pytest.raises(ValueError, match="not a readable .npz archive"):
            load_kuzushiji49(bad)
