"""The "Paper vs. this book" rows of the Jürgens et al. chapter, from a plain results dict.

The paper's numbers and claims come from ``credalbook/papers/juergens/reported.json`` (through
:func:`~credalbook.papers.report.reported`); the chapter supplies only its own numbers, counts and
standard errors (:func:`~credalbook.papers.juergens.summarise_error_rates`). Every row is judged by
a criterion of :mod:`credalbook.papers.criteria` that can fail.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.criteria import at_least, close_to, combine, mean_se, ordered, rate_claim, sign_claim
from credalbook.papers.report import check_results, Comparison, reported, reported_table_rows

__all__ = ["compare", "paper_table1", "paper_table1_summary", "RESULT_KEYS"]

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


def _fig_rows(cmp, fig, setting, s, bw):
    """The rows of Fig. 3 (binary) or Fig. 4 (multi-class) from one :func:`summarise_error_rates` dict."""
    r = s["R"]
    h0, h1 = _cells(s["h0_cells"]), _cells(s["h1_cells"])
    per_dist = ", ".join(f"{h} {v:.2f}" for h, v in s["type2_by_panel"].items())
    base = f"R = {r} datasets per panel (paper: 100)"
    skce_note = (
        f"SKCE with bandwidth h = {bw:.3g} (median heuristic of the setting's predictions); the authors' "
        f"h = {PAPER_SKCE_BANDWIDTH:g} makes the statistic numerically 0 (see 'The SKCE bandwidth')"
    )
    _type1_gap_row(cmp, fig, setting, s, base)
    if setting == "binary":
        _fig3_rows(cmp, fig, s, h0, h1, per_dist, base)
    else:
        _fig4_rows(cmp, fig, s, h0, per_dist, base)
    _skce_power_row(cmp, fig, setting, s, base, skce_note)


def _type1_gap_row(cmp, fig, setting, s, base):
    """Fig. 3 or 4: the new test's Type I error nearer α than Mortier et al.'s (mean |rate − α|)."""
    r = s["R"]
    g = s["gap"]
    words = "h0_new_closer" if setting == "binary" else "fig4_not_exceeding"
    cmp.add(
        fig,
        "new test's Type I error follows α more closely than Mortier's: mean |rate − α| over the H0 panels, "
        "the twelve α and L2, KL, MMD (Mortier − new)",
        paper=_claim(words),
        book=f"new {g['new']:.3f} vs Mortier {g['Mortier']:.3f}",
        judgement=sign_claim(
            g["diff"],
            relation=">",
            se=g["se"],
            name="Mortier − new",
            replicates=r,
            tolerance_source=f"2 × bootstrap standard error over the R = {r} datasets (paired)",
        ),
        note=base,
    )


def _fig3_rows(cmp, fig, s, h0, h1, per_dist, base):
    """Fig. 3 (binary): Type I error sometimes above α; high power at every H1 distance."""
    parts = [
        rate_claim(
            c["k"],
            c["n"],
            accept=(c["alpha"], 1.0),
            name=f"{c['panel']} {c['estimator']} α={c['alpha']:g}",
            tolerance_source="rate above α",
        )
        for c in h0
    ]
    k_above = sum(c["k"] / c["n"] > c["alpha"] for c in h0)
    cmp.add(
        fig,
        "new test's Type I error sometimes above α: some (panel, estimator, α) cell whose rate's exact 95% "
        "interval lies above α",
        paper=_claim("fig3_sometimes_above"),
        book=f"{k_above} of {len(h0)} cells have rate > α",
        judgement=combine(parts, rule="any", criterion=f"some rate's 95% interval above its α ({len(parts)} cells)"),
        note=base + "; any of many cells: a chance agreement is possible (no multiplicity correction)",
    )
    miss = [
        rate_claim(
            c["k"],
            c["n"],
            accept=(0.0, _HIGH_POWER_TYPE2),
            name=f"{c['panel']} {c['estimator']} Type II",
            tolerance_source="Type II ≤ 0.2 (power 0.8, Cohen 1988)",
        )
        for c in h1
    ]
    cmp.add(
        fig,
        f"high power at all three H1 distances: Type II at α = {s['h1_alpha']:g} of the new test "
        "(L2, KL, MMD), each ≤ 0.2",
        paper=_claim("h1_high_power"),
        book=f"mean Type II per distance: {per_dist}",
        judgement=combine(miss, rule="all", criterion=f"every Type II ≤ {_HIGH_POWER_TYPE2} ({len(miss)} cells)"),
        note=base + "; the paper says zero Type II, the criterion allows 0.2",
    )


def _fig4_rows(cmp, fig, s, h0, per_dist, base):
    """Fig. 4 (multi-class): Type I error within Bradley's region; lower Type II than Mortier et al.'s."""
    r = s["R"]
    parts = [
        rate_claim(
            c["k"],
            c["n"],
            accept=(c["alpha"] / 2, 1.5 * c["alpha"]),
            name=f"{c['panel']} {c['estimator']} α={c['alpha']:g}",
            tolerance_source=_BRADLEY,
        )
        for c in h0
    ]
    worst = max(c["k"] / c["n"] - c["alpha"] for c in h0)
    cmp.add(
        fig,
        "new test's Type I error does not exceed α and follows it closely: every (panel, estimator, α) "
        "rate in [α/2, 3α/2] (L2, KL, MMD)",
        paper=_claim("fig4_not_exceeding"),
        book=f"largest rate − α: {worst:+.3f}",
        judgement=combine(parts, rule="all", criterion=f"every rate in [α/2, 3α/2] ({len(parts)} cells)"),
        note=base,
    )
    t2 = s["type2"]
    cmp.add(
        fig,
        f"lower average Type II than Mortier's (L2, KL, MMD; H1 panels; α = {s['h1_alpha']:g}): Mortier − new",
        paper=_claim("fig4_lower_type2"),
        book=f"new {t2['new']:.2f} vs Mortier {t2['Mortier']:.2f}",
        judgement=sign_claim(
            t2["diff"],
            relation=">",
            se=t2["se"],
            name="Mortier − new Type II",
            replicates=r,
            tolerance_source=f"2 × bootstrap standard error over the R = {r} datasets (paired)",
        ),
        note=base + f"; the new test's mean Type II per distance: {per_dist}",
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

    Returns
    -------
    Comparison
        Fifteen rows.

    Examples
    --------
    See ``tests/papers/juergens/test_compare.py``.
    """
    check_results(results, RESULT_KEYS)
    r = results
    cmp = Comparison(chapter)
    for setting, fig in _FIGURES:
        _fig_rows(cmp, fig, setting, r["error_rates"][setting], r["skce_bandwidth"][setting])
    _fig5_row(cmp, r["null_means"], r["null_se"], r["skce_bandwidth"]["fig5"])
    _fig6_row(cmp, r["landscape_miss"])
    _app_b_row(cmp, r["app_b"])
    _fig8_row(cmp, r["centre_share"])
    _table1_rows(cmp, r["table1"], r["table1_setting"], r["dataset"])
    return cmp


def _fig5_row(cmp, m, se, bw):
    """Fig. 5: L2 and KL above 0, SKCE and MMD centred at 0 under H0 (``m``, ``se``: means and their errors)."""
    parts = [sign_claim(m[k], relation=">", se=se[k], name=f"mean {k}") for k in ("L2-CE", "KL-CE")]
    parts += [
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
        "L2 and KL biased upwards under H0, SKCE and MMD centred at 0 (means over the null draws)",
        paper=_claim("fig5_null_means"),
        book=", ".join(f"{k} {v:.3g} ± {se[k]:.2g}" for k, v in m.items()),
        judgement=combine(parts, rule="all", criterion="L2, KL > 0 by 2 SE; |SKCE|, |MMD| ≤ 2 SE"),
        note=f"SKCE with bandwidth {bw:.3g} (median heuristic; the authors' "
        f"{PAPER_SKCE_BANDWIDTH:g} gives a statistic of order 1e-300, see 'The SKCE bandwidth')",
    )


def _fig6_row(cmp, landscape_miss):
    """Fig. 6: the grid minimum of L2/KL/MMD nearer the truth than SKCE's."""
    miss = {e: mean_se(v) for e, v in landscape_miss.items()}
    worst = max(("lp", "kl", "mmd"), key=lambda e: miss[e][0])
    n_rep = miss["skce"][2]
    if min(v[2] for v in miss.values()) < 2:
        raise ValueError("landscape_miss needs at least 2 repeats per estimator (its standard error)")
    se_w, se_s = miss[worst][1], miss["skce"][1]
    cmp.add(
        "Fig. 6",
        "SKCE noisier: L1 distance of the grid minimum from the truth, worst of L2/KL/MMD vs SKCE (mean over repeats)",
        paper=_claim("fig6_landscape"),
        book=f"{worst} {miss[worst][0]:.3f} vs SKCE {miss['skce'][0]:.3f}",
        judgement=ordered(
            miss[worst][0],
            miss["skce"][0],
            relation="<",
            se_a=se_w,
            se_b=se_s,
            names=(worst, "SKCE"),
            replicates=n_rep,
            tolerance_source=f"2 × standard error over {n_rep} repeats",
        ),
        note=f"{n_rep} repeats (datasets); SKCE with the median-heuristic bandwidth",
    )


def _app_b_row(cmp, ab):
    """App. B: the paper's two calibrated combinations (the third, uncalibrated one is the book's control)."""
    parts = [
        rate_claim(
            c["k"], c["n"], accept=(0.025, 0.075), name=f"combination {i + 1} rejection rate", tolerance_source=_BRADLEY
        )
        for i, c in enumerate(ab[:2])
    ]
    cmp.add(
        "App. B",
        "two different combinations both calibrated: their rejection rates at α = 0.05 in [α/2, 3α/2]",
        paper=_claim("app_b_combinations"),
        book=", ".join(f"{c['k']}/{c['n']}" for c in ab[:2]),
        judgement=combine(parts, rule="all"),
        note=f"KL test on {ab[0]['n']} samples; the book's uncalibrated control (λ₁ = 3/4, not in the paper) is "
        f"rejected in {ab[2]['k']}/{ab[2]['n']}",
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


def _table1_rows(cmp, table, setting, dataset):
    paper = paper_table1_summary()
    n = len(table)
    st = setting
    diff = (
        f"{dataset}, frozen small CNN backbones (not CIFAR with ResNet-18/VGG-19); {st['n_members']} members "
        f"(authors' code: 5); sets {', '.join(st['kinds'])} (dropout rates from Mortier et al.; the paper's are lost "
        f"in our copy, the authors' code defaults to 0.5); λ-network {st['learner']} (authors' code: "
        f"3 × 128, lr 5e-4, batch 64, 100 epochs, patience 20)"
    )
    k = sum(row[f"{c}_h0"] == "REJ." for row in table.values() for c in ("mean", "lambda"))
    cmp.add(
        "Table 1",
        f"H0 rejected at α = {_TABLE1_ALPHA:g} in every row, for the mean predictor and for λ(x): rejected cells",
        paper=f"REJ. in {paper['n_rej']} of {2 * paper['n_rows']} cells (Table 1, Sec. 4.3)",
        book=f"{k} of {2 * n}",
        judgement=at_least(k, 2 * n, 2 * n, what="cells rejected", tolerance_source="the paper's Table 1 (all REJ.)"),
        note=diff + f"; the paper's own p-values are below α = {_TABLE1_ALPHA:g} in only {paper['n_p_below']} of its "
        f"{paper['n_rej']} REJ. cells",
    )

    # KL vs L2: paired by (arch, set), both columns
    pairs = {}
    for name, row in table.items():
        arch, kind, est = name.split(" · ")
        pairs.setdefault((arch, kind), {})[est] = row
    d = [
        v["KL-CE"][f"{c}_p"] - v["L2-CE"][f"{c}_p"]
        for v in pairs.values()
        if {"KL-CE", "L2-CE"} <= set(v)
        for c in ("mean", "lambda")
    ]
    mu, se, nd = mean_se(d)
    se = 0.0 if np.isnan(se) else se
    cmp.add(
        "Table 1",
        "KL gives the fewest rejections (highest p-values): mean p-value of KL − L2, paired by set and column",
        paper=_claim("table1_kl_fewest") + f"; table: row 1 mean p {paper['mean_p_row1']:.2f} vs row 2 "
        f"{paper['mean_p_row2']:.2f}",
        book=f"{mu:+.3f} ± {se:.3f}",
        judgement=sign_claim(
            mu,
            relation=">",
            se=se,
            name="KL − L2 p-value",
            replicates=nd,
            tolerance_source=f"2 × standard error over {nd} paired p-values",
        ),
        note=diff + "; which printed row is KL is lost in our copy (row 1 by its errors > 2)",
    )

    gains = [row["lambda_acc"] - row["mean_acc"] for row in table.values()]
    mu, se, nr = mean_se(gains)
    se = 0.0 if np.isnan(se) else se
    cmp.add(
        "Table 1",
        "λ(x) slightly increases accuracy: mean accuracy gain over the rows",
        paper=_claim("table1_accuracy") + f"; table: mean gain {paper['acc_gain']:+.4f}, > 0 in "
        f"{paper['n_acc_up']} of {paper['n_rows']} rows",
        book=f"{mu:+.5f} ± {se:.5f}",
        judgement=sign_claim(
            mu,
            relation=">",
            se=se,
            name="accuracy gain",
            replicates=nr,
            tolerance_source=f"2 × standard error over the {nr} rows",
        ),
        note=diff,
    )
