"""Local image datasets and the validation split of a dataset.

Nothing is downloaded at run time: each loader reads files already on the machine (the Debian
Fashion-MNIST package, scikit-learn's bundled digits, or a folder named by an environment variable
for MNIST, EMNIST, Kuzushiji-49 and CIFAR; see :data:`DATASETS`) and returns a :class:`Dataset` of float32 images
in [0, 1] shaped (N, C, H, W) with int64 labels. User folders default to subfolders of
``$CREDALBOOK_DATA_DIR``, else of ``~/.cache/credalbook/data``. A missing dataset raises
:class:`DatasetNotFoundError` (a ``FileNotFoundError``) whose message says how to obtain it.
Decoded datasets are cached per process, keyed by file path, modification time and size; their
arrays are read-only, so copy them (or use :meth:`Dataset.subsample`) before modifying in place.
The IDX format lives in :mod:`credalbook.data.idx` and the stratified index splits in
:mod:`credalbook.data.splits` (both re-exported here), the :class:`Dataset` type in
:mod:`credalbook.data.dataset`, and the finding and checking of local files in
:mod:`credalbook.data.local_files`.
"""

from __future__ import annotations

import functools
import os
import pickle
import string
import zlib
from pathlib import Path

import numpy as np

from credalbook.data.dataset import Dataset, DatasetNotFoundError
from credalbook.data.idx import read_idx
from credalbook.data.local_files import (
    _check_md5,
    _checked_images_labels,
    _data_dir,
    _find,
    _frozen,
    _resolve_root,
    _signature,
    _to_unit,
)
from credalbook.data.splits import _fraction, train_val_test_split

__all__ = [
    "DATASETS",
    "Dataset",
    "DatasetNotFoundError",
    "load_cifar",
    "load_dataset",
    "load_digits",
    "load_emnist",
    "load_fashion_mnist",
    "load_kuzushiji49",
    "load_mnist",
    "split_dataset",
]


_IDX_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
_FASHION_DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
_FASHION_CLASSES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)
# Accepted MD5s: the Debian package dataset-fashion-mnist (re-gzipped) and the Zalando release.
_FASHION_MD5 = {
    "train-images-idx3-ubyte.gz": ("cf8536b0aa1a6ac5fa3f23001093305c", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
    "train-labels-idx1-ubyte.gz": ("10bea18fdb374794d4bb42e356e600c9", "25c81989df183df01b3e8a0aad5dffbe"),
    "t10k-images-idx3-ubyte.gz": ("f78720b4224f21cce2f2ccf2d7a94c9a", "bef4ecab320f06d8554ea6380940ec79"),
    "t10k-labels-idx1-ubyte.gz": ("0d30e22e447f3c33dab9ed536400ac01", "bb300cfdad3c16e7a12a480ee83cd310"),
}
_MNIST_MD5 = {
    "train-images-idx3-ubyte.gz": ("f68b3c2dcbeaaa9fbdd348bbdeb94873",),
    "train-labels-idx1-ubyte.gz": ("d53e105ee54ea40749a09fcbcd1e9432",),
    "t10k-images-idx3-ubyte.gz": ("9fb629c4189551a2d022fa330f9573f3",),
    "t10k-labels-idx1-ubyte.gz": ("ec29112dd5afa0611ce80d1b7f02629c",),
}
_DIGIT_NAMES = tuple(string.digits)
# EMNIST split -> (class names, label offset); "letters" stores labels 1..26 (0 is unused).
_MERGED = _DIGIT_NAMES + tuple(string.ascii_uppercase) + tuple("abdefghnqrt")
_EMNIST_SPLITS = {
    "letters": (tuple(string.ascii_lowercase), 1),
    "digits": (_DIGIT_NAMES, 0),
    "mnist": (_DIGIT_NAMES, 0),
    "balanced": (_MERGED, 0),
    "bymerge": (_MERGED, 0),
    "byclass": (_MERGED[:36] + tuple(string.ascii_lowercase), 0),
}
_CIFAR_URL = "https://www.cs.toronto.edu/~kriz/cifar.html"
_CIFAR = {
    10: dict(
        env="CREDALBOOK_CIFAR10_DIR",
        folder="cifar-10-batches-py",
        title="CIFAR-10",
        train=tuple(f"data_batch_{i}" for i in range(1, 6)),
        test="test_batch",
        meta="batches.meta",
        archive="cifar-10-python.tar.gz",
    ),
    100: dict(
        env="CREDALBOOK_CIFAR100_DIR",
        folder="cifar-100-python",
        title="CIFAR-100",
        train=("train",),
        test="test",
        meta="meta",
        archive="cifar-100-python.tar.gz",
    ),
}
_DIGITS_TEST_FRACTION = 0.3
_DIGITS_SEED = 0


@functools.lru_cache(maxsize=4)
def _idx_dataset(signatures: tuple, name: str, classes: tuple, transpose: bool, label_offset: int) -> Dataset:
    arrays = []
    for img_sig, lab_sig in (signatures[:2], signatures[2:]):
        x, y = _checked_images_labels(
            read_idx(img_sig[0]), read_idx(lab_sig[0]), img_sig[0], lab_sig[0], len(classes), label_offset
        )
        if transpose:
            x = np.ascontiguousarray(x.transpose(0, 2, 1))
        arrays += _frozen(_to_unit(x[:, None]), y)
    return Dataset(*arrays, classes=classes, name=name)


def _load_idx(
    root: Path,
    names,
    *,
    md5,
    verify: bool,
    name: str,
    classes: tuple,
    transpose: bool = False,
    label_offset: int = 0,
    title: str,
    how_to: str,
) -> Dataset:
    paths = _find(root, names, allow_gz=True, title=title, how_to=how_to)
    if verify and md5:
        _check_md5(paths, md5)
    sigs = tuple(_signature(p) for p in paths)
    return _idx_dataset(sigs, name, classes, transpose, label_offset)


# ---------------------------------------------------------------------------------------- loaders
def load_fashion_mnist(root: str | os.PathLike | None = None, *, verify: bool = True) -> Dataset:
    """Fashion-MNIST: 60 000 train and 10 000 test 28x28 greyscale images of 10 kinds of clothes.

    Reads ``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``,
    ``t10k-images-idx3-ubyte.gz`` and ``t10k-labels-idx1-ubyte.gz`` (or the same names without
    ``.gz``) from `root`: by default ``$CREDALBOOK_FASHION_MNIST_DIR``, else
    ``/usr/share/datasets/fashion-mnist``, where ``sudo apt-get install dataset-fashion-mnist`` puts
    them. With `verify`, gzipped files must match the MD5 of the Debian package or of the Zalando
    release (checksums memoised per path, modification time and size); uncompressed files are
    checked by shape and label range only.

    Returns a :class:`Dataset` with ``x`` of shape (N, 1, 28, 28). Raises
    :class:`DatasetNotFoundError` if a file is missing, ``ValueError`` on a checksum mismatch or a
    malformed file.

    References
    ----------
    H. Xiao, K. Rasul, R. Vollgraf, "Fashion-MNIST: a novel image dataset for benchmarking machine
    learning algorithms", arXiv:1708.07747, 2017.

    Examples
    --------
    >>> ds = load_fashion_mnist()  # doctest: +SKIP
    >>> ds.x_train.shape, ds.x_test.shape, ds.classes[9]  # doctest: +SKIP
    ((60000, 1, 28, 28), (10000, 1, 28, 28), 'Ankle boot')
    """
    root = _resolve_root(root, "CREDALBOOK_FASHION_MNIST_DIR", Path(_FASHION_DEFAULT_DIR))
    how_to = (
        "Install it with `sudo apt-get install dataset-fashion-mnist` (which puts the four "
        f"IDX files in {_FASHION_DEFAULT_DIR}), or set CREDALBOOK_FASHION_MNIST_DIR to a "
        f"folder holding {', '.join(n + '.gz' for n in _IDX_FILES)} (gzipped or not)."
    )
    return _load_idx(
        root,
        _IDX_FILES,
        md5=_FASHION_MD5,
        verify=verify,
        name="fashion_mnist",
        classes=_FASHION_CLASSES,
        title="Fashion-MNIST",
        how_to=how_to,
    )


def load_mnist(root: str | os.PathLike | None = None, *, verify: bool = True) -> Dataset:
    """MNIST handwritten digits (60 000 train, 10 000 test, 28x28) from a local folder.

    Same files and checks as :func:`load_fashion_mnist`, with the MD5s of the original MNIST
    release; `root` defaults to ``$CREDALBOOK_MNIST_DIR``, else ``$CREDALBOOK_DATA_DIR/mnist``.
    Classes are ``"0"`` to ``"9"``.

    Examples
    --------
    >>> load_mnist().image_shape  # doctest: +SKIP
    (1, 28, 28)
    """
    root = _resolve_root(root, "CREDALBOOK_MNIST_DIR", _data_dir() / "mnist")
    how_to = (
        f"Download the four IDX files {', '.join(n + '.gz' for n in _IDX_FILES)} of the "
        "MNIST database (http://yann.lecun.com/exdb/mnist/ or a mirror), put them in one "
        "folder <dir> and set CREDALBOOK_MNIST_DIR=<dir> (or put them in "
        "$CREDALBOOK_DATA_DIR/mnist)."
    )
    return _load_idx(
        root,
        _IDX_FILES,
        md5=_MNIST_MD5,
        verify=verify,
        name="mnist",
        classes=_DIGIT_NAMES,
        title="MNIST",
        how_to=how_to,
    )


def load_emnist(split: str = "letters", root: str | os.PathLike | None = None) -> Dataset:
    """EMNIST (extended MNIST) from the IDX files of its binary-format release.

    Reads ``emnist-{split}-{train,test}-{images-idx3,labels-idx1}-ubyte(.gz)`` from `root`: by
    default ``$CREDALBOOK_EMNIST_DIR``, else ``$CREDALBOOK_DATA_DIR/emnist``. EMNIST stores each
    image transposed; images are transposed back so that they look upright. The ``letters`` split
    stores labels 1..26 (0 unused), shifted here to 0..25 (``"a"`` to ``"z"``, both cases merged);
    the other splits (``digits``, ``mnist``, ``balanced``, ``bymerge``, ``byclass``) keep their
    0-based labels. The release has no per-file checksums: files are checked by shape and labels.
    The Dataset is named ``emnist_{split}``, with ``x`` of shape (N, 1, 28, 28).

    References
    ----------
    G. Cohen, S. Afshar, J. Tapson, A. van Schaik, "EMNIST: an extension of MNIST to handwritten
    letters", arXiv:1702.05373, 2017.

    Examples
    --------
    >>> load_emnist("letters").classes[:3]  # doctest: +SKIP
    ('a', 'b', 'c')
    """
    if split not in _EMNIST_SPLITS:
        raise ValueError(f"split must be one of {sorted(_EMNIST_SPLITS)}; got {split!r}")
    classes, offset = _EMNIST_SPLITS[split]
    names = tuple(
        f"emnist-{split}-{part}-{kind}"
        for part in ("train", "test")
        for kind in ("images-idx3-ubyte", "labels-idx1-ubyte")
    )
    root = _resolve_root(root, "CREDALBOOK_EMNIST_DIR", _data_dir() / "emnist")
    how_to = (
        "Download the EMNIST 'Binary format as the original MNIST dataset' archive from "
        "https://www.nist.gov/itl/products-and-services/emnist-dataset, unzip it, put "
        f"{', '.join(n + '.gz' for n in names)} in one folder <dir> and set "
        "CREDALBOOK_EMNIST_DIR=<dir> (or put them in $CREDALBOOK_DATA_DIR/emnist)."
    )
    return _load_idx(
        root,
        names,
        md5=None,
        verify=False,
        name=f"emnist_{split}",
        classes=classes,
        transpose=True,
        label_offset=offset,
        title=f"EMNIST ({split})",
        how_to=how_to,
    )


_K49_FILES = ("k49-train-imgs.npz", "k49-train-labels.npz", "k49-test-imgs.npz", "k49-test-labels.npz")
# Classes 0..48 of k49_classmap.csv: the 46 hiragana in gojūon order with ゐ, ゑ, and the iteration mark ゝ.
_K49_CLASSES = tuple(
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわゐゑをんゝ"
)
_K49_URL = "https://github.com/rois-codh/kmnist"


def _npz_array(path: str) -> np.ndarray:
    """The array ``arr_0`` of an .npz archive (no pickles)."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as npz:
            names = list(npz.files)
            array = npz["arr_0"] if "arr_0" in names else None
    except (OSError, ValueError, TypeError, EOFError, zlib.error, zipfile.BadZipFile) as err:
        raise ValueError(f"{path} is not a readable .npz archive ({type(err).__name__}: {err})") from err
    if array is None:
        raise ValueError(f"{path} must hold an array named 'arr_0' (the Kuzushiji-49 release); it holds {names}")
    return array


@functools.lru_cache(maxsize=1)
def _k49_dataset(signatures: tuple) -> Dataset:
    arrays = []
    for img_sig, lab_sig in (signatures[:2], signatures[2:]):
        x, y = _checked_images_labels(
            _npz_array(img_sig[0]), _npz_array(lab_sig[0]), img_sig[0], lab_sig[0], len(_K49_CLASSES)
        )
        arrays += _frozen(_to_unit(x[:, None]), y)
    return Dataset(*arrays, classes=_K49_CLASSES, name="kuzushiji49")


def load_kuzushiji49(root: str | os.PathLike | None = None) -> Dataset:
    """Kuzushiji-49: 270 912 28x28 greyscale images of 49 cursive Japanese characters (hiragana).

    Reads ``k49-train-imgs.npz``, ``k49-train-labels.npz``, ``k49-test-imgs.npz`` and
    ``k49-test-labels.npz`` (each holding one array ``arr_0``; 232 365 train and 38 547 test
    images in the release) from `root`: by default ``$CREDALBOOK_KUZUSHIJI49_DIR``, else
    ``$CREDALBOOK_DATA_DIR/kuzushiji49``. The archives are loaded with ``allow_pickle=False``. The
    release publishes no checksums: files are checked by dtype, shape and label range. Classes are
    the characters of ``k49_classmap.csv`` (あ, い, う, ..., ゝ). Returns a :class:`Dataset` named
    ``kuzushiji49`` with ``x`` of shape (N, 1, 28, 28).

    References
    ----------
    T. Clanuwat, M. Bober-Irizar, A. Kitamoto, A. Lamb, K. Yamamoto, D. Ha, "Deep learning for
    classical Japanese literature", arXiv:1812.01718, 2018.

    Examples
    --------
    >>> load_kuzushiji49().n_classes  # doctest: +SKIP
    49
    """
    root = _resolve_root(root, "CREDALBOOK_KUZUSHIJI49_DIR", _data_dir() / "kuzushiji49")
    how_to = (
        f"Download {', '.join(_K49_FILES)} (Kuzushiji-49, 'NumPy data format') from {_K49_URL}, put them in "
        "one folder <dir> and set CREDALBOOK_KUZUSHIJI49_DIR=<dir> (or put them in "
        "$CREDALBOOK_DATA_DIR/kuzushiji49)."
    )
    paths = _find(root, _K49_FILES, allow_gz=False, title="Kuzushiji-49", how_to=how_to)
    return _k49_dataset(tuple(_signature(p) for p in paths))


def _unpickle(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            obj = pickle.load(fh, encoding="bytes")
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError) as err:
        raise ValueError(f"{path} is not a readable CIFAR pickle ({err!r})") from err
    if not isinstance(obj, dict):
        raise ValueError(f"{path} must hold a dict; got {type(obj).__name__}")
    return obj


def _field(batch: dict, key: str, path: str):
    for k in (key.encode(), key):
        if k in batch:
            return batch[k]
    raise ValueError(f"{path} has no {key!r} entry; its keys are {sorted(map(str, batch))}")


@functools.lru_cache(maxsize=2)
def _cifar_dataset(
    train_sigs: tuple, test_sig: tuple, meta_sig: tuple, label_key: str, names_key: str, name: str
) -> Dataset:
    meta = _unpickle(meta_sig[0])
    classes = tuple(c.decode() if isinstance(c, bytes) else str(c) for c in _field(meta, names_key, meta_sig[0]))
    arrays = []
    for sigs in (train_sigs, (test_sig,)):
        xs, ys = [], []
        for sig in sigs:
            batch = _unpickle(sig[0])
            x = np.asarray(_field(batch, "data", sig[0]))
            y = np.asarray(_field(batch, label_key, sig[0]), dtype=np.int64)
            if x.dtype != np.uint8 or x.ndim != 2 or x.shape[1] != 3072:
                raise ValueError(
                    f"{sig[0]}: 'data' must be uint8 of shape (N, 3072); got dtype {x.dtype} and shape {x.shape}"
                )
            if y.shape != (len(x),) or (y.size and (y.min() < 0 or y.max() >= len(classes))):
                raise ValueError(
                    f"{sig[0]}: {label_key!r} must hold {len(x)} labels in [0, {len(classes)}); got shape {y.shape}"
                )
            xs.append(x)
            ys.append(y)
        # Each row holds the red, green and blue 32x32 planes, one after the other, in row order.
        x = np.concatenate(xs).reshape(-1, 3, 32, 32)
        arrays += _frozen(_to_unit(x), np.concatenate(ys))
    return Dataset(*arrays, classes=classes, name=name)


def load_cifar(variant: int = 10, root: str | os.PathLike | None = None, *, label_type: str = "fine") -> Dataset:
    """CIFAR-10 or CIFAR-100 (50 000 train, 10 000 test, 32x32 RGB) from the python pickles.

    Reads the extracted "python version": ``data_batch_1`` to ``data_batch_5``, ``test_batch`` and
    ``batches.meta`` (CIFAR-10, `variant` 10) or ``train``, ``test`` and ``meta`` (CIFAR-100) from
    `root`: by default ``$CREDALBOOK_CIFAR10_DIR`` / ``$CREDALBOOK_CIFAR100_DIR``, else
    ``$CREDALBOOK_DATA_DIR/cifar-10-batches-py`` / ``cifar-100-python``. Each row of ``b'data'``
    holds the red, green and blue 32x32 planes in turn, giving ``x`` of shape (N, 3, 32, 32).
    `label_type` ``"coarse"`` gives CIFAR-100's 20 superclasses (Dataset ``cifar100_coarse``).
    Pickles are loaded with ``encoding="bytes"``; unpickling can run code, so only read trusted
    files. The extracted files have no published checksums: shapes and labels are checked.

    References
    ----------
    A. Krizhevsky, "Learning multiple layers of features from tiny images", tech. report,
    University of Toronto, 2009.

    Examples
    --------
    >>> load_cifar(10).image_shape  # doctest: +SKIP
    (3, 32, 32)
    """
    if variant not in _CIFAR or isinstance(variant, bool):
        raise ValueError(f"variant must be 10 or 100; got {variant!r}")
    if label_type not in ("fine", "coarse") or (variant == 10 and label_type != "fine"):
        raise ValueError(
            f"label_type must be 'fine' or 'coarse' (coarse for CIFAR-100 only); got "
            f"{label_type!r} with variant={variant}"
        )
    spec = _CIFAR[variant]
    root = _resolve_root(root, spec["env"], _data_dir() / spec["folder"])
    how_to = (
        f"Download '{spec['title']} python version' ({spec['archive']}) from {_CIFAR_URL}, "
        f"extract it so that <dir>/{spec['train'][0]} exists, and set {spec['env']}=<dir> "
        f"(extracting into $CREDALBOOK_DATA_DIR gives <dir> = "
        f"$CREDALBOOK_DATA_DIR/{spec['folder']})."
    )
    names = (*spec["train"], spec["test"], spec["meta"])
    paths = _find(root, names, allow_gz=False, title=spec["title"], how_to=how_to)
    sigs = tuple(_signature(p) for p in paths)
    if variant == 10:
        keys, name = ("labels", "label_names"), "cifar10"
    else:
        keys = (f"{label_type}_labels", f"{label_type}_label_names")
        name = "cifar100" if label_type == "fine" else "cifar100_coarse"
    return _cifar_dataset(sigs[:-2], sigs[-2], sigs[-1], *keys, name)


@functools.lru_cache(maxsize=1)
def load_digits() -> Dataset:
    """scikit-learn's bundled 8x8 handwritten digits (1797 images, 10 classes).

    Pixel values 0..16 are divided by 16; ``x`` has shape (N, 1, 8, 8). The data have no official
    test split: this one is the stratified 70/30 split of :func:`train_val_test_split` with
    ``test_fraction=0.3, seed=0``, the same on every machine (1258 train, 539 test). The arrays are
    read-only and shared by repeated calls.

    References
    ----------
    E. Alpaydin, C. Kaynak, "Optical recognition of handwritten digits", UCI Machine Learning
    Repository, 1998.

    Examples
    --------
    >>> load_digits()
    Dataset(name='digits', n_train=1258, n_test=539, image_shape=(1, 8, 8), n_classes=10)
    """
    from sklearn.datasets import load_digits as sk_load_digits

    bunch = sk_load_digits()
    x = (np.asarray(bunch.images, dtype=np.float32) / np.float32(16))[:, None]
    y = np.asarray(bunch.target, dtype=np.int64)
    tr, _, te = train_val_test_split(
        len(y), val_fraction=0.0, test_fraction=_DIGITS_TEST_FRACTION, seed=_DIGITS_SEED, stratify=y
    )
    arrays = _frozen(x[tr], y[tr], x[te], y[te])
    return Dataset(*arrays, classes=_DIGIT_NAMES, name="digits")


_REGISTRY = {
    "fashion_mnist": load_fashion_mnist,
    "digits": load_digits,
    "mnist": load_mnist,
    "emnist": load_emnist,
    "emnist_letters": functools.partial(load_emnist, "letters"),
    "emnist_balanced": functools.partial(load_emnist, "balanced"),
    "kuzushiji49": load_kuzushiji49,
    "cifar10": functools.partial(load_cifar, 10),
    "cifar100": functools.partial(load_cifar, 100),
}
DATASETS = tuple(_REGISTRY)


def load_dataset(name: str, **kwargs) -> Dataset:
    """Load a dataset by its name in :data:`DATASETS`; `kwargs` go to the loader.

    Names: ``"fashion_mnist"``, ``"digits"``, ``"mnist"``, ``"emnist"`` (pass ``split=``),
    ``"emnist_letters"``, ``"emnist_balanced"``, ``"kuzushiji49"``, ``"cifar10"``, ``"cifar100"``
    (``label_type="coarse"`` for the superclasses); case and ``-`` vs ``_`` do not matter.

    Examples
    --------
    >>> load_dataset("digits").n_classes
    10
    """
    key = str(name).lower().replace("-", "_")
    if key not in _REGISTRY:
        raise ValueError(f"name must be one of {', '.join(DATASETS)}; got {name!r}")
    return _REGISTRY[key](**kwargs)


# ----------------------------------------------------------------------------------------- splits
def split_dataset(
    dataset: Dataset, *, val_fraction: float = 0.1, seed: int = 0, stratify: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split a Dataset's training part into ``(x_tr, y_tr, x_val, y_val)``.

    The Dataset's test part stays the test set. Uses :func:`train_val_test_split` with
    `val_fraction` in (0, 1) and `seed`, stratified by ``y_train`` unless `stratify` is false;
    the returned arrays are writable copies in the original order.

    Examples
    --------
    >>> x_tr, y_tr, x_val, y_val = split_dataset(load_digits(), val_fraction=0.2, seed=0)
    >>> x_tr.shape, x_val.shape
    ((1006, 1, 8, 8), (252, 1, 8, 8))
    """
    if not isinstance(dataset, Dataset):
        raise ValueError(f"dataset must be a Dataset; got {type(dataset).__name__}")
    if _fraction(val_fraction, "val_fraction") == 0.0:
        raise ValueError("val_fraction must be positive for a validation split; got 0")
    tr, va, _ = train_val_test_split(
        len(dataset.y_train), val_fraction=val_fraction, seed=seed, stratify=dataset.y_train if stratify else None
    )
    x, y = dataset.x_train, dataset.y_train
    return x[tr], y[tr], x[va], y[va]
