"""Monte Carlo helpers of the calibration-test validation (Type I error and power tables)."""

import numpy as np
from scipy import stats

from credalbook.stats import calibration_test

#: Methods validated and the options each runs with in the Monte Carlo tables.
MC_METHODS = {
    "consistency": {},
    "skce_linear": {},
    "skce_block": {"block_size": 10},
    "skce_quadratic": {},
    "skce_distribution_free": {},
    "hosmer_lemeshow": {},
}


def synthetic(n, k, rng, *, temperature=1.0):
    """probs ~ Dir(1_K), labels ~ Cat(probs); returns (probs ** (1/T) renormalised, labels).

    T = 1 is a calibrated model (H0 true); T < 1 an over-confident one.
    """
    p = rng.dirichlet(np.ones(k), size=n)
    y = np.minimum((rng.random(n)[:, None] >= np.cumsum(p, axis=1)).sum(axis=1), k - 1)
    q = p ** (1.0 / temperature)
    return q / q.sum(axis=1, keepdims=True), y


def rejection_rate(method, n, k, *, n_datasets, n_resamples=99, alpha=0.05, temperature=1.0, seed=0):
    """Fraction of ``n_datasets`` synthetic data sets on which ``method`` gives p <= alpha."""
    rng = np.random.default_rng([seed, n, k])
    opts = MC_METHODS[method]
    count = 0
    for i in range(n_datasets):
        p, y = synthetic(n, k, rng, temperature=temperature)
        res = calibration_test(p, y, method=method, n_resamples=n_resamples, alpha=alpha, seed=[seed, i], **opts)
        count += res.pvalue <= alpha
    return count / n_datasets


def binomial_band(n_trials, p, level=0.999):
    """Central ``level`` interval of Binomial(n_trials, p) / n_trials: the band a valid rate lies in."""
    lo = stats.binom.ppf((1 - level) / 2, n_trials, p)
    hi = stats.binom.isf((1 - level) / 2, n_trials, p)
    return lo / n_trials, hi / n_trials
