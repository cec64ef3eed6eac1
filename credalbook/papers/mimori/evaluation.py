r"""The metrics of Mimori et al. (2022)'s tables for the predictors of :func:`~credalbook.papers.mimori.mimori_predictions`.

* :func:`evaluate_predictors` — the metrics of Tables 1, 2, 4-6 for every predictor;
* :func:`bootstrap_metrics` — the same metrics on shared bootstrap resamples of the test instances;
* :func:`ts_dpe_shift` — App. F.2's :math:`\Delta^D` and the data of Fig. 4;
* :func:`dpe_reliability` — the DPE reliability diagrams of Figs. 1 and 5b.

Accuracy is against the majority of each test histogram (ties to the lowest class, as the authors' code).
The paper's own numbers are in :mod:`credalbook.papers.mimori.reported`.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._validation import check_positive_int
from credalbook.calibration.scaling import histogram_nll
from credalbook.metrics.binning import equal_mass_cuts
from credalbook.metrics.label_hist import cpe_loss_decomposition, expected_squared_loss
from credalbook.metrics.label_stats import statistic_calibration, statistic_mean_estimate, statistic_squared_loss
from credalbook.papers.mimori.predictions import MimoriPredictions

__all__ = [
    "evaluate_predictors",
    "bootstrap_metrics",
    "ts_dpe_shift",
    "dpe_reliability",
    "dpe_mass_edges",
    "ensemble_temperature_scan",
    "pool_seeds",
]


def evaluate_predictors(predictions: MimoriPredictions, config, *, names=None, n_bins: int = 15) -> dict:
    r"""The metrics of Tables 1, 2 and 4-6 for each predictor of `config`, on the test histograms.

    ``{name: {"Acc", "L_sq", "EL", "CE", "CL", "DL", "EL true", "U_Q", "L_phi", "CE_phi", "CE_phi mass",
    "EL post"}}``:
    accuracy against the majority label of each histogram; :math:`\hat L_{sq}` (Eq. 8),
    :math:`\widehat{\mathrm{EL}}` (Eq. 10), :math:`\widehat{\mathrm{CE}}`, :math:`\widehat{\mathrm{CL}}`
    and :math:`\widehat{\mathrm{DL}}` (Eqs. 14, 36; 15 bins); the true EL from the known Q;
    :math:`\hat L_{\phi^D}` (Eq. 40) and :math:`\widehat{\mathrm{CE}}_{\phi^D}` (Eq. 44) of the DPEs, the latter
    with the paper's 15 equal-width bins (``"CE_phi"``) and with 15 equal-mass bins of the predictor's own DPEs
    (``"CE_phi mass"``, :func:`dpe_mass_edges`; not in the paper: a setting of the binning, to see whether a
    difference in ĈEφ is one of the bins);
    the unbiased EL of the posterior CPEs (Table 2; only where the predictor has them); ``"U_Q"`` the mean unbiased
    disagreement of the histograms (:math:`\bar u_Q = \mathbb E[1 - \sum_k Q_k^2]`, the same for every predictor).
    """
    outputs = {n: predictions.outputs(config, n) for n in names or predictions.names(config)}
    return _metric_rows(predictions.test_hist[config], predictions.true_probs, outputs, _cpe_groups(outputs), n_bins)


def _cpe_groups(outputs: dict) -> dict:
    """``{name: the first name whose CPEs equal this predictor's}``: a "+α" predictor holds its base's CPEs
    (compared by value: a predictions object loaded from the cache holds copies)."""
    firsts: list = []
    groups = {}
    for n, p in outputs.items():
        groups[n] = next((m for m in firsts if np.array_equal(outputs[m].probs, p.probs)), n)
        if groups[n] == n:
            firsts.append(n)
    return groups


def _metric_rows(hist, true_probs, outputs: dict, groups: dict, n_bins: int, idx=None) -> dict:
    """The metrics of :func:`evaluate_predictors` for every predictor of ``outputs``, on the instances ``idx``
    (all if None). The CPE metrics are computed once per CPE group (``groups``, :func:`_cpe_groups`) and shared by
    its predictors: the same function of the same numbers, so every value is that of the predictor alone."""
    take = (lambda a: a) if idx is None else (lambda a: a[idx])
    hist, truth = take(hist), take(true_probs)
    gini = statistic_mean_estimate(hist)
    u_q = float(np.mean(gini[np.isfinite(gini)])) if np.isfinite(gini).any() else float("nan")
    cpe_metrics, rows = {}, {}
    for name, p in outputs.items():
        if groups[name] not in cpe_metrics:
            probs = take(p.probs)
            d = cpe_loss_decomposition(probs, hist, n_bins=n_bins)
            cpe_metrics[groups[name]] = {
                "Acc": float((probs.argmax(axis=1) == hist.argmax(axis=1)).mean()),
                "L_sq": expected_squared_loss(probs, hist),
                "EL": d.el_debiased,
                "CE": d.ce_debiased,
                "CL": d.cl_debiased,
                "DL": d.dl_debiased,
                "EL true": float(((probs - truth) ** 2).sum(axis=1).mean()),
                "U_Q": u_q,
            }
        dpe = take(p.dpe)
        row = {
            **cpe_metrics[groups[name]],
            "L_phi": statistic_squared_loss(dpe, hist),
            "CE_phi": statistic_calibration(dpe, hist, n_bins=n_bins).ce_debiased,
            "CE_phi mass": statistic_calibration(dpe, hist, bin_edges=dpe_mass_edges(dpe, n_bins)).ce_debiased,
        }
        if p.posterior_probs is not None:
            row["EL post"] = cpe_loss_decomposition(take(p.posterior_probs), hist, n_bins=n_bins).el_debiased
        rows[name] = row
    return rows


def dpe_mass_edges(dpe, n_bins: int = 15) -> np.ndarray:
    """Edges of ``n_bins`` equal-mass bins of the DPEs ``dpe`` (1-D, in [0, 1]) for
    :func:`~credalbook.metrics.statistic_calibration`'s ``bin_edges``: 0, the interior cuts of
    ``credalbook.metrics.binning.equal_mass_cuts`` (midpoints between order statistics) and 1. Cuts that coincide
    (tied DPEs) merge their bins, so there are at most ``n_bins`` bins, each holding about ``len(dpe) / n_bins``.

    Examples
    --------
    >>> dpe_mass_edges(np.array([0.1, 0.4, 0.2, 0.3, 0.6, 0.5]), 3)
    array([0.  , 0.25, 0.45, 1.  ])
    >>> dpe_mass_edges(np.array([0.0, 0.0, 0.0, 0.5]), 2)    # the cut at 0 merges into the first edge
    array([0., 1.])
    """
    d = np.asarray(dpe, dtype=np.float64)
    if d.ndim != 1 or d.size == 0 or not np.all((d >= 0) & (d <= 1)):
        raise ValueError(f"dpe must be a non-empty 1-D array of values in [0, 1]; got shape {d.shape}")
    check_positive_int(n_bins, "n_bins")
    return np.unique(np.concatenate([[0.0], np.clip(equal_mass_cuts(d, n_bins), 0.0, 1.0), [1.0]]))


@renamed(n_boot="n_resamples")
def bootstrap_metrics(
    predictions: MimoriPredictions,
    config,
    *,
    names=None,
    n_resamples: int = 200,
    n_bins: int = 15,
    seed: int = 0,
    n_jobs: int = 1,
) -> dict:
    r"""The metrics of :func:`evaluate_predictors` on `n_resamples` bootstrap resamples of the test instances.

    Every predictor is evaluated on the *same* resamples, so the standard error of a difference
    between two predictors (or of a ratio of two metrics) is the standard deviation of that
    difference over the resamples (a paired bootstrap over test instances). This is the
    uncertainty of the book's numbers that comes from the finite test split: the chapter trains one
    network, so it has no replicates over seeds.

    The resampling indices are drawn once, up front; the resamples are evaluated in fixed chunks of
    ``BOOT_CHUNK`` (25), ``n_jobs`` chunks at once through joblib (-1: all cores; inside
    ``joblib.parallel_config(backend="dask")`` on a ``dask.distributed`` cluster), so results do not
    depend on ``n_jobs``.

    Returns
    -------
    dict
        ``{name: {metric: ndarray (n_resamples,)}}``, the metrics of :func:`evaluate_predictors` except
        ``"EL true"``.

    Examples
    --------
    >>> from credalbook.papers.criteria import mean_se
    >>> from credalbook.papers.mimori import MimoriPredictions, PredictorOutputs
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=400)
    >>> hist = np.stack([rng.multinomial(5, p) for p in q])
    >>> out = PredictorOutputs(q, 1 - (q**2).sum(axis=1))
    >>> pred = MimoriPredictions("demo", (5,), q, {5: hist}, hist[:, :1], {(5, "Q"): out}, {}, None)
    >>> b = bootstrap_metrics(pred, 5, n_resamples=50)
    >>> b["Q"]["EL"].shape, bool(abs(b["Q"]["EL"].mean()) < 3 * b["Q"]["EL"].std())   # the truth: EL = 0
    ((50,), True)
    """
    check_positive_int(n_resamples, "n_resamples")
    hist = predictions.test_hist[config]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 26]))
    idx = rng.integers(0, len(hist), size=(n_resamples, len(hist)))
    names = list(names or predictions.names(config))
    outputs = {n: predictions.outputs(config, n) for n in names}
    items = [
        (hist, predictions.true_probs, outputs, n_bins, idx[lo : lo + BOOT_CHUNK])
        for lo in range(0, n_resamples, BOOT_CHUNK)
    ]
    out = {n: {} for n in names}
    b = 0
    for rows in sweep(_boot_rows, items, n_jobs=check_n_jobs(n_jobs)):
        for row in rows:
            for n in names:
                for k, v in row[n].items():
                    if k != "EL true":
                        out[n].setdefault(k, np.empty(n_resamples))[b] = v
            b += 1
    return out


#: Bootstrap resamples per work unit of :func:`bootstrap_metrics` (fixed: results do not depend on ``n_jobs``).
BOOT_CHUNK = 25


def _boot_rows(hist, true_probs, outputs: dict, n_bins: int, idx: np.ndarray) -> list:
    """The metric rows of every predictor on each resample ``idx[b]`` of the test instances, in order."""
    groups = _cpe_groups(outputs)
    return [_metric_rows(hist, true_probs, outputs, groups, n_bins, i) for i in idx]


def ts_dpe_shift(predictions: MimoriPredictions, config, *, base: str = "Raw") -> dict:
    r"""App. F.2 / Fig. 4: how temperature scaling moves each instance's max CPE and DPE.

    Returns arrays ``max_cpe``, ``max_cpe_ts``, ``dpe``, ``dpe_ts`` and ``mean_delta``, the mean of
    :math:`\Delta^D = \varphi'^D - \varphi^D` (Eq. 85) over the test instances.
    """
    p, q = predictions.predictors[(config, base)], predictions.predictors[(config, base + "+ts")]
    return dict(
        max_cpe=p.probs.max(axis=1),
        max_cpe_ts=q.probs.max(axis=1),
        dpe=p.dpe,
        dpe_ts=q.dpe,
        mean_delta=float((q.dpe - p.dpe).mean()),
    )


def dpe_reliability(predictions: MimoriPredictions, config, names, *, n_bins: int = 15) -> dict:
    """``{name: StatisticCalibration}`` of the DPEs against the test histograms' disagreement (Figs. 1, 5b)."""
    hist = predictions.test_hist[config]
    return {n: statistic_calibration(predictions.predictors[(config, n)].dpe, hist, n_bins=n_bins) for n in names}


def ensemble_temperature_scan(
    predictions: MimoriPredictions, config, *, base: str, temperatures, n_bins: int = 15
) -> dict:
    r"""The test metrics of an ensemble whose members are all divided by one temperature, for each of `temperatures`.

    ``{T: {"NLL", "EL", "CL"}}``: the multinomial NLL (Eq. 84), :math:`\widehat{\mathrm{EL}}` and
    :math:`\widehat{\mathrm{CL}}` of the ensemble mean :math:`\frac1S\sum_s \operatorname{softmax}(z^{(s)}/T)` of the
    test members of `base` ("MCDO" or "TTA") against the test histograms of `config`: where the member-wise
    temperature of ts (fitted on one deterministic network) and the ensemble-aware one
    (:class:`~credalbook.papers.mimori.SharedTemperatureEnsembleScaling`) sit on the curve of the ensemble.
    """
    if base not in predictions.member_logits:
        raise ValueError(f"base must be one of {sorted(predictions.member_logits)}; got {base!r}")
    lg, hist = predictions.member_logits[base], predictions.test_hist[config]
    out = {}
    for t in temperatures:
        t = float(t)
        if not t > 0:
            raise ValueError(f"temperatures must be positive; got {t}")
        probs = np.exp(log_softmax(lg / t, axis=2)).mean(axis=1)
        d = cpe_loss_decomposition(probs, hist, n_bins=n_bins)
        out[t] = {
            "NLL": histogram_nll(np.log(np.clip(probs, 1e-300, None)), hist),
            "EL": d.el_debiased,
            "CL": d.cl_debiased,
        }
    return out


def pool_seeds(metrics: list, boot: list, *, seed: int = 0) -> tuple:
    r"""Pool the metrics and bootstrap resamples of several training seeds (one network and Mix split per seed).

    The pooled metric is the mean over the S seeds; its resamples are a two-level bootstrap: resample b draws S seeds
    with replacement and averages their b-th resamples over the test instances, so that the standard errors of the
    rows carry the variance of training (and of the data split and labels) as well as that of the test split.
    With one seed the input is returned unchanged.

    Parameters
    ----------
    metrics : list of dict
        Per seed, ``{config: {name: {metric: value}}}`` (:func:`evaluate_predictors` per config).
    boot : list of dict
        Per seed, ``{config: {name: {metric: ndarray (n_resamples,)}}}`` (:func:`bootstrap_metrics`, same
        `n_resamples` for every seed).
    seed : int, default 0
        Seeds the draw of seeds.

    Returns
    -------
    (metrics, boot) : dicts of the input's shape

    Examples
    --------
    >>> m = [{2: {"Raw": {"EL": v}}} for v in (0.1, 0.2)]
    >>> b = [{2: {"Raw": {"EL": np.full(4, v)}}} for v in (0.1, 0.2)]
    >>> pm, pb = pool_seeds(m, b)
    >>> round(pm[2]["Raw"]["EL"], 3), pb[2]["Raw"]["EL"].shape
    (0.15, (4,))
    """
    if not isinstance(metrics, list) or not isinstance(boot, list) or len(metrics) != len(boot) or not metrics:
        raise ValueError("metrics and boot must be non-empty lists of the same length (one entry per seed)")
    if len(metrics) == 1:
        return metrics[0], boot[0]
    n_seeds = len(metrics)
    first = boot[0][next(iter(boot[0]))]
    n_res = len(next(iter(first[next(iter(first))].values())))
    draw = np.random.default_rng(np.random.SeedSequence([seed, 53])).integers(0, n_seeds, size=(n_res, n_seeds))
    out_m, out_b = {}, {}
    for c in metrics[0]:
        out_m[c], out_b[c] = {}, {}
        for n, row in metrics[0][c].items():
            out_m[c][n] = {k: float(np.mean([m[c][n][k] for m in metrics])) for k in row}
            out_b[c][n] = {}
            for k in boot[0][c][n]:
                stack = np.stack([b[c][n][k] for b in boot])  # (S, n_resamples)
                out_b[c][n][k] = stack[draw, np.arange(n_res)[:, None]].mean(axis=1)
    return out_m, out_b
