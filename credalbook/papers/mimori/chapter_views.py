r"""The views of the Mimori et al. (2022) chapter: its run settings, the rows of its tables, its checks and the
results :func:`credalbook.papers.mimori.compare` judges, from the predictions and metrics the chapter computes.

Each function turns numbers computed elsewhere (:func:`~credalbook.papers.mimori.mimori_predictions`,
:func:`~credalbook.papers.mimori.evaluate_predictors`, :func:`~credalbook.papers.mimori.theorem1_check`, ...) into
what a chapter cell shows: a dict of rows for :class:`credalbook.papers.report.Table`, a sentence, a figure.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import numpy as np

from credalbook.metrics.label_stats import statistic_mean_estimate
from credalbook.papers.mimori.evaluation import (
    bootstrap_metrics,
    dpe_reliability,
    ensemble_temperature_scan,
    evaluate_predictors,
    pool_seeds,
)
from credalbook.papers.mimori.figures import plot_calibration_dispersion_map, plot_dpe_reliability
from credalbook.papers.mimori.networks import MIX_AUGMENTATIONS
from credalbook.papers.mimori.predictions import mimori_predictions
from credalbook.papers.mimori.reported import PAPER_DELTA_D, paper_values

__all__ = [
    "accuracy_discordance",
    "alpha_control_rows",
    "chapter_run",
    "mix_data_name",
    "setting_name",
    "theorem1_rows",
    "mean_over_seeds",
    "network_summary",
    "temperature_rows",
    "ts_shift_rows",
    "ts_sign_check",
    "ensemble_scan_rows",
    "ensemble_metric_rows",
    "plot_mds_full",
    "construction_checks",
    "pooled_controls",
    "dpe_gaps",
    "tta_results",
    "tta_judged",
    "mds_full_results",
    "chapter_results",
]

#: The column of :func:`theorem1_rows` that holds the largest Monte-Carlo error in standard errors.
THEOREM1_MAX_Z = "max |MC − closed| / s.e."

#: The temperatures of the ensemble scan of the chapter (besides the two fitted ones).
SCAN_TEMPERATURES = (0.7, 0.8, 0.9, 1.0, 1.2, 1.4)

_DATA_NAMES = {"fashion_mnist": "Fashion-MNIST", "mnist": "MNIST", "cifar10": "CIFAR-10"}


def chapter_run(cfg, setting: dict, *, dataset: str = "fashion_mnist", seed: int = 0, device: str = "auto") -> dict:
    """The keyword arguments of :func:`~credalbook.papers.mimori.mimori_predictions` for the chapter's run.

    Parameters
    ----------
    cfg : mapping
        The chapter's preset (``preset("03_mimori_label_histograms", scale)``).
    setting : dict
        :func:`~credalbook.papers.mimori.chapter_setting` of the scale (network options, augmentation).
    dataset : str
        The base images of the Mix data: a CIFAR dataset trains the VGG network, the others the three-conv one;
        ``"digits"`` (or a preset without sizes) uses every image (``sizes=None``).
    seed, device
        Passed through.

    Returns
    -------
    dict
        ``sizes``, ``arch``, ``arch_options``, ``augment``, ``epochs``, ``training``, ``n_samples``,
        ``calibration``, ``seed``, ``device``.

    Examples
    --------
    >>> from credalbook.papers.mimori import chapter_setting
    >>> from credalbook.papers.presets import preset
    >>> run = chapter_run(preset("03_mimori_label_histograms", "tiny"), chapter_setting("tiny"), dataset="digits")
    >>> run["arch"], run["sizes"]
    ('threeconv', None)
    """
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a str; got {type(dataset).__name__}")
    if not isinstance(setting, dict):
        raise TypeError(f"setting must be a dict (chapter_setting's); got {type(setting).__name__}")
    arch = "vgg" if dataset.startswith("cifar") else "threeconv"
    sizes = (cfg["n_train"], cfg["n_val"], cfg["n_test"])
    sizes = None if cfg["n_train"] is None or dataset == "digits" else sizes
    return dict(
        sizes=sizes,
        arch=arch,
        arch_options={**cfg["network"][arch], **setting["arch_options"]},
        augment=setting["augment"],
        epochs=cfg["epochs"],
        training=cfg["training"],
        n_samples=cfg["n_samples"],
        calibration=dict(optimizer=cfg["calib_optimizer"], max_epochs=cfg["calib_epochs"]),
        seed=seed,
        device=device,
    )


def mix_data_name(dataset: str) -> str:
    """The name of the Mix data built on ``dataset``, as the paper writes it.

    Examples
    --------
    >>> mix_data_name("fashion_mnist"), mix_data_name("digits")
    ('Mix-Fashion-MNIST', 'Mix-digits')
    """
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a str; got {type(dataset).__name__}")
    return "Mix-" + _DATA_NAMES.get(dataset, dataset)


def setting_name(config, data_name: str) -> str:
    """The row label of a label setting: ``"<data_name>(<config>)"``, or ``"variable labels"``.

    Examples
    --------
    >>> setting_name(2, "Mix-MNIST"), setting_name("variable", "Mix-MNIST")
    ('Mix-MNIST(2)', 'variable labels')
    """
    return f"{data_name}({config})" if config != "variable" else "variable labels"


def theorem1_rows(check) -> dict:
    """The table of a :class:`~credalbook.papers.mimori.Theorem1Check`: per scenario the closed-form quantities,
    the optimal α0 (closed form and the grid's Monte-Carlo minimiser), where α starts to help, and the largest
    distance of the Monte-Carlo losses from the closed forms in standard errors (column
    ``"max |MC − closed| / s.e."``).

    Examples
    --------
    >>> from credalbook.papers.mimori import theorem1_check
    >>> rows = theorem1_rows(theorem1_check(n_draws=20_000))
    >>> round(rows["calibrated Z"]["DPE: α0* closed form"], 6), sorted(rows)
    (4.0, ['calibrated Z', 'flatter Z', 'sharper Z'])
    """
    return {
        name: {
            "u_Q": s["u_q"],
            "s_Z": s["s_z"],
            "EL_G": s["el_g"],
            "DPE: α0* closed form": float(s["dpe_interval"].optimum),
            "DPE: α0* simulated": s["dpe_argmin"],
            "DPE: helps from": float(s["dpe_interval"].lower),
            "posterior: α0* closed form": float(s["post_interval"].optimum),
            "posterior: α0* simulated": s["post_argmin"],
            "posterior: helps from": float(s["post_interval"].lower),
            THEOREM1_MAX_Z: max(
                np.max(np.abs(s[f"{k}_mc"] - s[f"{k}_closed"]) / s[f"{k}_se"]) for k in ("dpe", "post")
            ),
        }
        for name, s in check.scenarios.items()
    }


def mean_over_seeds(per_seed: list) -> dict:
    """``{config: {name: {metric: mean over the seeds}}}`` of per-seed metrics (one
    ``{config: evaluate_predictors(...)}`` per seed; the first seed's configs, names and metrics).

    Examples
    --------
    >>> mean_over_seeds([{2: {"Raw": {"EL": 0.1}}}, {2: {"Raw": {"EL": 0.3}}}])
    {2: {'Raw': {'EL': 0.2}}}
    """
    if not isinstance(per_seed, list) or not per_seed:
        raise ValueError("per_seed must be a non-empty list (one entry per seed)")
    return {
        c: {n: {k: float(np.mean([m[c][n][k] for m in per_seed])) for k in per_seed[0][c][n]} for n in per_seed[0][c]}
        for c in per_seed[0]
    }


def network_summary(network, *, arch: str) -> str:
    """One line on the training of a :class:`~credalbook.papers.mimori.MixNetwork`: epochs, best epoch, seconds and
    validation loss of the best epoch."""
    return (
        f"{arch}: {network.epochs_run} epochs, best {network.best_epoch}, {network.seconds:.0f} s; "
        f"val. loss {network.history[network.best_epoch - 1]['val_loss']:.3f}"
    )


def temperature_rows(predictions, data_name: str) -> dict:
    """Per label setting: the temperature of ts, whether the fit kept its start (T = 1), and the ensemble-aware
    temperatures of MCDO and TTA (NaN where there is none).

    Examples
    --------
    >>> import numpy as np
    >>> from credalbook.papers.mimori import MimoriPredictions
    >>> pred = MimoriPredictions("demo", (2,), np.eye(2), {}, None, {}, {2: 1.2}, None)
    >>> temperature_rows(pred, "Mix-demo")["Mix-demo(2)"]["T (ts, one network)"]
    1.2
    """
    return {
        setting_name(c, data_name): {
            "T (ts, one network)": predictions.temperatures[c],
            "no fit (T = 1)": predictions.temperatures[c] == 1.0,
            **{f"T ({b}+ts(ens))": predictions.ensemble_temperatures.get((c, b), np.nan) for b in ("MCDO", "TTA")},
        }
        for c in predictions.configs
    }


def ts_shift_rows(predictions, shifts: dict, *, dataset: str, data_name: str) -> dict:
    r"""Per label setting: T, the book's mean :math:`\Delta^D` (``shifts[config]``, from
    :func:`~credalbook.papers.mimori.ts_dpe_shift`) and the paper's (App. F.2; NaN where it reports none)."""
    return {
        setting_name(c, data_name): {
            "T": predictions.temperatures[c],
            "mean Δ^D (book)": s["mean_delta"],
            "mean Δ^D (paper)": PAPER_DELTA_D.get(
                (paper_values(dataset, c)[0].split("(")[0], None if c == "variable" else c), np.nan
            ),
        }
        for c, s in shifts.items()
    }


def ts_sign_check(predictions, shifts: dict) -> str:
    r"""The check of App. F.2: where a temperature was fitted (T ≠ 1), the mean :math:`\Delta^D` has the sign of
    T − 1 (T = 1 exactly: the fit kept its start, :math:`\Delta^D = 0`); the sentence the chapter prints."""
    fitted = [c for c in shifts if predictions.temperatures[c] != 1.0]
    agree = all(np.sign(shifts[c]["mean_delta"]) == np.sign(predictions.temperatures[c] - 1) for c in fitted)
    unfitted = sorted(set(shifts) - set(fitted), key=str)
    return " ".join(
        (
            "check (by construction, App. F.2): where a temperature was fitted (T ≠ 1), mean Δ^D has the sign of T − 1:",
            str(agree),
            f"({len(fitted)} of {len(shifts)} settings fitted"
            + ("; no fit: " + ", ".join(map(str, unfitted)) if len(fitted) < len(shifts) else "")
            + ")",
        )
    )


def ensemble_scan_rows(
    predictions, *, config="variable", base: str = "MCDO", temperatures=SCAN_TEMPERATURES, n_bins: int = 15
) -> dict:
    """:func:`~credalbook.papers.mimori.ensemble_temperature_scan` of ``base`` at ``temperatures`` and at the two
    fitted temperatures (member-wise ts and ts(ens)), in increasing T, the fitted ones marked in the row label."""
    marks = {
        "← ts (member-wise)": predictions.temperatures[config],
        "← ts(ens)": predictions.ensemble_temperatures[(config, base)],
    }
    scan = ensemble_temperature_scan(
        predictions, config, base=base, temperatures=(*temperatures, *marks.values()), n_bins=n_bins
    )
    return {f"T = {t:.3g} " + " ".join(k for k, v in marks.items() if v == t): row for t, row in sorted(scan.items())}


def alpha_control_rows(predictions: list, config, *, n_bins: int = 15) -> dict:
    r"""ĈEφ and L̂φ of every base predictor X with α and with its controls, and the mean α0, averaged over the seeds:
    X, X+α (the instance-wise head), X+γ (DPEs shrunk by the least-squares constant), X+α0 (one α0 fitted by α's own
    objective, Eq. 50), X+α(conv.) (the head fitted to convergence), X+α+γ (α's DPEs times the least-squares
    constant) and, for the ensembles, X+α(det.) (α0 from the deterministic features, shared by the members; NaN for
    the single network's rows), on the test histograms of ``config``; and ĈEφ of X+α and X+γ with 15 equal-mass bins
    of each predictor's own DPEs (``"... (equal mass)"``, :func:`~credalbook.papers.mimori.dpe_mass_edges`) instead of
    the paper's equal width.

    ``predictions``: one :class:`~credalbook.papers.mimori.MimoriPredictions` per seed, with their controls.
    Returns ``{X: {column: value}}``.
    """
    if not isinstance(predictions, list) or not predictions:
        raise ValueError("predictions must be a non-empty list (one MimoriPredictions per seed)")
    first = predictions[0]
    bases = [n for n in first.names(config) if not n.endswith("+α") and (config, n + "+α0") in first.controls]
    if not bases:
        raise ValueError(f"the predictions of config {config!r} have no X+α0 control (computed before it existed?)")
    suffixes = [
        x
        for x in ("+γ", "+α0", "+α(conv.)", "+α+γ", "+α(det.)")
        if any((config, b + x) in first.controls for b in bases)
    ]
    with_a0 = [x for x in ("+α", "+α0", "+α(conv.)") if x == "+α" or x in suffixes]
    per_seed = []
    for p in predictions:
        # the predictors and the controls each has
        names = [v for n in bases for v in (n, n + "+α", *(n + x for x in suffixes if (config, n + x) in p.controls))]
        m = evaluate_predictors(p, config, names=names, n_bins=n_bins)
        a0 = {v: float(np.mean(p.outputs(config, v).alpha0)) for b in bases for v in (b + x for x in with_a0)}
        per_seed.append({config: {n: {**m[n], "alpha0": a0.get(n, np.nan)} for n in m}})
    mean = mean_over_seeds(per_seed)[config]
    out = {}
    for n in bases:
        row = {"ĈEφ X": mean[n]["CE_phi"], "ĈEφ X+α": mean[n + "+α"]["CE_phi"]}
        row.update({f"ĈEφ X{x}": mean.get(n + x, {}).get("CE_phi", np.nan) for x in suffixes})
        if "+γ" in suffixes:
            row.update({f"ĈEφ X{x} (equal mass)": mean[n + x]["CE_phi mass"] for x in ("+α", "+γ")})
        row.update({"L̂φ X+α": mean[n + "+α"]["L_phi"]})
        row.update({f"L̂φ X{x}": mean.get(n + x, {}).get("L_phi", np.nan) for x in suffixes})
        row.update({"mean α0 (α)": mean[n + "+α"]["alpha0"], "α0 (constant)": mean[n + "+α0"]["alpha0"]})
        if "+α(conv.)" in suffixes:
            row["mean α0 (α conv.)"] = mean[n + "+α(conv.)"]["alpha0"]
        out[n] = row
    return out


def ensemble_metric_rows(predictions, bases, *, config="variable", n_bins: int = 15) -> dict:
    """ÊL, ĈL and accuracy of each ensemble of ``bases`` ("MCDO", "TTA") as it is, with member-wise ts and with the
    ensemble-aware temperature (ts(ens)), on the test histograms of ``config``."""
    names = [n for b in bases for n in (b, b + "+ts", b + "+ts(ens)")]
    metrics = evaluate_predictors(predictions, config, names=names, n_bins=n_bins)
    return {n: {"ÊL": m["EL"], "ĈL": m["CL"], "Acc": m["Acc"]} for n, m in metrics.items()}


def plot_mds_full(predictions, metrics: dict, *, config="variable", axes=None):
    """The MDS-full analogue's figure: its calibration-dispersion map (without the α variants) and the DPE
    reliability of the uncalibrated predictors and their α variants. Returns the figure.

    ``metrics``: :func:`~credalbook.papers.mimori.evaluate_predictors` of ``predictions`` and ``config``;
    ``axes``: two axes to draw on (default: a new figure of two panels).
    """
    if axes is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    else:
        fig = axes[0].figure
    plot_calibration_dispersion_map({n: m for n, m in metrics.items() if not n.endswith("+α")}, ax=axes[0])
    shown = [n for n in predictions.names(config) if n.count("+") == 0 or n.endswith("+α") and n.count("+") == 1]
    plot_dpe_reliability(dpe_reliability(predictions, config, shown), ax=axes[1])
    axes[0].set_title("MDS-full analogue: calibration-dispersion map", fontsize=10)
    fig.tight_layout()
    return fig


def construction_checks(metrics: dict, predictions, *, ranges, thm: dict, el_check: dict) -> str:
    r"""The sentence of the chapter's checks that hold by construction: α leaves Acc, L̂sq, ÊL and ĈE unchanged
    (largest difference), Fig. 3's range of log α0 contains 0 and narrows with λ_α (``ranges``,
    :meth:`~credalbook.papers.mimori.AlphaOptimumGrid.ranges`), Theorem 1 holds within a few standard errors
    (``thm``, :func:`theorem1_rows`), ÊL is close to the EL from Q (``el_check``: rows with a ``"gap"``).

    Examples
    --------
    >>> import numpy as np
    >>> from credalbook.papers.mimori import MimoriPredictions
    >>> pred = MimoriPredictions("demo", (2,), None, {}, None, {(2, "Raw"): 0, (2, "Raw+α"): 0}, {}, None)
    >>> row = {"Acc": 0.5, "L_sq": 0.1, "EL": 0.02, "CE": 0.01}
    >>> text = construction_checks({2: {"Raw": row, "Raw+α": row}}, pred, ranges=np.array([[-1.0, 2.0], [-0.5, 1.0]]),
    ...                            thm={"Z": {THEOREM1_MAX_Z: 1.5}}, el_check={"Raw": {"gap": 0.001}})
    >>> print(*text.split("; "), sep="\n")
    check (by construction): α leaves Acc, L̂sq, ÊL, ĈE unchanged (largest difference 0.0e+00)
    Fig. 3: log α0 range contains 0 and narrows with λ_α: True
    Theorem 1 within 1.5 s.e.
    ÊL − EL from Q ≤ 0.0010
    """
    ranges = np.asarray(ranges)
    alpha_same = max(
        abs(metrics[c][n + "+α"][k] - metrics[c][n][k])
        for c in predictions.configs
        for n in predictions.names(c)
        if n + "+α" in metrics[c]
        for k in ("Acc", "L_sq", "EL", "CE")
    )
    narrows = bool(
        np.all(ranges[:, 0] < 0) and np.all(ranges[:, 1] > 0) and np.all(np.diff(ranges[:, 1] - ranges[:, 0]) < 0)
    )
    return (
        f"check (by construction): α leaves Acc, L̂sq, ÊL, ĈE unchanged (largest difference {alpha_same:.1e}); "
        f"Fig. 3: log α0 range contains 0 and narrows with λ_α: {narrows}; "
        f"Theorem 1 within {max(r[THEOREM1_MAX_Z] for r in thm.values()):.1f} s.e.; "
        f"ÊL − EL from Q ≤ {max(abs(r['gap']) for r in el_check.values()):.4f}"
    )


def pooled_controls(predictions: list, *, n_resamples: int = 200, seed: int = 0) -> tuple:
    """The controls of every seed's predictions (:meth:`~credalbook.papers.mimori.MimoriPredictions.control_names`),
    evaluated and bootstrapped per seed and pooled over the seeds (:func:`~credalbook.papers.mimori.pool_seeds`).

    Returns ``(metrics, boot)`` of :func:`~credalbook.papers.mimori.pool_seeds`.
    """
    if not isinstance(predictions, list) or not predictions:
        raise ValueError("predictions must be a non-empty list (one MimoriPredictions per seed)")
    return pool_seeds(
        [{c: evaluate_predictors(p, c, names=p.control_names(c)) for c in p.configs} for p in predictions],
        [
            {
                c: bootstrap_metrics(p, c, names=p.control_names(c), n_resamples=n_resamples, seed=seed)
                for c in p.configs
            }
            for p in predictions
        ],
        seed=seed,
    )


def dpe_gaps(predictions: list) -> dict:
    """``{config: {name: DPE − the test histogram's unbiased disagreement}}`` per test instance, the seeds'
    instances concatenated, for the predictors without a calibrator (names without "+"; those of the first seed).

    Examples
    --------
    >>> import numpy as np
    >>> from credalbook.papers.mimori import MimoriPredictions, PredictorOutputs
    >>> hist = np.array([[2, 0], [1, 1]])
    >>> out = PredictorOutputs(np.full((2, 2), 0.5), np.array([0.5, 0.5]))
    >>> pred = MimoriPredictions("demo", (2,), None, {2: hist}, None, {(2, "Raw"): out}, {}, None)
    >>> dpe_gaps([pred, pred])[2]["Raw"]
    array([ 0.5, -0.5,  0.5, -0.5])
    """
    if not isinstance(predictions, list) or not predictions:
        raise ValueError("predictions must be a non-empty list (one MimoriPredictions per seed)")
    first = predictions[0]
    return {
        c: {
            n: np.concatenate([p.outputs(c, n).dpe - statistic_mean_estimate(p.test_hist[c]) for p in predictions])
            for n in first.names(c)
            if "+" not in n
        }
        for c in first.configs
    }


def tta_results(
    dataset: str, run: dict, augment, *, n_resamples: int = 200, seed: int = 0, network=None
) -> dict | None:
    """The named TTA setting (None when ``augment`` is None): a network trained and tested with ``augment`` (the
    paper's strong augmentation), two validation labels, no variable labels; the metrics and bootstrap resamples
    of Raw, MCDO and TTA.

    ``run``: the keyword arguments of :func:`~credalbook.papers.mimori.mimori_predictions` (:func:`chapter_run`).
    ``network``: that network, trained already (the chapter's part ``network-tta-seed<seed>``), or None to train it.
    """
    if augment is None:
        return None
    pred = mimori_predictions(
        dataset, **{**run, "augment": augment, "n_labels_val": (2,), "variable_labels": None}, network=network
    )
    names = ["Raw", "MCDO", "TTA"]
    return dict(
        metrics={2: evaluate_predictors(pred, 2, names=names)},
        boot={2: bootstrap_metrics(pred, 2, names=names, n_resamples=n_resamples, seed=seed)},
        setting=f"trained and tested with the paper's Mix-CIFAR-10 augmentation {augment} (seed {seed})",
    )


def tta_judged(tta: dict | None, dataset: str = "fashion_mnist") -> str:
    """How the chapter's TTA row is judged, the words the chapter glues after "The TTA row is judged": in the named
    setting of :func:`tta_results` when there is one, else with the augmentation the base network trains with
    (:data:`~credalbook.papers.mimori.MIX_AUGMENTATIONS`), or not at all when it trains with none.

    Examples
    --------
    >>> tta_judged(None, "fashion_mnist")
    "with the augmentation the base network trains with, {'rotation': 10.0, 'shift': 2.0, 'hflip': True} (the paper's TTA for Mix-CIFAR-10 and MDS is stronger)"
    >>> tta_judged({"setting": "trained and tested with X (seed 0)"})
    'in its own setting, a network trained and tested with X (seed 0)'
    """
    if tta:
        return f"in its own setting, a network {tta['setting']}"
    augment = MIX_AUGMENTATIONS.get(dataset)
    if augment is None:
        return "nowhere: the base network trains without augmentation, so there is no TTA"
    return (
        f"with the augmentation the base network trains with, {augment} (the paper's TTA for Mix-CIFAR-10 and MDS is "
        "stronger)"
    )


def mds_full_results(
    predictions,
    metrics: dict,
    *,
    base_metrics: dict,
    base_boot: dict,
    train_labels: float,
    n_resamples: int = 200,
    seed: int = 0,
) -> dict:
    """What :func:`~credalbook.papers.mimori.compare` receives of the MDS-full analogue: its metrics
    (``metrics``), bootstrap resamples of its "variable" setting, those of the base network (one label per
    training image; ``base_metrics``, ``base_boot``), the mean number of training labels and the seed."""
    return dict(
        metrics=metrics,
        boot=bootstrap_metrics(predictions, "variable", n_resamples=n_resamples, seed=seed),
        base_metrics=base_metrics,
        base_boot=base_boot,
        train_labels=train_labels,
        seed=seed,
    )


def accuracy_discordance(predictions: list, config, name: str, others) -> dict:
    """``{other: fraction}``: the share of test instances, pooled over the seeds, on which the CPEs of ``name`` and
    of ``other`` have different argmax classes (the discordant pairs of McNemar's paired comparison of accuracies).

    ``predictions``: one :class:`~credalbook.papers.mimori.MimoriPredictions` per seed.

    Examples
    --------
    >>> import numpy as np
    >>> from credalbook.papers.mimori import MimoriPredictions, PredictorOutputs
    >>> a = PredictorOutputs(np.array([[0.9, 0.1], [0.4, 0.6]]), np.zeros(2))
    >>> b = PredictorOutputs(np.array([[0.8, 0.2], [0.7, 0.3]]), np.zeros(2))
    >>> pred = MimoriPredictions("demo", (2,), None, {2: np.ones((2, 2), int)}, None, {(2, "A"): a, (2, "B"): b}, {}, None)
    >>> accuracy_discordance([pred], 2, "A", ["B"])
    {'B': 0.5}
    """
    if not isinstance(predictions, list) or not predictions:
        raise ValueError("predictions must be a non-empty list (one MimoriPredictions per seed)")
    out = {}
    for other in others:
        differ = [
            np.argmax(p.outputs(config, name).probs, axis=1) != np.argmax(p.outputs(config, other).probs, axis=1)
            for p in predictions
        ]
        out[other] = float(np.concatenate(differ).mean())
    return out


def chapter_results(
    predictions: list,
    metrics: dict,
    boot: dict,
    *,
    controls: tuple,
    tta: dict | None,
    mds_full: dict,
    study,
    dataset: str,
    data_name: str,
) -> dict:
    """The results of the chapter that :func:`~credalbook.papers.mimori.compare` judges.

    Parameters
    ----------
    predictions : list of MimoriPredictions
        One per training seed (the first gives the temperatures and the predictor names).
    metrics, boot : dict
        The metrics and bootstrap resamples pooled over the seeds (:func:`~credalbook.papers.mimori.pool_seeds`).
    controls : tuple
        ``(metrics, boot)`` of the controls (:func:`pooled_controls`).
    tta : dict or None
        :func:`tta_results`.
    mds_full : dict
        :func:`mds_full_results`.
    study : DebiasingStudy
        Fig. 2's simulation (:func:`~credalbook.papers.mimori.debiasing_study`).
    dataset, data_name : str
        The base images and the Mix data's name (:func:`mix_data_name`).
    """
    if not isinstance(predictions, list) or not predictions:
        raise ValueError("predictions must be a non-empty list (one MimoriPredictions per seed)")
    ctrl, ctrl_boot = controls
    first = predictions[0]
    raw = [n for n in ("Raw", "Raw+ts", "Raw+ms") if "variable" in first.configs and n in first.names("variable")]
    has_vs = "variable" in first.configs and "Raw+vs" in first.names("variable")
    return dict(
        dataset=dataset,
        data_name=data_name,
        metrics=metrics,
        boot=boot,
        temperatures=predictions[0].temperatures,
        controls=ctrl,
        controls_boot=ctrl_boot,
        dpe_gap=dpe_gaps(predictions),
        tta=tta,
        n_seeds=len(predictions),
        mds_full=mds_full,
        fig2=dict(n_instances=study.n_instances, n_labels=study.n_labels, estimates=study.estimates),
        discordance=accuracy_discordance(predictions, "variable", "Raw+vs", raw) if has_vs else None,
    )
