"""The "Paper vs. this book" table every chapter ends with, and its machine-readable copy.

A chapter collects rows with :meth:`Comparison.add`, displays the table (the object renders as
HTML in Jupyter), and saves ``<results_dir>/<chapter-file-stem>.json``::

    {"chapter": ..., "parameters": {...},
     "counts": {"agrees": ..., "differs — cause shown": ..., ...},
     "rows": [{"artifact": "Table 1", "quantity": ..., "paper": ..., "book": ...,
               "verdict": "agrees", "criterion": ..., "tolerance": ..., "tolerance_source": ...,
               "replicates": ..., "cause": ..., "note": ...}]}

Each row is judged by a criterion that can fail (:mod:`credalbook.papers.criteria`).
"""

from __future__ import annotations

import html
import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from credalbook._paths import results_dir
from credalbook._provenance import module_hashes, parts_used
from credalbook.papers.criteria import AGREES, DIFFERS, DIFFERS_SHOWN, DIFFERS_UNKNOWN, Judgement, NOT_RUN, VERDICTS

__all__ = [
    "Comparison",
    "ComparisonRow",
    "Table",
    "check_results",
    "count_of",
    "fidelity_of",
    "format_cell",
    "html_table",
    "reported_table_rows",
    "glue",
    "load_comparison",
    "reported",
]

#: The papers whose reported numbers live in ``credalbook/papers/<paper>/reported.json``.
#: Papers whose reported numbers are data files here; "widmann" (Widmann, Lindsten & Zachariah 2019,
#: Figs. 1-2, the SKCE tests) is the reference of credalbook.synthetic.widmann, not a chapter's paper.
PAPERS = ("mortier", "juergens", "mimori", "wu_gales", "eu", "widmann")


def _plain(value):
    """Make ``value`` JSON-friendly: NumPy/torch scalars → Python numbers, arrays → lists."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def glue(name: str, value, display: bool = True) -> None:
    """``myst_nb.glue`` for the chapters, with NumPy/torch scalars stored as plain numbers.

    myst-nb stores a glued value's ``repr``; a NumPy scalar's is ``np.float64(...)``, which the
    ``{glue:text}`name:.2f``` role cannot format, so the number silently vanishes from the page
    (only a build warning). Converting with the same ``_plain`` as the results files avoids that.
    """
    from myst_nb import glue as _glue

    _glue(name, _plain(value), display=display)


def count_of(n: int, noun: str) -> str:
    """``n`` and ``noun`` for a caption, with the plural ``s`` only when ``n`` is not one.

    >>> count_of(1, "seed"), count_of(6, "seed")
    ('1 seed', '6 seeds')
    """
    return f"{n} {noun}" + ("s" if n != 1 else "")


def format_cell(value) -> str:
    """A cell's text: numbers to 4 significant digits; NaN (a value the paper does not report, or
    one that is undefined for that row) as an em dash rather than ``nan``."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        return "—" if math.isnan(v) else f"{v:.4g}"
    return str(value)


def html_table(header, rows, css_class: str = "credalbook-table") -> str:
    """An HTML table: a header row and rows of cells, each cell written by :func:`format_cell` and escaped.

    >>> html_table(["a"], [[0.123456]])
    '<table class="credalbook-table"><thead><tr><th>a</th></tr></thead><tbody><tr><td>0.1235</td></tr></tbody></table>'
    """
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(format_cell(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


@dataclass(frozen=True)
class Table:
    """A small table that renders as HTML in Jupyter and in the book (no pandas needed).

    Parameters
    ----------
    rows : dict of str to dict
        One row per key (the row label); the inner dicts' keys are the columns. A NaN cell (not
        reported, undefined) shows as "—", a missing one as an empty cell.

    Examples
    --------
    >>> t = Table({"model A": {"acc": 0.9, "ece": 0.0312}, "model B": {"acc": 0.8, "ece": 0.1}})
    >>> t.columns
    ['acc', 'ece']
    """

    rows: dict
    index_name: str = ""

    @property
    def columns(self) -> list:
        cols: list = []
        for r in self.rows.values():
            cols += [c for c in r if c not in cols]
        return cols

    def _repr_html_(self) -> str:
        cols = self.columns
        return html_table([self.index_name, *cols], [[k, *(r.get(c, "") for c in cols)] for k, r in self.rows.items()])

    def __str__(self) -> str:
        cols = self.columns
        lines = ["\t".join([self.index_name, *cols])]
        lines += ["\t".join([str(k), *(format_cell(r.get(c, "")) for c in cols)]) for k, r in self.rows.items()]
        return "\n".join(lines)


@dataclass(frozen=True)
class ComparisonRow:
    """One reproduced quantity: the paper's value or claim next to ours, how it was judged, and the verdict.

    ``verdict`` is one of :data:`~credalbook.papers.criteria.VERDICTS`; ``criterion``,
    ``tolerance``, ``tolerance_source`` and ``replicates`` say how it was reached (see
    :class:`~credalbook.papers.criteria.Judgement`); ``cause`` names the section or cell that shows
    why a row differs (``differs — cause shown``) or why it is not run here.
    """

    artifact: str
    quantity: str
    paper: object
    book: object
    verdict: str
    criterion: str
    tolerance: float | None = None
    tolerance_source: str = ""
    replicates: int | None = None
    cause: str = ""
    note: str = ""

    @property
    def agrees(self) -> bool:
        return self.verdict == AGREES


@dataclass
class Comparison:
    """Rows of a chapter's "Paper vs. this book" section.

    Parameters
    ----------
    chapter : str
        The chapter's file stem, e.g. ``"00_calibration_primer"``; names the JSON file.

    Examples
    --------
    >>> from credalbook.papers.criteria import close_to
    >>> c = Comparison("demo")
    >>> c.add("Alg. 1", "ACE of the ensemble", paper=0.0697, book=0.0695,
    ...       judgement=close_to(0.0695, 0.0697, tol=5e-4, tolerance_source="the paper's rounding (4 digits)"))
    >>> c.rows[0].verdict, c.fidelity
    ('agrees', '1 of 1 agree')
    """

    chapter: str
    rows: list[ComparisonRow] = field(default_factory=list)

    def add(
        self,
        artifact: str,
        quantity: str,
        *,
        paper,
        book,
        judgement: Judgement,
        cause: str = "",
        note: str = "",
        keep_cause: bool = False,
    ) -> None:
        """Append a judged row.

        Parameters
        ----------
        judgement : Judgement
            From a judge of :mod:`credalbook.papers.criteria` (which refuses criteria that cannot fail).
        cause : str
            For a row that differs: the section or cell of the chapter that shows why (the verdict is
            then ``"differs — cause shown"``; without it ``"differs — cause unknown"``). A chapter may
            pass the cause it expects; it is kept only when the row does differ, unless ``keep_cause``.
        note : str
            Where our setting differs from the paper's, and anything else a reader needs.
        keep_cause : bool, default=False
            Keep ``cause`` on a row that agrees or is inconclusive too (a computed cause that the
            reader needs whatever the verdict); the verdict is the same either way.
        """
        if not isinstance(judgement, Judgement):
            raise TypeError(f"judgement must be a credalbook.papers.criteria.Judgement; got {type(judgement).__name__}")
        if not isinstance(cause, str) or not isinstance(note, str):
            raise TypeError("cause and note must be strings")
        if not isinstance(keep_cause, bool):
            raise TypeError(f"keep_cause must be a bool; got {type(keep_cause).__name__}")
        verdict = judgement.verdict
        if verdict == DIFFERS:
            verdict = DIFFERS_SHOWN if cause.strip() else DIFFERS_UNKNOWN
        elif not keep_cause:
            cause = ""  # a cause explains a difference; a row that does not differ keeps none
        self.rows.append(
            ComparisonRow(
                str(artifact),
                str(quantity),
                _plain(paper),
                _plain(book),
                verdict,
                judgement.criterion,
                judgement.tolerance,
                judgement.tolerance_source,
                judgement.replicates,
                cause,
                note,
            )
        )

    def not_run(self, artifact: str, quantity: str, *, paper, reason: str, tested_by: str, note: str = "") -> None:
        """Append a row the book cannot run (data or hardware it cannot have).

        ``reason`` says what is missing; ``tested_by`` names the test of the code path on small data.
        """
        if not (isinstance(reason, str) and reason.strip() and isinstance(tested_by, str) and tested_by.strip()):
            raise ValueError("a row not run here needs a reason and the test of its code path (tested_by)")
        self.rows.append(
            ComparisonRow(
                str(artifact),
                str(quantity),
                _plain(paper),
                None,
                NOT_RUN,
                f"not run: {reason}",
                None,
                "",
                None,
                f"code path tested by {tested_by}",
                str(note),
            )
        )

    def counts(self) -> dict:
        """Rows per verdict, in the order of :data:`~credalbook.papers.criteria.VERDICTS`."""
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}

    @property
    def n_agree(self) -> int:
        return self.counts()[AGREES]

    @property
    def fidelity(self) -> str:
        """``"a of n agree"`` with ``n`` the rows that were run, then the other verdicts' counts."""
        return fidelity_of(self.counts())

    def to_dict(self, parameters: dict | None = None) -> dict:
        """The rows, their counts and ``parameters`` as JSON data, with ``provenance``: fingerprints of the
        package modules this process imported and the recorded parts it used (``credalbook._provenance``)."""
        parameters = _plain(dict(parameters or {}))
        return {
            "chapter": self.chapter,
            "parameters": parameters,
            "counts": self.counts(),
            "rows": [asdict(r) for r in self.rows],
            "provenance": {"modules": module_hashes(), "parts": parts_used(self.chapter, parameters.get("scale", ""))},
        }

    def save(self, parameters: dict | None = None, *, directory: str | Path | None = None) -> Path:
        """Write ``<directory>/<chapter>.json`` (default ``credalbook._paths.results_dir()``)."""
        if not self.rows:
            raise ValueError(f"Comparison {self.chapter!r} has no rows to save")
        out = Path(directory) if directory is not None else results_dir()
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{self.chapter}.json"
        path.write_text(json.dumps(self.to_dict(parameters), indent=2, allow_nan=True) + "\n")
        return path

    def _repr_html_(self) -> str:
        rows = []
        for r in self.rows:
            how = r.criterion + (f" (tolerance: {r.tolerance_source})" if r.tolerance_source else "")
            verdict = r.verdict + (f": {r.cause}" if r.cause and r.verdict != AGREES else "")
            rows.append((r.artifact, r.quantity, r.paper, r.book, how, verdict, r.note))
        table = html_table(
            ("Artifact", "Quantity", "Paper", "This book", "Criterion", "Verdict", "Note"),
            rows,
            css_class="credalbook-table credalbook-comparison",
        )
        return table + f'<p class="credalbook-fidelity">{html.escape(self.fidelity)}.</p>'

    def __str__(self) -> str:
        lines = [
            f"{r.artifact} | {r.quantity} | paper {format_cell(r.paper)} | book {format_cell(r.book)} | {r.verdict}"
            for r in self.rows
        ]
        return "\n".join(lines + [self.fidelity])


def fidelity_of(counts: Mapping) -> str:
    """``"a of n agree (...)"`` from a results file's ``counts``: ``n`` excludes the rows not run here.

    >>> fidelity_of({"agrees": 3, "differs — cause shown": 1, "inconclusive": 2, "not run here": 1})
    '3 of 6 agree (1 differs — cause shown; 2 inconclusive; 1 not run here)'
    """
    unknown = set(counts) - set(VERDICTS)
    if unknown:
        raise ValueError(f"counts has keys that are not verdicts: {sorted(unknown)}")
    c = {v: int(counts.get(v, 0)) for v in VERDICTS}
    run = sum(c.values()) - c[NOT_RUN]
    rest = "; ".join(f"{c[v]} {v}" for v in VERDICTS[1:] if c[v])
    return f"{c[AGREES]} of {run} agree" + (f" ({rest})" if rest else "")


def load_comparison(path: str | Path) -> dict:
    """Read a results JSON written by :meth:`Comparison.save` and check its keys."""
    data = json.loads(Path(path).read_text())
    missing = {"chapter", "parameters", "rows"} - set(data)
    if missing:
        raise ValueError(f"{path} is not a comparison file; missing keys {sorted(missing)}")
    return data


@cache
def _reported_file(paper: str) -> str:
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {PAPERS}; got {paper!r}")
    path = Path(__file__).with_name(paper) / "reported.json"
    if not path.is_file():
        raise FileNotFoundError(f"the reported numbers of {paper!r} are missing: {path}")
    return path.read_text(encoding="utf-8")


def reported(paper: str) -> dict:
    """The numbers ``paper`` reports, read from ``credalbook/papers/<paper>/reported.json``.

    Each paper's numbers are written once, in that data file, every entry with the table or figure
    (and page) it comes from under ``"source"``; the chapters and the papers' ``compare`` functions
    read them from here. A fresh copy is returned on every call, so a caller cannot change another's.

    Examples
    --------
    >>> sorted(reported("eu"))[:2]
    ['_paper', 'table1']
    """
    return json.loads(_reported_file(paper))


def check_results(results, keys) -> Mapping:
    """Check the results mapping a paper's ``compare`` receives: a mapping holding every name in ``keys``.

    Examples
    --------
    >>> check_results({"a": 1}, ("a", "b"))
    Traceback (most recent call last):
    ...
    ValueError: results is missing the keys ['b'] (it needs ['a', 'b'])
    """
    if not isinstance(results, Mapping):
        raise TypeError(f"results must be a mapping of the chapter's numbers; got {type(results).__name__}")
    missing = [k for k in keys if k not in results]
    if missing:
        raise ValueError(f"results is missing the keys {missing} (it needs {list(keys)})")
    return results


def reported_table_rows(paper: str, table: str, **keys) -> dict:
    """One block of a reported table, ``reported(paper)[table]["rows"][k1][k2]...`` for ``keys`` in order,
    with a ValueError naming the key whose value the table lacks.

    Examples
    --------
    >>> reported_table_rows("mortier", "table1", dataset="CIFAR-10", arch="MOB")["DE"]["avg_ece_conf"]
    0.168
    >>> reported_table_rows("mortier", "table1", dataset="MNIST", arch="MOB")
    Traceback (most recent call last):
    ...
    ValueError: dataset must be one of ['BACTERIA', 'CALTECH-101', 'CALTECH-256', 'CIFAR-10', 'PLANTCLEF2015', 'PROTEINS']; got 'MNIST'
    """
    rows = reported(paper)[table]["rows"]
    for name, value in keys.items():
        if value not in rows:
            raise ValueError(f"{name} must be one of {sorted(rows)}; got {value!r}")
        rows = rows[value]
    return rows
