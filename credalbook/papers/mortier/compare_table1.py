r"""The Table 1 rows of the Mortier et al. (2023) chapter, judged over every (data set, seed) cell.

Each Table 1 claim of the paper rests on its ten data set × architecture rows ("¬REJ. on 9 of 10 rows"); the book
counts the same decisions over its cells (:func:`~credalbook.papers.mortier.table1_cell_results`: every data set
and seed, members trained end to end) under one named test variant, :data:`TABLE1_VARIANT` (the authors'
real-data test, which made the paper's table), and states the other variant's count beside it. The claims' words
are judged with rules of the same strength: "in general" and "most cases" as a majority, "almost never" as at most
one cell in five, "in some cases" as at least one, "often" as a majority.

The claims rest on a regime: single deep networks that are not calibrated "as in Guo et al. (2017)", i.e.
over-confident, and deep ensembles better calibrated than their single networks (the paper's Table 1: DE's average
ECE_conf below S's on 6 of its 10 rows). When the cells come from that regime
(:func:`~credalbook.papers.mortier.table1_regime_cell`), two premise rows per data set judge it first; the dependent
rows judge the cells of the data sets where both held (networks near perfect accuracy, as on scikit-learn's digits,
leave no room to show over-confidence), their notes say which held, and the cells trained briefly on all images
(under-confident) are stated beside each count as the control: the same experiment with the training changed.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook.papers.criteria import at_least, sign_claim
from credalbook.papers.premises import not_decided_by_paper, premise_undecided
from credalbook.papers.report import Comparison

__all__ = ["added_seeds_note", "judged_against_paper", "paper_differences", "table1_rows"]

ENSEMBLES = ("DN(0.1)", "DN(0.6)", "DE")
_KINDS = ("S", "DN(0.1)", "DN(0.6)", "DE")


def _paper_count(paper_rows, kinds, test) -> tuple[int, int]:
    """How many of the paper's (row, kind) decisions satisfy ``test(row[kind])``."""
    hits = [test(r[k]) for _, _, r in paper_rows for k in kinds]
    return int(sum(hits)), len(hits)


def _count(cells, kinds, variant, test) -> tuple[int, int]:
    hits = [test(c["sets"][k]["decisions"][variant]) for c in cells for k in kinds]
    return int(sum(hits)), len(hits)


def _setting(cells, variant: str) -> str:
    datasets = sorted({c["dataset"] for c in cells})
    images = sorted({str(c.get("n_train") or "all") for c in cells})
    seeds = sorted({c["seed"] for c in cells})
    epochs = ", ".join(f"{d} {e}" for d, e in sorted({(c["dataset"], c.get("epochs")) for c in cells}) if e)
    test = (
        "the authors' real-data test (Dir(1/M) null weights, caltest.py l. 87-88; instances permuted, l. 505; |t| > q)"
        if variant == "authors"
        else "Alg. 1 as printed (Dir(1) null weights, instances bootstrapped, t > q)"
    )
    return (
        f"judged under {test}, SciPy's COBYLA (its minima move with the last bits of NumPy's BLAS: the parts repeat "
        "bit for bit only under the OpenBLAS kernel their manifests name), D = 100, 5 bins, α = 0.05, on the calibration half of each test split; "
        f"cells: {', '.join(datasets)} × seeds {', '.join(map(str, seeds))}; every network (a SmallCNN body with the "
        "authors' head, dropout → linear, nnet_cpp.cpp l. 101-106) trained end to end from its own initialisation "
        f"(Adam, batches of 128, epochs {epochs or 'as configured'}: the same number of steps on each data set; "
        f"training images: {', '.join(images)} per data set; "
        "the paper fine-tunes ImageNet-pretrained MobileNetV2/VGG16 with SGD, lr 1e-5, momentum 0.99)"
    )


def _regime_cells(cmp: Comparison, cells: list, paper_rows: list, control, setting: str) -> tuple[list, list, str]:
    """The premise rows of each data set, and the cells the dependent rows judge: those of the data sets whose two
    premises held (every cell when none did); → (cells, control cells of the same data sets, the rows' note).

    The regime is a property of a data set's networks: networks near perfect accuracy (scikit-learn's digits, 99 % on
    269 test instances) leave no room to show over-confidence, so the premises are judged per data set."""
    held, said = [], []
    for ds in dict.fromkeys(c["dataset"] for c in cells):
        mine = [c for c in cells if c["dataset"] == ds]
        ctl = [c for c in control or () if c["dataset"] == ds]
        j1, j2 = _premises(cmp, mine, paper_rows, ctl, setting, ds)
        ok = j1.verdict == j2.verdict == "agrees"
        held += [ds] if ok else []
        said.append(f"{ds} {'held' if ok else 'did not hold'}")
    note = "premises (over-confident single networks, DE better calibrated than S), per data set: " + ", ".join(said)
    if not held:
        return cells, list(control or ()), note + "; no data set's held: the rows judge every cell"
    used = [c for c in cells if c["dataset"] in held]
    return used, [c for c in control or () if c["dataset"] in held], note + f"; the rows judge {', '.join(held)}"


def _premises(cmp: Comparison, cells: list, paper_rows: list, control, setting: str, dataset: str) -> tuple:
    """The two premise rows of the regime on one data set's cells (over-confident single networks; DE better
    calibrated than S); → their two judgements."""
    majority = lambda n: n // 2 + 1  # noqa: E731
    over = [c["sets"]["S"]["signed"] for c in cells]
    k = sum(v > 2 * se for v, se in over)
    values = ", ".join(f"{v:+.3f}" for v, _ in over)
    j1 = at_least(k, len(over), majority(len(over)), what="cells whose S has confidence − accuracy > 2 SE",
                  tolerance_source="'in general' read as a majority of the cells; SE from the cell's fixed bootstrap")  # fmt: skip
    j1 = premise_undecided(j1, [(c["sets"]["S"]["avg_acc"], c["sets"]["S"].get("n_test", 0)) for c in cells], z=2)
    cmp.add(
        "Table 1 (premise)",
        f"{dataset}: single networks over-confident: mean confidence − accuracy of S on the test split (> 2 SE)",
        paper="single deep networks not calibrated, 'similar findings ... (Guo et al., 2017)' (Sec. 4.2): Guo et al. "
        "find modern networks over-confident",
        book=f"over-confident in {k} of {len(over)} cells (confidence − accuracy: {values})",
        judgement=j1,
        note=setting,
    )
    kp = sum(r["DE"]["avg_ece_conf"] < r["S"]["avg_ece_conf"] for _, _, r in paper_rows)
    k2 = sum(c["s_minus_de"][0] > 0 for c in cells)
    ctl = ""
    if control:
        kc = sum(c["s_minus_de"][0] > 0 for c in control)
        ctl = f"; trained {_training(control)} (the control): {kc} of {len(control)}"
    j2 = at_least(k2, len(cells), majority(len(cells)), what="cells with ECE_conf(DE) < ECE_conf(S)",
                  tolerance_source="a majority of the cells, as in the paper's table (6 of 10 rows)")  # fmt: skip
    cmp.add(
        "Table 1 (premise)",
        f"{dataset}: deep ensemble better confidence-calibrated than the single network: average ECE_conf of DE "
        "below S's",
        paper=f"Table 1: DE's AVG. ECE_conf below S's on {kp} of {len(paper_rows)} rows",
        book=f"below on {k2} of {len(cells)} cells{ctl}",
        judgement=j2,
        note=setting,
    )
    return j1, j2


def added_seeds_note(seeds, control_seeds) -> str:
    """The words for the seeds the regime's cells have beyond the control's ("" when none): seeds added after the
    first ones left a row without enough cells to decide, the design otherwise unchanged (the preset says which).
    The rows' notes and the chapter's text both say it with these words.

    Examples
    --------
    >>> added_seeds_note(range(4), range(3))
    '; seeds 3 added to the cells after seeds 0, 1, 2 left a row of this table without enough cells to decide (the design unchanged; the control keeps seeds 0, 1, 2)'
    >>> added_seeds_note([0], [0]), added_seeds_note([0, 1], [])
    ('', '')
    """
    first = sorted(set(control_seeds))
    extra = sorted(set(seeds) - set(first))
    if not first or not extra:
        return ""
    listed = ", ".join(map(str, first))
    return (
        f"; seeds {', '.join(map(str, extra))} added to the cells after seeds {listed} left a row of this table "
        f"without enough cells to decide (the design unchanged; the control keeps seeds {listed})"
    )


def _training(cells: list) -> str:
    """How a list of cells was trained, e.g. "2 epochs on all images"."""
    epochs = sorted({c.get("epochs") for c in cells}, key=str)
    images = sorted({str(c.get("n_train") or "all") for c in cells})
    return f"{'/'.join(map(str, epochs))} epochs on {'/'.join(images)} images"


def table1_rows(
    cmp: Comparison, cells: list, claim: dict, paper_rows: list, *, variant: str = "authors", control=None
) -> None:
    """Add the Table 1 rows (decisions, ECE differences, the abstract's claim) judged over ``cells``.

    Parameters
    ----------
    cmp : Comparison
    cells : list of dict
        :func:`~credalbook.papers.mortier.table1_cell_results`.
    claim : dict
        Claim key → the paper's words (``reported.json``).
    paper_rows : list
        (data set, architecture, {set: row}) of the paper's Table 1.
    variant : {"authors", "paper"}
        The test variant the decision rows judge; the other's count is stated beside it.
    control : list of dict, optional
        Cells of the same sets trained otherwise (:func:`~credalbook.papers.mortier.table1_cell_results`), whose
        counts are stated beside each row. When ``cells`` carry signed errors (the regime's cells), the premise rows
        of each data set come first, the rows judge the cells of the data sets whose premises held (all cells when
        none did), and every row's note says which held.
    """
    other = "paper" if variant == "authors" else "authors"
    setting = _setting(cells, variant)
    if all("signed" in c["sets"]["S"] for c in cells):
        # in the premise rows' notes too: they count the same cells
        setting += added_seeds_note([c["seed"] for c in cells], [c["seed"] for c in control or ()])
        cells, control, note = _regime_cells(cmp, cells, paper_rows, control, setting)
        setting = f"{setting}; {note}"

    def beside(kinds, measure, value) -> str:
        if not control:
            return ""
        kc, nc = _count(control, kinds, variant, lambda d: d[measure] == value)
        return f"; trained {_training(control)} (the control): {kc} of {nc}"

    def decision_row(quantity, kinds, measure, value, claim_key, need_of, reading):
        k, n = _count(cells, kinds, variant, lambda d: d[measure] == value)
        ko, _ = _count(cells, kinds, other, lambda d: d[measure] == value)
        kp, np_ = _paper_count(paper_rows, kinds, lambda r: r[f"h0_{measure}"] == value)
        cmp.add(
            "Table 1",
            quantity,
            paper=f"{claim[claim_key]}: {value} on {kp} of {np_} rows",
            book=f"{value} on {k} of {n} cells ({variant} test); {ko} of {n} with the {other} test"
            f"{beside(kinds, measure, value)}",
            judgement=at_least(k, n, need_of(n), what=f"cells with {value} ({measure})", tolerance_source=reading),
            note=setting,
        )

    majority = lambda n: n // 2 + 1  # noqa: E731
    decision_row(
        "single network S rejected for ECE_conf", ("S",), "conf", "REJ.", "table1_single_rejected", majority,
        "'in general' read as a majority of the cells",
    )  # fmt: skip
    decision_row(
        "deep ensemble DE not rejected for ECE_conf", ("DE",), "conf", "¬REJ.", "table1_de_not_rejected",
        lambda n: math.ceil(0.8 * n), "'almost never rejected' read as not rejected in at least 4 of 5 cells",
    )  # fmt: skip
    decision_row(
        "DN(0.6) not rejected for ECE_conf in some cases", ("DN(0.6)",), "conf", "¬REJ.", "table1_dn06_not_rejected",
        lambda n: 1, "'in some cases' read as at least one cell",
    )  # fmt: skip
    decision_row(
        "not classwise calibrated in most cases: (set, cell) decisions rejected for ECE_cwise", _KINDS, "cwise",
        "REJ.", "table1_not_classwise", majority, "'most cases' read as a majority of the four sets × cells",
    )  # fmt: skip
    rejected = lambda d: d["conf"] == "REJ." or d["cwise"] == "REJ."  # noqa: E731
    k, n = _count(cells, ENSEMBLES, variant, rejected)
    ko, _ = _count(cells, ENSEMBLES, other, rejected)
    kp, np_ = _paper_count(paper_rows, ENSEMBLES, lambda r: r["h0_conf"] == "REJ." or r["h0_cwise"] == "REJ.")
    ctl = ""
    if control:
        kc, nc = _count(control, ENSEMBLES, variant, rejected)
        ctl = f"; trained {_training(control)} (the control): {kc} of {nc}"
    cmp.add(
        "Abstract",
        "ensembles of deep networks often not calibrated: DN(0.1), DN(0.6), DE rejected for ECE_conf or ECE_cwise",
        paper=f"{claim['abstract_often_not_calibrated']}: rejected on {kp} of {np_} ensemble rows",
        book=f"rejected on {k} of {n} (ensemble set, cell) decisions ({variant} test); {ko} of {n} with the {other} test"
        f"{ctl}",
        judgement=at_least(k, n, majority(n), what="ensemble decisions rejected",
                           tolerance_source="'often' read as a majority (the book's reading)"),
        note=setting,
    )  # fmt: skip
    _differences(cmp, cells, claim, paper_rows, variant, setting, control)


def _pooled(values) -> tuple[float, float, int]:
    """Mean difference over cells and its SE from the cells' (independent) paired bootstrap SEs."""
    v = np.array([x[0] for x in values], dtype=np.float64)
    se = np.array([x[1] for x in values], dtype=np.float64)
    return float(v.mean()), float(np.sqrt((se**2).sum()) / len(v)), len(v)


def _difference_row(
    cmp,
    diffs,
    claim: str,
    what: str,
    paper: str,
    name: str,
    note: str,
    control=None,
    evidence: str = "",
    paper_diffs=None,
) -> None:
    """A row "the mean over cells of a paired difference is below 0", from each cell's (difference, SE);
    ``control``: (the control's differences, how it was trained), stated beside; ``evidence``: more numbers of the
    same cells, appended to the book's column; ``paper_diffs``: the same difference on each of the paper's Table 1
    rows, judged first by the same criterion (their mean below 0 by 2 SE over the rows) and by a one-sided sign
    test (:func:`_paper_evidence`): when neither decides, the row is *inconclusive*, not counted against the book,
    with the book's own judgement kept in its criterion."""
    dv, dse, n = _pooled(diffs)
    lower = sum(d[0] < 0 for d in diffs)
    ctl = ""
    if control:
        cv, cse, _ = _pooled(control[0])
        ctl = f"; trained {control[1]} (the control): {cv:+.4f} (SE {cse:.4f})"
    judgement = sign_claim(dv, relation="<", se=dse, name=name, replicates=n,
                           tolerance_source="2 × the SE pooled from the cells' paired bootstraps")  # fmt: skip
    if paper_diffs is not None:
        judgement, why = judged_against_paper(judgement, paper_diffs)
        paper += f"; {why}"
    cmp.add("Table 1", claim, paper=paper,
            book=f"{what} = {dv:+.4f} (SE {dse:.4f}); lower on {lower} of {n} cells{ctl}{evidence}",
            judgement=judgement, note=note)  # fmt: skip


def judged_against_paper(judgement, paper_diffs) -> tuple:
    """``judgement`` (the book's "difference below 0") where the paper's own rows decide the claim
    (:func:`_paper_evidence`), else *inconclusive* with the book's judgement kept in its criterion
    (:func:`~credalbook.papers.premises.not_decided_by_paper`); → (judgement, the paper's evidence in words)."""
    why, decided = _paper_evidence(paper_diffs)
    if decided:
        return judgement, why
    return not_decided_by_paper(judgement, why, tolerance_source=f"{judgement.tolerance_source}; 2 × the SE over the "
                                "paper's rows"), why  # fmt: skip


def _paper_evidence(values, level: float = 0.05) -> tuple[str, bool]:
    """Whether the paper's own rows decide "the difference is below 0": their mean below 0 by more than 2 SE over
    the rows (the book's criterion), or a one-sided sign test at ``level`` (SciPy's exact binomial test); →
    (the evidence in words, decided).

    Examples
    --------
    >>> _paper_evidence([-0.02, -0.01, 0.005, -0.03])
    ("the paper's rows: mean -0.0137 ± 0.0075 (SE over 4 rows; 2 SE 0.0149), below 0 on 3 of 4 (sign test, one-sided p = 0.31)", False)
    >>> _paper_evidence([-0.05, -0.04, -0.06, -0.05, -0.04, -0.05])[1]
    True
    """
    from scipy.stats import binomtest

    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size < 2 or not np.all(np.isfinite(v)):
        raise ValueError(f"values must be at least 2 finite numbers; got {values!r}")
    mu, se = float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size))
    k = int((v < 0).sum())
    p = float(binomtest(k, v.size, 0.5, alternative="greater").pvalue)
    why = (
        f"the paper's rows: mean {mu:+.4f} ± {se:.4f} (SE over {v.size} rows; 2 SE {2 * se:.4f}), below 0 on {k} of "
        f"{v.size} (sign test, one-sided p = {p:.2g})"
    )
    return why, bool(mu < -2 * se or p < level)


def _dropout_direction(cells: list) -> str:
    """The direction of the two dropout sets' errors, where the cells keep signed errors (the regime's): the mean
    confidence − accuracy of each set's average per cell, and the range over the cells of its members' (empty
    otherwise). It shows where the average's error comes from; it is not a computed cause of a difference.

    Examples
    --------
    >>> def cell(avg, lo, hi):
    ...     return {"signed": [avg, 0.004], "member_signed": [lo, hi]}
    >>> cells = [{"sets": {"DN(0.1)": cell(0.014, 0.022, 0.027), "DN(0.6)": cell(-0.067, -0.015, -0.003)}}]
    >>> _dropout_direction(cells)
    '; confidence − accuracy of the average (per cell): DN(0.1) +0.014, DN(0.6) -0.067; of the members (range over the cells): DN(0.1) +0.022 to +0.027, DN(0.6) -0.015 to -0.003'
    """
    kinds = ("DN(0.1)", "DN(0.6)")
    if not cells or not all("signed" in c["sets"].get(k, {}) for c in cells for k in kinds):
        return ""
    avg = ", ".join(f"{k} " + " / ".join(f"{c['sets'][k]['signed'][0]:+.3f}" for c in cells) for k in kinds)
    members = ", ".join(
        f"{k} {min(c['sets'][k]['member_signed'][0] for c in cells):+.3f} to "
        f"{max(c['sets'][k]['member_signed'][1] for c in cells):+.3f}"
        for k in kinds
    )
    return f"; confidence − accuracy of the average (per cell): {avg}; of the members (range over the cells): {members}"


def paper_differences(paper_rows) -> dict:
    """The two Table 1 differences on each of the paper's rows: ``"dn"`` ECE_conf of DN(0.6)'s average minus
    DN(0.1)'s, ``"de"`` the deep ensemble's weighted average minus its average (both below 0 in the paper's claims).

    Examples
    --------
    >>> row = {"DN(0.6)": {"avg_ece_conf": 0.02}, "DN(0.1)": {"avg_ece_conf": 0.05},
    ...        "DE": {"ece_conf": 0.01, "avg_ece_conf": 0.03}}
    >>> {k: [round(v, 6) for v in d] for k, d in paper_differences([("CIFAR-10", "MOB", row)]).items()}
    {'dn': [-0.03], 'de': [-0.02]}
    """
    return {
        "dn": [r["DN(0.6)"]["avg_ece_conf"] - r["DN(0.1)"]["avg_ece_conf"] for _, _, r in paper_rows],
        "de": [r["DE"]["ece_conf"] - r["DE"]["avg_ece_conf"] for _, _, r in paper_rows],
    }


def _differences(cmp, cells, claim, paper_rows, variant, setting, control=None) -> None:
    ctl = lambda f: (f(control), _training(control)) if control else None  # noqa: E731
    paper = paper_differences(paper_rows)
    pd = paper["dn"]
    kp = sum(d < 0 for d in pd)
    _difference_row(
        cmp, [c["dn"] for c in cells],
        "DN(0.6) better confidence-calibrated than DN(0.1): average ECE_conf on the test split, mean over cells",
        "DN(0.6) − DN(0.1)", f"{claim['table1_dropout_rate']}: lower on {kp} of {len(paper_rows)} rows",
        "mean ECE_conf(DN(0.6)) − ECE_conf(DN(0.1))", setting, ctl(lambda cs: [c["dn"] for c in cs]),
        _dropout_direction(cells), paper_diffs=pd,
    )  # fmt: skip
    pd = paper["de"]
    kp = sum(d < 0 for d in pd)
    _difference_row(
        cmp, [c["de"][variant] for c in cells],
        "DE: weighted average better calibrated than the average (ECE_conf, test split), mean over cells",
        "weighted − average", f"{claim['table1_de_difference']}: weighted lower on {kp} of {len(paper_rows)} rows",
        "mean ECE_conf(weighted) − ECE_conf(average)",
        setting + "; λ of the judged variant's ECE_conf test, fitted on the calibration half",
        ctl(lambda cs: [c["de"][variant] for c in cs]), paper_diffs=pd,
    )  # fmt: skip
