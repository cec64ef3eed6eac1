"""Tests for credalbook.data: IDX files, dataset loaders and splits."""

import pickle
from pathlib import Path

import numpy as np
import pytest

from credalbook.data import (
    Dataset,
    DatasetNotFoundError,
    DATASETS,
    load_cifar,
    load_dataset,
    load_digits,
    load_emnist,
    load_fashion_mnist,
    load_mnist,
    split_dataset,
    train_val_test_split,
    write_idx,
)

FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")
IDX_NAMES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
ENV_VARS = (
    "CREDALBOOK_DATA_DIR",
    "CREDALBOOK_FASHION_MNIST_DIR",
    "CREDALBOOK_MNIST_DIR",
    "CREDALBOOK_EMNIST_DIR",
    "CREDALBOOK_CIFAR10_DIR",
    "CREDALBOOK_CIFAR100_DIR",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Isolate the tests from the user's data folders."""
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)


def write_idx_set(folder, names=IDX_NAMES, *, n_train=12, n_test=6, n_classes=10, offset=0, gz=True, seed=0):
    """Write four tiny IDX files (28x28 uint8 images, labels) and return the arrays written."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = []
    for n in (n_train, n_test):
        arrays.append(rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8))
        arrays.append((np.arange(n) % n_classes + offset).astype(np.uint8))
    for name, array in zip(names, arrays):
        write_idx(folder / (name + (".gz" if gz else "")), array)
    return arrays


def dump(path, obj):
    with open(path, "wb") as fh:
        pickle.dump(obj, fh, protocol=2)


def write_cifar10(folder, *, per_batch=2, n_test=3):
    """Write the CIFAR-10 python layout with tiny batches; return (train data, labels)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    datas, labels = [], []
    for i in range(1, 6):
        data = rng.integers(0, 256, size=(per_batch, 3072), dtype=np.uint8)
        lab = [int(v) for v in rng.integers(0, 10, size=per_batch)]
        dump(
            folder / f"data_batch_{i}",
            {b"batch_label": b"x", b"labels": lab, b"data": data, b"filenames": [b"f"] * per_batch},
        )
        datas.append(data)
        labels += lab
    test = np.zeros((n_test, 3072), dtype=np.uint8)
    test[0, :1024] = 255  # a pure red image
    test[1, 1024 + 32 * 3 + 5] = 7  # green channel, row 3, column 5
    dump(folder / "test_batch", {b"labels": [0, 1, 2][:n_test], b"data": test})
    names = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse", b"ship", b"truck"]
    dump(folder / "batches.meta", {b"label_names": names, b"num_vis": 3072})
    return np.concatenate(datas), np.array(labels)


def write_cifar100(folder):
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2)
    for part, n in (("train", 5), ("test", 2)):
        dump(
            folder / part,
            {
                b"data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8),
                b"fine_labels": list(range(90, 90 + n)),
                b"coarse_labels": list(range(15, 15 + n)),
            },
        )
    dump(
        folder / "meta",
        {
            b"fine_label_names": [f"fine{i}".encode() for i in range(100)],
            b"coarse_label_names": [f"coarse{i}".encode() for i in range(20)],
        },
    )


def toy_dataset(n_train=20, n_test=8):
    x_train = np.arange(n_train, dtype=np.float32)[:, None, None, None] * np.ones((1, 1, 2, 3))
    x_test = np.arange(n_test, dtype=np.float32)[:, None, None, None] * np.ones((1, 1, 2, 3))
    return Dataset(x_train, np.arange(n_train) % 3, x_test, np.arange(n_test) % 3, classes=["a", "b", "c"], name="toy")


class TestDataset:
    def test_main(self):
        ds = toy_dataset()
        assert ds.n_classes == 3 and ds.image_shape == (1, 2, 3) and ds.classes == ("a", "b", "c")
        assert ds.x_train.dtype == np.float32 and ds.y_train.dtype == np.int64
        assert repr(ds) == ("Dataset(name='toy', n_train=20, n_test=8, image_shape=(1, 2, 3), n_classes=3)")
        with pytest.raises(AttributeError):
            ds.name = "other"

    def test_subsample(self):
        ds = toy_dataset()
        sub = ds.subsample(n_train=7, seed=3)
        assert len(sub.y_train) == 7 and len(sub.y_test) == 8 and sub.classes == ds.classes
        ids = sub.x_train[:, 0, 0, 0].astype(int)  # each row stores its original index
        assert np.all(np.diff(ids) > 0) and len(set(ids)) == 7
        np.testing.assert_array_equal(sub.y_train, ds.y_train[ids])
        np.testing.assert_array_equal(sub.x_test, ds.x_test)
        again = ds.subsample(n_train=7, seed=3)
        np.testing.assert_array_equal(again.x_train, sub.x_train)
        other = ds.subsample(n_train=7, seed=4)
        assert not np.array_equal(other.x_train, sub.x_train)
        both = ds.subsample(5, 4, seed=0)
        assert (len(both.y_train), len(both.y_test)) == (5, 4)
        assert ds.subsample(n_train=20).x_train.flags.writeable

    def test_errors(self):
        x, y = np.zeros((4, 1, 2, 2), np.float32), np.array([0, 1, 0, 1])
        with pytest.raises(ValueError, match="x_train"):
            Dataset(x[:, 0], y, x, y, classes=("a", "b"), name="t")
        with pytest.raises(ValueError, match="x_test.*uint8"):
            Dataset(x, y, x.astype(np.uint8), y, classes=("a", "b"), name="t")
        with pytest.raises(ValueError, match="y_train"):
            Dataset(x, y[:3], x, y, classes=("a", "b"), name="t")
        with pytest.raises(ValueError, match=r"y_test must lie in \[0, 2\).*2"):
            Dataset(x, y, x, y + 1, classes=("a", "b"), name="t")
        with pytest.raises(ValueError, match="classes"):
            Dataset(x, y, x, y, classes=(), name="t")
        with pytest.raises(ValueError, match="x_test images"):
            Dataset(x, y, np.zeros((4, 1, 3, 2), np.float32), y, classes=("a", "b"), name="t")
        ds = toy_dataset()
        for kwargs in ({"n_train": 21}, {"n_test": 0}, {"n_train": 2.5}):
            with pytest.raises(ValueError, match=next(iter(kwargs))):
                ds.subsample(**kwargs)
        with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
            ds.subsample(2, seed=-1)


class TestDatasetNotFoundError:
    def test_main(self, tmp_path):
        assert issubclass(DatasetNotFoundError, FileNotFoundError)
        with pytest.raises(FileNotFoundError):
            load_mnist(tmp_path / "nowhere")


class TestLoadFashionMnist:
    def test_main(self, monkeypatch):
        if not FASHION_DIR.is_dir():
            pytest.skip("Fashion-MNIST missing: sudo apt-get install dataset-fashion-mnist")
        monkeypatch.setenv("CREDALBOOK_FASHION_MNIST_DIR", str(FASHION_DIR))
        ds = load_fashion_mnist()
        assert ds.name == "fashion_mnist" and ds.n_classes == 10 and ds.classes[9] == "Ankle boot"
        assert ds.x_train.shape == (60000, 1, 28, 28) and ds.x_test.shape == (10000, 1, 28, 28)
        assert ds.x_train.dtype == np.float32 and ds.y_train.dtype == np.int64
        np.testing.assert_array_equal(np.bincount(ds.y_train), [6000] * 10)
        np.testing.assert_array_equal(np.bincount(ds.y_test), [1000] * 10)
        assert ds.x_train.min() == 0.0 and ds.x_train.max() == 1.0
        assert ds.x_test.min() == 0.0 and ds.x_test.max() == 1.0
        assert ds.y_train[0] == 9 and ds.y_test[0] == 9  # both files start with an ankle boot
        # multiples of 1/255 only: the bytes come back exactly
        scaled = ds.x_test * 255
        np.testing.assert_array_equal(scaled, np.round(scaled))
        assert not ds.x_train.flags.writeable
        assert load_fashion_mnist(FASHION_DIR) is ds  # memoised per file

    def test_tiny_files(self, tmp_path):
        arrays = write_idx_set(tmp_path / "gz")
        ds = load_fashion_mnist(tmp_path / "gz", verify=False)
        np.testing.assert_array_equal(ds.x_train[:, 0] * 255, arrays[0])
        np.testing.assert_array_equal(ds.y_test, arrays[3])
        # uncompressed copies have no reference checksum: loaded with verify=True
        arrays = write_idx_set(tmp_path / "plain", gz=False, seed=5)
        ds = load_fashion_mnist(tmp_path / "plain")
        np.testing.assert_array_equal(ds.x_test[:, 0] * 255, arrays[2])

    def test_errors(self, tmp_path, monkeypatch):
        write_idx_set(tmp_path / "gz")
        monkeypatch.setenv("CREDALBOOK_FASHION_MNIST_DIR", str(tmp_path / "gz"))
        with pytest.raises(
            ValueError, match="checksum mismatch.*train-images-idx3-ubyte.gz.*cf8536b0aa1a6ac5fa3f23001093305c"
        ):
            load_fashion_mnist()
        monkeypatch.setenv("CREDALBOOK_FASHION_MNIST_DIR", str(tmp_path / "nowhere"))
        with pytest.raises(DatasetNotFoundError) as info:
            load_fashion_mnist()
        message = str(info.value)
        assert "sudo apt-get install dataset-fashion-mnist" in message
        assert "CREDALBOOK_FASHION_MNIST_DIR" in message and "nowhere" in message
        (tmp_path / "partial").mkdir()
        write_idx(tmp_path / "partial" / "train-images-idx3-ubyte.gz", np.zeros((1, 28, 28), "u1"))
        with pytest.raises(DatasetNotFoundError, match="lacks train-labels-idx1-ubyte"):
            load_fashion_mnist(tmp_path / "partial", verify=False)
        write_idx_set(tmp_path / "labels", gz=False, n_classes=11)  # label 10 out of range
        with pytest.raises(ValueError, match="labels from 0 to 10"):
            load_fashion_mnist(tmp_path / "labels")
        write_idx_set(tmp_path / "size", gz=False)
        write_idx(tmp_path / "size" / "t10k-images-idx3-ubyte", np.zeros((6, 27, 28), np.uint8))
        with pytest.raises(ValueError, match="t10k-images.*28, 28"):
            load_fashion_mnist(tmp_path / "size")


class TestLoadMnist:
    def test_main(self, tmp_path, monkeypatch):
        arrays = write_idx_set(tmp_path / "data" / "mnist", n_train=30)
        monkeypatch.setenv("CREDALBOOK_DATA_DIR", str(tmp_path / "data"))
        ds = load_mnist(verify=False)
        assert ds.name == "mnist" and ds.classes == tuple("0123456789")
        assert ds.x_train.shape == (30, 1, 28, 28)
        np.testing.assert_array_equal(ds.x_train[:, 0] * 255, arrays[0])
        assert np.all(ds.x_train[:, 0][arrays[0] == 255] == 1.0)
        np.testing.assert_array_equal(ds.y_train, arrays[1])
        monkeypatch.setenv("CREDALBOOK_MNIST_DIR", str(tmp_path / "data" / "mnist"))
        assert load_mnist(verify=False) is ds

    def test_errors(self, tmp_path, monkeypatch):
        write_idx_set(tmp_path)
        monkeypatch.setenv("CREDALBOOK_MNIST_DIR", str(tmp_path))
        with pytest.raises(ValueError, match="checksum mismatch.*f68b3c2dcbeaaa9fbdd348bbdeb94873"):
            load_mnist(verify=True)
        with pytest.raises(DatasetNotFoundError, match="CREDALBOOK_MNIST_DIR"):
            load_mnist(tmp_path / "empty")


class TestLoadEmnist:
    def test_main(self, tmp_path, monkeypatch):
        names = [
            f"emnist-letters-{p}-{k}" for p in ("train", "test") for k in ("images-idx3-ubyte", "labels-idx1-ubyte")
        ]
        arrays = write_idx_set(tmp_path, names, n_train=26, n_classes=26, offset=1)
        upright = np.zeros((28, 28), np.uint8)
        upright[2, 5:20] = 255  # a horizontal bar near the top, not symmetric under transposition
        upright[2:25, 5] = 128
        arrays[0][0] = upright.T  # EMNIST stores images transposed
        write_idx(tmp_path / (names[0] + ".gz"), arrays[0])
        monkeypatch.setenv("CREDALBOOK_EMNIST_DIR", str(tmp_path))
        ds = load_emnist()
        assert ds.name == "emnist_letters" and ds.n_classes == 26 and ds.classes[0] == "a"
        np.testing.assert_array_equal(ds.x_train[0, 0] * 255, upright)
        np.testing.assert_array_equal(ds.x_train[:, 0] * 255, arrays[0].transpose(0, 2, 1))
        np.testing.assert_array_equal(ds.y_train, np.arange(26))  # 1..26 -> 0..25
        assert ds.x_train.flags.c_contiguous
        assert load_dataset("emnist_letters") is ds
        names = [n.replace("letters", "digits") for n in names]
        arrays = write_idx_set(tmp_path, names, gz=False)
        digits = load_dataset("emnist", split="digits")
        np.testing.assert_array_equal(digits.y_test, arrays[3])  # no shift

    def test_errors(self, tmp_path, monkeypatch):
        with pytest.raises(ValueError, match="split.*'letter'"):
            load_emnist("letter")
        names = [
            f"emnist-letters-{p}-{k}" for p in ("train", "test") for k in ("images-idx3-ubyte", "labels-idx1-ubyte")
        ]
        write_idx_set(tmp_path, names, n_classes=26, offset=0)  # contains label 0
        with pytest.raises(ValueError, match=r"labels from 0 to 11; expected \[1, 27\)"):
            load_emnist(root=tmp_path)
        monkeypatch.setenv("CREDALBOOK_DATA_DIR", str(tmp_path / "data"))
        with pytest.raises(DatasetNotFoundError, match="CREDALBOOK_EMNIST_DIR") as info:
            load_emnist("balanced")
        assert "emnist-balanced-train-images-idx3-ubyte" in str(info.value)
        assert str(tmp_path / "data" / "emnist") in str(info.value)


class TestLoadCifar:
    def test_cifar10(self, tmp_path, monkeypatch):
        data, labels = write_cifar10(tmp_path / "c10")
        monkeypatch.setenv("CREDALBOOK_CIFAR10_DIR", str(tmp_path / "c10"))
        ds = load_cifar()
        assert ds.name == "cifar10" and ds.classes[1] == "automobile" and ds.n_classes == 10
        assert ds.x_train.shape == (10, 3, 32, 32) and ds.x_test.shape == (3, 3, 32, 32)
        # rows of the batches in order: red plane, green plane, blue plane, each row-major
        np.testing.assert_array_equal(ds.x_train * 255, data.reshape(10, 3, 32, 32))
        np.testing.assert_array_equal(ds.y_train, labels)
        red = ds.x_test[0]
        assert np.all(red[0] == 1.0) and np.all(red[1:] == 0.0)
        assert ds.x_test[1, 1, 3, 5] == np.float32(7 / 255)
        assert np.count_nonzero(ds.x_test[1]) == 1
        np.testing.assert_array_equal(ds.y_test, [0, 1, 2])
        assert load_dataset("cifar10") is ds

    def test_cifar100(self, tmp_path, monkeypatch):
        write_cifar100(tmp_path / "data" / "cifar-100-python")
        monkeypatch.setenv("CREDALBOOK_DATA_DIR", str(tmp_path / "data"))
        fine = load_cifar(100)
        assert fine.name == "cifar100" and fine.n_classes == 100 and fine.classes[90] == "fine90"
        np.testing.assert_array_equal(fine.y_train, [90, 91, 92, 93, 94])
        coarse = load_dataset("cifar100", label_type="coarse")
        assert coarse.name == "cifar100_coarse" and coarse.n_classes == 20
        np.testing.assert_array_equal(coarse.y_test, [15, 16])
        np.testing.assert_array_equal(coarse.x_train, fine.x_train)

    def test_errors(self, tmp_path):
        write_cifar10(tmp_path)
        (tmp_path / "data_batch_3").unlink()
        with pytest.raises(DatasetNotFoundError) as info:
            load_cifar(10, tmp_path)
        message = str(info.value)
        assert "lacks data_batch_3" in message and "CREDALBOOK_CIFAR10_DIR" in message
        assert "CIFAR-10 python version" in message and "data_batch_1 exists" in message
        dump(tmp_path / "data_batch_3", {b"data": np.zeros((2, 3000), np.uint8), b"labels": [0, 1]})
        with pytest.raises(ValueError, match="data_batch_3.*3072"):
            load_cifar(10, tmp_path)
        dump(tmp_path / "data_batch_3", {b"data": np.zeros((2, 3072), "u1"), b"labels": [0, 10]})
        with pytest.raises(ValueError, match="data_batch_3.*labels"):
            load_cifar(10, tmp_path)
        (tmp_path / "data_batch_3").write_bytes(b"not a pickle")
        with pytest.raises(ValueError, match="data_batch_3"):
            load_cifar(10, tmp_path)
        with pytest.raises(ValueError, match="variant.*11"):
            load_cifar(11, tmp_path)
        with pytest.raises(ValueError, match="label_type.*'coarse'"):
            load_cifar(10, tmp_path, label_type="coarse")
        with pytest.raises(ValueError, match="label_type.*'super'"):
            load_cifar(100, tmp_path, label_type="super")
        with pytest.raises(DatasetNotFoundError, match="CREDALBOOK_CIFAR100_DIR"):
            load_cifar(100, tmp_path)


class TestLoadDigits:
    def test_main(self):
        from sklearn.datasets import load_digits as sk_load_digits

        ds = load_digits()
        assert ds.name == "digits" and ds.n_classes == 10 and ds.image_shape == (1, 8, 8)
        assert len(ds.y_train) + len(ds.y_test) == 1797 and len(ds.y_test) == 539
        assert ds.x_train.min() == 0.0 and ds.x_train.max() == 1.0
        # the two parts are a partition of sklearn's images
        sk = sk_load_digits()
        ours = np.concatenate([ds.x_train, ds.x_test]).reshape(1797, 64) * 16
        key = lambda a: a[np.lexsort(a.T[::-1])]  # noqa: E731 -- sort rows
        np.testing.assert_array_equal(key(ours), key(sk.data.astype(np.float32)))
        # stratified: every class has 30 % of its members in the test part, up to rounding
        frac = np.bincount(ds.y_test) / (np.bincount(ds.y_train) + np.bincount(ds.y_test))
        assert np.all(np.abs(frac - 0.3) < 1 / 170)
        # deterministic: the documented split is recomputed exactly
        tr, _, te = train_val_test_split(1797, val_fraction=0.0, test_fraction=0.3, seed=0, stratify=sk.target)
        np.testing.assert_array_equal(ds.y_train, sk.target[tr])
        np.testing.assert_array_equal(ds.x_test.reshape(-1, 64) * 16, sk.data[te])
        assert load_digits() is ds and not ds.x_test.flags.writeable


class TestLoadDataset:
    def test_main(self, tmp_path):
        assert DATASETS == (
            "fashion_mnist",
            "digits",
            "mnist",
            "emnist",
            "emnist_letters",
            "emnist_balanced",
            "kuzushiji49",
            "cifar10",
            "cifar100",
        )
        assert load_dataset("digits") is load_digits()
        write_idx_set(tmp_path)
        assert load_dataset("Fashion-MNIST", root=tmp_path, verify=False).name == "fashion_mnist"
        assert load_dataset("mnist", root=tmp_path, verify=False).name == "mnist"

    def test_errors(self):
        with pytest.raises(ValueError, match="name must be one of fashion_mnist, digits.*'svhn'"):
            load_dataset("svhn")
        with pytest.raises(TypeError):
            load_dataset("digits", root="x")


class TestSplitDataset:
    def test_main(self):
        ds = toy_dataset(n_train=30)
        x_tr, y_tr, x_val, y_val = split_dataset(ds, val_fraction=0.2, seed=1)
        assert (len(x_tr), len(x_val)) == (24, 6)
        np.testing.assert_array_equal(np.bincount(y_val), [2, 2, 2])  # stratified
        ids = np.concatenate([x_tr, x_val])[:, 0, 0, 0].astype(int)
        np.testing.assert_array_equal(np.sort(ids), np.arange(30))
        np.testing.assert_array_equal(y_tr, ds.y_train[x_tr[:, 0, 0, 0].astype(int)])
        again = split_dataset(ds, val_fraction=0.2, seed=1)
        np.testing.assert_array_equal(again[2], x_val)
        assert not np.array_equal(split_dataset(ds, val_fraction=0.2, seed=2)[2], x_val)
        unstratified = split_dataset(ds, val_fraction=0.2, seed=1, stratify=False)
        assert len(unstratified[3]) == 6

    def test_errors(self):
        ds = toy_dataset()
        with pytest.raises(ValueError, match="val_fraction"):
            split_dataset(ds, val_fraction=0.0)
        with pytest.raises(ValueError, match="val_fraction"):
            split_dataset(ds, val_fraction=1.5)
        with pytest.raises(ValueError, match="dataset must be a Dataset"):
            split_dataset(np.zeros(3), val_fraction=0.1)
