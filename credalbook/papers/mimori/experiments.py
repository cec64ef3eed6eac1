r"""The experiments of Mimori et al. (2022): simulations, Mix-data networks and the tables' metrics.

* :func:`debiasing_study` — Fig. 2 / App. B.5: plug-in and debiased EL and CL of a perfect binary
  predictor with 2 or 5 labels per instance, over N, with 90 % intervals for the mean of the runs.
* :func:`optimal_log_alpha0_grid` — Fig. 3 / App. D.2: Newton optima of :math:`\log\alpha_0`.
* :func:`theorem1_check` — Theorem 1 / App. D.3: Monte-Carlo losses of the Dirichlet DPE and of the
  posterior CPE over :math:`\alpha_0` against the closed forms, optima and improvement intervals.
* :func:`train_mix_network` (cached) — the base network on a Mix dataset (App. E.2-E.3).
* :func:`mimori_predictions` (cached) — ts / vs / ms and α-calibration fitted on validation label
  histograms (2, 5 and a variable number of labels standing in for the private MDS data), MC
  dropout and TTA (20 samples) on the test split; per predictor ("Raw", "MCDO+ts+α", …) the CPEs,
  DPEs (Eqs. 73-75) and posterior CPEs after one more label (Eqs. 81-83).
* :func:`evaluate_predictors` — the metrics of Tables 1, 2, 4-6 for every predictor;
  :func:`ts_dpe_shift` — App. F.2's :math:`\Delta^D` and the data of Fig. 4. The paper's own
  numbers are in :mod:`credalbook.papers.mimori.reported`.

Choices the paper leaves open (documented in the chapter): calibrators and α heads are fitted on the
deterministic (eval-mode) validation outputs and applied to every MC-dropout / TTA member, so the
α variants reuse their base's members (identical CPEs); MC dropout reuses the dropout-free trunk of
the network (exact, much cheaper); the extra label of Table 2 is drawn independently of the test
labels; accuracy is against the majority of each test histogram (ties to the lowest class, as the
authors' code).

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import stats
from scipy.special import softmax
from torch import nn

from credalbook._deprecation import renamed
from credalbook._parallel import check_n_jobs, sweep
from credalbook._progress import progress_bar
from credalbook._validation import check_choice, check_positive_int
from credalbook.cache import cached, checkpoint_path
from credalbook.calibration.alpha import (
    AlphaCalibrator,
    extract_features,
    mc_dropout_samples,
    PAPER_AUGMENTATIONS,
    RandomAugment,
    tta_samples,
)
from credalbook.calibration.dirichlet import dirichlet_posterior_probs, ensemble_disagreement, ensemble_posterior_probs
from credalbook.calibration.scaling import CALIBRATORS
from credalbook.calibration.selection import select_calibrator
from credalbook.data.mix import make_mix_dataset, sample_label_hist, variable_label_counts
from credalbook.metrics.label_hist import cpe_loss_decomposition, expected_squared_loss
from credalbook.metrics.label_stats import statistic_calibration, statistic_squared_loss
from credalbook.nn.device import resolve_device
from credalbook.nn.models import dropout_modules
from credalbook.nn.training import fit
from credalbook.nn.vgg import ThreeConvNet, VGGNet
from credalbook.papers.mimori.alpha0 import (
    dpe_alpha0_interval,
    dpe_conditional_loss,
    optimal_log_alpha0,
    posterior_alpha0_interval,
    posterior_conditional_epistemic_loss,
)

__all__ = [
    "MIX_AUGMENTATIONS",
    "PAPER_Z1_GRID",
    "DebiasingStudy",
    "debiasing_study",
    "AlphaOptimumGrid",
    "optimal_log_alpha0_grid",
    "Theorem1Check",
    "theorem1_check",
    "MixNetwork",
    "build_mix_network",
    "mix_training_settings",
    "train_mix_network",
    "PredictorOutputs",
    "MimoriPredictions",
    "mimori_predictions",
    "evaluate_predictors",
    "bootstrap_metrics",
    "ts_dpe_shift",
    "dpe_reliability",
    "released_code_el_cl",
    "released_code_demo",
]

#: Training / TTA augmentation per base dataset: the paper's for CIFAR-10, none for MNIST (no TTA,
#: as Table 4); Fashion-MNIST gets mild flips, shifts and rotations (our choice) so that TTA exists.
MIX_AUGMENTATIONS = {
    "mnist": None,
    "digits": None,
    "fashion_mnist": {"rotation": 10.0, "shift": 2.0, "hflip": True},
    "cifar10": PAPER_AUGMENTATIONS["mix_cifar10"],
}
#: First-class CPEs of Fig. 3 (a setting of the paper: Fig. 3's caption, App. D.2).
PAPER_Z1_GRID = (0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 0.999)


# ------------------------------------------------------------------------------------- simulations
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
            d = cpe_loss_decomposition(sample_label_hist(probs, n, seed=rng), probs, n_bins=n_bins)
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
        out[int(n)] = optimal_log_alpha0(hist, probs, reg=lam.ravel()).reshape(lam.shape)
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


# ---------------------------------------------------------------------------------------- networks
@dataclass(frozen=True)
class MixNetwork:
    """A trained base network (state dict on the CPU) with its constructor settings and training record."""

    state_dict: dict = field(repr=False)
    arch: str
    arch_options: dict
    n_classes: int
    image_shape: tuple
    augment: dict | None
    history: list = field(repr=False)
    best_epoch: int
    epochs_run: int
    seconds: float

    def build(self) -> nn.Module:
        """The network with the trained weights, in eval mode."""
        model = build_mix_network(
            self.arch, n_classes=self.n_classes, image_shape=self.image_shape, **self.arch_options
        )
        model.load_state_dict(self.state_dict)
        return model.eval()


def build_mix_network(arch: str = "auto", *, n_classes: int, image_shape: tuple, **options) -> nn.Module:
    """:class:`~credalbook.nn.ThreeConvNet` ("threeconv") or :class:`~credalbook.nn.VGGNet` ("vgg");
    "auto" picks the three-conv network for one channel and VGG for colour images (App. E.2).

    Examples
    --------
    >>> type(build_mix_network(n_classes=10, image_shape=(1, 28, 28))).__name__
    'ThreeConvNet'
    """
    c, h, w = image_shape
    arch = ("threeconv" if c == 1 else "vgg") if arch == "auto" else check_choice(arch, "arch", {"threeconv", "vgg"})
    cls = ThreeConvNet if arch == "threeconv" else VGGNet
    return cls(in_channels=c, n_classes=n_classes, image_size=(h, w), **options)


def mix_training_settings(image_shape: tuple, epochs: int | None = None) -> dict:
    """Training schedule of App. E.3: grey 28×28 data (Mix-MNIST) at most 100 epochs with patience 10; colour
    data (Mix-CIFAR-10) 250 epochs, 5 warm-up epochs, ×0.1 after epochs 100 and 150, best weights kept.
    A smaller `epochs` keeps the shape of the schedule (milestones at 40 % and 60 %).

    Examples
    --------
    >>> mix_training_settings((3, 32, 32), epochs=10)
    {'epochs': 10, 'patience': None, 'warmup_epochs': 1, 'milestones': (4, 6)}
    """
    if image_shape[0] == 1:
        return dict(epochs=100 if epochs is None else epochs, patience=10, warmup_epochs=0, milestones=())
    e = 250 if epochs is None else epochs
    return dict(epochs=e, patience=None, warmup_epochs=min(5, max(e // 10, 0)), milestones=(int(0.4 * e), int(0.6 * e)))


def _augment_options(dataset: str, augment):
    return MIX_AUGMENTATIONS.get(dataset) if isinstance(augment, str) and augment == "auto" else augment


def _mix(dataset, sizes, mix_fraction, n_labels_test, seed):
    return make_mix_dataset(
        dataset,
        sizes=None if sizes is None else tuple(sizes),
        mix_fraction=mix_fraction,
        n_labels_val=1,
        n_labels_test=n_labels_test,
        seed=seed,
    )


@cached(ignore=["device", "progress"])
def train_mix_network(
    dataset: str = "fashion_mnist",
    *,
    sizes=None,
    mix_fraction: float = 1 / 3,
    arch: str = "auto",
    arch_options=None,
    epochs: int | None = None,
    augment="auto",
    batch_size: int = 128,
    lr: float = 1e-3,
    n_labels_test: int = 10,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
) -> MixNetwork:
    """Train the base network on the single-labelled training split of a Mix dataset (App. E.2-E.3; cached).

    Adam (lr 1e-3, batch 128) with the schedule of :func:`mix_training_settings`; the validation loss
    (one label per instance) picks the kept weights. `augment` ("auto": :data:`MIX_AUGMENTATIONS`, a
    dict of :class:`~credalbook.calibration.RandomAugment` options, or None) is applied to
    training batches. `sizes` = (train, validation, test) instances (None: the paper's). The training
    keeps a checkpoint (:func:`~credalbook.cache.checkpoint_path`) after every epoch, so an interrupted
    paper-scale run resumes where it stopped when the function is called again with the same arguments.
    """
    ckpt = checkpoint_path("train_mix_network", {k: v for k, v in locals().items() if k not in ("device", "progress")})
    mix = _mix(dataset, sizes, mix_fraction, n_labels_test, seed)
    aug = _augment_options(dataset, augment)
    options = dict(arch_options or {})
    torch.manual_seed(seed)
    model = build_mix_network(arch, n_classes=mix.n_classes, image_shape=mix.image_shape, **options)
    settings = mix_training_settings(mix.image_shape, epochs)
    result = fit(
        model,
        mix.train.images,
        mix.train.labels,
        x_val=mix.val.images,
        y_val=mix.val.labels,
        batch_size=batch_size,
        lr=lr,
        restore_best=True,
        augment=None if aug is None else RandomAugment(**aug),
        seed=seed,
        device=device,
        progress=progress,
        checkpoint=ckpt,
        **settings,
    )
    state = {k: v.detach().cpu().clone() for k, v in result.model.state_dict().items()}
    return MixNetwork(
        state,
        arch,
        options,
        mix.n_classes,
        mix.image_shape,
        aug,
        list(result.history),
        result.best_epoch,
        result.epochs_run,
        result.seconds,
    )


# ------------------------------------------------------------------------------------- predictions
@dataclass(frozen=True)
class PredictorOutputs:
    """One predictor on the test split: CPEs (N, K), DPEs (N,), posterior CPEs after one label (or None) and,
    for α variants, the concentration α0 per instance (mean over the members of an ensemble)."""

    probs: np.ndarray = field(repr=False)
    dpe: np.ndarray = field(repr=False)
    posterior_probs: np.ndarray | None = field(default=None, repr=False)
    alpha0: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MimoriPredictions:
    """Outputs of :func:`mimori_predictions`.

    Attributes
    ----------
    dataset : str
    configs : tuple
        Validation label settings: ints (labels per instance) and "variable" (MDS-like counts).
    true_probs : ndarray (N, K)
        The test instances' true class probabilities Q.
    test_hist : dict config -> ndarray (N, K)
        Test label histograms (10 labels for the int configs, variable counts for "variable").
    posterior_hist : ndarray (N, K)
        One further label per test instance, for the posterior CPEs (Table 2).
    predictors : dict (config, name) -> PredictorOutputs
        Names like "Raw", "Raw+ts+α", "MCDO+vs", "TTA+ms+α".
    temperatures : dict config -> float
    network : MixNetwork
    """

    dataset: str
    configs: tuple
    true_probs: np.ndarray = field(repr=False)
    test_hist: dict = field(repr=False)
    posterior_hist: np.ndarray = field(repr=False)
    predictors: dict = field(repr=False)
    temperatures: dict
    network: MixNetwork = field(repr=False)

    def names(self, config) -> list:
        """Predictor names of `config` in table order."""
        return [n for c, n in self.predictors if c == config]


class _Top(nn.Module):
    """The part of a network from its first dropout layer on, with ``features`` and ``head``."""

    def __init__(self, features: nn.Module, head: nn.Module) -> None:
        super().__init__()
        self.body, self.head = features, head

    def features(self, x):
        return self.body(x)

    def forward(self, x):
        return self.head(self.body(x))


def _split_at_first_dropout(model: nn.Module) -> tuple[nn.Module, _Top]:
    """(trunk, top): the trunk has no dropout, so MC-dropout passes of ``top`` on the trunk's output are exact."""
    layers = list(model.body) if isinstance(model, ThreeConvNet) else [*model.conv, *model.dense]
    drop = set(dropout_modules(model))
    i = next(j for j, layer in enumerate(layers) if layer in drop)
    return nn.Sequential(*layers[:i]), _Top(nn.Sequential(*layers[i:]), model.head)


@torch.no_grad()
def _apply(module: nn.Module, x: np.ndarray, device, batch_size: int = 512) -> np.ndarray:
    device = resolve_device(device)
    module.to(device).eval()
    out = [
        module(torch.from_numpy(np.array(x[s : s + batch_size], dtype=np.float32)).to(device)).double().cpu()
        for s in range(0, len(x), batch_size)
    ]
    return torch.cat(out).numpy()


def _label_hists(mix, configs, variable_labels, seed):
    """Validation histograms per config, test histograms per config, and the posterior label."""
    n_val, n_test = len(mix.val), len(mix.test)
    streams = np.random.SeedSequence([seed, 3]).spawn(len(configs) + 1)
    val, test = {}, {}
    for cfg, ss in zip(configs, streams):
        rng = np.random.default_rng(ss)
        if cfg == "variable":
            counts = variable_label_counts(n_val, mean=variable_labels[0], seed=rng)
            val[cfg] = sample_label_hist(mix.val.true_probs, counts, seed=rng)
            counts = variable_label_counts(n_test, mean=variable_labels[1], seed=rng)
            test[cfg] = sample_label_hist(mix.test.true_probs, counts, seed=rng)
        else:
            val[cfg] = sample_label_hist(mix.val.true_probs, check_positive_int(cfg, "n_labels_val"), seed=rng)
            test[cfg] = mix.test.label_hist
    return val, test, sample_label_hist(mix.test.true_probs, 1, seed=np.random.default_rng(streams[-1]))


def _fit_calibrator(method, logits, hist, options, seed):
    if method not in CALIBRATORS:
        raise ValueError(f"calibrators must be among {sorted(CALIBRATORS)}; got {method!r}")
    if method == "ts":
        return CALIBRATORS["ts"]().fit(logits, hist, seed=seed, **options)
    return select_calibrator(logits, hist, method=method, seed=seed, **options).calibrator


# Settings of the paper among the defaults below (not results; those are in reported.json):
# variable_labels = MDS's mean labels per validation and test image (App. E.1), lambda_alpha (Eq. 50,
# App. D.2), n_samples = 20 MC-dropout / TTA samples (as in the authors' code).
@cached(ignore=["device", "progress"])
def mimori_predictions(
    dataset: str = "fashion_mnist",
    *,
    sizes=None,
    mix_fraction: float = 1 / 3,
    arch: str = "auto",
    arch_options=None,
    epochs: int | None = None,
    augment="auto",
    n_labels_val=(2, 5),
    variable_labels=(5.79, 7.58),
    n_labels_test: int = 10,
    calibrators=("ts", "vs", "ms"),
    training=None,
    calibration=None,
    lambda_alpha: float = 0.005,
    n_samples: int = 20,
    seed: int = 0,
    device: str = "auto",
    progress: bool = True,
) -> MimoriPredictions:
    r"""Every predictor of Tables 1, 2, 4-6 on the test split of a Mix dataset (cached).

    1. :func:`train_mix_network` (cached; `training` = its ``lr`` and ``batch_size``), logits and
       penultimate features in eval mode;
    2. per validation label setting (`n_labels_val`, plus "variable" with mean counts
       `variable_labels` = (validation, test), like MDS's 5.79 and 7.58, unless None): the CPE
       calibrators (ts; vs and ms with the grid of App. F.3) on the validation logits, and one α head
       (Eq. 50, λ_α = `lambda_alpha`) per calibrator on the calibrated validation CPEs (App. E.4:
       80 / 20 split, `calibration` = options of ``fit``, default Adam, 50 epochs, patience 10);
    3. test predictions: Raw, MCDO (`n_samples` dropout masks) and TTA (`n_samples` augmentations,
       when `augment` is not None); each member's logits go through each calibrator and each α head
       gives a concentration per member, so that DPEs follow Eqs. 73-75, posterior CPEs Eq. 81 (Raw+α)
       and Eq. 83 (ensembles; none for ensembles with α, as in the paper).
    """
    configs = tuple(n_labels_val) + (("variable",) if variable_labels is not None else ())
    # App. E.4 fits ts / vs / ms and the α head with Adam (lr 1e-3, at most 50 epochs) and early stopping on a
    # held-out 20 % of the validation set: ask for it, since the library's default fits to convergence on all data.
    opts = {"optimizer": "adam", **dict(calibration or {})}
    net = train_mix_network(
        dataset,
        sizes=sizes,
        mix_fraction=mix_fraction,
        arch=arch,
        arch_options=arch_options,
        epochs=epochs,
        augment=augment,
        n_labels_test=n_labels_test,
        seed=seed,
        device=device,
        progress=progress,
        **dict(training or {}),
    )
    mix = _mix(dataset, sizes, mix_fraction, n_labels_test, seed)
    model = net.build()
    logits_val, feats_val = extract_features(model, mix.val.images, device=device)
    logits_test, feats_test = extract_features(model, mix.test.images, device=device)
    members = {"Raw": (logits_test[:, None], feats_test[:, None])}
    trunk, top = _split_at_first_dropout(model)
    _, feats = mc_dropout_samples(
        top, _apply(trunk, mix.test.images, device), n_samples=n_samples, device=device, seed=seed, return_features=True
    )
    members["MCDO"] = (
        _apply(model.head, feats.reshape(-1, feats.shape[-1]), device).reshape(*feats.shape[:2], -1),
        feats,
    )
    if net.augment is not None:
        _, feats = tta_samples(
            model,
            mix.test.images,
            augment=RandomAugment(**net.augment),
            n_samples=n_samples,
            device=device,
            seed=seed,
            return_features=True,
        )
        members["TTA"] = (
            _apply(model.head, feats.reshape(-1, feats.shape[-1]), device).reshape(*feats.shape[:2], -1),
            feats,
        )
    val_hist, test_hist, post_hist = _label_hists(mix, configs, variable_labels, seed)
    k = mix.n_classes
    predictors, temperatures = {}, {}
    for cfg in progress_bar(configs, progress=progress, desc="calibrate", leave=False):
        cals = {"": None, **{c: _fit_calibrator(c, logits_val, val_hist[cfg], opts, seed) for c in calibrators}}
        if "ts" in cals:
            temperatures[cfg] = cals["ts"].temperature
        rows = {}
        for cname, cal in cals.items():
            p_val = softmax(logits_val, axis=1) if cal is None else cal.predict_proba(logits_val)
            head = AlphaCalibrator(lambda_alpha).fit(feats_val, p_val, val_hist[cfg], seed=seed, **opts)
            for base, (lg, ft) in members.items():
                ens = softmax(lg, axis=2) if cal is None else cal.predict_proba(lg.reshape(-1, k)).reshape(lg.shape)
                a0 = head.predict_alpha0(ft)
                name, probs = base + (f"+{cname}" if cname else ""), ens.mean(axis=1)
                post = None if base == "Raw" else ensemble_posterior_probs(ens, post_hist)
                rows[name] = PredictorOutputs(probs, ensemble_disagreement(ens), post)
                rows[name + "+α"] = PredictorOutputs(
                    probs,
                    ensemble_disagreement(ens, alpha0=a0),
                    dirichlet_posterior_probs(probs, a0[:, 0], post_hist) if base == "Raw" else None,
                    a0.mean(axis=1),
                )
        order = [f"{b}{'+' + c if c else ''}{a}" for b in members for c in cals for a in ("", "+α")]
        predictors.update({(cfg, n): rows[n] for n in order})
    return MimoriPredictions(dataset, configs, mix.test.true_probs, test_hist, post_hist, predictors, temperatures, net)


# -------------------------------------------------------------------------------------- evaluation
def evaluate_predictors(predictions: MimoriPredictions, config, *, names=None, n_bins: int = 15) -> dict:
    r"""The metrics of Tables 1, 2 and 4-6 for each predictor of `config`, on the test histograms.

    ``{name: {"Acc", "L_sq", "EL", "CE", "CL", "DL", "EL true", "L_phi", "CE_phi", "EL post"}}``:
    accuracy against the majority label of each histogram; :math:`\hat L_{sq}` (Eq. 8),
    :math:`\widehat{\mathrm{EL}}` (Eq. 10), :math:`\widehat{\mathrm{CE}}`, :math:`\widehat{\mathrm{CL}}`
    and :math:`\widehat{\mathrm{DL}}` (Eqs. 14, 36; 15 bins); the true EL from the known Q;
    :math:`\hat L_{\phi^D}` (Eq. 40) and :math:`\widehat{\mathrm{CE}}_{\phi^D}` (Eq. 44) of the DPEs;
    the unbiased EL of the posterior CPEs (Table 2; only where the predictor has them).
    """
    outputs = {n: predictions.predictors[(config, n)] for n in names or predictions.names(config)}
    return _metric_rows(predictions.test_hist[config], predictions.true_probs, outputs, _cpe_groups(outputs), n_bins)


def _cpe_groups(outputs: dict) -> dict:
    """``{name: the first name whose CPEs equal this predictor's}``: a "+α" predictor holds its base's CPEs
    (compared by value: a predictions object loaded from the cache holds copies)."""
    firsts: list = []
    groups = {}
    for n, p in outputs.items():
        groups[n] = next((m for m in firsts if np.array_equal(outputs[m].probs, p.probs)), n)
        if groups[n] == n:
            firsts.append(n)
    return groups


def _metric_rows(hist, true_probs, outputs: dict, groups: dict, n_bins: int, idx=None) -> dict:
    """The metrics of :func:`evaluate_predictors` for every predictor of ``outputs``, on the instances ``idx``
    (all if None). The CPE metrics are computed once per CPE group (``groups``, :func:`_cpe_groups`) and shared by
    its predictors: the same function of the same numbers, so every value is that of the predictor alone."""
    take = (lambda a: a) if idx is None else (lambda a: a[idx])
    hist, truth = take(hist), take(true_probs)
    cpe_metrics, rows = {}, {}
    for name, p in outputs.items():
        if groups[name] not in cpe_metrics:
            probs = take(p.probs)
            d = cpe_loss_decomposition(hist, probs, n_bins=n_bins)
            cpe_metrics[groups[name]] = {
                "Acc": float((probs.argmax(axis=1) == hist.argmax(axis=1)).mean()),
                "L_sq": expected_squared_loss(hist, probs),
                "EL": d.el_debiased,
                "CE": d.ce_debiased,
                "CL": d.cl_debiased,
                "DL": d.dl_debiased,
                "EL true": float(((probs - truth) ** 2).sum(axis=1).mean()),
            }
        dpe = take(p.dpe)
        row = {
            **cpe_metrics[groups[name]],
            "L_phi": statistic_squared_loss(hist, dpe),
            "CE_phi": statistic_calibration(hist, dpe, n_bins=n_bins).ce_debiased,
        }
        if p.posterior_probs is not None:
            row["EL post"] = cpe_loss_decomposition(hist, take(p.posterior_probs), n_bins=n_bins).el_debiased
        rows[name] = row
    return rows


@renamed(n_boot="n_resamples")
def bootstrap_metrics(
    predictions: MimoriPredictions,
    config,
    *,
    names=None,
    n_resamples: int = 200,
    n_bins: int = 15,
    seed: int = 0,
    n_jobs: int = 1,
) -> dict:
    r"""The metrics of :func:`evaluate_predictors` on `n_resamples` bootstrap resamples of the test instances.

    Every predictor is evaluated on the *same* resamples, so the standard error of a difference
    between two predictors (or of a ratio of two metrics) is the standard deviation of that
    difference over the resamples (a paired bootstrap over test instances). This is the
    uncertainty of the book's numbers that comes from the finite test split: the chapter trains one
    network, so it has no replicates over seeds.

    The resampling indices are drawn once, up front; the resamples are evaluated in fixed chunks of
    ``BOOT_CHUNK`` (25), ``n_jobs`` chunks at once through joblib (-1: all cores; inside
    ``joblib.parallel_config(backend="dask")`` on a ``dask.distributed`` cluster), so results do not
    depend on ``n_jobs``.

    Returns
    -------
    dict
        ``{name: {metric: ndarray (n_resamples,)}}``, the metrics of :func:`evaluate_predictors` except
        ``"EL true"``.

    Examples
    --------
    >>> from credalbook.papers.criteria import mean_se
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=400)
    >>> hist = np.stack([rng.multinomial(5, p) for p in q])
    >>> out = PredictorOutputs(q, 1 - (q**2).sum(axis=1))
    >>> pred = MimoriPredictions("demo", (5,), q, {5: hist}, hist[:, :1], {(5, "Q"): out}, {}, None)
    >>> b = bootstrap_metrics(pred, 5, n_resamples=50)
    >>> b["Q"]["EL"].shape, bool(abs(b["Q"]["EL"].mean()) < 3 * b["Q"]["EL"].std())   # the truth: EL = 0
    ((50,), True)
    """
    check_positive_int(n_resamples, "n_resamples")
    hist = predictions.test_hist[config]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 26]))
    idx = rng.integers(0, len(hist), size=(n_resamples, len(hist)))
    names = list(names or predictions.names(config))
    outputs = {n: predictions.predictors[(config, n)] for n in names}
    items = [
        (hist, predictions.true_probs, outputs, n_bins, idx[lo : lo + BOOT_CHUNK])
        for lo in range(0, n_resamples, BOOT_CHUNK)
    ]
    out = {n: {} for n in names}
    b = 0
    for rows in sweep(_boot_rows, items, n_jobs=check_n_jobs(n_jobs)):
        for row in rows:
            for n in names:
                for k, v in row[n].items():
                    if k != "EL true":
                        out[n].setdefault(k, np.empty(n_resamples))[b] = v
            b += 1
    return out


#: Bootstrap resamples per work unit of :func:`bootstrap_metrics` (fixed: results do not depend on ``n_jobs``).
BOOT_CHUNK = 25


def _boot_rows(hist, true_probs, outputs: dict, n_bins: int, idx: np.ndarray) -> list:
    """The metric rows of every predictor on each resample ``idx[b]`` of the test instances, in order."""
    groups = _cpe_groups(outputs)
    return [_metric_rows(hist, true_probs, outputs, groups, n_bins, i) for i in idx]


def ts_dpe_shift(predictions: MimoriPredictions, config, *, base: str = "Raw") -> dict:
    r"""App. F.2 / Fig. 4: how temperature scaling moves each instance's max CPE and DPE.

    Returns arrays ``max_cpe``, ``max_cpe_ts``, ``dpe``, ``dpe_ts`` and ``mean_delta``, the mean of
    :math:`\Delta^D = \varphi'^D - \varphi^D` (Eq. 85) over the test instances.
    """
    p, q = predictions.predictors[(config, base)], predictions.predictors[(config, base + "+ts")]
    return dict(
        max_cpe=p.probs.max(axis=1),
        max_cpe_ts=q.probs.max(axis=1),
        dpe=p.dpe,
        dpe_ts=q.dpe,
        mean_delta=float((q.dpe - p.dpe).mean()),
    )


def dpe_reliability(predictions: MimoriPredictions, config, names, *, n_bins: int = 15) -> dict:
    """``{name: StatisticCalibration}`` of the DPEs against the test histograms' disagreement (Figs. 1, 5b)."""
    hist = predictions.test_hist[config]
    return {n: statistic_calibration(hist, predictions.predictors[(config, n)].dpe, n_bins=n_bins) for n in names}


# ------------------------------------------------------------------- the authors' released estimators
def released_code_el_cl(label_hist, probs, *, n_bins: int = 15) -> dict:
    r"""ÊL and ĈL as the authors' released code computes them (a transcription, for comparison only).

    ``lh_calib/evaluation.py`` of github.com/m1m0r1/lh_calib, ``LHEval.get_cpe_decomp1`` (lines
    192-242) with the sums of ``LHEval.summarize`` (lines 260-264) and the binning of
    ``EquallySpacedBinningScheme`` (``np.digitize`` on the 14 inner edges, lines 107-116). Two
    places differ from the paper's estimators (and from :func:`~credalbook.metrics.epistemic_loss`,
    :func:`~credalbook.metrics.cpe_loss_decomposition`):

    * **instances with one label** (lines 202-204): every instance's plug-in term
      :math:`(\hat\mu_{ik} - z_{ik})^2 / N` is summed (line 202), but its bias term
      :math:`\hat\mu_{ik}(1 - \hat\mu_{ik}) / (n_i - 1) / N` is *masked* where :math:`n_i = 1`
      (line 204; masked entries drop out of the bin sums, line 217, and of pandas' sum, line 262),
      so a single-label instance enters ÊL uncorrected — its plug-in term has expectation
      :math:`\sum_k Q_k(1 - Q_k)` too many — and N still counts it. The paper leaves such
      instances out (footnote 5: ÊL "can only be evaluated when more than one label per instance
      is available").
    * **bins with one instance** (lines 218-221): the bin keeps its plug-in calibration term
      :math:`(\hat\mu_{ik} - z_{ik})^2 / N`, and its bias term is NaN ("not available", line 221),
      which pandas' sum in ``summarize`` (line 264) skips, so the bin enters ĈL uncorrected. App. B.3
      of the paper says "We use 0 for the estimators with such bins"; the book does (bins with
      fewer than two instances contribute 0).

    The transcription reproduces ``LHEval(LabelHist(y), pred).summarize(use_order2=False)``'s
    ``el_debias`` and ``cl_debias`` to rounding (checked against the released file).

    Returns
    -------
    dict
        ``{"EL": ..., "CL": ...}`` (debiased, as their ``el_debias`` and ``cl_debias``).

    Examples
    --------
    One instance with a single label: their ÊL keeps its plug-in term (0.5² + 0.5²) / 2.

    >>> released_code_el_cl([[2, 0], [1, 0]], [[1.0, 0.0], [0.5, 0.5]])["EL"]
    0.25
    """
    y = np.asarray(label_hist, dtype=float)
    z = np.asarray(probs, dtype=float)
    n_inst = len(y)
    tot = y.sum(axis=1)
    mu = y / tot[:, None]
    el = ((mu - z) ** 2).sum() / n_inst
    many = tot > 1  # their masked array: n_i − 1 == 0 is masked
    el_bias = (mu[many] * (1 - mu[many]) / (tot[many] - 1)[:, None]).sum() / n_inst
    idx = np.digitize(z, np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
    cl = cl_bias = 0.0
    for k in range(z.shape[1]):
        for b in range(n_bins):
            m = idx[:, k] == b
            size = int(m.sum())
            if size:
                cl += (mu[m, k].mean() - z[m, k].mean()) ** 2 * size / n_inst
            if size > 1:  # a bin with one instance: NaN, masked, i.e. no correction
                cl_bias += mu[m, k].var() * (size / (size - 1)) / n_inst
    return {"EL": float(el - el_bias), "CL": float(cl - cl_bias)}


def released_code_demo(*, n_runs: int = 400, seed: int = 0) -> dict:
    """Where the authors' released estimators are biased and the book's are not: a perfect predictor.

    A binary perfect predictor (``z = Q``, ``Q ~ U(0, 1)``, as in Fig. 2), so EL = CL = 0, in three
    settings: (a) 1 000 instances, half with one label and half with two; (b) 1 000 instances with
    MDS-like counts ``1 + Poisson(4.79)`` (mean 5.79, App. E.1's validation mean); (c) 20 instances
    with five labels each, so that most of the 15 bins hold one instance. Returns
    ``{setting: {"EL book", "EL released code", "CL book", "CL released code"}: (mean, standard
    error over n_runs)}``.

    Examples
    --------
    >>> out = released_code_demo(n_runs=20)
    >>> sorted(out)[0], sorted(out["(a) half single-labelled, N = 1000"])
    ('(a) half single-labelled, N = 1000', ['CL book', 'CL released code', 'EL book', 'EL released code'])
    """
    check_positive_int(n_runs, "n_runs")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2007]))
    settings = {
        "(a) half single-labelled, N = 1000": lambda: np.repeat([1, 2], 500),
        "(b) MDS-like counts 1 + Poisson(4.79), N = 1000": lambda: 1 + rng.poisson(4.79, 1000),
        "(c) 5 labels, N = 20 (most bins hold one instance)": lambda: np.full(20, 5),
    }
    out = {}
    for name, counts_of in settings.items():
        vals: dict = {}
        for _ in range(n_runs):
            counts = counts_of()
            q1 = rng.uniform(size=len(counts))
            q = np.stack([q1, 1 - q1], axis=1)
            y1 = rng.binomial(counts, q1)
            hist = np.stack([y1, counts - y1], axis=1)
            d = cpe_loss_decomposition(hist, q)
            theirs = released_code_el_cl(hist, q)
            for key, v in (
                ("EL book", d.el_debiased),
                ("CL book", d.cl_debiased),
                ("EL released code", theirs["EL"]),
                ("CL released code", theirs["CL"]),
            ):
                vals.setdefault(key, []).append(v)
        out[name] = {k: (float(np.mean(v)), float(np.std(v, ddof=1) / math.sqrt(n_runs))) for k, v in vals.items()}
    return out
