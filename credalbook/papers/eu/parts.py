"""The parts of the EU chapter: one GP fit each (Secs. 5.3.1, 5.3.2, 5.4).

At the paper's sizes a toy GP trains on about 120k points (1 210 minibatch steps of about 1.5 s on one CPU
thread: over half an hour), so every GP of every seed is its own part, and what a part records is the GP's latent
posterior at its test points (:class:`credalbook.papers.eu.EUFit`), not its weights. A run of Sec. 5.2
is then assembled from four fits in seconds (:meth:`EUPlan.study`). The mismatch variants of Sec. 5.3.2
reuse the main experiment's fits as the chapter always did: variant 1 (three large calibration discs)
adds only its two calibration GPs, variant 2 (low-aleatoric test points dropped) adds none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from credalbook.papers.eu.experiments import EU_ROLES, EUStudy, toy_eu_assemble, toy_eu_fit, TOY_NOISE_SD
from credalbook.papers.eu.real_data import real_eu_assemble, real_eu_fit
from credalbook.papers.parts import Part

__all__ = ["EU_GROUPS", "EUPlan", "eu_parts", "eu_plan"]

#: The experiments: the main toy experiment, the two mismatch variants of Sec. 5.3.2, the milder-carving
#: sensitivity run, and the real data of Sec. 5.4.
EU_GROUPS = ("toy", "large_calibration", "low_aleatoric", "carved_less", "real")


@dataclass(frozen=True)
class EUPlan:
    """The chapter's GP fits as parts, and how each experiment's runs are assembled from them.

    Attributes
    ----------
    parts : list of Part
        Every GP fit, named ``<experiment>-seed<s>-<role>`` (``real-<dataset>-seed<s>-<role>``).
    runs : dict
        experiment -> list of (seed, {role: part name}, assemble function, its keyword arguments).
    """

    parts: list
    runs: dict = field(repr=False)

    def group_parts(self, group: str) -> list:
        """The parts experiment ``group`` needs (shared fits included)."""
        names = {n for _, roles, _, _ in self._runs(group) for n in roles.values()}
        return [p for p in self.parts if p.name in names]

    def _runs(self, group: str):
        if group not in self.runs:
            raise ValueError(f"group must be one of {sorted(self.runs)}; got {group!r}")
        return self.runs[group]

    def study(self, group: str, fits: dict, *, name: str | None = None) -> EUStudy:
        """The :class:`EUStudy` of experiment ``group`` from the fits' values (part name -> EUFit)."""
        runs = []
        for seed, roles, assemble, kwargs in self._runs(group):
            missing = [n for n in roles.values() if n not in fits]
            if missing:
                raise ValueError(f"fits lacks the parts {missing} of {group} seed {seed}")
            runs.append(assemble(seed=seed, fits={r: fits[n] for r, n in roles.items()}, **kwargs))
        return EUStudy(name=name or group, runs=tuple(runs), config={"group": group, "seeds": [r.seed for r in runs]})


def eu_plan(
    cfg,
    *,
    seed: int = 0,
    dataset: str = "fashion_mnist",
    toy_noise_sd: float = TOY_NOISE_SD,
    n_seeds=None,
    device="auto",
    **_ignored,
) -> EUPlan:
    """The chapter's plan at preset ``cfg`` with its parameters (others are ignored).

    Examples
    --------
    >>> from credalbook.papers.presets import preset
    >>> plan = eu_plan(preset("05_epistemic_uncertainty_gp", "tiny"))
    >>> len(plan.parts), [p.name for p in plan.group_parts("large_calibration")][:3]
    (20, ['toy-seed0-train', 'toy-seed0-aug', 'toy-seed1-train'])
    """
    if n_seeds is not None and (isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or n_seeds < 1):
        raise ValueError(f"n_seeds must be a positive integer or None; got {n_seeds!r}")
    seeds = [seed + i for i in range(n_seeds or cfg["toy_seeds"])]
    splits = dict(
        noise_sd=toy_noise_sd, window=cfg["toy_window"], evaluation=cfg["toy_discs"], calibration=cfg["toy_discs"]
    )
    n_discs = int(np.prod(cfg["toy_discs"]["shape"]))
    less = {**cfg["toy_discs"], "p_train": cfg["toy_carved_less"]}
    analysis = dict(n_bins=cfg["n_bins"], n_samples=cfg["n_samples"])
    # experiment -> (its splits, the experiment whose fits it uses per role, extra assembly options, seeds)
    toy_experiments = {
        "toy": (splits, {}, {}, seeds),
        "large_calibration": (
            {**splits, "calibration": {**cfg["toy_discs"], **cfg["toy_large_discs"]}},
            {"train": "toy", "aug": "toy"},
            {},
            seeds,
        ),
        "low_aleatoric": (
            splits,
            dict.fromkeys(EU_ROLES, "toy"),
            {"low_aleatoric_discs": list(range(1, n_discs, 2)), "aleatoric_threshold": cfg["aleatoric_threshold"]},
            seeds,
        ),
        "carved_less": (
            {**splits, "evaluation": less, "calibration": less},
            {},
            {},
            [seed + i for i in range(cfg["toy_sensitivity_seeds"])],
        ),
    }
    parts, runs = [], {}
    for group, (kw, shared, extra, ss) in toy_experiments.items():
        runs[group] = []
        for s in ss:
            roles = {}
            for role in EU_ROLES:
                owner = shared.get(role, group)
                roles[role] = f"{owner}-seed{s}-{role}"
                if owner == group:
                    parts.append(
                        Part(
                            roles[role],
                            toy_eu_fit,
                            {"seed": s, "role": role, **kw, "gp": cfg["toy_gp"], "device": device},
                        )
                    )
            runs[group].append((s, roles, toy_eu_assemble, {**kw, **extra, **analysis}))
    real = dict(n_points=cfg["real_points"], split=cfg["real_split"])
    runs["real"] = []
    for s in [seed + i for i in range(n_seeds or cfg["real_seeds"])]:
        roles = {role: f"real-{dataset}-seed{s}-{role}" for role in EU_ROLES}
        parts += [
            Part(
                roles[role],
                real_eu_fit,
                {"dataset": dataset, "seed": s, "role": role, **real, "gp": cfg["real_gp"], "device": device},
            )
            for role in EU_ROLES
        ]
        runs["real"].append((s, roles, real_eu_assemble, {"dataset": dataset, **real, **analysis}))
    return EUPlan(parts=parts, runs=runs)


def eu_parts(cfg, **parameters) -> list:
    """The parts of :func:`eu_plan` (the chapter's entry in ``credalbook.papers.parts.PLANS``)."""
    return eu_plan(cfg, **parameters).parts
