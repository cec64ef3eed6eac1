r"""Combinations of topology ensembles (Wu & Gales 2021, Fig. 2 and Tables 2, 6, 7).

:func:`topology_combinations` combines the ensembles of several topologies ("structures") with uniform,
Max-LL or AUC weights, the structures and the combination calibrated or not;
:func:`combination_configs` lists the paper's rows that a set of topologies allows and
:func:`combination_table` shows them beside the paper's.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4.4, Tables 2, 6, 7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed
from credalbook._validation import check_choice
from credalbook.calibration.combination import auc_weights, ml_weights
from credalbook.metrics.criteria import criteria_summary
from credalbook.metrics.regions import DEFAULT_EPSILON
from credalbook.metrics.reliability import reliability_curve, ReliabilityCurve
from credalbook.papers.report import Table
from credalbook.papers.wu_gales.fitting import _fitted
from credalbook.papers.wu_gales.reported import _SUMMARY_KEYS, WG_PAPER_COMBINATION, WG_UNITS
from credalbook.papers.wu_gales.resampling import boot_weights, bootstrap_ece_accuracy, WG_N_BOOT
from credalbook.papers.wu_gales.topologies import TopologyEnsemble

__all__ = ["TopologyCombination", "combination_configs", "combination_table", "topology_combinations"]

_STRUCT = (None, "post", "dyn")


@dataclass(frozen=True)
class TopologyCombination:
    """One row of Tables 2, 6, 7: a weighted combination of topology ensembles ("structures").

    Attributes
    ----------
    topologies : tuple of str
    weighting : {"uniform", "ml", "auc"}
    structure, ensemble : None, "post" or "dyn"  calibration of each structure / of the combination
    weights : ndarray (S,)  estimated on the validation set (after structure calibration)
    summary : dict  accuracy, nll, acce, all_label_ece (the paper's ACE), ecce, ece on the test set, and
        ``confidence_gap`` (mean top-label confidence − accuracy: below 0 the reliability curve lies above the
        diagonal, under-confident) with ``confidence_gap_se`` (its standard error over the test instances)
    curve : ReliabilityCurve or None  of the combination on the test set (Fig. 2; None when built by ``from_plain``)
    boot : ndarray (B, 2) or None  ECE and accuracy on B bootstrap resamples of the test set (the same
        resamples for every combination of one call)
    weights_se : ndarray (S,) or None  bootstrap standard error of the estimated weights (resampling
        the validation set and re-estimating them; None for uniform weights)
    """

    topologies: tuple
    weighting: str
    structure: str | None
    ensemble: str | None
    weights: np.ndarray
    summary: dict = field(repr=False)
    curve: ReliabilityCurve | None = field(repr=False)
    boot: np.ndarray | None = field(default=None, repr=False)
    weights_se: np.ndarray | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return (
            f"{'+'.join(self.topologies)} · {self.weighting} · struct {self.structure or '-'} · "
            f"ens {self.ensemble or '-'}"
        )

    def plain(self) -> dict:
        """The numbers :func:`credalbook.papers.wu_gales.compare` reads (its ``combinations`` entries): the
        configuration, the test ECE and its bootstrap resamples, the weights with their SE, confidence − accuracy
        with its SE, and the whole test ``summary`` (:meth:`from_plain` reads it back)."""
        if self.boot is None:
            raise ValueError(f"{self.label} has no bootstrap resamples (boot is None): compare needs them")
        return dict(
            topologies=self.topologies,
            weighting=self.weighting,
            structure=self.structure,
            ensemble=self.ensemble,
            ece=self.summary["ece"],
            ece_boot=self.boot[:, 0],
            weights=self.weights,
            weights_se=self.weights_se,
            gap=self.summary["confidence_gap"],
            gap_se=self.summary["confidence_gap_se"],
            summary=dict(self.summary),
        )

    @classmethod
    def from_plain(cls, d: Mapping) -> TopologyCombination:
        """A combination from :meth:`plain`'s numbers, for :func:`combination_table` (no reliability curve and no
        bootstrap resamples: ``curve`` and ``boot`` are None)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"d must be a mapping from TopologyCombination.plain(); got {type(d).__name__}")
        missing = [k for k in ("topologies", "weighting", "structure", "ensemble", "weights", "summary") if k not in d]
        if missing:
            raise ValueError(f"d lacks the keys {missing} (TopologyCombination.plain() gives them)")
        se = d.get("weights_se")
        return cls(
            tuple(d["topologies"]),
            d["weighting"],
            d["structure"],
            d["ensemble"],
            np.asarray(d["weights"], dtype=float),
            dict(d["summary"]),
            None,
            None,
            None if se is None else np.asarray(se, dtype=float),
        )


def _same_split(ensembles: Mapping[str, TopologyEnsemble]) -> None:
    first = next(iter(ensembles.values()))
    for name, e in ensembles.items():
        if not (np.array_equal(e.y_val, first.y_val) and np.array_equal(e.y_test, first.y_test)):
            raise ValueError(
                f"ensembles must share one validation/test split; {name!r} differs from "
                f"{first.topology!r} (use the same dataset, sizes and split_seed)"
            )


@renamed(n_boot="n_resamples", n_boot_weights="n_weight_resamples")
def topology_combinations(
    ensembles: Mapping[str, TopologyEnsemble],
    configs,
    *,
    n_regions: int = 6,
    regions="equal_mass",
    criterion: str = "ece",
    n_iter: int = 400,
    epsilon: float = DEFAULT_EPSILON,
    auc_kind: str = "ovr",
    n_bins: int = 15,
    n_resamples: int = WG_N_BOOT,
    n_weight_resamples: int = 50,
    seed=0,
) -> list:
    r"""Tables 2, 6, 7 and Fig. 2: combine the ensembles of several topologies with estimated weights.

    For each ``(topologies, weighting, structure, ensemble)`` in `configs`: every topology's uniform
    ensemble is calibrated on its own (``structure`` = None, "post" or "dyn", fitted on the
    validation set), the structure weights are estimated on the validation predictions (``"ml"``:
    :func:`~credalbook.calibration.ml_weights`, ``"auc"``:
    :func:`~credalbook.calibration.auc_weights`, ``"uniform"``), and the weighted combination
    :math:`\sum_s w_s P_s` is optionally calibrated as a whole (``ensemble`` = "post" or "dyn", the
    structures' log-probabilities playing the role of member logits). Calibrated structures are
    computed once per call. Each combination is also scored on `n_resamples` bootstrap resamples of the
    test set (shared by all combinations), and Max-LL / AUC weights are re-estimated on
    `n_weight_resamples` bootstrap resamples of the validation set for their standard errors.

    Returns
    -------
    list of TopologyCombination, in the order of `configs`.
    """
    _same_split(ensembles)
    first = next(iter(ensembles.values()))
    yv, yt = first.y_val, first.y_test
    memo, weight_memo = {}, {}
    test_weights = boot_weights(len(yt), n_resamples, seed=seed)
    val_rng = np.random.default_rng(seed)
    val_idx = val_rng.integers(0, len(yv), size=(n_weight_resamples, len(yv)))

    def estimate(weighting, pv, y):
        return ml_weights(pv, y) if weighting == "ml" else auc_weights(pv, y, kind=auc_kind)

    def structure(name, cal):
        if (name, cal) not in memo:
            e = ensembles[name]
            predict = _fitted(
                cal, e.logits_val, yv, n_regions=n_regions, regions=regions, criterion=criterion, n_iter=n_iter
            )[0]
            memo[(name, cal)] = tuple(np.log(np.clip(predict(z), 1e-300, None)) for z in (e.logits_val, e.logits_test))
        return memo[(name, cal)]

    out = []
    for topos, weighting, struct, ens_cal in configs:
        check_choice(weighting, "weighting", ("uniform", "ml", "auc"))
        for c in (struct, ens_cal):
            if c not in _STRUCT:
                raise ValueError(f"structure and ensemble calibration must be None, 'post' or 'dyn'; got {c!r}")
        missing = [t for t in topos if t not in ensembles]
        if missing:
            raise ValueError(f"no ensemble for topologies {missing}; available: {sorted(ensembles)}")
        lv = np.stack([structure(t, struct)[0] for t in topos], axis=1)
        lt = np.stack([structure(t, struct)[1] for t in topos], axis=1)
        w_se = None
        if weighting == "uniform":
            w = np.full(len(topos), 1.0 / len(topos))
        else:
            key = (tuple(topos), weighting, struct)
            if key not in weight_memo:
                pv = np.exp(lv)
                reps = (
                    np.array([estimate(weighting, pv[i], yv[i]) for i in val_idx]) if n_weight_resamples > 1 else None
                )
                weight_memo[key] = (estimate(weighting, pv, yv), None if reps is None else reps.std(axis=0, ddof=1))
            w, w_se = weight_memo[key]
        p = _fitted(
            ens_cal, lv, yv, n_regions=n_regions, regions=regions, criterion=criterion, n_iter=n_iter, weights=w
        )[0](lt)
        gap = p.max(axis=1) - (p.argmax(axis=1) == yt)
        out.append(
            TopologyCombination(
                tuple(topos),
                weighting,
                struct,
                ens_cal,
                w,
                criteria_summary(p, yt, epsilon=epsilon, skce=False)
                | dict(confidence_gap=float(gap.mean()), confidence_gap_se=float(gap.std(ddof=1) / np.sqrt(len(gap)))),
                reliability_curve(p, yt, n_bins=n_bins),
                bootstrap_ece_accuracy(p, yt, test_weights, epsilon=epsilon),
                w_se,
            )
        )
    return out


def combination_configs(topologies: Sequence[str], *, tables: Sequence[str] = ("2", "6", "7")) -> list:
    """Distinct ``(topologies, weighting, structure, ensemble)`` rows of Tables 2, 6, 7 that use only `topologies`.

    Examples
    --------
    >>> configs = combination_configs(("DSN121", "RSN"))
    >>> len(configs), configs[0]
    (4, (('DSN121', 'RSN'), 'ml', 'post', None))
    """
    rows = [
        (r["topologies"], r["weighting"], r["structure"], r["ensemble"])
        for r in WG_PAPER_COMBINATION
        if r["table"] in tables and set(r["topologies"]) <= set(topologies)
    ]
    return list(dict.fromkeys(rows))


def combination_table(combos: Sequence, *, paper: Sequence[Mapping] = ()) -> Table:
    """Rows of Tables 2, 6, 7 in the paper's units, each followed by the paper's row with the same configuration.

    ``combos``: :class:`TopologyCombination` objects or their :meth:`~TopologyCombination.plain` numbers.
    """
    rows = {}
    for c in combos:
        c = c if isinstance(c, TopologyCombination) else TopologyCombination.from_plain(c)
        rows[c.label] = {
            "weights": " ".join(f"{t} {w:.2f}" for t, w in zip(c.topologies, c.weights)),
            **{
                m: round(c.summary[_SUMMARY_KEYS.get(m, m)] / WG_UNITS[m], 4) for m in ("accuracy", "nll", "ace", "ece")
            },
        }
        for r in paper:
            if (r["topologies"], r["weighting"], r["structure"], r["ensemble"]) == (
                c.topologies,
                c.weighting,
                c.structure,
                c.ensemble,
            ):
                rows[c.label + f" (paper, Table {r['table']})"] = {
                    "weights": " ".join(f"{t} {w:.2f}" for t, w in r["weights"].items()),
                    **{m: round(r[m], 4) for m in ("accuracy", "nll", "ace", "ece")},
                }
    return Table(rows, index_name="structures · weights · calibration (units: %, 1, 1e-4, 1e-2)")
