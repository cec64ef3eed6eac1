"""Tests for credalbook.papers.wu_gales.compare and the paper's numbers in papers/wu_gales/reported.json."""

import json
from pathlib import Path

import numpy as np
import pytest

from credalbook.papers.report import Comparison, reported
from credalbook.papers.wu_gales import compare, WG_PAPER_COMBINATION, WG_PAPER_TABLE1, WG_PAPER_TOYS

CHAPTER = Path(__file__).resolve().parents[3] / "chapters" / "04_wu_gales_ensemble_calibration.ipynb"
TOPOS = ("LEN", "DSN100", "DSN121", "RSN")


def _results(**changes):
    """A small hand-made results dict: three topologies agree with the paper, LeNet is the odd one."""
    props = {t: dict(min_confidence_gap=0.0, region_ensemble_confidence=np.array([0.5, 0.7]),
                     region_member_confidence=np.array([0.6, 0.7]), ensemble_gap=-0.01, prop2_error=1e-15,
                     prop4=dict(member_confidence_change=0.0, ensemble_label_changed=False))
             for t in TOPOS}
    fig1 = {t: {"members' optimal t (mean)": 1.5, "ensemble's optimal t": 1.2, "its confidence − accuracy": -0.02,
                "ensemble accuracy range over t ∈ [1/2, 2]": 0.01} for t in TOPOS[1:]}
    ece = {t: dict(none=0.05, pre=0.03, post=0.02, dyn=0.01) for t in TOPOS}
    combos = []
    for s in (TOPOS, TOPOS[1:], TOPOS[2:]):
        for w in ("ml", "auc"):
            weights = np.array([0.1, 0.2, 0.3, 0.4][-len(s):]) if w == "ml" else np.full(len(s), 1 / len(s))
            combos += [dict(topologies=s, weighting=w, structure="post", ensemble=e, ece=0.02 if e is None else 0.01,
                            weights=weights) for e in (None, "post")]
    for s, base in ((TOPOS, 0.04), (TOPOS[1:], 0.03)):
        combos += [dict(topologies=s, weighting="uniform", structure=None, ensemble=e, ece=v, weights=np.full(len(s), 1 / len(s)))
                   for e, v in ((None, base), ("post", 0.012), ("dyn", 0.011))]
    out = dict(dataset="cifar100", networks="paper",
               example1=dict(tau=0.05, ace=0.0, ece=0.05 / 3),
               toys=dict(alg1_ace=0.0700, alg1_samples=1_000_000, member_ace=np.zeros(3),
                         ensemble_ace=np.array([0.07, 0.01, 0.0]), ensemble_ece=np.array([0.2, 0.1, 0.05]),
                         alg2_sample_ace=0.0, alg2_true_ace=0.28),
               propositions=props, fig1=fig1,
               ensemble=dict(ece=ece, accuracy={t: 0.8 for t in TOPOS}, accuracy_kept=True, ece_floor=(0.5, 0.1)),
               single={t: dict(ece_none=0.05, ece_ts=0.02, accuracy=0.8 if t != "LEN" else 0.7) for t in TOPOS},
               fig3=dict(ece_one_region=0.012, ece_most_regions=0.010),
               topologies=TOPOS, validation_accuracy=dict(LEN=0.7, DSN100=0.8, DSN121=0.81, RSN=0.82),
               combinations=combos)
    out.update(changes)
    return out


def _row(cmp, artifact, start):
    rows = [r for r in cmp.rows if r.artifact == artifact and r.quantity.startswith(start)]
    assert len(rows) == 1, (artifact, start, rows)
    return rows[0]


class TestReportedJson:
    def test_main(self):
        paper = reported("wu_gales")
        assert "2101.05397" in paper["_paper"]
        for key, entry in paper.items():
            if key.startswith("_"):
                continue
            assert isinstance(entry.get("source"), str) and entry["source"], key
            if key in ("findings", "claims"):
                for name, claim in entry.items():
                    if name != "source":
                        assert claim["source"] and claim["claim"], name
        t1 = paper["table1"]
        assert t1["rows"]["RSN"]["dyn"]["ece"] == [1.20, 0.41] and t1["rows"]["LEN"]["none"]["accuracy"] == [49.20, None]
        assert paper["table3"]["rows"]["DSN121"]["90"]["accuracy"] == 78.87
        assert paper["table7"]["rows"][0]["ece"] == 0.0334 and paper["alg1"]["ensemble_ace"] == 0.0697
        # the constants are built from the file: Table 1 matches, Table 7 is converted to 1e-2
        assert WG_PAPER_TABLE1["LEN"]["none"]["accuracy"][0] == 49.2 and np.isnan(WG_PAPER_TABLE1["LEN"]["none"]["accuracy"][1])
        assert WG_PAPER_TOYS["alg2_theoretical_ace"] == 9 / 32 and len(WG_PAPER_COMBINATION) == 40

    def test_errors(self):
        with pytest.raises(ValueError, match="paper must be one of"):
            reported("wu")


class TestCompare:
    def test_main(self):
        cmp = compare(_results())
        assert isinstance(cmp, Comparison) and cmp.chapter == "04_wu_gales_ensemble_calibration" and len(cmp.rows) == 27
        r = cmp.rows[0]
        assert r.paper == "0, τ/3 = 0.0167" and r.book == "0, 0.0167" and r.agrees
        r = cmp.rows[1]
        assert r.paper == 0.0697 and r.book == 0.07 and r.agrees and r.note == "N = 1,000,000 (paper 10⁶)"
        assert cmp.rows[3].paper == "0 vs 9/32 = 0.2812" and cmp.rows[3].book == "0 vs 0.2800" and cmp.rows[3].agrees
        assert _row(cmp, "Prop. 1", "calibrated").book == "LEN -0.010, DSN100 -0.010, DSN121 -0.010, RSN -0.010"
        assert _row(cmp, "Fig. 1", "ensemble's optimal").paper == "all three"
        assert _row(cmp, "Fig. 1", "ensemble's optimal").book == "3 of 3"
        # the paper's Table 1 counts
        assert _row(cmp, "Table 1 (CIFAR-100)", "pre, post").paper == "3 of 4"
        assert _row(cmp, "Table 1 (CIFAR-100)", "post or dyn.").paper == "4 of 4"
        assert _row(cmp, "Table 1 (CIFAR-100)", "dyn. has").paper == "2 of 4"
        r = _row(cmp, "Table 1 (CIFAR-100)", "RSN: ECE")
        assert r.paper == "3.22 → 1.2; 83.45" and r.book == "5.00 → 1.00; 80.00" and r.agrees
        r = _row(cmp, "Table 3 (CIFAR-100)", "single-model accuracy")
        assert r.paper == "42.12 vs 80.06" and r.book == "70.0 vs 80.0" and r.agrees
        assert _row(cmp, "Fig. 3", "more regions").paper == "tends to improve"
        # Tables 2, 6, 7: the paper's side
        r = _row(cmp, "Table 2", "Max-LL")
        assert r.paper == "RSN 0.49, LEN 0.02" and r.book == "LEN 0.10, DSN100 0.20, DSN121 0.30, RSN 0.40" and r.agrees
        r = _row(cmp, "Table 6", "AUC")
        assert r.paper == "0.07 vs 0.47" and r.book == "0.00 vs 0.30" and r.agrees
        r = _row(cmp, "Table 2 / Fig. 2", "ensemble calibration")
        assert r.paper == "all 3 sets" and r.book == "3 of 3 sets" and r.agrees
        r = _row(cmp, "Table 7", "dyn.")
        assert r.paper == "2 of 2" and r.book == "2 of 2" and r.agrees
        r = _row(cmp, "Table 7", "adding LeNet")
        assert r.paper == "15.51 vs 3.34" and r.book == "4.00 vs 3.00" and r.agrees and r.note == ""
        assert cmp.n_agree == 27

    def test_disagreements(self):
        res = _results(dataset="fashion_mnist", networks="quick",
                       toys=dict(_results()["toys"], alg1_ace=0.08),
                       validation_accuracy=dict(LEN=0.9, DSN100=0.8, DSN121=0.81, RSN=0.82),
                       single={t: dict(ece_none=0.05, ece_ts=0.02, accuracy=0.8) for t in TOPOS})
        res["combinations"] = [dict(c, ece=0.01) if (c["weighting"], c["ensemble"]) == ("uniform", None) else c
                               for c in res["combinations"]]
        cmp = compare(res)
        r = cmp.rows[1]
        assert r.paper == 0.0697 and r.book == 0.08 and not r.agrees
        assert not _row(cmp, "Table 2", "Max-LL").agrees  # LEN is the most accurate, RSN gets the largest weight
        r = _row(cmp, "Table 4 (CIFAR-10)", "single-model accuracy")
        assert r.paper == "75.31 vs 95.53" and not r.agrees and r.note == "fashion_mnist: LeNet is not clearly weaker on this data"
        r = _row(cmp, "Table 5 (CIFAR-10)", "LEN: ECE")
        assert r.paper == "9.18 → 1.29; 80.11" and r.note == "fashion_mnist, quick networks"
        r = _row(cmp, "Table 7", "adding LeNet")
        assert not r.agrees and r.note.startswith("on CIFAR-100 LeNet is far weaker")
        assert cmp.n_agree == 23  # the four rows above

    def test_errors(self):
        with pytest.raises(ValueError, match="missing the keys"):
            compare({"dataset": "cifar100"})


class TestChapter:
    def test_no_typed_paper_numbers(self):
        nb = json.loads(CHAPTER.read_text())
        source = "\n".join("".join(c["source"]) for c in nb["cells"])
        for number in ("0.0697", "9/32", "0.2812", "0.0167", "15.51", "3.34", "0.49", "0.02", "0.07 vs 0.47", "all three",
                       "2 of 2", "all 3 sets", "WG_PAPER_TOYS"):
            assert number not in source, number
        assert "compare(results)" in source
