"""The Fashion-MNIST analogue of Sec. 5.4 (credalbook/papers/eu/analogue.py)."""

import numpy as np
import pytest

from credalbook.papers.eu import eu_plan, real_eu_splits
from credalbook.papers.eu.analogue import (
    _grouped_setup,
    analogue_parts,
    EU_ANALOGUE_DATA,
    FASHION_CONFUSABLE_SPLIT,
    grouped_eu_assemble,
    grouped_eu_fit,
)
from credalbook.papers.eu.real_data import _real_setup
from credalbook.papers.presets import preset

KW = dict(n_points=400, split=dict(n_centres=2, ball_size=40), cache=False)


class TestGroupedEuFit:
    def test_main(self):
        feats, y, s, _ = _grouped_setup("digits", 0, (1, 7), 400, 50, KW["split"], None, False)
        assert np.array_equal(y, np.isin(feats.labels, (1, 7)).astype(np.int64)) and 0 < y.mean() < 0.5
        # the same features and balls as the parity experiment: only the labels differ
        feats2, s2, _ = _real_setup("digits", 0, 400, 50, KW["split"], None, False)
        assert np.array_equal(feats.x, feats2.x) and np.array_equal(s.evaluation.test, s2.evaluation.test)
        assert np.array_equal(s.evaluation.test, real_eu_splits(feats.x, seed=0, **KW["split"]).evaluation.test)
        gp = dict(n_inducing=8, epochs=1, batch_size=128)
        fits = {
            r: grouped_eu_fit("digits", 0, r, positive=(1, 7), gp=gp, device="cpu", **KW)
            for r in ("train", "aug", "train_2", "aug_2")
        }
        run = grouped_eu_assemble(
            "digits", 0, fits, positive=(1, 7), n_bins=2, n_points=400, split=KW["split"], cache=False
        )
        acc = np.mean((fits["train"].mean > 0).astype(int) == y[s.evaluation.test])
        assert run.accuracy["train"] == pytest.approx(acc)

    def test_errors(self):
        with pytest.raises(TypeError, match="positive must be a sequence"):
            _grouped_setup("digits", 0, 3, 400, 50, KW["split"], None, False)
        with pytest.raises(ValueError, match="distinct non-negative"):
            _grouped_setup("digits", 0, (1, 1), 400, 50, KW["split"], None, False)
        with pytest.raises(ValueError, match="in one class"):
            _grouped_setup("digits", 0, tuple(range(10)), 400, 50, KW["split"], None, False)


class TestAnalogueParts:
    def test_main(self):
        cfg = preset("05_epistemic_uncertainty_gp", "paper")
        parts, runs = analogue_parts(cfg, seeds=[0, 1], analysis={"n_bins": 20, "n_samples": 1000})
        assert sorted(runs) == [f"analogue_{s}" for s in EU_ANALOGUE_DATA] and len(parts) == 16
        p = {q.name: q for q in parts}
        assert p["analogue-all-seed1-aug"].kwargs["n_points"] is None
        assert p["analogue-half-seed0-train"].kwargs["n_points"] == 35000 == cfg["analogue_half_points"]
        assert p["analogue-half-seed0-train"].kwargs["positive"] == list(FASHION_CONFUSABLE_SPLIT) == [0, 4, 5, 8, 9]
        # today's real-data parts keep their names and parameters
        plan = eu_plan(cfg)
        real = [q for q in plan.parts if q.name.startswith("real-")]
        assert len(real) == 24 and all("positive" not in q.kwargs for q in real)
        names = [q.name for q in plan.parts]  # appended after every other part: 2 sizes x 6 seeds x 4 GPs
        assert names[-48] == "analogue-all-seed0-train" and names[-1] == "analogue-half-seed5-aug_2"
