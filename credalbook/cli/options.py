"""What ``credalbook evaluate`` offers: the metrics and tests by name, their table labels, and the default resamples.

Light on purpose (no NumPy, no computing module): the parser reads these tables to build the
``--help`` text, the evaluation and the printed report read them too.
"""

from __future__ import annotations

__all__ = [
    "METRICS",
    "RENAMED_METRICS",
    "TESTS",
    "DEFAULT_TESTS",
    "DEFAULT_BINARY_TESTS",
    "TEST_LABELS",
    "MAX_AUTO_RESAMPLES",
    "MIN_AUTO_RESAMPLES",
    "AUTO_RESAMPLE_WORK",
    "default_n_resamples",
]

#: Metrics ``--metrics`` can choose (all by default): name → label in the table.
METRICS = {
    "accuracy": "accuracy",
    "nll": "NLL",
    "brier_score": "Brier score",
    "ece_confidence": "ECE confidence",
    "ece_classwise": "ECE classwise",
    "skce": "SKCE linear (Laplacian)",
    "signed_calibration_error": "signed error (conf-acc)",
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
    "spiegelhalter",
    "hosmer_lemeshow_c",
    "hosmer_lemeshow_h",
)
#: Tests run unless ``--tests`` says otherwise.
DEFAULT_TESTS = ("consistency", "skce_linear", "hosmer_lemeshow")
#: Tests run unless ``--tests`` says otherwise when every model is binary (two classes, or scores of shape (N,)).
DEFAULT_BINARY_TESTS = ("consistency", "spiegelhalter", "hosmer_lemeshow_c")
#: Label of each test (and of the test of a set, ``"set"``) in the printed table.
TEST_LABELS = {
    "consistency": "consistency resampling, ECE top-label",
    "consistency_classwise": "consistency resampling, ECE classwise",
    "skce_linear": "SKCE linear, asymptotic normal",
    "skce_block": "SKCE block, asymptotic normal",
    "skce_quadratic": "SKCE quadratic, bootstrap",
    "skce_distribution_free": "SKCE, distribution-free bound",
    "hosmer_lemeshow": "Hosmer-Lemeshow, resampled",
    "spiegelhalter": "Spiegelhalter z, normal",
    "hosmer_lemeshow_c": "Hosmer-Lemeshow C, chi2(g)",
    "hosmer_lemeshow_h": "Hosmer-Lemeshow H, chi2(g)",
    "set": "set test (Mortier), ECE top-label",
}
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
    Hinkley 1997, Ch. 4). Measured on a quiet 2-core machine when this default was chosen (K = 10,
    the default metrics and tests, without ``--out``): N = 10⁵ took 6.8 s with the default R = 500
    and 10 s with R = 1000; N = 10⁶ with R = 100 took 16 s (18 s with ``--out`` and its figures).
    The same command with ``--out`` at N = 10⁶ took 4.7-4.9 s on an earlier 2-core machine (8 runs); on
    the 2-core machine of 2026-11-30, 5.3-5.7 s (6.2-6.4 s with the code before the bootstrap drew its
    indices by blocks, side by side in one run; ``scripts/benchmark.py --only-scale --cases evaluate_cli``
    times it); later that day 5.6-5.8 s, with or without the imports beside the metrics and the counts in
    two bytes (side by side, two runs), and 5.4-6.8 s over repeated runs of one tree. On the 2-core machine of
    2026-12-01, 6.2-7.5 s, and the code of 2026-11-30 (6795fda) side by side 7.0-8.2 s: that machine, not the code.
    There the command used 8.4-9.3 s of user and 1.1-2.0 s of system CPU time (each step alone, R = 100: the
    metrics' intervals 2.7 s, the HL test 2.3 s, the consistency test 1.9 s, the imports 1.25 s, the SKCE 0.6 s),
    so two cores cannot take it below about 5 s. On the 2-core Intel Xeon of 2026-12-01 afternoon, 7.4-8.4 s
    (median 7.9, 4 runs) and later medians of 8.1-9.6 s as the machine slowed, with 11-15 s of CPU time (the CPU time of each
    step alone: the intervals 2.9-3.4 s, the consistency test 2.2 s, HL 2.0 s, the classwise diagram 1.3 s, the
    imports about 1.5 s), so there two cores cannot take it below about 6 s. Later on that machine, side by side,
    6.1-8.1 s against 19.9-21.2 s for the code before the report's fast paths (0212e07, the code
    against which the 15.8 s of ``credalbook evaluate`` at N = 10⁶ was measured), while the CPU time of one
    and the same command moved between 9 s and 16 s within the hour (farm-bench medians 12.4 s and 14.6 s).

    Examples
    --------
    >>> default_n_resamples(2000), default_n_resamples(10**5), default_n_resamples(10**6)
    (1000, 500, 100)
    """
    return int(min(MAX_AUTO_RESAMPLES, max(MIN_AUTO_RESAMPLES, AUTO_RESAMPLE_WORK // max(n, 1))))
