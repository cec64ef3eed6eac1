"""The "Paper vs. this book" table every chapter ends with, and its machine-readable copy.

A chapter collects rows with :meth:`Comparison.add`, displays the table (the object renders as
HTML in Jupyter), and saves ``<results_dir>/<chapter-file-stem>.json``::

    {"chapter": ..., "parameters": {...},
     "rows": [{"artifact": "Table 1", "quantity": ..., "paper": ..., "book": ...,
               "agrees": true, "note": ...}]}
"""

from __future__ import annotations

import html
import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from credalbook._paths import results_dir

__all__ = ["Comparison", "ComparisonRow", "Table", "check_results", "count_of", "reported_table_rows", "glue", "load_comparison", "reported"]

#: The papers whose reported numbers live in ``credalbook/papers/<paper>/reported.json``.
PAPERS = ("mortier", "juergens", "mimori", "wu_gales", "eu")


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


def _fmt(value) -> str:
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


def _html_table(header, rows, css_class: str = "credalbook-table") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in row) + "</tr>" for row in rows)
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
        return _html_table([self.index_name, *cols], [[k, *(r.get(c, "") for c in cols)] for k, r in self.rows.items()])

    def __str__(self) -> str:
        cols = self.columns
        lines = ["\t".join([self.index_name, *cols])]
        lines += ["\t".join([str(k), *(_fmt(r.get(c, "")) for c in cols)]) for k, r in self.rows.items()]
        return "\n".join(lines)


@dataclass(frozen=True)
class ComparisonRow:
    """One reproduced quantity: the paper's value or claim next to ours."""

    artifact: str
    quantity: str
    paper: object
    book: object
    agrees: bool
    note: str = ""


@dataclass
class Comparison:
    """Rows of a chapter's "Paper vs. this book" section.

    Parameters
    ----------
    chapter : str
        The chapter's file stem, e.g. ``"00_calibration_primer"``; names the JSON file.

    Examples
    --------
    >>> c = Comparison("demo")
    >>> c.add("Eq. 6", "ECE of a perfect model", paper=0.0, book=0.004, agrees=True, note="finite N")
    >>> c.rows[0].agrees, c.n_agree
    (True, 1)
    """

    chapter: str
    rows: list[ComparisonRow] = field(default_factory=list)

    def add(self, artifact: str, quantity: str, *, paper, book, agrees: bool, note: str = "") -> None:
        """Append a row; ``agrees`` is our honest verdict, ``note`` says why when it is False."""
        if not isinstance(agrees, (bool, np.bool_)):
            raise ValueError(f"agrees must be True or False; got {agrees!r}")
        self.rows.append(ComparisonRow(str(artifact), str(quantity), _plain(paper), _plain(book), bool(agrees), str(note)))

    @property
    def n_agree(self) -> int:
        return sum(r.agrees for r in self.rows)

    def to_dict(self, parameters: dict | None = None) -> dict:
        return {
            "chapter": self.chapter,
            "parameters": _plain(dict(parameters or {})),
            "rows": [asdict(r) for r in self.rows],
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
        rows = [(r.artifact, r.quantity, r.paper, r.book, "✓" if r.agrees else "✗", r.note) for r in self.rows]
        return _html_table(("Artifact", "Quantity", "Paper", "This book", "Agrees", "Note"), rows,
                           css_class="credalbook-table credalbook-comparison")

    def __str__(self) -> str:
        lines = [f"{r.artifact} | {r.quantity} | paper {_fmt(r.paper)} | book {_fmt(r.book)} | "
                 f"{'agrees' if r.agrees else 'differs'}" for r in self.rows]
        return "\n".join(lines)


def load_comparison(path: str | Path) -> dict:
    """Read a results JSON written by :meth:`Comparison.save` and check its keys."""
    data = json.loads(Path(path).read_text())
    missing = {"chapter", "parameters", "rows"} - set(data)
    if missing:
        raise ValueError(f"{path} is not a comparison file; missing keys {sorted(missing)}")
    return data


@lru_cache(maxsize=None)
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
