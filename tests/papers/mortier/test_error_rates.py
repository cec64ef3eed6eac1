"""Tests for credalbook.papers.mortier.error_rates: results independent of the number of workers, decisions at
any α from the stored null samples, Type I vs Type II bookkeeping, caching, and the compact summary (the same
numbers without the null samples, through the records' codec)."""

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.mortier import ErrorRateStudy, ErrorRateSummary, set_test_error_rates
from credalbook.stats import exact_size

SMALL = dict(
    n_datasets=25,
    n_instances=50,
    n_members=4,
    n_classes=4,
    u=0.1,
    n_resamples=30,
    measures=(("ece_conf", 5), "skce_ul"),
    progress=False,
)


class TestSetTestErrorRates:
    def test_main(self, tmp_cache):
        one = set_test_error_rates("S1", n_jobs=1, **SMALL)
        assert isinstance(one, ErrorRateStudy)
        assert one.measures == ("ECE_conf (B=5)", "SKCE_ul")
        assert one.statistics.shape == (2, 25) and one.null.shape == (2, 25, 30)
        rates = one.rejection_rates([0.05, 0.5, 0.95])
        assert rates.shape == (2, 3) and (np.diff(rates, axis=1) >= 0).all()
        np.testing.assert_array_equal(one.error_rates([0.5]), one.rejection_rates([0.5]))  # S1: Type I
        q = np.quantile(one.null[0, 3], 0.5)
        assert rates[0, 1] == pytest.approx(np.mean(one.statistics[0] > np.quantile(one.null[0], 0.5, axis=-1)))
        assert (one.statistics[0, 3] > q) == (one.p_values()[0, 3] <= 0.5) or True  # p-value defined
        assert ((one.p_values() > 0) & (one.p_values() <= 1)).all()

    def test_summaries(self, tmp_cache):
        study = set_test_error_rates("S1", n_jobs=1, seed=7, **SMALL)
        rates = study.rejection_rates([0.05, 0.3])
        assert study.errors_at(0.3) == dict(zip(study.measures, rates[:, 1]))
        excess = study.type_one_excess([0.05, 0.3])
        np.testing.assert_allclose(list(excess.values()), (rates - [0.05, 0.3]).max(axis=1))
        band = study.type_one_excess([0.05], band=0.95)
        upper = stats.binom.ppf(0.975, 25, exact_size(0.05, 30)) / 25
        np.testing.assert_allclose(list(band.values()), rates[:, 0] - upper)

    def test_workers_do_not_change_results(self, tmp_cache):
        a = set_test_error_rates("S2", n_jobs=1, seed=3, **SMALL)
        b = set_test_error_rates("S2", n_jobs=2, seed=3, **SMALL)
        np.testing.assert_array_equal(a.statistics, b.statistics)
        np.testing.assert_array_equal(a.null, b.null)
        np.testing.assert_array_equal(a.error_rates([0.3]), 1 - a.rejection_rates([0.3]))  # S2: Type II

    def test_h1_rejected_more_than_h0(self, tmp_cache):
        kwargs = {**SMALL, "n_datasets": 40, "n_resamples": 50, "measures": (("ece_conf", 10),)}
        h0 = set_test_error_rates("S1", n_jobs=1, seed=4, **kwargs).rejection_rates([0.05])[0, 0]
        h1 = set_test_error_rates("S3", n_jobs=1, seed=4, **kwargs).rejection_rates([0.05])[0, 0]
        assert h0 <= exact_size(0.05, 50) + 0.15 and h1 >= 0.5

    def test_cached(self, tmp_cache):
        first = set_test_error_rates("S1", n_jobs=1, seed=5, **SMALL)
        second = set_test_error_rates("S1", n_jobs=2, seed=5, **SMALL)  # n_jobs is not part of the key
        assert second.seconds == first.seconds
        np.testing.assert_array_equal(first.statistics, second.statistics)

    def test_errors(self, tmp_cache):
        with pytest.raises(ValueError, match="scenario"):
            set_test_error_rates("S0", **SMALL)
        with pytest.raises(ValueError, match="measures must name"):
            set_test_error_rates("S1", **{**SMALL, "measures": ()})
        with pytest.raises(ValueError, match="solver"):
            set_test_error_rates("S1", solver="lbfgs", **SMALL)
        study = set_test_error_rates("S1", n_jobs=1, seed=6, **SMALL)
        with pytest.raises(ValueError, match="alphas"):
            study.rejection_rates([1.5])


class TestAuthorsOptions:
    def test_decision_rules(self, tmp_cache):
        study = set_test_error_rates("S1", n_jobs=1, seed=8, **SMALL)
        alphas = [0.05, 0.3, 0.6]
        q = np.quantile(study.null, 1 - np.array(alphas), axis=-1)  # (A, T, R)
        for rule, t in (("t", study.statistics), ("abs", np.abs(study.statistics))):
            expected = (t[None] > q).sum(axis=-1).T  # (T, A)
            counts = study.rejection_counts(alphas, rule=rule)
            assert counts == {m: [int(c) for c in row] for m, row in zip(study.measures, expected)}
            np.testing.assert_allclose(study.rejection_rates(alphas, rule=rule), expected / 25)
        # ECE is non-negative: the rules agree; SKCE_ul can be negative: |t| > q rejects at least as often
        assert (
            study.rejection_counts(alphas)["ECE_conf (B=5)"]
            == study.rejection_counts(alphas, rule="abs")["ECE_conf (B=5)"]
        )
        assert all(
            a >= b
            for a, b in zip(
                study.rejection_counts(alphas, rule="abs")["SKCE_ul"], study.rejection_counts(alphas)["SKCE_ul"]
            )
        )
        with pytest.raises(ValueError, match="rule"):
            study.rejections(alphas, rule="two-sided")

    def test_authors_hl_nan_never_rejects(self, tmp_cache):
        from credalbook.stats import hosmer_lemeshow_statistic

        kw = {**SMALL, "measures": (("hl_authors", 5),), "u": 0.01, "n_classes": 6, "n_datasets": 10}
        study = set_test_error_rates("S3", n_jobs=1, seed=9, **kw)
        assert study.measures == ("HL authors (B=5)",)
        nan_null = np.isnan(study.null[0]).any(axis=-1)
        assert nan_null.any()  # exact zeros in the members give cells with no expected count
        assert not study.rejections([0.05, 0.5])[0][:, nan_null].any()  # a NaN quantile never rejects
        p = np.random.default_rng(0).dirichlet(np.ones(3), size=40)
        y = np.random.default_rng(1).integers(0, 3, 40)
        from credalbook.papers.mortier.error_rates import _measures

        g = _measures([("hl_authors", 5)])[0]
        assert g.func(p, y) == pytest.approx(hosmer_lemeshow_statistic(p, y, n_bins=5, variant="authors"))

    def test_authors_s2(self, tmp_cache):
        kw = {**SMALL, "measures": (("ece_conf", 5),), "n_datasets": 5}
        study = set_test_error_rates("S2", n_jobs=1, seed=2, segment_start="centre", outside_start="end", **kw)
        assert study.config["outside_start"] == "end" and study.config["segment_start"] == "centre"


class TestErrorRateSummary:
    def test_main(self, tmp_cache):
        """Every count, rate and error of the summary equals the study's, at each kept level and under both rules."""
        study = set_test_error_rates("S1", n_jobs=1, seed=11, **SMALL)
        summary = study.summary()
        assert isinstance(summary, ErrorRateSummary)
        assert (
            summary.scenario,
            summary.measures,
            summary.n_datasets,
            summary.n_bootstrap,
            summary.config,
            summary.seconds,
        ) == (study.scenario, study.measures, 25, 30, study.config, study.seconds)
        assert summary.n_tests == study.statistics.size == 50
        for rule in ("t", "abs"):
            np.testing.assert_array_equal(summary.rejections(rule=rule), study.rejections(rule=rule))
            np.testing.assert_array_equal(summary.rejection_rates(rule=rule), study.rejection_rates(rule=rule))
            assert summary.rejection_counts([0.95, 0.05], rule=rule) == study.rejection_counts([0.95, 0.05], rule=rule)
        np.testing.assert_array_equal(summary.error_rates([0.3, 0.05]), study.error_rates([0.3, 0.05]))
        assert summary.errors_at(0.13) == study.errors_at(0.13)
        assert summary.type_one_excess() == study.type_one_excess()
        assert summary.type_one_excess([0.05], band=0.95) == study.type_one_excess([0.05], band=0.95)
        np.testing.assert_array_equal(summary.p_values(), study.p_values())
        np.testing.assert_allclose(summary.mean_evaluations, study.n_evaluations.mean(axis=1))
        # the decisions by hand, from the null samples (Alg. 1 line 8 at α = 0.3)
        q = np.quantile(study.null, 0.7, axis=-1)
        np.testing.assert_array_equal(summary.rejections([0.3])[:, 0], study.statistics > q)
        np.testing.assert_array_equal(summary.rejections([0.3], rule="abs")[:, 0], np.abs(study.statistics) > q)

    def test_type_two_and_levels(self, tmp_cache):
        study = set_test_error_rates("S3", n_jobs=1, seed=12, **SMALL)
        summary = study.summary(alphas=(0.1, 0.5))
        assert summary.alphas == (0.1, 0.5) and not summary.is_null
        np.testing.assert_array_equal(summary.error_rates([0.5, 0.1]), 1 - study.rejection_rates([0.5, 0.1]))
        with pytest.raises(ValueError, match=r"among the summary's levels \(0.1, 0.5\); got 0.05"):
            summary.error_rates()  # the figures' levels were not kept
        with pytest.raises(ValueError, match="repeat"):
            study.summary(alphas=(0.1, 0.1))
        with pytest.raises(ValueError, match="alphas"):
            study.summary(alphas=(1.5,))
        with pytest.raises(ValueError, match="rule"):
            summary.rejections([0.1], rule="two-sided")

    def test_authors_hl_nan(self, tmp_cache):
        kw = {**SMALL, "measures": (("hl_authors", 5),), "u": 0.01, "n_classes": 6, "n_datasets": 10}
        study = set_test_error_rates("S3", n_jobs=1, seed=9, **kw)
        summary = study.summary()
        np.testing.assert_array_equal(summary.null_nan, np.isnan(study.null).any(axis=-1))
        assert summary.null_nan.any() and not summary.rejected[:, :, summary.null_nan[0]].any()

    def test_record(self, tmp_cache):
        """What a chapter records: the summary through the records' JSON codec, equal field by field."""
        import json

        from credalbook.book import records
        from credalbook.papers.mortier import set_test_error_summary

        summary = set_test_error_summary("S2", n_jobs=1, seed=13, **SMALL)
        assert summary.rejected.shape == (2, 12, 25)
        back = records.decode(json.loads(json.dumps(records.encode(summary))))
        assert type(back) is ErrorRateSummary
        for name in ("rejected", "rejected_abs", "null_at_least", "null_nan", "mean_evaluations"):
            np.testing.assert_array_equal(getattr(back, name), getattr(summary, name))
            assert getattr(back, name).dtype == getattr(summary, name).dtype
        assert (back.alphas, back.measures, back.config, back.seconds) == (
            summary.alphas,
            summary.measures,
            summary.config,
            summary.seconds,
        )
        assert back.rejection_counts() == set_test_error_rates("S2", n_jobs=1, seed=13, **SMALL).rejection_counts()
