"""Tests of evaluate_instance_test (the Table 1 rows of Jürgens et al.)."""

from types import SimpleNamespace

import pytest

from credalbook.papers.juergens import evaluate_instance_test
from credalbook.synthetic import instance_scenario


def _set(n=600, seed=0):
    sc = instance_scenario("binary", "H1-3", n_datasets=1, n_instances=n, seed=seed)
    half = n // 2
    cs = SimpleNamespace(
        ens_probs_cal=sc.ens_probs[0, :half],
        y_cal=sc.labels[0, :half],
        ens_probs_test=sc.ens_probs[0, half:],
        y_test=sc.labels[0, half:],
    )
    return cs, sc.features[0, :half], sc.features[0, half:]


class TestEvaluateInstanceTest:
    def test_main(self):
        cs, fc, ft = _set()
        rows = evaluate_instance_test(
            cs, fc, ft, estimators=("kl",), n_test=200, n_resamples=50, learner_options={"max_epochs": 20}, seed=0
        )
        assert len(rows) == 1 and rows[0]["estimator"] == "KL-CE"
        row = rows[0]
        assert set(row) == {
            "estimator",
            "mean_acc",
            "mean_h0",
            "mean_p",
            "mean_ce",
            "lambda_acc",
            "lambda_h0",
            "lambda_p",
            "lambda_ce",
        }
        # the truth is far outside the hull of the two members: both are rejected
        assert row["mean_h0"] == "REJ." and row["lambda_h0"] == "REJ."
        assert 0 < row["mean_p"] <= 1 and 0 <= row["mean_acc"] <= 1

    def test_errors(self):
        cs, fc, ft = _set(100)
        with pytest.raises(ValueError, match="features_cal"):
            evaluate_instance_test(cs, fc[:10], ft)
        with pytest.raises(ValueError, match="n_test"):
            evaluate_instance_test(cs, fc, ft, n_test=1)


class TestResample:
    @pytest.mark.parametrize("resample", ["permutation", "bootstrap"])
    def test_mean_predictor_is_the_direct_test(self, resample):
        """The mean predictor's row is the consistency-resampling test with the same ``resample``."""
        from credalbook.stats import bootstrap_calibration_test, estimator_measure

        cs, fc, ft = _set(400, seed=3)
        opts = dict(estimators=("lp",), n_test=None, n_resamples=40, learner_options={"max_epochs": 3}, seed=0)
        row = evaluate_instance_test(cs, fc, ft, resample=resample, **opts)[0]
        direct = bootstrap_calibration_test(
            cs.ens_probs_test.mean(axis=1),
            cs.y_test,
            measure=estimator_measure("lp"),
            n_resamples=40,
            alpha=0.01,
            resample=resample,
            seed=0,
            chunk_size=None,
        )
        assert row["mean_p"] == direct.pvalue and row["mean_ce"] == direct.statistic

    def test_default_is_permutation(self):
        cs, fc, ft = _set(300, seed=1)
        opts = dict(estimators=("lp",), n_test=None, n_resamples=20, learner_options={"max_epochs": 2}, seed=0)
        assert evaluate_instance_test(cs, fc, ft, **opts) == evaluate_instance_test(
            cs, fc, ft, resample="permutation", **opts
        )

    def test_errors(self):
        cs, fc, ft = _set(100)
        with pytest.raises(ValueError, match="resample"):
            evaluate_instance_test(cs, fc, ft, resample="jackknife")
