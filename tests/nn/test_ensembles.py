"""Tests for credalbook.nn.ensembles: frozen backbone features and classifier sets on scikit-learn's digits.

Digits has 1258 training and 539 test images (10 classes); the test split is divided into 270
calibration and 269 test instances (round(0.5 * 539) = 270, Python rounds half to even).
"""

import numpy as np
import pytest
import torch

from credalbook.data import load_dataset
from credalbook.metrics import accuracy, nll
from credalbook.nn import (
    backbone_features,
    BackboneFeatures,
    classifier_sets,
    ClassifierSet,
    HeadConfig,
    train_classifier_set,
)

# A tiny backbone that reaches ~0.9 test accuracy on digits in about a second on a CPU.
BACKBONE = dict(epochs=5, channels=(8, 16), hidden=32, lr=1e-2)
# Small heads (64 hidden units, 10 epochs); the default SGD lr=1e-2, momentum=0.9.
SET_KW = dict(head_hidden=64, epochs=10, n_members=4, backbone=BACKBONE, device="cpu", progress=False)
N_TEST, N_CAL, K = 539, 270, 10


@pytest.fixture(autouse=True)
def _one_thread():
    """Run torch on one thread: faster for these tiny networks, and no stalls of its thread pool
    when other processes share the 2-core CPU (two threads then ran these tests up to 80x slower)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _stored(cache) -> int:
    return len(list(cache.rglob("output.pkl")))


class TestBackboneFeatures:
    def test_main(self, tmp_cache):
        bb = backbone_features("digits", **BACKBONE, device="cpu", progress=False)
        assert isinstance(bb, BackboneFeatures)
        ds = load_dataset("digits")
        assert bb.features_train.shape == (1258, 32) and bb.features_test.shape == (N_TEST, 32)
        assert bb.features_train.dtype == np.float32 and bb.features_test.dtype == np.float32
        assert bb.feature_dim == 32 and bb.n_classes == K
        np.testing.assert_array_equal(bb.y_train, ds.y_train)
        np.testing.assert_array_equal(bb.y_test, ds.y_test)  # the full test split, in its order
        assert bb.features_train.min() >= 0.0 and bb.features_test.min() >= 0.0  # ReLU features
        assert bb.test_accuracy > 0.8 and bb.train_accuracy > 0.8, (bb.train_accuracy, bb.test_accuracy)
        assert len(bb.history) == 5 and bb.seconds > 0
        assert bb.config["channels"] == (8, 16) and bb.config["n_train"] is None

    def test_subsample(self, tmp_cache):
        bb = backbone_features(
            "digits", n_train=300, epochs=1, channels=(4, 8), hidden=16, device="cpu", progress=False
        )
        assert bb.features_train.shape == (300, 16) and bb.features_test.shape == (N_TEST, 16)
        np.testing.assert_array_equal(bb.y_train, load_dataset("digits").subsample(300, seed=0).y_train)

    def test_cache(self, tmp_cache):
        kw = dict(n_train=300, epochs=1, channels=(4, 8), hidden=16)
        a = backbone_features("digits", **kw, device="cpu", progress=False)
        b = backbone_features("digits", **kw, device="auto", progress=True)  # not part of the key
        assert _stored(tmp_cache) == 1
        np.testing.assert_array_equal(a.features_train, b.features_train)
        np.testing.assert_array_equal(a.features_test, b.features_test)
        c = backbone_features("digits", **kw | dict(seed=1), device="cpu", progress=False)
        assert _stored(tmp_cache) == 2 and not np.array_equal(a.features_test, c.features_test)

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="name must be one of"):
            backbone_features("imagenet", progress=False)
        with pytest.raises(ValueError, match="n_train"):
            backbone_features("digits", n_train=5000, progress=False)
        with pytest.raises(ValueError, match="epochs"):
            backbone_features("digits", epochs=0, n_train=100, channels=(4,), hidden=8, progress=False)
        with pytest.raises(ValueError, match="hidden"):
            backbone_features("digits", hidden=0, n_train=100, progress=False)
        with pytest.raises(ValueError, match="seed must be an integer >= 0"):
            backbone_features("digits", seed=-3, n_train=100, progress=False)


class TestTrainClassifierSet:
    @pytest.mark.parametrize("kind, name, m", [("single", "S", 1), ("dropout", "DN(0.3)", 4), ("ensemble", "DE", 4)])
    def test_main(self, tmp_cache, kind, name, m):
        cs = train_classifier_set("digits", kind=kind, dropout=0.3, **SET_KW)
        assert isinstance(cs, ClassifierSet) and cs.kind == kind and cs.name == name and cs.n_members == m
        assert cs.ens_probs_cal.shape == (N_CAL, m, K) and cs.ens_probs_test.shape == (N_TEST - N_CAL, m, K)
        for probs in (cs.ens_probs_cal, cs.ens_probs_test):
            assert probs.dtype == np.float64 and probs.min() >= 0.0
            np.testing.assert_allclose(probs.sum(axis=2), 1.0, atol=1e-12)
        # the ensemble average is well above chance (0.1) on both splits
        assert accuracy(cs.probs_test, cs.y_test) > 0.85 and accuracy(cs.probs_cal, cs.y_cal) > 0.85
        # -log is convex: the NLL of the average is at most the members' average NLL
        member_nll = np.mean([nll(cs.ens_probs_test[:, j], cs.y_test) for j in range(m)])
        assert nll(cs.probs_test, cs.y_test) <= member_nll + 1e-12
        assert cs.config["n_members"] == m and cs.config["backbone"]["hidden"] == 32
        assert cs.config["backbone"]["n_train"] is None and cs.config["backbone_test_accuracy"] > 0.8
        assert cs.seconds > 0

    def test_split(self, tmp_cache):
        y = load_dataset("digits").y_test
        sets = [train_classifier_set("digits", kind=kind, **SET_KW) for kind in ("single", "ensemble")]
        for cs in sets:
            assert len(cs.idx_cal) == N_CAL and len(cs.idx_test) == N_TEST - N_CAL
            assert np.intersect1d(cs.idx_cal, cs.idx_test).size == 0  # disjoint
            np.testing.assert_array_equal(np.union1d(cs.idx_cal, cs.idx_test), np.arange(N_TEST))  # covering
            np.testing.assert_array_equal(cs.y_cal, y[cs.idx_cal])
            np.testing.assert_array_equal(cs.y_test, y[cs.idx_test])
            # stratified: every class is halved, up to one instance
            gap = np.bincount(cs.y_cal, minlength=K) - np.bincount(cs.y_test, minlength=K)
            assert np.abs(gap).max() <= 1, gap
        np.testing.assert_array_equal(sets[0].idx_cal, sets[1].idx_cal)  # one split for every set
        other = train_classifier_set("digits", kind="single", split_seed=2023, **SET_KW)
        assert not np.array_equal(other.idx_cal, sets[0].idx_cal)
        fifth = train_classifier_set("digits", kind="single", cal_fraction=0.2, **SET_KW)
        assert len(fifth.idx_cal) == round(0.2 * N_TEST) == 108 and len(fifth.idx_test) == N_TEST - 108
        # the predictions do not depend on the split: the same head, rows re-indexed
        full = np.empty((N_TEST, 1, K))
        full[fifth.idx_cal], full[fifth.idx_test] = fifth.ens_probs_cal, fifth.ens_probs_test
        np.testing.assert_array_equal(full[sets[0].idx_cal], sets[0].ens_probs_cal)

    def test_determinism(self, tmp_cache):
        de = train_classifier_set("digits", kind="ensemble", **SET_KW)
        train_classifier_set.clear()  # recompute the heads (the backbone stays cached)
        again = train_classifier_set("digits", kind="ensemble", **SET_KW)
        np.testing.assert_array_equal(de.ens_probs_cal, again.ens_probs_cal)
        np.testing.assert_array_equal(de.ens_probs_test, again.ens_probs_test)
        # members differ (different initialisations) ...
        for j in range(1, de.n_members):
            assert np.abs(de.ens_probs_test[:, j] - de.ens_probs_test[:, 0]).max() > 1e-3
        # ... head i uses seed + i, so member 0 is the single network and seed=1 shifts the members
        single = train_classifier_set("digits", kind="single", **SET_KW)
        np.testing.assert_array_equal(single.ens_probs_test[:, 0], de.ens_probs_test[:, 0])
        shifted = train_classifier_set("digits", kind="ensemble", seed=1, **SET_KW)
        assert not np.array_equal(shifted.ens_probs_test, de.ens_probs_test)
        np.testing.assert_array_equal(shifted.ens_probs_test[:, :3], de.ens_probs_test[:, 1:])

    def test_dropout(self, tmp_cache):
        dn = {p: train_classifier_set("digits", kind="dropout", dropout=p, **SET_KW) for p in (0.1, 0.6)}
        for p, cs in dn.items():
            assert cs.name == f"DN({p})" and cs.config["dropout"] == p
            for j in range(1, cs.n_members):  # every pass draws new masks
                assert np.abs(cs.ens_probs_test[:, j] - cs.ens_probs_test[:, 0]).max() > 1e-3
        # a higher rate spreads the members further around their average (total variation)
        spread = {p: np.abs(cs.ens_probs_test - cs.probs_test[:, None]).sum(axis=2).mean() for p, cs in dn.items()}
        assert spread[0.6] > spread[0.1] > 0, spread
        # the masks are seeded: recomputing gives the same members
        train_classifier_set.clear()
        again = train_classifier_set("digits", kind="dropout", dropout=0.6, **SET_KW)
        np.testing.assert_array_equal(again.ens_probs_test, dn[0.6].ens_probs_test)
        # the single network has no dropout: recomputed, it predicts exactly the same
        single = train_classifier_set("digits", kind="single", **SET_KW)
        train_classifier_set.clear()
        np.testing.assert_array_equal(
            train_classifier_set("digits", kind="single", **SET_KW).ens_probs_test, single.ens_probs_test
        )

    def test_cache(self, tmp_cache):
        a = train_classifier_set("digits", kind="single", **SET_KW)
        assert _stored(tmp_cache) == 2  # the backbone and the set
        b = train_classifier_set("digits", kind="single", **SET_KW | dict(device="auto", progress=True))
        assert _stored(tmp_cache) == 2
        np.testing.assert_array_equal(a.ens_probs_cal, b.ens_probs_cal)
        np.testing.assert_array_equal(a.ens_probs_test, b.ens_probs_test)
        np.testing.assert_array_equal(a.y_test, b.y_test)
        assert a.config == b.config and a.seconds == b.seconds  # loaded, not recomputed
        train_classifier_set("digits", kind="ensemble", **SET_KW)
        assert _stored(tmp_cache) == 3  # a second set on the same backbone
        # the head options as a HeadConfig: the same cached computation
        config = HeadConfig(head_hidden=64, epochs=10)
        c = train_classifier_set(
            "digits", kind="single", n_members=4, backbone=BACKBONE, device="cpu", progress=False, config=config
        )
        assert _stored(tmp_cache) == 3 and a.config == c.config
        np.testing.assert_array_equal(a.ens_probs_test, c.ens_probs_test)
        with pytest.raises(TypeError, match=r"unexpected keyword arguments \['hidden'\]"):
            train_classifier_set("digits", kind="single", hidden=64)

    def test_errors(self, tmp_cache):
        kw = dict(backbone=BACKBONE, device="cpu", progress=False)
        kinds = r"\['dropout', 'ensemble', 'single'\]"
        with pytest.raises(ValueError, match=rf"kind must be one of {kinds}; got 'bag'"):
            train_classifier_set("digits", kind="bag", **kw)
        with pytest.raises(ValueError, match="n_members must be an integer >= 1; got 0"):
            train_classifier_set("digits", kind="ensemble", n_members=0, **kw)
        for rate in (1.0, -0.1, 1.5):
            with pytest.raises(ValueError, match=r"dropout must be a probability in \[0, 1\)"):
                train_classifier_set("digits", kind="dropout", dropout=rate, **kw)
        with pytest.raises(ValueError, match=r"dropout must lie in \(0, 1\) for kind='dropout'"):
            train_classifier_set("digits", kind="dropout", dropout=0.0, **kw)
        for fraction in (0.0, 1.0, 1.5, -0.2):
            with pytest.raises(ValueError, match=r"cal_fraction must lie in \(0, 1\)"):
                train_classifier_set("digits", kind="single", cal_fraction=fraction, **kw)
        with pytest.raises(ValueError, match="head_hidden"):
            train_classifier_set("digits", kind="single", head_hidden=0, **kw)
        with pytest.raises(ValueError, match=r"backbone has unknown keys \['depth'\]"):
            train_classifier_set("digits", kind="single", backbone=dict(depth=3), progress=False)
        with pytest.raises(ValueError, match="backbone must be a dict"):
            train_classifier_set("digits", kind="single", backbone=[("epochs", 1)], progress=False)
        with pytest.raises(ValueError, match="seed must be an integer >= 0; got -1"):
            train_classifier_set("digits", kind="ensemble", seed=-1, **kw)
        with pytest.raises(ValueError, match="split_seed must be an integer >= 0; got 0.5"):
            train_classifier_set("digits", kind="single", split_seed=0.5, **kw)
        assert _stored(tmp_cache) == 0  # rejected before any training


class TestClassifierSets:
    def test_main(self, tmp_cache):
        sets = classifier_sets("digits", **SET_KW)
        assert list(sets) == ["S", "DN(0.1)", "DN(0.6)", "DE"]
        assert [s.kind for s in sets.values()] == ["single", "dropout", "dropout", "ensemble"]
        assert [s.n_members for s in sets.values()] == [1, 4, 4, 4]
        assert [s.config["dropout"] for s in sets.values()] == [0.0, 0.1, 0.6, 0.0]
        assert all(s.name == name for name, s in sets.items())
        assert all(np.array_equal(s.idx_cal, sets["S"].idx_cal) for s in sets.values())
        # the same call through train_classifier_set is a cache hit
        de = train_classifier_set("digits", kind="ensemble", **SET_KW)
        np.testing.assert_array_equal(de.ens_probs_test, sets["DE"].ens_probs_test)
        assert _stored(tmp_cache) == 5  # one backbone, four sets
        one = classifier_sets("digits", kinds="DN(.25)", **SET_KW)
        assert list(one) == ["DN(.25)"] and one["DN(.25)"].config["dropout"] == 0.25

    def test_errors(self, tmp_cache):
        for bad in ("dn(0.1)", "DN(0.1", "DN()", "DE(3)", "", 3):
            with pytest.raises(ValueError, match="kinds must hold names 'S', 'DE' or 'DN"):
                classifier_sets("digits", kinds=("S", bad), **SET_KW)
        with pytest.raises(ValueError, match=r"kwargs must not set \['dropout', 'kind'\]"):
            classifier_sets("digits", kind="single", dropout=0.1, **SET_KW)
        with pytest.raises(ValueError, match="kinds must name at least one"):
            classifier_sets("digits", kinds=(), **SET_KW)
        with pytest.raises(ValueError, match="dropout must be a probability"):
            classifier_sets("digits", kinds=("DN(1.5)",), **SET_KW)
        assert _stored(tmp_cache) == 0
