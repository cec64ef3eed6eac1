r"""Fig. 6 as the authors built it: one constant predictor per tile of the simplex, fresh labels per tile.

The authors' notebook (mkjuergens/EnsembleCalibration@8dff2b5, ``notebooks/cal_estimator_analysis.ipynb``, cells
3-5) draws the figure on a ternary grid of resolution 40: at each grid point :math:`\mathbf p` the predictor is
constant, :math:`f(x) \equiv \mathbf p`, and N = 3 000 labels are drawn afresh from the truth
:math:`\mathbf p^* = (0.1, 0.1, 0.8)`; each estimator is evaluated on those (bandwidths 0.1 for
:math:`L_2` and KL, 0.001 for SKCE and MMD) and the heat map shows :math:`\log(|v| + 10^{-10})`. Their SKCE is
the linear (unbiased) estimator with its absolute value taken (``skce.py``, ``get_skce_ul`` with
``take_square=True``: :math:`\sqrt{v^2}`).

:func:`tiled_landscape` builds the same tiles with the book's estimators at those bandwidths, and draws the labels
of the tiles near the truth ``n_repeats`` more times, so that the noise the figure shows has a size:
:func:`relative_spread` is the median over those tiles of the standard deviation of :math:`|v|` over the draws
divided by its mean. An estimator whose values near the truth are mostly noise has a relative spread near 1 or
above; one whose values there are a stable bias has a small one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from credalbook._validation import check_choice, check_positive_int, check_probs
from credalbook.papers.juergens.estimators import Landscape, simplex_grid
from credalbook.stats.measures import estimator_measure

__all__ = ["AUTHORS_TILES", "TiledLandscape", "relative_spread", "tiled_landscape"]

#: The authors' construction (cal_estimator_analysis.ipynb, cells 3-5): truth, labels per tile, grid resolution, and
#: each estimator's options (bandwidths of ``miscalibration_estimate``; SKCE the linear estimator, as ``skce_obj``).
AUTHORS_TILES = {
    "truth": (0.1, 0.1, 0.8),
    "n_samples": 3000,
    "resolution": 40,
    "options": {
        "lp": {"bandwidth": 0.1},
        "kl": {"bandwidth": 0.1},
        "skce": {"bandwidth": 0.001, "estimator": "linear"},
        "mmd": {"bandwidth": 0.001},
    },
}


@dataclass(frozen=True)
class TiledLandscape:
    """One estimator on the authors' tiles.

    Attributes
    ----------
    estimator : str
    grid : ndarray (G, 3)
        The tiles' constant predictions.
    values : ndarray (G,)
        :math:`|v|` at each tile, one label draw per tile (what the authors' heat map shows, before the log).
    near : ndarray (T,)
        Indices into ``grid`` of the tiles within ``radius`` (L1) of the truth.
    near_repeats : ndarray (T, R)
        :math:`|v|` on ``n_repeats`` further label draws at each of those tiles.
    truth : ndarray (3,)
    """

    estimator: str
    grid: np.ndarray
    values: np.ndarray
    near: np.ndarray
    near_repeats: np.ndarray
    truth: np.ndarray

    def log_landscape(self) -> Landscape:
        r""":math:`\log(|v| + 10^{-10})` on the tiles as a :class:`~credalbook.papers.juergens.Landscape`, what the
        authors' heat map shows (for :func:`~credalbook.papers.juergens.plot_landscape`).

        Examples
        --------
        >>> t = tiled_landscape("skce", n_samples=40, resolution=3, radius=0.5, n_repeats=2)
        >>> t.log_landscape().values.shape, t.log_landscape().estimator
        ((10,), 'log |SKCE|')
        """
        name = estimator_measure(self.estimator, **AUTHORS_TILES["options"][self.estimator]).name
        return Landscape(self.grid, np.log(self.values + 1e-10), self.truth, f"log |{name}|")


def tiled_landscape(
    estimator: str = "skce",
    *,
    truth=AUTHORS_TILES["truth"],
    n_samples: int = AUTHORS_TILES["n_samples"],
    resolution: int = AUTHORS_TILES["resolution"],
    radius: float = 0.2,
    n_repeats: int = 5,
    seed=0,
    estimator_options: dict | None = None,
) -> TiledLandscape:
    r"""The authors' Fig. 6 tiles for one estimator, and repeated draws near the truth.

    Parameters
    ----------
    estimator : {"lp", "kl", "skce", "mmd"}
    truth : 3 probabilities
        The labels' distribution, the same at every tile.
    n_samples : int
        Labels per tile and draw.
    resolution : int
        The grid has all points with coordinates in multiples of 1/resolution.
    radius : float
        Tiles within this L1 distance of the truth get ``n_repeats`` further draws.
    n_repeats : int
    seed : int or Generator
    estimator_options : dict, optional
        Of :func:`~credalbook.stats.estimator_measure`; default :data:`AUTHORS_TILES` ``["options"][estimator]``.

    Examples
    --------
    >>> t = tiled_landscape("lp", n_samples=50, resolution=4, radius=0.5, n_repeats=3)
    >>> t.values.shape, t.near_repeats.shape[1], bool((t.values >= 0).all())
    ((15,), 3, True)
    """
    check_choice(estimator, "estimator", tuple(AUTHORS_TILES["options"]))
    p0 = check_probs(np.asarray(truth, dtype=np.float64)[None], name="truth")[0]
    if p0.shape != (3,):
        raise ValueError(f"truth must be a distribution over 3 classes; got shape {p0.shape}")
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    reps = check_positive_int(n_repeats, "n_repeats", minimum=2)
    if not (isinstance(radius, (int, float)) and 0 < radius <= 2):
        raise ValueError(f"radius must be a number in (0, 2]; got {radius!r}")
    options = AUTHORS_TILES["options"][estimator] if estimator_options is None else estimator_options
    g = estimator_measure(estimator, **options)
    rng = np.random.default_rng(seed)
    grid = simplex_grid(resolution)
    near = np.flatnonzero(np.abs(grid - p0).sum(axis=1) <= radius + 1e-12)
    if near.size == 0:
        raise ValueError(f"no tile lies within radius {radius} of the truth at resolution {resolution}")

    def value(p, labels):  # the estimator on a constant predictor, |v| as the authors plot it
        probs = np.broadcast_to(np.clip(p, 1e-12, None) / np.clip(p, 1e-12, None).sum(), (n, 3))
        return abs(float(g.func(np.ascontiguousarray(probs)[None], labels[None])[0]))

    values = np.array([value(p, rng.choice(3, size=n, p=p0)) for p in grid])
    repeats = np.array([[value(grid[i], rng.choice(3, size=n, p=p0)) for _ in range(reps)] for i in near])
    return TiledLandscape(estimator, grid, values, near, repeats, p0)


def relative_spread(landscape: TiledLandscape, *, n_resamples: int = 1000, seed: int = 0) -> tuple[float, float, int]:
    """Median over the tiles near the truth of sd/mean of :math:`|v|` over the draws → (median, bootstrap SE over
    the tiles, number of tiles).

    Examples
    --------
    >>> t = TiledLandscape("lp", np.zeros((2, 3)), np.zeros(2), np.arange(2), np.array([[1.0, 3.0], [2.0, 2.0]]),
    ...                    np.ones(3) / 3)
    >>> m, se, k = relative_spread(t)
    >>> round(m, 4), k
    (0.3536, 2)
    """
    r = np.asarray(landscape.near_repeats, dtype=np.float64)
    mean = r.mean(axis=1)
    rel = np.divide(r.std(axis=1, ddof=1), mean, out=np.full(len(r), np.inf), where=mean > 0)
    boot = np.random.default_rng(seed).integers(
        0, len(rel), size=(check_positive_int(n_resamples, "n_resamples"), len(rel))
    )
    meds = np.median(rel[boot], axis=1)
    finite = meds[np.isfinite(meds)]
    se = float(np.std(finite, ddof=1)) if finite.size > 1 else float("inf")
    return float(np.median(rel)), se, len(rel)
