"""The shared linear SKCE of ``credalbook evaluate`` (issue 49, item 5) against the calls it replaces, on fixed data.

The ``skce`` metric and the ``skce_linear`` test take their pair terms from one computation, in
chunks of pairs: the terms, the metric (value and interval) and the test result must be those of
the public calls bit for bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from credalbook.cli.evaluation import compute_metric, run_test
from credalbook.cli.shared_skce import SharedSKCE
from credalbook.metrics import GaussianKernel, LaplacianKernel, skce, TVKernel
from credalbook.metrics.skce_core import _linear_terms, linear_terms_in_chunks, skce_residuals


def _data(n, k, seed, shift=1.0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.7, size=n)
    y = (rng.random((n, 1)) > np.cumsum(p**shift / (p**shift).sum(1, keepdims=True), axis=1)).sum(axis=1)
    return p, y.clip(max=k - 1)


@pytest.mark.parametrize("kernel", [LaplacianKernel(0.4), GaussianKernel(0.3), TVKernel(1.5)])
@pytest.mark.parametrize(("n", "chunk"), [(1001, 7), (1000, 500), (6, 1), (5, 64)])
def test_linear_terms_in_chunks_equal_the_terms_at_once(kernel, n, chunk):
    p, y = _data(n, 4, 0)
    at_once = _linear_terms(p, skce_residuals(p, y), kernel)
    chunked = linear_terms_in_chunks(p, y, kernel, chunk=chunk)
    assert chunked.shape == (n // 2,)
    np.testing.assert_array_equal(chunked, at_once)


def test_skce_interval_of_chunked_terms_equals_a_plain_bootstrap():
    p, y = _data(2001, 3, 1)
    kernel = LaplacianKernel(0.5)
    est = skce(p, y, kernel=kernel, estimator="linear", ci=0.9, n_resamples=40, seed=2)
    terms = _linear_terms(p, skce_residuals(p, y), kernel)
    rng = np.random.default_rng(2)
    plain = np.array([terms[rng.integers(0, terms.size, size=terms.size)].mean() for _ in range(40)])
    assert est.value == float(terms.mean())
    np.testing.assert_allclose(est.replicates, plain, rtol=1e-12)


@pytest.mark.parametrize("shift", [1.0, 2.5])
@pytest.mark.parametrize("ci", [0.95, None])
def test_shared_skce_metric_and_test_equal_the_generic_calls(shift, ci):
    p, y = _data(3001, 5, 3, shift)
    shared = SharedSKCE(p, y)
    assert shared.usable
    generic = compute_metric(p, y, "skce", n_bins=10, ci=ci, n_resamples=60, seed=7)
    ours = shared.metric(ci=ci, n_resamples=60, seed=7)
    if ci is None:
        assert type(ours) is float and ours == generic
    else:
        for field in dataclasses.fields(generic):
            np.testing.assert_array_equal(getattr(ours, field.name), getattr(generic, field.name))
    test = run_test(p, y, "skce_linear", n_bins=10, n_resamples=60, alpha=0.05, seed=7, n_jobs=None)
    mine = shared.test(alpha=0.05)
    assert (mine.statistic, mine.pvalue, mine.threshold, mine.rejected, mine.method) == (
        test.statistic,
        test.pvalue,
        test.threshold,
        test.rejected,
        test.method,
    )
    assert mine.details == test.details
    assert (mine.null_model.mean(), mine.null_model.std()) == (test.null_model.mean(), test.null_model.std())
    assert mine.statistic == (ours if ci is None else ours.value)


def test_shared_skce_is_not_used_below_four_instances():
    p, y = _data(3, 3, 0)
    assert not SharedSKCE(p, y).usable
