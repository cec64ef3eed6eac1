r"""The new test with the true weight function: what is left of its Type I error when λ(x) need not be learned.

Jürgens et al. explain the new test's rates above α by λ(x)'s generalisation error: "Since we learn the optimally
calibrated convex combination on a separate dataset, the learned convex combination on the test set might be not
the one with lowest calibration error" (Sec. 4.1). Under H0 the generator knows the calibrated combination
:math:`\mathbf p_{\boldsymbol\lambda^*}(\mathbf x)`; :func:`oracle_error_summary` runs the test's last step (the
statistic on the test split and its null replicates, labels redrawn from the combination) with it, on the same
datasets and test splits as :func:`~credalbook.papers.juergens.instance_test_error_rates` with the same arguments:
the one setting changed is the learned λ(x) → the true λ*(x).
"""

from __future__ import annotations

import time

import numpy as np

from credalbook._validation import check_choice, check_positive_int
from credalbook.papers.juergens.error_rates import _study_data, JUERGENS_ESTIMATORS, JUERGENS_SUMMARY_ALPHAS, SIMULATORS
from credalbook.papers.mortier.error_rates import ErrorRateStudy, ErrorRateSummary
from credalbook.stats.measures import estimator_measure
from credalbook.stats.null_distribution import null_statistics, RESAMPLING
from credalbook.synthetic.instance_scenarios import INSTANCE_SETTINGS

__all__ = ["oracle_error_summary", "oracle_study"]


def oracle_error_summary(
    setting: str, hypothesis: str, *, alphas=JUERGENS_SUMMARY_ALPHAS, **options
) -> ErrorRateSummary:
    """The new test's decisions under H0 with the generator's calibrated combination in place of the learned λ(x).

    The datasets and the test split are those of :func:`~credalbook.papers.juergens.instance_test_error_rates` with
    the same ``setting``, ``hypothesis``, sizes, ``estimators``, ``fractions``, ``simulator`` and ``seed``; the
    statistic is each estimator on the true combination and the labels of the test split, its D null replicates
    redraw the labels from the same combination (``resample`` the instances first, as the test does), from a stream
    of their own. ``options`` are those of :func:`oracle_study`.

    Returns
    -------
    ErrorRateSummary
        Tests named ``"<estimator> · oracle"``, summarised at ``alphas``.

    Examples
    --------
    >>> s = oracle_error_summary("binary", "H0-const", n_datasets=3, n_instances=200, n_resamples=20,
    ...                          estimators=(("lp", {}), ("kl", {})))
    >>> s.measures, s.rejected.shape[::2]
    (('L2-CE · oracle', 'KL-CE · oracle'), (2, 3))
    """
    return oracle_study(setting, hypothesis, **options).summary(alphas)


def oracle_study(
    setting: str,
    hypothesis: str,
    *,
    simulator: str = "book",
    seed: int = 0,
    n_datasets: int = 100,
    n_instances: int = 2000,
    fractions=(0.6, 0.2, 0.2),
    estimators=JUERGENS_ESTIMATORS,
    n_resamples: int = 100,
    resample: str = "permutation",
) -> ErrorRateStudy:
    """:func:`oracle_error_summary` with its statistics and null replicates (an ErrorRateStudy)."""
    check_choice(setting, "setting", INSTANCE_SETTINGS)
    check_choice(simulator, "simulator", SIMULATORS)
    check_choice(resample, "resample", RESAMPLING)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    if not (isinstance(hypothesis, str) and hypothesis.startswith("H0")):
        raise ValueError(
            f"hypothesis must be an H0 panel ('H0-const', 'H0-inst'): only H0 has a true λ*; got {hypothesis!r}"
        )
    specs = tuple((name, dict(opts or {})) for name, opts in estimators)
    if not specs:
        raise ValueError("estimators must name at least one estimator")
    start = time.perf_counter()
    # the study's streams: data, splits, then one per estimator; one more for these null replicates
    seqs = np.random.SeedSequence(seed).spawn(3 + len(specs))
    sc, (_, _, test) = _study_data(setting, hypothesis, simulator, n_datasets, n_instances, fractions, seqs)
    p, y = sc.truth[:, test], sc.labels[:, test]
    rng = np.random.default_rng(seqs[-1])
    measures = [estimator_measure(name, **opts) for name, opts in specs]
    stats = np.stack([g.func(p, y) for g in measures])
    nulls = np.stack(
        [null_statistics(p[:, :, None, :], g.func, n_resamples, "uniform", resample, rng) for g in measures]
    )
    config = dict(setting=setting, hypothesis=hypothesis, n_datasets=n_datasets, n_instances=n_instances,
                  estimators=specs, fractions=tuple(fractions), n_bootstrap=n_resamples, resample=resample,
                  simulator=simulator, seed=seed, weights="true λ*(x)")  # fmt: skip
    names = tuple(f"{g.name} · oracle" for g in measures)
    return ErrorRateStudy(hypothesis, names, stats, nulls, np.zeros(stats.shape, dtype=np.int64), config,
                          time.perf_counter() - start)  # fmt: skip
