"""The numbers Mimori et al. (2022) report, for the "Paper vs. this book" tables of their chapter.

The numbers themselves live in ``reported.json`` beside this module, each table with its source, and
are read with :func:`credalbook.papers.report.reported`. This module gives them the shapes the
chapter uses: :data:`PAPER_VALUES` holds Tables 4 and 5 (CPE metrics of Mix-MNIST and Mix-CIFAR-10),
Table 1 (DPE metrics), Table 2 (EL of prior and posterior CPEs) and the vector / matrix scaling rows
of Table 6 (MDS-1); :data:`PAPER_DELTA_D` the mean DPE shifts of App. F.2. Cells the paper prints as
NA, and three accuracies of Table 6 that are illegible in our copy of the paper, are left out.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Tables 1, 2, 4-6 and App. F.2.
"""

from __future__ import annotations

import math

from credalbook.papers.report import reported, Table

__all__ = ["PAPER_VALUES", "PAPER_DELTA_D", "mds_mean_labels", "paper_values", "side_by_side"]


def mds_mean_labels() -> float:
    """The mean number of labels per validation image of the MDS data (Sec. 7.1, App. E.1): the chapter's MDS-full
    analogue trains on that many labels per image on average.

    Examples
    --------
    >>> mds_mean_labels()
    5.79
    """
    return float(reported("mimori")["mds_data"]["values"]["mean_labels_validation"])


def _setting_key(name: str) -> tuple:
    """``"Mix-MNIST(2)"`` → ``("Mix-MNIST", 2)``; ``"MDS"`` or ``"MDS-1"`` → ``("MDS", None)``.

    >>> _setting_key("Mix-CIFAR-10(5)"), _setting_key("MDS-1")
    (('Mix-CIFAR-10', 5), ('MDS', None))
    """
    if name.startswith("MDS"):
        return "MDS", None
    ref, n = name[:-1].split("(")
    return ref, int(n)


def _paper_values(numbers: dict) -> dict:
    """``{(reference, n_labels): {predictor: {metric: value}}}`` from Tables 4, 5, 1, 2 and the vs/ms
    rows of Table 6, merged in that order; null cells (NA, illegible) are left out."""
    t6 = {
        s: {n: row for n, row in rows.items() if "+vs" in n or "+ms" in n}
        for s, rows in numbers["table6"]["values"].items()
        if s == "MDS-1"
    }  # MDS-full: another network
    parts = [numbers[t]["values"] for t in ("table4", "table5", "table1", "table2")] + [t6]
    out: dict = {}
    for part in parts:
        for setting, rows in part.items():
            for name, row in rows.items():
                known = {m: v for m, v in row.items() if v is not None}
                if known:
                    out.setdefault(_setting_key(setting), {}).setdefault(name, {}).update(known)
    return out


_NUMBERS = reported("mimori")

#: The paper's numbers, ``{(reference, n_labels): {predictor: {metric: value}}}`` from Tables 1, 2, 4, 5 and the
#: vs/ms rows of Table 6 (MDS-1; ``n_labels`` None). Metrics: Acc, L_sq, EL, CE, L_phi, CE_phi, EL post.
PAPER_VALUES = _paper_values(_NUMBERS)

#: App. F.2: mean Δ^D between Raw+ts and Raw DPEs (Mix-MNIST(2), (5), Mix-CIFAR-10(2), (5), MDS).
PAPER_DELTA_D = {_setting_key(s): v for s, v in _NUMBERS["appF2_delta_d"]["values"].items()}

_REFERENCE = {"mnist": "Mix-MNIST", "fashion_mnist": "Mix-MNIST", "digits": "Mix-MNIST", "cifar10": "Mix-CIFAR-10"}


def paper_values(dataset: str, config) -> tuple[str, dict]:
    """The paper's reference (name, rows) for our `dataset` and label `config` (2, 5 or "variable" → MDS).

    Examples
    --------
    >>> name, rows = paper_values("fashion_mnist", 2)
    >>> name, rows["Raw+ts"]["EL"]
    ('Mix-MNIST(2)', 0.0379)
    """
    if config == "variable":
        return "MDS", PAPER_VALUES[("MDS", None)]
    ref = _REFERENCE.get(dataset, "Mix-MNIST")
    return f"{ref}({config})", PAPER_VALUES.get((ref, config), {})


def side_by_side(book: dict, paper: dict, metrics, *, rows=None, index_name: str = "") -> Table:
    """A :class:`~credalbook.papers.report.Table` with the paper's and our value of each metric next to each other."""
    rows = [r for r in (rows or book) if r in book]
    return Table(
        {
            r: {
                f"{m} {who}": src.get(r, {}).get(m, math.nan)
                for m in metrics
                for who, src in (("paper", paper), ("book", book))
            }
            for r in rows
        },
        index_name=index_name,
    )
