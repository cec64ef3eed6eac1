"""Tests for credalbook.nn.predictions: model construction and cached training on scikit-learn's digits."""

import time

import numpy as np
import pytest
import torch

from credalbook.nn import build_model, MLP, ModelPredictions, PredictionsConfig, SmallCNN, train_predictions

# 3 epochs of a small MLP on digits (1132 training images); lr=1e-2 so that 3 epochs reach > 80 %.
TRAIN_KW = dict(hidden=(32,), epochs=3, lr=1e-2, progress=False)


class TestBuildModel:
    def test_main(self):
        mlp = build_model("mlp", n_classes=10, image_shape=(1, 8, 8), hidden=(16,))
        assert isinstance(mlp, MLP) and mlp.in_features == 64 and mlp.feature_dim == 16
        assert mlp(torch.zeros(2, 1, 8, 8)).shape == (2, 10)
        cnn = build_model("cnn", n_classes=10, image_shape=(1, 8, 8), hidden=(16,), channels=(4, 8))
        assert isinstance(cnn, SmallCNN) and cnn.feature_dim == 16 and cnn.image_size == (8, 8)
        assert cnn(torch.zeros(3, 1, 8, 8)).shape == (3, 10)
        rgb = build_model("cnn", n_classes=100, image_shape=(3, 32, 32))
        assert rgb(torch.zeros(2, 3, 32, 32)).shape == (2, 100)

    def test_options(self):
        logreg = build_model("mlp", n_classes=3, image_shape=(1, 4, 4), hidden=())
        assert sum(p.numel() for p in logreg.parameters()) == 16 * 3 + 3
        assert build_model("cnn", n_classes=3, image_shape=(1, 8, 8), hidden=()).feature_dim == 128
        drop = build_model("mlp", n_classes=3, image_shape=(1, 4, 4), hidden=(8,), dropout=0.5)
        assert any(isinstance(m, torch.nn.Dropout) for m in drop.modules())

    def test_non_square_images(self):
        cnn = build_model("cnn", n_classes=3, image_shape=(1, 8, 12), channels=(4, 8))
        assert cnn(torch.zeros(2, 1, 8, 12)).shape == (2, 3)

    def test_errors(self):
        with pytest.raises(ValueError, match=r"arch must be one of \['cnn', 'mlp'\]; got 'resnet'"):
            build_model("resnet", n_classes=10, image_shape=(1, 8, 8))
        with pytest.raises(ValueError, match="n_classes"):
            build_model("mlp", n_classes=1, image_shape=(1, 8, 8))
        with pytest.raises(ValueError, match="image_size"):
            build_model("cnn", n_classes=10, image_shape=(1, 2, 2), channels=(4, 8))
        with pytest.raises(ValueError):
            build_model("mlp", n_classes=10, image_shape=(8, 8))


class TestModelPredictions:
    def test_main(self):
        logits = np.array([[1000.0, 0.0, -1000.0], [0.0, 0.0, 0.0]])
        mp = ModelPredictions(logits, np.array([0, 1]), logits[::-1].copy(), np.array([1, 0]), [], 0, 0, 0.0, {})
        np.testing.assert_allclose(mp.probs_val, [[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
        np.testing.assert_allclose(mp.probs_test, mp.probs_val[::-1])
        assert np.all(np.isfinite(mp.probs_val))

    def test_errors(self):
        mp = ModelPredictions(np.zeros((1, 2)), np.zeros(1), np.zeros((1, 2)), np.zeros(1), [], 0, 0, 0.0, {})
        with pytest.raises(AttributeError):
            mp.best_epoch = 3  # frozen


class TestTrainPredictions:
    def test_main(self, tmp_cache):
        t0 = time.perf_counter()
        res = train_predictions("digits", seed=0, **TRAIN_KW)
        first = time.perf_counter() - t0
        assert isinstance(res, ModelPredictions)
        # digits: 1258 training images, 10 % stratified validation, 539 test images, 10 classes
        assert res.logits_val.shape == (126, 10) and res.y_val.shape == (126,)
        assert res.logits_test.shape == (539, 10) and res.y_test.shape == (539,)
        np.testing.assert_allclose(res.probs_val.sum(axis=1), 1.0, atol=1e-6)
        np.testing.assert_allclose(res.probs_test.sum(axis=1), 1.0, atol=1e-6)
        assert np.all(np.bincount(res.y_val, minlength=10) >= 12)  # stratified: every class present
        acc = float((res.probs_test.argmax(axis=1) == res.y_test).mean())
        assert acc > 0.8, acc
        assert res.epochs_run == 3 and len(res.history) == 3
        assert res.config["dataset"] == "digits" and res.config["hidden"] == (32,) and res.config["seed"] == 0
        stored = list(tmp_cache.rglob("output.pkl"))
        assert len(stored) == 1

        # same arguments: loaded from the cache, identical, fast
        t0 = time.perf_counter()
        again = train_predictions("digits", seed=0, **TRAIN_KW)
        assert time.perf_counter() - t0 < max(1.0, first / 3)
        np.testing.assert_array_equal(again.logits_test, res.logits_test)
        np.testing.assert_array_equal(again.logits_val, res.logits_val)
        # device and progress are not part of the key
        same = train_predictions("digits", seed=0, device="cpu", **TRAIN_KW)
        np.testing.assert_array_equal(same.logits_test, res.logits_test)
        assert len(list(tmp_cache.rglob("output.pkl"))) == 1

        # another seed: another network and split
        other = train_predictions("digits", seed=1, **TRAIN_KW)
        assert not np.allclose(other.logits_test, res.logits_test)
        assert len(list(tmp_cache.rglob("output.pkl"))) == 2

    def test_config(self, tmp_cache):
        """config= gives the result of the keyword options (the same cached computation)."""
        res = train_predictions("digits", seed=0, **TRAIN_KW)
        cfg = PredictionsConfig(hidden=(32,), epochs=3, lr=1e-2)
        again = train_predictions("digits", seed=0, config=cfg, progress=False)
        np.testing.assert_array_equal(again.logits_test, res.logits_test)
        assert again.config == res.config and len(list(tmp_cache.rglob("output.pkl"))) == 1
        with pytest.raises(TypeError, match=r"unexpected keyword arguments \['epoch'\]"):
            train_predictions("digits", epoch=3)

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="arch"):
            train_predictions("digits", arch="transformer", **TRAIN_KW)
        with pytest.raises(ValueError, match="name must be one of .*got 'no_such_dataset'"):
            train_predictions("no_such_dataset", **TRAIN_KW)
        assert not list(tmp_cache.rglob("output.pkl"))  # failures are not cached
