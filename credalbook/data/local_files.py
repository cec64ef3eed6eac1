"""The local files of a dataset: where they are found, how they are fingerprinted and checked.

A loader of :mod:`credalbook.data.images` resolves its folder (an argument, else an environment
variable, else a subfolder of ``$CREDALBOOK_DATA_DIR`` or ``~/.cache/credalbook/data``), finds its
files there or raises :class:`~credalbook.data.DatasetNotFoundError` saying how to obtain them,
checks published MD5 checksums (memoised per path, modification time and size), and checks the
decoded images and labels of each split before they become a read-only :class:`~credalbook.data.Dataset`.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numpy as np

from credalbook.data.dataset import DatasetNotFoundError


def _data_dir() -> Path:
    return Path(os.environ.get("CREDALBOOK_DATA_DIR") or "~/.cache/credalbook/data").expanduser()


def _resolve_root(root, env: str, default: Path) -> Path:
    if root is None:
        root = os.environ.get(env) or default
    return Path(root).expanduser()


def _find(root: Path, names, *, allow_gz: bool, title: str, how_to: str) -> list[Path]:
    """Locate each file (preferring ``name.gz`` when allowed) or raise DatasetNotFoundError."""
    found, missing = [], []
    for name in names:
        candidates = [root / f"{name}.gz", root / name] if allow_gz else [root / name]
        hit = next((p for p in candidates if p.is_file()), None)
        (found if hit else missing).append(hit or name)
    if missing:
        where = f"{root} lacks {', '.join(map(str, missing))}" if root.is_dir() else f"folder {root} does not exist"
        raise DatasetNotFoundError(f"{title} not found: {where}. {how_to}")
    return found


def _signature(path: Path) -> tuple:
    path = path.resolve()
    st = path.stat()
    return str(path), st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=64)
def _md5(signature: tuple) -> str:
    digest = hashlib.md5()
    with open(signature[0], "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_md5(paths, accepted: dict) -> None:
    for path in paths:
        if path.name not in accepted:
            continue  # uncompressed copies: no reference checksum, validated by shape instead
        got = _md5(_signature(path))
        if got not in accepted[path.name]:
            raise ValueError(
                f"checksum mismatch for {path}: MD5 {got}, expected "
                f"{' or '.join(accepted[path.name])}; the file is corrupt or another "
                "release (pass verify=False to skip the check)"
            )


def _to_unit(images: np.ndarray) -> np.ndarray:
    """uint8 images -> float32 in [0, 1] (255 maps exactly to 1.0)."""
    return np.divide(images, np.float32(255), dtype=np.float32)


def _frozen(*arrays):
    for a in arrays:
        a.setflags(write=False)
    return arrays


def _checked_images_labels(
    x: np.ndarray, y: np.ndarray, img_path, lab_path, n_classes: int, label_offset: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Check one split read from disk: uint8 (N, 28, 28) images, N integer labels in
    [label_offset, n_classes + label_offset); returns the images and the labels shifted to int64 [0, n_classes)."""
    if x.dtype != np.uint8 or x.ndim != 3 or x.shape[1:] != (28, 28):
        raise ValueError(
            f"{img_path} must hold uint8 images of shape (N, 28, 28); got dtype {x.dtype} and shape {x.shape}"
        )
    if y.shape != (len(x),) or y.dtype.kind not in "iu":
        raise ValueError(f"{lab_path} must hold {len(x)} integer labels; got dtype {y.dtype} and shape {y.shape}")
    y = y.astype(np.int64) - label_offset
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(
            f"{lab_path} holds labels from {y.min() + label_offset} to "
            f"{y.max() + label_offset}; expected [{label_offset}, "
            f"{n_classes + label_offset})"
        )
    return x, y
