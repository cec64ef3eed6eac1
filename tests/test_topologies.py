"""Tests for credalbook.topologies: shapes, published parameter counts and a tiny cached ensemble."""

import numpy as np
import pytest
import torch

import credalbook.topologies as topologies
from credalbook.data import load_dataset
from credalbook.models import count_parameters
from credalbook.topologies import (
    PAPER_TOPOLOGIES,
    QUICK_TOPOLOGIES,
    TopologyEnsemble,
    topology_ensemble_logits,
    topology_member_logits,
)
from credalbook.topology_networks import FAMILIES, DenseNet, LeNet5, PadCropFlip, WideResNet, build_topology

IMAGES = ((1, 28), (3, 32))  # (channels, size): Fashion-MNIST and CIFAR
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


def _check_shapes(net, c, size, k):
    x = torch.rand(3, c, size, size)
    net.eval()
    with torch.no_grad():
        logits, feats = net(x), net.features(x)
    assert logits.shape == (3, k)
    assert feats.shape == (3, net.feature_dim)
    torch.testing.assert_close(net.head(feats), logits)


class TestLeNet5:
    def test_main(self):
        for c, size in IMAGES:
            net = LeNet5(in_channels=c, n_classes=7, image_size=size)
            _check_shapes(net, c, size, 7)
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
            _check_shapes(DenseNet(c, 5, size, depth=10, growth_rate=4), c, size, 5)
            _check_shapes(DenseNet(c, 5, size, block_config=(1, 1, 1, 1), growth_rate=4), c, size, 5)
            _check_shapes(DenseNet(c, 5, size, depth=7, growth_rate=4, bottleneck=False,
                                   compression=1.0), c, size, 5)
        # BC-10, k = 4: stem 8, block 8 + 4 = 12 -> 6, 6 + 4 = 10 -> 5, 5 + 4 = 9 features
        assert DenseNet(depth=10, growth_rate=4).feature_dim == 9
        # published sizes: DenseNet-BC-100 (k = 12) 0.8 M, DenseNet-121 8.0 M (ImageNet head)
        assert count_parameters(DenseNet(3, 10, 32, depth=100, growth_rate=12)) == \
            pytest.approx(0.8e6, rel=0.1)
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
            _check_shapes(net, c, size, 4)
            assert net.feature_dim == 128
        # WRN-28-10: the published 36.5 M parameters
        assert count_parameters(WideResNet(3, 10, 32, depth=28, widen_factor=10)) == \
            pytest.approx(36.5e6, rel=0.1)
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
        net = build_topology("densenet", in_channels=1, n_classes=3, image_size=28, depth=10,
                             growth_rate=2)
        assert isinstance(net, DenseNet) and net.n_classes == 3

    def test_errors(self):
        with pytest.raises(ValueError, match="family must be one of"):
            build_topology("resnet", in_channels=1, n_classes=3, image_size=28)


class TestPaperTopologies:
    def test_main(self):
        assert set(PAPER_TOPOLOGIES) == set(QUICK_TOPOLOGIES) == {"LEN", "DSN100", "DSN121", "RSN"}
        dsn = PAPER_TOPOLOGIES["DSN100"]["train"]  # Huang et al. 2017, Sec. 4.2
        assert (dsn["epochs"], dsn["batch_size"], dsn["lr"], dsn["milestones"], dsn["lr_decay"],
                dsn["weight_decay"]) == (300, 64, 0.1, (150, 225), 0.1, 1e-4)
        rsn = PAPER_TOPOLOGIES["RSN"]["train"]  # Zagoruyko & Komodakis 2016, Sec. 3
        assert (rsn["epochs"], rsn["batch_size"], rsn["lr"], rsn["milestones"], rsn["lr_decay"],
                rsn["weight_decay"]) == (200, 128, 0.1, (60, 120, 160), 0.2, 5e-4)
        assert all(s["train"]["optimizer"] == "sgd" for s in PAPER_TOPOLOGIES.values())
        expected = {"LEN": 62006, "DSN100": 769162, "RSN": 36479194}
        for name, n_params in expected.items():
            spec = PAPER_TOPOLOGIES[name]
            net = build_topology(spec["family"], in_channels=3, n_classes=10, image_size=32,
                                 **spec["model"])
            assert count_parameters(net) == n_params
        quick = {"LEN": 61706, "DSN100": 19978, "DSN121": 19780, "RSN": 77562}
        for name, spec in QUICK_TOPOLOGIES.items():
            net = build_topology(spec["family"], in_channels=1, n_classes=10, image_size=28,
                                 **spec["model"])
            assert count_parameters(net) == quick[name]
            _check_shapes(net, 1, 28, 10)
            assert max(spec["train"]["milestones"]) < spec["train"]["epochs"]


class TestPadCropFlip:
    def test_main(self):
        x = torch.arange(2 * 3 * 5 * 5, dtype=torch.float32).reshape(2, 3, 5, 5) + 1
        assert torch.equal(PadCropFlip(padding=0, hflip=False)(x), x)
        torch.manual_seed(1)
        out = PadCropFlip(padding=2, hflip=False)(x)
        padded = torch.nn.functional.pad(x, (2, 2, 2, 2))
        for i in range(2):  # every image is some 5x5 window of its padded version
            windows = [(dy, dx) for dy in range(5) for dx in range(5)
                       if torch.equal(out[i], padded[i, :, dy:dy + 5, dx:dx + 5])]
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


TINY = dict(n_train=300, n_test=200, epochs=10, device="cpu", progress=False)


class TestTopologyEnsemble:
    def test_main(self):
        z = np.zeros((4, 3, 2), dtype=np.float32)
        ens = TopologyEnsemble(z, np.zeros(4, dtype=np.int64), z[:2], np.ones(2, dtype=np.int64),
                               "RSN", (0, 1, 2), ([], [], []), np.zeros(3), 10, {})
        assert (ens.n_members, ens.n_classes) == (3, 2)
        np.testing.assert_allclose(ens.probs_val, 0.5)
        assert ens.ens_probs_test.shape == (2, 3, 2)


class TestTopologyEnsembleLogits:
    def test_main(self, tmp_cache, monkeypatch):
        ens = topology_ensemble_logits("fashion_mnist", "LEN", n_members=2, **TINY)
        assert isinstance(ens, TopologyEnsemble) and ens.seeds == (0, 1)
        # validation split: 10 % of the 300 training images, stratified by class; the test set
        # is the dataset's own (subsampled with the split seed)
        assert ens.logits_val.shape == (30, 2, 10) and ens.logits_test.shape == (200, 2, 10)
        sub = load_dataset("fashion_mnist").subsample(300, 200, seed=0)
        share = np.bincount(ens.y_val, minlength=10) - 0.1 * np.bincount(sub.y_train, minlength=10)
        assert np.abs(share).max() < 1
        np.testing.assert_array_equal(ens.y_test, sub.y_test)
        assert ens.n_parameters == 61706 and len(ens.histories[0]) == 10
        assert ens.config["train"]["epochs"] == 10 and ens.config["train"]["lr"] == 0.05
        # members differ (different seeds) but see the same data
        assert not np.allclose(ens.logits_test[:, 0], ens.logits_test[:, 1])
        acc = (ens.probs_test.argmax(1) == ens.y_test).mean()
        assert acc > 0.25  # ten epochs on 270 images: well above chance (0.1)
        # cached per member: a second call, and a larger ensemble's first members, train nothing
        monkeypatch.setattr(topologies, "fit", lambda *a, **k: pytest.fail("retrained"))
        again = topology_ensemble_logits("fashion_mnist", "LEN", seeds=(0, 1), **TINY)
        np.testing.assert_array_equal(again.logits_val, ens.logits_val)
        assert any(tmp_cache.rglob("*.pkl"))

    def test_reproducible_by_seed(self, tmp_cache):
        run = topology_member_logits.__wrapped__  # bypass the cache
        kw = dict(n_train=200, n_test=50, train=dict(epochs=1), device="cpu", progress=False)
        a = run("fashion_mnist", "LEN", seed=4, **kw)
        b = run("fashion_mnist", "LEN", seed=4, **kw)
        c = run("fashion_mnist", "LEN", seed=5, **kw)
        np.testing.assert_array_equal(a["logits_test"], b["logits_test"])
        np.testing.assert_array_equal(a["y_val"], c["y_val"])  # the split does not depend on it
        assert np.abs(a["logits_test"] - c["logits_test"]).max() > 1e-3

    def test_parallel_members_match_serial(self, tmp_cache, monkeypatch):
        kw = dict(seeds=(3, 4), n_train=200, n_test=50, train=dict(epochs=2), device="cpu", progress=False)
        par = topology_ensemble_logits("fashion_mnist", "LEN", n_jobs=2, **kw)
        assert len(list(tmp_cache.rglob("topology_member_logits/*/output.pkl"))) == 2  # cached where the parent looks
        with monkeypatch.context() as m:  # (monkeypatch.undo() would also drop the temporary cache folder)
            m.setattr(topologies, "fit", lambda *a, **k: pytest.fail("retrained"))
            again = topology_ensemble_logits("fashion_mnist", "LEN", **kw)  # serial: loads what the workers stored
        np.testing.assert_array_equal(again.logits_test, par.logits_test)
        direct = [topology_member_logits.__wrapped__("fashion_mnist", "LEN", seed=s, **{k: v for k, v in kw.items()
                                                                                        if k != "seeds"})
                  for s in (3, 4)]
        # the workers train with one torch thread: equal up to float32 rounding of multi-threaded reductions
        np.testing.assert_allclose(par.logits_test, np.stack([d["logits_test"] for d in direct], axis=1),
                                   rtol=1e-4, atol=1e-6)
        with pytest.raises(ValueError, match="n_jobs must be a positive int or -1; got 0"):
            topology_ensemble_logits("fashion_mnist", "LEN", n_jobs=0, **kw)

    def test_interrupted_member_resumes(self, tmp_cache, monkeypatch):
        """A killed training resumes from its per-epoch checkpoint and ends as an uninterrupted one."""
        kw = dict(seed=2, n_train=200, n_test=50, train=dict(epochs=5), device="cpu", progress=False)

        class Killed(Exception):
            pass

        class Interrupting(topologies.PadCropFlip):
            calls, stop_at = 0, None

            def __call__(self, x):
                type(self).calls += 1
                if type(self).calls == type(self).stop_at:
                    raise Killed
                return super().__call__(x)

        monkeypatch.setattr(topologies, "PadCropFlip", Interrupting)
        ref = topology_member_logits.__wrapped__("fashion_mnist", "LEN", **kw)
        Interrupting.calls, Interrupting.stop_at = 0, 8  # 180 images, batches of 128: call 8 is in epoch 4
        with pytest.raises(Killed):
            topology_member_logits("fashion_mnist", "LEN", **kw)
        assert len(list(tmp_cache.rglob("checkpoints/topology_member-*.pt"))) == 1
        out = topology_member_logits("fashion_mnist", "LEN", **kw)
        np.testing.assert_array_equal(out["logits_test"], ref["logits_test"])
        assert [h["train_loss"] for h in out["history"]] == [h["train_loss"] for h in ref["history"]]
        assert not list(tmp_cache.rglob("checkpoints/*.pt"))

    @pytest.mark.parametrize("device", DEVICES)
    def test_quick_topologies_train(self, tmp_cache, device):
        for name in ("DSN100", "DSN121", "RSN"):
            out = topology_member_logits("fashion_mnist", name, n_train=100, n_test=20,
                                         train=dict(epochs=1), device=device, progress=False)
            assert out["logits_val"].shape == (10, 10) and np.isfinite(out["logits_test"]).all()
            assert out["config"]["family"] == QUICK_TOPOLOGIES[name]["family"]

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="topology must be one of"):
            topology_ensemble_logits("fashion_mnist", "VGG", **TINY)
        with pytest.raises(ValueError, match="scale must be one of"):
            topology_ensemble_logits("fashion_mnist", "LEN", scale="tiny", **TINY)
        with pytest.raises(ValueError, match="n_members=3 does not match the 2 seeds"):
            topology_ensemble_logits("fashion_mnist", "LEN", n_members=3, seeds=(0, 1), **TINY)
        with pytest.raises(ValueError, match="seeds must be distinct"):
            topology_ensemble_logits("fashion_mnist", "LEN", seeds=(0, 0), **TINY)
        with pytest.raises(ValueError, match="seeds must be a non-empty sequence"):
            topology_ensemble_logits("fashion_mnist", "LEN", seeds=(), **TINY)
        with pytest.raises(ValueError, match=r"train has unknown keys \['nesterov'\]"):
            topology_ensemble_logits("fashion_mnist", "LEN", train=dict(nesterov=True), **TINY)
        with pytest.raises(ValueError, match="image_size must be 28 or 32; got 8"):
            topology_ensemble_logits("digits", "LEN", n_members=1, epochs=1, device="cpu",
                                     progress=False)
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            topology_member_logits("fashion_mnist", "LEN", seed=-1, device="cpu", progress=False)


class TestResolveNetworkScale:
    def test_main(self):
        from credalbook.topologies import resolve_network_scale

        assert resolve_network_scale("auto", default="paper", device="cpu") == "quick"  # no GPU: networks that train
        assert resolve_network_scale("auto", default="quick", device="cpu") == "quick"
        assert resolve_network_scale("paper", default="quick", device="cpu") == "paper"  # explicit wins
        assert resolve_network_scale("quick", default="paper") == "quick"

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
    def test_gpu_keeps_paper_networks(self):
        from credalbook.topologies import resolve_network_scale

        assert resolve_network_scale("auto", default="paper", device="cuda") == "paper"

    def test_errors(self):
        from credalbook.topologies import resolve_network_scale

        with pytest.raises(ValueError, match="networks must be 'auto', 'paper' or 'quick'; got 'big'"):
            resolve_network_scale("big")
        with pytest.raises(ValueError, match="default must be 'paper' or 'quick'; got 'tiny'"):
            resolve_network_scale("auto", default="tiny")
