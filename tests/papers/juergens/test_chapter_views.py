"""credalbook.papers.juergens.chapter_views: what the chapter's cells show, from planted studies."""

import numpy as np
import pytest

from credalbook.metrics import mmd_calibration_error
from credalbook.papers.juergens import (
    authors_mmd_kce,
    authors_runs,
    chapter_results,
    estimator_checks,
    kl_gradient_check,
    lp_clamp_effect,
    summarise_error_rates,
)
from credalbook.papers.mortier import ErrorRateStudy, PAPER_ALPHAS

KINDS = ("new", "Mortier", "Mortier v0")
NAMES = tuple(f"{e} · {k}" for e in ("L2-CE", "KL-CE", "MMD", "SKCE") for k in KINDS)


def _study(h, reject, r, seed, names=NAMES):
    """A study whose tests reject on a share ``reject[t]`` of the R datasets at every level α ≤ 0.5."""
    rng = np.random.default_rng(seed)
    null = np.tile(np.linspace(0, 1, 101)[None, None, :], (len(names), r, 1))
    k = np.round(np.asarray(reject) * r).astype(int)
    stats = np.where(np.stack([rng.permutation(r) for _ in names]) < k[:, None], 2.0, -1.0)
    return ErrorRateStudy(h, names, stats, null, np.zeros((len(names), r), dtype=np.int64))


def _binary(r=40, far_new=0.25):
    rates = {"H0-const": [0.05, 0.0, 0.3] * 4, "H0-inst": [0.05, 0.0, 0.3] * 4, "H1-1": [1.0, 0.5, 0.4] * 4,
             "H1-3": [1 - far_new, 0.5, 0.4] * 4}  # fmt: skip
    return {f"authors-binary-{h.lower()}": _study(h, v, r, i) for i, (h, v) in enumerate(rates.items())}


class TestAuthorsRuns:
    def test_main(self):
        binary = _binary(far_new=0.25)
        settings = {
            "authors-settings-multiclass-h0-const": _study("H0-const", [0.1, 0.0, 0.3] * 4, 40, 7),
            "authors-settings-multiclass-h1-3": _study("H1-3", [0.9, 0.5, 0.4] * 4, 40, 8),
        }
        book = {"H0-const": _study("H0-const", [0.05] * 12, 40, 10), "H1-3": _study("H1-3", [0.75] * 12, 40, 11)}
        view = authors_runs(binary, settings, book, seed=0)
        assert view.glues["authors_far_type2"] == pytest.approx(0.25)  # misses of L2's new test, far alternative
        assert view.glues["book_far_type2"] == summarise_error_rates(book, seed=0)["type2_by_panel"]["H1-3"]
        # Mortier et al.'s test never rejects under H0 and "v0" rejects on 30%: mean (rate − α) over α, L2/KL/MMD
        assert view.glues["h0_gap_Mortier"] == pytest.approx(-np.mean(PAPER_ALPHAS))
        assert view.glues["h0_gap_Mortier_v0"] == pytest.approx(np.mean([0.3 - a for a in PAPER_ALPHAS]))
        assert view.rates["authors-binary-h0-const · L2-CE · new"] == {"α=0.05": 0.05, "α=0.1": 0.05}
        assert "authors-binary-h0-const · L2-CE · Mortier" not in view.rates  # Mortier only under the settings
        assert "authors-settings-multiclass-h0-const · L2-CE · Mortier" in view.rates
        assert list(view.settings) == ["multiclass"] and view.binary["R"] == 40


def test_estimator_checks():
    checks = estimator_checks(n_batches=4, seed=3)
    assert checks["unsound"]["L2, K = 10, batches of N = 64"] == lp_clamp_effect(10, 64, n_batches=4, seed=3)
    rng = np.random.default_rng(10)
    p = rng.dirichlet(np.ones(10), size=200)
    y = np.array([rng.choice(10, p=q) for q in p])
    assert checks["mmd"]["authors' code, bw = 0.1"]["MMD"] == authors_mmd_kce(p, y, bw=0.1)
    assert checks["mmd"]["book, conditioning='none', σ_y = 1"]["MMD"] == pytest.approx(
        mmd_calibration_error(p, y, conditioning="none", label_bandwidth=1.0)
    )
    assert checks["kl_gradient"] == kl_gradient_check(50, 3, seed=3)


def test_chapter_results():
    grid = type("L", (), {"repeat_misses": np.array([0.1, 0.2]), "argmin": np.array([0.3, 0.7])})()
    cfg = {"app_b_draws": 200, "polytope_samples": 500, "n_members": 5,
           "table_learner": {"hidden": (128, 128, 128), "lr": 5e-4, "batch_size": 64}}  # fmt: skip
    out = chapter_results(
        cfg, landscapes={"lp": (grid, grid)}, app_b={"a": {"rejection rate at α = 0.05": 0.045}},
        centre_share={"weights": 0.2}, skce_bandwidth={"fig5": 0.3}, dataset="digits",
    )  # fmt: skip
    assert out["app_b"] == [{"k": 9, "n": 200}] and out["centre_share"] == {"weights": 0.2, "n": 500}
    assert out["landscape_miss"] == {"lp": [0.1, 0.2]} and out["landscape_argmins"]["lp"]["lambda"] == [0.3, 0.7]
    assert out["table1_setting"]["learner"] == "3 × 128, lr 0.0005, batch 64" and out["dataset"] == "digits"
