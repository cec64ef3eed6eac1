r"""Synthetic predictions with known calibration properties.

Used to check that measures and tests behave as the theory says: a model whose labels are drawn
from its own predictions is calibrated in the strong sense (Mortier et al., Def. 3) and hence
classwise (Def. 2) and confidence calibrated (Def. 1).
"""

from __future__ import annotations

import numpy as np

from credalbook._deprecation import renamed
from credalbook._random import draw_labels
from credalbook._validation import as_rng, check_positive_float, check_positive_int, check_probs

__all__ = ["calibrated_predictions", "scramble_non_top", "sample_labels"]


def calibrated_predictions(n_instances: int, n_classes: int, *, concentration: float = 1.0, seed=None):
    r"""Predictions :math:`\hat{\mathbf p}_i \sim \mathrm{Dir}(c\,\mathbf 1_K)` and labels :math:`y_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)`.

    The predictions are the true conditional distributions, so the model is calibrated in the
    strong sense; any calibration error measured on them is finite-sample estimation error.

    Returns
    -------
    probs : ndarray (N, K)
    labels : ndarray (N,)

    Examples
    --------
    >>> p, y = calibrated_predictions(5, 3, seed=0)
    >>> p.shape, y.shape, bool(np.allclose(p.sum(1), 1))
    ((5, 3), (5,), True)
    """
    n_instances = check_positive_int(n_instances, "n_instances")
    n_classes = check_positive_int(n_classes, "n_classes", minimum=2)
    concentration = check_positive_float(concentration, "concentration")
    rng = as_rng(seed)
    probs = rng.dirichlet(np.full(n_classes, float(concentration)), size=n_instances)
    return probs, sample_labels(probs, rng)


def scramble_non_top(probs, *, seed=None) -> np.ndarray:
    r"""Randomly permute each row's probabilities among its non-arg-max classes.

    The confidence :math:`c_i` and prediction :math:`\hat y_i` are unchanged, so a confidence
    calibrated model stays confidence calibrated (Def. 1), while the probabilities of the other
    classes now belong to the wrong classes: classwise (Def. 2) and strong (Def. 3) calibration
    are lost. This separates the notions of calibration numerically.

    Examples
    --------
    >>> q = scramble_non_top(np.array([[0.6, 0.3, 0.1]]), seed=1)
    >>> float(q[0, 0]), sorted(q[0, 1:].tolist())
    (0.6, [0.1, 0.3])
    """
    p = check_probs(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must have shape (N, K); got {p.shape}")
    rng = as_rng(seed)
    n, k = p.shape
    # Entries equal to the row maximum (ties included) stay where they are, so the arg-max and
    # the confidence cannot change; the other entries are permuted among their own positions.
    is_max = p == p.max(axis=1, keepdims=True)
    targets = np.argsort(np.where(is_max, -1.0, rng.random((n, k))), axis=1, kind="stable")
    sources = np.argsort(np.where(is_max, -1.0, np.arange(k, dtype=float)), axis=1, kind="stable")
    out = np.empty_like(p)
    rows = np.arange(n)[:, None]
    out[rows, targets] = p[rows, sources]
    return out


@renamed(rng="seed")
def sample_labels(probs: np.ndarray, seed=None, size: int | None = None) -> np.ndarray:
    r"""Draw one label per row of ``probs`` (..., K) by inverse-CDF sampling.

    With ``size=R`` returns R independent draws, shape (R, ...). Used for consistency resampling
    and, in later chapters, for generating labels from a hypothesised ground truth. ``seed`` is a
    :class:`numpy.random.Generator` (its stream continues) or a seed (a non-negative int, a
    SeedSequence or None).

    .. math::

        y = \min\{k : u < \textstyle\sum_{j \le k} p_j\}, \qquad u \sim U[0, 1).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sample_labels(np.array([[0.0, 1.0], [1.0, 0.0]]), rng, size=3).tolist()
    [[1, 0], [1, 0], [1, 0]]
    """
    p = check_probs(probs, min_ndim=1)
    rng = as_rng(seed, "seed")
    size = None if size is None else check_positive_int(size, "size", minimum=0)
    return draw_labels(p, rng, size)
