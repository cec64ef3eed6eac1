"""The chapter's views: each is checked, on a small synthetic set of predictions, against a second computation of the
same rows written out inline here, and against closed forms where there are."""

import contextlib
import io
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from scipy.special import softmax

import credalbook.papers.mimori.chapter_views as views
from credalbook.metrics import statistic_mean_estimate
from credalbook.papers.mimori import (
    accuracy_discordance,
    bootstrap_metrics,
    chapter_results,
    chapter_run,
    chapter_setting,
    construction_checks,
    DebiasingStudy,
    dpe_gaps,
    ensemble_metric_rows,
    ensemble_scan_rows,
    ensemble_temperature_scan,
    evaluate_predictors,
    mds_full_results,
    mean_over_seeds,
    MimoriPredictions,
    MIX_AUGMENTATIONS,
    mix_data_name,
    network_summary,
    PAPER_DELTA_D,
    paper_values,
    plot_mds_full,
    pool_seeds,
    pooled_controls,
    PredictorOutputs,
    setting_name,
    temperature_rows,
    theorem1_check,
    theorem1_rows,
    ts_dpe_shift,
    ts_shift_rows,
    ts_sign_check,
    tta_judged,
    tta_results,
)
from credalbook.papers.presets import preset

K, N, S = 3, 80, 4
NAMES = ("Raw", "Raw+ts", "Raw+α", "MCDO", "MCDO+ts", "MCDO+ts(ens)", "MCDO+α", "TTA")


def _outputs(rng, probs, *, posterior=True):
    dpe = np.clip(1 - (probs**2).sum(axis=1) + rng.normal(0, 0.02, len(probs)), 0, 1)
    post = softmax(np.log(probs) + rng.normal(0, 0.1, probs.shape), axis=1) if posterior else None
    return PredictorOutputs(probs, dpe, post)


def _predictions(seed=0, temperatures=None):
    """Predictions of three label settings: CPEs near the true Q, histograms of 10 (or 1-4) labels from Q."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(K), size=N)
    hist = {c: np.stack([rng.multinomial(c, p) for p in q]) for c in (2, 5)}
    hist["variable"] = np.stack([rng.multinomial(int(n), p) for n, p in zip(rng.integers(1, 5, N), q)])
    members = np.log(q)[:, None, :] + rng.normal(0, 0.5, (N, S, K))
    predictors, controls = {}, {}
    for c in hist:
        raw = softmax(np.log(q) + rng.normal(0, 0.6, q.shape), axis=1)
        for n in NAMES:
            base = raw if "ts" not in n else softmax(np.log(raw) / 1.2, axis=1)
            if n.endswith("+α"):
                out = predictors[(c, n[:-2])]
                predictors[(c, n)] = PredictorOutputs(out.probs, out.dpe * 0.9, out.posterior_probs)
            else:
                predictors[(c, n)] = _outputs(rng, base)
        controls[(c, "Raw+γ")] = PredictorOutputs(raw, predictors[(c, "Raw")].dpe * 0.8)
    temps = {2: 1.3, 5: 1.0, "variable": 0.9} if temperatures is None else temperatures
    return MimoriPredictions(
        "fashion_mnist",
        (2, 5, "variable"),
        q,
        hist,
        hist[2][:, :1],
        predictors,
        temps,
        None,
        controls=controls,
        ensemble_temperatures={("variable", "MCDO"): 1.1, (2, "MCDO"): 1.25},
        member_logits={"MCDO": members},
    )


@pytest.fixture(scope="module")
def pred():
    return _predictions()


class TestChapterRun:
    @pytest.mark.parametrize("dataset", ["fashion_mnist", "digits", "cifar10"])
    @pytest.mark.parametrize("scale", ["tiny", "paper"])
    def test_main(self, dataset, scale):
        """The run settings: the preset's sizes (all of digits), the architecture of the data set, the setting's options."""
        cfg, setting = preset("03_mimori_label_histograms", scale), chapter_setting(scale, dataset=dataset)
        run = chapter_run(cfg, setting, dataset=dataset, seed=3, device="cpu")
        assert run["arch"] == {"fashion_mnist": "threeconv", "digits": "threeconv", "cifar10": "vgg"}[dataset]
        if dataset == "digits" or cfg["n_train"] is None:
            assert run["sizes"] is None
        else:
            assert run["sizes"] == (cfg["n_train"], cfg["n_val"], cfg["n_test"])
        assert run["arch_options"].items() >= setting["arch_options"].items()
        assert (run["seed"], run["device"], run["epochs"]) == (3, "cpu", cfg["epochs"])
        assert run["calibration"] == {"optimizer": cfg["calib_optimizer"], "max_epochs": cfg["calib_epochs"]}

    def test_names(self):
        assert [mix_data_name(d) for d in ("fashion_mnist", "mnist", "cifar10", "digits")] == [
            "Mix-Fashion-MNIST",
            "Mix-MNIST",
            "Mix-CIFAR-10",
            "Mix-digits",
        ]
        assert (setting_name(5, "Mix-MNIST"), setting_name("variable", "x")) == ("Mix-MNIST(5)", "variable labels")

    def test_errors(self):
        cfg = preset("03_mimori_label_histograms", "tiny")
        with pytest.raises(TypeError, match="dataset"):
            chapter_run(cfg, chapter_setting("tiny"), dataset=3)
        with pytest.raises(TypeError, match="setting"):
            chapter_run(cfg, None)
        with pytest.raises(TypeError, match="dataset"):
            mix_data_name(None)


def test_theorem1_rows():
    check = theorem1_check(n_draws=4000, seed=1)
    rows = theorem1_rows(check)
    assert list(rows) == list(check.scenarios)
    for name, s in check.scenarios.items():
        z = max(
            float(np.max(np.abs(s["dpe_mc"] - s["dpe_closed"]) / s["dpe_se"])),
            float(np.max(np.abs(s["post_mc"] - s["post_closed"]) / s["post_se"])),
        )
        assert rows[name]["max |MC − closed| / s.e."] == z
        assert rows[name]["DPE: α0* simulated"] == s["dpe_argmin"]
    # Z = m: both optima are the true concentration a = 4 (Eqs. 63, 72)
    assert rows["calibrated Z"]["DPE: α0* closed form"] == pytest.approx(4.0)
    assert rows["calibrated Z"]["posterior: α0* closed form"] == pytest.approx(4.0)
    assert len(rows["flatter Z"]) == 10


def test_mean_over_seeds_is_pool_seeds_mean():
    """Two computations of the mean over seeds: mean_over_seeds' and pool_seeds'."""
    per_seed = [{c: evaluate_predictors(p, c) for c in p.configs} for p in (_predictions(0), _predictions(1))]
    means = mean_over_seeds(per_seed)
    boot = [{c: {n: {k: np.zeros(2) for k in r} for n, r in m.items()} for c, m in s.items()} for s in per_seed]
    assert means == pool_seeds(per_seed, boot)[0]
    assert means[2]["Raw"]["EL"] == pytest.approx((per_seed[0][2]["Raw"]["EL"] + per_seed[1][2]["Raw"]["EL"]) / 2)
    assert mean_over_seeds(per_seed[:1]) == per_seed[0]
    with pytest.raises(ValueError, match="per_seed"):
        mean_over_seeds([])


def test_network_summary():
    net = SimpleNamespace(epochs_run=7, best_epoch=2, seconds=12.6, history=[{"val_loss": 0.5}, {"val_loss": 0.41234}])
    assert network_summary(net, arch="threeconv") == "threeconv: 7 epochs, best 2, 13 s; val. loss 0.412"


def test_temperature_rows(pred):
    rows = temperature_rows(pred, "Mix-Fashion-MNIST")
    assert list(rows) == ["Mix-Fashion-MNIST(2)", "Mix-Fashion-MNIST(5)", "variable labels"]
    assert rows["Mix-Fashion-MNIST(2)"] == {
        "T (ts, one network)": 1.3,
        "no fit (T = 1)": False,
        "T (MCDO+ts(ens))": 1.25,
        "T (TTA+ts(ens))": pytest.approx(np.nan, nan_ok=True),
    }
    assert rows["Mix-Fashion-MNIST(5)"]["no fit (T = 1)"] is True
    assert np.isnan(rows["Mix-Fashion-MNIST(5)"]["T (MCDO+ts(ens))"])


class TestTemperatureShift:
    def _old_print(self, pred, shifts):
        """The check's sentence, written out inline as a print."""
        fitted = [c for c in shifts if pred.temperatures[c] != 1.0]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            print(
                "check (by construction, App. F.2): where a temperature was fitted (T ≠ 1), mean Δ^D has the sign of T − 1:",
                all(np.sign(shifts[c]["mean_delta"]) == np.sign(pred.temperatures[c] - 1) for c in fitted),
                f"({len(fitted)} of {len(shifts)} settings fitted"
                + (
                    "; no fit: " + ", ".join(map(str, sorted(set(shifts) - set(fitted), key=str)))
                    if len(fitted) < len(shifts)
                    else ""
                )
                + ")",
            )
        return out.getvalue()

    @pytest.mark.parametrize("temps", [None, {2: 1.3, 5: 1.2, "variable": 0.7}, {2: 1.0, 5: 1.0, "variable": 1.0}])
    def test_sign_check(self, temps):
        pred = _predictions(0, temps)
        shifts = {c: ts_dpe_shift(pred, c) for c in pred.configs}
        assert ts_sign_check(pred, shifts) + "\n" == self._old_print(pred, shifts)
        if temps is None:
            assert ts_sign_check(pred, shifts).endswith("(2 of 3 settings fitted; no fit: 5)")

    def test_sign_check_can_fail(self, pred):
        shifts = {c: {"mean_delta": 0.1} for c in pred.configs}  # T = 0.9 < 1 for "variable": the sign differs
        assert ": False (2 of 3" in ts_sign_check(pred, shifts)

    def test_rows(self, pred):
        shifts = {c: ts_dpe_shift(pred, c) for c in pred.configs}
        rows = ts_shift_rows(pred, shifts, dataset="mnist", data_name="Mix-MNIST")
        for c, s in shifts.items():
            row = rows[setting_name(c, "Mix-MNIST")]
            key = (paper_values("mnist", c)[0].split("(")[0], None if c == "variable" else c)
            assert row["T"] == pred.temperatures[c]
            assert row["mean Δ^D (book)"] == float((s["dpe_ts"] - s["dpe"]).mean())
            assert (
                row["mean Δ^D (paper)"] == PAPER_DELTA_D[key]
                if key in PAPER_DELTA_D
                else np.isnan(row["mean Δ^D (paper)"])
            )
        assert any(np.isfinite(r["mean Δ^D (paper)"]) for r in rows.values())


class TestEnsembleViews:
    def test_scan_rows(self, pred):
        """The scan and its row labels, written out inline."""
        marks = {"← ts (member-wise)": 0.9, "← ts(ens)": 1.1}
        scan = ensemble_temperature_scan(
            pred, "variable", base="MCDO", temperatures=(0.7, 0.8, 0.9, 1.0, 1.2, 1.4, 0.9, 1.1)
        )
        expected = {
            f"T = {t:.3g} " + " ".join(k for k, v in marks.items() if v == t): row for t, row in sorted(scan.items())
        }
        rows = ensemble_scan_rows(pred)
        assert rows == expected and list(rows) == list(expected)
        assert list(rows)[2:5] == ["T = 0.9 ← ts (member-wise)", "T = 1 ", "T = 1.1 ← ts(ens)"]

    def test_metric_rows(self, pred):
        m = evaluate_predictors(pred, "variable", names=["MCDO", "MCDO+ts", "MCDO+ts(ens)"])
        rows = ensemble_metric_rows(pred, ["MCDO"])
        assert rows == {n: {"ÊL": r["EL"], "ĈL": r["CL"], "Acc": r["Acc"]} for n, r in m.items()}
        assert rows["MCDO"]["Acc"] == float(
            (pred.predictors[("variable", "MCDO")].probs.argmax(1) == pred.test_hist["variable"].argmax(1)).mean()
        )


def test_construction_checks(pred):
    metrics = {c: evaluate_predictors(pred, c) for c in pred.configs}
    metrics[5]["Raw+α"] = {**metrics[5]["Raw+α"], "EL": metrics[5]["Raw"]["EL"] + 2.5e-3}
    ranges = np.array([[-2.0, 3.0], [-1.0, 2.0], [-0.5, 1.0]])
    thm = {"a": {"max |MC − closed| / s.e.": 1.26}, "b": {"max |MC − closed| / s.e.": 2.34}}
    el_check = {"Raw": {"gap": -0.00312}, "MCDO": {"gap": 0.001}}
    text = construction_checks(metrics, pred, ranges=ranges, thm=thm, el_check=el_check)
    assert text == (
        "check (by construction): α leaves Acc, L̂sq, ÊL, ĈE unchanged (largest difference 2.5e-03); "
        "Fig. 3: log α0 range contains 0 and narrows with λ_α: True; "
        "Theorem 1 within 2.3 s.e.; ÊL − EL from Q ≤ 0.0031"
    )
    widening = construction_checks(metrics, pred, ranges=ranges[::-1], thm=thm, el_check=el_check)
    assert "narrows with λ_α: False" in widening


def test_pooled_controls_and_dpe_gaps():
    preds = [_predictions(0), _predictions(1)]
    ctrl, ctrl_boot = pooled_controls(preds, n_resamples=30, seed=2)
    expected = pool_seeds(
        [{c: evaluate_predictors(p, c, names=p.control_names(c)) for c in p.configs} for p in preds],
        [
            {c: bootstrap_metrics(p, c, names=p.control_names(c), n_resamples=30, seed=2) for c in p.configs}
            for p in preds
        ],
        seed=2,
    )
    assert ctrl == expected[0] and list(ctrl[2]) == ["Raw+γ"]
    for c in ctrl_boot:
        np.testing.assert_array_equal(ctrl_boot[c]["Raw+γ"]["EL"], expected[1][c]["Raw+γ"]["EL"])
    gaps = dpe_gaps(preds)
    assert list(gaps[2]) == ["Raw", "MCDO", "TTA"]
    for c in preds[0].configs:
        want = np.concatenate([p.predictors[(c, "MCDO")].dpe - statistic_mean_estimate(p.test_hist[c]) for p in preds])
        np.testing.assert_array_equal(gaps[c]["MCDO"], want)
    with pytest.raises(ValueError, match="predictions"):
        pooled_controls([])
    with pytest.raises(ValueError, match="predictions"):
        dpe_gaps(())


def test_tta_results(pred, monkeypatch):
    assert tta_results("fashion_mnist", {}, None) is None
    calls = []

    def fake(dataset, **kwargs):
        calls.append((dataset, kwargs))
        return pred

    monkeypatch.setattr(views, "mimori_predictions", fake)
    out = tta_results("mnist", {"seed": 4, "augment": "auto", "epochs": 2}, {"rotation": 5}, n_resamples=20, seed=4)
    setting = {"seed": 4, "augment": {"rotation": 5}, "epochs": 2, "n_labels_val": (2,), "variable_labels": None}
    assert calls == [("mnist", {**setting, "network": None})]
    tta_results(
        "mnist", {"seed": 4, "augment": "auto", "epochs": 2}, {"rotation": 5}, n_resamples=20, seed=4, network=pred
    )
    assert calls[1] == ("mnist", {**setting, "network": pred})  # the recorded network is passed on
    names = ["Raw", "MCDO", "TTA"]
    assert out["metrics"][2] == evaluate_predictors(pred, 2, names=names) and list(out["metrics"][2]) == names
    b = bootstrap_metrics(pred, 2, names=names, n_resamples=20, seed=4)
    for n in names:
        np.testing.assert_array_equal(out["boot"][2][n]["EL"], b[n]["EL"])
    assert out["setting"] == "trained and tested with the paper's Mix-CIFAR-10 augmentation {'rotation': 5} (seed 4)"


def test_tta_judged_follows_the_setting():
    """The words after "The TTA row is judged": the named setting's when there is one, else the base network's own
    augmentation, and no TTA at all for a network trained without augmentation (no fixed words for every scale)."""
    named = {"setting": "trained and tested with the paper's Mix-CIFAR-10 augmentation {'rotation': 5} (seed 4)"}
    assert tta_judged(named, "fashion_mnist") == "in its own setting, a network " + named["setting"]
    mild = tta_judged(None, "fashion_mnist")
    assert str(MIX_AUGMENTATIONS["fashion_mnist"]) in mild and mild.startswith("with the augmentation")
    assert tta_judged(None, "digits").startswith("nowhere") and tta_judged(None, "mnist") == tta_judged(None, "digits")


def test_chapter_results(pred):
    study = DebiasingStudy(np.array([100, 1000]), (2, 5), {("EL", "plug-in", 2): np.zeros((3, 2))})
    full_metrics = evaluate_predictors(pred, "variable")
    mds = mds_full_results(
        pred, full_metrics, base_metrics={"x": 1}, base_boot={"y": 2}, train_labels=2.5, n_resamples=10, seed=1
    )
    np.testing.assert_array_equal(
        mds["boot"]["Raw"]["EL"], bootstrap_metrics(pred, "variable", n_resamples=10, seed=1)["Raw"]["EL"]
    )
    assert {k: v for k, v in mds.items() if k != "boot"} == dict(
        metrics=full_metrics, base_metrics={"x": 1}, base_boot={"y": 2}, train_labels=2.5, seed=1
    )
    res = chapter_results(
        [pred], {"m": 1}, {"b": 2}, controls=({"c": 3}, {"d": 4}), tta=None, mds_full=mds, study=study,
        dataset="mnist", data_name="Mix-MNIST",
    )  # fmt: skip
    assert list(res) == [
        "dataset", "data_name", "metrics", "boot", "temperatures", "controls", "controls_boot", "dpe_gap", "tta",
        "n_seeds", "mds_full", "fig2", "discordance",
    ]  # fmt: skip
    assert res["discordance"] is None  # no Raw+vs among these predictors
    assert (res["controls"], res["controls_boot"], res["n_seeds"], res["temperatures"]) == (
        {"c": 3},
        {"d": 4},
        1,
        pred.temperatures,
    )
    np.testing.assert_array_equal(res["dpe_gap"][5]["Raw"], dpe_gaps([pred])[5]["Raw"])
    assert res["fig2"]["n_labels"] == (2, 5) and res["fig2"]["estimates"] is study.estimates


def test_plot_mds_full(pred):
    import matplotlib.pyplot as plt

    metrics = evaluate_predictors(pred, "variable")
    fig = plot_mds_full(pred, metrics)
    assert len(fig.axes) >= 2 and fig.axes[0].get_title() == "MDS-full analogue: calibration-dispersion map"
    plt.close(fig)
    fig, axes = plt.subplots(1, 2)
    assert plot_mds_full(pred, metrics, axes=axes) is fig
    plt.close(fig)


class TestAccuracyDiscordance:
    def test_pooled_over_seeds(self):
        """The share of instances with different argmax, over the seeds' instances together (not a mean of means)."""

        def pred(n, flips):
            p = np.tile([0.8, 0.2], (n, 1))
            q = p.copy()
            q[:flips] = [0.3, 0.7]
            outs = {(2, "A"): PredictorOutputs(p, np.zeros(n)), (2, "B"): PredictorOutputs(q, np.zeros(n))}
            return MimoriPredictions("demo", (2,), None, {2: np.ones((n, 2), int)}, None, outs, {}, None)

        assert accuracy_discordance([pred(10, 1), pred(30, 9)], 2, "A", ["B"]) == {"B": 10 / 40}
        with pytest.raises(ValueError, match="non-empty list"):
            accuracy_discordance([], 2, "A", ["B"])
