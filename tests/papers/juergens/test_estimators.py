"""Tests of the estimator analyses of Jürgens et al. (App. A and B)."""

import numpy as np
import pytest

from credalbook.papers.juergens import (
    calibrated_combinations_example,
    estimator_landscape,
    simplex_grid,
    weight_landscape,
)
from credalbook.stats import bootstrap_calibration_test, estimator_measure


class TestSimplexGrid:
    def test_main(self):
        g = simplex_grid(10)
        assert g.shape == (66, 3)  # C(12, 2)
        np.testing.assert_allclose(g.sum(1), 1.0)

    def test_errors(self):
        with pytest.raises(ValueError, match="resolution"):
            simplex_grid(0)


class TestLandscapes:
    def test_estimator_landscape_minimum_near_truth(self):
        land = estimator_landscape("lp", truth=(0.6, 0.3, 0.1), n_instances=300, n_repeats=2, resolution=10, seed=0)
        assert np.abs(land.argmin - land.truth).sum() <= 0.21  # within one grid step per coordinate
        far = land.values[np.abs(land.grid - land.truth).sum(1) > 1.0]
        assert far.min() > land.values.min()

    def test_weight_landscape(self):
        land = weight_landscape(
            "kl", weights=(0.8, 0.1, 0.1), n_instances=400, n_repeats=2, resolution=10, spread=2.0, seed=0
        )
        assert land.grid.shape == (66, 3) and land.values.shape == (66,)
        assert np.abs(land.argmin - land.truth).sum() <= 0.41

    def test_errors(self):
        with pytest.raises(ValueError, match="truth"):
            estimator_landscape(truth=(0.5, 0.5))
        with pytest.raises(ValueError, match="truth"):
            estimator_landscape(truth=(0.5, 0.6, 0.1))
        with pytest.raises(ValueError, match="weights"):
            weight_landscape(weights=(1.0, 0.0))
        with pytest.raises(ValueError, match="estimator"):
            estimator_landscape("ece")


class TestCalibratedCombinations:
    def test_main(self):
        ex = calibrated_combinations_example(20000, seed=1)
        x = ex["features"][:, 0]
        decisions = []
        for w in ex["combinations"].values():
            p = np.einsum("nmk,nm->nk", ex["ens_probs"], w)
            # exact calibration check: frequency of Y=1 among instances with each predicted value
            for v in np.unique(p[:, 1]):
                sel = p[:, 1] == v
                decisions.append(abs(ex["labels"][sel].mean() - v) < 4 * np.sqrt(v * (1 - v) / sel.sum()))
        assert decisions == [True, True, True, False]  # two values, one value, one value (miscalibrated)
        lam = ex["combinations"]["conditional (λ₁(a)=7/8, λ₁(b)=1/8)"]
        np.testing.assert_allclose(np.einsum("nmk,nm->nk", ex["ens_probs"], lam)[:, 1], np.where(x == 0, 0.2, 0.8))

    def test_test_decisions(self):
        ex = calibrated_combinations_example(1500, seed=0)
        g = estimator_measure("kl")
        rej = [
            bootstrap_calibration_test(
                np.einsum("nmk,nm->nk", ex["ens_probs"], w),
                ex["labels"],
                measure=g,
                resample="permutation",
                n_resamples=99,
                alpha=0.01,
                seed=0,
                chunk_size=None,
            ).rejected
            for w in ex["combinations"].values()
        ]
        assert rej == [False, False, True]


class TestSkceBandwidth:
    def test_paper_bandwidth_is_degenerate_at_k10(self):
        """h = 1e-4 at K = 10: no kernel value above 1e-3, the statistic ~0 for calibrated and miscalibrated labels."""
        from credalbook.papers.juergens import median_heuristic_bandwidth, skce_kernel_summary

        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(10), 300)
        y_cal = np.array([rng.choice(10, p=q) for q in p])
        y_mis = np.zeros(300, dtype=int)
        h = median_heuristic_bandwidth(p)
        assert 0.15 < h < 0.35
        cal, mis = skce_kernel_summary(p, [1e-4, h], labels=y_cal), skce_kernel_summary(p, [1e-4, h], labels=y_mis)
        assert cal[1e-4]["share k > 1e-3"] == 0.0 and cal[1e-4]["max off-diagonal k"] < 1e-30
        assert abs(cal[1e-4]["SKCE"]) < 1e-100 and abs(mis[1e-4]["SKCE"]) < 1e-100
        assert cal[h]["median off-diagonal k"] == pytest.approx(np.exp(-1), rel=1e-6)
        assert mis[h]["SKCE"] > 10 * abs(cal[h]["SKCE"])

    def test_median_heuristic_errors(self):
        from credalbook.papers.juergens import median_heuristic_bandwidth

        with pytest.raises(ValueError, match="two predictions"):
            median_heuristic_bandwidth([[0.5, 0.5]])
        with pytest.raises(ValueError, match="median distance"):
            median_heuristic_bandwidth([[0.5, 0.5]] * 3)


class TestAuthorsCode:
    def test_mmd_label_bandwidth(self):
        """The authors' MMD is the book's conditioning="none" only at σ_y = √(bw/2)."""
        from credalbook.metrics import mmd_calibration_error
        from credalbook.papers.juergens import authors_mmd_kce

        rng = np.random.default_rng(1)
        p = rng.dirichlet(np.ones(5), 80)
        y = rng.integers(0, 5, 80)
        for bw in (0.1, 0.5, 2.0):
            theirs = authors_mmd_kce(p, y, bw=bw)
            assert theirs == pytest.approx(
                float(mmd_calibration_error(p, y, conditioning="none", label_bandwidth=np.sqrt(bw / 2))), rel=1e-9
            )
        assert authors_mmd_kce(p, y, bw=0.1) != pytest.approx(
            float(mmd_calibration_error(p, y, conditioning="none", label_bandwidth=1.0)), rel=1e-3
        )

    def test_lp_clamp(self):
        """Their float32 clamped L2 matches the book's on large samples and departs on batches of 16."""
        from credalbook.metrics import lp_calibration_error
        from credalbook.papers.juergens import authors_lp_kde, lp_clamp_effect

        rng = np.random.default_rng(0)
        p = rng.dirichlet(np.ones(10), 400)
        y = np.array([rng.choice(10, p=q) for q in p])
        assert authors_lp_kde(p, y)["value"] == pytest.approx(
            float(lp_calibration_error(p, y, bandwidth=0.01)), rel=1e-4
        )
        eff = lp_clamp_effect(10, 16, n_batches=40, seed=7)
        assert eff["share > 1%"] > 0.2 and eff["largest relative difference"] > 0.05


def test_landscape_repeat_misses():
    land = estimator_landscape("lp", truth=(0.6, 0.3, 0.1), n_instances=200, n_repeats=3, resolution=8, seed=0)
    assert land.repeat_values.shape == (len(land.grid), 3)
    np.testing.assert_allclose(land.repeat_values.mean(axis=1), land.values)
    m = land.repeat_misses
    assert m.shape == (3,) and np.all(m >= 0)


def test_authors_kl_gradient():
    """Their KL value is the book's; without create_graph its gradient is wrong, with it (and the book's) exact."""
    from credalbook.papers.juergens import kl_gradient_check

    r = kl_gradient_check(40, 4, seed=3)
    err = {k: v["largest relative error of the directional derivative"] for k, v in r.items()}
    assert r["authors' code"]["value"] == pytest.approx(r["book"]["value"], rel=1e-9)
    assert err["authors' code"] > 0.1 and err["authors' code with create_graph=True"] < 1e-5 and err["book"] < 1e-5
