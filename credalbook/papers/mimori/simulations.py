r"""The simulations of Mimori et al. (2022): Fig. 2, Fig. 3 and Theorem 1, without a network.

* :func:`debiasing_study` — Fig. 2 / App. B.5: plug-in and debiased EL and CL of a perfect binary
  predictor with 2 or 5 labels per instance, over N, with 90 % intervals for the mean of the runs.
* :func:`optimal_log_alpha0_grid` — Fig. 3 / App. D.2: Newton optima of :math:`\log\alpha_0`.
* :func:`theorem1_check` — Theorem 1 / App. D.3: Monte-Carlo losses of the Dirichlet DPE and of the
  posterior CPE over :math:`\alpha_0` against the closed forms, optima and improvement intervals.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._validation import check_positive_int
from credalbook.data.mix import sample_label_hist
from credalbook.metrics.label_hist import cpe_loss_decomposition
from credalbook.papers.mimori.alpha0 import (
    dpe_alpha0_interval,
    dpe_conditional_loss,
    optimal_log_alpha0,
    posterior_alpha0_interval,
    posterior_conditional_epistemic_loss,
)

__all__ = [
    "PAPER_Z1_GRID",
    "DebiasingStudy",
    "debiasing_study",
    "AlphaOptimumGrid",
    "optimal_log_alpha0_grid",
    "Theorem1Check",
    "theorem1_check",
]

#: First-class CPEs of Fig. 3 (a setting of the paper: Fig. 3's caption, App. D.2).
PAPER_Z1_GRID = (0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 0.999)


@dataclass(frozen=True)
class DebiasingStudy:
    """Fig. 2: ``estimates[(quantity, estimator, n_labels)]`` of shape (n_runs, len(n_instances)).

    quantity is "EL" or "CL" (15 equal-width bins, summed over both classes), estimator "plug-in"
    or "debiased"; the truth is 0 for the perfect predictor.
    """

    n_instances: np.ndarray
    n_labels: tuple
    estimates: dict = field(repr=False)

    @renamed(level="ci")
    def summary(self, ci: float = 0.9) -> dict:
        """``{key: (mean, half_width)}`` of the mean over runs with a Student-t ``ci`` interval."""
        out = {}
        for key, v in self.estimates.items():
            r = v.shape[0]
            half = stats.t.ppf(0.5 + ci / 2, r - 1) * v.std(axis=0, ddof=1) / math.sqrt(r) if r > 1 else np.nan * v[0]
            out[key] = (v.mean(axis=0), half)
        return out


def _debiasing_runs(n: int, seq: np.random.SeedSequence, sizes: np.ndarray, n_runs: int, n_bins: int) -> dict:
    """The estimates of :func:`debiasing_study` for ``n`` labels per instance, from the stream ``seq``."""
    rng = np.random.default_rng(seq)
    est = {(q, e, n): np.empty((n_runs, len(sizes))) for q in ("EL", "CL") for e in ("plug-in", "debiased")}
    for r in range(n_runs):
        for j, size in enumerate(sizes):
            q = rng.uniform(size=size)
            probs = np.stack([q, 1 - q], axis=1)
            d = cpe_loss_decomposition(probs, sample_label_hist(probs, n, seed=rng), n_bins=n_bins)
            for key, v in (
                (("EL", "plug-in"), d.el_plugin),
                (("EL", "debiased"), d.el_debiased),
                (("CL", "plug-in"), d.cl_plugin),
                (("CL", "debiased"), d.cl_debiased),
            ):
                est[(*key, n)][r, j] = v
    return est


def debiasing_study(
    *,
    n_instances=(100, 200, 500, 1000, 2000, 5000, 10000),
    n_labels=(2, 5),
    n_runs: int = 10,
    n_bins: int = 15,
    seed: int = 0,
    n_jobs: int = 1,
) -> DebiasingStudy:
    r"""Plug-in vs debiased EL and CL of a perfect predictor (Sec. 3.3, App. B.5, Fig. 2).

    For each instance :math:`q \sim U(0, 1)`, :math:`n` labels are drawn from Bernoulli(q) and the
    predictor says :math:`z = (q, 1 - q)`, so EL = CL = 0; Eqs. (9)-(10) and (13)-(14) are
    evaluated with :func:`~credalbook.metrics.cpe_loss_decomposition`.

    Each number of labels has its own random stream (a child of ``SeedSequence(seed)``) and is one work
    unit: ``n_jobs`` units run at once through joblib (-1: all cores; inside
    ``joblib.parallel_config(backend="dask")`` on a ``dask.distributed`` cluster); results do not depend
    on it. (The runs of one number of labels share its stream, as they always have, so they stay in
    one unit; the whole study takes well under a second.)

    Examples
    --------
    >>> s = debiasing_study(n_instances=(200,), n_runs=3)
    >>> s.estimates[("EL", "plug-in", 2)].shape
    (3, 1)
    """
    n_runs = check_positive_int(n_runs, "n_runs")
    sizes = np.asarray([check_positive_int(n, "n_instances", minimum=2) for n in n_instances])
    ns = [check_positive_int(n, "n_labels", minimum=2) for n in n_labels]
    items = [(n, s_n, sizes, n_runs, n_bins) for n, s_n in zip(ns, np.random.SeedSequence(seed).spawn(len(ns)))]
    est = {}
    for part in sweep(_debiasing_runs, items, n_jobs=check_n_jobs(n_jobs)):
        est.update(part)
    order = [(q, e, n) for q in ("EL", "CL") for e in ("plug-in", "debiased") for n in ns]
    return DebiasingStudy(sizes, tuple(n_labels), {k: est[k] for k in order})


@dataclass(frozen=True)
class AlphaOptimumGrid:
    """Fig. 3: ``log_alpha0[n]`` of shape (len(reg), n + 1, len(z1)); axis 1 is :math:`y_1 = 0 … n`."""

    z1: np.ndarray
    reg: np.ndarray
    log_alpha0: dict = field(repr=False)

    def ranges(self) -> np.ndarray:
        """(len(reg), 2): min and max of the optimal log α0 over n, y and z1, per λ_α."""
        stacked = np.concatenate([v.reshape(len(self.reg), -1) for v in self.log_alpha0.values()], axis=1)
        return np.stack([stacked.min(axis=1), stacked.max(axis=1)], axis=1)


def optimal_log_alpha0_grid(
    *, n_labels=(2, 5, 10), z1=PAPER_Z1_GRID, reg=(0.001, 0.005, 0.05, 0.5)
) -> AlphaOptimumGrid:
    r"""Optimal :math:`\log\alpha_0` of binary instances for every label histogram, CPE and λ_α (App. D.2, Fig. 3).

    Each combination is one instance of :func:`~credalbook.papers.mimori.optimal_log_alpha0`
    (Newton's method on Eq. 51).

    Examples
    --------
    >>> g = optimal_log_alpha0_grid(n_labels=(2,), z1=(0.5,), reg=(0.005,))
    >>> bool(g.log_alpha0[2][0, 0, 0] < 0 < g.log_alpha0[2][0, 1, 0])   # unanimous vs split pair
    True
    """
    z1, reg = np.asarray(z1, dtype=float), np.asarray(reg, dtype=float)
    out = {}
    for n in n_labels:
        lam, y1, z = np.meshgrid(reg, np.arange(n + 1), z1, indexing="ij")
        hist = np.stack([y1.ravel(), n - y1.ravel()], axis=1)
        probs = np.stack([z.ravel(), 1 - z.ravel()], axis=1)
        out[int(n)] = optimal_log_alpha0(probs, hist, reg=lam.ravel()).reshape(lam.shape)
    return AlphaOptimumGrid(z1, reg, out)


@dataclass(frozen=True)
class Theorem1Check:
    """Monte-Carlo vs closed-form losses over ``alpha0`` for each scenario (see :func:`theorem1_check`).

    ``scenarios[name]`` holds u_q, s_z, el_g; dpe_mc, dpe_se, dpe_closed, post_mc, post_se,
    post_closed (arrays over alpha0; the last entry of ``alpha0`` is inf, the model without α);
    dpe_interval, post_interval (:class:`~credalbook.papers.mimori.Alpha0Interval`);
    dpe_argmin, post_argmin (the grid's Monte-Carlo minimisers).
    """

    alpha0: np.ndarray
    scenarios: dict = field(repr=False)


def theorem1_check(
    *,
    mean=(0.6, 0.3, 0.1),
    concentration: float = 4.0,
    predictions=None,
    n_draws: int = 200_000,
    alpha0=None,
    seed: int = 0,
) -> Theorem1Check:
    r"""Simulate one group G with :math:`Q \mid G \sim \mathrm{Dir}(a\,m)` and check Theorem 1.

    For each scenario's prediction Z (default: calibrated :math:`Z = m`, a flatter and a sharper
    one), draws Q, two labels (for :math:`\phi^D`) and one more label Y (for the posterior CPE
    :math:`Z' = \gamma Z + (1 - \gamma) Y`, Eq. 52) and estimates :math:`L_{\phi^D,G}` and
    :math:`\mathrm{EL}'_G` over a grid of :math:`\alpha_0`, next to Eqs. (57) and (67). With
    :math:`Z = m` both optima equal the true concentration :math:`a` (Eqs. 63, 72).

    Examples
    --------
    >>> c = theorem1_check(n_draws=20_000)
    >>> round(float(c.scenarios["calibrated Z"]["dpe_interval"].optimum), 6)
    4.0
    """
    m = np.asarray(mean, dtype=float)
    a = float(concentration)
    if predictions is None:
        predictions = {"calibrated Z": m, "flatter Z": np.sqrt(m) / np.sqrt(m).sum(), "sharper Z": m**2 / (m**2).sum()}
    grid = np.append(np.geomspace(0.1, 1000.0, 41), np.inf) if alpha0 is None else np.asarray(alpha0, dtype=float)
    with np.errstate(invalid="ignore"):
        gamma = np.where(np.isinf(grid), 1.0, grid / (grid + 1.0))
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(a * m, size=n_draws)
    cum = q.cumsum(axis=1)
    labels = [np.minimum((rng.uniform(size=(n_draws, 1)) > cum).sum(axis=1), len(m) - 1) for _ in range(3)]
    phi = (labels[0] != labels[1]).astype(float)
    y = np.eye(len(m))[labels[2]]
    var_q = m * (1 - m) / (a + 1)
    u_q = float((m**2 + var_q).sum())
    out = {}
    for name, z in predictions.items():
        z = np.asarray(z, dtype=float)
        s_z, el_g = float((z**2).sum()), float(((z - m) ** 2 + var_q).sum())
        # per α0: mean and standard error of the squared DPE error and of the posterior's squared distance to Q
        dpe = np.array([[(v := (phi - g * (1 - s_z)) ** 2).mean(), v.std()] for g in gamma])
        post = np.array([[(v := ((g * z + (1 - g) * y - q) ** 2).sum(axis=1)).mean(), v.std()] for g in gamma])
        out[name] = dict(
            u_q=u_q,
            s_z=s_z,
            el_g=el_g,
            dpe_mc=dpe[:, 0],
            dpe_se=dpe[:, 1] / math.sqrt(n_draws),
            dpe_closed=np.asarray(dpe_conditional_loss(grid, u_q=u_q, s_z=s_z)),
            post_mc=post[:, 0],
            post_se=post[:, 1] / math.sqrt(n_draws),
            post_closed=np.asarray(posterior_conditional_epistemic_loss(grid, u_q=u_q, el_g=el_g)),
            dpe_interval=dpe_alpha0_interval(u_q, s_z),
            post_interval=posterior_alpha0_interval(u_q, el_g),
            dpe_argmin=float(grid[np.argmin(dpe[:, 0])]),
            post_argmin=float(grid[np.argmin(post[:, 0])]),
        )
    return Theorem1Check(grid, out)
