"""Tests of the instance-dependent calibration test (Jürgens et al., Alg. 1) and its error-rate study."""

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.juergens import instance_test_error_rates
from credalbook.stats import exact_size, instance_calibration_test, split_indices
from credalbook.synthetic import instance_scenario

LEARNER = {"max_epochs": 40, "patience": 15, "lr": 3e-3}


class TestSplitIndices:
    def test_main(self):
        a, b, c = split_indices(100, (0.5, 0.3, 0.2), seed=1)
        assert (len(a), len(b), len(c)) == (50, 30, 20)
        assert len(np.unique(np.r_[a, b, c])) == 100

    def test_errors(self):
        with pytest.raises(ValueError, match="fractions"):
            split_indices(100, (0.5, 0.5))
        with pytest.raises(ValueError, match="fractions"):
            split_indices(100, (0.7, 0.2, 0.2))
        with pytest.raises(ValueError, match="too small"):
            split_indices(4, (0.5, 0.25, 0.25))
        for bad in (-1, 1.5, "a", True, [1, -1], object()):
            with pytest.raises(ValueError, match="seed"):
                split_indices(100, seed=bad)

    def test_same_permutation_as_numpy_default_rng(self):
        perm = np.random.default_rng(4).permutation(50)
        a, b, c = split_indices(50, (0.6, 0.2, 0.2), seed=4)
        for got, part in zip((a, b, c), (perm[:30], perm[30:40], perm[40:])):
            np.testing.assert_array_equal(got, np.sort(part))
        for got, want in zip(split_indices(50, seed=np.random.default_rng(4)), (a, b, c)):  # a Generator too
            np.testing.assert_array_equal(got, want)


class TestInstanceCalibrationTest:
    def test_main(self):
        sc = instance_scenario("binary", "H0-inst", n_datasets=1, n_instances=1000, seed=0)
        res = instance_calibration_test(
            sc.features[0], sc.ens_probs[0], sc.labels[0], measure="kl", n_resamples=99, learner_options=LEARNER, seed=0
        )
        assert res.weights.shape == (200, 2) and np.allclose(res.weights.sum(1), 1)
        assert res.combined_probs.shape == (200, 2)
        np.testing.assert_allclose(
            res.combined_probs, np.einsum("nmk,nm->nk", sc.ens_probs[0][res.test_indices], res.weights)
        )
        assert res.pvalue == pytest.approx((1 + (res.null_distribution >= res.statistic).sum()) / 100)
        assert res.rejected == res.decision(0.05)
        # the learned λ(x) applies to new features
        assert res.weight_function.weights(np.linspace(0, 5, 7)).shape == (7, 2)

    def test_resample_bootstrap_is_the_authors_null(self):
        """``resample="bootstrap"``: the null replicates of the combined predictor drawn with its instances resampled
        with replacement; the default keeps the instances; the statistic is the same."""
        sc = instance_scenario("binary", "H0-const", n_datasets=1, n_instances=400, seed=2)
        args = (sc.features[0], sc.ens_probs[0], sc.labels[0])
        kw = dict(measure="lp", n_resamples=30, learner_options={"max_epochs": 3}, seed=0, chunk_size=None)
        default = instance_calibration_test(*args, **kw)
        perm = instance_calibration_test(*args, resample="permutation", **kw)
        boot = instance_calibration_test(*args, resample="bootstrap", **kw)
        np.testing.assert_array_equal(default.null_distribution, perm.null_distribution)
        assert boot.statistic == perm.statistic and boot.details["resample"] == "bootstrap"
        assert not np.array_equal(boot.null_distribution, perm.null_distribution)

    def test_far_outside_is_rejected(self):
        sc = instance_scenario("binary", "H1-3", n_datasets=1, n_instances=1500, seed=1)
        res = instance_calibration_test(
            sc.features[0], sc.ens_probs[0], sc.labels[0], measure="kl", n_resamples=99, learner_options=LEARNER, seed=0
        )
        assert res.rejected and res.pvalue <= 0.02

    def test_explicit_splits(self):
        sc = instance_scenario("binary", "H0-const", n_datasets=1, n_instances=300, seed=2)
        splits = (np.arange(0, 150), np.arange(150, 200), np.arange(200, 300))
        res = instance_calibration_test(
            sc.features[0],
            sc.ens_probs[0],
            sc.labels[0],
            measure="brier",
            splits=splits,
            n_resamples=20,
            learner_options={"max_epochs": 2},
            seed=0,
        )
        np.testing.assert_array_equal(res.test_indices, splits[2])

    def test_old_keywords(self):
        """estimator -> measure, estimator_options -> measure_options, n_bootstrap -> n_resamples: same result."""
        sc = instance_scenario("binary", "H0-const", n_datasets=1, n_instances=200, seed=3)
        args = (sc.features[0], sc.ens_probs[0], sc.labels[0])
        kw = dict(learner_options={"max_epochs": 2}, seed=0)
        new = instance_calibration_test(*args, measure="kl", measure_options={"bandwidth": 0.1}, n_resamples=20, **kw)
        with pytest.warns(FutureWarning) as caught:
            old = instance_calibration_test(
                *args, estimator="kl", estimator_options={"bandwidth": 0.1}, n_bootstrap=20, **kw
            )
        assert {str(w.message).split("'")[3] for w in caught} == {"measure", "measure_options", "n_resamples"}
        np.testing.assert_array_equal(old.null_distribution, new.null_distribution)
        assert (old.statistic, old.pvalue, old.rejected) == (new.statistic, new.pvalue, new.rejected)

    def test_errors(self):
        sc = instance_scenario("binary", "H0-const", n_datasets=1, n_instances=100, seed=3)
        x, ens, y = sc.features[0], sc.ens_probs[0], sc.labels[0]
        with pytest.raises(ValueError, match="measure"):
            instance_calibration_test(x, ens, y, measure="ece")
        with pytest.raises(TypeError, match="unexpected options"):
            instance_calibration_test(x, ens, y, fraction=(0.6, 0.2, 0.2))
        with pytest.raises(ValueError, match="same N"):
            instance_calibration_test(x[:50], ens, y)
        with pytest.raises(ValueError, match="ens_probs"):
            instance_calibration_test(x, ens[None], y)
        with pytest.raises(ValueError, match="splits"):
            instance_calibration_test(x, ens, y, splits=(np.arange(50), np.arange(40, 60), np.arange(60, 100)))
        with pytest.raises(ValueError, match="learner_options"):
            instance_calibration_test(x, ens, y, learner_options={"estimator": "lp"})
        with pytest.raises(ValueError, match="resample"):
            instance_calibration_test(x, ens, y, resample="jackknife")
        with pytest.raises(ValueError, match="labels"):
            instance_calibration_test(x, ens, y + 5, learner_options={"max_epochs": 1})
        # checked at the door, before the splits: a label -1 anywhere is named (not a torch RuntimeError)
        for i in (0, 50, 99):
            bad = y.copy()
            bad[i] = -1
            with pytest.raises(ValueError, match=rf"labels must lie in \[0, 2\); labels\[{i}\] = -1"):
                instance_calibration_test(x, ens, bad, learner_options={"max_epochs": 1})
        for bad in (y[:, None], y.astype(complex), y.astype(str), y + 0.5, None):
            with pytest.raises(ValueError, match="labels"):
                instance_calibration_test(x, ens, bad)
        for bad in (
            x.astype(complex),
            x.astype(str),
            None,
            np.where(np.arange(100) == 7, np.nan, x),
            np.zeros((100, 2, 2)),
        ):
            with pytest.raises(ValueError, match="features"):
                instance_calibration_test(bad, ens, y)
        for bad in (-1, 1.5, "a", True):
            with pytest.raises(ValueError, match="seed"):
                instance_calibration_test(x, ens, y, seed=bad)


class TestErrorRates:
    def test_type_one_error_within_band(self, tmp_cache):
        r = 60
        study = instance_test_error_rates(
            "binary",
            "H0-const",
            n_datasets=r,
            n_instances=1000,
            estimators=(("kl", {"bandwidth": 0.01}),),
            n_resamples=99,
            learner_options=LEARNER,
            progress=False,
            seed=0,
        )
        assert study.measures == ("KL-CE · new", "KL-CE · Mortier")
        rates = study.rejection_rates([0.05, 0.1, 0.2, 0.3])
        for a, new in zip((0.05, 0.1, 0.2, 0.3), rates[0]):
            hi = stats.binom.ppf(0.995, r, exact_size(a, 99)) / r
            assert new <= hi
        # Mortier's test minimises on the test data itself: conservative
        assert rates[1].mean() <= rates[0].mean() + 0.05
        assert study.error_rates([0.1])[0, 0] == rates[0, 1]  # H0: error = rejection rate

    def test_power(self, tmp_cache):
        study = instance_test_error_rates(
            "binary",
            "H1-3",
            n_datasets=10,
            n_instances=1000,
            estimators=(("kl", {}),),
            n_resamples=50,
            mortier=False,
            learner_options=LEARNER,
            progress=False,
            seed=0,
        )
        assert study.measures == ("KL-CE · new",)
        assert study.error_rates([0.05])[0, 0] <= 0.2  # H1: error = 1 − power

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="setting"):
            instance_test_error_rates("ternary", "H0-const")
        with pytest.raises(ValueError, match="estimators"):
            instance_test_error_rates("binary", "H0-const", estimators=(("ece", {}),))
        with pytest.raises(ValueError, match="mortier_solver"):
            instance_test_error_rates("binary", "H0-const", mortier_solver="newton")


def test_cobyla_powell_terminates_on_underflowing_objective():
    """Regression: SKCE with bandwidth 1e-4 at K = 10 gives values ~1e-236, on which NLopt's COBYLA used to hang."""
    from credalbook.stats import estimator_measure, minimise_calibration_measure

    seqs = np.random.SeedSequence(0).spawn(2)
    sc = instance_scenario("multiclass", "H0-const", n_datasets=3, n_instances=300, seed=np.random.default_rng(seqs[0]))
    _, _, test = split_indices(300, seed=np.random.default_rng(seqs[1]))
    res = minimise_calibration_measure(
        sc.ens_probs[1, test],
        sc.labels[1, test],
        measure=estimator_measure("skce", bandwidth=1e-4),
        solver="cobyla_powell",
    )
    assert res.n_evaluations <= 1000 and abs(res.value) < 1e-50
