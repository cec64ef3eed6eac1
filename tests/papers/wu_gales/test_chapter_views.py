"""credalbook.papers.wu_gales.chapter_views: Fig. 2's numbers and the chapter's results, from planted studies."""

from types import SimpleNamespace as NS

import numpy as np
import pytest

from credalbook.papers.wu_gales import accuracy_gap_glues, chapter_results, fig2_view

TOPOS = ("LEN", "RSN")


def _combo(weighting, ensemble, weights, ece, gap=-0.01, se=0.002):
    summary = {"ece": ece, "confidence_gap": gap, "confidence_gap_se": se}
    return NS(topologies=TOPOS, weighting=weighting, structure="post", ensemble=ensemble,
              weights=np.array(weights), summary=summary)  # fmt: skip


def _ensembles():
    y = np.array([0, 1, 1, 0])
    strong = np.eye(2)[y] * 0.8 + 0.1  # every prediction right
    weak = np.eye(2)[[0, 0, 1, 1]] * 0.8 + 0.1  # half right
    return {"LEN": NS(probs_val=weak, y_val=y), "RSN": NS(probs_val=strong, y_val=y)}


class TestFig2View:
    def test_main(self):
        combos = [_combo("ml", None, [0.3, 0.7], 0.02), _combo("ml", "post", [0.3, 0.7], 0.01),
                  _combo("auc", None, [0.4, 0.6], 0.02)]  # fmt: skip
        view = fig2_view(combos, _ensembles(), list(TOPOS))
        assert view.combinations == combos[:2] and view.auc_ratio == pytest.approx(1.5)
        assert view.glues == {
            "strongest": "RSN", "ml_top": "RSN", "ml_spread": pytest.approx(0.4), "auc_spread": pytest.approx(0.2),
            "fig2_before": pytest.approx(2.0), "fig2_after": pytest.approx(1.0), "fig2_gap": pytest.approx(-1.0),
            "fig2_gap_se": pytest.approx(0.2),
        }  # fmt: skip
        assert view.labels[1] == "+ ensemble calibration (ECE 0.010)" and view.title.endswith("LEN, RSN")

    def test_missing_combination(self):
        with pytest.raises(ValueError, match="combos must hold"):
            fig2_view([_combo("ml", None, [0.3, 0.7], 0.02)], _ensembles(), TOPOS)


def test_chapter_results():
    ens = NS(y_val=np.zeros(5), y_test=np.zeros(7), n_members=3, n_parameters=100, config={"train": {"epochs": 4}})
    toy = NS(alg1_ace=0.07, alg1_ace_se=0.001, sizes={"alg1_samples": 100}, alg1_gap=0.01, alg1_gap_se=0.002,
             epsilons=[0.1], ensemble_ace=[0.0])  # fmt: skip
    plain = NS(plain=lambda *a: {"ece": 1.0}, topology="LEN")
    out = chapter_results(
        {"n_runs": 2, "subset": {"LEN": 3}}, ensembles={"LEN": ens}, toy=toy, alg1_spread={"labels": [0.07]},
        props={}, temps={}, fig1={}, studies={"LEN": plain}, singles=[plain], regions={}, combos=[plain], seed=5,
        dataset="fashion_mnist", regime={"pending": "x"},
    )  # fmt: skip
    assert out["setting"] == {"n_val": 5, "n_test": 7, "n_runs": 2, "subset": {"LEN": 3}, "members": {"LEN": 3},
                              "networks": {"LEN": {"parameters": 100, "epochs": 4}}}  # fmt: skip
    assert out["toys"]["alg1_ace"] == 0.07 and out["toys"]["seed"] == 5 and out["regime"] == {"pending": "x"}
    assert out["ensembles"] == out["singles"] == {"LEN": {"ece": 1.0}} and out["combinations"] == [{"ece": 1.0}]


def test_accuracy_gap_glues():
    acc = {"LEN": np.array([0.80, 0.82]), "RSN": np.array([0.90]), "DSN100": np.array([0.92])}
    paper = {t: {"none": {"accuracy": [a]}} for t, a in (("LEN", 42.0), ("RSN", 78.0), ("DSN100", 80.0))}
    g = accuracy_gap_glues(acc, paper)
    assert g["len_gap"] == pytest.approx(100 * (0.91 - 0.81)) and g["paper_len_gap"] == pytest.approx(37.0)
