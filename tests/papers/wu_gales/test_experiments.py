"""Tests for credalbook.papers.wu_gales.experiments (and the paper's numbers in credalbook.papers.wu_gales.reported).

Ensembles are synthetic stored logits wrapped in TopologyEnsemble (no training), except one tiny
cached topology ensemble on subsampled Fashion-MNIST that checks the whole path on real data.
"""

import numpy as np
import pytest
from scipy.special import softmax

from credalbook.calibration import DynamicTemperatureScaling, ml_weights, PostCombinationScaling, PreCombinationScaling
from credalbook.metrics import all_label_ece, criteria_summary, ece
from credalbook.papers.wu_gales import (
    appendix_toys,
    boot_weights,
    bootstrap_ece_accuracy,
    calibration_study,
    calibration_table,
    CalibrationStudy,
    combination_configs,
    combination_table,
    member_subsets,
    paired_estimate,
    proposition_checks,
    region_study,
    single_model_study,
    temperature_study,
    topology_combinations,
    topology_ensemble_logits,
    TopologyEnsemble,
    WG_METHODS,
    WG_N_BOOT,
    WG_PAPER_COMBINATION,
    wg_paper_reference,
    WG_PAPER_SINGLE,
    WG_PAPER_TABLE1,
    WG_PAPER_TABLE5,
)


def _ensemble(topology="RSN", n_members=3, n_val=300, n_test=400, k=5, sharp=3.0, seed=0):
    """Members that share a signal, each with its own noise and over-confident by `sharp`."""
    rng = np.random.default_rng(seed)
    n = n_val + n_test
    signal = 1.5 * rng.normal(size=(n, k))
    y = np.array([rng.choice(k, p=p) for p in softmax(signal, axis=1)])
    z = sharp * (signal[:, None, :] + 0.8 * rng.normal(size=(n, n_members, k)))
    z = z.astype(np.float32)
    return TopologyEnsemble(
        z[:n_val],
        y[:n_val],
        z[n_val:],
        y[n_val:],
        topology,
        tuple(range(n_members)),
        ([],) * n_members,
        np.zeros(n_members),
        0,
        {},
    )


FIT = dict(n_iter=60)


class TestMemberSubsets:
    def test_main(self):
        assert member_subsets(4, 3, 10) == ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))
        subsets = member_subsets(10, 5, 7, seed=3)
        assert len(set(subsets)) == 7 and all(len(s) == 5 and list(s) == sorted(s) for s in subsets)
        assert subsets == member_subsets(10, 5, 7, seed=3)  # seeded

    def test_errors(self):
        with pytest.raises(ValueError, match="subset_size must be at most n_members = 3; got 4"):
            member_subsets(3, 4, 2)
        with pytest.raises(ValueError, match="n_runs"):
            member_subsets(3, 2, 0)


class TestCalibrationStudy:
    def test_main(self, tmp_cache):
        ens = _ensemble()
        st = calibration_study(ens, subset_size=2, n_runs=3, **FIT)
        assert st.methods == WG_METHODS and st.values.shape == (3, 4, 7) and len(st.subsets) == 3
        # post and dyn. keep the ensemble's arg-max: accuracy equal to "none" in every run
        for m in ("post", "dyn"):
            np.testing.assert_array_equal(st.runs(m, "accuracy"), st.runs("none", "accuracy"))
        # over-confident members: every calibration lowers the ensemble's test ECE on average
        for m in ("pre", "post", "dyn"):
            assert st.mean(m, "ece") < st.mean("none", "ece")
        # values agree with direct calls: run 0 refitted by hand
        s = list(st.subsets[0])
        zv, zt = ens.logits_val[:, s], ens.logits_test[:, s]
        direct = {
            "none": softmax(zt.astype(np.float64), axis=2).mean(axis=1),
            "pre": PreCombinationScaling(fit_to="ensemble", criterion="ece")
            .fit(zv, ens.y_val, optimizer="sgd", **FIT)
            .predict_proba(zt),
            "post": PostCombinationScaling(criterion="ece")
            .fit(zv, ens.y_val, optimizer="sgd", **FIT)
            .predict_proba(zt),
            "dyn": DynamicTemperatureScaling(6, criterion="ece")
            .fit(zv, ens.y_val, optimizer="sgd", **FIT)
            .predict_proba(zt),
        }
        for j, m in enumerate(st.methods):
            row = criteria_summary(direct[m], ens.y_test)
            keys = [{"ace": "all_label_ece"}.get(k, k) for k in st.metrics]  # the paper's ACE, renamed
            np.testing.assert_allclose(st.values[0, j], [row[k] for k in keys], rtol=1e-9, atol=1e-12)
        assert st.temperatures[0][1].shape == (2,) and st.temperatures[0][3].shape == (6,)
        # two-sigma is twice the sample standard deviation over runs
        v = st.runs("dyn", "ece")
        assert st.two_sigma("dyn", "ece") == pytest.approx(2 * v.std(ddof=1))
        # bootstrap over test instances: (B, runs, methods, [ece, accuracy]), paired across methods
        assert st.boot.shape == (WG_N_BOOT, 3, 4, 2)
        np.testing.assert_array_equal(st.boot_runs("post", "accuracy"), st.boot_runs("none", "accuracy"))
        d, se = st.estimate("dyn", "ece", minus="none")
        assert d == pytest.approx(st.mean("dyn", "ece") - st.mean("none", "ece")) and se > 0
        assert st.estimate("post", "accuracy", minus="none") == (0.0, 0.0)
        plain = st.plain()
        assert plain["pre"]["ece"]["runs"].shape == (3,) and plain["pre"]["ece"]["boot"].shape == (WG_N_BOOT, 3)

    def test_pre_readings(self, tmp_cache):
        """ "pre" fits the member temperatures to the ensemble's ECE, "pre_members" each to its own member."""
        ens = _ensemble()
        fit = dict(n_iter=400)  # App. A.4; the ensemble target moves M temperatures by a shared gradient, slower
        st = calibration_study(ens, methods=("none", "pre", "pre_members"), subset_size=3, n_runs=1, skce=False, **fit)
        zv = ens.logits_val
        vals = {}
        for method, target in (("pre", "ensemble"), ("pre_members", "members")):
            cal = PreCombinationScaling(fit_to=target, criterion="ece").fit(zv, ens.y_val, optimizer="sgd", **fit)
            np.testing.assert_allclose(st.temperatures[0][st.methods.index(method)], cal.temperatures, rtol=1e-9)
            vals[method] = ece(cal.predict_proba(zv), ens.y_val)
        # members calibrated on their own leave the ensemble under-confident (Prop. 1); the ensemble-fitted
        # reading calibrates the ensemble better on the data it was fitted to (0.058 against 0.078 here)
        assert vals["pre"] < vals["pre_members"] - 0.01

    def test_bootstrap_helpers(self):
        rng = np.random.default_rng(3)
        p = softmax(2 * rng.normal(size=(400, 5)), axis=1)
        y = rng.integers(0, 5, 400)
        w = boot_weights(400, 50, seed=1)
        assert w.shape == (50, 400) and np.all(w.sum(axis=1) == 400)
        np.testing.assert_array_equal(w, boot_weights(400, 50, seed=1))
        out = bootstrap_ece_accuracy(p, y, w)
        # each resample's ECE/accuracy equals the library's on the resampled instances when regions are kept
        i = np.repeat(np.arange(400), w[0].astype(int))
        assert out[0, 1] == pytest.approx((p[i].argmax(1) == y[i]).mean())
        assert out[0, 0] == pytest.approx(ece(p[i], y[i]))
        d, se = paired_estimate([0.1], out[:, 0:1])
        assert d == 0.1 and se == pytest.approx(out[:, 0].std(ddof=1))

    def test_reproducible_and_cached(self, tmp_cache):
        ens = _ensemble(seed=1)
        a = calibration_study(ens, subset_size=2, n_runs=2, seed=5, skce=False, **FIT)
        assert any(tmp_cache.rglob("*.pkl"))
        b = calibration_study(ens, subset_size=2, n_runs=2, seed=5, skce=False, **FIT)
        assert a.subsets == b.subsets and a.metrics == ("accuracy", "nll", "acce", "ace", "ecce", "ece")
        np.testing.assert_array_equal(a.values, b.values)

    def test_errors(self, tmp_cache):
        ens = _ensemble()
        with pytest.raises(ValueError, match="methods must be one of"):
            calibration_study(ens, methods=("none", "histogram"))
        st = calibration_study(ens, methods=("none",), skce=False, **FIT)
        with pytest.raises(ValueError, match="metric must be one of"):
            st.runs("none", "skce")
        assert np.isnan(st.two_sigma("none", "ece"))  # one run: no spread


class TestSingleModelAndRegions:
    def test_single_model(self, tmp_cache):
        ens = _ensemble(n_members=3)
        st = single_model_study(ens, **FIT)
        assert st.subsets == ((0,), (1,), (2,)) and st.methods == ("none", "ts")
        p0 = softmax(ens.logits_test[:, 0].astype(np.float64), axis=1)
        assert st.runs("none", "ece")[0] == pytest.approx(ece(p0, ens.y_test))
        np.testing.assert_array_equal(st.runs("ts", "accuracy"), st.runs("none", "accuracy"))
        assert st.mean("ts", "ece") < st.mean("none", "ece")

    def test_regions(self, tmp_cache):
        ens = _ensemble()
        rs = region_study(ens, n_regions=(1, 3), n_runs=1, **FIT)
        post = calibration_study(ens, methods=("post",), n_runs=1, **FIT)
        assert rs.methods == ("R=1", "R=3") and rs.n_regions == (1, 3)
        # dyn. with one region is post-combination scaling
        np.testing.assert_allclose(rs.runs("R=1", "ece"), post.runs("post", "ece"), rtol=1e-10)
        np.testing.assert_allclose(rs.runs("R=1", "nll"), post.runs("post", "nll"), rtol=1e-10)
        with pytest.raises(ValueError, match="n_regions"):
            region_study(ens, n_regions=(0,))

    def test_table(self, tmp_cache):
        st = calibration_study(_ensemble(topology="LEN"), n_runs=1, methods=("none", "post"), skce=False, **FIT)
        t = calibration_table([st], paper=WG_PAPER_TABLE1)
        assert list(t.rows) == ["LEN · none", "LEN · none (paper)", "LEN · post", "LEN · post (paper)"]
        assert t.rows["LEN · post (paper)"]["ece"] == "2.19 ± 0.45"
        assert t.rows["LEN · none"]["accuracy"] == f"{100 * st.mean('none', 'accuracy'):.4g}"


class TestTemperatureStudy:
    def test_main(self):
        ens = _ensemble(n_members=4, sharp=2.0)
        st = temperature_study(ens)
        s = st.sweep
        # the paper's Fig. 1 finding: the ensemble's optimal temperature is below its members'
        assert s.ensemble_optimal_temperature < np.median(s.member_optimal_temperature)
        # the ensemble of calibrated members is under-confident
        assert st.calibrated_members_gap < 0
        assert len(st.member_curves) == 4
        z = ens.logits_test.astype(np.float64) / s.member_optimal_temperature[:, None]
        assert st.calibrated_members_ece == pytest.approx(ece(softmax(z, axis=2).mean(axis=1), ens.y_test))
        # the gap's standard error over the test instances, and the ensemble's accuracy gain at t = 1
        p = softmax(z, axis=2).mean(axis=1)
        g = p.max(1) - (p.argmax(1) == ens.y_test)
        assert st.calibrated_members_gap_se == pytest.approx(g.std(ddof=1) / np.sqrt(len(g)))
        zt = ens.logits_test.astype(np.float64)
        gain = (softmax(zt, axis=2).mean(1).argmax(1) == ens.y_test).mean() - (
            zt.argmax(2) == ens.y_test[:, None]
        ).mean()
        assert st.accuracy_gain == pytest.approx(gain)


class TestTopologyCombinations:
    def _ensembles(self):
        return {
            t: _ensemble(topology=t, n_members=2, sharp=s, seed=i)
            for i, (t, s) in enumerate((("LEN", 1.0), ("DSN121", 2.5), ("RSN", 3.0)))
        }

    def test_main(self):
        ens = self._ensembles()
        # different seeds give different labels: all ensembles must share the split
        with pytest.raises(ValueError, match="must share one validation/test split"):
            topology_combinations(ens, [(("LEN", "RSN"), "ml", None, None)])
        base = ens["RSN"]
        same = {
            t: TopologyEnsemble(
                e.logits_val, base.y_val, e.logits_test, base.y_test, t, e.seeds, e.histories, e.seconds, 0, {}
            )
            for t, e in ens.items()
        }
        configs = [
            (("LEN", "DSN121", "RSN"), "ml", None, None),
            (("LEN", "DSN121", "RSN"), "ml", "post", "post"),
            (("DSN121", "RSN"), "uniform", "dyn", "dyn"),
            (("DSN121", "RSN"), "auc", "post", None),
        ]
        rows = topology_combinations(same, configs, **FIT)
        assert [r.weighting for r in rows] == ["ml", "ml", "uniform", "auc"]
        for r in rows:
            assert r.weights.shape == (len(r.topologies),) and r.weights.sum() == pytest.approx(1.0)
        # Max-LL weights of uncalibrated structures: ml_weights of their validation averages
        pv = np.stack([softmax(same[t].logits_val.astype(np.float64), axis=2).mean(1) for t in configs[0][0]], 1)
        np.testing.assert_allclose(rows[0].weights, ml_weights(pv, base.y_val), atol=1e-8)
        # ensemble calibration does not change the combination's accuracy
        again = topology_combinations(same, [(("LEN", "DSN121", "RSN"), "ml", "post", None)], **FIT)[0]
        assert again.summary["accuracy"] == rows[1].summary["accuracy"]
        assert rows[2].weights.tolist() == [0.5, 0.5]
        # bootstrap: (B, [ece, accuracy]) with the same test resamples for every combination
        assert rows[0].boot.shape == (WG_N_BOOT, 2) and rows[0].weights_se.shape == (3,) and rows[2].weights_se is None
        assert np.all(rows[0].weights_se >= 0)
        np.testing.assert_array_equal(again.boot[:, 1], rows[1].boot[:, 1])  # ensemble calibration keeps accuracy
        table = combination_table(rows, paper=WG_PAPER_COMBINATION)
        # the DSN121 + RSN AUC row has a counterpart in Table 6; the others use other topology sets
        assert len(table.rows) == 5
        assert table.rows["DSN121+RSN · auc · struct post · ens - (paper, Table 6)"]["ece"] == 2.03

    def test_auc_weights_even_by_construction(self):
        """Table 6's "AUC weights more even" holds for any data: AUC/ΣAUC with every AUC in [1/2, 1]."""
        ens = self._ensembles()
        base = ens["RSN"]
        same = {
            t: TopologyEnsemble(
                e.logits_val, base.y_val, e.logits_test, base.y_test, t, e.seeds, e.histories, e.seconds, 0, {}
            )
            for t, e in ens.items()
        }
        auc = topology_combinations(
            same, [(("LEN", "DSN121", "RSN"), "auc", "post", None)], n_weight_resamples=1, **FIT
        )[0]
        assert auc.weights.max() / auc.weights.min() <= 2 and auc.weights_se is None

    def test_errors(self):
        ens = {"RSN": _ensemble()}
        with pytest.raises(ValueError, match="weighting must be one of"):
            topology_combinations(ens, [(("RSN",), "best", None, None)])
        with pytest.raises(ValueError, match="must be None, 'post' or 'dyn'"):
            topology_combinations(ens, [(("RSN",), "ml", "pre", None)])
        with pytest.raises(ValueError, match=r"no ensemble for topologies \['LEN'\]"):
            topology_combinations(ens, [(("LEN", "RSN"), "ml", None, None)])

    def test_configs(self):
        configs = combination_configs(("LEN", "DSN100", "DSN121", "RSN"))
        assert len(configs) == len(set(configs)) == 36  # 40 paper rows, Tables 2 and 7 share 4 configurations
        assert all(set(c[0]) <= {"DSN121", "RSN"} for c in combination_configs(("DSN121", "RSN", "LEN")))


class TestPropositions:
    def test_main(self):
        ens = _ensemble(n_members=3, sharp=2.0)
        pc = proposition_checks(ens, **FIT)
        assert pc.min_confidence_gap >= -1e-12  # Eq. 23 (up to rounding)
        r = pc.regional
        assert np.all(r.ensemble_confidence <= r.member_confidence + 1e-12)  # Eq. 18
        assert pc.prop2_error < 1e-12  # Prop. 2
        c = pc.calibration
        assert c.accuracy_gain <= c.accuracy_gain_bound + 1e-12  # Prop. 1, general form
        p4 = pc.prop4  # Prop. 4: member unchanged, ensemble more confident by tau / M, same label
        assert p4["member_confidence_change"] == 0 and not p4["member_label_changed"]
        assert p4["ensemble_confidence_change"] == pytest.approx(p4["tau"] / 3)
        assert not p4["ensemble_label_changed"]


class TestAppendixToys:
    def test_main(self, tmp_cache):
        toy = appendix_toys(40000, 4000, epsilons=(1 / 30, 0.1, 0.5), seed=0)
        # Example 1: all-label calibrated, not top-label calibrated (ECE = τ/3)
        assert toy.example1["ace"] == 0 and toy.example1["ece"] == pytest.approx(0.05 / 3)
        # Alg. 1: calibrated members, ensemble ACE ≈ 0.0697 (Monte-Carlo error at N = 4e4 ~ 1e-3)
        assert toy.alg1_ace == pytest.approx(0.0697, abs=3e-3)
        assert toy.alg1_ace == toy.ensemble_ace[0]
        assert toy.member_ace.max() < 1e-12 and toy.member_ece.max() < 1e-12
        assert toy.ensemble_ace[-1] < 1e-12 < toy.ensemble_ece[-1]  # ε = 1/2: global ACE 0, ECE not
        assert toy.alg1_shared_ace < 1e-12  # Prop. 3
        assert toy.alg1_accuracy_gain > 0 > toy.alg1_gap  # calibrated members + gain: under-confident
        # Monte-Carlo standard errors of the comparison rows: the ACE's from 10 parts, the gap's over instances
        assert 1e-4 < toy.alg1_ace_se < 3e-3 and 0 < toy.alg1_gap_se < 2e-3
        # Alg. 2: sample ACE 0, theoretical 9/32
        assert toy.alg2_sample_ace == 0 and toy.alg2_theory == 9 / 32
        assert toy.alg2_true_ace == pytest.approx(9 / 32, abs=0.02)
        assert toy.ensemble_ace[0] == pytest.approx(all_label_ece(*_alg1(40000), epsilon=1 / 30))
        assert appendix_toys(40000, 4000, epsilons=(1 / 30, 0.1, 0.5), seed=0).alg1_ace == toy.alg1_ace


def _alg1(n):
    from credalbook.papers.wu_gales import calibrated_members_ensemble

    toy = calibrated_members_ensemble(n, n_classes=4, n_members=10, bin_size=2, seed=0)
    return toy.probs, toy.true_probs


class TestPaperValues:
    def test_main(self):
        assert WG_PAPER_TABLE1["RSN"]["dyn"]["ece"] == (1.20, 0.41)
        assert WG_PAPER_TABLE5["LEN"]["none"]["acce"] == (187.73, 3.22)
        assert WG_PAPER_SINGLE["cifar100"]["DSN121"][90]["accuracy"] == 78.87
        assert len(WG_PAPER_COMBINATION) == 40
        # Table 7 prints raw numbers: converted to the units of Tables 2 and 6 (1e-4, 1e-2)
        t7 = [r for r in WG_PAPER_COMBINATION if r["table"] == "7"]
        assert t7[0]["ace"] == pytest.approx(7.0) and t7[0]["ece"] == pytest.approx(3.34)
        # ECCE >= ECE and ACCE >= ACE in every printed row (triangle inequality)
        for table in (WG_PAPER_TABLE1, WG_PAPER_TABLE5):
            for rows in table.values():
                for row in rows.values():
                    assert row["ecce"][0] >= row["ece"][0] and row["acce"][0] >= row["ace"][0]
        ref = wg_paper_reference("CIFAR-100")
        assert ref["ensemble"] is WG_PAPER_TABLE1 and ref["single"]["RSN"]["none"]["ece"][0] == 4.76


@pytest.mark.slow
class TestRealData:
    def test_tiny_topology_ensemble(self, tmp_cache):
        ens = topology_ensemble_logits(
            "fashion_mnist", "LEN", n_members=2, epochs=1, n_train=300, n_test=100, device="cpu", progress=False
        )
        st = calibration_study(ens, n_runs=1, **FIT)
        assert isinstance(st, CalibrationStudy) and st.values.shape == (1, 4, 7)
        np.testing.assert_array_equal(st.runs("dyn", "accuracy"), st.runs("none", "accuracy"))
