"""The arguments of ``credalbook``: the parser, its ``evaluate`` subcommand and the types of its options.

Parsing imports nothing that computes: the command function of a subcommand imports what it runs
(:mod:`credalbook.cli.evaluation`, and through it the metrics, the tests and the plotting), so that
``credalbook --help`` and a bad option answer at once.
"""

from __future__ import annotations

import argparse
import warnings

from credalbook.cli.options import (
    AUTO_RESAMPLE_WORK,
    DEFAULT_BINARY_TESTS,
    DEFAULT_TESTS,
    MAX_AUTO_RESAMPLES,
    METRICS,
    MIN_AUTO_RESAMPLES,
    RENAMED_METRICS,
    TESTS,
)

__all__ = ["build_parser"]


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
        "and calibration tests with p-values, for one model or several side by side; figures, a JSON report and "
        "one self-contained report.html with --out.",
        epilog="Files: .npy, .npz (one array, or --key), .csv (numbers, optional header line; labels as one "
        "column), .pt/.pth (a tensor, or a dict of tensors with --key; read with weights_only=True). "
        "Every interval and test uses --seed, so each number is reproduced by one library call "
        "(report.html shows it). Several models, compared with the first (or --baseline) by paired bootstrap: "
        "--probs A=a.npy --probs B=b.npy (or --probs a.npy --probs b.npy --name A --name B); add --logits-of B "
        "when only B holds logits. (N,) scores are a binary classifier's P(y = 1), labels 0/1.",
    )
    _add_input_options(ev)
    _add_resampling_options(ev)
    _add_selection_options(ev)
    ev.set_defaults(func=_evaluate)
    return parser


def _add_input_options(ev: argparse.ArgumentParser) -> None:
    """The files of ``evaluate`` and how to read them; ``--out``."""
    ev.add_argument(
        "--probs",
        required=True,
        action="append",
        metavar="[NAME=]FILE",
        help="predictions of a model: (N, K) probabilities, (N,) binary scores P(y = 1), or (N, M, K) with "
        "--ensemble; repeat for several models (named NAME, by --name, or by their file names)",
    )
    ev.add_argument(
        "--name", action="append", metavar="NAME", help="name of each --probs model, in order (instead of NAME=FILE)"
    )
    ev.add_argument("--labels", required=True, metavar="FILE", help="N integer labels in [0, K) (0/1 for scores)")
    ev.add_argument("--key", metavar="NAME", help="array of --probs in an .npz file or a dict saved by torch")
    ev.add_argument("--labels-key", metavar="NAME", help="array of --labels in an .npz or torch file")
    ev.add_argument(
        "--logits",
        action="store_true",
        help="every --probs file holds logits (softmax, or sigmoid for (N,), in float64)",
    )
    ev.add_argument(
        "--logits-of",
        action="append",
        metavar="NAME",
        help="only the model NAME holds logits (repeat for several); mixes logits and probabilities",
    )
    ev.add_argument(
        "--baseline",
        metavar="NAME",
        help="with several models: the model the others are compared with (default: the first)",
    )
    ev.add_argument(
        "--ensemble",
        action="store_true",
        help="--probs is (N, M, K): evaluate every member, their mean, and test the set",
    )
    ev.add_argument(
        "--out",
        metavar="DIR",
        help="write report.html (one self-contained page), report.json, metrics.csv, tests.csv and PNG figures here",
    )


def _add_resampling_options(ev: argparse.ArgumentParser) -> None:
    """Resamples, bins, levels, the seed and the parallel jobs of ``evaluate``."""
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


def _add_selection_options(ev: argparse.ArgumentParser) -> None:
    """Which tests and metrics ``evaluate`` computes, and whether it draws figures."""
    ev.add_argument(
        "--tests",
        type=_choices(TESTS),
        default=DEFAULT_TESTS,
        metavar="LIST",
        help=f"comma-separated tests from {', '.join(TESTS)}, or 'none' (default {','.join(DEFAULT_TESTS)}; "
        f"{','.join(DEFAULT_BINARY_TESTS)} when every model is binary)",
    )
    ev.add_argument(
        "--metrics",
        type=_choices(tuple(METRICS), RENAMED_METRICS, "--metrics"),
        default=tuple(METRICS),
        metavar="LIST",
        help=f"comma-separated metrics from {', '.join(METRICS)} (default: all)",
    )
    ev.add_argument("--no-plots", action="store_true", help="write no figures to --out")


def _evaluate(args) -> int:
    """The ``evaluate`` command: compute, print and write the report (imported only when it runs)."""
    from credalbook.cli.evaluation import evaluate

    evaluate(args)
    return 0
