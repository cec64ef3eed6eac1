"""credalbook.papers.eu.chapter_views. recorded_fits: the parts a later section of the EU chapter uses (every one
below paper scale, at paper scale only those already recorded), against the selection written out inline here as a
second computation; the views of Tables 1 and 2 and of the carving study against their definitions."""

from types import SimpleNamespace

import numpy as np
import pytest

from credalbook.metrics.epistemic import interval_cuts
from credalbook.papers.eu import EU_ESTIMATORS, EU_METRICS, EU_PAPER_TABLE1, EU_PAPER_TABLE2, eu_plan, recorded_fits
from credalbook.papers.eu.chapter_views import carving_view, paper_table2, real_view, toy_view
from credalbook.papers.eu.floor import study_floors
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


def _study(seed=0, n=400):
    rng = np.random.default_rng(seed)
    runs = []
    for s in (0, 1):
        e = rng.uniform(size=n)
        m = np.maximum(e - 0.3, 0.0)
        gain = rng.choice([-1, 0, 1], size=n)
        ev = {
            k: SimpleNamespace(reliability=SimpleNamespace(cuts=interval_cuts(v, n_bins=10)))
            for k, v in (("M", m), ("E", e))
        }
        runs.append(SimpleNamespace(seed=s, eu={"M": m, "E": e}, gain=gain, evaluations=ev,
                                    accuracy={"train": 0.6 + s / 10, "aug": 0.8}, sizes={"test": n - s}))  # fmt: skip
    summary = {
        k: {m: (0.1 * i + j, 0.01) for j, m in enumerate((*EU_METRICS, "eece_bits"))}
        for i, k in enumerate(EU_ESTIMATORS)
    }
    return SimpleNamespace(runs=tuple(runs), summary=lambda: summary, seeds=[0, 1])


class TestToyView:
    def test_main(self):
        study = _study()
        toy = SimpleNamespace(aleatoric=np.array([0.1, 0.3, 0.5]), evaluation=SimpleNamespace(test=np.array([0, 2])))
        view = toy_view(study, toy)
        floors = study_floors(study)
        assert view.floor == {k: pytest.approx(np.mean(floors[k])) for k in EU_ESTIMATORS}
        assert view.table["seed 1"]["floor Ê_E"] == floors["E"][1] and view.table["seed 1"]["test points"] == 399
        assert view.glues["toy_gain"] == pytest.approx(np.mean([r.gain.mean() for r in study.runs]))
        assert view.glues["toy_bayes_test"] == pytest.approx(0.7)  # 1 − mean aleatoric of the test points
        assert view.glues["toy_eece_E"] == study.summary()["E"]["eece"][0]
        assert view.glues["paper_rho_M"] == EU_PAPER_TABLE1["M"]["rho_epi"][0]
        assert view.glues["toy_floor_M"] == view.floor["M"]


class TestRealView:
    def test_main(self):
        study = _study(1)
        view = real_view(study)
        assert view.glues["real_acc_tr"] == pytest.approx(0.65) and view.glues["real_test"] == 399
        assert view.glues["real_rho_epi_M"] == study.summary()["M"]["rho_epi"][0]
        assert view.glues["real_floor_E"] == pytest.approx(np.mean(study_floors(study)["E"]))
        assert view.table == paper_table2() and len(view.table) == 2 * len(EU_PAPER_TABLE2)


def test_carving_view(monkeypatch):
    import credalbook.papers.eu.chapter_views as views

    calls = {}
    monkeypatch.setattr(views, "available_study", lambda plan, group, fits, name: ((group, fits), []))
    monkeypatch.setattr(views, "study_numbers", lambda study, planned: {"study": study, "planned": planned})
    monkeypatch.setattr(views, "toy_eu_splits", lambda **kw: calls.setdefault(kw["seed"], kw))
    monkeypatch.setattr(views, "drop_carved_discs", lambda st, splits, n_drop, n_bins: (sorted(splits), n_drop, n_bins))
    monkeypatch.setattr(
        views, "carving_sentence", lambda carving, dropped: f"{len(carving)} ranges; dropped {dropped[1]}"
    )
    plan = SimpleNamespace(group_parts=lambda group: [group])
    carving, dropped, sentence = carving_view(
        plan, lambda parts: {p: 1 for p in parts}, SimpleNamespace(seeds=[3, 4]), ranges=((0.0, 0.6), (0.25, 0.85)),
        toy_noise_sd=0.3, window=None, discs={"shape": (3, 4)}, n_bins=20,
    )  # fmt: skip
    assert carving["0.25-0.85"] == {"study": ("carving_0.25-0.85", {"carving_0.25-0.85": 1}), "planned": 2}
    assert dropped == ([3, 4], 4, 20) and calls[4]["noise_sd"] == 0.3 and calls[3]["calibration"] == {"shape": (3, 4)}
    assert sentence == "2 ranges; dropped 4"
