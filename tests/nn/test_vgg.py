"""Tests for the networks of Mimori et al. (2022) in credalbook.nn.vgg (ThreeConvNet, VGGNet)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from credalbook.calibration import RandomAugment
from credalbook.nn import count_parameters, fit, mc_dropout_predict, ThreeConvNet, VGG16_LAYERS, VGGNet
from credalbook.nn.vgg import _SameMaxPool2d

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


def _steps_lower_loss(net, x, y, n_steps=15, lr=3e-3):
    """Loss before and after a few Adam steps on one tiny batch (dropout on)."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    first = None
    for _ in range(n_steps):
        loss = F.cross_entropy(net(x), y)
        first = loss.item() if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    return first, F.cross_entropy(net(x), y).item()


class TestSameMaxPool2d:
    def test_main(self):
        # TensorFlow "same": 14 -> ceil(14 / 4) = 4 outputs, one -inf pixel of padding per side
        x = torch.arange(14 * 14, dtype=torch.float32).reshape(1, 1, 14, 14)
        out = _SameMaxPool2d(4)(x)
        assert out.shape == (1, 1, 4, 4)
        # windows cover rows/cols [-1, 3), [3, 7), [7, 11), [11, 15): maxima at 2, 6, 10, 13
        idx = torch.tensor([2, 6, 10, 13])
        torch.testing.assert_close(out[0, 0], x[0, 0][idx][:, idx])
        assert _SameMaxPool2d(2)(torch.zeros(2, 3, 28, 28)).shape == (2, 3, 14, 14)
        assert _SameMaxPool2d(4)(torch.zeros(1, 1, 5, 9)).shape == (1, 1, 2, 3)


class TestThreeConvNet:
    def test_main(self):
        torch.manual_seed(0)
        net = ThreeConvNet()
        x = torch.rand(3, 1, 28, 28)
        assert net(x).shape == (3, 10)
        assert net.features(x).shape == (3, 128) and net.feature_dim == 128
        # hand count: 1*32*25+32, 32*64*49+64, 64*128*121+128, 128*10+10
        assert count_parameters(net) == 832 + 100_416 + 991_360 + 1290
        net.eval()
        torch.testing.assert_close(net(x), net.head(net.features(x)))
        # dropout 0.5 before the head, so MC dropout gives varying samples
        assert sum(isinstance(m, nn.Dropout) for m in net.modules()) == 1
        ens = mc_dropout_predict(net, x, n_samples=4, device="cpu", seed=0)
        assert ens.shape == (3, 4, 10) and ens.std(axis=1).max() > 0
        # Keras-style initialisation: zero biases
        assert all(
            float(m.bias.detach().abs().max()) == 0 for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))
        )

    def test_code_variant(self):
        net = ThreeConvNet(
            in_channels=3,
            n_classes=4,
            image_size=12,
            channels=(4, 6, 8),
            kernel_sizes=(3, 3, 5),
            conv_dropout=0.1,
            hidden=16,
        )
        x = torch.rand(2, 3, 12, 12)
        assert net(x).shape == (2, 4) and net.features(x).shape == (2, 16)
        assert sum(isinstance(m, nn.Dropout) for m in net.modules()) == 3 + 2

    def test_training_lowers_loss(self):
        torch.manual_seed(1)
        net = ThreeConvNet(image_size=12, channels=(4, 8, 8), kernel_sizes=(3, 3, 3), n_classes=3)
        x = torch.rand(24, 1, 12, 12)
        y = torch.arange(24) % 3
        x[y == 1, :, :6] += 1.0  # classes differ in brightness of the top half
        x[y == 2, :, 6:] += 1.0
        before, after = _steps_lower_loss(net, x, y, n_steps=30, lr=1e-2)
        assert after < before - 0.3

    def test_errors(self):
        with pytest.raises(ValueError, match="kernel_sizes must be odd"):
            ThreeConvNet(kernel_sizes=(5, 6, 11))
        with pytest.raises(ValueError, match="channels and kernel_sizes must have 3 entries"):
            ThreeConvNet(channels=(8, 8))
        with pytest.raises(ValueError, match="dropout"):
            ThreeConvNet(dropout=1.5)
        with pytest.raises(ValueError, match="hidden"):
            ThreeConvNet(hidden=0)
        with pytest.raises(ValueError, match="n_classes"):
            ThreeConvNet(n_classes=1)
        with pytest.raises(ValueError, match=r"x must have shape \(N, 1, 28, 28\)"):
            ThreeConvNet()(torch.rand(2, 1, 32, 32))


class TestVGGNet:
    def test_main(self):
        net = VGGNet()
        # VGG16 convolutions (14 714 688 weights) + 512*128+128 + 128*10+10
        assert count_parameters(net) == 14_714_688 + 65_664 + 1290
        assert sum(1 for v in VGG16_LAYERS if v != "M") == 13 and VGG16_LAYERS.count("M") == 5
        small = VGGNet(layers=(8, "M", 16, "M"), hidden=12, n_classes=5)
        x = torch.rand(3, 3, 32, 32)
        assert small(x).shape == (3, 5) and small.features(x).shape == (3, 12)
        assert small.feature_dim == 12
        assert sum(isinstance(m, nn.Dropout) for m in small.modules()) == 2
        # global max pooling: parameters do not depend on the image size
        other = VGGNet(layers=(8, "M", 16, "M"), hidden=12, n_classes=5, image_size=48)
        assert count_parameters(other) == count_parameters(small)
        assert other(torch.rand(1, 3, 48, 48)).shape == (1, 5)
        bn = VGGNet(layers=(8, "M"), batch_norm=True)
        assert sum(isinstance(m, nn.BatchNorm2d) for m in bn.modules()) == 1

    @pytest.mark.parametrize("device", DEVICES)
    def test_training_with_fit_and_augmentation(self, device):
        torch.manual_seed(2)
        net = VGGNet(layers=(8, "M", 16, "M"), hidden=16, n_classes=2, dropout=0.1)
        rng = np.random.default_rng(0)
        x = rng.random((64, 3, 32, 32)).astype(np.float32)
        y = np.arange(64) % 2
        x[y == 1, 0] += 1.0  # class 1 is redder
        res = fit(
            net,
            x,
            y,
            x_val=x,
            y_val=y,
            epochs=8,
            batch_size=16,
            lr=3e-3,
            device=device,
            progress=False,
            augment=RandomAugment(rotation=180, shift=4, hflip=True),
        )
        assert res.history[-1]["train_loss"] < res.history[0]["train_loss"]
        assert res.history[-1]["val_accuracy"] > 0.9

    def test_errors(self):
        with pytest.raises(ValueError, match="image_size must be .* at least 32"):
            VGGNet(image_size=16)
        with pytest.raises(ValueError, match="layers must contain at least one convolution"):
            VGGNet(layers=("M",))
        with pytest.raises(ValueError, match="layers"):
            VGGNet(layers=(8, "X"))
        with pytest.raises(ValueError, match=r"x must have shape \(N, 3, 32, 32\)"):
            VGGNet(layers=(4, "M"), image_size=32)(torch.rand(1, 1, 32, 32))
