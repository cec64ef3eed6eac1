r"""Wu & Gales' criteria of one model: a row of their tables, and what a calibrated predictor would score.

:func:`criteria_summary` collects accuracy, NLL, the region criteria of :mod:`credalbook.metrics.regions`
(ACCE, ACE, ECCE, ECE) and the SKCE with a Laplacian kernel of one model (a row of Tables 1-7);
:func:`calibrated_sampling_floor` is the value of a region criterion for a predictor that is exactly
calibrated, on a test set of this size (the bias of the sample-based criteria).

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 3 and Tables 1-7.
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification: a unifying
framework. NeurIPS 2019 (SKCE).
"""

from __future__ import annotations

import math

import numpy as np

from credalbook._validation import as_rng, check_choice, check_positive_float, check_positive_int, check_probs
from credalbook.metrics.classification import accuracy as _accuracy
from credalbook.metrics.classification import ece
from credalbook.metrics.classification import nll as _nll
from credalbook.metrics.kernel import skce_laplacian
from credalbook.metrics.regions import (
    _top_label,
    acce,
    all_label_ece,
    check_epsilon,
    check_probs_label_rows,
    DEFAULT_EPSILON,
    ecce,
)
from credalbook.synthetic.predictions import sample_labels

__all__ = ["criteria_summary", "calibrated_sampling_floor"]


def criteria_summary(
    probs,
    labels,
    *,
    epsilon: float = DEFAULT_EPSILON,
    skce: bool = True,
    bandwidth: float | None = None,
    skce_estimator: str = "auto",
) -> dict:
    r"""Accuracy, NLL, ACCE, ACE, ECCE, ECE and SKCE of one model: a row of Tables 1-7.

    Keys: ``accuracy``, ``nll``, ``acce``, ``all_label_ece`` (the paper's ACE), ``ecce``, ``ece`` and
    (with ``skce=True``) ``skce``. Values are raw numbers; the paper prints ACE, ACCE and SKCE in units of 1e-4 and
    ECE, ECCE in units of 1e-2. With integer labels ``accuracy`` and ``nll`` are
    :func:`credalbook.metrics.accuracy` and :func:`credalbook.metrics.nll`; with true class
    probabilities they are their expectations, :math:`\frac1N\sum_i P(\hat y_i\mid\mathbf x_i)` and
    the cross-entropy :math:`-\frac1N\sum_{i,j} P(\omega_j\mid\mathbf x_i)\log\hat p_{ij}`.
    ``skce`` is :func:`~credalbook.metrics.skce_laplacian` with ``bandwidth`` and ``estimator=skce_estimator``: by
    default all pairs up to N = 10⁴ (``QUADRATIC_MAX_N``) and blocks of 1000 instances above, so
    a row at N = 10⁶ takes seconds.

    Examples
    --------
    >>> s = criteria_summary([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], [0, 1, 1], skce=False)
    >>> list(s), round(s["accuracy"], 4)
    (['accuracy', 'nll', 'acce', 'all_label_ece', 'ecce', 'ece'], 0.6667)
    """
    eps = check_epsilon(epsilon)
    p, t, onehot = check_probs_label_rows(probs, labels)
    if bandwidth is not None:  # checked even with skce=False
        bandwidth = check_positive_float(bandwidth, "bandwidth")
    if onehot:
        y = t.argmax(axis=1)
        acc, loss = _accuracy(p, y), _nll(p, y)
    else:
        acc = float(_top_label(p, t)[2].mean())
        loss = float(-(t * np.log(np.clip(p, 1e-12, None))).sum(axis=1).mean())
    out = {
        "accuracy": acc,
        "nll": loss,
        "acce": acce(p, t, epsilon=eps),
        "all_label_ece": all_label_ece(p, t, epsilon=eps),
        "ecce": ecce(p, t, epsilon=eps),
        "ece": ece(p, t, epsilon=eps),
    }
    if skce:
        out["skce"] = skce_laplacian(p, t, bandwidth=bandwidth, estimator=skce_estimator)
    return out


def calibrated_sampling_floor(
    probs, criterion: str = "ece", *, epsilon: float = DEFAULT_EPSILON, n_draws: int = 200, seed=None
) -> tuple[float, float]:
    r"""Mean and standard deviation of a criterion when ``probs`` are *exactly* calibrated.

    Draws the labels from the predictor's own probabilities, :math:`y_i \sim \hat{\mathbf p}_i`
    (the null of consistency resampling, Vaicenavicius et al. 2019), ``n_draws`` times and scores
    ``probs`` against each draw. The sample criteria of Eqs. 6 and 12-14 sum absolute residuals,
    so they are positive even for a calibrated predictor; the mean returned here is that bias at
    this N and these confidences, and differences between calibration methods smaller than a
    few standard deviations of it cannot be told apart on this test set (Wu & Gales 2021 call such
    criteria "sample-based" and note their dependence on N in App. A.3).

    Parameters
    ----------
    probs : array-like, shape (N, K)
    criterion : {"ece", "ecce", "all_label_ece", "acce"}, default "ece"
    epsilon : float, default 1/30 (15 bins)
    n_draws : int, default 200
    seed : int, numpy Generator or None

    Returns
    -------
    (mean, sd) : tuple of float

    Examples
    --------
    A predictor that always says 0.9 for class 0, on N = 100: ECE = ``|mean correct − 0.9|`` with
    100 Bernoulli(0.9) draws, whose expectation is about :math:`\sqrt{2/\pi}\,\sqrt{0.09/100} \approx 0.024`.

    >>> p = np.tile([0.9, 0.1], (100, 1))
    >>> m, sd = calibrated_sampling_floor(p, n_draws=2000, seed=0)
    >>> round(m, 2)
    0.02
    """
    criteria = {"ece": ece, "ecce": ecce, "all_label_ece": all_label_ece, "acce": acce}
    check_choice(criterion, "criterion", tuple(criteria))
    n_draws = check_positive_int(n_draws, "n_draws")
    eps = check_epsilon(epsilon)
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got shape {p.shape}")
    rng = as_rng(seed)
    fn = criteria[criterion]
    draws = sample_labels(p, rng, size=n_draws)
    values = np.array([fn(p, y, epsilon=eps) for y in draws])
    return float(values.mean()), float(values.std(ddof=1)) if n_draws > 1 else math.nan
