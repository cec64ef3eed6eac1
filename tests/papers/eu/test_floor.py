"""credalbook.papers.eu.floor: the EECE a perfectly calibrated estimate scores on a test set, per estimator."""

import numpy as np
import pytest
from scipy import stats

from credalbook.metrics import eece, interval_cuts
from credalbook.papers.eu import eece_floor, study_floors


def _exact_bernoulli_floor(n: int, k: int) -> float:
    """E|X/n - k/n| for X ~ Binomial(n, k/n): the resampling floor of one interval of k ones and n - k zeros."""
    p = k / n
    x = np.arange(n + 1)
    return float(np.sum(stats.binom.pmf(x, n, p) * np.abs(x / n - p)))


def test_one_interval_matches_the_binomial_expectation():
    gain = np.array([1] * 7 + [0] * 23)
    eu = np.linspace(0.0, 1.0, 30)
    exact = _exact_bernoulli_floor(30, 7)
    floor = eece_floor(eu, gain, n_bins=1, n_resamples=40_000, seed=1)
    # Monte-Carlo error: sd of |X/n - p| over 40,000 draws
    se = np.sqrt(7 / 30 * 23 / 30 / 30) / np.sqrt(40_000)
    assert abs(floor - exact) < 4 * se


def test_two_intervals_weight_by_counts():
    # intervals of 10 and 30 points (cut 0.5); each interval's floor is a binomial expectation, weighted by n_m / T
    eu = np.r_[np.full(10, 0.1), np.full(30, 0.9)]
    gain = np.r_[[1] * 5 + [0] * 5, [1] * 3 + [0] * 27]
    want = 10 / 40 * _exact_bernoulli_floor(10, 5) + 30 / 40 * _exact_bernoulli_floor(30, 3)
    assert eece_floor(eu, gain, cuts=[0.5], n_resamples=100_000, seed=2) == pytest.approx(want, rel=0.01)


def test_normal_approximation_agrees_for_large_intervals():
    rng = np.random.default_rng(0)
    eu = rng.uniform(size=40_000)
    gain = rng.choice([-1, 0, 1], size=40_000, p=[0.1, 0.6, 0.3])
    resampled = eece_floor(eu, gain, n_bins=20, n_resamples=4000, seed=3)
    normal = eece_floor(eu, gain, n_bins=20, method="normal")
    assert resampled == pytest.approx(normal, rel=0.02)


def test_a_calibrated_estimate_scores_about_the_floor():
    # gains drawn with expectation equal to the estimate: the EECE of the estimate over repeated test sets
    # averages what eece_floor computes on one of them (within the spread of those averages)
    rng = np.random.default_rng(4)
    scores, floors = [], []
    for _ in range(200):
        eu = rng.uniform(0.0, 0.4, size=2000)
        gain = (rng.uniform(size=2000) < eu).astype(float)
        scores.append(eece(eu, gain, n_bins=20))
        floors.append(eece_floor(eu, gain, n_bins=20, method="normal"))
    assert np.mean(scores) == pytest.approx(np.mean(floors), abs=3 * np.std(scores) / np.sqrt(200))


def test_the_floor_is_per_estimator():
    # mutual-information-like estimates tied at 0 group the points differently from the entropy: other floors
    rng = np.random.default_rng(5)
    n = 3000
    entropy = rng.uniform(0.0, 0.7, n)
    mi = np.maximum(entropy - 0.25, 0.0)  # 36 % exactly 0
    gain = ((rng.uniform(size=n) < entropy / 2).astype(int) - (rng.uniform(size=n) < 0.05)).astype(float)
    f_m = eece_floor(mi, gain, n_bins=20, n_resamples=4000)
    f_e = eece_floor(entropy, gain, n_bins=20, n_resamples=4000)
    # the zeros of the MI share one interval of about 36 % of the points, which cuts its floor
    cuts = interval_cuts(mi, n_bins=20)
    assert (cuts == 0).sum() >= 6
    assert f_m < f_e - 0.002
    assert f_m == pytest.approx(eece_floor(mi, gain, n_bins=20, method="normal"), rel=0.05)


def test_study_floors_use_each_estimators_cuts():
    from types import SimpleNamespace as NS

    rng = np.random.default_rng(6)
    e = rng.uniform(size=400)
    m = np.maximum(e - 0.3, 0.0)
    gain = rng.choice([-1, 0, 1], size=400)
    ev = {k: NS(reliability=NS(cuts=interval_cuts(v, n_bins=10))) for k, v in (("M", m), ("E", e))}
    run = NS(eu={"M": m, "E": e}, gain=gain, evaluations=ev)
    out = study_floors(NS(runs=(run, run)), n_resamples=500, seed=7)
    assert out["M"][0] == out["M"][1] == eece_floor(m, gain, n_bins=10, n_resamples=500, seed=7)
    assert out["E"][0] == eece_floor(e, gain, n_bins=10, n_resamples=500, seed=7) != out["M"][0]


def test_errors():
    with pytest.raises(ValueError, match="method must be"):
        eece_floor([0.1, 0.2], [0, 1], n_bins=1, method="exact")
    with pytest.raises(ValueError, match="gain must have 2 entries"):
        eece_floor([0.1, 0.2], [0, 1, 1], n_bins=1)
    with pytest.raises(ValueError, match="cuts must be non-decreasing"):
        eece_floor([0.1, 0.2, 0.3], [0, 1, 1], cuts=[0.25, 0.15])
    with pytest.raises(ValueError, match="n_resamples"):
        eece_floor([0.1, 0.2], [0, 1], n_bins=1, n_resamples=0)
    with pytest.raises(ValueError, match="study must be"):
        study_floors(object())
