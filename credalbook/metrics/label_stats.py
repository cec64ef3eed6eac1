r"""Order-n statistics of label histograms (Mimori et al., 2022, Sec. 4 and App. C).

A statistic :math:`\phi` of :math:`n` labels, such as the disagreement
:math:`\phi^D = 1[Y^{(1)} \ne Y^{(2)}]`, has the per-instance U-statistic :math:`\hat\mu_{\phi,i}`
(Eq. 16), the squared loss :math:`\hat L_\phi` (Eq. 40) and the calibration loss
:math:`\mathrm{CL}_\phi` (Eqs. 42-45) of a predicted probability :math:`\varphi_i` of
:math:`\phi = 1` (e.g. a disagreement probability estimate, DPE, from
:mod:`credalbook.calibration.dirichlet`). Instances with fewer than :math:`n` labels are left out
(App. C, footnote 5). The CPE estimators are in :mod:`credalbook.metrics.label_hist`.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), Sec. 4 and App. C.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import comb

from credalbook._deprecation import swapped_label_hist
from credalbook._validation import as_numpy, check_positive_int, check_real_dtype, check_unit_values
from credalbook.metrics.label_hist import _bin_index, _binned, check_label_hist
from credalbook.metrics.reliability import ReliabilityCurve

__all__ = [
    "disagreement_statistic",
    "statistic_mean_estimate",
    "statistic_squared_loss",
    "StatisticCalibration",
    "statistic_calibration",
    "statistic_calibration_loss",
    "statistic_calibration_error",
]


# ----------------------------------------------------------------------------------------------
# Order-n statistics (Sec. 4, App. C)
# ----------------------------------------------------------------------------------------------
def disagreement_statistic(labels) -> float:
    r"""Disagreement of labels: :math:`\phi^D = 1[Y^{(1)} \ne Y^{(2)}]` for a pair, "not unanimous" in general.

    A symmetric statistic usable as ``phi`` in :func:`statistic_mean_estimate`; ``phi="disagreement"``
    is the same statistic computed in closed form from the counts.

    Examples
    --------
    >>> disagreement_statistic((0, 2)), disagreement_statistic((1, 1))
    (1.0, 0.0)
    """
    return float(len(set(labels)) > 1)


def _phi_order(phi, order) -> int:
    order = check_positive_int(order, "order")
    if isinstance(phi, str):
        if phi != "disagreement":
            raise ValueError(f"phi must be 'disagreement' or a callable; got {phi!r}")
        if order < 2:
            raise ValueError(f"order must be >= 2 for phi='disagreement'; got {order}")
    elif not callable(phi):
        raise ValueError(f"phi must be 'disagreement' or a callable; got {phi!r}")
    return order


def _sub_multisets(counts: np.ndarray, order: int):
    """Every size-`order` sub-multiset of the labels with counts `counts`, as (sorted labels, multiplicity).

    The multiplicity Π_k C(y_k, h_k) counts the label subsets of the U-statistic that have class
    counts h; it is enough because φ is symmetric.
    """
    classes = [k for k in range(len(counts)) if counts[k] > 0]
    cnt = [int(counts[k]) for k in classes]
    tail = np.cumsum(cnt[::-1])[::-1].tolist() + [0]
    out = []

    def rec(j, remaining, chosen, mult):
        if remaining == 0:
            out.append((tuple(chosen), mult))
            return
        if j == len(classes) or tail[j] < remaining:
            return
        for h in range(min(cnt[j], remaining), -1, -1):
            rec(j + 1, remaining - h, chosen + [classes[j]] * h, mult * math.comb(cnt[j], h))

    rec(0, order, [], 1)
    return out


def _u_statistics(y: np.ndarray, phi, order: int) -> tuple[np.ndarray, np.ndarray]:
    """U-statistics of φ and φ² per instance (Eq. 16); NaN where n_i < order."""
    n = y.sum(axis=1)
    ok = n >= order
    m1 = np.full(len(y), np.nan)
    m2 = np.full(len(y), np.nan)
    if isinstance(phi, str):  # disagreement: 1 − Σ_k C(y_k, n)/C(n_i, n), vectorised
        with np.errstate(invalid="ignore", divide="ignore"):
            val = 1.0 - comb(y, order).sum(axis=1) / comb(n, order)
        m1[ok] = m2[ok] = val[ok]
        return m1, m2
    cache: dict = {}
    uniq, inverse = np.unique(y[ok], axis=0, return_inverse=True)
    s1 = np.empty(len(uniq))
    s2 = np.empty(len(uniq))
    for u, row in enumerate(uniq):
        total = math.comb(int(row.sum()), order)
        a1 = a2 = 0.0
        for labels, mult in _sub_multisets(row, order):
            if labels not in cache:
                v = float(phi(labels))
                if not 0.0 <= v <= 1.0:
                    raise ValueError(f"phi must return values in [0, 1]; phi{labels} = {v}")
                cache[labels] = v
            v = cache[labels]
            a1 += mult * v
            a2 += mult * v * v
        s1[u], s2[u] = a1 / total, a2 / total
    m1[ok], m2[ok] = s1[inverse.ravel()], s2[inverse.ravel()]
    return m1, m2


def statistic_mean_estimate(label_hist, phi: str | Callable = "disagreement", *, order: int = 2) -> np.ndarray:
    r"""Unbiased estimate :math:`\hat\mu_{\phi,i}` of :math:`\mathbb E[\phi \mid X = x_i]` per instance (Eq. 16).

    .. math::
        \hat\mu_{\phi,i} = \binom{n_i}{n}^{-1} \sum_{j \in \mathrm{Comb}(n_i, n)}
        \phi(y_i^{(j_1)}, \dots, y_i^{(j_n)})

    a U-statistic over all size-:math:`n` subsets of the instance's :math:`n_i` labels. A
    callable ``phi`` receives a sorted tuple of :math:`n` class indices and returns a value in
    [0, 1]; since :math:`\phi` is symmetric, each distinct sub-histogram is evaluated once and
    weighted by its number of label subsets, and identical histograms are computed once.
    ``phi="disagreement"`` uses the closed form
    :math:`1 - \sum_k \binom{y_{ik}}{n} / \binom{n_i}{n}` (for :math:`n = 2` the Gini-Simpson
    index :math:`1 - \sum_k y_{ik}(y_{ik} - 1) / (n_i(n_i - 1))`, unbiased for
    :math:`1 - \sum_k Q_k^2`).

    Parameters
    ----------
    label_hist : array-like of int, shape (N, K)
    phi : "disagreement" or callable, default "disagreement"
    order : int, default 2
        Number :math:`n` of labels the statistic takes.

    Returns
    -------
    ndarray (N,)
        NaN for instances with :math:`n_i < n` (App. C, footnote 5: such instances are omitted).

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Eq. (16) / Theorem 4, Eq. (39).

    Examples
    --------
    >>> statistic_mean_estimate([[2, 1, 0], [3, 0, 0], [1, 0, 0]]).round(4).tolist()
    [0.6667, 0.0, nan]
    >>> all_differ = lambda labels: float(len(set(labels)) == len(labels))
    >>> statistic_mean_estimate([[1, 1, 1], [2, 1, 1]], all_differ, order=3).tolist()   # 1, then 2/4
    [1.0, 0.5]
    """
    order = _phi_order(phi, order)
    y = check_label_hist(label_hist, min_labels=0)
    return _u_statistics(y, phi, order)[0]


def _check_phi_probs(phi_probs, n: int) -> np.ndarray:
    v = check_real_dtype(as_numpy(phi_probs, "phi_probs"), "phi_probs", allow_bool=False)
    v = v.astype(np.float64)
    if v.shape != (n,):
        raise ValueError(f"phi_probs must have shape ({n},) to match label_hist; got {v.shape}")
    return check_unit_values(v, "phi_probs")


def _statistic_inputs(phi_probs, label_hist, phi, order):
    order = _phi_order(phi, order)
    y = check_label_hist(label_hist, min_labels=0)
    v = _check_phi_probs(phi_probs, y.shape[0])
    m1, m2 = _u_statistics(y, phi, order)
    keep = ~np.isnan(m1)
    if not keep.any():
        raise ValueError(f"label_hist needs at least one instance with n_i >= {order} labels for this statistic")
    return m1[keep], m2[keep], v[keep]


@swapped_label_hist(ndim=1)
def statistic_squared_loss(phi_probs, label_hist, *, phi: str | Callable = "disagreement", order: int = 2) -> float:
    r"""Unbiased estimate of :math:`L_\phi = \mathbb E[(\phi - \varphi)^2]` (App. C.1, Eq. 40).

    .. math::
        \hat L_\phi = \frac1N \sum_i \binom{n_i}{n}^{-1} \sum_{j \in \mathrm{Comb}(n_i, n)}
        \bigl(\phi(y_i^{(j_1)}, \dots, y_i^{(j_n)}) - \varphi_i\bigr)^2
        = \frac1N \sum_i \bigl[\hat\mu_{\phi^2,i} - 2\varphi_i\hat\mu_{\phi,i} + \varphi_i^2\bigr]

    which for a binary :math:`\phi` is :math:`(\hat\mu_{\phi,i} - \varphi_i)^2 +
    \hat\mu_{\phi,i}(1 - \hat\mu_{\phi,i})`, the form of Eq. (8). The mean runs over the
    instances with :math:`n_i \ge n` (footnote 5). With ``phi="disagreement"`` and a DPE this is
    the :math:`\hat L_{\phi^D}` of Table 1.

    Parameters
    ----------
    phi_probs : array-like, shape (N,)
        Predicted probabilities :math:`\varphi_i` of :math:`\phi = 1` (e.g. DPEs).
    label_hist : array-like of int, shape (N, K)
    phi, order : see :func:`statistic_mean_estimate`

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Theorem 5, Eq. (40).

    Examples
    --------
    >>> round(statistic_squared_loss([0.5, 0.0], [[1, 1], [2, 0]]), 6)   # ((1 - .5)^2 + 0) / 2
    0.125
    """
    m1, m2, v = _statistic_inputs(phi_probs, label_hist, phi, order)
    return float((m2 - 2.0 * v * m1 + v**2).mean())


@dataclass(frozen=True)
class StatisticCalibration:
    r"""Binned calibration of predicted probabilities :math:`\varphi_i` of a statistic :math:`\phi` (Eqs. 42-45).

    Attributes
    ----------
    bin_edges : ndarray (B + 1,)
    counts : ndarray (B,)
        :math:`|I_{\phi,b}|` among the N instances with :math:`n_i \ge n`.
    mean_predicted, mean_observed : ndarray (B,)
        :math:`\bar\varphi_b` and :math:`\bar c_{\phi,b}` (bin mean of :math:`\hat\mu_{\phi,i}`);
        NaN for empty bins. ``mean_observed`` against ``mean_predicted`` is the DPE reliability
        diagram of Figs. 1, 5b and 6b.
    cl_plugin_bins, cl_debiased_bins : ndarray (B,)
        Eqs. (43) and (44); the debiased term is 0 for bins with fewer than two instances.
    n_instances : int
    """

    bin_edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    mean_observed: np.ndarray
    cl_plugin_bins: np.ndarray
    cl_debiased_bins: np.ndarray
    n_instances: int

    cl_plugin = property(lambda self: float(self.cl_plugin_bins.sum()), doc="Plug-in CL_φ (Eq. 42).")
    cl_debiased = property(lambda self: float(self.cl_debiased_bins.sum()), doc="Debiased CL_φ (Eqs. 44-45).")
    ce_plugin = property(lambda self: math.sqrt(max(self.cl_plugin, 0.0)), doc="sqrt of the plug-in CL_φ.")
    ce_debiased = property(
        lambda self: math.sqrt(max(self.cl_debiased, 0.0)),
        doc="sqrt of the debiased CL_φ, clipped at 0 (the CE_φ of Tables 1 and 6).",
    )

    def reliability_curve(self) -> ReliabilityCurve:
        """The bins as a :class:`~credalbook.metrics.ReliabilityCurve` (``kind="statistic"``).

        :func:`credalbook.plotting.plot_reliability_diagram` draws it; set the axis labels
        (e.g. "DPE" / "observed disagreement") on the returned Axes.
        """
        return ReliabilityCurve(
            self.bin_edges, self.counts, self.mean_predicted, self.mean_observed, kind="statistic", class_index=None
        )


@swapped_label_hist(ndim=1)
def statistic_calibration(
    phi_probs, label_hist, *, phi: str | Callable = "disagreement", order: int = 2, n_bins: int = 15, bin_edges=None
) -> StatisticCalibration:
    r"""Plug-in and debiased calibration loss :math:`\mathrm{CL}_\phi(\mathcal B)` of :math:`\varphi` (App. C.2).

    .. math::
        \widetilde{\mathrm{CL}}_\phi = \sum_b \frac{|I_{\phi,b}|}{N}(\bar c_{\phi,b} - \bar\varphi_b)^2,
        \qquad
        \widehat{\mathrm{CL}}_\phi = \sum_{b : |I_{\phi,b}| \ge 2} \Bigl[\widetilde{\mathrm{CL}}_{\phi,b}
        - \frac{|I_{\phi,b}|}{N} \frac{\bar\sigma_{\phi,b}^2}{|I_{\phi,b}| - 1}\Bigr]

    with bins of :math:`\varphi_i` (15 equal-width by default), :math:`\bar c_{\phi,b}` the bin
    mean of :math:`\hat\mu_{\phi,i}` (Eq. 16) and :math:`\bar\sigma_{\phi,b}^2` its bin variance.
    Instances with :math:`n_i < n` are left out and N counts the others.

    Parameters
    ----------
    phi_probs : array-like, shape (N,)
    label_hist : array-like of int, shape (N, K)
    phi, order : see :func:`statistic_mean_estimate`
    n_bins : int, default 15
    bin_edges : array-like, optional

    Returns
    -------
    StatisticCalibration

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, Def. 8 and Cor. 6, Eqs. (42)-(45).

    Examples
    --------
    >>> c = statistic_calibration([0.5, 0.5, 0.5], [[1, 1], [2, 0], [1, 1]], n_bins=2)
    >>> c.counts.tolist(), round(c.cl_plugin, 6)   # observed 2/3 against predicted 0.5
    ([0, 3], 0.027778)
    """
    m1, _, v = _statistic_inputs(phi_probs, label_hist, phi, order)
    idx, edges = _bin_index(v, n_bins, bin_edges)
    r = _binned(m1[None], v[None], idx[None], edges.size - 1, len(v))
    return StatisticCalibration(
        edges, r["counts"][0], r["mean_pred"][0], r["mean_obs"][0], r["cl_plugin"][0], r["cl_debiased"][0], len(v)
    )


@swapped_label_hist(ndim=1)
def statistic_calibration_loss(
    phi_probs,
    label_hist,
    *,
    phi: str | Callable = "disagreement",
    order: int = 2,
    n_bins: int = 15,
    bin_edges=None,
    debiased: bool = True,
) -> float:
    r"""Calibration loss :math:`\mathrm{CL}_\phi(\mathcal B)`, debiased (Eq. 44) or plug-in (Eq. 42).

    A shortcut for :func:`statistic_calibration`; the debiased value may be negative.

    Examples
    --------
    >>> round(statistic_calibration_loss([0.5, 0.5, 0.5], [[1, 1], [2, 0], [1, 1]], n_bins=2, debiased=False), 6)
    0.027778
    """
    c = statistic_calibration(phi_probs, label_hist, phi=phi, order=order, n_bins=n_bins, bin_edges=bin_edges)
    return c.cl_debiased if debiased else c.cl_plugin


@swapped_label_hist(ndim=1)
def statistic_calibration_error(
    phi_probs,
    label_hist,
    *,
    phi: str | Callable = "disagreement",
    order: int = 2,
    n_bins: int = 15,
    bin_edges=None,
    debiased: bool = True,
) -> float:
    r"""Calibration error :math:`\mathrm{CE}_\phi = \sqrt{\max(0, \mathrm{CL}_\phi)}` (the :math:`\widehat{\mathrm{CE}}_{\phi^D}` of Table 1).

    Clipped at 0 like :func:`binned_calibration_error`.

    Examples
    --------
    >>> round(statistic_calibration_error([0.5, 0.5, 0.5], [[1, 1], [2, 0], [1, 1]], n_bins=2, debiased=False), 6)
    0.166667
    """
    cl = statistic_calibration_loss(
        phi_probs, label_hist, phi=phi, order=order, n_bins=n_bins, bin_edges=bin_edges, debiased=debiased
    )
    return math.sqrt(max(cl, 0.0))
