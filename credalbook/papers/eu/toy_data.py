r"""The toy data of the EU paper (Sec. 5.3): a 38 × 46 grid of unit Gaussians with random cluster labels.

.. math::

    p(\mathbf z_i) = \frac1K\,1\bigl(\mathbf z_i \in \{1..38\} \times \{1..46\}\bigr), \quad
    p(\mathbf x_i|\mathbf z_i = [j, k]) = \mathcal N(\mathbf x_i|[j, k], \mathbf I_2), \quad K = 38 \cdot 46 = 1748,

    y_i = 1(w_{c(\mathbf z_i)} \le K/2), \qquad (w_1, \dots, w_K) \text{ a uniformly random permutation of } 1..K,

with :math:`N = 142{,}693` points. Every cluster carries one label, and exactly :math:`K/2 = 874`
clusters are labelled 1 ("randomly partitioning [the clusters] into equal groups").

How the points and N come about. The paper samples :math:`N` points from the mixture, i.e.
:math:`\mathbf z_i` i.i.d. uniform over the :math:`K` clusters, so the cluster sizes are
multinomial (about 81.6 points each); :math:`N = 142{,}693 = 31 \cdot 4603` is not a multiple of
:math:`K`, which rules out a fixed number of points per cluster, and the paper gives no other rule, so
:math:`N` is a fixed constant of the generator (:data:`TOY_N`). The paper indexes the permutation by
:math:`w_{j+46k}`, which exceeds :math:`K` for :math:`j \le 38, k \le 46` (a slip); here cluster
:math:`[j, k]` has the 0-based index :math:`c = 46(j-1) + (k-1)`, a bijection onto
:math:`\{0, \dots, K-1\}`. Which coordinate runs to 38 and which to 46 follows the paper:
:math:`x_1 \approx j \in 1..38`, :math:`x_2 \approx k \in 1..46`.

The printed covariance :math:`\mathbf I_2` with unit grid spacing makes neighbouring clusters overlap
heavily (Bayes accuracy about 62 %), which is hard to square with Sec. 5.3.1's remark that the test
data has few points of high aleatoric uncertainty; :func:`eu_toy_data` follows the printed formula by
default and exposes the standard deviation as ``noise_sd``.

Because the generating process is known, the Bayes-optimal :math:`P(y=1|x)`
(:meth:`EUToyData.bayes_probability`) and hence the true EU of Def. 3 are available on this data.

The carving layouts of Fig. 2 are not given numerically in the paper; :func:`toy_disc_layout`
documents the choice made here (twelve discs in the lower half for evaluation, twelve in the
"untouched upper region" for calibration, Sec. 5.3; three large discs for the mismatch study of
Sec. 5.3.2); :func:`toy_eu_splits` carves the data with them (Fig. 2), and :func:`toy_noise_summary` says
how noisy the data is for a given standard deviation of the Gaussians.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import as_numpy
from credalbook.metrics.uncertainty import binary_entropy
from credalbook.papers.eu.carving import _radius, BallLayout, BallSplit, grid_centres

__all__ = [
    "TOY_GRID",
    "TOY_KEPT_FRACTIONS",
    "TOY_N",
    "TOY_NOISE_SD",
    "EUToyData",
    "ToySplits",
    "eu_toy_data",
    "toy_disc_layout",
    "toy_eu_splits",
    "toy_noise_summary",
]

#: Number of points of the paper's toy data set (EU paper, Sec. 5.3).
TOY_N = 142_693
#: Grid of cluster means :math:`[j, k]`, :math:`j \in 1..38`, :math:`k \in 1..46`.
TOY_GRID = (38, 46)
_K = TOY_GRID[0] * TOY_GRID[1]
#: Standard deviation of the toy Gaussians used by the book. The paper prints I_2 (s = 1), which
#: cannot give its Table 1 (see :func:`toy_noise_summary` and the chapter); s = 0.3 can. Because it was
#: chosen with Table 1's uncalibrated EECE of Ê_E in view, that number is not judged by
#: :func:`credalbook.papers.eu.compare` (matching it would be circular).
TOY_NOISE_SD = 0.3
#: The carving design of the book's main toy experiment (its choice; the paper gives no numbers): the fraction
#: :math:`p_i` of each disc kept in :math:`\mathcal D_{train}` rises linearly from the first value to the second over
#: the discs (C order), so with twelve discs :math:`p_i = 0, 0.055, \dots, 0.6` and the first disc is emptied (its
#: points go to :math:`\mathcal D_{test}` and :math:`\mathcal D_{aug}` only). The paper says only that "some of the
#: discs have fewer points removed than others"; ``credalbook.papers.eu.EU_CARVING_RANGES`` lists the designs the
#: chapter's sensitivity study compares.
TOY_KEPT_FRACTIONS = (0.0, 0.6)


@dataclass(frozen=True)
class EUToyData:
    r"""The toy data set of the EU paper, Sec. 5.3 (or a subsample of it).

    Attributes
    ----------
    x : ndarray, shape (N, 2)
    y : ndarray of int, shape (N,)
    cluster : ndarray of int, shape (N,)
        0-based cluster :math:`c = 46(j-1) + (k-1)` of each point.
    cluster_labels : ndarray of int, shape (K,)
        Label of every cluster (:math:`1(w_c \le K/2)`).
    index : ndarray of int, shape (N,)
        Positions of the points in the full data set of :data:`TOY_N` points (``arange`` without
        subsampling).
    seed : int
    noise_sd : float
        Standard deviation of each Gaussian (1 in the paper).
    """

    x: np.ndarray
    y: np.ndarray
    cluster: np.ndarray
    cluster_labels: np.ndarray
    index: np.ndarray
    seed: int
    noise_sd: float = 1.0

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    def bayes_probability(self, x=None) -> np.ndarray:
        r"""True :math:`P(y=1|x)` under the generating mixture, shape (N,).

        .. math::

            P(y=1|x) = \frac{\sum_{j,k} 1[y_{jk} = 1]\,\phi_s(x_1 - j)\,\phi_s(x_2 - k)}
                            {\sum_{j,k} \phi_s(x_1 - j)\,\phi_s(x_2 - k)}

        with :math:`\phi_s` the normal density with standard deviation :math:`s` = ``noise_sd``
        (equal mixture weights cancel). Computed as :math:`a^\top L b / (\sum a)(\sum b)` with
        :math:`a_j = \phi_s(x_1 - j)`, :math:`b_k = \phi_s(x_2 - k)` rescaled per point (exact, no
        truncation). Defaults to the data's own inputs.
        """
        pts = self.x if x is None else as_numpy(x, "x").astype(np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ValueError(f"x must have shape (N, 2); got {pts.shape}")
        if not np.isfinite(pts).all():
            raise ValueError("x must be finite")
        labels = self.cluster_labels.reshape(TOY_GRID).astype(np.float64)
        j = np.arange(1, TOY_GRID[0] + 1)
        k = np.arange(1, TOY_GRID[1] + 1)
        out = np.empty(pts.shape[0])
        for s in range(0, pts.shape[0], 65536):
            d1 = (pts[s : s + 65536, :1] - j) ** 2
            d2 = (pts[s : s + 65536, 1:] - k) ** 2
            a = np.exp(-0.5 * (d1 - d1.min(axis=1, keepdims=True)) / self.noise_sd**2)
            b = np.exp(-0.5 * (d2 - d2.min(axis=1, keepdims=True)) / self.noise_sd**2)
            out[s : s + 65536] = np.einsum("nk,nk->n", a @ labels, b) / (a.sum(axis=1) * b.sum(axis=1))
        return np.clip(out, 0.0, 1.0)


def eu_toy_data(*, seed: int = 0, subsample=None, noise_sd: float = 1.0) -> EUToyData:
    r"""Generate the toy data of the EU paper, Sec. 5.3 (:data:`TOY_N` = 142,693 points).

    Draws, from ``numpy.random.default_rng(seed)`` in this order: the permutation :math:`w` of the
    cluster labels, the clusters :math:`\mathbf z_i` (uniform), the Gaussian noise of
    :math:`\mathbf x_i`; then, with ``subsample``, a uniformly random subset (kept in the original
    order), so that a subsample is a subset of the full data for the same seed.

    Parameters
    ----------
    seed : int, default=0
    subsample : int, float or None, default=None
        Number of points to keep (int, at most :data:`TOY_N`) or fraction (float in (0, 1]).
    noise_sd : float, default=1.0
        Standard deviation :math:`s` of the Gaussians, :math:`\mathcal N(x|[j,k], s^2 I_2)`; the paper
        prints :math:`I_2`, i.e. :math:`s = 1`. Note that with unit spacing and :math:`s = 1` the
        clusters overlap heavily: the Bayes classifier is only about 62 % accurate and the mean
        aleatoric uncertainty :math:`\min(P, 1-P)` is about 0.38, which sits oddly with the paper's
        remark (Sec. 5.3.1) that the test data "does not contain many points with high aleatoric
        uncertainty"; :math:`s = 0.3` gives about 91 % and 0.09. The default follows the printed
        formula.

    Returns
    -------
    EUToyData

    References
    ----------
    EU paper, Sec. 5.3 and Fig. 2.

    Examples
    --------
    >>> data = eu_toy_data(seed=0)
    >>> data.n, data.x.shape, int(data.cluster_labels.sum())
    (142693, (142693, 2), 874)
    >>> small = eu_toy_data(seed=0, subsample=1000)
    >>> small.n, bool((small.x == data.x[small.index]).all())
    (1000, True)
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    ok = isinstance(noise_sd, numbers.Real) and not isinstance(noise_sd, (bool, np.bool_))
    if not ok or not np.isfinite(noise_sd) or noise_sd <= 0:
        raise ValueError(f"noise_sd must be a finite number > 0; got {noise_sd!r}")
    noise_sd = float(noise_sd)
    n_keep = None
    if subsample is not None:
        if isinstance(subsample, (bool, np.bool_)):
            raise ValueError(f"subsample must be an int, a float in (0, 1] or None; got {subsample!r}")
        if isinstance(subsample, numbers.Integral):
            if not 1 <= subsample <= TOY_N:
                raise ValueError(f"subsample as a count must lie in [1, {TOY_N}]; got {subsample}")
            n_keep = int(subsample)
        elif isinstance(subsample, numbers.Real):
            if not 0.0 < float(subsample) <= 1.0:
                raise ValueError(f"subsample as a fraction must lie in (0, 1]; got {subsample}")
            n_keep = max(1, int(round(float(subsample) * TOY_N)))
        else:
            raise ValueError(f"subsample must be an int, a float in (0, 1] or None; got {subsample!r}")
    rng = np.random.default_rng(int(seed))
    w = rng.permutation(_K) + 1
    cluster_labels = (w <= _K // 2).astype(np.int64)
    cluster = rng.integers(0, _K, size=TOY_N)
    means = np.stack([cluster // TOY_GRID[1] + 1, cluster % TOY_GRID[1] + 1], axis=1).astype(np.float64)
    x = means + noise_sd * rng.standard_normal((TOY_N, 2))
    index = np.arange(TOY_N)
    if n_keep is not None and n_keep < TOY_N:
        index = np.sort(rng.choice(TOY_N, size=n_keep, replace=False))
    return EUToyData(
        x=x[index],
        y=cluster_labels[cluster[index]],
        cluster=cluster[index],
        cluster_labels=cluster_labels,
        index=index,
        seed=int(seed),
        noise_sd=noise_sd,
    )


def toy_disc_layout(
    part: str = "evaluation",
    *,
    shape=(4, 3),
    radius: float = 3.0,
    p_train=TOY_KEPT_FRACTIONS,
    q_test: float = 0.1,
    grid=TOY_GRID,
) -> BallLayout:
    r"""Disc layout for carving the toy data (EU paper, Sec. 5.3, Fig. 2) — a documented choice.

    The paper shows its discs only in Fig. 2: non-overlapping discs on a grid, "some of the discs
    have fewer points removed than others [...] so that the test points have a wide range of EU
    estimates", the calibration discs in "the untouched upper region of :math:`\mathcal D_{train}`",
    twelve small discs each, and three large discs in the first mismatch study (Sec. 5.3.2). Here:

    * ``part="evaluation"``: a ``shape`` grid of discs in the lower half
      :math:`[0.5, 38.5] \times [0.5, 23.5]`; ``part="calibration"``: the same in the upper half
      :math:`[0.5, 38.5] \times [23.5, 46.5]` (:func:`credalbook.papers.eu.grid_centres`);
    * the kept fraction :math:`p_i` rises linearly from ``p_train[0]`` to ``p_train[1]`` over the
      discs (C order), the test fraction is ``q_test`` in every disc; the default is the book's design
      :data:`TOY_KEPT_FRACTIONS`, :math:`(0, 0.6)`, which empties the first disc (:math:`p_0 = 0`).

    The default (4 × 3 discs of radius 3, :math:`p_i \in [0, 0.6]`, :math:`q_i = 0.1`) gives about
    2,300 points per disc and 2,800 test points; ``shape=(3, 1), radius=6.0`` gives the three large
    calibration discs of the mismatch study.

    ``grid=(G1, G2)`` lays the discs out on the lower-left :math:`G_1 \times G_2` block of clusters
    instead (halves :math:`[0.5, G_1 + 0.5] \times [0.5, G_2/2 + 0.5]` and
    :math:`[0.5, G_1 + 0.5] \times [G_2/2 + 0.5, G_2 + 0.5]`), for experiments on a window of the
    toy data; the default is the full grid :data:`TOY_GRID`.

    Returns
    -------
    BallLayout

    Examples
    --------
    >>> lay = toy_disc_layout("evaluation")
    >>> lay.centres.shape, lay.radius, lay.p_train[[0, -1]].tolist(), float(lay.q_test[0])
    ((12, 2), 3.0, [0.0, 0.6], 0.1)
    """
    if part not in ("evaluation", "calibration"):
        raise ValueError(f"part must be 'evaluation' or 'calibration'; got {part!r}")
    g = np.asarray(grid, dtype=np.float64).ravel() if np.iterable(grid) else np.array([np.nan])
    if g.shape != (2,) or not np.isfinite(g).all() or (g <= 0).any():
        raise ValueError(f"grid must be a pair (G1, G2) of positive numbers of clusters; got {grid!r}")
    half = 0.5 + g[1] / 2
    lo, hi = (0.5, 0.5), (0.5 + g[0], half)
    if part == "calibration":
        lo, hi = (0.5, half), (0.5 + g[0], 0.5 + g[1])
    centres = grid_centres(lo, hi, shape=shape)
    p = np.asarray(p_train, dtype=np.float64).ravel()
    if p.shape != (2,) or not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise ValueError(f"p_train must be a pair (first, last) of fractions in [0, 1]; got {p_train!r}")
    b = centres.shape[0]
    p_disc = np.linspace(p[0], p[1], b) if b > 1 else p[:1].copy()
    q = float(q_test)
    if not 0.0 <= q <= 1.0 or (p_disc + q > 1 + 1e-12).any():
        raise ValueError(f"q_test must lie in [0, 1] with p_train + q_test <= 1; got q_test={q_test!r}")
    return BallLayout(centres=centres, radius=_radius(radius), p_train=p_disc, q_test=np.full(b, q))


@dataclass(frozen=True)
class ToySplits:
    """Toy data (possibly a window of it) with its evaluation and calibration splits (Fig. 2).

    ``x``, ``y``: the points used; ``rows``: their rows in ``data``; ``aleatoric``: the Bayes
    aleatoric uncertainty :math:`\\min(P, 1 - P)` of every point; layouts and splits index ``x``.
    """

    data: EUToyData = field(repr=False)
    rows: np.ndarray = field(repr=False)
    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    aleatoric: np.ndarray = field(repr=False)
    evaluation_layout: object
    calibration_layout: object
    evaluation: BallSplit = field(repr=False)
    calibration: BallSplit = field(repr=False)


def toy_eu_splits(
    *,
    seed: int = 0,
    noise_sd: float = TOY_NOISE_SD,
    window=None,
    subsample=None,
    evaluation: dict | None = None,
    calibration: dict | None = None,
) -> ToySplits:
    r"""Toy data of Sec. 5.3 carved into evaluation and calibration datasets (Fig. 2).

    The data are :func:`~credalbook.papers.eu.eu_toy_data` with ``seed``, ``noise_sd`` and ``subsample``. With
    ``window=(G1, G2)`` only the points with :math:`x_1 < G_1 + 1/2` and :math:`x_2 < G_2 + 1/2`
    are kept (the lower-left :math:`G_1 \times G_2` clusters; the Bayes probabilities of the full
    mixture stay exact there) and the discs are laid out on that window. ``evaluation`` and
    ``calibration`` are keyword arguments of :func:`credalbook.papers.eu.toy_disc_layout` (default: its
    twelve discs of radius 3; ``calibration=dict(shape=(3, 1), radius=6.0)`` gives the three large
    discs of the first mismatch variant). The evaluation discs are carved with seed ``seed``, the
    calibration discs out of :math:`\mathcal D_{train}` with ``seed + 1``.

    Examples
    --------
    >>> t = toy_eu_splits(seed=0, window=(8, 8), evaluation=dict(shape=(2, 1), radius=1.5),
    ...                   calibration=dict(shape=(2, 1), radius=1.5))
    >>> bool(np.isin(t.calibration.test, t.evaluation.train).all()), t.x.shape[1]
    (True, 2)
    """
    data = eu_toy_data(seed=seed, subsample=subsample, noise_sd=noise_sd)
    grid = TOY_GRID if window is None else tuple(float(g) for g in window)
    rows = np.flatnonzero((data.x[:, 0] < grid[0] + 0.5) & (data.x[:, 1] < grid[1] + 0.5))
    x, y = data.x[rows], data.y[rows]
    p = data.bayes_probability(x)
    ev_layout = toy_disc_layout("evaluation", grid=grid, **(evaluation or {}))
    cal_layout = toy_disc_layout("calibration", grid=grid, **(calibration or {}))
    ev = ev_layout.carve(x, seed=seed)
    cal = cal_layout.carve(x, subset=ev.train, seed=seed + 1)
    return ToySplits(
        data=data,
        rows=rows,
        x=x,
        y=y,
        aleatoric=np.minimum(p, 1.0 - p),
        evaluation_layout=ev_layout,
        calibration_layout=cal_layout,
        evaluation=ev,
        calibration=cal,
    )


def toy_noise_summary(noise_sd: float, *, seed: int = 0, subsample=None) -> dict:
    r"""How noisy the toy data is for a given Gaussian standard deviation :math:`s`.

    Bayes accuracy :math:`E[\max(P, 1-P)]`, mean aleatoric uncertainty :math:`E[\min(P, 1-P)]`, the
    share of points with aleatoric uncertainty above 0.2, and the mean entropy of the Bayes
    predictive :math:`E[H(P(y|x))]` in nats and bits, with :math:`P = P(y=1|x)` of the generating
    mixture (:meth:`credalbook.papers.eu.EUToyData.bayes_probability`). A GP's predictive entropy
    :math:`\hat{\mathcal E}_E` is, for a calibrated model, at least this on average, which bounds the
    uncalibrated EECE of :math:`\hat{\mathcal E}_E` from below (by about its mean minus the mean gain).
    """
    data = eu_toy_data(seed=seed, subsample=subsample, noise_sd=noise_sd)
    p = data.bayes_probability()
    h = binary_entropy(p)
    return {
        "Bayes accuracy": float(np.mean(np.maximum(p, 1 - p))),
        "mean aleatoric": float(np.mean(np.minimum(p, 1 - p))),
        "share aleatoric > 0.2": float(np.mean(np.minimum(p, 1 - p) > 0.2)),
        "mean Bayes entropy (nats)": float(h.mean()),
        "mean Bayes entropy (bits)": float(h.mean() / math.log(2)),
    }
