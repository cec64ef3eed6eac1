"""credalbook.papers.eu.parts: the EU chapter's GP fits as recorded parts, and runs assembled from them."""

import json

import numpy as np
import pytest

from credalbook.book import records
from credalbook.papers.eu import (
    EU_CARVING_RANGES,
    EU_CAUSE_NOISE,
    eu_plan,
    EU_ROLES,
    EUFit,
    real_eu_experiment,
    toy_eu_assemble,
    toy_eu_experiment,
    toy_eu_splits,
    TOY_KEPT_FRACTIONS,
)
from credalbook.papers.presets import preset

CHAPTER = "05_epistemic_uncertainty_gp"


def _toy_kw(cfg):
    """The keywords of a direct ``toy_eu_experiment`` at preset ``cfg`` (what the plan's toy parts pass)."""
    return dict(
        window=cfg["toy_window"],
        evaluation=cfg["toy_discs"],
        calibration=cfg["toy_discs"],
        gp=cfg["toy_gp"],
        n_bins=cfg["n_bins"],
        n_samples=cfg["n_samples"],
        device="cpu",
    )


class TestPlan:
    def test_names_and_sharing(self):
        plan = eu_plan(preset(CHAPTER, "paper"))
        names = [p.name for p in plan.parts]
        # 6 seeds: 4 GPs for the main toy experiment, 2 for variant 1, none for variant 2; 4 for the one
        # sensitivity seed; 4 per real-data seed; then the carving study (the milder range's seeds 1-5: its seed 0
        # is the sensitivity run, the book's range the main experiment), the cause study (2 noise levels) and, last,
        # the Fashion-MNIST analogue (all and half the images, 4 GPs per seed each)
        assert len(names) == 6 * 4 + 6 * 2 + 4 + 6 * 4 + 5 * 4 + 2 * 6 * 4 + 2 * 6 * 4 == 180 and len(set(names)) == 180
        assert names[:132] == [p.name for p in plan.parts if not p.name.startswith("analogue-")]
        assert [p.name for p in plan.group_parts("low_aleatoric")] == [
            f"toy-seed{s}-{r}" for s in range(6) for r in EU_ROLES
        ]
        assert {p.name for p in plan.group_parts("large_calibration")} == (
            {f"toy-seed{s}-{r}" for s in range(6) for r in ("train", "aug")}
            | {f"large_calibration-seed{s}-{r}" for s in range(6) for r in ("train_2", "aug_2")}
        )
        assert "real-kuzushiji49-seed5-aug_2" in [
            p.name for p in eu_plan(preset(CHAPTER, "paper"), dataset="kuzushiji49").parts
        ]
        assert len(eu_plan(preset(CHAPTER, "paper"), n_seeds=1).parts) == 4 + 2 + 4 + 4 + 2 * 4 + 2 * 4

    def test_todays_parts_unchanged(self):
        # the first 64 parts at paper are today's, in today's order and with today's arguments
        cfg = preset(CHAPTER, "paper")
        parts = eu_plan(cfg).parts
        assert [p.name for p in parts[:4]] == [f"toy-seed0-{r}" for r in EU_ROLES]
        assert parts[63].name == "real-fashion_mnist-seed5-aug_2"
        assert parts[0].parameters() == {
            "function": "credalbook.papers.eu.experiments:toy_eu_fit",
            "calibration": cfg["toy_discs"],
            "evaluation": cfg["toy_discs"],
            "gp": cfg["toy_gp"],
            "noise_sd": 0.3,
            "role": "train",
            "seed": 0,
            "window": None,
        }
        less = {p.name: p for p in parts}["carved_less-seed0-train"].kwargs
        assert less["evaluation"] == less["calibration"] == {**cfg["toy_discs"], "p_train": (0.25, 0.85)}

    def test_carving_study(self):
        cfg = preset(CHAPTER, "paper")
        plan = eu_plan(cfg)
        assert EU_CARVING_RANGES == ((0.0, 0.6), (0.25, 0.85)) and cfg["toy_discs"]["p_train"] == TOY_KEPT_FRACTIONS
        book = [p.name for p in plan.group_parts("carving_0-0.6")]
        assert book == [p.name for p in plan.group_parts("toy")]  # the book's range is the main experiment
        milder = plan.group_parts("carving_0.25-0.85")
        assert [p.name for p in milder[:4]] == [f"carved_less-seed0-{r}" for r in EU_ROLES]
        assert {p.name for p in milder[4:]} == {f"carving_0.25-0.85-seed{s}-{r}" for s in range(1, 6) for r in EU_ROLES}
        assert len(milder) == 24 and {p.kwargs["seed"] for p in milder} == set(range(6))
        for p in milder:
            assert p.kwargs["evaluation"]["p_train"] == p.kwargs["calibration"]["p_train"] == (0.25, 0.85)
            assert {k: v for k, v in p.kwargs["evaluation"].items() if k != "p_train"} == {
                k: v for k, v in cfg["toy_discs"].items() if k != "p_train"
            }
            assert p.kwargs["gp"] == cfg["toy_gp"] and p.kwargs["window"] is None
        # compute order of the new parts: the cause study, then train/aug of every seed, then the calibration GPs
        new = [p.name for p in plan.parts[64:]]
        carving = [n for n in new if n.startswith("carving")]
        assert new[: 2 * 6 * 4] == [n for n in new if n.startswith("noise")]
        assert carving[:10] == [f"carving_0.25-0.85-seed{s}-{r}" for s in range(1, 6) for r in ("train", "aug")]
        assert carving[10:] == [f"carving_0.25-0.85-seed{s}-{r}" for s in range(1, 6) for r in ("train_2", "aug_2")]

    def test_cause_study(self):
        paper, quick = preset(CHAPTER, "paper"), preset(CHAPTER, "quick")
        plan = eu_plan(paper)
        assert EU_CAUSE_NOISE == (0.3, 0.5)
        for sd in EU_CAUSE_NOISE:
            parts = plan.group_parts(f"noise_{sd:g}")
            assert [p.name for p in parts] == [p.name for p in plan.group_parts(f"bayes_{sd:g}")]
            assert len(parts) == 24 and {p.kwargs["noise_sd"] for p in parts} == {sd}
            for p in parts:  # quick-size windows at paper scale
                assert p.kwargs["window"] == quick["toy_window"] and p.kwargs["gp"] == quick["toy_gp"]
                assert p.kwargs["evaluation"] == p.kwargs["calibration"] == quick["toy_discs"]
        assert [a["gain_reference"] for _, _, _, a in plan.runs["bayes_0.5"]] == ["bayes"] * 6
        assert all("gain_reference" not in a for _, _, _, a in plan.runs["noise_0.5"])
        # at quick the book's noise is the main toy experiment itself: shared parts
        qplan = eu_plan(quick)
        assert [p.name for p in qplan.group_parts("noise_0.3")] == [p.name for p in qplan.group_parts("toy")]

    def test_errors(self):
        with pytest.raises(ValueError, match="n_seeds must be a positive integer"):
            eu_plan(preset(CHAPTER, "tiny"), n_seeds=0)
        plan = eu_plan(preset(CHAPTER, "tiny"))
        with pytest.raises(ValueError, match="group must be one of"):
            plan.group_parts("nope")
        with pytest.raises(ValueError, match="fits lacks the parts"):
            plan.study("toy", {})


class TestAssembly:
    def test_toy_equals_direct_run(self, tmp_cache):
        # the direct runs load the plan's GP fits from the (temporary) cache: the same fits, assembled two ways
        cfg = preset(CHAPTER, "tiny")
        plan = eu_plan(cfg, n_seeds=1, device="cpu")
        fits = {p.name: p.run() for p in plan.group_parts("large_calibration") + plan.group_parts("low_aleatoric")}
        fits = {k: records.decode(json.loads(json.dumps(records.encode(v)))) for k, v in fits.items()}  # via a record
        assert all(isinstance(v, EUFit) for v in fits.values())
        n_discs = int(np.prod(cfg["toy_discs"]["shape"]))
        kw = _toy_kw(cfg)
        for group, extra in (
            ("toy", {}),
            ("large_calibration", {"calibration": {**cfg["toy_discs"], **cfg["toy_large_discs"]}}),
            (
                "low_aleatoric",
                {"low_aleatoric_discs": list(range(1, n_discs, 2)), "aleatoric_threshold": cfg["aleatoric_threshold"]},
            ),
        ):
            run = plan.study(group, fits).runs[0]
            direct = toy_eu_experiment(0, **{**kw, **extra})
            for k in ("M", "E"):
                for m in ("rho_epi", "eece", "calibrated_eece"):
                    assert getattr(run.evaluations[k], m) == pytest.approx(getattr(direct.evaluations[k], m), abs=1e-9)
            np.testing.assert_array_equal(run.gain, direct.gain)
            assert run.sizes == direct.sizes and run.accuracy == direct.accuracy

    def test_bayes_gain_reference(self, tmp_cache):
        # the cause study's f* variant: the same fits, the gain against the Bayes classifier of the toy data
        cfg = preset(CHAPTER, "tiny")
        plan = eu_plan(cfg, n_seeds=1, device="cpu")
        fits = {p.name: p.run() for p in plan.group_parts("bayes_0.5")}
        aug, bayes = plan.study("noise_0.5", fits).runs[0], plan.study("bayes_0.5", fits).runs[0]
        t = toy_eu_splits(
            seed=0, noise_sd=0.5, window=cfg["toy_window"], evaluation=cfg["toy_discs"], calibration=cfg["toy_discs"]
        )
        y = t.y[t.evaluation.test]
        f_star = (t.data.bayes_probability(t.x[t.evaluation.test]) > 0.5).astype(int)
        f_tr = (fits["noise_0.5-seed0-train"].mean > 0).astype(int)
        np.testing.assert_array_equal(bayes.gain, (f_star == y).astype(int) - (f_tr == y).astype(int))
        assert bayes.accuracy["aug"] == pytest.approx(np.mean(f_star == y), abs=1e-15)
        np.testing.assert_array_equal(aug.eu["M"], bayes.eu["M"])  # same f_tr, same estimates
        assert aug.accuracy["train"] == bayes.accuracy["train"] and not np.array_equal(aug.gain, bayes.gain)
        direct = toy_eu_experiment(0, noise_sd=0.5, **_toy_kw(cfg))
        np.testing.assert_array_equal(aug.gain, direct.gain)
        with pytest.raises(ValueError, match="gain_reference must be"):
            toy_eu_assemble(0, {}, gain_reference="f_star")

    def test_real_equals_direct_run(self, tmp_cache):
        cfg = preset(CHAPTER, "tiny")
        plan = eu_plan(cfg, device="cpu")
        run = plan.study("real", {p.name: p.run() for p in plan.group_parts("real")}).runs[0]
        direct = real_eu_experiment(
            "fashion_mnist",
            0,
            n_points=cfg["real_points"],
            split=cfg["real_split"],
            gp=cfg["real_gp"],
            n_bins=cfg["n_bins"],
            n_samples=cfg["n_samples"],
            device="cpu",
        )
        assert run.evaluations["E"].calibrated_eece == pytest.approx(direct.evaluations["E"].calibrated_eece, abs=1e-9)
        np.testing.assert_array_equal(run.test_index, direct.test_index)

    def test_record_size_at_paper_scale(self):
        # a fit's value is two float64 arrays over its test points; the paper's toy test sets hold about 2,800
        fit = EUFit(
            role="train",
            mean=np.random.default_rng(0).normal(size=2800),
            variance=np.random.default_rng(1).gamma(2.0, size=2800),
            train_key="0" * 40,
            seconds=1.0,
        )
        assert len(json.dumps(records.encode(fit))) < 80_000
