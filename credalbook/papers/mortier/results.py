r"""The chapter's own numbers for the Mortier et al. (2023) rows, collected from its studies as a plain dict.

:func:`chapter_results` builds the ``results`` that :func:`credalbook.papers.mortier.compare` judges
(rejection counts and R per significance level, per-dataset means and their standard errors, bootstrap
standard errors, the Table 1 decisions); :func:`s2_corner_check` checks Fig. 1 (left).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.criteria import mean_se

__all__ = ["chapter_results", "s2_corner_check", "table1_cell_results", "type_one_gap"]

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


def _gap(study, alphas, n_boot: int = 500, seed: int = 0, *, measures=None, n_datasets=None, keep=None) -> list:
    """[mean absolute difference of Type I and α over measures and levels, its bootstrap standard error over the datasets, R]
    (of the tests ``measures`` and the first ``n_datasets`` datasets when given, then of the datasets where the bool
    mask ``keep`` is True)."""
    alphas = np.asarray(alphas)
    rej = study.rejections(alphas).astype(np.float64)  # (T, A, R)
    if measures is not None:
        rej = rej[[study.measures.index(m) for m in measures]]
    if n_datasets is not None:
        rej = rej[..., :n_datasets]
    if keep is not None:
        rej = rej[..., np.asarray(keep, dtype=bool)]
    r = rej.shape[-1]
    idx = np.random.default_rng(seed).integers(0, r, size=(n_boot, r))
    return [float(_abs_gap(rej, alphas)), float(_abs_gap(rej, alphas, idx).std(ddof=1)), r]


def _abs_gap(rej: np.ndarray, alphas: np.ndarray, idx: np.ndarray | None = None):
    """Mean |Type I − α| over the tests and levels of rejections ``rej`` (T, A, R): one number, or with bootstrap
    indices ``idx`` (B, R) over the datasets one per resample (B,)."""
    if idx is None:
        return np.abs(rej.mean(axis=-1) - alphas).mean()
    return np.abs(rej[..., idx].mean(axis=-1) - alphas[None, :, None]).mean(axis=(0, 1))


def _gap_change(before, after, alphas, n_boot: int = 500, seed: int = 0) -> list:
    """[gap(after) − gap(before), its paired bootstrap standard error, R]: :func:`_gap` of two S1 studies of the same
    datasets (the first R of each, R the smaller count), the datasets resampled together for both."""
    alphas = np.asarray(alphas)
    a, b = (st.rejections(alphas).astype(np.float64) for st in (before, after))  # (T, A, R)
    r = min(a.shape[-1], b.shape[-1])
    a, b = a[..., :r], b[..., :r]
    idx = np.random.default_rng(seed).integers(0, r, size=(n_boot, r))
    boot = _abs_gap(b, alphas, idx) - _abs_gap(a, alphas, idx)
    return [float(_abs_gap(b, alphas) - _abs_gap(a, alphas)), float(boot.std(ddof=1)), r]


def _rounds_cap(study) -> int:
    """The rounds cap of ``search_descent`` a study was minimised with (``solver_options["maxiter"]``)."""
    cap = dict(study.config.get("solver_options") or {}).get("maxiter")
    if cap is None:
        raise ValueError("the study was not minimised with a rounds cap (solver_options has no 'maxiter')")
    return int(cap)


def _set_pending(out: dict, name: str, pending, result, result_name: str) -> None:
    """``out[name] = pending`` for a group of parts not all recorded (a non-empty string), never with its result."""
    if result is not None and pending is not None:
        raise ValueError(f"give {result_name} or {name}, not both")
    if pending is not None:
        if not isinstance(pending, str) or not pending.strip():
            raise ValueError(f"{name} must be a non-empty string; got {pending!r}")
        out[name] = pending


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
    one_minimiser=None,
    fig3_cobyla=None,
    cobyla_pending: str | None = None,
    fig3_rounds=None,
    rounds_pending: str | None = None,
    text_segment=None,
    hl=None,
    table1_cells=None,
    table1_regime=None,
    authors_code=None,
    authors_cobyla=None,
    authors_objective=None,
    released_code=None,
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
    one_minimiser : ErrorRateStudy or ErrorRateSummary, optional
        S1 of Fig. 1 with App. Fig. 3's minimiser (same datasets as Fig. 1's S1).
    fig3_cobyla : ErrorRateSummary, optional
        S1 of App. Fig. 3 with NLopt's COBYLA, the four ECE tests, the study's first datasets
        (:func:`~credalbook.papers.mortier.merge_summaries` of its chunks).
    cobyla_pending : str, optional
        Instead of ``fig3_cobyla``: how many of its paper-scale parts are recorded (e.g. ``"3 of 20 parts
        recorded"``), so that its row is *not run here* (pending) rather than judged on part of the datasets.
    fig3_rounds : ErrorRateSummary, optional
        S1 of App. Fig. 3 on its own datasets (those of ``studies["Fig. 3"]["S1"]``), minimised by ``search_descent``
        with the rounds cap it takes at M = 10 (group ``fig3_rounds`` of the plan): the one-minimiser comparison with
        the same number of rounds at both sizes, and the depth of the minimisation at M = 100 with ``fig3_uniform``.
    rounds_pending : str, optional
        Instead of ``fig3_rounds``: how many of its paper-scale parts are recorded; its rows wait for all of them.
    text_segment : mapping, optional
        "S2", "S3" → study with the segment from :math:`\\mathbf p_e` and the printed Alg. 2 (Sec. 4.1's text).
    hl : mapping, optional
        Scenario → study of the book's and the authors' HL (measures ``HL (B=…)`` and ``HL authors (B=…)``).
    table1_cells : mapping, optional
        Data set → seed → classifier set → :class:`~credalbook.papers.mortier.Table1Cell`.
    table1_regime : mapping, optional
        The same in the over-confident regime: → :class:`~credalbook.papers.mortier.RegimeCell`. With it, the Table 1
        rows judge these cells, their premises first, and state ``table1_cells`` beside them as the control.
    authors_code : mapping, optional
        "S1", "S2", "S3" → study as the authors' synthetic experiments run it (S1: the ``variant`` group; S2, S3: the
        ``code_h1`` group); its rejections at α = 0.05 under their rule :math:`|t| > q` test the discussion's row.
    authors_cobyla : mapping, optional
        "S2", "S3" → the same with the authors' COBYLA settings (the ``code_h1_cobyla`` group, the ECE tests); needs
        ``authors_code``.
    authors_objective : mapping, optional
        "S2", "S3" → the same again with the authors' objective, COBYLA's weights as proposed (the
        ``code_h1_objective`` group); needs ``authors_cobyla``.
    released_code : sequence of dict, optional
        The chunks of S2 as the authors' released code draws and tests it (the ``released_code`` group,
        :func:`~credalbook.papers.mortier.authors_code_type2`); merged, at α = 0.05 and over the levels.
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    if (table1_diffs is None) == (sets is None):
        raise ValueError("give exactly one of table1_diffs and sets")
    alphas = list(PAPER_ALPHAS if alphas is None else alphas)
    f1 = studies["Fig. 1"]

    def type2(study, rule="t"):
        counts = study.rejection_counts([0.05], rule=rule)
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
    out["type1_abs_figs"] = {
        fig: {"R": st["S1"].n_datasets, "counts": st["S1"].rejection_counts(alphas, rule="abs")}
        for fig, st in studies.items()
    }
    out["type1_fig1_alpha05"] = {"R": f1["S1"].n_datasets, "counts": f1["S1"].rejection_counts([0.05])}
    if permutation is not None:
        out["gap_fig1_permutation"] = _gap(permutation, alphas)
    if fig4_permutation is not None:  # the App. figures' permuted S1 studies: the SKCE_ul rows' candidate causes
        out["type1_permuted_figs"] = {
            "Fig. 4": {
                "R": fig4_permutation.n_datasets,
                "counts": fig4_permutation.rejection_counts(alphas),
                "counts_abs": fig4_permutation.rejection_counts(alphas, rule="abs"),
            }
        }
    if one_minimiser is not None:
        out["gap_one_minimiser"] = {
            "solver": one_minimiser.config["solver"],
            "Fig. 1": _gap(one_minimiser, alphas),
            "Fig. 3": out["gap"]["Fig. 3"],
        }
    _set_pending(out, "rounds_pending", rounds_pending, fig3_rounds, "fig3_rounds")
    if fig3_rounds is not None:
        capped = studies["Fig. 3"]["S1"]
        out["gap_rounds"] = {
            "cap": _rounds_cap(fig3_rounds),
            "Fig. 3": _gap(fig3_rounds, alphas),
            "deeper": _gap_change(capped, fig3_rounds, alphas),  # 10 rounds → the cap, same datasets
        }
        if fig3_uniform is not None:  # no minimisation → 10 rounds, same datasets
            out["gap_rounds"]["shallower"] = _gap_change(fig3_uniform, capped, alphas)
    _set_pending(out, "cobyla_pending", cobyla_pending, fig3_cobyla, "fig3_cobyla")
    if fig3_cobyla is not None:
        r_c = fig3_cobyla.n_datasets
        out["gap_cobyla"] = {
            "Fig. 1": _gap(f1["S1"], alphas, measures=ECE_TESTS, n_datasets=r_c),
            "Fig. 3": _gap(fig3_cobyla, alphas, measures=ECE_TESTS),
            "solver_fig1": f1["S1"].config["solver"],
            "n_stalls": fig3_cobyla.config.get("n_stalls"),
        }
        if "stalls" in fig3_cobyla.config:  # the same comparison on the datasets where no M = 100 minimisation stalled
            keep = ~np.asarray(fig3_cobyla.config["stalls"], dtype=bool).any(axis=0)
            if keep.any():
                out["gap_cobyla"]["unstalled"] = {
                    "Fig. 1": _gap(f1["S1"], alphas, measures=ECE_TESTS, n_datasets=r_c, keep=keep),
                    "Fig. 3": _gap(fig3_cobyla, alphas, measures=ECE_TESTS, keep=keep),
                }
    if text_segment is not None:
        out["type2_text"] = {s: type2(text_segment[s]) for s in ("S2", "S3")}
    if authors_code is not None:
        s1 = authors_code["S1"]
        out["authors_code_alpha05"] = {
            "type1": {"R": s1.n_datasets, "counts": s1.rejection_counts([0.05], rule="abs")},
            "type2": {s: type2(authors_code[s], rule="abs") for s in ("S2", "S3")},
        }
        if authors_cobyla is not None:
            out["authors_code_alpha05"]["type2_cobyla"] = {
                s: type2(authors_cobyla[s], rule="abs") for s in ("S2", "S3")
            }
            if authors_objective is not None:
                out["authors_code_alpha05"]["type2_objective"] = {
                    s: type2(authors_objective[s], rule="abs") for s in ("S2", "S3")
                }
        elif authors_objective is not None:
            raise ValueError("authors_objective needs authors_cobyla")
    elif authors_cobyla is not None or authors_objective is not None:
        raise ValueError("authors_cobyla and authors_objective need authors_code")
    if released_code is not None:
        from credalbook.papers.mortier.authors_code import merge_released

        merged = merge_released(released_code)
        if merged["scenario"] != "S2" or 0.05 not in merged["alphas"]:
            raise ValueError("released_code must be chunks of S2 run at α = 0.05 among their levels")
        out["released_code"] = merged
    if hl is not None:
        out["hl_authors"] = type2(hl["S2"])
    if table1_cells is not None:
        out["table1_cells"] = table1_cell_results(table1_cells)
    if table1_regime is not None:
        out["table1_regime"] = table1_cell_results(table1_regime)
    return out


def type_one_gap(study, alphas=None, *, measures=None, n_datasets=None) -> list:
    """[mean absolute difference of Type I and α over the tests and levels, bootstrap SE over the datasets, R] of an S1 study.

    Parameters
    ----------
    study : ErrorRateStudy or ErrorRateSummary
    alphas : sequence of float, optional
        Default: the figures' twelve levels.
    measures : sequence of str, optional
        Display names of the tests to average over (default: all).
    n_datasets : int, optional
        Only the first ``n_datasets`` datasets.

    Examples
    --------
    >>> from credalbook.papers.mortier.error_rates import set_test_error_rates
    >>> st = set_test_error_rates.__wrapped__("S1", n_datasets=5, n_instances=20, n_members=2, n_classes=3, u=0.5,
    ...                                       n_resamples=10, measures=("skce_ul",), n_jobs=1, progress=False)
    >>> g = type_one_gap(st, [0.05, 0.5]); g[2], 0 <= g[0] <= 1
    (5, True)
    """
    from credalbook.papers.mortier.error_rates import PAPER_ALPHAS

    return _gap(study, list(PAPER_ALPHAS if alphas is None else alphas), measures=measures, n_datasets=n_datasets)


def _paired(a, b) -> float:
    """Standard error of a difference from its two terms on the same bootstrap resamples."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return float(d.std(ddof=1))


def table1_cell_results(cells: Mapping) -> list:
    """The Table 1 cells as plain rows: one per (data set, seed), each set's decisions under both variants, its
    test-split ECEs, and the two ECE differences with paired bootstrap SEs.

    Parameters
    ----------
    cells : mapping
        Data set → seed → classifier set name → :class:`~credalbook.papers.mortier.Table1Cell` (or
        :class:`~credalbook.papers.mortier.RegimeCell`, whose signed errors are kept too).

    Returns
    -------
    list of dict
        ``{"dataset", "seed", "epochs" (the networks' training epochs), "n_train", "sets": {name: {"decisions": {variant:
        {"conf", "cwise"}}, "avg_acc", "avg_ece_conf", "member_acc", "member_ece_conf" ([min, max]),
        "mean_member_ece_conf", "n_test"}}, "dn": [DN(0.6) − DN(0.1) average ECE_conf, SE], "de": {variant: [weighted − average
        ECE_conf, SE]}, "s_minus_de": [S − DE average ECE_conf, SE]}``; for regime cells each set also has
        ``"signed"``: [mean confidence − accuracy of the average, its bootstrap SE] and ``"member_signed"`` ([min, max]).
    """
    out = []
    for ds, by_seed in cells.items():
        for seed, sets in by_seed.items():
            plain = {name: getattr(c, "cell", c) for name, c in sets.items()}
            s0 = plain["S"]
            row = {"dataset": ds, "seed": int(seed), "epochs": int(s0.config["epochs"]),
                   "n_train": s0.config.get("n_train"), "sets": {}}  # fmt: skip
            for name, c in plain.items():
                row["sets"][name] = {
                    "decisions": {v: {m: c.tests[v][f"h0_{m}"] for m in ("conf", "cwise")} for v in c.tests},
                    "avg_acc": c.average["avg_acc"],
                    "avg_ece_conf": c.average["avg_ece_conf"],
                    "member_acc": [min(c.members["acc"]), max(c.members["acc"])],
                    "member_ece_conf": [min(c.members["ece_conf"]), max(c.members["ece_conf"])],
                    "mean_member_ece_conf": float(np.mean(c.members["ece_conf"])),
                    "n_test": int(c.n_test),  # 0: not recorded
                }
                signed = getattr(sets[name], "signed", None)
                if signed is not None:
                    row["sets"][name]["signed"] = [signed["average"], float(np.std(signed["boot_average"], ddof=1))]
                    row["sets"][name]["member_signed"] = [min(signed["members"]), max(signed["members"])]
            dn6, dn1, de = plain["DN(0.6)"], plain["DN(0.1)"], plain["DE"]
            row["dn"] = [
                dn6.average["avg_ece_conf"] - dn1.average["avg_ece_conf"],
                _paired(dn6.boot_ece["average"], dn1.boot_ece["average"]),
            ]
            row["de"] = {
                v: [de.tests[v]["ece_conf"] - de.average["avg_ece_conf"],
                    _paired(de.boot_ece[f"weighted_{v}"], de.boot_ece["average"])]
                for v in de.tests
            }  # fmt: skip
            row["s_minus_de"] = [
                s0.average["avg_ece_conf"] - de.average["avg_ece_conf"],
                _paired(s0.boot_ece["average"], de.boot_ece["average"]),
            ]
            out.append(row)
    return out


# --------------------------------------------------------------------------------------------
# the rows
# --------------------------------------------------------------------------------------------
