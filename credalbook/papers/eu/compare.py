r"""The "Paper vs. this book" rows of the EU chapter, from a plain results dict and ``reported.json``.

The chapter (``chapters/05_epistemic_uncertainty_gp.ipynb``) runs the studies, collects their summaries
(numbers only, no models) in a dict and calls :func:`compare`; the paper's numbers come from
:func:`credalbook.papers.report.reported`. The criteria:

* Tables 1 and 2: a value agrees when :math:`|\bar m - m_{paper}| \le 2\sqrt{sd_{paper}^2 + sd^2}`
  (:func:`credalbook.papers.eu.compare_summary`). Table 2's rows compare with the paper's dataset when
  ``dataset`` is one of them; otherwise a value agrees when it lies within the range the paper reports
  across its two datasets, widened by two of their standard deviations.
* The paper's qualitative claims (Secs. 5.3.1, 5.3.2, 5.4.1) are checked one row each.
"""

from __future__ import annotations

import math

import numpy as np

from credalbook.papers.eu.experiments import EU_ESTIMATORS, EU_METRICS, EU_PAPER_TABLE1, EU_PAPER_TABLE2, compare_summary
from credalbook.papers.report import check_results, Comparison, count_of, reported

__all__ = ["compare"]

#: The chapter whose rows :func:`compare` builds (names the results file).
CHAPTER = "05_epistemic_uncertainty_gp"
#: Our dataset names that are one of the paper's Table 2 datasets.
_PAPER_DATASET = {"emnist": "EMNIST", "emnist_letters": "EMNIST", "emnist_balanced": "EMNIST", "kuzushiji49": "K-49"}
_NAMES = {"rho_epi": "ρ_epi", "eece": "EECE", "calibrated_eece": "calibrated EECE"}
_KEYS = ("toy", "toy_seeds", "toy_window", "toy_floor", "toy_over_M", "mismatch", "real", "real_seeds",
         "real_over_M", "dataset")


def _pm(mean: float, sd: float) -> str:
    return f"{mean:.3g} ± {sd:.2g}"


def _table1(cmp: Comparison, r: dict) -> None:
    ts, toy_floor = r["toy"], r["toy_floor"]
    window = r["toy_window"]
    toy_note = f"{count_of(r['toy_seeds'], 'seed')}, " + ("full grid" if window is None else "{} × {} cluster window".format(*window))
    for k, row in compare_summary(ts, EU_PAPER_TABLE1).items():
        for m, (paper, book, ok) in row.items():
            cmp.add("Table 1", f"{_NAMES[m]} of Ê_{k} (mean ± sd)", paper=paper, book=book, agrees=ok,
                    note=toy_note if ok or m == "rho_epi" else f"{toy_note}; EECE floor of our test sets ≈ {toy_floor:.3f}")
    pm, psd = EU_PAPER_TABLE1["E"]["eece"]
    eb = ts["E"]["eece_bits"]
    ok_bits = abs(eb[0] - pm) <= 2 * math.hypot(psd, np.nan_to_num(eb[1]))
    cmp.add("Table 1", "EECE of Ê_E with entropies in bits", paper=_pm(pm, psd), book=f"{eb[0]:.3g} ± {eb[1]:.2g}",
            agrees=bool(ok_bits), note="the paper does not state the base of its logarithm; the row above is in nats")


def _claims_toy(cmp: Comparison, r: dict) -> None:
    ts, toy_floor, over_M = r["toy"], r["toy_floor"], r["toy_over_M"]
    small = reported("eu")["text_sec5_3_1"]["calibrated_eece_below"]
    c = {k: ts[k]["calibrated_eece"][0] for k in EU_ESTIMATORS}
    claims = [("Ê_E has the higher ρ_epi", ts["E"]["rho_epi"][0] > ts["M"]["rho_epi"][0],
               f"E {ts['E']['rho_epi'][0]:.3f} vs M {ts['M']['rho_epi'][0]:.3f}", ""),
              ("uncalibrated Ê_E has a very large EECE (over 5 × Ê_M's)", ts["E"]["eece"][0] > 5 * ts["M"]["eece"][0],
               f"E {ts['E']['eece'][0]:.3f} vs M {ts['M']['eece'][0]:.3f}", ""),
              (f"both calibrate to a small EECE (below {small:g})", max(c.values()) < small,
               f"M {c['M']:.4f}, E {c['E']:.4f}", f"sampling floor of our test sets ≈ {toy_floor:.3f}"),
              ("after calibration Ê_E has the lower EECE", c["E"] < c["M"], f"E {c['E']:.4f} vs M {c['M']:.4f}", ""),
              ("calibration lowers the EECE of Ê_M", c["M"] < ts["M"]["eece"][0], f"{ts['M']['eece'][0]:.4f} → {c['M']:.4f}", ""),
              ("Ê_M over-estimates the gain before calibration (share of intervals)", over_M > 0.5, f"{over_M:.2f}", "")]
    for claim, ok, book, note in claims:
        cmp.add("Table 1 / Fig. 3", claim, paper="yes", book=book, agrees=bool(ok), note="" if ok else note)


def _mismatch(cmp: Comparison, r: dict) -> None:
    base, m1, m2 = r["mismatch"]
    cal = [{k: s[k]["calibrated_eece"][0] for k in EU_ESTIMATORS} for s in (base, m1, m2)]
    d1 = {k: cal[1][k] - cal[0][k] for k in EU_ESTIMATORS}
    d2 = {k: cal[2][k] - cal[0][k] for k in EU_ESTIMATORS}
    cmp.add("Sec. 5.3.2", "variant 1 (three large calibration discs): calibrated EECE changes little (by < 0.02)",
            paper="not dramatically", book=f"Δ M {d1['M']:+.4f}, Δ E {d1['E']:+.4f}", agrees=bool(max(map(abs, d1.values())) < 0.02))
    cmp.add("Sec. 5.3.2", "variant 2 (low-aleatoric test points removed): Ê_E's calibrated EECE rises more than Ê_M's",
            paper="Ê_E worse, Ê_M comparatively better", book=f"Δ M {d2['M']:+.4f}, Δ E {d2['E']:+.4f}",
            agrees=bool(d2["E"] > 0 and d2["E"] > d2["M"]))
    cmp.add("Sec. 5.3.2", "variant 2: ρ_epi of Ê_M overtakes or approaches Ê_E's", paper="Ê_M comparatively better",
            book=f"M {m2['M']['rho_epi'][0]:.3f} vs E {m2['E']['rho_epi'][0]:.3f}",
            agrees=bool(m2["M"]["rho_epi"][0] - m2["E"]["rho_epi"][0] > base["M"]["rho_epi"][0] - base["E"]["rho_epi"][0]),
            note="judged as: the gap ρ_M − ρ_E grows compared with the Sec. 5.3 layout")


def _table2(cmp: Comparison, r: dict) -> None:
    rs, dataset = r["real"], r["dataset"]
    match = _PAPER_DATASET.get(dataset)
    for d, table in EU_PAPER_TABLE2.items():
        for k in EU_ESTIMATORS:
            for m in EU_METRICS:
                (pm, psd), (bm, bsd) = table[k][m], rs[k][m]
                vals = [EU_PAPER_TABLE2[o][k][m] for o in EU_PAPER_TABLE2]
                ok = (abs(bm - pm) <= 2 * math.hypot(psd, np.nan_to_num(bsd)) if match == d else
                      min(v - 2 * s for v, s in vals) <= bm <= max(v + 2 * s for v, s in vals))
                cmp.add(f"Table 2 ({d})", f"{_NAMES[m]} of Ê_{k}", paper=_pm(pm, psd), agrees=bool(ok),
                        book=_pm(bm, bsd) if np.isfinite(bsd) else f"{bm:.3g}",
                        note="" if match == d else f"ours on {dataset}; judged against the range of the paper's two datasets")


def _claims_real(cmp: Comparison, r: dict) -> None:
    rs, over_real, dataset = r["real"], r["real_over_M"], r["dataset"]
    cr = {k: rs[k]["calibrated_eece"][0] for k in EU_ESTIMATORS}
    for claim, ok, book in (
            ("Ê_E has the higher ρ_epi", rs["E"]["rho_epi"][0] > rs["M"]["rho_epi"][0], f"E {rs['E']['rho_epi'][0]:.3f} vs M {rs['M']['rho_epi'][0]:.3f}"),
            ("uncalibrated Ê_E has a very large EECE (over 5 × Ê_M's)", rs["E"]["eece"][0] > 5 * rs["M"]["eece"][0], f"E {rs['E']['eece'][0]:.3f} vs M {rs['M']['eece'][0]:.4f}"),
            ("calibrated Ê_E has a lower EECE than calibrated Ê_M", cr["E"] < cr["M"], f"E {cr['E']:.4f} vs M {cr['M']:.4f}"),
            ("calibration lowers the EECE of Ê_M", cr["M"] < rs["M"]["eece"][0], f"{rs['M']['eece'][0]:.4f} → {cr['M']:.4f}"),
            ("Ê_M over-estimates the gain (share of intervals, EMNIST in the paper)", over_real > 0.5, f"{over_real:.2f}")):
        cmp.add("Table 2 / Fig. 4", claim, paper="yes", book=book, agrees=bool(ok), note=f"{dataset}, {count_of(r['real_seeds'], 'seed')}")


def compare(results: dict, *, chapter: str = CHAPTER) -> Comparison:
    r"""The chapter's "Paper vs. this book" rows for the EU paper's Tables 1-2, Figs. 3-4 and Sec. 5.3.2.

    Parameters
    ----------
    results : dict
        Plain numbers of the chapter's studies. A *summary* is :meth:`credalbook.papers.eu.EUStudy.summary`:
        estimator (``"M"``, ``"E"``) -> metric (``"rho_epi"``, ``"eece"``, ``"calibrated_eece"``, and for
        ``"toy"`` also ``"eece_bits"``) -> (mean, sd over seeds; sd NaN with one seed). Keys:

        ``"toy"``
            summary of the toy study (Table 1);
        ``"toy_seeds"``, ``"toy_window"``
            its number of seeds and the preset's cluster window (``None``: the full grid);
        ``"toy_floor"``
            mean EECE floor of :math:`\hat{\mathcal E}_E` on the toy test sets (:meth:`EURun.eece_floor`);
        ``"toy_over_M"``
            share of interval-seed pairs where the raw :math:`\hat{\mathcal E}_M` exceeds the gain (Fig. 3);
        ``"mismatch"``
            three summaries: the Sec. 5.3 layout, variant 1 and variant 2 (Sec. 5.3.2);
        ``"real"``, ``"real_seeds"``, ``"real_over_M"``, ``"dataset"``
            the same for the real-data study (Table 2, Fig. 4) and the dataset's name.
    chapter : str, default="05_epistemic_uncertainty_gp"
        Names the :class:`credalbook.papers.report.Comparison` (and its results file).

    Returns
    -------
    Comparison
        Rows in the chapter's order: Table 1 (seven), Table 1 / Fig. 3 claims (six), Sec. 5.3.2 (three),
        Table 2 (twelve), Table 2 / Fig. 4 claims (five).

    Examples
    --------
    >>> s = {k: {m: (0.1, 0.01) for m in ("rho_epi", "eece", "calibrated_eece", "eece_bits")} for k in ("M", "E")}
    >>> res = dict(toy=s, toy_seeds=1, toy_window=None, toy_floor=0.01, toy_over_M=0.6, mismatch=[s, s, s],
    ...            real=s, real_seeds=1, real_over_M=0.4, dataset="kuzushiji49")
    >>> cmp = compare(res)
    >>> len(cmp.rows), cmp.rows[0].paper, cmp.rows[0].agrees
    (33, '0.108 ± 0.023', True)
    """
    check_results(results, _KEYS)
    if len(results["mismatch"]) != 3:
        raise ValueError(f"results['mismatch'] must hold three summaries (layout, variant 1, variant 2); "
                         f"got {len(results['mismatch'])}")
    cmp = Comparison(chapter)
    for part in (_table1, _claims_toy, _mismatch, _table2, _claims_real):
        part(cmp, results)
    return cmp
