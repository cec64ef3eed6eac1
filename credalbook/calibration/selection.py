r"""Hyper-parameter selection of the post-hoc calibrators by held-out NLL (Mimori et al., 2022, App. F.3).

:func:`select_calibrator` fits one :class:`credalbook.calibration.Calibrator` per candidate of a grid
(:data:`PAPER_CALIBRATOR_GRIDS`: the paper's L2 weights of vector scaling, Eq. 48, and the ODIR weights
of matrix scaling, Eq. 49) on the same 80 / 20 split and keeps the one with the lowest held-out
multinomial NLL (Eq. 84).

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022), App. F.3 (Eqs. 48-49, 84).
"""

from __future__ import annotations

import dataclasses

from credalbook._deprecation import renamed
from credalbook.calibration.fitting import _int_seed
from credalbook.calibration.scaling import Calibrator, CALIBRATORS

__all__ = ["PAPER_CALIBRATOR_GRIDS", "CalibratorSelection", "select_calibrator"]

#: Hyper-parameter candidates of Mimori et al. (2022), App. F.3.
PAPER_CALIBRATOR_GRIDS = {
    "ts": ({},),
    "vs": tuple({"lambda_b": b} for b in (0.1, 1.0, 10.0)),
    "ms": tuple({"lambda_b": b, "lambda_w": w} for b in (0.1, 1.0, 10.0) for w in (0.1, 1.0, 10.0)),
}


@dataclasses.dataclass(frozen=True)
class CalibratorSelection:
    """Outcome of :func:`select_calibrator`.

    Attributes
    ----------
    calibrator : Calibrator
        The fitted calibrator with the lowest held-out NLL.
    params : dict
        Its hyper-parameters.
    cv_nll : float
        Its held-out NLL (Eq. 84).
    table : tuple of (dict, float)
        Every candidate's hyper-parameters and held-out NLL, in grid order.
    """

    calibrator: Calibrator
    params: dict
    cv_nll: float
    table: tuple = dataclasses.field(repr=False)


@renamed(targets="labels")
def select_calibrator(logits, labels, *, method: str = "vs", grid=None, seed=None, **fit_kwargs) -> CalibratorSelection:
    """Fit one calibrator per hyper-parameter candidate and keep the best by held-out NLL.

    Every candidate is fitted by :meth:`Calibrator.fit` on the same 80 / 20 split (the same
    `seed`) and judged by the Eq. 84 NLL of the held-out 20 % without its penalty, as the paper
    selects "with respect to the best cv loss" (App. F.3). With the default optimiser each
    candidate minimises its penalised objective on the 80 % to convergence; the paper's Adam
    with early stopping on the 20 % (App. E.4) is ``optimizer="adam"``. The selected
    calibrator is the one fitted on the 80 %.

    .. math::

        \\hat\\lambda = \\arg\\min_{\\lambda \\in \\Lambda}
        \\mathcal L_{\\mathrm{cv}}\\big(\\hat\\theta_\\lambda\\big), \\qquad
        \\hat\\theta_\\lambda = \\arg\\min_\\theta \\mathcal L_{\\mathrm{train}}(\\theta)
        + \\Omega_\\lambda(\\theta)

    Parameters
    ----------
    logits : array-like, shape (N, K)
    labels : array-like, shape (N,) or (N, K)
        Labels or label histograms.
    method : {"ts", "vs", "ms"}, default="vs"
        Key of :data:`CALIBRATORS`.
    grid : sequence of dict or None, default=None
        Keyword arguments of the calibrator's constructor; ``None`` uses
        :data:`PAPER_CALIBRATOR_GRIDS` (vs: λ_b ∈ {0.1, 1, 10};
        ms: (λ_b, λ_w) ∈ {0.1, 1, 10}²).
    seed : None, int or numpy.random.Generator, default=None
        Seeds the split shared by all candidates (None draws one split for all of them).
    **fit_kwargs
        Passed to :meth:`Calibrator.fit`; ``cv_fraction`` (default 0.2, App. E.4) must be
        positive.

    Returns
    -------
    CalibratorSelection

    References
    ----------
    Mimori et al. (2022), Diagnostic Uncertainty Calibration, App. F.3 (Eqs. 48-49).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> logits = rng.normal(size=(300, 3)); labels = rng.integers(0, 3, size=300)
    >>> sel = select_calibrator(logits, labels, method="vs", seed=0)
    >>> len(sel.table), sel.params in [p for p, _ in sel.table]
    (3, True)
    """
    if method not in CALIBRATORS:
        raise ValueError(f"method must be one of {sorted(CALIBRATORS)}; got {method!r}")
    grid = PAPER_CALIBRATOR_GRIDS[method] if grid is None else tuple(grid)
    if not grid or not all(isinstance(g, dict) for g in grid):
        raise ValueError(f"grid must be a non-empty sequence of dicts; got {grid!r}")
    fit_kwargs.setdefault("cv_fraction", 0.2)
    if not fit_kwargs["cv_fraction"]:
        raise ValueError(
            "cv_fraction must be positive: candidates are compared on the held-out "
            f"part; got {fit_kwargs['cv_fraction']!r}"
        )
    seed = _int_seed(seed)  # one split for every candidate
    table, best = [], None
    for params in grid:
        cal = CALIBRATORS[method](**params).fit(logits, labels, seed=seed, **fit_kwargs)
        table.append((dict(params), cal.cv_nll_))
        if best is None or cal.cv_nll_ < best[2]:
            best = (cal, dict(params), cal.cv_nll_)
    return CalibratorSelection(*best, table=tuple(table))
