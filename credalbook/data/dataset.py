"""The image dataset of the loaders: a fixed train/test split of float32 images with int64 labels.

:class:`Dataset` checks and converts its arrays once; :class:`DatasetNotFoundError` is what a loader of
:mod:`credalbook.data.images` raises when a dataset's files are not on this machine.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from credalbook._validation import as_rng

__all__ = ["Dataset", "DatasetNotFoundError"]


class DatasetNotFoundError(FileNotFoundError):
    """A dataset's files are not on this machine; the message says how to obtain them.

    Examples
    --------
    >>> issubclass(DatasetNotFoundError, FileNotFoundError)
    True
    """


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """An image classification dataset with a fixed train/test split.

    `x_train` and `x_test` (N, C, H, W) hold float images, stored as float32 (the loaders give
    values in [0, 1]); `y_train` and `y_test` (N,) hold integer labels in [0, K), stored as int64;
    ``classes[k]`` names label k; `name` is the registry name, e.g. ``"fashion_mnist"``.

    Examples
    --------
    >>> ds = Dataset(np.zeros((4, 1, 2, 2)), [0, 1, 1, 0], np.ones((2, 1, 2, 2)), [1, 0],
    ...              classes=("a", "b"), name="toy")
    >>> ds
    Dataset(name='toy', n_train=4, n_test=2, image_shape=(1, 2, 2), n_classes=2)
    >>> ds.subsample(n_train=2).y_train.shape
    (2,)
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: tuple
    name: str

    def __post_init__(self):
        classes = tuple(self.classes)
        if not classes or not all(isinstance(c, str) for c in classes):
            raise ValueError(f"classes must be a non-empty sequence of str; got {self.classes!r}")
        object.__setattr__(self, "classes", classes)
        if not isinstance(self.name, str):
            raise ValueError(f"name must be a str; got {self.name!r}")
        for part in ("train", "test"):
            x, y = np.asarray(getattr(self, "x_" + part)), np.asarray(getattr(self, "y_" + part))
            if x.ndim != 4 or not np.issubdtype(x.dtype, np.floating):
                raise ValueError(
                    f"x_{part} must be a float array of shape (N, C, H, W); got dtype {x.dtype} and shape {x.shape}"
                )
            if y.ndim != 1 or len(y) != len(x) or (y.size and y.dtype.kind not in "iu"):
                raise ValueError(
                    f"y_{part} must hold {len(x)} integer labels (one per row of "
                    f"x_{part}); got dtype {y.dtype} and shape {y.shape}"
                )
            if y.size and (y.min() < 0 or y.max() >= len(classes)):
                raise ValueError(f"y_{part} must lie in [0, {len(classes)}); got labels from {y.min()} to {y.max()}")
            object.__setattr__(self, "x_" + part, np.asarray(x, dtype=np.float32))
            object.__setattr__(self, "y_" + part, np.asarray(y, dtype=np.int64))
        if self.x_train.shape[1:] != self.x_test.shape[1:]:
            raise ValueError(
                f"x_train images have shape {self.x_train.shape[1:]} but x_test "
                f"images have shape {self.x_test.shape[1:]}"
            )

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return len(self.classes)

    @property
    def image_shape(self) -> tuple:
        """Shape (C, H, W) of one image."""
        return tuple(self.x_train.shape[1:])

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_train={len(self.y_train)}, "
            f"n_test={len(self.y_test)}, image_shape={self.image_shape}, "
            f"n_classes={self.n_classes})"
        )

    def subsample(self, n_train: int | None = None, n_test: int | None = None, *, seed: int = 0) -> Dataset:
        """Return a new Dataset keeping `n_train` / `n_test` random examples (None keeps all).

        Drawn without replacement (not stratified) by ``numpy.random.default_rng(seed)``, in the
        original order; equal seeds give equal subsets and the arrays are writable copies.
        """
        rng = as_rng(seed)
        parts = {}
        for part, n in (("train", n_train), ("test", n_test)):
            x, y = getattr(self, "x_" + part), getattr(self, "y_" + part)
            if n is None:
                parts.update({"x_" + part: x.copy(), "y_" + part: y.copy()})
                continue
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= len(y):
                raise ValueError(f"n_{part} must be an int in [1, {len(y)}]; got {n!r}")
            idx = np.sort(rng.choice(len(y), size=int(n), replace=False))
            parts.update({"x_" + part: x[idx], "y_" + part: y[idx]})
        return Dataset(**parts, classes=self.classes, name=self.name)
