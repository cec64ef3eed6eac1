"""Tests of the λ(x) meta-learner (Jürgens et al., Sec. 3.5, Eq. 16)."""

import numpy as np
import pytest

from credalbook._random import draw_labels
from credalbook.stats import fit_weight_function


def _two_members(rng, n, lam):
    """Members (0.2 + 0.12x, ·) and (0.8 - 0.12x, ·) on x in [0, 5]; truth = lam(x) mix."""
    x = rng.uniform(0, 5, size=n)
    a = 0.2 + 0.12 * x
    b = 0.8 - 0.12 * x
    ens = np.stack([np.c_[1 - a, a], np.c_[1 - b, b]], axis=1)
    w = lam(x)
    truth = w[:, None] * ens[:, 0] + (1 - w[:, None]) * ens[:, 1]
    return x, ens, draw_labels(truth, rng), w


class TestFitWeightFunction:
    def test_recovers_constant_weights(self):
        rng = np.random.default_rng(1)
        x, ens, y, _ = _two_members(rng, 6000, lambda x: np.full_like(x, 0.3))
        grid = np.linspace(0, 5, 101)
        # the proper score alone is consistent: λ within ~2 standard errors (≈ 0.02 here) of the truth
        fw = fit_weight_function(
            x, ens, y, estimator="brier", max_epochs=40, patience=15, lr=5e-3, batch_size=256, seed=0
        )
        assert abs(fw.weights(grid)[:, 0].mean() - 0.3) < 0.05
        # + γ·L2: the KDE estimator's finite-sample bias depends on λ and shifts the optimum a little (≈ +0.05)
        fw = fit_weight_function(
            x,
            ens,
            y,
            estimator="lp",
            max_epochs=40,
            patience=15,
            lr=5e-3,
            batch_size=256,
            estimator_options={"bandwidth": 0.05},
            seed=0,
        )
        lam = fw.weights(grid)[:, 0]
        assert abs(lam.mean() - 0.3) < 0.1
        assert np.allclose(fw.weights(x).sum(-1), 1.0)

    def test_recovers_instance_dependent_weights(self):
        rng = np.random.default_rng(2)
        x, ens, y, w = _two_members(rng, 6000, lambda x: (x > 2.5).astype(float))
        fw = fit_weight_function(x, ens, y, estimator="brier", max_epochs=80, patience=30, lr=5e-3, seed=0)
        lam = fw.weights(np.array([0.5, 1.0, 4.0, 4.5]))[:, 0]
        assert lam[:2].max() < 0.35 and lam[2:].min() > 0.65

    def test_batched_problems_are_independent(self):
        rng = np.random.default_rng(3)
        x, ens, y, _ = _two_members(rng, 600, lambda x: np.full_like(x, 0.5))
        y2 = y.copy()
        y2[:300] = 1 - y2[:300]
        common = dict(estimator="mmd", max_epochs=40, patience=3, seed=0)
        a = fit_weight_function(np.stack([x, x])[..., None], np.stack([ens, ens]), np.stack([y, y]), **common)
        b = fit_weight_function(np.stack([x, x])[..., None], np.stack([ens, ens]), np.stack([y, y2]), **common)
        grid = np.broadcast_to(np.linspace(0, 5, 11)[None, :, None], (2, 11, 1))
        # in b, problem 0 stops early and leaves the batch while problem 1 trains on: problem 0 is unaffected
        assert b.best_epoch[1] > b.best_epoch[0] + 3
        stopped = b.best_epoch[0] + 3
        assert np.isnan(b.history[0, stopped + 1 :]).all() and np.isfinite(b.history[1]).all()
        np.testing.assert_allclose(a.weights(grid)[0], b.weights(grid)[0], rtol=1e-6)
        np.testing.assert_allclose(a.best_loss[0], b.best_loss[0], rtol=1e-12)
        assert not np.allclose(a.weights(grid)[1], b.weights(grid)[1])
        assert a.weights(grid).shape == (2, 11, 2)

    def test_early_stopping_restores_best(self):
        rng = np.random.default_rng(4)
        x, ens, y, _ = _two_members(rng, 500, lambda x: np.full_like(x, 0.5))
        fw = fit_weight_function(x, ens, y, estimator="kl", max_epochs=40, patience=5, seed=0)
        val = fw.history[0, :, 1]
        assert fw.best_epoch[0] == int(np.argmin(val))
        assert fw.best_loss[0] == pytest.approx(val.min())
        assert len(val) <= 40
        assert len(val) == 40 or len(val) - 1 - fw.best_epoch[0] >= 5

    def test_combine(self):
        rng = np.random.default_rng(5)
        x, ens, y, _ = _two_members(rng, 300, lambda x: np.full_like(x, 0.5))
        fw = fit_weight_function(x, ens, y, max_epochs=3, seed=0)
        p = fw.combine(x, ens)
        np.testing.assert_allclose(p, np.einsum("nmk,nm->nk", ens, fw.weights(x)))
        np.testing.assert_allclose(p.sum(-1), 1.0)

    def test_errors(self):
        rng = np.random.default_rng(6)
        x, ens, y, _ = _two_members(rng, 100, lambda x: np.full_like(x, 0.5))
        with pytest.raises(ValueError, match="estimator"):
            fit_weight_function(x, ens, y, estimator="ece")
        with pytest.raises(ValueError, match="score"):
            fit_weight_function(x, ens, y, score="hinge")
        with pytest.raises(ValueError, match="gamma"):
            fit_weight_function(x, ens, y, gamma=-1)
        with pytest.raises(ValueError, match="labels"):
            fit_weight_function(x, ens, y + 2)
        with pytest.raises(ValueError, match="must agree"):
            fit_weight_function(x[:50], ens, y)
        with pytest.raises(ValueError, match="ens_probs"):
            fit_weight_function(x, ens * 2, y)
        with pytest.raises(ValueError, match="features"):
            fit_weight_function(np.full(100, np.nan), ens, y)
        for bad in (x.astype(complex), x.astype(str), None):  # no silent cast of complex or string features
            with pytest.raises(ValueError, match="features"):
                fit_weight_function(bad, ens, y, max_epochs=1)
        # the labels' shape is checked against ens_probs before the features are read
        for bad in (y[:, None], y[None], np.int64(1), y[:50]):
            with pytest.raises(ValueError, match="^labels"):
                fit_weight_function(x, ens, bad, max_epochs=1)
        for bad in (y - 1, y.astype(complex), y.astype(bool), y + 0.5):
            with pytest.raises(ValueError, match="^labels"):
                fit_weight_function(x, ens, bad, max_epochs=1)
        with pytest.raises(ValueError, match="^val_labels"):
            fit_weight_function(
                x[:80],
                ens[:80],
                y[:80],
                val_features=x[80:],
                val_ens_probs=ens[80:],
                val_labels=y[80:] + 2,
                max_epochs=1,
            )
        for bad in (-1, 1.5, "a", True, [1, -1]):
            with pytest.raises(ValueError, match="seed"):
                fit_weight_function(x, ens, y, seed=bad, max_epochs=1)
        fw = fit_weight_function(x, ens, y, max_epochs=1, seed=0)
        with pytest.raises(ValueError, match="features"):
            fw.weights(np.zeros((5, 3)))


class TestWeightLearningConfig:
    def test_main(self):
        from credalbook.stats import LOSS_PRESETS, WeightLearningConfig

        for estimator, (score, gamma) in LOSS_PRESETS.items():
            cfg = WeightLearningConfig.from_options(estimator=estimator)
            assert (cfg.score, cfg.gamma) == (score, gamma)
        cfg = WeightLearningConfig.from_options(estimator="kl", score="brier", gamma=0.2, hidden=[4, 4], patience=3)
        assert (cfg.score, cfg.gamma, cfg.hidden, cfg.patience) == ("brier", 0.2, (4, 4), 3)
        rec = cfg.record(device="cpu", n_train=10, n_val=5)
        assert rec["estimator"] == "kl" and rec["n_val"] == 5 and "val_fraction" not in rec

    def test_config_recorded_by_fit(self):
        from credalbook.stats import WeightLearningConfig

        rng = np.random.default_rng(7)
        x, ens, y, _ = _two_members(rng, 120, lambda x: np.full_like(x, 0.5))
        fw = fit_weight_function(x, ens, y, estimator="brier", max_epochs=2, hidden=(4,), seed=0)
        expected = WeightLearningConfig.from_options(estimator="brier", max_epochs=2, hidden=(4,))
        assert fw.config == expected.record(device="cpu", n_train=90, n_val=30)

    def test_errors(self):
        from credalbook.stats import WeightLearningConfig

        with pytest.raises(ValueError, match="hidden"):
            WeightLearningConfig.from_options(hidden=(0,))
        with pytest.raises(ValueError, match="patience"):
            WeightLearningConfig.from_options(patience=0)
        with pytest.raises(ValueError, match="bandwidth"):
            WeightLearningConfig.from_options(estimator="lp", estimator_options={"bandwidth": -1.0})


def test_config_or_options():
    """fit_weight_function takes a WeightLearningConfig or its options one by one (the same fit), not both."""
    from credalbook.stats import WeightLearningConfig

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(120, 1))
    ens = rng.dirichlet(np.ones(2), size=(120, 2))
    y = rng.integers(0, 2, 120)
    kw = dict(estimator="brier", max_epochs=2, hidden=(4,))
    a = fit_weight_function(x, ens, y, seed=0, **kw)
    b = fit_weight_function(x, ens, y, seed=0, config=WeightLearningConfig.from_options(**kw))
    np.testing.assert_array_equal(a.weights(x), b.weights(x))
    with pytest.raises(TypeError, match="config and the options"):
        fit_weight_function(x, ens, y, config=WeightLearningConfig(), max_epochs=2)
    with pytest.raises(TypeError, match="unexpected options"):
        fit_weight_function(x, ens, y, epochs=2)
