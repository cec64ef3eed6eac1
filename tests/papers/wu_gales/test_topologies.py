"""Tests for credalbook.papers.wu_gales.topologies: shapes, published parameter counts and a tiny cached ensemble."""

import numpy as np
import pytest
import torch

import credalbook.papers.wu_gales.topologies as topologies
from credalbook.data import load_dataset
from credalbook.nn import build_topology, count_parameters
from credalbook.papers.wu_gales import (
    PAPER_TOPOLOGIES,
    QUICK_TOPOLOGIES,
    topology_ensemble_logits,
    topology_member_logits,
    TopologyEnsemble,
)
from tests.helpers import check_shapes

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
DEVICES = ["cpu", pytest.param("cuda", marks=CUDA)]


class TestPaperTopologies:
    def test_main(self):
        assert set(PAPER_TOPOLOGIES) == set(QUICK_TOPOLOGIES) == {"LEN", "DSN100", "DSN121", "RSN"}
        dsn = PAPER_TOPOLOGIES["DSN100"]["train"]  # Huang et al. 2017, Sec. 4.2
        assert (
            dsn["epochs"],
            dsn["batch_size"],
            dsn["lr"],
            dsn["milestones"],
            dsn["lr_decay"],
            dsn["weight_decay"],
        ) == (300, 64, 0.1, (150, 225), 0.1, 1e-4)
        rsn = PAPER_TOPOLOGIES["RSN"]["train"]  # Zagoruyko & Komodakis 2016, Sec. 3
        assert (
            rsn["epochs"],
            rsn["batch_size"],
            rsn["lr"],
            rsn["milestones"],
            rsn["lr_decay"],
            rsn["weight_decay"],
        ) == (200, 128, 0.1, (60, 120, 160), 0.2, 5e-4)
        assert all(s["train"]["optimizer"] == "sgd" for s in PAPER_TOPOLOGIES.values())
        expected = {"LEN": 62006, "DSN100": 769162, "RSN": 36479194}
        for name, n_params in expected.items():
            spec = PAPER_TOPOLOGIES[name]
            net = build_topology(spec["family"], in_channels=3, n_classes=10, image_size=32, **spec["model"])
            assert count_parameters(net) == n_params
        quick = {"LEN": 61706, "DSN100": 19978, "DSN121": 19780, "RSN": 77562}
        for name, spec in QUICK_TOPOLOGIES.items():
            net = build_topology(spec["family"], in_channels=1, n_classes=10, image_size=28, **spec["model"])
            assert count_parameters(net) == quick[name]
            check_shapes(net, 1, 28, 10)
            assert max(spec["train"]["milestones"]) < spec["train"]["epochs"]
        # the memory layout where it was measured faster on one CPU thread; the paper's recipes keep the default
        assert {n: s["train"].get("channels_last", False) for n, s in QUICK_TOPOLOGIES.items()} == {
            "LEN": False,
            "DSN100": True,
            "DSN121": True,
            "RSN": False,
        }
        assert not any("channels_last" in s["train"] for s in PAPER_TOPOLOGIES.values())

    def test_channels_last_override(self):
        """The layout is a training setting a caller may override; the member's config says which it used."""
        out = topology_member_logits(
            "fashion_mnist",
            "DSN121",
            seed=0,
            n_train=100,
            n_test=20,
            train=dict(epochs=1, channels_last=False),
            device="cpu",
            progress=False,
        )
        assert out["config"]["train"]["channels_last"] is False
        out = topology_member_logits(
            "fashion_mnist",
            "DSN121",
            seed=0,
            n_train=100,
            n_test=20,
            train=dict(epochs=1),
            device="cpu",
            progress=False,
        )
        assert out["config"]["train"]["channels_last"] is True


TINY = dict(n_train=300, n_test=200, epochs=10, device="cpu", progress=False)


class TestTopologyEnsemble:
    def test_main(self):
        z = np.zeros((4, 3, 2), dtype=np.float32)
        ens = TopologyEnsemble(
            z,
            np.zeros(4, dtype=np.int64),
            z[:2],
            np.ones(2, dtype=np.int64),
            "RSN",
            (0, 1, 2),
            ([], [], []),
            np.zeros(3),
            10,
            {},
        )
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
        direct = [
            topology_member_logits.__wrapped__(
                "fashion_mnist", "LEN", seed=s, **{k: v for k, v in kw.items() if k != "seeds"}
            )
            for s in (3, 4)
        ]
        # the workers train with one torch thread: equal up to float32 rounding of multi-threaded reductions
        np.testing.assert_allclose(
            par.logits_test, np.stack([d["logits_test"] for d in direct], axis=1), rtol=1e-4, atol=1e-6
        )
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
            out = topology_member_logits(
                "fashion_mnist", name, n_train=100, n_test=20, train=dict(epochs=1), device=device, progress=False
            )
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
            topology_ensemble_logits("digits", "LEN", n_members=1, epochs=1, device="cpu", progress=False)
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            topology_member_logits("fashion_mnist", "LEN", seed=-1, device="cpu", progress=False)


class TestResolveNetworkScale:
    def test_main(self):
        from credalbook.papers.wu_gales import resolve_network_scale

        assert resolve_network_scale("auto", default="paper", device="cpu") == "quick"  # no GPU: networks that train
        assert resolve_network_scale("auto", default="quick", device="cpu") == "quick"
        assert resolve_network_scale("paper", default="quick", device="cpu") == "paper"  # explicit wins
        assert resolve_network_scale("quick", default="paper") == "quick"

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA is not available")
    def test_gpu_keeps_paper_networks(self):
        from credalbook.papers.wu_gales import resolve_network_scale

        assert resolve_network_scale("auto", default="paper", device="cuda") == "paper"

    def test_errors(self):
        from credalbook.papers.wu_gales import resolve_network_scale

        with pytest.raises(ValueError, match="networks must be 'auto', 'paper' or 'quick'; got 'big'"):
            resolve_network_scale("big")
        with pytest.raises(ValueError, match="default must be 'paper' or 'quick'; got 'tiny'"):
            resolve_network_scale("auto", default="tiny")
