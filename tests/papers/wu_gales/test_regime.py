"""Tests for credalbook.papers.wu_gales.regime: the CIFAR-100 regime on Fashion-MNIST, and its parts."""

import json

import numpy as np
import pytest
import torch
from scipy.special import log_softmax

from credalbook.book import records
from credalbook.data.images import load_dataset
from credalbook.nn.models import count_parameters
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset
from credalbook.papers.wu_gales import wu_gales_plan
from credalbook.papers.wu_gales.parts import regime_plan, RegimePlan
from credalbook.papers.wu_gales.regime import (
    regime_member,
    REGIME_NAME,
    regime_network,
    regime_split,
    REGIME_TOPOLOGIES,
)

CHAPTER = "04_wu_gales_ensemble_calibration"
TOPOLOGIES = ("LEN", "DSN100", "DSN121", "RSN")


def _nll(logits, labels):
    return float(-log_softmax(logits.astype(np.float64), axis=1)[np.arange(len(labels)), labels].mean())


@pytest.fixture(scope="module")
def fmnist_labels():
    return load_dataset("fashion_mnist").y_train


class TestRegimeSplit:
    def test_main(self, fmnist_labels):
        tr, va = regime_split(fmnist_labels, per_class_train=450, n_val=5000, seed=0)
        assert len(tr) == 4500 and len(va) == 5000
        assert np.bincount(fmnist_labels[tr]).tolist() == [450] * 10
        assert np.bincount(fmnist_labels[va]).tolist() == [500] * 10
        assert not set(tr.tolist()) & set(va.tolist())
        # fixed by the seed, and another seed draws other images
        tr2, va2 = regime_split(fmnist_labels, per_class_train=450, n_val=5000, seed=0)
        assert np.array_equal(tr, tr2) and np.array_equal(va, va2)
        tr3, _ = regime_split(fmnist_labels, per_class_train=450, n_val=5000, seed=1)
        assert len(set(tr.tolist()) & set(tr3.tolist())) < 1000  # 450 of 6000 per class: about 7.5 % overlap

    def test_errors(self):
        labels = np.repeat([0, 1], 10)
        with pytest.raises(ValueError, match="n_val must be a multiple"):
            regime_split(labels, per_class_train=3, n_val=5)
        with pytest.raises(ValueError, match="class 0 has 10 images"):
            regime_split(labels, per_class_train=8, n_val=6)
        with pytest.raises(ValueError, match="per_class_train"):
            regime_split(labels, per_class_train=0)
        with pytest.raises(ValueError, match="labels"):
            regime_split(np.array([0.5, 1.0]))
        with pytest.raises(ValueError, match="seed"):
            regime_split(labels, per_class_train=3, n_val=4, seed=-1)


class TestRegimeNetwork:
    def test_main(self):
        counts = {t: count_parameters(regime_network(t)) for t in TOPOLOGIES}
        assert counts == {"LEN": 61706, "DSN100": 175690, "DSN121": 331493, "RSN": 691386}
        # the paper's order of sizes (62 k < 0.8 M < 7.0 M < 36.5 M)
        assert counts["LEN"] < counts["DSN100"] < counts["DSN121"] < counts["RSN"]
        for t in ("DSN100", "DSN121", "RSN"):  # the stride-2 stem: 28 x 28 -> 14 x 14
            net = regime_network(t)
            assert net.body[0].stride == (2, 2)
            assert net.body[0](torch.zeros(1, 1, 28, 28)).shape[-2:] == (14, 14)
        assert REGIME_NAME == "CIFAR-100 regime on Fashion-MNIST" and set(REGIME_TOPOLOGIES) == set(TOPOLOGIES)

    def test_errors(self):
        with pytest.raises(ValueError, match="topology must be one of"):
            regime_network("VGG")


class TestRegimeMember:
    def test_main(self):
        kw = dict(per_class_train=5, n_val=20, n_test=30, epochs=1, device="cpu")
        a = regime_member("fashion_mnist", "RSN", seed=4, **kw)
        b = regime_member("fashion_mnist", "RSN", seed=4, **kw)
        c = regime_member("fashion_mnist", "RSN", seed=5, **kw)
        for split in ("val", "test"):
            assert a[f"logits_{split}"].dtype == np.float32
            assert np.array_equal(a[f"logits_{split}"], b[f"logits_{split}"])
            assert not np.array_equal(a[f"logits_{split}"], c[f"logits_{split}"])
            assert np.array_equal(a[f"y_{split}"], c[f"y_{split}"])  # the split is the split seed's
        assert a["train_nll"] == b["train_nll"] != c["train_nll"]
        assert a["logits_val"].shape == (20, 10) and a["logits_test"].shape == (30, 10)
        assert np.bincount(a["y_val"]).tolist() == [2] * 10
        assert a["n_parameters"] == 691386 and a["config"]["stem_stride"] == 2
        assert a["config"]["milestones"] == (1,) and "seed" not in a["config"]

    def test_memorisation(self):
        # 100 training images, 50 epochs of the LeNet-5 recipe in batches of 10, without augmentation:
        # the training NLL ends near 0.2 (over 90 % of the images right), the validation NLL near 1.8
        out = regime_member(
            "fashion_mnist",
            "LEN",
            per_class_train=10,
            n_val=200,
            n_test=20,
            epochs=50,
            augment=False,
            train=dict(batch_size=10),
            device="cpu",
        )
        train, val = out["train_nll"], _nll(out["logits_val"], out["y_val"])
        assert train < 0.3 and val > 5 * train, (train, val)
        assert out["train_accuracy"] >= 0.9
        # over-confident on held-out images: mean confidence above accuracy
        val_probs = np.exp(log_softmax(out["logits_val"].astype(np.float64), axis=1))
        assert val_probs.max(1).mean() > (val_probs.argmax(1) == out["y_val"]).mean() + 0.05
        assert out["config"]["milestones"] == (25, 38) and len(out["history"]) == 50

    def test_errors(self):
        with pytest.raises(ValueError, match="topology"):
            regime_member("fashion_mnist", "VGG", per_class_train=2, n_val=10, epochs=1)
        with pytest.raises(ValueError, match="seed"):
            regime_member("fashion_mnist", "LEN", seed=-1, per_class_train=2, n_val=10, epochs=1)
        with pytest.raises(ValueError, match="epochs"):
            regime_member("fashion_mnist", "LEN", per_class_train=2, n_val=10, epochs=0)
        with pytest.raises(ValueError, match=r"train has unknown keys \['patience'\]"):
            regime_member("fashion_mnist", "LEN", per_class_train=2, n_val=10, epochs=1, train=dict(patience=3))
        with pytest.raises(ValueError, match="augment"):
            regime_member("fashion_mnist", "LEN", per_class_train=2, n_val=10, epochs=1, augment="yes")


class TestRegimePlan:
    def test_main(self):
        cfg = preset(CHAPTER, "paper")
        plan = regime_plan(cfg, seed=0, device="cpu")
        assert isinstance(plan, RegimePlan) and len(plan.parts) == 40
        names = [p.name for p in plan.parts]
        # interleaved: seed 0 of every topology, then seed 1, ...
        assert names[:5] == [
            "fashion_mnist-regime450-len-seed0",
            "fashion_mnist-regime450-dsn100-seed0",
            "fashion_mnist-regime450-dsn121-seed0",
            "fashion_mnist-regime450-rsn-seed0",
            "fashion_mnist-regime450-len-seed1",
        ]
        assert plan.members["RSN"] == tuple(f"fashion_mnist-regime450-rsn-seed{s}" for s in range(10))
        assert plan.parts[0].parameters() == {
            "function": "credalbook.papers.wu_gales.regime:regime_member",
            "dataset": "fashion_mnist",
            "epochs": 100,
            "n_test": None,
            "n_val": 5000,
            "per_class_train": 450,
            "seed": 0,
            "split_seed": 0,
            "topology": "LEN",
        }
        # registered in the chapter's plan after today's members, never under their names
        for networks in ("quick", "paper"):
            via = plan_parts(CHAPTER, cfg, seed=0, device="cpu", networks=networks, scale="paper")
            today = wu_gales_plan(cfg, seed=0, device="cpu", networks=networks).parts
            assert [p.name for p in via] == [p.name for p in today] + names
        for p in plan.parts:
            assert records.part_parameters(p) == json.loads(json.dumps(records.encode(p.parameters())))

    def test_ensembles(self):
        plan = regime_plan(preset(CHAPTER, "tiny"), seed=0, device="cpu")
        lens = [p for p in plan.parts if p.kwargs["topology"] == "LEN"]
        values = {p.name: regime_member(**{**p.kwargs, "epochs": 1}) for p in lens}
        ens = RegimePlan(parts=lens, members={"LEN": plan.members["LEN"]}).ensembles(values)["LEN"]
        assert ens.seeds == (0, 1) and ens.logits_test.shape == (200, 2, 10) and ens.logits_val.shape == (100, 2, 10)
        assert np.array_equal(ens.logits_val[:, 1], values[plan.members["LEN"][1]]["logits_val"])
        with pytest.raises(ValueError, match="lacks the parts"):
            plan.ensembles({})
        with pytest.raises(TypeError, match="values"):
            plan.ensembles([])

    def test_errors(self):
        cfg = preset(CHAPTER, "tiny")
        with pytest.raises(ValueError, match="seed"):
            regime_plan(cfg, seed=-1)
        with pytest.raises(ValueError, match="dataset"):
            regime_plan(cfg, dataset="")
        with pytest.raises(ValueError, match="regime_members"):
            regime_plan({**cfg, "regime_members": 0})
