"""Re-analyses of recorded EU runs (credalbook/papers/eu/analysis.py)."""

from types import SimpleNamespace as NS

import numpy as np
import pytest

from credalbook.metrics.epistemic import evaluate_eu, fit_eu_calibration, interval_cuts
from credalbook.papers.eu import EUPlan, EUStudy
from credalbook.papers.eu.analysis import available_study, carving_sentence, drop_carved_discs, studies_table
from credalbook.papers.eu.floor import eece_floor


def _assemble(seed, fits):
    return NS(seed=seed, fits=fits)


class TestAvailableStudy:
    def test_main(self):
        runs = {"g": [(s, {"train": f"g-seed{s}-train", "aug": f"g-seed{s}-aug"}, _assemble, {}) for s in (0, 1, 2)]}
        plan = EUPlan(parts=[], runs=runs)
        fits = {"g-seed0-train": 1, "g-seed0-aug": 2, "g-seed2-train": 3, "g-seed2-aug": 4, "g-seed1-train": 5}
        study, pending = available_study(plan, "g", fits, name="x")
        assert isinstance(study, EUStudy) and study.seeds == [0, 2] and pending == [1]
        assert study.runs[1].fits == {"train": 3, "aug": 4} and study.name == "x"
        assert available_study(plan, "g", {}) == (None, [0, 1, 2])

    def test_errors(self):
        with pytest.raises(ValueError, match="group must be one of"):
            available_study(EUPlan(parts=[], runs={}), "g", {})


def _toy_run(rng, seed=0, n=300):
    ball = rng.integers(-1, 4, size=n)  # four discs and points outside
    test_index = np.arange(n)
    eu = {k: rng.random(n) for k in ("M", "E")}
    gain = rng.integers(-1, 2, size=n)
    run = NS(
        seed=seed,
        eu=eu,
        gain=gain,
        test_index=test_index,
        calibration_eu={k: rng.random(n) for k in eu},
        calibration_gain=rng.integers(-1, 2, size=n),
        calibration_test_index=test_index,
    )
    lay = NS(p_train=np.array([0.3, 0.0, 0.6, 0.1]))
    split = NS(ball=ball)
    return run, NS(evaluation=split, calibration=split, evaluation_layout=lay, calibration_layout=lay)


class TestDropCarvedDiscs:
    def test_main(self):
        rng = np.random.default_rng(0)
        run, splits = _toy_run(rng)
        study = NS(runs=(run,))
        out = drop_carved_discs(study, {0: splits}, n_drop=2, n_bins=5)
        keep = ~np.isin(splits.evaluation.ball, [1, 3])  # the discs with kept fractions 0.0 and 0.1
        for k in ("M", "E"):
            cuts = interval_cuts(run.eu[k][keep], n_bins=5)
            gamma = fit_eu_calibration(run.calibration_eu[k][keep], run.calibration_gain[keep], cuts=cuts)
            ev = evaluate_eu(run.eu[k][keep], run.gain[keep], cuts=cuts, calibration=gamma)
            assert out["values"][k]["rho_epi"] == [ev.rho_epi] and out["values"][k]["calibrated_eece"] == [
                ev.calibrated_eece
            ]
            assert out["floors"][k] == [eece_floor(run.eu[k][keep], run.gain[keep], cuts=cuts)]
        assert out["seeds"] == [0] and out["n_drop"] == 2
        none = drop_carved_discs(study, {0: splits}, n_drop=0, n_bins=5)
        ev = evaluate_eu(run.eu["M"], run.gain, n_bins=5)
        assert none["values"]["M"]["eece"] == [ev.eece]

    def test_errors(self):
        run, splits = _toy_run(np.random.default_rng(1), n=40)
        with pytest.raises(ValueError, match="n_drop must be"):
            drop_carved_discs(NS(runs=(run,)), {0: splits}, n_drop=-1)
        with pytest.raises(ValueError, match="fewer than n_bins"):
            drop_carved_discs(NS(runs=(run,)), {0: splits}, n_drop=4, n_bins=20)


class TestStudiesTable:
    def test_main(self):
        st = {
            "values": {k: {m: [0.1, 0.3] for m in ("rho_epi", "eece", "calibrated_eece")} for k in "ME"},
            "floors": {k: [0.05, 0.05] for k in "ME"},
            "seeds": [0, 1],
            "planned": 6,
        }
        t = studies_table(
            {"kept 0.25-0.85": st},
            paper={k: {m: (0.1, 0.02) for m in ("rho_epi", "eece", "calibrated_eece")} for k in "ME"},
        )
        row = t.rows["kept 0.25-0.85 · Ê_E"]
        assert row["calib. − floor"] == "0.1500 ± 0.1414" and row["seeds"] == "2 of 6"
        assert t.rows["paper · Ê_M"]["ρ_epi"] == "0.1 ± 0.02"
        text = carving_sentence({"0.25-0.85": st, "0-0.6": {"seeds": [], "planned": 6}}, {"seeds": []})
        assert "(2 of 6 seeds)" in text and "kept fractions 0–0.6 no seed is computed yet" in text
