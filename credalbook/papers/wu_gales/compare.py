"""The "Paper vs. this book" rows of the Wu & Gales chapter, from a plain results dict.

The chapter assembles its results (numbers and arrays, no model objects) and :func:`compare` turns
them into the rows of its comparison table, the paper's side read from ``reported.json`` through
:func:`credalbook.papers.report.reported`. Every row goes through a judge of
:mod:`credalbook.papers.criteria`:

* differences of ECEs and accuracies are judged against their standard errors
  (:func:`~credalbook.papers.wu_gales.paired_estimate`: bootstrap over the test instances, the same
  resamples for every method, combined with the spread over runs), with :func:`sign_claim` at
  z = 2: a difference inside 2 SE is *inconclusive*;
* a claim over the topologies (Tables 1/5: "all three methods improve", "dyn. best", ...) is judged
  per topology, and the judgements are counted with the rule stated in the row: at least
  ``need`` of the n topologies must agree, ``need`` being the paper's own count in its table (e.g.
  3 of 4 where one of its four topologies does not show the effect); the row agrees when the
  topologies that agree reach ``need``, differs when even counting the inconclusive ones they
  cannot, and is inconclusive otherwise. Claims the paper states "for all models" use ``need = n``.

What holds by construction is not a row: Eqs. 18/23, Props. 2 and 4, Example 1, Alg. 2, "post and
dyn. keep the accuracy", Fig. 4's "ACE → 0 at ε = 1/2" (true for every predictor) and Table 6's
"AUC weights more even" (AUC/ΣAUC with every AUC in [1/2, 1]) are asserted in
``tests/papers/wu_gales`` and printed as checks in the chapter.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from credalbook.papers.criteria import AGREES, close_to, combine, Judgement, ordered, sign_claim
from credalbook.papers.premises import not_decided_by_paper
from credalbook.papers.report import check_results, Comparison, reported
from credalbook.papers.wu_gales.compare_combinations import _topologies
from credalbook.papers.wu_gales.compare_regime import premise_note, regime_rows, regime_setting
from credalbook.papers.wu_gales.reported import wg_paper_reference
from credalbook.papers.wu_gales.resampling import paired_estimate
from credalbook.papers.wu_gales.rows import _est, _need, _sign, _TESTS, _where, _Z, count_rule

__all__ = ["compare", "count_rule", "RESULT_KEYS"]

#: The keys :func:`compare` reads from ``results``.
RESULT_KEYS = (
    "dataset",
    "networks",
    "toys",
    "propositions",
    "fig1",
    "ensembles",
    "singles",
    "regions",
    "combinations",
    "ece_floor",
)

_CHAPTER = "04_wu_gales_ensemble_calibration"


def compare(results: Mapping, *, chapter: str = _CHAPTER) -> Comparison:
    """The chapter's comparison rows: App. A.3 Alg. 1 and Fig. 4, Prop. 1, Fig. 1, Tables 1/5 and
    3/4 (the one of the dataset run; the other not run here), Fig. 3, Tables 2, 6, 7 and Fig. 2.

    Parameters
    ----------
    results : mapping
        What the chapter measured, with the keys of ``RESULT_KEYS``:

        * ``dataset`` (str), ``networks`` (str): where the numbers come from (for the notes);
        * ``toys``: ``alg1_ace``, ``alg1_ace_se``, ``alg1_samples``, ``alg1_gap``, ``alg1_gap_se``,
          ``epsilons`` and ``ensemble_ace`` (the Fig. 4 (a) curve)
          (:class:`~credalbook.papers.wu_gales.ToyStudy`);
        * ``propositions``: topology -> ``gap``, ``gap_se`` (the ensemble of members calibrated each on
          its own, :class:`~credalbook.papers.wu_gales.PropositionChecks`);
        * ``fig1``: topology -> ``ensemble_t``, ``member_t`` (array over the members), ``gap``,
          ``gap_se``, ``accuracy_range`` (over t ∈ [1/2, 2]), ``accuracy_gain``
          (:class:`~credalbook.papers.wu_gales.TemperatureStudy`);
        * ``ensembles``, ``singles``, ``regions``: topology -> ``CalibrationStudy.plain()`` of the
          Table 1/5 study (methods none, pre, post, dyn.), the Table 3/4 study (none, ts) and the
          Fig. 3 study (R=1, ...; deep topologies);
        * ``combinations``: dicts with ``topologies`` (tuple), ``weighting``, ``structure``,
          ``ensemble``, ``ece``, ``ece_boot`` (B,), ``weights`` and ``weights_se``
          (:class:`~credalbook.papers.wu_gales.TopologyCombination`);
        * ``ece_floor``: (mean, sd) in 1e-2 of the ECE of an exactly calibrated ensemble on this test set;
        * optional ``setting``: ``n_val``, ``n_test``, ``n_runs`` and ``subset`` (topology -> members per
          ensemble), said in the notes next to the paper's sizes.
    chapter : str
        The chapter's file stem, naming the saved JSON file.

    Returns
    -------
    Comparison
        The rows, in the chapter's order; ``save`` and display them as any other.

    Examples
    --------
    >>> compare({"dataset": "cifar100", "networks": "paper"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: results is missing the keys ['toys', 'propositions', ...] (it needs [...])
    """
    check_results(results, RESULT_KEYS)
    paper = reported("wu_gales")
    cmp = Comparison(chapter)
    held = regime_rows(cmp, results, paper)  # the premises first
    _toys(cmp, results["toys"], paper)
    _fig1(cmp, results["fig1"], paper, _where(results))
    _prop1(cmp, results["propositions"], paper)
    _ensembles(cmp, results, paper)
    _regime_ensembles(cmp, results, paper, held)
    _singles(cmp, results, paper, held)
    _on_regime(cmp, results, paper, held, (_fig3, _topologies, _sec43))
    return cmp


def _on_regime(cmp: Comparison, results: Mapping, paper: dict, held: Mapping, groups) -> None:
    """Rows of CIFAR-100 claims judged on the regime's members when its results hold them (``regions`` and
    ``combinations``), each with today's members' number and verdict beside it as the control; else on today's.

    ``groups``: functions ``add(cmp, results, paper)``, each adding the rows of one group (Fig. 3, the combinations,
    Sec. 4.3).
    """
    reg = results.get("regime")
    if not isinstance(reg, Mapping) or reg.get("pending") or not {"regions", "combinations"} <= set(reg):
        for add in groups:
            add(cmp, results, paper)
        return
    sub = dict(
        results,
        networks="regime",
        setting=None,
        ensembles=reg["ensembles"],
        regions=reg["regions"],
        combinations=reg["combinations"],
        ece_floor=reg["ece_floor"],
    )
    setting = f"the members of the {regime_setting(reg)}; {premise_note(held)}; the control: {_where(results)}"
    for add in groups:
        control, judged = Comparison(cmp.chapter), Comparison(cmp.chapter)
        add(control, results, paper)
        add(judged, sub, paper)
        today = {(r.artifact, r.quantity): r for r in control.rows}
        for r in judged.rows:
            c = today.get((r.artifact, r.quantity))
            beside = f"; today's members (the control): {c.book} ({c.verdict})" if c is not None else ""
            cmp.rows.append(replace(r, book=f"{r.book}{beside}", note=f"{r.note}; {setting}"))


def _sec43(cmp: Comparison, results: Mapping, paper: dict) -> None:
    """Sec. 4.3: the calibrated Max-LL combination of calibrated structures below every "post" line of Table 1."""
    ens = results["ensembles"]
    full = max(
        (
            c
            for c in results["combinations"]
            if (c["weighting"], c["structure"], c["ensemble"]) == ("ml", "post", "post")
        ),
        key=lambda c: len(c["topologies"]),
        default=None,
    )
    if full is None or not set(full["topologies"]) <= set(ens):
        return
    c_ece, c_se = paired_estimate([100 * full["ece"]], 100 * np.asarray(full["ece_boot"])[:, None])
    parts = {}
    for t in full["topologies"]:
        m, se = _est(ens[t], "post")
        parts[t] = ordered(
            c_ece, 100 * m, relation="<", se_a=c_se, se_b=100 * se, z=_Z, names=("combination ECE", f"{t} post ECE")
        )
    t2 = [
        r
        for r in paper["table2"]["rows"]
        if r["ensemble"] == "post" and all(v is not None for v in r["weights"].values())
    ]
    ref = wg_paper_reference(results["dataset"])
    cmp.add(
        "Sec. 4.3 / Fig. 2",
        "the calibrated Max-LL combination of the calibrated structures has a lower ECE (1e-2) than every topology "
        "ensemble's 'post' line",
        paper=f"{t2[0]['ece']:g} vs "
        + ", ".join(f"{t} {r['post']['ece'][0]:g}" for t, r in paper["table1"]["rows"].items()),
        book=f"{c_ece:.2f} vs " + ", ".join(f"{t} {100 * _est(ens[t], 'post')[0]:.2f}" for t in full["topologies"]),
        judgement=count_rule(parts, len(parts), source=f"{_Z:g} × SE: bootstrap over the test instances (and runs)"),
        note=f"the paper's 'post' lines are Table 1 (CIFAR-100); ours those of "
        f"{'the regime' if results['networks'] == 'regime' else ref['ensemble_name']}'s study; "
        f"quote: {paper['findings']['sec43_topology']['quote']!r}; {_where(results)}",
    )


def _regime_ensembles(cmp: Comparison, results: Mapping, paper: dict, held: Mapping) -> None:
    """Table 1's claims on the ensembles of the CIFAR-100 regime, each note saying whether its premises held."""
    reg = results.get("regime")
    if reg is None:
        return
    name = "Table 1 (CIFAR-100 regime on Fashion-MNIST)"
    if reg.get("pending"):
        cmp.not_run(
            name,
            "pre, post and dyn. lower the ensemble's ECE; post/dyn. below pre; dyn. lowest; per topology dyn.",
            paper="; ".join(
                f"{t} " + " / ".join(f"{r[m]['ece'][0]:g}" for m in ("none", "pre", "post", "dyn"))
                for t, r in paper["table1"]["rows"].items()
            ),
            reason=f"pending: the paper-scale members of the regime are being computed ({reg['pending']})",
            tested_by=f"{_TESTS}::TestCalibrationStudy",
        )
        return
    start = len(cmp.rows)
    sub = dict(
        dataset="fashion_mnist",
        networks="regime",
        ensembles=reg["ensembles"],
        ece_floor=reg["ece_floor"],
        setting=reg.get("setting"),
    )
    _ensemble_counts(cmp, sub, name, paper["table1"]["rows"], paper["findings"]["table1"]["quote"], paper)
    _ensemble_dyn(cmp, sub, name, paper["table1"]["rows"])
    note = f"{premise_note(held)}; {regime_setting(reg)}"
    for i in range(start, len(cmp.rows)):
        cmp.rows[i] = replace(cmp.rows[i], note=f"{note}; {cmp.rows[i].note}")


# ------------------------------------------------------------------------------------------- App. A.3
def _toys(cmp: Comparison, toy: Mapping, paper: dict) -> None:
    claims = paper["claims"]
    alg1 = float(paper["alg1"]["ensemble_ace"])
    n = int(toy["alg1_samples"])
    # the paper's value is one Monte-Carlo draw at N = 10⁶, printed to 4 decimals
    mc = _Z * toy["alg1_ace_se"] * math.sqrt(1 + n / 1e6)
    source = (
        f"{_Z:g} × Monte-Carlo SE of both draws (this one's from 10 parts of its sample, the paper's scaled to "
        f"N = 10⁶) + the paper's rounding (5e-5)"
    )
    # The paper quotes one ACE for Fig. 4 (a), whose ε varies, without its ε; the row reads it at the tables' ε = 1/30.
    # Where that differs, the curve's left end (the smallest ε drawn) is judged by the same criterion: agreement
    # there shows the cause (the ε the paper read), disagreement leaves it unknown.
    eps, curve = _ace_curve(toy)
    spread = toy.get("alg1_spread")
    if spread is not None:
        _alg1_spread(cmp, toy, spread, alg1, eps, curve, claims)
        return
    small = close_to(curve[0], alg1, tol=mc + 5e-5, tolerance_source=source)
    cause = (
        f"ε: the paper does not say at which ε of Fig. 4 (a) it reads its ACE; at the curve's smallest ε here "
        f"({eps[0]:g}, the Fig. 4 cell) ours is {curve[0]:.5f}, within the same tolerance"
        if small.verdict == AGREES
        else ""
    )
    cmp.add(
        "App. A.3, Alg. 1 / Fig. 4",
        "ACE (ε = 1/30) of the ensemble of perfectly calibrated members (K = 4, M = 10, b = 2)",
        paper=alg1,
        book=toy["alg1_ace"],
        judgement=close_to(toy["alg1_ace"], alg1, tol=mc + 5e-5, tolerance_source=source),
        cause=cause,
        note=f"N = {n:,} (paper 10⁶); ACE over ε (Fig. 4 (a)): "
        + ", ".join(f"{e:.3g}: {a:.5f}" for e, a in zip(eps, curve))
        + f"; quote: {claims['alg1']['quote']!r}",
    )
    gap = toy["alg1_gap"]
    cmp.add(
        "App. A.3, Fig. 4 (b)",
        "members ECE = 0; the ensemble's global top-label error stays: its confidence − accuracy (ε = 1/2) < 0",
        paper=claims["fig4"]["quote"],
        book=f"{gap:.4f} ± {toy['alg1_gap_se']:.1e}",
        judgement=sign_claim(
            gap,
            relation="<",
            se=toy["alg1_gap_se"],
            z=_Z,
            name="confidence − accuracy",
            tolerance_source=f"{_Z:g} × SE over the instances",
        ),
        note="the global ECE is |confidence − accuracy|; the signed gap says why it stays (under-confidence); "
        "the ACE's fall to 0 at ε = 1/2 holds for every predictor and is a test, not a row",
    )


def _alg1_spread(cmp: Comparison, toy: Mapping, spread: Mapping, alg1: float, eps, curve, claims: dict) -> None:
    """App. A.3: the paper's one draw against the mean over seeds of the label estimator (Eq. 12), with the
    seed-to-seed spread; the true-probability estimator and the ε of the curve are the candidate causes, both
    computed and named whatever the verdict. Fig. 4 (b) follows from Prop. 1 and is a test, not a row."""
    n = int(spread["n_samples"])
    out = {}
    for key in ("labels", "truth"):
        v = np.asarray(spread[key], dtype=float)
        sd = float(v.std(ddof=1))
        # the paper's single draw at N = 10⁶ has the spread sd·√(n/10⁶); our mean over the seeds sd/√S
        tol = _Z * sd * math.sqrt(n / 1e6 + 1 / len(v)) + 5e-5
        src = (
            f"{_Z:g} × (the spread over {len(v)} seeds of one draw, scaled to the paper's N = 10⁶, ⊕ the SE of "
            f"our mean over the seeds) + the paper's rounding (5e-5)"
        )
        out[key] = (float(v.mean()), sd, close_to(float(v.mean()), alg1, tol=tol, tolerance_source=src))
    (lab, lab_sd, j), (tru, tru_sd, jt) = out["labels"], out["truth"]
    cause = (
        f"two candidate causes, both computed: the estimator (against the true probabilities, which Eq. 12 does "
        f"not use, the mean is {tru:.5f} ± {tru_sd:.5f} over the seeds: {jt.verdict}; against the sampled labels, "
        f"as Eq. 12 reads, {lab:.5f} ± {lab_sd:.5f}: {j.verdict}) and ε (the paper does not say at which ε of "
        f"Fig. 4 (a) it reads its ACE; at the curve's smallest ε here, {eps[0]:g}, against the true probabilities: "
        f"{curve[0]:.5f})"
    )
    cmp.add(
        "App. A.3, Alg. 1 / Fig. 4",
        "ACE (ε = 1/30) of the ensemble of perfectly calibrated members (K = 4, M = 10, b = 2), against "
        "sampled labels (Eq. 12), mean over seeds",
        paper=alg1,
        book=f"{lab:.5f} ± {lab_sd:.5f} (sd over {len(spread['labels'])} seeds)",
        judgement=j,
        cause=cause,
        keep_cause=True,
        note=f"N = {n:,} per seed (paper one draw at 10⁶); ACE against the true probabilities over ε (Fig. 4 (a), "
        f"seed {toy.get('seed', 0)}): "
        + ", ".join(f"{e:.3g}: {a:.5f}" for e, a in zip(eps, curve))
        + "; Fig. 4 (b) (the ensemble's global confidence − accuracy < 0) follows from Prop. 1 with calibrated "
        f"members and an accuracy gain: a test, not a row; quote: {claims['alg1']['quote']!r}",
    )


def _ace_curve(toy: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The ensemble's ACE over ε of Fig. 4 (a) (``toy["epsilons"]``, ``toy["ensemble_ace"]``), by increasing ε."""
    missing = [k for k in ("epsilons", "ensemble_ace") if k not in toy]
    if missing:
        raise ValueError(f"results['toys'] is missing {missing}: the ensemble's ACE curve over ε of Fig. 4 (a)")
    eps = np.asarray(toy["epsilons"], dtype=float)
    curve = np.asarray(toy["ensemble_ace"], dtype=float)
    if eps.ndim != 1 or eps.shape != curve.shape or not eps.size or not np.all(np.isfinite(curve)):
        raise ValueError(
            f"results['toys']: epsilons and ensemble_ace must be finite 1-d arrays of one length; got "
            f"shapes {eps.shape} and {curve.shape}"
        )
    order = np.argsort(eps)
    return eps[order], curve[order]


# ------------------------------------------------------------------------------------ Fig. 1, Prop. 1
def _fig1(cmp: Comparison, fig1: Mapping, paper: dict, where: str) -> None:
    """Fig. 1: the ensemble's optimal temperature, its reliability and its accuracy against the temperature."""
    F = paper["findings"]
    n = len(fig1)
    grid = next(iter(fig1.values())).get("grid")
    if grid is not None:
        g = np.asarray(grid, dtype=float)
        where = (
            f"optimal temperatures read off a {len(g)}-point grid over [{g.min():g}, {g.max():g}] (log-spaced; the "
            f"paper gives no grid); {where}"
        )
    temps = {}
    for t, r in fig1.items():
        mt = np.asarray(r["member_t"], dtype=float)
        se = float(mt.std(ddof=1) / math.sqrt(len(mt))) if len(mt) > 1 else 0.0
        temps[t] = ordered(
            r["ensemble_t"],
            float(mt.mean()),
            relation="<",
            se_b=se,
            z=_Z,
            names=("ensemble's t", "members' mean t"),
            replicates=len(mt),
            tolerance_source=f"{_Z:g} × SE of the members' mean optimal t (over the members)",
        )
    cmp.add(
        "Fig. 1 (middle)",
        "ensemble's optimal temperature below its members' (test set)",
        paper=F["fig1_temperature"]["paper"],
        book=", ".join(f"{t} {r['ensemble_t']:.2f} vs {np.mean(r['member_t']):.2f}" for t, r in fig1.items()),
        judgement=count_rule(temps, n, source="'consistently': every topology shown"),
        note=f"quote: {F['fig1_temperature']['quote']!r}; {where}",
    )
    under = {
        t: sign_claim(
            r["gap"],
            relation="<",
            se=r["gap_se"],
            z=_Z,
            name="confidence − accuracy",
            tolerance_source=f"{_Z:g} × SE over the test instances",
        )
        for t, r in fig1.items()
    }
    cmp.add(
        "Fig. 1 (bottom)",
        "ensemble of members calibrated at their optimal t under-confident (conf. − acc. < 0)",
        paper=F["fig1_reliability"]["paper"],
        book=", ".join(f"{t} {r['gap']:.3f}" for t, r in fig1.items()),
        judgement=count_rule(under, n, source="'for all models'"),
        note=f"quote: {F['fig1_reliability']['quote']!r}; {where}",
    )
    flat = {
        t: ordered(
            r["accuracy_range"],
            r["accuracy_gain"],
            relation="<",
            names=("accuracy range", "ensemble gain"),
            tolerance_source="exact numbers on one test set",
        )
        for t, r in fig1.items()
    }
    cmp.add(
        "Fig. 1 (top)",
        "ensemble accuracy robust to the members' temperature: its range over t ∈ [1/2, 2] below "
        "the ensemble's accuracy gain over its members",
        paper=F["fig1_accuracy"]["paper"],
        book=", ".join(
            f"{t} {100 * r['accuracy_range']:.2f} vs {100 * r['accuracy_gain']:.2f}" for t, r in fig1.items()
        ),
        judgement=count_rule(flat, n, source="'relatively robust': for every topology shown"),
        note=f"in percentage points; the paper gives no tolerance, so 'robust' is read against what ensembling "
        f"adds; quote: {F['fig1_accuracy']['quote']!r}; {where}",
    )


def _prop1(cmp: Comparison, props: Mapping, paper: dict) -> None:
    """Prop. 1 / Sec. 5: members calibrated each on its own make an under-confident ensemble."""
    C = paper["claims"]
    p1 = {
        t: sign_claim(
            r["gap"],
            relation="<",
            se=r["gap_se"],
            z=_Z,
            name="confidence − accuracy",
            tolerance_source=f"{_Z:g} × SE over the test instances",
        )
        for t, r in props.items()
    }
    cmp.add(
        "Prop. 1 / Sec. 5",
        "members calibrated each on its own (validation set) → under-confident ensemble (test set; conf. − acc. < 0)",
        paper=C["prop1"]["paper"],
        book=", ".join(f"{t} {r['gap']:.3f}" for t, r in props.items()),
        judgement=count_rule(p1, len(props), source="the paper's conclusion, for every ensemble"),
        note=f"quote (Sec. 5): {C['prop1']['quote']!r}",
    )


# ------------------------------------------------------------------------------------- Tables 1 / 5
def _paper_sig(r: Mapping, a: str, b: str) -> bool:
    """The paper's own ECE(a) < ECE(b) by more than its combined ±2σ (√(2σ_a² + 2σ_b²), over its ten runs)."""
    (ma, sa), (mb, sb) = r[a]["ece"], r[b]["ece"]
    return mb - ma > math.hypot(sa, sb)


_CLAIMS = {
    "improved": lambda r: all(_paper_sig(r, m, "none") for m in ("pre", "post", "dyn")),
    "pre": lambda r: _paper_sig(r, "pre", "none"),
    "post_pre": lambda r: _paper_sig(r, "post", "pre") or _paper_sig(r, "dyn", "pre"),
    "dyn_best": lambda r: all(_paper_sig(r, "dyn", m) for m in ("none", "pre", "post")),
    "dyn": lambda r: _paper_sig(r, "dyn", "none"),
}


def _paper_counts(table: Mapping) -> dict:
    """The paper's own per-topology counts from its Table 1 or 5: a topology counts when the paper's difference
    exceeds its own ±2σ (the significant differences, not the means), with the topologies that count."""
    out = {k: [t for t, r in table.items() if f(r)] for k, f in _CLAIMS.items()}
    return {k: len(v) for k, v in out.items()} | {"which": out, "n": len(table)}


#: How dyn. draws its regions (the paper, Table 1: six regions, drawn as it does not say).
_DYN = "dyn.: 6 regions of equal mass in the ensemble's confidence on the validation set"
_PAPER_SIG = "the paper's difference beyond its own ±2σ (√(2σ_a² + 2σ_b²) over its ten runs)"


def _count_row(cmp, name, quantity, parts, counts, key, n, note):
    """A claim counted over the topologies, with ``need`` from the paper's significant differences; where
    none of the paper's own differences is significant, its evidence does not decide the claim."""
    k, which = counts[key], counts["which"][key]
    book = f"{sum(j.verdict == AGREES for j in parts.values())} of {len(parts)}"
    paper_cell = f"{k} of {counts['n']} significant" + (f" ({', '.join(which)})" if which else "")
    if k == 0:
        judgement = not_decided_by_paper(
            count_rule(parts, 1), f"none of its {counts['n']} differences exceeds its ±2σ", tolerance_source=_PAPER_SIG
        )
    else:
        judgement = count_rule(parts, _need(k, counts["n"], n), source=_PAPER_SIG)
    cmp.add(name, quantity, paper=paper_cell, book=book, judgement=judgement, note=note)


def _other_table(dataset: str) -> tuple:
    c100 = str(dataset).lower().replace("-", "").replace("_", "") == "cifar100"
    return ("table5", "table4", "CIFAR-10") if c100 else ("table1", "table3", "CIFAR-100")


def _ensembles(cmp: Comparison, results: Mapping, paper: dict) -> None:
    """Tables 1 / 5 (the one of the dataset run): the claims counted over topologies, then each topology's dyn."""
    ref = wg_paper_reference(results["dataset"])
    name, table = ref["ensemble_name"], ref["ensemble"]
    key = "table1" if name.startswith("Table 1") else "table5"
    _ensemble_counts(cmp, results, name, table, paper["findings"][key]["quote"], paper)
    _ensemble_dyn(cmp, results, name, table)
    _other_ensemble_table(cmp, results, paper)


def _ensemble_counts(cmp: Comparison, results: Mapping, name: str, table: Mapping, quote: str, paper: dict) -> None:
    """Tables 1 / 5: pre, post and dyn. lower the ECE; pre alone; post or dyn. below pre; dyn. lowest."""
    ens = results["ensembles"]
    counts = _paper_counts(table)
    n = len(ens)
    floor_mean, floor_sd = results["ece_floor"]
    where = _where(results)
    setting = (
        f"{where}; ECE of an exactly calibrated ensemble on this test set {floor_mean:.2f} ± {floor_sd:.2f} "
        f"(1e-2); 'pre' fits the member temperatures to the ensemble's ECE (the reading the paper's LeNet "
        f"numbers imply; the members-fitted reading is in the cell 'The two readings of pre'); {_DYN}"
    )

    improved = {
        t: combine([_sign(p, m, "none", "<") for m in ("pre", "post", "dyn")], rule="all") for t, p in ens.items()
    }
    _count_row(
        cmp,
        name,
        "pre, post and dyn. each lower the ensemble's ECE (topologies)",
        improved,
        counts,
        "improved",
        n,
        f"{setting}; quote: {quote!r}",
    )
    pre = {t: _sign(p, "pre", "none", "<") for t, p in ens.items()}
    _count_row(
        cmp,
        name,
        "pre (member temperatures fitted to the ensemble) lowers the ensemble's ECE (topologies)",
        pre,
        counts,
        "pre",
        n,
        f"quote (Table 1 caption): {paper['claims']['pre_mode']['quote']!r}; {where}",
    )
    post_pre = {t: combine([_sign(p, m, "pre", "<") for m in ("post", "dyn")], rule="any") for t, p in ens.items()}
    _count_row(
        cmp, name, "post or dyn. has a lower ECE than pre (topologies)", post_pre, counts, "post_pre", n, setting
    )
    dyn_best = {
        t: combine([_sign(p, "dyn", m, "<") for m in ("none", "pre", "post")], rule="all") for t, p in ens.items()
    }
    _count_row(
        cmp,
        name,
        "dyn. has the lowest ECE (topologies)",
        dyn_best,
        counts,
        "dyn_best",
        n,
        f"{setting}; the paper's sentence 'with the dynamic approach yielding the best performance' is said of "
        f"Table 1 (CIFAR-100){'; quote: ' + repr(quote) if name.startswith('Table 1') else ''}",
    )


def _ensemble_dyn(cmp: Comparison, results: Mapping, name: str, table: Mapping) -> None:
    """Tables 1 / 5, one row per topology: dyn. lowers the ECE of the uncalibrated ensemble."""
    where = _where(results)
    for t, p in results["ensembles"].items():
        pr = table[t]
        none, _ = _est(p, "none")
        dyn, _ = _est(p, "dyn")
        acc, acc_se = _est(p, "none", metric="accuracy")
        j = _sign(p, "dyn", "none", "<")
        d, lim = pr["none"]["ece"][0] - pr["dyn"]["ece"][0], math.hypot(pr["none"]["ece"][1], pr["dyn"]["ece"][1])
        if not _paper_sig(pr, "dyn", "none"):
            j = not_decided_by_paper(
                j, f"its difference {d:.2f} is within its ±2σ {lim:.2f} ({d / lim:.1f}×)", tolerance_source=_PAPER_SIG
            )
        cmp.add(
            name,
            f"{t}: dyn. lowers the ECE (1e-2) of the uncalibrated ensemble",
            paper=f"{pr['none']['ece'][0]} → {pr['dyn']['ece'][0]}; accuracy {pr['none']['accuracy'][0]} %",
            book=f"{100 * none:.2f} → {100 * dyn:.2f}; accuracy {100 * acc:.2f} ± {100 * acc_se:.2f} %",
            judgement=j,
            note=f"{where}; the paper's difference {d:.2f} against its ±2σ {lim:.2f}; {_DYN}",
        )


def _other_ensemble_table(cmp: Comparison, results: Mapping, paper: dict) -> None:
    """Table 5 / 1 (the dataset not run): not run here (Table 1 is run in the CIFAR-100 regime when given)."""
    key1, key3, data = _other_table(results["dataset"])
    if key1 == "table1" and results.get("regime") is not None:
        return
    other = paper[key1]
    cmp.not_run(
        f"{other['source'].split(',')[0]} ({data})",
        "ensembles of one topology: ECE (1e-2) none / pre / post / dyn.",
        paper="; ".join(
            f"{t} " + " / ".join(f"{r[m]['ece'][0]:g}" for m in ("none", "pre", "post", "dyn"))
            for t, r in other["rows"].items()
        ),
        reason=f"{data} is not on this machine (no download); this build runs {results['dataset']}",
        tested_by=f"{_TESTS}::TestCalibrationStudy (the same study on synthetic logits)",
        note=f"{data} runs with dataset='{data.lower().replace('-', '')}' and scale='paper' where the files "
        f"are supplied (see Reproducing the book)",
    )


def _singles(cmp: Comparison, results: Mapping, paper: dict, held: Mapping | None = None) -> None:
    ref = wg_paper_reference(results["dataset"])
    singles, where = results["singles"], _where(results)
    C = paper["claims"]["single_temperature_scaling"]
    reg = results.get("regime")
    regime_singles = reg.get("singles") if isinstance(reg, Mapping) and not reg.get("pending") else None

    def before_after(rows):
        return ", ".join(f"{t} {100 * _est(p, 'none')[0]:.2f} → {100 * _est(p, 'ts')[0]:.2f}" for t, p in rows.items())

    judged = regime_singles or singles  # Guo et al.'s networks are over-confident: the regime's members, when run
    ts = {t: _sign(p, "ts", "none", "<") for t, p in judged.items()}
    if regime_singles:
        book = f"{before_after(regime_singles)}; today's members (the control): {before_after(singles)}"
        setting = f"the members of the {regime_setting(reg)}; {premise_note(held)}; the control: {where}"
    else:
        book, setting = before_after(singles), where
    cmp.add(
        "Sec. 1 (citing Guo et al., 2017)",
        "temperature scaling lowers a single member's ECE (topologies; mean over the members)",
        paper=C["paper"],
        book=book,
        judgement=count_rule(ts, len(ts), source="Guo et al.'s finding as the paper cites it, for every topology"),
        note=f"a finding of Guo et al. (2017) that the paper cites, not one of its own (its Tables 3 and 4 have no "
        f"temperature-scaled single models); quote: {C['quote']!r}; {setting}",
    )
    _lenet_weaker(cmp, singles, ref["single"], ref["single_name"], where)
    _ensembling(cmp, singles, results["ensembles"], ref, paper, where)
    key1, key3, data = _other_table(results["dataset"])
    other = paper[key3]
    cmp.not_run(
        f"{other['source'].split(',')[0]} ({data})",
        "single models, 90 % of the training images: accuracy (%), ECE (1e-2)",
        paper="; ".join(f"{t} {r['90']['accuracy']:g}, {r['90']['ece']:g}" for t, r in other["rows"].items()),
        reason=f"{data} is not on this machine (no download); this build runs {results['dataset']}",
        tested_by=f"{_TESTS}::TestSingleModelAndRegions::test_single_model",
        note="the 100 % rows need members trained on all training images, which the book does not train",
    )
    cmp.not_run(
        "Tables 3 and 4",
        "single models trained on 100 % vs 90 % of the training images: accuracy (%)",
        paper="; ".join(
            f"{d} "
            + ", ".join(f"{t} {r['100']['accuracy']:g} vs {r['90']['accuracy']:g}" for t, r in paper[k]["rows"].items())
            for k, d in (("table3", "CIFAR-100"), ("table4", "CIFAR-10"))
        ),
        reason="the book trains its members on 90 % of the training images only (5,000 held out for the "
        "temperatures and weights, as the paper's ensembles); the paper's own 100 % vs 90 % differences are "
        "single runs without a spread",
        tested_by=f"{_TESTS}::TestSingleModelAndRegions::test_single_model",
    )


def _lenet_weaker(cmp: Comparison, singles: Mapping, single_ref: Mapping, name: str, where: str) -> None:
    """Tables 3 / 4: LeNet less accurate than each deep topology, and by a margin of the paper's size."""
    acc = {t: _est(p, "none", metric="accuracy") for t, p in singles.items()}
    deep = [t for t in singles if t != "LEN"]
    if "LEN" not in singles or not deep:
        return
    cmp.add(
        name,
        "LeNet less accurate than each deep topology, by a large margin (single models, 90 % of the training images)",
        paper=", ".join(f"{t} {single_ref[t]['none']['accuracy'][0]}" for t in singles),
        book=", ".join(f"{t} {100 * acc[t][0]:.1f}" for t in singles),
        judgement=_lenet_margin({t: a for t, a in acc.items()}, _paper_accuracy(single_ref)),
        cause="The members: four topologies (the table of member accuracies: LeNet is not far weaker here)",
        keep_cause=True,
        note=f"{where}; the paper's topologies are far deeper than the CPU-sized ones",
    )


def _paper_accuracy(single_ref: Mapping) -> dict:
    """topology -> the paper's single-model accuracy (fraction) from the reference rows of Table 3 or 4."""
    return {t: r["none"]["accuracy"][0] / 100 for t, r in single_ref.items()}


def _lenet_margin(acc: Mapping, paper_acc: Mapping) -> Judgement:
    """LeNet less accurate than each deep topology, and by a margin of the paper's size.

    ``acc``: topology -> (accuracy, SE); ``paper_acc``: topology -> the paper's accuracy. Per deep topology t,
    both must hold: acc(LEN) < acc(t) (2 SE) and LeNet's error at least ``1 + (r − 1)/2`` times t's, r the
    paper's smallest ratio of LeNet's error to a deep topology's (half the paper's excess error; the paper's
    gap is 20-38 pp, so an order alone would agree with a gap of a tenth of a point).
    """
    deep = [t for t in acc if t != "LEN"]
    r = min((1 - paper_acc["LEN"]) / (1 - paper_acc[t]) for t in deep)
    f = 1 + (r - 1) / 2
    e_len, se_len = 1 - acc["LEN"][0], acc["LEN"][1]
    parts = {}
    for t in deep:
        order = ordered(
            acc["LEN"][0],
            acc[t][0],
            relation="<",
            se_a=se_len,
            se_b=acc[t][1],
            z=_Z,
            names=("LEN accuracy", f"{t} accuracy"),
        )
        size = ordered(
            e_len,
            f * (1 - acc[t][0]),
            relation=">",
            se_a=se_len,
            se_b=f * acc[t][1],
            z=_Z,
            names=("LEN error", f"{f:.2f} × {t} error"),
        )
        parts[t] = combine([order, size], rule="all")
    return count_rule(
        parts,
        len(parts),
        source=f"{_Z:g} × SE (bootstrap over the test instances and over the members); margin: half the paper's "
        f"excess error ratio ({r:.2f} → {f:.2f})",
    )


def _ensembling(cmp: Comparison, singles: Mapping, ens: Mapping, ref: Mapping, paper: dict, where: str) -> None:
    """Tables 4 → 5 / 3 → 1: ensembling ten copies lowers the ECE of the deep topologies and raises LeNet's."""
    F = paper["findings"]["ensembling"]
    single_ref, ens_ref = ref["single"], ref["ensemble"]
    common = [t for t in singles if t in ens]
    if not common:
        return
    parts, book = {}, []
    for t in common:
        a, sa = _est(ens[t], "none")
        b, sb = _est(singles[t], "none")
        parts[t] = ordered(
            100 * a,
            100 * b,
            relation=">" if t == "LEN" else "<",
            se_a=100 * sa,
            se_b=100 * sb,
            z=_Z,
            names=(f"{t} ensemble ECE", "members' ECE"),
            tolerance_source=f"{_Z:g} × SE: bootstrap over the test instances and the spread over runs / members",
        )
        book.append(f"{t} {100 * b:.2f} → {100 * a:.2f}")
    pcell = ", ".join(f"{t} {single_ref[t]['none']['ece'][0]:g} → {ens_ref[t]['none']['ece'][0]:g}" for t in common)
    cmp.add(
        f"{ref['single_name'].split(' (')[0]} → {ref['ensemble_name']}",
        "ensembling copies of one topology lowers the deep topologies' ECE (1e-2) and raises LeNet's",
        paper=pcell,
        book=", ".join(book),
        judgement=count_rule(parts, len(parts), source="the paper's text: DenseNet and ResNet improve, LeNet does not"),
        cause="The members: four topologies (whether the deep members are over-confident and LeNet less so)",
        keep_cause=True,
        note=f"the paper's sentence is said of CIFAR-10 (Table 4 → 5) and holds for Table 3 → 1 as well; single "
        f"models: mean over the members; quote: {F['quote']!r}; {where}",
    )


def _fig3(cmp: Comparison, results: Mapping, paper: dict) -> None:
    regions = results["regions"]
    F = paper["findings"]["fig3"]
    first = next(iter(regions.values()))
    labels = list(first)
    r1, rmax = labels[0], labels[-1]
    # mean over the deep topologies: every study uses the same test resamples, so the bootstrap stays paired
    runs = {m: np.mean([np.mean(p[m]["ece"]["runs"]) for p in regions.values()]) for m in (r1, rmax)}
    boot = {m: np.mean([np.mean(p[m]["ece"]["boot"], axis=1) for p in regions.values()], axis=0) for m in (r1, rmax)}
    d, se = paired_estimate([runs[rmax]], boot[rmax][:, None], [runs[r1]], boot[r1][:, None])
    floor_mean, floor_sd = results["ece_floor"]
    cmp.add(
        "Fig. 3",
        f"more regions improve dyn.: mean test ECE (1e-2) over the deep topologies, {r1} vs {rmax}",
        paper=F["paper"],
        book=f"{100 * runs[r1]:.2f} vs {100 * runs[rmax]:.2f}",
        judgement=sign_claim(
            100 * d,
            relation="<",
            se=100 * se,
            z=_Z,
            name=f"ECE({rmax}) − ECE({r1}) (1e-2)",
            tolerance_source=f"{_Z:g} × SE: bootstrap over the test instances (paired)",
        ),
        note=f"ECE of an exactly calibrated ensemble on this test set {floor_mean:.2f} ± {floor_sd:.2f} (1e-2); "
        f"quote: {F['quote']!r}",
    )
