"""What the cells of the Jürgens et al. chapter show, computed from the runs they load.

Each function takes what a cell has loaded (records of parts, the chapter's preset) and returns plain numbers and
tables; the cell glues and displays them. :func:`chapter_results` gathers the measurements into the dict that
:func:`credalbook.papers.juergens.compare` judges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook.metrics import mmd_calibration_error
from credalbook.papers.juergens.authors_code import authors_mmd_kce, kl_gradient_check, lp_clamp_effect
from credalbook.papers.juergens.error_rates import summarise_error_rates
from credalbook.papers.juergens.parts import AUTHORS_GENERATOR_HYPOTHESES
from credalbook.papers.juergens.real_sets import TABLE1_KINDS
from credalbook.papers.juergens.rows import summaries_by_setting
from credalbook.papers.mortier import PAPER_ALPHAS

__all__ = ["AuthorsRuns", "authors_runs", "estimator_checks", "chapter_results"]


@dataclass(frozen=True)
class AuthorsRuns:
    """The authors' generators and settings (Figs. 3-4), summarised: see :func:`authors_runs`."""

    binary: dict
    settings: dict
    rates: dict
    glues: dict


def authors_runs(binary: dict, settings: dict, book_binary: dict, *, seed: int = 0) -> AuthorsRuns:
    """The studies of the authors' binary generator and of their settings, beside the book's binary studies.

    Parameters
    ----------
    binary : dict
        Part name ``authors-binary-<hypothesis>`` → its study (the records of the group ``authors-binary``).
    settings : dict
        Part name ``authors-settings-...`` → its study (group ``authors-settings``).
    book_binary : dict
        Hypothesis → the book's binary study (Fig. 3).
    seed : int
        Seed of the summaries' intervals.

    Returns
    -------
    AuthorsRuns
        ``binary``: :func:`~credalbook.papers.juergens.summarise_error_rates` of the authors' binary generator;
        ``settings``: the summaries by setting of the authors' settings (judged by the Figs. 3-4 rows); ``rates``:
        part · measure → error rate at α = 0.05 and 0.1 of the new test, the authors' baseline "Mortier v0", and
        Mortier et al.'s test under the authors' settings; ``glues``: the far alternative's Type II error of
        L2 (``authors_far_type2``, ``book_far_type2``) and the mean (Type I − α) over the authors' H0 settings of
        Mortier et al.'s test and of "Mortier v0" on the same data sets, L2/KL/MMD (``h0_gap_Mortier``,
        ``h0_gap_Mortier_v0``).
    """
    authors_binary = summarise_error_rates(
        {h: binary[f"authors-binary-{h.lower()}"] for h in AUTHORS_GENERATOR_HYPOTHESES}, seed=seed
    )
    far = next(
        c for c in authors_binary["h1_cells"] if (c["panel"], c["kind"], c["estimator"]) == ("H1-3", "new", "L2-CE")
    )
    glues = {
        "authors_far_type2": far["k"] / far["n"],
        "book_far_type2": summarise_error_rates(book_binary, seed=seed)["type2_by_panel"]["H1-3"],
    }
    rates = {
        f"{name} · {m}": {f"α={a:g}": float(e) for a, e in zip((0.05, 0.1), errs)}
        for name, st in {**binary, **settings}.items()
        for m, errs in zip(st.measures, st.error_rates([0.05, 0.1]))
        if m.endswith(("new", "Mortier v0")) or (m.endswith("Mortier") and name.startswith("authors-settings"))
    }
    h0 = [st for st in settings.values() if st.is_null]
    for kind in ("Mortier", "Mortier v0"):
        gaps = [
            e - a
            for st in h0
            for m, errs in zip(st.measures, st.error_rates(PAPER_ALPHAS))
            if m.endswith(f"· {kind}") and not m.startswith("SKCE")
            for e, a in zip(errs, PAPER_ALPHAS)
        ]
        glues[f"h0_gap_{kind.replace(' ', '_')}"] = float(np.mean(gaps))
    by_setting = summaries_by_setting(settings, "authors-settings", seed=seed)
    return AuthorsRuns(authors_binary, by_setting, rates, glues)


def estimator_checks(*, n_batches: int, seed: int = 0) -> dict:
    """Three checks of the authors' estimators against the book's, as tables (name → row → value).

    ``"unsound"``: :func:`~credalbook.papers.juergens.lp_clamp_effect` of the authors' float32, clamped L2 at
    K = 3 and 10, batches of N = 16 and 64 (``n_batches`` batches each); ``"mmd"``: the authors' MMD (bandwidth
    0.1) beside the book's ``mmd_calibration_error(conditioning="none")`` at two label bandwidths, on one draw
    of N = 200, K = 10 (a calibrated predictor, labels drawn from it, generator ``seed + 7``); ``"kl_gradient"``:
    :func:`~credalbook.papers.juergens.kl_gradient_check` at N = 50, K = 3.
    """
    unsound = {
        f"L2, K = {k}, batches of N = {n}": lp_clamp_effect(k, n, n_batches=n_batches, seed=seed)
        for k, n in ((3, 16), (10, 16), (10, 64))
    }
    rng = np.random.default_rng(seed + 7)
    p = rng.dirichlet(np.ones(10), size=200)
    y = np.array([rng.choice(10, p=q) for q in p])
    mmd = {
        f"book, conditioning='none', σ_y = {sy:.3g}": float(
            mmd_calibration_error(p, y, conditioning="none", label_bandwidth=sy)
        )
        for sy in (np.sqrt(0.1 / 2), 1.0)
    }
    mmd = {"authors' code, bw = 0.1": {"MMD": authors_mmd_kce(p, y, bw=0.1)}, **{k: {"MMD": v} for k, v in mmd.items()}}
    return {"unsound": unsound, "mmd": mmd, "kl_gradient": kl_gradient_check(50, 3, seed=seed)}


def chapter_results(cfg, *, landscapes: dict, app_b: dict, centre_share: dict, **measured) -> dict:
    """The dict :func:`credalbook.papers.juergens.compare` judges: ``measured`` as given, and from the rest

    ``landscape_miss`` and ``landscape_argmins`` (each estimator's repeats' distances and grid minima, from
    ``landscapes``: estimator → (simplex landscape, λ landscape)), ``app_b`` (rejections and draws per
    combination, from its rates at α = 0.05 over ``cfg["app_b_draws"]`` draws), ``centre_share`` (with
    ``cfg["polytope_samples"]``) and ``table1_setting`` (members, set kinds and the λ-learner
    of ``cfg``).
    """
    learner = cfg["table_learner"]
    hidden, lr, batch = learner.get("hidden", (32,))[0], learner.get("lr", 1e-3), learner.get("batch_size", 512)
    return dict(
        landscape_miss={e: s.repeat_misses.tolist() for e, (s, _) in landscapes.items()},
        app_b=[
            {"k": int(round(v["rejection rate at α = 0.05"] * cfg["app_b_draws"])), "n": cfg["app_b_draws"]}
            for v in app_b.values()
        ],
        centre_share={**centre_share, "n": cfg["polytope_samples"]},
        landscape_argmins={
            e: {"simplex": s.argmin.tolist(), "lambda": w.argmin.tolist()} for e, (s, w) in landscapes.items()
        },
        table1_setting=dict(
            n_members=cfg["n_members"], kinds=list(TABLE1_KINDS), learner=f"3 × {hidden}, lr {lr:g}, batch {batch}"
        ),
        **measured,
    )
