"""Tests for credalbook.papers.mortier.error_rates: results independent of the number of workers, decisions at
any α from the stored null samples, Type I vs Type II bookkeeping, caching."""

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.mortier import ErrorRateStudy, set_test_error_rates
from credalbook.stats import exact_size

SMALL = dict(n_datasets=25, n_instances=50, n_members=4, n_classes=4, u=0.1, n_bootstrap=30,
             measures=(("ece_conf", 5), "skce_ul"), progress=False)


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
        kwargs = {**SMALL, "n_datasets": 40, "n_bootstrap": 50, "measures": (("ece_conf", 10),)}
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
