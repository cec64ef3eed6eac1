"""Every predictor of Mimori et al. (2022)'s tables on the test split of a Mix dataset (cached).

:func:`mimori_predictions` fits ts / vs / ms and α-calibration on validation label histograms (2, 5 and
a variable number of labels standing in for the private MDS data), runs MC dropout and TTA (20 samples)
on the test split, and keeps per predictor ("Raw", "MCDO+ts+α", …) the CPEs, DPEs (Eqs. 73-75) and
posterior CPEs after one more label (Eqs. 81-83).

Choices the paper leaves open (documented in the chapter): calibrators and α heads are fitted on the
deterministic (eval-mode) validation outputs and applied to every MC-dropout / TTA member, so the
α variants reuse their base's members (identical CPEs); MC dropout reuses the dropout-free trunk of
the network (exact, much cheaper); the extra label of Table 2 is drawn independently of the test
labels.

References
----------
Mimori, Sasada, Matsui, Sato. Diagnostic Uncertainty Calibration: Towards Reliable Machine
Predictions in Medical Domain. arXiv:2007.01659 (2022).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.special import softmax
from torch import nn

from credalbook._progress import progress_bar
from credalbook._validation import check_positive_int
from credalbook.cache import cached
from credalbook.calibration.alpha import (
    AlphaCalibrator,
    extract_features,
    mc_dropout_samples,
    RandomAugment,
    tta_samples,
)
from credalbook.calibration.dirichlet import dirichlet_posterior_probs, ensemble_disagreement, ensemble_posterior_probs
from credalbook.calibration.scaling import CALIBRATORS
from credalbook.calibration.selection import select_calibrator
from credalbook.data.mix import sample_label_hist, variable_label_counts
from credalbook.nn.device import resolve_device
from credalbook.nn.models import dropout_modules
from credalbook.nn.vgg import ThreeConvNet
from credalbook.papers.mimori.controls import constant_alpha0, constant_dpe_shrinkage, SharedTemperatureEnsembleScaling
from credalbook.papers.mimori.networks import _augment_options, _mix, _resolve_arch, MixNetwork, train_mix_network

__all__ = ["PredictorOutputs", "MimoriPredictions", "mimori_predictions", "network_arguments"]


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
    r"""Outputs of :func:`mimori_predictions`.

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
    controls : dict (config, name) -> PredictorOutputs
        The controls of the chapter's rows (:meth:`control_names`): ``"X+γ"``, the DPEs of X shrunk by the
        constant factor fitted on the validation histograms (:func:`~credalbook.papers.mimori.constant_dpe_shrinkage`);
        ``"X+α0"``, the DPEs of X under one concentration fitted by α's own objective on the same validation CPEs as
        the α head (:func:`~credalbook.papers.mimori.constant_alpha0`); ``"X+α(conv.)"``, the α head fitted to
        convergence (full-batch L-BFGS on all of validation) instead of App. E.4's schedule; ``"X+α+γ"``, the DPEs
        of X+α times the least-squares constant fitted on X+α's validation DPEs (their overall level);
        ``"X+α(det.)"`` for the ensembles X (MCDO, TTA and their calibrators), α0 predicted once per instance from the
        deterministic network's features and shared by the members, instead of from each member's own features
        (App. D.4's ensemble of Dirichlets), where the head, fitted on deterministic features, extrapolates;
        ``"MCDO+ts(ens)"``, ``"TTA+ts(ens)"``, the members scaled by one temperature fitted to the NLL of the
        validation ensemble mean (:class:`~credalbook.papers.mimori.SharedTemperatureEnsembleScaling`);
        ``"MCDO (Σ)"``, ``"MCDO+ts (Σ)"``, …, the ensembles with the posterior of the authors' likelihood
        :math:`\sum_k f_k^{y_k}` instead of Bayes' rule.
    ensemble_temperatures : dict (config, base) -> float
        The temperature of ``base+ts(ens)``.
    member_logits : dict base -> ndarray (N, S, K)
        Test logits of the MCDO / TTA members (for temperature scans of the ensemble means).
    """

    dataset: str
    configs: tuple
    true_probs: np.ndarray = field(repr=False)
    test_hist: dict = field(repr=False)
    posterior_hist: np.ndarray = field(repr=False)
    predictors: dict = field(repr=False)
    temperatures: dict
    network: MixNetwork = field(repr=False)
    controls: dict = field(default_factory=dict, repr=False)
    ensemble_temperatures: dict = field(default_factory=dict)
    member_logits: dict = field(default_factory=dict, repr=False)

    def names(self, config) -> list:
        """Predictor names of `config` in table order."""
        return [n for c, n in self.predictors if c == config]

    def control_names(self, config) -> list:
        """Names of the controls of `config` (:attr:`controls`)."""
        return [n for c, n in getattr(self, "controls", {}) if c == config]

    def outputs(self, config, name) -> PredictorOutputs:
        """The predictor or control `name` of `config`."""
        key = (config, name)
        return self.predictors[key] if key in self.predictors else getattr(self, "controls", {})[key]


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
        # precompute=False: the grid-then-Brent search on the full objective that the records were computed with
        return CALIBRATORS["ts"](precompute=False).fit(logits, hist, seed=seed, **options)
    return select_calibrator(logits, hist, method=method, seed=seed, **options).calibrator


def _test_members(model, net, images, logits_test, feats_test, *, n_samples: int, device, seed: int) -> dict:
    """The predictions of step 3 of :func:`mimori_predictions` on `images`: ``{"Raw" | "MCDO" | "TTA": (logits
    (N, S, K), penultimate features (N, S, D))}`` (S = 1 for Raw; TTA only when the network was trained with
    augmentation)."""
    members = {"Raw": (logits_test[:, None], feats_test[:, None])}
    trunk, top = _split_at_first_dropout(model)
    _, feats = mc_dropout_samples(
        top, _apply(trunk, images, device), n_samples=n_samples, device=device, seed=seed, return_features=True
    )
    members["MCDO"] = (
        _apply(model.head, feats.reshape(-1, feats.shape[-1]), device).reshape(*feats.shape[:2], -1),
        feats,
    )
    if net.augment is not None:
        _, feats = tta_samples(
            model,
            images,
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
    return members


#: Offset of the seed of the validation MC-dropout / TTA draws (the test draws use `seed` itself).
_VAL_SEED = 7919


def _calibrated(cal, logits: np.ndarray) -> np.ndarray:
    """Member probabilities (N, S, K) of member logits through a fitted CPE calibrator (None: softmax)."""
    if cal is None:
        return softmax(logits, axis=2)
    return cal.predict_proba(logits.reshape(-1, logits.shape[-1])).reshape(logits.shape)


def _controls(cfg, name: str, ens: np.ndarray, val_ens: np.ndarray, val_hist, post_hist, alpha0: float) -> dict:
    """The controls of predictor `name` (:attr:`MimoriPredictions.controls`): its DPEs shrunk by the constant fitted
    on validation (least squares), its DPEs under the constant `alpha0` fitted by α's own objective (Eq. 50) and,
    for an ensemble, its posterior under the authors' Σ-likelihood."""
    gamma = constant_dpe_shrinkage(ensemble_disagreement(val_ens), val_hist)
    probs = ens.mean(axis=1)
    out = {
        (cfg, f"{name}+γ"): PredictorOutputs(probs, gamma * ensemble_disagreement(ens)),
        (cfg, f"{name}+α0"): PredictorOutputs(
            probs, ensemble_disagreement(ens, alpha0=alpha0), alpha0=np.full(len(probs), alpha0)
        ),
    }
    if ens.shape[1] > 1:
        sum_post = ensemble_posterior_probs(ens, post_hist, likelihood="sum")
        out[(cfg, f"{name} (Σ)")] = PredictorOutputs(probs, ensemble_disagreement(ens), sum_post)
    return out


def _fit_ensemble_temperature(val_logits: np.ndarray, val_hist, options: dict, seed: int) -> float:
    """T of :class:`SharedTemperatureEnsembleScaling` on validation member logits (N, S, K), with the options of ts."""
    return SharedTemperatureEnsembleScaling().fit(val_logits, val_hist, seed=seed, **options).temperature


def _training_arguments(
    dataset, sizes, mix_fraction, arch, arch_options, epochs, augment, n_labels_test, training, seed, train_labels
) -> dict:
    """The arguments of :func:`train_mix_network` (but ``device`` and ``progress``) for those of
    :func:`mimori_predictions`."""
    return dict(
        dataset=dataset,
        sizes=sizes,
        mix_fraction=mix_fraction,
        arch=arch,
        arch_options=arch_options,
        epochs=epochs,
        augment=augment,
        n_labels_test=n_labels_test,
        seed=seed,
        **({} if train_labels is None else {"train_labels": train_labels}),
        **dict(training or {}),
    )


def network_arguments(dataset: str = "fashion_mnist", **kwargs) -> dict:
    """The arguments of :func:`~credalbook.papers.mimori.train_mix_network` with which
    :func:`mimori_predictions` ``(dataset, **kwargs)`` trains its network (without ``device`` and ``progress``).

    The chapter's parts train these networks once each and record them; ``mimori_predictions(..., network=)`` then
    takes the recorded network instead of training it.

    Examples
    --------
    >>> args = network_arguments("digits", seed=3, training={"lr": 0.01}, n_samples=5)
    >>> args["seed"], args["lr"], "n_samples" in args
    (3, 0.01, False)
    """
    bound = inspect.signature(mimori_predictions).bind(dataset, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    return _training_arguments(
        a["dataset"], a["sizes"], a["mix_fraction"], a["arch"], a["arch_options"], a["epochs"], a["augment"],
        a["n_labels_test"], a["training"], a["seed"], a["train_labels"],
    )  # fmt: skip


def _checked_network(network, train: dict, mix) -> MixNetwork:
    """``network`` when it is a :class:`MixNetwork` of the architecture, augmentation and data these arguments train."""
    if not isinstance(network, MixNetwork):
        raise TypeError(f"network must be a MixNetwork or None; got {type(network).__name__}")

    want = dict(
        arch=_resolve_arch(train["arch"], mix.image_shape),
        arch_options=dict(train["arch_options"] or {}),
        augment=_augment_options(train["dataset"], train["augment"]),
        image_shape=tuple(mix.image_shape),
        n_classes=mix.n_classes,
    )
    got = dict(
        arch=_resolve_arch(network.arch, network.image_shape),
        arch_options=dict(network.arch_options or {}),
        augment=network.augment,
        image_shape=tuple(network.image_shape),
        n_classes=network.n_classes,
    )
    differ = sorted(k for k in want if want[k] != got[k])
    if differ:
        raise ValueError(
            "network was trained with other settings than these arguments train: "
            + "; ".join(f"{k} {got[k]!r} (these arguments: {want[k]!r})" for k in differ)
        )
    return network


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
    train_labels: float | None = None,
    network: MixNetwork | None = None,
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

    `train_labels` (a mean number of labels per training image) trains the network on label histograms
    (:func:`train_mix_network`: the analogue of MDS-full by label replication); None trains on one label (MDS-1).

    `network`: the :class:`~credalbook.papers.mimori.MixNetwork` that :func:`train_mix_network` returns for
    :func:`network_arguments` of these arguments (e.g. loaded from the chapter's record of it); None trains it (or
    loads it from the cache). A network trained with another architecture, augmentation or image shape is refused.
    """
    configs = tuple(n_labels_val) + (("variable",) if variable_labels is not None else ())
    # App. E.4 fits ts / vs / ms and the α head with Adam (lr 1e-3, at most 50 epochs) and early stopping on a
    # held-out 20 % of the validation set: ask for it, since the library's default fits to convergence on all data.
    opts = {"optimizer": "adam", **dict(calibration or {})}
    train = _training_arguments(
        dataset, sizes, mix_fraction, arch, arch_options, epochs, augment, n_labels_test, training, seed, train_labels
    )
    mix = _mix(dataset, sizes, mix_fraction, n_labels_test, seed)
    if network is None:
        net = train_mix_network(**train, device=device, progress=progress)
    else:
        net = _checked_network(network, train, mix)
    model = net.build()
    logits_val, feats_val = extract_features(model, mix.val.images, device=device)
    logits_test, feats_test = extract_features(model, mix.test.images, device=device)
    members = _test_members(
        model, net, mix.test.images, logits_test, feats_test, n_samples=n_samples, device=device, seed=seed
    )
    val_members = _test_members(
        model, net, mix.val.images, logits_val, feats_val, n_samples=n_samples, device=device, seed=seed + _VAL_SEED
    )
    val_hist, test_hist, post_hist = _label_hists(mix, configs, variable_labels, seed)
    k = mix.n_classes
    predictors, temperatures, controls, ens_temps = {}, {}, {}, {}
    for cfg in progress_bar(configs, progress=progress, desc="calibrate", leave=False):
        cals = {"": None, **{c: _fit_calibrator(c, logits_val, val_hist[cfg], opts, seed) for c in calibrators}}
        if "ts" in cals:
            temperatures[cfg] = cals["ts"].temperature
        rows = {}
        for cname, cal in cals.items():
            p_val = softmax(logits_val, axis=1) if cal is None else cal.predict_proba(logits_val)
            head = AlphaCalibrator(lambda_alpha).fit(feats_val, p_val, val_hist[cfg], seed=seed, **opts)
            a0_const = constant_alpha0(p_val, val_hist[cfg], reg=lambda_alpha)  # the head without its features
            # the head fitted to convergence (full-batch L-BFGS on all of validation) instead of App. E.4's schedule
            head_conv = AlphaCalibrator(lambda_alpha).fit(feats_val, p_val, val_hist[cfg], seed=seed, optimizer="auto")
            for base, (lg, ft) in members.items():
                ens = softmax(lg, axis=2) if cal is None else cal.predict_proba(lg.reshape(-1, k)).reshape(lg.shape)
                a0 = head.predict_alpha0(ft)
                name, probs = base + (f"+{cname}" if cname else ""), ens.mean(axis=1)
                post = None if base == "Raw" else ensemble_posterior_probs(ens, post_hist)
                rows[name] = PredictorOutputs(probs, ensemble_disagreement(ens), post)
                val_ens = _calibrated(cal, val_members[base][0])
                controls.update(_controls(cfg, name, ens, val_ens, val_hist[cfg], post_hist, a0_const))
                # α's DPEs times the least-squares constant fitted on α's own validation DPEs (its overall level)
                val_dpe = ensemble_disagreement(val_ens, alpha0=head.predict_alpha0(val_members[base][1]))
                level = constant_dpe_shrinkage(val_dpe, val_hist[cfg])
                a0_conv = head_conv.predict_alpha0(ft)
                controls[(cfg, f"{name}+α+γ")] = PredictorOutputs(
                    probs, level * ensemble_disagreement(ens, alpha0=a0), alpha0=a0.mean(axis=1)
                )
                if base != "Raw":  # α0 from the deterministic features (Raw's one member), shared by the members
                    a0_det = head.predict_alpha0(members["Raw"][1])  # (N, 1)
                    controls[(cfg, f"{name}+α(det.)")] = PredictorOutputs(
                        probs, ensemble_disagreement(ens, alpha0=a0_det), alpha0=a0_det[:, 0]
                    )
                controls[(cfg, f"{name}+α(conv.)")] = PredictorOutputs(
                    probs, ensemble_disagreement(ens, alpha0=a0_conv), alpha0=a0_conv.mean(axis=1)
                )
                rows[name + "+α"] = PredictorOutputs(
                    probs,
                    ensemble_disagreement(ens, alpha0=a0),
                    dirichlet_posterior_probs(probs, a0[:, 0], post_hist) if base == "Raw" else None,
                    a0.mean(axis=1),
                )
        order = [f"{b}{'+' + c if c else ''}{a}" for b in members for c in cals for a in ("", "+α")]
        predictors.update({(cfg, n): rows[n] for n in order})
        for base in ("MCDO", "TTA") if "ts" in cals else ():
            if base in members:
                t_ens = _fit_ensemble_temperature(val_members[base][0], val_hist[cfg], opts, seed)
                ens_temps[(cfg, base)] = t_ens
                ens = softmax(members[base][0] / t_ens, axis=2)
                controls[(cfg, f"{base}+ts(ens)")] = PredictorOutputs(
                    ens.mean(axis=1), ensemble_disagreement(ens), ensemble_posterior_probs(ens, post_hist)
                )
    member_logits = {b: lg for b, (lg, _) in members.items() if b != "Raw"}
    return MimoriPredictions(
        dataset,
        configs,
        mix.test.true_probs,
        test_hist,
        post_hist,
        predictors,
        temperatures,
        net,
        controls,
        ens_temps,
        member_logits,
    )
