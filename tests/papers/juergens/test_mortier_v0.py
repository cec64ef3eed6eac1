"""The authors' Mortier baseline ``npbe_test_ensemble_v0`` (src/cal_test/bootstrap_test.py, l. 245-347)."""

import numpy as np
import pytest

from credalbook.papers.juergens.mortier_v0 import mortier_v0_null, mortier_v0_test
from credalbook.stats import estimator_measure


class TestNull:
    def test_instances_drawn_with_replacement(self):
        # identical members, a distinct prediction per instance: the null's predictions are the drawn rows, so the
        # share of distinct rows is that of N draws with replacement, 1 - (1 - 1/N)^N (about 0.632)
        n, d = 500, 200
        q = (np.arange(n) + 0.5) / 1000  # mid-way between the three-decimal steps: truncation keeps them apart
        row = np.stack([q, 1 - q], -1)
        ens = np.repeat(row[:, None, :], 2, axis=1)
        distinct = mortier_v0_null(ens, lambda p, y: np.array([len(np.unique(r[:, 0])) for r in p]) / n, d, seed=0)
        np.testing.assert_allclose(distinct.mean(), 1 - (1 - 1 / n) ** n, atol=0.005)

    def test_dirichlet_weight_per_instance_and_truncation(self):
        # members e_0 and e_1 everywhere: the null's p_0 is a U(0, 1) weight per instance (Dir(1) with M = 2),
        # truncated to three decimals: over N instances mean 0.4995, sd sqrt(1/12/N) (one λ per replicate: 0.29)
        n, d = 1000, 400
        ens = np.broadcast_to(np.eye(2), (n, 2, 2)).copy()
        means = mortier_v0_null(ens, lambda p, y: p[..., 0].mean(-1), d, seed=1)
        np.testing.assert_allclose(means.mean(), 0.4995, atol=3 * np.sqrt(1 / 12 / n / d))
        np.testing.assert_allclose(means.std(), np.sqrt(1 / 12 / n), rtol=0.15)
        frac = mortier_v0_null(ens, lambda p, y: np.abs(p * 1e3 - np.round(p * 1e3)).max(axis=(-2, -1)), 5, seed=2)
        assert frac.max() < 1e-9  # three decimals kept

    def test_batched_equals_one_dataset(self):
        rng = np.random.default_rng(3)
        ens = rng.dirichlet(np.ones(3), size=(2, 60, 4))
        func = estimator_measure("lp", bandwidth=0.1).func
        both = mortier_v0_null(ens, func, 7, seed=4)
        assert both.shape == (2, 7) and np.isfinite(both).all()


class TestTest:
    def test_statistic_is_the_minimum_over_constant_weights(self):
        rng = np.random.default_rng(0)
        ens = rng.dirichlet(np.ones(3), size=(300, 3))
        y = np.array([rng.choice(3, p=p) for p in ens.mean(1)])
        res = mortier_v0_test(ens, y, estimator_options={"bandwidth": 0.1}, n_resamples=30, seed=0)
        g = estimator_measure("lp", bandwidth=0.1)
        at = lambda w: float(g.func(np.einsum("nmk,m->nk", ens, w), y))  # noqa: E731
        assert res.statistic <= min(at(np.full(3, 1 / 3)), *(at(e) for e in np.eye(3))) + 1e-12
        np.testing.assert_allclose(res.statistic, at(res.weights), rtol=1e-12)
        assert res.p_value == np.mean(res.null > res.statistic)
        assert res.reject(0.05) == (res.statistic > np.quantile(res.null, 0.95))

    def test_errors(self):
        ens = np.full((10, 2, 2), 0.5)
        with pytest.raises(ValueError, match="labels"):
            mortier_v0_test(ens, np.full(10, 2))
        with pytest.raises(ValueError, match="estimator"):
            mortier_v0_test(ens, np.zeros(10, int), estimator="nope")
        with pytest.raises(ValueError, match="n_resamples"):
            mortier_v0_test(ens, np.zeros(10, int), n_resamples=0)
        with pytest.raises(TypeError, match="estimator_options"):
            mortier_v0_test(ens, np.zeros(10, int), estimator_options=[1])


class TestInStudy:
    def test_named_comparison_leaves_the_others_unchanged(self):
        from credalbook.papers.juergens import instance_test_error_rates

        kw = dict(
            n_datasets=2,
            n_instances=100,
            n_resamples=8,
            learner_options={"max_epochs": 1},
            progress=False,
            estimators=(("lp", {"bandwidth": 0.01}), ("kl", {"bandwidth": 0.01})),
        )
        base = instance_test_error_rates.__wrapped__("multiclass", "H0-const", **kw)
        v0 = instance_test_error_rates.__wrapped__("multiclass", "H0-const", mortier_v0=True, **kw)
        assert v0.measures[:4] == base.measures and v0.measures[4:] == ("L2-CE · Mortier v0", "KL-CE · Mortier v0")
        np.testing.assert_array_equal(v0.statistics[:4], base.statistics)
        np.testing.assert_array_equal(v0.null[:4], base.null)
        np.testing.assert_array_equal(v0.statistics[4:], base.statistics[1::2])  # Mortier's statistic
        assert np.isfinite(v0.null[4:]).all() and not np.array_equal(v0.null[4:], base.null[1::2])
        assert v0.config["mortier_v0"] and "mortier_v0" not in base.config
        with pytest.raises(ValueError, match="mortier_v0"):
            instance_test_error_rates.__wrapped__("binary", "H0-const", mortier=False, mortier_v0=True, **kw)
