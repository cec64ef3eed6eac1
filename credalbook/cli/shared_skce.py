"""The linear SKCE of one model, computed once for the ``skce`` metric and the ``skce_linear`` test.

Both take the same kernel (Laplacian, median-heuristic bandwidth) and the same ⌊N/2⌋ pair terms of
the linear estimator (Widmann et al. 2019, Eq. 8): the metric is their mean with the bootstrap
interval of :func:`credalbook.metrics.skce` (``ci=``), the test their mean against the asymptotic
normal null of :func:`credalbook.stats.skce_test` (its asymptotic test, step for step). :class:`SharedSKCE` computes the terms once (in
chunks of pairs, a few MiB of working memory) for whichever asks first, the metrics or the tests'
thread, and gives each exactly what its own call gives.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["SharedSKCE"]

#: Fewest instances the shared route takes (the linear test needs two pairs); below, the generic calls.
MIN_SHARED_N = 4


class SharedSKCE:
    """The kernel and the linear SKCE terms of checked predictions ``p`` (N, K) and labels (N,), computed once."""

    def __init__(self, p: np.ndarray, labels: np.ndarray):
        self._p, self._labels = p, labels
        self._lock = threading.Lock()
        self._kernel = self._terms = None

    @property
    def usable(self) -> bool:
        """Whether the shared route applies (else the metric and the test take their generic calls)."""
        return self._p.ndim == 2 and self._labels.ndim == 1 and self._p.shape[0] >= MIN_SHARED_N

    def _kernel_terms(self):
        from credalbook.metrics import LaplacianKernel, median_heuristic
        from credalbook.metrics.skce_core import linear_terms_in_chunks

        with self._lock:
            if self._terms is None:
                self._kernel = LaplacianKernel(median_heuristic(self._p))
                self._terms = linear_terms_in_chunks(self._p, self._labels, self._kernel)
            return self._kernel, self._terms

    def metric(self, *, ci, n_resamples: int, seed):
        """What ``skce(p, labels, kernel=kernel, estimator="linear", ci=ci, ...)`` returns (a float without ``ci``)."""
        from credalbook._validation import as_scalar
        from credalbook.metrics.intervals import bootstrap_estimate

        _, terms = self._kernel_terms()
        value = as_scalar(_mean_last(terms))
        if ci is None:
            return float(value)
        return bootstrap_estimate(
            _mean_last, (terms,), value, ci=ci, n_resamples=n_resamples, seed=seed, symmetric=True, threads=True
        )

    def test(self, *, alpha: float):
        """What ``calibration_test(p, labels, method="skce_linear", alpha=alpha, direction=False)`` returns."""
        from credalbook.stats.kernel_tests import skce_asymptotic_test

        kernel, terms = self._kernel_terms()
        n, k = self._p.shape
        details = {"n": n, "K": k, "estimator": "linear", "null": "asymptotic", "kernel": repr(kernel)}
        return skce_asymptotic_test(terms, float(terms.mean()), "linear", alpha, details)


def _mean_last(terms: np.ndarray) -> np.ndarray:
    """The linear SKCE of (..., M) pair terms, as :func:`credalbook.metrics.skce` takes it."""
    return terms.mean(axis=-1)
