r"""Re-analyses of recorded EU runs for the chapter's studies: the seeds at hand, the design without its most-carved
discs, and the per-seed numbers :func:`credalbook.papers.eu.compare` judges.

No GP is refitted here: every function works on the runs of a :class:`credalbook.papers.eu.EUStudy` (the latent
posteriors its parts recorded, turned into estimates by :meth:`credalbook.papers.eu.EUPlan.study`).
"""

from __future__ import annotations

import numpy as np

from credalbook.metrics.epistemic import evaluate_eu, fit_eu_calibration, interval_cuts
from credalbook.papers.eu.floor import eece_floor, study_floors
from credalbook.papers.eu.reported import EU_ESTIMATORS, EU_METRICS

__all__ = ["available_study", "carving_sentence", "drop_carved_discs", "study_numbers", "studies_table"]


def available_study(plan, group: str, fits: dict, *, name: str | None = None):
    """The study of ``group`` over the seeds whose fits are all in ``fits``, and the seeds still pending.

    Returns ``(study, pending)``: an :class:`credalbook.papers.eu.EUStudy` (None when no seed is complete) and the
    list of seeds of the plan whose parts are not all in ``fits`` (parts not yet computed at ``paper`` scale).

    Examples
    --------
    >>> from credalbook.papers.eu import eu_plan
    >>> from credalbook.papers.presets import preset
    >>> plan = eu_plan(preset("05_epistemic_uncertainty_gp", "tiny"))
    >>> available_study(plan, "carving_0.25-0.85", {})
    (None, [0, 1])
    """
    from credalbook.papers.eu.parts import EUPlan

    if group not in plan.runs:
        raise ValueError(f"group must be one of {sorted(plan.runs)}; got {group!r}")
    ready = [run for run in plan.runs[group] if all(n in fits for n in run[1].values())]
    pending = [run[0] for run in plan.runs[group] if run not in ready]
    if not ready:
        return None, pending
    return EUPlan(parts=plan.parts, runs={group: ready}).study(group, fits, name=name), pending


def study_numbers(study, *, planned: int | None = None) -> dict:
    """What :func:`credalbook.papers.eu.compare` receives of a study: per-seed metrics, each estimator's EECE floor
    (:func:`credalbook.papers.eu.study_floors`), the per-interval curves of Figs. 3-4 and the seeds.

    ``planned``: the number of seeds the study is planned with (default: those it holds). ``study`` None (no seed
    computed yet) gives ``{"seeds": [], "planned": planned}``.
    """
    if study is None:
        return {"seeds": [], "planned": planned}
    curves = {}
    for k in EU_ESTIMATORS:
        c = study.curves(k)
        curves[k] = {w: np.asarray(getattr(c, w), dtype=np.float64).tolist() for w in ("raw", "calibrated", "gain")}
    return {
        "values": study.seed_values(),
        "floors": study_floors(study),
        "curves": curves,
        "seeds": list(study.seeds),
        "planned": len(study.seeds) if planned is None else int(planned),
    }


def _kept(ball: np.ndarray, p_train: np.ndarray, n_drop: int) -> np.ndarray:
    drop = np.argsort(np.asarray(p_train), kind="stable")[:n_drop]
    return ~np.isin(ball, drop)


def drop_carved_discs(study, splits, *, n_drop: int = 4, n_bins: int = 20) -> dict:
    r"""The toy runs of ``study`` re-analysed without the test points of their ``n_drop`` most-carved discs.

    For each run, the test points (of :math:`\mathcal D_{test}` and :math:`\mathcal D_{test,2}`) that lie in the
    ``n_drop`` discs with the smallest kept fraction :math:`p_i` are removed; on the rest, new equal-mass intervals,
    a new calibration map :math:`\gamma` and the three metrics, from the same estimates and gains (no GP refitted).
    ``splits``: seed -> the run's :class:`credalbook.papers.eu.ToySplits` (which give each test point's disc).

    Returns ``{"values": estimator -> metric -> per-seed list, "floors": estimator -> per-seed list, "seeds": ...,
    "n_drop": n_drop}``, the form of :func:`study_numbers` (without curves).
    """
    if isinstance(n_drop, bool) or not isinstance(n_drop, int) or n_drop < 0:
        raise ValueError(f"n_drop must be a non-negative int; got {n_drop!r}")
    values = {k: {m: [] for m in EU_METRICS} for k in EU_ESTIMATORS}
    floors = {k: [] for k in EU_ESTIMATORS}
    for run in study.runs:
        t = splits[run.seed]
        keep = _kept(t.evaluation.ball[run.test_index], t.evaluation_layout.p_train, n_drop)
        keep2 = _kept(t.calibration.ball[run.calibration_test_index], t.calibration_layout.p_train, n_drop)
        if min(keep.sum(), keep2.sum()) < n_bins:
            raise ValueError(
                f"n_drop={n_drop} leaves {keep.sum()} test points and {keep2.sum()} calibration test points in seed "
                f"{run.seed}, fewer than n_bins = {n_bins}"
            )
        gain, gain2 = run.gain[keep], run.calibration_gain[keep2]
        for k in EU_ESTIMATORS:
            eu = run.eu[k][keep]
            cuts = interval_cuts(eu, n_bins=n_bins)
            gamma = fit_eu_calibration(run.calibration_eu[k][keep2], gain2, cuts=cuts)
            ev = evaluate_eu(eu, gain, cuts=cuts, calibration=gamma)
            for m in EU_METRICS:
                values[k][m].append(float(getattr(ev, m)))
            floors[k].append(eece_floor(eu, gain, cuts=cuts))
    seeds = [r.seed for r in study.runs]
    return {"values": values, "floors": floors, "seeds": seeds, "planned": len(seeds), "n_drop": n_drop}


def _ms(values) -> str:
    v = np.asarray(values, dtype=np.float64)
    return f"{v.mean():.4f} ± {v.std(ddof=1):.4f}" if v.size > 1 else f"{v.mean():.4f}"


def studies_table(studies: dict, *, paper: dict | None = None):
    """A :class:`credalbook.papers.report.Table` of studies side by side: per study and estimator, mean ± sd over
    the seeds of ρ_epi, the raw and the calibrated EECE, the estimator's own EECE floor and the calibrated EECE
    minus that floor, and how many of the planned seeds are computed. ``studies``: label -> :func:`study_numbers`;
    ``paper``: estimator -> metric -> (mean, sd), shown first.

    >>> nums = {"M": [0.1, 0.2], "E": [0.2, 0.3]}
    >>> st = {"values": {k: {m: nums[k] for m in EU_METRICS} for k in nums}, "floors": {k: [0.0, 0.1] for k in nums},
    ...       "seeds": [0, 1], "planned": 6}
    >>> t = studies_table({"a": st, "b": {"seeds": [], "planned": 6}})
    >>> t.rows["a · Ê_M"]["ρ_epi"], t.rows["a · Ê_M"]["seeds"], t.rows["b"]["seeds"]
    ('0.1500 ± 0.0707', '2 of 6', 'pending: 0 of 6')
    """
    from credalbook.papers.report import Table

    rows = {}
    for k in EU_ESTIMATORS if paper else ():
        rows[f"paper · Ê_{k}"] = {
            "ρ_epi": "{:g} ± {:g}".format(*paper[k]["rho_epi"]),
            "EECE": "{:g} ± {:g}".format(*paper[k]["eece"]),
            "calib. EECE": "{:g} ± {:g}".format(*paper[k]["calibrated_eece"]),
        }
    for label, st in studies.items():
        n, planned = len(st.get("seeds", [])), st.get("planned") or len(st.get("seeds", []))
        if not n:
            rows[label] = {"seeds": f"pending: 0 of {planned}"}
            continue
        for k in EU_ESTIMATORS:
            v, f = st["values"][k], np.asarray(st["floors"][k], dtype=np.float64)
            rows[f"{label} · Ê_{k}"] = {
                "ρ_epi": _ms(v["rho_epi"]),
                "EECE": _ms(v["eece"]),
                "calib. EECE": _ms(v["calibrated_eece"]),
                "own floor": _ms(f),
                "calib. − floor": _ms(np.asarray(v["calibrated_eece"], dtype=np.float64) - f),
                "seeds": f"{n} of {planned}",
            }
    return Table(rows, index_name="mean ± sd over the seeds computed")


def _mean(st: dict, k: str, m: str) -> float:
    return float(np.mean(st["values"][k][m]))


def carving_sentence(carving: dict, dropped: dict) -> str:
    """The carving study in words, from its numbers (glued into the chapter): each range's ρ_epi and raw EECE of
    Ê_M, the seeds computed, and the re-analysis without the most-carved discs.

    >>> v = {"values": {k: {m: [0.1, 0.2] for m in EU_METRICS} for k in EU_ESTIMATORS}, "seeds": [0, 1], "planned": 2}
    >>> carving_sentence({"0-0.6": v, "0.25-0.85": {"seeds": [], "planned": 6}}, v)[:60]
    'With kept fractions 0–0.6 (2 of 2 seeds): ρ_epi 0.150 (Ê_M) '
    """
    parts = []
    for label, st in carving.items():
        design = "kept fractions " + label.replace("-", "–", 1)
        if not st.get("seeds"):
            parts.append(f"with {design} no seed is computed yet at this scale (pending: {st.get('planned')} seeds)")
            continue
        parts.append(
            f"with {design} ({len(st['seeds'])} of {st.get('planned') or len(st['seeds'])} seeds): ρ_epi "
            f"{_mean(st, 'M', 'rho_epi'):.3f} (Ê_M) and {_mean(st, 'E', 'rho_epi'):.3f} (Ê_E), raw EECE of Ê_M "
            f"{_mean(st, 'M', 'eece'):.4f}, calibrated EECE {_mean(st, 'M', 'calibrated_eece'):.4f} (Ê_M) and "
            f"{_mean(st, 'E', 'calibrated_eece'):.4f} (Ê_E)"
        )
    text = "; ".join(parts)
    text = text[0].upper() + text[1:] + ". "
    if dropped.get("seeds") and not dropped.get("n_drop", 1):
        text += "(The re-analysis without the most-carved discs drops none at this scale: too few discs.)"
    elif dropped.get("seeds"):
        text += (
            f"Without the test points of its {dropped.get('n_drop', 'most-carved')} most-carved discs, the main design's recorded runs give ρ_epi "
            f"{_mean(dropped, 'M', 'rho_epi'):.3f} (Ê_M) and {_mean(dropped, 'E', 'rho_epi'):.3f} (Ê_E) and a raw "
            f"EECE of Ê_M of {_mean(dropped, 'M', 'eece'):.4f} ({len(dropped['seeds'])} seeds; a re-analysis "
            "chosen after seeing the paper's numbers)."
        )
    return text
