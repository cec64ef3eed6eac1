"""Type I error and power of the calibration tests of a binary classifier, as a Markdown table.

Each of ``--reps`` data sets draws N scores p ~ U(0, 1) and labels y ~ Bernoulli(p), so that the
scores are calibrated, and hands every test three predictions of the same labels: p itself (the
rejection rate is the Type I error, shown with its exact 95% Clopper-Pearson interval), an
over-confident model (logit(p) scaled by 2) and an under-confident one (logit(p) scaled by 0.5)
(the rejection rates are the power). The tests are those of ``credalbook.stats.calibration_test``
on (N,) scores: Spiegelhalter's z, Hosmer-Lemeshow's C and H with the χ²(g) reference (their
default) and with Hosmer & Lemeshow's χ²(g − 2), the consistency-resampling test of the top-label
ECE and the linear SKCE test.

    .venv/bin/python scripts/binary_tests_type1.py --reps 1000 --n 100 1000 10000 --seed 0
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats
from scipy.special import expit, logit

from credalbook.stats import calibration_test

#: (label, method, options) of each test in the table.
TESTS = (
    ("spiegelhalter", "spiegelhalter", {}),
    ("HL C, χ²(g)", "hosmer_lemeshow_c", {}),
    ("HL C, χ²(g − 2)", "hosmer_lemeshow_c", {"null": "chi2"}),
    ("HL H, χ²(g)", "hosmer_lemeshow_h", {}),
    ("HL H, χ²(g − 2)", "hosmer_lemeshow_h", {"null": "chi2"}),
    ("consistency (ece_confidence)", "consistency", {}),
    ("skce_linear", "skce_linear", {}),
)
SCENARIOS = {"calibrated": 1.0, "over-confident (logit × 2)": 2.0, "under-confident (logit × 0.5)": 0.5}


def rejection_counts(n: int, reps: int, seed: int, alpha: float, n_resamples: int) -> np.ndarray:
    """Rejections (tests × scenarios) over ``reps`` data sets of ``n`` instances; the same data for every test."""
    rng = np.random.default_rng([seed, n])
    counts = np.zeros((len(TESTS), len(SCENARIOS)), dtype=np.int64)
    for _ in range(reps):
        p = rng.uniform(1e-12, 1 - 1e-12, size=n)
        y = (rng.random(n) < p).astype(np.int64)
        for j, t in enumerate(SCENARIOS.values()):
            scores = p if t == 1.0 else expit(t * logit(p))
            for i, (_, method, options) in enumerate(TESTS):
                res = calibration_test(
                    scores, y, method=method, alpha=alpha, n_resamples=n_resamples, seed=rng, **options
                )
                counts[i, j] += bool(res.rejected)
    return counts


def clopper_pearson(k: int, reps: int) -> tuple[float, float]:
    """The exact 95% interval of a binomial proportion k / reps."""
    ci = stats.binomtest(int(k), reps).proportion_ci(confidence_level=0.95, method="exact")
    return ci.low, ci.high


def table(results: dict, reps: int, alpha: float) -> str:
    """Markdown table: one row per (test, N)."""
    names = list(SCENARIOS)
    lines = [
        f"| test | N | Type I error at α = {alpha:g} [95% CI] | power: {names[1]} | power: {names[2]} |",
        "|---|---:|---|---:|---:|",
    ]
    for i, (label, _, _) in enumerate(TESTS):
        for n, counts in results.items():
            k = counts[i]
            lo, hi = clopper_pearson(k[0], reps)
            lines.append(
                f"| {label} | {n} | {k[0] / reps:.3f} [{lo:.3f}, {hi:.3f}] | {k[1] / reps:.3f} | {k[2] / reps:.3f} |"
            )
    return "\n".join(lines)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000, help="data sets per N (default 1000)")
    parser.add_argument("--n", type=int, nargs="+", default=[100, 1000, 10000], help="instances per data set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--n-resamples", type=int, default=200, help="resamples of the consistency test")
    args = parser.parse_args(argv)
    if args.reps < 1 or any(n < 10 for n in args.n):
        parser.error("--reps must be at least 1 and every --n at least 10 (the ten groups of Hosmer-Lemeshow)")
    start = time.perf_counter()
    results = {n: rejection_counts(n, args.reps, args.seed, args.alpha, args.n_resamples) for n in args.n}
    out = table(results, args.reps, args.alpha)
    print(out)
    print(
        f"\n{args.reps} data sets per N, seed {args.seed}, {args.n_resamples} resamples for the consistency "
        f"test; {time.perf_counter() - start:.0f} s"
    )
    return out


if __name__ == "__main__":
    main()
