"""Tests for credalbook.papers.mortier.parts: the chapter's plan (names, shared studies, the chapter's arguments),
the parts' values through the record codec, the assembled objects against the direct computation, and the size
of a paper-scale part's record."""

import dataclasses
import json

import numpy as np
import pytest

from credalbook.book import records
from credalbook.papers.mortier import (
    chapter_results,
    classifier_set_table,
    ClassifierSetTable,
    ECE_MEASURES,
    ErrorRateStudy,
    ErrorRateSummary,
    evaluate_classifier_set,
    MORTIER_GROUPS,
    mortier_plan,
    PAPER_SETTINGS,
    set_test_error_rates,
    solver_comparison,
    table1_differences,
    type_one_gap,
)
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset

CHAPTER = "01_mortier_set_calibration"
NAMES = [
    "fig1-s1",
    "fig1-s2",
    "fig1-s3",
    "fig2-s1",
    "fig2-s2",
    "fig2-s3",
    "fig3-s1",
    "fig3-s2",
    "fig3-s3",
    "fig4-s1",
    "fig4-s2",
    "fig4-s3",
    "solvers",
    "variant-s1",
    "s2-code",
    "hl-s1",
    "hl-s2",
    "hl-s3",
    "k100-permutation",
    "k10-permutation",
    "fig3-s1-uniform",
    "s2-code-permutation",
    "s3-code-permutation",
    "s2-code-permutation-rhobeg1",
    "s3-code-permutation-rhobeg1",
    "table1-fashion_mnist",
]
#: The budget of one part's record (issue #24): 200 kB of JSON.
BUDGET = 200_000
#: A small digits run of Table 1 (seconds on a CPU).
DIGITS = dict(
    n_members=2,
    epochs=1,
    n_resamples=10,
    solver="search",
    device="cpu",
    progress=False,
    backbone=dict(n_train=300, epochs=1, channels=(4, 8), hidden=16),
)


def roundtrip(value):
    return records.decode(json.loads(json.dumps(records.encode(value))))


def encoded_size(value) -> int:
    return len(json.dumps(records.encode(value)))


def assert_summaries_equal(a, b):
    assert type(a) is type(b) is ErrorRateSummary
    assert (a.scenario, a.measures, a.alphas, a.n_bootstrap, a.config, a.seconds) == (
        b.scenario,
        b.measures,
        b.alphas,
        b.n_bootstrap,
        b.config,
        b.seconds,
    )
    for name in ("rejected", "rejected_abs", "null_at_least", "null_nan", "mean_evaluations"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


class TestMortierPlan:
    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_main(self, scale):
        cfg = preset(CHAPTER, scale)
        parts = plan_parts(
            CHAPTER, cfg, scale=scale, seed=0, dataset="fashion_mnist", device="auto", solver="cobyla_powell", n_jobs=1
        )
        n_chunks = -(-cfg["fig3_cobyla_datasets"] // 20)
        chunks = [f"fig3-s1-cobyla-c{c}-t{t}" for c in range(n_chunks) for t in range(len(ECE_MEASURES))]
        cells = [
            f"table1-{ds}-s{s}-{k}"
            for ds in cfg["table1_datasets"]
            for s in range(cfg["table1_seeds"])
            for k in ("s", "dn0.1", "dn0.6", "de")
        ]
        regime = [
            f"table1r-{ds}-s{s}-{k}"
            for ds in cfg["table1_datasets"]
            for s in range(cfg["table1_regime_seeds"])
            for k in ("s", "dn0.1", "dn0.6", "de")
        ]
        assert cfg["table1_regime_seeds"] >= cfg["table1_seeds"]  # the regime's cells include the control's seeds
        rounds = [f"fig3-s1-rounds100-{i}" for i in range(-(-cfg["fig3"] // 100))]
        assert [p.name for p in parts] == NAMES + [
            "fig1-s1-search-descent", *chunks, *rounds, "s2-text", "s3-text", *cells, *regime,
            "s2-code-permutation-objective", "s3-code-permutation-objective", "s2-released-code-c0", "s2-released-code-c1",
        ]  # fmt: skip
        released = [by_name for by_name in parts if by_name.name.startswith("s2-released-code")]
        assert [p.kwargs["chunk"] for p in released] == [0, 1]  # one call of their _simulation_ha per part
        assert all(p.kwargs["n_datasets"] == max(1, cfg["variant_datasets"] // 5) for p in released)
        assert all({k: p.kwargs[k] for k in PAPER_SETTINGS["Fig. 1"]} == PAPER_SETTINGS["Fig. 1"] for p in released)
        plan = mortier_plan(cfg, solver="cobyla_powell")
        assert tuple(plan.groups) == MORTIER_GROUPS
        by = {p.name: p for p in plan.parts}
        # the sizes of the preset, the minimiser of each setting, the chapter's seed
        for fig, setting in PAPER_SETTINGS.items():
            key = fig.lower().replace(". ", "")
            for s in ("S1", "S2", "S3"):
                kw = by[f"{key}-{s.lower()}"].kwargs
                assert kw["scenario"] == s and kw["n_datasets"] == cfg[key] and kw["n_resamples"] == cfg["n_bootstrap"]
                assert kw["solver"] == (cfg["fig3_solver"] if setting["n_members"] > 10 else "cobyla_powell")
                assert {k: kw[k] for k in setting} == setting
        assert plan.groups["figures"]["Fig. 3"]["S2"] == "fig3-s2"
        # App. Fig. 4's S1 is the K = 100 comparison's bootstrap study: one part
        assert plan.groups["k100"] == {"bootstrap": "fig4-s1", "permutation": "k100-permutation"}
        # S2 and S3 as the authors' code runs them: their segment, permuted; then with their COBYLA settings
        for s in ("S2", "S3"):
            kw = by[plan.groups["code_h1"][s]].kwargs
            assert (kw["segment_start"], kw["outside_start"], kw["resample"], kw["scenario"]) == (
                "centre",
                "end",
                "permutation",
                s,
            )
            kc = by[plan.groups["code_h1_cobyla"][s]].kwargs
            assert kc["solver_options"] == {"rhobeg": 1.0, "tol": 1e-4} and kc["measures"] == ECE_MEASURES
            assert {k: v for k, v in kc.items() if k not in ("solver_options", "measures")} == {
                **kw,
                "solver": "cobyla_powell",
            }
            ko = by[plan.groups["code_h1_objective"][s]].kwargs  # and with their objective: the one setting changed
            assert ko["solver_options"] == {"rhobeg": 1.0, "tol": 1e-4, "authors_objective": True}
            assert {k: v for k, v in ko.items() if k != "solver_options"} == {
                k: v for k, v in kc.items() if k != "solver_options"
            }
        assert [p.name for p in plan.group_parts("k100")] == ["fig4-s1", "k100-permutation"]
        assert by["hl-s2"].kwargs["n_datasets"] == cfg["variant_datasets"]
        assert by["k10-permutation"].kwargs["resample"] == "permutation"
        uniform = by["fig3-s1-uniform"].kwargs  # App. Fig. 3's S1 with t at the uniform weights
        assert uniform["solver"] == "uniform" and uniform["n_datasets"] == cfg["fig3"]
        assert {k: uniform[k] for k in PAPER_SETTINGS["Fig. 3"]} == PAPER_SETTINGS["Fig. 3"]
        t1 = by["table1-fashion_mnist"].kwargs
        assert t1["backbone"] == {"n_train": cfg["backbone_train"], "epochs": cfg["backbone_epochs"], "seed": 0}
        assert (t1["lr"], t1["momentum"], t1["n_members"]) == (cfg["head_lr"], cfg["head_momentum"], cfg["n_members"])
        # one minimiser per comparison: Fig. 1's S1 with App. Fig. 3's minimiser; App. Fig. 3's S1 with COBYLA
        one = by["fig1-s1-search-descent"].kwargs
        assert (
            one["solver"] == cfg["fig3_solver"]
            and {k: one[k] for k in PAPER_SETTINGS["Fig. 1"]} == PAPER_SETTINGS["Fig. 1"]
        )
        assert one["n_datasets"] == cfg["fig1_search_datasets"]
        c0 = by["fig3-s1-cobyla-c0-t2"].kwargs
        assert (c0["solver"], c0["chunk"], c0["seed"], c0["n_members"], c0["test"]) == ("cobyla_powell", 0, 0, 100, 2)
        assert tuple(c0["measures"]) == ECE_MEASURES
        assert sum(by[c].kwargs["n_datasets"] for c in chunks) == len(ECE_MEASURES) * cfg["fig3_cobyla_datasets"]
        assert plan.groups["fig3_cobyla"]["0"] == {str(t): f"fig3-s1-cobyla-c0-t{t}" for t in range(len(ECE_MEASURES))}
        text = by["s2-text"].kwargs
        assert (
            text["segment_start"] == "centre"
            and "outside_start" not in text
            and text["n_datasets"] == cfg["text_datasets"]
        )
        cell = by[cells[-1]].kwargs
        assert (cell["set_name"], cell["solver"], cell["n_resamples"], cell["n_bins"]) == (
            "DE",
            "cobyla",
            cfg["n_bootstrap"],
            5,
        )
        # the over-confident regime: the same cells, trained longer on fewer images (as many Adam steps per data set)
        r0, c0 = by[regime[0]], by[cells[0]]
        assert r0.func.__name__ == "table1_regime_cell" and c0.func.__name__ == "table1_cell"
        assert (r0.kwargs["n_train"], r0.kwargs["epochs"]) == (cfg["table1_regime_train"], cfg["table1_regime_epochs"])
        assert {k: v for k, v in r0.kwargs.items() if k not in ("n_train", "epochs")} == {
            k: v for k, v in c0.kwargs.items() if k not in ("n_train", "epochs")
        }
        assert plan.groups["table1_regime"][cfg["table1_datasets"][0]]["0"]["DE"] == regime[3]

    def test_parameters(self):
        cfg = preset(CHAPTER, "tiny")
        one = {p.name: p.parameters() for p in mortier_plan(cfg, n_jobs=1, device="cpu").parts}
        two = {p.name: p.parameters() for p in mortier_plan(cfg, n_jobs=-1, device="cuda").parts}
        assert one == two  # where it runs does not change a value
        other = {p.name: p.parameters() for p in mortier_plan(cfg, seed=1, solver="search").parts}
        assert all(other[n] != one[n] for n in NAMES)
        assert other["fig1-s1"]["solver"] == "search" and other["fig1-s1"]["seed"] == 1
        names = [p.name for p in mortier_plan(cfg, dataset="digits").parts]
        assert "table1-digits" in names and len(set(names)) == len(names)
        json.dumps(records.encode(one))  # JSON-able configuration

    def test_values(self):
        plan = mortier_plan(preset(CHAPTER, "tiny"))
        values = {p.name: i for i, p in enumerate(plan.parts)}
        figures = plan.values("figures", values)
        assert list(figures) == list(PAPER_SETTINGS) and figures["Fig. 2"] == {"S1": 3, "S2": 4, "S3": 5}
        assert plan.values("table1_frozen", values) == 25 and plan.values("k100", values) == {
            "bootstrap": 9,
            "permutation": 18,
        }
        assert plan.values("fig3_uniform", values) == 20
        assert plan.values("code_h1", values) == {"S2": 21, "S3": 22}
        assert plan.values("code_h1_cobyla", values) == {"S2": 23, "S3": 24}
        assert plan.values("fig3_cobyla", values) == {"0": {"0": 27, "1": 28, "2": 29, "3": 30}}
        assert plan.values("fig3_rounds", values) == {"0": 31}
        assert plan.values("table1", values) == {"digits": {"0": {"S": 34, "DN(0.1)": 35, "DN(0.6)": 36, "DE": 37}}}
        assert plan.values("text_segment", values) == {"S2": 32, "S3": 33}

    def test_errors(self):
        plan = mortier_plan(preset(CHAPTER, "tiny"))
        with pytest.raises(ValueError, match="group must be one of"):
            plan.group_parts("fig5")
        with pytest.raises(ValueError, match=r"lacks the parts \['hl-s3'\]"):
            plan.values("hl", {"hl-s1": 1, "hl-s2": 2})
        cfg = preset(CHAPTER, "tiny")
        with pytest.raises(ValueError, match="solver"):
            mortier_plan(cfg, solver="lbfgs")
        with pytest.raises(ValueError, match="seed"):
            mortier_plan(cfg, seed=-1)
        with pytest.raises(ValueError, match="n_jobs"):
            mortier_plan(cfg, n_jobs=0)
        with pytest.raises(ValueError, match="dataset"):
            mortier_plan(cfg, dataset="")


class TestErrorRateChunk:
    KW = dict(n_instances=20, n_members=2, n_classes=3, u=0.5, n_resamples=10, measures=("skce_ul", ("ece_conf", 5)))

    def test_main(self, tmp_cache):
        """Chunks 0 and 1 are the study's first 40 datasets, bit for bit (same tests, same seed)."""
        from credalbook.papers.mortier import error_rate_chunk, merge_summaries

        study = set_test_error_rates("S1", n_datasets=45, solver="search", seed=3, n_jobs=1, progress=False, **self.KW)
        chunks = [error_rate_chunk("S1", chunk=c, solver="search", seed=3, **self.KW) for c in (0, 1)]
        merged = merge_summaries(chunks)
        full = study.summary()
        np.testing.assert_array_equal(merged.rejected, full.rejected[..., :40])
        np.testing.assert_array_equal(merged.null_at_least, full.null_at_least[:, :40])
        assert merged.n_datasets == 40 and merged.config["chunks"] == [0, 1]

    def test_one_test(self, tmp_cache):
        """One test of a chunk is that test's row of the whole study, bit for bit; join_tests puts a chunk back."""
        from credalbook.papers.mortier import error_rate_chunk, join_tests, merge_summaries

        study = set_test_error_rates("S1", n_datasets=25, solver="search", seed=3, n_jobs=1, progress=False, **self.KW)
        full = study.summary()
        tests = [
            [error_rate_chunk("S1", chunk=c, n_datasets=n, solver="search", seed=3, test=t, **self.KW) for t in (0, 1)]
            for c, n in ((0, 20), (1, 5))
        ]
        for t in (0, 1):
            alone = merge_summaries(chunk[t] for chunk in tests)
            assert alone.measures == (full.measures[t],) and alone.config["test"] == t
            np.testing.assert_array_equal(alone.rejected[0], full.rejected[t])
            np.testing.assert_array_equal(alone.null_at_least[0], full.null_at_least[t])
        joined = merge_summaries(join_tests(chunk) for chunk in tests)
        assert joined.measures == full.measures and "test" not in joined.config
        np.testing.assert_array_equal(joined.rejected, full.rejected)
        np.testing.assert_array_equal(joined.rejected_abs, full.rejected_abs)
        np.testing.assert_array_equal(joined.null_nan, full.null_nan)
        assert joined.mean_evaluations.shape == (2,) and joined.n_datasets == 25
        with pytest.raises(ValueError, match="n_datasets"):
            join_tests([tests[0][0], tests[1][1]])  # 20 and 5 datasets

    def test_stalls_counted_with_the_watchdog(self, tmp_cache, monkeypatch):
        """With ``stall_seconds`` COBYLA's chunks count stalled minimisations in their configs, the decisions unchanged
        when none stalls; join_tests and merge_summaries add the counts; without it the config has no count."""
        from credalbook.papers.mortier import error_rate_chunk, join_tests, merge_summaries
        from credalbook.papers.mortier.error_rates import stall_config

        kw = dict(self.KW, n_datasets=2, solver="cobyla_powell", seed=1)
        plain = error_rate_chunk("S1", chunk=0, **kw)
        watched = [error_rate_chunk("S1", chunk=0, solver_options={"stall_seconds": 30}, test=t, **kw) for t in (0, 1)]
        assert "n_stalls" not in plain.config and [w.config["n_stalls"] for w in watched] == [0, 0]
        joined = join_tests(watched)
        np.testing.assert_array_equal(joined.rejected, plain.rejected)
        np.testing.assert_array_equal(joined.null_at_least, plain.null_at_least)
        assert [w.config["stalls"] for w in watched] == [[[0, 0]], [[0, 0]]]
        counted = [
            dataclasses.replace(w, config=dict(w.config, n_stalls=sum(st), stalls=[st]))
            for w, st in zip(watched, ([2, 0], [0, 1]))
        ]
        one = join_tests(counted)
        assert one.config["n_stalls"] == 3 and one.config["stalls"] == [[2, 0], [0, 1]]
        both = merge_summaries([one, joined])  # datasets side by side
        assert both.config["n_stalls"] == 3 and both.config["stalls"] == [[2, 0, 0, 0], [0, 1, 0, 0]]
        assert "n_stalls" not in merge_summaries([plain, plain]).config
        with pytest.raises(ValueError, match="stalled minimisations"):
            merge_summaries([plain, joined])
        assert stall_config({"stall_seconds": 1}, np.array([[1, 0], [2, 0]])) == {
            "n_stalls": 3,
            "stalls": [[1, 0], [2, 0]],
        }
        assert stall_config({}, np.ones((2, 2))) == {} and stall_config(None, np.ones(1)) == {}

    def test_errors(self):
        from credalbook.papers.mortier import error_rate_chunk, join_tests, merge_summaries

        with pytest.raises(ValueError, match="test must be an index"):
            error_rate_chunk("S1", chunk=0, test=2, **self.KW)
        with pytest.raises(ValueError, match="test must be an index"):
            error_rate_chunk("S1", chunk=0, test=True, **self.KW)
        with pytest.raises(ValueError, match="summaries"):
            join_tests([])

        with pytest.raises(ValueError, match="chunk"):
            error_rate_chunk("S1", chunk=-1, **self.KW)
        with pytest.raises(ValueError, match="n_datasets"):
            error_rate_chunk("S1", chunk=0, n_datasets=21, **self.KW)
        with pytest.raises(ValueError, match="solver"):
            error_rate_chunk("S1", chunk=0, solver="lbfgs", **self.KW)
        with pytest.raises(ValueError, match="summaries"):
            merge_summaries([])


class TestStudyParts:
    def test_chapter_arguments(self, tmp_cache):
        """The parts compute what the chapter computed before (the same cached study, summarised)."""
        cfg = {**preset(CHAPTER, "tiny"), "fig1": 3, "fig4": 2, "n_bootstrap": 10}
        plan = mortier_plan(cfg, seed=3)
        values = {p.name: p.run() for p in plan.group_parts("k100") + plan.group_parts("permutation")}
        k100 = plan.values("k100", values)
        for r in ("bootstrap", "permutation"):
            direct = set_test_error_rates(
                "S1",
                n_datasets=2,
                n_resamples=10,
                solver="cobyla_powell",
                resample=r,
                seed=3,
                n_jobs=1,
                **PAPER_SETTINGS["Fig. 4"],
            )
            assert_summaries_equal(k100[r], direct.summary())
        perm = plan.values("permutation", values)
        direct = set_test_error_rates(
            "S1",
            n_datasets=3,
            n_resamples=10,
            solver="cobyla_powell",
            resample="permutation",
            seed=3,
            n_jobs=1,
            **PAPER_SETTINGS["Fig. 1"],
        )
        assert_summaries_equal(perm, direct.summary())
        assert_summaries_equal(roundtrip(perm), perm)
        assert perm.rejection_counts() == direct.rejection_counts()

    def test_paper_scale_size(self):
        """A paper-scale study (7 tests, R = 1000, D = 100) and its summary's record: under the budget."""
        rng = np.random.default_rng(0)
        t, r, d = 7, 1000, 100
        null = rng.gamma(2.0, size=(t, r, d))
        stats = rng.gamma(2.0, size=(t, r)) - np.linspace(0, 1.5, t)[:, None]  # H0-like: decisions of every kind
        study = ErrorRateStudy(
            "S1", tuple(f"m{i}" for i in range(t)), stats, null, rng.integers(50, 500, (t, r)), {"n_datasets": r}, 100.0
        )
        summary = study.summary()
        size = encoded_size(summary)
        assert size < BUDGET / 2, size
        assert encoded_size(study) > 50 * size  # the null samples: megabytes
        assert_summaries_equal(roundtrip(summary), summary)


class TestSolverComparison:
    def test_main(self):
        out = solver_comparison(
            scenarios=("S2",), measures=(("hl", 5),), n_datasets=2, n_resamples=10, seed=1, data_seed=8
        )
        from credalbook.papers.mortier import compare_solvers
        from credalbook.synthetic import credal_scenario

        d = credal_scenario("S2", n_datasets=2, seed=8)
        direct = compare_solvers(d.ens_probs, d.labels, measure="hl", n_bins=5, n_resamples=10, seed=1)
        ((key, got),) = out.items()
        assert key == ("S2", ("hl", 5))
        back = roundtrip(out)[key]
        for solver, run in direct.items():
            for name in ("statistic", "n_evaluations", "rejected"):
                np.testing.assert_array_equal(got[solver][name], run[name])
                np.testing.assert_array_equal(back[solver][name], run[name])
                assert back[solver][name].dtype == run[name].dtype

    def test_paper_scale_size(self):
        """2 scenarios × 2 measures × 5 solvers × R = 100 datasets, as compare_solvers returns them."""
        rng = np.random.default_rng(1)
        value = {
            (s, g): {
                solver: {
                    "statistic": rng.random(100),
                    "n_evaluations": rng.integers(50, 5000, 100),
                    "seconds_per_test": 0.1,
                    "rejected": rng.random(100) < 0.3,
                }
                for solver in ("cobyla", "cobyla_powell", "multistart", "search", "search_descent")
            }
            for s in ("S1", "S2")
            for g in (("ece_conf", 10), ("hl", 5))
        }
        assert encoded_size(value) < BUDGET


class TestClassifierSetTable:
    def test_main(self, tmp_cache):
        from credalbook.metrics.classification import ece_confidence
        from credalbook.nn import classifier_sets

        t = classifier_set_table("digits", seed=1, **DIGITS)
        assert isinstance(t, ClassifierSetTable)
        sets = classifier_sets(
            "digits",
            n_members=2,
            epochs=1,
            lr=1e-2,
            momentum=0.9,
            seed=1,
            device="cpu",
            backbone=DIGITS["backbone"],
            progress=False,
        )  # from the cache
        rows = {
            name: evaluate_classifier_set(cs, n_bins=5, n_resamples=10, solver="search") for name, cs in sets.items()
        }
        assert list(t.rows) == list(rows) == ["S", "DN(0.1)", "DN(0.6)", "DE"]
        for name, row in rows.items():
            assert t.rows[name].keys() == row.keys()
            for k, v in row.items():
                np.testing.assert_array_equal(t.rows[name][k], v)
        assert t.differences == table1_differences(sets, rows)
        de = sets["DE"]
        assert t.calibration_check["average"] == ece_confidence(de.ens_probs_cal.mean(axis=1), de.y_cal, n_bins=5)
        assert t.calibration_check["weighted"] <= t.calibration_check["average"] + 1e-12  # λ fitted there, from uniform
        assert (t.n_cal, t.n_test) == (len(de.y_cal), len(de.y_test))
        back = roundtrip(t)
        assert isinstance(back, ClassifierSetTable) and back.differences == t.differences and back.config == t.config
        for name in rows:
            for k, v in t.rows[name].items():
                np.testing.assert_array_equal(back.rows[name][k], v)
        # the record does not grow with the data: λ (M numbers) and scalars per row; M = 10 at paper scale
        assert encoded_size(t) < 10_000


class TestChapterResults:
    def test_summaries_give_the_same_results(self, tmp_cache):
        """chapter_results from the summaries (the recorded parts) equals chapter_results from the full studies."""
        small = dict(
            n_datasets=6, n_instances=30, n_members=2, n_classes=3, u=0.5, n_resamples=20, n_jobs=1, progress=False
        )
        studies = {
            fig: {s: set_test_error_rates(s, seed=i, **small) for s in ("S1", "S2", "S3")}
            for i, fig in enumerate(PAPER_SETTINGS)
        }
        perm = set_test_error_rates("S1", seed=0, resample="permutation", **small)
        table1 = {
            k: {"h0_conf": "REJ.", "h0_cwise": "¬REJ.", "avg_ece_conf": 0.1, "ece_conf": 0.05}
            for k in ("S", "DN(0.1)", "DN(0.6)", "DE")
        }
        diffs = {"dn": [0.01, 0.002, 100], "de": [-0.02, 0.003, 100]}
        common = dict(table1=table1, table1_diffs=diffs, dataset="toy", head=(1e-2, 0.9), fig1_left={"k": 3, "n": 3})
        full = chapter_results(
            studies, s2_authors=studies["Fig. 2"]["S2"], permutation=perm, fig4_permutation=perm, **common
        )
        summ = {fig: {s: st.summary() for s, st in sts.items()} for fig, sts in studies.items()}
        compact = chapter_results(
            summ,
            s2_authors=summ["Fig. 2"]["S2"],
            permutation=perm.summary(),
            fig4_permutation=roundtrip(perm.summary()),
            **common,
        )
        assert json.dumps(full, sort_keys=True) == json.dumps(compact, sort_keys=True)
        assert full["table1_diffs"] == diffs
        with pytest.raises(ValueError, match="exactly one of table1_diffs and sets"):
            chapter_results(studies, table1=table1, dataset="toy", head=(1e-2, 0.9), fig1_left={"k": 3, "n": 3})
        pending = chapter_results(summ, cobyla_pending="3 of 20 parts recorded", **common)
        assert pending["cobyla_pending"] == "3 of 20 parts recorded" and "gap_cobyla" not in pending
        with pytest.raises(ValueError, match="not both"):
            chapter_results(summ, cobyla_pending="3 of 20", fig3_cobyla=summ["Fig. 3"]["S1"], **common)
        with pytest.raises(ValueError, match="cobyla_pending must be a non-empty string"):
            chapter_results(summ, cobyla_pending=" ", **common)
        # App. Fig. 3 with M = 10's rounds cap: its gap, and the paired changes of the gap with the depth
        f3 = summ["Fig. 3"]["S1"]
        deep = dataclasses.replace(f3, rejected=~f3.rejected, config=dict(f3.config, solver_options={"maxiter": 100}))
        gr = chapter_results(summ, fig3_rounds=deep, fig3_uniform=f3, **common)["gap_rounds"]
        assert gr["cap"] == 100 and gr["Fig. 3"] == type_one_gap(deep)
        assert gr["deeper"][0] == pytest.approx(type_one_gap(deep)[0] - type_one_gap(f3)[0])
        assert gr["deeper"][2] == f3.n_datasets and gr["deeper"][1] > 0 and gr["shallower"][:2] == [0.0, 0.0]
        with pytest.raises(ValueError, match="not minimised with a rounds cap"):
            chapter_results(summ, fig3_rounds=f3, **common)
        pending = chapter_results(summ, rounds_pending="4 of 10 parts recorded", **common)
        assert pending["rounds_pending"] == "4 of 10 parts recorded" and "gap_rounds" not in pending
        with pytest.raises(ValueError, match="not both"):
            chapter_results(summ, rounds_pending="4 of 10", fig3_rounds=deep, **common)
        with pytest.raises(ValueError, match="rounds_pending must be a non-empty string"):
            chapter_results(summ, rounds_pending=" ", **common)
        # COBYLA's stalled minimisations: the row's numbers again without the datasets where one stalled
        f3 = summ["Fig. 3"]["S1"]
        t, r = len(f3.measures), f3.n_datasets
        none = dataclasses.replace(f3, config=dict(f3.config, n_stalls=0, stalls=[[0] * r] * t))
        gc = chapter_results(summ, fig3_cobyla=none, **common)["gap_cobyla"]
        assert gc["n_stalls"] == 0 and gc["unstalled"]["Fig. 3"] == gc["Fig. 3"]
        assert gc["unstalled"]["Fig. 1"] == gc["Fig. 1"]
        one = [[0] * r for _ in range(t)]
        one[1][2] = 1  # test 1 stalled on dataset 2: the dataset is left out for every test, at both sizes
        gc = chapter_results(
            summ, fig3_cobyla=dataclasses.replace(f3, config=dict(f3.config, n_stalls=1, stalls=one)), **common
        )
        gc = gc["gap_cobyla"]
        assert gc["n_stalls"] == 1
        assert gc["unstalled"]["Fig. 3"][2] == gc["unstalled"]["Fig. 1"][2] == r - 1
        every = dataclasses.replace(f3, config=dict(f3.config, n_stalls=t * r, stalls=[[1] * r] * t))
        assert "unstalled" not in chapter_results(summ, fig3_cobyla=every, **common)["gap_cobyla"]


def test_rounds_parts_are_app_fig3_s1_with_fig1_rounds_cap():
    """The parts of group ``fig3_rounds`` hold App. Fig. 3's S1 study (part ``fig3-s1``) on its own datasets and random
    streams, only with ``search_descent``'s rounds cap of M = 10: with the cap of M = 100 (10 rounds) they give that
    study's p-values bit for bit, so the two are paired dataset by dataset; the cap reaches the minimiser."""
    from credalbook.papers.mortier import error_rate_chunks, set_test_error_rates
    from credalbook.papers.mortier.parts import ROUNDS_CAP

    plan = mortier_plan(preset(CHAPTER, "tiny"), solver="cobyla_powell")
    (part,) = plan.group_parts("fig3_rounds")
    kw = dict(part.kwargs)
    assert kw["solver_options"] == {"maxiter": ROUNDS_CAP} and kw["n_members"] == 100
    study = {p.name: p for p in plan.parts}["fig3-s1"].kwargs
    assert kw["n_datasets"] == study["n_datasets"] and kw["seed"] == study["seed"] and kw["solver"] == study["solver"]
    small = dict(n_instances=20, n_members=12, n_classes=3, u=0.5, n_resamples=10, measures=(("ece_conf", 5),))
    whole = set_test_error_rates.__wrapped__(
        "S1", n_datasets=3, solver="search_descent", n_jobs=1, progress=False, **small
    )
    capped = error_rate_chunks("S1", chunks=(0, 1), n_datasets=3, solver="search_descent",
                               solver_options={"maxiter": 10}, **small)  # fmt: skip
    assert np.array_equal(capped.p_values(), whole.p_values())
    shallow = error_rate_chunks("S1", chunks=(0, 1), n_datasets=3, solver="search_descent",
                                solver_options={"maxiter": 1}, **small)  # fmt: skip
    assert shallow.n_datasets == 3 and (shallow.mean_evaluations < capped.mean_evaluations).all()  # the cap reaches it
    with pytest.raises(ValueError, match="chunks must be a pair"):
        error_rate_chunks("S1", chunks=(0, 2), n_datasets=3, **small)
    with pytest.raises(TypeError, match="not chunk= or test="):
        error_rate_chunks("S1", chunks=(0, 1), n_datasets=3, test=0, **small)
