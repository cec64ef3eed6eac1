"""credalbook.papers.juergens.parts: the Jürgens et al. chapter's studies, landscapes, pitfall and Table 1 as parts."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from credalbook.book import records
from credalbook.papers.juergens import (
    calibrated_combinations_example,
    combination_rejections,
    estimator_demo_draws,
    estimator_landscape,
    evaluate_instance_test,
    instance_test_error_rates,
    JUERGENS_H1_ALPHAS,
    juergens_plan,
    JUERGENS_SUMMARY_ALPHAS,
    Landscape,
    median_heuristic_bandwidth,
    simplex_grid,
    study_part_name,
    summarise_error_rates,
    table1_rows,
    weight_landscape,
)
from credalbook.papers.juergens.parts import AUTHORS_PART_MINUTES
from credalbook.papers.mortier import ErrorRateStudy, ErrorRateSummary, PAPER_ALPHAS
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset
from credalbook.stats import estimator_measure, set_null_distribution
from credalbook.synthetic import HYPOTHESES, instance_scenario

CHAPTER = "02_juergens_instance_calibration"
#: The contract's budget for one part's recorded value.
BUDGET = 200_000


def _via_record(value):
    return records.decode(json.loads(json.dumps(records.encode(value))))


def _encoded_size(value) -> int:
    return len(json.dumps(records.encode(value)))


@pytest.fixture(scope="module")
def tiny_plan():
    return juergens_plan(preset(CHAPTER, "tiny"), device="cpu")


def _part(plan, name):
    return next(p for p in plan.parts if p.name == name)


class TestPlan:
    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_names(self, scale):
        cfg = preset(CHAPTER, scale)
        parts = plan_parts(CHAPTER, cfg, seed=0, dataset="fashion_mnist", device="auto", scale=scale)
        names = [p.name for p in parts]
        regime = [
            f"table1r-{ds}-s{s}-{k}"
            for ds in cfg["table1_datasets"]
            for s in range(cfg["table1_seeds"])
            for k in ("de", "dn0.1", "dn0.6")
        ]
        studies = [f"{s}-{h.lower()}" for s in ("binary", "multiclass") for h in HYPOTHESES]
        more = [f"fig4more-{h}-{c}" for h in ("h0-const", "h0-inst") for c in range(1, cfg["fig4_more_chunks"] + 1)]
        assert names == studies + [
            "landscape-lp",
            "landscape-kl",
            "landscape-mmd",
            "landscape-skce",
            "appb-conditional",
            "appb-marginal",
            "appb-uncalibrated",
            "pitfall-lp",
            "pitfall-kl",
            "table1-a",
            "table1-b",
            "table1boot-a",
            "table1boot-b",
            *[f"authors-binary-{h}" for h in ("h0-const", "h0-inst", "h1-1", "h1-3")],
            *[f"authors-settings-binary-{h}" for h in ("h0-const", "h0-inst", "h1-3")],
            *[f"authors-settings-multiclass-{h.lower()}" for h in HYPOTHESES],
            "testsize-binary-h0-const",
            "testsize-binary-h0-inst",
            *[f"tiled-{e}" for e in ("lp", "kl", "skce", "mmd")],
            *regime,
            *[n.replace("table1r-", "table1rfloor-") for n in regime],
            *[f"oracle-{s}-{h}" for s in ("binary", "multiclass") for h in ("h0-const", "h0-inst")],
            *more,
            *[n.replace("table1r-", "table1rstop-") for n in regime],
        ]
        assert len(set(names)) == 45 + 3 * len(regime) + len(more)
        assert set(AUTHORS_PART_MINUTES) == set(names[21:41])  # every added part has its estimate

    def test_oracle_parts_share_the_studies_data(self):
        """Each oracle part has the arguments of its authors'-settings H0 study (generator, sizes, test split, estimators,
        seed), on the preset's oracle_datasets."""
        plan = juergens_plan(preset(CHAPTER, "paper"), seed=0)
        for s in ("binary", "multiclass"):
            for h in ("h0-const", "h0-inst"):
                oracle, study = _part(plan, f"oracle-{s}-{h}").kwargs, _part(plan, f"authors-settings-{s}-{h}").kwargs
                same = {k: v for k, v in study.items() if k not in ("learner_options", "device", "mortier_v0")}
                assert oracle == {**same, "n_datasets": 500} and oracle["simulator"] == "authors"

    def test_fig4_more_parts_are_new_datasets_of_the_studies(self):
        """Each fig4more part is its authors'-settings multi-class H0 study with the seed moved by its chunk number
        (new datasets, nothing else changed): R = 300 per panel at paper."""
        plan = juergens_plan(preset(CHAPTER, "paper"), seed=0)
        for h in ("h0-const", "h0-inst"):
            study = _part(plan, f"authors-settings-multiclass-{h}").kwargs
            for c in (1, 2):
                assert _part(plan, f"fig4more-{h}-{c}").kwargs == {**study, "seed": c}
        assert not any(p.name.startswith("fig4more-") and "binary" in p.name for p in plan.parts)

    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_regime_trains_chapter_01_networks(self, scale):
        """Table 1 in the regime trains networks of chapter 01's regime cells (same data set, seed, set, body) on this
        chapter's regime_train images for regime_epochs epochs (as many Adam steps on the second data set); the number
        of members is this chapter's too. At tiny the images and epochs are chapter 01's (its networks are reused)."""
        from credalbook.papers.mortier import mortier_plan
        from credalbook.papers.mortier.parts import _table1_epochs

        cfg = preset(CHAPTER, scale)
        ours = {p.name: p.kwargs for p in juergens_plan(cfg, seed=0).parts if p.name.startswith("table1r-")}
        theirs = {p.name: p.kwargs for p in mortier_plan(preset("01_mortier_set_calibration", scale)).parts}
        same = ("dataset", "set_name", "seed", "channels", "hidden")
        assert ours and all({k: kw[k] for k in same} == {k: theirs[name][k] for k in same} for name, kw in ours.items())
        epochs = _table1_epochs(cfg["table1_datasets"], cfg["regime_epochs"], cfg["regime_train"])
        assert all(
            (kw["n_train"], kw["epochs"]) == (cfg["regime_train"], epochs[kw["dataset"]]) for kw in ours.values()
        )
        if scale == "tiny":
            assert all(
                (kw["n_train"], kw["epochs"]) == (theirs[n]["n_train"], theirs[n]["epochs"]) for n, kw in ours.items()
            )
        else:
            assert (cfg["regime_train"], cfg["regime_epochs"]) == (1000, 400)
        for kw in ours.values():
            assert kw["n_members"] == cfg["n_members"] and kw["alpha"] == 0.01 and kw["n_test"] == cfg["table_test"]
            n_bb = None if kw["dataset"] == "digits" else cfg["backbone_train"]  # digits: fewer than 2 000 images
            assert kw["backbone"] == {"n_train": n_bb, "epochs": cfg["backbone_epochs"], "seed": 0}
            assert kw["learner_options"]["max_epochs"] == cfg["table_epochs"]

    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_floor_parts_are_regime_cells_with_a_floor(self, scale):
        """table1rfloor-*: every regime cell again with the preset's probability floor, the one setting changed."""
        cfg = preset(CHAPTER, scale)
        plan = juergens_plan(cfg, seed=0)
        cells = {p.name: p for p in plan.parts if p.name.startswith("table1r-")}
        floors = {p.name: p for p in plan.parts if p.name.startswith("table1rfloor-")}
        assert cells and sorted(floors) == sorted(n.replace("table1r-", "table1rfloor-") for n in cells)
        for name, p in cells.items():
            f = floors[name.replace("table1r-", "table1rfloor-")]
            assert f.func is p.func and f.kwargs == {**p.kwargs, "prob_floor": cfg["table1_floor"]}
        assert cfg["table1_floor"] == 1e-3

    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_stop_parts_are_regime_cells_early_stopped(self, scale):
        """table1rstop-*: every regime cell again with its networks early-stopped, the one setting changed."""
        plan = juergens_plan(preset(CHAPTER, scale), seed=0)
        cells = {p.name: p for p in plan.parts if p.name.startswith("table1r-")}
        stops = {p.name: p for p in plan.parts if p.name.startswith("table1rstop-")}
        assert cells and sorted(stops) == sorted(n.replace("table1r-", "table1rstop-") for n in cells)
        for name, p in cells.items():
            s = stops[name.replace("table1r-", "table1rstop-")]
            assert s.func is p.func and s.kwargs == {**p.kwargs, "patience": 25}

    def test_authors_variants(self):
        """The added parts are the recorded ones with one setting changed each, named in their parameters."""
        plan = juergens_plan(preset(CHAPTER, "paper"), seed=0)
        for arch in ("a", "b"):
            old, new = _part(plan, f"table1-{arch}"), _part(plan, f"table1boot-{arch}")
            assert {**old.kwargs, "resample": "bootstrap"} == new.kwargs and "resample" not in old.kwargs
        old, new = _part(plan, "binary-h1-3"), _part(plan, "authors-binary-h1-3")
        assert {**old.kwargs, "simulator": "authors"} == new.kwargs
        theirs = _part(plan, "authors-settings-multiclass-h1-2").kwargs
        assert theirs["learner_options"] == {"hidden": (16, 16, 16), "lr": 1e-4, "max_epochs": 250, "patience": 100}
        assert [o for _, o in theirs["estimators"][:3]] == [{"bandwidth": 0.01}] * 3
        assert theirs["simulator"] == "authors" and theirs["mortier_v0"]  # their generator and Mortier baseline
        assert _part(plan, "authors-settings-binary-h0-inst").kwargs["simulator"] == "authors"

    def test_test_size_study_changes_only_the_test_split(self):
        from credalbook.stats.instance import split_indices

        plan = juergens_plan(preset(CHAPTER, "paper"), seed=0)
        old, new = _part(plan, "binary-h0-inst").kwargs, _part(plan, "testsize-binary-h0-inst").kwargs
        assert {k: v for k, v in new.items() if k not in ("fractions", "mortier")} == {**old, "n_instances": 3200}
        sizes = [len(i) for i in split_indices(old["n_instances"], seed=0)]
        big = [len(i) for i in split_indices(new["n_instances"], new["fractions"], seed=0)]
        assert big[:2] == sizes[:2] and big[2] == 4 * sizes[2] and not new["mortier"]

    def test_paper_sizes_and_bandwidths(self):
        cfg = preset(CHAPTER, "paper")
        plan = juergens_plan(cfg, seed=0)
        study = _part(plan, "multiclass-h1-2").kwargs
        assert (study["n_datasets"], study["n_instances"], study["n_resamples"]) == (100, 2000, 100)
        assert study["learner_options"] == {"max_epochs": 300, "patience": 100}
        assert dict(study["estimators"])["skce"] == {"bandwidth": plan.bandwidths["multiclass"]}
        assert _part(plan, "pitfall-kl").kwargs["n_datasets"] == 200
        assert _part(plan, "landscape-skce").kwargs["estimator_options"] == {"bandwidth": plan.bandwidths["landscape"]}
        assert _part(plan, "table1-b").kwargs["backbone"] == {
            "n_train": None,
            "epochs": 5,
            "seed": 0,
            "channels": (16, 32),
            "hidden": 64,
        }
        # the bandwidths are the median heuristics, to four significant digits
        sc = instance_scenario("binary", "H0-const", n_datasets=1, n_instances=cfg["instances"], seed=0)
        h = median_heuristic_bandwidth(sc.ens_probs, seed=0)
        assert plan.bandwidths["binary"] == pytest.approx(h, rel=5e-4) and plan.bandwidths["binary"] == float(
            f"{h:.4g}"
        )
        draws = estimator_demo_draws(cfg["null_instances"], seed=0)
        assert plan.bandwidths["landscape"] == float(
            f"{median_heuristic_bandwidth(draws['landscape_sample'], seed=0):.4g}"
        )

    def test_parameters_are_json_and_deterministic(self, tiny_plan):
        again = juergens_plan(preset(CHAPTER, "tiny"), device="cuda")  # device does not change a part's parameters
        for a, b in zip(tiny_plan.parts, again.parts):
            assert records.part_parameters(a) == records.part_parameters(b)
        assert juergens_plan(preset(CHAPTER, "tiny"), seed=1).parts[0].kwargs["seed"] == 1

    def test_studies_and_errors(self, tiny_plan):
        values = {study_part_name("binary", h): h for h in HYPOTHESES}
        assert tiny_plan.studies("binary", values) == {h: h for h in HYPOTHESES}
        with pytest.raises(ValueError, match="values lacks the parts"):
            tiny_plan.studies("multiclass", values)
        with pytest.raises(ValueError, match="setting"):
            study_part_name("ternary", "H0-const")


def _fake_study(hypothesis, r, rng, t=4, d=100):
    names = ("L2-CE · new", "L2-CE · Mortier", "SKCE · new", "SKCE · Mortier")[:t]
    shift = 0.0 if hypothesis.startswith("H0") else 1.5
    return ErrorRateStudy(
        hypothesis,
        names,
        rng.normal(shift, 1, (t, r)),
        rng.normal(0, 1, (t, r, d)),
        np.zeros((t, r), dtype=np.int64),
        {"setting": "binary"},
    )


class TestStudyParts:
    def test_summary_gives_the_study_numbers(self):
        rng = np.random.default_rng(3)
        studies = {h: _fake_study(h, 40, rng) for h in HYPOTHESES}
        summaries = {h: _via_record(st.summary(JUERGENS_SUMMARY_ALPHAS)) for h, st in studies.items()}
        assert all(isinstance(s, ErrorRateSummary) for s in summaries.values())
        # the comparison's counts and bootstrap standard errors, and the figures' error rates, bit for bit
        assert summarise_error_rates(summaries, seed=2) == summarise_error_rates(studies, seed=2)
        for h, st in studies.items():
            for levels in (PAPER_ALPHAS, JUERGENS_H1_ALPHAS):
                np.testing.assert_array_equal(summaries[h].error_rates(levels), st.error_rates(levels))
        with pytest.raises(ValueError, match="among the summary's levels"):
            summaries["H1-1"].error_rates([0.02])

    def test_tiny_part_equals_direct_study(self, tiny_plan, tmp_cache):
        part = _part(tiny_plan, "multiclass-h1-3")
        value = part.run()
        back = _via_record(value)
        for f in ("rejected", "rejected_abs", "null_at_least", "null_nan", "mean_evaluations"):
            np.testing.assert_array_equal(getattr(back, f), getattr(value, f))
        assert (back.scenario, back.measures, back.alphas, back.n_bootstrap) == (
            value.scenario,
            value.measures,
            value.alphas,
            value.n_bootstrap,
        )
        kw = {k: v for k, v in part.kwargs.items() if k not in ("setting", "hypothesis", "alphas")}
        direct = instance_test_error_rates.__wrapped__("multiclass", "H1-3", progress=False, **kw)  # not the cache
        assert back.measures == direct.measures and back.n_datasets == direct.n_datasets == 3
        for levels in (PAPER_ALPHAS, JUERGENS_H1_ALPHAS):
            np.testing.assert_array_equal(back.error_rates(levels), direct.error_rates(levels))
        np.testing.assert_array_equal(back.p_values(), direct.p_values())

    def test_record_size_at_paper_scale(self):
        # T = 8 tests (4 estimators × new/Mortier), A = 18 levels, R = 100 datasets, D = 100: random decisions
        # and counts do not compress, so this bounds a real study's record from above
        rng = np.random.default_rng(0)
        t, a, r = 8, len(JUERGENS_SUMMARY_ALPHAS), preset(CHAPTER, "paper")["datasets"]
        plan = juergens_plan(preset(CHAPTER, "tiny"))
        config = dict(_part(plan, "binary-h0-const").kwargs, n_datasets=r)
        s = ErrorRateSummary(
            "H0-const",
            tuple(f"m{i} · new" for i in range(t)),
            JUERGENS_SUMMARY_ALPHAS,
            rng.random((t, a, r)) < 0.5,
            rng.random((t, a, r)) < 0.5,
            rng.integers(0, 101, (t, r)).astype(np.int32),
            np.zeros((t, r), bool),
            rng.random(t),
            100,
            config,
            500.0,
        )
        size = _encoded_size(s)
        assert 3_000 < size < 20_000 < BUDGET


class TestLandscapeParts:
    def test_tiny_part_equals_direct_landscapes(self, tiny_plan):
        part = _part(tiny_plan, "landscape-skce")
        s, w = _via_record(part.run())
        kw = {k: part.kwargs[k] for k in ("n_instances", "n_repeats", "resolution", "seed")}
        h = tiny_plan.bandwidths["landscape"]
        ds, dw = estimator_landscape("skce", **kw, bandwidth=h), weight_landscape("skce", **kw, bandwidth=h)
        for got, want in ((s, ds), (w, dw)):
            assert isinstance(got, Landscape) and got.estimator == want.estimator
            np.testing.assert_array_equal(got.grid, want.grid)
            np.testing.assert_array_equal(got.values, want.values)
            np.testing.assert_array_equal(got.argmin, want.argmin)
        np.testing.assert_array_equal(s.repeat_misses, ds.repeat_misses)
        assert w.repeat_values is None

    def test_record_size_at_paper_scale(self):
        cfg = preset(CHAPTER, "paper")
        grid = simplex_grid(cfg["landscape_resolution"])
        rng = np.random.default_rng(0)
        g, reps = len(grid), cfg["landscape_repeats"]
        pair = (
            Landscape(grid, rng.random(g), np.array([0.5, 0.3, 0.2]), "L2-CE", rng.random((g, reps))),
            Landscape(grid, rng.random(g), np.array([0.2, 0.5, 0.3]), "L2-CE", None),
        )
        assert g == 351 and _encoded_size(pair) < 80_000 < BUDGET


class TestTiledParts:
    def test_tiny_part_equals_direct_tiles(self, tiny_plan):
        from credalbook.papers.juergens.tiled import AUTHORS_TILES, tiled_landscape, TiledLandscape

        part = _part(tiny_plan, "tiled-skce")
        got = _via_record(part.run())
        kw = {k: part.kwargs[k] for k in ("n_samples", "resolution", "n_repeats", "seed")}
        want = tiled_landscape("skce", **kw, estimator_options=AUTHORS_TILES["options"]["skce"])
        assert isinstance(got, TiledLandscape) and got.estimator == "skce"
        np.testing.assert_array_equal(got.values, want.values)
        np.testing.assert_array_equal(got.near_repeats, want.near_repeats)

    def test_paper_is_the_authors_construction(self):
        from credalbook.papers.juergens.tiled import AUTHORS_TILES

        plan = juergens_plan(preset(CHAPTER, "paper"), seed=0)
        kw = _part(plan, "tiled-mmd").kwargs
        assert (kw["n_samples"], kw["resolution"], kw["estimator_options"]) == (3000, 40, {"bandwidth": 0.001})
        assert (AUTHORS_TILES["n_samples"], AUTHORS_TILES["resolution"]) == (3000, 40)


class TestDrawsAndPitfall:
    def test_demo_draws_are_the_chapter_stream(self):
        # the chapter's draws before they moved into the library, written out
        rng = np.random.default_rng(4)
        probs = rng.dirichlet(np.ones(10), size=30)
        labels = np.array([rng.choice(10, p=q) for q in probs])
        mis = np.array([rng.choice(10, p=q) for q in rng.dirichlet(np.ones(10), size=len(probs))])
        sample = rng.dirichlet(50 * np.array([0.5, 0.3, 0.2]), size=500)
        d = estimator_demo_draws(30, seed=4)
        for key, want in (
            ("probs", probs),
            ("labels", labels),
            ("labels_miscalibrated", mis),
            ("landscape_sample", sample),
        ):
            np.testing.assert_array_equal(d[key], want)

    def test_tiny_part_equals_direct_computation(self, tiny_plan):
        value = _via_record(_part(tiny_plan, "pitfall-kl").run())
        n = preset(CHAPTER, "tiny")["pitfall_datasets"]
        sc = instance_scenario("multiclass", "H0-const", n_datasets=n, n_instances=400, seed=0)
        g = estimator_measure("kl")
        t = g.func(sc.truth, sc.labels)
        want = {}
        for r in ("bootstrap", "permutation"):
            null = set_null_distribution(sc.truth[:, :, None, :], measure=g, resample=r, seed=0)
            want[("KL-CE", r)] = float(np.mean(t > np.quantile(null, 0.95, axis=-1)))
        assert value == want

    def test_pitfall_level(self):
        # permuting keeps the level of a calibrated predictor: rejections among 60 datasets at α = 0.05 within
        # the binomial(60, 0.05) band [0, 8] (P(X > 8) ≈ 0.003); resampling rejects far more (the pitfall)
        from credalbook.papers.juergens import resampling_pitfall

        r = resampling_pitfall("lp", n_datasets=60, n_instances=150, n_resamples=50, seed=1)
        assert r[("L2-CE", "permutation")] * 60 <= 8
        assert r[("L2-CE", "bootstrap")] > 0.3

    def test_pitfall_errors(self):
        from credalbook.papers.juergens import resampling_pitfall

        with pytest.raises(ValueError, match="resamples"):
            resampling_pitfall("lp", n_datasets=2, resamples=("jackknife",))
        with pytest.raises(ValueError, match="estimator"):
            resampling_pitfall("ece", n_datasets=2)


class TestAppBParts:
    def test_tiny_parts_equal_direct_computation(self, tiny_plan):
        # the chapter's App. B cell before its combinations became parts, written out
        cfg = preset(CHAPTER, "tiny")
        draws = [calibrated_combinations_example(cfg["app_b_instances"], seed=r) for r in range(cfg["app_b_draws"])]
        g = estimator_measure("kl")
        want = {}
        for name in draws[0]["combinations"]:
            p = np.stack([np.einsum("nmk,nm->nk", d["ens_probs"], d["combinations"][name]) for d in draws])
            y = np.stack([d["labels"] for d in draws])
            null = set_null_distribution(
                p[:, :, None, :], measure=g, n_resamples=cfg["n_bootstrap"], resample="permutation", seed=0
            )
            want[name] = {
                "P(Y=1) at a": p[0][draws[0]["features"][:, 0] == 0, 1][0],
                "P(Y=1) at b": p[0][draws[0]["features"][:, 0] == 1, 1][0],
                "mean KL-CE": g.func(p, y).mean(),
                "rejection rate at α = 0.05": np.mean(g.func(p, y) > np.quantile(null, 0.95, axis=-1)),
            }
        got = {}
        for name in ("appb-conditional", "appb-marginal", "appb-uncalibrated"):
            got.update(_via_record(_part(tiny_plan, name).run()))
        assert list(got) == list(want) and got == want
        # the combinations' predictions: 0.2/0.8 (conditional), 0.5 (marginal), 0.3 (λ₁ = 3/4)
        assert [round(v["P(Y=1) at a"], 12) for v in got.values()] == [0.2, 0.5, 0.3]

    def test_errors(self):
        with pytest.raises(ValueError, match="combination must be one of"):
            combination_rejections("both", n_draws=1)
        with pytest.raises(ValueError, match="n_draws"):
            combination_rejections("marginal", n_draws=0)


class TestTable1Parts:
    def test_rows_equal_direct_evaluation(self, monkeypatch):
        # stand-ins for the trained backbone and classifier sets (what credalbook.nn returns, made from a scenario)
        import credalbook.nn as nn

        sc = instance_scenario("binary", "H1-3", n_datasets=1, n_instances=400, seed=0)
        idx_cal, idx_test = np.arange(200), np.arange(200, 400)
        cs = SimpleNamespace(
            ens_probs_cal=sc.ens_probs[0, idx_cal],
            y_cal=sc.labels[0, idx_cal],
            ens_probs_test=sc.ens_probs[0, idx_test],
            y_test=sc.labels[0, idx_test],
            idx_cal=idx_cal,
            idx_test=idx_test,
        )
        bb = SimpleNamespace(features_test=sc.features[0])
        seen = {}

        def fake_backbone(dataset, **kw):
            seen["backbone"] = kw
            return bb

        def fake_sets(dataset, **kw):
            seen["sets"] = kw
            return {"DE": cs}

        monkeypatch.setattr(nn, "backbone_features", fake_backbone)
        monkeypatch.setattr(nn, "classifier_sets", fake_sets)
        learner = {"max_epochs": 5}
        rows = _via_record(
            table1_rows(
                "fashion_mnist",
                backbone={"n_train": 100, "epochs": 1, "seed": 0},
                kinds=("DE",),
                n_test=150,
                n_resamples=20,
                learner_options=learner,
                device="cpu",
                seed=0,
            )
        )
        direct = evaluate_instance_test(
            cs,
            sc.features[0, idx_cal],
            sc.features[0, idx_test],
            n_test=150,
            n_resamples=20,
            alpha=0.01,
            seed=0,
            learner_options={**learner, "device": "cpu"},
        )
        assert list(rows) == ["DE · L2-CE", "DE · KL-CE"]
        assert [dict(r, estimator=k.split(" · ")[1]) for k, r in rows.items()] == [dict(r) for r in direct]
        arch = {"n_train": 100, "epochs": 1, "seed": 0}
        assert seen["backbone"] == {**arch, "device": "cpu", "progress": False}
        assert seen["sets"]["backbone"] == arch and seen["sets"]["kinds"] == ("DE",) and seen["sets"]["device"] == "cpu"
        # the recorded value is a few rows of numbers
        assert _encoded_size(rows) < 2_000 * len(rows)
