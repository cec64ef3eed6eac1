"""credalbook.papers.mimori.parts: the chapter's networks as parts, and mimori_predictions on a recorded network."""

import json

import numpy as np
import pytest

from credalbook.book.records import decode, encode
from credalbook.papers.mimori import (
    AUTHORS_NETWORK,
    chapter_run,
    chapter_setting,
    mds_mean_labels,
    mimori_plan,
    mimori_predictions,
    network_arguments,
    STRONG_TTA_AUGMENT,
    train_mix_network,
)
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset

CHAPTER = "03_mimori_label_histograms"


class TestMimoriPlan:
    def test_paper(self):
        cfg = preset(CHAPTER, "paper")
        plan = mimori_plan(cfg, scale="paper")
        by_name = {p.name: p for p in plan.parts}
        assert list(by_name) == [
            "network-seed0",
            "network-seed1",
            "network-seed2",
            "network-mds-full-seed0",
            "network-tta-seed0",
        ]
        run = chapter_run(cfg, chapter_setting("paper"))
        for s, name in plan.seeds.items():
            part = by_name[name]
            assert part.func is train_mix_network
            # the network the chapter's mimori_predictions call for this seed would train
            assert part.kwargs == {
                **network_arguments("fashion_mnist", **{**run, "seed": s}),
                "device": "auto",
                "progress": False,
            }
            assert part.kwargs["seed"] == s and part.kwargs["augment"] is None
            assert part.kwargs["arch_options"] == AUTHORS_NETWORK
        mds, tta = by_name[plan.mds_full], by_name[plan.tta]
        assert mds.kwargs["train_labels"] == mds_mean_labels() == 5.79 and mds.kwargs["seed"] == 0
        assert tta.kwargs["augment"] == STRONG_TTA_AUGMENT and "train_labels" not in tta.kwargs
        # the only differences between the parts are the ones named
        assert {k for k in mds.kwargs if mds.kwargs[k] != by_name["network-seed0"].kwargs.get(k)} == {"train_labels"}
        assert {k for k in tta.kwargs if tta.kwargs[k] != by_name["network-seed0"].kwargs[k]} == {"augment"}
        # `python -m credalbook.book run --part` builds the same parts from the chapter's parameters
        params = dict(scale="paper", seed=0, dataset="fashion_mnist", device="auto", n_seeds=None)
        assert [p.parameters() for p in plan_parts(CHAPTER, cfg, **params)] == [p.parameters() for p in plan.parts]

    def test_other_scales_one_seed_and_no_tta_setting(self):
        plan = mimori_plan(preset(CHAPTER, "tiny"), scale="tiny", seed=4, dataset="digits")
        assert [p.name for p in plan.parts] == ["network-seed4", "network-mds-full-seed4"]
        assert plan.seeds == {4: "network-seed4"} and plan.tta is None
        plan = mimori_plan(preset(CHAPTER, "quick"), scale="quick", n_seeds=2)
        assert list(plan.seeds) == [0, 1] and plan.mds_full == "network-mds-full-seed0"

    def test_networks(self):
        plan = mimori_plan(preset(CHAPTER, "paper"), scale="paper")
        values = {p.name: i for i, p in enumerate(plan.parts)}
        assert plan.networks(values) == {"seeds": {0: 0, 1: 1, 2: 2}, "mds_full": 3, "tta": 4}
        with pytest.raises(ValueError, match=r"values lacks the parts \['network-tta-seed0'\]"):
            plan.networks({k: v for k, v in values.items() if k != "network-tta-seed0"})


TINY = dict(
    sizes=(300, 100, 100),
    arch_options=dict(channels=(4, 8, 8)),
    epochs=2,
    augment={"shift": 1.0},
    n_samples=2,
    calibrators=("ts",),
    n_labels_val=(2,),
    variable_labels=None,
    training=dict(lr=3e-3, batch_size=64),
    calibration=dict(optimizer="lbfgs", max_epochs=3),
    device="cpu",
    progress=False,
)


class TestGivenNetwork:
    def test_a_recorded_network_gives_the_predictions_of_training_it(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path))
        trained_inside = mimori_predictions("digits", **TINY)
        net = train_mix_network(**network_arguments("digits", **TINY), device="cpu", progress=False)
        recorded = decode(json.loads(json.dumps(encode(net))))  # as the chapter's part record holds it
        given = mimori_predictions("digits", **TINY, network=recorded)
        assert list(given.predictors) == list(trained_inside.predictors)
        for key, out in trained_inside.predictors.items():
            np.testing.assert_array_equal(given.predictors[key].probs, out.probs)
            np.testing.assert_array_equal(given.predictors[key].dpe, out.dpe)
        assert given.temperatures == trained_inside.temperatures
        # and the network given is the one used: another network (trained with seed 1) moves every prediction
        other = train_mix_network(**network_arguments("digits", **{**TINY, "seed": 1}), device="cpu", progress=False)
        moved = mimori_predictions("digits", **TINY, network=other)
        raw = (2, "Raw")
        assert np.abs(moved.predictors[raw].probs - given.predictors[raw].probs).max(axis=1).min() > 1e-6

    def test_a_network_of_other_settings_is_refused(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path))
        net = train_mix_network(**network_arguments("digits", **TINY), device="cpu", progress=False)
        with pytest.raises(ValueError, match=r"network was trained with other settings.*augment \{'shift': 1.0\}"):
            mimori_predictions("digits", **{**TINY, "augment": None}, network=net)
        with pytest.raises(ValueError, match=r"arch_options"):
            mimori_predictions("digits", **{**TINY, "arch_options": dict(channels=(4, 8, 16))}, network=net)
        with pytest.raises(TypeError, match="network must be a MixNetwork or None; got dict"):
            mimori_predictions("digits", **TINY, network=net.state_dict)
