"""Table 1 end to end (Mortier et al. 2023): networks trained from their own initialisations, both test variants."""

import numpy as np
import pytest

from credalbook.papers.mortier import end_to_end_set, table1_cell, table1_cell_results, TEST_VARIANTS
from credalbook.stats import set_calibration_test

SMALL = dict(epochs=1, channels=(4,), hidden=8, n_train=200)


class TestEndToEndSet:
    def test_main(self):
        de = end_to_end_set("digits", set_name="DE", n_members=3, **SMALL)
        s = end_to_end_set("digits", set_name="S", n_members=3, **SMALL)
        assert de.ens_probs_cal.shape == (270, 3, 10) and s.ens_probs_cal.shape == (270, 1, 10)
        np.testing.assert_allclose(de.ens_probs_test.sum(axis=-1), 1.0)
        # every member has its own initialisation: no two members, and not S, predict alike
        p = de.ens_probs_test
        assert min(np.abs(p[:, i] - p[:, j]).max() for i in range(3) for j in range(i)) > 1e-3
        assert np.abs(p[:, 0] - s.ens_probs_test[:, 0]).max() > 1e-3
        # the calibration/test division is the paper's (seed 2022, stratified, 50/50) and disjoint
        assert not set(de.idx_cal) & set(de.idx_test) and len(de.idx_cal) + len(de.idx_test) == 539
        # repeatable
        again = end_to_end_set("digits", set_name="DE", n_members=3, **SMALL)
        np.testing.assert_array_equal(again.ens_probs_test, de.ens_probs_test)

    def test_dropout_passes_differ(self):
        dn = end_to_end_set("digits", set_name="DN(0.6)", n_members=4, **SMALL)
        assert np.abs(dn.ens_probs_test[:, 0] - dn.ens_probs_test[:, 1]).max() > 1e-3

    def test_early_stopping_keeps_the_best_epoch_of_the_same_trajectory(self):
        # each network stops on its validation loss and keeps its best epoch's weights: its predictions are those
        # of the same network trained for exactly that many epochs without validation (same images, seeds, batches)
        opts = dict(n_members=2, lr=0.005, channels=(4,), hidden=8, n_train=100)
        stopped = end_to_end_set("digits", set_name="DE", epochs=40, patience=3, n_val=200, **opts)
        best = stopped.config["best_epochs"]
        assert stopped.config["patience"] == 3 and stopped.config["n_val"] == 200 and len(best) == 2
        assert min(best) < 40 and best[0] != best[1]  # stopped, each network at its own epoch
        for m, b in enumerate(best):
            plain = end_to_end_set("digits", set_name="DE", epochs=b, **opts)
            np.testing.assert_array_equal(stopped.ens_probs_test[:, m], plain.ens_probs_test[:, m])
            np.testing.assert_array_equal(stopped.ens_probs_cal[:, m], plain.ens_probs_cal[:, m])
        # without a number, the validation images are as many as the training images (at most those left)
        assert end_to_end_set("digits", set_name="S", epochs=1, patience=1, **opts).config["n_val"] == 100
        left = 1258 - 1200  # digits' training images not drawn for training
        big = dict(opts, n_train=1200)
        assert end_to_end_set("digits", set_name="S", epochs=1, patience=1, **big).config["n_val"] == left

    def test_errors(self):
        with pytest.raises(ValueError, match="patience"):
            end_to_end_set("digits", set_name="DE", **{**SMALL, "n_train": None}, patience=2)
        with pytest.raises(ValueError, match="n_val needs patience"):
            end_to_end_set("digits", set_name="DE", n_val=10, **SMALL)
        with pytest.raises(ValueError, match="n_val must be at most"):
            end_to_end_set("digits", set_name="DE", patience=2, n_val=5000, **SMALL)
        with pytest.raises(ValueError, match="patience"):
            end_to_end_set("digits", set_name="DE", patience=0, **SMALL)
        with pytest.raises(ValueError, match="set_name"):
            end_to_end_set("digits", set_name="DN(0.3)", **SMALL)
        with pytest.raises(ValueError, match="n_members"):
            end_to_end_set("digits", set_name="DE", n_members=0, **SMALL)


class TestTable1Cell:
    def test_main(self):
        kw = dict(n_members=3, n_resamples=20, solver="search", ece_resamples=30, **SMALL)
        cells = {
            "digits": {"0": {k: table1_cell("digits", set_name=k, **kw) for k in ("S", "DN(0.1)", "DN(0.6)", "DE")}}
        }
        de = cells["digits"]["0"]["DE"]
        assert set(de.tests) == set(TEST_VARIANTS) and de.n_cal == 270 and de.n_test == 269
        # the authors' variant is set_calibration_test with Dir(1/M) null weights, permutation and |t| > q
        cs = end_to_end_set("digits", set_name="DE", n_members=3, **SMALL)
        res = set_calibration_test(cs.ens_probs_cal, cs.y_cal, measure="ece_confidence", n_bins=5, n_resamples=20,
                                   solver="search", seed=2022, chunk_size=None, weight_prior="sparse",
                                   resample="permutation", rule="abs")  # fmt: skip
        assert de.tests["authors"]["p_conf"] == pytest.approx(res.pvalue)
        assert de.tests["authors"]["weights_conf"] == pytest.approx(list(res.weights))
        # the fixed bootstrap resamples: same instances in every cell, so a difference has a paired SE
        rows = table1_cell_results(cells)
        assert len(rows) == 1 and set(rows[0]["de"]) == set(TEST_VARIANTS)
        dn6, dn1 = cells["digits"]["0"]["DN(0.6)"], cells["digits"]["0"]["DN(0.1)"]
        d = np.array(dn6.boot_ece["average"]) - np.array(dn1.boot_ece["average"])
        assert rows[0]["dn"] == pytest.approx(
            [dn6.average["avg_ece_conf"] - dn1.average["avg_ece_conf"], d.std(ddof=1)]
        )
        assert de.decision("paper", "cwise") in ("REJ.", "¬REJ.")
        with pytest.raises(ValueError, match="variant"):
            de.decision("ours", "conf")


class TestTable1RegimeCell:
    def test_main(self):
        from credalbook.metrics import ece_split
        from credalbook.papers.mortier import table1_regime_cell

        kw = dict(n_members=3, n_resamples=10, solver="search", ece_resamples=20, **SMALL)
        r = table1_regime_cell("digits", set_name="DE", **kw)
        # the cell is table1_cell's for the same arguments, decisions and all
        plain = table1_cell("digits", set_name="DE", **kw)
        assert r.cell.tests == plain.tests and r.cell.average == plain.average and r.cell.members == plain.members
        # the signed errors, recomputed from the trained set: confidence − accuracy, and over − under of the ECE split
        cs = end_to_end_set("digits", set_name="DE", n_members=3, **SMALL)
        avg, y = cs.ens_probs_test.mean(axis=1), cs.y_test
        direct = avg.max(axis=1).mean() - (avg.argmax(axis=1) == y).mean()
        assert r.signed["average"] == pytest.approx(direct, abs=1e-12)
        split = ece_split(avg, y, n_bins=7)
        assert r.signed["average"] == pytest.approx(split.over - split.under, abs=1e-12)
        member1 = cs.ens_probs_test[:, 1]
        assert r.signed["members"][1] == pytest.approx(
            member1.max(axis=1).mean() - (member1.argmax(axis=1) == y).mean(), abs=1e-12
        )
        # the bootstrap replicates are the cell's fixed resamples (seed 2022), as its ECE replicates
        idx = np.random.default_rng(2022).integers(0, len(y), size=(20, len(y)))
        i = idx[3]
        assert r.signed["boot_average"][3] == pytest.approx(
            avg[i].max(axis=1).mean() - (avg[i].argmax(axis=1) == y[i]).mean(), abs=1e-12
        )
        rows = table1_cell_results({"digits": {"0": {k: r for k in ("S", "DN(0.1)", "DN(0.6)", "DE")}}})
        s = rows[0]["sets"]["S"]
        assert s["signed"] == pytest.approx([r.signed["average"], np.std(r.signed["boot_average"], ddof=1)])
        assert rows[0]["s_minus_de"][0] == 0.0

    def test_errors(self):
        from credalbook.papers.mortier import table1_regime_cell

        with pytest.raises(TypeError, match="n_member"):
            table1_regime_cell("digits", set_name="S", n_member=3, **SMALL)
        with pytest.raises(ValueError, match="set_name"):
            table1_regime_cell("digits", set_name="DN(0.3)", **SMALL)
