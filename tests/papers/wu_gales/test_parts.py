"""Tests for credalbook.papers.wu_gales.parts: the chapter's members as recorded parts, and their merge."""

import dataclasses
import json

import numpy as np
import pytest

from credalbook.book import records
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset
from credalbook.papers.wu_gales import (
    merge_topology_ensembles,
    topology_ensemble_logits,
    TopologyEnsemble,
    wu_gales_parts,
    wu_gales_plan,
    WuGalesPlan,
)

CHAPTER = "04_wu_gales_ensemble_calibration"
TOPOLOGIES = ("LEN", "DSN100", "DSN121", "RSN")


def _roundtrip(value):
    return records.decode(json.loads(json.dumps(records.encode(value))))


def _untimed(histories):
    return tuple([{k: v for k, v in epoch.items() if k != "seconds"} for epoch in h] for h in histories)


def assert_same_ensemble(a: TopologyEnsemble, b: TopologyEnsemble, *, timings: bool = True):
    """Every field equal, arrays bit for bit and of the same dtype (the wall-clock times too, with ``timings``)."""
    for f in dataclasses.fields(TopologyEnsemble):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not timings and f.name == "seconds":
            assert x.shape == y.shape and x.dtype == y.dtype
            continue
        if not timings and f.name == "histories":
            x, y = _untimed(x), _untimed(y)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), f.name
        else:
            assert x == y, f.name
            assert type(x) is type(y), f.name


class TestWuGalesPlan:
    def test_main(self):
        tiny = wu_gales_plan(preset(CHAPTER, "tiny"), networks="quick")
        assert [p.name for p in tiny.parts] == [
            "fashion_mnist-quick-len-seed0",
            "fashion_mnist-quick-len-seed1",
            "fashion_mnist-quick-len-seed2",
            "fashion_mnist-quick-dsn100-seed0",
            "fashion_mnist-quick-dsn100-seed1",
            "fashion_mnist-quick-dsn121-seed0",
            "fashion_mnist-quick-dsn121-seed1",
            "fashion_mnist-quick-rsn-seed0",
            "fashion_mnist-quick-rsn-seed1",
        ]
        assert tiny.network_scale == "quick" and tuple(tiny.members) == TOPOLOGIES
        # paper scale on a CPU: networks="auto" resolves to the CPU-sized family, ten members per topology
        cfg = preset(CHAPTER, "paper")
        cpu = wu_gales_plan(cfg, seed=3, dataset="cifar100", device="cpu", networks="auto")
        assert cpu.network_scale == "quick" and len(cpu.parts) == 40
        assert {t: len(n) for t, n in cpu.members.items()} == dict.fromkeys(TOPOLOGIES, 10)
        assert (
            cpu.members["RSN"][0] == "cifar100-quick-rsn-seed3"
            and cpu.members["RSN"][-1] == "cifar100-quick-rsn-seed12"
        )
        first = cpu.parts[0]
        assert first.func is topology_ensemble_logits
        assert first.parameters() == {
            "function": "credalbook.papers.wu_gales.topologies:topology_ensemble_logits",
            "dataset": "cifar100",
            "n_test": None,
            "n_train": None,
            "scale": "quick",
            "seeds": (3,),
            "split_seed": 3,
            "topology": "LEN",
            "train": None,
            "val_fraction": 0.1,
        }
        # the paper's networks: other names and other parameters, so records of the two never mix
        gpu = wu_gales_plan(cfg, seed=3, dataset="cifar100", device="cpu", networks="paper")
        assert gpu.network_scale == "paper" and len(gpu.parts) == 40
        assert not {p.name for p in gpu.parts} & {p.name for p in cpu.parts}
        assert all(p.kwargs["scale"] == "paper" for p in gpu.parts)
        # the registered plan gives the same parts, and takes the chapter's other parameters in its stride
        via = plan_parts(CHAPTER, cfg, seed=3, dataset="cifar100", device="cpu", networks="auto", scale="paper")
        assert [p.name for p in via][: len(cpu.parts)] == [p.name for p in cpu.parts]
        assert [p.parameters() for p in wu_gales_parts(cfg, seed=3, dataset="cifar100", device="cpu")][:40] == [
            p.parameters() for p in cpu.parts
        ]
        # then the members of the CIFAR-100 regime (tests/papers/wu_gales/test_regime.py)
        assert len(via) == 80 and all("-regime450-" in p.name for p in via[40:])
        for p in cpu.parts + gpu.parts:  # JSON-able configuration only
            assert records.part_parameters(p) == json.loads(json.dumps(records.encode(p.parameters())))

    def test_errors(self):
        cfg = preset(CHAPTER, "tiny")
        with pytest.raises(ValueError, match="seed"):
            wu_gales_plan(cfg, seed=-1)
        with pytest.raises(ValueError, match="networks"):
            wu_gales_plan(cfg, networks="huge")
        with pytest.raises(ValueError, match="dataset"):
            wu_gales_plan(cfg, dataset="")
        with pytest.raises(ValueError, match="members"):
            wu_gales_plan({**cfg, "members": {**cfg["members"], "LEN": 0}})
        plan = wu_gales_plan(cfg, networks="quick")
        with pytest.raises(ValueError, match="lacks the parts"):
            plan.ensembles({})
        with pytest.raises(TypeError, match="values"):
            plan.ensembles([])


# a smaller tiny: two LeNets and one WRN, one epoch on 200 images
SMALL = {
    **preset(CHAPTER, "tiny"),
    "topologies": ("LEN", "RSN"),
    "members": dict(LEN=2, RSN=1),
    "n_train": 200,
    "n_test": 60,
}


class TestPartValues:
    def test_roundtrip_and_assembly(self, tmp_cache, monkeypatch):
        plan = wu_gales_plan(SMALL, seed=1, networks="quick", device="cpu")
        assert isinstance(plan, WuGalesPlan) and [p.name for p in plan.parts] == [
            "fashion_mnist-quick-len-seed1",
            "fashion_mnist-quick-len-seed2",
            "fashion_mnist-quick-rsn-seed1",
        ]
        values = {p.name: p.run() for p in plan.parts}
        decoded = {}
        for name, v in values.items():
            assert isinstance(v, TopologyEnsemble) and v.n_members == 1
            assert v.logits_val.dtype == np.float32 and v.logits_val.shape == (20, 1, 10)
            decoded[name] = _roundtrip(v)
            assert_same_ensemble(decoded[name], v)
        ens = plan.ensembles(decoded)
        # the direct computation of today's chapter, trained afresh in another cache folder
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_cache.parent / "other-cache"))
        for t in SMALL["topologies"]:
            direct = topology_ensemble_logits(
                "fashion_mnist",
                t,
                seeds=range(1, 1 + SMALL["members"][t]),
                scale="quick",
                train=SMALL["train"][t],
                n_train=SMALL["n_train"],
                n_test=SMALL["n_test"],
                val_fraction=SMALL["val_fraction"],
                split_seed=1,
                device="cpu",
                progress=False,
            )
            assert_same_ensemble(ens[t], direct, timings=False)  # trained twice: only the times differ
        assert ens["LEN"].seeds == (1, 2) and ens["LEN"].n_members == 2

    def test_paper_size(self):
        """A member's record at paper scale (6 000 validation + 10 000 test images, 10 classes, float32 logits):
        at most the base64 of the raw logits (0.85 MB; zlib gains little on float mantissas), plus a few kB for
        the labels, the history and the configuration."""
        rng = np.random.default_rng(0)
        hist = [
            {"epoch": e, "lr": 0.05, "loss": 0.3, "accuracy": 0.9, "val_loss": 0.3, "val_accuracy": 0.9, "seconds": 4.0}
            for e in range(1, 21)
        ]
        v = TopologyEnsemble(
            rng.normal(0, 5, (6000, 1, 10)).astype(np.float32),
            rng.integers(0, 10, 6000),
            rng.normal(0, 5, (10000, 1, 10)).astype(np.float32),
            rng.integers(0, 10, 10000),
            "LEN",
            (0,),
            (hist,),
            np.array([80.0]),
            61706,
            {"dataset": "fashion_mnist", "train": {"epochs": 20, "milestones": (10, 15)}},
        )
        size = len(json.dumps(records.encode(v)))
        logits_bytes = 16000 * 10 * 4 * 4 / 3  # base64 of the raw float32 bytes
        assert 0.8 * logits_bytes < size < logits_bytes + 30_000 < 900_000
        assert_same_ensemble(_roundtrip(v), v)


class TestMergeTopologyEnsembles:
    def _one(self, seed, topology="LEN", y=(0, 1, 2)):
        z = np.full((3, 1, 4), seed, dtype=np.float32)
        return TopologyEnsemble(
            z,
            np.array(y),
            z + 1,
            np.array(y),
            topology,
            (seed,),
            ([{"epoch": 1}],),
            np.array([float(seed)]),
            10,
            {"a": (1, 2)},
        )

    def test_main(self):
        ens = merge_topology_ensembles([self._one(2), self._one(0), self._one(5)])
        assert ens.seeds == (2, 0, 5) and ens.n_members == 3 and ens.logits_test.dtype == np.float32
        np.testing.assert_array_equal(ens.logits_val[0, :, 0], [2, 0, 5])
        np.testing.assert_array_equal(ens.logits_test[:, 2], np.full((3, 4), 6))
        np.testing.assert_array_equal(ens.seconds, [2.0, 0.0, 5.0])
        assert len(ens.histories) == 3 and ens.config == {"a": (1, 2)}
        assert_same_ensemble(merge_topology_ensembles([self._one(4)]), self._one(4))

    def test_errors(self):
        with pytest.raises(ValueError, match="at least one"):
            merge_topology_ensembles([])
        with pytest.raises(TypeError, match="item 1"):
            merge_topology_ensembles([self._one(0), "x"])
        with pytest.raises(ValueError, match="topology"):
            merge_topology_ensembles([self._one(0), self._one(1, topology="RSN")])
        with pytest.raises(ValueError, match="y_val"):
            merge_topology_ensembles([self._one(0), self._one(1, y=(2, 1, 0))])
        with pytest.raises(ValueError, match="distinct seeds"):
            merge_topology_ensembles([self._one(0), self._one(0)])
