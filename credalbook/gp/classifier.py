r"""Large-scale binary Gaussian-process classification with GPyTorch (inducing points, minibatches).

The model of the EU paper (anonymous AISTATS 2023 submission, Sec. 3.1):

.. math::

    y_i = 1(g_i + \epsilon_i > 0), \quad \epsilon_i \sim \mathrm{logistic}(0, 1), \qquad
    \mathbf g \sim \mathcal N(\mathbf 0, \mathbf K), \quad K_{ij} = k(x_i, x_j),

i.e. :math:`p(y_i = 1|g_i) = \sigma(g_i)`, a Bernoulli likelihood with the logistic link, with a
zero-mean GP prior and the kernel :math:`k = s^2 \exp(-\lVert x - x'\rVert^2 / 2\ell^2)` (RBF with an
output scale; optionally one length scale per input dimension). The paper (Sec. 5.1) uses "the
GPyTorch implementation of the method in (Wenzel et al., 2019)", i.e. sparse variational inference
with :math:`m` inducing points (Hensman et al., 2015) and Pólya-Gamma augmentation. GPyTorch ships
no Pólya-Gamma likelihood: its documentation example ("Using Pòlya-Gamma Auxiliary Variables for
Binary Classification") defines one. This module implements the same idea:

* ``likelihood="polya_gamma"`` (default, the paper's method). With the optimal Gaussian-conditional
  Pólya-Gamma factor :math:`q(\omega_i) = \mathrm{PG}(1, c_i)`, :math:`c_i^2 = E_q[g_i^2]` (Wenzel et
  al. 2019, Eq. 11), the expected log-likelihood term of the ELBO is

  .. math::

      \log\sigma(c_i) - \frac{c_i}{2} + \frac{\tilde y_i\,E_q[g_i]}{2}
      - \frac{\tanh(c_i/2)}{4c_i}\bigl(E_q[g_i^2] - c_i^2\bigr), \qquad \tilde y_i = 2y_i - 1,

  the Jaakkola-Jordan bound on :math:`E_q[\log\sigma(\tilde y_i g_i)]` (the augmented bound at the
  optimal :math:`q(\omega)` equals it; Durante & Rigon, 2019). As in GPyTorch's example, :math:`c_i`
  is the closed-form update and is not differentiated; unlike the example, the terms that depend
  only on :math:`c_i` are kept, so the reported ELBO is a true lower bound.
* ``likelihood="bernoulli_logit"``: the exact expected log-likelihood
  :math:`E_q[\log\sigma(\tilde y_i g_i)]` by GPyTorch's 20-node Gauss-Hermite quadrature.

Both maximise GPyTorch's :class:`~gpytorch.mlls.VariationalELBO` on minibatches. By default Adam
trains all parameters (variational mean and Cholesky factor of :math:`q(\mathbf u) = \mathcal
N(\mathbf m, \mathbf S)`, inducing locations, kernel hyper-parameters); with
``natural_gradient=True`` :math:`q(\mathbf u)` takes natural-gradient steps instead, as in GPyTorch's
Pólya-Gamma example, and Adam trains the rest. The paper's supplement (with its hyper-parameters) is
not available; the EU chapter's presets use natural gradients, which converge in far fewer epochs
with thousands of inducing points.

Design choices where the paper is silent: zero prior mean (as in Sec. 3.1); RBF kernel with output
scale, initial length scale and output scale GPyTorch's defaults unless given; the inducing points
start at ``n_inducing`` training inputs drawn without replacement from ``seed``; constant learning
rate; float32 by default (float64 on request).

Results are plain data (:class:`GPClassifierFit`: the CPU state dict, the configuration, the ELBO
history) so that fits can be cached on disk (:data:`fit_gp_classifier_cached`) and the model rebuilt
on any device.

References
----------
Anonymous. The Evaluation and Calibration of Epistemic Uncertainty Estimates. AISTATS 2023
submission, Secs. 3.1 and 5.1. Wenzel, Galy-Fajou, Donner, Kloft, Opper. Efficient Gaussian process
classification using Pólya-Gamma data augmentation. AAAI 2019. Hensman, Matthews, Ghahramani.
Scalable variational Gaussian process classification. AISTATS 2015. Jaakkola & Jordan. Bayesian
parameter estimation via variational methods. Statistics and Computing, 2000. Durante & Rigon.
Conditionally conjugate mean-field variational Bayes for logistic models. Statistical Science, 2019.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import gpytorch
import linear_operator
import numpy as np
import torch

from credalbook._config import resolve_config
from credalbook._validation import as_numpy, check_choice, check_positive_int
from credalbook.cache import as_checkpoint, cached, load_checkpoint, restore_rng_states, rng_states, save_checkpoint
from credalbook.gp._model import (  # noqa: F401  (the GPyTorch pieces, importable from here as before)
    _build,
    _CholeskySolve,
    _DTYPES,
    _exp_underflowing,
    _flush_denormals,
    _flushing_denormals,
    _LogitBernoulliLikelihood,
    _PolyaGammaLikelihood,
    _UnderflowRBFKernel,
)
from credalbook.metrics.uncertainty import eu_estimates, EUEstimates
from credalbook.nn.device import resolve_device
from credalbook.nn.loop import LambdaCallback, train_loop

__all__ = [
    "GP_LIKELIHOODS",
    "GPClassifierFit",
    "GPConfig",
    "LatentPredictive",
    "fit_gp_classifier",
    "fit_gp_classifier_cached",
]

#: Likelihood options of :func:`fit_gp_classifier` (both use the logistic link).
GP_LIKELIHOODS = ("polya_gamma", "bernoulli_logit")

#: Jittered Cholesky attempts (:func:`linear_operator.utils.cholesky.psd_safe_cholesky`) before a fit or prediction
#: gives up: 1e-8, 1e-7, ... up to 1e-3 added to the diagonal of :math:`\mathbf K_{uu}` (float64, the Cholesky's
#: precision) instead of GPyTorch's 3 (up to 1e-6). A float32 kernel matrix of 2 048 inducing points is off by
#: rounding errors of about 1e-4 in its eigenvalues: on the EU paper's toy data (seed 5, "train_2"), step 146 met a
#: :math:`\mathbf K_{uu}` whose smallest eigenvalue was -2.3e-5 with GPyTorch's jitter of 1e-4 in it, and 1e-4 more
#: made it factor. Only a matrix that GPyTorch's 3 attempts fail to factor gets more: every fit they serve is the
#: same bit for bit.
CHOLESKY_MAX_TRIES = 6


# ------------------------------------------------------------------------------ GPyTorch pieces
def _cholesky_retries():
    """The block's jittered Cholesky factorisations try :data:`CHOLESKY_MAX_TRIES` times (or more, when the caller's
    ``linear_operator.settings.cholesky_max_tries`` says so) before they fail."""
    tries = max(CHOLESKY_MAX_TRIES, linear_operator.settings.cholesky_max_tries.value())
    return linear_operator.settings.cholesky_max_tries(tries)


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class LatentPredictive:
    r"""Latent predictive :math:`p(g_*|\mathbf y) \approx \mathcal N(\mu_*, \sigma_*^2)` at test points (N,)."""

    mean: np.ndarray
    variance: np.ndarray

    @property
    def std(self) -> np.ndarray:
        return np.sqrt(self.variance)


@dataclass(frozen=True)
class GPClassifierFit:
    r"""A trained variational GP classifier as plain data (picklable, cacheable).

    Attributes
    ----------
    state_dict : dict of str to torch.Tensor
        GPyTorch model parameters and buffers, on the CPU.
    config : dict
        Everything needed to rebuild the model and the training configuration: ``input_dim``,
        ``n_train``, ``n_inducing``, ``likelihood``, ``ard``, ``dtype``, ``epochs``, ``batch_size``,
        ``lr``, ``lengthscale``, ``outputscale``, ``seed``.
    history : tuple of float
        Mean minibatch ELBO per training point, one value per epoch (higher is better).
    seconds : float
        Training wall-clock time.
    """

    state_dict: dict = field(repr=False)
    config: dict
    history: tuple = field(repr=False)
    seconds: float

    def build(self, device="cpu"):
        """Rebuild ``(model, likelihood)`` in eval mode on `device` from the state dict."""
        dev = resolve_device(device)
        cfg = self.config
        placeholder = torch.zeros(cfg["n_inducing"], cfg["input_dim"], dtype=_DTYPES[cfg["dtype"]])
        model, likelihood = _build(cfg, placeholder)
        model.load_state_dict(self.state_dict)
        return model.to(dev).eval(), likelihood.to(dev).eval()

    def latent(self, x, *, device="auto", batch_size: int = 4096, flush_denormals: bool = True) -> LatentPredictive:
        r"""Latent predictive mean :math:`\mu_*` and variance :math:`\sigma_*^2` at inputs `x` (N, D).

        .. math::

            p(g_*|\mathbf y) \approx \int p(g_*|\mathbf u)\, q(\mathbf u)\, d\mathbf u
            = \mathcal N(g_*|\mu_*, \sigma_*^2)

        (EU paper, Sec. 3.1, with the inducing-point posterior :math:`q(\mathbf u)` in place of
        :math:`\mathcal N(\mathbf g|\boldsymbol\mu, \boldsymbol\Sigma)`). Computed batch by batch; on the CPU with
        denormal floats flushed to zero unless ``flush_denormals=False`` (see :func:`fit_gp_classifier`).
        """
        batch_size = check_positive_int(batch_size, "batch_size")
        _check_flag(flush_denormals, "flush_denormals")
        dev = resolve_device(device)
        xt = _as_inputs(x, "x", dtype=_DTYPES[self.config["dtype"]])
        if xt.shape[1] != self.config["input_dim"]:
            raise ValueError(
                f"x must have {self.config['input_dim']} columns like the training inputs; got shape {tuple(xt.shape)}"
            )
        model, _ = self.build(dev)
        means, variances = [], []
        with torch.no_grad(), _flush_denormals(flush_denormals and dev.type == "cpu"), _cholesky_retries():
            for s in range(0, xt.shape[0], batch_size):
                out = model(xt[s : s + batch_size].to(dev))
                means.append(out.mean.double().cpu())
                variances.append(out.variance.double().cpu())
        return LatentPredictive(mean=torch.cat(means).numpy(), variance=torch.cat(variances).clamp_min(0).numpy())

    def eu_estimates(
        self,
        x,
        *,
        method: str = "mc",
        n_samples: int = 1000,
        n_points: int = 64,
        seed=0,
        device="auto",
        batch_size: int = 4096,
    ) -> EUEstimates:
        r"""Predictive probability, :math:`\hat{\mathcal E}_E` and :math:`\hat{\mathcal E}_M` at `x`.

        See :func:`credalbook.metrics.eu_estimates` (Monte Carlo over the latent by default, as in the paper).
        """
        lat = self.latent(x, device=device, batch_size=batch_size)
        return eu_estimates(lat.mean, lat.variance, method=method, n_samples=n_samples, n_points=n_points, seed=seed)

    def predict_proba(
        self,
        x,
        *,
        method: str = "quadrature",
        n_samples: int = 1000,
        n_points: int = 64,
        seed=0,
        device="auto",
        batch_size: int = 4096,
    ) -> np.ndarray:
        r""":math:`p(y_*=1|\mathbf y) = \int\sigma(g)\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg`, shape (N,).

        ``method="quadrature"`` (default, deterministic) or ``"mc"``; see :func:`credalbook.metrics.eu_estimates`.
        """
        return self.eu_estimates(
            x, method=method, n_samples=n_samples, n_points=n_points, seed=seed, device=device, batch_size=batch_size
        ).prob

    def predict(self, x, *, device="auto", batch_size: int = 4096) -> np.ndarray:
        r""":math:`\hat f_{GP}(x_*) = \arg\max_y p(y_*|\mathbf y) = 1[\mu_* > 0]`, int64 (N,)."""
        return (self.latent(x, device=device, batch_size=batch_size).mean > 0).astype(np.int64)


# ------------------------------------------------------------------------------ training
def _as_inputs(x, name: str, *, dtype) -> torch.Tensor:
    arr = as_numpy(x, name)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have shape (N, D) with N, D >= 1; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        i = tuple(int(v) for v in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; {name}[{i[0]}, {i[1]}] = {arr[i]}")
    return torch.as_tensor(np.ascontiguousarray(arr), dtype=dtype)


def _check_flag(value, name: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def _positive_float(value, name: str, *, allow_none: bool = False):
    if value is None and allow_none:
        return None
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a finite number > 0{' or None' if allow_none else ''}; got {value!r}")
    return float(value)


@dataclass(frozen=True)
class GPConfig:
    """The model and the training of :func:`fit_gp_classifier` (its options; see its Parameters).

    ``fit_gp_classifier(x, y, n_inducing=16, epochs=30)`` and
    ``fit_gp_classifier(x, y, config=GPConfig(n_inducing=16, epochs=30))`` run the same fit; the run's
    `seed`, `device`, `progress`, `checkpoint` and `flush_denormals` stay arguments of the function.

    Examples
    --------
    >>> GPConfig(n_inducing=16, lr=1).checked().lr
    1.0
    """

    n_inducing: int = 100
    epochs: int = 10
    batch_size: int = 1024
    lr: float = 0.01
    likelihood: str = "polya_gamma"
    ard: bool = False
    lengthscale: float | None = None
    outputscale: float | None = None
    dtype: str = "float32"
    natural_gradient: bool = False
    ngd_lr: float = 0.1
    fast_step: bool = False

    def checked(self) -> GPConfig:
        """A copy with every field checked (``ValueError`` naming it); numbers as Python int / float."""
        n_inducing = check_positive_int(self.n_inducing, "n_inducing")
        epochs = check_positive_int(self.epochs, "epochs")
        batch_size = check_positive_int(self.batch_size, "batch_size")
        lr = _positive_float(self.lr, "lr")
        lengthscale = _positive_float(self.lengthscale, "lengthscale", allow_none=True)
        outputscale = _positive_float(self.outputscale, "outputscale", allow_none=True)
        check_choice(self.likelihood, "likelihood", GP_LIKELIHOODS)
        check_choice(self.dtype, "dtype", tuple(_DTYPES))
        ngd_lr = _positive_float(self.ngd_lr, "ngd_lr")
        for name in ("natural_gradient", "fast_step", "ard"):
            _check_flag(getattr(self, name), name)
        return replace(
            self,
            n_inducing=n_inducing,
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            lengthscale=lengthscale,
            outputscale=outputscale,
            ngd_lr=ngd_lr,
        )

    def record(self, *, input_dim: int, n_train: int, seed: int) -> dict:
        """The ``config`` of the :class:`GPClassifierFit` (and of its checkpoints)."""
        out = dict(
            input_dim=int(input_dim),
            n_train=int(n_train),
            n_inducing=self.n_inducing,
            likelihood=self.likelihood,
            ard=bool(self.ard),
            dtype=self.dtype,
            epochs=self.epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            lengthscale=self.lengthscale,
            outputscale=self.outputscale,
            natural_gradient=bool(self.natural_gradient),
            ngd_lr=self.ngd_lr if self.natural_gradient else None,
            seed=int(seed),
        )
        if self.fast_step:  # only when set, so that the configurations (and checkpoints) of earlier fits still match
            out["fast_step"] = True
        return out


def _training_data(x, y, cfg: GPConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs (N, D) and binary labels (N,) as tensors of the fit's dtype, checked."""
    torch_dtype = _DTYPES[cfg.dtype]
    xt = _as_inputs(x, "x", dtype=torch_dtype)
    y_arr = as_numpy(y, "y")
    if y_arr.ndim != 1 or y_arr.shape[0] != xt.shape[0]:
        raise ValueError(f"y must have shape ({xt.shape[0]},) to match x; got {y_arr.shape}")
    if y_arr.dtype.kind not in "biuf" or not np.isin(y_arr, (0, 1)).all():
        bad = np.flatnonzero(~np.isin(y_arr, (0, 1)))[:1] if y_arr.dtype.kind in "biuf" else [0]
        raise ValueError(f"y must hold binary labels in {{0, 1}}; y[{int(bad[0])}] = {y_arr[int(bad[0])]!r}")
    n = xt.shape[0]
    if cfg.n_inducing > n:
        raise ValueError(f"n_inducing must be at most the number of training points N = {n}; got {cfg.n_inducing}")
    return xt, torch.as_tensor(y_arr.astype(np.float64), dtype=torch_dtype)


def _optimizers(model, lik, cfg: GPConfig, n: int) -> list:
    if cfg.natural_gradient:
        return [
            gpytorch.optim.NGD(model.variational_parameters(), num_data=n, lr=cfg.ngd_lr),
            torch.optim.Adam(list(model.hyperparameters()) + list(lik.parameters()), lr=cfg.lr),
        ]
    return [torch.optim.Adam(list(model.parameters()) + list(lik.parameters()), lr=cfg.lr)]


def _gp_epoch(model, mll, optimizers, x_dev, y_dev, shuffle, batch_size: int, dev):
    """One pass over the shuffled minibatches; returns ``{"elbo": mean minibatch ELBO}``."""
    n = x_dev.shape[0]

    def train_epoch(epoch: int) -> dict:
        perm = torch.randperm(n, generator=shuffle).to(dev)
        total, n_batches = 0.0, 0
        for s in range(0, n, batch_size):
            idx = perm[s : s + batch_size]
            for opt in optimizers:
                opt.zero_grad(set_to_none=True)
            loss = -mll(model(x_dev[idx]), y_dev[idx])
            loss.backward()
            for opt in optimizers:
                opt.step()
            total += float(loss.detach())
            n_batches += 1
        return {"elbo": -total / n_batches}

    return train_epoch


def fit_gp_classifier(
    x,
    y,
    *,
    config: GPConfig | None = None,
    flush_denormals: bool = True,
    device="auto",
    seed: int = 0,
    progress: bool = False,
    checkpoint=None,
    **options,
) -> GPClassifierFit:
    r"""Train a sparse variational GP classifier (logistic link) by minibatch Adam on the ELBO.

    Maximises the variational lower bound (Hensman et al., 2015)

    .. math::

        \mathcal L = \sum_{i=1}^N E_{q(g_i)}\bigl[\log p(y_i|g_i)\bigr]
        - \mathrm{KL}\bigl(q(\mathbf u)\,\Vert\,p(\mathbf u)\bigr),
        \qquad p(y_i = 1|g_i) = \sigma(g_i),

    with the sum estimated on shuffled minibatches and scaled by :math:`N/|B|`; the expected
    log-likelihood is the Pólya-Gamma bound of Wenzel et al. (2019) or the exact Gauss-Hermite value
    (see the module docstring).

    Parameters
    ----------
    x : array-like or torch.Tensor, shape (N, D)
        Training inputs.
    y : array-like, shape (N,)
        Binary labels in {0, 1}.
    config : GPConfig or None, default=None
        The model and training options below (`n_inducing` to `fast_step`) as one object; None gives
        the defaults. Options given as keywords replace its fields.
    **options
        Fields of :class:`GPConfig`:

    n_inducing : int, default=100
        Number of inducing points :math:`m \le N` (initialised at random training inputs).
    epochs : int, default=10
        Passes over the training data.
    batch_size : int, default=1024
        Minibatch size (the last, smaller batch of an epoch is used too).
    lr : float, default=0.01
        Adam learning rate (constant).
    likelihood : {"polya_gamma", "bernoulli_logit"}, default="polya_gamma"
    ard : bool, default=False
        One length scale per input dimension.
    lengthscale, outputscale : float or None
        Initial kernel length scale :math:`\ell` and output scale :math:`s^2` (GPyTorch's default
        softplus(0) ≈ 0.693 for both when None).
    dtype : {"float32", "float64"}, default="float32"
    natural_gradient : bool, default=False
        Parametrise :math:`q(\mathbf u)` by its natural parameters and update them with GPyTorch's
        natural-gradient optimiser (:class:`gpytorch.optim.NGD`, step ``ngd_lr``), as GPyTorch's
        Pólya-Gamma example does; Adam then trains only the kernel and the inducing locations.
        Converges in far fewer epochs when there are many inducing points.
    ngd_lr : float, default=0.1
        Natural-gradient step size (used only with ``natural_gradient=True``).
    fast_step : bool, default=False
        Compute the same training step with fewer :math:`m\times m` operations (:math:`m` inducing
        points, minibatch :math:`B`): the minibatch's predictive variances as :math:`k_{ii} +
        \lVert\mathbf L_S^\top\mathbf a_i\rVert^2 - \lVert\mathbf a_i\rVert^2` (:math:`\mathbf a_i =
        \mathbf L_{uu}^{-1}\mathbf k_{ui}`, :math:`\mathbf S = \mathbf L_S\mathbf L_S^\top`) instead of
        GPyTorch's diagonal of :math:`\mathbf A^\top(\mathbf S - \mathbf I)\mathbf A` (when :math:`m \ge
        |B|`; below, GPyTorch's own fast path runs), and, with ``natural_gradient=True``, :math:`\mathbf S`,
        :math:`\boldsymbol\mu` and :math:`\log|\mathbf S|` from one Cholesky factorisation of the natural
        parameter, with a natural-gradient back-propagation free of :math:`m^3` operations (GPyTorch's
        factors :math:`\mathbf S` a second time and back-propagates through that factor), and
        :math:`\mathbf A = \mathbf L_{uu}^{-1}\mathbf K_{uB}` back-propagated to :math:`\mathbf K_{uu}` in one
        step, without the :math:`m\times m` by :math:`m\times m` product of the Cholesky factor's backward pass.
        With 2 048 inducing points and :math:`|B|` = 1 024, the :math:`q(\mathbf u)` part of a step takes 0.44 s
        instead of 1.1 s, and the :math:`\mathbf K_{uu}` part's backward pass about 1.0 s instead of 1.4-1.7 s
        (one thread, on a loaded machine). The RBF kernel's exponential skips the exponents below -104, whose
        exp is exactly 0 (torch's exp is about 50 times slower on underflowing exponents; on the EU toy data 85 %
        of them lie there): the same kernel matrix bit for bit, about 0.1 s less per step. The model, the ELBO
        and the updates are the same up to rounding (tests/gp/test_classifier.py holds them equal); predictions
        are GPyTorch's code either way (with this exponential, which gives the same kernel matrix bit for bit).
        Recorded in ``config`` only when True.
    flush_denormals : bool, default=True
        On the CPU, train with denormal floats (below 1.2e-38 in float32) flushed to zero on the calling thread
        (:func:`torch.set_flush_denormal`; the mode found is restored afterwards). Kernel matrices of points far
        apart in length scales are full of them, and x86 CPUs multiply them about a hundred times slower: with
        2 048 inducing points on the EU paper's toy data, one training step takes half the time with them
        flushed (one thread). The change to every value is below 1.2e-38 in absolute terms, like a change of
        thread count it is not part of ``config`` or of the cache key. torch's worker threads keep their own
        mode, so the gain is whole at one torch thread (as the book's records compute) and partial at several.
    device : str or torch.device, default="auto"
        See :func:`credalbook.nn.resolve_device`.
    seed : int, default=0
        Seeds the inducing-point initialisation, the initial variational mean and the shuffling;
        the caller's random state is left unchanged. Two CPU runs with the same arguments give
        bit-identical state dicts.
    progress : bool, default=False
        Show a progress bar over epochs.
    checkpoint : path or None, default=None
        Makes a long fit resumable, as in :func:`credalbook.nn.fit`: after every epoch the model,
        likelihood and optimiser states, the shuffling and torch RNG states and the ELBO history are
        written to this file; a call that finds it resumes after the last completed epoch (and on
        the CPU ends with the same state dict as an uninterrupted fit); the file is deleted at the
        end. :func:`credalbook.papers.eu.run_eu_experiment` keys one per GP fit under the cache.

    Returns
    -------
    GPClassifierFit

    Raises
    ------
    ValueError
        For non-binary labels, mismatched lengths, non-finite inputs, ``n_inducing > N``,
        invalid options, or a `checkpoint` written by a fit with another configuration.
    TypeError
        For an option that is not a field of :class:`GPConfig`.
    linear_operator.utils.errors.NotPSDError
        When :math:`\mathbf K_{uu}` cannot be factored even with 1e-3 added to its diagonal (the jittered attempts of
        ``credalbook.gp.classifier.CHOLESKY_MAX_TRIES``; each one beyond the first warns with ``NumericalWarning``).

    References
    ----------
    EU paper, Secs. 3.1 and 5.1; Wenzel et al. (2019), Eqs. 10-11; Hensman et al. (2015).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 2)); y = (x[:, 0] + x[:, 1] > 0).astype(int)
    >>> fit = fit_gp_classifier(x, y, n_inducing=16, epochs=30, batch_size=100, lr=0.05, device="cpu")
    >>> float((fit.predict(x, device="cpu") == y).mean()) > 0.95
    True
    >>> lat = fit.latent(x[:3], device="cpu"); lat.mean.shape, bool((lat.variance > 0).all())
    ((3,), True)
    """
    start = time.perf_counter()
    cfg = resolve_config(GPConfig, config, options, "fit_gp_classifier").checked()
    _check_flag(flush_denormals, "flush_denormals")
    seed = check_positive_int(seed, "seed", minimum=0, maximum=2**63 - 1)  # no bools, no 1.5
    checkpoint = as_checkpoint(checkpoint)
    dev = resolve_device(device)
    xt, yt = _training_data(x, y, cfg)
    n, d = xt.shape
    config = cfg.record(input_dim=d, n_train=n, seed=seed)
    rng = np.random.default_rng(seed)
    inducing = xt[torch.from_numpy(rng.choice(n, size=cfg.n_inducing, replace=False))].clone()
    fork_devices = [dev.index if dev.index is not None else torch.cuda.current_device()] if dev.type == "cuda" else []
    history = []
    with (
        torch.random.fork_rng(devices=fork_devices),
        _flush_denormals(flush_denormals and dev.type == "cpu"),
        _cholesky_retries(),
    ):
        torch.manual_seed(seed)
        model, lik = _build(config, inducing)
        if cfg.lengthscale is not None:
            model.covar_module.base_kernel.lengthscale = cfg.lengthscale
        if cfg.outputscale is not None:
            model.covar_module.outputscale = cfg.outputscale
        model, lik = model.to(dev), lik.to(dev)
        x_dev, y_dev = xt.to(dev), yt.to(dev)
        mll = gpytorch.mlls.VariationalELBO(lik, model, num_data=n)
        optimizers = _optimizers(model, lik, cfg, n)
        shuffle = torch.Generator().manual_seed(int(seed))
        resumed = load_checkpoint(checkpoint, config) if checkpoint is not None else None
        if resumed is not None:
            model.load_state_dict(resumed["model"])
            lik.load_state_dict(resumed["likelihood"])
            for opt, state in zip(optimizers, resumed["optimizers"]):
                opt.load_state_dict(state)
            restore_rng_states(resumed, shuffle, fork_devices)
            history = list(resumed["history"])
            start -= float(resumed["seconds"])
        model.train()
        lik.train()

        def record(epoch: int, logs: dict) -> None:
            history.append(logs["elbo"])
            if checkpoint is not None:
                save_checkpoint(
                    checkpoint,
                    dict(
                        settings=config,
                        model=model.state_dict(),
                        likelihood=lik.state_dict(),
                        optimizers=[opt.state_dict() for opt in optimizers],
                        **rng_states(shuffle, fork_devices),
                        history=history,
                        seconds=time.perf_counter() - start,
                    ),
                )

        train_loop(
            _gp_epoch(model, mll, optimizers, x_dev, y_dev, shuffle, cfg.batch_size, dev),
            range(len(history), cfg.epochs),
            callbacks=[LambdaCallback(on_epoch_end=record)],
            progress=progress,
            postfix=lambda logs: {"elbo": f"{logs['elbo']:.4f}"},
            desc="GP epochs",
        )
    model.eval()
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    return GPClassifierFit(state_dict=state, config=config, history=tuple(history), seconds=time.perf_counter() - start)


#: :func:`fit_gp_classifier` cached on disk (:func:`credalbook.cache.cached`), keyed by the data and the
#: configuration (``device``, ``progress``, ``checkpoint`` and ``flush_denormals`` are left out of the key).
fit_gp_classifier_cached = cached(fit_gp_classifier, ignore=["device", "progress", "checkpoint", "flush_denormals"])
