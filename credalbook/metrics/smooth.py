r"""Smooth ECE of Błasiok & Nakkiran (2023): the ECE of a kernel-smoothed reliability diagram.

Binned ECEs jump when a prediction crosses a bin edge and depend on the number of bins. The smooth
ECE replaces the bins by a Gaussian kernel of bandwidth :math:`\sigma`: with predictions
:math:`f_i \in [0, 1]` and outcomes :math:`y_i \in \{0, 1\}`, the kernel-smoothed residual and
density of the predictions are

.. math::
    \hat r_\sigma(t) = \frac{\sum_i K_\sigma(t, f_i)\,(y_i - f_i)}{\sum_i K_\sigma(t, f_i)},
    \qquad \hat\delta_\sigma(t) = \frac1N \sum_i K_\sigma(t, f_i),

and

.. math::
    \mathrm{smECE}_\sigma = \int_0^1 |\hat r_\sigma(t)|\,\hat\delta_\sigma(t)\,dt
    \Big/ \int_0^1 \hat\delta_\sigma(t)\,dt .

The kernel is a Gaussian reflected at 0 and 1 (:math:`K_\sigma(t, f) = \phi_\sigma(t - f) +
\phi_\sigma(t + f) + \phi_\sigma(t - 2 + f)`), so predictions near the boundaries are not
smoothed out of [0, 1]. Without a bandwidth the measure is hyperparameter-free: :math:`\sigma^*`
is the fixed point :math:`\mathrm{smECE}_{\sigma^*} = \sigma^*` (it exists and is unique since
:math:`\mathrm{smECE}_\sigma` decreases in :math:`\sigma`), which makes the smooth ECE a
consistent calibration measure in the sense of Błasiok et al. (2023).

**Computation, as in relplot** (the authors' package, version 1.0.3, whose numbers
``tests/metrics/test_smooth.py`` reproduces when it is installed). The N predictions are spread
linearly onto a grid of :math:`G = \lfloor\max(2000, \mathrm{round}(20/\sigma))/2\rfloor + 1`
points of [0, 1] (G = 1001 for :math:`\sigma \ge 0.01`) in one pass; on the grid the kernel,
truncated at :math:`|t - f| \le 1/2`, is a convolution (FFT) of the mirrored grid values;
residual and density are interpolated linearly to :math:`T = \max(\mathrm{round}(10/\sigma), 200)`
evaluation points, :math:`10^{-4}` is added to the density (relplot's guard against empty
regions, negligible unless N is tiny), and the integrals are sums over those points. The fixed
point is found by relplot's bisection: :math:`\sigma = 1` if :math:`\mathrm{smECE}_1 \ge 1`,
otherwise ten halvings of [0, 1] (resolution :math:`2^{-10}`), keeping the upper end, the smallest
tried :math:`\sigma` with :math:`\mathrm{smECE}_\sigma \le \sigma`, and never below 0.001. The grid
depends on :math:`\sigma` only below 0.01, so a search at N = 10⁶ costs one pass over the
predictions plus a few small convolutions.

References
----------
Błasiok, Nakkiran. Smooth ECE: Principled reliability diagrams via kernel smoothing. ICLR 2024,
arXiv:2309.12236 (definition of smECE_σ with the reflected Gaussian kernel, and the bandwidth σ*
with smECE_σ* = σ*); the relplot package (``relplot.smECE``, ``relplot.smECE_sigma``).
Błasiok, Gopalan, Hu, Nakkiran. A unifying theory of distance from calibration. STOC 2023.
"""

from __future__ import annotations

import functools

import numpy as np

from credalbook._validation import (
    as_numpy,
    check_binary_labels,
    check_positive_float,
    check_probs_labels,
    check_real_dtype,
)
from credalbook.metrics.intervals import bootstrap_estimate, check_ci_keyword

__all__ = ["smooth_ece", "smooth_ece_bandwidth", "MIN_SMOOTH_ECE_BANDWIDTH"]

#: Smallest bandwidth of the automatic search (relplot's ``eps``) and smallest accepted bandwidth
#: divided by 10 (the grid has about 10/σ points; σ = 10⁻⁴ needs 10⁵).
MIN_SMOOTH_ECE_BANDWIDTH = 1e-3

_DENSITY_EPS = 1e-4  # relplot adds it to the smoothed density
_BISECTION_STEPS = 10


def _check_inputs(probs, labels) -> tuple[np.ndarray, np.ndarray]:
    """(f, y): top-label confidences and correctness for (N, K) probs, or binary P(y = 1) for (N,) probs."""
    arr = as_numpy(probs, "probs")
    if arr.ndim == 1:
        check_real_dtype(arr, "probs")
        f = arr.astype(np.float64)
        if f.shape[0] < 1:
            raise ValueError("probs must contain at least one prediction; got shape (0,)")
        bad = ~np.isfinite(f) | (f < 0) | (f > 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"probs given as binary probabilities P(y = 1) must lie in [0, 1]; probs[{i}] = {f[i]!r}")
        y = check_binary_labels(labels, f.shape[0])
        return f, y.astype(np.float64)
    if arr.ndim != 2:
        raise ValueError(f"probs must have shape (N, K) (top-label) or (N,) (binary); got shape {arr.shape}")
    p, y = check_probs_labels(arr, labels)
    yhat = p.argmax(axis=1)
    conf = p[np.arange(p.shape[0]), yhat]
    return conf, (yhat == y).astype(np.float64)


def _check_bandwidth(bandwidth) -> float:
    sigma = check_positive_float(bandwidth, "bandwidth")
    if sigma < MIN_SMOOTH_ECE_BANDWIDTH / 10:
        raise ValueError(
            f"bandwidth must be at least {MIN_SMOOTH_ECE_BANDWIDTH / 10:g} (the grid has about 10/bandwidth "
            f"points); got {bandwidth!r}"
        )
    return sigma


class _SmoothECE:
    """smECE_σ of fixed predictions for any σ; the grid sums are computed once per grid size."""

    def __init__(self, f: np.ndarray, y: np.ndarray):
        self.f, self.residual = f, f - y
        self._grids: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _grid_sums(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        """Residuals and counts spread linearly onto g grid points j / (g - 1) (weights 1 - frac, frac)."""
        if g not in self._grids:
            pos = self.f * (g - 1)
            j = np.clip(pos.astype(np.intp), 0, g - 2)
            frac = pos - j
            out = []
            for w in (self.residual, None):
                upper = frac if w is None else frac * w
                lower = (1.0 - frac) if w is None else (1.0 - frac) * w
                out.append(np.bincount(j, weights=lower, minlength=g) + np.bincount(j + 1, weights=upper, minlength=g))
            self._grids[g] = (out[0], out[1])
        return self._grids[g]

    @staticmethod
    def _smooth(values: np.ndarray, sigma: float) -> np.ndarray:
        """Convolve grid values with the Gaussian truncated at ±1/2, the grid mirrored at 0 and 1."""
        from scipy.signal import fftconvolve  # imported here: scipy.signal is slow to import

        g = values.shape[0]
        d = np.linspace(0.0, 1.0, g) - 0.5
        kernel = np.exp(-d * d / (2 * sigma * sigma)) / (np.sqrt(2 * np.pi) * sigma)
        mirrored = np.concatenate((values[::-1][:-1], values, values[::-1][1:]))
        return fftconvolve(mirrored, kernel, mode="valid")[g // 2 : g // 2 + g]

    def __call__(self, sigma: float) -> float:
        g = max(2000, round(20 / sigma)) // 2 + 1
        n_eval = max(round(10 / sigma), 200)
        residual, count = self._grid_sums(g)
        grid = np.linspace(0.0, 1.0, g)
        t = np.linspace(0.0, 1.0, n_eval)
        num = np.interp(t, grid, self._smooth(residual, sigma))
        dens = np.interp(t, grid, self._smooth(count, sigma)) + _DENSITY_EPS
        return float(np.sum(np.abs(num / dens) * dens) / np.sum(dens))

    def fixed_point(self) -> tuple[float, float]:
        """(σ*, smECE_σ*) by relplot's bisection (see the module docstring)."""
        value = self(1.0)
        if 1.0 < value:
            return 1.0, value
        lo, hi = 0.0, 1.0
        for _ in range(_BISECTION_STEPS):
            mid = (lo + hi) / 2
            v = self(mid) if mid >= MIN_SMOOTH_ECE_BANDWIDTH else None
            if v is None or mid < v:
                lo = mid
            else:
                hi, value = mid, v
        return hi, value


def smooth_ece(
    probs, labels, *, bandwidth: float | None = None, ci: float | None = None, n_resamples: int = 1000, seed=None
):
    r"""Smooth ECE of Błasiok & Nakkiran (2023): the ECE of the kernel-smoothed reliability diagram.

    .. math::
        \mathrm{smECE}_\sigma = \frac{\int_0^1 |\hat r_\sigma(t)|\,\hat\delta_\sigma(t)\,dt}
        {\int_0^1 \hat\delta_\sigma(t)\,dt},\qquad
        \hat r_\sigma(t) = \frac{\sum_i K_\sigma(t, f_i)(y_i - f_i)}{\sum_i K_\sigma(t, f_i)}

    with :math:`K_\sigma` a Gaussian kernel reflected at 0 and 1 and :math:`\hat\delta_\sigma` the
    kernel density of the predictions (module docstring). Without ``bandwidth``, :math:`\sigma` is
    the fixed point :math:`\sigma^*` with :math:`\mathrm{smECE}_{\sigma^*} = \sigma^*`, as the
    paper proposes and relplot's ``smECE`` computes. Like a binned ECE it lies in [0, 1] and is 0
    for predictions equal to their outcomes; unlike it, it does not jump when a prediction crosses
    a bin edge.

    Parameters
    ----------
    probs : array-like, shape (N, K) or (N,)
        (N, K): probability rows; the smooth ECE of the top-label confidences
        :math:`f_i = \max_k \hat p_{ik}` with outcomes :math:`y_i = 1[\hat y_i = y_i]` (as
        :func:`credalbook.metrics.ece_confidence`). (N,): binary predictions :math:`P(y = 1)`.
    labels : array-like of int, shape (N,)
        Classes in [0, K), or 0/1 outcomes for binary predictions.
    bandwidth : float or None, default None
        :math:`\sigma \ge 10^{-4}`; None chooses :math:`\sigma^*` (see :func:`smooth_ece_bandwidth`).
    ci : float in (0, 1) or None, default None
        With a level (e.g. 0.95): return an :class:`~credalbook.metrics.Estimate` with a bootstrap
        percentile interval (:func:`credalbook.metrics.bootstrap_ci`); without ``bandwidth`` each
        replicate chooses its own :math:`\sigma^*`, as the measure does. One replicate costs one
        pass over the N predictions and a few small FFTs (N = 10⁶: about 50 ms).
    n_resamples : int, default 1000
        Bootstrap replicates (with ``ci``).
    seed : None, int, SeedSequence or Generator
        Seed of the resamples (with ``ci``).

    Returns
    -------
    float, or Estimate (with ``ci``)

    References
    ----------
    Błasiok, Nakkiran. Smooth ECE: Principled reliability diagrams via kernel smoothing. ICLR 2024
    (arXiv:2309.12236); relplot 1.0.3 (``relplot.smECE``, ``relplot.smECE_sigma``).

    Examples
    --------
    Predictions that equal their outcomes are calibrated; a constant prediction of 0.7 for
    outcomes whose mean is 0.5 has smooth ECE ``|0.5 − 0.7|`` at every bandwidth, so also at σ* ≈ 0.2:

    >>> smooth_ece([0.0, 1.0, 1.0, 0.0], [0, 1, 1, 0])
    0.0
    >>> round(smooth_ece([0.7] * 4, [0, 1, 1, 0], bandwidth=0.1), 4), round(smooth_ece([0.7] * 4, [0, 1, 1, 0]), 4)
    (0.2, 0.2)
    """
    check_ci_keyword(ci, n_resamples, seed)
    f, y = _check_inputs(probs, labels)
    sigma = None if bandwidth is None else _check_bandwidth(bandwidth)
    value = _smooth_ece(f, y, sigma)
    if ci is None:
        return value
    statistic = functools.partial(_smooth_ece_rows, sigma=sigma)
    return bootstrap_estimate(statistic, (f, y), value, ci=ci, n_resamples=n_resamples, seed=seed)


def _smooth_ece(f: np.ndarray, y: np.ndarray, sigma: float | None) -> float:
    measure = _SmoothECE(f, y)
    return measure.fixed_point()[1] if sigma is None else measure(sigma)


def _smooth_ece_rows(f: np.ndarray, y: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """:func:`smooth_ece` of each row of checked predictions ``f`` and outcomes ``y`` (R', N) → (R',)."""
    return np.array([_smooth_ece(fi, yi, sigma) for fi, yi in zip(f, y)])


def smooth_ece_bandwidth(probs, labels) -> float:
    r"""The bandwidth :math:`\sigma^*` of :func:`smooth_ece`: the fixed point :math:`\mathrm{smECE}_{\sigma^*} = \sigma^*`.

    Found by relplot's bisection (module docstring): the smallest of the tried
    :math:`\sigma \in \{1, 1/2, 3/4, \dots\}` with :math:`\mathrm{smECE}_\sigma \le \sigma`, to
    :math:`2^{-10}`; at least 0.001. Inputs as in :func:`smooth_ece`; ``smooth_ece(probs, labels,
    bandwidth=smooth_ece_bandwidth(probs, labels))`` equals ``smooth_ece(probs, labels)``.

    Examples
    --------
    >>> round(smooth_ece_bandwidth([0.7] * 4, [0, 1, 1, 0]), 3)   # smECE is 0.2 at every bandwidth
    0.2
    """
    f, y = _check_inputs(probs, labels)
    return _SmoothECE(f, y).fixed_point()[0]
