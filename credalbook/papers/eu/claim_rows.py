"""The rows of the EU chapter for the paper's sentences beyond Tables 1-2's numbers: Fig. 3's and Fig. 4's
sentences, the ranking and conclusion claims, and the Fashion-MNIST analogue of Sec. 5.4.1 (used by
:func:`credalbook.papers.eu.compare`; the criteria are those of ``credalbook.papers.eu.judges``).
"""

from __future__ import annotations

import numpy as np

from credalbook.papers.criteria import combine, INCONCLUSIVE, Judgement
from credalbook.papers.eu.judges import decides_text, one_sided, paper_decides, unless_paper_undecided, welch_one_sided
from credalbook.papers.eu.reported import EU_ESTIMATORS, EU_PAPER_TABLE1, EU_PAPER_TABLE2
from credalbook.papers.eu.toy_data import TOY_KEPT_FRACTIONS
from credalbook.papers.report import Comparison, count_of

_NAMES = {"rho_epi": "ρ_epi", "eece": "EECE", "calibrated_eece": "calibrated EECE"}

#: "A gain of 0" (Sec. 5.4.1, Fig. 4), read as within this distance of 0: the paper calls a difference of 0.0063
#: between Ê_M and the gain on K-49 estimating "the accuracy gain curve quite well" (Sec. 5.4.1).
_ZERO = 0.0063
#: The paper's sentences that had no row before, quoted verbatim (the paper's math written as Ê_M and Ê_E).
_MORE = {
    # Sec. 5.3.1, text below Table 1
    "ranking": "In general, we would expect the method with the higher epistemic correlation to be better suited to "
    "calibration, since calibration only depends on the quality of the ranking produced by the EU estimator.",
    # Sec. 5.3.1, text on Fig. 3
    "increasing": "the increasing trends verify their positive correlation with the accuracy gain",
    "harder": "the larger intervals tend to be more difficult to estimate, as indicated by the larger standard deviation",
    "overlap": "Notably, Ê_E performs better than Ê_M, with the red and yellow curves almost completely overlapping on "
    "the first 7 intervals.",
    # Sec. 5.4.1, text on Fig. 4
    "lower_zero": "The upper intervals for Ê_E have larger accuracy gain, and the lower intervals have an accuracy gain "
    "of 0.",
    # Sec. 6 (Conclusion)
    "positive": "we find that both EU estimators derived from the GP show a positive correlation with accuracy gain",
}
#: The artifacts of the analogue's rows: the confusable-garments split, and all against half of the images.
ANALOGUE_ARTIFACT = "Sec. 5.4.1 (analogue: Fashion-MNIST, confusable garments split)"
ANALOGUE_SIZE_ARTIFACT = "Sec. 5.4.1 (analogue: all vs half the images)"
_PENDING = "the analogue's paper-scale parts (analogue-all-*, analogue-half-*) are not computed yet (pending)"
_ANALOGUE_TESTS = "tests/papers/eu/test_analogue.py::TestGroupedEuFit"


def _arr(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def _pair(values_e, values_m, digits: int = 3) -> str:
    return f"E {np.mean(values_e):.{digits}f} vs M {np.mean(values_m):.{digits}f}"


def _design(lo: float, hi: float) -> str:
    return f"kept fractions {lo:g}–{hi:g}"


def _seeds_text(numbers: dict) -> str:
    n, planned = len(numbers.get("seeds", [])), numbers.get("planned")
    text = count_of(n, "seed")
    if planned and planned > n:
        text += f" of the {planned} planned (the others' paper-scale parts are not computed yet)"
    return text


def _curves(r: dict, key: str) -> dict | None:
    c = r.get(key)
    return None if c is None else {k: {w: _arr(c[k][w]) for w in ("raw", "calibrated", "gain")} for k in c}


def _halves(a: np.ndarray):
    """Per seed, the mean over the lower and over the upper half of the intervals (shape (S,) each)."""
    h = a.shape[1] // 2
    with np.errstate(all="ignore"):
        return np.nanmean(a[:, :h], axis=1), np.nanmean(a[:, h:], axis=1)


def _ranking_row(cmp: Comparison, rho: dict, cal: dict, paired: str) -> None:
    """Sec. 5.3.1: the estimator with the higher ρ_epi is the better suited to calibration."""
    up = one_sided(rho["E"] - rho["M"], relation=">", name="ρ_epi(Ê_E) − ρ_epi(Ê_M)")
    down = one_sided(rho["E"] - rho["M"], relation="<", name="ρ_epi(Ê_E) − ρ_epi(Ê_M)")
    if up.verdict == "agrees" or down.verdict == "agrees":
        hi, lo = ("E", "M") if up.verdict == "agrees" else ("M", "E")
        j = one_sided(cal[lo] - cal[hi], relation=">", name=f"calib. EECE(Ê_{lo}) − calib. EECE(Ê_{hi})")
        j = combine([up if hi == "E" else down, j])
        book = f"higher ρ_epi: Ê_{hi}; calibrated EECE E {cal['E'].mean():.4f} vs M {cal['M'].mean():.4f}"
    else:
        j = combine([up, down], rule="any")
        j = type(j)("inconclusive", f"which estimator has the higher ρ_epi is undecided: {up.criterion}", None,
                    up.tolerance_source, up.replicates)  # fmt: skip
        book = f"ρ_epi E {rho['E'].mean():.3f} vs M {rho['M'].mean():.3f} (order undecided)"
    # the paper's evidence is its Table 1: Ê_E's higher ρ_epi and its lower calibrated EECE, each judged first
    own = [
        paper_decides(EU_PAPER_TABLE1["E"]["rho_epi"], EU_PAPER_TABLE1["M"]["rho_epi"], relation=">",
                      names=("ρ_epi(Ê_E)", "ρ_epi(Ê_M)")),
        paper_decides(EU_PAPER_TABLE1["M"]["calibrated_eece"], EU_PAPER_TABLE1["E"]["calibrated_eece"],
                      relation=">", names=("calib. EECE(Ê_M)", "calib. EECE(Ê_E)")),
    ]  # fmt: skip
    cmp.add(
        "Sec. 5.3.1 (toy)",
        _MORE["ranking"],
        paper="Ê_E: higher ρ_epi and lower calibrated EECE (Table 1)",
        book=book,
        judgement=unless_paper_undecided(j, own),
        note=f"read as: the estimator whose ρ_epi is decidedly higher also has the lower calibrated EECE; {paired}; "
        f"which estimator has the higher ρ_epi: {decides_text(own[0])}; which has the lower calibrated EECE: "
        f"{decides_text(own[1])}",
    )


def _fig3_rows(cmp: Comparison, r: dict, paired: str) -> None:
    """Fig. 3's sentences (Sec. 5.3.1): rising gain curves, larger spread in the upper intervals, Ê_E's overlap."""
    curves = _curves(r, "toy_curves")
    art = "Sec. 5.3.1 / Fig. 3"
    if curves is None:
        return
    rise = []
    for k in EU_ESTIMATORS:
        lo, hi = _halves(curves[k]["gain"])
        rise.append(one_sided(hi - lo, relation=">", name=f"gain(upper half) − gain(lower half), Ê_{k}"))
    cmp.add(art, _MORE["increasing"], paper="rising red curves for Ê_M and Ê_E",
            book="; ".join(f"Ê_{k} {np.mean(np.subtract(*_halves(curves[k]['gain'])[::-1])):+.4f}"
                           for k in EU_ESTIMATORS),
            judgement=combine(rise),
            note=f"per seed, the mean gain over intervals 11-20 minus over intervals 1-10; {paired}")  # fmt: skip
    n = curves["M"]["gain"].shape[0]
    if n >= 2:
        spread = []
        for k in EU_ESTIMATORS:
            with np.errstate(all="ignore"):
                sd = np.nanstd(curves[k]["gain"], axis=0, ddof=1)
            h = sd.shape[0] // 2
            up, low = sd[h:][np.isfinite(sd[h:])], sd[:h][np.isfinite(sd[:h])]
            spread.append(welch_one_sided(up, low, relation=">", names=(f"sd upper Ê_{k}", f"sd lower Ê_{k}")))
        cmp.add(art, _MORE["harder"], paper="larger sd bands in the upper intervals",
                book="; ".join(f"Ê_{k}: sd {np.nanmean(np.nanstd(curves[k]['gain'], axis=0, ddof=1)[10:]):.4f} vs "
                               f"{np.nanmean(np.nanstd(curves[k]['gain'], axis=0, ddof=1)[:10]):.4f}"
                               for k in EU_ESTIMATORS),
                judgement=combine(spread),
                note="the sd over seeds of the mean gain per interval (the red bands), upper ten intervals against "
                f"lower ten, the intervals as replicates (Welch); {paired}")  # fmt: skip
    dev = {}
    for k in EU_ESTIMATORS:
        with np.errstate(all="ignore"):
            dev[k] = np.nanmean(np.abs(curves[k]["calibrated"][:, :7] - curves[k]["gain"][:, :7]), axis=1)
    cmp.add(art, _MORE["overlap"], paper="Ê_E's red and yellow curves overlap on intervals 1-7",
            book=f"mean |calibrated − gain| on intervals 1-7: E {dev['E'].mean():.4f} vs M {dev['M'].mean():.4f}",
            judgement=one_sided(dev["M"] - dev["E"], relation=">", name="dev(Ê_M) − dev(Ê_E) on intervals 1-7"),
            note="read as: on the first seven intervals Ê_E's calibrated curve lies closer to the gain than Ê_M's "
            f"('Ê_E performs better than Ê_M'); {paired}")  # fmt: skip


def _fig4_lower_row(cmp: Comparison, r: dict, where: str) -> None:
    """Sec. 5.4.1 / Fig. 4: Ê_E's upper intervals have larger gain (than Ê_M's), its lower intervals a gain of 0."""
    curves = _curves(r, "real_curves")
    if curves is None:
        return
    lo_e, hi_e = _halves(curves["E"]["gain"])
    _, hi_m = _halves(curves["M"]["gain"])
    j = combine(
        [
            one_sided(hi_e - hi_m, relation=">", name="gain of Ê_E's upper intervals − Ê_M's"),
            one_sided(lo_e, relation="<", threshold=_ZERO, name="gain of Ê_E's lower intervals"),
            one_sided(lo_e, relation=">", threshold=-_ZERO, name="gain of Ê_E's lower intervals"),
        ]
    )
    cmp.add(
        "Sec. 5.4.1 / Fig. 4",
        _MORE["lower_zero"],
        paper="Ê_E: upper intervals larger gain, lower intervals gain 0 (Fig. 4)",
        book=f"Ê_E lower half {lo_e.mean():+.4f}, upper half {hi_e.mean():.4f} (Ê_M's upper half {hi_m.mean():.4f})",
        judgement=j,
        note=f"intervals 1-10 and 11-20 of 20; 'a gain of 0' read as within ±{_ZERO:g} (the paper's 'quite well' "
        f"for Ê_M on K-49: a difference of 0.0063), each side one-sided; {where}",
    )


def _positive_row(cmp: Comparison, r: dict) -> None:
    """Sec. 6: both estimators show a positive correlation with the accuracy gain (toy and real data)."""
    js, book = [], []
    for key, what in (("toy", "toy"), ("real", r["dataset"])):
        for k in EU_ESTIMATORS:
            v = _arr(r[key][k]["rho_epi"])
            js.append(one_sided(v, relation=">", name=f"ρ_epi(Ê_{k}), {what}"))
            book.append(f"{what} Ê_{k} {v.mean():.3f}")
    cmp.add(
        "Sec. 6 (conclusion)",
        _MORE["positive"],
        paper="ρ_epi > 0 for both estimators (Tables 1-2)",
        book=", ".join(book),
        judgement=combine(js),
        note=f"ρ_epi > 0 for both estimators on the toy data (design: {_design(*TOY_KEPT_FRACTIONS)}) and on "
        f"{r['dataset']}, each one-sided over the seeds",
    )


def _paper_table2(metric: str, a: str, b: str) -> list:
    """Table 2's own numbers judged on ``Ê_a's metric > Ê_b's``, one judgement per dataset (seeds assumed 6)."""
    return [
        paper_decides(t[a][metric], t[b][metric], relation=">", names=(f"{d} Ê_{a}", f"{d} Ê_{b}"))
        for d, t in EU_PAPER_TABLE2.items()
    ]


def _analogue(cmp: Comparison, r: dict, claims: dict) -> None:
    """The Fashion-MNIST analogue: confusable garments split; all images against half of them (Sec. 5.4.1)."""
    ana = r.get("analogue")
    if ana is None:
        return
    art = ANALOGUE_ARTIFACT
    setting = (
        "an analogue, not the paper's data: Fashion-MNIST with classes {T-shirt, coat, sandal, bag, ankle boot} "
        "against {shirt, pullover, sneaker, dress, trouser} (fixed before the runs); balls and GP settings as on "
        "the real data"
    )
    full = ana.get("all", {})
    if full.get("seeds"):
        v = full["values"]
        rho = {k: _arr(v[k]["rho_epi"]) for k in EU_ESTIMATORS}
        cal = {k: _arr(v[k]["calibrated_eece"]) for k in EU_ESTIMATORS}
        note = f"{setting}; all the images, {_seeds_text(full)}, paired per seed"
        own = "; not counted against the book when the paper's own numbers (Table 2, seeds assumed 6) do not decide it"
        cmp.add(art, claims["rho"], paper="E higher (Table 2, both datasets)", book=_pair(rho["E"], rho["M"]),
                judgement=unless_paper_undecided(
                    one_sided(rho["E"] - rho["M"], relation=">", name="ρ_epi(Ê_E) − ρ_epi(Ê_M)"),
                    _paper_table2("rho_epi", "E", "M")),
                note=note + own)  # fmt: skip
        cmp.add(art, claims["calibrated"], paper="E lower (Table 2, both datasets)", book=_pair(cal["E"], cal["M"], 4),
                judgement=unless_paper_undecided(
                    one_sided(cal["M"] - cal["E"], relation=">", name="calib. EECE(Ê_M) − calib. EECE(Ê_E)"),
                    _paper_table2("calibrated_eece", "M", "E")),
                note=note + own)  # fmt: skip
    else:
        for c in ("rho", "calibrated"):
            cmp.not_run(art, claims[c], paper="Table 2, both datasets", reason=_PENDING, tested_by=_ANALOGUE_TESTS)
    _data_size_rows(cmp, ana, claims, setting)


def _data_size_rows(cmp: Comparison, ana: dict, claims: dict, setting: str) -> None:
    """Sec. 5.4.1's mechanism for K-49 against EMNIST ("more than twice as much data"): all against half."""
    art = ANALOGUE_SIZE_ARTIFACT
    full, half = ana.get("all", {}), ana.get("half", {})
    if not (full.get("seeds") and half.get("seeds")):
        for c in ("eece_k49", "variance"):
            cmp.not_run(art, claims[c], paper="K-49 (twice the data) vs EMNIST", reason=_PENDING,
                        tested_by=_ANALOGUE_TESTS)  # fmt: skip
        return
    note = (
        f"{setting}; all the images ({_seeds_text(full)}) against a fixed random half ({_seeds_text(half)}), "
        "unpaired (Welch), one-sided; the analogue of K-49's 'more than twice as much data'"
    )
    js, book = [], []
    for k in EU_ESTIMATORS:
        for m in ("eece", "calibrated_eece"):
            a, b = _arr(full["values"][k][m]), _arr(half["values"][k][m])
            js.append(welch_one_sided(a, b, relation="<", names=(f"{_NAMES[m]} Ê_{k} all", "half")))
            book.append(f"{_NAMES[m]} Ê_{k} {a.mean():.4f} vs {b.mean():.4f}")
    cmp.add(art, claims["eece_k49"], paper="both lower on K-49 (Table 2)", book="; ".join(book), judgement=combine(js),
            note=note)  # fmt: skip
    if min(len(full["seeds"]), len(half["seeds"])) < 2:
        cmp.add(art, claims["variance"], paper="higher variance on EMNIST (less data; Fig. 4)", book="one seed",
                judgement=Judgement(INCONCLUSIVE, "sd over seeds needs at least 2 seeds of each size", None,
                                    "the spread over seeds", 1), note=note)  # fmt: skip
        return
    js, book = [], []
    for k in EU_ESTIMATORS:
        for w in ("gain", "calibrated"):
            sd = []
            for nums in (half, full):
                with np.errstate(all="ignore"):
                    sd.append(np.nanstd(_arr(nums["curves"][k][w]), axis=0, ddof=1))
            d = sd[0] - sd[1]
            js.append(one_sided(d[np.isfinite(d)], relation=">", name=f"sd half − sd all, {w} curve of Ê_{k}",
                                unit="interval"))  # fmt: skip
            book.append(f"{w} Ê_{k} {np.nanmean(sd[1]):.4f} vs {np.nanmean(sd[0]):.4f}")
    cmp.add(art, claims["variance"], paper="higher variance on EMNIST (less data; Fig. 4)",
            book="sd over seeds, all vs half: " + "; ".join(book), judgement=combine(js),
            note=note.replace("unpaired (Welch)", "per interval, the intervals as replicates"))  # fmt: skip
