"""The library call behind each number of ``credalbook evaluate``: Python lines that recompute it.

:func:`input_lines` reads the inputs as the command does; :func:`library_calls` gives, per model,
the one call of each metric and each test (and the comparison of several models) with the
command's settings, so that ``report.json`` and ``report.html`` say how each number is reproduced.
Plain strings, no computing: light to import.
"""

from __future__ import annotations

__all__ = ["input_lines", "library_calls", "model_variable"]


def _read(target: str, file: str, key: str | None, logits: bool, binary: bool) -> list[str]:
    """The lines that read one predictions file into ``target`` as the command does."""
    key_arg = f", key={key!r}" if key else ""
    raw = f"load_array({file!r}{key_arg})"
    if binary and logits:
        return [f"z = {raw}  # logits of P(y = 1)", f"{target} = np.stack([expit(-z), expit(z)], axis=1)"]
    if binary:
        return [f"s = {raw}  # scores P(y = 1)", f"{target} = np.column_stack([1 - s, s])"]
    if logits:
        return [f"{target} = torch.softmax(torch.as_tensor(np.array({raw}, dtype=np.float64)), dim=-1).numpy()"]
    return [f"{target} = {raw}"]


def input_lines(report: dict) -> list[str]:
    """Python lines that read the inputs of ``report`` into ``labels`` and ``probs`` (or ``ens_probs``, or ``models``)."""
    inp = report["inputs"]
    key, labels_key = inp.get("key"), inp.get("labels_key")
    lines = [
        "import numpy as np",
        "from credalbook.data import load_array",
        "from credalbook.metrics import (accuracy, brier_score, ece_classwise, ece_confidence, ece_split,",
        "                                LaplacianKernel, median_heuristic, nll, signed_calibration_error, skce)",
        "from credalbook.stats import calibration_test, compare_models, set_calibration_test",
    ]
    if any(m["logits"] and m["binary"] for m in inp["models"].values()):
        lines.append("from scipy.special import expit")
    if any(m["logits"] and not m["binary"] for m in inp["models"].values()):
        lines.append("import torch")
    labels_arg = f", key={labels_key!r}" if labels_key else ""
    lines.append(f"labels = load_array({inp['labels']!r}{labels_arg}, ndim=1).astype(np.int64)")
    entries = inp["models"]
    if len(entries) == 1:
        m = next(iter(entries.values()))
        var = "ens_probs" if inp["ensemble"] else "probs"
        return lines + _read(var, m["file"], key, m["logits"], m["binary"])
    lines.append("models = {}")
    for name, m in entries.items():
        lines += _read(f"models[{name!r}]", m["file"], key, m["logits"], m["binary"])
    return lines


def model_variable(report: dict, model: str) -> str:
    """The expression of :func:`input_lines`' variables that holds the predictions of ``model``."""
    inp = report["inputs"]
    if inp["ensemble"]:
        return "ens_probs.mean(axis=1)" if model == "mean" else f"ens_probs[:, {model.split('_')[-1]}]"
    return "probs" if len(inp["models"]) == 1 else f"models[{model!r}]"


def _metric_call(name: str, p: str, s: dict) -> str:
    ci = f", ci={s['ci']}, n_resamples={s['n_resamples']}, seed={s['seed']}" if s["ci"] else ""
    if name == "skce":
        return f'skce({p}, labels, kernel=LaplacianKernel(median_heuristic({p})), estimator="linear"{ci})'
    if name == "signed_calibration_error":
        return f'signed_calibration_error({p}, labels, kind="confidence"{ci})'
    bins = f", n_bins={s['n_bins']}" if name.startswith("ece") else ""
    return f"{name}({p}, labels{bins}{ci})"


def _test_call(name: str, p: str, s: dict) -> str:
    method, measure = {
        "consistency": ("consistency", "ece_confidence"),
        "consistency_classwise": ("consistency", "ece_classwise"),
    }.get(name, (name, None))
    measure_arg = f", measure={measure!r}" if measure else ""
    jobs = f", n_jobs={s['n_jobs']}" if s.get("n_jobs") is not None else ""
    return (
        f"calibration_test({p}, labels, method={method!r}{measure_arg}, n_bins={s['n_bins']}, "
        f"n_resamples={s['n_resamples']}, alpha={s['alpha']}, seed={s['seed']}{jobs})"
    )


def library_calls(report: dict, models: list[str], metrics) -> dict:
    """Per model ``{"metrics": {name: call}, "tests": {name: call}}`` (and ``"ece_split"``, the call of the ECE
    split, when ``ece_confidence`` is among ``metrics``), and the call of the set test under ``"set"``.

    Examples
    --------
    >>> report = {"inputs": {"ensemble": False, "models": {"model": {}}},
    ...           "settings": {"ci": 0.95, "n_resamples": 200, "seed": 0, "n_bins": 15, "alpha": 0.05,
    ...                        "tests": ["consistency"], "baseline": None}}
    >>> library_calls(report, ["model"], ["ece_confidence"])["model"]["metrics"]["ece_confidence"]
    'ece_confidence(probs, labels, n_bins=15, ci=0.95, n_resamples=200, seed=0)'
    """
    s = report["settings"]
    out = {}
    for model in models:
        p = model_variable(report, model)
        out[model] = {
            "metrics": {name: _metric_call(name, p, s) for name in metrics},
            "tests": {name: _test_call(name, p, s) for name in s["tests"]},
        }
        if "ece_confidence" in metrics:
            out[model]["ece_split"] = f'ece_split({p}, labels, kind="confidence", n_bins={s["n_bins"]})'
    jobs = ", chunk_size=None" if s.get("n_jobs") is None else f", n_jobs={s['n_jobs']}"
    out["set"] = (
        f'set_calibration_test(ens_probs, labels, measure="ece_confidence", n_bins={s["n_bins"]}, '
        f"n_resamples={s['n_resamples']}, alpha={s['alpha']}, seed={s['seed']}{jobs})"
    )
    return out
