"""Threaded and engine routes of the binned metrics (issue 49, items 5 and 7) against their plain routes.

Each fast route is forced on small data by lowering its threshold, and must give the plain route's
numbers bit for bit: the validation's range and row sums by blocks, the row arg-max and maxima by
blocks of rows, the equal-width engine with its steps binned on the pool, and the Wu & Gales region
errors (all-label ECE, ACCE) from the engine instead of one-hot residuals. Data carry ties, signed
zeros, values on the bin edges and rows of equal entries, where a route that differs would show.
"""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from credalbook import _threads
from credalbook import metrics as M

binning = importlib.import_module("credalbook.metrics.binning")
mean_terms = importlib.import_module("credalbook.metrics.mean_terms")
regions = importlib.import_module("credalbook.metrics.regions")
validation = importlib.import_module("credalbook._validation")


def _data(n, k, seed, edges=15):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.3, size=n)
    p[:50] = np.full(k, 1.0 / k)  # rows of equal entries: the first maximum is the arg-max
    j = rng.integers(0, edges + 1, size=200)  # values on the bin edges j / B (and 1.0)
    rows = rng.integers(50, n, size=200)
    p[rows, 0] = j / edges
    p[rows, 1:] = (1 - p[rows, :1]) / (k - 1)
    p[50:60] = 0.0
    p[50:60, 1] = 1.0
    p[55:60, 0] = -0.0  # signed zeros
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=k - 1)
    return p, y


@pytest.fixture
def two_workers(monkeypatch):
    """At least two threads, whatever this machine's affinity (the routes under test need a pool)."""
    monkeypatch.setattr(_threads, "workers", lambda: 2)
    monkeypatch.setattr(binning, "_workers", lambda: 2)
    _threads._POOL.clear()
    yield
    _threads._POOL.clear()


def _plain_ece(p, y, n_bins):
    """The top-label ECE from NumPy's arg-max and ``numpy.bincount`` over all instances (the definition)."""
    yhat = p.argmax(axis=1)
    conf = p[np.arange(len(p)), yhat]
    ids = binning.equal_width_bin_index(conf, n_bins)
    gap = np.bincount(ids, weights=(yhat == y) - conf, minlength=n_bins)
    return float(np.abs(gap).sum() / len(p))


def test_map_blocks_in_order_and_inline_in_the_pool(two_workers):
    out = _threads.map_blocks(lambda s, e: (s, e, threading.current_thread().name), 10, 3)
    assert [(s, e) for s, e, _ in out] == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert all(name.startswith("credalbook-blocks") for *_, name in out)
    nested = _threads.map_blocks(
        lambda s, e: _threads.map_blocks(lambda a, b: threading.current_thread().name, 4, 2), 4, 2
    )
    assert all(n0 == n1 for inner in nested for n0, n1 in zip(inner, inner[1:]))  # inner blocks run inline
    assert _threads.map_blocks(lambda s, e: e - s, 5, 5) == [5]
    assert _threads.map_blocks(lambda s, e: e - s, 0, 5) == []


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_in_order_consumes_in_order_and_takes_a_job_only_after_the_one_depth_plus_one_back(two_workers, depth):
    """Results are consumed in the jobs' order, whatever order the threads finish in, and job j is taken from the
    iterator only once job j - depth - 1 was consumed (the callers reuse its buffers)."""
    consumed, log = [], []
    gate = threading.Event()

    def call(j):
        if j == 0:
            gate.wait(5)  # the first job finishes last among those in flight
        return j * j, threading.current_thread().name

    def jobs():
        for j in range(9):
            assert j - depth - 1 < 0 or j - depth - 1 in consumed, (j, consumed)
            log.append(j)
            if j == min(depth, 8):
                gate.set()
            yield j, lambda j=j: call(j)

    _threads.in_order(jobs(), lambda key, r: consumed.append(key) or log.append(("c", key, r[0])), depth=depth)
    assert consumed == list(range(9))
    assert [e[2] for e in log if isinstance(e, tuple)] == [j * j for j in range(9)]


def test_in_order_runs_inline_without_depth_or_in_the_pool(two_workers):
    names = []
    _threads.in_order(
        ((j, lambda: threading.current_thread().name) for j in range(3)), lambda k, n: names.append(n), depth=0
    )
    assert names == [threading.current_thread().name] * 3
    nested = _threads.map_blocks(
        lambda s, e: _threads.in_order(
            ((j, lambda: threading.current_thread().name) for j in range(2)), lambda k, n: names.append(n), depth=2
        ),
        2,
        1,
    )
    assert nested == [None, None] and all(n.startswith("credalbook-blocks") for n in names[3:])
    assert len(names) == 7


def test_pool_is_dropped_in_a_forked_child(two_workers):
    _threads.map_blocks(lambda s, e: None, 4, 1)
    assert _threads._POOL
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ok = not _threads._POOL and _threads.map_blocks(lambda s, e: e - s, 6, 2) == [2, 2, 2]
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1"


@pytest.mark.parametrize("shape", [(3000, 7), (2, 1500, 4)])
def test_validation_by_blocks_equals_whole_array(monkeypatch, two_workers, shape):
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
    whole = (p.min(), p.max(), np.einsum("...k->...", p))
    monkeypatch.setattr(validation, "THREADED_CHECK_ENTRIES", 1)
    monkeypatch.setattr(validation, "_CHECK_BLOCK_ENTRIES", 997)
    lo, hi, sums = validation._range_and_row_sums(p)
    assert (lo, hi) == whole[:2]
    np.testing.assert_array_equal(sums, whole[2])
    assert sums.shape == shape[:-1]
    bad = p.copy()
    bad[(0,) * (len(shape) - 1) + (5,) if len(shape) == 2 else (1, 1400, 2)] = np.nan
    assert np.isnan(validation._range_and_row_sums(bad)[0])  # NaN in a late block propagates
    with pytest.raises(ValueError, match="probs must be finite"):
        validation.check_probs(bad)
    off = p.copy()
    off[(2999, 0) if len(shape) == 2 else (1, 1499, 0)] += 0.01
    with pytest.raises(ValueError, match="sum to 1 along the last axis"):
        validation.check_probs(off)


@pytest.mark.parametrize("read_only", [False, True])
def test_row_argmax_by_threaded_blocks_equals_numpy(monkeypatch, two_workers, read_only):
    p, _ = _data(5000, 6, 1)
    p.flags.writeable = not read_only
    monkeypatch.setattr(mean_terms, "_ARGMAX_ROWS", 333)
    monkeypatch.setattr(mean_terms, "THREADED_ARGMAX_ENTRIES", 1)
    top, yhat = mean_terms.row_argmax(p, values=True)
    np.testing.assert_array_equal(yhat, p.argmax(axis=1))
    np.testing.assert_array_equal(top, np.take_along_axis(p, p.argmax(axis=1)[:, None], axis=1))
    assert np.signbit(top).tolist() == np.signbit(np.take_along_axis(p, yhat[:, None], axis=1)).tolist()
    assert top.dtype == p.dtype and yhat.dtype == np.intp
    np.testing.assert_array_equal(mean_terms.row_argmax(p), p.argmax(axis=1))


@pytest.mark.parametrize(("k", "n_bins", "norm", "debiased"), [(1, 15, 1, False), (6, 10, 1, False), (4, 15, 2, True)])
def test_engine_with_steps_on_the_pool_equals_one_thread(monkeypatch, two_workers, k, n_bins, norm, debiased):
    p, y = _data(6000, max(k, 2), 2, edges=n_bins)
    x = np.ascontiguousarray(p[:, :k])
    pos = np.where(y < k, y, -1)
    monkeypatch.setattr(binning, "THREADED_BIN_ENTRIES", 1 << 62)
    serial = binning._equal_width_statistics(x[None], pos[None], n_bins, True)
    monkeypatch.setattr(binning, "THREADED_BIN_ENTRIES", 1)
    monkeypatch.setattr(binning, "_THREADED_CHUNK", 1000)
    calls = []
    submit = ThreadPoolExecutor.submit
    monkeypatch.setattr(ThreadPoolExecutor, "submit", lambda ex, *a: calls.append(1) or submit(ex, *a))
    threaded = binning._equal_width_statistics(x[None], pos[None], n_bins, True)
    assert len(calls) > 2  # the steps did go to the pool
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a, b)
    plain_ece = M.ece_confidence(p, y, n_bins=n_bins, norm=norm, debiased=debiased)
    monkeypatch.setattr(binning, "THREADED_BIN_ENTRIES", 1 << 62)
    assert plain_ece == M.ece_confidence(p, y, n_bins=n_bins, norm=norm, debiased=debiased)


def test_top_label_ece_of_the_fast_routes_equals_its_definition(monkeypatch, two_workers):
    p, y = _data(8000, 5, 3)
    monkeypatch.setattr(binning, "THREADED_BIN_ENTRIES", 1)
    monkeypatch.setattr(binning, "_THREADED_CHUNK", 777)
    monkeypatch.setattr(mean_terms, "_ARGMAX_ROWS", 500)
    monkeypatch.setattr(mean_terms, "THREADED_ARGMAX_ENTRIES", 1)
    monkeypatch.setattr(validation, "THREADED_CHECK_ENTRIES", 1)
    for b in (1, 7, 15):
        assert M.ece_confidence(p, y, n_bins=b) == pytest.approx(_plain_ece(p, y, b), abs=1e-15)


@pytest.mark.parametrize("name", ["all_label_ece", "acce"])
@pytest.mark.parametrize("epsilon", [1 / 30, 0.05, 0.5, 1.0])
@pytest.mark.parametrize("threaded", [False, True])
def test_region_errors_from_the_engine_equal_one_hot_residuals(monkeypatch, two_workers, name, epsilon, threaded):
    p, y = _data(4000, 4, 4, edges=max(1, round(1 / (2 * epsilon))))
    t = binning.one_hot(y, 4)
    ids, n_regions = regions.region_ids(p, epsilon)
    if name == "acce":
        ids = ids + n_regions * np.arange(4)
        n_regions *= 4
    plain = regions._abs_region_sums(ids, p - t, n_regions) / p.size
    if threaded:
        monkeypatch.setattr(binning, "THREADED_BIN_ENTRIES", 1)
        monkeypatch.setattr(binning, "_THREADED_CHUNK", 999)
    got = getattr(M, name)(p, y, epsilon=epsilon)
    assert got == plain  # bit for bit
    assert getattr(M, name)(p, t, epsilon=epsilon) == plain  # label rows: the region route


def test_region_errors_of_binary_scores_and_other_epsilons():
    rng = np.random.default_rng(5)
    s = rng.random(3000)
    y = rng.random(3000) < s
    rows = np.stack([1 - s, s], axis=1)
    for eps in (1 / 30, 0.07, 0.0):  # 0.07: truncated last region; 0: one region per value (not the engine)
        assert M.all_label_ece(s, y, epsilon=eps) == M.all_label_ece(rows, y.astype(int), epsilon=eps)
    assert regions.equal_width_regions(1 / 30) == 15
    assert regions.equal_width_regions(0.07) is None
    assert regions.equal_width_regions(0.0) is None


def test_equal_mass_problems_on_the_shared_pool_equal_one_thread(monkeypatch, two_workers):
    p, y = _data(40_000, 3, 6)  # N >= the threaded minimum: the classes' rows run side by side
    pooled = M.ece_classwise(p, y, n_bins=15, strategy="quantile")
    ace = M.ace(p, y, n_bins=15)
    monkeypatch.setattr(binning, "shared_pool", lambda: None)
    assert M.ece_classwise(p, y, n_bins=15, strategy="quantile") == pooled
    assert M.ace(p, y, n_bins=15) == ace


def test_workers_follow_the_environment(monkeypatch):
    monkeypatch.setenv(_threads.THREADS_ENV, "1")
    assert _threads.workers() == 1
    assert _threads.shared_pool() is None  # one thread: the blocks run inline
    monkeypatch.setenv(_threads.THREADS_ENV, "64")
    assert 1 <= _threads.workers() <= _threads.MAX_WORKERS
    for bad in ("0", "-2", "two"):
        monkeypatch.setenv(_threads.THREADS_ENV, bad)
        with pytest.raises(ValueError, match="CREDALBOOK_NUM_THREADS must be a positive integer"):
            _threads.workers()


@pytest.mark.parametrize("n_bins", [1, 3, 10, 15, 1000])
def test_bin_rule_both_clips_equal_the_edges(monkeypatch, n_bins):
    """The exact equal-width rule with its lower clip on the integers (large blocks) and on the floats (small ones)
    gives the bins of ``bin_index`` on the edges, next to them, at NaN, ±inf, -0.0 and far outside [0, 1]."""
    rng = np.random.default_rng(7)
    e = binning.uniform_edges(n_bins)
    special = [np.nan, np.inf, -np.inf, -0.0, -1e-300, -0.5, -1.0, -1e19, -1e30, 1e30, 1.5, 2.0]
    x = rng.permutation(np.concatenate([rng.random(3000), e, np.nextafter(e, -1), np.nextafter(e, 2), special]))
    want = binning.bin_index(x, e)
    for clip_min in (1, 1 << 40):
        monkeypatch.setattr(binning, "_INT_CLIP_MIN", clip_min)
        m = len(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = binning._equal_width_ids(x, n_bins, np.empty(m, np.intp), np.empty(m), np.empty(m, bool))
        np.testing.assert_array_equal(got, want)
