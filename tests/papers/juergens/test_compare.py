"""Jürgens et al.: the reported numbers as data, and the chapter's "Paper vs. this book" rows."""

import json
from pathlib import Path

import numpy as np
import pytest

from credalbook.papers.juergens import compare, paper_table1
from credalbook.papers.report import Comparison, reported

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "02_juergens_instance_calibration.ipynb"
COLUMNS = ("mean_acc", "mean_h0", "mean_p", "mean_ce", "lambda_acc", "lambda_h0", "lambda_p", "lambda_ce")
SETTINGS = ("binary", "multiclass")


def _results(**over):
    res = dict(gap={s: {"new": 0.02, "Mortier": 0.1} for s in SETTINGS}, below={s: {"Mortier": -0.1} for s in SETTINGS},
               power={s: 0.9 for s in SETTINGS}, skce_power={s: 0.5 for s in SETTINGS},
               null_means={"L2-CE": 0.1, "KL-CE": 0.2, "MMD": 0.001, "SKCE": -0.002},
               null_se={"L2-CE": 0.01, "KL-CE": 0.01, "MMD": 0.01, "SKCE": 0.01},
               landscape_miss={"lp": 0.1, "kl": 0.2, "mmd": 0.15, "skce": 0.5}, app_b_rejection=[0.05, 0.1, 1.0],
               centre_share={"weights": 0.6, "triangulation": 0.25, "hit_and_run": 0.26},
               table1={"A · DE · L2-CE": {"mean_h0": "REJ.", "lambda_h0": "¬REJ.", "mean_acc": 0.8, "lambda_acc": 0.81},
                       "A · DE · KL-CE": {"mean_h0": "REJ.", "lambda_h0": "REJ.", "mean_acc": 0.8, "lambda_acc": 0.80}},
               dataset="digits")
    res.update(over)
    return res


def _old_cells(gap, below, power, skce_power, null_means, null_se, miss, app_b, share, table, dataset):
    """The chapter's comparison cells before they moved into :func:`compare` (the reference)."""
    cmp = Comparison("02_juergens_instance_calibration")
    for s, fig_name in (("binary", "Fig. 3"), ("multiclass", "Fig. 4")):
        cmp.add(fig_name, "new test's Type I error follows α more closely than Mortier's: mean |rate − α| (new vs Mortier; L2, KL, MMD)",
                paper="new closer", book=f"{gap[(s, 'new')]:.3f} vs {gap[(s, 'Mortier')]:.3f}",
                agrees=bool(gap[(s, "new")] < gap[(s, "Mortier")]))
        cmp.add(fig_name, "Mortier's test is conservative: mean (rejection rate − α) over the H0 panels",
                paper="< 0", book=below[(s, "Mortier")], agrees=bool(below[(s, "Mortier")] < 0))
        cmp.add(fig_name, "high power at all three H1 distances: mean power of the new test at α = 0.05 (L2, KL, MMD)",
                paper="high (≈ 1)", book=power[s], agrees=bool(power[s] > 0.8),
                note="" if power[s] > 0.8 else "the smallest shifts (H1-1: ε ≤ 0.05, δ = 0.02) go undetected with 400 test instances; see the figure")
        cmp.add(fig_name, "SKCE unreliable: its power at α = 0.05 (new test) against the others'",
                paper="low / unreliable", book=f"{skce_power[s]:.2f} vs {power[s]:.2f}", agrees=bool(skce_power[s] < power[s]))
    lp_means = [k for k in null_means if k in ("L2-CE", "KL-CE")]
    cmp.add("Fig. 5", "L2 and KL biased upwards under H0, SKCE and MMD centred at 0 (means)",
            paper="L2, KL > 0; SKCE, MMD ≈ 0", book=", ".join(f"{k} {v:.3g}" for k, v in null_means.items()),
            agrees=bool(all(null_means[k] > 3 * null_se[k] for k in lp_means)
                        and all(abs(null_means[k]) < 4 * null_se[k] for k in ("SKCE", "MMD"))))
    worst = max(miss[e]["simplex: |argmin − truth|₁"] for e in ("lp", "kl", "mmd"))
    cmp.add("Fig. 6", "L2, KL, MMD smallest near the truth; SKCE noisier (L1 distance of the grid minimum)",
            paper="monotone in the distance; SKCE noisy", book=f"{worst:.3f} vs SKCE {miss['skce']['simplex: |argmin − truth|₁']:.3f}",
            agrees=bool(worst < miss["skce"]["simplex: |argmin − truth|₁"]))
    calib = [v["rejection rate at α = 0.05"] for v in app_b.values()]
    cmp.add("App. B", "two different combinations calibrated, a third not: rejection rates at α = 0.05",
            paper="calibrated, calibrated, not", book=", ".join(f"{c:.2f}" for c in calib),
            agrees=bool(max(calib[:2]) <= 0.2 and calib[2] >= 0.8))
    cmp.add("Fig. 8", "uniform weights pile up in the centre: share in the central quarter (weights vs uniform)",
            paper="accumulate in the centre", book=f"{share['weights']:.2f} vs {share['triangulation']:.2f}",
            agrees=bool(share["weights"] > share["triangulation"] + 0.1))
    n_mean_rej = sum(r["mean_h0"] == "REJ." for r in table.values())
    n_lam_rej = sum(r["lambda_h0"] == "REJ." for r in table.values())
    cmp.add("Table 1", "the mean predictor is rejected at least as often as the learned λ(x) (rows rejected)",
            paper="mean rejected more often", book=f"{n_mean_rej} vs {n_lam_rej} of {len(table)}",
            agrees=bool(n_mean_rej >= n_lam_rej), note=f"{dataset}, small CNN backbones, not CIFAR/ResNet")
    acc_gain = float(np.mean([r["lambda_acc"] - r["mean_acc"] for r in table.values()]))
    cmp.add("Table 1", "λ(x) slightly increases accuracy (mean difference)", paper="slight increase in most cases",
            book=acc_gain, agrees=bool(acc_gain >= 0))
    return cmp


class TestReported:
    def test_main(self):
        data = reported("juergens")
        assert "Jürgens" in data["_paper"]
        table = data["table1"]
        assert table["source"].startswith("Table 1") and table["caveats"]
        assert tuple(table["columns"]) == COLUMNS
        n = 0
        for dataset, archs in table["rows"].items():
            for arch, sets in archs.items():
                assert tuple(sets) == ("DE", "DN (rate 1 of 2)", "DN (rate 2 of 2)"), (dataset, arch)
                for rows in sets.values():
                    assert tuple(rows) == ("row 1", "row 2")
                    for row in rows.values():
                        assert tuple(row) == COLUMNS
                        assert row["mean_h0"] == row["lambda_h0"] == "REJ."  # as printed in our copy
                        assert 0 <= row["mean_p"] <= 1 and 0 <= row["lambda_p"] <= 1
                        assert 0 < row["mean_acc"] < 1 and 0 < row["lambda_acc"] < 1
                        n += 1
        assert n == 24  # 2 datasets × 2 backbones × 3 sets × 2 estimators
        for name, claim in data["claims"].items():
            assert claim["source"] and claim["paper"], name

    def test_values(self):
        """Cells checked against the paper (the former chapter prose and other spot checks)."""
        de = paper_table1("CIFAR-10", "ResNet-18")["DE"]["row 1"]
        assert (de["mean_acc"], de["lambda_acc"], de["mean_p"], de["lambda_p"], de["mean_ce"], de["lambda_ce"]) == \
               (0.869, 0.873, 1.000, 0.990, 0.259, 0.262)
        dn = paper_table1("CIFAR-100", "ResNet-18")["DN (rate 1 of 2)"]
        assert (dn["row 1"]["mean_acc"], dn["row 1"]["mean_ce"], dn["row 2"]["lambda_ce"]) == (0.5162, 1.4419, 0.4423)
        assert paper_table1("CIFAR-100", "VGG-19")["DN (rate 2 of 2)"]["row 2"]["lambda_ce"] == 0.416

    def test_errors(self):
        with pytest.raises(ValueError, match="dataset"):
            paper_table1("CIFAR-1000")
        with pytest.raises(ValueError, match="arch"):
            paper_table1("CIFAR-10", "VGG")


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        rows = cmp.rows
        assert len(rows) == 14 and cmp.chapter == "02_juergens_instance_calibration"
        assert all(r.agrees for r in rows)
        assert [r.artifact for r in rows[:8]] == ["Fig. 3"] * 4 + ["Fig. 4"] * 4
        assert rows[0].book == "0.020 vs 0.100" and rows[1].book == -0.1 and rows[3].book == "0.50 vs 0.90"
        assert rows[8].book == "L2-CE 0.1, KL-CE 0.2, MMD 0.001, SKCE -0.002"
        assert rows[9].book == "0.200 vs SKCE 0.500"
        assert rows[10].book == "0.05, 0.10, 1.00" and rows[11].book == "0.60 vs 0.25"
        assert rows[12].book == "2 vs 1 of 2" and rows[13].book == pytest.approx(0.005)
        assert rows[12].note == "digits, small CNN backbones, not CIFAR/ResNet"

    def test_disagreements(self):
        res = _results(power={"binary": 0.5, "multiclass": 0.95}, app_b_rejection=[0.05, 0.3, 1.0],
                       null_means={"L2-CE": 0.1, "KL-CE": 0.2, "MMD": 0.001, "SKCE": -0.08})
        res["gap"]["multiclass"] = {"new": 0.2, "Mortier": 0.1}
        rows = compare(res).rows
        assert [r.agrees for r in rows] == [True, True, False, False, False, True, True, True,
                                            False, True, False, True, True, True]
        assert rows[2].note.startswith("the smallest shifts") and rows[6].note == ""

    def test_same_rows_as_the_chapter_cells(self):
        """:func:`compare` builds exactly the rows the chapter's cells built before they moved."""
        rng = np.random.default_rng(0)
        key = "simplex: |argmin − truth|₁"
        for _ in range(20):
            res = _results(
                gap={s: {"new": rng.uniform(0, 0.2), "Mortier": rng.uniform(0, 0.2)} for s in SETTINGS},
                below={s: {"Mortier": rng.uniform(-0.2, 0.1)} for s in SETTINGS},
                power={s: rng.uniform(0.5, 1) for s in SETTINGS}, skce_power={s: rng.uniform(0.3, 1) for s in SETTINGS},
                null_means={k: rng.normal(0, 0.02) for k in ("L2-CE", "KL-CE", "MMD", "SKCE")},
                landscape_miss={e: rng.uniform(0, 1) for e in ("lp", "kl", "mmd", "skce")},
                app_b_rejection=list(rng.uniform(0, 1, size=3)),
                centre_share={"weights": rng.uniform(), "triangulation": rng.uniform(), "hit_and_run": rng.uniform()},
                table1={f"row {i}": {"mean_h0": rng.choice(["REJ.", "¬REJ."]), "lambda_h0": rng.choice(["REJ.", "¬REJ."]),
                                     "mean_acc": rng.uniform(), "lambda_acc": rng.uniform()} for i in range(6)})
            old = _old_cells(
                gap={(s, k): v for s, d in res["gap"].items() for k, v in d.items()},
                below={(s, k): v for s, d in res["below"].items() for k, v in d.items()},
                power=res["power"], skce_power=res["skce_power"], null_means=res["null_means"], null_se=res["null_se"],
                miss={e: {key: v} for e, v in res["landscape_miss"].items()},
                app_b={name: {"rejection rate at α = 0.05": v} for name, v in zip("abc", res["app_b_rejection"])},
                share=res["centre_share"], table=res["table1"], dataset=res["dataset"])
            assert compare(res).to_dict() == old.to_dict()

    def test_errors(self):
        with pytest.raises(TypeError, match="results"):
            compare(None)
        res = _results()
        del res["centre_share"]
        with pytest.raises(ValueError, match="centre_share"):
            compare(res)


def test_chapter_has_no_typed_paper_numbers():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells)
    for number in ("0.869", "0.873", "1.000", "0.990", "0.259", "0.262"):
        assert number not in source, number
    assert "compare(results)" in source
