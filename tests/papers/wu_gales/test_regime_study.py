"""Tests for credalbook.papers.wu_gales.regime_study: the premises of the CIFAR-100 regime, measured on members."""

import numpy as np
import pytest
from scipy.special import log_softmax, softmax

from credalbook.metrics import ece
from credalbook.papers.wu_gales import regime_premises, TopologyEnsemble


def _ens(logits_val, y_val, logits_test, y_test, topology="LEN"):
    m = logits_test.shape[1]
    return TopologyEnsemble(
        logits_val.astype(np.float32),
        y_val,
        logits_test.astype(np.float32),
        y_test,
        topology,
        tuple(range(m)),
        ([],) * m,
        np.ones(m),
        123,
        {"epochs": 7},
    )


def _world(seed=0, n=400, m=3, k=4, scale=3.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, m, k)) * scale
    y = rng.integers(0, k, n)
    return z, y


class TestRegimePremises:
    def test_main(self):
        """Every statistic against a direct computation from the logits."""
        zv, yv = _world(1, n=300)
        zt, yt = _world(2)
        out = regime_premises({"LEN": _ens(zv, yv, zt, yt)}, train_nll={"LEN": [0.1, 0.2, 0.3]}, n_resamples=10)
        r = out["LEN"]
        p = softmax(zt.astype(np.float32).astype(np.float64), axis=-1)
        conf, correct = p.max(-1), (p.argmax(-1) == yt[:, None])
        assert r["member_accuracy"] == pytest.approx(correct.mean())
        assert r["member_gap"] == pytest.approx(conf.mean() - correct.mean())
        member_ece = np.mean([ece(p[:, j], yt) for j in range(3)])
        ens_p = p.mean(1)
        assert r["member_ece"] == pytest.approx(member_ece)
        assert r["ensemble_ece"] == pytest.approx(ece(ens_p, yt))
        assert r["ece_change"] == pytest.approx(ece(ens_p, yt) - member_ece)
        assert r["ensemble_gap"] == pytest.approx(ens_p.max(1).mean() - (ens_p.argmax(1) == yt).mean())
        lv = log_softmax(zv.astype(np.float32).astype(np.float64), axis=-1)
        assert r["val_nll"] == pytest.approx(-lv[np.arange(300), :, yv].mean())
        np.testing.assert_allclose(r["val_nll_members"], -lv[np.arange(300), :, yv].mean(0))
        assert r["train_nll"] == pytest.approx(0.2) and r["n_members"] == 3
        assert r["n_parameters"] == 123 and r["epochs"] == 7
        # random logits × 3: over-confident members whose average is less confident (Eq. 18)
        assert r["member_gap"] > 0.3 and r["ensemble_gap"] < r["member_gap"]
        for key in ("member_accuracy_se", "member_gap_se", "ece_change_se"):
            assert 0 < r[key] < 0.1, key

    def test_standard_errors(self):
        """The SE of the mean gap combines the test-instance spread (≈ sd/√N) with the spread over members; with
        identical members the latter vanishes and the SE is that of one member's mean."""
        zt, yt = _world(3, n=2000, m=1)
        z = np.repeat(zt, 4, axis=1)
        r = regime_premises({"RSN": _ens(z[:50], yt[:50], z, yt, "RSN")}, n_resamples=10)["RSN"]
        p = softmax(zt[:, 0].astype(np.float32).astype(np.float64), axis=-1)
        terms = p.max(1) - (p.argmax(1) == yt)
        assert r["member_gap_se"] == pytest.approx(terms.std(ddof=1) / np.sqrt(2000))
        assert r["ece_change"] == pytest.approx(0.0, abs=1e-12)  # the ensemble of copies is the member

    def test_seeded(self):
        zt, yt = _world(4)
        e = {"LEN": _ens(zt[:50], yt[:50], zt, yt)}
        a, b = (regime_premises(e, n_resamples=20, seed=5)["LEN"]["ece_change_se"] for _ in range(2))
        assert a == b and regime_premises(e, n_resamples=20, seed=6)["LEN"]["ece_change_se"] != a

    def test_errors(self):
        zt, yt = _world(5, n=50)
        e = {"LEN": _ens(zt, yt, zt, yt)}
        with pytest.raises(ValueError, match="ensembles"):
            regime_premises({})
        with pytest.raises(TypeError, match="ensembles"):
            regime_premises({"LEN": zt})
        with pytest.raises(TypeError, match="train_nll"):
            regime_premises(e, train_nll=[0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match="train_nll"):
            regime_premises(e, train_nll={"LEN": [0.1, 0.2]})
        with pytest.raises(ValueError, match="train_nll"):
            regime_premises(e, train_nll={"LEN": [0.1, np.nan, 0.3]})
        with pytest.raises(ValueError, match="n_resamples"):
            regime_premises(e, n_resamples=1)
        with pytest.raises(ValueError, match="seed"):
            regime_premises(e, seed=-1)


class TestPremiseSentence:
    def test_numbers_of_the_premises(self):
        """The clause states each premise's numbers from regime_premises on two topologies, ranges over the deep."""
        from credalbook.papers.wu_gales import premise_sentence

        zv, yv = _world(1, n=300)
        zt, yt = _world(2)
        ens = {"LEN": _ens(zv, yv, zt / 3, yt), "RSN": _ens(zv, yv, zt, yt, "RSN"), "DSN100": _ens(zv, yv, zt * 2, yt)}
        p = regime_premises(ens, n_resamples=10)
        s = premise_sentence(p)
        assert s.startswith("the single members' confidence − accuracy (percentage points) is LEN ")
        for t in ens:
            assert f"{t} {100 * p[t]['member_gap']:+.2f}" in s and f"{t} {100 * p[t]['member_accuracy']:.1f}" in s
            assert f"{t} {100 * p[t]['member_ece']:.2f} → {100 * p[t]['ensemble_ece']:.2f}" in s
        assert "NLL" not in s  # no training NLL given
        p = regime_premises(ens, n_resamples=10, train_nll={t: [0.1, 0.2, 0.3] for t in ens})
        assert "; training / validation NLL LEN 0.200 / " in premise_sentence(p)

    def test_errors(self):
        from credalbook.papers.wu_gales import premise_sentence

        with pytest.raises(ValueError, match="LEN"):
            premise_sentence({"RSN": {}})
        with pytest.raises(ValueError, match="LEN"):
            premise_sentence({"LEN": {}})


class TestRegimeResults:
    """regime_results: every study of the chapter on the regime's members, each equal to the study run directly."""

    @staticmethod
    def _plan_values(m=3, n=240, k=4):
        from credalbook.papers.wu_gales.parts import RegimePlan

        rng = np.random.default_rng(7)
        yv, yt = rng.integers(0, k, n), rng.integers(0, k, n)
        members, values = {}, {}
        for j, t in enumerate(("LEN", "DSN121", "RSN")):
            members[t] = tuple(f"x-{t.lower()}-seed{s}" for s in range(m))
            for s, name in enumerate(members[t]):
                hit = np.eye(k)[yt] * (1.5 + j)  # the deep members more over-confident
                values[name] = dict(
                    logits_val=(rng.normal(size=(n, k)) + np.eye(k)[yv] * (1.5 + j)) * (1 + j),
                    y_val=yv,
                    logits_test=(rng.normal(size=(n, k)) + hit) * (1 + j),
                    y_test=yt,
                    history={},
                    seconds=1.0,
                    n_parameters=10 * (j + 1),
                    config={"epochs": 3},
                    train_nll=0.01 * (s + 1),
                )
        return RegimePlan(parts=[], members=members), values

    def test_main(self):
        from credalbook.papers.wu_gales import (
            calibration_study,
            combination_configs,
            regime_results,
            region_study,
            single_model_study,
            topology_combinations,
        )

        plan, values = self._plan_values()
        cfg = dict(regime_members=3, regime_per_class=450, topologies=("LEN", "DSN121", "RSN"), fig3_regions=(1, 2))
        out = regime_results(plan, values, cfg, seed=0, n_iter=20)
        ens = plan.ensembles(values)
        assert set(out["regions"]) == {"DSN121", "RSN"} and (out["n_runs"], out["subset"]) == (3, 2)
        assert (out["n_val"], out["n_test"], out["per_class"]) == (240, 240, 450)
        prem = regime_premises(ens, train_nll={t: [0.01, 0.02, 0.03] for t in ens}, seed=0)
        for t in ens:
            for key in ("member_ece", "ensemble_ece", "member_gap", "ece_change_se", "train_nll", "val_nll"):
                assert out["premises"][t][key] == prem[t][key], (t, key)
        direct = calibration_study(ens["RSN"], subset_size=2, n_runs=3, seed=0, n_iter=20).plain()
        assert np.array_equal(out["ensembles"]["RSN"]["post"]["ece"]["boot"], direct["post"]["ece"]["boot"])
        assert np.array_equal(
            out["singles"]["LEN"]["ts"]["ece"]["runs"],
            single_model_study(ens["LEN"], n_iter=20).plain()["ts"]["ece"]["runs"],
        )
        reg = region_study(ens["DSN121"], n_regions=(1, 2), subset_size=2, n_runs=3, seed=0, n_iter=20)
        assert np.array_equal(out["regions"]["DSN121"]["R=2"]["ece"]["runs"], reg.runs("R=2", "ece"))
        combos = topology_combinations(ens, combination_configs(cfg["topologies"]), seed=0, n_iter=20)
        assert len(out["combinations"]) == len(combos) > 0
        for got, c in zip(out["combinations"], combos):
            assert got["topologies"] == c.topologies and got["ece"] == c.summary["ece"]
            assert np.array_equal(got["ece_boot"], c.boot[:, 0]) and got["gap"] == c.summary["confidence_gap"]
        lo, sd = out["ece_floor"]
        assert 0 < lo < 100 and sd > 0

    def test_errors(self):
        from credalbook.papers.wu_gales import regime_results

        plan, values = self._plan_values()
        cfg = dict(regime_members=3, regime_per_class=450, topologies=("LEN",), fig3_regions=(1,))
        with pytest.raises(ValueError, match=r"cfg lacks the keys \['fig3_regions'\]"):
            regime_results(plan, values, {k: v for k, v in cfg.items() if k != "fig3_regions"})
        with pytest.raises(TypeError, match="values"):
            regime_results(plan, [1], cfg)
        with pytest.raises(ValueError, match="lacks the parts"):
            regime_results(plan, {}, cfg)


class TestCombinationPlain:
    def test_round_trip(self):
        from credalbook.papers.wu_gales import combination_table, topology_combinations, TopologyCombination

        plan, values = TestRegimeResults._plan_values()
        ens = plan.ensembles(values)
        combos = topology_combinations(
            ens, [(("DSN121", "RSN"), "ml", "post", None), (("LEN", "RSN"), "uniform", None, "post")], n_iter=20
        )
        for c in combos:
            d = c.plain()
            back = TopologyCombination.from_plain(d)
            assert back.label == c.label and np.array_equal(back.weights, c.weights) and back.summary == c.summary
            assert back.curve is None and back.boot is None
            assert d["ece_boot"].shape == (c.boot.shape[0],) and d["gap_se"] == c.summary["confidence_gap_se"]
        assert combination_table([c.plain() for c in combos]).rows == combination_table(combos).rows
        with pytest.raises(ValueError, match=r"lacks the keys \['summary'\]"):
            TopologyCombination.from_plain({k: v for k, v in combos[0].plain().items() if k != "summary"})
        with pytest.raises(TypeError, match="mapping"):
            TopologyCombination.from_plain(combos[0])
        from dataclasses import replace

        with pytest.raises(ValueError, match="no bootstrap resamples"):
            replace(combos[0], boot=None).plain()
