"""Helpers of the EU chapter's cells that no part of the plan (:func:`credalbook.papers.eu.eu_plan`) runs.

The chapter's later sections (carving ranges, the cause of the toy results, the real-data analogue) use, at paper
scale, only the parts whose records are already computed: :func:`recorded_fits` selects and runs them. It takes
the book's record functions as arguments, so that the papers' code does not import the book.
:func:`toy_view`, :func:`carving_view` and :func:`real_view` compute what the cells of Table 1, the carving study
and Table 2 show: the numbers the prose glues (``glues``: name → value) and the tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from credalbook._validation import check_choice
from credalbook.papers.eu.analysis import available_study, carving_sentence, drop_carved_discs, study_numbers
from credalbook.papers.eu.floor import study_floors
from credalbook.papers.eu.reported import EU_ESTIMATORS, EU_METRICS, EU_PAPER_TABLE1, EU_PAPER_TABLE2
from credalbook.papers.eu.toy_data import toy_eu_splits
from credalbook.papers.presets import SCALES

__all__ = ["recorded_fits", "StudyView", "toy_view", "real_view", "paper_table2", "carving_view"]


def recorded_fits(parts, *, scale: str, part_state: Callable, run_parts: Callable) -> dict:
    """``{part name: value}`` of the ``parts`` a later section of the chapter may use: all of them below ``"paper"``
    scale, at ``"paper"`` scale only those whose record is up to date (``"recorded"``); ``{}`` when none is.

    Parameters
    ----------
    parts : iterable of Part
        The parts of a group of the plan (:meth:`credalbook.papers.eu.EUPlan.group_parts`).
    scale : {"tiny", "quick", "paper"}
        The chapter's scale.
    part_state : callable
        ``part_state(part)``: the state of the part's record, a str or an object with a ``state`` attribute (the
        book's ``credalbook.book.records.part_state`` with the chapter and scale bound). Called at ``"paper"``
        scale only.
    run_parts : callable
        ``run_parts(parts)``: ``{part name: value}`` of the chosen parts, loaded from their records or computed (the
        book's ``credalbook.book.records.run_parts`` with the chapter and scale bound). Not called when no part is
        chosen.

    Returns
    -------
    dict
        What ``run_parts`` returns for the chosen parts, or ``{}``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> parts = [SimpleNamespace(name="a"), SimpleNamespace(name="b")]
    >>> state = {"a": "recorded", "b": "missing"}.get
    >>> run = lambda chosen: {p.name: len(p.name) for p in chosen}
    >>> recorded_fits(parts, scale="paper", part_state=lambda p: state(p.name), run_parts=run)
    {'a': 1}
    >>> recorded_fits(parts, scale="tiny", part_state=lambda p: state(p.name), run_parts=run)
    {'a': 1, 'b': 1}
    """
    scale = check_choice(scale, "scale", SCALES)
    if not callable(part_state):
        raise TypeError(f"part_state must be callable; got {type(part_state).__name__}")
    if not callable(run_parts):
        raise TypeError(f"run_parts must be callable; got {type(run_parts).__name__}")
    ready = [p for p in parts if scale != "paper" or getattr(s := part_state(p), "state", s) == "recorded"]
    return run_parts(ready) if ready else {}


@dataclass(frozen=True)
class StudyView:
    """What a cell shows of a study: ``glues`` (name → value for the prose), a ``table`` (row → column → value),
    and each estimator's mean EECE ``floor`` over the seeds."""

    glues: dict
    table: dict
    floor: dict


def _study_glues(study, prefix: str, metrics) -> tuple[dict, dict, dict]:
    """``(glues, floors, floor)`` of a study: our mean of each of ``metrics`` (``<prefix>_<metric>_<M|E>``), each
    estimator's own EECE floor per seed (``floors``, :func:`~credalbook.papers.eu.study_floors`) and its mean over
    the seeds (``floor``, glued as ``<prefix>_floor_<M|E>``), and the mean gain (``<prefix>_gain``)."""
    summary = study.summary()
    glues = {f"{prefix}_{m}_{k}": summary[k][m][0] for k in EU_ESTIMATORS for m in metrics}
    floors = study_floors(study)  # each estimator's own floor, on its own intervals, per seed
    floor = {k: float(np.mean(floors[k])) for k in EU_ESTIMATORS}
    glues.update({f"{prefix}_floor_{k}": floor[k] for k in EU_ESTIMATORS})
    glues[f"{prefix}_gain"] = np.mean([r.gain.mean() for r in study.runs])
    return glues, floors, floor


def toy_view(toy_study, toy) -> StudyView:
    """Table 1's study on the toy data: per seed (the ``table``) the mean gain and estimates, the accuracies of
    f_tr and f_aug, each estimator's own EECE floor (:func:`~credalbook.papers.eu.study_floors`) and the test size;
    ``glues``: our mean of every metric (``toy_<metric>_<M|E>``, EECE in bits too), the paper's ρ_epi and
    calibrated EECE (``paper_rho_*``, ``paper_cal_*``), the mean gain (``toy_gain``), the floors
    (``toy_floor_*``) and the Bayes accuracy on the test points of ``toy`` (the splits of seed ``seed``,
    ``toy_bayes_test``)."""
    glues, floors, floor = _study_glues(toy_study, "toy", (*EU_METRICS, "eece_bits"))
    table = {
        f"seed {r.seed}": {
            "mean gain": r.gain.mean(),
            "mean Ê_M": r.eu["M"].mean(),
            "mean Ê_E": r.eu["E"].mean(),
            "acc. f_tr": r.accuracy["train"],
            "acc. f_aug": r.accuracy["aug"],
            "floor Ê_M": floors["M"][i],
            "floor Ê_E": floors["E"][i],
            "test points": r.sizes["test"],
        }
        for i, r in enumerate(toy_study.runs)
    }
    for k in EU_ESTIMATORS:  # Table 1 of the paper
        glues[f"paper_rho_{k}"] = EU_PAPER_TABLE1[k]["rho_epi"][0]
        glues[f"paper_cal_{k}"] = EU_PAPER_TABLE1[k]["calibrated_eece"][0]
    glues["toy_bayes_test"] = 1 - toy.aleatoric[toy.evaluation.test].mean()
    return StudyView(glues, table, floor)


def real_view(real_study) -> StudyView:
    """Table 2's study on the real data (``real_<metric>_<M|E>``, the floors ``real_floor_*``, the mean gain,
    the accuracies of f_tr and f_aug and the mean test size over the seeds); its ``table`` is the paper's
    Table 2 (:func:`paper_table2`)."""
    glues, _, floor = _study_glues(real_study, "real", EU_METRICS)
    runs = real_study.runs
    glues["real_acc_tr"] = np.mean([r.accuracy["train"] for r in runs])
    glues["real_acc_aug"] = np.mean([r.accuracy["aug"] for r in runs])
    glues["real_test"] = int(np.mean([r.sizes["test"] for r in runs]))
    return StudyView(glues, paper_table2(), floor)


def paper_table2() -> dict:
    """The paper's Table 2 as text, ``"<dataset> · Ê_<M|E>"`` → column → ``"mean ± sd"``.

    >>> paper_table2()["EMNIST · Ê_M"]["ρ_epi"]
    '0.088 ± 0.02'
    """
    columns = (("ρ_epi", "rho_epi"), ("EECE", "eece"), ("Calib. EECE", "calibrated_eece"))
    return {
        f"{d} · Ê_{k}": {c: "{:.3g} ± {:.2g}".format(*EU_PAPER_TABLE2[d][k][m]) for c, m in columns}
        for d in EU_PAPER_TABLE2
        for k in EU_ESTIMATORS
    }


def carving_view(plan, recorded: Callable, toy_study, *, ranges, toy_noise_sd: float, window, discs, n_bins: int):
    """The carving study ('How much is carved'): ``(carving, dropped, sentence)``.

    ``carving``: kept-fraction range ``"lo-hi"`` → :func:`~credalbook.papers.eu.analysis.study_numbers` of its
    group ``carving_<lo>-<hi>`` of ``plan`` (the fits ``recorded`` returns; planned: the toy study's seeds);
    ``dropped``: the main design's study without its most-carved third of discs (re-analysis of ``toy_study`` on the
    splits of every seed, :func:`~credalbook.papers.eu.analysis.drop_carved_discs`); ``sentence``: what the chapter
    says of them (:func:`~credalbook.papers.eu.analysis.carving_sentence`).
    """
    carving = {}
    for lo, hi in ranges:
        group = f"carving_{lo:g}-{hi:g}"
        study, _ = available_study(plan, group, recorded(plan.group_parts(group)), name=group)
        carving[f"{lo:g}-{hi:g}"] = study_numbers(study, planned=len(toy_study.seeds))
    splits = {
        s: toy_eu_splits(seed=s, noise_sd=toy_noise_sd, window=window, evaluation=discs, calibration=discs)
        for s in toy_study.seeds
    }
    dropped = drop_carved_discs(toy_study, splits, n_drop=int(np.prod(discs["shape"])) // 3, n_bins=n_bins)
    return carving, dropped, carving_sentence(carving, dropped)
