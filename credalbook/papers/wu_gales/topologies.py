r"""The network topologies of Wu & Gales (2021) and cached ensembles of them on stored logits.

The paper's ensembles (Sec. 4.3, App. A.4) combine ten members of each of four topologies trained
on CIFAR-100 (and CIFAR-10) "following the original training recipes in each paper":

- **LEN**, LeNet-5 (LeCun et al. 1998): :class:`LeNet5`, about 62 k parameters;
- **DSN100**, DenseNet-BC with depth 100 and growth rate k = 12 (Huang et al. 2017), and
  **DSN121**, DenseNet-121 (k = 32, blocks of 6, 12, 24, 16 layers): :class:`DenseNet`,
  0.8 M and 7.0 M parameters (8.0 M with ImageNet's 1000-class output);
- **RSN**, wide ResNet 28-10 (Zagoruyko & Komodakis 2016): :class:`WideResNet`, 36.5 M.

The networks and the CIFAR augmentation live in :mod:`credalbook.nn.architectures`
(:func:`~credalbook.nn.build_topology` builds one from a family name and keyword
arguments). Here :data:`PAPER_TOPOLOGIES` holds the paper's sizes and training recipes and
:data:`QUICK_TOPOLOGIES` scaled-down counterparts that train on a CPU.

:func:`topology_ensemble_logits` trains the members of one topology from different seeds with
:func:`credalbook.nn.fit` on a common train / validation split (the paper holds out 5 000 of
the 50 000 CIFAR training images, 10 %) and returns their logits on the validation and test sets,
shape (N, M, K): the stored predictions the ensemble calibrators of
:mod:`credalbook.calibration.ensemble` and the combination weights of
:mod:`credalbook.calibration.combination` work on. Each member is cached on disk
(:func:`credalbook.cache.cached`) keyed by its full configuration, so a larger ensemble reuses the
members already trained.

References
----------
Wu, Gales. Should Ensemble Members Be Calibrated? arXiv:2101.05397 (2021), Sec. 4.3, App. A.4.
LeCun, Bottou, Bengio, Haffner. Gradient-based learning applied to document recognition. Proc.
IEEE 86(11), 1998.
Huang, Liu, van der Maaten, Weinberger. Densely connected convolutional networks. CVPR 2017.
Zagoruyko, Komodakis. Wide residual networks. BMVC 2016 (arXiv:1605.07146).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from joblib import delayed, Parallel
from scipy.special import softmax

from credalbook._validation import check_positive_int
from credalbook.cache import cache_dir, cached, checkpoint_path
from credalbook.cache import ENV_VAR as CACHE_ENV_VAR
from credalbook.data.images import load_dataset
from credalbook.data.splits import train_val_test_split
from credalbook.nn.architectures import build_topology, PadCropFlip
from credalbook.nn.device import resolve_device
from credalbook.nn.ensembles import MemberPredictions
from credalbook.nn.models import count_parameters
from credalbook.nn.training import fit, predict_logits

__all__ = [
    "PAPER_TOPOLOGIES",
    "QUICK_TOPOLOGIES",
    "TopologyEnsemble",
    "resolve_network_scale",
    "topology_ensemble_logits",
    "topology_member_logits",
]


# ----------------------------------------------------------------------- paper and quick sizes
def _recipe(epochs, batch_size, lr, weight_decay, milestones=(), lr_decay=0.1, momentum=0.9, channels_last=False):
    return dict(
        epochs=epochs,
        batch_size=batch_size,
        optimizer="sgd",
        lr=lr,
        momentum=momentum,
        weight_decay=weight_decay,
        milestones=tuple(milestones),
        lr_decay=lr_decay,
        **({"channels_last": True} if channels_last else {}),
    )


#: The paper's topologies (Sec. 4.3, App. A.4) with their original training recipes: DenseNets
#: (Huang et al. 2017, Sec. 4.2) SGD with Nesterov momentum 0.9, batch 64, 300 epochs, lr 0.1
#: divided by 10 at 50 % and 75 % of training, weight decay 1e-4; WRN-28-10 (Zagoruyko &
#: Komodakis 2016, Sec. 3) SGD with Nesterov momentum 0.9, batch 128, 200 epochs, lr 0.1 times 0.2
#: at epochs 60, 120, 160, weight decay 5e-4, no dropout. Assumptions where the papers are silent:
#: DenseNet-121 (an ImageNet design) gets the CIFAR DenseNet recipe; LeNet-5 has no CIFAR recipe,
#: ours is SGD, momentum 0.9, batch 128, 100 epochs, lr 0.01 divided by 10 at epochs 50 and 75.
#: Nesterov momentum is replaced by plain momentum (:func:`credalbook.nn.fit` has none).
PAPER_TOPOLOGIES = {
    "LEN": dict(family="lenet5", model={}, train=_recipe(100, 128, 0.01, 5e-4, (50, 75))),
    "DSN100": dict(
        family="densenet", model=dict(depth=100, growth_rate=12), train=_recipe(300, 64, 0.1, 1e-4, (150, 225))
    ),
    "DSN121": dict(
        family="densenet",
        model=dict(block_config=(6, 12, 24, 16), growth_rate=32),
        train=_recipe(300, 64, 0.1, 1e-4, (150, 225)),
    ),
    "RSN": dict(
        family="wide_resnet",
        model=dict(depth=28, widen_factor=10),
        train=_recipe(200, 128, 0.1, 5e-4, (60, 120, 160), lr_decay=0.2),
    ),
}

#: Scaled-down counterparts that train on a CPU (same families, schedule shapes, fewer epochs):
#: LeNet-5 unchanged (62 k parameters); DenseNet-BC-16 with k = 8 for DSN100 (20 k); a four-block
#: DenseNet-BC (1, 2, 4, 3) with k = 6 for DSN121 (20 k); WRN-10-1 for RSN (78 k). On one thread of
#: a busy 2-core CPU (load average 4-5) an epoch over 10 000 Fashion-MNIST images took 2-4 s (LEN),
#: 26-32 s (DSN100), 20-24 s (DSN121) and 21-23 s (RSN). The DenseNets train in the channels-last memory layout
#: (the same training with other kernels, see :func:`credalbook.nn.fit`): on one CPU thread (load about 3) an
#: epoch over 2 700 images took 9.6-9.8 s instead of 12.2 s (DSN100) and 7.4-7.5 s instead of 9.5-10.0 s
#: (DSN121); a whole DSN100 member (its 10 epochs on 2 700 images) 83 s instead of 129 s, ending at validation
#: loss 0.609 against 0.611 and test accuracy 0.776 against 0.775. LeNet-5 gained nothing and the WRN's gain did
#: not hold up when measured again (0.7-1.2x), so both keep the default layout.
QUICK_TOPOLOGIES = {
    "LEN": dict(family="lenet5", model={}, train=_recipe(20, 128, 0.05, 5e-4, (10, 15))),
    "DSN100": dict(
        family="densenet",
        model=dict(depth=16, growth_rate=8),
        train=_recipe(10, 64, 0.1, 1e-4, (5, 8), channels_last=True),
    ),
    "DSN121": dict(
        family="densenet",
        model=dict(block_config=(1, 2, 4, 3), growth_rate=6),
        train=_recipe(10, 64, 0.1, 1e-4, (5, 8), channels_last=True),
    ),
    "RSN": dict(
        family="wide_resnet",
        model=dict(depth=10, widen_factor=1),
        train=_recipe(10, 128, 0.1, 5e-4, (3, 6, 8), lr_decay=0.2),
    ),
}

_SCALES = {"paper": PAPER_TOPOLOGIES, "quick": QUICK_TOPOLOGIES}


def resolve_network_scale(networks: str = "auto", *, default: str = "paper", device="auto") -> str:
    """Which topology sizes a run trains: ``"paper"`` (:data:`PAPER_TOPOLOGIES`) or ``"quick"``.

    ``networks="paper"`` or ``"quick"`` is taken as given. ``"auto"`` gives `default` (the
    chapter preset's choice), except that the paper's networks become the CPU-sized family
    (:data:`QUICK_TOPOLOGIES`, trained with its full recipe) when `device` resolves to the CPU:
    the paper's 40 networks (DenseNet-BC-100/121 and WRN-28-10 for 200-300 epochs) take days of
    GPU time and would not finish on a CPU, so a paper-scale run there keeps the paper's protocol
    (members, runs, data, regions) with networks that train.

    Examples
    --------
    >>> resolve_network_scale("auto", default="paper", device="cpu")
    'quick'
    >>> resolve_network_scale("paper", device="cpu"), resolve_network_scale("auto", default="quick")
    ('paper', 'quick')
    """
    if networks not in ("auto", *_SCALES):
        raise ValueError(f"networks must be 'auto', 'paper' or 'quick'; got {networks!r}")
    if default not in _SCALES:
        raise ValueError(f"default must be 'paper' or 'quick'; got {default!r}")
    if networks != "auto":
        return networks
    if default == "paper" and resolve_device(device).type == "cpu":
        return "quick"
    return default


_TRAIN_KEYS = (
    "epochs",
    "batch_size",
    "optimizer",
    "lr",
    "momentum",
    "weight_decay",
    "milestones",
    "lr_decay",
    "warmup_epochs",
    "channels_last",
)


def _resolve(topology: str, scale: str, model: Mapping | None, train: Mapping | None) -> dict:
    """Family, model keyword arguments and training settings of `topology` at `scale`."""
    if scale not in _SCALES:
        raise ValueError(f"scale must be one of {sorted(_SCALES)}; got {scale!r}")
    table = _SCALES[scale]
    key = str(topology).upper()
    if key not in table:
        raise ValueError(f"topology must be one of {sorted(table)}; got {topology!r}")
    spec = table[key]
    model_kw = dict(spec["model"]) | dict(model or {})
    train_kw = dict(spec["train"]) | dict(train or {})
    unknown = sorted(set(train_kw) - set(_TRAIN_KEYS))
    if unknown:
        raise ValueError(f"train has unknown keys {unknown}; allowed: {list(_TRAIN_KEYS)}")
    return dict(topology=key, family=spec["family"], model=model_kw, train=train_kw)


# ---------------------------------------------------------------------------------- ensembles
def _member_one_thread(dataset: str, topology: str, seed: int, kw: dict, cache_root: str) -> dict:
    """One member in a worker process, trained with one torch thread (see ``n_jobs``); workers may be
    reused across calls, so the parent's cache folder is passed rather than inherited."""
    torch.set_num_threads(1)
    os.environ[CACHE_ENV_VAR] = cache_root
    return topology_member_logits(dataset, topology, seed=seed, progress=False, **kw)


def _member_probs(logits: np.ndarray) -> np.ndarray:
    return softmax(logits.astype(np.float64), axis=2)


@dataclass(frozen=True, eq=False, repr=False)
class TopologyEnsemble(MemberPredictions):
    """Logits of M members of one topology on a validation and a test set.

    Attributes
    ----------
    logits_val : numpy.ndarray, shape (N_val, M, K), float32
    y_val : numpy.ndarray, shape (N_val,), int64
    logits_test : numpy.ndarray, shape (N_test, M, K), float32
    y_test : numpy.ndarray, shape (N_test,), int64
    topology : str
        Key of :data:`PAPER_TOPOLOGIES`: ``"LEN"``, ``"DSN100"``, ``"DSN121"`` or ``"RSN"``.
    seeds : tuple of int
        Member m was initialised and trained with ``seeds[m]``.
    histories : tuple of list
        Per-epoch records of :func:`credalbook.nn.fit`, one per member.
    seconds : numpy.ndarray, shape (M,)
        Training time of each member.
    n_parameters : int
    config : dict
        Dataset, sizes, split, the resolved model and training settings.

    Examples
    --------
    >>> z = np.zeros((3, 2, 4), dtype=np.float32)
    >>> ens = TopologyEnsemble(z, np.array([0, 1, 2]), z, np.array([3, 2, 1]), "LEN", (0, 1),
    ...                        ([], []), np.zeros(2), 61706, {})
    >>> ens
    TopologyEnsemble(topology='LEN', n_members=2, n_val=3, n_test=3, n_classes=4)
    >>> ens.ens_probs_test.shape, float(ens.probs_val[0, 0])
    ((3, 2, 4), 0.25)
    """

    logits_val: np.ndarray = field(repr=False)
    y_val: np.ndarray = field(repr=False)
    logits_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    topology: str
    seeds: tuple
    histories: tuple = field(repr=False)
    seconds: np.ndarray = field(repr=False)
    n_parameters: int
    config: dict = field(repr=False)

    MEMBERS, SPLITS, REPR_FIELDS = "logits_val", ("val", "test"), ("topology",)
    ens_probs_val = property(
        lambda self: _member_probs(self.logits_val),
        doc="Member probabilities on the validation set, (N_val, M, K), float64.",
    )
    ens_probs_test = property(
        lambda self: _member_probs(self.logits_test),
        doc="Member probabilities on the test set, (N_test, M, K), float64.",
    )
    probs_val = property(
        lambda self: self.average("val"), doc="Uniform ensemble average on the validation set (Eq. 17), (N_val, K)."
    )
    probs_test = property(
        lambda self: self.average("test"), doc="Uniform ensemble average on the test set (Eq. 17), (N_test, K)."
    )


def _prepared_data(dataset: str, n_train, n_test, val_fraction: float, split_seed: int):
    """Subsample, split train/validation (stratified) and normalise per channel by the train part."""
    ds = load_dataset(dataset)
    if n_train is not None or n_test is not None:
        ds = ds.subsample(n_train, n_test, seed=split_seed)
    tr, va, _ = train_val_test_split(len(ds.y_train), val_fraction=val_fraction, seed=split_seed, stratify=ds.y_train)
    x_tr = ds.x_train[tr]
    mean = x_tr.mean(axis=(0, 2, 3), keepdims=True)
    std = x_tr.std(axis=(0, 2, 3), keepdims=True) + 1e-8

    def norm(x):
        return ((x - mean) / std).astype(np.float32)

    return ds, norm(x_tr), ds.y_train[tr], norm(ds.x_train[va]), ds.y_train[va], norm(ds.x_test)


@cached(ignore=["device", "progress"])
def topology_member_logits(
    dataset: str = "fashion_mnist",
    topology: str = "LEN",
    *,
    seed: int = 0,
    scale: str = "quick",
    model: dict | None = None,
    train: dict | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    val_fraction: float = 0.1,
    split_seed: int = 0,
    augment: bool = True,
    device: str = "auto",
    progress: bool = True,
) -> dict:
    """Train one member of a topology ensemble and return its validation and test logits.

    The cached unit of :func:`topology_ensemble_logits` (same arguments, one `seed`). Returns a
    dict with ``logits_val``, ``y_val``, ``logits_test``, ``y_test`` (float32 logits), ``history``,
    ``seconds``, ``n_parameters`` and ``config``. The training keeps a checkpoint after every epoch
    (:func:`~credalbook.cache.checkpoint_path`), so a member whose training was interrupted (days of
    GPU time at paper scale) resumes where it stopped when called again with the same arguments.

    Examples
    --------
    >>> out = topology_member_logits("fashion_mnist", "RSN", seed=3, n_train=200, n_test=50,
    ...                              train=dict(epochs=1), device="cpu", progress=False)
    >>> out["logits_val"].shape, out["logits_test"].shape, out["n_parameters"]
    ((20, 10), (50, 10), 77562)
    """
    ckpt = checkpoint_path("topology_member", {k: v for k, v in locals().items() if k not in ("device", "progress")})
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    spec = _resolve(topology, scale, model, train)
    ds, x_tr, y_tr, x_va, y_va, x_te = _prepared_data(dataset, n_train, n_test, val_fraction, split_seed)
    c, h, w = ds.image_shape
    if h != w:
        raise ValueError(f"images must be square; got {h}x{w}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        net = build_topology(spec["family"], in_channels=c, n_classes=ds.n_classes, image_size=h, **spec["model"])
    aug = PadCropFlip(padding=4 if h == 32 else 2, hflip=True) if augment else None
    result = fit(
        net,
        x_tr,
        y_tr,
        x_val=x_va,
        y_val=y_va,
        seed=int(seed),
        device=device,
        progress=progress,
        augment=aug,
        checkpoint=ckpt,
        **spec["train"],
    )
    config = dict(
        dataset=dataset,
        scale=scale,
        n_train=n_train,
        n_test=n_test,
        val_fraction=val_fraction,
        split_seed=split_seed,
        augment=augment,
        **spec,
    )
    return dict(
        logits_val=predict_logits(result.model, x_va, device=device).astype(np.float32),
        y_val=np.asarray(y_va, dtype=np.int64),
        logits_test=predict_logits(result.model, x_te, device=device).astype(np.float32),
        y_test=np.asarray(ds.y_test, dtype=np.int64),
        history=list(result.history),
        seconds=float(result.seconds),
        n_parameters=count_parameters(net),
        config=config,
    )


def topology_ensemble_logits(
    dataset: str = "fashion_mnist",
    topology: str = "LEN",
    *,
    n_members: int | None = None,
    seeds: Sequence[int] | None = None,
    epochs: int | None = None,
    scale: str = "quick",
    model: dict | None = None,
    train: dict | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    val_fraction: float = 0.1,
    split_seed: int = 0,
    augment: bool = True,
    device: str = "auto",
    progress: bool = True,
    n_jobs: int = 1,
) -> TopologyEnsemble:
    r"""Train M members of one topology from different seeds; return their stored logits.

    The training images (subsampled to `n_train` with `split_seed`) are split, stratified by
    label with `split_seed`, into a training part and a validation part of `val_fraction` (the
    paper's 5 000 of 50 000 CIFAR images, 10 %, App. A.4), identical for all members and
    topologies of the same dataset, sizes and `split_seed`; the test set is the dataset's own
    (subsampled to `n_test`). Images are normalised per channel by the training part's mean and
    standard deviation and, with `augment`, randomly cropped after padding (4 pixels at 32×32,
    2 at 28×28) and flipped left-right (:class:`~credalbook.nn.PadCropFlip`). Member m is the network of
    :data:`PAPER_TOPOLOGIES` / :data:`QUICK_TOPOLOGIES` (by `scale`, updated by `model`),
    initialised with ``torch.manual_seed(seeds[m])`` and trained by
    :func:`credalbook.nn.fit` with seed ``seeds[m]`` and the scale's recipe (updated by
    `train` and `epochs`); its prediction is
    :math:`P(\omega \mid x; \theta^{(m)}) = \operatorname{softmax}(z^{(m)}(x))`. Every member is
    cached on disk by :func:`topology_member_logits`, keyed by its full configuration.

    Parameters
    ----------
    dataset : str, default="fashion_mnist"
        A name in :data:`credalbook.data.DATASETS` with 28×28 or 32×32 images (Fashion-MNIST,
        MNIST, ``"cifar10"``/``"cifar100"`` when the CIFAR files are supplied).
    topology : {"LEN", "DSN100", "DSN121", "RSN"}, default="LEN"
    n_members : int or None, default=None
        M; None gives ``len(seeds)``, or 10 (the paper's) without `seeds`.
    seeds : sequence of int or None, default=None
        Member seeds; None gives ``0, ..., M - 1``.
    epochs : int or None, default=None
        Overrides the recipe's epochs (milestones beyond it never trigger).
    scale : {"quick", "paper"}, default="quick"
    model, train : dict or None
        Updates of the model's keyword arguments and of the training settings (``epochs``,
        ``batch_size``, ``optimizer``, ``lr``, ``momentum``, ``weight_decay``, ``milestones``,
        ``lr_decay``, ``warmup_epochs``, ``channels_last``).
    n_train, n_test : int or None
        Subsample sizes of the training and test splits (all when None).
    val_fraction : float, default=0.1
    split_seed : int, default=0
    augment : bool, default=True
    device : str, default="auto"
        See :func:`credalbook.nn.resolve_device`; not part of the cache key.
    progress : bool, default=True
        Not part of the cache key.
    n_jobs : int, default=1
        Members trained at once in separate processes (joblib; -1 = one per core), each with one
        torch thread: on a CPU small networks use cores better side by side than split across
        threads (see ``scripts/benchmark.py --only-topologies``). Ignored on a GPU. Each member is
        seeded and cached on its own, so results agree with ``n_jobs=1`` up to the float rounding
        of one-thread against multi-threaded reductions.

    Returns
    -------
    TopologyEnsemble

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and App. A.4.

    Examples
    --------
    >>> ens = topology_ensemble_logits("fashion_mnist", "LEN", n_members=2, epochs=1,
    ...                                n_train=300, n_test=100, device="cpu", progress=False)
    >>> ens
    TopologyEnsemble(topology='LEN', n_members=2, n_val=30, n_test=100, n_classes=10)
    """
    if seeds is None:
        m = 10 if n_members is None else check_positive_int(n_members, "n_members")
        seeds = tuple(range(m))
    else:
        seeds = tuple(seeds)
        if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
            raise ValueError(f"seeds must be a non-empty sequence of non-negative ints; got {seeds!r}")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct; got {seeds!r}")
        if n_members is not None and check_positive_int(n_members, "n_members") != len(seeds):
            raise ValueError(f"n_members={n_members} does not match the {len(seeds)} seeds")
    seeds = tuple(int(s) for s in seeds)
    train = dict(train or {})
    if epochs is not None:
        train["epochs"] = check_positive_int(epochs, "epochs")
    _resolve(topology, scale, model, train)  # fail before any training
    kw = dict(
        scale=scale,
        model=model,
        train=train or None,
        n_train=n_train,
        n_test=n_test,
        val_fraction=val_fraction,
        split_seed=split_seed,
        augment=augment,
        device=device,
    )
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1; got {n_jobs!r}")
    if n_jobs != 1 and len(seeds) > 1 and resolve_device(device).type == "cpu":
        jobs = (delayed(_member_one_thread)(dataset, topology, s, kw, str(cache_dir())) for s in seeds)
        members = Parallel(n_jobs=min(len(seeds), n_jobs) if n_jobs > 0 else n_jobs)(jobs)
    else:
        members = [topology_member_logits(dataset, topology, seed=s, progress=progress, **kw) for s in seeds]
    config = dict(members[0]["config"])
    return TopologyEnsemble(
        logits_val=np.stack([m["logits_val"] for m in members], axis=1),
        y_val=members[0]["y_val"],
        logits_test=np.stack([m["logits_test"] for m in members], axis=1),
        y_test=members[0]["y_test"],
        topology=config["topology"],
        seeds=seeds,
        histories=tuple(m["history"] for m in members),
        seconds=np.array([m["seconds"] for m in members]),
        n_parameters=int(members[0]["n_parameters"]),
        config=config,
    )
