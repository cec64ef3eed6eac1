r"""Rows of the Jürgens et al. chapter judged by pooled rates, closed forms and the paper's own numbers.

Helpers of :func:`~credalbook.papers.juergens.compare`: Type I rates pooled per α level over the H0 panels and the
estimators a sentence covers (a cell of R = 100 datasets cannot decide Bradley's band; 600 pooled draws can),
App. B's combinations by their closed form :math:`\mathbb E[Y \mid \hat p] = \hat p`, and the Table 1 claims
judged against the decisions the paper's own p-values imply.
"""

from __future__ import annotations

import numpy as np

from credalbook.papers.criteria import combine, mean_se, ordered, rate_claim

__all__ = [
    "app_b_closed_form",
    "excess_over_alpha",
    "pooled_type1",
    "rejected_cells",
    "summaries_by_setting",
    "table1_decision_counts",
]

#: App. B's example (the paper's symbols are lost in our copy; these numbers are the book's own):
#: P(X = a) = P(X = b) = 1/2, P(Y = 1 | a) = 0.2, P(Y = 1 | b) = 0.8, members predicting 0.1 and 0.9.
APP_B_EXAMPLE = {"p_x": (0.5, 0.5), "p_y1": (0.2, 0.8), "members": (0.1, 0.9)}
#: λ₁ per x of App. B's three combinations (the third, not calibrated, is the book's control).
APP_B_WEIGHTS = {"conditional": (7 / 8, 1 / 8), "marginal": (0.5, 0.5), "uncalibrated": (0.75, 0.75)}


def app_b_closed_form() -> dict:
    r"""The calibration gap :math:`\max_v |\mathbb E[Y \mid \hat p = v] - v|` of App. B's combinations, exactly.

    Returns
    -------
    dict
        Combination → its gap (0 for a calibrated combination).

    Examples
    --------
    >>> {k: round(v, 12) for k, v in app_b_closed_form().items()}
    {'conditional': 0.0, 'marginal': 0.0, 'uncalibrated': 0.2}
    """
    px, py = np.array(APP_B_EXAMPLE["p_x"]), np.array(APP_B_EXAMPLE["p_y1"])
    m1, m2 = APP_B_EXAMPLE["members"]
    out = {}
    for name, lam in APP_B_WEIGHTS.items():
        p_hat = np.array([lam[i] * m1 + (1 - lam[i]) * m2 for i in range(2)])
        gaps = []
        for v in np.unique(np.round(p_hat, 12)):
            at = np.isclose(p_hat, v)
            gaps.append(abs(float((px[at] * py[at]).sum() / px[at].sum()) - float(v)))
        out[name] = max(gaps)
    return out


def pooled_type1(summary: dict, *, kind: str = "new", estimators=("L2-CE", "KL-CE", "MMD")) -> dict:
    """α → (rejections, draws) pooled over the H0 panels and ``estimators`` of one :func:`summarise_error_rates`.

    >>> s = {"h0_cells": [dict(panel=p, estimator="L2-CE", kind="new", alpha=0.05, k=k, n=100)
    ...                   for p, k in (("H0-const", 4), ("H0-inst", 7))]}
    >>> pooled_type1(s)
    {0.05: (11, 200)}
    """
    out = {}
    for c in summary["h0_cells"]:
        if c["kind"] == kind and c["estimator"] in estimators:
            k, n = out.get(c["alpha"], (0, 0))
            out[c["alpha"]] = (k + int(c["k"]), n + int(c["n"]))
    return out


def bradley_pooled(pooled: dict, *, source: str):
    """Every pooled rate in Bradley's [α/2, 3α/2] (one part per α level)."""
    parts = [
        rate_claim(k, n, accept=(a / 2, 1.5 * a), name=f"pooled Type I at α={a:g}", tolerance_source=source)
        for a, (k, n) in sorted(pooled.items())
    ]
    return combine(parts, rule="all", criterion=f"pooled rate in [α/2, 3α/2] at each of {len(parts)} levels")


def above_pooled(pooled: dict):
    """Some pooled rate's exact interval above its α ("in some cases")."""
    parts = [
        rate_claim(k, n, accept=(a, 1.0), name=f"pooled Type I at α={a:g}", tolerance_source="rate above α")
        for a, (k, n) in sorted(pooled.items())
    ]
    return combine(parts, rule="any", criterion=f"some pooled rate's 95% interval above α ({len(parts)} levels)")


def excess_over_alpha(levels) -> tuple[float, float, int]:
    """Mean of (pooled rate − α) over the levels of ``levels`` ([α, rejections, draws] each) → (mean, SE, draws).

    The levels' rates come from the same datasets, so the SE of their mean is bounded by the mean of their binomial
    SEs (perfect correlation), which is what it returns.

    >>> m, se, n = excess_over_alpha([[0.05, 8, 100], [0.1, 14, 100]])
    >>> round(m, 3), round(se, 4), n
    (0.035, 0.0309, 100)
    """
    rows = [(float(a), int(k), int(n)) for a, k, n in levels]
    if not rows or any(n < 1 or not 0 <= k <= n for _, k, n in rows):
        raise ValueError(f"levels must be a non-empty list of [alpha, k, n] with 0 <= k <= n, n >= 1; got {levels!r}")
    excess = [k / n - a for a, k, n in rows]
    se = [np.sqrt((k / n) * (1 - k / n) / n) for _, k, n in rows]
    return float(np.mean(excess)), float(np.mean(se)), min(n for _, _, n in rows)


def summaries_by_setting(studies: dict, prefix: str, *, seed: int = 0) -> dict:
    """Setting → :func:`~credalbook.papers.juergens.summarise_error_rates` of the studies named
    ``<prefix>-<setting>-<hypothesis>`` (e.g. the parts ``authors-settings-binary-h0-const``, ...), settings with none
    left out.

    >>> from credalbook.papers.mortier import ErrorRateStudy
    >>> st = ErrorRateStudy("H0-const", ("L2-CE · new",), np.zeros((1, 4)), np.ones((1, 4, 10)), np.zeros((1, 4), int))
    >>> s = summaries_by_setting({"x-binary-h0-const": st}, "x")
    >>> list(s), s["binary"]["h0_cells"][0]["panel"]
    (['binary'], 'H0-const')
    """
    from credalbook.papers.juergens.error_rates import summarise_error_rates
    from credalbook.synthetic.instance_scenarios import HYPOTHESES

    names = {h.lower(): h for h in HYPOTHESES}
    out = {}
    for setting in ("binary", "multiclass"):
        head = f"{prefix}-{setting}-"
        chosen = {names[n[len(head) :]]: st for n, st in studies.items() if n.startswith(head)}
        if chosen:
            out[setting] = summarise_error_rates(chosen, seed=seed)
    return out


def table1_decision_counts(rows, alpha: float = 0.01) -> dict:
    """Cells of Table 1 rows (name → row dict) whose p-value is below ``alpha``: ``k``, ``n`` and ``k_le``
    (p ≤ ``alpha``: the printed p-values are rounded to two decimals).

    >>> table1_decision_counts({"r": {"mean_p": 0.0, "lambda_p": 0.01}})
    {'k': 1, 'k_le': 2, 'n': 2}
    """
    ps = [row[f"{c}_p"] for row in rows.values() for c in ("mean", "lambda")]
    return {"k": sum(p < alpha for p in ps), "k_le": sum(p <= alpha for p in ps), "n": len(ps)}


def rejected_cells(rows) -> int:
    """Cells of Table 1 rows (name → row dict) whose test rejected (``"REJ."``, the test's own decision).

    >>> rejected_cells({"r": {"mean_h0": "REJ.", "lambda_h0": "¬REJ."}})
    1
    """
    return sum(row[f"{c}_h0"] == "REJ." for row in rows.values() for c in ("mean", "lambda"))


def set_pvalues(rows, kinds) -> dict:
    """Set kind → the p-values of its rows, both columns (rows named ``"... · <set> · <estimator>"``)."""
    out = {k: [] for k in kinds}
    for name, row in rows.items():
        kind = name.split(" · ")[-2]
        if kind in out:
            out[kind] += [row["mean_p"], row["lambda_p"]]
    return out


def dropout_less_calibrated(rows, de: str, dns) -> object:
    """Mean p-value of the dropout sets below the deep ensemble's (lower p: less calibrated)."""
    ps = set_pvalues(rows, (de, *dns))
    dn = [p for k in dns for p in ps[k]]
    m_dn, se_dn, n_dn = mean_se(dn)
    m_de, se_de, _ = mean_se(ps[de])
    return ordered(
        m_dn,
        m_de,
        relation="<",
        se_a=0.0 if np.isnan(se_dn) else se_dn,
        se_b=0.0 if np.isnan(se_de) else se_de,
        names=("mean p (dropout)", "mean p (DE)"),
        replicates=n_dn,
        tolerance_source="2 × standard error over the cells of each set",
    )
