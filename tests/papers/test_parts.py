"""credalbook.papers.parts: the Part unit."""

import math

import pytest

from credalbook.papers.parts import Part


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
