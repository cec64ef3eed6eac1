"""The "Paper vs. this book" rows of the Jürgens et al. chapter, from a plain results dict.

The paper's numbers and claims come from ``credalbook/papers/juergens/reported.json`` (through
:func:`~credalbook.papers.report.reported`); the chapter supplies only its own numbers, counts and
standard errors (:func:`~credalbook.papers.juergens.summarise_error_rates`). Every row is judged by
a criterion of :mod:`credalbook.papers.criteria` that can fail.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.criteria import (
    AGREES,
    at_least,
    close_to,
    combine,
    INCONCLUSIVE,
    Judgement,
    mean_se,
    ordered,
    rate_claim,
    sign_claim,
)
from credalbook.papers.juergens.rows import (
    above_pooled,
    app_b_closed_form,
    bradley_pooled,
    dropout_less_calibrated,
    excess_over_alpha,
    pooled_type1,
    rejected_cells,
    table1_decision_counts,
)
from credalbook.papers.premises import not_decided_by_paper, premise_undecided
from credalbook.papers.report import check_results, Comparison, reported, reported_table_rows

__all__ = ["compare", "paper_table1", "paper_table1_cells", "paper_table1_summary", "RESULT_KEYS"]

#: The keys :func:`compare` needs in ``results``.
RESULT_KEYS = (
    "error_rates",
    "skce_bandwidth",
    "null_means",
    "null_se",
    "landscape_miss",
    "app_b",
    "centre_share",
    "table1",
    "table1_setting",
    "dataset",
)

#: Settings of Figs. 3 and 4.
_FIGURES = (("binary", "Fig. 3"), ("multiclass", "Fig. 4"))
#: The estimators whose rows the paper's statements cover (SKCE is its named exception).
_MAIN = ("L2-CE", "KL-CE", "MMD")
#: Bradley's (1978) liberal region of a test that holds its level α.
_BRADLEY = "Bradley's (1978) liberal criterion [α/2, 3α/2]"
#: "High power": Type II at most 0.2 (power 0.8, Cohen 1988, Statistical Power Analysis, Sec. 2.4).
_HIGH_POWER_TYPE2 = 0.2
#: The paper's level in Table 1.
_TABLE1_ALPHA = 0.01
#: What "the authors' settings" are (their runner's λ-network, bandwidths and generators).
_AUTHORS_SETTINGS = (
    "their generators, λ-network and bandwidths, src/run_t1t2_analysis.py and src/config/config_cal_test.py at 8dff2b5"
)
#: The authors' SKCE bandwidth (mkjuergens/EnsembleCalibration@8dff2b5, src/config/config_cal_test.py, l. 166).
PAPER_SKCE_BANDWIDTH = 1e-4


def paper_table1(dataset: str = "CIFAR-10", arch: str = "ResNet-18") -> dict:
    """The rows of Table 1 for one dataset and backbone: set → estimator row → column → value.

    The estimator rows are ``"row 1"`` and ``"row 2"`` in printed order (our copy of the paper lost
    which is L2 and which KL; see ``reported("juergens")["table1"]["caveats"]``).

    Parameters
    ----------
    dataset : {"CIFAR-10", "CIFAR-100"}
    arch : {"ResNet-18", "VGG-19"}

    Returns
    -------
    dict
        Columns as in :func:`~credalbook.papers.juergens.evaluate_instance_test` (``mean_acc``,
        ``mean_h0``, ``mean_p``, ``mean_ce`` and the same with ``lambda_``).

    Examples
    --------
    >>> paper_table1()["DE"]["row 1"]["lambda_acc"]
    0.873
    """
    return reported_table_rows("juergens", "table1", dataset=dataset, arch=arch)


def _paper_rows():
    rows = reported("juergens")["table1"]["rows"]
    return [
        (d, a, s, e, row)
        for d, archs in rows.items()
        for a, sets in archs.items()
        for s, ests in sets.items()
        for e, row in ests.items()
    ]


def paper_table1_summary(alpha: float = _TABLE1_ALPHA) -> dict:
    """What the paper's Table 1 says, counted: its REJ. cells, the cells its own p-values would reject,
    the p-values of its two estimator rows and its accuracy gains.

    Returns
    -------
    dict
        ``n_rows`` (24), ``n_rej`` (cells reading "REJ.", of ``2 n_rows``), ``n_p_below`` (cells with
        p-value < ``alpha``, the decision the p-value implies), ``mean_p_row1`` and ``mean_p_row2``
        (mean p-value of the first and second estimator row of each set, both columns), and
        ``acc_gain`` (mean λ(x) − mean-predictor accuracy) with ``n_acc_up`` rows where it is > 0.

    Examples
    --------
    >>> s = paper_table1_summary()
    >>> s["n_rows"], s["n_rej"], s["n_p_below"]
    (24, 48, 17)
    """
    rows = _paper_rows()
    cells = [(row[f"{c}_h0"], row[f"{c}_p"]) for *_, row in rows for c in ("mean", "lambda")]
    p1 = [row[f"{c}_p"] for *_, e, row in rows if e == "row 1" for c in ("mean", "lambda")]
    p2 = [row[f"{c}_p"] for *_, e, row in rows if e == "row 2" for c in ("mean", "lambda")]
    gains = [row["lambda_acc"] - row["mean_acc"] for *_, row in rows]
    return dict(
        n_rows=len(rows),
        n_rej=sum(h == "REJ." for h, _ in cells),
        n_p_below=sum(p < alpha for _, p in cells),
        mean_p_row1=float(np.mean(p1)),
        mean_p_row2=float(np.mean(p2)),
        acc_gain=float(np.mean(gains)),
        n_acc_up=sum(g > 0 for g in gains),
    )


def _claim(name):
    c = reported("juergens")["claims"][name]
    return f"“{c['quote']}” ({c['source']})" if c["quote"] else f"{c['paper']} ({c['source']})"


def _cells(cells, kind="new", estimators=_MAIN):
    return [c for c in cells if c["kind"] == kind and c["estimator"] in estimators]


def _oracle_cause(oracle, settings) -> tuple[str, str]:
    """(text for the book column, cause) of a Type I band row from the studies with the true λ*(x) (parts
    ``oracle-*``, under the authors' settings): the cause is given when their pooled rates are in the band."""
    if oracle is None or settings is None:
        return "", ""
    pooled = pooled_type1(oracle, kind="oracle")
    j = bradley_pooled(pooled, source=_BRADLEY)
    k, n = pooled[0.05]
    r = oracle["R"]
    text = f"; with the true λ*(x) (R = {r}): α=0.05: {k / n:.3f} ({j.criterion.split(' [')[-1][:-1]})"
    if j.verdict != "agrees":
        return text, ""
    return text, (
        "λ(x) is learned: with the generator's true λ*(x) (parts oracle-*: the same generators, sizes, test split and "
        f"estimators, R = {r}) the pooled rate is in the band at every level (α=0.05: {k / n:.3f}); the one setting "
        "changed"
    )


def _fig_rows(cmp, fig, setting, s, bw, authors=None, test_size=None, settings=None, oracle=None, h0=None):
    """The rows of Fig. 3 (binary) or Fig. 4 (multi-class) from one :func:`summarise_error_rates` dict; with
    ``settings`` (the same summary of the studies under the authors' settings) the Type I rows judge those, the
    paper's setting, and state the book's beside them, and the rows against the authors' baseline "v0" are added;
    with ``h0`` (the H0 studies under the authors' settings with further datasets) the band row judges those."""
    r = s["R"]
    per_dist = ", ".join(f"{h} {v:.2f}" for h, v in s["type2_by_panel"].items())
    base = f"R = {r} datasets per panel (paper: 100); rates pooled per α over the H0 panels and L2, KL, MMD"
    where = (
        "at K = 2 the predictions lie close together and the kernel does not vanish (computed in 'The SKCE bandwidth')"
        if setting == "binary"
        else "at K = 10 it makes the Gram matrix the identity and the statistic numerically 0 (see 'The SKCE "
        "bandwidth')"
    )
    skce_note = (
        f"SKCE with bandwidth h = {bw:.3g} (median heuristic of the setting's predictions); the authors' "
        f"h = {PAPER_SKCE_BANDWIDTH:g}: {where}"
    )
    h0 = h0 if settings is not None else None  # further datasets only extend the studies under the authors' settings
    pooled = pooled_type1(s if settings is None else (h0 or settings))
    rates = ", ".join(f"α={a:g}: {k / n:.3f}" for a, (k, n) in sorted(pooled.items()) if a in (0.05, 0.1))
    band_base = base
    if settings is not None:
        ours = pooled_type1(s)
        ours = ", ".join(f"α={a:g}: {k / n:.3f}" for a, (k, n) in sorted(ours.items()) if a in (0.05, 0.1))
        rates = f"{rates} (the authors' settings); the book's settings: {ours}"
        pooled_how = (
            f"under the authors' settings ({_AUTHORS_SETTINGS}); rates pooled per α over the H0 panels and L2, KL, MMD"
        )
        base = band_base = f"R = {settings['R']} datasets per panel (paper: 100) {pooled_how}"
        if h0:
            band_base = (
                f"R = {h0['R']} datasets per H0 panel (paper: 100; {settings['R']} as in the other rows, then further "
                f"datasets of the same studies so that the pooled interval can decide, parts fig4more-*) {pooled_how}"
            )
    with_oracle, cause = _oracle_cause(oracle, settings)
    if setting == "binary":
        cmp.add(
            fig,
            "new test's Type I error close to α: the pooled rate at each α level in Bradley's [α/2, 3α/2]",
            paper=_claim("h0_new_closer"),
            book=rates + with_oracle,
            judgement=bradley_pooled(pooled, source=_BRADLEY),
            note=band_base,
            cause=cause,
        )
        cmp.add(
            fig,
            "new test's Type I error above α in some cases: some α level whose pooled rate's exact 95% interval "
            "lies above α",
            paper=_claim("fig3_sometimes_above"),
            book=f"{sum(k / n > a for a, (k, n) in pooled.items())} of {len(pooled)} levels have pooled rate > α",
            judgement=above_pooled(pooled),
            note=base,
        )
        _fig3_power_row(cmp, fig, s, authors, per_dist)
    else:
        worst = max(k / n - a for a, (k, n) in pooled.items())
        cmp.add(
            fig,
            "new test's Type I error does not exceed α and follows it closely: the pooled rate at each α level "
            "in [α/2, 3α/2]",
            paper=_claim("fig4_not_exceeding"),
            book=f"{rates}; largest pooled rate − α: {worst:+.3f}{with_oracle}",
            judgement=bradley_pooled(pooled, source=_BRADLEY),
            note=band_base,
            cause=cause,
        )
    _skce_power_row(cmp, fig, setting, s, base, skce_note)
    if settings is not None:
        _v0_rows(cmp, fig, setting, settings, base)
    if setting == "binary":
        _above_alpha_cause_row(cmp, test_size)
    else:
        _mortier_skce_row(cmp, fig, s, base, [(h0, band_base), (settings, base)])


def _v0_rows(cmp, fig, setting, a, base):
    """The new test against the paper's own baseline, the authors' Mortier "v0", on the same datasets."""
    note = (
        f"{base}; v0 (src/cal_test/bootstrap_test.py, l. 314-330: minimises on all instances, draws the null's "
        "instances with replacement and a Dir(1) λ per instance) is what the paper's figures show as the baseline; "
        "unlike Mortier et al.'s Alg. 1 it is not conservative by construction"
    )
    rows = [
        ("gap_v0", True, "h0_new_closer", "v0 − new", "{:.3f}",
         "new test's Type I closer to α than the paper's baseline, the authors' Mortier v0: mean |rate − α| over the "
         "H0 panels, the twelve α and L2, KL, MMD (v0 − new)"),
        ("type2_v0", setting == "multiclass", "fig4_lower_type2", "v0 − new Type II", "{:.2f}",
         "lower average Type II than the paper's baseline, the authors' Mortier v0 (L2, KL, MMD; H1 panels; "
         "α = 0.05): v0 − new"),
    ]  # fmt: skip
    for key, wanted, claim, name, fmt, quantity in rows:
        d = a.get(key)
        if d is None or not wanted:
            continue
        cmp.add(
            fig,
            quantity,
            paper=_claim(claim),
            book=f"new {fmt.format(d['new'])} vs v0 {fmt.format(d['Mortier v0'])}",
            judgement=sign_claim(d["diff"], relation=">", se=d["se"], name=name, replicates=a["R"],
                                 tolerance_source="2 × bootstrap standard error over the datasets (paired)"),
            note=note,
        )  # fmt: skip


def _fig3_power_row(cmp, fig, s, authors, per_dist):
    """Fig. 3's power at what the authors ran: their generator's far alternative (``setting=None``)."""
    quantity = (
        f"high power: Type II at α = {s['h1_alpha']:g} of the new test (L2, KL, MMD pooled) on the authors' "
        "alternative (setting=None, every H1 panel), ≤ 0.2"
    )
    if authors is None:
        cmp.not_run(
            fig,
            quantity,
            paper=_claim("h1_high_power"),
            reason="the studies of the authors' binary generator (parts authors-binary-*) are not recorded at this "
            f"scale; the book's three distances: {per_dist}",
            tested_by="tests/papers/juergens/test_authors_settings.py",
        )
        return
    cells = [c for c in _cells(authors["h1_cells"]) if c["panel"] == "H1-3"]
    k, n = sum(c["k"] for c in cells), sum(c["n"] for c in cells)
    cmp.add(
        fig,
        quantity,
        paper=_claim("h1_high_power"),
        book=f"Type II {k}/{n} = {k / n:.2f} (book's distances beside it: {per_dist})",
        judgement=rate_claim(
            k, n, accept=(0.0, _HIGH_POWER_TYPE2), name="pooled Type II", tolerance_source="power 0.8 (Cohen 1988)"
        ),
        note=f"R = {authors['R']} datasets of the authors' generator (mkjuergens/EnsembleCalibration@8dff2b5, "
        "src/run_t1t2_analysis.py, l. 251-263 pass setting=None; src/data/synthetic/gp_binary.py, l. 162-164: truth "
        "a GP draw in [0, p_min]); the paper says zero Type II, the criterion allows 0.2",
    )


def _mortier_skce_row(cmp, fig, s, base, authors=()):
    """Sec. 4.2: Mortier et al.'s test too conservative except with SKCE (pooled rate at α = 0.05). The paper's
    figures show the authors' baseline "v0": with ``authors`` ((summary, note) of the studies under the authors'
    settings, the first that ran v0 is used) the row judges v0 there and states Mortier et al.'s Alg. 1 on the book's
    settings beside it."""
    alg1 = [pooled_type1(s, kind="Mortier", estimators=e).get(0.05) for e in (_MAIN, ("SKCE",))]
    v0, authors_base = None, ""
    for src, note in authors:
        found = (
            [pooled_type1(src, kind="Mortier v0", estimators=e).get(0.05) for e in (_MAIN, ("SKCE",))] if src else []
        )
        if found and None not in found:
            v0, authors_base = found, note
            break
    if None in alg1 and v0 is None:
        return
    others, skce = v0 or alg1
    name = "v0" if v0 else "Mortier"
    which = "the authors' baseline v0" if v0 else "Alg. 1"
    parts = [
        rate_claim(*others, accept=(0.0, 0.025), name=f"{name} L2/KL/MMD pooled rate", tolerance_source="below α/2"),
        rate_claim(*skce, accept=(0.025, 1.0), name=f"{name} SKCE pooled rate", tolerance_source="at least α/2"),
    ]
    book = f"L2/KL/MMD {others[0] / others[1]:.3f}, SKCE {skce[0] / skce[1]:.3f}"
    if v0 and None not in alg1:
        book = (
            f"v0 (the authors' settings): {book}; Mortier et al.'s Alg. 1 (the book's settings): L2/KL/MMD "
            f"{alg1[0][0] / alg1[0][1]:.3f}, SKCE {alg1[1][0] / alg1[1][1]:.3f}"
        )
    note = (
        f"{authors_base}; the paper's figures show the authors' baseline v0 (src/cal_test/bootstrap_test.py, l. 314-330), "
        "which the row judges; Mortier et al.'s Alg. 1, stated beside, is too conservative with L2/KL/MMD by "
        "construction (a minimum against random-λ nulls; tests/papers/juergens/test_compare.py)"
        if v0
        else base + "; the L2/KL/MMD half holds by construction (a minimum against random-λ nulls; "
        "tests/papers/juergens/test_compare.py), the SKCE exception is what the row decides"
    )
    cmp.add(
        fig,
        f"Mortier et al.'s test ({which}) too conservative except with SKCE: "
        "at α = 0.05 its pooled Type I below α/2 for L2/KL/MMD, at least α/2 for SKCE",
        paper=_claim("h0_mortier_conservative"),
        book=book,
        judgement=combine(parts, rule="all"),
        note=note,
    )


def _skce_power_row(cmp, fig, setting, s, base, skce_note):
    """Fig. 3 or 4: SKCE less powerful than L2, KL and MMD."""
    r = s["R"]
    k = s["skce"]
    cmp.add(
        fig,
        f"SKCE less powerful: power at α = {s['h1_alpha']:g} of the new test, L2/KL/MMD minus SKCE",
        paper=_claim("fig3_skce_type2" if setting == "binary" else "h1_skce_unreliable"),
        book=f"SKCE {k['skce']:.2f} vs others {k['others']:.2f}",
        judgement=sign_claim(
            k["diff"],
            relation=">",
            se=k["se"],
            name="power difference",
            replicates=r,
            tolerance_source=f"2 × bootstrap standard error over the R = {r} datasets (paired)",
        ),
        note=base + "; " + skce_note,
    )


def compare(results: Mapping, *, chapter: str = "02_juergens_instance_calibration") -> Comparison:
    r"""The chapter's "Paper vs. this book" rows (Figs. 3-6, App. B, Fig. 8, Table 1).

    Parameters
    ----------
    results : mapping
        The chapter's numbers (plain floats, strings, lists and dicts; see ``RESULT_KEYS``):

        * ``error_rates``: setting ("binary", "multiclass") → the dict of
          :func:`~credalbook.papers.juergens.summarise_error_rates` (counts per cell, bootstrap
          standard errors of the differences);
        * ``skce_bandwidth``: setting → the SKCE bandwidth used in Figs. 3-4, and ``"fig5"`` → the one of Fig. 5
          (median heuristics, :func:`~credalbook.papers.juergens.median_heuristic_bandwidth`);
        * ``null_means``, ``null_se``: estimator name ("L2-CE", "KL-CE", "MMD", "SKCE") → mean and
          standard error of its values under H0 (Fig. 5);
        * ``landscape_miss``: estimator ("lp", "kl", "mmd", "skce") → the L1 distances of each
          repeat's grid minimum from the truth (Fig. 6; :attr:`Landscape.repeat_misses`);
        * ``app_b``: the three combinations of App. B, in order, each {"k": rejections at α = 0.05, "n": samples};
        * ``centre_share``: {"weights": …, "triangulation": …, "n": samples per sampler} (Fig. 8);
        * ``table1``: row name "<arch> · <set> · <estimator>" → a row of
          :func:`~credalbook.papers.juergens.evaluate_instance_test`;
        * ``table1_setting``: {"n_members", "kinds", "learner"} of the Table 1 analogue (for the notes);
        * ``dataset``: the name of the Table 1 data.
    chapter : str
        Names the results file.

        Optional (their rows say "not run here" without them): ``authors_binary``, the
        :func:`~credalbook.papers.juergens.summarise_error_rates` dict of the studies of the authors' binary
        generator; ``table1_bootstrap``, the Table 1 rows with the authors' resampling; ``landscape_spread``,
        estimator → {"at_truth": its value at the grid point nearest the truth on each repeat, "range": max − min
        of its mean landscape} (Fig. 6); ``landscape_argmins``,
        estimator → {"simplex": …, "lambda": …} grid minima (Fig. 7); ``test_size``, {"base": …, "large": …} the pooled
        Type I of the new test on the binary H0 panels (L2, KL, MMD) at the chapter's test split and at four times it,
        each a list of [α, rejections, draws] (``credalbook.papers.juergens.rows.excess_over_alpha``);
        ``authors_settings``, setting → :func:`~credalbook.papers.juergens.summarise_error_rates` of the studies under
        the authors' settings (parts ``authors-settings-*``, with the baseline "v0"): the Type I rows then judge them;
        ``tiled_spread``, estimator → [median relative spread, SE, tiles] of Fig. 6 on the authors' tiles
        (:func:`~credalbook.papers.juergens.relative_spread`): the Fig. 6 row then judges those; ``table1_regime``,
        Table 1 in the over-confident regime (:func:`~credalbook.papers.juergens.table1_regime_rows`):
        {"permutation": rows, "bootstrap": rows} keyed ``"<data set>-s<seed> · <set> · <estimator>"``, "signed": cell
        ``"<data set>-s<seed> · <set>"`` → [mean confidence − accuracy of the mean predictor, 95% low, high],
        "setting": how the networks were trained}: a premise row per data set first, then the Table 1 rows judge the
        cells of the data sets whose premise held and state the frozen-backbone analogue's numbers beside them as the
        control; ``table1_regime_floor``, the same cells with every member's probabilities floored
        (``prob_floor`` of :func:`~credalbook.papers.juergens.table1_regime_rows`, parts ``table1rfloor-*``): the KL row
        states their KL − L2 and names near-0 probabilities as its cause when it moves up by more than twice the
        standard error of its paired change; ``table1_regime_stop``, the same cells with every network early-stopped
        on its validation loss (``patience`` of :func:`~credalbook.papers.juergens.table1_regime_rows`, parts
        ``table1rstop-*``): the share rows state their share and name training past the best validation loss as
        their cause when it is within the row's tolerance of the paper's share; ``oracle``, setting → :func:`~credalbook.papers.juergens.summarise_error_rates` of the H0 studies
        under the authors' settings with the true λ*(x) (:func:`~credalbook.papers.juergens.oracle_error_summary`): the
        Type I band rows state their rates and, where those are in the band and the learned test's are not, name the
        learned λ(x) as the computed cause; ``authors_settings_h0``, setting → :func:`~credalbook.papers.juergens.summarise_error_rates`
        of the H0 studies under the authors' settings merged with further datasets of the same studies (parts
        ``fig4more-*``, :func:`~credalbook.papers.mortier.merge_summaries`): the Type I band row judges those.

    Returns
    -------
    Comparison
        Nineteen rows, and three more with ``authors_settings`` (against the baseline "v0").

    Examples
    --------
    See ``tests/papers/juergens/test_compare.py``.
    """
    check_results(results, RESULT_KEYS)
    r = results
    cmp = Comparison(chapter)
    for setting, fig in _FIGURES:
        authors = r.get("authors_binary") if setting == "binary" else None
        settings = (r.get("authors_settings") or {}).get(setting)
        _fig_rows(
            cmp, fig, setting, r["error_rates"][setting], r["skce_bandwidth"][setting], authors, r.get("test_size"),
            settings, (r.get("oracle") or {}).get(setting), (r.get("authors_settings_h0") or {}).get(setting),
        )  # fmt: skip
    _fig5_row(cmp, r["null_means"], r["null_se"], r["skce_bandwidth"]["fig5"])
    _fig6_row(cmp, r["landscape_miss"], r.get("landscape_spread"), r.get("tiled_spread"))
    _fig7_row(cmp, r.get("landscape_argmins"))
    _app_b_row(cmp, r["app_b"])
    _fig8_row(cmp, r["centre_share"])
    _table1_rows(
        cmp,
        r["table1"],
        r["table1_setting"],
        r["dataset"],
        r.get("table1_bootstrap"),
        r.get("table1_regime"),
        r.get("table1_regime_floor"),
        r.get("table1_regime_stop"),
    )
    return cmp


def _above_alpha_cause_row(cmp, test_size=None):
    """Sec. 4.1: the above-α cases come from the generalisation error of λ(x) and depend on the test size: the
    pooled excess of the Type I over α with the test split four times larger, against the chapter's split."""
    if test_size is None:
        cmp.not_run(
            "Fig. 3",
            "the above-α cases depend on the test size: the pooled Type I excess over α falls with a four times "
            "larger test split",
            paper=_claim("fig3_above_cause"),
            reason="needs the H0 studies at a larger test split (parts testsize-binary-*)",
            tested_by="tests/stats/test_instance.py (the fractions option of the split)",
        )
        return
    (eb, sb, nb), (el, sl, nl) = (excess_over_alpha(test_size[k]) for k in ("base", "large"))
    se = float(np.hypot(sb, sl))
    source = (
        "2 × the combined SE; each mean's SE bounded by the mean of its levels' binomial SEs (the levels share "
        "their datasets); 'depends' read two-sided: the paper states no direction"
    )
    name = "excess(4 × test split) − excess(test split)"
    parts = [sign_claim(el - eb, relation=r, se=se, name=name, replicates=nb, tolerance_source=source) for r in "<>"]
    cmp.add(
        "Fig. 3",
        "the above-α cases depend on the test size: mean pooled Type I − α over the levels (binary H0, new test, "
        "L2, KL, MMD), four times the chapter's test split against that split",
        paper=_claim("fig3_above_cause"),
        book=f"{eb:+.4f} → {el:+.4f} with 4 × the test split ({'grows' if el > eb else 'falls'})",
        judgement=Judgement(
            combine(parts, rule="any").verdict, f"|{name}| > 0 by more than {2 * se:.3g}: {el - eb:+.4g}", 2 * se,
            source, nb,
        ),  # fmt: skip
        note=f"{nb} pooled draws per level (H0-const and H0-inst × L2, KL, MMD); the larger split keeps the "
        "optimisation and validation splits (fractions 0.375 / 0.125 / 0.5 of 8/5 the instances), so only the test "
        "split changes; a λ fitted on a separate split that is not exactly calibrated on the test distribution is "
        "detected more often with more test instances, so the generalisation error the paper names predicts growth",
    )  # fmt: skip


def _fig5_row(cmp, m, se, bw):
    """Fig. 5: SKCE and MMD centred at 0 under H0 (L2 and KL > 0 hold for any non-negative estimator: a test)."""
    parts = [
        close_to(
            m[k],
            0.0,
            tol=2 * se[k],
            tolerance_source="2 × standard error of the mean over the null draws",
            name=f"mean {k}",
        )
        for k in ("SKCE", "MMD")
    ]
    cmp.add(
        "Fig. 5",
        "SKCE and MMD empirically unbiased under H0: their means over the null draws within 2 SE of 0",
        paper=_claim("fig5_null_means"),
        book=", ".join(f"{k} {v:.3g} ± {se[k]:.2g}" for k, v in m.items()),
        judgement=combine(parts, rule="all", criterion="|SKCE|, |MMD| ≤ 2 SE"),
        note=f"SKCE with bandwidth {bw:.3g} (median heuristic); L2 and KL above 0 hold for any non-negative "
        "estimator (tests/papers/juergens/test_compare.py), not a row",
    )


def _fig6_row(cmp, landscape_miss, spread, tiled=None):
    """Fig. 6: SKCE noisier near the truth. With ``tiled`` (the authors' tiles, estimator → [median relative spread,
    SE, tiles]) the row judges their construction and states the book's landscapes beside it; without, the book's:
    spread over repeats at the truth, relative to the landscape's range."""
    quantity = (
        "SKCE noisier near the truth: standard deviation over repeats of the estimator at the grid point nearest "
        "the truth, relative to the range of its mean landscape, SKCE vs the largest of L2/KL/MMD"
    )
    if spread is None and tiled is None:
        cmp.not_run(
            "Fig. 6",
            quantity,
            paper=_claim("fig6_landscape"),
            reason="no repeat values recorded",
            tested_by="tests/papers/juergens/test_compare.py",
        )
        return
    rel = {}
    rng = np.random.default_rng(0)
    for e, sp in (spread or {}).items():
        v, width = np.asarray(sp["at_truth"], dtype=float), float(sp["range"])
        idx = rng.integers(0, len(v), size=(200, len(v)))
        rel[e] = (
            float(np.std(v, ddof=1) / width),
            float(np.std(np.std(v[idx], ddof=1, axis=-1) / width, ddof=1)),
            len(v),
        )
    book = ""
    if rel:
        worst_b = max(("lp", "kl", "mmd"), key=lambda e: rel[e][0])
        book = f"{worst_b} {rel[worst_b][0]:.3f} vs SKCE {rel['skce'][0]:.3f}"
    misses = "grid-minimum distances " + ", ".join(f"{e} {np.mean(v):.3f}" for e, v in landscape_miss.items())
    if tiled is not None:
        t = {e: tuple(v) for e, v in tiled.items()}
        worst = max(("lp", "kl", "mmd"), key=lambda e: t[e][0])
        cmp.add(
            "Fig. 6",
            "SKCE noisier near the truth, on the authors' tiles: median over the tiles near the truth of the standard "
            "deviation of |v| over fresh label draws divided by its mean, SKCE vs the largest of L2/KL/MMD",
            paper=_claim("fig6_landscape"),
            book=f"{worst} {t[worst][0]:.3f} vs SKCE {t['skce'][0]:.3f}"
            + (f"; the book's landscapes (sd at the truth / range): {book}" if book else ""),
            judgement=ordered(
                t[worst][0], t["skce"][0], relation="<", se_a=t[worst][1], se_b=t["skce"][1], names=(worst, "SKCE"),
                replicates=int(t["skce"][2]),
                tolerance_source=f"2 × bootstrap standard error over the {int(t['skce'][2])} tiles near the truth",
            ),
            note="the authors' construction (cal_estimator_analysis.ipynb, cells 3-5: a constant predictor per tile of "
            "a resolution-40 grid, 3 000 labels drawn afresh per tile from (0.1, 0.1, 0.8), bandwidths 0.1 for L2 "
            "and KL, 0.001 for SKCE (linear, |v|) and MMD) with the book's estimators; 'near': L1 distance ≤ 0.2; "
            + misses,
        )  # fmt: skip
        return
    worst = worst_b
    cmp.add(
        "Fig. 6",
        quantity,
        paper=_claim("fig6_landscape"),
        book=book,
        judgement=ordered(
            rel[worst][0],
            rel["skce"][0],
            relation="<",
            se_a=rel[worst][1],
            se_b=rel["skce"][1],
            names=(worst, "SKCE"),
            replicates=rel["skce"][2],
            tolerance_source=f"2 × bootstrap standard error over {rel['skce'][2]} repeats",
        ),
        note="the book's landscapes (one dataset per repeat, predictions shifted to each grid point), not the "
        "authors' tiled construction (cal_estimator_analysis.ipynb, cells 3-5); " + misses,
    )


def _fig7_row(cmp, argmins):
    """Fig. 7: the landscapes differ more between estimators in λ space than in the simplex."""
    quantity = (
        "heat-maps vary more between estimators in λ space: mean pairwise L1 distance of the estimators' grid "
        "minima, λ space vs simplex"
    )
    paper = "“We see that here the heatmaps vary more significantly for the different calibration estimators.” (App. A, Fig. 7)"
    if argmins is None:
        cmp.not_run(
            "Fig. 7",
            quantity,
            paper=paper,
            reason="no grid minima recorded",
            tested_by="tests/papers/juergens/test_compare.py",
        )
        return
    d = {}
    for space in ("simplex", "lambda"):
        pts = [np.asarray(v[space], dtype=float) for v in argmins.values()]
        d[space] = float(np.mean([np.abs(a - b).sum() for i, a in enumerate(pts) for b in pts[i + 1 :]]))
    cmp.add(
        "Fig. 7",
        quantity,
        paper=paper,
        book=f"λ space {d['lambda']:.3f} vs simplex {d['simplex']:.3f}",
        judgement=ordered(d["lambda"], d["simplex"], relation=">", names=("λ space", "simplex")),
        note="one grid per space (the mean over repeats); a single computation, no sampling error is assigned",
    )


def _app_b_row(cmp, ab):
    """App. B: the two calibrated combinations by the closed form E[Y | p̂] = p̂ (and the book's control)."""
    gaps = app_b_closed_form()
    parts = [
        close_to(gaps[k], 0.0, tol=1e-12, tolerance_source="floating-point rounding", name=f"{k} gap")
        for k in ("conditional", "marginal")
    ]
    parts.append(
        sign_claim(gaps["uncalibrated"], relation=">", name="control's gap (λ₁ ≡ 3/4, must not be calibrated)")
    )
    cmp.add(
        "App. B",
        "two different combinations both calibrated: max |E[Y | p̂] − p̂| = 0 for both (closed form), > 0 for the "
        "book's control",
        paper=_claim("app_b_combinations"),
        book=", ".join(f"{k} {v:.3g}" for k, v in gaps.items()),
        judgement=combine(parts, rule="all"),
        note="the example's numbers (P(Y=1|a) = 0.2, P(Y=1|b) = 0.8, members 0.1 and 0.9) are the book's own: the "
        "paper's are lost in our copy; the KL test on samples rejects them in "
        + ", ".join(f"{c['k']}/{c['n']}" for c in ab),
    )


def _fig8_row(cmp, sh):
    """Fig. 8: uniform weights pile up in the centre of the credal set."""
    n = int(sh["n"])
    se = {k: float(np.sqrt(sh[k] * (1 - sh[k]) / n)) for k in ("weights", "triangulation")}
    cmp.add(
        "Fig. 8",
        "uniform weights pile up in the centre: share of samples in the central quarter, weights vs "
        "uniform (triangulation)",
        paper=_claim("fig8_centre"),
        book=f"{sh['weights']:.3f} vs {sh['triangulation']:.3f}",
        judgement=ordered(
            sh["weights"],
            sh["triangulation"],
            relation=">",
            se_a=se["weights"],
            se_b=se["triangulation"],
            names=("weights", "triangulation"),
            replicates=n,
            tolerance_source=f"2 × binomial standard error of {n} samples each",
        ),
        note="6 random vertices in the 3-class simplex",
    )


def paper_table1_cells(dataset: str | None = None) -> dict:
    """The paper's Table 1 rows as ``"<dataset> · <backbone> · <set> · <estimator row>"`` → row, of one data set
    (``"CIFAR-10"``, ``"CIFAR-100"``) or of both (None).

    Examples
    --------
    >>> len(paper_table1_cells()), len(paper_table1_cells("CIFAR-10"))
    (24, 12)
    """
    return {" · ".join((d, a, st, e)): row for d, a, st, e, row in _paper_rows() if dataset in (None, d)}


def _share_row(cmp, table, diff, *, resample, control=None, stop=None):
    """Table 1: the share of cells rejected at α = 0.01 against the share the paper's own p-values imply.
    ``stop``: the regime's cells with every network early-stopped (:func:`~credalbook.papers.juergens.regime_tables`
    of parts ``table1rstop-*``), for the computed cause (:func:`_stop_cause`)."""
    t = _TABLE1_ALPHA
    all_, c10, c100 = (table1_decision_counts(paper_table1_cells(d), t) for d in (None, "CIFAR-10", "CIFAR-100"))
    paper_share = (c10["k"] + c10["k_le"]) / 2 / c10["n"]
    quantity = (
        f"H0 rejected at α = {t:g} in some cells, not in others: share of rejected cells (mean predictor and λ(x)), "
        f"null replicates {'with the instances kept' if resample == 'permutation' else 'resampled with replacement'}"
    )
    paper = (
        f"the decisions its p-values imply: p < {t:g} in {all_['k']}–{all_['k_le']} of {all_['n']} cells (CIFAR-10 "
        f"{c10['k']}–{c10['k_le']} of {c10['n']}, CIFAR-100 {c100['k']}–{c100['k_le']} of {c100['n']}; the table "
        "prints REJ. in all 48, a lost '¬': the text says "
        + _claim("table1_kl_fewest").split(" potentially")[0]
        + "” and “for the CIFAR-100 dataset with more classes, the test rejects more often” (Sec. 4.3), which "
        "cannot hold if every cell rejects"
    )
    if table is None:
        cmp.not_run(
            "Table 1",
            quantity,
            paper=paper,
            reason="the Table 1 analogue with the authors' resampling (parts table1boot-*) is not recorded here",
            tested_by="tests/papers/juergens/test_real_sets.py",
        )
        return
    k = rejected_cells(table)  # the test's own decisions
    n = 2 * len(table)
    tol = _share_tolerance(k, n, paper_share, c10["n"])
    stop_text, cause = ("", "") if stop is None else _stop_cause(table, stop, resample, paper_share, c10["n"])
    cmp.add(
        "Table 1",
        quantity,
        paper=paper,
        book=f"{k} of {n} cells"
        + ("" if control is None else f"; {_CONTROL}: {rejected_cells(control)} of {2 * len(control)}")
        + stop_text,
        cause=cause,
        judgement=close_to(
            k / n,
            paper_share,
            tol=float(tol),
            bounds=(0.0, 1.0),
            name="book's share",
            tolerance_source=f"2 × the combined binomial standard error of the two shares ({n} and {c10['n']} cells)",
        ),
        note=diff + f"; judged against CIFAR-10 (10 classes, as the analogue), share {paper_share:.3f} (mid-point "
        "of p < α and p ≤ α: the printed p-values are rounded); the authors' code resamples with replacement "
        "(mkjuergens/EnsembleCalibration@8dff2b5, src/cal_test/bootstrap_test.py, l. 185)",
    )


def _share_tolerance(k: int, n: int, paper_share: float, paper_n: int) -> float:
    """2 × the combined binomial standard error of a share of ``k`` of ``n`` cells and the paper's over ``paper_n``."""
    return float(2 * np.hypot(np.sqrt(paper_share * (1 - paper_share) / paper_n), np.sqrt((k / n) * (1 - k / n) / n)))


def _stop_cause(table, stop, resample: str, paper_share: float, paper_n: int) -> tuple[str, str]:
    """(text for the book column, cause) of a share row from the same cells with every network early-stopped on its
    validation loss (parts ``table1rstop-*``: the same training images, initialisations, minibatch order, λ-network
    and tests). The rule, fixed before those parts ran: training past the best validation loss is the cause when
    the early-stopped cells' share of rejections agrees with the paper's by the row's own criterion (within 2 × the
    combined binomial standard error), so that the one setting changed reproduces the paper's number."""
    cells = {key: row for key, row in stop[resample].items() if key in table}
    if not cells:
        return "", ""
    k, n = rejected_cells(cells), 2 * len(cells)
    tol = _share_tolerance(k, n, paper_share, paper_n)
    text = f"; networks early-stopped on their validation loss (parts table1rstop-*): {k} of {n} cells"
    source = "2 × the combined binomial standard error of the two shares"
    if close_to(k / n, paper_share, tol=tol, bounds=(0.0, 1.0), tolerance_source=source).verdict != AGREES:
        return text + f" (not within {tol:.3f} of the paper's share)", ""
    return text, (
        f"members trained past their best validation loss: with every network early-stopped as the paper trains its "
        f"networks (App. D: on the validation loss; the authors' runner keeps the weights of the lowest validation "
        f"loss, src/data/real/train_ensembles.py l. 182-186; here {stop['setting'].split(': ', 1)[-1]}, with Adam as "
        f"App. D and the regime, where the authors' runner uses SGD with momentum 0.9, lr 0.01, at most 50 epochs, "
        f"l. 99, 504, 514; the same training images, initialisations, λ-network and tests; parts table1rstop-*) "
        f"{k} of {n} cells are rejected, "
        f"|{k / n:.3f} − {paper_share:.3f}| within {tol:.3f}; the one setting changed"
    )


#: How the rows name the frozen-backbone analogue beside the regime's cells.
_CONTROL = "frozen backbone (the control)"


def _table1_rows(cmp, table, setting, dataset, table_bootstrap=None, regime=None, floor=None, stop=None):
    st = setting
    common = (
        f"{st['n_members']} members (authors' code: 5; their runner's default 10, src/run_analysis_real_data.py, "
        f"l. 313); sets {', '.join(st['kinds'])} (dropout rates from Mortier et al.; the paper's are lost in our copy, "
        f"the authors' code defaults to 0.5); λ-network {st['learner']} (authors' code: 3 × 128, lr 5e-4, batch 64, "
        "100 epochs, patience 20, plain Brier/log loss, trained on their 'test' files, early-stopped on 'val')"
    )
    diff = f"{dataset}, frozen small CNN backbones (not CIFAR with ResNet-18/VGG-19); " + common
    if regime is None:
        _share_row(cmp, table, diff, resample="permutation")
        _share_row(cmp, table_bootstrap, diff, resample="bootstrap")
        _estimator_rows(cmp, table, diff)
        _dropout_row(cmp, table, diff)
        _accuracy_row(cmp, table, diff)
        return
    diff = f"{regime['setting']} (not CIFAR with ResNet-18/VGG-19); {common}"
    held, note = _regime_premises(cmp, regime["signed"], diff, regime.get("cells"))
    diff = f"{diff}; {note}"
    perm, boot = ({k: v for k, v in regime[r].items() if _data_set(k) in held} for r in ("permutation", "bootstrap"))
    _share_row(cmp, perm, diff, resample="permutation", control=table, stop=stop)
    _share_row(cmp, boot, diff, resample="bootstrap", control=table_bootstrap, stop=stop)
    _estimator_rows(cmp, perm, diff, control=table, floor=floor)
    _dropout_row(cmp, perm, diff, control=table)
    _accuracy_row(cmp, perm, diff, control=table)


def _data_set(key: str) -> str:
    """The data set of a regime key ``"<data set>-s<seed> · ..."``."""
    return key.split(" · ")[0].rsplit("-s", 1)[0]


def _regime_premises(cmp, signed, setting, cells=None) -> tuple[set, str]:
    """Table 1's premise row per data set: the sets' mean predictor over-confident in a majority of its cells; → (the
    data sets whose premise held, or all when none did; the rows' note). Networks near perfect accuracy (scikit-learn's
    digits) leave no room to show over-confidence, so the regime is judged per data set. With ``cells`` (cell → its
    table row, with its accuracy and the members' own mean confidence − accuracy) the members' values are stated
    beside, not judged, and a data set whose premise fails where fewer than a majority of its cells could show it at
    all (:func:`credalbook.papers.premises.premise_undecided`: 1 − accuracy, the largest over-confidence possible,
    within its own half-width) is *inconclusive*: its test split cannot decide the premise."""
    held, said = set(), []
    for ds in dict.fromkeys(_data_set(k) for k in signed):
        mine = [v for k, v in signed.items() if _data_set(k) == ds]
        members = [c.get("members' mean conf. − acc.") for k, c in (cells or {}).items() if _data_set(k) == ds]
        k, n = sum(low > 0 for _, low, _ in mine), len(mine)
        what = "cells whose mean predictor has confidence − accuracy above 0 (95% interval)"
        source = "a majority of the data set's cells; percentile bootstrap interval over the test split"
        judgement = at_least(k, n, n // 2 + 1, what=what, tolerance_source=source)
        mine_cells = {key: c for key, c in (cells or {}).items() if _data_set(key) == ds}
        if mine_cells and all("accuracy" in c and "test instances" in c for c in mine_cells.values()):
            judgement = premise_undecided(
                judgement, [(c["accuracy"], c["test instances"]) for c in mine_cells.values()]
            )
        cmp.add(
            "Table 1 (premise)",
            f"{ds}: the sets over-confident: mean confidence − accuracy of each set's mean predictor on the test split, "
            "95% interval above 0",
            paper="ResNet-18 and VGG-19 trained on CIFAR-10/100 (Sec. 4.3), networks of the kind Guo et al. (2017), in "
            "the paper's references, find over-confident; the paper's p-values reject the mean predictor in many cells",
            book=f"over-confident in {k} of {n} cells (confidence − accuracy: "
            + ", ".join(f"{v:+.3f}" for v, _, _ in mine)
            + (
                "; the members' own, mean per cell: " + ", ".join(f"{v:+.3f}" for v in members)
                if members and None not in members
                else ""
            )
            + ")",
            judgement=judgement,
            note=setting,
        )
        ok = judgement.verdict == "agrees"
        held |= {ds} if ok else set()
        said.append(f"{ds} {'held' if ok else 'undecided' if judgement.verdict == INCONCLUSIVE else 'did not hold'}")
    note = "premise (over-confident sets), per data set: " + ", ".join(said)
    if not held:
        return {_data_set(k) for k in signed}, note + "; none held: the rows judge every cell"
    return held, note + f"; the rows judge {', '.join(d for d in dict.fromkeys(map(_data_set, signed)) if d in held)}"


def _beside(control, text: str) -> str:
    """``text`` (the control's number) stated beside a regime row's book value, or nothing without a control."""
    return "" if control is None else f"; {_CONTROL}: {text}"


def _estimator_rows(cmp, table, diff, control=None, floor=None):
    """Table 1: results differ by estimator; KL gives the fewest rejections. ``floor``: the regime's cells with every
    member's probabilities floored (:func:`~credalbook.papers.juergens.regime_tables`), for the KL row's computed
    cause (:func:`_floor_cause`, on the cells of ``table``)."""
    t = _TABLE1_ALPHA

    def disagreements(rows):
        pairs = {}
        for name, row in rows.items():
            *key, est = name.split(" · ")
            pairs.setdefault(tuple(key), []).append(row)
        both = [v for v in pairs.values() if len(v) == 2]
        return sum((a[f"{c}_p"] < t) != (b[f"{c}_p"] < t) for a, b in both for c in ("mean", "lambda")), 2 * len(both)

    paper = paper_table1_summary()
    k, n = disagreements(table)
    kp, np_ = disagreements(paper_table1_cells())
    kc = None if control is None else disagreements(control)
    cmp.add(
        "Table 1",
        f"results differ by estimator: cells (set, column) where L2 and KL decide differently at α = {t:g}",
        paper="“The results differ significantly, depending on the used calibration error.” (Sec. 4.3); "
        f"table: {kp} of {np_} cells",
        book=f"{k} of {n}" + ("" if kc is None else _beside(control, f"{kc[0]} of {kc[1]}")),
        judgement=at_least(k, n, 1, what="cells where the estimators disagree", tolerance_source="“differ”: any"),
        note=diff,
    )
    mu, se, nd = _kl_minus_l2(table)
    ctl = "" if control is None else _beside(control, "{:+.3f} ± {:.3f}".format(*_kl_minus_l2(control)))
    floor_text, cause = ("", "") if floor is None else _floor_cause(table, floor["permutation"], floor["prob_floor"])
    cmp.add(
        "Table 1",
        "KL gives the fewest rejections (highest p-values): mean p-value of KL − L2, paired by set and column",
        paper=_claim("table1_kl_fewest") + f"; table: row 1 mean p {paper['mean_p_row1']:.2f} vs row 2 "
        f"{paper['mean_p_row2']:.2f}",
        book=f"{mu:+.3f} ± {se:.3f}{ctl}" + floor_text,
        judgement=sign_claim(
            mu,
            relation=">",
            se=se,
            name="KL − L2 p-value",
            replicates=nd,
            tolerance_source=f"2 × standard error over {nd} paired p-values",
        ),
        cause=cause,
        note=diff + "; which printed row is KL is lost in our copy (row 1 by its errors > 2)",
    )


def _floor_cause(table, floored, floor) -> tuple[str, str]:
    """(text for the book column, cause) of the KL row from the same cells with every member's probabilities floored
    at ``floor`` (parts ``table1rfloor-*``: the same networks, λ-network and tests). The rule, fixed before those parts
    ran: near-0 probabilities are the cause when KL − L2, paired by cell and column, moves up by more than twice the
    standard error of its paired change (toward the frozen backbone's value, whose members are close to calibrated)."""
    before, after = _kl_l2_pairs(table), _kl_l2_pairs(floored or {})
    common = sorted(set(before) & set(after))
    if not common:
        return "", ""
    m_after, se_after, _ = _mean_se0([after[k] for k in common])
    m, se, n = _mean_se0([after[k] - before[k] for k in common])
    text = (
        f"; with every member's probabilities floored at {floor:g} (parts table1rfloor-*): {m_after:+.3f} ± "
        f"{se_after:.3f}, a change of {m:+.3f} ± {se:.3f} over {n} pairs"
    )
    if not m > 2 * se:
        return text, ""
    return text, (
        f"near-0 probabilities: with every member's probabilities floored at {floor:g} (the same networks, λ-network "
        f"and tests; parts table1rfloor-*) KL − L2 moves by {m:+.3f} ± {se:.3f} (paired over {n} cells and columns, "
        "more than twice its standard error); the one setting changed"
    )


def _kl_l2_pairs(table) -> dict:
    """(cell, column) → KL's p-value minus L2's, for the cells (rows ``"<cell> · <estimator>"``) that have both."""
    pairs = {}
    for name, row in table.items():
        *cell, est = name.split(" · ")
        pairs.setdefault(tuple(cell), {})[est] = row
    return {
        (cell, c): v["KL-CE"][f"{c}_p"] - v["L2-CE"][f"{c}_p"]
        for cell, v in pairs.items()
        if {"KL-CE", "L2-CE"} <= set(v)
        for c in ("mean", "lambda")
    }


def _mean_se0(values) -> tuple:
    """:func:`mean_se` with the SE 0 where it is undefined."""
    mu, se, n = mean_se(values)
    return mu, 0.0 if np.isnan(se) else se, n


def _kl_minus_l2(table) -> tuple:
    """Mean and SE (0 when undefined) of KL's p-value minus L2's, paired by (cell, set) and column; and the pairs."""
    return _mean_se0(list(_kl_l2_pairs(table).values()))


def _dropout_row(cmp, table, diff, control=None):
    """Sec. 4.3: the dropout networks less calibrated than the deep ensembles (lower mean p-value)."""
    kinds = sorted({name.split(" · ")[-2] for name in table})
    dns = [k for k in kinds if k.startswith("DN")]
    paper_rows = paper_table1_cells()
    paper_dns = sorted({name.split(" · ")[-2] for name in paper_rows} - {"DE"})
    pj = dropout_less_calibrated(paper_rows, "DE", paper_dns)
    cmp.add(
        "Table 1",
        "dropout networks less calibrated than the deep ensemble: mean p-value of the dropout sets below the DE's "
        "(both columns, both estimators)",
        paper="“the dropout networks are less calibrated” (Sec. 4.3); the table's own p-values: " + pj.criterion,
        book=dropout_less_calibrated(table, "DE", dns).criterion.split(": ")[-1]
        + (
            ""
            if control is None
            else _beside(control, dropout_less_calibrated(control, "DE", dns).criterion.split(": ")[-1])
        ),
        judgement=dropout_less_calibrated(table, "DE", dns),
        note=diff + f"; the paper's own numbers, by the same criterion: {pj.verdict}",
    )


def _accuracy_row(cmp, table, diff, control=None):
    """Table 1: λ(x) slightly increases accuracy — judged on the paper's own gains first."""
    paper = paper_table1_summary()
    pg = [row["lambda_acc"] - row["mean_acc"] for *_, row in _paper_rows()]
    pm, pse, pn = mean_se(pg)
    own = sign_claim(pm, relation=">", se=pse, name="the paper's mean gain", replicates=pn)
    mu, se, nr = _accuracy_gain(table)
    ours = sign_claim(
        mu,
        relation=">",
        se=se,
        name="accuracy gain",
        replicates=nr,
        tolerance_source=f"2 × standard error over the {nr} rows",
    )
    judgement = ours
    if own.verdict != "agrees":
        judgement = not_decided_by_paper(
            ours,
            f"{own.criterion}: {own.verdict}",
            tolerance_source="2 × standard error over the paper's 24 rows and over the book's rows",
        )
    cmp.add(
        "Table 1",
        "λ(x) slightly increases accuracy: mean accuracy gain over the rows",
        paper=_claim("table1_accuracy") + f"; table: mean gain {paper['acc_gain']:+.4f} ± {pse:.4f}, > 0 in "
        f"{paper['n_acc_up']} of {paper['n_rows']} rows",
        book=f"{mu:+.5f} ± {se:.5f}"
        + ("" if control is None else _beside(control, "{:+.5f} ± {:.5f}".format(*_accuracy_gain(control)))),
        judgement=judgement,
        note=diff + "; not counted against the book when the paper's own numbers do not decide it",
    )


def _accuracy_gain(table) -> tuple:
    """Mean and SE (0 when undefined) of λ(x)'s accuracy minus the mean predictor's over the rows; and the rows."""
    mu, se, nr = mean_se([row["lambda_acc"] - row["mean_acc"] for row in table.values()])
    return mu, 0.0 if np.isnan(se) else se, nr
