"""Deterministic, optionally stratified train / validation / test index splits.

:func:`train_val_test_split` returns index arrays; :func:`credalbook.data.split_dataset` applies it to
a :class:`~credalbook.data.Dataset`'s training part. Group sizes are allocated by the largest
remainder, so every stratum keeps its share up to one instance.
"""

from __future__ import annotations

import numpy as np

from credalbook._validation import as_rng

__all__ = ["train_val_test_split"]


def _fraction(value, argument: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not 0.0 <= float(value) < 1.0
    ):
        raise ValueError(f"{argument} must be a number in [0, 1); got {value!r}")
    return float(value)


def _allocate(total: int, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Split `total` over groups proportionally to `counts` (largest remainder, random ties)."""
    exact = counts * (total / counts.sum()) if counts.sum() else np.zeros(len(counts))
    base = np.minimum(np.floor(exact).astype(np.int64), counts)
    remainder = exact - base
    order = np.lexsort((rng.random(len(counts)), -remainder))
    order = order[base[order] < counts[order]]
    base[order[: total - base.sum()]] += 1
    return base


def train_val_test_split(
    n: int, *, val_fraction: float = 0.1, test_fraction: float = 0.0, seed: int = 0, stratify=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deterministic random split of ``range(n)`` into train, validation and test indices.

    The validation and test sizes are ``round(fraction * n)``, at least 1 for a positive fraction;
    training gets the rest. With `stratify` (labels of shape (n,)), every class contributes to
    validation and test in proportion to its size, with largest-remainder rounding so the totals
    stay exact. Randomness comes from ``numpy.random.default_rng(seed)``.

    `val_fraction` and `test_fraction` lie in [0, 1) with a sum below 1. Returns
    ``(idx_train, idx_val, idx_test)``: sorted, disjoint int64 arrays that together cover
    ``range(n)``.

    Examples
    --------
    >>> tr, va, te = train_val_test_split(10, val_fraction=0.2, test_fraction=0.1, seed=0)
    >>> len(tr), len(va), len(te)
    (7, 2, 1)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int; got {n!r}")
    rng = as_rng(seed)
    val_fraction = _fraction(val_fraction, "val_fraction")
    test_fraction = _fraction(test_fraction, "test_fraction")
    if val_fraction + test_fraction >= 1.0:
        raise ValueError(f"val_fraction + test_fraction must be below 1; got {val_fraction} + {test_fraction}")
    n_val, n_test = (max(int(round(f * n)), int(f > 0)) for f in (val_fraction, test_fraction))
    if n - n_val - n_test < 1:
        raise ValueError(
            f"n={n} is too small for val_fraction={val_fraction} and "
            f"test_fraction={test_fraction}: no training example would be left"
        )
    if stratify is None:
        perm = rng.permutation(n)
        test, val, train = perm[:n_test], perm[n_test : n_test + n_val], perm[n_test + n_val :]
    else:
        labels = np.asarray(stratify)
        if labels.shape != (n,):
            raise ValueError(f"stratify must have shape ({n},); got {labels.shape}")
        _, groups = np.unique(labels, return_inverse=True)
        counts = np.bincount(groups)
        held = _allocate(n_val + n_test, counts, rng)
        n_test_k = _allocate(n_test, held, rng)
        train, val, test = [], [], []
        for k, members in enumerate(np.split(np.argsort(groups, kind="stable"), np.cumsum(counts)[:-1])):
            members = rng.permutation(members)
            test.append(members[: n_test_k[k]])
            val.append(members[n_test_k[k] : held[k]])
            train.append(members[held[k] :])
        train, val, test = (np.concatenate(p) for p in (train, val, test))
    return tuple(np.sort(p).astype(np.int64) for p in (train, val, test))
