r"""Metrics that are means of per-instance terms, and their bootstrap intervals from multiplicities.

Accuracy, NLL, the Brier score and the signed calibration error are means of one term per instance.
A bootstrap replicate's mean is :math:`m^\top t / N`, with :math:`m` the multiplicities of its
resample indices (:func:`~credalbook.metrics.intervals.resample_counts`: the indices of gathering,
the gathered means up to the order of the sums), so several such means share one count per
replicate (:func:`credalbook.metrics.joint_intervals`).
"""

from __future__ import annotations

import functools

import numpy as np

from credalbook.metrics.binning import one_hot
from credalbook.metrics.intervals import counts_estimate, mean_of_counts


def _accuracy_terms(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-instance hits of :func:`~credalbook.metrics.accuracy`: ``argmax(p) == y`` (..., N) bool."""
    return p.argmax(axis=-1) == y


def _brier_terms(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-instance terms of :func:`~credalbook.metrics.brier_score`: the squared distance to the one-hot label."""
    return ((p - one_hot(y, p.shape[-1])) ** 2).sum(axis=-1)


def _nll_terms(p: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """Per-instance terms of :func:`~credalbook.metrics.nll`: ``-log max(p_y, eps)`` (..., N)."""
    p_true = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]
    return -np.log(np.clip(p_true, eps, None))


def _mean_estimate(terms: np.ndarray, value: float, *, ci, n_resamples, seed):
    """Bootstrap interval of the mean of per-instance ``terms`` (N,) (see the module docstring)."""
    terms = np.ascontiguousarray(terms, dtype=np.float64)
    statistic = functools.partial(mean_of_counts, terms)
    return counts_estimate(statistic, terms.shape[0], value, ci=ci, n_resamples=n_resamples, seed=seed)
