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

import contextlib
import math
import time
from dataclasses import dataclass, field

import gpytorch
import linear_operator
import numpy as np
import torch
import torch.nn.functional as F
from linear_operator.operators import (CholLinearOperator, DenseLinearOperator, DiagLinearOperator,
                                       TriangularLinearOperator)

from credalbook._validation import as_numpy, check_choice, check_positive_int
from credalbook.cache import (
    as_checkpoint,
    cached,
    load_checkpoint,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from credalbook.nn.device import resolve_device
from credalbook.nn.loop import LambdaCallback, train_loop
from credalbook.metrics.uncertainty import EUEstimates, eu_estimates

__all__ = ["GP_LIKELIHOODS", "GPClassifierFit", "LatentPredictive", "fit_gp_classifier",
           "fit_gp_classifier_cached"]

#: Likelihood options of :func:`fit_gp_classifier` (both use the logistic link).
GP_LIKELIHOODS = ("polya_gamma", "bernoulli_logit")
_DTYPES = {"float32": torch.float32, "float64": torch.float64}

#: Jittered Cholesky attempts (:func:`linear_operator.utils.cholesky.psd_safe_cholesky`) before a fit or prediction
#: gives up: 1e-8, 1e-7, ... up to 1e-3 added to the diagonal of :math:`\mathbf K_{uu}` (float64, the Cholesky's
#: precision) instead of GPyTorch's 3 (up to 1e-6). A float32 kernel matrix of 2 048 inducing points is off by
#: rounding errors of about 1e-4 in its eigenvalues: on the EU paper's toy data (seed 5, "train_2"), step 146 met a
#: :math:`\mathbf K_{uu}` whose smallest eigenvalue was -2.3e-5 with GPyTorch's jitter of 1e-4 in it, and 1e-4 more
#: made it factor. Only a matrix that GPyTorch's 3 attempts fail to factor gets more: every fit they serve is the
#: same bit for bit.
CHOLESKY_MAX_TRIES = 6


# ------------------------------------------------------------------------------ GPyTorch pieces
def _flushing_denormals() -> bool:
    """Whether this thread flushes denormal floats to zero (a float32 product below 1.2e-38 comes out as 0)."""
    return float(torch.tensor(1e-39, dtype=torch.float32).mul(1.0)) == 0.0


def _cholesky_retries():
    """The block's jittered Cholesky factorisations try :data:`CHOLESKY_MAX_TRIES` times (or more, when the caller's
    ``linear_operator.settings.cholesky_max_tries`` says so) before they fail."""
    tries = max(CHOLESKY_MAX_TRIES, linear_operator.settings.cholesky_max_tries.value())
    return linear_operator.settings.cholesky_max_tries(tries)


@contextlib.contextmanager
def _flush_denormals(on: bool):
    r"""Flush denormal floats to zero on this thread while the block runs (:func:`torch.set_flush_denormal`), then
    restore the mode found.

    Kernel matrices of points many length scales apart hold entries below the smallest normal float (1.2e-38 in
    float32), and so do the triangular solves and gradients built from them. x86 CPUs compute with such operands
    about a hundred times slower (a 2048 × 1024 by 1024 × 2048 product: 0.10 s, 8.8 s with half its rows denormal,
    one thread): the paper's toy GP step (2 048 inducing points) spent half its time there. Flushed, those entries
    become 0, an absolute change below 1.2e-38. Acts on the calling thread only: torch's worker threads keep their
    own mode (they inherit the mode of the thread that starts them).
    """
    if not on:
        yield
        return
    before = _flushing_denormals()
    torch.set_flush_denormal(True)   # False (and nothing changes) on a CPU without the mode
    try:
        yield
    finally:
        torch.set_flush_denormal(before)


class _LogitBernoulliLikelihood(gpytorch.likelihoods._OneDimensionalLikelihood):
    """p(y|g) = Bernoulli(σ(g)); the expected log-likelihood by Gauss-Hermite quadrature (GPyTorch)."""

    def forward(self, function_samples, *args, **kwargs):
        return torch.distributions.Bernoulli(logits=function_samples)


class _PolyaGammaLikelihood(_LogitBernoulliLikelihood):
    """Logistic likelihood whose expected log-likelihood is the Pólya-Gamma / Jaakkola-Jordan bound."""

    def expected_log_prob(self, observations, function_dist, *args, **kwargs):
        mean, variance = function_dist.mean, function_dist.variance
        second_moment = variance + mean.pow(2)
        c = second_moment.detach().clamp_min(1e-12).sqrt()  # closed-form update of q(ω) = PG(1, c)
        half_omega = torch.tanh(0.5 * c) / (4.0 * c)  # E[ω]/2 = tanh(c/2)/(4c)
        signs = observations.to(mean.dtype).mul(2.0).sub(1.0)
        return F.logsigmoid(c) - 0.5 * c + 0.5 * signs * mean - half_omega * (second_moment - c.pow(2))


class _NaturalToMoments(torch.autograd.Function):
    r"""Natural parameters of :math:`q(\mathbf u)` → its mean, covariance and the covariance's log-determinant.

    With :math:`\mathbf C = \mathrm{chol}(-2\boldsymbol\theta_2)`: :math:`\mathbf S = (\mathbf C\mathbf C^\top)^{-1}`
    (:func:`torch.cholesky_inverse`), :math:`\boldsymbol\mu = \mathbf S\boldsymbol\theta_1` and :math:`\log|\mathbf S|
    = -2\sum_i\log C_{ii}`: one Cholesky factorisation and one inverse from it, where GPyTorch's map
    (``_NaturalToMuVarSqrt``) takes a triangular inverse, an :math:`m\times m` product and a second Cholesky
    factorisation of :math:`\mathbf S`. The backward pass returns, as GPyTorch's does for
    :class:`gpytorch.optim.NGD`, the gradient with respect to the expectation parameters
    :math:`\boldsymbol\eta_1 = \boldsymbol\mu`, :math:`\boldsymbol\eta_2 = \mathbf S + \boldsymbol\mu\boldsymbol\mu^\top`
    (the natural gradient): :math:`\partial/\partial\boldsymbol\eta_2 = \mathrm{sym}(\bar{\mathbf S}) +
    \overline{\log|\mathbf S|}\,\mathbf S^{-1}` with :math:`\mathbf S^{-1} = -2\boldsymbol\theta_2` at hand, and
    :math:`\partial/\partial\boldsymbol\eta_1 = \bar{\boldsymbol\mu} - 2(\partial/\partial\boldsymbol\eta_2)\boldsymbol\mu`:
    no :math:`m^3` operation at all (GPyTorch's back-propagates through the Cholesky factor of :math:`\mathbf S`).
    """

    @staticmethod
    def forward(ctx, nat_mean, nat_covar):
        from linear_operator.utils.cholesky import psd_safe_cholesky

        chol = psd_safe_cholesky(-2.0 * nat_covar, upper=False)
        covar = torch.cholesky_inverse(chol)
        mean = (covar @ nat_mean.unsqueeze(-1)).squeeze(-1)
        logdet = -2.0 * chol.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        ctx.save_for_backward(mean, nat_covar)
        return mean, covar, logdet

    @staticmethod
    def backward(ctx, d_mean, d_covar, d_logdet):
        mean, nat_covar = ctx.saved_tensors
        d_sigma = d_covar.add(d_covar.mT).mul_(0.5).sub_(2.0 * d_logdet[..., None, None] * nat_covar)
        return d_mean - 2.0 * (d_sigma @ mean.unsqueeze(-1)).squeeze(-1), d_sigma


class _MomentNaturalVariationalDistribution(gpytorch.variational.NaturalVariationalDistribution):
    """GPyTorch's natural-parameter q(u) (same parameters and state dict); in training its mean and dense covariance
    by :class:`_NaturalToMoments`, with the log-determinant kept for the KL term. In eval mode GPyTorch's own map."""

    def forward(self):
        if not self.training:
            return super().forward()
        mean, covar, logdet = _NaturalToMoments.apply(self.natural_vec, self.natural_mat)
        q = gpytorch.distributions.MultivariateNormal(mean, DenseLinearOperator(covar))
        q.covariance_logdet = logdet
        return q


class _CholeskySolve(torch.autograd.Function):
    r""":math:`\mathbf W = \mathbf L^{-1}\mathbf K` for :math:`\mathbf L = \mathrm{chol}(\mathbf A)`, back-propagated to
    :math:`\mathbf A` and :math:`\mathbf K` in one step.

    The forward pass is GPyTorch's (``torch.linalg.solve_triangular`` with the factor, computed outside). Autograd
    through the two steps would form :math:`\bar{\mathbf L} = -\mathrm{tril}(\bar{\mathbf K}\mathbf W^\top)` and
    then, in the Cholesky's backward pass, the :math:`m\times m` product :math:`\mathbf L^\top\bar{\mathbf L}`;
    since :math:`\mathbf L^\top\bar{\mathbf K} = \bar{\mathbf W}`, that product's lower triangle is
    :math:`-\mathrm{tril}(\bar{\mathbf W}\mathbf W^\top)` (as :math:`\mathbf L^\top` times a strictly upper
    triangular matrix has no lower part). So :math:`\bar{\mathbf K} = \mathbf L^{-\top}\bar{\mathbf W}` and
    :math:`\bar{\mathbf A} = \mathbf L^{-\top}\Phi\mathbf L^{-1}` with :math:`\Phi` the lower triangle of
    :math:`-\bar{\mathbf W}\mathbf W^\top` made symmetric as ``torch``'s ``cholesky_backward`` does: one
    :math:`m\times m` by :math:`m\times|B|` product where autograd takes two and an :math:`m\times m` by
    :math:`m\times m` one. The same gradients up to rounding (a test holds them to autograd's).
    """

    @staticmethod
    def forward(ctx, matrix, chol, rhs):
        w = torch.linalg.solve_triangular(chol, rhs, upper=False)
        ctx.save_for_backward(chol, w)
        return w

    @staticmethod
    def backward(ctx, d_w):
        chol, w = ctx.saved_tensors
        d_rhs = torch.linalg.solve_triangular(chol.mT, d_w, upper=True)
        phi = (d_w @ w.mT).neg_().tril_()
        phi = phi.add_(phi.tril(-1).mT).mul_(0.5)
        d_matrix = torch.linalg.solve_triangular(chol.mT, phi, upper=True, left=True)
        d_matrix = torch.linalg.solve_triangular(chol, d_matrix, upper=False, left=False)
        return d_matrix, None, d_rhs


class _FusedCholeskyFactor(TriangularLinearOperator):
    r"""GPyTorch's Cholesky factor of :math:`\mathbf K_{uu}` (its graph kept, for any other use), whose ``solve`` with
    a matrix back-propagates to :math:`\mathbf K_{uu}` by :class:`_CholeskySolve`."""

    matrix: torch.Tensor | None = None  # K_uu in the factor's dtype, with its graph

    def solve(self, right_tensor, left_tensor=None):
        if self.matrix is None or left_tensor is not None or right_tensor.dim() != 2 or self.upper:
            return super().solve(right_tensor, left_tensor)
        return _CholeskySolve.apply(self.matrix, self._tensor.to_dense().detach(), right_tensor)


class _RootVarianceStrategy(gpytorch.variational.VariationalStrategy):
    r"""GPyTorch's whitened :class:`~gpytorch.variational.VariationalStrategy` with cheaper training variances.

    In training, with :math:`m \ge |B|` inducing points and a Cholesky-factored
    :math:`\mathbf S = \mathbf L_S\mathbf L_S^\top`, GPyTorch forms :math:`(\mathbf S - \mathbf I)\mathbf A`
    (:math:`\mathbf A = \mathbf L_{uu}^{-1}\mathbf K_{uB}`, two :math:`m\times m` by :math:`m\times|B|` products
    and four more in the backward pass) only to take the diagonal of :math:`\mathbf A^\top(\mathbf S-\mathbf I)
    \mathbf A`. Here the same diagonal is :math:`\lVert\mathbf L_S^\top\mathbf a_i\rVert^2 - \lVert\mathbf
    a_i\rVert^2` (or, with the dense :math:`\mathbf S` of :class:`_MomentNaturalVariationalDistribution`,
    :math:`\mathbf a_i^\top\mathbf S\mathbf a_i - \lVert\mathbf a_i\rVert^2`): one product forward, two backward.
    With that distribution the KL term is :math:`\tfrac12(\mathrm{tr}\,\mathbf S + \boldsymbol\mu^\top\boldsymbol\mu - m
    - \log|\mathbf S|)` from its log-determinant (GPyTorch's would factor :math:`\mathbf S` again). Same model and
    ELBO; equal up to rounding. Every other case (evaluation, :math:`m < |B|` for the variances) is GPyTorch's own
    code.
    """

    def _cholesky_factor(self, induc_induc_covar):
        if not (self.training and torch.is_grad_enabled()):
            return super()._cholesky_factor(induc_induc_covar)  # GPyTorch's, cached for predictions
        from linear_operator.utils.cholesky import psd_safe_cholesky

        # as GPyTorch: the factor of the jittered K_uu in the Cholesky's precision (float64 by default)
        matrix = induc_induc_covar.to_dense().type(gpytorch.settings._linalg_dtype_cholesky.value())
        factor = _FusedCholeskyFactor(psd_safe_cholesky(matrix))
        factor.matrix = matrix
        return factor

    def kl_divergence(self):
        q = self.variational_distribution
        logdet = getattr(q, "covariance_logdet", None)
        if logdet is None:
            return super().kl_divergence()
        # KL(N(μ, S) || N(0, I)): the whitened prior of VariationalStrategy
        trace = q.lazy_covariance_matrix.to_dense().diagonal(dim1=-2, dim2=-1).sum(-1)
        return 0.5 * (trace + q.mean.square().sum(-1) - q.mean.size(-1) - logdet)

    def _compute_predictive_updates(self, chol, induc_data_covar, inducing_values, variational_inducing_covar,
                                    prior_covar, diag=True):
        cholesky = isinstance(variational_inducing_covar, CholLinearOperator) and not variational_inducing_covar.upper
        if not (diag and self.training and (cholesky or isinstance(variational_inducing_covar, DenseLinearOperator))
                and isinstance(prior_covar, DiagLinearOperator)
                and induc_data_covar.size(-2) >= induc_data_covar.size(-1)):
            return super()._compute_predictive_updates(chol, induc_data_covar, inducing_values,
                                                       variational_inducing_covar, prior_covar, diag=diag)
        # as GPyTorch: A = L_uu^{-1} K_uB in the Cholesky's precision, mean update A^T m
        interp = chol.solve(induc_data_covar.type(chol.dtype)).type(induc_data_covar.dtype)
        mean_update = (interp.mT @ inducing_values.unsqueeze(-1)).squeeze(-1)
        if cholesky:
            w = variational_inducing_covar.root.to_dense().mT @ interp                      # L_S^T A
            quad = w.square().sum(-2)
        else:
            quad = (interp * (variational_inducing_covar.to_dense() @ interp)).sum(-2)    # diag(A^T S A)
        prior_diag = prior_covar.diagonal().unsqueeze(-1)                                   # the whitened prior: ones
        return mean_update, DiagLinearOperator(quad - (prior_diag * interp.square()).sum(-2))


#: float32 ``exp`` is exactly +0 below this exponent on every code path and in either denormal mode: exp(-104) is below
#: half the smallest denormal (half of 1.4e-45: log = -103.97), so it rounds to 0; torch's vectorised exp returns +0
#: there too (checked in tests/gp/test_classifier.py, bit for bit).
_EXP_ZERO_BELOW = -104.0


def _exp_underflowing(x: torch.Tensor) -> torch.Tensor:
    r"""``torch.exp(x)``, bit for bit, without most of its slow lanes. torch's vectorised float32 exp takes about 50
    times as long on exponents whose result underflows (below about -87.3): a 2048 × 2048 matrix of them 150 ms instead
    of 3 ms (one thread). The EU toy GP's kernel exponents are 85 % below -104 (points many length scales apart;
    2 % lie between -104 and -87), where exp is exactly +0: those entries are set to +0 (exp of 0 computed in their
    place and discarded). Differentiable: their gradient is 0, as through ``exp`` (whose gradient there is its
    result times the incoming gradient, a zero of either sign).

    >>> x = torch.tensor([0.0, -1.0, -90.0, -103.9, -1e4])
    >>> torch.equal(_exp_underflowing(x), x.exp()), bool(_exp_underflowing(x)[3] > 0)
    (True, True)
    """
    if x.dtype != torch.float32:
        return x.exp()
    under = x < _EXP_ZERO_BELOW
    return x.masked_fill(under, 0.0).exp().masked_fill(under, 0.0)


class _UnderflowRBFKernel(gpytorch.kernels.RBFKernel):
    """GPyTorch's RBF kernel with its exponential taken by :func:`_exp_underflowing` (the same matrix, bit for bit).
    Only the path for inputs that carry gradients (learned inducing points, as here) is replaced; the others are
    GPyTorch's."""

    def forward(self, x1, x2, diag=False, **params):
        if x1.requires_grad or x2.requires_grad or (self.ard_num_dims is not None and self.ard_num_dims > 1) \
                or diag or params.get("last_dim_is_batch", False) or gpytorch.settings.trace_mode.on():
            x1_ = x1.div(self.lengthscale)
            x2_ = x2.div(self.lengthscale)
            return _exp_underflowing(self.covar_dist(x1_, x2_, square_dist=True, diag=diag, **params).div_(-2))
        return super().forward(x1, x2, diag=diag, **params)


class _SVGP(gpytorch.models.ApproximateGP):
    """Zero-mean SVGP with a scaled RBF kernel and a full-rank Cholesky q(u)."""

    def __init__(self, inducing_points: torch.Tensor, *, ard: bool, natural: bool = False, fast: bool = False):
        m, d = inducing_points.shape
        if natural:
            distribution = (_MomentNaturalVariationalDistribution(m) if fast
                            else gpytorch.variational.NaturalVariationalDistribution(m))
        else:
            distribution = gpytorch.variational.CholeskyVariationalDistribution(m)
        strategy_class = _RootVarianceStrategy if fast else gpytorch.variational.VariationalStrategy
        strategy = strategy_class(self, inducing_points, distribution, learn_inducing_locations=True)
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ZeroMean()
        kernel = _UnderflowRBFKernel if fast else gpytorch.kernels.RBFKernel
        self.covar_module = gpytorch.kernels.ScaleKernel(kernel(ard_num_dims=d if ard else None))

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _build(config: dict, inducing_points: torch.Tensor):
    likelihood = (_PolyaGammaLikelihood() if config["likelihood"] == "polya_gamma"
                  else _LogitBernoulliLikelihood())
    model = _SVGP(inducing_points, ard=config["ard"], natural=config.get("natural_gradient", False),
                  fast=config.get("fast_step", False))
    dtype = _DTYPES[config["dtype"]]
    return model.to(dtype), likelihood.to(dtype)


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
            raise ValueError(f"x must have {self.config['input_dim']} columns like the training inputs; "
                             f"got shape {tuple(xt.shape)}")
        model, _ = self.build(dev)
        means, variances = [], []
        with torch.no_grad(), _flush_denormals(flush_denormals and dev.type == "cpu"), _cholesky_retries():
            for s in range(0, xt.shape[0], batch_size):
                out = model(xt[s:s + batch_size].to(dev))
                means.append(out.mean.double().cpu())
                variances.append(out.variance.double().cpu())
        return LatentPredictive(mean=torch.cat(means).numpy(), variance=torch.cat(variances).clamp_min(0).numpy())

    def eu_estimates(self, x, *, method: str = "mc", n_samples: int = 1000, n_points: int = 64, seed=0,
                     device="auto", batch_size: int = 4096) -> EUEstimates:
        r"""Predictive probability, :math:`\hat{\mathcal E}_E` and :math:`\hat{\mathcal E}_M` at `x`.

        See :func:`credalbook.metrics.eu_estimates` (Monte Carlo over the latent by default, as in the paper).
        """
        lat = self.latent(x, device=device, batch_size=batch_size)
        return eu_estimates(lat.mean, lat.variance, method=method, n_samples=n_samples,
                            n_points=n_points, seed=seed)

    def predict_proba(self, x, *, method: str = "quadrature", n_samples: int = 1000, n_points: int = 64,
                      seed=0, device="auto", batch_size: int = 4096) -> np.ndarray:
        r""":math:`p(y_*=1|\mathbf y) = \int\sigma(g)\,\mathcal N(g|\mu_*,\sigma_*^2)\,dg`, shape (N,).

        ``method="quadrature"`` (default, deterministic) or ``"mc"``; see :func:`credalbook.metrics.eu_estimates`.
        """
        return self.eu_estimates(x, method=method, n_samples=n_samples, n_points=n_points, seed=seed,
                                 device=device, batch_size=batch_size).prob

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


def fit_gp_classifier(
    x,
    y,
    *,
    n_inducing: int = 100,
    epochs: int = 10,
    batch_size: int = 1024,
    lr: float = 0.01,
    likelihood: str = "polya_gamma",
    ard: bool = False,
    lengthscale: float | None = None,
    outputscale: float | None = None,
    dtype: str = "float32",
    natural_gradient: bool = False,
    ngd_lr: float = 0.1,
    fast_step: bool = False,
    flush_denormals: bool = True,
    device="auto",
    seed: int = 0,
    progress: bool = False,
    checkpoint=None,
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
    n_inducing = check_positive_int(n_inducing, "n_inducing")
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    lr = _positive_float(lr, "lr")
    lengthscale = _positive_float(lengthscale, "lengthscale", allow_none=True)
    outputscale = _positive_float(outputscale, "outputscale", allow_none=True)
    check_choice(likelihood, "likelihood", GP_LIKELIHOODS)
    check_choice(dtype, "dtype", tuple(_DTYPES))
    ngd_lr = _positive_float(ngd_lr, "ngd_lr")
    for flag, name in ((natural_gradient, "natural_gradient"), (fast_step, "fast_step"), (flush_denormals, "flush_denormals"), (ard, "ard")):
        _check_flag(flag, name)
    seed = check_positive_int(seed, "seed", minimum=0, maximum=2**63 - 1)   # no bools, no 1.5
    checkpoint = as_checkpoint(checkpoint)
    dev = resolve_device(device)
    torch_dtype = _DTYPES[dtype]

    xt = _as_inputs(x, "x", dtype=torch_dtype)
    y_arr = as_numpy(y, "y")
    if y_arr.ndim != 1 or y_arr.shape[0] != xt.shape[0]:
        raise ValueError(f"y must have shape ({xt.shape[0]},) to match x; got {y_arr.shape}")
    if y_arr.dtype.kind not in "biuf" or not np.isin(y_arr, (0, 1)).all():
        bad = np.flatnonzero(~np.isin(y_arr, (0, 1)))[:1] if y_arr.dtype.kind in "biuf" else [0]
        raise ValueError(f"y must hold binary labels in {{0, 1}}; y[{int(bad[0])}] = {y_arr[int(bad[0])]!r}")
    n, d = xt.shape
    if n_inducing > n:
        raise ValueError(f"n_inducing must be at most the number of training points N = {n}; got {n_inducing}")
    yt = torch.as_tensor(y_arr.astype(np.float64), dtype=torch_dtype)

    config = dict(input_dim=int(d), n_train=int(n), n_inducing=n_inducing, likelihood=likelihood,
                  ard=bool(ard), dtype=dtype, epochs=epochs, batch_size=batch_size, lr=lr,
                  lengthscale=lengthscale, outputscale=outputscale, natural_gradient=bool(natural_gradient),
                  ngd_lr=ngd_lr if natural_gradient else None, seed=int(seed))
    if fast_step:  # only when set, so that the configurations (and checkpoints) of earlier fits still match
        config["fast_step"] = True
    rng = np.random.default_rng(seed)
    inducing = xt[torch.from_numpy(rng.choice(n, size=n_inducing, replace=False))].clone()
    fork_devices = [dev.index if dev.index is not None else torch.cuda.current_device()] if dev.type == "cuda" else []
    history = []
    with (torch.random.fork_rng(devices=fork_devices), _flush_denormals(flush_denormals and dev.type == "cpu"),
          _cholesky_retries()):
        torch.manual_seed(seed)
        model, lik = _build(config, inducing)
        if lengthscale is not None:
            model.covar_module.base_kernel.lengthscale = lengthscale
        if outputscale is not None:
            model.covar_module.outputscale = outputscale
        model, lik = model.to(dev), lik.to(dev)
        x_dev, y_dev = xt.to(dev), yt.to(dev)
        mll = gpytorch.mlls.VariationalELBO(lik, model, num_data=n)
        if natural_gradient:
            optimizers = [gpytorch.optim.NGD(model.variational_parameters(), num_data=n, lr=ngd_lr),
                          torch.optim.Adam(list(model.hyperparameters()) + list(lik.parameters()), lr=lr)]
        else:
            optimizers = [torch.optim.Adam(list(model.parameters()) + list(lik.parameters()), lr=lr)]
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

        def train_epoch(epoch: int) -> dict:
            perm = torch.randperm(n, generator=shuffle).to(dev)
            total, n_batches = 0.0, 0
            for s in range(0, n, batch_size):
                idx = perm[s:s + batch_size]
                for opt in optimizers:
                    opt.zero_grad(set_to_none=True)
                loss = -mll(model(x_dev[idx]), y_dev[idx])
                loss.backward()
                for opt in optimizers:
                    opt.step()
                total += float(loss.detach())
                n_batches += 1
            return {"elbo": -total / n_batches}

        def record(epoch: int, logs: dict) -> None:
            history.append(logs["elbo"])
            if checkpoint is not None:
                save_checkpoint(checkpoint, dict(
                    settings=config, model=model.state_dict(), likelihood=lik.state_dict(),
                    optimizers=[opt.state_dict() for opt in optimizers], **rng_states(shuffle, fork_devices),
                    history=history, seconds=time.perf_counter() - start))

        train_loop(train_epoch, range(len(history), epochs), callbacks=[LambdaCallback(on_epoch_end=record)],
                   progress=progress, postfix=lambda logs: {"elbo": f"{logs['elbo']:.4f}"}, desc="GP epochs")
    model.eval()
    if checkpoint is not None:
        checkpoint.unlink(missing_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
    return GPClassifierFit(state_dict=state, config=config, history=tuple(history),
                           seconds=time.perf_counter() - start)


#: :func:`fit_gp_classifier` cached on disk (:func:`credalbook.cache.cached`), keyed by the data and the
#: configuration (``device``, ``progress``, ``checkpoint`` and ``flush_denormals`` are left out of the key).
fit_gp_classifier_cached = cached(fit_gp_classifier, ignore=["device", "progress", "checkpoint", "flush_denormals"])
