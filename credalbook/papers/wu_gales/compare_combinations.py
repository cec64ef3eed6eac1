"""The "Paper vs. this book" rows of Wu & Gales' combinations of topology ensembles: Tables 2, 6, 7 and Fig. 2
(rows only for the topology sets the book ran), judged as :mod:`credalbook.papers.wu_gales.compare` says.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from credalbook.papers.criteria import AGREES, Judgement, ordered, sign_claim
from credalbook.papers.report import Comparison
from credalbook.papers.wu_gales.reported import WG_PAPER_COMBINATION
from credalbook.papers.wu_gales.resampling import paired_estimate
from credalbook.papers.wu_gales.rows import _need, _where, _Z, count_rule

__all__: list = []


def _paper_combination(table: str, weighting: str, structure, ensemble) -> dict:
    """Paper rows of ``table`` with this configuration: topologies -> row (first row wins)."""
    rows: dict = {}
    for r in WG_PAPER_COMBINATION:
        if (r["table"], r["weighting"], r["structure"], r["ensemble"]) == (table, weighting, structure, ensemble):
            rows.setdefault(r["topologies"], r)
    return rows


def _diff(by, a, b) -> tuple[float, float]:
    """ECE(a) − ECE(b) (1e-2) of two combinations and its paired bootstrap SE."""
    ca, cb = by[a], by[b]
    return paired_estimate(
        [100 * ca["ece"]],
        100 * np.asarray(ca["ece_boot"])[:, None],
        [100 * cb["ece"]],
        100 * np.asarray(cb["ece_boot"])[:, None],
    )


def _comb_sign(by, a, b, relation, name) -> Judgement:
    d, se = _diff(by, a, b)
    return sign_claim(
        d,
        relation=relation,
        se=se,
        z=_Z,
        name=name,
        tolerance_source=f"{_Z:g} × SE: bootstrap over the test instances (paired); one fit on the "
        f"validation set, whose noise this SE does not cover",
    )


def _sets(tabled: Mapping, by: Mapping, key) -> list:
    """The topology sets the book ran, without a set whose combination equals an earlier one's (the same
    topologies with weight above 0.005, the same weights to 0.005: e.g. a topology given Max-LL weight 0)."""
    out, seen = [], []
    for s in tabled:
        if key(s) not in by:
            continue
        w = np.asarray(by[key(s)]["weights"], dtype=float)
        kept = {t: float(v) for t, v in zip(s, w) if v > 0.005}
        if any(kept.keys() == k.keys() and all(abs(kept[t] - k[t]) <= 0.005 for t in kept) for k in seen):
            continue
        seen.append(kept)
        out.append(s)
    return out


#: The cause of the rows that rest on LeNet being the far weaker member, on today's members.
LENET_CAUSE = "The members: four topologies (LeNet is not the weakest member here)"


def _topologies(cmp: Comparison, results: Mapping, paper: dict) -> None:
    """Tables 2, 6, 7 and Fig. 2: rows whose topology sets the book ran. The rows on LeNet's part name the members
    as their cause (:data:`LENET_CAUSE`), except on the regime's members (``networks == "regime"``), whose premise
    rows judge LeNet."""
    lenet_cause = "" if results["networks"] == "regime" else LENET_CAUSE
    F = paper["findings"]
    by = {(tuple(c["topologies"]), c["weighting"], c["structure"], c["ensemble"]): c for c in results["combinations"]}
    where = _where(results)
    _table2_weights(cmp, by, F, where, lenet_cause)
    _fig2_gap(cmp, by, F, where)
    _ensemble_post(cmp, by, "2", "ml", "Table 2 / Fig. 2", F["fig2"]["quote"], where)
    _ensemble_post(cmp, by, "6", "auc", "Table 6", F["table6"]["quote"], where)
    _table7(cmp, by, F, where, lenet_cause)


def _table2_weights(cmp: Comparison, by: Mapping, F: dict, where: str, lenet_cause: str) -> None:
    """Table 2: the Max-LL weight of LeNet below RSN's."""
    ml2 = _paper_combination("2", "ml", "post", None)
    full = max(ml2, key=len)
    if (full, "ml", "post", None) in by and {"LEN", "RSN"} <= set(full):
        c = by[(full, "ml", "post", None)]
        w, se = dict(zip(full, c["weights"])), dict(zip(full, c["weights_se"]))
        pw = ml2[full]["weights"]
        j = ordered(
            w["LEN"],
            w["RSN"],
            relation="<",
            se_a=se["LEN"],
            se_b=se["RSN"],
            z=_Z,
            names=("LEN weight", "RSN weight"),
            tolerance_source=f"{_Z:g} × SE of the weights: bootstrap over the validation set",
        )
        cmp.add(
            "Table 2",
            "Max-LL weights of the four topologies: LeNet's below RSN's",
            paper=", ".join(f"{t} {pw[t]:.2f}" for t in full),
            book=", ".join(f"{t} {w[t]:.2f}" for t in full),
            judgement=j,
            cause=lenet_cause,
            keep_cause=True,
            note=f"the paper reads nothing into the weights beyond Sec. 4.1's {F['table2']['quote']!r}; {where}",
        )


def _fig2_gap(cmp: Comparison, by: Mapping, F: dict, where: str) -> None:
    """Fig. 2: the Max-LL combination of the calibrated structures under-confident, its reliability curve above
    the diagonal (confidence − accuracy < 0)."""
    full = max(_paper_combination("2", "ml", "post", None), key=len)
    key = (full, "ml", "post", None)
    if key not in by:
        return
    quantity = (
        "the Max-LL combination of the calibrated structures is under-confident: confidence − accuracy (pp) < 0 "
        "(its reliability curve above the diagonal)"
    )
    paper = "'typically slightly above the diagonal' (Fig. 2, a figure: no number, no spread)"
    c = by[key]
    if "gap" not in c:
        cmp.not_run(
            "Fig. 2",
            quantity,
            paper=paper,
            reason="the results hold no confidence − accuracy of the combination (a record made before it was kept)",
            tested_by="tests/papers/wu_gales/test_compare.py::TestCompare::test_fig2_gap",
        )
        return
    gap, se = 100 * float(c["gap"]), 100 * float(c["gap_se"])
    cmp.add(
        "Fig. 2",
        quantity,
        paper=paper,
        book=f"{gap:+.2f} ± {se:.2f}",
        judgement=sign_claim(
            gap,
            relation="<",
            se=se,
            z=_Z,
            name="confidence − accuracy (pp)",
            tolerance_source=f"{_Z:g} × SE over the test instances; one fit on the validation set",
        ),
        note=f"'typically above the diagonal' read as the curve's count-weighted mean below it (the global signed "
        f"error); structures calibrated with post, {'+'.join(full)}; quote: {F['fig2']['quote']!r}; {where}",
    )


def _ensemble_post(
    cmp: Comparison, by: Mapping, table: str, weighting: str, label: str, quote: str, where: str
) -> None:
    """Table 2 / Fig. 2 (Max-LL weights) or Table 6 (AUC weights): ensemble calibration (post) lowers the ECE of
    the combination of calibrated structures."""
    before = _paper_combination(table, weighting, "post", None)
    after = _paper_combination(table, weighting, "post", "post")
    paper_k = sum(after[s]["ece"] < r["ece"] for s, r in before.items())
    sets = _sets(before, by, lambda s, w=weighting: (s, w, "post", "post"))
    if not sets:
        return
    parts = {
        "+".join(s): _comb_sign(
            by, (s, weighting, "post", "post"), (s, weighting, "post", None), "<", "ECE(ens. post) − ECE(none) (1e-2)"
        )
        for s in sets
    }
    cmp.add(
        label,
        f"ensemble calibration (post) lowers the ECE of the {weighting.upper() if weighting == 'auc' else 'Max-LL'}"
        f" combination of calibrated structures (topology sets)",
        paper=f"{paper_k} of {len(before)} sets",
        book=f"{sum(j.verdict == AGREES for j in parts.values())} of {len(sets)} sets",
        judgement=count_rule(parts, _need(paper_k, len(before), len(sets)), what="topology sets"),
        note=f"quote: {quote!r}; {where}",
    )


def _table7(cmp: Comparison, by: Mapping, F: dict, where: str, lenet_cause: str) -> None:
    """Table 7 (and App. A.4): dyn. ensemble calibration below post; LeNet worsens a uniform combination."""
    uni7 = {k: _paper_combination("7", "uniform", None, k) for k in (None, "post", "dyn")}
    paper_dyn = sum(r["ece"] < uni7["post"][s]["ece"] for s, r in uni7["dyn"].items())
    sets7 = _sets(uni7["dyn"], by, lambda s: (s, "uniform", None, "dyn"))
    if sets7:
        parts = {
            "+".join(s): _comb_sign(
                by, (s, "uniform", None, "dyn"), (s, "uniform", None, "post"), "<", "ECE(dyn.) − ECE(post) (1e-2)"
            )
            for s in sets7
        }
        cmp.add(
            "Table 7",
            "dyn. ensemble calibration has a lower ECE than post (uniform weights, topology sets)",
            paper=f"{paper_dyn} of {len(uni7['dyn'])}",
            book=f"{sum(j.verdict == AGREES for j in parts.values())} of {len(sets7)}",
            judgement=count_rule(parts, _need(paper_dyn, len(uni7["dyn"]), len(sets7)), what="topology sets"),
            note=f"quote: {F['table7']['quote']!r}; {where}",
        )
    uniform = sorted(uni7[None], key=len)  # without LeNet, then all four
    small, big = uniform[0], uniform[-1]
    if (
        (big, "uniform", None, None) in by
        and (small, "uniform", None, None) in by
        and "LEN" in big
        and "LEN" not in small
    ):
        with_len, without = by[(big, "uniform", None, None)]["ece"], by[(small, "uniform", None, None)]["ece"]
        j = _comb_sign(
            by,
            (big, "uniform", None, None),
            (small, "uniform", None, None),
            ">",
            "ECE(with LeNet) − ECE(without) (1e-2)",
        )
        cmp.add(
            "Table 7 / App. A.4",
            "adding LeNet to a uniform combination worsens its ECE (1e-2)",
            paper=f"{uni7[None][big]['ece']:.2f} vs {uni7[None][small]['ece']:.2f}",
            book=f"{100 * with_len:.2f} vs {100 * without:.2f}",
            judgement=j,
            cause=lenet_cause,
            keep_cause=True,
            note=f"on CIFAR-100 LeNet is far weaker and less over-confident than the deep members; the paper states "
            f"this in numbers only ({F['lenet']['source']}): its sentence on LeNet is about ensembling copies of one "
            f"topology (the Table 4 → 5 row){_lenet_calibrated(by, big, small)}; {where}",
        )
    _table7_structures(cmp, by, where)


def _lenet_calibrated(by: Mapping, big: tuple, small: tuple) -> str:
    """Table 7's other uniform rows, structures calibrated first (post, dyn.): with LeNet vs without, ours and the
    paper's, for the note (not judged)."""
    cells = []
    for mode in ("post", "dyn"):
        paper = _paper_combination("7", "uniform", mode, None)
        if (big, "uniform", mode, None) in by and (small, "uniform", mode, None) in by and {big, small} <= set(paper):
            cells.append(
                f"{mode} {100 * by[(big, 'uniform', mode, None)]['ece']:.2f} vs "
                f"{100 * by[(small, 'uniform', mode, None)]['ece']:.2f} (paper {paper[big]['ece']:.2f} vs "
                f"{paper[small]['ece']:.2f})"
            )
    if not cells:
        return ""
    return "; with the structures calibrated first (Table 7's other uniform rows; not judged): " + ", ".join(cells)


def _table7_structures(cmp: Comparison, by: Mapping, where: str) -> None:
    """Table 7: calibrating the structures alone leaves a higher ECE than calibrating the ensemble alone."""
    parts, book, paper_cells = {}, [], []
    for mode in ("post", "dyn"):
        alone = _paper_combination("7", "uniform", mode, None)
        ens = _paper_combination("7", "uniform", None, mode)
        for s in ens:
            if s in alone and (s, "uniform", mode, None) in by and (s, "uniform", None, mode) in by:
                key = f"{'+'.join(s)} {mode}"
                parts[key] = _comb_sign(
                    by,
                    (s, "uniform", mode, None),
                    (s, "uniform", None, mode),
                    ">",
                    f"ECE(structures {mode}) − ECE(ensemble {mode}) (1e-2)",
                )
                book.append(
                    f"{key}: {100 * by[(s, 'uniform', mode, None)]['ece']:.2f} vs "
                    f"{100 * by[(s, 'uniform', None, mode)]['ece']:.2f}"
                )
                paper_cells.append(f"{key}: {100 * alone[s]['ece']:.2f} vs {100 * ens[s]['ece']:.2f}")
    if parts:
        cmp.add(
            "Table 7",
            "calibrating the structures alone leaves a higher ECE (1e-2) than calibrating the ensemble alone "
            "(uniform weights)",
            paper="; ".join(paper_cells),
            book="; ".join(book),
            judgement=count_rule(parts, len(parts), what="configurations", source="the paper's Table 7, every pair"),
            note=f"the paper prints no spread for Table 7; {where}",
        )
