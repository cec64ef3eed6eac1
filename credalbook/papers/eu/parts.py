"""The parts of the EU chapter: one GP fit each (Secs. 5.3.1, 5.3.2, 5.4).

At the paper's sizes a toy GP trains on about 120k points (1 210 minibatch steps of about 1.5 s on one CPU
thread: over half an hour), so every GP of every seed is its own part, and what a part records is the GP's latent
posterior at its test points (:class:`credalbook.papers.eu.EUFit`), not its weights. A run of Sec. 5.2
is then assembled from four fits in seconds (:meth:`EUPlan.study`). The mismatch variants of Sec. 5.3.2
reuse the main experiment's fits as the chapter always did: variant 1 (three large calibration discs)
adds only its two calibration GPs, variant 2 (low-aleatoric test points dropped) adds none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from credalbook.papers.eu.analogue import analogue_parts
from credalbook.papers.eu.experiments import EU_ROLES, EUStudy, toy_eu_assemble, toy_eu_fit, TOY_NOISE_SD
from credalbook.papers.eu.real_data import real_eu_assemble, real_eu_fit
from credalbook.papers.parts import Part

__all__ = ["EU_CARVING_RANGES", "EU_CAUSE_NOISE", "EU_GROUPS", "EUPlan", "eu_parts", "eu_plan"]

#: The carving sensitivity study, fixed before it ran: the kept fractions :math:`p_i` of the discs rise linearly
#: from the first value to the second (``credalbook.papers.eu.toy_disc_layout``), in the evaluation and the
#: calibration discs alike, with every other setting of the main toy experiment and its seeds. (0, 0.6) is the
#: book's main design (``credalbook.papers.eu.TOY_KEPT_FRACTIONS``: one disc emptied); (0.25, 0.85) is a milder
#: design that the paper's only description ("some of the discs have fewer points removed than others") allows
#: as well. Group ``carving_<first>-<last>`` holds a range's runs.
EU_CARVING_RANGES = ((0.0, 0.6), (0.25, 0.85))
#: The paired cause study, fixed before it ran: the toy noise sd of the book (0.3) against a noisier one (more
#: test points of high aleatoric uncertainty), each with the gain measured against the GP ``f_aug`` (group
#: ``noise_<sd>``, the paper's procedure) and against the true Bayes classifier (group ``bayes_<sd>``, the same
#: fits: what the GP's capacity does); on a window of the toy data of the ``quick`` preset's size (at ``tiny`` and
#: ``quick``, that scale's own window), with the main toy experiment's seeds.
EU_CAUSE_NOISE = (0.3, 0.5)
#: The experiments: the main toy experiment, the two mismatch variants of Sec. 5.3.2, the milder-carving
#: sensitivity run, the real data of Sec. 5.4, the carving sensitivity study, the paired cause study and the
#: Fashion-MNIST analogue of Sec. 5.4.1 (confusable garments split, all vs half the images:
#: ``credalbook.papers.eu.analogue``).
EU_GROUPS = (
    "toy",
    "large_calibration",
    "low_aleatoric",
    "carved_less",
    "real",
    *(f"carving_{lo:g}-{hi:g}" for lo, hi in EU_CARVING_RANGES),
    *(f"{kind}_{sd:g}" for sd in EU_CAUSE_NOISE for kind in ("noise", "bayes")),
    "analogue_all",
    "analogue_half",
)
_CHAPTER = "05_epistemic_uncertainty_gp"


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
    (40, ['toy-seed0-train', 'toy-seed0-aug', 'toy-seed1-train'])
    >>> [p.name for p in plan.group_parts("carving_0.25-0.85")][::4]
    ['carved_less-seed0-train', 'carving_0.25-0.85-seed1-train']
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
    _study_parts(cfg, parts, runs, seeds=seeds, toy_noise_sd=toy_noise_sd, analysis=analysis, device=device)
    more, more_runs = analogue_parts(
        cfg, seeds=[seed + i for i in range(n_seeds or cfg["real_seeds"])], analysis=analysis, device=device
    )
    parts += more
    runs.update(more_runs)
    return EUPlan(parts=parts, runs=runs)


def _cause_sizes(cfg) -> dict:
    """Window, discs and GP of the paired cause study: the ``quick`` preset's at ``paper`` (full grid), else cfg's."""
    if cfg["toy_window"] is None:
        from credalbook.papers.presets import preset

        cfg = preset(_CHAPTER, "quick")
    return dict(window=cfg["toy_window"], discs=cfg["toy_discs"], gp=cfg["toy_gp"])


def _study_parts(cfg, parts: list, runs: dict, *, seeds, toy_noise_sd, analysis: dict, device) -> None:
    """Append the carving study and the paired cause study (:data:`EU_CARVING_RANGES`, :data:`EU_CAUSE_NOISE`).

    A fit identical to one already planned (same function and arguments) is that part, under its name: the
    book's own carving range is the main toy experiment, the milder one at seed 0 the ``carved_less`` run, and at
    ``tiny`` and ``quick`` the cause study's noise 0.3 is the main toy experiment again. The new parts come in the
    order in which a partial run already informs: the cheap cause study, then per seed the carving ranges' ``train``
    and ``aug`` fits (rho_epi, raw EECE, the floor), then per seed their calibration fits.
    """
    known = {json.dumps(p.parameters(), sort_keys=True, default=str): p.name for p in parts}
    new: dict = {}

    def part(name: str, kwargs: dict) -> str:
        candidate = Part(name, toy_eu_fit, kwargs)
        key = json.dumps(candidate.parameters(), sort_keys=True, default=str)
        if key not in known:
            known[key] = name
            new[name] = candidate
        return known[key]

    sizes = _cause_sizes(cfg)
    order = {}
    for sd in EU_CAUSE_NOISE:
        kw = dict(noise_sd=sd, window=sizes["window"], evaluation=sizes["discs"], calibration=sizes["discs"])
        runs.update({f"noise_{sd:g}": [], f"bayes_{sd:g}": []})
        for s in seeds:
            roles = {
                r: part(f"noise_{sd:g}-seed{s}-{r}", {"seed": s, "role": r, **kw, "gp": sizes["gp"], "device": device})
                for r in EU_ROLES
            }
            order.update({n: (0, 0, 0, 0) for n in roles.values()})
            for kind, extra in (("noise", {}), ("bayes", {"gain_reference": "bayes"})):
                runs[f"{kind}_{sd:g}"].append((s, roles, toy_eu_assemble, {**kw, **extra, **analysis}))
    for i, (lo, hi) in enumerate(EU_CARVING_RANGES):
        group = f"carving_{lo:g}-{hi:g}"
        discs = {**cfg["toy_discs"], "p_train": (lo, hi)}
        kw = dict(noise_sd=toy_noise_sd, window=cfg["toy_window"], evaluation=discs, calibration=discs)
        runs[group] = []
        for j, s in enumerate(seeds):
            roles = {}
            for k, r in enumerate(EU_ROLES):
                kwargs = {"seed": s, "role": r, **kw, "gp": cfg["toy_gp"], "device": device}
                roles[r] = part(f"{group}-seed{s}-{r}", kwargs)
                order.setdefault(roles[r], (1, k // 2, j, i, k % 2))
            runs[group].append((s, roles, toy_eu_assemble, {**kw, **analysis}))
    parts += sorted(new.values(), key=lambda p: order[p.name])


def eu_parts(cfg, **parameters) -> list:
    """The parts of :func:`eu_plan` (the chapter's entry in ``credalbook.papers.plans.PLANS``)."""
    return eu_plan(cfg, **parameters).parts
