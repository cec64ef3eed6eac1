"""The standard errors of the Wu & Gales chapter: bootstrap resamples of the test set, shared by every study.

Every study keeps ``n_resamples`` bootstrap resamples of the test set (:func:`boot_weights`, the same
resamples for every method, run and topology, so differences are paired): the ECE and accuracy of each run
and method on each resample (:func:`bootstrap_ece_accuracy`). :func:`paired_estimate` turns them into a
difference and its standard error, which the comparison rows judge.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._deprecation import renamed
from credalbook._validation import check_positive_int
from credalbook.metrics.regions import DEFAULT_EPSILON, region_ids

__all__ = ["WG_BOOT_METRICS", "WG_N_BOOT", "boot_weights", "bootstrap_ece_accuracy", "paired_estimate"]

#: Bootstrap resamples of the test set behind the standard errors of the comparison rows.
WG_N_BOOT = 200
#: What each bootstrap resample records, in order.
WG_BOOT_METRICS = ("ece", "accuracy")


@renamed(n_boot="n_resamples")
def boot_weights(n: int, n_resamples: int = WG_N_BOOT, *, seed=0) -> np.ndarray:
    """Multinomial counts (n_resamples, n) of ``n_resamples`` bootstrap resamples of n instances (seeded, so
    every study of one test set uses the same resamples).

    >>> w = boot_weights(5, 3, seed=0)
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5.0, 5.0, 5.0])
    """
    n, b = check_positive_int(n, "n"), check_positive_int(n_resamples, "n_resamples")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(b, n))
    out = np.zeros((b, n))
    np.add.at(out, (np.repeat(np.arange(b), n), idx.ravel()), 1.0)
    return out


def bootstrap_ece_accuracy(probs, labels, weights, *, epsilon: float = DEFAULT_EPSILON) -> np.ndarray:
    """Top-label ECE and accuracy of ``probs`` on each bootstrap resample: shape (B, 2).

    ``weights`` (B, N) are resampling counts (:func:`boot_weights`); with all-ones weights this is
    exactly :func:`~credalbook.metrics.ece` and the accuracy (the regions are those of the full sample).

    >>> from scipy.special import softmax
    >>> from credalbook.metrics import ece
    >>> rng = np.random.default_rng(0)
    >>> p = softmax(2 * rng.normal(size=(300, 4)), axis=1); y = rng.integers(0, 4, 300)
    >>> out = bootstrap_ece_accuracy(p, y, np.ones((1, 300)))
    >>> bool(np.isclose(out[0, 0], ece(p, y))), bool(np.isclose(out[0, 1], (p.argmax(1) == y).mean()))
    (True, True)
    """
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels)
    w = np.asarray(weights, dtype=np.float64)
    n = len(p)
    yhat = p.argmax(axis=1)
    conf = p[np.arange(n), yhat]
    correct = (yhat == y).astype(np.float64)
    ids, n_regions = region_ids(conf, epsilon)
    resid = np.zeros((n, n_regions))
    resid[np.arange(n), ids] = conf - correct
    return np.stack([np.abs(w @ resid).sum(axis=1) / n, w @ correct / n], axis=1)


def paired_estimate(runs_a, boot_a, runs_b=None, boot_b=None) -> tuple[float, float]:
    """Mean over runs of ``a − b`` (or of ``a``) and its standard error.

    ``runs_*`` (R,) are the values of the runs on the test set; ``boot_*`` (B, R) the same on B
    bootstrap resamples of the test set, shared by ``a`` and ``b`` (a paired difference). The
    standard error combines the bootstrap spread of the mean over runs (test-set sampling) with
    the spread over runs, ``sd/√R`` (members and fits; a lower bound where runs share members).

    >>> a, b = np.array([0.05, 0.06]), np.array([0.03, 0.035])
    >>> ba, bb = a + np.array([[0.01], [-0.01], [0.0]]), b + np.array([[0.008], [-0.012], [0.0]])
    >>> d, se = paired_estimate(a, ba, b, bb)
    >>> round(d, 4), round(se, 4)
    (0.0225, 0.0028)
    """
    ra, ba = np.asarray(runs_a, dtype=float).ravel(), np.asarray(boot_a, dtype=float)
    ba = ba.reshape(len(ba), -1)
    if runs_b is not None:
        ra = ra - np.asarray(runs_b, dtype=float).ravel()
        ba = ba - np.asarray(boot_b, dtype=float).reshape(len(ba), -1)
    boot_se = float(ba.mean(axis=1).std(ddof=1)) if len(ba) > 1 else 0.0
    run_se = float(ra.std(ddof=1) / math.sqrt(len(ra))) if len(ra) > 1 else 0.0
    return float(ra.mean()), math.hypot(boot_se, run_se)
