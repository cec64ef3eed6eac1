r"""The command line: ``credalbook evaluate`` tests stored predictions for calibration.

.. code-block:: console

    $ credalbook evaluate --probs probs.npy --labels labels.npy --out report/
    $ python -m credalbook evaluate --probs logits.pt --logits --labels labels.csv
    $ credalbook evaluate --probs members.npz --key probs --labels y.npy --ensemble
    $ credalbook evaluate --probs A=a.npy --probs B=b.pt --logits-of B --labels y.npy --out report/

It reads an (N, K) array of probabilities (or logits with ``--logits``; an (N, M, K) array of M
members with ``--ensemble``; an (N,) array of a binary classifier's scores P(y = 1), evaluated as
the rows ``[1 - s, s]``) and N labels from ``.npy``, ``.npz``, ``.csv``, ``.pt`` or ``.pth``
files (:func:`credalbook.data.load_array`), and prints

* the metrics with bootstrap confidence intervals (:func:`credalbook.metrics.bootstrap_ci` and the
  ``ci=`` keyword of the calibration errors): accuracy, NLL, Brier score, top-label and classwise
  ECE (equal-width bins), the SKCE (linear estimator with the Laplacian kernel and median-heuristic
  bandwidth of the SKCE tests, so that its value is the statistic of the linear SKCE test) and the
  signed calibration error (mean confidence minus accuracy,
  :func:`credalbook.metrics.signed_calibration_error`), whose interval says whether the model is
  over- or under-confident; a rejecting test says it too;
* the calibration tests with their p-values (:func:`credalbook.stats.calibration_test`):
  consistency resampling of the top-label ECE (Bröcker & Smith 2007; Vaicenavicius et al. 2019;
  its null drawn in O(N) per replicate from the confidences and Bernoulli hits, see
  :func:`~credalbook.stats.calibration_test`), the linear SKCE test with its asymptotic normal null (Widmann et al. 2019) and Hosmer-Lemeshow
  with a resampled null;
* with ``--ensemble``: all of it for every member and for the mean prediction, and the test of the
  set (:func:`credalbook.stats.set_calibration_test`, Mortier et al. 2023): does some convex
  combination of the members pass?
* with several ``--probs`` (``NAME=FILE``, or ``--name``; ``--logits-of NAME`` for a model given as
  logits): all of it for every model, and their comparison with the first (or ``--baseline``)
  by a paired bootstrap (:func:`credalbook.stats.compare_models`).

With ``--out DIR`` it writes ``report.html`` (one self-contained page with the inputs, the
tables, the tests, the figures inlined, and the library call of each number:
``credalbook.cli.report_page``), ``report.json`` (everything printed, the settings and the time of
each step), ``metrics.csv``, ``tests.csv`` and PNG figures: per model a top-label reliability
diagram with consistency bands (Bröcker & Smith 2007; :class:`credalbook.plotting.ReliabilityDisplay`)
and, for K <= 10, a classwise one (a panel per class); for several models their overlay; per test
its null distribution (samples or the asymptotic density) with the observed statistic (:func:`credalbook.plotting.plot_test_result`).

Every interval and every test is computed with the same ``--seed`` and ``--n-resamples`` R
(default :func:`default_n_resamples`: 1000, fewer above N = 10⁵), so each number of the report is
one library call away: e.g. ``bootstrap_ci(probs, labels, accuracy, ci=0.95, n_resamples=R,
seed=S)``, ``ece_confidence(probs, labels, n_bins=B, ci=0.95, n_resamples=R, seed=S)`` or
``calibration_test(probs, labels, method="hosmer_lemeshow", n_bins=B, n_resamples=R, seed=S)``.

A malformed input (a missing file, a CSV with text in it, rows that do not sum to one, labels of
the wrong length, ...) ends the command with exit status 2 and one line on standard error that
names the file and the problem, as argparse reports a bad option.

The package keeps parsing, computing, printing and writing apart: ``credalbook.cli.options``
(the metrics and tests by name, the default resamples), ``credalbook.cli.parser`` (the
arguments), ``credalbook.cli.inputs`` (reading the files), ``credalbook.cli.evaluation`` (the
report), ``credalbook.cli.reproduce`` (the library call of each number), ``credalbook.cli.output``
(printing it), ``credalbook.cli.files`` (``--out``) and ``credalbook.cli.report_page``
(``report.html``).
``credalbook --help`` imports none of the metrics, tests or plotting.
"""

from __future__ import annotations

import sys

# the engine of the command: importable from here, not in __all__ (which lists only what a user calls)
from credalbook.cli.evaluation import compute_metric, evaluate, run_set_test, run_test  # noqa: F401
from credalbook.cli.files import MAX_CLASSWISE_PANELS  # noqa: F401
from credalbook.cli.inputs import InputError, load_inputs  # noqa: F401
from credalbook.cli.options import (  # noqa: F401
    AUTO_RESAMPLE_WORK,
    default_n_resamples,
    DEFAULT_TESTS,
    MAX_AUTO_RESAMPLES,
    METRICS,
    MIN_AUTO_RESAMPLES,
    RENAMED_METRICS,
    TESTS,
)
from credalbook.cli.parser import build_parser

__all__ = ["main", "build_parser", "default_n_resamples", "DEFAULT_TESTS", "METRICS", "TESTS"]


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
