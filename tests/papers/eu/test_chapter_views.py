"""recorded_fits: the parts a later section of the EU chapter uses (every one below paper scale, at paper scale
only those already recorded), against the selection written out inline here as a second computation."""

from types import SimpleNamespace

import pytest

from credalbook.papers.eu import eu_plan, recorded_fits
from credalbook.papers.presets import preset

STATES = {"a": "recorded", "b": "missing", "c": "stale", "d": "recorded"}


def _parts():
    return [SimpleNamespace(name=n) for n in STATES]


def _old_recorded(parts, scale, part_state, run_parts):
    """The selection written out inline: every part below paper scale, at paper scale those whose record is up to date."""
    ready = [p for p in parts if scale != "paper" or part_state(p).state == "recorded"]
    return run_parts(ready) if ready else {}


class TestRecordedFits:
    @pytest.mark.parametrize("scale", ["tiny", "quick", "paper"])
    @pytest.mark.parametrize("keep", [("a", "b", "c", "d"), ("b", "c"), ()])
    def test_main(self, scale, keep):
        parts = [p for p in _parts() if p.name in keep]
        asked, ran = [], []

        def state(p):
            asked.append(p.name)
            return SimpleNamespace(state=STATES[p.name])

        def run(chosen):
            ran.append([p.name for p in chosen])
            return {p.name: 10 * len(ran) + i for i, p in enumerate(chosen)}

        got = recorded_fits(parts, scale=scale, part_state=state, run_parts=run)
        calls = (list(asked), list(ran))
        asked.clear(), ran.clear()
        assert got == _old_recorded(parts, scale, state, run)
        assert calls == (asked, ran)  # the same calls to the book's functions, in the same order
        expected = [n for n in keep if scale != "paper" or STATES[n] == "recorded"]
        assert got == {n: 10 + i for i, n in enumerate(expected)}
        assert asked == (list(keep) if scale == "paper" else [])  # the records are read at paper scale only
        assert ran == ([expected] if expected else [])  # nothing to run: run_parts is not called

    def test_state_as_string(self):
        got = recorded_fits(_parts(), scale="paper", part_state=lambda p: STATES[p.name], run_parts=_names)
        assert got == {"a": 0, "d": 1}

    def test_plan_parts(self):
        """A group of the chapter's plan: below paper scale every part of the group goes to run_parts."""
        plan = eu_plan(preset("05_epistemic_uncertainty_gp", "tiny"))
        parts = plan.group_parts("carving_0.25-0.85")
        got = recorded_fits(parts, scale="tiny", part_state=lambda p: "missing", run_parts=_names)
        assert list(got) == [p.name for p in parts] and len(got) > 0
        assert recorded_fits(parts, scale="paper", part_state=lambda p: "missing", run_parts=_names) == {}

    def test_errors(self):
        with pytest.raises(ValueError, match="scale"):
            recorded_fits(_parts(), scale="huge", part_state=str, run_parts=_names)
        with pytest.raises(TypeError, match="part_state"):
            recorded_fits(_parts(), scale="tiny", part_state=None, run_parts=_names)
        with pytest.raises(TypeError, match="run_parts"):
            recorded_fits(_parts(), scale="tiny", part_state=str, run_parts="run")


def _names(chosen):
    return {p.name: i for i, p in enumerate(chosen)}
