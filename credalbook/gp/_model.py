"""The GPyTorch pieces of :func:`credalbook.gp.fit_gp_classifier`: likelihoods, the variational model and the
faster training step (``fast_step=True``), and the denormal-flushing context (see :mod:`credalbook.gp.classifier`).
"""

from __future__ import annotations

import contextlib

import gpytorch
import torch
import torch.nn.functional as F
from linear_operator.operators import (
    CholLinearOperator,
    DenseLinearOperator,
    DiagLinearOperator,
    TriangularLinearOperator,
)

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


def _flushing_denormals() -> bool:
    """Whether this thread flushes denormal floats to zero (a float32 product below 1.2e-38 comes out as 0)."""
    return float(torch.tensor(1e-39, dtype=torch.float32).mul(1.0)) == 0.0


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
    torch.set_flush_denormal(True)  # False (and nothing changes) on a CPU without the mode
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

    def _compute_predictive_updates(
        self, chol, induc_data_covar, inducing_values, variational_inducing_covar, prior_covar, diag=True
    ):
        cholesky = isinstance(variational_inducing_covar, CholLinearOperator) and not variational_inducing_covar.upper
        if not (
            diag
            and self.training
            and (cholesky or isinstance(variational_inducing_covar, DenseLinearOperator))
            and isinstance(prior_covar, DiagLinearOperator)
            and induc_data_covar.size(-2) >= induc_data_covar.size(-1)
        ):
            return super()._compute_predictive_updates(
                chol, induc_data_covar, inducing_values, variational_inducing_covar, prior_covar, diag=diag
            )
        # as GPyTorch: A = L_uu^{-1} K_uB in the Cholesky's precision, mean update A^T m
        interp = chol.solve(induc_data_covar.type(chol.dtype)).type(induc_data_covar.dtype)
        mean_update = (interp.mT @ inducing_values.unsqueeze(-1)).squeeze(-1)
        if cholesky:
            w = variational_inducing_covar.root.to_dense().mT @ interp  # L_S^T A
            quad = w.square().sum(-2)
        else:
            quad = (interp * (variational_inducing_covar.to_dense() @ interp)).sum(-2)  # diag(A^T S A)
        prior_diag = prior_covar.diagonal().unsqueeze(-1)  # the whitened prior: ones
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
        if (
            x1.requires_grad
            or x2.requires_grad
            or (self.ard_num_dims is not None and self.ard_num_dims > 1)
            or diag
            or params.get("last_dim_is_batch", False)
            or gpytorch.settings.trace_mode.on()
        ):
            x1_ = x1.div(self.lengthscale)
            x2_ = x2.div(self.lengthscale)
            return _exp_underflowing(self.covar_dist(x1_, x2_, square_dist=True, diag=diag, **params).div_(-2))
        return super().forward(x1, x2, diag=diag, **params)


class _SVGP(gpytorch.models.ApproximateGP):
    """Zero-mean SVGP with a scaled RBF kernel and a full-rank Cholesky q(u)."""

    def __init__(self, inducing_points: torch.Tensor, *, ard: bool, natural: bool = False, fast: bool = False):
        m, d = inducing_points.shape
        if natural:
            distribution = (
                _MomentNaturalVariationalDistribution(m)
                if fast
                else gpytorch.variational.NaturalVariationalDistribution(m)
            )
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
    likelihood = _PolyaGammaLikelihood() if config["likelihood"] == "polya_gamma" else _LogitBernoulliLikelihood()
    model = _SVGP(
        inducing_points,
        ard=config["ard"],
        natural=config.get("natural_gradient", False),
        fast=config.get("fast_step", False),
    )
    dtype = _DTYPES[config["dtype"]]
    return model.to(dtype), likelihood.to(dtype)
