"""The new test with the true λ*(x): the study's datasets and test split, and a test that holds its level."""

import numpy as np
import pytest
from scipy import stats

from credalbook.papers.juergens import authors_binary_scenario, oracle_error_summary, oracle_study
from credalbook.stats import estimator_measure
from credalbook.stats.instance import split_indices

SPECS = (("lp", {"bandwidth": 0.01}), ("kl", {"bandwidth": 0.01}))


def test_same_datasets_and_split_as_the_study():
    """The statistic is each estimator on the generator's truth and labels of the study's test split: the streams of
    instance_test_error_rates (data from child 0, splits from child 1 of the seed), drawn here again by hand."""
    kw = dict(n_datasets=3, n_instances=300, n_resamples=30, estimators=SPECS, simulator="authors", seed=4)
    study = oracle_study("binary", "H0-inst", **kw)
    seqs = np.random.SeedSequence(4).spawn(2 + len(SPECS))
    sc = authors_binary_scenario("H0-inst", n_datasets=3, n_instances=300, seed=np.random.default_rng(seqs[0]))
    _, _, test = split_indices(300, (0.6, 0.2, 0.2), seed=np.random.default_rng(seqs[1]))
    assert len(test) == 60
    for t, (name, opts) in enumerate(SPECS):
        g = estimator_measure(name, **opts)
        np.testing.assert_array_equal(study.statistics[t], g.func(sc.truth[:, test], sc.labels[:, test]))
        assert study.measures[t] == f"{g.name} · oracle" and study.null.shape == (2, 3, 30)
    # H0's truth is the calibrated combination: the generator's weights give it back
    p = np.einsum("rnm,rnmk->rnk", sc.weights, sc.ens_probs)
    np.testing.assert_allclose(p, sc.truth, atol=1e-12)
    s = oracle_error_summary("binary", "H0-inst", **kw)
    np.testing.assert_array_equal(s.p_values(), study.p_values())
    assert s.config["weights"] == "true λ*(x)" and s.n_datasets == 3


def test_holds_its_level():
    """Type I at α = 0.1 within 3 binomial SE: with the true combination the test is exact up to Monte Carlo."""
    s = oracle_error_summary(
        "binary", "H0-const", n_datasets=300, n_instances=100, n_resamples=99, estimators=SPECS[:1]
    )
    k = int(s.rejected[0, s.alphas.index(0.1)].sum())
    assert stats.binomtest(k, 300, 0.1).pvalue > 0.001, k


def test_errors():
    with pytest.raises(ValueError, match="hypothesis"):
        oracle_error_summary("binary", "H1-3", n_datasets=2, n_instances=100)
    with pytest.raises(ValueError, match="setting"):
        oracle_error_summary("ternary", "H0-const")
    with pytest.raises(ValueError, match="estimators"):
        oracle_error_summary("binary", "H0-const", estimators=())
