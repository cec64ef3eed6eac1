"""What ``credalbook evaluate`` prints: the header, a table per model, the test of a set and the time taken.

Each function reads the report dict that :func:`credalbook.cli.evaluation.evaluate` builds (plain
numbers, as written to ``report.json``) and prints to ``out``.
"""

from __future__ import annotations

import numpy as np

from credalbook.cli.options import METRICS, TEST_LABELS

__all__ = ["print_header", "print_model", "print_set_test", "print_comparison", "print_done"]


def _fmt(v, digits: int = 4) -> str:
    if v is None:
        return ""
    if not np.isfinite(v):
        return str(v)
    return f"{v:#.{digits}g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"


def _describe_inputs(inp: dict) -> str:
    """What was read: the files, probabilities or logits, binary scores."""
    parts = []
    for name, m in inp["models"].items():
        kind = (
            ("logits" if m["logits"] else "scores") if m["binary"] else ("logits" if m["logits"] else "probabilities")
        )
        label = "" if len(inp["models"]) == 1 else f"{name}: "
        parts.append(f"{label}{kind} from {m['file']}")
    return ", ".join(parts)


def print_header(report: dict, out) -> None:
    """The inputs (instances, classes, members, files) and the settings."""
    inp, s = report["inputs"], report["settings"]
    members = f", {inp['n_members']} members" if inp["ensemble"] else ""
    binary = " (binary scores P(y = 1))" if inp.get("binary") else ""
    several = f"{len(inp['models'])} models, " if len(inp["models"]) > 1 else ""
    print(
        f"credalbook evaluate: {several}{inp['n']} instances, {inp['n_classes']} classes{binary}{members} "
        f"({_describe_inputs(inp)}, labels from {inp['labels']})",
        file=out,
    )
    ci = f"{s['ci']:.0%} bootstrap CIs" if s["ci"] else "no CIs"
    print(
        f"settings: {s['n_bins']} bins, {s['n_resamples']} resamples, {ci}, alpha = {s['alpha']}, seed = {s['seed']}",
        file=out,
    )


def print_model(model: str, report: dict, out) -> None:
    """The metrics (with their intervals) and the tests (statistic, p-value, decision) of one model."""
    entry = report["models"][model]
    s = report["settings"]
    print(f"\n== {model} ==", file=out)
    if entry["metrics"]:
        level = f"{s['ci']:.0%} CI" if s["ci"] else ""
        print(f"  {'metric':<24}{'value':>11}   {level}", file=out)
        for name, e in entry["metrics"].items():
            label = METRICS[name] + (f" (B={s['n_bins']})" if name.startswith("ece") else "")
            interval = f"[{_fmt(e['low'])}, {_fmt(e['high'])}]" if e["low"] is not None else ""
            print(f"  {label:<24}{_fmt(e['value']):>11}   {interval}", file=out)
    if entry.get("direction"):
        print(f"  direction: {entry['direction']}", file=out)
    if entry.get("ece_split"):
        print(f"  split (B={entry['ece_split']['n_bins']}): {entry['ece_split']['text']}", file=out)
    if entry["tests"]:
        print(f"  {'test':<40}{'statistic':>11}{'p-value':>10}  decision at alpha = {s['alpha']}", file=out)
        for name, t in entry["tests"].items():
            decision = t.get("decision_line") or ("reject H0 (miscalibrated)" if t["rejected"] else "keep H0")
            print(
                f"  {TEST_LABELS.get(name, name):<40}{_fmt(t['statistic']):>11}{_fmt(t['pvalue'], 3):>10}  {decision}",
                file=out,
            )


def print_set_test(report: dict, out) -> None:
    """The test of the set of members: the minimum, its weights, the p-value and the decision."""
    t, s = report["set_test"], report["settings"]
    decision = "reject H0: no convex combination is calibrated" if t["rejected"] else "keep H0"
    weights = ", ".join(f"{w:.3f}" for w in t["weights"])
    print(f"\n== set of {len(t['weights'])} members ==", file=out)
    print(
        f"  {TEST_LABELS['set']}: minimum {_fmt(t['statistic'])} at weights ({weights}), "
        f"p-value {_fmt(t['pvalue'], 3)}; {decision} at alpha = {s['alpha']}",
        file=out,
    )


def print_comparison(report: dict, out) -> None:
    """The comparison of several models (:func:`credalbook.stats.compare_models`): its rows, as a table."""
    cmp = report["comparison"]
    rows = cmp["rows"]
    print(f"\n== comparison with {cmp['baseline']} (paired bootstrap) ==", file=out)
    if not rows:
        return
    columns = list(rows[0])
    cells = [[c for c in columns]] + [[format_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        print("  " + "  ".join(cell.rjust(w) for cell, w in zip(row, widths)), file=out)


def format_cell(value) -> str:
    """A table cell: numbers to 4 significant digits, None empty, anything else as text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _fmt(value)
    return str(value)


def print_done(times: dict[str, float], out) -> None:
    """The total wall time and the time of each step, in seconds."""
    total = sum(times.values())
    steps = ", ".join(f"{s} {t:.1f}" for s, t in times.items())
    print(f"\ndone in {total:.1f} s ({steps})", file=out)
