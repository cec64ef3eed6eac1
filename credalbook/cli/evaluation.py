"""The report of ``credalbook evaluate``: every metric and test of every model, timed, printed and written.

:func:`evaluate` reads the inputs, computes the metrics (:func:`compute_metric`) and the tests
(:func:`run_test`, :func:`run_set_test`) of each model with the command's settings, prints each
model's table as soon as it is computed (:mod:`credalbook.cli.output`) and, with ``--out``, writes
the tables, the figures and ``report.json`` (:mod:`credalbook.cli.files`). The metrics, the tests
and the plotting are imported inside the functions that use them.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import time
from pathlib import Path

import numpy as np

from credalbook.cli.files import output_folder, write_figures, write_report, write_tables
from credalbook.cli.inputs import InputError, load_inputs
from credalbook.cli.options import default_n_resamples
from credalbook.cli.output import print_done, print_header, print_model, print_set_test

__all__ = ["evaluate", "compute_metric", "run_test", "run_set_test"]


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


def _models(probs: np.ndarray) -> dict[str, np.ndarray]:
    if probs.ndim == 2:
        return {"model": probs}
    out = {f"member_{m}": np.ascontiguousarray(probs[:, m]) for m in range(probs.shape[1])}
    out["mean"] = probs.mean(axis=1)
    return out


def _new_report(args, probs: np.ndarray, times: dict) -> dict:
    """The report before anything is computed: version, inputs, settings, and empty results."""
    from credalbook import __version__

    n, k = probs.shape[0], probs.shape[-1]
    settings = {
        "n_bins": args.n_bins,
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "ci": None if args.no_ci else args.ci,
        "seed": args.seed,
        "n_jobs": args.n_jobs,
        "tests": list(args.tests),
        "metrics": list(args.metrics),
    }
    return {
        "credalbook_version": __version__,
        "inputs": {
            "probs": str(args.probs),
            "labels": str(args.labels),
            "logits": bool(args.logits),
            "ensemble": bool(args.ensemble),
            "n": int(n),
            "n_classes": int(k),
            "n_members": int(probs.shape[1]) if args.ensemble else None,
        },
        "settings": settings,
        "models": {},
        "set_test": None,
        "timings_s": times,
        "files": [],
    }


def _evaluate_model(args, p: np.ndarray, labels: np.ndarray, clock: _Clock) -> tuple[dict, dict]:
    """The metrics (name → Estimate or float) and the tests (name → result) of one model, each step timed."""
    ci = None if args.no_ci else args.ci
    metrics = {}
    for name in args.metrics:
        with clock(f"metric {name}"):
            metrics[name] = compute_metric(
                p, labels, name, n_bins=args.n_bins, ci=ci, n_resamples=args.n_resamples, seed=args.seed
            )
    tests = {}
    for name in args.tests:
        with clock(f"test {name}"):
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
    return metrics, tests


def _write_out(args, report: dict, probs: np.ndarray, labels: np.ndarray, results: dict, clock: _Clock) -> None:
    """The tables and (without ``--no-plots``) the figures of ``--out``, their names added to ``report["files"]``."""
    folder = output_folder(args.out)
    with clock("write tables"):
        report["files"] += write_tables(folder, report)
    if args.no_plots:
        return
    with clock("plots"):
        report["files"] += write_figures(
            _models(probs),
            labels,
            folder=folder,
            results=results,
            n_bins=args.n_bins,
            n_resamples=args.n_resamples,
            seed=args.seed,
        )


def evaluate(args, *, out=None) -> dict:
    """Compute, print and (with ``args.out``) write the report; return it as a dict."""
    out = sys.stdout if out is None else out
    clock = _Clock()
    with clock("load"):
        probs, labels = load_inputs(args)
    if args.n_resamples is None:
        args.n_resamples = default_n_resamples(probs.shape[0])
    report = _new_report(args, probs, clock.times)
    results = {}
    print_header(report, out)
    for model, p in _models(probs).items():
        metrics, tests = _evaluate_model(args, p, labels, clock)
        results[model] = tests
        report["models"][model] = {
            "metrics": {m: _estimate_dict(v) for m, v in metrics.items()},
            "tests": {t: r.summary() for t, r in tests.items()},
        }
        print_model(model, report, out)
    if args.ensemble:
        with clock("test set"):
            set_result = run_set_test(
                probs,
                labels,
                n_bins=args.n_bins,
                n_resamples=args.n_resamples,
                alpha=args.alpha,
                seed=args.seed,
                n_jobs=args.n_jobs,
            )
        results["set"] = {"set": set_result}
        report["set_test"] = {**set_result.summary(), "weights": [float(w) for w in np.ravel(set_result.weights)]}
        print_set_test(report, out)
    if args.out:
        _write_out(args, report, probs, labels, results, clock)
    report["timings_s"] = {step: round(t, 4) for step, t in clock.times.items()}
    if args.out:
        write_report(Path(args.out), report)
    print_done(clock.times, out)
    return report
