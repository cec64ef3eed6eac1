r"""Null distributions of the resampling calibration tests (Mortier et al. 2023, Alg. 1, lines 1-6).

For :math:`d = 1..D`: resample the instances, draw :math:`\boldsymbol\lambda_{0,d}` on
:math:`\Delta_M`, draw labels from :math:`\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}` and record
:math:`t_{0,d} = g(\hat{\mathbf p}_{\boldsymbol\lambda_{0,d}}, \mathcal D_d)` (one classifier: M = 1,
Vaicenavicius et al.'s consistency resampling). The D replicates are evaluated as one batch
(arrays of shape (D, N, K)), in chunks of replicates when that would exceed 128 MiB (same values);
:func:`~credalbook.stats.set_null_distribution` also batches over datasets.

**Seeds, chunks and n_jobs.** Every test that draws a null sample takes ``seed``, ``n_jobs`` and
``chunk_size``. The sample depends on ``seed`` and ``chunk_size`` only, never on ``n_jobs``
(joblib's meaning: None is joblib's default, 1 outside a ``joblib.parallel_config`` context):

* ``chunk_size`` = an integer (default ``NULL_CHUNK`` = 50): the D replicates in chunks of that
  many, chunk :math:`c` drawn from its own generator spawned from one SeedSequence drawn from
  ``seed`` (:func:`credalbook._parallel.run_chunks`); the chunks run through joblib with
  ``n_jobs`` (or on a dask cluster inside ``joblib.parallel_config(backend="dask")``);
* ``chunk_size=None``: all D replicates from ``seed`` in one random stream, here (``n_jobs`` has
  nothing to split). The layout of the set and Hosmer-Lemeshow tests before version 0.6, which
  the chapters and papers pass explicitly where they record values.

The engine functions (:func:`null_statistics`, :func:`null_replicates`) do not validate their
inputs: the error-rate studies of the papers call them on thousands of checked datasets at once.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, run_chunks
from credalbook._random import draw_labels, draw_weights, WEIGHT_PRIORS
from credalbook._validation import as_rng, check_choice, check_positive_int

__all__ = [
    "NULL_CHUNK",
    "RESAMPLING",
    "check_chunk_size",
    "check_null_args",
    "null_replicates",
    "null_statistics",
    "resample_null",
]

RESAMPLING = ("bootstrap", "permutation")
#: Replicates per chunk of a null sample (the default ``chunk_size`` of every test; fixed, so the
#: values do not depend on ``n_jobs``).
NULL_CHUNK = 50


def check_chunk_size(chunk_size):
    """``chunk_size`` validated: None (one random stream) or a positive integer."""
    return None if chunk_size is None else check_positive_int(chunk_size, "chunk_size")


def resample_null(func, n_resamples: int, *, seed=None, n_jobs=None, chunk_size=NULL_CHUNK, args: tuple = ()):
    """``func(size, rng, *args)`` for the ``n_resamples`` replicates of a null sample (module docstring).

    ``chunk_size=None``: one call with all replicates and ``as_rng(seed)``; an integer: chunks of
    that size through :func:`credalbook._parallel.run_chunks` with ``n_jobs``. No validation.
    """
    if chunk_size is None:
        return func(n_resamples, as_rng(seed), *args)
    return run_chunks(func, n_resamples, seed=seed, chunk_size=chunk_size, n_jobs=check_n_jobs(n_jobs), args=args)


#: Largest number of floats (replicates × instances × classes) that :func:`null_statistics` holds in
#: one array (2**24 floats = 128 MiB); larger problems are computed in chunks of replicates.
NULL_CHUNK_ELEMENTS = 2**24


def _draw_indices(rng: np.random.Generator, n: int, shape: tuple, resample: str) -> np.ndarray:
    if resample == "bootstrap":
        return rng.integers(0, n, size=(*shape, n))
    # the authors' code: a permutation, i.e. "bootstrap" without replacement
    return rng.permuted(np.broadcast_to(np.arange(n), (*shape, n)), axis=-1)


def _null_block(ens, lam, idx, func, rng):
    combined = np.einsum("...nmk,...dm->...dnk", ens, lam)
    *lead, n, k = combined.shape
    # p0[..., i, :] = combined[..., idx[..., i], :], as rows of one (rows, K) array (faster than take_along_axis)
    rows = (idx.reshape(-1, n) + n * np.arange(math.prod(lead))[:, None]).ravel()
    p0 = combined.reshape(-1, k)[rows].reshape(*lead, n, k)
    del combined, rows
    y0 = draw_labels(p0, rng)
    return np.asarray(func(p0, y0), dtype=np.float64)


@renamed(n_bootstrap="n_resamples", rng="seed")
def null_statistics(
    ens: np.ndarray,
    func,
    n_resamples: int,
    weight_prior: str,
    resample: str,
    seed,
    *,
    chunk_elements: int | None = None,
) -> np.ndarray:
    """Null statistics of shape (..., D) for validated ``ens`` (..., N, M, K): the engine of the tests.

    Each of the ``n_resamples`` rounds draws convex weights λ from ``weight_prior``, resamples the
    instances (``"bootstrap"``: with replacement; ``"permutation"``: the authors' code) and labels from
    the combined prediction, and evaluates the batched measure ``func``, all from one random
    stream, ``as_rng(seed)`` (a Generator is drawn from as it is). No validation: the error-rate
    studies of the papers call it on thousands of checked datasets at once; users call
    :func:`~credalbook.stats.set_null_distribution`.

    Memory: when all replicates together hold more than ``chunk_elements`` floats (datasets × D ×
    N × K; default ``NULL_CHUNK_ELEMENTS`` = 2²⁴, 128 MiB), they are computed in chunks of whole
    datasets or of replicates, so no array of shape (..., D, N, K) is formed. The random draws
    are made in the same order from the same stream as in one pass (the resampling indices come
    from a copy of the generator that is then advanced past them), so neither the result nor the
    state the generator is left in depends on the chunking.
    """
    rng = as_rng(seed)
    *batch, n, m, k = ens.shape
    d = n_resamples
    lam = draw_weights(m, weight_prior, rng, (*batch, d))  # (..., D, M); λ ≡ 1 for one classifier
    n_sets = math.prod(batch)
    if chunk_elements is None:
        chunk_elements = NULL_CHUNK_ELEMENTS
    if n_sets * d * n * k <= chunk_elements:
        idx = _draw_indices(rng, n, (*batch, d), resample)
        return _null_block(ens, lam, idx, func, rng)
    # Chunks in the order of the stream (datasets, then replicates), each ≤ chunk_elements floats.
    ens_f, lam_f = ens.reshape(n_sets, n, m, k), lam.reshape(n_sets, d, m)
    per_set = max(1, chunk_elements // (d * n * k))  # whole datasets per chunk ...
    per_rep = max(1, chunk_elements // (n * k))  # ... or replicates of one dataset per chunk
    if per_set > 1 or d * n * k <= chunk_elements:
        blocks = [(slice(lo, lo + per_set), slice(None)) for lo in range(0, n_sets, per_set)]
    else:
        blocks = [(slice(s, s + 1), slice(lo, lo + per_rep)) for s in range(n_sets) for lo in range(0, d, per_rep)]
    idx_rng = np.random.Generator(copy.deepcopy(rng.bit_generator))
    for sets, reps in blocks:  # advance rng past the index draws, as one call would have
        _draw_indices(rng, n, (len(range(n_sets)[sets]), len(range(d)[reps])), resample)
    out = np.empty((n_sets, d))
    for sets, reps in blocks:
        idx = _draw_indices(idx_rng, n, (len(range(n_sets)[sets]), len(range(d)[reps])), resample)
        out[sets, reps] = _null_block(ens_f[sets], lam_f[sets, reps], idx, func, rng)
    return out.reshape(*batch, d)


def check_null_args(n_resamples, weight_prior, resample):
    """Validate the options of the set null: ``n_resamples`` (returned as int), ``weight_prior``, ``resample``."""
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    check_choice(weight_prior, "weight_prior", WEIGHT_PRIORS)
    check_choice(resample, "resample", RESAMPLING)
    return n_resamples


def _null_chunk(size, rng, ens, func, weight_prior, resample):
    return null_statistics(ens, func, size, weight_prior, resample, rng)


@renamed(n_bootstrap="n_resamples", rng="seed")
def null_replicates(
    ens: np.ndarray, func, n_resamples: int, weight_prior: str, resample: str, seed, n_jobs=None, chunk_size=NULL_CHUNK
) -> np.ndarray:
    """:func:`null_statistics` of one checked set (N, M, K), in chunks through joblib or in one stream.

    ``chunk_size`` (an integer, default ``NULL_CHUNK``): chunks of that many replicates, each seeded
    from a SeedSequence drawn from ``seed``, run with ``n_jobs`` (values that do not depend on
    ``n_jobs``); None: all replicates from ``seed`` in one stream. See the module docstring.
    """
    return resample_null(
        _null_chunk,
        n_resamples,
        seed=seed,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        args=(ens, func, weight_prior, resample),
    )
