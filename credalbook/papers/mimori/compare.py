"""The "Paper vs. this book" rows of the Mimori et al. (2022) chapter, from a plain results dict.

The chapter assembles its results (numbers, small arrays and the metric tables of
:func:`~credalbook.papers.mimori.evaluate_predictors`) into one dict and calls :func:`compare`; the
paper's side of every row comes from ``reported.json`` (:func:`credalbook.papers.report.reported`).

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.mimori.reported import PAPER_DELTA_D, paper_values
from credalbook.papers.report import check_results, Comparison, reported

__all__ = ["POST_ROWS", "compare"]

#: The predictors of Table 2 (prior and posterior CPEs), in the paper's order.
POST_ROWS = ("Raw+α", "Raw+ts+α", "MCDO", "MCDO+ts", "TTA", "TTA+ts")

_CHAPTER = "03_mimori_label_histograms"
_KEYS = ("dataset", "data_name", "metrics", "temperatures", "mean_delta", "fig2", "fig3", "theorem1")


def _dot(value: float) -> str:
    """A value as the paper prints it: four decimals without the leading zero (``.2216``)."""
    return f"{value:.4f}".lstrip("0")


def compare(results: dict, *, chapter: str = _CHAPTER) -> Comparison:
    """The chapter's comparison rows: each finding of the paper next to ours, with a verdict.

    Parameters
    ----------
    results : dict
        What the chapter computed, as plain numbers and arrays:

        - ``dataset`` (``"fashion_mnist"``, ``"mnist"``, ...) and ``data_name`` (``"Mix-Fashion-MNIST"``);
        - ``fig2``: ``n_instances``, ``n_labels`` and ``summary``, ``{(quantity, estimator, n_labels):
          (mean, half_width)}`` of :meth:`~credalbook.papers.mimori.DebiasingStudy.summary`;
        - ``fig3``: ``reg`` (the λ_α grid) and ``ranges`` (len(reg), 2), the min and max optimal log α0;
        - ``theorem1``: ``alpha0`` (the simulated grid), ``max_z`` (largest |MC − closed form| in
          standard errors) and ``scenarios``, ``{name: {"dpe_argmin", "dpe_optimum", "post_argmin",
          "post_optimum"}}`` with the scenario ``"calibrated Z"``;
        - ``metrics``: ``{config: {predictor: {metric: value}}}`` for configs 2, 5 and ``"variable"``
          (:func:`~credalbook.papers.mimori.evaluate_predictors`, predictors in table order);
        - ``temperatures``: ``{config: T}`` of temperature scaling;
        - ``mean_delta``: ``{config: mean Δ^D}`` of :func:`~credalbook.papers.mimori.ts_dpe_shift`.
    chapter : str
        The comparison's name (the results file's stem).

    Returns
    -------
    Comparison
        Rows for Figs. 2-3, Theorem 1, Prop. 2, Tables 1, 2, 4-6, App. F.2 and the data.

    Raises
    ------
    TypeError
        If `results` is not a dict.
    ValueError
        If `results` lacks one of the keys above.

    Examples
    --------
    The paper's side of each row comes from ``reported.json``; ``results`` holds only our numbers:

    >>> from credalbook.papers.report import reported
    >>> reported("mimori")["table4"]["values"]["Mix-MNIST(2)"]["Raw+ts"]["EL"]
    0.0379
    """
    check_results(results, _KEYS)
    claims = reported("mimori")["claims"]["values"]
    cmp = Comparison(chapter)
    dataset, data_name = results["dataset"], results["data_name"]
    metrics, temperatures, mean_delta = results["metrics"], results["temperatures"], results["mean_delta"]
    configs = list(metrics)

    # Fig. 2: plug-in against debiased EL and CL of a perfect predictor.
    fig2 = results["fig2"]
    summary, big = fig2["summary"], list(fig2["n_instances"]).index(10_000)
    for n in fig2["n_labels"]:
        pl, db = (summary[("EL", e, n)] for e in ("plug-in", "debiased"))
        cl_pl, cl_db = (summary[("CL", e, n)] for e in ("plug-in", "debiased"))
        covered = float(np.mean(np.abs(np.r_[db[0], cl_db[0]]) <= np.r_[db[1], cl_db[1]]))
        cmp.add("Fig. 2", f"perfect predictor, {n} labels: plug-in EL, CL biased; debiased ≈ 0 (N = 100 → 10 000)",
                paper=claims["fig2"]["paper"],
                book=f"EL {pl[0][0]:.3f}/{pl[0][big]:.3f} vs {db[0][0]:.4f}/{db[0][big]:.4f}; CL {cl_pl[0][0]:.4f}/{cl_pl[0][big]:.5f} "
                     f"vs {cl_db[0][0]:.4f}/{cl_db[0][big]:.5f}; 90% CI covers 0 at {covered:.0%} of points",
                agrees=bool(covered >= 0.75 and np.all(pl[0] - pl[1] > 0) and np.all(np.abs(db[0]) < pl[0])))

    # Fig. 3: the range of the optimal log α0.
    reg, ranges = results["fig3"]["reg"], np.asarray(results["fig3"]["ranges"])
    width = ranges[:, 1] - ranges[:, 0]
    cmp.add("Fig. 3", "range of optimal log α0 contains 0 and narrows as λ_α grows", paper=claims["fig3"]["paper"],
            book=", ".join(f"λ={l:g}: [{lo:.2f}, {hi:.2f}]" for l, (lo, hi) in zip(reg, ranges)),
            agrees=bool(np.all(ranges[:, 0] < 0) and np.all(ranges[:, 1] > 0) and np.all(np.diff(width) < 0)))

    # Theorem 1: simulated against closed-form optima of α0.
    thm = results["theorem1"]
    step = thm["alpha0"][1] / thm["alpha0"][0]
    pairs = np.array([[s[f"{k}_argmin"], s[f"{k}_optimum"]] for s in thm["scenarios"].values() for k in ("dpe", "post")])
    fin = np.isfinite(pairs).all(axis=1)
    ok = np.isinf(pairs[~fin]).all() and np.all(np.abs(np.log(pairs[fin, 0] / pairs[fin, 1])) <= np.log(step) * 1.001)
    thm_max, cal = thm["max_z"], thm["scenarios"]["calibrated Z"]
    cmp.add("Theorem 1", "simulated optima of α0 (DPE, posterior) match the closed forms; Z = E[Q|G] gives (1 − u_Q)/v_Q twice",
            paper=claims["theorem1"]["paper"],
            book=f"calibrated Z: {cal['dpe_argmin']:.2f} and {cal['post_argmin']:.2f} (grid step ×{step:.2f}); "
                 f"losses within {thm_max:.1f} s.e. of Eqs. 57, 67", agrees=bool(ok and thm_max < 4.5))

    # Table 4: temperature scaling of Raw; Prop. 2 against the true EL.
    for c in (2, 5):
        ref, paper = paper_values(dataset, c)
        r, t = metrics[c]["Raw"], metrics[c]["Raw+ts"]
        ts_ok = t["Acc"] == r["Acc"] and t["EL"] < r["EL"] and t["CE"] < r["CE"]
        cmp.add(f"Table 4 ({c})", "ts keeps accuracy and lowers ÊL and ĈE of Raw",
                paper=f"{ref}: ÊL {paper['Raw']['EL']:.4f} → {paper['Raw+ts']['EL']:.4f}, ĈE {paper['Raw']['CE']:.4f} → {paper['Raw+ts']['CE']:.4f}",
                book=f"Acc {r['Acc']:.4f} → {t['Acc']:.4f}, ÊL {r['EL']:.4f} → {t['EL']:.4f}, ĈE {r['CE']:.4f} → {t['CE']:.4f}",
                agrees=bool(ts_ok), note="" if ts_ok else f"T = {temperatures[c]:.2f} minimises the validation NLL, "
                "not the squared-loss metrics: see the temperature scan below Table 4")
    el_gap = max(abs(m["EL"] - m["EL true"]) / m["EL true"] for c in (2, 5) for m in metrics[c].values())
    cmp.add("Prop. 2 (our check)", "unbiased ÊL from the test histograms against the true EL from Q (largest relative gap)",
            paper=claims["prop2"]["paper"], book=f"{el_gap:.1%}", agrees=bool(el_gap < 0.05))

    # Tables 4-6: α keeps the CPEs; Table 5 / 6: TTA is best.
    cpe_keys = ("Acc", "L_sq", "EL", "CE")
    same = max(abs(metrics[c][b + "+α"][k] - metrics[c][b][k]) for c in configs for b in ("Raw", "Raw+ts", "Raw+vs", "Raw+ms")
               for k in cpe_keys)
    cmp.add("Tables 4-6", "α-calibration leaves Acc, L̂sq, ÊL, ĈE of Raw (+ts/vs/ms) unchanged", paper=claims["alpha_keeps_cpes"]["paper"],
            book=f"largest difference {same:.1e}", agrees=bool(same < 1e-12))
    if "TTA" in metrics[2]:
        base = {b: metrics[2][b] for b in ("Raw", "MCDO", "TTA")}
        acc, el = ({b: m[k] for b, m in base.items()} for k in ("Acc", "EL"))
        best = max(acc, key=acc.get), min(el, key=el.get)
        t5 = reported("mimori")["table5"]["values"]["Mix-CIFAR-10(2)"]
        cmp.add("Table 5 / 6", "TTA has the best accuracy and ÊL among Raw, MCDO, TTA",
                paper="Mix-CIFAR-10(2): " + "; ".join(
                    f"{what} {_dot(t5['TTA'][k])} vs {_dot(t5['Raw'][k])}/{_dot(t5['MCDO'][k])}" for k, what in (("Acc", "Acc"), ("EL", "ÊL"))),
                book=", ".join(f"{b}: Acc {m['Acc']:.4f}, ÊL {m['EL']:.4f}" for b, m in base.items()),
                agrees=bool(best == ("TTA", "TTA")), note="" if best == ("TTA", "TTA") else
                "random rotations and shifts at test time cost this briefly trained network accuracy; the paper's TTA "
                "finding is from CIFAR-10 and MDS with long training under the same augmentation")

    # Table 1: α lowers the DPE losses.
    bases = [n for n in metrics[2] if not n.endswith("+α")]
    for c in configs:
        ref, paper = paper_values(dataset, c)
        pb = [n for n in paper if not n.endswith("+α") and n + "+α" in paper and "L_phi" in paper[n]]
        for key, what in (("L_phi", "L̂φ"), ("CE_phi", "ĈEφ")):
            ours = sum(metrics[c][n + "+α"][key] < metrics[c][n][key] for n in bases)
            theirs = sum(paper[n + "+α"][key] < paper[n][key] for n in pb)
            cmp.add(f"Table 1 ({c})" if c != "variable" else "Tables 1, 6 (MDS-like)", f"α lowers {what} of the DPEs for every base predictor",
                    paper=f"{ref}: {theirs} of {len(pb)}", book=f"{ours} of {len(bases)}", agrees=bool(ours == len(bases)),
                    note="" if ours == len(bases) else "see the table: the exceptions are ensembles")

    # Table 1 / App. F.2: temperature scaling degrades the DPEs.
    for c in (2, 5):
        ref, paper = paper_values(dataset, c)
        r, t = metrics[c]["Raw"], metrics[c]["Raw+ts"]
        worse = t["L_phi"] > r["L_phi"] and t["CE_phi"] > r["CE_phi"]
        cmp.add(f"Table 1 ({c}) / F.2", "ts degrades the DPEs of Raw (L̂φ and ĈEφ rise)",
                paper=f"{ref}: L̂φ {paper['Raw']['L_phi']:.4f} → {paper['Raw+ts']['L_phi']:.4f}, ĈEφ {paper['Raw']['CE_phi']:.4f} → {paper['Raw+ts']['CE_phi']:.4f}",
                book=f"L̂φ {r['L_phi']:.4f} → {t['L_phi']:.4f}, ĈEφ {r['CE_phi']:.4f} → {t['CE_phi']:.4f}", agrees=bool(worse))
    for c, delta in mean_delta.items():
        ref = paper_values(dataset, c)[0]
        p = PAPER_DELTA_D.get((ref.split("(")[0], None if c == "variable" else c))
        cmp.add("App. F.2", f"mean Δ^D between Raw+ts and Raw is positive ({c})", paper=f"{ref}: {p}",
                book=f"{delta:.4f} (T = {temperatures[c]:.3f})", agrees=bool(delta > 0),
                note="" if delta > 0 else "T < 1 here: ts sharpens this under-confident network")

    # Table 2: posterior CPEs.
    for c in configs:
        ref, paper = paper_values(dataset, c)
        m = metrics[c]
        drop = {n: 1 - m[n]["EL post"] / m[n]["EL"] for n in POST_ROWS if n in m}
        cmp.add(f"Table 2 ({c})", "posterior ÊL below prior ÊL for α-calibrated models",
                paper=f"{ref}: Raw+α {paper['Raw+α']['EL']:.4f} → {paper['Raw+α']['EL post']:.4f}",
                book=f"Raw+α {m['Raw+α']['EL']:.4f} → {m['Raw+α']['EL post']:.4f}; Raw+ts+α {m['Raw+ts+α']['EL']:.4f} → {m['Raw+ts+α']['EL post']:.4f}",
                agrees=bool(drop["Raw+α"] > 0 and drop["Raw+ts+α"] > 0))
        ens = max(v for n, v in drop.items() if "α" not in n)
        cmp.add(f"Table 2 ({c})", "ensembles gain less from the extra label than α (relative ÊL reduction)",
                paper=f"{ref}: Raw+α {1 - paper['Raw+α']['EL post'] / paper['Raw+α']['EL']:.0%}, MCDO {1 - paper['MCDO']['EL post'] / paper['MCDO']['EL']:.0%}",
                book=", ".join(f"{n} {v:.0%}" for n, v in drop.items()), agrees=bool(min(drop["Raw+α"], drop["Raw+ts+α"]) > ens),
                note="our ensembles use Bayes' rule (Eq. 77), the authors' code a near-uniform weighting")

    # Table 6: vector and matrix scaling on the MDS-like data.
    if "variable" in metrics:
        mv = metrics["variable"]
        t6_rows = [n for n in mv if "+vs" in n or "+ms" in n]
        lim = max(abs(mv[n]["EL"] - mv["Raw"]["EL"]) for n in t6_rows) / mv["Raw"]["EL"]
        t6 = reported("mimori")["table6"]["values"]["MDS-1"]
        t6_el = [row["EL"] for n, row in t6.items() if ("+vs" in n or "+ms" in n) and row["EL"] is not None]
        cmp.add("Table 6 (MDS-like)", "vs / ms change the CPE metrics little (largest relative ÊL change vs Raw)",
                paper=f"MDS-1: ÊL {_dot(t6['Raw']['EL'])} (Raw) vs {_dot(min(t6_el))}-{_dot(max(t6_el))}", book=f"{lim:.1%}",
                agrees=bool(lim < 0.1), note="" if lim < 0.1 else "vs / ms correct the class biases of the under-trained network, unlike on MDS")

    real = dataset in ("mnist", "cifar10")
    cmp.add("Sec. 7 (data)", "Mix-MNIST, Mix-CIFAR-10 and MDS", paper=claims["data"]["paper"],
            book=f"{data_name} with 2, 5 and 10 labels; variable counts simulated for MDS", agrees=real,
            note="" if real else "different images: compare findings, not digits")
    return cmp
