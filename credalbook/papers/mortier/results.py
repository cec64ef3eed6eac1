r"""The chapter's own numbers for the Mortier et al. (2023) rows, collected from its studies as a plain dict.

:func:`chapter_results` builds the ``results`` that :func:`credalbook.papers.mortier.compare` judges
(rejection counts and R per significance level, per-dataset means and their standard errors, bootstrap
standard errors, the Table 1 decisions); :func:`s2_corner_check` checks Fig. 1 (left).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.criteria import mean_se

__all__ = ["chapter_results", "s2_corner_check"]

#: The four ECE tests of Fig. 1, by their display names.
ECE_TESTS = ("ECE_conf (B=5)", "ECE_conf (B=10)", "ECE_cwise (B=5)", "ECE_cwise (B=10)")


def s2_corner_check(scenario) -> dict:
    r"""Whether each S2 instance's corner is the simplex corner closest to its credal set.

    In the L1 (total variation) distance, the hull's distance to a corner :math:`\mathbf e_c` is
    :math:`2(1 - \max_m \hat p^{(m)}_c)`, so the closest corner is :math:`\arg\max_c \max_m \hat
    p^{(m)}_c`. Returns ``{"k": instances whose S2 corner is that corner, "n": instances}``.

    >>> from credalbook.synthetic import credal_scenario
    >>> sc = credal_scenario("S2", n_instances=50, n_members=10, n_classes=3, u=0.1, seed=0)
    >>> out = s2_corner_check(sc); out["n"], 0 <= out["k"] <= 50
    (50, True)
    """
    if scenario.corner is None:
        raise ValueError("scenario must be S2 or S3 (it has no corner)")
    closest = scenario.ens_probs.max(axis=-2).argmax(axis=-1)
    return {"k": int(np.sum(closest == scenario.corner)), "n": int(scenario.corner.size)}


def _per_dataset_mean(study, alphas, measures=None, *, rejections: bool = True) -> list:
    """[mean, standard error, R] over datasets of each dataset's share of rejections (or acceptances)."""
    rej = study.rejections(alphas)  # (T, A, R)
    if measures is not None:
        rej = rej[[study.measures.index(m) for m in measures]]
    per_set = rej.mean(axis=(0, 1)) if rejections else 1.0 - rej.mean(axis=(0, 1))
    return list(mean_se(per_set))


def _gap(study, alphas, n_boot: int = 500, seed: int = 0) -> list:
    """[mean |Type I − α| over measures and levels, its bootstrap standard error over the datasets, R]."""
    alphas = np.asarray(alphas)
    rej = study.rejections(alphas).astype(np.float64)  # (T, A, R)
    r = rej.shape[-1]
    value = float(np.abs(rej.mean(axis=-1) - alphas).mean())
    idx = np.random.default_rng(seed).integers(0, r, size=(n_boot, r))
    boot = np.abs(rej[..., idx].mean(axis=-1) - alphas[None, :, None]).mean(axis=(0, 1))
    return [value, float(boot.std(ddof=1)), r]


def chapter_results(
    studies: Mapping,
    *,
    table1: Mapping,
    dataset: str,
    head,
    fig1_left: Mapping,
    table1_diffs: Mapping | None = None,
    sets: Mapping | None = None,
    s2_authors=None,
    permutation=None,
    fig4_permutation=None,
    fig3_uniform=None,
    alphas=None,
    n_bins: int = 5,
) -> dict:
    """The plain results dict :func:`compare` needs, from the chapter's objects.

    Parameters
    ----------
    studies : mapping
        Figure name ("Fig. 1" … "Fig. 4") → scenario → :class:`~credalbook.papers.mortier.ErrorRateStudy`
        or its :class:`~credalbook.papers.mortier.ErrorRateSummary` (at levels including ``alphas``).
    table1 : mapping
        Classifier name → row of :func:`~credalbook.papers.mortier.evaluate_classifier_set`.
    table1_diffs : mapping, optional
        :func:`~credalbook.papers.mortier.table1_differences` of the Table 1 sets; or give ``sets``.
    sets : mapping, optional
        Classifier name → :class:`~credalbook.nn.ClassifierSet`, to compute ``table1_diffs`` from.
    dataset : str
    head : (float, float)
        Learning rate and momentum of the Table 1 heads.
    fig1_left : mapping
        :func:`s2_corner_check` of the Fig. 1 (left) setting.
    s2_authors : ErrorRateStudy or ErrorRateSummary, optional
        S2 of Fig. 1 built as the authors' code does (segment from :math:`\\mathbf p_e`, the corner
        when :math:`\\mathbf p_e` is outside the hull).
    permutation, fig4_permutation : ErrorRateStudy or ErrorRateSummary, optional
        S1 of Fig. 1 and of App. Fig. 4 with the instances permuted instead of bootstrapped (the
        authors' code), on the same datasets.
    fig3_uniform : ErrorRateStudy or ErrorRateSummary, optional
        S1 of App. Fig. 3 (M = 100) with :math:`t` taken at the uniform weights (``solver="uniform"``: COBYLA's
        starting point, no minimisation), on the same datasets.
    alphas : sequence of float, optional
        Default: the figures' twelve levels.
    n_bins : int, default 5
        Bins of the Table 1 ECEs.
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    if (table1_diffs is None) == (sets is None):
        raise ValueError("give exactly one of table1_diffs and sets")
    alphas = list(PAPER_ALPHAS if alphas is None else alphas)
    f1 = studies["Fig. 1"]

    def type2(study):
        counts = study.rejection_counts([0.05])
        return {"R": study.n_datasets, "counts": {m: study.n_datasets - c[0] for m, c in counts.items()}}

    out = {
        "alphas": alphas,
        "type1": {
            fig: {"R": st["S1"].n_datasets, "counts": st["S1"].rejection_counts(alphas)} for fig, st in studies.items()
        },
        "type1_abs": {"R": f1["S1"].n_datasets, "counts": f1["S1"].rejection_counts(alphas, rule="abs")},
        "type2": {s: type2(f1[s]) for s in ("S2", "S3")},
        "type2_mean": {s: _per_dataset_mean(f1[s], [0.05], ECE_TESTS, rejections=False) for s in ("S2", "S3")},
        "mean_type1": {fig: _per_dataset_mean(st["S1"], alphas) for fig, st in studies.items()},
        "gap": {fig: _gap(st["S1"], alphas) for fig, st in studies.items()},
        "solvers": {fig: st["S1"].config["solver"] for fig, st in studies.items()},
        "table1": {
            name: {k: row[k] for k in ("h0_conf", "h0_cwise", "avg_ece_conf", "ece_conf")}
            for name, row in table1.items()
        },
        "dataset": dataset,
        "head": [float(head[0]), float(head[1])],
        "fig1_left": dict(fig1_left),
    }
    if table1_diffs is None:
        from credalbook.papers.mortier.parts import table1_differences

        table1_diffs = table1_differences(sets, table1, n_bins=n_bins)
    out["table1_diffs"] = {k: list(table1_diffs[k]) for k in ("dn", "de")}
    if s2_authors is not None:
        out["type2_authors"] = type2(s2_authors)
    if permutation is not None:
        out["type1_permutation"] = {"R": permutation.n_datasets, "counts": permutation.rejection_counts(alphas)}
    if fig4_permutation is not None:
        out["gap_fig4_permutation"] = _gap(fig4_permutation, alphas)
    if fig3_uniform is not None:
        out["gap_fig3_uniform"] = _gap(fig3_uniform, alphas)
    return out


# --------------------------------------------------------------------------------------------
# the rows
# --------------------------------------------------------------------------------------------
