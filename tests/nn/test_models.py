"""Tests for credalbook.nn.models."""

import numpy as np
import pytest
import torch
from torch import nn

from credalbook.nn import count_parameters, mc_dropout_predict, MLP, SmallCNN

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


class TestMLP:
    def test_main(self):
        net = MLP(3 * 4 * 4, 5, hidden=(16, 8), dropout=0.2, activation="tanh")
        x = torch.rand(7, 3, 4, 4)
        assert net(x).shape == (7, 5)
        assert net.features(x).shape == (7, 8)
        assert net.feature_dim == 8
        net.eval()
        torch.testing.assert_close(net(x), net.head(net.features(x)))
        # flattening: (N, C, H, W) and (N, C*H*W) give the same logits
        torch.testing.assert_close(net(x), net(x.reshape(7, -1)))
        # hand count: 48*16+16 + 16*8+8 + 8*5+5
        assert count_parameters(net) == 48 * 16 + 16 + 16 * 8 + 8 + 8 * 5 + 5

    def test_logistic_regression(self):
        net = MLP(6, 3, hidden=())
        assert net.feature_dim == 6
        assert count_parameters(net) == 6 * 3 + 3
        assert not any(isinstance(m, nn.Dropout) for m in net.modules())

    def test_errors(self):
        with pytest.raises(ValueError, match="in_features"):
            MLP(0, 3)
        with pytest.raises(ValueError, match="n_classes"):
            MLP(4, 1)
        with pytest.raises(ValueError, match="hidden"):
            MLP(4, 3, hidden=(8, 0))
        with pytest.raises(ValueError, match="dropout"):
            MLP(4, 3, dropout=1.0)
        with pytest.raises(ValueError, match="activation"):
            MLP(4, 3, activation="swish2")
        with pytest.raises(ValueError, match="features after flattening"):
            MLP(4, 3)(torch.rand(2, 5))


class TestSmallCNN:
    def test_main(self):
        net = SmallCNN()
        x = torch.rand(3, 1, 28, 28)
        assert net(x).shape == (3, 10)
        assert net.features(x).shape == (3, 128)
        assert 50_000 <= count_parameters(net) <= 150_000

    def test_other_sizes(self):
        net = SmallCNN(in_channels=3, n_classes=4, image_size=(32, 16), channels=(8, 16, 16), hidden=20, dropout=0.3)
        x = torch.rand(2, 3, 32, 16)
        assert net(x).shape == (2, 4)
        assert net.features(x).shape == (2, 20)
        # parameter count does not depend on the image size (adaptive pooling)
        a = SmallCNN(in_channels=3, image_size=32)
        b = SmallCNN(in_channels=3, image_size=64)
        assert count_parameters(a) == count_parameters(b)

    def test_errors(self):
        with pytest.raises(ValueError, match="image_size"):
            SmallCNN(image_size=3)
        with pytest.raises(ValueError, match="channels"):
            SmallCNN(channels=())
        with pytest.raises(ValueError, match="x must have shape"):
            SmallCNN(image_size=28)(torch.rand(2, 1, 8, 8))
        with pytest.raises(ValueError, match="x must have shape"):
            SmallCNN(in_channels=3)(torch.rand(2, 1, 28, 28))


class TestCountParameters:
    def test_main(self):
        net = MLP(4, 3, hidden=(5,))
        assert count_parameters(net) == 43
        net.body[1].weight.requires_grad_(False)
        assert count_parameters(net, trainable_only=True) == 43 - 20

    def test_errors(self):
        with pytest.raises(ValueError, match="model"):
            count_parameters("not a model")


class TestMCDropoutPredict:
    @pytest.mark.parametrize("device", DEVICES)
    def test_main(self, device):
        net = MLP(16, 4, hidden=(32,), dropout=0.5)
        x = np.random.rand(9, 1, 4, 4).astype(np.float32)
        ens = mc_dropout_predict(net, x, n_samples=6, batch_size=4, device=device)
        assert ens.shape == (9, 6, 4)
        assert ens.dtype == np.float64
        np.testing.assert_allclose(ens.sum(axis=2), 1.0, atol=1e-12)
        # dropout active: samples of the same instance differ
        assert np.abs(ens - ens[:, :1]).max() > 1e-4
        # flags restored: a model in eval mode stays in eval mode
        net.eval()
        mc_dropout_predict(net, x, n_samples=2, device=device)
        assert not any(m.training for m in net.modules())

    def test_only_dropout_stochastic(self):
        # batch norm in eval mode: running statistics neither used from the batch nor updated
        net = nn.Sequential(
            nn.Flatten(), nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3)
        )
        net.train()
        before = net[2].running_mean.clone()
        x = torch.rand(5, 8)
        ens = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=1)
        torch.testing.assert_close(net[2].running_mean, before)
        assert all(m.training for m in net.modules())  # original flags restored
        # the same seed gives the same masks, so the same samples
        a = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=1)
        np.testing.assert_array_equal(ens, a)

    def test_no_dropout_identical(self):
        net = MLP(16, 4, hidden=(32,), dropout=0.0)
        x = torch.rand(5, 16)
        with pytest.warns(UserWarning, match="identical"):
            ens = mc_dropout_predict(net, x, n_samples=4, device="cpu")
        np.testing.assert_array_equal(ens, np.repeat(ens[:, :1], 4, axis=1))
        np.testing.assert_allclose(ens.sum(axis=2), 1.0, atol=1e-12)

    def test_seed(self):
        net = SmallCNN(image_size=8, channels=(4, 8), hidden=16, dropout=0.5)
        x = torch.rand(6, 1, 8, 8)
        state = torch.get_rng_state()
        a = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=7)
        torch.testing.assert_close(torch.get_rng_state(), state)  # global RNG untouched
        b = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=7)
        c = mc_dropout_predict(net, x, n_samples=3, device="cpu", seed=8)
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)

    def test_errors(self):
        net = MLP(4, 3, dropout=0.5)
        with pytest.raises(ValueError, match="n_samples"):
            mc_dropout_predict(net, torch.rand(2, 4), n_samples=0)
        with pytest.raises(ValueError, match="batch_size"):
            mc_dropout_predict(net, torch.rand(2, 4), batch_size=0)
        with pytest.raises(ValueError, match="x must have shape"):
            mc_dropout_predict(net, torch.rand(4))
        with pytest.raises(ValueError, match="model"):
            mc_dropout_predict(object(), torch.rand(2, 4))
        for bad in (-1, 1.5, True, "0", 2**64):  # None (the global RNG) and integers in torch's range only
            with pytest.raises(ValueError, match="seed must be an integer >= 0"):
                mc_dropout_predict(net, torch.rand(2, 4), seed=bad)
