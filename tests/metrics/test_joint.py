"""credalbook.metrics.joint_intervals: several metrics' intervals from one set of resamples, each bit for bit
what the metric's own ``ci=`` gives."""

import numpy as np
import pytest

from credalbook.metrics import (
    accuracy,
    brier_score,
    ece_classwise,
    ece_confidence,
    joint_intervals,
    JOINT_METRICS,
    nll,
    signed_calibration_error,
)

OWN = {
    "accuracy": accuracy,
    "nll": nll,
    "brier_score": brier_score,
    "signed_calibration_error": signed_calibration_error,
    "ece_confidence": ece_confidence,
    "ece_classwise": ece_classwise,
}


def _data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.7, size=n)
    y = np.minimum((rng.random(n)[:, None] > p.cumsum(axis=1)).sum(axis=1), k - 1)
    return p, y


@pytest.mark.parametrize(("n", "k", "n_bins"), [(300, 2, 5), (1000, 4, 10), (40_000, 3, 15)])
def test_equals_each_metric(n, k, n_bins):
    """Every interval and every replicate equal the metric's own ci= (40 000 instances: the threaded chunks)."""
    p, y = _data(n, k)
    out = joint_intervals(p, y, n_bins=n_bins, n_resamples=60, seed=4)
    assert list(out) == list(JOINT_METRICS)
    for name, est in out.items():
        options = {"n_bins": n_bins} if name.startswith("ece") else {}
        own = OWN[name](p, y, ci=0.95, n_resamples=60, seed=4, **options)
        assert est == own and np.array_equal(est.replicates, own.replicates), name


def test_subset_order_and_binary():
    p, y = _data(500, 2, seed=1)
    out = joint_intervals(p[:, 1], y.astype(bool), ("ece_classwise", "accuracy"), n_resamples=50, seed=0)
    p = np.stack([1 - p[:, 1], p[:, 1]], axis=1)  # what binary scores mean
    assert list(out) == ["ece_classwise", "accuracy"]
    assert out["accuracy"] == accuracy(p, y, ci=0.95, n_resamples=50, seed=0)
    assert out["ece_classwise"] == ece_classwise(p, y, ci=0.95, n_resamples=50, seed=0)


def test_means_are_the_gathered_means():
    """The counts route of the means gives the means of the gathered terms up to the order of the sums."""
    from credalbook.metrics.intervals import resample_statistic

    p, y = _data(2000, 3, seed=2)
    est = joint_intervals(p, y, ("brier_score",), n_resamples=40, seed=9)["brier_score"]
    terms = ((p - np.eye(3)[y]) ** 2).sum(axis=1)
    gathered = resample_statistic(lambda t: t.mean(axis=-1), (terms,), n_resamples=40, seed=9)
    np.testing.assert_allclose(est.replicates, gathered, rtol=1e-13, atol=0)


def test_errors():
    p, y = _data(100, 3)
    with pytest.raises(ValueError, match="metrics must be one of"):
        joint_intervals(p, y, ("skce",))
    with pytest.raises(ValueError, match="metrics must be a non-empty sequence"):
        joint_intervals(p, y, ())
    with pytest.raises(ValueError, match="metrics must be a non-empty sequence"):
        joint_intervals(p, y, "accuracy")
    with pytest.raises(ValueError, match="must not repeat"):
        joint_intervals(p, y, ("nll", "nll"))
    with pytest.raises(ValueError, match="ci"):
        joint_intervals(p, y, ci=1.5)
    with pytest.raises(ValueError, match="labels"):
        joint_intervals(p, y[:-1])
