r"""Evaluation of class probability estimates with label histograms (Mimori et al., 2022, Secs. 3-4).

Every instance :math:`i` carries a *label histogram* :math:`y_i \in \mathbb Z_{\ge 0}^K`: the
class counts of :math:`n_i = \sum_k y_{ik}` annotator labels drawn i.i.d. from the unknown true
class probabilities :math:`Q(x_i)`. With :math:`z_i` the class probability estimate (CPE, ``probs``)
and :math:`\hat\mu_{ik} = y_{ik} / n_i`, this module gives

* the unbiased expected squared loss :math:`\hat L_{sq}` (Eq. 8),
* the epistemic loss :math:`\mathrm{EL} = \mathbb E\lVert Q - Z\rVert^2`: plug-in (Eq. 9) and
  unbiased (Eq. 10),
* the binned class-wise calibration loss :math:`\mathrm{CL}(\mathcal B)` (Eqs. 13-14), the
  calibration error :math:`\mathrm{CE} = \sqrt{\sum_k \mathrm{CL}_k}` and the dispersion loss
  :math:`\mathrm{DL} = \mathrm{EL} - \mathrm{CL}` (App. B.4, Eqs. 35-36), with per-bin data for
  reliability diagrams and calibration-dispersion maps (:class:`CPELossDecomposition`),
* order-:math:`n` statistics of the labels (disagreement, Sec. 4) live in
  :mod:`credalbook.metrics.label_stats`.

Instances without enough labels for an estimator are left out of it, as the paper says (Sec. 3.1:
:math:`\widehat{\mathrm{EL}}` needs :math:`n_i \ge 2`; App. C, footnote 5: order-:math:`n`
statistics need :math:`n_i \ge n`); the average is then over the remaining instances.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Secs. 3-4 and Apps. B-C.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from credalbook._deprecation import swapped_label_hist
from credalbook._validation import (
    as_numpy,
    check_n_bins,
    check_positive_int,
    check_probs,
    check_real_dtype,
    first_index,
    fmt_index,
    MAX_BINS,
)
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.binning import bin_index, bin_sums, equal_width_bin_index, uniform_edges
from credalbook.metrics.reliability import ReliabilityCurve

__all__ = [
    "check_label_hist",
    "expected_squared_loss",
    "epistemic_loss",
    "CPELossDecomposition",
    "cpe_loss_decomposition",
    "binned_calibration_loss",
    "binned_calibration_error",
    "dispersion_loss",
]


# ----------------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------------
def check_label_hist(
    label_hist, n_classes: int | None = None, *, min_labels: int = 1, name: str = "label_hist"
) -> np.ndarray:
    """Validate label histograms: an (N, K) array of non-negative integer class counts.

    Parameters
    ----------
    label_hist : array-like, shape (N, K)
        Row :math:`i` counts the annotator labels of instance :math:`i` per class; floats are
        accepted when they hold whole numbers.
    n_classes : int, optional
        Required number of columns K (e.g. ``probs.shape[1]``).
    min_labels : int, default 1
        Every row must hold at least this many labels :math:`n_i`; 0 disables the check.
    name : str
        Argument name used in error messages.

    Returns
    -------
    ndarray of int64, shape (N, K)

    Raises
    ------
    ValueError
        Wrong shape or class count, NaN/inf, negative or non-integer counts, or a row with fewer
        than `min_labels` labels; the message names the argument and the first offending entry.

    Examples
    --------
    >>> check_label_hist([[2, 0, 1], [0, 3, 0]], n_classes=3).sum(axis=1)
    array([3, 3])
    """
    arr = check_real_dtype(as_numpy(label_hist, name), name, allow_bool=False, what="hold non-negative integer counts")
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (N, K); got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least one instance and two classes; got shape {arr.shape}")
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(f"{name} must have K = {n_classes} columns to match probs; got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = first_index(bad)
            raise ValueError(f"{name} must be finite; {name}[{fmt_index(idx)}] = {arr[idx]}")
        bad = arr != np.round(arr)
        if bad.any():
            idx = first_index(bad)
            raise ValueError(f"{name} must hold integer counts; {name}[{fmt_index(idx)}] = {arr[idx]}")
    bad = arr < 0
    if bad.any():
        idx = first_index(bad)
        raise ValueError(f"{name} must hold non-negative counts; {name}[{fmt_index(idx)}] = {arr[idx]}")
    arr = arr.astype(np.int64)
    min_labels = check_positive_int(min_labels, "min_labels", minimum=0)
    totals = arr.sum(axis=1)
    few = totals < min_labels
    if few.any():
        i = int(np.argmax(few))
        raise ValueError(
            f"{name} row {i} has n_i = {totals[i]} labels; this estimator needs at least "
            f"{min_labels} label(s) per instance"
        )
    return arr


def as_label_hist_tensor(labels, n: int, k: int, name: str = "labels") -> torch.Tensor:
    """Labels (N,) or label histograms (N, K) of non-negative integer counts as a float64 tensor (N, K).

    Labels in [0, K) become one-hot rows; histograms are checked by :func:`check_label_hist` (rows
    without labels allowed, at least one label in all). `n` and `k` are N and K of the predictions
    they go with. The objectives of the calibrators (:mod:`credalbook.calibration`) and
    :func:`credalbook.metrics.differentiable_ece` take labels through it.
    """
    arr = as_numpy(labels, name)
    if arr.dtype == bool or arr.dtype.kind not in "fiu":
        raise ValueError(f"{name} must hold integer labels (N,) or counts (N, K); got dtype {arr.dtype}")
    if arr.ndim == 1:
        if arr.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},) or ({n}, {k}) to match the logits; got {arr.shape}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
            raise ValueError(f"{name} given as labels (N,) must be integers")
        if n and (arr.min() < 0 or arr.max() >= k):
            raise ValueError(f"{name} must be labels in [0, {k}); got labels from {arr.min()} to {arr.max()}")
        return torch.nn.functional.one_hot(torch.from_numpy(arr.astype(np.int64)), k).to(torch.float64)
    if arr.shape != (n, k):
        raise ValueError(f"{name} must have shape ({n},) or ({n}, {k}) to match the logits; got {arr.shape}")
    counts = check_label_hist(arr, n_classes=k, min_labels=0, name=name)
    if counts.sum() == 0:
        raise ValueError(f"{name} must contain at least one label; all counts are 0")
    return torch.from_numpy(counts.astype(np.float64))


def _check_pair(probs, label_hist, *, min_labels: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Validated (label_hist int64 (N, K), probs float64 (N, K)) with matching shapes."""
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got shape {p.shape}")
    y = check_label_hist(label_hist, n_classes=p.shape[1], min_labels=min_labels)
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"label_hist and probs must have the same number of instances; got {y.shape[0]} and {p.shape[0]}"
        )
    return y, p


def _bin_index(values: np.ndarray, n_bins: int, bin_edges) -> tuple[np.ndarray, np.ndarray]:
    """Bin index of each value in [0, 1] and the edges; the last bin is right-closed."""
    if bin_edges is None:
        n_bins = check_n_bins(n_bins)
        return equal_width_bin_index(values, n_bins), uniform_edges(n_bins)
    edges = as_numpy(bin_edges, "bin_edges")
    if edges.dtype.kind not in "iuf":
        raise ValueError(f"bin_edges must be a strictly increasing 1-D array from 0 to 1; got dtype {edges.dtype}")
    edges = edges.astype(np.float64)
    if (
        edges.ndim != 1
        or not 2 <= edges.size <= MAX_BINS + 1
        or not np.all(np.diff(edges) > 0)
        or edges[0] != 0.0
        or edges[-1] != 1.0
    ):
        raise ValueError(f"bin_edges must be a strictly increasing 1-D array from 0 to 1; got {bin_edges!r}")
    return bin_index(values, edges), edges


def _binned(
    obs: np.ndarray, pred: np.ndarray, idx: np.ndarray, n_bins: int, n_total: int, extra: np.ndarray | None = None
) -> dict:
    """Per-bin statistics of C binary problems at once; all inputs (C, N), outputs (C, B).

    counts |I_b|, mean predicted and observed values (NaN when empty), the plug-in calibration
    loss (Eq. 13) and its debiased version (Eq. 14; zero for bins with fewer than two members),
    and the bin sums of `extra` divided by `n_total`.
    """
    c = obs.shape[0]

    def bsum(w):
        return bin_sums(idx, w, n_bins)

    counts = bin_sums(idx, None, n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_obs = bsum(obs) / counts
        mean_pred = bsum(pred) / counts
    filled = counts > 0
    cl_plugin = np.where(filled, counts / n_total * (np.nan_to_num(mean_obs) - np.nan_to_num(mean_pred)) ** 2, 0.0)
    # Two-pass within-bin sum of squares  Σ_i (μ_i − c̄_b)² = |I_b| σ̄_b²  (Eq. 14).
    dev = obs - np.nan_to_num(mean_obs)[np.arange(c)[:, None], idx]
    ss = bsum(dev**2)
    many = counts >= 2
    correction = np.where(many, ss / (n_total * np.maximum(counts - 1, 1)), 0.0)
    out = {
        "counts": counts,
        "mean_pred": mean_pred,
        "mean_obs": mean_obs,
        "cl_plugin": cl_plugin,
        "cl_debiased": np.where(many, cl_plugin - correction, 0.0),
    }
    if extra is not None:
        out["extra"] = bsum(extra) / n_total
    return out


# ----------------------------------------------------------------------------------------------
# Order-1 metrics: CPEs
# ----------------------------------------------------------------------------------------------
@swapped_label_hist()
def expected_squared_loss(probs, label_hist, *, instance_weights=None) -> float:
    r"""Unbiased estimate of the expected squared loss :math:`L_{sq} = \mathbb E\lVert Y - Z\rVert^2` (Eq. 8).

    .. math::
        \hat L_{sq} = \sum_{i=1}^N \frac{w_i}{W} \sum_{k=1}^K
        \bigl[(\hat\mu_{ik} - z_{ik})^2 + \hat\mu_{ik}(1 - \hat\mu_{ik})\bigr],
        \qquad \hat\mu_{ik} = y_{ik}/n_i,\ W = \sum_i w_i

    It is the mean over instances of the multi-class Brier score averaged over each instance's
    labels, and equals :func:`~credalbook.metrics.brier_score` when every instance has one label.

    Parameters
    ----------
    probs : array-like, shape (N, K)
        CPEs :math:`z_i`, rows on the simplex.
    label_hist : array-like of int, shape (N, K)
        Label counts; every instance needs :math:`n_i \ge 1`.
    instance_weights : array-like, shape (N,), optional
        Non-negative weights :math:`w_i` with a positive sum; default 1 (the paper's choice; any
        weights give an unbiased estimate, App. B.1, and :math:`w_i \propto n_i` lowers the
        variance when the label noise dominates).

    Returns
    -------
    float

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Prop. 1, Eq. (8) / App. Eq. (23).

    Examples
    --------
    >>> round(expected_squared_loss([[0.8, 0.2], [0.5, 0.5]], [[2, 0], [1, 1]]), 6)   # (0.08 + 0.5) / 2
    0.29
    """
    y, p = _check_pair(probs, label_hist, min_labels=1)
    mu = y / y.sum(axis=1, keepdims=True)
    per_instance = ((mu - p) ** 2 + mu * (1.0 - mu)).sum(axis=1)
    if instance_weights is None:
        return float(per_instance.mean())
    w = check_real_dtype(as_numpy(instance_weights, "instance_weights"), "instance_weights", allow_bool=False).astype(
        np.float64
    )
    if w.shape != (y.shape[0],):
        raise ValueError(f"instance_weights must have shape ({y.shape[0]},); got {w.shape}")
    if not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise ValueError("instance_weights must be finite, non-negative and have a positive sum")
    return float((w * per_instance).sum() / w.sum())


@swapped_label_hist()
def epistemic_loss(probs, label_hist, *, debiased: bool = True) -> float:
    r"""Epistemic loss :math:`\mathrm{EL} = \mathbb E\lVert Q - Z\rVert^2`, plug-in (Eq. 9) or unbiased (Eq. 10).

    .. math::
        \widetilde{\mathrm{EL}} = \frac1N \sum_i \sum_k (\hat\mu_{ik} - z_{ik})^2, \qquad
        \widehat{\mathrm{EL}} = \widetilde{\mathrm{EL}}
        - \frac1N \sum_i \sum_k \frac{\hat\mu_{ik}(1 - \hat\mu_{ik})}{n_i - 1}

    The correction needs :math:`n_i \ge 2` (Sec. 3.1: the estimator "can only be evaluated when more than one label per
    instance is available"), so with ``debiased=True`` instances with a single label are left out and both sums run over
    the :math:`N_2` instances with :math:`n_i \ge 2` (with :math:`N_2` in place of :math:`N`); this keeps the estimate
    unbiased. (The authors' released code instead keeps such instances uncorrected, which is biased.) The plug-in uses
    every instance with :math:`n_i \ge 1`.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    label_hist : array-like of int, shape (N, K)
    debiased : bool, default True
        Unbiased estimator (Eq. 10) or plug-in (Eq. 9).

    Returns
    -------
    float
        The unbiased estimate may be slightly negative when the true EL is close to zero.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Prop. 2, Eqs. (9)-(10) / App.
    Eqs. (27)-(28).

    Examples
    --------
    >>> h, p = [[2, 0], [1, 1]], [[0.8, 0.2], [0.5, 0.5]]
    >>> round(epistemic_loss(p, h, debiased=False), 6), round(epistemic_loss(p, h), 6)   # 0.04, 0.04 - 0.25
    (0.04, -0.21)
    """
    y, p = _check_pair(probs, label_hist, min_labels=1)
    n = y.sum(axis=1)
    if debiased:
        keep = n >= 2
        if not keep.any():
            raise ValueError("label_hist needs at least one instance with n_i >= 2 labels for the unbiased EL")
        y, p, n = y[keep], p[keep], n[keep]
    mu = y / n[:, None]
    terms = ((mu - p) ** 2).sum(axis=1)
    if debiased:
        terms = terms - (mu * (1.0 - mu)).sum(axis=1) / (n - 1)
    return float(terms.mean())


@dataclass(frozen=True)
class CPELossDecomposition:
    r"""Class-wise, bin-wise decomposition :math:`\mathrm{EL} = \mathrm{CL}(\mathcal B) + \mathrm{DL}(\mathcal B)`.

    Made by :func:`cpe_loss_decomposition`. Arrays of shape (K, B) hold, for class :math:`k` and
    bin :math:`b` of :math:`z_{ik}`, the bin's contribution to each loss; the totals are sums
    over classes and bins.

    Attributes
    ----------
    bin_edges : ndarray (B + 1,)
    counts : ndarray (K, B)
        :math:`|I_{kb}|` over all N instances.
    mean_predicted, mean_observed : ndarray (K, B)
        :math:`\bar z_{kb}` and :math:`\bar c_{kb}` (mean of :math:`\hat\mu_{ik}`); NaN if empty.
    el_plugin_bins, cl_plugin_bins, dl_plugin_bins : ndarray (K, B)
        Eqs. (27), (30), (35) restricted to the bin; all N instances.
    cl_debiased_bins : ndarray (K, B)
        Eq. (31), all N instances; zero for bins with fewer than two instances (App. B.3).
    el_debiased_bins, dl_debiased_bins : ndarray (K, B)
        Eqs. (28) and (36) on the :math:`N_2` instances with :math:`n_i \ge 2`, with
        :math:`\widehat{\mathrm{DL}}_{kb} := \widehat{\mathrm{EL}}_{kb} - \widehat{\mathrm{CL}}_{kb}`
        (the debiased CL recomputed on those instances), so that
        ``el_debiased = cl_debiased + dl_debiased`` holds exactly when every :math:`n_i \ge 2`.
        NaN when no instance has two labels.
    n_instances, n_debiased_instances : int
        N and :math:`N_2`.
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    mean_observed: np.ndarray
    el_plugin_bins: np.ndarray
    el_debiased_bins: np.ndarray
    cl_plugin_bins: np.ndarray
    cl_debiased_bins: np.ndarray
    dl_plugin_bins: np.ndarray
    dl_debiased_bins: np.ndarray
    n_instances: int
    n_debiased_instances: int

    el_plugin = property(lambda self: float(self.el_plugin_bins.sum()), doc="Plug-in EL (Eq. 9).")
    el_debiased = property(lambda self: float(self.el_debiased_bins.sum()), doc="Unbiased EL (Eq. 10).")
    cl_plugin = property(lambda self: float(self.cl_plugin_bins.sum()), doc="Plug-in CL (Eq. 13).")
    cl_debiased = property(lambda self: float(self.cl_debiased_bins.sum()), doc="Debiased CL (Eq. 14).")
    dl_plugin = property(lambda self: float(self.dl_plugin_bins.sum()), doc="Plug-in DL (Eq. 35).")
    dl_debiased = property(lambda self: float(self.dl_debiased_bins.sum()), doc="Debiased DL (Eq. 36).")
    ce_plugin = property(lambda self: math.sqrt(max(self.cl_plugin, 0.0)), doc="sqrt of the plug-in CL.")
    ce_debiased = property(
        lambda self: math.sqrt(max(self.cl_debiased, 0.0)), doc="sqrt of the debiased CL, clipped at 0."
    )

    def cl_per_class(self, *, debiased: bool = True) -> np.ndarray:
        """:math:`\\mathrm{CL}_k(\\mathcal B_k)` for each class, shape (K,)."""
        return (self.cl_debiased_bins if debiased else self.cl_plugin_bins).sum(axis=1)

    def reliability_curve(self, class_index: int | None = None) -> ReliabilityCurve:
        """Reliability-diagram data of class `class_index` (None pools all classes).

        ``observed`` is the bin mean of :math:`\\hat\\mu_{ik}`, the observed class frequency
        among the annotators; plot with :func:`credalbook.plotting.plot_reliability_diagram`.
        """
        k = self.counts.shape[0]
        if class_index is None:
            counts = self.counts.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                pred = np.nansum(self.mean_predicted * self.counts, axis=0) / counts
                obs = np.nansum(self.mean_observed * self.counts, axis=0) / counts
            return ReliabilityCurve(self.bin_edges, counts, pred, obs, kind="classwise", class_index=None)
        if isinstance(class_index, bool) or not isinstance(class_index, (int, np.integer)) or not 0 <= class_index < k:
            raise ValueError(f"class_index must be an integer in [0, {k}) or None; got {class_index!r}")
        c = int(class_index)
        return ReliabilityCurve(
            self.bin_edges,
            self.counts[c],
            self.mean_predicted[c],
            self.mean_observed[c],
            kind="classwise",
            class_index=c,
        )


def _decompose(y: np.ndarray, p: np.ndarray, n_bins: int, bin_edges, want_debiased: bool = True):
    n = y.sum(axis=1)
    mu = y / n[:, None]
    idx, edges = _bin_index(p, n_bins, bin_edges)
    b = edges.size - 1
    el = (mu - p) ** 2
    full = _binned(mu.T, p.T, idx.T, b, len(y), extra=el.T)
    fields = dict(
        bin_edges=edges,
        counts=full["counts"],
        mean_predicted=full["mean_pred"],
        mean_observed=full["mean_obs"],
        el_plugin_bins=full["extra"],
        cl_plugin_bins=full["cl_plugin"],
        cl_debiased_bins=full["cl_debiased"],
        dl_plugin_bins=full["extra"] - full["cl_plugin"],
        n_instances=len(y),
    )
    keep = n >= 2
    n2 = int(keep.sum())
    if not want_debiased or n2 == 0:
        nan = np.full_like(full["cl_plugin"], np.nan)
        return dict(fields, el_debiased_bins=nan, dl_debiased_bins=nan, n_debiased_instances=n2)
    el_hat = el - mu * (1.0 - mu) / np.maximum(n - 1, 1)[:, None]
    sub = _binned(mu[keep].T, p[keep].T, idx[keep].T, b, n2, extra=el_hat[keep].T)
    return dict(
        fields,
        el_debiased_bins=sub["extra"],
        dl_debiased_bins=sub["extra"] - sub["cl_debiased"],
        n_debiased_instances=n2,
    )


@swapped_label_hist()
def cpe_loss_decomposition(probs, label_hist, *, n_bins: int = 15, bin_edges=None) -> CPELossDecomposition:
    r"""Plug-in and debiased EL, CL and DL of CPEs with their per-class, per-bin terms (Eqs. 9-14, 35-36).

    For class :math:`k`, the values :math:`z_{ik}` are binned (15 equal-width bins by default, as
    in App. B.5; the last bin is right-closed) into index sets :math:`I_{kb}` and

    .. math::
        \widetilde{\mathrm{CL}}_{kb} = \frac{|I_{kb}|}{N}(\bar c_{kb} - \bar z_{kb})^2, \quad
        \widehat{\mathrm{CL}}_{kb} = \widetilde{\mathrm{CL}}_{kb}
        - \frac{|I_{kb}|}{N}\frac{\bar\sigma_{kb}^2}{|I_{kb}| - 1}, \quad
        \widetilde{\mathrm{DL}}_{kb} = \frac1N \sum_{i \in I_{kb}}
        \{(\hat\mu_{ik} - \bar c_{kb}) - (z_{ik} - \bar z_{kb})\}^2

    with :math:`\bar c_{kb}, \bar z_{kb}` the bin means of :math:`\hat\mu_{ik}, z_{ik}` and :math:`\bar\sigma_{kb}^2`
    the (biased) bin variance of :math:`\hat\mu_{ik}`. Bins with fewer than two instances contribute 0 to the debiased
    CL (App. B.3: "We use 0 for the estimators with such bins"; the released code keeps their plug-in value instead).
    See :class:`CPELossDecomposition` for which instances enter each term.

    Parameters
    ----------
    probs : array-like, shape (N, K)
    label_hist : array-like of int, shape (N, K)
        Every instance needs :math:`n_i \ge 1`.
    n_bins : int, default 15
        Number of equal-width bins on [0, 1].
    bin_edges : array-like, optional
        Explicit increasing edges from 0 to 1; overrides `n_bins`.

    Returns
    -------
    CPELossDecomposition

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Secs. 3.1-3.2, Props. 2-4, App.
    Eqs. (27)-(36).

    Examples
    --------
    >>> d = cpe_loss_decomposition([[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]], [[2, 0], [1, 1], [0, 2]], n_bins=2)
    >>> d.counts.tolist()
    [[1, 2], [2, 1]]
    >>> round(d.el_plugin, 6) == round(d.cl_plugin + d.dl_plugin, 6)
    True
    """
    y, p = _check_pair(probs, label_hist, min_labels=1)
    return CPELossDecomposition(**_decompose(y, p, n_bins, bin_edges))


@swapped_label_hist()
def binned_calibration_loss(
    probs, label_hist, *, n_bins: int = 15, bin_edges=None, debiased: bool = True, per_class: bool = False
):
    r"""Binned class-wise calibration loss :math:`\mathrm{CL}(\mathcal B) = \sum_k \mathrm{CL}_k(\mathcal B_k)` (Eqs. 13-14).

    .. math::
        \mathrm{CL}_k(\mathcal B_k) = \sum_b \frac{|I_{kb}|}{N}\Bigl[(\bar c_{kb} - \bar z_{kb})^2
        - \frac{\bar\sigma_{kb}^2}{|I_{kb}| - 1}\Bigr]

    (the bracket's second term only with ``debiased=True``, and only for bins with at least two instances; smaller bins
    contribute 0 to the debiased estimate, App. B.3). Uses every instance, including single-labelled ones, for which it
    coincides with the debiased reliability term of Bröcker (2012) and Ferro & Fricker (2012) (Sec. 3.2).

    Parameters
    ----------
    probs, label_hist : array-like, shape (N, K)
    n_bins : int, default 15
    bin_edges : array-like, optional
    debiased : bool, default True
        Eq. (14) (debiased) or Eq. (13) (plug-in).
    per_class : bool, default False
        Return the (K,) vector of :math:`\mathrm{CL}_k` instead of the sum.

    Returns
    -------
    float or ndarray (K,)
        The debiased estimate may be negative.

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Prop. 3, Eqs. (11)-(14) / App.
    Eqs. (30)-(31).

    Examples
    --------
    >>> h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
    >>> round(binned_calibration_loss(p, h, n_bins=2, debiased=False), 6)   # 2 classes x (2/3 (0.75-0.9)^2 + 1/3 (0-0.2)^2)
    0.056667
    """
    y, p = _check_pair(probs, label_hist, min_labels=1)
    d = _decompose(y, p, n_bins, bin_edges, want_debiased=False)
    cl = (d["cl_debiased_bins"] if debiased else d["cl_plugin_bins"]).sum(axis=1)
    return cl if per_class else float(cl.sum())


@swapped_label_hist()
def binned_calibration_error(probs, label_hist, *, n_bins: int = 15, bin_edges=None, debiased: bool = True) -> float:
    r"""Class-wise calibration error :math:`\mathrm{CE} = \sqrt{\sum_k \mathrm{CL}_k(\mathcal B_k)}` (Sec. 2.1, 3.2).

    .. math:: \widehat{\mathrm{CE}} = \sqrt{\max\bigl(0, \textstyle\sum_k \widehat{\mathrm{CL}}_k\bigr)}

    The debiased CL can be negative for a nearly calibrated predictor; the paper does not say how
    CE is then formed, so it is clipped at 0 here (the CL itself is reported unclipped by
    :func:`binned_calibration_loss`).

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Sec. 2.1 (CE = (Σ_k CE_k²)^{1/2},
    CL = CE²) and Eq. (14); the CE columns of Tables 4-6.

    Examples
    --------
    >>> h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
    >>> round(binned_calibration_error(p, h, n_bins=2, debiased=False), 6)
    0.238048
    """
    cl = binned_calibration_loss(probs, label_hist, n_bins=n_bins, bin_edges=bin_edges, debiased=debiased)
    return math.sqrt(max(cl, 0.0))


@swapped_label_hist()
def dispersion_loss(probs, label_hist, *, n_bins: int = 15, bin_edges=None, debiased: bool = True) -> float:
    r"""Dispersion loss :math:`\mathrm{DL}(\mathcal B) = \mathrm{EL} - \mathrm{CL}(\mathcal B)` (App. B.4, Eqs. 35-36).

    .. math::
        \widetilde{\mathrm{DL}} = \sum_{k,b} \frac1N \sum_{i \in I_{kb}}
        \{(\hat\mu_{ik} - \bar c_{kb}) - (z_{ik} - \bar z_{kb})\}^2, \qquad
        \widehat{\mathrm{DL}} = \widetilde{\mathrm{DL}} - \sum_{k,b}\frac1N \sum_{i \in I_{kb}}
        \Bigl(\frac{\hat\mu_{ik}(1 - \hat\mu_{ik})}{n_i - 1} - \frac{\bar\sigma_{kb}^2}{|I_{kb}| - 1}\Bigr)

    The plug-in is never negative (Prop. 4). The debiased estimate is formed on the instances with :math:`n_i \ge 2`, as
    :math:`\widehat{\mathrm{EL}} - \widehat{\mathrm{CL}}` bin by bin (a bin with one instance has
    :math:`\widehat{\mathrm{CL}}_{kb} = 0`, so its :math:`\widehat{\mathrm{DL}}_{kb} = \widehat{\mathrm{EL}}_{kb}`).

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Prop. 4 and Def. 6, Eqs. (33)-(36).

    Examples
    --------
    >>> h, p = [[1, 1], [2, 0], [0, 2]], [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8]]
    >>> round(dispersion_loss(p, h, n_bins=2, debiased=False), 6)   # 2 classes x 2 x 0.25^2 / 3
    0.083333
    """
    y, p = _check_pair(probs, label_hist, min_labels=1)
    if debiased and not (y.sum(axis=1) >= 2).any():
        raise ValueError("label_hist needs at least one instance with n_i >= 2 labels for the debiased DL")
    d = _decompose(y, p, n_bins, bin_edges, want_debiased=debiased)
    return float((d["dl_debiased_bins"] if debiased else d["dl_plugin_bins"]).sum())
