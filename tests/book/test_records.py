"""credalbook.book.records: the codec, part and chapter records, staleness, status and publishing."""

import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch

from credalbook.book import records
from credalbook.metrics.epistemic import EUReliability
from credalbook.papers.criteria import close_to
from credalbook.papers.parts import Part
from credalbook.papers.report import Comparison

CALLS = []


def counted(x: int = 1, device: str = "cpu"):
    """A part function that counts its calls (a test module's function: no package fingerprints)."""
    CALLS.append(x)
    return {"x": x, "square": np.arange(x, dtype=np.float64) ** 2}


def _roundtrip(value):
    return records.decode(json.loads(json.dumps(records.encode(value))))


class TestCodec:
    def test_roundtrip(self):
        rel = EUReliability(
            cuts=np.array([0.1, 0.2]),
            counts=np.array([3, 4, 5]),
            mean_eu=np.array([0.05, 0.15, 0.3]),
            mean_gain=np.array([0.0, 0.1, np.nan]),
        )
        big = np.random.default_rng(0).normal(size=(70, 3)).astype(np.float32)
        value = {
            "rel": rel,
            "big": big,
            "ints": np.arange(1000, dtype=np.int64),
            "t": (1, "a", None, True),
            3: "int key",
            "nan": float("nan"),
            "inf": -math.inf,
            "np": np.float64(2.5),
            "b": np.bool_(True),
            "tensor": torch.arange(5.0),
            "nested": [{"__weird": 1}],
        }
        out = _roundtrip(value)
        assert isinstance(out["rel"], EUReliability)
        np.testing.assert_array_equal(out["rel"].mean_gain, rel.mean_gain)  # NaN included
        assert out["big"].dtype == np.float32 and out["big"].shape == (70, 3)
        assert out["big"].tobytes() == big.tobytes()  # bit for bit
        np.testing.assert_array_equal(out["ints"], value["ints"])
        assert out["t"] == (1, "a", None, True) and out[3] == "int key"
        assert math.isnan(out["nan"]) and out["inf"] == -math.inf and out["np"] == 2.5 and out["b"] is True
        assert torch.equal(out["tensor"], value["tensor"])
        assert out["nested"] == [{"__weird": 1}]

    def test_large_arrays_are_compressed(self):
        enc = records.encode(np.zeros(10_000))
        assert "zlib" in enc and len(json.dumps(enc)) < 1000

    def test_errors(self):
        with pytest.raises(TypeError, match=r"value\['s'\]: a builtins.set cannot be recorded"):
            records.encode({"s": {1, 2}})

        @dataclass
        class Foreign:
            a: int = 1

        with pytest.raises(TypeError, match=r"value\[0\]: only credalbook's dataclasses"):
            records.encode([Foreign()])
        with pytest.raises(TypeError, match="dtype object"):
            records.encode(np.array([None, 1]))
        with pytest.raises(ValueError, match="not one of credalbook's"):
            records.decode({"__dataclass__": "os:PathLike", "fields": {}})


@pytest.fixture()
def root(tmp_path):
    return tmp_path / "results"


@pytest.fixture(autouse=True)
def _fresh_parts_registry():
    """The parts a process used are noted process-wide (a chapter's kernel is one process); tests start afresh."""
    from credalbook import _provenance

    _provenance._PARTS.clear()
    yield
    _provenance._PARTS.clear()


class TestParts:
    def test_compute_record_load(self, root):
        CALLS.clear()
        part = Part("p-3", counted, {"x": 3, "device": "cpu"})
        v1 = records.run_part("chap", "tiny", part, root=root)
        assert CALLS == [3]
        data = records.read_part("chap", "tiny", "p-3", root=root)
        man = data["manifest"]
        assert {
            "commit",
            "clean",
            "date",
            "machine",
            "versions",
            "parameters",
            "seeds",
            "wall_seconds",
            "modules",
        } <= set(man)
        assert data["parameters"] == {"function": f"{__name__}:counted", "x": 3}  # device is ignored
        assert records.part_state("chap", "tiny", part, root=root).state == "recorded"
        # loaded, not computed again; the device does not matter
        v2 = records.run_part("chap", "tiny", Part("p-3", counted, {"x": 3, "device": "cuda"}), root=root)
        assert CALLS == [3]
        np.testing.assert_array_equal(v1["square"], v2["square"])

    def test_changed_parameter_is_stale(self, root):
        CALLS.clear()
        records.run_part("chap", "tiny", Part("p", counted, {"x": 2}), root=root)
        st = records.part_state("chap", "tiny", Part("p", counted, {"x": 4}), root=root)
        assert st.state == "stale" and st.reasons == ("parameter x: recorded 2, now 4",)
        # a stale record can be used as it is, or computed again (the default)
        assert records.run_part("chap", "tiny", Part("p", counted, {"x": 4}), root=root, rerun_stale=False)["x"] == 2
        assert records.run_part("chap", "tiny", Part("p", counted, {"x": 4}), root=root)["x"] == 4
        assert CALLS == [2, 4]

    def test_changed_module_is_stale(self, root):
        from credalbook.synthetic import calibrated_predictions

        part = Part("cal", calibrated_predictions, {"n_instances": 5, "n_classes": 3, "seed": 1})
        records.run_part("chap", "tiny", part, root=root)
        assert records.part_state("chap", "tiny", part, root=root).state == "recorded"
        path = root / "chap" / "tiny" / "parts" / "cal.json"
        data = json.loads(path.read_text())
        assert "credalbook/synthetic/predictions.py" in data["manifest"]["modules"]
        assert data["manifest"]["seeds"] == [1]
        data["manifest"]["modules"]["credalbook/synthetic/predictions.py"] = "0" * 16  # recorded with other code
        data["manifest"]["modules"]["credalbook/gone.py"] = "1" * 16
        path.write_text(json.dumps(data))
        st = records.part_state("chap", "tiny", part, root=root)
        assert st.state == "stale"
        assert set(st.reasons) == {"credalbook/synthetic/predictions.py changed", "credalbook/gone.py is gone"}

    def test_wall_time_counts_interrupted_attempts(self, root, tmp_cache):
        """A part interrupted and computed again (a fit resuming from its checkpoint) records the time of both."""
        import time as _time

        def flaky(x: int = 1, device: str = "cpu"):
            _time.sleep(0.3)
            CALLS.append(x)
            if len(CALLS) == 1:
                raise KeyboardInterrupt  # the attempt killed half-way
            return {"x": x}

        CALLS.clear()
        with pytest.raises(KeyboardInterrupt):
            records.run_part("chap", "tiny", Part("p", flaky, {"x": 1}), root=root)
        ledger = tmp_cache / "part-clocks" / "chap.tiny.p.json"
        assert json.loads(ledger.read_text())["seconds"] >= 0.3
        records.run_part("chap", "tiny", Part("p", flaky, {"x": 1}), root=root)
        man = records.read_part("chap", "tiny", "p", root=root)["manifest"]
        assert man["attempts"] == 2 and 0.3 <= man["earlier_attempts_seconds"] < man["wall_seconds"]
        assert man["wall_seconds"] >= 0.6 and not ledger.exists()
        # a part done in one attempt says nothing more
        records.run_part("chap", "tiny", Part("q", counted, {"x": 1}), root=root)
        assert "attempts" not in records.read_part("chap", "tiny", "q", root=root)["manifest"]

    def test_part_clock_ignores_other_parameters(self, tmp_cache):
        """An interrupted attempt with other parameters is another computation: its time does not count."""
        with pytest.raises(KeyboardInterrupt), records._PartClock("chap", "paper", "p", parameters={"x": 1}):
            raise KeyboardInterrupt
        with records._PartClock("chap", "paper", "p", parameters={"x": 2}) as clock:
            pass
        assert clock.attempts == 1 and clock.earlier == 0.0
        with pytest.raises(KeyboardInterrupt), records._PartClock("chap", "paper", "p", parameters={"x": 1}):
            raise KeyboardInterrupt
        with records._PartClock("chap", "paper", "p", parameters={"x": 1}) as clock:
            pass
        assert clock.attempts == 2

    def test_part_clock_beats(self, tmp_cache):
        """While a part is computed its ledger is refreshed, so a killed attempt (no exit handler) still counts."""
        import time as _time

        with records._PartClock("chap", "paper", "p", beat=0.05) as clock:
            _time.sleep(0.4)
            assert json.loads(clock.path.read_text())["seconds"] >= 0.2
        assert not clock.path.exists() and clock.seconds >= 0.4 and clock.attempts == 1

    def test_pending_parts(self, root):
        """At paper scale a section is pending until every part is recorded (and up to date); below it, never."""
        parts = [Part("a-1", counted, {"x": 1}), Part("a-2", counted, {"x": 2})]
        assert records.pending_parts("chap", "tiny", parts, root=root) is None
        assert records.pending_parts("chap", "paper", parts, root=root) == "0 of 2 parts recorded"
        records.run_part("chap", "paper", parts[0], root=root)
        assert records.pending_parts("chap", "paper", parts, root=root) == "1 of 2 parts recorded"
        records.run_part("chap", "paper", parts[1], root=root)
        assert records.pending_parts("chap", "paper", parts, root=root) is None
        changed = [parts[0], Part("a-2", counted, {"x": 3})]  # a record of other parameters is stale: not usable
        assert records.pending_parts("chap", "paper", changed, root=root) == "1 of 2 parts recorded"

    def test_run_parts_group_and_errors(self, root):
        parts = [Part("a-1", counted, {"x": 1}), Part("a-2", counted, {"x": 2}), Part("b-1", counted, {"x": 5})]
        assert sorted(records.run_parts("chap", "tiny", parts, group="a", root=root)) == ["a-1", "a-2"]
        with pytest.raises(ValueError, match="no part of group 'c'"):
            records.run_parts("chap", "tiny", parts, group="c", root=root)
        with pytest.raises(ValueError, match="scale must be one of"):
            records.scale_dir("chap", "huge")
        with pytest.raises(ValueError, match="chapter must be"):
            records.scale_dir("../x", "tiny")
        with pytest.raises(ValueError, match="name must be lower-case"):
            Part("Bad Name", counted)


def _notebook(path: Path, code: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('scale = "quick"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_markdown_cell("Prose."),
        nbformat.v4.new_code_cell(code, metadata={"tags": ["fig-1"]}),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})]
    nbformat.write(nb, path)
    return path


def _comparison(book: float, scale: str) -> dict:
    cmp = Comparison("chap")
    cmp.add(
        "Table 1", "a number", paper=1.0, book=book, judgement=close_to(book, 1.0, tol=0.1, tolerance_source="test")
    )
    return cmp.to_dict({"scale": scale, "seed": 0})


class TestChapterRecords:
    def test_state(self, root, tmp_path):
        nb = _notebook(tmp_path / "chap.ipynb", "x = 1")
        part = Part("p", counted, {"x": 2})
        records.run_part("chap", "paper", part, root=root)
        comparison = _comparison(1.05, "paper")
        comparison["provenance"]["parts"] = {
            "p": {
                "state": "recorded",
                "digest": records.read_part("chap", "paper", "p", root=root)["digest"],
                "wall_seconds": 3.0,
            }
        }
        records.write_chapter_record(
            "chap", "paper", comparison, notebook=nb, executed=nb, wall_seconds=10.0, preset={"n": 5}, root=root
        )
        rec = records.read_chapter_record("chap", "paper", root=root)
        assert rec["figures"] == ["fig-1-0.png"] and (root / "chap" / "paper" / "figures" / "fig-1-0.png").is_file()
        assert rec["manifest"]["parts_wall_seconds"] == 3.0
        state = lambda **kw: records.chapter_state("chap", "paper", root=root, **kw)  # noqa: E731
        assert state(notebook=nb, preset={"n": 5}).state == "recorded"
        assert state(notebook=nb, preset={"n": 6}).reasons == ("the scale's preset changed",)
        # prose edits do not matter, code edits do
        doc = nbformat.read(nb, as_version=4)
        doc.cells[1].source = "Other prose."
        nbformat.write(doc, nb)
        assert state(notebook=nb, preset={"n": 5}).state == "recorded"
        doc.cells[2].source = "x = 2"
        nbformat.write(doc, nb)
        assert state(notebook=nb, preset={"n": 5}).reasons == ("the chapter's code cells changed",)
        # a part recorded again since
        records.run_part("chap", "paper", Part("p", counted, {"x": 3}), root=root)
        assert "part p was recorded again since" in state().reasons
        assert records.chapter_state("other", "paper", root=root).state == "missing"


class TestPublish:
    def test_missing_record(self, root):
        cmp = Comparison("chap")
        cmp.add("Table 1", "a number", paper=1.0, book=1.2, judgement=close_to(1.2, 1.0, tol=0.1, tolerance_source="t"))
        pub = records.publish(cmp, scale="quick", root=root, notebook=None)
        assert pub.state.state == "missing" and "No paper-scale record yet" in pub.provenance()
        html = pub._repr_html_()
        assert "credalbook-record-missing" in html and "paper scale (record)" in html

    def test_with_record(self, root, tmp_path):
        nb = _notebook(tmp_path / "chap.ipynb", "x = 1")
        records.write_chapter_record(
            "chap", "paper", _comparison(1.05, "paper"), notebook=nb, wall_seconds=4000.0, root=root
        )
        cmp = Comparison("chap")
        cmp.add("Table 1", "a number", paper=1.0, book=1.2, judgement=close_to(1.2, 1.0, tol=0.1, tolerance_source="t"))
        pub = records.publish(cmp, scale="quick", root=root, notebook=nb)
        assert pub.state.state == "recorded", pub.state.reasons
        html = pub._repr_html_()
        assert "1.05" in html and "1.2" in html and "credalbook-record-current" in html
        assert "This build (quick): 0 of 1 agree" in html and "Paper-scale record: 1 of 1 agree" in html
        assert "wall time 1 h 06 min" in pub.provenance() and "Up to date" in pub.provenance()
        doc = nbformat.read(nb, as_version=4)
        doc.cells[2].source = "x = 2"
        nbformat.write(doc, nb)
        pub = records.publish(cmp, scale="quick", root=root, notebook=nb)
        assert "STALE" in pub.provenance() and "credalbook-record-stale" in pub._repr_html_()

    def test_record_figure(self, root, tmp_path):
        nb = _notebook(tmp_path / "chap.ipynb", "x = 1")
        assert "No paper-scale record" in records.record_figure("chap", "fig-1", root=root).data
        records.write_chapter_record(
            "chap", "paper", _comparison(1.0, "paper"), notebook=nb, executed=nb, wall_seconds=1.0, root=root
        )
        fig = records.record_figure("chap", "fig-1", root=root)
        assert 'src="data:image/png;base64,iVBORw0KGgo="' in fig.data and "from the record: commit" in fig.data
        with pytest.raises(ValueError, match="figure tag"):
            records.record_figure("chap", "cell02", root=root)


class TestStatus:
    def test_chapter_05_at_tiny(self, root):
        states = records.status(["05_epistemic_uncertainty_gp"], scale="tiny", root=root)
        assert [s.name for s in states][-1] == "chapter"
        assert {s.state for s in states} == {"missing"} and len(states) == 41
        text = records.format_status(states)
        assert "05_epistemic_uncertainty_gp at tiny: 41 missing" in text

    def test_cli(self, tmp_path):
        env = {**__import__("os").environ, "CREDALBOOK_RECORDS_DIR": str(tmp_path)}
        out = subprocess.run(
            [sys.executable, "-m", "credalbook.book", "status", "-c", "03_mimori_label_histograms"],  # 5 networks
            capture_output=True,
            text=True,
            env=env,
        )
        assert out.returncode == 0 and "03_mimori_label_histograms at paper: 6 missing" in out.stdout
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "credalbook.book",
                "run",
                "--scale",
                "tiny",
                "-c",
                "05_epistemic_uncertainty_gp",
                "--part",
                "nope",
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        assert bad.returncode == 2 and "has no part 'nope'" in bad.stderr
        two = subprocess.run(
            [sys.executable, "-m", "credalbook.book", "run", "--part", "missing"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert two.returncode == 2 and "exactly one chapter" in two.stderr


class TestRevalidate:
    def _stale_record(self, root):
        """A paper-scale record of the EU chapter's first part, from HEAD's clean tree, whose code 'changed' since."""
        from credalbook.papers.eu import eu_plan, EUFit
        from credalbook.papers.presets import preset

        part = eu_plan(preset("05_epistemic_uncertainty_gp", "paper")).parts[0]
        value = EUFit(role="train", mean=np.zeros(3), variance=np.ones(3), train_key="k", seconds=1.0)
        path = records.write_part("05_epistemic_uncertainty_gp", "paper", part, value, wall_seconds=1.0, root=root)
        data = json.loads(path.read_text())
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(records.__file__).parents[2],
        ).stdout.strip()
        data["manifest"].update(commit=head, clean=True)
        data["manifest"]["modules"]["credalbook/papers/eu/experiments.py"] = "0" * 16
        path.write_text(json.dumps(data))
        assert records.part_state("05_epistemic_uncertainty_gp", "paper", part, root=root).state == "stale"
        return part, path

    def test_unchanged_values_carry_the_record_over(self, root):
        part, path = self._stale_record(root)
        out = records.revalidate("05_epistemic_uncertainty_gp", root=root, max_checks=1)
        assert out == [
            (
                part.name,
                f"revalidated: 1 tiny parts of {part.function} equal bit for bit at "
                f"{json.loads(path.read_text())['manifest']['revalidated'][0]['from_commit'][:7]} and now",
            )
        ]
        data = json.loads(path.read_text())
        assert data["manifest"]["revalidated"][0]["modules_before"]["credalbook/papers/eu/experiments.py"] == "0" * 16
        assert records.part_state("05_epistemic_uncertainty_gp", "paper", part, root=root).state == "recorded"

    def test_moved_values_stay_stale(self, root, monkeypatch):
        part, path = self._stale_record(root)
        calls = iter([{"toy-seed0-train": 1}, {"toy-seed0-train": 2}])
        monkeypatch.setattr(records, "_values_at", lambda tree, specs, env: next(calls))
        out = records.revalidate("05_epistemic_uncertainty_gp", root=root, max_checks=1)
        assert out == [(part.name, "the code change moves the tiny values of ['toy-seed0-train']: rerun")]
        assert records.part_state("05_epistemic_uncertainty_gp", "paper", part, root=root).state == "stale"

    def test_other_reasons_are_not_revalidated(self, root):
        part, path = self._stale_record(root)
        data = json.loads(path.read_text())
        data["manifest"]["clean"] = False
        path.write_text(json.dumps(data))
        assert records.revalidate("05_epistemic_uncertainty_gp", root=root) == [
            (part.name, "recorded from a tree with uncommitted changes: its code cannot be checked out")
        ]
        data["parameters"]["seed"] = 99
        path.write_text(json.dumps(data))
        ((name, why),) = records.revalidate("05_epistemic_uncertainty_gp", root=root)
        assert why.startswith("stale for other reasons than changed code: parameter seed: recorded 99, now 0")

    def test_moved_modules_are_checked_too(self, root):
        """A module that is gone (its code moved elsewhere) is a code change like any other: the check computes
        with both commits' code."""
        part, path = self._stale_record(root)
        data = json.loads(path.read_text())
        data["manifest"]["modules"]["credalbook/metrics/gone_since.py"] = "0" * 16
        path.write_text(json.dumps(data))
        assert (
            "credalbook/metrics/gone_since.py is gone"
            in records.part_state("05_epistemic_uncertainty_gp", "paper", part, root=root).reasons
        )
        ((name, why),) = records.revalidate("05_epistemic_uncertainty_gp", root=root, max_checks=1, dry_run=True)
        assert why.startswith("revalidated"), why


class TestRenamedParameters:
    def test_a_renamed_keyword_is_not_a_change(self):
        assert records._parameter_changes({"n_bootstrap": 100, "seed": 0}, {"n_resamples": 100, "seed": 0}) == []
        # a preset (or plan) that still says the old name compares equal too
        assert records._parameter_changes({"n_boot": 400}, {"n_boot": 400}) == []
        assert records._parameter_changes({"n_bootstrap": 100}, {"n_resamples": 99}) == [
            "parameter n_resamples: recorded 100, now 99"
        ]
        # a record that already has the new name is compared as it is
        assert records.renamed_keys({"n_bootstrap": 1, "n_resamples": 2}) == {"n_bootstrap": 1, "n_resamples": 2}

    def test_older_code_is_called_with_the_old_name(self, tmp_path):
        """:data:`records._EVAL` calls a function of an older commit, which knows ``n_resamples`` as
        ``n_bootstrap``, with the old name, and a function that knows the new name with the new one."""
        (tmp_path / "oldcode.py").write_text(
            "def f(*, n_bootstrap, seed=0):\n    return n_bootstrap * 10 + seed\n"
            "def g(*, n_resamples, seed=0):\n    return n_resamples * 10 + seed\n"
            "def h(**options):\n    return f(**options)\n"  # the old name is known only further down
            "def c(**options):\n    import joblib\n    return joblib.Memory(None).cache(f)(**options)\n"
        )
        specs = {name: (f"oldcode:{name}", records.encode({"n_resamples": 3, "seed": 1})) for name in "fghc"}
        assert records._values_at(tmp_path, specs, dict(__import__("os").environ)) == {
            "f": 31,
            "g": 31,
            "h": 31,
            "c": 31,
        }


def test_revalidation_checks_the_closest_parts():
    """A stale LeNet member is checked with LeNet members at tiny, not with the first parts of the plan (DenseNets
    whose training a change of theirs moves)."""
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset

    ch = "04_wu_gales_ensemble_calibration"
    params = dict(seed=0, dataset="fashion_mnist", device="cpu")
    paper = {p.name: p for p in plan_parts(ch, preset(ch, "paper"), scale="paper", **params)}
    tiny = plan_parts(ch, preset(ch, "tiny"), scale="tiny", **params)
    picked = records._closest(paper["fashion_mnist-quick-len-seed5"], tiny, 4)
    assert [p.kwargs["topology"] for p in picked] == ["LEN"] * 3  # all of tiny's three, and no other topology
    assert [p.kwargs["topology"] for p in records._closest(paper["fashion_mnist-quick-rsn-seed0"], tiny, 1)] == ["RSN"]
    assert records._closest(paper["fashion_mnist-quick-len-seed5"], [], 4) == []


def test_revalidation_checks_without_newer_keywords():
    """A record made before an option existed is checked with tiny parts that do not pass that option (the
    record's code would refuse it): the Juergens error-rate parts before ``simulator`` was added."""
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset

    ch = "02_juergens_instance_calibration"
    params = dict(seed=0, device="cpu")
    paper = {p.name: p for p in plan_parts(ch, preset(ch, "paper"), scale="paper", **params)}
    tiny = plan_parts(ch, preset(ch, "tiny"), scale="tiny", **params)
    old = next(
        p
        for p in paper.values()
        if "simulator" not in p.kwargs and any("simulator" in q.kwargs for q in tiny if q.function == p.function)
    )
    picked = records._closest(old, tiny, 4)
    assert picked and all("simulator" not in p.kwargs for p in picked)
    new = next(p for p in paper.values() if p.kwargs.get("simulator") == "authors")
    assert all(p.kwargs.get("simulator") == "authors" for p in records._closest(new, tiny, 4))


PRIMER = "00_calibration_primer"


class TestRevalidateChapter:
    def _stale_chapter(self, root):
        """A paper-scale chapter record of the primer from HEAD's clean tree whose package code 'changed' since."""
        from credalbook.book.chapters import chapter_paths
        from credalbook.papers.presets import preset

        (nb,) = chapter_paths([PRIMER])
        comparison = {
            "rows": [{"quantity": "q", "book": "0.1", "verdict": "agrees", "seconds": 3.0}],
            "counts": {"agrees": 1},
            "parameters": {"scale": "paper", "seed": 0},
            "provenance": {"modules": {"credalbook/metrics/binning.py": "0" * 16}},
        }
        path = records.write_chapter_record(
            PRIMER, "paper", comparison, notebook=nb, wall_seconds=1.0, preset=dict(preset(PRIMER, "paper")), root=root
        )
        data = json.loads(path.read_text())
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(records.__file__).parents[2],
        ).stdout.strip()
        data["manifest"].update(commit=head, clean=True)
        path.write_text(json.dumps(data))
        st = records.chapter_state(PRIMER, "paper", notebook=nb, preset=dict(preset(PRIMER, "paper")), root=root)
        assert st.state == "stale" and st.reasons == ("credalbook/metrics/binning.py changed",)
        return path, head

    def _runs(self, monkeypatch, before, after):
        calls = []

        def fake(tree, chapter, scale, parameters, work, env):
            calls.append((Path(tree), chapter, scale, parameters))
            return json.loads(json.dumps(before if len(calls) == 1 else after))

        monkeypatch.setattr(records, "_chapter_run_at", fake)
        monkeypatch.setattr(records, "repo_root", lambda: Path(records.__file__).parents[2])
        return calls

    def test_same_outputs_carry_the_record_over(self, root, monkeypatch):
        path, head = self._stale_chapter(root)
        run = {
            "rows": [{"quantity": "q"}],
            "counts": {"agrees": 1},
            "outputs": [[0, "ECE 0.031"]],
            "modules": {"credalbook/metrics/binning.py": "fedcba9876543210"},
        }
        calls = self._runs(monkeypatch, run, run)
        out = records.revalidate(PRIMER, root=root)
        assert out == [
            (
                "chapter",
                f"revalidated: the chapter at tiny shows the same rows and outputs at {head[:7]} "
                "and now (1 rows, 1 outputs)",
            )
        ]
        # once with the recorded commit's code (a worktree), once with the code now; at tiny, without "scale"
        assert [c[1:3] for c in calls] == [(PRIMER, "tiny")] * 2 and calls[1][0] == Path(records.__file__).parents[2]
        assert calls[0][0] != calls[1][0] and "scale" not in calls[0][3] and calls[0][3]["seed"] == 0
        man = json.loads(path.read_text())["manifest"]
        assert man["modules"] == {"credalbook/metrics/binning.py": "fedcba9876543210"}  # the kernel's modules now
        (entry,) = man["revalidated"]
        assert entry["from_commit"] == head and entry["modules_before"] == {"credalbook/metrics/binning.py": "0" * 16}

    @pytest.mark.parametrize(
        "key, where", [("counts", "its counts"), ("rows", "its rows"), ("outputs", "the output of code cell 4")]
    )
    def test_moved_outputs_stay_stale(self, root, monkeypatch, key, where):
        path, _ = self._stale_chapter(root)
        before = {"rows": [{"quantity": "q"}], "counts": {"agrees": 1}, "outputs": [[4, "ECE 0.031"]], "modules": {}}
        after = {
            **before,
            key: {"rows": [{"quantity": "r"}], "counts": {"agrees": 0}, "outputs": [[4, "ECE 0.032"]]}[key],
        }
        self._runs(monkeypatch, before, after)
        assert records.revalidate(PRIMER, root=root) == [("chapter", f"the code change moves {where} at tiny: rerun")]
        assert "revalidated" not in json.loads(path.read_text())["manifest"]

    def test_changed_code_cells_are_checked_too(self, root, monkeypatch):
        """Both runs execute their own commit's notebook: a chapter whose code cells changed is carried over when
        they show the same, and the record takes the fingerprint of the cells now."""
        path, head = self._stale_chapter(root)
        data = json.loads(path.read_text())
        data["manifest"]["chapter_code"] = "0" * 16
        path.write_text(json.dumps(data))
        run = {"rows": [{"quantity": "q"}], "counts": {"agrees": 1}, "outputs": [[0, "ECE 0.031"]], "modules": {}}
        self._runs(monkeypatch, run, run)
        ((name, why),) = records.revalidate(PRIMER, root=root)
        assert why.startswith("revalidated"), why
        man = json.loads(path.read_text())["manifest"]
        nb = Path(records.__file__).parents[2] / "chapters" / f"{PRIMER}.ipynb"
        assert (
            man["chapter_code"] == records.chapter_code_hash(nb)
            and man["revalidated"][0]["chapter_code_before"] == "0" * 16
        )

    def test_other_reasons_are_not_revalidated(self, root, monkeypatch):
        path, _ = self._stale_chapter(root)
        self._runs(monkeypatch, None, None)
        data = json.loads(path.read_text())
        good_preset = data["manifest"]["preset"]
        data["manifest"]["preset"] = {"changed": 1}
        path.write_text(json.dumps(data))
        ((name, why),) = records.revalidate(PRIMER, root=root)
        assert name == "chapter" and why == (
            "stale for other reasons than changed code: the scale's preset "
            "changed; credalbook/metrics/binning.py changed"
        )
        data["manifest"].update(preset=good_preset, clean=False)
        path.write_text(json.dumps(data))
        assert records.revalidate(PRIMER, root=root) == [
            ("chapter", "recorded from a tree with uncommitted changes: its code cannot be checked out")
        ]

    def test_masked(self):
        """Commits, dates and durations are masked; the numbers a chapter shows are not."""
        text = (
            "commit 708db8c5cde3 on 2026-11-26T16:40:01Z, 767 s (12.5 min), 3.2 s/it; ECE 0.0312, "
            "p = 0.05, 1000 datasets, 12 bins, 1000000 draws"
        )
        assert records._masked(text) == (
            "commit <commit> on <date>, <time> (<time>), <time>; ECE 0.0312, "
            "p = 0.05, 1000 datasets, 12 bins, 1000000 draws"
        )
        # the timing fields of a repr (a Published table's parts), not the other numbers beside them
        assert records._masked("{'state': 'computed', 'wall_seconds': 0.2, \"fit_seconds\": 1e-3, 'n': 5}") == (
            "{'state': 'computed', 'wall_seconds': <time>, \"fit_seconds\": <time>, 'n': 5}"
        )

    def test_text_outputs(self, tmp_path):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell("# t"), nbformat.v4.new_code_cell("x")]
        nb.cells[1].outputs = [
            nbformat.v4.new_output("stream", name="stdout", text="ECE 0.03 in 2.0 s\n"),
            nbformat.v4.new_output("stream", name="stderr", text="100%|###| 3/3\n"),
            nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>", "image/png": "iVBOR"}),
            nbformat.v4.new_output("execute_result", data={"text/html": "<b>0.5</b>"}, execution_count=1),
        ]
        nbformat.write(nb, tmp_path / "c.ipynb")
        assert records._text_outputs(tmp_path / "c.ipynb") == [
            (0, "ECE 0.03 in <time>\n"),
            (0, "<Figure>"),
            (0, "<b>0.5</b>"),
        ]


@pytest.mark.slow
def test_revalidate_chapter_for_real(tmp_path):
    """The primer's chapter record carried over a code change that moves nothing (run twice at tiny, about a
    minute each), and kept stale by one that moves what the chapter shows."""
    import shutil

    root = tmp_path / "results"
    shutil.copytree(Path(records.__file__).parents[2] / "results" / PRIMER, root / PRIMER)
    path = root / PRIMER / "paper" / "chapter.json"
    data = json.loads(path.read_text())
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, cwd=Path(records.__file__).parents[2]
    ).stdout.strip()
    data["manifest"].update(commit=head, clean=True)
    data["manifest"]["modules"]["credalbook/metrics/binning.py"] = "0" * 16  # "changed" since, moving nothing
    path.write_text(json.dumps(data))
    ((name, why),) = records.revalidate(PRIMER, root=root)
    assert name == "chapter" and why.startswith(
        f"revalidated: the chapter at tiny shows the same rows and outputs at {head[:7]} and now"
    ), why
    assert records.chapter_state(PRIMER, "paper", root=root).state == "recorded"


def test_rows_match_across_scales():
    rows = [
        {"artifact": "Fig. 3", "quantity": "R = 10 regions vs 1"},
        {"artifact": "T", "quantity": "a"},
        {"artifact": "T", "quantity": "n = 1"},
        {"artifact": "T", "quantity": "n = 2"},
    ]
    rec = [
        {"artifact": "Fig. 3", "quantity": "R = 20 regions vs 1"},
        {"artifact": "T", "quantity": "a"},
        {"artifact": "T", "quantity": "n = 5"},
    ]
    pairs = records._match_rows(rows, rec)
    # exact text first; a number that differs with the scale still pairs when it is the only candidate;
    # "n = 1"/"n = 2" against "n = 5" is ambiguous and stays unpaired
    assert pairs == {0: rec[0], 1: rec[1]}


class TestWriteBenchmark:
    def test_main(self, root):
        rows = [
            {"work": "LEN, batch 128, cpu", "seconds": np.float64(0.0177), "per": "training step"},
            {"work": "LEN, batch 128, cuda", "seconds": 0.0009, "per": "training step"},
        ]
        path = records.write_benchmark(
            "step-gpu", rows, title="One training step", command="benchmark.py", wall_seconds=12.34, root=root
        )
        assert path == root / "benchmark" / "step-gpu.json"
        data = json.loads(path.read_text())
        assert data["kind"] == "benchmark" and data["title"] == "One training step"
        assert data["rows"] == [dict(r, seconds=float(r["seconds"])) for r in rows]
        man = data["manifest"]
        assert man["wall_seconds"] == 12.3 and man["machine"]["cores"] >= 1 and "torch" in man["versions"]
        # the generated page shows it
        from credalbook.book.reproduce import render_reproduce

        page = render_reproduce(root=root)
        assert "### One training step" in page and "LEN, batch 128, cuda" in page and "0.0009" in page

    @pytest.mark.parametrize(
        "name, rows, match",
        [
            ("../x", [{"work": "a", "seconds": 1.0, "per": "step"}], "name"),
            ("x", [], "at least one"),
            ("x", [{"work": "a", "seconds": 1.0}], r"rows\[0\]"),
            ("x", [{"work": "a", "seconds": float("nan"), "per": "step"}], "positive finite"),
            ("x", [{"work": "a", "seconds": 0.0, "per": "step"}], "positive finite"),
            ("x", [{"work": "a", "seconds": True, "per": "step"}], "positive finite"),
        ],
    )
    def test_errors(self, root, name, rows, match):
        with pytest.raises(ValueError, match=match):
            records.write_benchmark(name, rows, title="t", command="c", wall_seconds=1.0, root=root)
        with pytest.raises(TypeError, match="strings"):
            records.write_benchmark(
                "x", [{"work": 3, "seconds": 1.0, "per": "step"}], title="t", command="c", wall_seconds=1.0, root=root
            )
        assert not (root / "benchmark" / "x.json").exists()
