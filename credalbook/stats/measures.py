r"""Calibration measures as objects a calibration test can evaluate many times, fast.

A test such as Alg. 1 of Mortier et al. (2023) evaluates its measure :math:`g` on every bootstrap
replicate and hundreds of times inside an optimiser, so a :class:`CalibrationMeasure` carries an
*unvalidated, batched* function ``func(probs (..., N, K), labels (..., N)) -> (...)`` next to its
name; calling the object itself validates the inputs first. Built-in measures:

=====================  ====================================================================  ==================
name                   measure (Mortier et al. 2023)                                          notion (Defs. 1-3)
=====================  ====================================================================  ==================
``ece_confidence``     :func:`~credalbook.metrics.ece_confidence`, Eq. 6 (``n_bins``)          confidence
``ece_classwise``      :func:`~credalbook.metrics.ece_classwise`, Eq. 5 (``n_bins``)           classwise
``hosmer_lemeshow``    :func:`~credalbook.stats.hosmer_lemeshow_statistic`, Eqs. 3-4           classwise
``skce_ul``            :func:`~credalbook.metrics.skce_ul`, Eq. 8 (``kernel``, ``bandwidth``)  strong
``skce_uq``            :func:`~credalbook.metrics.skce_uq`, Eq. 7                              strong
=====================  ====================================================================  ==================

A measure is named as the function that computes it. The paper's own labels (ECE_conf, ECE_cwise, HL,
SKCE_ul, SKCE_uq) are the measures' display names (:attr:`CalibrationMeasure.name`); the short names
``"ece_conf"``, ``"ece_cwise"`` and ``"hl"`` of earlier releases are accepted with a :class:`FutureWarning`
(:data:`RENAMED_MEASURES`).

Any callable ``g(probs, labels) -> float`` can be wrapped with :func:`as_measure`; it is then
evaluated replicate by replicate (pass ``batched=True`` if it accepts leading batch dimensions).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from credalbook._deprecation import renamed_value
from credalbook._validation import as_scalar, check_choice, check_n_bins, check_positive_float, check_probs_labels
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.classification import ece_classwise_batched, ece_confidence_batched
from credalbook.metrics.distribution import estimator_function
from credalbook.metrics.kernel import as_kernel, DEFAULT_BANDWIDTH, skce_batched
from credalbook.stats.hosmer_lemeshow import _binning, _GROUPINGS, _hl, _hl_authors, _VARIANTS

__all__ = ["CalibrationMeasure", "calibration_measure", "as_measure", "estimator_measure", "MEASURES"]

#: Names accepted by :func:`calibration_measure`.
MEASURES = ("ece_confidence", "ece_classwise", "hosmer_lemeshow", "skce_ul", "skce_uq")
#: Measure names renamed in 0.6 (accepted with a FutureWarning until 0.7): ``{old: new}``.
RENAMED_MEASURES = {"ece_conf": "ece_confidence", "ece_cwise": "ece_classwise", "hl": "hosmer_lemeshow"}
_BINNED = ("ece_confidence", "ece_classwise", "hosmer_lemeshow")


def measure_name(name, where: str = "", argument: str = "measure"):
    """``name`` with an old measure name (:data:`RENAMED_MEASURES`) replaced by its new one, with a
    :class:`FutureWarning`; anything else (a new name, a :class:`CalibrationMeasure`, a callable) as is.

    >>> measure_name("ece_classwise")
    'ece_classwise'
    """
    return renamed_value(argument, name, RENAMED_MEASURES, where=where)


@dataclass(frozen=True)
class CalibrationMeasure:
    """A named calibration measure :math:`g(\\hat{\\mathbf p}, \\mathcal D)` (lower is better calibrated).

    Attributes
    ----------
    name : str
        Label for tables and plots, e.g. ``"ECE_conf (B=10)"``.
    func : callable
        Batched, unvalidated ``func(p (..., N, K) float64, y (..., N) int64) -> (...)``.
    min_instances : int
        Smallest N the measure is defined for.
    smooth : bool
        Whether the measure is a smooth function of the predictions (kernel estimators), which a
        gradient-based solver such as SLSQP can exploit.
    """

    name: str
    func: Callable = field(repr=False)
    min_instances: int = 1
    smooth: bool = False

    def __call__(self, probs, labels):
        """Validate ``probs`` (..., N, K) and ``labels`` (..., N), then evaluate the measure."""
        p, y = check_probs_labels(probs, labels, min_instances=self.min_instances)
        return as_scalar(np.asarray(self.func(p, y), dtype=np.float64))


def _hl_func(p, y, *, n_bins, grouping):
    return _hl(p, y, _binning(p, n_bins, grouping))[0]


def calibration_measure(
    name: str,
    *,
    n_bins: int = 10,
    grouping: str = "per_class",
    variant: str = "book",
    kernel: Callable | None = None,
    bandwidth: float = DEFAULT_BANDWIDTH,
) -> CalibrationMeasure:
    """A built-in calibration measure by name (see the module table).

    Parameters
    ----------
    name : {"ece_confidence", "ece_classwise", "hosmer_lemeshow", "skce_ul", "skce_uq"}
    n_bins : int, default 10
        Bins of the ECEs (equal width) and of HL (equal frequency).
    grouping : {"per_class", "single"}, default "per_class"
        HL binning (see :func:`~credalbook.stats.hosmer_lemeshow_statistic`).
    variant : {"book", "authors"}, default "book"
        HL statistic: Eqs. 3-4, or the authors' released variant (counts, NaN where a group's
        expected count is 0; see :func:`~credalbook.stats.hosmer_lemeshow_statistic`). The
        measure is then named ``"HL authors (B=...)"``.
    kernel, bandwidth
        SKCE kernel (see :func:`~credalbook.metrics.skce_ul`); default :math:`\\exp(-d_{TV}^2/2)\\,I_K`.

    Examples
    --------
    >>> g = calibration_measure("ece_confidence", n_bins=5)
    >>> g.name, round(g([[0.9, 0.1], [0.2, 0.8]], [0, 0]), 3)   # one bin: |0.5 - 0.85|
    ('ECE_conf (B=5)', 0.35)
    """
    name = check_choice(measure_name(name, "calibration_measure", "name"), "name", MEASURES)
    bandwidth = check_positive_float(bandwidth, "bandwidth")  # checked even where a binned measure ignores it
    if n_bins is not None or name in _BINNED:
        n_bins = check_n_bins(n_bins)
    if name in _BINNED:
        if name == "ece_confidence":
            return CalibrationMeasure(
                f"ECE_conf (B={n_bins})", functools.partial(ece_confidence_batched, n_bins=n_bins)
            )
        if name == "ece_classwise":
            return CalibrationMeasure(
                f"ECE_cwise (B={n_bins})", functools.partial(ece_classwise_batched, n_bins=n_bins)
            )
        check_choice(grouping, "grouping", _GROUPINGS)
        if check_choice(variant, "variant", _VARIANTS) == "authors":
            return CalibrationMeasure(f"HL authors (B={n_bins})", functools.partial(_hl_authors, n_bins=n_bins))
        suffix = "" if grouping == "per_class" else ", single grouping"
        return CalibrationMeasure(
            f"HL (B={n_bins}{suffix})",
            functools.partial(_hl_func, n_bins=n_bins, grouping=grouping),
            min_instances=n_bins,
        )
    kern = as_kernel(kernel, bandwidth)
    label = "SKCE_ul" if name == "skce_ul" else "SKCE_uq"
    estimator = "linear" if name == "skce_ul" else "quadratic"
    return CalibrationMeasure(
        label, functools.partial(skce_batched, kernel=kern, estimator=estimator), min_instances=2, smooth=True
    )


def _loop_batched(g: Callable, p: np.ndarray, y: np.ndarray) -> np.ndarray:
    batch = p.shape[:-2]
    flat_p = p.reshape(-1, *p.shape[-2:])
    flat_y = y.reshape(-1, y.shape[-1])
    return np.array([float(g(pi, yi)) for pi, yi in zip(flat_p, flat_y)]).reshape(batch)


def as_measure(measure, *, batched: bool = False, name: str | None = None, **kwargs) -> CalibrationMeasure:
    """Turn ``measure`` into a :class:`CalibrationMeasure`.

    Accepts a :class:`CalibrationMeasure` (returned as is), a built-in name (``kwargs`` go to
    :func:`calibration_measure`) or a callable ``g(probs (N, K), labels (N,)) -> float``
    (``batched=True`` if it also accepts leading batch dimensions).

    Examples
    --------
    >>> from credalbook.metrics.classification import brier_score
    >>> g = as_measure(brier_score, batched=True)
    >>> g.name, round(g([[0.5, 0.5]], [0]), 2)
    ('brier_score', 0.5)
    """
    if isinstance(measure, CalibrationMeasure):
        return measure
    if isinstance(measure, str):
        return calibration_measure(measure_name(measure, "as_measure"), **kwargs)
    if not callable(measure):
        raise ValueError(f"measure must be a name in {MEASURES}, a CalibrationMeasure or a callable; got {measure!r}")
    label = name or getattr(measure, "__name__", type(measure).__name__)
    func = measure if batched else functools.partial(_loop_batched, measure)
    return CalibrationMeasure(label, func)


_LABELS = {"brier": "Brier", "lp": "L2-CE", "kl": "KL-CE", "skce": "SKCE", "mmd": "MMD"}


def _numpy_batched(fn, p: np.ndarray, y: np.ndarray, *, max_pairs: int = 2**24) -> np.ndarray:
    """Evaluate a torch estimator on float64 arrays (..., N, K), chunking leading dims to bound memory."""
    batch = p.shape[:-2]
    n = p.shape[-2]
    flat_p = torch.from_numpy(np.ascontiguousarray(p.reshape(-1, *p.shape[-2:])))
    flat_y = torch.from_numpy(np.ascontiguousarray(y.reshape(-1, n)))
    step = max(1, max_pairs // max(n * n, 1))
    with torch.no_grad():
        out = [fn(flat_p[i : i + step], flat_y[i : i + step]) for i in range(0, flat_p.shape[0], step)]
    return torch.cat(out).numpy().reshape(batch)


def estimator_measure(name: str, **options) -> CalibrationMeasure:
    """A torch estimator as a :class:`CalibrationMeasure` for the bootstrap tests.

    The bootstrap machinery of :mod:`credalbook.stats.bootstrap` (consistency resampling,
    Mortier et al.'s set test) works on NumPy arrays; this wraps a named estimator (``options`` as
    in its function, e.g. ``bandwidth``) so those tests can use it, batched over replicates.

    Examples
    --------
    >>> g = estimator_measure("lp", bandwidth=0.1)
    >>> g.name, round(g([[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]], [0, 0, 1, 1]), 3)
    ('L2-CE', 0.02)
    """
    fn = estimator_function(name, **options)
    return CalibrationMeasure(
        _LABELS[name], functools.partial(_numpy_batched, fn), min_instances=1 if name == "brier" else 2, smooth=True
    )
