"""What ``credalbook evaluate --out DIR`` writes: ``report.json``, ``metrics.csv``, ``tests.csv`` and PNG figures.

The tables and the JSON hold the numbers of the report dict; the figures are drawn from the
predictions and the test results (:class:`credalbook.plotting.ReliabilityDisplay`,
:func:`credalbook.plotting.plot_test_result`) on figures outside pyplot. matplotlib is imported
only when figures are drawn.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from credalbook.cli.inputs import InputError

__all__ = ["MAX_CLASSWISE_PANELS", "output_folder", "write_tables", "write_report", "write_figures"]

#: Largest number of classes for which ``--out`` gets a classwise reliability diagram (one panel per class).
MAX_CLASSWISE_PANELS = 10


def output_folder(out) -> Path:
    """The folder ``out``, created if needed; an :class:`InputError` if it cannot be."""
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"output folder '{folder}': {err.strerror or err}") from None
    return folder


def write_tables(folder: Path, report: dict) -> list[str]:
    """``metrics.csv`` (a row per model and metric) and ``tests.csv`` (a row per model and test, and the set
    test); returns the names of the files of the report, ``report.json`` included."""
    with open(folder / "metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "metric", "value", "low", "high", "level", "n_resamples", "method"])
        for model, entry in report["models"].items():
            for name, e in entry["metrics"].items():
                w.writerow([model, name, e["value"], e["low"], e["high"], e["level"], e["n_resamples"], e["method"]])
    with open(folder / "tests.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", "test", "statistic", "pvalue", "alpha", "rejected"])
        rows = [(m, t, r) for m, e in report["models"].items() for t, r in e["tests"].items()]
        if report["set_test"]:
            rows.append(("set", "set", report["set_test"]))
        for model, name, r in rows:
            w.writerow([model, name, r["statistic"], r["pvalue"], r["alpha"], r["rejected"]])
    return ["report.json", "metrics.csv", "tests.csv"]


def write_report(folder: Path, report: dict) -> None:
    """``report.json``: the report dict, indented."""
    (folder / "report.json").write_text(json.dumps(report, indent=2, allow_nan=True) + "\n")


def _new_axes(n_panels: int = 1):
    """A figure outside pyplot (no global state, no display) and its axes: one, or a grid of ``n_panels``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if n_panels == 1:
        fig = Figure(figsize=(5, 4.5), layout="constrained")
        FigureCanvasAgg(fig)
        return fig, fig.add_subplot()
    ncols = min(n_panels, 5)
    nrows = -(-n_panels // ncols)
    fig = Figure(figsize=(3.4 * ncols, 3.4 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for extra in axes[n_panels:]:
        extra.set_axis_off()
    return fig, axes[:n_panels]


def write_figures(
    models: dict[str, np.ndarray],
    labels: np.ndarray,
    *,
    folder: Path,
    results: dict,
    n_bins: int,
    n_resamples: int,
    seed,
) -> list[str]:
    """The reliability diagrams of each model (top-label, and classwise for K <= :data:`MAX_CLASSWISE_PANELS`)
    and the null distribution of each test with one; returns the names of the PNG files."""
    from credalbook.plotting import plot_test_result, ReliabilityDisplay

    files = []
    for model, p in models.items():
        k = p.shape[-1]
        kinds = [("confidence", f"reliability_{model}.png", 1)]
        if k <= MAX_CLASSWISE_PANELS:
            kinds.append(("classwise", f"reliability_classwise_{model}.png", k))
        for kind, filename, n_panels in kinds:
            fig, ax = _new_axes(n_panels)
            ReliabilityDisplay.from_predictions(
                p, labels, kind=kind, n_bins=n_bins, ax=ax, name=model, seed=seed, n_resamples=n_resamples
            )
            fig.savefig(folder / filename, dpi=100)
            files.append(filename)
    for model, tests in results.items():
        for name, result in tests.items():
            if getattr(result, "null_distribution", None) is None and getattr(result, "null_model", None) is None:
                continue
            fig, ax = _new_axes()
            plot_test_result(result, ax=ax)
            filename = "null_set.png" if model == "set" else f"null_{model}_{name}.png"
            fig.savefig(folder / filename, dpi=100)
            files.append(filename)
    return files
