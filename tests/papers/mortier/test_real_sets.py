"""Tests for credalbook.papers.mortier.real_sets: the solver comparison and the agreement of minimisers
with a reference (the measurement behind the set test's default solver)."""

import numpy as np
import pytest

from credalbook.papers.mortier import compare_solvers, PAPER_ALPHAS, solver_agreement
from credalbook.stats import set_null_distribution
from credalbook.synthetic import credal_scenario

SMALL = dict(n_datasets=6, n_instances=40, n_members=3, n_classes=3, u=0.1, n_resamples=25, seed=2)


class TestCompareSolvers:
    def test_main(self):
        sc = credal_scenario("S2", n_datasets=3, n_instances=40, n_members=3, n_classes=3, u=0.1, seed=1)
        out = compare_solvers(sc.ens_probs, sc.labels, solvers=("grid", "search_descent"), n_resamples=25, seed=0)
        null = set_null_distribution(sc.ens_probs, n_resamples=25, seed=0)  # the same null sample
        for run in out.values():
            np.testing.assert_array_equal(run["rejected"], run["statistic"] > np.quantile(null, 0.95, axis=-1))
            assert run["n_evaluations"].shape == (3,) and run["seconds_per_test"] > 0

    def test_errors(self):
        sc = credal_scenario("S1", n_datasets=2, n_instances=30, n_members=2, n_classes=3, seed=1)
        with pytest.raises(ValueError, match="solvers"):
            compare_solvers(sc.ens_probs, sc.labels, solvers=("adam",))
        with pytest.raises(ValueError, match="ens_probs must have shape"):
            compare_solvers(sc.ens_probs[0], sc.labels[0])


class TestSolverAgreement:
    def test_main(self):
        out = solver_agreement(solvers=("search", "search_descent"), reference="grid", **SMALL)
        assert list(out) == ["grid", "search", "search_descent"]
        ref = out["grid"]
        assert ref["agreement"] == ref["agreement_levels"] == 1.0 and ref["speedup"] == 1.0
        assert ref["gap_mean"] == ref["gap_max"] == ref["share_worse"] == ref["share_better"] == 0.0
        # recompute one solver's summary from compare_solvers on the same data and null samples
        data = np.random.default_rng(np.random.SeedSequence(2).spawn(1)[0])
        sc = credal_scenario("S1", n_datasets=6, n_instances=40, n_members=3, n_classes=3, u=0.1, seed=data)
        runs = compare_solvers(sc.ens_probs, sc.labels, solvers=("grid", "search_descent"), n_resamples=25, seed=2)
        t, t_ref = runs["search_descent"]["statistic"], runs["grid"]["statistic"]
        null = set_null_distribution(sc.ens_probs, n_resamples=25, seed=2)
        q = np.quantile(null, 0.95, axis=-1)
        row = out["search_descent"]
        assert row["gap_mean"] == pytest.approx(np.mean(t - t_ref)) and row["gap_max"] == pytest.approx(
            np.max(t - t_ref)
        )
        assert row["agreement"] == np.mean((t > q) == (t_ref > q))
        assert row["rejection_rate"] == np.mean(t > q)
        levels = np.quantile(null, 1 - np.array(PAPER_ALPHAS), axis=-1).T
        assert row["mean_rejection_rate"] == pytest.approx(np.mean(t[:, None] > levels))
        rates = [np.mean(t > levels[:, i]) for i in range(len(PAPER_ALPHAS))]
        assert row["rejection_rates"] == pytest.approx(rates)
        assert row["mean_abs_deviation"] == pytest.approx(np.mean(np.abs(np.array(rates) - PAPER_ALPHAS)))
        assert row["share_worse"] == np.mean(t - t_ref > 1e-3) and row["share_better"] == np.mean(t < t_ref)

    def test_errors(self):
        with pytest.raises(ValueError, match="reference"):
            solver_agreement(reference="adam", **SMALL)
        with pytest.raises(ValueError, match="tolerance"):
            solver_agreement(tolerance=-1.0, **SMALL)
        with pytest.raises(ValueError, match="alpha"):
            solver_agreement(alpha=1.5, **SMALL)
