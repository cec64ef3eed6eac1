"""The premises of the CIFAR-100 regime, measured on its members: are the deep members over-confident,
is LeNet weaker and less over-confident, does ensembling help the deep topologies and hurt LeNet, and
do the members fit their training images (training NLL against validation NLL)?

Wu & Gales' findings on CIFAR rest on these facts of their members (Tables 3 and 1: single DenseNets
and the WRN have ECE 4.8-11.7 × 10⁻², their ensembles 1.6-3.2; LeNet 2.86 → 11.55 and 42 % accurate
against 76-80 %). :func:`regime_premises` measures them on ensembles of the regime
(:func:`credalbook.papers.wu_gales.regime_plan`), with standard errors from a bootstrap over the test
instances combined with the spread over the members. :func:`regime_results` runs every study of the chapter on the
regime's members (Table 1's calibration study, the single members, Fig. 3's regions, the combinations of Tables 2,
6, 7) and returns the plain numbers :func:`credalbook.papers.wu_gales.compare` judges.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy.special import log_softmax

from credalbook.metrics import ece
from credalbook.papers.report import Table
from credalbook.papers.wu_gales.combinations import combination_configs, topology_combinations
from credalbook.papers.wu_gales.experiments import (
    calibration_study,
    ensemble_ece_floor,
    region_study,
    single_model_study,
)
from credalbook.papers.wu_gales.topologies import TopologyEnsemble

__all__ = ["premise_sentence", "premise_table", "regime_premises", "regime_results"]


def _gap_terms(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per instance: top-label confidence − correctness (its mean is confidence − accuracy)."""
    return probs.max(axis=-1) - (probs.argmax(axis=-1) == labels).astype(float)


def _mean_se(per_member: np.ndarray, per_instance: np.ndarray) -> float:
    """SE of a mean over members evaluated on one test set: spread over members ⊕ over test instances."""
    m = len(per_member)
    between = per_member.std(ddof=1) ** 2 / m if m > 1 else 0.0
    return float(math.sqrt(between + per_instance.var(ddof=1) / len(per_instance)))


def _one(ens: TopologyEnsemble, train_nll, n_resamples: int, rng: np.random.Generator) -> dict:
    y = ens.y_test
    n, m = ens.logits_test.shape[:2]
    member_p = np.exp(log_softmax(ens.logits_test.astype(np.float64), axis=-1))  # (N, M, K)
    ens_p = member_p.mean(axis=1)
    terms = np.stack([_gap_terms(member_p[:, j], y) for j in range(m)], axis=1)  # (N, M)
    correct = (member_p.argmax(axis=-1) == y[:, None]).astype(float)
    ens_terms = _gap_terms(ens_p, y)
    member_ece = np.array([ece(member_p[:, j], y) for j in range(m)])
    ens_ece = ece(ens_p, y)
    boot = np.empty(n_resamples)
    for b in range(n_resamples):
        i = rng.integers(0, n, n)
        boot[b] = ece(ens_p[i], y[i]) - np.mean([ece(member_p[i, j], y[i]) for j in range(m)])
    change_se = math.sqrt(boot.var(ddof=1) + (member_ece.var(ddof=1) / m if m > 1 else 0.0))
    log_val = log_softmax(ens.logits_val.astype(np.float64), axis=-1)
    idx = np.broadcast_to(ens.y_val[:, None, None], (len(ens.y_val), m, 1))
    val_nll = -np.take_along_axis(log_val, idx, axis=2)[..., 0].mean(axis=0)
    out = dict(
        n_members=m,
        n_parameters=int(ens.n_parameters),
        epochs=ens.config.get("epochs") if isinstance(ens.config, Mapping) else None,
        member_accuracy=float(correct.mean()),
        member_accuracy_se=_mean_se(correct.mean(axis=0), correct.mean(axis=1)),
        member_gap=float(terms.mean()),
        member_gap_se=_mean_se(terms.mean(axis=0), terms.mean(axis=1)),
        member_ece=float(member_ece.mean()),
        ensemble_accuracy=float((ens_p.argmax(axis=1) == y).mean()),
        ensemble_gap=float(ens_terms.mean()),
        ensemble_gap_se=float(ens_terms.std(ddof=1) / math.sqrt(n)),
        ensemble_ece=float(ens_ece),
        ece_change=float(ens_ece - member_ece.mean()),
        ece_change_se=float(change_se),
        val_nll=float(val_nll.mean()),
        val_nll_members=val_nll,
    )
    if train_nll is not None:
        tr = np.asarray(train_nll, dtype=float).ravel()
        if tr.shape != (m,) or not np.all(np.isfinite(tr)):
            raise ValueError(f"train_nll[{ens.topology!r}] must hold one finite NLL per member ({m}); got {tr.shape}")
        out |= dict(train_nll=float(tr.mean()), train_nll_members=tr)
    return out


def regime_premises(
    ensembles: Mapping[str, TopologyEnsemble],
    *,
    train_nll: Mapping | None = None,
    n_resamples: int = 200,
    seed: int = 0,
) -> dict:
    """The regime's premises per topology, from its members' logits on the test and validation images.

    Parameters
    ----------
    ensembles : mapping of str to TopologyEnsemble
        topology -> its members (``RegimePlan.ensembles``).
    train_nll : mapping or None
        topology -> each member's mean NLL on its own training images (the records' ``train_nll``).
    n_resamples : int, default=200
        Bootstrap resamples of the test instances for the ECE change by ensembling.
    seed : int, default=0

    Returns
    -------
    dict
        topology -> ``member_accuracy``, ``member_gap`` (confidence − accuracy, mean over the members),
        ``member_ece``, ``ensemble_accuracy``, ``ensemble_gap``, ``ensemble_ece``, ``ece_change``
        (ensemble ECE − the members' mean ECE), each with ``_se`` where judged (bootstrap over the test
        instances ⊕ spread over the members), ``val_nll`` (mean over the members) and, with
        ``train_nll``, ``train_nll``; ``n_members``, ``n_parameters``, ``epochs``.

    References
    ----------
    Wu & Gales (2021), Tables 1 and 3; App. A.4.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 2, 3)).astype(np.float32) * 3
    >>> y = rng.integers(0, 3, 300)
    >>> e = TopologyEnsemble(z, y, z, y, "LEN", (0, 1), ([], []), np.ones(2), 10, {"epochs": 1})
    >>> r = regime_premises({"LEN": e}, n_resamples=20)["LEN"]
    >>> bool(r["member_gap"] > 0), r["n_members"]  # random logits × 3: over-confident
    (True, 2)
    """
    if not isinstance(ensembles, Mapping) or not ensembles:
        raise ValueError("ensembles must be a non-empty mapping of topology -> TopologyEnsemble")
    bad = [t for t, e in ensembles.items() if not isinstance(e, TopologyEnsemble)]
    if bad:
        raise TypeError(f"ensembles must map topologies to TopologyEnsembles; {bad[0]!r} does not")
    if train_nll is not None and not isinstance(train_nll, Mapping):
        raise TypeError(f"train_nll must be a mapping of topology -> NLLs or None; got {type(train_nll).__name__}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an int >= 2; got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    rng = np.random.default_rng(int(seed))
    return {
        t: _one(e, None if train_nll is None else train_nll.get(t), int(n_resamples), rng) for t, e in ensembles.items()
    }


def premise_sentence(premises: Mapping) -> str:
    """The regime's premises in numbers, per topology, as one clause for the chapter's text (no verdicts: the
    comparison's premise rows judge them against their standard errors).

    Examples
    --------
    >>> p = {t: dict(member_gap=g, member_accuracy=a, member_ece=e, ensemble_ece=f, val_nll=0.4, train_nll=n)
    ...      for t, g, a, e, f, n in (("LEN", 0.019, 0.861, 0.020, 0.0065, 0.27), ("RSN", 0.052, 0.893, 0.052, 0.018, 0.05))}
    >>> print(premise_sentence(p))  # doctest: +NORMALIZE_WHITESPACE
    the single members' confidence − accuracy (percentage points) is LEN +1.90, RSN +5.20; their accuracy (%)
    LEN 86.1, RSN 89.3; their ECE → their ensemble's ECE (10⁻²) LEN 2.00 → 0.65, RSN 5.20 → 1.80; training /
    validation NLL LEN 0.270 / 0.400, RSN 0.050 / 0.400
    """
    if not isinstance(premises, Mapping) or "LEN" not in premises or len(premises) < 2:
        raise ValueError("premises must map LEN and at least one deep topology to regime_premises' values")
    p = premises

    def each(fmt) -> str:
        return ", ".join(f"{t} {fmt(r)}" for t, r in p.items())

    nll = ""
    if all("train_nll" in r for r in p.values()):
        nll = "; training / validation NLL " + each(lambda r: f"{r['train_nll']:.3f} / {r['val_nll']:.3f}")
    return (
        "the single members' confidence − accuracy (percentage points) is "
        + each(lambda r: f"{100 * r['member_gap']:+.2f}")
        + "; their accuracy (%) "
        + each(lambda r: f"{100 * r['member_accuracy']:.1f}")
        + "; their ECE → their ensemble's ECE (10⁻²) "
        + each(lambda r: f"{100 * r['member_ece']:.2f} → {100 * r['ensemble_ece']:.2f}")
        + nll
    )


def premise_table(premises: Mapping) -> Table:
    """The premises of :func:`regime_premises` as a table (per-member arrays left out)."""
    if not isinstance(premises, Mapping) or not premises:
        raise ValueError("premises must be a non-empty mapping of topology -> regime_premises' values")
    return Table(
        {
            t: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if not k.endswith("_members")}
            for t, r in premises.items()
        },
        index_name="CIFAR-100 regime on Fashion-MNIST (test set; NLL: training / validation)",
    )


def regime_results(plan, values: Mapping, cfg: Mapping, *, seed: int = 0, n_iter: int = 400) -> dict:
    """Every study of the chapter on the regime's members, as the plain numbers of ``results["regime"]``.

    Parameters
    ----------
    plan : RegimePlan
        :func:`credalbook.papers.wu_gales.regime_plan` of the chapter.
    values : mapping
        part name -> value of every member (``credalbook.book.records.run_parts`` of ``plan.parts``).
    cfg : mapping
        The chapter's preset: ``regime_members`` (runs: leave-one-out subsets of that many members),
        ``regime_per_class``, ``topologies`` (of the combinations) and ``fig3_regions``.
    seed : int, default=0
    n_iter : int, default=400
        SGD steps of every temperature fit.

    Returns
    -------
    dict
        ``premises`` (:func:`regime_premises`), ``ensembles`` (Table 1: none, pre, post, dyn. per topology),
        ``singles`` (each member alone, with and without temperature scaling), ``regions`` (Fig. 3, deep
        topologies), ``combinations`` (Tables 2, 6, 7 and Fig. 2: ``TopologyCombination.plain()``),
        ``ece_floor`` ((mean, sd) in 1e-2 of an exactly calibrated ensemble's ECE on this test set), ``n_val``,
        ``n_test``, ``n_runs``, ``subset``, ``per_class``.
    """
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of part name -> value; got {type(values).__name__}")
    missing = [k for k in ("regime_members", "regime_per_class", "topologies", "fig3_regions") if k not in cfg]
    if missing:
        raise ValueError(f"cfg lacks the keys {missing}")
    ens = plan.ensembles(dict(values))
    train_nll = {t: [values[n]["train_nll"] for n in names] for t, names in plan.members.items()}
    m = int(cfg["regime_members"])
    fit = dict(n_iter=n_iter)
    runs = dict(subset_size=m - 1, n_runs=m, seed=seed)
    topologies = [t for t in cfg["topologies"] if t in ens]
    return dict(
        premises=regime_premises(ens, train_nll=train_nll, seed=seed),
        ensembles={t: calibration_study(e, **runs, **fit).plain() for t, e in ens.items()},
        singles={t: single_model_study(e, **fit).plain() for t, e in ens.items()},
        regions={
            t: region_study(e, n_regions=cfg["fig3_regions"], **runs, **fit).plain(("ece",))
            for t, e in ens.items()
            if t != "LEN"
        },
        combinations=[c.plain() for c in topology_combinations(ens, combination_configs(topologies), seed=seed, **fit)],
        ece_floor=ensemble_ece_floor(ens, seed=seed),
        n_val=len(next(iter(ens.values())).y_val),
        n_test=len(next(iter(ens.values())).y_test),
        n_runs=m,
        subset=m - 1,
        per_class=cfg["regime_per_class"],
    )
