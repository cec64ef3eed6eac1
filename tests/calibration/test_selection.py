"""Tests for credalbook.calibration.selection (App. F.3 grids of Mimori et al. 2022)."""

import numpy as np
import pytest

from credalbook.calibration import (
    CalibratorSelection,
    histogram_nll,
    MatrixScaling,
    PAPER_CALIBRATOR_GRIDS,
    select_calibrator,
    VectorScaling,
)
from tests.helpers import synthetic_logits


class TestSelectCalibrator:
    def test_main(self):
        logits, hist = synthetic_logits(n=1500, temperature=2.0, bias=[0.5, 0, 0, -0.5], seed=10)
        sel = select_calibrator(logits, hist, method="vs", optimizer="lbfgs", seed=0)
        assert isinstance(sel, CalibratorSelection) and isinstance(sel.calibrator, VectorScaling)
        assert [p for p, _ in sel.table] == list(PAPER_CALIBRATOR_GRIDS["vs"])
        assert sel.cv_nll == min(v for _, v in sel.table)
        assert sel.calibrator.lambda_b == sel.params["lambda_b"]
        # every candidate used the same split: refitting the winner gives the recorded value
        refit = VectorScaling(**sel.params).fit(logits, hist, optimizer="lbfgs", seed=0)
        assert refit.cv_nll_ == pytest.approx(sel.cv_nll)
        assert len(PAPER_CALIBRATOR_GRIDS["ms"]) == 9
        small = select_calibrator(
            logits,
            hist,
            method="ms",
            optimizer="lbfgs",
            max_epochs=3,
            seed=0,
            grid=[{"lambda_w": 0.1, "lambda_b": 0.1}, {"lambda_w": 10.0, "lambda_b": 10.0}],
        )
        assert len(small.table) == 2

    def test_default_optimizer(self):
        # each candidate minimises its penalised objective on the 80 % part to convergence and
        # is judged by the NLL of the held-out 20 % (the split of seed 0)
        logits, hist = synthetic_logits(n=1000, temperature=2.0, bias=[0.5, 0, 0, -0.5], seed=10)
        grid = PAPER_CALIBRATOR_GRIDS["ms"][::8]  # (λ_b, λ_w) = (0.1, 0.1) and (10, 10)
        sel = select_calibrator(logits, hist, method="ms", grid=grid, seed=0)
        assert isinstance(sel.calibrator, MatrixScaling) and len(sel.table) == 2
        perm = np.random.default_rng(0).permutation(1000)
        cv, tr = perm[:200], perm[200:]
        for params, cv_nll in sel.table:
            on_train = MatrixScaling(**params).fit(logits[tr], hist[tr])
            assert cv_nll == pytest.approx(histogram_nll(on_train.predict_logits(logits[cv]), hist[cv]), abs=1e-6)
        assert sel.cv_nll == min(v for _, v in sel.table)
        assert sel.cv_nll == pytest.approx(histogram_nll(sel.calibrator.predict_logits(logits[cv]), hist[cv]))

    def test_seed_none_shares_one_split(self):
        # seed=None draws one split for all the candidates: refitting the winner with the
        # recorded split would give the same value, and seed=0 gives the old default's result
        logits, hist = synthetic_logits(n=600, temperature=2.0, bias=[0.5, 0, 0, -0.5], seed=10)
        grid = PAPER_CALIBRATOR_GRIDS["vs"][:2]
        a = select_calibrator(logits, hist, grid=grid, seed=0)
        b = select_calibrator(logits, hist, grid=grid, seed=0)
        assert a.table == b.table
        assert len(select_calibrator(logits, hist, grid=grid).table) == 2

    def test_old_keyword(self):
        logits, hist = synthetic_logits(n=300, temperature=2.0, seed=1)
        new = select_calibrator(logits, labels=hist, method="ts", seed=0)
        with pytest.warns(FutureWarning, match="'targets' was renamed to 'labels'"):
            old = select_calibrator(logits, targets=hist, method="ts", seed=0)
        assert old.table == new.table

    def test_errors(self):
        with pytest.raises(ValueError, match="method must be one of"):
            select_calibrator(np.zeros((10, 2)), [0, 1] * 5, method="platt")
        with pytest.raises(ValueError, match="grid must be a non-empty sequence of dicts"):
            select_calibrator(np.zeros((10, 2)), [0, 1] * 5, grid=[])
        with pytest.raises(ValueError, match="cv_fraction must be positive"):
            select_calibrator(np.zeros((10, 2)), [0, 1] * 5, cv_fraction=0)
        with pytest.raises(ValueError, match="cv_fraction must be positive"):
            select_calibrator(np.zeros((10, 2)), [0, 1] * 5, cv_fraction=None)
