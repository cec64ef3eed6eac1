"""eu_reliability and eece at ties: an estimate equal to a cut falls in the interval above it.

Ties are the rule for the mutual information, which is clipped at 0 (credalbook.metrics.uncertainty), so the
side a tie goes to decides which intervals are empty and, at an interior cut, how the points are grouped (and
hence the EECE). Each expectation below is computed independently of numpy.searchsorted.
"""

import numpy as np
import pytest

from credalbook.metrics import eece, eu_reliability, evaluate_eu, fit_eu_calibration, interval_cuts, interval_index


def _upper_rule(values, cuts):
    """Interval of each value with ties going up: the number of cuts <= the value (a plain loop)."""
    return np.array([sum(1 for c in cuts if c <= v) for v in values])


@pytest.fixture
def clipped():
    """Mutual-information-like estimates: 30 % exactly 0 (clipped), the rest positive; gains in {-1, 0, 1}."""
    rng = np.random.default_rng(3)
    n = 1000
    eu = np.maximum(rng.normal(0.05, 0.1, n), 0.0)
    eu[rng.choice(n, 300, replace=False)] = 0.0  # at least 300 zeros
    gain = rng.choice([-1, 0, 1], size=n, p=[0.1, 0.7, 0.2])
    return eu, gain


def test_zeros_fall_above_every_zero_cut(clipped):
    eu, gain = clipped
    n_zero = int(np.sum(eu == 0.0))
    assert n_zero >= 300
    cuts = interval_cuts(eu, n_bins=20)
    n_zero_cuts = int(np.sum(cuts == 0.0))
    # cut m is 0 when it is the midpoint of two zeros: round(m * T / 20) < n_zero, for m = 1..6 at least
    assert n_zero_cuts == sum(1 for m in range(1, 20) if round(m * len(eu) / 20) < n_zero) >= 6
    rel = eu_reliability(eu, gain, n_bins=20)
    expected = np.bincount(_upper_rule(eu, cuts), minlength=20)
    np.testing.assert_array_equal(rel.counts, expected)
    # every zero is in interval n_zero_cuts (with the positives below the next cut); the intervals below are empty
    assert (interval_index(eu, cuts)[eu == 0.0] == n_zero_cuts).all()
    members = (eu >= 0.0) & (eu < cuts[n_zero_cuts])
    assert rel.counts[n_zero_cuts] == members.sum() == round((n_zero_cuts + 1) * len(eu) / 20) > n_zero
    assert (rel.counts[:n_zero_cuts] == 0).all() and np.isnan(rel.mean_gain[:n_zero_cuts]).all()
    assert rel.mean_gain[n_zero_cuts] == pytest.approx(np.mean(gain[members]), abs=1e-15)
    np.testing.assert_array_equal(interval_index(eu, cuts), _upper_rule(eu, cuts))


def test_interior_tie_goes_up_and_moves_the_eece():
    # cut = (s_(5) + s_(6)) / 2 = 0.2: the four values 0.2 join the upper interval, so the intervals hold 3 and 7
    eu = np.array([0.1] * 3 + [0.2] * 4 + [0.3] * 3)
    gain = np.array([0, 0, 0, 1, 1, 1, 1, 0, 0, 0])
    rel = eu_reliability(eu, gain, n_bins=2)
    np.testing.assert_array_equal(rel.cuts, [0.2])
    np.testing.assert_array_equal(rel.counts, [3, 7])
    np.testing.assert_allclose(rel.mean_eu, [0.1, 1.7 / 7], rtol=1e-14)
    np.testing.assert_allclose(rel.mean_gain, [0.0, 4 / 7], rtol=1e-14)
    # by hand, ties up: 3/10 |0 - 0.1| + 7/10 |4/7 - 1.7/7| = 0.03 + 0.23 = 0.26;
    # ties down would give 7/10 |4/7 - 1.1/7| + 3/10 |0 - 0.3| = 0.29 + 0.09 = 0.38
    assert eece(eu, gain, n_bins=2) == pytest.approx(0.26, abs=1e-12)


def test_calibration_map_and_evaluation_use_the_same_side(clipped):
    # the calibration map's intervals and the evaluation's count a tied estimate in the same (upper) interval
    eu, gain = clipped
    cuts = interval_cuts(eu, n_bins=20)
    gamma = fit_eu_calibration(eu, gain, cuts=cuts)
    np.testing.assert_array_equal(gamma.counts, np.bincount(_upper_rule(eu, cuts), minlength=20))
    ev = evaluate_eu(eu, gain, cuts=cuts, calibration=gamma)
    np.testing.assert_array_equal(ev.calibrated_reliability.counts, gamma.counts)
