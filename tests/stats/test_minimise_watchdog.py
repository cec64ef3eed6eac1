"""The watchdog of NLopt's COBYLA (``options["stall_seconds"]``): bit-identical when nothing stalls, the best point
seen when the minimiser goes silent."""

import time

import numpy as np
import pytest

from credalbook.stats.measures import calibration_measure
from credalbook.stats.minimise import MeasureObjective, minimise_objective

pytest.importorskip("nlopt")


def _problem(seed=0, n=60, m=5, k=3):
    rng = np.random.default_rng(seed)
    ens = rng.dirichlet(np.ones(k), size=(n, m))
    y = rng.integers(0, k, n)
    return MeasureObjective(ens, y, calibration_measure("ece_confidence", n_bins=5).func)


def test_same_point_when_nothing_stalls():
    a, b = _problem(), _problem()
    wa = minimise_objective(a, 5, "cobyla_powell", {}, 0)
    wb = minimise_objective(b, 5, "cobyla_powell", {"stall_seconds": 30}, 0)
    assert np.array_equal(wa, wb) and a.n_evaluations == b.n_evaluations > 5
    assert getattr(b, "n_stalls", 0) == 0


class _Silent(MeasureObjective):
    """Goes silent (sleeps) at its 20th evaluation, as NLopt does when its trust-region step cycles."""

    def __call__(self, x):
        if self.n_evaluations == 19:
            time.sleep(30)
        return super().__call__(x)


def test_stall_returns_the_best_point_seen():
    base = _problem()
    obj = _Silent(np.ascontiguousarray(base.ens_t.transpose(0, 2, 1)), base.labels, base.func)
    start = time.perf_counter()
    w = minimise_objective(obj, 5, "cobyla_powell", {"stall_seconds": 1.0}, 0)
    assert time.perf_counter() - start < 20 and obj.n_stalls == 1 and obj.n_evaluations == 19
    uniform = _problem()(np.full(5, 0.2))
    assert np.isfinite(w).all() and w.sum() == pytest.approx(1.0) and _problem()(w) <= uniform  # the best seen


def test_bad_stall():
    with pytest.raises(ValueError, match="stall_seconds"):
        minimise_objective(_problem(), 5, "cobyla_powell", {"stall_seconds": 0}, 0)


def test_same_point_after_torch_used_its_threads():
    """The watched child takes row maxima from torch when the parent loaded it; the parent's OpenMP pool does not
    survive the fork (GNU OpenMP hangs there), so the child runs torch on one thread and is not stalled."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        torch.max(torch.rand(200_000, 10, dtype=torch.float64), dim=-1)  # the parent's intra-op pool is up
        _same_point_with_torch_loaded()
    finally:
        torch.set_num_threads(threads)


def _same_point_with_torch_loaded():
    rng = np.random.default_rng(3)
    ens, y = rng.dirichlet(np.ones(10), size=(20_000, 4)), rng.integers(0, 10, 20_000)
    func = calibration_measure("ece_confidence", n_bins=15).func
    a, b = MeasureObjective(ens, y, func), MeasureObjective(ens, y, func)
    wa = minimise_objective(a, 4, "cobyla_powell", {}, 0)
    wb = minimise_objective(b, 4, "cobyla_powell", {"stall_seconds": 30}, 0)
    assert getattr(b, "n_stalls", 0) == 0 and a.n_evaluations == b.n_evaluations > 4
    assert np.array_equal(wa, wb)
