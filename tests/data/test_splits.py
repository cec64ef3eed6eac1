"""Tests for credalbook.data.splits (stratified train / validation / test indices)."""

import numpy as np
import pytest

from credalbook.data import train_val_test_split


class TestTrainValTestSplit:
    def test_main(self):
        tr, va, te = train_val_test_split(1000, val_fraction=0.15, test_fraction=0.25, seed=7)
        assert (len(tr), len(va), len(te)) == (600, 150, 250)
        assert all(p.dtype == np.int64 and np.all(np.diff(p) > 0) for p in (tr, va, te))
        np.testing.assert_array_equal(np.sort(np.concatenate([tr, va, te])), np.arange(1000))
        again = train_val_test_split(1000, val_fraction=0.15, test_fraction=0.25, seed=7)
        assert all(np.array_equal(a, b) for a, b in zip((tr, va, te), again))
        other = train_val_test_split(1000, val_fraction=0.15, test_fraction=0.25, seed=8)
        assert not np.array_equal(other[1], va)
        tr, va, te = train_val_test_split(10)  # defaults: 10 % validation, no test
        assert (len(tr), len(va), len(te)) == (9, 1, 0)
        assert len(train_val_test_split(5, val_fraction=0.01)[1]) == 1  # positive -> at least 1

    def test_stratified(self):
        labels = np.repeat(["x", "y", "z"], [100, 200, 300])
        labels = np.random.default_rng(0).permutation(labels)
        tr, va, te = train_val_test_split(600, val_fraction=0.1, test_fraction=0.2, seed=3, stratify=labels)
        for part, expected in ((tr, [70, 140, 210]), (va, [10, 20, 30]), (te, [20, 40, 60])):
            np.testing.assert_array_equal(np.unique(labels[part], return_counts=True)[1], expected)
        np.testing.assert_array_equal(np.sort(np.concatenate([tr, va, te])), np.arange(600))
        # uneven classes: totals exact, each class within one of its share
        labels = np.repeat(np.arange(7), [1, 2, 3, 5, 8, 13, 21])
        tr, va, te = train_val_test_split(53, val_fraction=0.2, test_fraction=0.3, seed=0, stratify=labels)
        assert (len(va), len(te)) == (11, 16)
        share = np.bincount(labels[te], minlength=7) - np.bincount(labels) * 16 / 53
        assert np.all(np.abs(share) < 1 + 1e-9)
        np.testing.assert_array_equal(np.sort(np.concatenate([tr, va, te])), np.arange(53))

    def test_errors(self):
        for kwargs, word in (
            ({"val_fraction": -0.1}, "val_fraction"),
            ({"val_fraction": 1.0}, "val_fraction"),
            ({"test_fraction": "0.2"}, "test_fraction"),
            ({"val_fraction": 0.5, "test_fraction": 0.5}, r"fraction \+ test"),
        ):
            with pytest.raises(ValueError, match=word):
                train_val_test_split(10, **kwargs)
        for n in (0, 2.5, True):
            with pytest.raises(ValueError, match="n must be"):
                train_val_test_split(n)
        with pytest.raises(ValueError, match="no training example"):
            train_val_test_split(2, val_fraction=0.5, test_fraction=0.4)
        with pytest.raises(ValueError, match=r"stratify must have shape \(10,\)"):
            train_val_test_split(10, stratify=np.zeros(9))
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                train_val_test_split(10, seed=bad)
