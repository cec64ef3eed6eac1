"""credalbook.papers.plans: the registry of the chapters' plans."""

import math

import pytest

from credalbook.book.runner import chapter_paths
from credalbook.papers.parts import Part
from credalbook.papers.plans import plan_parts, PLANS
from credalbook.papers.presets import preset


class TestPlans:
    def test_registry_names_chapters(self):
        stems = {p.stem for p in chapter_paths()}
        assert set(PLANS) <= stems
        assert all(":" in ref for ref in PLANS.values())

    def test_no_plan_is_no_parts(self):
        assert plan_parts("00_calibration_primer", preset("00_calibration_primer", "tiny")) == []

    def test_duplicate_names_refused(self, monkeypatch):
        monkeypatch.setitem(PLANS, "x", "tests.papers.test_plans:_twice")
        with pytest.raises(ValueError, match="names a part twice: \\['a', 'a'\\]"):
            plan_parts("x", {})


def _twice(cfg, **_):
    return [Part("a", math.isclose), Part("a", math.isclose)]


def test_the_parts_module_does_not_hold_the_registry():
    """The part computations import credalbook.papers.parts, and their records fingerprint it: registering a plan
    must not change it."""
    import credalbook.papers.parts as parts

    assert not hasattr(parts, "PLANS") and not hasattr(parts, "plan_parts")
