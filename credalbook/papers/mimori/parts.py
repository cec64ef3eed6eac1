"""The parts of the Mimori chapter: one trained base network each.

At the paper's sizes a network trains for up to 100 epochs on 37,500 Mix images, about a minute per epoch on one
CPU thread, and the chapter trains five: one per seed of the main setting, the MDS-full analogue (every image
repeated once per training label, about six times the data) and the named TTA setting. So each network is its own
part, and what a part records is the network (:class:`credalbook.papers.mimori.MixNetwork`: its weights, settings
and training history; about 4 MB for the authors' three-conv network). Everything else the chapter computes from
the networks (MC dropout, TTA, the calibrators and α heads, the bootstrap) takes minutes
(:func:`credalbook.papers.mimori.mimori_predictions` with ``network=``).
"""

from __future__ import annotations

from dataclasses import dataclass

from credalbook.papers.mimori.chapter_views import chapter_run
from credalbook.papers.mimori.networks import chapter_setting, train_mix_network
from credalbook.papers.mimori.predictions import network_arguments
from credalbook.papers.mimori.reported import mds_mean_labels
from credalbook.papers.parts import Part

__all__ = ["MimoriPlan", "mimori_parts", "mimori_plan"]


@dataclass(frozen=True)
class MimoriPlan:
    """The chapter's networks as parts.

    Attributes
    ----------
    parts : list of Part
        :func:`~credalbook.papers.mimori.train_mix_network` calls, named ``network-seed<s>`` (the main setting),
        ``network-mds-full-seed<s>`` (trained on every label, :func:`~credalbook.papers.mimori.mds_mean_labels` of
        them per image on average) and ``network-tta-seed<s>`` (the named TTA setting, where the scale has one).
    seeds : dict
        Seed of the main setting -> its part's name.
    mds_full : str
        The MDS-full analogue's part (the chapter's seed).
    tta : str or None
        The TTA setting's part (None where the scale has no such setting).
    """

    parts: list
    seeds: dict
    mds_full: str
    tta: str | None

    def networks(self, values: dict) -> dict:
        """``{"seeds": {seed: network}, "mds_full": network, "tta": network or None}`` from the parts' values (part
        name -> :class:`~credalbook.papers.mimori.MixNetwork`)."""
        missing = sorted({p.name for p in self.parts} - set(values))
        if missing:
            raise ValueError(f"values lacks the parts {missing}")
        return {
            "seeds": {s: values[n] for s, n in self.seeds.items()},
            "mds_full": values[self.mds_full],
            "tta": None if self.tta is None else values[self.tta],
        }


def mimori_plan(
    cfg,
    *,
    scale: str = "quick",
    seed: int = 0,
    dataset: str = "fashion_mnist",
    device: str = "auto",
    n_seeds=None,
    **_ignored,
) -> MimoriPlan:
    """The chapter's plan at preset ``cfg`` with its parameters (others are ignored).

    The networks are those the chapter's calls of :func:`~credalbook.papers.mimori.mimori_predictions` train
    (:func:`~credalbook.papers.mimori.network_arguments` of :func:`~credalbook.papers.mimori.chapter_run`), so a
    network computed from the command line (``python -m credalbook.book run -c 03_mimori_label_histograms --part
    NAME``) is the one the chapter loads.

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = mimori_plan(preset("03_mimori_label_histograms", "paper"), scale="paper")
    >>> [p.name for p in plan.parts]
    ['network-seed0', 'network-seed1', 'network-seed2', 'network-mds-full-seed0', 'network-tta-seed0']
    >>> plan.parts[3].kwargs["train_labels"], plan.parts[4].kwargs["augment"]["rotation"]
    (5.79, 180.0)
    """
    setting = chapter_setting(scale, dataset=dataset, seed=seed, n_seeds=n_seeds)
    run = chapter_run(cfg, setting, dataset=dataset, seed=seed, device=device)

    def part(name: str, **changes) -> Part:  # `run` holds the device, which network_arguments leaves out
        return Part(name, train_mix_network, {**network_arguments(dataset, **{**run, **changes}), "device": device,
                                              "progress": False})  # fmt: skip

    seeds = {s: part(f"network-seed{s}", seed=s) for s in setting["seeds"]}
    mds = part(f"network-mds-full-seed{seed}", train_labels=mds_mean_labels())
    tta = None if setting["tta_augment"] is None else part(f"network-tta-seed{seed}", augment=setting["tta_augment"])
    return MimoriPlan(
        parts=[*seeds.values(), mds, *([] if tta is None else [tta])],
        seeds={s: p.name for s, p in seeds.items()},
        mds_full=mds.name,
        tta=None if tta is None else tta.name,
    )


def mimori_parts(cfg, **parameters) -> list:
    """The parts of :func:`mimori_plan` (the chapter's entry in ``credalbook.papers.plans.PLANS``)."""
    return mimori_plan(cfg, **parameters).parts
