"""The numbers the EU paper reports (Tables 1-2, from ``reported.json`` beside this module, read with
:func:`credalbook.papers.report.reported`), with the names of their estimators and metrics.
"""

from __future__ import annotations

from credalbook.papers.report import reported

__all__ = ["EU_ESTIMATORS", "EU_METRICS", "EU_PAPER_TABLE1", "EU_PAPER_TABLE2"]

#: The two EU estimators: ``"M"`` mutual information, ``"E"`` entropy (EU paper, Sec. 3.1).
EU_ESTIMATORS = ("M", "E")
#: The metrics of Tables 1-2, in column order.
EU_METRICS = ("rho_epi", "eece", "calibrated_eece")
_METRIC_NAMES = {"rho_epi": "ρ_epi", "eece": "EECE", "calibrated_eece": "Calib. EECE"}


def _paper_table(rows: dict) -> dict:
    """A table of ``reported.json`` (nested dicts ending in ``[mean, sd]``) with (mean, sd) tuples."""
    return {k: _paper_table(v) if isinstance(v, dict) else tuple(v) for k, v in rows.items()}


#: Table 1 of the EU paper (toy data, 6 seeds): estimator -> metric -> (mean, sd); read from
#: ``reported.json`` (:func:`credalbook.papers.report.reported`).
EU_PAPER_TABLE1 = _paper_table(reported("eu")["table1"]["rows"])
#: Table 2 of the EU paper: dataset -> estimator -> metric -> (mean, sd); read from ``reported.json``.
EU_PAPER_TABLE2 = _paper_table(reported("eu")["table2"]["rows"])
