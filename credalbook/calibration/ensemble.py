r"""Temperature calibration of ensembles on stored member logits (Wu & Gales 2021, Sec. 4.2).

An ensemble of M members gives logits :math:`z^{(m)}(x)` of shape (N, M, K) and the combined
prediction :math:`\bar P(\omega \mid x) = \sum_m w_m \operatorname{softmax}(z^{(m)}(x))` (Eq. 17,
:math:`w_m = 1/M` unless combination weights are given). Three temperature-based calibrators,
each a :class:`credalbook.calibration.Calibrator` with ``logits_ndim = 3``:

- :class:`PreCombinationScaling` (Eq. 27, "pre"): one temperature per member, applied before the
  members are combined, :math:`P_{\mathrm{pre}} = \sum_m w_m \operatorname{softmax}(z^{(m)}/t_m)`;
  by default every :math:`t_m` is fitted to calibrate *its own member* (``fit_to="members"``),
  which is what "calibrating the members" means in the paper's Sec. 4.1 and Fig. 1; its "pre"
  rows of Tables 1 and 5 fit all :math:`t_m` to the ensemble's ECE (``fit_to="ensemble"``), the
  reading its CIFAR-100 LeNet numbers imply (see :mod:`credalbook.papers.wu_gales.experiments`);
- :class:`PostCombinationScaling` (Eq. 28, "post"): one temperature applied to the combined
  prediction, :math:`P_{\mathrm{post}} = \operatorname{softmax}(\log \bar P / t)`;
- :class:`DynamicTemperatureScaling` (Eq. 29, "dyn."): post-combination with R temperatures, the
  temperature of an instance chosen by the region :math:`\mathcal R_r` that contains the
  uncalibrated ensemble's max probability :math:`\max_j \bar P(\omega_j \mid x)` (R = 6 in
  Tables 1, 5 and 7).

All three keep the arg-max of every member (pre) or of the ensemble (post, dyn.), as temperature
scaling of one prediction does; pre-combination can change the ensemble's arg-max, because the
members are re-weighted against each other.

**Fitting.** By default the temperatures minimise the NLL of the calibrated prediction
(``criterion="nll"``, as Guo et al. fit temperature scaling) on all the given instances, to
convergence (``optimizer="auto"``): a bracketing scalar search on :math:`\log t` for the one
temperature of "post", full-batch L-BFGS for several temperatures (see
:meth:`~credalbook.calibration.Calibrator.fit`). The NLL of "post" and of each region of "dyn." is
convex in :math:`1/t`, and that of each member of "pre" too, so these are the global optima.

The paper's temperatures are optimised on the validation set "by minimizing ECE (Liang et al.,
2020), using SGD with learning rate of 0.1 for 400 iterations" (App. A.4, 15 bins):
``criterion="ece"`` with ``fit(..., optimizer="sgd")`` (:data:`PAPER_ENSEMBLE_FIT`) runs 400
full-batch steps of plain SGD with learning rate 0.1 on the log-temperatures (parameterised as
:math:`t = e^{\tau}`, started at t = 1) and keeps the last iterate, which need not be a minimum.
The hard-binned ECE is piecewise smooth, with jumps and many local minima about 1/N deep, so no
method reaches its global minimum cheaply; with ``criterion="ece"`` the default
``optimizer="auto"`` runs a bracketing scalar search for one temperature and cyclic scalar
searches over the log-temperatures for several (a coordinate-wise minimum; on the synthetic
ensembles of the tests its ECE is lower than that of the paper's SGD). ``optimizer="adam"`` or
``"lbfgs"`` hands the objective to the early-stopping loop of
:class:`~credalbook.calibration.Calibrator` (held-out split, early stopping on the held-out NLL).

**The ECE surrogate** (:func:`differentiable_ece`). The sample ECE of Eqs. 13-14,

.. math::

    \mathrm{ECE} = \frac1N \sum_{b=1}^{B} \Bigl| \sum_{i:\, c_i \in \mathcal B_b}
    (c_i - a_i) \Bigr|, \qquad c_i = \max_j P(\omega_j \mid x_i),\;
    a_i = \delta(y_i, \hat y_i),

is piecewise differentiable in the temperatures: the bin :math:`\mathcal B_b` of each
confidence only changes when a confidence crosses a bin edge. By default
(``bin_temperature=None``) the bins are recomputed from the current calibrated confidences at
every step and held constant for the gradient, so the objective *equals* the reported ECE
(:func:`credalbook.metrics.ece` with ``epsilon = 1/(2B)``) and its gradient is the
ECE's derivative wherever no confidence sits on an edge. With ``bin_temperature = s > 0`` the hard
bins are replaced by soft memberships :math:`u_{ib} = \operatorname{softmax}_b(-(c_i -
\mu_b)^2 / s)` around the bin centres :math:`\mu_b = (b - 1/2)/B`, a smooth approximation that
tends to the hard ECE as :math:`s \to 0`. The cited Liang et al. (2020) penalise the DCA,
:math:`|\frac1N\sum_i (c_i - a_i)|`, which is the one-bin case ``n_bins=1`` (Eq. 16).

**Regions of the dynamic temperatures.** The paper divides the validation samples "into R regions
based on the ensemble predictions" and gives equal-width intervals as an example
([0, 0.3), [0.3, 0.6), [0.6, 1]). We default to ``regions="equal_mass"``: the R - 1 inner edges
are the quantiles of the uncalibrated ensemble max probability on the fitting data, so each
temperature is fitted on about N/R instances. With over-confident networks most max probabilities
lie close to 1 and equal-width regions would leave the low regions nearly empty (a temperature
without instances stays at 1). ``regions="equal_width"`` (R intervals of [0, 1]) and explicit
inner edges (e.g. ``regions=(0.3, 0.6)`` for the paper's example) are available.

:func:`credalbook.papers.wu_gales.temperature_sweep` gives the curves of Fig. 1: the ECE and accuracy of the members and of
the ensemble against one temperature shared by all members, and the optimal temperatures.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4.2 (Eqs. 27-29),
Fig. 1, Tables 1, 5, 7 and App. A.4.
Guo, Pleiss, Sun, Weinberger. On calibration of modern neural networks. ICML 2017.
Liang, Zhang, Jacobs. Neural network calibration for medical imaging classification using DCA
regularization. ICML UDL workshop 2020.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from credalbook._deprecation import renamed
from credalbook._validation import (
    as_numpy,
    check_choice,
    check_logits,
    check_n_bins,
    check_positive_int,
    check_real_dtype,
    check_weights,
)
from credalbook.calibration.fitting import _check_real
from credalbook.calibration.scaling import _hist_nll, Calibrator, TemperatureScaling
from credalbook.metrics.differentiable import differentiable_ece  # noqa: F401 - re-exported by credalbook.calibration
from credalbook.metrics.differentiable import ece_surrogate as _ece_surrogate
from credalbook.metrics.label_hist import as_label_hist_tensor
from credalbook.nn.loop import train_loop

__all__ = [
    "ENSEMBLE_CALIBRATORS",
    "PAPER_ENSEMBLE_FIT",
    "PAPER_N_REGIONS",
    "DynamicTemperatureScaling",
    "PostCombinationScaling",
    "PreCombinationScaling",
]

#: The optimiser of App. A.4: plain SGD, learning rate 0.1, 400 iterations (on log t here).
PAPER_ENSEMBLE_FIT = {"optimizer": "sgd", "lr": 0.1, "n_iter": 400}
#: Number of region-specific temperatures of "dyn." in Tables 1, 5 and 7.
PAPER_N_REGIONS = 6

_ENSEMBLE_OPTIMIZERS = ("auto", "sgd", "adam", "lbfgs")
_CRITERIA = ("ece", "nll")
_FIT_TO = ("members", "ensemble")
_REGION_RULES = ("equal_mass", "equal_width")


# ------------------------------------------------------------------------------ base class
class _EnsembleTemperature(Calibrator):
    """Shared machinery: member logits (N, M, K), combination weights, criteria and the SGD loop."""

    logits_ndim = 3

    def __init__(
        self, *, criterion: str = "nll", n_bins: int = 15, bin_temperature: float | None = None, weights=None
    ) -> None:
        super().__init__()
        self.criterion = check_choice(criterion, "criterion", _CRITERIA)
        self.n_bins = check_n_bins(n_bins)
        self.bin_temperature = (
            None if bin_temperature is None else _check_real(bin_temperature, "bin_temperature", low=0.0, low_open=True)
        )
        self.weights = (
            None
            if weights is None
            else check_real_dtype(as_numpy(weights, "weights"), "weights", allow_bool=False).astype(np.float64)
        )
        if self.weights is not None and self.weights.ndim != 1:
            raise ValueError(f"weights must have shape (M,); got {self.weights.shape}")
        self.n_members_: int | None = None
        self._memo = None  # (member logits, combined log-probabilities), only while fitting

    # ---- set-up from the fitting data (before _build) ---------------------------------------
    def _setup(self, z: torch.Tensor) -> None:
        m = z.shape[1]
        w = np.full(m, 1.0 / m) if self.weights is None else check_weights(self.weights, m)
        log_w = torch.log(torch.from_numpy(np.clip(w, 0.0, None)))
        self.register_buffer("log_weights", log_w.to(torch.float64))
        self.n_members_ = m

    def _combine(self, member_log_probs: torch.Tensor) -> torch.Tensor:
        """log Σ_m w_m P_m from member log-probabilities (N, M, K) -> (N, K)."""
        return torch.logsumexp(member_log_probs + self.log_weights[:, None], dim=1)

    def _uncalibrated(self, logits: torch.Tensor) -> torch.Tensor:
        """log of the uncalibrated combined prediction (N, K); memoised during fitting."""
        if self._memo is not None and self._memo[0] is logits:
            return self._memo[1]
        value = self._combine(torch.log_softmax(logits, dim=-1))
        if self._memo is not None:
            self._memo = (logits, value)
        return value

    @property
    def _smooth_objective(self) -> bool:  # the hard-binned ECE is only piecewise smooth
        return self.criterion == "nll"

    def _criterion(self, log_probs: torch.Tensor, hist: torch.Tensor) -> torch.Tensor:
        if self.criterion == "nll":
            return _hist_nll(log_probs, hist)
        return _ece_surrogate(torch.exp(log_probs), hist, self.n_bins, self.bin_temperature)

    def objective(self, logits: torch.Tensor, label_hist: torch.Tensor) -> torch.Tensor:
        """ECE surrogate or NLL of the calibrated ensemble prediction (differentiable)."""
        return self._criterion(self.log_predict(logits), label_hist) + self.penalty()

    # ---- fitting -----------------------------------------------------------------------------
    @renamed(targets="labels")
    def fit(
        self,
        logits,
        labels,
        *,
        optimizer: str = "auto",
        lr: float | None = None,
        n_iter: int | None = None,
        **fit_kwargs,
    ):
        """Fit the temperatures on stored member logits (N, M, K) and labels; returns ``self``.

        Parameters
        ----------
        logits : array-like or torch.Tensor, shape (N, M, K)
            Member logits on the validation set.
        labels : array-like, shape (N,) or (N, K)
            Labels or label histograms.
        optimizer : {"auto", "sgd", "adam", "lbfgs"}, default="auto"
            ``"auto"``: minimise the criterion on all instances to convergence
            (:meth:`Calibrator.fit`; see the module docstring for the method used).
            ``"sgd"``: `n_iter` full-batch steps of plain SGD on all instances, keeping the last
            iterate (App. A.4). ``"adam"``/``"lbfgs"``: the early-stopping loop of
            :meth:`Calibrator.fit` (held-out split, early stopping on the held-out NLL).
        lr : float or None, default=None
            Learning rate of ``"sgd"``, ``"adam"`` and ``"lbfgs"``; None gives 0.1 for SGD
            (App. A.4) and the base class's defaults.
        n_iter : int or None, default=None
            SGD iterations (``"sgd"`` only); None gives 400 (App. A.4).
        **fit_kwargs
            Passed to :meth:`Calibrator.fit`: ``max_iter``, ``tol``, ``cv_fraction`` for
            ``"auto"``; ``max_epochs``, ``cv_fraction``, ... for ``"adam"``/``"lbfgs"``; not
            allowed with ``"sgd"``.

        Returns
        -------
        self
            With ``n_classes_``, ``n_members_``, ``n_iter_`` and ``history_``; for SGD entry k
            holds the objective after k steps (``epoch`` = k = 0, ..., `n_iter`; ``cv_nll`` is
            NaN).

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            ``"auto"`` stopped at its iteration limit before convergence.
        """
        if not isinstance(optimizer, str) or optimizer.lower() not in _ENSEMBLE_OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {_ENSEMBLE_OPTIMIZERS}; got {optimizer!r}")
        optimizer = optimizer.lower()
        z = check_logits(logits, ndim=3)
        hist = as_label_hist_tensor(labels, z.shape[0], z.shape[-1])
        self._setup(z)
        self._memo = (None, None)
        try:
            if optimizer != "sgd":
                if n_iter is not None:
                    raise ValueError(
                        f"n_iter sets the steps of optimizer='sgd' (App. A.4); got "
                        f"n_iter={n_iter!r} with optimizer={optimizer!r}"
                        + ("; use max_iter" if optimizer == "auto" else "")
                    )
                return super().fit(z, hist.to(torch.int64).numpy(), optimizer=optimizer, lr=lr, **fit_kwargs)
            if fit_kwargs:
                raise ValueError(f"{sorted(fit_kwargs)} apply only to optimizer='auto', 'adam' or 'lbfgs'")
            lr = 0.1 if lr is None else _check_real(lr, "lr", low=0.0, low_open=True)
            n_iter = check_positive_int(400 if n_iter is None else n_iter, "n_iter")
            self._build(z.shape[-1])
            self.n_classes_ = z.shape[-1]
            self.to(torch.float64)
            opt = torch.optim.SGD([p for p in self.parameters() if p.requires_grad], lr=lr)

            def sgd_step(epoch: int) -> dict:  # records the objective before step epoch + 1
                opt.zero_grad(set_to_none=True)
                loss = self.objective(z, hist)
                if not bool(torch.isfinite(loss)):
                    raise FloatingPointError(
                        f"the objective became {loss.item()} at step {epoch + 1}; lower lr (={lr})"
                    )
                loss.backward()
                opt.step()
                return {"train_loss": float(loss.detach()), "cv_nll": math.nan}

            history = train_loop(sgd_step, range(n_iter))
            with torch.no_grad():
                history.append({"epoch": n_iter, "train_loss": float(self.objective(z, hist)), "cv_nll": math.nan})
            self.history_, self.best_epoch_, self.cv_nll_ = history, n_iter, math.nan
            self.n_iter_ = n_iter
            return self
        finally:
            self._memo = None

    def _prepared(self, logits) -> torch.Tensor:
        z = super()._prepared(logits)
        if z.shape[1] != self.n_members_:
            raise ValueError(f"logits must have {self.n_members_} members like the fitting data; got {z.shape[1]}")
        return z


# ------------------------------------------------------------------------------ calibrators
class _TemperatureVector:
    """A vector of log-temperatures: one per member (pre-combination) or per region (dynamic)."""

    _log_scale_parameters = True

    def _n_temperatures(self) -> int:
        raise NotImplementedError

    def _build(self, n_classes: int) -> None:
        self.log_t = nn.Parameter(torch.zeros(self._n_temperatures(), dtype=torch.float64))

    @property
    def temperatures(self) -> np.ndarray:
        """The fitted temperatures: one per member :math:`t_m`, shape (M,), or per region
        :math:`t_1, \\dots, t_R`, shape (R,)."""
        self._check_fitted()
        return torch.exp(self.log_t.detach()).numpy().copy()


class PreCombinationScaling(_TemperatureVector, _EnsembleTemperature):
    r"""Pre-combination temperature scaling: one temperature per member (Eq. 27, "pre").

    .. math::

        P_{\mathrm{pre}}(\omega \mid x) = \sum_{m=1}^M w_m
        \operatorname{softmax}\bigl(z^{(m)}(x) / t_m\bigr)

    With ``fit_to="members"`` (default) each :math:`t_m` minimises the criterion of *its own*
    calibrated member (the objective is the sum over members, whose gradient in :math:`t_m` is
    that of member m alone), as when the members are calibrated before they are combined; with
    ``fit_to="ensemble"`` all temperatures minimise the criterion of the combined prediction.
    ``predict_logits`` returns the calibrated member logits (N, M, K); ``predict_proba`` the
    combined prediction (N, K). With M = 1 this is :class:`~credalbook.calibration.TemperatureScaling`.

    Parameters
    ----------
    fit_to : {"members", "ensemble"}, default="members"
        What each temperature is fitted to: its own calibrated member, or the combined prediction.
    criterion : {"nll", "ece"}, default="nll"
        Objective: the NLL of the calibrated prediction, or the ECE of
        :func:`differentiable_ece` (the paper's, App. A.4; see the module docstring on fitting
        it).
    n_bins : int, default=15
    bin_temperature : float or None, default=None
        See :func:`differentiable_ece`.
    weights : array-like of shape (M,) or None, default=None
        Combination weights on the simplex; None for 1/M.

    References
    ----------
    Wu & Gales (2021), Eq. 27, Table 1 ("pre") and App. A.4.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = 2 * rng.normal(size=(3000, 4))                    # labels drawn from softmax(s)
    >>> y = np.array([rng.choice(4, p=np.exp(r) / np.exp(r).sum()) for r in s])
    >>> z = s[:, None, :] * np.array([1.0, 2.0, 4.0])[:, None]  # members 1, 2, 4 times too sharp
    >>> pre = PreCombinationScaling().fit(z, y)                # NLL, to convergence
    >>> (pre.temperatures / pre.temperatures[0]).round(2).tolist()   # t_m = c_m t_1 at the optimum
    [1.0, 2.0, 4.0]
    """

    @renamed(target="fit_to")
    def __init__(
        self,
        *,
        fit_to: str = "members",
        criterion: str = "nll",
        n_bins: int = 15,
        bin_temperature: float | None = None,
        weights=None,
    ) -> None:
        super().__init__(criterion=criterion, n_bins=n_bins, bin_temperature=bin_temperature, weights=weights)
        self.fit_to = check_choice(fit_to, "fit_to", _FIT_TO)

    def _n_temperatures(self) -> int:
        return self.n_members_

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        """Calibrated member logits :math:`z^{(m)} / t_m`, shape (N, M, K)."""
        return logits * torch.exp(-self.log_t)[:, None]

    def log_predict(self, logits: torch.Tensor) -> torch.Tensor:
        return self._combine(torch.log_softmax(self.transform(logits), dim=-1))

    def objective(self, logits: torch.Tensor, label_hist: torch.Tensor) -> torch.Tensor:
        if self.fit_to == "ensemble":
            return super().objective(logits, label_hist)
        # Σ_m criterion(member m): the gradient in t_m is that of member m alone
        member = torch.log_softmax(self.transform(logits), dim=-1)
        if self.criterion == "nll":
            return _hist_nll(member, label_hist[:, None, :])
        return _ece_surrogate(torch.exp(member), label_hist, self.n_bins, self.bin_temperature)


class PostCombinationScaling(_EnsembleTemperature, TemperatureScaling):
    r"""Post-combination temperature scaling: one temperature on the ensemble (Eq. 28, "post").

    .. math::

        P_{\mathrm{post}}(\omega \mid x) = \operatorname{softmax}\bigl(\log \bar P(\omega \mid x)
        / t\bigr), \qquad \bar P = \sum_{m=1}^M w_m \operatorname{softmax}(z^{(m)})

    The log-probabilities of the combined prediction act as its logits (any constant shift
    cancels in the softmax), so the arg-max, and the accuracy, of the ensemble are unchanged.
    ``predict_logits`` returns :math:`\log \bar P / t` (N, K).

    Parameters
    ----------
    criterion, n_bins, bin_temperature, weights
        As in :class:`PreCombinationScaling`.

    References
    ----------
    Wu & Gales (2021), Eq. 28, Tables 1, 2, 5-7 ("post") and App. A.4.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = 3 * rng.normal(size=(2000, 1, 3))                       # one member, t = 2 is right
    >>> p = np.exp(z[:, 0] / 2); p /= p.sum(1, keepdims=True)
    >>> y = np.array([rng.choice(3, p=row) for row in p])
    >>> post = PostCombinationScaling().fit(z, y)
    >>> bool(abs(post.temperature - 2) < 0.2)
    True
    """

    # _build (one log-temperature) and the ``temperature`` property come from TemperatureScaling

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        """Calibrated ensemble logits :math:`\\log \\bar P / t`, shape (N, K)."""
        return self._uncalibrated(logits) * torch.exp(-self.log_t)


class DynamicTemperatureScaling(_TemperatureVector, _EnsembleTemperature):
    r"""Dynamic (region-specific) post-combination temperature scaling (Eq. 29, "dyn.").

    .. math::

        P_{\mathrm{dyn}}(\omega \mid x) = \operatorname{softmax}\bigl(\log \bar P(\omega \mid x)
        / t_r\bigr) \quad \text{if} \quad \max_j \bar P(\omega_j \mid x) \in \mathcal R_r,
        \qquad r = 1, \dots, R,

    with regions :math:`\mathcal R_r = [e_{r-1}, e_r)` (the last one closed) of the *uncalibrated*
    ensemble max probability, :math:`e_0 = 0`, :math:`e_R = 1`. The region of an instance does
    not depend on the temperatures, each instance is scaled by one temperature, so rows still sum
    to one and the arg-max is kept. With R = 1 this is :class:`PostCombinationScaling`.

    Parameters
    ----------
    n_regions : int, default=6
        R (the paper's 6); ignored when `regions` gives the edges.
    regions : {"equal_mass", "equal_width"} or sequence of float, default="equal_mass"
        ``"equal_mass"``: inner edges at the ``r / R`` quantiles of the max probability on the
        fitting data (see the module docstring for why); ``"equal_width"``: edges ``r / R``;
        a sequence: the increasing inner edges in (0, 1), e.g. ``(0.3, 0.6)`` for the paper's
        three-region example (R = len + 1).
    criterion, n_bins, bin_temperature, weights
        As in :class:`PreCombinationScaling`.

    Attributes
    ----------
    region_edges_ : numpy.ndarray, shape (R + 1,)
        :math:`e_0 = 0, \dots, e_R = 1` after fitting.

    References
    ----------
    Wu & Gales (2021), Eq. 29, Sec. 4.2, Fig. 3, Tables 1, 5 and 7 ("dyn.").

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = 2 * rng.normal(size=(1000, 2, 3))
    >>> p = np.exp(z) / np.exp(z).sum(2, keepdims=True)
    >>> y = p.mean(1).argmax(1)                     # the ensemble is always right: under-confident
    >>> dyn = DynamicTemperatureScaling(3, regions="equal_width", criterion="ece").fit(z, y)
    >>> dyn.region_edges_.round(3).tolist()
    [0.0, 0.333, 0.667, 1.0]
    >>> np.bincount(dyn.region_index(z), minlength=3).tolist()   # no max probability below 1/3
    [0, 744, 256]
    >>> bool((dyn.predict_proba(z).argmax(1) == y).all()), bool((dyn.temperatures[1:] < 1).all())
    (True, True)
    """

    def __init__(
        self,
        n_regions: int = PAPER_N_REGIONS,
        *,
        regions="equal_mass",
        criterion: str = "nll",
        n_bins: int = 15,
        bin_temperature: float | None = None,
        weights=None,
    ) -> None:
        super().__init__(criterion=criterion, n_bins=n_bins, bin_temperature=bin_temperature, weights=weights)
        if isinstance(regions, str):
            self.regions = check_choice(regions, "regions", _REGION_RULES)
            self.n_regions = check_positive_int(n_regions, "n_regions")
        else:
            edges = as_numpy(regions, "regions").astype(np.float64)
            if (
                edges.ndim != 1
                or not np.all(np.isfinite(edges))
                or np.any(edges <= 0)
                or np.any(edges >= 1)
                or np.any(np.diff(edges) <= 0)
            ):
                raise ValueError(
                    f"regions given as edges must be a 1-d increasing sequence of numbers in (0, 1); got {regions!r}"
                )
            self.regions = edges
            self.n_regions = len(edges) + 1
        self.region_edges_: np.ndarray | None = None

    def _confidence(self, logits: torch.Tensor) -> torch.Tensor:
        return torch.exp(self._uncalibrated(logits).max(dim=-1).values)

    def _setup(self, z: torch.Tensor) -> None:
        super()._setup(z)
        r = self.n_regions
        if isinstance(self.regions, np.ndarray):
            inner = self.regions
        elif self.regions == "equal_width":
            inner = np.arange(1, r) / r
        else:
            with torch.no_grad():
                conf = self._confidence(z).numpy()
            inner = np.quantile(conf, np.arange(1, r) / r)
        self.register_buffer("inner_edges", torch.from_numpy(np.array(inner, dtype=np.float64)))
        self.region_edges_ = np.concatenate([[0.0], inner, [1.0]])

    def _n_temperatures(self) -> int:
        return self.n_regions

    def _region_ids(self, logits: torch.Tensor) -> torch.Tensor:
        conf = self._confidence(logits)
        if self.inner_edges.numel() == 0:
            return torch.zeros(conf.shape, dtype=torch.int64)
        return torch.bucketize(conf.detach(), self.inner_edges, right=True)

    @torch.no_grad()
    def region_index(self, logits) -> np.ndarray:
        """Region r (0-based) of each instance, from the uncalibrated ensemble max probability."""
        return self._region_ids(self._prepared(logits)).numpy()

    def transform(self, logits: torch.Tensor) -> torch.Tensor:
        """Calibrated ensemble logits :math:`\\log \\bar P / t_{r(x)}`, shape (N, K)."""
        return self._uncalibrated(logits) * torch.exp(-self.log_t)[self._region_ids(logits)][:, None]


#: Ensemble calibrators by the labels of the paper's tables.
ENSEMBLE_CALIBRATORS = {"pre": PreCombinationScaling, "post": PostCombinationScaling, "dyn": DynamicTemperatureScaling}
