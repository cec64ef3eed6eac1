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

    def test_prob_floor_rows_are_evaluate_instance_test_on_floored_set(self):
        """``prob_floor``: the same trained set, every member's probabilities floored, then the same tests."""
        import dataclasses

        from credalbook.papers.juergens import floored

        r = table1_regime_rows("digits", set_name="DN(0.1)", seed=1, resamplings=("permutation",), prob_floor=0.08,
                               **TRAIN, **TEST)  # fmt: skip
        cs = end_to_end_set("digits", set_name="DN(0.1)", seed=1, **TRAIN)
        fl = dataclasses.replace(
            cs, ens_probs_cal=floored(cs.ens_probs_cal, 0.08), ens_probs_test=floored(cs.ens_probs_test, 0.08)
        )
        x = np.asarray(load_dataset("digits").x_test, dtype=np.float64)
        x = x.reshape(len(x), -1)
        direct = evaluate_instance_test(
            fl, x[cs.idx_cal], x[cs.idx_test], n_resamples=10, alpha=0.01, seed=1,
            learner_options=dict(max_epochs=2, device="cpu"),
        )  # fmt: skip
        assert r["rows"]["permutation"] == {f"DN(0.1) · {d.pop('estimator')}": d for d in direct}
        # one epoch leaves the networks near uniform: a floor of 0.08 (K = 10) moves some entries
        assert r["config"]["prob_floor"] == 0.08 and cs.ens_probs_test.min() < 0.08 <= fl.ens_probs_test.max()
        assert not np.array_equal(fl.ens_probs_test, cs.ens_probs_test)
        avg = fl.ens_probs_test.mean(axis=1)
        assert r["accuracy"] == float(accuracy(avg, cs.y_test))
        with pytest.raises(ValueError, match="prob_floor"):
            table1_regime_rows("digits", set_name="DE", prob_floor=0.2, **TRAIN, **TEST)

    def test_errors(self):
        with pytest.raises(ValueError, match="set_name"):
            table1_regime_rows("digits", set_name="S", **TRAIN)
        with pytest.raises(ValueError, match="resamplings"):
            table1_regime_rows("digits", set_name="DE", resamplings=(), **TRAIN)
        with pytest.raises(ValueError, match="resamplings"):
            table1_regime_rows("digits", set_name="DE", resamplings=("jackknife",), **TRAIN)


class TestFloored:
    def test_closed_form(self):
        from credalbook.papers.juergens import floored

        out = floored([[0.999, 0.001, 0.0], [0.5, 0.3, 0.2]], 0.01)
        np.testing.assert_allclose(out[0], np.array([0.999, 0.01, 0.01]) / 1.019)
        np.testing.assert_array_equal(out[1], [0.5, 0.3, 0.2])  # already above the floor: unchanged
        np.testing.assert_allclose(out.sum(axis=-1), 1.0)

    def test_batched_rows_and_bound(self):
        from credalbook.papers.juergens import floored

        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(10) * 0.05, size=(50, 5))  # many entries near 0
        out = floored(p, 1e-3)
        assert out.shape == p.shape and (out >= 1e-3 / (1 + 10 * 1e-3)).all()
        np.testing.assert_allclose(out.sum(axis=-1), 1.0)

    @pytest.mark.parametrize("floor", [0.0, -0.1, 0.5, True, "0.01"])
    def test_bad_floor(self, floor):
        from credalbook.papers.juergens import floored

        with pytest.raises(ValueError, match="prob_floor"):
            floored([[0.7, 0.2, 0.1]], floor)

    def test_bad_probs(self):
        from credalbook.papers.juergens import floored

        with pytest.raises(ValueError, match="probs must have shape"):
            floored([0.5], 0.1)

    def test_regime_tables_floor_and_mixed(self):
        from credalbook.papers.juergens import regime_tables

        row = {"mean_p": 0.2, "lambda_p": 0.5, "mean_acc": 0.9, "lambda_acc": 0.91}

        def value(seed, floor):
            config = {"dataset": "digits", "seed": seed, "set_name": "DE", "epochs": 3, "n_train": 500}
            if floor is not None:
                config["prob_floor"] = floor
            return {"rows": {"permutation": {"DE · L2-CE": row}}, "signed": [0.03, 0.01, 0.05],
                    "members_signed": [0.04], "accuracy": 0.9, "n_test": 100, "config": config}  # fmt: skip

        assert regime_tables({"a": value(0, None)})["prob_floor"] is None
        assert regime_tables({"a": value(0, 1e-3), "b": value(1, 1e-3)})["prob_floor"] == 1e-3
        with pytest.raises(ValueError, match="mix probability floors"):
            regime_tables({"a": value(0, 1e-3), "b": value(1, None)})
