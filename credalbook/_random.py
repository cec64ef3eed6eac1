"""Random draws shared across the package: robust Dirichlet, convex weights, labels.

Helpers on NumPy arrays and a ``numpy.random.Generator``: the public functions that use them
(:func:`credalbook.credal.sample_weights`, :func:`credalbook.synthetic.sample_labels`, the
bootstrap tests, the scenario generators) check their inputs first. The generator argument ``rng``
goes through :func:`credalbook._validation.as_rng` (a Generator passes unchanged, at no cost), so a
seed given by mistake is named in the error instead of failing inside NumPy.
"""

from __future__ import annotations

import numpy as np

from credalbook._validation import as_rng

#: Priors of the convex weights: Dir(1, ..., 1) ("uniform") or Dir(1/M, ..., 1/M) ("sparse").
WEIGHT_PRIORS = ("uniform", "sparse")


def dirichlet(alpha: np.ndarray, rng: np.random.Generator, size: tuple = ()) -> np.ndarray:
    """Dirichlet draws of shape (*size, *alpha.shape), robust for tiny concentrations.

    NumPy's sampler returns NaN rows when every gamma variate underflows (α ≲ 0.01 in many
    dimensions). Here :math:`\\log G` with :math:`G \\sim \\Gamma(\\alpha)` is drawn as
    :math:`\\log G' + \\log U / \\alpha` with :math:`G' \\sim \\Gamma(\\alpha + 1)` (Marsaglia & Tsang's
    boost) and normalised in log space, so rows always sum to one.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    rng = as_rng(rng, "rng")
    shape = (*size, *alpha.shape)
    log_g = np.log(rng.standard_gamma(alpha + 1.0, size=shape)) + np.log(rng.random(shape)) / alpha
    log_g -= log_g.max(axis=-1, keepdims=True)
    g = np.exp(log_g)
    return g / g.sum(axis=-1, keepdims=True)


def draw_weights(m: int, prior: str, rng: np.random.Generator, size: tuple = ()) -> np.ndarray:
    """Weights of shape (*size, M) from Dir(1) ("uniform") or Dir(1/M) ("sparse"); ones for M = 1
    (without consuming randomness)."""
    rng = as_rng(rng, "rng")
    if m == 1:
        return np.ones((*size, 1))
    return dirichlet(np.full(m, 1.0 if prior == "uniform" else 1.0 / m), rng, size)


def draw_labels(p: np.ndarray, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """One label per row of ``p`` (..., K), or ``size`` draws per row: :func:`credalbook.synthetic.sample_labels` without validation."""
    rng = as_rng(rng, "rng")
    cdf = np.cumsum(p, axis=-1)
    cdf[..., -1] = np.inf  # guards against rounding in the last cumulative sum
    shape = p.shape[:-1] if size is None else (size, *p.shape[:-1])
    u = rng.random(shape)
    return (u[..., None] >= cdf).sum(axis=-1)
