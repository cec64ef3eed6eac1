r"""Several metrics' bootstrap intervals from one set of resamples: :func:`joint_intervals`.

With the same ``seed`` every metric's ``ci=`` resamples the same instances: the indices are drawn
replicate after replicate from one generator (:func:`~credalbook.metrics.intervals.resample_statistic`).
The metrics below compute their replicates from the multiplicities of those indices
(:func:`~credalbook.metrics.intervals.resample_counts`): the means of per-instance terms (accuracy, NLL,
Brier score, the signed calibration error) as :math:`m^\top t / N`, the equal-width binned errors as
per-bin sums weighted by :math:`m`. :func:`joint_intervals` counts each replicate once and evaluates
every metric on it, so its intervals are those of the metrics' own ``ci=`` bit for bit, for a fraction of
the work: the report of ``credalbook evaluate`` uses it.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from credalbook._validation import as_scalar, check_choice, check_n_bins, check_probs_labels
from credalbook.metrics.binned_core import _cells_counts_statistic, class_groups
from credalbook.metrics.classification import _top_label, _top_label_error, ece_classwise, ece_classwise_batched
from credalbook.metrics.intervals import (
    check_ci_options,
    check_unbatched,
    interval,
    joint_statistic,
    mean_of_counts,
    resample_counts,
)
from credalbook.metrics.mean_terms import _brier_terms, _nll_terms

__all__ = ["JOINT_METRICS", "joint_intervals"]

#: The metrics :func:`joint_intervals` takes (with their default options; ``n_bins`` for the binned ones).
JOINT_METRICS = ("accuracy", "nll", "brier_score", "signed_calibration_error", "ece_confidence", "ece_classwise")


def _part(name: str, p: np.ndarray, y: np.ndarray, n_bins: int, top):
    """(value, statistic of the multiplicities) of one metric, as its own ``ci=`` computes them on the checked
    ``p`` and ``y``; ``top()`` gives :func:`~credalbook.metrics.classification._top_label` of them, computed once for
    the accuracy, the signed error and the top-label ECE (the same arrays each metric computes for itself:
    ``positive == 0`` is ``argmax(p) == y``)."""
    if name in ("accuracy", "nll", "brier_score", "signed_calibration_error"):
        # the terms and the value exactly as the metric computes them on checked inputs
        terms = {
            "accuracy": lambda: top()[1] == 0,  # _accuracy_terms(p, y)
            "nll": lambda: _nll_terms(p, y, 1e-12),
            "brier_score": lambda: _brier_terms(p, y),
            "signed_calibration_error": lambda: top()[0][..., 0] - (top()[1] == 0),  # _signed_terms(p, y, "confidence")
        }[name]()
        value = as_scalar(terms.mean(axis=-1))
        return value, functools.partial(mean_of_counts, np.ascontiguousarray(terms, dtype=np.float64))
    if name == "ece_confidence":
        conf, positive = top()
        hit = positive[:, None] == np.arange(conf.shape[1])
        stat = _cells_counts_statistic(conf, hit, n_bins=n_bins, norm=1, debiased=False)
        value = _top_label_error(conf, positive, n_bins=n_bins, strategy="uniform", norm=1, debiased=False)
        return as_scalar(value), stat  # ece_confidence(p, y, n_bins=n_bins)
    hit = np.zeros(p.shape, dtype=bool)
    hit[np.arange(p.shape[0]), y] = True
    stat = _cells_counts_statistic(p, hit, n_bins=n_bins, norm=1, debiased=False)
    return as_scalar(ece_classwise_batched(p, y, n_bins)), stat  # ece_classwise(p, y, n_bins=n_bins)


def _parts(names, p: np.ndarray, y: np.ndarray, n_bins: int) -> list:
    """:func:`_part` of each name, the top label computed at most once for all of them."""
    top = functools.cache(lambda: _top_label(p, y))
    return [_part(name, p, y, n_bins, top) for name in names]


def joint_intervals(
    probs, labels, metrics=JOINT_METRICS, *, n_bins: int = 10, ci: float = 0.95, n_resamples: int = 1000, seed=None
) -> dict:
    """Bootstrap intervals of several metrics on the same resamples, each replicate counted once.

    The result for each metric is what ``metric(probs, labels, ci=ci, n_resamples=n_resamples,
    seed=seed)`` returns (``n_bins=n_bins`` for the binned ones; default options otherwise; the signed
    calibration error of the top label), bit for bit, for an integer or SeedSequence ``seed``: the same
    resample indices, the same sums.

    Parameters
    ----------
    probs : array-like, shape (N, K), or (N,) binary scores P(y = 1)
    labels : array-like of int, shape (N,)
    metrics : sequence of str, default :data:`JOINT_METRICS`
        Names among :data:`JOINT_METRICS`.
    n_bins : int, default 10
        Equal-width bins of ``ece_confidence`` and ``ece_classwise``.
    ci : float in (0, 1), default 0.95
    n_resamples : int, default 1000
    seed : None, int, SeedSequence or Generator

    Returns
    -------
    dict of str to Estimate
        In the order of ``metrics``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=400)
    >>> y = (rng.random(400)[:, None] > p.cumsum(1)).sum(1)
    >>> out = joint_intervals(p, y, ("accuracy", "ece_confidence"), n_resamples=200, seed=1)
    >>> from credalbook.metrics import ece_confidence
    >>> out["ece_confidence"] == ece_confidence(p, y, ci=0.95, n_resamples=200, seed=1)
    True
    """
    if isinstance(metrics, str) or not len(metrics):
        raise ValueError(f"metrics must be a non-empty sequence of names from {JOINT_METRICS}; got {metrics!r}")
    names = [check_choice(m, "metrics", JOINT_METRICS) for m in metrics]
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must not repeat a name; got {list(metrics)}")
    n_bins = check_n_bins(n_bins)
    level, n_resamples, seed, method = check_ci_options(ci, n_resamples, seed)
    p, y = check_probs_labels(probs, labels)
    check_unbatched(p)
    groups = class_groups(*p.shape) if "ece_classwise" in names else None
    if groups is not None:
        return _in_passes(
            p, y, names, groups, n_bins=n_bins, ci=level, n_resamples=n_resamples, seed=seed, method=method
        )
    parts = _parts(names, p, y, n_bins)
    statistic = functools.partial(joint_statistic, [stat for _, stat in parts])
    reps = resample_counts(statistic, p.shape[0], n_resamples=n_resamples, seed=seed)
    return {
        name: interval(value, reps[:, j], ci=level, method=method)
        for j, (name, (value, _)) in enumerate(zip(names, parts))
    }


def _pass_seeds(seed, n_passes: int):
    """The seed of each of ``n_passes`` passes over the same resamples: an integer or SeedSequence as
    it is, None as one fresh SeedSequence, a Generator copied for all passes but the last (which
    leaves it where one pass leaves it)."""
    if seed is None:
        seed = np.random.SeedSequence()
    if not isinstance(seed, np.random.Generator):
        return [seed] * n_passes
    return [copy.deepcopy(seed) for _ in range(n_passes - 1)] + [seed]


def _in_passes(p, y, names, groups, *, n_bins: int, ci: float, n_resamples: int, seed, method: str) -> dict:
    """:func:`joint_intervals` with the classwise weights built for one group of classes at a time (large
    N·K): the other metrics on one pass over the resamples, then each group's per-class errors on the
    same resamples drawn again, their mean over the classes the replicate of ``ece_classwise``."""
    n, k = p.shape
    seeds = _pass_seeds(seed, 1 + len(groups))
    others = [name for name in names if name != "ece_classwise"]
    out = {}
    if others:
        parts = _parts(others, p, y, n_bins)
        statistic = functools.partial(joint_statistic, [stat for _, stat in parts])
        reps = resample_counts(statistic, n, n_resamples=n_resamples, seed=seeds[0])
        out = {
            name: interval(value, reps[:, j], ci=ci, method=method)
            for j, (name, (value, _)) in enumerate(zip(others, parts))
        }
        del parts, statistic
    errors = np.empty((n_resamples, k))
    for group, group_seed in zip(groups, seeds[1:]):
        hit = y[:, None] == np.arange(group.start, group.stop)  # the columns of the one-hot labels
        statistic = _cells_counts_statistic(p[:, group], hit, n_bins=n_bins, norm=1, debiased=False, per_problem=True)
        errors[:, group] = resample_counts(statistic, n, n_resamples=n_resamples, seed=group_seed)
        del statistic
    out["ece_classwise"] = interval(ece_classwise(p, y, n_bins=n_bins), errors.mean(axis=-1), ci=ci, method=method)
    return {name: out[name] for name in names}
