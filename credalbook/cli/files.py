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

__all__ = [
    "MAX_CLASSWISE_PANELS",
    "output_folder",
    "write_tables",
    "write_report",
    "write_figures",
    "write_reliability_figures",
    "write_test_figures",
]

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
    """A figure outside pyplot (no global state, no display) and its axes: one, or a grid of ``n_panels``.

    Fixed margins instead of a layout engine: a layout solver on a grid of ten panels costs more
    than drawing them.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if n_panels == 1:
        fig = Figure(figsize=(5, 4.5))
        FigureCanvasAgg(fig)
        fig.subplots_adjust(left=0.14, right=0.96, bottom=0.12, top=0.9)
        return fig, fig.add_subplot()
    ncols = min(n_panels, 5)
    nrows = -(-n_panels // ncols)
    fig = Figure(figsize=(3.4 * ncols, 3.4 * nrows))
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True).ravel()
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.08, top=0.92, wspace=0.3, hspace=0.4)
    for extra in axes[n_panels:]:
        extra.set_axis_off()
    return fig, axes[:n_panels]


def _save(fig, path: Path) -> None:
    fig.savefig(path, dpi=80)


def write_reliability_figures(
    models: dict[str, np.ndarray], labels: np.ndarray, *, folder: Path, n_bins: int, n_resamples: int, seed
) -> list[str]:
    """The reliability diagrams of each model: top-label, and classwise for K <= :data:`MAX_CLASSWISE_PANELS`
    (panels sharing their axes); returns the names of the PNG files."""
    from credalbook.plotting import ReliabilityDisplay

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
            _save(fig, folder / filename)
            files.append(filename)
    return files


def write_test_figures(
    results: dict, *, folder: Path, comparison=None, n_resamples: int = 1000, seed=None
) -> list[str]:
    """The null distribution of each test that has one, and with ``comparison`` (a
    :class:`~credalbook.stats.ModelComparison`) the diagrams of all models overlaid; returns the names of the PNG files."""
    from credalbook.plotting import plot_test_result

    files = []
    if comparison is not None:
        fig, ax = _new_axes()
        comparison.plot(ax=ax, n_resamples=n_resamples, seed=seed)
        _save(fig, folder / "reliability_comparison.png")
        files.append("reliability_comparison.png")
    for model, tests in results.items():
        for name, result in tests.items():
            if getattr(result, "null_distribution", None) is None and getattr(result, "null_model", None) is None:
                continue
            fig, ax = _new_axes()
            plot_test_result(result, ax=ax)
            filename = "null_set.png" if model == "set" else f"null_{model}_{name}.png"
            _save(fig, folder / filename)
            files.append(filename)
    return files


def write_figures(
    models: dict[str, np.ndarray],
    labels: np.ndarray,
    *,
    folder: Path,
    results: dict,
    n_bins: int,
    n_resamples: int,
    seed,
    comparison=None,
) -> list[str]:
    """:func:`write_reliability_figures` and :func:`write_test_figures`; returns the names of the PNG files."""
    files = write_reliability_figures(models, labels, folder=folder, n_bins=n_bins, n_resamples=n_resamples, seed=seed)
    return files + write_test_figures(results, folder=folder, comparison=comparison, n_resamples=n_resamples, seed=seed)
