r"""The "Paper vs. this book" rows of the primer (``chapters/00_calibration_primer.ipynb``).

The primer checks three claims its later chapters rest on: a single network trained without early stopping
is not calibrated (Mortier et al. 2023, Sec. 4.2, after Guo et al. 2017); the Hosmer-Lemeshow statistic with
the :math:`\chi^2((K-1)(B-2))` reference of Mortier et al.'s Eqs. 3-4, and with the book's consistency
resampling, is a level-α test (Type I error judged with Bradley's band :math:`[\alpha/2, 3\alpha/2]`); and
Widmann et al.'s (2019) Fig. 2 error rates of the SKCE tests at α = 0.05 (the paper's curves from
``reported("widmann")``, each judged against ours with two binomial standard errors, 10⁴ data sets on the
paper's side). The chapter computes the runs and calls :func:`compare`.
"""

from __future__ import annotations

import numpy as np

from credalbook.papers.criteria import close_to, combine, mean_se, ordered, rate_claim, sign_claim
from credalbook.papers.report import Comparison

__all__ = ["compare", "overconfidence", "PRIMER_ALPHA", "HL_CHI2", "HL_RESAMPLING"]

#: The level of every judged test of the primer.
PRIMER_ALPHA = 0.05
#: The names of the Hosmer-Lemeshow variants (keys of the chapter's ``rates``) that have rows.
HL_CHI2, HL_RESAMPLING = "χ², per class (paper)", "resampling (default)"
#: Data sets behind each point of Widmann et al.'s Fig. 2 (their Sec. 6).
WIDMANN_DATASETS = 10_000


def overconfidence(probs, labels) -> tuple[float, float, int]:
    """Mean confidence − accuracy of ``probs`` (N, K) on ``labels`` (N,), its standard error and N.

    >>> gap, se, n = overconfidence(np.array([[0.9, 0.1], [0.8, 0.2]]), np.array([0, 1]))
    >>> round(gap, 12), round(se, 12), n  # (0.9 − 1 + 0.8 − 0) / 2; sd of (−0.1, 0.8) over √2
    (0.35, 0.45, 2)
    """
    probs, labels = np.asarray(probs), np.asarray(labels)
    if probs.ndim != 2 or labels.shape != probs.shape[:1]:
        raise ValueError(f"probs must have shape (N, K) and labels (N,); got {probs.shape} and {labels.shape}")
    return mean_se(probs.max(1) - (probs.argmax(1) == labels))


def compare(
    network,
    hl_network,
    rates: dict,
    widmann_runs: dict,
    *,
    levels,
    hl_datasets: int,
    hl_resamples: int,
    dataset: str,
    widmann_reported: dict,
) -> Comparison:
    """The primer's rows.

    Parameters
    ----------
    network : object with ``probs_test`` (N, K) and ``y_test`` (N,)
        The network trained for all epochs (no early stopping).
    hl_network : object with ``pvalue``
        Its Hosmer-Lemeshow test with consistency resampling.
    rates : dict
        Hosmer-Lemeshow variant → Type I error over ``hl_datasets`` calibrated data sets (keys :data:`HL_CHI2` and
        :data:`HL_RESAMPLING` judged).
    widmann_runs : dict
        ``(code, model)`` → the run of ``credalbook.synthetic.widmann_test_errors`` at the α ``levels``.
    levels : array-like
        The α levels of ``widmann_runs`` (must include :data:`PRIMER_ALPHA`).
    hl_datasets, hl_resamples : int
        Data sets behind ``rates`` and resamples per data set.
    dataset : str
        The network's data set.
    widmann_reported : dict
        ``reported("widmann")["figure_2_pvalues_comparison"]``: ``alphas`` and ``test_error[code][model]``.
    """
    gap, gap_se, n_test = overconfidence(network.probs_test, network.y_test)
    alpha, r = PRIMER_ALPHA, int(hl_datasets)
    type1 = {
        name: rate_claim(round(rates[name] * r), r, accept=(alpha / 2, 1.5 * alpha), name="Type I error at α = 0.05")
        for name in (HL_CHI2, HL_RESAMPLING)
    }
    cmp = Comparison("00_calibration_primer")
    cmp.add(
        "Sec. 4.2 (Guo et al. 2017)",
        "a single network is not calibrated: confidence − accuracy; HL p-value (resampling)",
        paper="“The single classifiers based on deep neural networks are in general not calibrated”",
        book=f"{gap:+.3f} ± {gap_se:.3f}; p = {hl_network.pvalue:.4f}",
        judgement=combine(
            [
                sign_claim(gap, relation=">", se=gap_se, name="confidence − accuracy", replicates=n_test),
                ordered(hl_network.pvalue, alpha, relation="<", names=("HL p-value", "α")),
            ]
        ),
        note=f"an MLP on {dataset} trained without early stopping, not the paper's CNNs",
    )
    cmp.add(
        "Sec. 2.2, Eqs. 3-4",
        "HL with χ²((K−1)(B−2)), per-class bins, is a level-α test: its Type I error",
        paper="“(3) follows approximately a chi-squared distribution with (K−1)(B−2) degrees of freedom”",
        book=rates[HL_CHI2],
        judgement=type1[HL_CHI2],
        cause="§ Is the χ² reference valid? — the K per-class groupings are dependent",
        note="synthetic calibrated models, N = 1000, K = 10, B = 10; this book defaults to consistency resampling",
    )
    cmp.add(
        "Sec. 2.2 (this book's default)",
        "HL with consistency resampling is a level-α test: its Type I error",
        paper="a test at level α (H0: p̂ is calibrated)",
        book=rates[HL_RESAMPLING],
        judgement=type1[HL_RESAMPLING],
        note=f"the book's replacement for the χ² reference; {hl_resamples} resamples per data set",
    )
    at = _level_index(levels, alpha, "levels")
    paper_at = _level_index(widmann_reported["alphas"], alpha, "widmann_reported['alphas']")
    for (code, model), run in widmann_runs.items():
        published = widmann_reported["test_error"][code][model][paper_at]
        kind = run.kind.replace("_", " ")
        tol = 2 * np.sqrt(published * (1 - published) * (1 / WIDMANN_DATASETS + 1 / run.n_datasets))
        cmp.add(
            "Widmann et al. (2019), Fig. 2",
            f"test {code} on model {model}: {kind} error at α = 0.05",
            paper=published,
            book=run.errors[at],
            judgement=close_to(
                run.errors[at],
                published,
                bounds=(0, 1),
                replicates=run.n_datasets,
                name=f"{kind} error",
                tol=tol,
                tolerance_source=f"two binomial estimates, 10⁴ data sets (paper) and {run.n_datasets} "
                "(this book): 2 × the standard error of their difference",
            ),
            note=f"{code} = calibration_test(method={'skce_linear' if code == 'A_l' else 'skce_quadratic'!r}); "
            "the paper's curve read from its figure file; their A_uq p-value is #/R, ours (1+#)/(1+R)",
        )
    return cmp


def _level_index(levels, alpha: float, name: str) -> int:
    hits = np.flatnonzero(np.isclose(np.asarray(levels, dtype=float), alpha))
    if hits.size == 0:
        raise ValueError(f"{name} must include α = {alpha}; got {list(np.asarray(levels).tolist())}")
    return int(hits[0])
