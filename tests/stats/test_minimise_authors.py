"""The authors' objective for NLopt's COBYLA (``options["authors_objective"]``): Mortier et al.'s code evaluates the
measure at the weights COBYLA proposes as they are (tfmortie/calibration ``caltest.py``, ``confece_obj``), with the
bounds as inequality constraints; the default objective clips and normalises them."""

import numpy as np
import pytest

from credalbook.stats.measures import calibration_measure
from credalbook.stats.minimise import MeasureObjective, minimise_objective

pytest.importorskip("nlopt")


def _problem(cls=MeasureObjective, seed=0, n=80, m=5, k=4):
    rng = np.random.default_rng(seed)
    ens = rng.dirichlet(np.ones(k), size=(n, m))
    y = rng.integers(0, k, n)
    func = calibration_measure("ece_classwise", n_bins=5).func
    return cls(ens, y, func), ens, y, func


def test_raw_is_the_measure_of_the_weights_as_they_are():
    obj, ens, y, func = _problem()
    w = np.array([0.5, 0.25, 0.25, 0.0, 0.0])
    assert obj.raw(w) == obj(w) == func(np.einsum("nmk,m->nk", ens, w), y)
    x = 1.6 * w  # off the simplex: the default objective normalises it, the raw one does not
    assert obj(x) == obj(w)
    assert obj.raw(x) == pytest.approx(func(np.einsum("nmk,m->nk", ens, x), y), abs=1e-15)
    assert obj.raw(x) != obj(x)
    assert obj.n_evaluations == 7  # every call through either door counts


class _Recording(MeasureObjective):
    """Records every point the minimiser evaluates, and through which door."""

    def __init__(self, *args):
        super().__init__(*args)
        self.seen = []

    def __call__(self, x):
        self.seen.append(("normalised", np.array(x)))
        return super().__call__(x)

    def raw(self, x):
        self.seen.append(("raw", np.array(x)))
        return super().raw(x)


def test_authors_objective_searches_off_the_simplex_and_returns_a_point_on_it():
    authors = {"rhobeg": 1.0, "tol": 1e-4, "authors_objective": True}
    obj, *_ = _problem(_Recording)
    w = minimise_objective(obj, 5, "cobyla_powell", authors, 0)
    doors = {door for door, _ in obj.seen}
    sums = np.array([x.sum() for _, x in obj.seen])
    assert doors == {"raw"} and len(obj.seen) == obj.n_evaluations > 10
    assert sums.max() > 1.5  # the first steps of length rhobeg leave the simplex (no bounds of NLopt's)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)  # the result is normalised onto Δ_M
    final = min((x for _, x in obj.seen), key=lambda x: abs(x.sum() - 1.0))
    assert abs(final.sum() - 1.0) < 1e-3  # COBYLA ends (nearly) feasible
    plain, *_ = _problem(_Recording)
    minimise_objective(plain, 5, "cobyla_powell", {"rhobeg": 1.0, "tol": 1e-4}, 0)
    assert {door for door, _ in plain.seen} == {"normalised"}
    assert all(np.all(x >= 0) and np.all(x <= 1) for _, x in plain.seen)  # NLopt's bounds hold there
