"""Tests for credalbook.calibration.stochastic_samples: random augmentation, MC dropout and TTA samples."""

import copy

import numpy as np
import pytest
import torch

from credalbook.calibration import mc_dropout_samples, PAPER_AUGMENTATIONS, RandomAugment, tta_samples
from credalbook.nn import mc_dropout_predict, MLP, SmallCNN

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


class TestRandomAugment:
    def test_main(self):  # exact transforms
        x = torch.arange(2 * 5 * 5, dtype=torch.float32).reshape(2, 1, 5, 5)
        aug = RandomAugment()
        kw = dict(shift_x=0, shift_y=0, flip_x=False, flip_y=False)
        torch.testing.assert_close(aug.apply(x, angle=0, **kw), x)
        # 90 degrees about the centre maps pixel centres to pixel centres: a rot90
        rot = aug.apply(x, angle=90, **kw)
        assert any(torch.allclose(rot, torch.rot90(x, k, dims=(2, 3)), atol=1e-4) for k in (1, 3))
        torch.testing.assert_close(aug.apply(x, angle=180, **kw), torch.rot90(x, 2, dims=(2, 3)), atol=1e-4, rtol=0)
        flipped = aug.apply(x, angle=0, shift_x=0, shift_y=0, flip_x=[True, False], flip_y=False)
        torch.testing.assert_close(flipped[0], x[0].flip(-1))
        torch.testing.assert_close(flipped[1], x[1])
        torch.testing.assert_close(aug.apply(x, angle=0, shift_x=0, shift_y=0, flip_x=False, flip_y=True), x.flip(-2))
        # integer shifts: down by 2 rows, edge rows repeated (nearest fill)
        down = aug.apply(x, angle=0, shift_x=0, shift_y=2, flip_x=False, flip_y=False)
        torch.testing.assert_close(down[:, :, 2:], x[:, :, :3])
        torch.testing.assert_close(down[:, :, 0], x[:, :, 0])
        zeros = RandomAugment(fill="zeros").apply(x, angle=0, shift_x=-2, shift_y=0, flip_x=False, flip_y=False)
        assert (zeros[..., 3:] == 0).all()
        torch.testing.assert_close(zeros[..., :3], x[..., 2:])

    def test_random(self):
        x = torch.rand(64, 3, 8, 8)
        aug = RandomAugment(**PAPER_AUGMENTATIONS["mix_cifar10"])
        a = aug(x, generator=torch.Generator().manual_seed(0))
        b = aug(x, generator=torch.Generator().manual_seed(0))
        torch.testing.assert_close(a, b)
        assert a.shape == x.shape and not torch.allclose(a, x)
        # a flip-only augmentation flips about half of the images, each exactly
        flips = RandomAugment(hflip=True)(x, generator=torch.Generator().manual_seed(1))
        same = torch.isclose(flips, x).flatten(1).all(1)
        mirrored = torch.isclose(flips, x.flip(-1)).flatten(1).all(1)
        assert bool((same | mirrored).all()) and 16 <= int(mirrored.sum()) <= 48
        # the pixel mass is kept by small rotations of a smooth image (bilinear resampling)
        smooth = torch.ones(4, 1, 16, 16)
        torch.testing.assert_close(RandomAugment(rotation=30, shift=3)(smooth), smooth)
        assert "rotation=180" in repr(aug)

    def test_errors(self):
        with pytest.raises(ValueError, match="rotation"):
            RandomAugment(rotation=-1)
        with pytest.raises(ValueError, match="fill"):
            RandomAugment(fill="reflect")
        with pytest.raises(ValueError, match="hflip"):
            RandomAugment(hflip=1)
        with pytest.raises(ValueError, match=r"x must be a float tensor of shape \(N, C, H, W\)"):
            RandomAugment(shift=1)(torch.zeros(3, 4))
        with pytest.raises(ValueError, match="angle must be a scalar or have 2 entries"):
            RandomAugment().apply(
                torch.zeros(2, 1, 3, 3), angle=[1, 2, 3], shift_x=0, shift_y=0, flip_x=False, flip_y=False
            )


class TestMcDropoutSamples:
    @pytest.mark.parametrize("device", DEVICES)
    def test_main(self, device):
        torch.manual_seed(3)
        net = MLP(5, 4, hidden=(16,), dropout=0.5)
        x = torch.rand(9, 5)
        probs, feats = mc_dropout_samples(
            net, x, n_samples=7, batch_size=4, device=device, seed=0, return_features=True
        )
        assert probs.shape == (9, 7, 4) and feats.shape == (9, 7, 16)
        np.testing.assert_allclose(probs.sum(-1), 1.0)
        assert probs.std(axis=1).max() > 1e-3  # the samples differ
        # the same passes and masks as credalbook.nn.mc_dropout_predict
        ref = mc_dropout_predict(net, x, n_samples=7, batch_size=4, device=device, seed=0)
        np.testing.assert_allclose(probs, ref, rtol=1e-6, atol=1e-7)
        # features and probs belong to the same pass
        head = copy.deepcopy(net.head).cpu().double()
        np.testing.assert_allclose(
            probs, torch.softmax(head(torch.from_numpy(feats)), -1).detach().numpy(), rtol=1e-5, atol=1e-7
        )
        plain = mc_dropout_samples(net, x, n_samples=7, batch_size=4, device=device, seed=0)
        np.testing.assert_allclose(plain, probs)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_samples"):
            mc_dropout_samples(MLP(2, 2), np.zeros((3, 2)), n_samples=0)
        with pytest.raises(ValueError, match="seed"):
            mc_dropout_samples(MLP(2, 2), np.zeros((3, 2)), seed=1.5)
        with pytest.raises(ValueError, match="features"):
            mc_dropout_samples(torch.nn.Linear(2, 2), np.zeros((3, 2)), return_features=True)


class TestTtaSamples:
    def test_main(self):
        torch.manual_seed(4)
        net = SmallCNN(in_channels=3, image_size=8, channels=(4,), hidden=8, dropout=0.5)
        x = torch.rand(5, 3, 8, 8)
        aug = RandomAugment(rotation=20, shift=2, hflip=True)
        probs, feats = tta_samples(net, x, augment=aug, n_samples=6, device="cpu", seed=0, return_features=True)
        assert probs.shape == (5, 6, 10) and feats.shape == (5, 6, 8)
        np.testing.assert_allclose(probs.sum(-1), 1.0)
        assert probs.std(axis=1).max() > 1e-4
        again = tta_samples(net, x, augment=aug, n_samples=6, device="cpu", seed=0)
        np.testing.assert_allclose(again, probs)
        # identity augmentation and dropout off: every sample is the eval prediction
        ident = tta_samples(net, x, augment=RandomAugment(), n_samples=3, device="cpu")
        net.eval()
        eval_probs = torch.softmax(net(x).double(), -1).detach().numpy()
        np.testing.assert_allclose(ident, np.broadcast_to(eval_probs[:, None], (5, 3, 10)), rtol=1e-5)

    def test_errors(self):
        net = SmallCNN(image_size=8, channels=(4,), hidden=8)
        with pytest.raises(ValueError, match="augment must be callable"):
            tta_samples(net, torch.rand(2, 1, 8, 8), augment=None)
        with pytest.raises(ValueError, match="augment must return a tensor of shape"):
            tta_samples(net, torch.rand(2, 1, 8, 8), augment=lambda b: b[:1], device="cpu")
