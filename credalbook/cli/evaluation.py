"""The report of ``credalbook evaluate``: every metric and test of every model, timed, printed and written.

:func:`evaluate` reads the inputs, computes the metrics (:func:`compute_metric`) and the tests
(:func:`run_test`, :func:`run_set_test`) of each model with the command's settings, prints each
model's table as soon as it is computed (:mod:`credalbook.cli.output`) and, with ``--out``, writes
the tables, the figures and ``report.json`` (:mod:`credalbook.cli.files`). The metrics, the tests
and the plotting are imported inside the functions that use them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import sys
import time
from pathlib import Path

import numpy as np

from credalbook._threads import capped, cores
from credalbook.cli.files import (
    output_folder,
    write_reliability_figures,
    write_report,
    write_tables,
    write_test_figures,
)
from credalbook.cli.inputs import InputError, load_models
from credalbook.cli.options import DEFAULT_BINARY_TESTS, default_n_resamples, DEFAULT_TESTS
from credalbook.cli.output import print_comparison, print_done, print_header, print_model, print_set_test
from credalbook.cli.reproduce import input_lines, library_calls

__all__ = ["evaluate", "compute_metric", "run_test", "run_set_test", "OVERLAP_MAX_N"]

#: Largest N whose reliability diagrams are drawn in a thread while the metrics are computed.
OVERLAP_MAX_N = 2 * 10**6

#: Smallest N from which the report runs BLAS on one thread (:func:`_one_blas_thread`): the N from which the
#: bootstrap replicates are counted on threads of their own, 8 replicates per product
#: (:func:`credalbook.metrics.intervals.resample_counts`).
ONE_BLAS_THREAD_MIN_N = 1 << 15


def _one_blas_thread(n: int):
    """BLAS on one thread while the report of ``n`` instances is computed (from :data:`ONE_BLAS_THREAD_MIN_N`).

    The report already keeps the cores busy with threads of its own: the tests beside the metrics, the
    diagrams, the workers that count the bootstrap replicates. OpenBLAS's threads beside them wait for
    each other: at N = 10⁶, K = 10 on two cores the default command took 5.4 s with them and 4.5 s
    without (user time 7.2 → 5.9 s, system 1.9 → 1.1 s). The numbers are the same: the products there
    have at most 8 rows, each row's sum one thread's (a test compares the reports with and without the
    limit). Below that N a product can have hundreds of rows, which OpenBLAS splits differently on one
    and on several threads, so the report keeps the library's threads and its numbers bit for bit.
    """
    if n < ONE_BLAS_THREAD_MIN_N:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits  # installed with scikit-learn
    except ImportError:  # pragma: no cover
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _metric_function(name: str, probs: np.ndarray, n_bins: int):
    from credalbook import metrics

    if name == "skce":
        # the kernel of the SKCE tests (Widmann et al. 2019, Sec. 6): Laplacian, median-heuristic
        # bandwidth; the value is then the statistic of the "skce_linear" test
        kernel = metrics.LaplacianKernel(metrics.median_heuristic(probs))
        return functools.partial(metrics.skce, kernel=kernel, estimator="linear")
    return {
        "accuracy": metrics.accuracy,
        "nll": metrics.nll,
        "brier_score": metrics.brier_score,
        "ece_confidence": functools.partial(metrics.ece_confidence, n_bins=n_bins),
        "ece_classwise": functools.partial(metrics.ece_classwise, n_bins=n_bins),
        "signed_calibration_error": functools.partial(metrics.signed_calibration_error, kind="confidence"),
    }[name]


def _has_ci(fn) -> bool:
    base = fn.func if isinstance(fn, functools.partial) else fn
    return "ci" in inspect.signature(base).parameters


def compute_metric(probs, labels, name: str, *, n_bins: int, ci: float | None, n_resamples: int, seed):
    """One metric of the table: an :class:`~credalbook.metrics.Estimate` (with ``ci``) or a float.

    Every metric of the table has a ``ci=`` keyword (its own vectorised bootstrap: accuracy, NLL
    and Brier score resample their per-instance terms, the binned errors their fixed bins, the
    SKCE its independent terms), which gives the interval of
    :func:`credalbook.metrics.bootstrap_ci` with the same seed; anything else goes through
    :func:`~credalbook.metrics.bootstrap_ci`.
    """
    from credalbook.metrics import bootstrap_ci

    fn = _metric_function(name, probs, n_bins)
    if ci is None:
        return float(fn(probs, labels))
    if _has_ci(fn):
        return fn(probs, labels, ci=ci, n_resamples=n_resamples, seed=seed)
    return bootstrap_ci(probs, labels, fn, ci=ci, n_resamples=n_resamples, seed=seed)


def run_test(probs, labels, name: str, *, n_bins: int, n_resamples: int, alpha: float, seed, n_jobs):
    """One calibration test by its ``--tests`` name (:func:`credalbook.stats.calibration_test`)."""
    from credalbook.stats import calibration_test

    method, measure = {
        "consistency": ("consistency", "ece_confidence"),
        "consistency_classwise": ("consistency", "ece_classwise"),
    }.get(name, (name, None))
    options = {} if measure is None else {"measure": measure}
    return calibration_test(
        probs,
        labels,
        method=method,
        n_bins=n_bins,
        n_resamples=n_resamples,
        alpha=alpha,
        seed=seed,
        n_jobs=n_jobs,
        direction=False,
        **options,
    )


def run_set_test(ens, labels, *, n_bins: int, n_resamples: int, alpha: float, seed, n_jobs):
    """The test of a set of classifiers (Mortier et al. 2023) with the top-label ECE."""
    from credalbook.stats import NULL_CHUNK, set_calibration_test

    # without --n-jobs: the one random stream of the null sample that this command has always drawn
    return set_calibration_test(
        ens,
        labels,
        measure="ece_confidence",
        n_bins=n_bins,
        n_resamples=n_resamples,
        alpha=alpha,
        seed=seed,
        n_jobs=n_jobs,
        chunk_size=None if n_jobs is None else NULL_CHUNK,
    )


class _Clock:
    """Wall time of named steps; a ValueError inside a step (an option that does not fit the data,
    e.g. more Hosmer-Lemeshow groups than instances) becomes an :class:`InputError` naming the step."""

    def __init__(self):
        self.times: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, step: str):
        start = time.perf_counter()
        try:
            yield
        except InputError:
            raise
        except ValueError as err:
            raise InputError(f"{step}: {err}") from None
        finally:
            self.times[step] = self.times.get(step, 0.0) + time.perf_counter() - start


def _estimate_dict(value) -> dict:
    """An :class:`~credalbook.metrics.Estimate`, or a float (``--no-ci``), as plain numbers for JSON and CSV."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return {"value": float(value), "low": None, "high": None, "level": None, "n_resamples": 0, "method": None}


def _expand(models: dict) -> dict[str, np.ndarray]:
    """The evaluated models: each input model, or for ``--ensemble`` its members and their mean."""
    out = {}
    for name, m in models.items():
        if m.probs.ndim == 2:
            out[name] = m.probs
            continue
        out.update({f"member_{j}": np.ascontiguousarray(m.probs[:, j]) for j in range(m.probs.shape[1])})
        out["mean"] = m.probs.mean(axis=1)
    return out


def _versions() -> dict:
    import platform
    from importlib import metadata

    from credalbook import __version__

    out = {"credalbook": __version__, "python": platform.python_version()}
    for package in ("numpy", "scipy", "torch", "matplotlib"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


def _baseline(args, models: dict) -> str | None:
    """The model the others are compared with: ``--baseline``, default the first; None for one model."""
    reference = getattr(args, "baseline", None)
    if len(models) == 1:
        if reference is not None and reference not in models:
            raise InputError(f"--baseline {reference!r}: no model of that name (models: {', '.join(models)})")
        return None
    reference = reference or next(iter(models))
    if reference not in models:
        raise InputError(f"--baseline {reference!r}: no model of that name (models: {', '.join(models)})")
    return reference


def _new_report(args, models: dict, times: dict) -> dict:
    """The report before anything is computed: versions, inputs, settings, and empty results."""
    from credalbook import __version__

    first = next(iter(models.values()))
    n, k = first.probs.shape[0], first.probs.shape[-1]
    settings = {
        "n_bins": args.n_bins,
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "ci": None if args.no_ci else args.ci,
        "seed": args.seed,
        "n_jobs": args.n_jobs,
        "tests": list(args.tests),
        "metrics": list(args.metrics),
        "baseline": _baseline(args, models),
    }
    inputs = {
        "probs": first.file if len(models) == 1 else [m.file for m in models.values()],
        "labels": str(args.labels),
        "logits": bool(args.logits),
        "ensemble": bool(args.ensemble),
        "n": int(n),
        "n_classes": int(k),
        "n_members": int(first.probs.shape[1]) if args.ensemble else None,
        "binary": bool(first.binary),
        "key": args.key,
        "labels_key": args.labels_key,
        "models": {
            name: {"file": m.file, "logits": m.logits, "shape": list(m.shape), "binary": m.binary}
            for name, m in models.items()
        },
    }
    return {
        "credalbook_version": __version__,
        "versions": _versions(),
        "inputs": inputs,
        "settings": settings,
        "models": {},
        "set_test": None,
        "comparison": None,
        "timings_s": times,
        "files": [],
    }


def _joint_metrics(args, p: np.ndarray, labels: np.ndarray, names, ci, clock: _Clock) -> dict:
    """The intervals of the metrics :func:`credalbook.metrics.joint_intervals` takes, from one set of
    resamples (each what the metric's own ``ci=`` gives, bit for bit); the signed error too when the
    tests need their direction."""
    from credalbook.metrics import joint_intervals, JOINT_METRICS

    joint = [n for n in names if n in JOINT_METRICS]
    if args.tests and "signed_calibration_error" not in joint:
        joint.append("signed_calibration_error")
    if ci is None or not joint:
        return {}
    with clock("metric intervals (" + ", ".join(joint) + ")"):
        return joint_intervals(
            p, labels, joint, n_bins=args.n_bins, ci=ci, n_resamples=args.n_resamples, seed=args.seed
        )


def _evaluate_model(args, p: np.ndarray, labels: np.ndarray, clock: _Clock, imports: _Imports) -> tuple[dict, dict]:
    """The metrics (name → Estimate or float) and the tests (name → result) of one model, each step timed.

    The signed calibration error is computed once, with the metrics' interval, and every test result
    carries it as its direction (``details["direction"]``, what :func:`~credalbook.stats.calibration_test`
    attaches with the same resamples and seed). Up to :data:`OVERLAP_MAX_N` instances the tests run in
    a thread while the metrics are computed (each draws from its own generator of ``--seed``, so the
    numbers are those of running them one after the other); above it one after the other, so that
    their temporary arrays do not add to those of the metrics. The metrics' intervals start while ``imports``
    (its own thread) imports what the tests and figures need; everything else waits for it.
    """
    pending, skce_terms = None, _shared_skce(args, p, labels)
    imports.start()
    if args.tests and labels.shape[0] <= OVERLAP_MAX_N:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="credalbook-tests")
        pending = pool.submit(_tests_with_clock, args, p, labels, skce_terms, imports)
        pool.shutdown(wait=False)
    # while the tests' thread keeps a core busy, the metrics leave it to them (on two cores: 7.8 s → 6.8 s)
    with capped(max(1, cores() - 1)) if pending is not None else contextlib.nullcontext():
        metrics, direction = _model_metrics(args, p, labels, clock, imports, skce_terms)
    if pending is None:
        tests = _run_tests(args, p, labels, clock, skce_terms)
    else:
        tests, test_clock = _wait(pending, clock)
        for step, seconds in test_clock.times.items():
            clock.times[step] = clock.times.get(step, 0.0) + seconds
    for result in tests.values():
        result.details["direction"] = direction
    return metrics, tests


def _shared_skce(args, p: np.ndarray, labels: np.ndarray):
    """The linear SKCE terms shared by the ``skce`` metric and the ``skce_linear`` test, when both run."""
    from credalbook.cli.shared_skce import SharedSKCE

    shared = SharedSKCE(p, labels)
    return shared if "skce" in args.metrics and "skce_linear" in args.tests and shared.usable else None


def _wait(pending, clock: _Clock):
    """The result of the tests' thread; the wait is a step of its own (the tests' own steps ran meanwhile)."""
    with clock("wait for tests"):
        return pending.result()


def _model_metrics(args, p: np.ndarray, labels: np.ndarray, clock: _Clock, imports: _Imports, skce_terms=None):
    """The metrics of one model (name → Estimate or float) and the direction of the tests (the signed error)."""
    ci = None if args.no_ci else args.ci
    names = tuple(args.metrics)
    shared = _joint_metrics(args, p, labels, names, ci, clock)  # imports nothing: it runs beside ``imports``
    with clock("wait for imports"):
        imports.wait()
    metrics = {}
    for name in names:
        if name in shared:
            metrics[name] = shared[name]
            continue
        with clock(f"metric {name}"):
            if name == "skce" and skce_terms is not None:
                metrics[name] = skce_terms.metric(ci=ci, n_resamples=args.n_resamples, seed=args.seed)
                continue
            metrics[name] = compute_metric(
                p, labels, name, n_bins=args.n_bins, ci=ci, n_resamples=args.n_resamples, seed=args.seed
            )
    direction = metrics.get("signed_calibration_error", shared.get("signed_calibration_error"))
    if direction is None and args.tests:
        with clock("metric signed_calibration_error"):
            direction = compute_metric(
                p,
                labels,
                "signed_calibration_error",
                n_bins=args.n_bins,
                ci=ci,
                n_resamples=args.n_resamples,
                seed=args.seed,
            )
    if hasattr(direction, "replicates"):
        direction = dataclasses.replace(direction, replicates=None)
    return metrics, direction


def _run_tests(args, p: np.ndarray, labels: np.ndarray, clock: _Clock, skce_terms=None):
    """The tests of one model (name → result), each step timed on ``clock``."""
    tests = {}
    for name in args.tests:
        with clock(f"test {name}"):
            if name == "skce_linear" and skce_terms is not None:
                tests[name] = skce_terms.test(alpha=args.alpha)
                continue
            tests[name] = run_test(
                p,
                labels,
                name,
                n_bins=args.n_bins,
                n_resamples=args.n_resamples,
                alpha=args.alpha,
                seed=args.seed,
                n_jobs=args.n_jobs,
            )
    return tests


def _tests_with_clock(args, p: np.ndarray, labels: np.ndarray, skce_terms=None, imports: _Imports | None = None):
    """:func:`_run_tests` on a clock of its own (for a thread), once ``imports`` are done: ``(tests, clock)``."""
    clock = _Clock()
    if imports is not None:
        with clock("tests wait for imports"):
            imports.wait()
    return _run_tests(args, p, labels, clock, skce_terms), clock


def direction_text(estimate) -> str | None:
    """Over- or under-confident, from the signed calibration error (:func:`credalbook.metrics.describe_direction`)."""
    if estimate is None:
        return None
    from credalbook.metrics import describe_direction

    return describe_direction(estimate)


def decision_line(result, direction: str | None) -> str:
    """The decision of a test in words, with the direction of the error when it rejects."""
    if not result.rejected:
        return "keep H0"
    line = result.decision_line() if hasattr(result, "decision_line") else ""
    if result.details.get("direction") is not None and line:
        return line
    return f"reject H0: {direction}" if direction else "reject H0 (miscalibrated)"


def _ece_split(args, p: np.ndarray, labels: np.ndarray, clock: _Clock) -> dict | None:
    """The top-label ECE split into its over- and under-confident bins (:func:`credalbook.metrics.ece_split`,
    the bins of ``ece_confidence``), when ``ece_confidence`` is reported; None otherwise."""
    if "ece_confidence" not in args.metrics:
        return None
    from credalbook.metrics import ece_split

    with clock("metric ece_split"):
        split = ece_split(p, labels, kind="confidence", n_bins=args.n_bins)
    return {"over": float(split.over), "under": float(split.under), "n_bins": int(split.n_bins)}


def split_text(split: dict | None) -> str | None:
    """The ECE split in words: how much of the top-label ECE comes from over- and from under-confident bins."""
    if split is None:
        return None
    total = split["over"] + split["under"]
    share = f" ({split['over'] / total:.0%} of it over-confident)" if total > 0 else ""
    return (
        f"ECE = {total:.4g} = {split['over']:.4g} from over-confident bins "
        f"+ {split['under']:.4g} from under-confident bins{share}"
    )


def _model_entry(metrics: dict, tests: dict, call: dict, split: dict | None = None) -> dict:
    """The report of one model: plain numbers, the direction, the ECE split, the decision lines and the reproducing calls."""
    direction = direction_text(metrics.get("signed_calibration_error"))
    test_entries = {}
    for name, result in tests.items():
        test_entries[name] = {**result.summary(), "decision_line": decision_line(result, direction)}
    return {
        "metrics": {m: _estimate_dict(v) for m, v in metrics.items()},
        "tests": test_entries,
        "direction": direction,
        "ece_split": None if split is None else {**split, "text": split_text(split)},
        "calls": call,
    }


def _compare(args, reference: str, models: dict[str, np.ndarray], labels: np.ndarray, clock: _Clock):
    """:func:`credalbook.stats.compare_models` of the input models against ``reference``, on the chosen
    metrics it knows (all of its defaults when none is chosen)."""
    from credalbook.stats import compare_models, DEFAULT_METRICS

    metrics = tuple(m for m in args.metrics if m in DEFAULT_METRICS) or DEFAULT_METRICS
    with clock("compare models"):
        return compare_models(
            models,
            labels,
            metrics=metrics,
            n_bins=args.n_bins,
            ci=args.ci,
            n_resamples=args.n_resamples,
            seed=args.seed,
            baseline=reference,
        )


class _Done:
    """The files of diagrams drawn at once, with the interface of a future."""

    def __init__(self, files: list[str]):
        self.files = files

    def result(self) -> list[str]:
        return self.files


class _Imports:
    """The modules the report's tests and figures need, imported in one thread of their own while the metrics'
    intervals are computed (about 1 s of SciPy's and matplotlib's imports at N = 10⁶, which ran alone before).

    Two threads importing modules that share imports (SciPy's) at the same time can fail in CPython with
    ``_DeadlockError: deadlock detected by _ModuleLock(...)``; ``credalbook evaluate`` at N = 10⁶ did so in
    about one run in six when the tests' thread imported :mod:`credalbook.stats` while the diagrams'
    thread imported the plotting. So one thread imports, and no other imports while it runs: :meth:`start`
    imports the metrics' own modules on the calling thread first, the metrics' intervals import nothing,
    and every other step (the tests' and diagrams' threads included) begins with :meth:`wait`. A test
    records every import of a report with its thread and requires exactly that.
    """

    def __init__(self, args):
        import threading

        self.args, self.future, self.started = args, None, threading.Event()

    def start(self) -> _Imports:
        """Start the imports (once), on the main thread."""
        if self.future is None:
            from concurrent.futures import ThreadPoolExecutor

            import credalbook.cli.shared_skce  # noqa: F401  (the metrics' own modules, on this thread)
            import credalbook.metrics  # noqa: F401

            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="credalbook-imports")
            self.future = pool.submit(_import_for_threads, self.args)
            pool.shutdown(wait=False)
            self.started.set()
        return self

    def wait(self) -> None:
        """Return once the imports are done (from any thread; they must have been or be started on the main one)."""
        self.started.wait()
        self.future.result()


def _import_for_threads(args) -> None:
    """Every module the report's tests and figures import (:class:`_Imports` runs it in its own thread)."""
    import scipy.stats  # noqa: F401  (the tests' reference distributions)

    import credalbook.metrics  # noqa: F401
    import credalbook.stats  # noqa: F401

    if args.out and not args.no_plots:
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401
        from PIL import Image

        import credalbook.plotting  # noqa: F401

        Image.preinit()  # Pillow's image plugins, which it imports when the first PNG is written


def _start_diagrams(args, evaluated: dict, labels: np.ndarray, clock: _Clock, imports: _Imports):
    """The reliability diagrams of ``--out`` (they need only the predictions; their bands have their own
    seed); None without figures.

    Up to :data:`OVERLAP_MAX_N` instances they are drawn in a thread while the metrics and tests are
    computed (matplotlib's Python work runs while NumPy's kernels have released the GIL); above it
    they are drawn at once, so that their temporary arrays do not add to those of the metrics.
    """
    if not args.out or args.no_plots:
        return None
    folder = output_folder(args.out)
    options = {"folder": folder, "n_bins": args.n_bins, "n_resamples": args.n_resamples, "seed": args.seed}
    if labels.shape[0] > OVERLAP_MAX_N:
        imports.start().wait()
        with clock("plots"):
            return _Done(write_reliability_figures(evaluated, labels, **options))
    from concurrent.futures import ThreadPoolExecutor

    def draw() -> list[str]:
        imports.wait()
        return write_reliability_figures(evaluated, labels, **options)

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="credalbook-plots")
    future = pool.submit(draw)
    pool.shutdown(wait=False)
    return future


def _write_out(args, report: dict, diagrams, results: dict, comparison, clock: _Clock) -> None:
    """The tables, the figures (without ``--no-plots``) and ``report.html`` of ``--out``; names in ``report["files"]``."""
    from credalbook.cli.report_page import write_page

    folder = output_folder(args.out)
    with clock("write tables"):
        report["files"] += write_tables(folder, report)
    if diagrams is not None:
        with clock("plots"):
            report["files"] += diagrams.result()
            report["files"] += write_test_figures(
                results, folder=folder, comparison=comparison, n_resamples=args.n_resamples, seed=args.seed
            )
    report["files"].append("report.html")
    with clock("report page"):
        write_page(folder, report)


def evaluate(args, *, out=None) -> dict:
    """Compute, print and (with ``args.out``) write the report; return it as a dict."""
    out = sys.stdout if out is None else out
    clock = _Clock()
    with clock("load"):
        models, labels = load_models(args)
    first = next(iter(models.values()))
    if args.tests is DEFAULT_TESTS and not args.ensemble and all(m.probs.shape[-1] == 2 for m in models.values()):
        args.tests = DEFAULT_BINARY_TESTS
    if args.n_resamples is None:
        args.n_resamples = default_n_resamples(first.probs.shape[0])
    with _one_blas_thread(first.probs.shape[0]):
        return _report(args, models, labels, clock, out)


def _report(args, models: dict, labels: np.ndarray, clock: _Clock, out) -> dict:
    """:func:`evaluate` once the inputs are read."""
    first = next(iter(models.values()))
    report = _new_report(args, models, clock.times)
    report["inputs"]["setup"] = input_lines(report)
    evaluated = _expand(models)
    calls = library_calls(report, list(evaluated), tuple(args.metrics))
    if len(models) > 1:
        calls["comparison"] = _comparison_call(args, report["settings"]["baseline"])
    imports = _Imports(args)  # started by the first model's metrics
    diagrams = _start_diagrams(args, evaluated, labels, clock, imports)
    results = {}
    print_header(report, out)
    for model, p in evaluated.items():
        metrics, tests = _evaluate_model(args, p, labels, clock, imports)
        results[model] = tests
        report["models"][model] = _model_entry(metrics, tests, calls[model], _ece_split(args, p, labels, clock))
        print_model(model, report, out)
    if args.ensemble:
        _set_test(args, first.probs, labels, report, results, clock)
        report["set_test"]["call"] = calls["set"]
        print_set_test(report, out)
    comparison = None
    if len(models) > 1:
        reference = report["settings"]["baseline"]
        comparison = _compare(args, reference, {n: m.probs for n, m in models.items()}, labels, clock)
        report["comparison"] = {
            "baseline": reference,
            "rows": _plain(comparison.to_rows()),
            "call": calls["comparison"],
        }
        print_comparison(report, out)
    if args.out:
        _write_out(args, report, diagrams, results, comparison, clock)
    report["timings_s"] = {step: round(t, 4) for step, t in clock.times.items()}
    if args.out:
        write_report(Path(args.out), report)
    print_done(clock.times, out)
    return report


def _comparison_call(args, reference: str) -> str:
    from credalbook.stats import DEFAULT_METRICS

    metrics = tuple(m for m in args.metrics if m in DEFAULT_METRICS) or DEFAULT_METRICS
    return (
        f"compare_models(models, labels, baseline={reference!r}, metrics={metrics!r}, "
        f"n_bins={args.n_bins}, ci={args.ci}, n_resamples={args.n_resamples}, seed={args.seed})"
    )


def _plain(value):
    """NumPy scalars and arrays inside rows as JSON numbers and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _set_test(args, ens: np.ndarray, labels: np.ndarray, report: dict, results: dict, clock: _Clock) -> None:
    with clock("test set"):
        set_result = run_set_test(
            ens,
            labels,
            n_bins=args.n_bins,
            n_resamples=args.n_resamples,
            alpha=args.alpha,
            seed=args.seed,
            n_jobs=args.n_jobs,
        )
    results["set"] = {"set": set_result}
    report["set_test"] = {**set_result.summary(), "weights": [float(w) for w in np.ravel(set_result.weights)]}
