"""Routes that bound the memory of ``credalbook evaluate`` at large N (issue 49, item 5) against the plain ones.

The Hosmer-Lemeshow resampling test takes the class-major copy of the predictions in groups of
classes above ``_CLASS_ROWS_BYTES`` (and the cumulative probabilities chunk by chunk); the joint
bootstrap intervals take the classwise weights in groups of classes above ``CLASSWISE_BYTES``, each
group on the same resamples drawn again: every number must be that of the one-pass route bit for bit.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

hl = importlib.import_module("credalbook.stats.hosmer_lemeshow")


def _data(n, k, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.5, size=n)
    p[:7] = p[7]  # ties at the bin edges
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=k - 1)
    return p, y


@pytest.mark.parametrize("k", [2, 5, 7])
def test_cumulative_sums_of_row_chunks_equal_the_class_major_cumsum(k):
    p, _ = _data(3000, k, 0)
    whole = np.cumsum(np.ascontiguousarray(p.T)[:-1], axis=0)
    for s, e in [(0, 700), (700, 1400), (2800, 3000)]:
        np.testing.assert_array_equal(np.cumsum(p[s:e, :-1], axis=1).T, whole[:, s:e])


@pytest.mark.parametrize(("k", "per"), [(5, 1), (5, 2), (7, 3), (3, 5)])
def test_cells_in_groups_of_classes_equal_one_copy(monkeypatch, k, per):
    p, _ = _data(2000, k, 1)
    whole = hl._cells(p, 10, "per_class", by_class=np.ascontiguousarray(p.T))
    monkeypatch.setattr(hl, "_CLASS_ROWS_BYTES", per * 8 * 2000)
    grouped = hl._cells(p, 10, "per_class")
    for a, b in zip(whole, grouped):
        np.testing.assert_array_equal(a, b)
    assert grouped[2].strides == whole[2].strides  # the sums laid out as before


@pytest.mark.parametrize("k", [4, 6])
def test_hosmer_lemeshow_in_groups_of_classes_equals_one_copy(monkeypatch, k):
    p, y = _data(2500, k, 2)
    p = p**2 / (p**2).sum(axis=1, keepdims=True)  # over-confident: labels drawn from the original p
    monkeypatch.setattr(hl, "_INSTANCE_CHUNK", 700)  # several chunks of instances
    whole = hl.hosmer_lemeshow(p, y, n_resamples=59, seed=3)
    monkeypatch.setattr(hl, "_CLASS_ROWS_BYTES", 8 * 2500 + 8)  # below p.nbytes: one class per group, cdf by chunks
    grouped = hl.hosmer_lemeshow(p, y, n_resamples=59, seed=3)
    assert (grouped.statistic, grouped.count_statistic, grouped.pvalue, grouped.threshold) == (
        whole.statistic,
        whole.count_statistic,
        whole.pvalue,
        whole.threshold,
    )
    np.testing.assert_array_equal(grouped.null_distribution, whole.null_distribution)
    assert whole.pvalue < 0.05


bc = importlib.import_module("credalbook.metrics.binned_core")


@pytest.mark.parametrize("k", [4, 7, 10])
@pytest.mark.parametrize("metrics", [("ece_classwise",), ("accuracy", "ece_classwise", "nll", "ece_confidence")])
def test_joint_intervals_with_classes_in_groups_equal_one_pass(monkeypatch, k, metrics):
    from credalbook.metrics import ece_classwise, joint_intervals

    p, y = _data(1500, k, 4)
    whole = joint_intervals(p, y, metrics, n_bins=8, n_resamples=40, seed=5)
    monkeypatch.setattr(bc, "CLASSWISE_BYTES", 12 * 1500 * 2)  # groups of two or three classes
    assert len(bc.class_groups(1500, k)) >= 2
    grouped = joint_intervals(p, y, metrics, n_bins=8, n_resamples=40, seed=5)
    assert list(grouped) == list(whole)
    for name in metrics:
        assert grouped[name] == whole[name]
        np.testing.assert_array_equal(grouped[name].replicates, whole[name].replicates)
    own = ece_classwise(p, y, n_bins=8, ci=0.95, n_resamples=40, seed=5)
    assert grouped["ece_classwise"] == own
    np.testing.assert_array_equal(grouped["ece_classwise"].replicates, own.replicates)


def test_joint_intervals_in_groups_leave_a_generator_where_one_pass_does(monkeypatch):
    from credalbook.metrics import joint_intervals

    p, y = _data(1200, 6, 5)
    one, passes = np.random.default_rng(9), np.random.default_rng(9)
    whole = joint_intervals(p, y, ("brier_score", "ece_classwise"), n_resamples=30, seed=one)
    monkeypatch.setattr(bc, "CLASSWISE_BYTES", 12 * 1200 * 2)
    grouped = joint_intervals(p, y, ("brier_score", "ece_classwise"), n_resamples=30, seed=passes)
    for name in whole:
        np.testing.assert_array_equal(grouped[name].replicates, whole[name].replicates)
    assert one.random() == passes.random()


@pytest.mark.parametrize(("n", "k"), [(10**6, 10), (10**7, 10), (10**7, 3), (10**7, 5), (10**8, 10), (10**9, 2)])
def test_class_groups_cover_the_classes_in_groups_of_two_or_more(n, k):
    groups = bc.class_groups(n, k)
    if 12 * n * k <= bc.CLASSWISE_BYTES or k < 4:
        assert groups is None
        return
    assert [g.start for g in groups][0] == 0 and groups[-1].stop == k
    assert all(a.stop == b.start for a, b in zip(groups, groups[1:]))
    assert all(g.stop - g.start >= 2 for g in groups)
    assert all(12 * n * (g.stop - g.start) <= max(bc.CLASSWISE_BYTES, 12 * n * 2) for g in groups)


def test_resample_counts_in_one_thread_above_the_in_flight_bound_gives_the_same_replicates(monkeypatch):
    from credalbook.metrics import ece_classwise

    intervals = importlib.import_module("credalbook.metrics.intervals")
    p, y = _data(40_000, 3, 6)
    assert p.shape[0] >= intervals.BLOCKED_MIN_N
    threaded = ece_classwise(p, y, ci=0.9, n_resamples=12, seed=1)
    monkeypatch.setattr(intervals, "_IN_FLIGHT_BYTES", 1)
    calls = []
    real = intervals._in_threads
    monkeypatch.setattr(
        intervals, "_in_threads", lambda jobs, r, workers: calls.append(workers) or real(jobs, r, workers)
    )
    plain = ece_classwise(p, y, ci=0.9, n_resamples=12, seed=1)
    assert calls == [1]
    np.testing.assert_array_equal(plain.replicates, threaded.replicates)


@pytest.mark.parametrize("n", [10, 40_000, 100_003])
def test_row_argmax_of_a_read_only_array_equals_numpy(n):
    from credalbook.metrics.mean_terms import row_argmax

    rng = np.random.default_rng(n)
    p = rng.integers(0, 3, size=(n, 6)).astype(np.float64)  # many ties: the first maximal index
    ro = p.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(row_argmax(ro), p.argmax(axis=-1))
    np.testing.assert_array_equal(row_argmax(p), p.argmax(axis=-1))
    assert row_argmax(ro).dtype == p.argmax(axis=-1).dtype


def test_bin_sums_of_one_row_equal_the_offset_route():
    from credalbook.metrics.binning import bin_sums

    rng = np.random.default_rng(0)
    ids, w = rng.integers(0, 7, size=5000), rng.random(5000)
    offset = np.bincount((ids.reshape(1, -1) + 7 * np.arange(1)[:, None]).ravel(), weights=w, minlength=7)
    np.testing.assert_array_equal(bin_sums(ids, w, 7), offset)
    np.testing.assert_array_equal(bin_sums(ids.astype(np.uint8), None, 7), np.bincount(ids, minlength=7))
    np.testing.assert_array_equal(bin_sums(ids[None], w[None], 7)[0], offset)
