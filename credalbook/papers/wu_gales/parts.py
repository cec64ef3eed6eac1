"""The parts of the Wu & Gales chapter: one trained ensemble member each (Sec. 4.3, App. A.4).

At ``paper`` scale the chapter trains ten members of each of four topologies. On a CPU these are the
CPU-sized networks of :data:`credalbook.papers.wu_gales.QUICK_TOPOLOGIES` (about 1.3 minutes per LeNet-5 and
5.5-10 minutes per DenseNet or WRN on two idle cores, 4.2 hours in all); on a GPU the paper's own networks of
:data:`credalbook.papers.wu_gales.PAPER_TOPOLOGIES` (hours each). Every member is therefore its own part, and
what a part records is what the analysis needs from the network: its logits on the held-out validation
images and on the test images, with the labels, its training history and time, its parameter count and its
configuration (a one-member :class:`credalbook.papers.wu_gales.TopologyEnsemble`), never its weights. The
logits are kept as the network produced them (float32): at paper scale a member's 16 000 × 10 logits take
about 0.8 MB as a record (float16 would halve that, but it moves a member's test ECE in the third digit).

The ensembles of the chapter are then merged from the members' values (``WuGalesPlan.ensembles``),
equal to what :func:`credalbook.papers.wu_gales.topology_ensemble_logits` returns for all seeds at once. The
analysis (the toys at N = 10⁶, the calibration studies, the regions, the combinations) takes about seven
minutes at paper scale with every member at hand, so it stays live in the chapter.

Part names carry the dataset, the network family that ``networks`` resolves to (``quick`` for the CPU-sized
family, ``paper`` for the paper's networks), the topology and the seed, e.g.
``fashion_mnist-quick-dsn100-seed3``, so records of different datasets and network families never replace
one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from credalbook._validation import check_positive_int, check_seed
from credalbook.papers.parts import Part
from credalbook.papers.wu_gales.regime import regime_member
from credalbook.papers.wu_gales.topologies import resolve_network_scale, topology_ensemble_logits, TopologyEnsemble

__all__ = ["RegimePlan", "WuGalesPlan", "merge_topology_ensembles", "regime_plan", "wu_gales_parts", "wu_gales_plan"]


def merge_topology_ensembles(ensembles: Sequence[TopologyEnsemble]) -> TopologyEnsemble:
    """One ensemble of the members of several ensembles of the same topology, data and training.

    The members are joined in the given order: logits, seeds, histories and training times are
    concatenated along the member axis; labels, topology, parameter count and configuration, which
    every part must share (same dataset, sizes, split and recipe), are taken from the first. A
    ten-member ensemble merged from ten one-member ensembles equals the one
    :func:`credalbook.papers.wu_gales.topology_ensemble_logits` returns for the ten seeds at once, bit for bit (each member is
    trained on its own, with its own seed). The chapter assembles its ensembles this way from the
    members it records one by one (``WuGalesPlan.ensembles``).

    Parameters
    ----------
    ensembles : sequence of TopologyEnsemble
        At least one; their seeds must be distinct.

    Returns
    -------
    TopologyEnsemble

    References
    ----------
    Wu & Gales (2021), Sec. 4.3: ensembles of M = 10 members per topology.

    Examples
    --------
    >>> z = np.zeros((3, 1, 4), dtype=np.float32)
    >>> one = lambda s: TopologyEnsemble(z + s, np.arange(3), z, np.arange(3), "LEN", (s,), ([],),
    ...                                  np.array([1.0 + s]), 61706, {})
    >>> ens = merge_topology_ensembles([one(0), one(1)])
    >>> ens, ens.seeds, ens.logits_val[0, :, 0].tolist(), ens.seconds.tolist()
    (TopologyEnsemble(topology='LEN', n_members=2, n_val=3, n_test=3, n_classes=4), (0, 1), [0.0, 1.0], [1.0, 2.0])
    """
    ensembles = list(ensembles) if not isinstance(ensembles, TopologyEnsemble) else [ensembles]
    if not ensembles:
        raise ValueError("ensembles must hold at least one TopologyEnsemble; got none")
    bad = [i for i, e in enumerate(ensembles) if not isinstance(e, TopologyEnsemble)]
    if bad:
        raise TypeError(f"ensembles must hold TopologyEnsembles; item {bad[0]} is a {type(ensembles[bad[0]]).__name__}")
    first = ensembles[0]
    for i, e in enumerate(ensembles[1:], start=1):
        for name in ("topology", "n_parameters", "config"):
            if getattr(e, name) != getattr(first, name):
                raise ValueError(
                    f"ensembles[{i}] has another {name} than ensembles[0]: {getattr(e, name)!r} "
                    f"against {getattr(first, name)!r}"
                )
        for name in ("y_val", "y_test"):
            if not np.array_equal(getattr(e, name), getattr(first, name)):
                raise ValueError(f"ensembles[{i}] has other {name} than ensembles[0] (another dataset, size or split)")
    seeds = tuple(s for e in ensembles for s in e.seeds)
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"ensembles must have distinct seeds; got {seeds}")
    return TopologyEnsemble(
        logits_val=np.concatenate([e.logits_val for e in ensembles], axis=1),
        y_val=first.y_val,
        logits_test=np.concatenate([e.logits_test for e in ensembles], axis=1),
        y_test=first.y_test,
        topology=first.topology,
        seeds=seeds,
        histories=tuple(h for e in ensembles for h in e.histories),
        seconds=np.concatenate([np.asarray(e.seconds, dtype=float) for e in ensembles]),
        n_parameters=first.n_parameters,
        config=first.config,
    )


@dataclass(frozen=True)
class WuGalesPlan:
    """The chapter's ensemble members as parts, and how the ensembles are merged from them.

    Attributes
    ----------
    parts : list of Part
        One per member, named ``<dataset>-<network_scale>-<topology>-seed<s>``; its value is a one-member
        :class:`credalbook.papers.wu_gales.TopologyEnsemble`.
    members : dict
        topology -> tuple of the part names of its members, in seed order.
    network_scale : str
        ``"quick"`` (the CPU-sized family) or ``"paper"`` (the paper's networks), as ``networks`` resolved.
    """

    parts: list
    members: dict = field(repr=False)
    network_scale: str = "quick"

    def ensembles(self, values: dict) -> dict:
        """topology -> :class:`credalbook.papers.wu_gales.TopologyEnsemble` of its members, from the parts' values.

        Parameters
        ----------
        values : dict
            part name -> value (what ``credalbook.book.records.run_parts`` returns); parts of other
            chapters' plans are ignored.
        """
        if not isinstance(values, dict):
            raise TypeError(f"values must be a dict of part name -> value; got {type(values).__name__}")
        missing = [n for names in self.members.values() for n in names if n not in values]
        if missing:
            raise ValueError(f"values lacks the parts {missing}")
        return {t: merge_topology_ensembles([values[n] for n in names]) for t, names in self.members.items()}


def wu_gales_plan(
    cfg, *, seed: int = 0, dataset: str = "fashion_mnist", device="auto", networks: str = "auto", **_ignored
) -> WuGalesPlan:
    """The chapter's plan at preset ``cfg`` with its parameters (others are ignored).

    Member m of topology t is trained with seed ``seed + m`` (m < ``cfg["members"][t]``) on the split drawn
    with ``split_seed = seed``, exactly as the chapter's ensembles were trained before they became parts.

    Parameters
    ----------
    cfg : mapping
        The chapter's preset (``credalbook.papers.presets.preset("04_wu_gales_ensemble_calibration", scale)``).
    seed : int, default=0
    dataset : str, default="fashion_mnist"
    device : str, default="auto"
        Where the members train; with ``networks="auto"`` it also picks the network family
        (:func:`credalbook.papers.wu_gales.resolve_network_scale`). Not part of a record's parameters.
    networks : {"auto", "quick", "paper"}, default="auto"

    Returns
    -------
    WuGalesPlan

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and App. A.4: ten members of each of four topologies.

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = wu_gales_plan(preset("04_wu_gales_ensemble_calibration", "tiny"), networks="quick")
    >>> len(plan.parts), plan.members["DSN100"]
    (9, ('fashion_mnist-quick-dsn100-seed0', 'fashion_mnist-quick-dsn100-seed1'))
    >>> plan.parts[0].kwargs["seeds"], plan.parts[0].kwargs["scale"]
    ((0,), 'quick')
    """
    seed = check_seed(seed, generator=False)
    if not isinstance(seed, int):
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if not isinstance(dataset, str) or not dataset:
        raise ValueError(f"dataset must be a dataset's name; got {dataset!r}")
    network_scale = resolve_network_scale(networks, default=cfg["network_scale"], device=device)
    data = dict(
        dataset=dataset,
        scale=network_scale,
        n_train=cfg["n_train"],
        n_test=cfg["n_test"],
        val_fraction=cfg["val_fraction"],
        split_seed=seed,
    )
    parts, members = [], {}
    for t in cfg["topologies"]:
        m = check_positive_int(cfg["members"][t], f"cfg['members'][{t!r}]")
        names = []
        for s in range(seed, seed + m):
            names.append(f"{dataset.lower()}-{network_scale}-{t.lower()}-seed{s}")
            parts.append(
                Part(
                    names[-1],
                    topology_ensemble_logits,
                    {
                        **data,
                        "topology": t,
                        "seeds": (s,),
                        "train": cfg["train"][t],
                        "device": device,
                        "progress": False,
                    },
                )
            )
        members[t] = tuple(names)
    return WuGalesPlan(parts=parts, members=members, network_scale=network_scale)


@dataclass(frozen=True)
class RegimePlan:
    """The members of the CIFAR-100 regime on Fashion-MNIST as parts, and their ensembles.

    Attributes
    ----------
    parts : list of Part
        One per member, named ``<dataset>-regime<per class>-<topology>-seed<s>``, seeds interleaved across
        topologies (seed 0 of every topology, then seed 1, ...), so that a partial run already holds members
        of each; its value is the dict of :func:`credalbook.papers.wu_gales.regime_member`.
    members : dict
        topology -> tuple of the part names of its members, in seed order.
    """

    parts: list
    members: dict = field(repr=False)

    def ensembles(self, values: dict) -> dict:
        """topology -> :class:`credalbook.papers.wu_gales.TopologyEnsemble` of its members (validation and test).

        Parameters
        ----------
        values : dict
            part name -> value; parts of other plans are ignored.
        """
        if not isinstance(values, dict):
            raise TypeError(f"values must be a dict of part name -> value; got {type(values).__name__}")
        missing = [n for names in self.members.values() for n in names if n not in values]
        if missing:
            raise ValueError(f"values lacks the parts {missing}")
        out = {}
        for t, names in self.members.items():
            one = []
            for n in names:
                v = values[n]
                one.append(
                    TopologyEnsemble(
                        logits_val=v["logits_val"][:, None, :],
                        y_val=v["y_val"],
                        logits_test=v["logits_test"][:, None, :],
                        y_test=v["y_test"],
                        topology=t,
                        seeds=(int(n.rsplit("-seed", 1)[1]),),
                        histories=(v["history"],),
                        seconds=np.array([v["seconds"]]),
                        n_parameters=int(v["n_parameters"]),
                        config=v["config"],
                    )
                )
            out[t] = merge_topology_ensembles(one)
        return out


def regime_plan(cfg, *, seed: int = 0, dataset: str = "fashion_mnist", device="auto", **_ignored) -> RegimePlan:
    """The members of the CIFAR-100 regime at preset ``cfg`` (keys ``regime_*``), as parts.

    Member m of every topology is trained with seed ``seed + m`` (m < ``cfg["regime_members"]``) on the
    split of :func:`credalbook.papers.wu_gales.regime_split` with ``split_seed = seed``.

    Parameters
    ----------
    cfg : mapping
        The chapter's preset.
    seed : int, default=0
    dataset : str, default="fashion_mnist"
    device : str, default="auto"
        Not part of a record's parameters.

    Returns
    -------
    RegimePlan

    References
    ----------
    Wu & Gales (2021), Sec. 4.3 and App. A.4.

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = regime_plan(preset("04_wu_gales_ensemble_calibration", "paper"))
    >>> len(plan.parts), [p.name for p in plan.parts[:5]]  # doctest: +NORMALIZE_WHITESPACE
    (40, ['fashion_mnist-regime450-len-seed0', 'fashion_mnist-regime450-dsn100-seed0',
          'fashion_mnist-regime450-dsn121-seed0', 'fashion_mnist-regime450-rsn-seed0',
          'fashion_mnist-regime450-len-seed1'])
    """
    seed = check_seed(seed, generator=False)
    if not isinstance(seed, int):
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if not isinstance(dataset, str) or not dataset:
        raise ValueError(f"dataset must be a dataset's name; got {dataset!r}")
    m = check_positive_int(cfg["regime_members"], "cfg['regime_members']")
    per_class = check_positive_int(cfg["regime_per_class"], "cfg['regime_per_class']")
    data = dict(
        dataset=dataset,
        per_class_train=per_class,
        n_val=cfg["regime_n_val"],
        n_test=cfg["regime_n_test"],
        split_seed=seed,
        epochs=cfg["regime_epochs"],
    )
    topologies = tuple(cfg["topologies"])
    parts, members = [], {t: [] for t in topologies}
    for s in range(seed, seed + m):
        for t in topologies:
            name = f"{dataset.lower()}-regime{per_class}-{t.lower()}-seed{s}"
            members[t].append(name)
            parts.append(Part(name, regime_member, {**data, "topology": t, "seed": s, "device": device}))
    return RegimePlan(parts=parts, members={t: tuple(n) for t, n in members.items()})


def wu_gales_parts(cfg, **parameters) -> list:
    """The chapter's parts (the entry in ``credalbook.papers.plans.PLANS``).

    The members of :func:`credalbook.papers.wu_gales.wu_gales_plan`, then those of
    :func:`credalbook.papers.wu_gales.regime_plan`.
    """
    return wu_gales_plan(cfg, **parameters).parts + regime_plan(cfg, **parameters).parts
