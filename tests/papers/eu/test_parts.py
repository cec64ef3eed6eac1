"""credalbook.papers.eu.parts: the EU chapter's GP fits as recorded parts, and runs assembled from them."""

import json

import numpy as np
import pytest

from credalbook.book import records
from credalbook.papers.eu import eu_plan, EU_ROLES, EUFit, real_eu_experiment, toy_eu_experiment
from credalbook.papers.presets import preset

CHAPTER = "05_epistemic_uncertainty_gp"


class TestPlan:
    def test_names_and_sharing(self):
        plan = eu_plan(preset(CHAPTER, "paper"))
        names = [p.name for p in plan.parts]
        # 6 seeds: 4 GPs for the main toy experiment, 2 for variant 1, none for variant 2; 4 for the one
        # sensitivity seed; 4 per real-data seed
        assert len(names) == 6 * 4 + 6 * 2 + 4 + 6 * 4 == 64 and len(set(names)) == 64
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
        assert len(eu_plan(preset(CHAPTER, "paper"), n_seeds=1).parts) == 4 + 2 + 4 + 4

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
        kw = dict(
            window=cfg["toy_window"],
            evaluation=cfg["toy_discs"],
            calibration=cfg["toy_discs"],
            gp=cfg["toy_gp"],
            n_bins=cfg["n_bins"],
            n_samples=cfg["n_samples"],
            device="cpu",
        )
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
