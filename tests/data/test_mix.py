"""Tests for credalbook.data.mix, on tiny images made here and on scikit-learn's digits."""

import numpy as np
import pytest

from credalbook.data import (
    Dataset,
    load_digits,
    make_mix_dataset,
    mix_images,
    MixDataset,
    MixSplit,
    PAPER_MIX_SIZES,
    sample_label_hist,
    variable_label_counts,
)


def _source(n=60, k=4, seed=0):
    """Images whose pixels encode the source index, so mixtures can be checked exactly."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 2, 3, 3)).astype(np.float32)
    return x, np.arange(n) % k


class TestSampleLabelHist:
    def test_main(self):
        probs = np.array([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
        n_rep = 20_000
        hist = sample_label_hist(np.repeat(probs, n_rep, axis=0), 5, seed=0)
        assert hist.dtype == np.int64 and (hist.sum(axis=1) == 5).all()
        mean = hist.reshape(3, n_rep, 3).mean(axis=1) / 5
        # Monte Carlo: E[y] = n p; the standard error of each mean is <= sqrt(0.25 / (5 n_rep))
        np.testing.assert_allclose(mean, probs, atol=4 * np.sqrt(0.25 / (5 * n_rep)))
        assert hist.reshape(3, n_rep, 3)[1, :, 0].max() == 0  # zero-probability class never drawn
        # per-instance counts
        counts = np.array([1, 2, 7])
        assert (sample_label_hist(probs, counts, seed=1).sum(axis=1) == counts).all()
        # seeds
        np.testing.assert_array_equal(sample_label_hist(probs, 4, seed=3), sample_label_hist(probs, 4, seed=3))

    def test_errors(self):
        with pytest.raises(ValueError, match="true_probs must sum to 1"):
            sample_label_hist([[0.5, 0.6]], 2)
        with pytest.raises(ValueError, match="n_labels must be at least 1"):
            sample_label_hist([[0.5, 0.5]], 0)
        with pytest.raises(ValueError, match=r"n_labels must be an int or an array of shape \(1,\)"):
            sample_label_hist([[0.5, 0.5]], [1, 2])
        with pytest.raises(ValueError, match="n_labels must hold integers"):
            sample_label_hist([[0.5, 0.5]], 1.5)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
                sample_label_hist([[0.5, 0.5]], 1, seed=bad)
        with pytest.raises(ValueError, match="true_probs must be numeric"):
            sample_label_hist([[0.5 + 0j, 0.5]], 1)


class TestVariableLabelCounts:
    def test_main(self):
        counts = variable_label_counts(50_000, mean=5.79, seed=0)
        assert counts.shape == (50_000,) and counts.min() >= 1
        # n - 1 ~ Poisson(4.79): mean 5.79, variance 4.79
        assert counts.mean() == pytest.approx(5.79, abs=4 * np.sqrt(4.79 / 50_000))
        assert counts.var() == pytest.approx(4.79, rel=0.03)
        assert (variable_label_counts(10, mean=1.0, seed=0) == 1).all()

    def test_errors(self):
        with pytest.raises(ValueError, match="mean"):
            variable_label_counts(5, mean=0.5)
        with pytest.raises(ValueError, match="n must be"):
            variable_label_counts(-1, mean=2.0)
        with pytest.raises(ValueError, match="seed must be None, a non-negative integer"):
            variable_label_counts(5, mean=2.0, seed="a")


class TestMixImages:
    def test_main(self):
        x, y = _source(60, k=4)
        split = mix_images(x, y, n_classes=4, n_instances=30, mix_fraction=0.4, n_labels=3, seed=0)
        assert isinstance(split, MixSplit) and len(split) == 30
        assert split.images.shape == (30, 2, 3, 3) and split.images.dtype == np.float32
        # mix fraction respected exactly: round(0.4 * 30) = 12 mixtures
        assert split.is_mixed.sum() == 12
        # each source image used at most once
        used = split.sources[split.sources >= 0]
        assert len(np.unique(used)) == len(used) == 30 + 12
        # kept images are the source images, with one-hot truth of their class
        kept = ~split.is_mixed
        np.testing.assert_array_equal(split.images[kept], x[split.sources[kept, 0]])
        np.testing.assert_array_equal(split.true_probs[kept], np.eye(4)[y[split.sources[kept, 0]]])
        assert (split.ratio[kept] == 1).all() and (split.sources[kept, 1] == -1).all()
        # mixtures: r img1 + (1 - r) img2, and Q puts r on img1's class and 1 - r on img2's
        m = split.is_mixed
        r = split.ratio[m]
        assert ((r > 0) & (r < 1)).all()
        expected = (
            r[:, None, None, None] * x[split.sources[m, 0]] + (1 - r[:, None, None, None]) * x[split.sources[m, 1]]
        )
        np.testing.assert_allclose(split.images[m], expected, rtol=1e-6)
        truth = r[:, None] * np.eye(4)[y[split.sources[m, 0]]] + (1 - r[:, None]) * np.eye(4)[y[split.sources[m, 1]]]
        np.testing.assert_allclose(split.true_probs[m], truth)
        np.testing.assert_allclose(split.true_probs.sum(axis=1), 1.0)
        # histograms: row sums = n_i, labels only where the truth is positive
        assert (split.n_labels == 3).all()
        assert (split.label_hist[split.true_probs == 0] == 0).all()
        # arrays are read-only
        with pytest.raises(ValueError):
            split.images[0, 0, 0, 0] = 1.0

    def test_default_size_and_fraction_extremes(self):
        x, y = _source(40)
        assert len(mix_images(x, y, n_classes=4, mix_fraction=1 / 3, seed=0)) == 30  # 30 + 10 = 40
        assert len(mix_images(x, y, n_classes=4, mix_fraction=1.0, seed=0)) == 20
        none = mix_images(x, y, n_classes=4, mix_fraction=0.0, seed=0)
        assert len(none) == 40 and not none.is_mixed.any()
        np.testing.assert_array_equal(np.sort(none.sources[:, 0]), np.arange(40))

    def test_ratio_uniform_and_labels_match_truth(self):
        x, y = _source(3000, k=2, seed=1)
        split = mix_images(x, y, n_classes=2, mix_fraction=1.0, n_labels=5, seed=0)
        r = split.ratio
        # U(0, 1): mean 1/2 and variance 1/12
        assert r.mean() == pytest.approx(0.5, abs=4 * np.sqrt(1 / 12 / len(r)))
        assert r.var() == pytest.approx(1 / 12, rel=0.1)
        # Monte Carlo check of E[y_i] = n_i Q_i, averaged over instances: sum (y - 5 Q) ~ 0
        resid = split.label_hist - 5 * split.true_probs
        sd = np.sqrt((5 * split.true_probs * (1 - split.true_probs)).sum(axis=0))
        assert (np.abs(resid.sum(axis=0)) < 4 * sd).all()

    def test_seed_and_labels_independent_of_images(self):
        x, y = _source(60)
        a = mix_images(x, y, n_classes=4, n_labels=2, seed=5)
        b = mix_images(x, y, n_classes=4, n_labels=2, seed=5)
        c = mix_images(x, y, n_classes=4, n_labels=7, seed=5)
        np.testing.assert_array_equal(a.label_hist, b.label_hist)
        np.testing.assert_array_equal(a.images, c.images)
        np.testing.assert_array_equal(a.true_probs, c.true_probs)
        assert not np.array_equal(a.images, mix_images(x, y, n_classes=4, seed=6).images)

    def test_labels_property(self):
        x, y = _source(30)
        single = mix_images(x, y, n_classes=4, seed=0)
        np.testing.assert_array_equal(single.labels, single.label_hist.argmax(axis=1))
        with pytest.raises(ValueError, match="one label per instance"):
            _ = mix_images(x, y, n_classes=4, n_labels=2, seed=0).labels

    def test_errors(self):
        x, y = _source(30)
        with pytest.raises(ValueError, match="images must be a real array"):
            mix_images(x[0], y, n_classes=4)
        with pytest.raises(ValueError, match="labels must hold 30"):
            mix_images(x, y[:5], n_classes=4)
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\)"):
            mix_images(x, y, n_classes=3)
        with pytest.raises(ValueError, match="n_classes"):
            mix_images(x, y, n_classes=1)
        with pytest.raises(ValueError, match="mix_fraction"):
            mix_images(x, y, n_classes=4, mix_fraction=1.5)
        with pytest.raises(ValueError, match=r"n_instances must be an int in \[0, 22\]"):
            mix_images(x, y, n_classes=4, n_instances=23)
        with pytest.raises(ValueError, match=r"n_labels must be an int or an array of shape \(22,\)"):
            mix_images(x, y, n_classes=4, n_labels=np.ones(5, int))


class TestMixSplit:
    def test_main(self):
        x, y = _source(30)
        split = mix_images(x, y, n_classes=4, n_labels=[1, 2] * 11, seed=0)
        assert repr(split) == "MixSplit(n=22, n_mixed=7, n_labels=1.5, image_shape=(2, 3, 3), n_classes=4)"
        assert len(split) == 22 and split.n_classes == 4
        np.testing.assert_array_equal(split.n_labels, [1, 2] * 11)

    def test_errors(self):
        x, y = _source(30)
        split = mix_images(x, y, n_classes=4, seed=0)
        with pytest.raises(ValueError, match="true_probs must have 22 rows like images"):
            MixSplit(split.images, split.true_probs[:3], split.label_hist, split.is_mixed, split.ratio, split.sources)


class TestMakeMixDataset:
    def test_main(self):
        mix = make_mix_dataset(
            "digits", sizes=(600, 150, 150), mix_fraction=0.5, n_labels_val=5, n_labels_test=10, seed=0
        )
        assert isinstance(mix, MixDataset)
        assert mix.name == "mix_digits" and mix.n_classes == 10 and mix.image_shape == (1, 8, 8)
        assert [len(s) for s in (mix.train, mix.val, mix.test)] == [600, 150, 150]
        assert [int(s.is_mixed.sum()) for s in (mix.train, mix.val, mix.test)] == [300, 75, 75]
        assert mix.train.labels.shape == (600,)
        assert (mix.val.n_labels == 5).all() and (mix.test.n_labels == 10).all()
        # sources index the pooled train + test images, disjoint across splits
        base = load_digits()
        pool_x = np.concatenate([base.x_train, base.x_test])
        pool_y = np.concatenate([base.y_train, base.y_test])
        used = np.concatenate([s.sources[s.sources >= 0] for s in (mix.train, mix.val, mix.test)])
        assert len(np.unique(used)) == len(used) == 900 + 450
        kept = ~mix.test.is_mixed
        np.testing.assert_array_equal(mix.test.images[kept], pool_x[mix.test.sources[kept, 0]])
        np.testing.assert_array_equal(mix.test.true_probs[kept].argmax(1), pool_y[mix.test.sources[kept, 0]])

    def test_reproducible_and_splits_independent(self):
        kw = dict(sizes=(300, 100, 100), seed=3)
        a = make_mix_dataset("digits", n_labels_val=2, **kw)
        b = make_mix_dataset("digits", n_labels_val=2, **kw)
        c = make_mix_dataset("digits", n_labels_val=5, **kw)
        for s, t in ((a.train, b.train), (a.val, b.val), (a.test, b.test)):
            np.testing.assert_array_equal(s.images, t.images)
            np.testing.assert_array_equal(s.label_hist, t.label_hist)
        # changing the validation labels leaves every image and the other splits' labels alone
        np.testing.assert_array_equal(a.val.images, c.val.images)
        np.testing.assert_array_equal(a.test.label_hist, c.test.label_hist)
        np.testing.assert_array_equal(a.train.label_hist, c.train.label_hist)
        d = make_mix_dataset("digits", sizes=(300, 100, 100), seed=4)
        assert not np.array_equal(a.train.images, d.train.images)

    def test_default_sizes_and_variable_counts(self):
        rng = np.random.default_rng(0)
        x = rng.random((70, 1, 2, 2)).astype(np.float32)
        ds = Dataset(x[:50], np.arange(50) % 3, x[50:], np.arange(20) % 3, classes=("a", "b", "c"), name="toy")
        mix = make_mix_dataset(ds, seed=0)
        # 70 images / (1 + 1/3) = 52.5 instances, split 5 : 1 : 1
        assert (len(mix.train), len(mix.val), len(mix.test)) == (35, 7, 7)
        counts = variable_label_counts(7, mean=3.0, seed=0)
        mix = make_mix_dataset(ds, n_labels_test=counts, seed=0)
        np.testing.assert_array_equal(mix.test.n_labels, counts)
        assert PAPER_MIX_SIZES["mnist"] == (37_500, 7_500, 7_500)

    def test_errors(self):
        with pytest.raises(ValueError, match="need 2400 source images but 'digits' has 1797"):
            make_mix_dataset("digits", sizes=(1200, 300, 300), mix_fraction=1 / 3)
        with pytest.raises(ValueError, match="sizes must be three positive ints"):
            make_mix_dataset("digits", sizes=(10, 10))
        with pytest.raises(ValueError, match="dataset must be"):
            make_mix_dataset(np.zeros(3))
        with pytest.raises(ValueError, match="name must be one of"):
            make_mix_dataset("no_such_data")
        for bad in (-1, 1.5, True, np.random.default_rng(0)):  # checked before the dataset is loaded
            with pytest.raises(ValueError, match="seed must be None, a non-negative integer, a numpy SeedSequence"):
                make_mix_dataset("no_such_data", seed=bad)
