"""The registry of the chapters' plans of parts (:class:`credalbook.papers.parts.Part`).

A plan is ``plan(cfg, **parameters) -> list[Part]`` with ``cfg`` the chapter's preset at a scale and
``parameters`` the chapter's papermill parameters (a plan takes the ones it needs and ignores the rest).

The registry lives apart from :mod:`credalbook.papers.parts`, which the computations of the parts import: a record
fingerprints the modules its computation imports, so registering a chapter's plan here leaves every record alone.
"""

from __future__ import annotations

import importlib

__all__ = ["PLANS", "plan_parts"]

#: chapter stem -> ``"module:function"`` of its plan, imported when asked for. Chapters that are not here
#: run as one part: the chapter itself.
PLANS: dict = {
    "01_mortier_set_calibration": "credalbook.papers.mortier.parts:mortier_parts",
    "02_juergens_instance_calibration": "credalbook.papers.juergens.parts:juergens_parts",
    "03_mimori_label_histograms": "credalbook.papers.mimori.parts:mimori_parts",
    "04_wu_gales_ensemble_calibration": "credalbook.papers.wu_gales.parts:wu_gales_parts",
    "05_epistemic_uncertainty_gp": "credalbook.papers.eu.parts:eu_parts",
}


def plan_parts(chapter: str, cfg, **parameters) -> list:
    """The parts of ``chapter`` with preset ``cfg`` and the chapter's ``parameters`` ([] without a plan)."""
    ref = PLANS.get(chapter)
    if ref is None:
        return []
    module, _, func = ref.partition(":")
    parts = list(getattr(importlib.import_module(module), func)(cfg, **parameters))
    names = [p.name for p in parts]
    if len(set(names)) != len(names):
        raise ValueError(f"the plan of {chapter} names a part twice: {sorted(n for n in names if names.count(n) > 1)}")
    return parts
