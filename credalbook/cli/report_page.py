"""``report.html`` of ``credalbook evaluate --out DIR``: the whole report on one self-contained page.

The page holds the inputs (files, shapes, binary or multiclass, logits or probabilities, N, K,
versions), the metrics of every model with their intervals and the direction of the error, the
tests with their p-values, decisions and null distributions, the reliability diagrams (and the
overlay of several models), the comparison of several models, and beside each number the one
library call that reproduces it. Figures are the PNG files of ``--out`` inlined as base64 ``data:``
URIs and the style sheet is inline, so the page renders from the file alone, offline; its one
script, inline, only marks on ``<body>`` how many figures the browser decoded. Every text is
escaped with :func:`html.escape`. Standard library only.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

from credalbook.cli.options import METRICS, TEST_LABELS
from credalbook.cli.output import format_cell

__all__ = ["render_page", "write_page"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, monospace; font-size: .85em; background: #f7f7f7; }
pre { padding: .6em; overflow-x: auto; } .reject { color: #a40000; font-weight: 600; } .keep { color: #1a6b1a; }
figure { display: inline-block; margin: .5em 1em .5em 0; vertical-align: top; }
figure img { max-width: 100%; border: 1px solid #eee; } figcaption { font-size: .85em; color: #555; }
"""

_SCRIPT = """
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img"), ok = 0;
  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; } }
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-decoded", String(ok));
});
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _num(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return format_cell(value)


def _table(header: list[str], rows: list[list[str]], *, css_id: str) -> str:
    """A table of already escaped cells."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(rows_cell for rows_cell in row) + "</tr>\n" for row in rows)
    return f'<table id="{_e(css_id)}"><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n'


def _td(text, *, num: bool = False, css: str = "") -> str:
    classes = " ".join(c for c in ("num" if num else "", css) if c)
    return f'<td class="{classes}">{_e(text)}</td>' if classes else f"<td>{_e(text)}</td>"


def _code(text: str) -> str:
    return f"<td><code>{_e(text)}</code></td>"


def _figure(folder: Path, filename: str, caption: str) -> str:
    """A PNG of ``folder`` inlined as a data URI (nothing if it was not written)."""
    path = folder / filename
    if not path.is_file():
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{_e(caption)}" data-file="{_e(filename)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>\n"
    )


def _inputs(report: dict) -> str:
    inp, s = report["inputs"], report["settings"]
    rows = []
    for name, m in inp["models"].items():
        kind = "binary (scores P(y = 1))" if m["binary"] else "multiclass"
        if inp["ensemble"]:
            kind = f"ensemble of {inp['n_members']} members"
        rows.append(
            [_td(name), _code(m["file"]), _td(tuple(m["shape"])), _td(kind), _td("logits" if m["logits"] else "probs")]
        )
    out = _table(["model", "file", "shape", "kind", "read as"], rows, css_id="inputs")
    out += (
        f"<p>N = {_e(inp['n'])} instances, K = {_e(inp['n_classes'])} classes; labels from "
        f"<code>{_e(inp['labels'])}</code>.</p>\n"
    )
    settings = [[_td(k), _td(v)] for k, v in s.items()]
    versions = [[_td(k), _td(v)] for k, v in report.get("versions", {}).items()]
    out += "<h3>Settings</h3>\n" + _table(["setting", "value"], settings, css_id="settings")
    out += "<h3>Versions</h3>\n" + _table(["package", "version"], versions, css_id="versions")
    out += "<h3>Reading the inputs in Python</h3>\n<pre>" + _e("\n".join(inp.get("setup", []))) + "</pre>\n"
    return out


def _metrics(report: dict) -> str:
    s = report["settings"]
    level = f"{s['ci']:.0%} CI" if s["ci"] else "CI"
    rows = []
    for model, entry in report["models"].items():
        calls = entry.get("calls", {}).get("metrics", {})
        for name, e in entry["metrics"].items():
            interval = f"[{_num(e['low'])}, {_num(e['high'])}]" if e["low"] is not None else ""
            rows.append(
                [_td(model), _td(METRICS.get(name, name)), _td(_num(e["value"]), num=True), _td(interval, num=True)]
                + [_code(calls.get(name, ""))]
            )
    out = _table(["model", "metric", "value", level, "library call"], rows, css_id="metrics")
    directions = [(m, e["direction"]) for m, e in report["models"].items() if e.get("direction")]
    if directions:
        out += "<ul>" + "".join(f"<li><b>{_e(m)}</b>: {_e(d)}</li>" for m, d in directions) + "</ul>\n"
    splits = [(m, e) for m, e in report["models"].items() if e.get("ece_split")]
    if splits:
        rows = [
            [_td(m), _td(_num(e["ece_split"]["over"]), num=True), _td(_num(e["ece_split"]["under"]), num=True)]
            + [_td(e["ece_split"]["text"]), _code(e.get("calls", {}).get("ece_split", ""))]
            for m, e in splits
        ]
        out += "<h3>Where the top-label ECE comes from</h3>\n" + _table(
            ["model", "over-confident bins", "under-confident bins", "in words", "library call"],
            rows,
            css_id="ece-split",
        )
    return out


def _tests(report: dict, folder: Path) -> str:
    s = report["settings"]
    out = ""
    for model, entry in report["models"].items():
        if not entry["tests"]:
            continue
        calls = entry.get("calls", {}).get("tests", {})
        rows = []
        figures = ""
        for name, t in entry["tests"].items():
            line = t.get("decision_line") or ("reject H0" if t["rejected"] else "keep H0")
            rows.append(
                [
                    _td(TEST_LABELS.get(name, name)),
                    _td(_num(t["statistic"]), num=True),
                    _td(_num(t["pvalue"]), num=True),
                ]
                + [_td(line, css="reject" if t["rejected"] else "keep"), _code(calls.get(name, ""))]
            )
            figures += _figure(folder, f"null_{model}_{name}.png", f"{model}: null distribution, {name}")
        header = ["test", "statistic", "p-value", f"decision at alpha = {s['alpha']}", "library call"]
        out += f"<h3>{_e(model)}</h3>\n" + _table(header, rows, css_id=f"tests-{model}") + figures
    if report.get("set_test"):
        t = report["set_test"]
        weights = ", ".join(f"{w:.3f}" for w in t["weights"])
        decision = "reject H0: no convex combination is calibrated" if t["rejected"] else "keep H0"
        out += (
            f"<h3>Set of members</h3>\n<p>{_e(TEST_LABELS['set'])}: minimum {_e(_num(t['statistic']))} at weights "
            f"({_e(weights)}), p-value {_e(_num(t['pvalue']))}; {_e(decision)}.</p>\n"
            f"<p><code>{_e(t.get('call', ''))}</code></p>\n"
            + _figure(folder, "null_set.png", "set test: null distribution")
        )
    return out


def _diagrams(report: dict, folder: Path) -> str:
    out = _figure(folder, "reliability_comparison.png", "all models, overlaid")
    for model in report["models"]:
        out += _figure(folder, f"reliability_{model}.png", f"{model}: top-label reliability")
        out += _figure(folder, f"reliability_classwise_{model}.png", f"{model}: classwise reliability")
    return out or "<p>No figures (--no-plots).</p>\n"


def _comparison(report: dict) -> str:
    cmp = report.get("comparison")
    if not cmp:
        return ""
    rows = cmp["rows"]
    columns = list(rows[0]) if rows else []
    body = [[_td(_num(r.get(c)), num=isinstance(r.get(c), (int, float))) for c in columns] for r in rows]
    return (
        f"<h2>Comparison with {_e(cmp['baseline'])}</h2>\n"
        f"<p>Paired bootstrap (the same resamples for every model): <code>{_e(cmp['call'])}</code></p>\n"
        + _table(columns, body, css_id="comparison")
    )


def render_page(report: dict, folder) -> str:
    """The HTML of ``report.html`` for a report dict of :func:`credalbook.cli.evaluation.evaluate` and its ``--out`` folder.

    Examples
    --------
    >>> report = {"inputs": {"models": {}, "n": 0, "n_classes": 0, "labels": "y.npy", "ensemble": False},
    ...           "settings": {"ci": None, "alpha": 0.05}, "models": {}}
    >>> page = render_page(report, ".")
    >>> page.startswith("<!DOCTYPE html>") and "http" not in page
    True
    """
    folder = Path(folder)
    times = report.get("timings_s") or {}
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
    sections = [
        ("Inputs", _inputs(report)),
        ("Metrics", _metrics(report)),
        ("Tests", _tests(report, folder)),
        ("Reliability diagrams", _diagrams(report, folder)),
    ]
    body = "".join(f"<h2>{_e(title)}</h2>\n{content}" for title, content in sections)
    body += _comparison(report)
    if timing:
        body += f'<h2>Time</h2>\n<p id="timings">{_e(timing)}</p>\n'
    version = report.get("credalbook_version", "")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>credalbook evaluate report</title>\n<style>{_STYLE}</style>\n<script>{_SCRIPT}</script>\n"
        f"</head><body>\n<h1>Is my classifier calibrated? credalbook {_e(version)}</h1>\n{body}</body></html>\n"
    )


def write_page(folder, report: dict) -> Path:
    """Write ``report.html`` into ``folder`` (:func:`render_page`); return its path."""
    path = Path(folder) / "report.html"
    path.write_text(render_page(report, folder), encoding="utf-8")
    return path
