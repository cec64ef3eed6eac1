"""credalbook.papers.parts: the Part unit and the registry of the chapters' plans."""

import math

import pytest

from credalbook.book.runner import chapter_paths
from credalbook.papers.parts import Part, plan_parts, PLANS
from credalbook.papers.presets import preset


class TestPart:
    def test_main(self):
        assert Part("a.b_c-1", math.isclose, {"a": 1.0, "b": 2.0}).run() is False
        p = Part("a", math.isclose, {"a": 1.0, "b": 2.0, "device": "cuda", "progress": True})
        assert p.parameters() == {"function": "math:isclose", "a": 1.0, "b": 2.0}
        assert Part("x", math.isclose, {"n_jobs": 4}, ignore=()).parameters()["n_jobs"] == 4

    def test_errors(self):
        for bad in ("", "Upper", "-lead", "a b", "a/b"):
            with pytest.raises(ValueError, match="name must be"):
                Part(bad, math.isclose)
        with pytest.raises(TypeError, match="func must be callable"):
            Part("a", 3)
        with pytest.raises(TypeError, match="kwargs must be a dict"):
            Part("a", math.isclose, [1])


class TestPlans:
    def test_registry_names_chapters(self):
        stems = {p.stem for p in chapter_paths()}
        assert set(PLANS) <= stems
        assert all(":" in ref for ref in PLANS.values())

    def test_no_plan_is_no_parts(self):
        assert plan_parts("00_calibration_primer", preset("00_calibration_primer", "tiny")) == []

    def test_duplicate_names_refused(self, monkeypatch):
        monkeypatch.setitem(PLANS, "x", "tests.papers.test_parts:_twice")
        with pytest.raises(ValueError, match="names a part twice: \\['a', 'a'\\]"):
            plan_parts("x", {})


def _twice(cfg, **_):
    return [Part("a", math.isclose), Part("a", math.isclose)]
