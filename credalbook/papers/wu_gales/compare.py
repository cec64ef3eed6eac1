"""The "Paper vs. this book" rows of the Wu & Gales chapter, from a plain results dict.

The chapter assembles its results (numbers, small arrays and plain dicts, no model objects) and
:func:`compare` turns them into the rows of its comparison table, the paper's side read from
``reported.json`` through :func:`credalbook.papers.report.reported`.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.report import check_results, Comparison, reported
from credalbook.papers.wu_gales.reported import wg_paper_reference, WG_PAPER_COMBINATION

__all__ = ["compare", "RESULT_KEYS"]

#: The keys :func:`compare` reads from ``results``.
RESULT_KEYS = ("dataset", "networks", "example1", "toys", "propositions", "fig1", "ensemble", "single", "fig3",
               "topologies", "validation_accuracy", "combinations")

_CHAPTER = "04_wu_gales_ensemble_calibration"


def compare(results: Mapping, *, chapter: str = _CHAPTER) -> Comparison:
    """The chapter's comparison rows: App. A.3 toys, Eq. 18 and Props. 1-4, Fig. 1, Tables 1/5 and 3/4,
    Fig. 3 and Tables 2, 6, 7.

    Parameters
    ----------
    results : mapping
        What the chapter measured, with the keys of ``RESULT_KEYS``:

        * ``dataset`` (str), ``networks`` (str): where the numbers come from (for the notes);
        * ``example1``: ``tau``, ``ace`` and ``ece`` of Example 1 at ε = 0 (here and below ``ace`` is the
          paper's all-label ACE, :func:`credalbook.metrics.all_label_ece`, not :func:`credalbook.metrics.ace`);
        * ``toys``: ``alg1_ace``, ``alg1_samples``, ``member_ace``, ``ensemble_ace`` and ``ensemble_ece``
          (arrays over ε, the last at ε = 1/2), ``alg2_sample_ace``, ``alg2_true_ace``;
        * ``propositions``: topology -> ``min_confidence_gap``, ``region_ensemble_confidence`` and
          ``region_member_confidence`` (arrays over the regions), ``ensemble_gap``, ``prop2_error``,
          ``prop4`` (dict, empty when no instance allowed the Prop. 4 change);
        * ``fig1``: topology -> the Fig. 1 table row (``"members' optimal t (mean)"``,
          ``"ensemble's optimal t"``, ``"its confidence − accuracy"``,
          ``"ensemble accuracy range over t ∈ [1/2, 2]"``);
        * ``ensemble``: ``ece`` (topology -> method -> mean ECE), ``accuracy`` (topology -> mean
          accuracy without calibration), ``accuracy_kept`` (bool: post and dyn. kept every run's
          accuracy), ``ece_floor`` ((mean, sd) in 1e-2);
        * ``single``: topology -> ``ece_none``, ``ece_ts``, ``accuracy`` (means over the members);
        * ``fig3``: ``ece_one_region``, ``ece_most_regions`` (mean test ECE over the deep topologies);
        * ``topologies``: the topologies in training order; ``validation_accuracy``: topology -> accuracy;
        * ``combinations``: a list of dicts with ``topologies`` (tuple), ``weighting``, ``structure``,
          ``ensemble``, ``ece`` and ``weights``, in the order they were computed.
    chapter : str
        The chapter's file stem, naming the saved JSON file.

    Returns
    -------
    Comparison
        The rows, in the chapter's order; ``save`` and display them as any other.

    Examples
    --------
    The chapter passes everything it measured; a dict without them is refused:

    >>> compare({"dataset": "cifar100", "networks": "paper"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: results is missing the keys ['example1', 'toys', ...] (it needs [...])
    """
    check_results(results, RESULT_KEYS)
    paper = reported("wu_gales")
    claims, findings = paper["claims"], paper["findings"]
    ref = wg_paper_reference(results["dataset"])
    cmp = Comparison(chapter)
    _toys(cmp, results, paper, claims)
    _propositions(cmp, results["propositions"], claims)
    _fig1(cmp, results["fig1"], findings)
    floor_note = _ensembles(cmp, results, ref, claims)
    _fig3(cmp, results["fig3"], findings, floor_note)
    _topologies(cmp, results)
    return cmp


def _toys(cmp: Comparison, results: Mapping, paper: dict, claims: dict) -> None:
    ex, toy = results["example1"], results["toys"]
    tau = ex["tau"]
    cmp.add("App. A.3, Ex. 1", "all-label calibrated, not top-label calibrated: ACE, ECE at ε = 0",
            paper=f"{paper['example1']['ace']}, {paper['example1']['ece']} = {tau / 3:.4f}",
            book=f"{ex['ace']:.3g}, {ex['ece']:.4f}",
            agrees=bool(ex["ace"] < 1e-12 and abs(ex["ece"] - tau / 3) < 1e-12))
    alg1 = float(paper["alg1"]["ensemble_ace"])
    cmp.add("App. A.3, Alg. 1 / Fig. 4", "ACE of the ensemble of calibrated members (K=4, M=10, b=2, ε=1/30)",
            paper=alg1, book=toy["alg1_ace"], agrees=bool(abs(toy["alg1_ace"] - alg1) < 2e-3),
            note=f"N = {toy['alg1_samples']:,} (paper 10⁶)")
    ens_ace, ens_ece = toy["ensemble_ace"][-1], toy["ensemble_ece"][-1]
    cmp.add("Fig. 4", "members ACE = ECE = 0; ensemble ACE → 0 at ε = 1/2 while its ECE stays",
            paper=claims["fig4"]["paper"], book=f"ACE {ens_ace:.1e}, ECE {ens_ece:.4f}",
            agrees=bool(np.max(toy["member_ace"]) < 1e-12 and ens_ace < 1e-12 < ens_ece))
    alg2 = paper["alg2"]
    theory = float(alg2["theoretical_ace"])
    cmp.add("App. A.3, Alg. 2", "sample ACE vs ACE against the true distribution",
            paper=f"{alg2['sample_ace']} vs {alg2['theoretical_ace_text']} = {theory:.4f}",
            book=f"{toy['alg2_sample_ace']:.3g} vs {toy['alg2_true_ace']:.4f}",
            agrees=bool(toy["alg2_sample_ace"] == 0 and abs(toy["alg2_true_ace"] - theory) < 0.01))


def _propositions(cmp: Comparison, props: Mapping, claims: dict) -> None:
    gaps = {t: p["ensemble_gap"] for t, p in props.items()}
    cmp.add("Eq. 18 / 23", "ensemble never more confident than its members (every instance and region)",
            paper=claims["eq18"]["paper"], book=f"min gap {min(p['min_confidence_gap'] for p in props.values()):.2e}",
            agrees=bool(all(p["min_confidence_gap"] >= -1e-12
                            and np.all(np.asarray(p["region_ensemble_confidence"])
                                       <= np.asarray(p["region_member_confidence"]) + 1e-12)
                            for p in props.values())))
    cmp.add("Prop. 1", "calibrated members → under-confident ensemble (conf. − acc. of the ensemble, per topology)",
            paper=claims["prop1"]["paper"], book=", ".join(f"{t} {g:.3f}" for t, g in gaps.items()),
            agrees=bool(all(g < 0 for g in gaps.values())),
            note="members calibrated on the validation set, gaps on the test set")
    prop2 = max(p["prop2_error"] for p in props.values())
    cmp.add("Prop. 2", "ensemble's global class gaps = mean of the members' (max error)",
            paper=claims["prop2"]["paper"], book=prop2, agrees=bool(prop2 < 1e-12))
    p4 = [p["prop4"] for p in props.values() if p["prop4"]]
    cmp.add("Prop. 4", "non-top-label change: member unchanged, ensemble confidence up by τ/M",
            paper=claims["prop4"]["paper"], book=f"{len(p4)} of {len(props)} ensembles",
            agrees=bool(p4 and all(d["member_confidence_change"] == 0 and not d["ensemble_label_changed"] for d in p4)))


def _fig1(cmp: Comparison, fig1: Mapping, findings: dict) -> None:
    n_lower = sum(r["ensemble's optimal t"] < r["members' optimal t (mean)"] for r in fig1.values())
    n_under = sum(r["its confidence − accuracy"] < 0 for r in fig1.values())
    cmp.add("Fig. 1", "ensemble's optimal temperature below the members' (topologies)",
            paper=findings["fig1_temperature"]["paper"], book=f"{n_lower} of {len(fig1)}",
            agrees=bool(n_lower == len(fig1)))
    cmp.add("Fig. 1", "ensemble of calibrated members under-confident (topologies)",
            paper=findings["fig1_reliability"]["paper"], book=f"{n_under} of {len(fig1)}",
            agrees=bool(n_under == len(fig1)))
    flat = max(r["ensemble accuracy range over t ∈ [1/2, 2]"] for r in fig1.values())
    cmp.add("Fig. 1", "ensemble accuracy robust to member temperature: largest range over t ∈ [1/2, 2]",
            paper=findings["fig1_accuracy"]["paper"], book=flat, agrees=bool(flat < 0.02))


def _ensembles(cmp: Comparison, results: Mapping, ref: dict, claims: dict) -> str:
    ens, name = results["ensemble"], ref["ensemble_name"]
    ece_means, table = ens["ece"], ref["ensemble"]
    n_topo, n_paper = len(ece_means), len(table)
    n_improved = sum(all(r[m] < r["none"] for m in ("pre", "post", "dyn")) for r in ece_means.values())
    n_post_pre = sum(min(r["post"], r["dyn"]) < r["pre"] for r in ece_means.values())
    n_dyn_best = sum(min(r, key=r.get) == "dyn" for r in ece_means.values())
    paper_improved = sum(all(r[m]["ece"][0] < r["none"]["ece"][0] for m in ("pre", "post", "dyn")) for r in table.values())
    paper_post_pre = sum(min(r["post"]["ece"][0], r["dyn"]["ece"][0]) < r["pre"]["ece"][0] for r in table.values())
    paper_dyn_best = sum(min(r, key=lambda m: r[m]["ece"][0]) == "dyn" for r in table.values())
    floor_mean, floor_sd = ens["ece_floor"]
    floor_note = f"ECE of an exactly calibrated ensemble here: {floor_mean:.2f} ± {floor_sd:.2f}"
    cmp.add(name, "post and dyn. never change accuracy", paper=claims["post_dyn_accuracy"]["paper"],
            book=ens["accuracy_kept"], agrees=bool(ens["accuracy_kept"]))
    cmp.add(name, "pre, post and dyn. all lower the ensemble's ECE (topologies)",
            paper=f"{paper_improved} of {n_paper}",
            book=f"{n_improved} of {n_topo}", agrees=bool(n_improved >= n_topo - 1))
    cmp.add(name, "post or dyn. better than pre (ECE; topologies)",
            paper=f"{paper_post_pre} of {n_paper}",
            book=f"{n_post_pre} of {n_topo}", agrees=bool(n_post_pre >= n_topo - 1))
    cmp.add(name, "dyn. has the lowest ECE (topologies)", paper=f"{paper_dyn_best} of {n_paper}",
            book=f"{n_dyn_best} of {n_topo}", agrees=bool(n_dyn_best >= 1), note=floor_note)
    for t, r in ece_means.items():
        pr = table[t]
        cmp.add(name, f"{t}: ECE (1e-2) none → dyn.; accuracy (%)",
                paper=f"{pr['none']['ece'][0]} → {pr['dyn']['ece'][0]}; {pr['none']['accuracy'][0]}",
                book=f"{100 * r['none']:.2f} → {100 * r['dyn']:.2f}; {100 * ens['accuracy'][t]:.2f}",
                agrees=bool(r["dyn"] < r["none"]), note=f"{results['dataset']}, {results['networks']} networks")
    single = results["single"]
    ts_gain = sum(s["ece_ts"] < s["ece_none"] for s in single.values())
    cmp.add(ref["single_name"], "temperature scaling lowers a single model's ECE (topologies)",
            paper=claims["single_temperature_scaling"]["paper"], book=f"{ts_gain} of {len(single)}",
            agrees=bool(ts_gain == len(single)))
    acc1 = {t: s["accuracy"] for t, s in single.items()}
    paper_acc = {t: v["none"]["accuracy"][0] for t, v in ref["single"].items()}
    cmp.add(ref["single_name"], "single-model accuracy (%), LEN vs the best deep topology",
            paper=f"{paper_acc['LEN']} vs {max(paper_acc.values())}",
            book=f"{100 * acc1['LEN']:.1f} vs {100 * max(acc1.values()):.1f}",
            agrees=bool(max(acc1.values()) - acc1["LEN"] > 0.05),
            note=f"{results['dataset']}: LeNet is not clearly weaker on this data")
    return floor_note


def _fig3(cmp: Comparison, fig3: Mapping, findings: dict, floor_note: str) -> None:
    r_one, r_max = fig3["ece_one_region"], fig3["ece_most_regions"]
    cmp.add("Fig. 3", "more regions improve dyn.: mean test ECE (1e-2), R = 1 vs the largest R",
            paper=findings["fig3"]["paper"], book=f"{100 * r_one:.2f} vs {100 * r_max:.2f}",
            agrees=bool(r_max < r_one), note=floor_note)


def _paper_combination(table: str, weighting: str, structure, ensemble) -> dict:
    """Paper rows of ``table`` with this configuration: topologies -> row (first row wins)."""
    rows: dict = {}
    for r in WG_PAPER_COMBINATION:
        if (r["table"], r["weighting"], r["structure"], r["ensemble"]) == (table, weighting, structure, ensemble):
            rows.setdefault(r["topologies"], r)
    return rows


def _topologies(cmp: Comparison, results: Mapping) -> None:
    """Tables 2, 6, 7 and Fig. 2; the paper's side from its rows with all four topologies."""
    topos = tuple(results["topologies"])
    by = {(tuple(c["topologies"]), c["weighting"], c["structure"], c["ensemble"]): c for c in results["combinations"]}
    val_acc = results["validation_accuracy"]
    strongest = max(val_acc, key=val_acc.get)
    ml_all, auc_all = by[(topos, "ml", "post", None)]["weights"], by[(topos, "auc", "post", None)]["weights"]

    ml2, ml2_cal = _paper_combination("2", "ml", "post", None), _paper_combination("2", "ml", "post", "post")
    auc6 = _paper_combination("6", "auc", "post", None)
    ml_paper = max(ml2.values(), key=lambda r: len(r["topologies"]))["weights"]
    auc_paper = max(auc6.values(), key=lambda r: len(r["topologies"]))["weights"]
    top, low = max(ml_paper, key=ml_paper.get), min(ml_paper, key=ml_paper.get)
    cmp.add("Table 2", "Max-LL weights favour the strongest topology (most accurate on the validation set)",
            paper=f"{top} {ml_paper[top]:.2f}, {low} {ml_paper[low]:.2f}",
            book=", ".join(f"{t} {w:.2f}" for t, w in zip(topos, ml_all)),
            agrees=bool(topos[int(np.argmax(ml_all))] == strongest))
    cmp.add("Table 6", "AUC weights more even than Max-LL weights (largest − smallest weight)",
            paper=f"{np.ptp(list(auc_paper.values())):.2f} vs {np.ptp(list(ml_paper.values())):.2f}",
            book=f"{np.ptp(auc_all):.2f} vs {np.ptp(ml_all):.2f}", agrees=bool(np.ptp(auc_all) < np.ptp(ml_all)))

    paper_gain = sum(ml2_cal[s]["ece"] < r["ece"] for s, r in ml2.items())
    sets2 = [k[0] for k in by if k[1:] == ("ml", "post", None)]
    cal_gain = sum(by[(s, "ml", "post", "post")]["ece"] < by[(s, "ml", "post", None)]["ece"] for s in sets2)
    cmp.add("Table 2 / Fig. 2", "ensemble calibration lowers the ECE of the Max-LL combination of calibrated structures",
            paper=f"all {len(ml2)} sets" if paper_gain == len(ml2) else f"{paper_gain} of {len(ml2)} sets",
            book=f"{cal_gain} of {len(sets2)} sets", agrees=bool(cal_gain == len(sets2)))

    uni7 = {k: _paper_combination("7", "uniform", None, k) for k in (None, "post", "dyn")}
    paper_dyn = sum(r["ece"] <= uni7["post"][s]["ece"] for s, r in uni7["dyn"].items())
    sets7 = [s for s in (topos, topos[1:]) if (s, "uniform", None, "dyn") in by]
    dyn_wins = sum(by[(s, "uniform", None, "dyn")]["ece"] <= by[(s, "uniform", None, "post")]["ece"] for s in sets7)
    cmp.add("Table 7", "dyn. ensemble calibration at least as good as post (uniform weights, topology sets)",
            paper=f"{paper_dyn} of {len(uni7['dyn'])}", book=f"{dyn_wins} of {len(sets7)}",
            agrees=bool(dyn_wins == len(sets7)))
    uniform = sorted(uni7[None].values(), key=lambda r: len(r["topologies"]))  # without LeNet, then all four
    paper_without, paper_len = uniform[0]["ece"], uniform[-1]["ece"]
    with_len, without = (by[(s, "uniform", None, None)]["ece"] for s in (topos, topos[1:]))
    cmp.add("Table 7", "adding LeNet to a uniform combination worsens its ECE (1e-2)",
            paper=f"{paper_len:.2f} vs {paper_without:.2f}",
            book=f"{100 * with_len:.2f} vs {100 * without:.2f}", agrees=bool(with_len > without),
            note="" if with_len > without else "on CIFAR-100 LeNet is far weaker than the deep members; here it is not")
