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

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._validation import check_positive_int
from credalbook.metrics.label_hist import cpe_loss_decomposition, expected_squared_loss
from credalbook.metrics.label_stats import statistic_calibration, statistic_squared_loss
from credalbook.papers.mimori.predictions import MimoriPredictions

__all__ = ["evaluate_predictors", "bootstrap_metrics", "ts_dpe_shift", "dpe_reliability"]


def evaluate_predictors(predictions: MimoriPredictions, config, *, names=None, n_bins: int = 15) -> dict:
    r"""The metrics of Tables 1, 2 and 4-6 for each predictor of `config`, on the test histograms.

    ``{name: {"Acc", "L_sq", "EL", "CE", "CL", "DL", "EL true", "L_phi", "CE_phi", "EL post"}}``:
    accuracy against the majority label of each histogram; :math:`\hat L_{sq}` (Eq. 8),
    :math:`\widehat{\mathrm{EL}}` (Eq. 10), :math:`\widehat{\mathrm{CE}}`, :math:`\widehat{\mathrm{CL}}`
    and :math:`\widehat{\mathrm{DL}}` (Eqs. 14, 36; 15 bins); the true EL from the known Q;
    :math:`\hat L_{\phi^D}` (Eq. 40) and :math:`\widehat{\mathrm{CE}}_{\phi^D}` (Eq. 44) of the DPEs;
    the unbiased EL of the posterior CPEs (Table 2; only where the predictor has them).
    """
    outputs = {n: predictions.predictors[(config, n)] for n in names or predictions.names(config)}
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
            }
        dpe = take(p.dpe)
        row = {
            **cpe_metrics[groups[name]],
            "L_phi": statistic_squared_loss(dpe, hist),
            "CE_phi": statistic_calibration(dpe, hist, n_bins=n_bins).ce_debiased,
        }
        if p.posterior_probs is not None:
            row["EL post"] = cpe_loss_decomposition(take(p.posterior_probs), hist, n_bins=n_bins).el_debiased
        rows[name] = row
    return rows


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
    outputs = {n: predictions.predictors[(config, n)] for n in names}
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
