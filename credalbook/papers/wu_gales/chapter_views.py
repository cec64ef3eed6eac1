"""What the cells of the Wu & Gales chapter show, computed from the studies they ran.

Each function takes what a cell has computed and returns plain numbers (``glues``: name → value for the prose) and
what the cell draws; :func:`chapter_results` gathers the measurements into the dict that
:func:`credalbook.papers.wu_gales.compare` judges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook.metrics import accuracy

__all__ = ["Fig2View", "fig2_view", "chapter_results", "accuracy_gap_glues"]


@dataclass(frozen=True)
class Fig2View:
    """Fig. 2 and the combination weights: see :func:`fig2_view`."""

    combinations: list
    labels: list
    title: str
    auc_ratio: float
    glues: dict


def fig2_view(combos, ensembles: dict, topologies) -> Fig2View:
    """Fig. 2's two Max-LL combinations of ``topologies`` (calibrated structures, then with ensemble calibration).

    Parameters
    ----------
    combos : list of TopologyCombination
        :func:`~credalbook.papers.wu_gales.topology_combinations` of the chapter.
    ensembles : dict
        Topology → its ensemble (``probs_val``, ``y_val``).
    topologies : sequence of str
        The topologies combined.

    Returns
    -------
    Fig2View
        ``combinations`` and their ``labels`` (with their ECE) for ``plot_combination_reliability``; ``title``;
        ``auc_ratio``: max/min of the AUC weights (at most 2 by construction: AUC/ΣAUC with every AUC in
        [1/2, 1]); ``glues``: the strongest topology on the validation split (``strongest``), the one with the
        largest Max-LL weight (``ml_top``), the spreads of the Max-LL and AUC weights (``ml_spread``,
        ``auc_spread``), and Fig. 2's ECE before and after ensemble calibration and confidence − accuracy with
        its standard error, in 1e-2 (``fig2_before``, ``fig2_after``, ``fig2_gap``, ``fig2_gap_se``).
    """
    topologies = tuple(topologies)
    by = {(c.topologies, c.weighting, c.structure, c.ensemble): c for c in combos}
    try:
        pair = [by[(topologies, "ml", "post", None)], by[(topologies, "ml", "post", "post")]]
        auc = by[(topologies, "auc", "post", None)].weights
    except KeyError as err:
        raise ValueError(f"combos must hold the Max-LL and AUC combinations of topologies={topologies}") from err
    ml = pair[0].weights
    val_acc = {t: accuracy(e.probs_val, e.y_val) for t, e in ensembles.items()}
    before, after = pair[0].summary, pair[1].summary
    glues = {
        "strongest": max(val_acc, key=val_acc.get),
        "ml_top": topologies[int(np.argmax(ml))],
        "ml_spread": np.ptp(ml),
        "auc_spread": np.ptp(auc),
        "fig2_before": 100 * before["ece"],
        "fig2_after": 100 * after["ece"],
        "fig2_gap": 100 * before["confidence_gap"],
        "fig2_gap_se": 100 * before["confidence_gap_se"],
    }
    labels = [f"calibrated structures (ECE {before['ece']:.3f})", f"+ ensemble calibration (ECE {after['ece']:.3f})"]
    title = "Fig. 2: Max-LL combination of " + ", ".join(topologies)
    return Fig2View(pair, labels, title, float(auc.max() / auc.min()), glues)


def chapter_results(
    cfg,
    *,
    ensembles: dict,
    toy,
    alg1_spread,
    props: dict,
    temps: dict,
    fig1: dict,
    studies: dict,
    singles: list,
    regions: dict,
    combos: list,
    seed: int,
    **measured,
) -> dict:
    """The dict :func:`credalbook.papers.wu_gales.compare` judges, as plain numbers and arrays: ``measured`` as given
    (``dataset``, ``networks``, ``ece_floor``, ``regime``), the ``setting`` (validation and test sizes, runs,
    subsets, members, parameters and epochs per topology), the appendix ``toys``, the ``propositions``' ensemble
    gaps, ``fig1``'s temperatures, gaps and accuracy ranges, and the ``plain()`` numbers of the ensemble, single,
    region and combination studies."""
    first = next(iter(ensembles.values()))
    return dict(
        **measured,
        setting=dict(
            n_val=len(first.y_val),
            n_test=len(first.y_test),
            n_runs=cfg["n_runs"],
            subset=cfg["subset"],
            members={t: e.n_members for t, e in ensembles.items()},
            networks={
                t: dict(parameters=e.n_parameters, epochs=e.config["train"]["epochs"]) for t, e in ensembles.items()
            },
        ),
        toys=dict(
            alg1_ace=toy.alg1_ace,
            alg1_ace_se=toy.alg1_ace_se,
            alg1_samples=toy.sizes["alg1_samples"],
            alg1_gap=toy.alg1_gap,
            alg1_gap_se=toy.alg1_gap_se,
            epsilons=toy.epsilons,
            ensemble_ace=toy.ensemble_ace,
            alg1_spread=alg1_spread,
            seed=seed,
        ),
        propositions={
            t: dict(gap=p.calibration.ensemble_top_label_gap, gap_se=p.ensemble_gap_se) for t, p in props.items()
        },
        fig1={
            t: dict(
                ensemble_t=st.sweep.ensemble_optimal_temperature,
                member_t=st.sweep.member_optimal_temperature,
                gap=st.calibrated_members_gap,
                gap_se=st.calibrated_members_gap_se,
                accuracy_gain=st.accuracy_gain,
                accuracy_range=fig1[t]["ensemble accuracy range over t ∈ [1/2, 2]"],
                grid=st.sweep.temperatures,
            )
            for t, st in temps.items()
        },
        ensembles={t: st.plain() for t, st in studies.items()},
        singles={s.topology: s.plain() for s in singles},
        regions={t: st.plain(("ece",)) for t, st in regions.items()},
        combinations=[c.plain() for c in combos],
    )


def accuracy_gap_glues(member_acc: dict, paper_single: dict) -> dict:
    """How much less accurate LeNet's members are than the deep topologies', here (1e-2) and in the paper's single
    models (``paper_single``: topology → its rows, ``["none"]["accuracy"][0]``): ``len_gap``, ``paper_len_gap``.

    >>> g = accuracy_gap_glues({"LEN": np.array([0.8]), "RSN": np.array([0.9])},
    ...                        {"LEN": {"none": {"accuracy": [42.0]}}, "RSN": {"none": {"accuracy": [78.0]}}})
    >>> round(float(g["len_gap"]), 9), float(g["paper_len_gap"])
    (10.0, 36.0)
    """
    deep = np.mean([acc.mean() for t, acc in member_acc.items() if t != "LEN"])
    paper = {t: r["none"]["accuracy"][0] for t, r in paper_single.items()}
    return {
        "len_gap": 100 * (deep - member_acc["LEN"].mean()),
        "paper_len_gap": np.mean([a for t, a in paper.items() if t != "LEN"]) - paper["LEN"],
    }
