r"""Differentiable estimators of distribution calibration errors, in torch (Jürgens et al., Sec. 2.2).

The instance-dependent calibration test learns its weight function :math:`\boldsymbol\lambda(\mathbf x)`
by gradient descent on "proper score + γ · calibration error" (Eq. 16), so its calibration errors
must be differentiable in the predictions. Every estimator here takes ``probs`` (..., N, K) and
``labels`` (..., N) — leading dimensions are independent datasets or bootstrap replicates, all
computed in one batched pass — and returns a tensor (...) with gradients.

=========  =====================================================================  ==================
name       estimator                                                              source
=========  =====================================================================  ==================
``brier``  :math:`\frac1N\sum_i\lVert\hat{\mathbf p}_i-\mathbf e_{y_i}\rVert^2`      Eq. 4
``lp``     :math:`\frac1N\sum_i\lVert\hat{\mathbb E}[Y\mid\hat{\mathbf p}_i]-\hat{\mathbf p}_i\rVert_p^p`  Eq. 6 (Popordanoska 2022)
``kl``     :math:`\frac1N\sum_i KL(\hat{\mathbb E}[Y\mid\hat{\mathbf p}_i]\,\Vert\,\hat{\mathbf p}_i)`       Eq. 11 (Popordanoska 2024)
``skce``   unbiased SKCE, linear (paired) or quadratic, :math:`\exp(-d_{TV}^2/h)\mathbf I_K`  Widmann et al. 2019
``mmd``    unbiased MMD² between :math:`(\hat{\mathbf p}, Y)` and :math:`(\hat{\mathbf p}, \hat Y)`         Eq. 9 (Marx et al. 2024)
=========  =====================================================================  ==================

**L_p and KL** use the leave-one-out Dirichlet kernel density estimate of the calibration map
(Popordanoska et al. 2022): with :math:`k(\mathbf z_i, \mathbf z_j) = \mathrm{Dir}(\mathbf z_i;
\mathbf z_j / h + \mathbf 1)`,

.. math::
    \hat{\mathbb E}[Y \mid \hat{\mathbf p}_i] = \frac{\sum_{j\ne i} k(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,
    \mathbf e_{y_j}}{\sum_{j\ne i} k(\hat{\mathbf p}_i, \hat{\mathbf p}_j)},

computed in log space (a softmax over j), so large K and small bandwidths h do not underflow.
Both are consistent and asymptotically unbiased, biased upwards for finite N (App. A, Fig. 5).

**SKCE and MMD.** The MMD of Marx et al. with a product kernel
:math:`k_p(\mathbf p,\mathbf p')\,k_y(y,y')` and the expectation over :math:`\hat Y \sim
\mathrm{Cat}(\hat{\mathbf p})` taken in closed form is a kernel calibration error with the
matrix kernel :math:`k_p(\mathbf p,\mathbf p')\mathbf K_y`, :math:`(\mathbf K_y)_{cc'} = k_y(c,c')`.
With the RBF kernel on one-hot labels, :math:`\mathbf K_y = (1-e^{-1/\sigma^2})\mathbf I + e^{-1/\sigma^2}
\mathbf 1\mathbf 1^\top` and the all-ones part cancels (residuals sum to zero), so the MMD equals
:math:`(1 - e^{-1/\sigma^2})` times the quadratic SKCE with the Gaussian kernel :math:`k_p`
on predictions: the two estimators differ only in the kernel on predictions (Gaussian in
Euclidean distance vs. exp(−TV²/h)) and in using all pairs. The authors' code computes the MMD
with :math:`k_p \equiv 1` (``conditioning="none"``), which only compares class frequencies with
the mean prediction and cannot detect miscalibration that averages out; the default here is the
kernel of Marx et al. on (prediction, label) pairs.

References
----------
Jürgens, Mortier, Hüllermeier, Bengs, Waegeman. A calibration test for evaluating set-based
epistemic uncertainty representations. Sec. 2.2, Eqs. (4), (6), (9), (11).
Popordanoska, Sayer, Blaschko. A consistent and differentiable L_p canonical calibration error
estimator. NeurIPS 2022. Popordanoska, Gruber, Tiulpin, Buettner, Blaschko. Consistent and
asymptotically unbiased estimation of proper calibration errors. AISTATS 2024.
Widmann, Lindsten, Zachariah. Calibration tests in multi-class classification. NeurIPS 2019.
Marx, Zalouk, Ermon. Calibration by distribution matching: trainable kernel calibration metrics.
NeurIPS 2023.
"""

from __future__ import annotations

import functools
import math

from credalbook._validation import check_choice, check_positive_float
from credalbook._validation import lazy_torch as torch
from credalbook.metrics.kernel import (
    _check_block_size,
    _skce_torch,
    _tensors,
    AUTO_BLOCK_SIZE,
    resolve_estimator,
    SKCE_ESTIMATORS,
)
from credalbook.metrics.kernels import _check_bandwidth, GaussianKernel, TVKernel

__all__ = [
    "brier_estimator",
    "lp_calibration_error",
    "kl_calibration_error",
    "skce_estimator",
    "mmd_calibration_error",
    "dirichlet_kde_calibration_map",
    "estimator_function",
    "ESTIMATORS",
    "ESTIMATOR_BANDWIDTHS",
]

#: Names accepted by :func:`estimator_function` (and so by the tests' ``estimator_measure`` and the weight learner).
ESTIMATORS = ("brier", "lp", "kl", "skce", "mmd")
#: Default bandwidths: those of the authors' test statistics (mkjuergens/EnsembleCalibration@8dff2b5:
#: L_p 0.01, KL 0.01 and SKCE 1e-4 in ``src/config/config_cal_test.py``, l. 87, 114, 166; MMD 0.1 in
#: ``src/config/config_synthetic.py``, l. 149, where ``config_cal_test.py``, l. 140, has 0.01).
ESTIMATOR_BANDWIDTHS = {"lp": 0.01, "kl": 0.01, "skce": 1e-4, "mmd": 0.1}
_LOG_EPS = 1e-10  # floor of log(p) for predictions on the simplex boundary
CONDITIONING = ("prediction", "none")


def _onehot(y: torch.Tensor, k: int, dtype) -> torch.Tensor:
    return torch.nn.functional.one_hot(y, k).to(dtype)


# --------------------------------------------------------------------------------------------
# unvalidated batched kernels (used inside training loops and bootstrap replicates)
# --------------------------------------------------------------------------------------------


def _brier(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return ((p - _onehot(y, p.shape[-1], p.dtype)) ** 2).sum(-1).mean(-1)


def _kde_map(p: torch.Tensor, y: torch.Tensor, bandwidth: float) -> torch.Tensor:
    """Leave-one-out Dirichlet-KDE estimate of E[Y | p_i], shape (..., N, K)."""
    n, k = p.shape[-2:]
    p3 = p.reshape(-1, n, k)
    logp = torch.log(p3.clamp_min(_LOG_EPS))
    # log Dir(z_i; z_j/h + 1) = const - sum_k lgamma(z_jk/h + 1) + (1/h) sum_k z_jk log z_ik
    # (the normaliser lgamma(sum_k a_jk) = lgamma(1/h + K) is the same for every j and cancels);
    # one fused batched product writes the (N, N) log-kernel, the diagonal is excluded in place.
    log_norm = -torch.lgamma(p3 / bandwidth + 1).sum(-1)[:, None, :]
    logk = torch.baddbmm(log_norm, logp / bandwidth, p3.transpose(-1, -2))
    logk.diagonal(dim1=-2, dim2=-1).fill_(float("-inf"))
    weights = torch.softmax(logk, dim=-1)
    return (weights @ _onehot(y.reshape(-1, n), k, p.dtype)).reshape(p.shape)


def _lp(p, y, bandwidth: float, order: float = 2.0) -> torch.Tensor:
    return (_kde_map(p, y, bandwidth) - p).abs().pow(order).sum(-1).mean(-1)


def _kl(p, y, bandwidth: float) -> torch.Tensor:
    ratio = _kde_map(p, y, bandwidth)
    logp = torch.log(p.clamp_min(_LOG_EPS))
    # ratio·log(ratio) with the log floored: exact value (0·log 0 = 0) and finite gradients at ratio = 0
    return (ratio * (torch.log(ratio.clamp_min(1e-30)) - logp)).sum(-1).mean(-1)


def _label_kernel(k: int, label_bandwidth: float, dtype, device) -> torch.Tensor:
    off = math.exp(-1.0 / label_bandwidth**2)
    return torch.full((k, k), off, dtype=dtype, device=device) + (1 - off) * torch.eye(k, dtype=dtype, device=device)


def _skce(p, y, bandwidth: float, estimator: str = "linear", block_size: int = AUTO_BLOCK_SIZE) -> torch.Tensor:
    return _skce_torch(p, y, TVKernel(bandwidth), estimator, block_size=block_size)


def _mmd(p, y, bandwidth: float, label_bandwidth: float = 1.0, conditioning: str = "prediction") -> torch.Tensor:
    # a kernel calibration error with the matrix kernel k_p(p, p') K_y (module docstring)
    kernel = GaussianKernel(bandwidth) if conditioning == "prediction" else None
    return _skce_torch(p, y, kernel, "quadratic", _label_kernel(p.shape[-1], label_bandwidth, p.dtype, p.device))


#: name -> unvalidated batched function(p, y, **options)
_FUNCS = {"brier": _brier, "lp": _lp, "kl": _kl, "skce": _skce, "mmd": _mmd}


# --------------------------------------------------------------------------------------------
# public, validated estimators
# --------------------------------------------------------------------------------------------


def brier_estimator(probs, labels) -> torch.Tensor:
    r"""Brier score :math:`\frac1N\sum_i\sum_k(\hat p_{ik} - \mathbb 1[y_i = k])^2` (Jürgens et al., Eq. 4).

    Parameters
    ----------
    probs : tensor or array, shape (..., N, K)
    labels : tensor or array of int, shape (..., N)

    Returns
    -------
    torch.Tensor, shape (...)

    Examples
    --------
    >>> float(brier_estimator([[0.5, 0.5], [1.0, 0.0]], [0, 0]))
    0.25
    """
    p, y = _tensors(probs, labels)
    return _brier(p, y)


def dirichlet_kde_calibration_map(probs, labels, *, bandwidth: float = 0.01) -> torch.Tensor:
    r"""Leave-one-out Dirichlet-KDE estimate of :math:`\mathbb E[Y \mid \hat{\mathbf p}(X) = \hat{\mathbf p}_i]` (Popordanoska et al. 2022).

    Returns a tensor (..., N, K) whose rows lie on the simplex (see the module docstring).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.9, 0.1], [0.1, 0.9]]
    >>> dirichlet_kde_calibration_map(p, [1, 0, 0], bandwidth=0.1)[0].round(decimals=3).tolist()
    [1.0, 0.0]
    """
    h = _check_bandwidth(bandwidth)
    p, y = _tensors(probs, labels, min_instances=2)
    return _kde_map(p, y, h)


def lp_calibration_error(probs, labels, *, bandwidth: float = 0.01, order: float = 2.0) -> torch.Tensor:
    r"""L_p canonical calibration error :math:`\widehat{CE}_p^p` with the Dirichlet KDE (Jürgens et al., Eq. 6).

    .. math::
        \widehat{CE}_p^p = \frac1N \sum_{i=1}^N \big\lVert \hat{\mathbb E}[Y\mid\hat{\mathbf p}_i]
        - \hat{\mathbf p}_i \big\rVert_p^p

    (no root, as in the authors' statistic; p = ``order`` = 2 by default).

    Parameters
    ----------
    probs : tensor or array, shape (..., N, K), N ≥ 2
    labels : tensor or array of int, shape (..., N)
    bandwidth : float, default 0.01
        h of the Dirichlet kernel.
    order : float ≥ 1, default 2
        A finite number (bools, strings and ``inf`` are rejected).

    Returns
    -------
    torch.Tensor, shape (...)

    References
    ----------
    Popordanoska, Sayer, Blaschko. A consistent and differentiable L_p canonical calibration error
    estimator. NeurIPS 2022, Eq. (9).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]]
    >>> round(float(lp_calibration_error(p, [0, 0, 1, 1], bandwidth=0.1)), 3)   # labels match the argmax
    0.02
    """
    h = _check_bandwidth(bandwidth)
    order = check_positive_float(order, "order")
    if not order >= 1:
        raise ValueError(f"order must be a number >= 1; got {order!r}")
    p, y = _tensors(probs, labels, min_instances=2)
    return _lp(p, y, h, order)


def kl_calibration_error(probs, labels, *, bandwidth: float = 0.01) -> torch.Tensor:
    r"""KL calibration error :math:`\frac1N\sum_i KL(\hat{\mathbb E}[Y\mid\hat{\mathbf p}_i] \Vert \hat{\mathbf p}_i)` (Jürgens et al., Eq. 11).

    The calibration term of the log loss (Popordanoska et al. 2024), estimated with the same
    leave-one-out Dirichlet KDE as :func:`lp_calibration_error`; never negative.

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]]
    >>> round(float(kl_calibration_error(p, [0, 0, 1, 1], bandwidth=0.1)), 4)   # KL(e_1 || (.9, .1))
    0.1054
    """
    h = _check_bandwidth(bandwidth)
    p, y = _tensors(probs, labels, min_instances=2)
    return _kl(p, y, h)


def skce_estimator(
    probs, labels, *, bandwidth: float = 1e-4, estimator: str = "linear", block_size: int = AUTO_BLOCK_SIZE
) -> torch.Tensor:
    r"""Unbiased squared kernel calibration error with :math:`\exp(-d_{TV}^2/h)\,\mathbf I_K` (Widmann et al. 2019).

    .. math::
        \widehat{SKCE} = \frac1{|\mathcal P|}\sum_{(i, j)\in\mathcal P}
        e^{-d_{TV}(\hat{\mathbf p}_i, \hat{\mathbf p}_j)^2/h}\,
        (\hat{\mathbf p}_i - \mathbf e_{y_i})^\top(\hat{\mathbf p}_j - \mathbf e_{y_j})

    over the estimator's pairs :math:`\mathcal P`: ``estimator="linear"`` (default) the consecutive
    pairs :math:`(2i-1, 2i)` (the authors' statistic, as :func:`~credalbook.metrics.skce_ul`),
    ``"quadratic"`` all pairs :math:`i<j` (as :func:`~credalbook.metrics.skce_uq`; large N in
    checkpointed row blocks, so memory stays O(N) with gradients), ``"block"`` the pairs within
    consecutive blocks of ``block_size``, ``"auto"`` quadratic up to N = 10⁴ and blocks above (see
    :func:`credalbook.metrics.skce`). Can be negative; the weight learner squares it (App. A).
    This is :func:`credalbook.metrics.skce` on tensors with ``kernel=TVKernel(bandwidth)``: the one
    SKCE of :mod:`credalbook.metrics.kernel`, run in torch on the tensor's device and dtype
    (float16 and bfloat16 included).

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.9, 0.1]]
    >>> float(skce_estimator(p, [1, 1], bandwidth=1.0))    # both residuals (-0.9, 0.9): 1.62
    1.62
    """
    h = _check_bandwidth(bandwidth)
    check_choice(estimator, "estimator", SKCE_ESTIMATORS)
    p, y = _tensors(probs, labels, min_instances=2)
    if resolve_estimator(estimator, p.shape[-2]) == "block":
        _check_block_size(block_size, p.shape[-2])
    return _skce(p, y, h, estimator, block_size)


def mmd_calibration_error(
    probs, labels, *, bandwidth: float = 0.1, label_bandwidth: float = 1.0, conditioning: str = "prediction"
) -> torch.Tensor:
    r"""Unbiased MMD² between :math:`(\hat{\mathbf p}, Y)` and :math:`(\hat{\mathbf p}, \hat Y)` (Marx et al., Jürgens et al. Eq. 9).

    .. math::
        \widehat{MMD}^2 = \binom N2^{-1}\sum_{i<j} k_p(\hat{\mathbf p}_i, \hat{\mathbf p}_j)\,
        (\mathbf e_{y_i} - \hat{\mathbf p}_i)^\top \mathbf K_y (\mathbf e_{y_j} - \hat{\mathbf p}_j),

    the U-statistic of the kernel :math:`k((\mathbf p, y), (\mathbf p', y')) = k_p(\mathbf p,
    \mathbf p')\,k_y(y, y')` with the expectation over :math:`\hat Y_i \sim \mathrm{Cat}(\hat{\mathbf p}_i)`
    in closed form; :math:`k_p` Gaussian with ``bandwidth`` σ_p, :math:`k_y` Gaussian on one-hot
    labels with ``label_bandwidth`` σ_y. ``conditioning="none"`` drops :math:`k_p` (the authors'
    code, which only compares class frequencies). See the module docstring for its relation to SKCE.

    Examples
    --------
    >>> p = [[0.9, 0.1], [0.9, 0.1]]
    >>> round(float(mmd_calibration_error(p, [1, 1], label_bandwidth=1.0)), 4)    # (1 - 1/e) * 1.62
    1.024
    """
    h = _check_bandwidth(bandwidth)
    hy = _check_bandwidth(label_bandwidth, "label_bandwidth")
    check_choice(conditioning, "conditioning", CONDITIONING)
    p, y = _tensors(probs, labels, min_instances=2)
    return _mmd(p, y, h, hy, conditioning)


def estimator_function(name: str, **options):
    """The unvalidated, batched torch function ``f(p (B, N, K), y (B, N)) -> (B,)`` of a named estimator.

    ``options`` are those of the estimator's function (e.g. ``bandwidth``); defaults are filled in
    from :data:`ESTIMATOR_BANDWIDTHS`. Used by the weight learner and by
    :func:`credalbook.stats.estimator_measure`.
    """
    if not (isinstance(name, str) and name in ESTIMATORS):
        raise ValueError(f"name must be one of the estimators {sorted(ESTIMATORS)}; got {name!r}")
    if name in ESTIMATOR_BANDWIDTHS:
        options["bandwidth"] = _check_bandwidth(options.get("bandwidth", ESTIMATOR_BANDWIDTHS[name]))
    elif "bandwidth" in options and options["bandwidth"] is not None:
        raise ValueError("bandwidth does not apply to the Brier score; pass bandwidth=None")
    else:
        options.pop("bandwidth", None)
    if name == "skce":
        check_choice(options.setdefault("estimator", "linear"), "estimator", SKCE_ESTIMATORS)
    if name == "mmd":
        options["label_bandwidth"] = _check_bandwidth(options.get("label_bandwidth", 1.0), "label_bandwidth")
        check_choice(options.setdefault("conditioning", "prediction"), "conditioning", CONDITIONING)
    return functools.partial(_FUNCS[name], **options)
