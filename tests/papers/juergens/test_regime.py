"""Table 1 of Jürgens et al. in the over-confident regime: the same set as chapter 01's cells, tested as Table 1 is."""

import numpy as np
import pytest

from credalbook.data import load_dataset
from credalbook.metrics import accuracy, signed_calibration_error
from credalbook.papers.juergens import evaluate_instance_test, table1_regime_rows
from credalbook.papers.mortier.end_to_end import end_to_end_set

TRAIN = dict(n_members=2, epochs=1, n_train=200, channels=(4,), hidden=8)
TEST = dict(n_resamples=10, learner_options=dict(max_epochs=2), signed_resamples=50)


@pytest.fixture(scope="module")
def regime():
    return table1_regime_rows("digits", set_name="DN(0.1)", seed=1, **TRAIN, **TEST)


class TestTable1RegimeRows:
    def test_same_set_as_chapter_01(self, regime):
        """Its numbers, recomputed from chapter 01's end_to_end_set with the same arguments."""
        cs = end_to_end_set("digits", set_name="DN(0.1)", seed=1, **TRAIN)
        avg = cs.ens_probs_test.mean(axis=1)
        assert regime["accuracy"] == pytest.approx(float(accuracy(avg, cs.y_test)), abs=0)
        members = np.moveaxis(cs.ens_probs_test, 1, 0)
        assert regime["members_signed"] == [
            pytest.approx(float(signed_calibration_error(p, cs.y_test))) for p in members
        ]
        assert regime["members_acc"] == [float(accuracy(p, cs.y_test)) for p in members]
        est = signed_calibration_error(avg, cs.y_test, ci=0.95, n_resamples=50, seed=1)
        assert regime["signed"] == [est.value, est.low, est.high] and est.low <= est.value <= est.high
        assert (regime["n_cal"], regime["n_test"]) == (len(cs.y_cal), len(cs.y_test)) == (270, 269)
        assert regime["config"]["lambda_input"] == "flattened images" and regime["config"]["epochs"] == 1

    def test_rows_are_evaluate_instance_test(self, regime):
        """Each resampling's rows are those of evaluate_instance_test on the set, λ(x) reading the flattened images."""
        cs = end_to_end_set("digits", set_name="DN(0.1)", seed=1, **TRAIN)
        x = np.asarray(load_dataset("digits").x_test, dtype=np.float64)
        x = x.reshape(len(x), -1)
        assert sorted(regime["rows"]) == ["bootstrap", "permutation"]
        for resample, rows in regime["rows"].items():
            direct = evaluate_instance_test(
                cs, x[cs.idx_cal], x[cs.idx_test], n_resamples=10, alpha=0.01, seed=1, resample=resample,
                learner_options=dict(max_epochs=2, device="cpu"),
            )  # fmt: skip
            assert {f"DN(0.1) · {r.pop('estimator')}": r for r in direct} == rows
            for row in rows.values():
                assert 0 < row["mean_p"] <= 1 and row["mean_h0"] == ("REJ." if row["mean_p"] < 0.01 else "¬REJ.")

    def test_backbone_features(self, tmp_cache):
        """With ``backbone``, λ(x) reads that backbone's features of the images, as the frozen analogue does."""
        from credalbook.nn import backbone_features

        bb = dict(n_train=300, epochs=1, channels=(4,), hidden=8, seed=0)
        r = table1_regime_rows("digits", set_name="DE", backbone=bb, resamplings=("permutation",), **TRAIN, **TEST)
        cs = end_to_end_set("digits", set_name="DE", **TRAIN)
        f = backbone_features("digits", progress=False, device="cpu", **bb).features_test
        direct = evaluate_instance_test(
            cs, f[cs.idx_cal], f[cs.idx_test], n_resamples=10, alpha=0.01, seed=0,
            learner_options=dict(max_epochs=2, device="cpu"),
        )  # fmt: skip
        assert r["rows"]["permutation"] == {f"DE · {d.pop('estimator')}": d for d in direct}
        assert r["config"]["lambda_input"] == bb

    def test_errors(self):
        with pytest.raises(ValueError, match="set_name"):
            table1_regime_rows("digits", set_name="S", **TRAIN)
        with pytest.raises(ValueError, match="resamplings"):
            table1_regime_rows("digits", set_name="DE", resamplings=(), **TRAIN)
        with pytest.raises(ValueError, match="resamplings"):
            table1_regime_rows("digits", set_name="DE", resamplings=("jackknife",), **TRAIN)
