"""The numbers Wu & Gales (2021) report, for the "Paper vs. this book" tables of their chapter.

The numbers themselves live in ``reported.json`` beside this module (read with
:func:`credalbook.papers.report.reported`), each table with its source: Table 1 (ensembles of one
topology on CIFAR-100, none / pre / post / dyn., mean ± 2σ), Table 5 (the same on CIFAR-10), Tables 3
and 4 (single models on CIFAR-100 and CIFAR-10, trained on 100 % or 90 % of the training images),
Tables 2, 6 (topology ensembles with Max-LL and AUC weights) and 7 (topology combination with
structure and ensemble calibration), and the appendix toy values. This module turns them into the
constants the experiments and the chapter use. Values are in the paper's units (:data:`WG_UNITS`):
accuracy in %, ACE, ACCE and SKCE in 1e-4, ECE and ECCE in 1e-2; Table 7 prints ACE and ECE as plain
numbers, which are converted here to the same units. Figures 1-4 carry no printed numbers; their
claims are :data:`WG_PAPER_FINDINGS`.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Tables 1-7, App. A.3.
"""

from __future__ import annotations

from credalbook.papers.report import reported

__all__ = [
    "WG_METRICS",
    "WG_UNITS",
    "WG_PAPER_TABLE1",
    "WG_PAPER_TABLE5",
    "WG_PAPER_SINGLE",
    "WG_PAPER_COMBINATION",
    "WG_PAPER_TOYS",
    "WG_PAPER_FINDINGS",
    "wg_paper_reference",
]

_PAPER = reported("wu_gales")

#: Columns of Tables 1 and 5, in order (Tables 3-4 have no SKCE, Tables 2, 6, 7 only acc, NLL, ACE, ECE).
WG_METRICS = tuple(_PAPER["table1"]["units"])
#: Paper unit of each metric: printed value = raw value / unit.
WG_UNITS = {m: float(u) for m, u in _PAPER["table1"]["units"].items()}
#: The paper's name of a criterion -> its key in :func:`~credalbook.metrics.criteria_summary`, where they
#: differ: Wu & Gales' all-label "ACE" (Eq. 12) is ``all_label_ece`` in the library, whose ``ace`` is
#: the adaptive calibration error of Nixon et al. (2019). The paper's tables keep their column names.
_SUMMARY_KEYS = {"ace": "all_label_ece"}


def _value(v) -> float:
    """A JSON cell as a float; ``null`` (not reported) becomes NaN."""
    return float("nan") if v is None else float(v)


def _calibration(table: dict) -> dict:
    """Table 1 / 5 rows -> {topology: {method: {metric: (mean, 2σ)}}}."""
    return {
        topo: {
            method: {m: (_value(mean), _value(two_sigma)) for m, (mean, two_sigma) in row.items()}
            for method, row in methods.items()
        }
        for topo, methods in table["rows"].items()
    }


#: Table 1 (CIFAR-100, ensembles of 10 members of one topology): topology -> method -> metric -> (mean, 2σ).
WG_PAPER_TABLE1 = _calibration(_PAPER["table1"])

#: Table 5 (CIFAR-10), same layout as :data:`WG_PAPER_TABLE1`.
WG_PAPER_TABLE5 = _calibration(_PAPER["table5"])

#: Tables 3 (CIFAR-100) and 4 (CIFAR-10): dataset -> topology -> % of training images -> metric -> value.
WG_PAPER_SINGLE = {
    _PAPER[t]["dataset"]: {
        topo: {int(share): {m: _value(v) for m, v in row.items()} for share, row in shares.items()}
        for topo, shares in _PAPER[t]["rows"].items()
    }
    for t in ("table3", "table4")
}


def _combination(name: str) -> list:
    """Rows of Table 2, 6 or 7 as dicts, ACE and ECE converted to the units of :data:`WG_UNITS`."""
    table = _PAPER[name]
    units = table["units"]
    rows = []
    for r in table["rows"]:
        weights = {t: float(w) for t, w in r["weights"].items() if w is not None}
        row = dict(
            table=name.removeprefix("table"),
            weighting=r.get("weighting", table.get("weighting")),
            topologies=tuple(weights),
            weights=weights,
            structure=r["structure"],
            ensemble=r["ensemble"],
        )
        for m in ("accuracy", "nll", "ace", "ece"):
            v = float(r[m])
            row[m] = v if float(units[m]) == WG_UNITS[m] else v * units[m] / WG_UNITS[m]
        rows.append(row)
    return rows


#: Tables 2 (Max LL), 6 (AUC) and 7 (CIFAR-100): one dict per row with ``table``, ``weighting``
#: ("ml", "auc", "uniform"), ``topologies``, ``weights``, ``structure`` / ``ensemble`` calibration
#: (None, "post", "dyn"), accuracy (%), NLL, ACE (1e-4) and ECE (1e-2).
WG_PAPER_COMBINATION = _combination("table2") + _combination("table6") + _combination("table7")

#: App. A.3: Alg. 1's ensemble ACE (Fig. 4, K = 4, M = 10, b = 2, N = 10⁶), Alg. 2's sample and
#: theoretical ACE (Eqs. 46-50), Example 1's all-label (0) and top-label (≠ 0) errors.
WG_PAPER_TOYS = {
    "alg1_ensemble_ace": float(_PAPER["alg1"]["ensemble_ace"]),
    "alg2_sample_ace": float(_PAPER["alg2"]["sample_ace"]),
    "alg2_theoretical_ace": float(_PAPER["alg2"]["theoretical_ace"]),
    "example1_ace": float(_PAPER["example1"]["ace"]),
}

#: The paper's qualitative findings (Sec. 4.3 and App. A.4) that the chapter checks.
WG_PAPER_FINDINGS = {k: v["claim"] for k, v in _PAPER["findings"].items() if k != "source"}


def wg_paper_reference(dataset: str) -> dict:
    """The paper's tables that a dataset is compared with.

    CIFAR-100 is compared with Tables 1 and 3; every other dataset (CIFAR-10, and 10-class data such
    as Fashion-MNIST) with the CIFAR-10 Tables 5 and 4. Returns ``ensemble_name``, ``ensemble`` (as
    :data:`WG_PAPER_TABLE1`), ``single_name`` and ``single``: the single models trained on 90 % of
    the images in the same layout (topology -> ``"none"`` -> metric -> (value, NaN)).

    Examples
    --------
    >>> wg_paper_reference("cifar100")["ensemble_name"], wg_paper_reference("fashion_mnist")["single_name"]
    ('Table 1 (CIFAR-100)', 'Table 4 (CIFAR-10)')
    >>> wg_paper_reference("cifar10")["single"]["LEN"]["none"]["accuracy"]
    (75.31, nan)
    """
    c100 = str(dataset).lower().replace("-", "").replace("_", "") == "cifar100"
    key = "cifar100" if c100 else "cifar10"
    single = {
        t: {"none": {m: (v, float("nan")) for m, v in rows[90].items()}} for t, rows in WG_PAPER_SINGLE[key].items()
    }
    return dict(
        ensemble_name="Table 1 (CIFAR-100)" if c100 else "Table 5 (CIFAR-10)",
        ensemble=WG_PAPER_TABLE1 if c100 else WG_PAPER_TABLE5,
        single_name="Table 3 (CIFAR-100)" if c100 else "Table 4 (CIFAR-10)",
        single=single,
    )
