"""Tests for credalbook.nn.architectures: LeNet-5, DenseNet(-BC), wide ResNets and the pad-crop-flip augmentation."""

import pytest
import torch

from credalbook.nn import build_topology, count_parameters, DenseNet, FAMILIES, LeNet5, PadCropFlip, WideResNet
from tests.helpers import check_shapes

IMAGES = ((1, 28), (3, 32))  # (channels, size): Fashion-MNIST and CIFAR
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


class TestLeNet5:
    def test_main(self):
        for c, size in IMAGES:
            net = LeNet5(in_channels=c, n_classes=7, image_size=size)
            check_shapes(net, c, size, 7)
            assert net.feature_dim == 84
        # the published "about 60 000": 61 706 for one channel and ten classes
        assert count_parameters(LeNet5(1, 10, 28)) == 61706
        assert count_parameters(LeNet5(1, 10, 28)) == pytest.approx(60_000, rel=0.1)
        # hand count for CIFAR-100: conv 3*6*25+6, conv 6*16*25+16, fc 400*120+120,
        # fc 120*84+84, head 84*100+100
        assert count_parameters(LeNet5(3, 100, 32)) == 456 + 2416 + 48120 + 10164 + 8500

    def test_errors(self):
        with pytest.raises(ValueError, match="in_channels must be 1 or 3; got 2"):
            LeNet5(in_channels=2)
        with pytest.raises(ValueError, match="image_size must be 28 or 32; got 30"):
            LeNet5(image_size=30)
        with pytest.raises(ValueError, match="n_classes must be at least 2"):
            LeNet5(n_classes=1)
        with pytest.raises(ValueError, match=r"x must have shape \(N, 3, 32, 32\)"):
            LeNet5()(torch.zeros(1, 1, 28, 28))


class TestDenseNet:
    def test_main(self):
        for c, size in IMAGES:
            check_shapes(DenseNet(c, 5, size, depth=10, growth_rate=4), c, size, 5)
            check_shapes(DenseNet(c, 5, size, block_config=(1, 1, 1, 1), growth_rate=4), c, size, 5)
            check_shapes(DenseNet(c, 5, size, depth=7, growth_rate=4, bottleneck=False, compression=1.0), c, size, 5)
        # BC-10, k = 4: stem 8, block 8 + 4 = 12 -> 6, 6 + 4 = 10 -> 5, 5 + 4 = 9 features
        assert DenseNet(depth=10, growth_rate=4).feature_dim == 9
        # published sizes: DenseNet-BC-100 (k = 12) 0.8 M, DenseNet-121 8.0 M (ImageNet head)
        assert count_parameters(DenseNet(3, 10, 32, depth=100, growth_rate=12)) == pytest.approx(0.8e6, rel=0.1)
        dsn121 = DenseNet(3, 1000, 32, block_config=(6, 12, 24, 16), growth_rate=32)
        assert count_parameters(dsn121) == pytest.approx(7.98e6, rel=0.1)
        assert dsn121.feature_dim == 1024  # as in torchvision's densenet121

    def test_errors(self):
        with pytest.raises(ValueError, match=r"depth must be 4 \+ 6 n"):
            DenseNet(depth=101)
        with pytest.raises(ValueError, match=r"depth must be 4 \+ 3 n"):
            DenseNet(depth=8, bottleneck=False)
        with pytest.raises(ValueError, match=r"compression must be a number in \(0, 1\]"):
            DenseNet(compression=0.0)
        with pytest.raises(ValueError, match="block_config must name at least one"):
            DenseNet(block_config=())
        with pytest.raises(ValueError, match="6 dense blocks pool a 28-pixel image"):
            DenseNet(1, 10, 28, block_config=(1,) * 6)
        with pytest.raises(ValueError, match="growth_rate must be an integer >= 1"):
            DenseNet(growth_rate=0)
        with pytest.raises(ValueError, match=r"dropout must be a probability in \[0, 1\)"):
            DenseNet(drop_rate=1.0)


class TestWideResNet:
    def test_main(self):
        for c, size in IMAGES:
            net = WideResNet(c, 4, size, depth=10, widen_factor=2, drop_rate=0.3)
            check_shapes(net, c, size, 4)
            assert net.feature_dim == 128
        # WRN-28-10: the published 36.5 M parameters
        assert count_parameters(WideResNet(3, 10, 32, depth=28, widen_factor=10)) == pytest.approx(36.5e6, rel=0.1)
        assert count_parameters(WideResNet(depth=28, widen_factor=10)) == 36479194

    def test_errors(self):
        with pytest.raises(ValueError, match="depth must be 6 n \\+ 4"):
            WideResNet(depth=12)
        with pytest.raises(ValueError, match="depth must be 6 n \\+ 4"):
            WideResNet(depth=4)
        with pytest.raises(ValueError, match="widen_factor must be an integer >= 1"):
            WideResNet(widen_factor=0)


class TestBuildTopology:
    def test_main(self):
        assert FAMILIES == {"lenet5": LeNet5, "densenet": DenseNet, "wide_resnet": WideResNet}
        net = build_topology("densenet", in_channels=1, n_classes=3, image_size=28, depth=10, growth_rate=2)
        assert isinstance(net, DenseNet) and net.n_classes == 3

    def test_errors(self):
        with pytest.raises(ValueError, match="family must be one of"):
            build_topology("resnet", in_channels=1, n_classes=3, image_size=28)


class TestPadCropFlip:
    def test_main(self):
        x = torch.arange(2 * 3 * 5 * 5, dtype=torch.float32).reshape(2, 3, 5, 5) + 1
        assert torch.equal(PadCropFlip(padding=0, hflip=False)(x), x)
        torch.manual_seed(1)
        out = PadCropFlip(padding=2, hflip=False)(x)
        padded = torch.nn.functional.pad(x, (2, 2, 2, 2))
        for i in range(2):  # every image is some 5x5 window of its padded version
            windows = [
                (dy, dx)
                for dy in range(5)
                for dx in range(5)
                if torch.equal(out[i], padded[i, :, dy : dy + 5, dx : dx + 5])
            ]
            assert len(windows) == 1
        # flips only: each image is itself or its mirror, about half of them mirrored
        x = torch.rand(400, 1, 4, 4)
        out = PadCropFlip(padding=0)(x)
        same = (out == x).flatten(1).all(1)
        mirrored = (out == x.flip(-1)).flatten(1).all(1)
        assert bool((same ^ mirrored).all()) and 160 < int(mirrored.sum()) < 240
        # repeatable from torch's global seed
        torch.manual_seed(3)
        a = PadCropFlip()(torch.rand(8, 3, 32, 32))
        torch.manual_seed(3)
        assert torch.equal(a, PadCropFlip()(torch.rand(8, 3, 32, 32)))

    @pytest.mark.parametrize("device", DEVICES)
    def test_device(self, device):
        x = torch.rand(6, 3, 8, 8, device=device)
        torch.manual_seed(0)
        out = PadCropFlip(padding=2)(x)
        assert out.device == x.device and out.shape == x.shape
        torch.manual_seed(0)  # the draws come from the CPU generator: the same on every device
        torch.testing.assert_close(out.cpu(), PadCropFlip(padding=2)(x.cpu()))

    def test_errors(self):
        with pytest.raises(ValueError, match="padding must be a non-negative int"):
            PadCropFlip(padding=-1)
        with pytest.raises(ValueError, match="hflip must be a bool"):
            PadCropFlip(hflip=1)
        with pytest.raises(ValueError, match=r"x must be a tensor of shape \(N, C, H, W\)"):
            PadCropFlip()(torch.zeros(3, 4, 4))
