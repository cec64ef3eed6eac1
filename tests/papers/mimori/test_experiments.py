"""Tests for credalbook.papers.mimori.experiments and credalbook.papers.mimori.reported (Mimori et al. 2022 chapter)."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from credalbook.calibration import dirichlet_posterior_probs
from credalbook.metrics import cpe_loss_decomposition, statistic_calibration
from credalbook.nn import ThreeConvNet, VGGNet
from credalbook.papers.mimori import (
    bootstrap_metrics,
    build_mix_network,
    debiasing_study,
    dpe_mass_edges,
    dpe_reliability,
    evaluate_predictors,
    mimori_predictions,
    MIX_AUGMENTATIONS,
    mix_training_settings,
    optimal_log_alpha0,
    optimal_log_alpha0_grid,
    PAPER_DELTA_D,
    PAPER_VALUES,
    paper_values,
    released_code_demo,
    released_code_el_cl,
    side_by_side,
    theorem1_check,
    train_mix_network,
    ts_dpe_shift,
)


class TestDebiasingStudy:
    def test_main(self):
        s = debiasing_study(n_instances=(300, 3000), n_labels=(2, 5), n_runs=30, seed=1)
        for n in (2, 5):
            for q in ("EL", "CL"):
                v = s.estimates[(q, "debiased", n)]
                se = v.std(axis=0, ddof=1) / math.sqrt(v.shape[0])
                assert np.all(np.abs(v.mean(axis=0)) < 4 * se + 1e-4), (q, n)  # unbiased: truth is 0
            # plug-in EL of a perfect binary predictor: E Σ_k (μ̂_k − q_k)² = 2 E[q(1 − q)] / n = 1 / (3n)
            pl = s.estimates[("EL", "plug-in", n)]
            se = pl.std(axis=0, ddof=1) / math.sqrt(pl.shape[0])
            assert np.all(np.abs(pl.mean(axis=0) - 1 / (3 * n)) < 4 * se)
            assert np.all(s.estimates[("CL", "plug-in", n)].mean(axis=0) > 0)

    def test_summary_and_seed(self):
        a = debiasing_study(n_instances=(100, 200), n_runs=4, seed=3)
        b = debiasing_study(n_instances=(100, 200), n_runs=4, seed=3)
        c = debiasing_study(n_instances=(100, 200), n_runs=4, seed=4)
        key = ("EL", "plug-in", 2)
        np.testing.assert_array_equal(a.estimates[key], b.estimates[key])
        assert not np.array_equal(a.estimates[key], c.estimates[key])
        mean, half = a.summary(0.9)[key]
        v = a.estimates[key]
        np.testing.assert_allclose(mean, v.mean(axis=0))
        np.testing.assert_allclose(half, stats.t.ppf(0.95, 3) * v.std(axis=0, ddof=1) / 2)

    def test_errors(self):
        with pytest.raises(ValueError, match="n_runs"):
            debiasing_study(n_runs=0)
        with pytest.raises(ValueError, match="n_labels"):
            debiasing_study(n_instances=(100,), n_labels=(1,))
        with pytest.raises(ValueError, match="n_instances"):
            debiasing_study(n_instances=(1,))


class TestOptimalLogAlpha0Grid:
    def test_main(self):
        g = optimal_log_alpha0_grid(n_labels=(2, 5), reg=(0.005, 0.05))
        assert g.log_alpha0[5].shape == (2, 6, len(g.z1))
        # relabelling the two classes: (y1, z1) and (n - y1, 1 - z1) have the same optimum
        np.testing.assert_allclose(g.log_alpha0[5], g.log_alpha0[5][:, ::-1, ::-1], atol=1e-7)
        direct = optimal_log_alpha0([[0.2, 0.8]], [[3, 2]], reg=0.05)
        assert g.log_alpha0[5][1, 3, list(g.z1).index(0.2)] == pytest.approx(direct[0], abs=1e-9)
        r = g.ranges()
        assert np.all(r[:, 0] < 0) and np.all(r[:, 1] > 0)
        assert r[1, 1] - r[1, 0] < r[0, 1] - r[0, 0]  # narrower for the larger λ_α

    def test_errors(self):
        with pytest.raises(ValueError, match="reg"):
            optimal_log_alpha0_grid(reg=(0.0,))


class TestTheorem1Check:
    def test_main(self):
        c = theorem1_check(n_draws=50_000, seed=0)
        step = c.alpha0[1] / c.alpha0[0]
        cal = c.scenarios["calibrated Z"]
        # Z = E[Q | G]: both optima equal the true concentration (Eqs. 63, 72)
        assert float(cal["dpe_interval"].optimum) == pytest.approx(4.0)
        assert float(cal["post_interval"].optimum) == pytest.approx(4.0)
        for s in c.scenarios.values():
            for k in ("dpe", "post"):
                assert np.all(np.abs(s[f"{k}_mc"] - s[f"{k}_closed"]) < 5 * s[f"{k}_se"] + 1e-12)
            opt = float(s["post_interval"].optimum)
            assert abs(math.log(s["post_argmin"] / opt)) <= math.log(step) * 1.001
        # a sharper prediction than E[Q | G] has s_Z > u_Q: no finite α0 improves its DPE
        sharp = c.scenarios["sharper Z"]
        assert sharp["s_z"] > sharp["u_q"] and math.isinf(float(sharp["dpe_interval"].optimum))
        assert math.isinf(sharp["dpe_argmin"])

    def test_custom_grid(self):
        c = theorem1_check(
            mean=(0.5, 0.5), concentration=2.0, predictions={"Z": (0.5, 0.5)}, n_draws=2000, alpha0=(1.0, 2.0, np.inf)
        )
        s = c.scenarios["Z"]
        assert s["dpe_mc"].shape == (3,) and float(s["dpe_interval"].optimum) == pytest.approx(2.0)


class TestNetworks:
    def test_build(self):
        assert isinstance(build_mix_network(n_classes=10, image_shape=(1, 28, 28)), ThreeConvNet)
        assert isinstance(build_mix_network(n_classes=10, image_shape=(3, 32, 32), layers=(4, "M"), hidden=8), VGGNet)
        with pytest.raises(ValueError, match="arch"):
            build_mix_network("resnet", n_classes=10, image_shape=(1, 28, 28))

    def test_training_settings(self):
        assert mix_training_settings((1, 28, 28)) == dict(epochs=100, patience=10, warmup_epochs=0, milestones=())
        assert mix_training_settings((3, 32, 32)) == dict(
            epochs=250, patience=None, warmup_epochs=5, milestones=(100, 150)
        )
        assert MIX_AUGMENTATIONS["mnist"] is None and MIX_AUGMENTATIONS["cifar10"]["rotation"] == 180.0


TINY = dict(
    sizes=(700, 200, 200),
    arch_options=dict(channels=(8, 16, 32)),
    epochs=8,
    augment={"shift": 1.0},
    n_samples=3,
    calibrators=("ts",),
    training=dict(lr=3e-3, batch_size=64),
    calibration=dict(optimizer="lbfgs", max_epochs=5),
    device="cpu",
    progress=False,
)


@pytest.fixture(scope="module")
def tiny_predictions(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield mimori_predictions("digits", **TINY)
    mp.undo()


class TestMimoriPredictions:
    def test_structure(self, tiny_predictions):
        p = tiny_predictions
        assert p.configs == (2, 5, "variable")
        assert p.names(2) == [
            "Raw",
            "Raw+α",
            "Raw+ts",
            "Raw+ts+α",
            "MCDO",
            "MCDO+α",
            "MCDO+ts",
            "MCDO+ts+α",
            "TTA",
            "TTA+α",
            "TTA+ts",
            "TTA+ts+α",
        ]
        n, k = p.true_probs.shape
        assert (n, k) == (200, 10)
        assert np.all(p.test_hist[2].sum(axis=1) == 10) and p.test_hist[5] is p.test_hist[2]
        assert 5.5 < p.test_hist["variable"].sum(axis=1).mean() < 9.5
        assert np.all(p.posterior_hist.sum(axis=1) == 1)
        for (_c, name), out in p.predictors.items():
            np.testing.assert_allclose(out.probs.sum(axis=1), 1.0, atol=1e-9)
            assert out.dpe.shape == (n,) and np.all((out.dpe >= 0) & (out.dpe <= 1))
            assert (out.alpha0 is not None) == name.endswith("+α")
            assert (out.posterior_probs is not None) == (
                name in ("Raw+α", "Raw+ts+α") or (not name.startswith("Raw") and "α" not in name)
            )

    def test_alpha_leaves_cpes_unchanged(self, tiny_predictions):
        p = tiny_predictions
        for c in p.configs:
            m = evaluate_predictors(p, c)
            for name in p.names(c):
                if name.endswith("+α"):
                    np.testing.assert_array_equal(p.predictors[(c, name)].probs, p.predictors[(c, name[:-2])].probs)
                    for key in ("Acc", "L_sq", "EL", "CE", "CL", "DL"):
                        assert m[name][key] == m[name[:-2]][key]
            assert m["Raw+ts"]["Acc"] == m["Raw"]["Acc"]  # ts keeps the argmax
            assert "EL post" in m["Raw+α"] and "EL post" in m["MCDO"] and "EL post" not in m["Raw"]

    def test_closed_forms(self, tiny_predictions):
        p = tiny_predictions
        raw, alpha = p.predictors[(2, "Raw")], p.predictors[(2, "Raw+α")]
        gamma = alpha.alpha0 / (alpha.alpha0 + 1)
        np.testing.assert_allclose(raw.dpe, 1 - (raw.probs**2).sum(axis=1))
        np.testing.assert_allclose(alpha.dpe, gamma * raw.dpe)  # Eq. 73
        np.testing.assert_allclose(
            alpha.posterior_probs, dirichlet_posterior_probs(raw.probs, alpha.alpha0, p.posterior_hist)
        )  # Eq. 81
        assert not np.allclose(p.predictors[(2, "MCDO")].probs, raw.probs)  # the members differ
        shift = ts_dpe_shift(p, 2)
        assert shift["mean_delta"] == pytest.approx(np.mean(p.predictors[(2, "Raw+ts")].dpe - raw.dpe))
        rel = dpe_reliability(p, 2, ["Raw", "Raw+α"])
        assert rel["Raw"].counts.sum() == 200

    def test_equal_mass_ce_phi(self, tiny_predictions):
        """ "CE_phi mass": the debiased ĈEφ over 15 bins of equal mass of the predictor's own DPEs (each bin holds
        N / 15 of them when no DPEs tie), on the full test split and on a bootstrap resample."""
        p = tiny_predictions
        m = evaluate_predictors(p, 2, names=["Raw", "MCDO+α"])
        for name in ("Raw", "MCDO+α"):
            dpe, hist = p.outputs(2, name).dpe, p.test_hist[2]
            edges = dpe_mass_edges(dpe)
            assert edges[0] == 0 and edges[-1] == 1 and len(edges) == 16
            assert np.all(np.abs(np.histogram(dpe, bins=edges)[0] - len(dpe) / 15) <= 1)
            ref = statistic_calibration(dpe, hist, bin_edges=edges).ce_debiased
            assert m[name]["CE_phi mass"] == ref and m[name]["CE_phi mass"] != m[name]["CE_phi"]
        boot = bootstrap_metrics(p, 2, names=["Raw"], n_resamples=2, seed=3)
        idx = np.random.default_rng(np.random.SeedSequence([3, 26])).integers(0, 200, size=(2, 200))
        d = p.outputs(2, "Raw").dpe[idx[1]]
        ref = statistic_calibration(d, p.test_hist[2][idx[1]], bin_edges=dpe_mass_edges(d)).ce_debiased
        assert boot["Raw"]["CE_phi mass"][1] == ref  # the cuts are those of the resample's own DPEs

    def test_dpe_mass_edges_errors(self):
        with pytest.raises(ValueError, match="dpe must be"):
            dpe_mass_edges(np.array([0.2, np.nan]))
        with pytest.raises(ValueError, match="dpe must be"):
            dpe_mass_edges(np.array([[0.2, 0.3]]))
        with pytest.raises(ValueError, match="n_bins"):
            dpe_mass_edges(np.array([0.2, 0.3]), 0)

    def test_alpha_from_deterministic_features(self, tiny_predictions):
        """X+α(det.), for the ensembles only: the α0 of the single network's X+α (the same head on the deterministic
        features), shared by the members, so its DPE is that α0's shrinkage of the ensemble's own DPE (Eq. 75)."""
        p = tiny_predictions
        for c in p.configs:
            assert not any(n.startswith("Raw") and n.endswith("+α(det.)") for n in p.control_names(c))
            for base in ("MCDO", "TTA"):
                for cal in ("", "+ts"):
                    det = p.outputs(c, f"{base}{cal}+α(det.)")
                    a0 = p.outputs(c, f"Raw{cal}+α").alpha0
                    np.testing.assert_array_equal(det.alpha0, a0)
                    np.testing.assert_allclose(det.dpe, a0 / (a0 + 1) * p.outputs(c, f"{base}{cal}").dpe, rtol=1e-12)
                    assert not np.allclose(det.dpe, p.outputs(c, f"{base}{cal}+α").dpe)  # the members' own α0 differ

    def test_reproducible_and_cached(self, tiny_predictions, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path))  # a fresh cache: retrain from scratch
        again = mimori_predictions("digits", **TINY)
        for key, out in tiny_predictions.predictors.items():
            np.testing.assert_allclose(again.predictors[key].probs, out.probs, rtol=0, atol=1e-6)
            np.testing.assert_allclose(again.predictors[key].dpe, out.dpe, rtol=0, atol=1e-6)
        net = train_mix_network(
            "digits",
            **{
                k: v
                for k, v in TINY.items()
                if k in ("sizes", "arch_options", "epochs", "augment", "device", "progress")
            },
            **TINY["training"],
        )
        assert net.epochs_run == 8 and set(net.state_dict) == set(net.build().state_dict())

    def test_errors(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path))
        with pytest.raises(ValueError, match="calibrators must be among"):
            mimori_predictions(
                "digits", **{**TINY, "calibrators": ("platt",), "n_labels_val": (2,), "variable_labels": None}
            )
        with pytest.raises(ValueError, match="n_labels_val"):
            mimori_predictions("digits", **{**TINY, "n_labels_val": (0,), "variable_labels": None})


class TestPaperValues:
    def test_numbers(self):
        assert PAPER_VALUES[("Mix-MNIST", 2)]["Raw+ts"] == {
            "Acc": 0.9629,
            "L_sq": 0.1376,
            "EL": 0.0379,
            "CE": 0.0473,
            "L_phi": 0.0775,
            "CE_phi": 0.0933,
        }
        assert PAPER_VALUES[("Mix-CIFAR-10", 5)]["Raw+α"]["EL post"] == 0.0693
        assert PAPER_VALUES[("MDS", None)]["TTA+ts+α"]["CE_phi"] == 0.0197
        assert "Acc" not in PAPER_VALUES[("MDS", None)]["MCDO+vs"]  # illegible in our copy
        assert "TTA" not in PAPER_VALUES[("Mix-MNIST", 2)]  # Table 4 has no TTA rows
        assert PAPER_DELTA_D[("Mix-CIFAR-10", 2)] == 0.101

    def test_side_by_side(self):
        name, paper = paper_values("fashion_mnist", 5)
        assert name == "Mix-MNIST(5)" and paper_values("cifar10", 2)[0] == "Mix-CIFAR-10(2)"
        assert paper_values("digits", "variable")[0] == "MDS"
        t = side_by_side({"Raw": {"EL": 0.1}, "TTA": {"EL": 0.2}}, paper, ["EL"], rows=["TTA", "Raw", "MCDO"])
        assert list(t.rows) == ["TTA", "Raw"] and t.columns == ["EL paper", "EL book"]
        assert math.isnan(t.rows["TTA"]["EL paper"]) and t.rows["Raw"]["EL paper"] == 0.0388


class TestBootstrapMetrics:
    def test_main(self, tiny_predictions):
        p = tiny_predictions
        b = bootstrap_metrics(p, 2, names=["Raw", "Raw+α", "MCDO"], n_resamples=20, seed=1)
        m = evaluate_predictors(p, 2, names=["Raw", "Raw+α", "MCDO"])
        assert set(b) == {"Raw", "Raw+α", "MCDO"} and "EL true" not in b["Raw"] and "EL post" in b["MCDO"]
        assert all(v.shape == (20,) for row in b.values() for v in row.values())
        # the same resamples for every predictor: α's CPE metrics equal its base's in every resample
        np.testing.assert_array_equal(b["Raw+α"]["EL"], b["Raw"]["EL"])
        assert not np.allclose(b["Raw+α"]["L_phi"], b["Raw"]["L_phi"])
        # resamples spread around the full-sample value
        assert abs(b["Raw"]["EL"].mean() - m["Raw"]["EL"]) < 4 * b["Raw"]["EL"].std() + 1e-12
        np.testing.assert_array_equal(
            bootstrap_metrics(p, 2, names=["Raw"], n_resamples=20, seed=1)["Raw"]["EL"], b["Raw"]["EL"]
        )
        with pytest.raises(ValueError, match="n_resamples"):
            bootstrap_metrics(p, 2, n_resamples=0)

    def test_shared_cpe_metrics_are_those_computed_alone(self, tiny_predictions):
        """Predictors holding the same CPEs share their CPE metrics; each row equals the row computed on its own."""
        import copy

        from credalbook.papers.mimori.experiments import _cpe_groups, _metric_rows

        p = tiny_predictions
        names = p.names(2)
        outputs = {n: p.predictors[(2, n)] for n in names}
        groups = _cpe_groups(outputs)
        assert groups["Raw+α"] == "Raw" and groups["Raw"] == "Raw" and groups["MCDO"] == "MCDO"
        assert _cpe_groups(copy.deepcopy(outputs)) == groups  # copies (a cached object) group alike
        assert all(np.array_equal(outputs[n].probs, outputs[g].probs) for n, g in groups.items())
        assert len(set(groups.values())) < len(names)  # something is shared
        hist = p.test_hist[2]
        idx = np.random.default_rng(3).integers(0, len(hist), len(hist))
        for i in (None, idx):
            together = _metric_rows(hist, p.true_probs, outputs, groups, 15, i)
            alone = {n: _metric_rows(hist, p.true_probs, {n: o}, {n: n}, 15, i)[n] for n, o in outputs.items()}
            assert together == alone and list(together["Raw+α"]) == list(alone["Raw+α"])


class TestReleasedCode:
    def test_hand_computed(self):
        # one single-label instance: the released code keeps its plug-in term, the book leaves it out
        from credalbook.metrics import epistemic_loss

        h, z = [[2, 0], [1, 0]], [[1.0, 0.0], [0.5, 0.5]]
        assert released_code_el_cl(z, h)["EL"] == pytest.approx(0.25)  # ((0.5² + 0.5²) + 0) / 2
        assert epistemic_loss(z, h) == pytest.approx(0.0)
        # a bin with one instance: its plug-in CL (2/2 − 0.5)² / 1 per class stays in the released code's CL
        one = released_code_el_cl([[0.5, 0.5]], [[2, 0]])
        assert one["CL"] == pytest.approx(0.5)
        assert cpe_loss_decomposition([[0.5, 0.5]], [[2, 0]]).cl_debiased == 0.0

    def test_agrees_with_the_book_when_sound(self):
        # every instance with ≥ 2 labels and every bin with ≥ 2 instances: the two computations coincide
        rng = np.random.default_rng(0)
        z = np.repeat(rng.dirichlet(np.ones(3), size=10), 30, axis=0)
        h = np.stack([rng.multinomial(4, p) for p in z])
        d = cpe_loss_decomposition(z, h)
        r = released_code_el_cl(z, h)
        assert r["EL"] == pytest.approx(d.el_debiased) and r["CL"] == pytest.approx(d.cl_debiased)

    def test_old_data_order(self):
        """``released_code_el_cl(label_hist, probs)`` (before 0.6) gives the same numbers with a FutureWarning."""
        h, z = [[2, 0], [1, 0], [1, 2]], [[1.0, 0.0], [0.5, 0.5], [0.2, 0.8]]
        new = released_code_el_cl(z, h)
        with pytest.warns(FutureWarning, match=r"released_code_el_cl\(label_hist, probs\) is deprecated since 0\.6"):
            assert released_code_el_cl(h, z) == new
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert released_code_el_cl(z, h) == new and released_code_el_cl(label_hist=h, probs=z) == new
        with warnings.catch_warnings():  # one-hot float rows: one label each, or hard predictions; the new order
            warnings.simplefilter("error")
            released_code_el_cl([[1.0, 0.0], [0.0, 1.0]], [[0.3, 0.7], [0.4, 0.6]])

    def test_demo(self):
        out = released_code_demo(n_runs=60, seed=0)
        (a, b, c) = out.values()
        for setting in out.values():  # the book: within 4 s.e. of the truth 0
            for key in ("EL book", "CL book"):
                m, se = setting[key]
                assert abs(m) < 4 * se + 1e-4, key
        m, se = a["EL released code"]
        assert m > 0.1 and m > 10 * se  # half single-labelled: E[2Q(1 − Q)] / 2 = 1/6
        m, se = c["CL released code"]
        assert m > 5 * se  # lone instances in their bins keep their plug-in bias
