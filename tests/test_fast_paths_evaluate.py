"""The fast routes of ``credalbook evaluate`` (issue 49, item 5) against the public calls they replace, on fixed data.

Each route shares work between calls (one validation and one binning for a curve and its band, the
classwise weights built class by class, one set of resample counts for several models); the
numbers must be those of the public calls bit for bit, and the random streams must end in the same
state.
"""

from __future__ import annotations

import numpy as np
import pytest

from credalbook.metrics import consistency_bands, reliability_curve


def _data(n, k, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.7, size=n)
    y = (rng.random((n, 1)) > np.cumsum(p, axis=1)).sum(axis=1).clip(max=k - 1)
    return p, y


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("kind", ["confidence", "classwise", None])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("binary", [False, True])
def test_display_curves_and_bands_as_public_calls(kind, strategy, binary):
    import matplotlib

    matplotlib.use("Agg")
    from credalbook.plotting import ReliabilityDisplay

    p, y = _data(3000, 2 if binary else 4, 3)
    probs = p[:, 1] if binary else p
    if binary and kind == "classwise":
        kind_args = {"kind": "classwise", "class_index": 1}
    else:
        kind_args = {"kind": kind}
    rng = np.random.default_rng(11)
    d = ReliabilityDisplay.from_predictions(
        probs, y, **kind_args, strategy=strategy, n_bins=7, n_resamples=50, seed=rng
    )
    ref_rng = np.random.default_rng(11)
    per_class = kind == "classwise" and not binary
    classes = range(p.shape[1]) if per_class else [kind_args.get("class_index")]
    curves = d.curve if per_class else (d.curve,)
    bands = d.band if per_class else (d.band,)
    want_kind = kind_args["kind"]
    if want_kind is None:
        want_kind, cls = ("classwise", 1) if binary else ("confidence", None)
        classes = [cls]
    ref_curves = [
        reliability_curve(probs, y, kind=want_kind, class_index=c, n_bins=7, strategy=strategy) for c in classes
    ]
    ref_bands = [
        consistency_bands(
            probs, kind=want_kind, class_index=c, n_bins=7, strategy=strategy, n_resamples=50, seed=ref_rng
        )
        for c in classes
    ]
    assert len(curves) == len(ref_curves)
    for got, want in zip(curves, ref_curves):
        for field in ("bin_edges", "counts", "mean_predicted", "observed"):
            _same(getattr(got, field), getattr(want, field))
        assert (got.kind, got.class_index, got.binary) == (want.kind, want.class_index, want.binary)
    for got, want in zip(bands, ref_bands):
        for field in ("bin_edges", "counts", "mean_predicted", "low", "high"):
            _same(getattr(got, field), getattr(want, field))
        assert (got.kind, got.class_index, got.ci, got.n_resamples) == (want.kind, want.class_index, want.ci, 50)
    assert rng.random() == ref_rng.random()  # the same draws, the generator left in the same state


# ------------------------------------------------------------------------------------------
# blocked construction of the binned errors' weights and of the Brier terms (bounded temporaries)
# ------------------------------------------------------------------------------------------
def _cells_statistic_reference(x, hit, n_bins, norm, debiased):
    """The cells and weights of ``binned_core._cells_counts_statistic`` as built before blocks (verbatim)."""
    from credalbook.metrics.binning import equal_width_bin_index

    n, k = x.shape
    cells = equal_width_bin_index(x, n_bins)
    cells += n_bins * np.arange(k, dtype=np.intp)
    index = np.int32 if n * k < 2**31 and k > 1 else np.intp
    cells = cells.astype(index).ravel()
    w = np.negative(x)
    w[hit] += 1.0
    return cells, w


@pytest.mark.parametrize(("n", "k", "block"), [(1000, 4, 64), (999, 10, 70), (517, 1, 100), (300, 3, 1 << 20)])
@pytest.mark.parametrize(("norm", "debiased"), [(1, False), (2, True)])
def test_cells_counts_statistic_blocks(n, k, block, norm, debiased, monkeypatch):
    from credalbook.metrics import binned_core

    p, y = _data(n, max(k, 2), 5)
    x = p[:, :k].copy()
    x[::7] = np.round(x[::7], 1)  # values on bin edges
    hit = np.zeros(x.shape, dtype=bool)
    rows = y < k
    hit[np.flatnonzero(rows), y[rows]] = True
    ref_cells, ref_w = _cells_statistic_reference(x, hit, 9, norm, debiased)
    reference = binned_core._cells_counts_statistic(x, hit, n_bins=9, norm=norm, debiased=debiased)
    monkeypatch.setattr(binned_core, "_BLOCK_ENTRIES", block)
    index = np.int32 if k > 1 else np.intp
    cells, w = binned_core._cells_and_weights(x, hit, 9, index)
    assert cells.dtype == ref_cells.dtype
    _same(cells, ref_cells)
    _same(w, ref_w)
    assert np.signbit(w).tolist() == np.signbit(ref_w).tolist()
    blocked = binned_core._cells_counts_statistic(x, hit, n_bins=9, norm=norm, debiased=debiased)
    rng = np.random.default_rng(2)
    counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(5)]).astype(np.float64)
    _same(blocked(counts), reference(counts))


@pytest.mark.parametrize("block", [7, 64, 1000])
def test_brier_terms_blocks(block, monkeypatch):
    from credalbook.metrics import mean_terms

    p, y = _data(2003, 6, 8)
    reference = ((p - mean_terms.one_hot(y, 6)) ** 2).sum(axis=-1)
    monkeypatch.setattr(mean_terms, "_BLOCK_ENTRIES", block)
    _same(mean_terms._brier_terms(p, y), reference)
    batched = np.stack([p, p[::-1]])
    _same(mean_terms._brier_terms(batched, np.stack([y, y[::-1]]))[0], reference)


def test_joint_intervals_as_each_metric():
    from credalbook import metrics

    p, y = _data(4000, 5, 9)
    out = metrics.joint_intervals(p, y, metrics.JOINT_METRICS, n_bins=8, n_resamples=60, seed=4)
    for name, est in out.items():
        fn = getattr(metrics, name)
        options = {"n_bins": 8} if name.startswith("ece") else {}
        own = fn(p, y, ci=0.95, n_resamples=60, seed=4, **options)
        assert (est.value, est.low, est.high) == (own.value, own.low, own.high), name
        _same(est.replicates, own.replicates)
    binary = metrics.joint_intervals(p[:, 0], (y == 0).astype(int), ("accuracy", "brier_score"), n_resamples=30, seed=1)
    assert binary["brier_score"] == metrics.brier_score(p[:, 0], (y == 0).astype(int), ci=0.95, n_resamples=30, seed=1)


# ------------------------------------------------------------------------------------------
# credalbook evaluate: the tests in a thread beside the metrics, as one after the other
# ------------------------------------------------------------------------------------------
def test_evaluate_tests_in_thread_as_in_order(tmp_path, monkeypatch, capsys):
    import json

    import matplotlib

    matplotlib.use("Agg")
    from credalbook.cli import evaluation, main

    p, y = _data(1500, 4, 12)
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "y.npy", y)
    tests = "consistency,skce_linear,hosmer_lemeshow,consistency_classwise"
    reports = {}
    for overlap in (0, evaluation.OVERLAP_MAX_N):
        monkeypatch.setattr(evaluation, "OVERLAP_MAX_N", overlap)
        out = tmp_path / f"out{overlap}"
        argv = ["evaluate", "--probs", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy")]
        assert (
            main([*argv, "--n-resamples", "40", "--tests", tests, "--seed", "3", "--no-plots", "--out", str(out)]) == 0
        )
        report = json.loads((out / "report.json").read_text())
        steps = set(report.pop("timings_s"))
        assert {f"test {t}" for t in tests.split(",")} <= steps
        reports[overlap] = report
    assert reports[0] == reports[evaluation.OVERLAP_MAX_N]
    assert len(reports[0]["models"]["model"]["tests"]) == 4
    capsys.readouterr()


# ------------------------------------------------------------------------------------------
# credalbook evaluate: one thread imports at a time (CPython's import locks), one BLAS thread
# ------------------------------------------------------------------------------------------
_IMPORT_PROBE = """
import json, sys, threading
records = []
def importer_alive():
    return any(t.name.startswith("credalbook-imports") and t.is_alive() for t in threading.enumerate())
class Probe:
    def find_spec(self, name, path=None, target=None):
        records.append([name, threading.current_thread().name, importer_alive()])
        return None
sys.meta_path.insert(0, Probe())
from credalbook.cli import main
rc = main(sys.argv[1:])
print("IMPORTS", json.dumps(records))
sys.exit(rc)
"""


@pytest.mark.parametrize("case", ["multiclass", "binary", "ensemble", "two-models", "no-ci"])
def test_evaluate_imports_one_thread_at_a_time(tmp_path, case):
    """Two threads importing SciPy at once failed one run in six at N = 10⁶ with ``_DeadlockError``. The report
    imports what its tests and figures need in one thread of its own (``credalbook-imports``) while the
    metrics' intervals run: no other thread imports anything, and the main thread imports nothing while that
    thread is alive (a planted lazy import in the tests', the diagrams' or the metrics' code shows up here on
    any data)."""
    import json
    import subprocess
    import sys

    p, y = _data(3000, 4, 5)
    args = ["evaluate", "--labels", str(tmp_path / "y.npy"), "--n-resamples", "20", "--out", str(tmp_path / "out")]
    if case == "binary":
        np.save(tmp_path / "p.npy", p[:, 0])
        y = (y == 0).astype(int)
        args += ["--probs", str(tmp_path / "p.npy")]
    elif case == "ensemble":
        rng = np.random.default_rng(0)
        ens = np.stack([p, rng.dirichlet(np.ones(4), size=3000)], axis=1)
        np.save(tmp_path / "p.npy", ens)
        args += ["--probs", str(tmp_path / "p.npy"), "--ensemble"]
    else:
        np.save(tmp_path / "p.npy", p)
        args += ["--probs", str(tmp_path / "p.npy")]
        if case == "two-models":
            np.save(tmp_path / "q.npy", p[:, ::-1].copy())
            args += ["--probs", str(tmp_path / "q.npy"), "--tests", "consistency,skce_linear,consistency_classwise"]
        if case == "no-ci":
            args += ["--no-ci"]
    np.save(tmp_path / "y.npy", y)
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, *args], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("IMPORTS")]
    records = json.loads(line.split(" ", 1)[1])
    by_importer = [name for name, thread, _ in records if thread.startswith("credalbook-imports")]
    assert "scipy.stats" in by_importer  # the imports did run in their thread
    assert [r for r in records if r[1] != "MainThread" and not r[1].startswith("credalbook-imports")] == []
    assert [name for name, thread, alive in records if thread == "MainThread" and alive] == []


def test_evaluate_one_blas_thread_same_report(tmp_path, monkeypatch, capsys):
    """From ``ONE_BLAS_THREAD_MIN_N`` the report runs BLAS on one thread; its numbers are those with the
    library's BLAS threads (the resampling's products have at most 8 rows there)."""
    import json

    from credalbook.cli import evaluation, main
    from credalbook.metrics import intervals

    assert evaluation.ONE_BLAS_THREAD_MIN_N == intervals.BLOCKED_MIN_N
    p, y = _data(evaluation.ONE_BLAS_THREAD_MIN_N + 1000, 5, 21)
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "y.npy", y)
    reports = {}
    for limit in (evaluation.ONE_BLAS_THREAD_MIN_N, 10**12):
        monkeypatch.setattr(evaluation, "ONE_BLAS_THREAD_MIN_N", limit)
        out = tmp_path / f"out{limit}"
        argv = ["evaluate", "--probs", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy")]
        assert main([*argv, "--n-resamples", "40", "--seed", "2", "--no-plots", "--out", str(out)]) == 0
        report = json.loads((out / "report.json").read_text())
        report.pop("timings_s")
        reports[limit] = report
    assert reports[evaluation.ONE_BLAS_THREAD_MIN_N] == reports[10**12]
    capsys.readouterr()


def test_one_blas_thread_limits_and_restores():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from credalbook.cli.evaluation import _one_blas_thread, ONE_BLAS_THREAD_MIN_N

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]

    before = blas_threads()
    with _one_blas_thread(ONE_BLAS_THREAD_MIN_N):
        assert all(n == 1 for n in blas_threads())
    assert blas_threads() == before
    with _one_blas_thread(ONE_BLAS_THREAD_MIN_N - 1):
        assert blas_threads() == before
