r"""Evaluating real classifier sets with the set calibration test, and comparing minimisers.

:func:`evaluate_classifier_set` computes one row of Table 1 of Mortier et al. (2023, Sec. 4.2):
the plain average of the members (accuracy, :math:`ECE_{conf}`, :math:`ECE_{cwise}` on the test
split) and, for each of :math:`ECE_{conf}` and :math:`ECE_{cwise}`, the outcome of Alg. 1 on the
calibration split together with the accuracy and ECE on the test split of the weighted average
whose weights :math:`\boldsymbol\lambda` Alg. 1 (line 7) found.

:func:`compare_solvers` runs several minimisers of Alg. 1 line 7 on the same datasets and reports
the minimum each reaches, its cost and the test decision it leads to.
"""

from __future__ import annotations

import time

import numpy as np

from credalbook._deprecation import renamed
from credalbook._validation import check_choice, check_positive_float, check_probability
from credalbook.metrics.classification import accuracy, ece_classwise, ece_confidence
from credalbook.papers.mortier.error_rates import PAPER_ALPHAS
from credalbook.papers.mortier.measures import core_measure
from credalbook.stats.bootstrap import (
    MeasureObjective,
    minimise_objective,
    null_statistics,
    set_calibration_test,
    SOLVERS,
)
from credalbook.stats.measures import as_measure
from credalbook.synthetic.set_scenarios import credal_scenario

__all__ = ["evaluate_classifier_set", "compare_solvers", "solver_agreement"]


@renamed(n_bootstrap="n_resamples")
def evaluate_classifier_set(
    classifier_set, *, n_bins: int = 5, alpha: float = 0.05, n_resamples: int = 100, solver: str = "cobyla", seed=2022
) -> dict:
    r"""One row of Mortier et al. (2023), Table 1, for a :class:`~credalbook.nn.ClassifierSet`.

    Parameters
    ----------
    classifier_set : ClassifierSet
        Members' predictions on a calibration and a test split (``ens_probs_cal``, ``y_cal``,
        ``ens_probs_test``, ``y_test``).
    n_bins : int, default 5
        Bins of both ECEs (the paper: 5).
    alpha : float, default 0.05
    n_resamples : int, default 100
    solver : str, default "cobyla"
    seed : int, default 2022

    Returns
    -------
    dict
        ``avg_acc``, ``avg_ece_conf``, ``avg_ece_cwise`` (test split, plain average);
        for ``m`` in ``conf``, ``cwise``: ``h0_<m>`` ("REJ." or "¬REJ."), ``p_<m>``, ``acc_<m>``,
        ``ece_<m>`` (test split, weighted average), ``weights_<m>`` (λ).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=(200, 2))
    >>> y = np.array([rng.choice(3, p=q) for q in p.mean(1)])
    >>> cs = SimpleNamespace(ens_probs_cal=p[:100], y_cal=y[:100], ens_probs_test=p[100:], y_test=y[100:])
    >>> row = evaluate_classifier_set(cs, n_resamples=20, solver="search")
    >>> sorted(k for k in row if not k.startswith("weights"))[:4]
    ['acc_conf', 'acc_cwise', 'avg_acc', 'avg_ece_conf']
    """
    alpha = check_probability(alpha, "alpha")
    cal, y_cal = np.asarray(classifier_set.ens_probs_cal), np.asarray(classifier_set.y_cal)
    test, y_test = np.asarray(classifier_set.ens_probs_test), np.asarray(classifier_set.y_test)
    avg = test.mean(axis=1)
    row = {
        "avg_acc": accuracy(avg, y_test),
        "avg_ece_conf": ece_confidence(avg, y_test, n_bins=n_bins),
        "avg_ece_cwise": ece_classwise(avg, y_test, n_bins=n_bins),
    }
    for key, name, metric in (("conf", "ece_conf", ece_confidence), ("cwise", "ece_cwise", ece_classwise)):
        res = set_calibration_test(
            cal,
            y_cal,
            measure=core_measure(name),
            n_bins=n_bins,
            n_resamples=n_resamples,
            alpha=alpha,
            solver=solver,
            seed=seed,
            chunk_size=None,
        )
        weighted = np.einsum("nmk,m->nk", test, res.weights)
        row.update(
            {
                f"h0_{key}": "REJ." if res.rejected else "¬REJ.",
                f"p_{key}": res.pvalue,
                f"acc_{key}": accuracy(weighted, y_test),
                f"ece_{key}": metric(weighted, y_test, n_bins=n_bins),
                f"weights_{key}": res.weights,
            }
        )
    return row


@renamed(n_bootstrap="n_resamples")
def compare_solvers(
    ens_probs,
    labels,
    *,
    solvers=("cobyla", "cobyla_powell", "multistart", "search", "search_descent"),
    measure="ece_confidence",
    n_bins: int = 10,
    n_resamples: int = 100,
    alpha: float = 0.05,
    solver_options: dict | None = None,
    seed: int = 0,
) -> dict:
    r"""Run Alg. 1 with several minimisers on the same R datasets (same null samples).

    Parameters
    ----------
    ens_probs : array-like, shape (R, N, M, K)
    labels : array-like, shape (R, N)
    solvers : sequence of str
    measure, n_bins
        See :func:`~credalbook.stats.as_measure`.
    n_resamples, alpha
        D and the significance level of the reported rejection rate.
    solver_options : dict of solver → options, optional
    seed : int

    Returns
    -------
    dict
        solver → ``{"statistic": (R,), "rejected": (R,), "n_evaluations": (R,), "seconds_per_test": float}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ens = rng.dirichlet(np.ones(3), size=(2, 60, 3))
    >>> out = compare_solvers(ens, rng.integers(0, 3, size=(2, 60)), solvers=("search", "grid"), n_resamples=20)
    >>> sorted(out), out["grid"]["statistic"].shape
    (['grid', 'search'], (2,))
    """
    alpha = check_probability(alpha, "alpha")
    null, out = _solver_runs(ens_probs, labels, solvers, measure, n_bins, n_resamples, solver_options, seed)
    threshold = np.quantile(null, 1 - alpha, axis=-1)
    for run in out.values():
        run["rejected"] = run["statistic"] > threshold
    return out


def _solver_runs(ens_probs, labels, solvers, measure, n_bins, n_resamples, solver_options, seed):
    """The null samples (R, D) and, per solver, the minima, evaluations and seconds per test."""
    g = as_measure(core_measure(measure), n_bins=n_bins)
    ens = np.asarray(ens_probs, dtype=np.float64)
    y = np.asarray(labels)
    if ens.ndim != 4 or y.shape != ens.shape[:2]:
        raise ValueError(f"ens_probs must have shape (R, N, M, K) and labels (R, N); got {ens.shape} and {y.shape}")
    for solver in solvers:
        check_choice(solver, "solvers", SOLVERS)
    null = null_statistics(ens, g.func, n_resamples, "uniform", "bootstrap", np.random.default_rng(seed))
    out = {}
    for solver in solvers:
        stats, nfev = np.empty(len(ens)), np.empty(len(ens), dtype=np.int64)
        start = time.perf_counter()
        for r in range(len(ens)):
            obj = MeasureObjective(ens[r], y[r], g.func)
            w = minimise_objective(
                obj,
                ens.shape[2],
                solver,
                dict((solver_options or {}).get(solver, {})),
                np.random.default_rng([seed, r]),
            )
            stats[r], nfev[r] = obj(w), obj.n_evaluations
        out[solver] = {
            "statistic": stats,
            "n_evaluations": nfev,
            "seconds_per_test": (time.perf_counter() - start) / len(ens),
        }
    return null, out


@renamed(n_bootstrap="n_resamples")
def solver_agreement(
    *,
    solvers=("auto", "search_descent", "cobyla_powell", "search", "multistart"),
    reference: str = "cobyla",
    scenario: str = "S1",
    n_datasets: int = 150,
    n_instances: int = 100,
    n_members: int = 10,
    n_classes: int = 10,
    u: float = 0.01,
    measure="ece_confidence",
    n_bins: int = 10,
    n_resamples: int = 100,
    alpha: float = 0.05,
    tolerance: float = 1e-3,
    seed: int = 0,
) -> dict:
    r"""How far other minimisers of Alg. 1 line 7 agree with a reference (SciPy's COBYLA), and how fast they are.

    Draws R datasets of a scenario (:func:`~credalbook.synthetic.credal_scenario`; by default S1,
    where :math:`H_0` holds, in the setting of Fig. 1: N = 100, M = 10, K = 10, u = 0.01), computes
    each dataset's null sample once (it does not depend on the solver), and runs every solver and
    the reference on the same data. For a solver with minima :math:`t_r` and the reference's
    :math:`t^{ref}_r`:

    .. math::
        \text{agreement}(\alpha) = \frac1R \sum_r
        \mathbb 1\bigl[(t_r > q_{r,1-\alpha}) = (t^{ref}_r > q_{r,1-\alpha})\bigr], \qquad
        \text{gap}_r = t_r - t^{ref}_r .

    Parameters
    ----------
    solvers : sequence of str
        Solvers to compare (see :func:`~credalbook.stats.minimise_calibration_measure`).
    reference : str, default "cobyla"
    scenario : {"S1", "S2", "S3"}, default "S1"
    n_datasets, n_instances, n_members, n_classes, u
        R, N, M, K and the spread u of the scenario.
    measure, n_bins, n_resamples
        The test's measure and D.
    alpha : float, default 0.05
        Level of the decisions compared.
    tolerance : float, default 1e-3
        A solver's minimum counts as worse than the reference's when above it by more than this.
    seed : int
        Seeds the data (a child of ``SeedSequence(seed)``), the null samples and the solvers (as
        :func:`compare_solvers` with this seed).

    Returns
    -------
    dict
        solver (the reference included) → ``seconds_per_test``, ``speedup`` (reference's seconds
        over the solver's), ``n_evaluations`` (mean), ``agreement`` (at ``alpha``),
        ``agreement_levels`` (the lowest agreement over :data:`PAPER_ALPHAS`), ``rejection_rate`` (at
        ``alpha``: the Type I error under S1), ``rejection_rates`` (at each of the twelve levels),
        ``mean_rejection_rate`` and ``mean_abs_deviation`` (the mean of the rates and of
        :math:`|\text{rate} - \alpha|` over the twelve levels), ``gap_mean``, ``gap_max``,
        ``share_worse`` (gap > ``tolerance``), ``share_better`` (gap < 0).

    Examples
    --------
    >>> out = solver_agreement(solvers=("search",), reference="grid", n_datasets=2, n_instances=30,
    ...                        n_members=2, n_classes=3, n_resamples=20)
    >>> sorted(out), out["grid"]["agreement"]
    (['grid', 'search'], 1.0)
    """
    alpha = check_probability(alpha, "alpha")
    tolerance = check_positive_float(tolerance, "tolerance", allow_zero=True)
    check_choice(reference, "reference", SOLVERS)
    data_seed = np.random.SeedSequence(seed).spawn(1)[0]  # apart from the null's and the solvers' streams
    sc = credal_scenario(
        scenario,
        n_datasets=n_datasets,
        n_instances=n_instances,
        n_members=n_members,
        n_classes=n_classes,
        u=u,
        seed=np.random.default_rng(data_seed),
    )
    names = (reference, *(s for s in solvers if s != reference))
    null, runs = _solver_runs(sc.ens_probs, sc.labels, names, measure, n_bins, n_resamples, None, seed)
    levels = np.array(PAPER_ALPHAS)
    thresholds = np.quantile(null, 1 - levels, axis=-1).T  # (R, 12)
    at_alpha = np.quantile(null, 1 - alpha, axis=-1)
    ref = runs[reference]
    out = {}
    for name, run in runs.items():
        t = run["statistic"]
        gap = t - ref["statistic"]
        agree_levels = ((t[:, None] > thresholds) == (ref["statistic"][:, None] > thresholds)).mean(axis=0)
        rates = (t[:, None] > thresholds).mean(axis=0)
        out[name] = {
            "seconds_per_test": run["seconds_per_test"],
            "speedup": ref["seconds_per_test"] / run["seconds_per_test"],
            "n_evaluations": float(run["n_evaluations"].mean()),
            "agreement": float(np.mean((t > at_alpha) == (ref["statistic"] > at_alpha))),
            "agreement_levels": float(agree_levels.min()),
            "rejection_rate": float(np.mean(t > at_alpha)),
            "rejection_rates": tuple(float(r) for r in rates),
            "mean_rejection_rate": float(rates.mean()),
            "mean_abs_deviation": float(np.abs(rates - levels).mean()),
            "gap_mean": float(gap.mean()),
            "gap_max": float(gap.max()),
            "share_worse": float(np.mean(gap > tolerance)),
            "share_better": float(np.mean(gap < 0)),
        }
    return out
