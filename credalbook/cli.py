r"""The command line: ``credalbook evaluate`` tests stored predictions for calibration.

.. code-block:: console

    $ credalbook evaluate --probs probs.npy --labels labels.npy --out report/
    $ python -m credalbook evaluate --probs logits.pt --logits --labels labels.csv
    $ credalbook evaluate --probs members.npz --key probs --labels y.npy --ensemble

It reads an (N, K) array of probabilities (or logits with ``--logits``; an (N, M, K) array of M
members with ``--ensemble``) and N labels from ``.npy``, ``.npz``, ``.csv``, ``.pt`` or ``.pth``
files (:func:`credalbook.data.load_array`), and prints

* the metrics with bootstrap confidence intervals (:func:`credalbook.metrics.bootstrap_ci` and the
  ``ci=`` keyword of the calibration errors): accuracy, NLL, Brier score, top-label and classwise
  ECE (equal-width bins), the SKCE (linear estimator with the Laplacian kernel and median-heuristic
  bandwidth of the SKCE tests, so that its value is the statistic of the linear SKCE test);
* the calibration tests with their p-values (:func:`credalbook.stats.calibration_test`):
  consistency resampling of the top-label ECE (Bröcker & Smith 2007; Vaicenavicius et al. 2019;
  its null drawn in O(N) per replicate from the confidences and Bernoulli hits, see
  :func:`~credalbook.stats.calibration_test`), the linear SKCE test with its asymptotic normal null (Widmann et al. 2019) and Hosmer-Lemeshow
  with a resampled null;
* with ``--ensemble``: all of it for every member and for the mean prediction, and the test of the
  set (:func:`credalbook.stats.set_calibration_test`, Mortier et al. 2023): does some convex
  combination of the members pass?

With ``--out DIR`` it writes ``report.json`` (everything printed, the settings and the time of
each step), ``metrics.csv``, ``tests.csv`` and PNG figures: per model a top-label reliability
diagram with consistency bands (Bröcker & Smith 2007; :class:`credalbook.plotting.ReliabilityDisplay`)
and, for K <= 10, a classwise one (a panel per class); per test its null distribution (samples or
the asymptotic density) with the observed statistic (:func:`credalbook.plotting.plot_test_result`).

Every interval and every test is computed with the same ``--seed`` and ``--n-resamples`` R
(default :func:`default_n_resamples`: 1000, fewer above N = 10⁵), so each number of the report is
one library call away: e.g. ``bootstrap_ci(probs, labels, accuracy, ci=0.95, n_resamples=R,
seed=S)``, ``ece_confidence(probs, labels, n_bins=B, ci=0.95, n_resamples=R, seed=S)`` or
``calibration_test(probs, labels, method="hosmer_lemeshow", n_bins=B, n_resamples=R, seed=S)``.

A malformed input (a missing file, a CSV with text in it, rows that do not sum to one, labels of
the wrong length, ...) ends the command with exit status 2 and one line on standard error that
names the file and the problem, as argparse reports a bad option.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import inspect
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

__all__ = ["main", "build_parser", "default_n_resamples", "DEFAULT_TESTS", "METRICS", "TESTS"]

#: Metrics ``--metrics`` can choose (all by default): name → label in the table.
METRICS = {
    "accuracy": "accuracy",
    "nll": "NLL",
    "brier_score": "Brier score",
    "ece_confidence": "ECE confidence",
    "ece_classwise": "ECE classwise",
    "skce": "SKCE linear (Laplacian)",
}
#: Old ``--metrics`` names, accepted with a deprecation message: old → new (the function's name).
RENAMED_METRICS = {"brier": "brier_score", "ece_top_label": "ece_confidence"}
#: Tests ``--tests`` can choose (methods of :func:`credalbook.stats.calibration_test`).
TESTS = (
    "consistency",
    "consistency_classwise",
    "skce_linear",
    "skce_block",
    "skce_quadratic",
    "skce_distribution_free",
    "hosmer_lemeshow",
)
#: Tests run unless ``--tests`` says otherwise.
DEFAULT_TESTS = ("consistency", "skce_linear", "hosmer_lemeshow")
#: Resamples without ``--n-resamples`` (:func:`default_n_resamples`): at most ``MAX_AUTO_RESAMPLES``,
#: at least ``MIN_AUTO_RESAMPLES``, and about ``AUTO_RESAMPLE_WORK`` / N in between.
MAX_AUTO_RESAMPLES = 1000
MIN_AUTO_RESAMPLES = 100
AUTO_RESAMPLE_WORK = 5 * 10**7


def default_n_resamples(n: int) -> int:
    """Bootstrap replicates of each interval and null samples of each resampling test when ``--n-resamples`` is not given.

    Every replicate costs O(N), so a fixed count makes large files slow; this one keeps the
    work R·N near ``AUTO_RESAMPLE_WORK`` = 5·10⁷ within [100, 1000]: 1000 up to N = 5·10⁴, 500 at
    N = 10⁵, 100 from N = 5·10⁵, where an interval is narrow and a test with R = 100 null samples
    keeps its level exactly and loses little power at α = 0.05 (Monte Carlo tests: Davison &
    Hinkley 1997, Ch. 4). Measured on a quiet 2-core machine (K = 10, the default metrics and
    tests, without ``--out``): N = 10⁵ took 6.8 s with the default R = 500 and 10 s with R = 1000;
    N = 10⁶ with R = 100 took 16 s (18 s with ``--out`` and its figures).

    Examples
    --------
    >>> default_n_resamples(2000), default_n_resamples(10**5), default_n_resamples(10**6)
    (1000, 500, 100)
    """
    return int(min(MAX_AUTO_RESAMPLES, max(MIN_AUTO_RESAMPLES, AUTO_RESAMPLE_WORK // max(n, 1))))


_TEST_LABELS = {
    "consistency": "consistency resampling, ECE top-label",
    "consistency_classwise": "consistency resampling, ECE classwise",
    "skce_linear": "SKCE linear, asymptotic normal",
    "skce_block": "SKCE block, asymptotic normal",
    "skce_quadratic": "SKCE quadratic, bootstrap",
    "skce_distribution_free": "SKCE, distribution-free bound",
    "hosmer_lemeshow": "Hosmer-Lemeshow, resampled",
    "set": "set test (Mortier), ECE top-label",
}


class InputError(ValueError):
    """A malformed input file or option: reported in one line with exit status 2."""


# --------------------------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text!r}")
    return value


def _unit_interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1); got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1); got {text!r}")
    return value


def _n_jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be a non-zero integer (-1: all CPUs); got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer; got {text!r}")
    return value


def _choices(allowed, renamed: dict | None = None, option: str = ""):
    renamed = renamed or {}

    def new_name(name: str) -> str:
        if name in renamed:
            warnings.warn(
                f"{option} {name!r} was renamed to {renamed[name]!r} in 0.6; {name!r} will be removed in 0.7",
                FutureWarning,
                stacklevel=2,
            )
            return renamed[name]
        return name

    def parse(text: str) -> tuple[str, ...]:
        names = tuple(dict.fromkeys(new_name(t.strip()) for t in text.split(",") if t.strip()))
        if text.strip().lower() == "none":
            return ()
        bad = [n for n in names if n not in allowed]
        if bad or not names:
            unknown = f"unknown {', '.join(map(repr, bad))}; " if bad else ""
            raise argparse.ArgumentTypeError(
                f"{unknown}choose from {', '.join(allowed)} (comma-separated) or 'none'; got {text!r}"
            )
        return names

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The ``credalbook`` argument parser with its ``evaluate`` subcommand."""
    parser = argparse.ArgumentParser(
        prog="credalbook",
        description="Calibration metrics with confidence intervals and calibration tests with "
        "p-values for stored predictions.",
    )
    from credalbook import __version__

    parser.add_argument("--version", action="version", version=f"credalbook {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    ev = sub.add_parser(
        "evaluate",
        help="metrics with CIs and calibration tests for stored predictions",
        description="Evaluate the calibration of stored predictions: metrics with bootstrap confidence intervals "
        "and calibration tests with p-values; figures and a JSON report with --out.",
        epilog="Files: .npy, .npz (one array, or --key), .csv (numbers, optional header line; labels as one "
        "column), .pt/.pth (a tensor, or a dict of tensors with --key; read with weights_only=True). "
        "Every interval and test uses --seed, so each number is reproduced by one library call.",
    )
    ev.add_argument(
        "--probs", required=True, metavar="FILE", help="predictions: (N, K) probabilities, or (N, M, K) with --ensemble"
    )
    ev.add_argument("--labels", required=True, metavar="FILE", help="N integer labels in [0, K)")
    ev.add_argument("--key", metavar="NAME", help="array of --probs in an .npz file or a dict saved by torch")
    ev.add_argument("--labels-key", metavar="NAME", help="array of --labels in an .npz or torch file")
    ev.add_argument("--logits", action="store_true", help="--probs holds logits (softmax in float64)")
    ev.add_argument(
        "--ensemble",
        action="store_true",
        help="--probs is (N, M, K): evaluate every member, their mean, and test the set",
    )
    ev.add_argument("--out", metavar="DIR", help="write report.json, metrics.csv, tests.csv and PNG figures here")
    ev.add_argument(
        "--n-resamples",
        type=_positive_int,
        default=None,
        metavar="R",
        help=f"bootstrap replicates of each interval and null samples of each resampling test "
        f"(default: {MAX_AUTO_RESAMPLES} up to N = {AUTO_RESAMPLE_WORK // MAX_AUTO_RESAMPLES}, "
        f"then {AUTO_RESAMPLE_WORK}/N, at least {MIN_AUTO_RESAMPLES})",
    )
    ev.add_argument(
        "--n-bins",
        type=_positive_int,
        default=10,
        metavar="B",
        help="equal-width bins of the ECEs and groups of Hosmer-Lemeshow (default 10)",
    )
    ev.add_argument("--alpha", type=_unit_interval, default=0.05, help="significance level (default 0.05)")
    ev.add_argument(
        "--ci",
        type=_unit_interval,
        default=0.95,
        metavar="LEVEL",
        help="level of the confidence intervals (default 0.95)",
    )
    ev.add_argument("--no-ci", action="store_true", help="metrics without confidence intervals (faster)")
    ev.add_argument("--seed", type=_seed, default=0, help="seed of every resampling (default 0)")
    ev.add_argument(
        "--n-jobs",
        type=_n_jobs,
        default=None,
        metavar="J",
        help="parallel jobs of the resampling tests (joblib; -1: all CPUs); the p-values do not "
        "depend on J, but any J draws another stream than the serial default",
    )
    ev.add_argument(
        "--tests",
        type=_choices(TESTS),
        default=DEFAULT_TESTS,
        metavar="LIST",
        help=f"comma-separated tests from {', '.join(TESTS)}, or 'none' (default {','.join(DEFAULT_TESTS)})",
    )
    ev.add_argument(
        "--metrics",
        type=_choices(tuple(METRICS), RENAMED_METRICS, "--metrics"),
        default=tuple(METRICS),
        metavar="LIST",
        help=f"comma-separated metrics from {', '.join(METRICS)} (default: all)",
    )
    ev.add_argument("--no-plots", action="store_true", help="write no figures to --out")
    ev.set_defaults(func=_evaluate)
    return parser


def main(argv=None) -> int:
    """Run ``credalbook`` with the arguments ``argv`` (default ``sys.argv[1:]``); return the exit status.

    0 on success; 2 for a bad option or a malformed input file, with one line on standard error
    that names the file and the problem.

    Examples
    --------
    >>> main(["evaluate", "--probs", "missing.npy", "--labels", "y.npy"])
    2
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except SystemExit as stop:  # argparse: --help, --version, bad options
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except InputError as err:
        print(f"credalbook evaluate: error: {err}", file=sys.stderr)
        return 2


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------


def load_inputs(args) -> tuple[np.ndarray, np.ndarray]:
    """Read and check ``--probs`` and ``--labels``: float64 (N, K) or (N, M, K) probabilities and int64 (N,) labels.

    Raises :class:`InputError` naming the file and the problem.
    """
    from credalbook._validation import as_predictions, check_labels
    from credalbook.data import load_array

    ndim = 3 if args.ensemble else 2
    shape = "(N, M, K) with --ensemble" if args.ensemble else "(N, K) (an (N, M, K) array needs --ensemble)"
    what = "logits" if args.logits else "probs"
    try:
        raw = load_array(args.probs, key=args.key, name=what)
        raw_labels = load_array(args.labels, key=args.labels_key, name="labels", ndim=1)
    except ValueError as err:
        raise InputError(str(err)) from None
    if raw.ndim != ndim:
        raise InputError(f"{what} file '{args.probs}': must hold an array of shape {shape}; got shape {raw.shape}")
    try:
        probs = as_predictions(raw, what, from_logits=args.logits, ndim=ndim)
    except ValueError as err:
        hint = (
            ""
            if args.logits or not ("sum to 1" in str(err) or "lie in [0, 1]" in str(err))
            else " (logits? pass --logits)"
        )
        raise InputError(f"{what} file '{args.probs}': {err}{hint}") from None
    try:
        labels = check_labels(raw_labels, n_classes=probs.shape[-1], shape=probs.shape[:1])
    except ValueError as err:
        raise InputError(f"labels file '{args.labels}': {err}") from None
    return probs, labels


# --------------------------------------------------------------------------------------------
# computing
# --------------------------------------------------------------------------------------------


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
        "consistency": ("consistency", "ece_conf"),
        "consistency_classwise": ("consistency", "ece_cwise"),
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
        measure="ece_conf",
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


def evaluate(args, *, out=None) -> dict:
    """Compute, print and (with ``args.out``) write the report; return it as a dict."""
    from credalbook import __version__

    out = sys.stdout if out is None else out
    clock = _Clock()
    with clock("load"):
        probs, labels = load_inputs(args)
    n, k = probs.shape[0], probs.shape[-1]
    if args.n_resamples is None:
        args.n_resamples = default_n_resamples(n)
    ci = None if args.no_ci else args.ci
    settings = {
        "n_bins": args.n_bins,
        "n_resamples": args.n_resamples,
        "alpha": args.alpha,
        "ci": ci,
        "seed": args.seed,
        "n_jobs": args.n_jobs,
        "tests": list(args.tests),
        "metrics": list(args.metrics),
    }
    report = {
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
        "timings_s": clock.times,
        "files": [],
    }
    results = {}
    _print_header(report, out)
    for model, p in _models(probs).items():
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
        results[model] = tests
        report["models"][model] = {
            "metrics": {m: _estimate_dict(v) for m, v in metrics.items()},
            "tests": {t: r.summary() for t, r in tests.items()},
        }
        _print_model(model, report, out)
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
        _print_set(report, out)
    if args.out:
        _write(args, report, probs, labels, results, clock)
    report["timings_s"] = {step: round(t, 4) for step, t in clock.times.items()}
    if args.out:
        (Path(args.out) / "report.json").write_text(json.dumps(report, indent=2, allow_nan=True) + "\n")
    total = sum(clock.times.values())
    steps = ", ".join(f"{s} {t:.1f}" for s, t in clock.times.items())
    print(f"\ndone in {total:.1f} s ({steps})", file=out)
    return report


def _evaluate(args) -> int:
    evaluate(args)
    return 0


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------


def _fmt(v, digits: int = 4) -> str:
    if v is None:
        return ""
    if not np.isfinite(v):
        return str(v)
    return f"{v:#.{digits}g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"


def _print_header(report, out):
    inp, s = report["inputs"], report["settings"]
    members = f", {inp['n_members']} members" if inp["ensemble"] else ""
    kind = "logits" if inp["logits"] else "probabilities"
    print(
        f"credalbook evaluate: {inp['n']} instances, {inp['n_classes']} classes{members} ({kind} from "
        f"{inp['probs']}, labels from {inp['labels']})",
        file=out,
    )
    ci = f"{s['ci']:.0%} bootstrap CIs" if s["ci"] else "no CIs"
    print(
        f"settings: {s['n_bins']} bins, {s['n_resamples']} resamples, {ci}, alpha = {s['alpha']}, seed = {s['seed']}",
        file=out,
    )


def _print_model(model, report, out):
    entry = report["models"][model]
    s = report["settings"]
    print(f"\n== {model} ==", file=out)
    if entry["metrics"]:
        level = f"{s['ci']:.0%} CI" if s["ci"] else ""
        print(f"  {'metric':<24}{'value':>11}   {level}", file=out)
        for name, e in entry["metrics"].items():
            label = METRICS[name] + (f" (B={s['n_bins']})" if name.startswith("ece") else "")
            interval = f"[{_fmt(e['low'])}, {_fmt(e['high'])}]" if e["low"] is not None else ""
            print(f"  {label:<24}{_fmt(e['value']):>11}   {interval}", file=out)
    if entry["tests"]:
        print(f"  {'test':<40}{'statistic':>11}{'p-value':>10}  decision at alpha = {s['alpha']}", file=out)
        for name, t in entry["tests"].items():
            decision = "reject H0 (miscalibrated)" if t["rejected"] else "keep H0"
            print(
                f"  {_TEST_LABELS.get(name, name):<40}{_fmt(t['statistic']):>11}{_fmt(t['pvalue'], 3):>10}  {decision}",
                file=out,
            )


def _print_set(report, out):
    t, s = report["set_test"], report["settings"]
    decision = "reject H0: no convex combination is calibrated" if t["rejected"] else "keep H0"
    weights = ", ".join(f"{w:.3f}" for w in t["weights"])
    print(f"\n== set of {len(t['weights'])} members ==", file=out)
    print(
        f"  {_TEST_LABELS['set']}: minimum {_fmt(t['statistic'])} at weights ({weights}), "
        f"p-value {_fmt(t['pvalue'], 3)}; {decision} at alpha = {s['alpha']}",
        file=out,
    )


#: Largest number of classes for which ``--out`` gets a classwise reliability diagram (one panel per class).
MAX_CLASSWISE_PANELS = 10


def _new_axes(n_panels: int = 1):
    """A figure outside pyplot (no global state, no display) and its axes: one, or a grid of ``n_panels``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if n_panels == 1:
        fig = Figure(figsize=(5, 4.5), layout="constrained")
        FigureCanvasAgg(fig)
        return fig, fig.add_subplot()
    ncols = min(n_panels, 5)
    nrows = -(-n_panels // ncols)
    fig = Figure(figsize=(3.4 * ncols, 3.4 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for extra in axes[n_panels:]:
        extra.set_axis_off()
    return fig, axes[:n_panels]


def _write(args, report, probs, labels, results, clock) -> None:
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"output folder '{folder}': {err.strerror or err}") from None
    files = report["files"]
    with clock("write tables"):
        with open(folder / "metrics.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["model", "metric", "value", "low", "high", "level", "n_resamples", "method"])
            for model, entry in report["models"].items():
                for name, e in entry["metrics"].items():
                    w.writerow(
                        [model, name, e["value"], e["low"], e["high"], e["level"], e["n_resamples"], e["method"]]
                    )
        with open(folder / "tests.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["model", "test", "statistic", "pvalue", "alpha", "rejected"])
            rows = [(m, t, r) for m, e in report["models"].items() for t, r in e["tests"].items()]
            if report["set_test"]:
                rows.append(("set", "set", report["set_test"]))
            for model, name, r in rows:
                w.writerow([model, name, r["statistic"], r["pvalue"], r["alpha"], r["rejected"]])
        files += ["report.json", "metrics.csv", "tests.csv"]
    if args.no_plots:
        return
    from credalbook.plotting import plot_test_result, ReliabilityDisplay

    with clock("plots"):
        k = probs.shape[-1]
        for model, p in _models(probs).items():
            kinds = [("confidence", f"reliability_{model}.png", 1)]
            if k <= MAX_CLASSWISE_PANELS:
                kinds.append(("classwise", f"reliability_classwise_{model}.png", k))
            for kind, filename, n_panels in kinds:
                fig, ax = _new_axes(n_panels)
                ReliabilityDisplay.from_predictions(
                    p,
                    labels,
                    kind=kind,
                    n_bins=args.n_bins,
                    ax=ax,
                    name=model,
                    seed=args.seed,
                    n_resamples=args.n_resamples,
                )
                fig.savefig(folder / filename, dpi=100)
                files.append(filename)
        for model, tests in results.items():
            for name, result in tests.items():
                if getattr(result, "null_distribution", None) is None and getattr(result, "null_model", None) is None:
                    continue
                fig, ax = _new_axes()
                plot_test_result(result, ax=ax)
                filename = "null_set.png" if model == "set" else f"null_{model}_{name}.png"
                fig.savefig(folder / filename, dpi=100)
                files.append(filename)
