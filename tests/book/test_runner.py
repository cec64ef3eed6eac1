"""The chapter runner: failure reports, caching of executions, parameters and the CLI."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from credalbook.book import runner
from credalbook.papers.presets import PRESETS, SCALES

DUMMIES = Path(__file__).resolve().parents[1] / "_dummies"


class TestChapterPaths:
    def test_main(self):
        paths = runner.chapter_paths()
        assert paths, "no chapters found"
        assert [p.stem for p in paths] == sorted(p.stem for p in paths)
        assert all(p.parent.name == "chapters" for p in paths)

    def test_every_chapter_has_presets(self):
        for p in runner.chapter_paths():
            assert p.stem in PRESETS, f"{p.stem} has no preset table in credalbook.papers.presets"
            assert set(PRESETS[p.stem]) == set(SCALES)

    def test_guides(self):
        assert [p.stem for p in runner.chapter_paths() if runner.is_guide(p)] == ["00b_is_my_classifier_calibrated"]

    def test_errors(self):
        with pytest.raises(ValueError, match="unknown chapters"):
            runner.chapter_paths(["no_such_chapter"])
        with pytest.raises(ValueError, match=r"unknown chapters \['06'\]"):
            runner.chapter_paths(["02", "06"])

    def test_by_number(self):
        """A chapter is named by its stem or by its number; "00" is the primer, not the guide "00b"."""
        assert [p.stem for p in runner.chapter_paths(["02", "00"])] == [
            "00_calibration_primer",
            "02_juergens_instance_calibration",
        ]
        assert [p.stem for p in runner.chapter_paths(["00b", "00b_is_my_classifier_calibrated"])] == [
            "00b_is_my_classifier_calibrated"
        ]


class TestRunChapters:
    def test_failure_report(self, tmp_path, capsys):
        failures = runner.run_chapters("tiny", book_root=tmp_path, chapters_dir=DUMMIES, progress=False)
        assert len(failures) == 1
        f = failures[0]
        assert f.chapter == "failing_chapter"
        assert "ZeroDivisionError" in f.error and "scale tiny" in f.error  # the parameter reached the kernel
        assert f.exec_count == 4  # injected-parameters cell, parameters, x = ..., the failing cell
        assert f.output.exists() and f.output.name == "failing_chapter.failed.ipynb"
        assert not (tmp_path / "book" / "executed" / "failing_chapter.ipynb").exists()
        msg = str(f)
        assert "chapter failing_chapter failed at cell" in msg and "ZeroDivisionError" in msg
        # The source notebook is never overwritten.
        src = json.loads((DUMMIES / "failing_chapter.ipynb").read_text())
        assert all(not c.get("outputs") for c in src["cells"] if c["cell_type"] == "code")

    def test_guide_needs_no_results_file(self, tmp_path):
        import nbformat

        src = tmp_path / "chapters"
        src.mkdir()
        for stem, kind in (("guide", "guide"), ("paper", None)):
            nb = nbformat.v4.new_notebook()
            nb.cells = [
                nbformat.v4.new_code_cell('scale = "quick"', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("x = 1"),
            ]
            nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
            if kind:
                nb.metadata["credalbook"] = {"kind": kind}
            nbformat.write(nb, src / f"{stem}.ipynb")
        failures = runner.run_chapters("tiny", book_root=tmp_path / "root", chapters_dir=src, progress=False)
        assert [f.chapter for f in failures] == ["paper"] and "no results file" in failures[0].error
        assert (tmp_path / "root" / "book" / "executed" / "guide.ipynb").exists()

    def test_chapters_side_by_side(self, tmp_path, monkeypatch):
        """jobs=2: two chapters in two processes (one thread each), their records written, a failure reported."""
        import nbformat

        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))
        monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)  # the runner gives it to the kernels
        src = tmp_path / "chapters"
        src.mkdir()
        save = (
            "import os\nfrom credalbook.papers.criteria import close_to\nfrom credalbook.papers.report import Comparison\n"
            "c = Comparison('{stem}')\nc.add('T', 'q', paper=1.0, book=1.0, judgement=close_to(1.0, 1.0, tol=0.1, "
            "tolerance_source='t'))\nc.save(dict(scale=scale, threads=os.environ['OMP_NUM_THREADS'], "
            "trim=os.environ.get('MALLOC_TRIM_THRESHOLD_'), pad=os.environ.get('MALLOC_TOP_PAD_'), "
            "spin=os.environ.get('GOMP_SPINCOUNT')))"
        )
        for stem, body in (("a", save), ("b", save), ("c", "1 / 0")):
            nb = nbformat.v4.new_notebook()
            nb.cells = [
                nbformat.v4.new_code_cell('scale = "quick"', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(body.format(stem=stem)),
            ]
            nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
            nbformat.write(nb, src / f"{stem}.ipynb")
        root = tmp_path / "root"
        failures = runner.run_chapters("tiny", book_root=root, chapters_dir=src, progress=False, jobs=2)
        assert [f.chapter for f in failures] == ["c"] and "ZeroDivisionError" in failures[0].error
        assert failures[0].output.name == "c.failed.ipynb"
        for stem in ("a", "b"):
            data = json.loads((root / "book" / "_build" / "results" / f"{stem}.json").read_text())
            assert data["parameters"]["threads"] == str(max(1, (__import__("os").cpu_count() or 1) // 2))
            # the kernels compute with the malloc settings (and the runner's own environment is left as it was)
            assert data["parameters"]["trim"] == runner.MALLOC_SETTINGS["MALLOC_TRIM_THRESHOLD_"]
            assert data["parameters"]["pad"] == runner.MALLOC_SETTINGS["MALLOC_TOP_PAD_"]
            assert data["parameters"]["spin"] == runner.OPENMP_SETTINGS["GOMP_SPINCOUNT"]
            assert (tmp_path / "records" / stem / "tiny" / "chapter.json").is_file()
        # a second run finds both up to date
        assert [
            f.chapter for f in runner.run_chapters("tiny", book_root=root, chapters_dir=src, progress=False, jobs=2)
        ] == ["c"]

    def test_errors(self, tmp_path):
        with pytest.raises(ValueError, match="scale must be one of"):
            runner.run_chapters("huge", book_root=tmp_path)
        with pytest.raises(ValueError, match="jobs must be a positive integer"):
            runner.run_chapters("tiny", book_root=tmp_path, jobs=0)

    def test_key_changes_with_parameters(self, tmp_path):
        nb = DUMMIES / "failing_chapter.ipynb"
        fp = runner.package_fingerprint()
        assert runner._key(nb, {"scale": "tiny"}, fp) == runner._key(nb, {"scale": "tiny"}, fp)
        assert runner._key(nb, {"scale": "tiny"}, fp) != runner._key(nb, {"scale": "quick"}, fp)
        assert runner._key(nb, {"scale": "tiny"}, fp) != runner._key(nb, {"scale": "tiny"}, "other code")


def _meta_notebook(folder: Path, stem: str, **meta) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["credalbook"] = meta
    path = folder / f"{stem}.ipynb"
    nbformat.write(nb, path)
    return path


class TestSchedule:
    """The order in which ``build --jobs N`` starts chapters: longest first, after the chapters they reuse."""

    @staticmethod
    def _run(paths, jobs, seconds_of):
        import concurrent.futures
        import threading
        import time

        log, lock = [], threading.Lock()

        def work(nb):
            with lock:
                log.append(("start", nb.stem))
            time.sleep(seconds_of[nb.stem])
            with lock:
                log.append(("end", nb.stem))
            return nb.stem

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            out = [
                (nb.stem, fut.result())
                for nb, fut in runner.schedule(paths, lambda nb: pool.submit(work, nb), jobs=jobs, scale="quick")
            ]
        return log, out

    def test_longest_first_from_the_notebooks_estimate(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))  # no record: the estimate counts
        paths = [_meta_notebook(tmp_path, s, seconds={"quick": q}) for s, q in (("a", 5), ("b", 50), ("c", 20))]
        _meta_notebook(tmp_path, "d")  # no estimate: 0, last
        paths.append(tmp_path / "d.ipynb")
        log, out = self._run(paths, 1, dict(a=0, b=0, c=0, d=0))
        assert [s for e, s in log if e == "start"] == ["b", "c", "a", "d"]
        assert sorted(s for s, _ in out) == ["a", "b", "c", "d"] and all(s == r for s, r in out)
        assert runner.expected_seconds(paths[1], "quick") == 50.0 and runner.expected_seconds(paths[1], "paper") == 0.0

    def test_a_recorded_wall_time_wins_over_the_estimate(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))
        path = _meta_notebook(tmp_path, "a", seconds={"quick": 5})
        rec = tmp_path / "records" / "a" / "quick"
        rec.mkdir(parents=True)
        (rec / "chapter.json").write_text(json.dumps({"kind": "chapter", "manifest": {"wall_seconds": 123.0}}))
        assert runner.expected_seconds(path, "quick") == 123.0
        assert runner.expected_seconds(path, "tiny") == 0.0

    def test_a_chapter_starts_after_those_it_reuses(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))
        paths = [
            _meta_notebook(tmp_path, "a", seconds={"quick": 10}),
            _meta_notebook(tmp_path, "b", seconds={"quick": 50}, reuses=["a", "not-in-this-run"]),
            _meta_notebook(tmp_path, "c", seconds={"quick": 5}),
        ]
        log, _ = self._run(paths, 2, dict(a=0.3, b=0.0, c=0.05))
        # b is the longest, but waits for a; c takes the free slot meanwhile
        assert [s for e, s in log if e == "start"][:2] == ["a", "c"]
        assert log.index(("end", "a")) < log.index(("start", "b"))

    def test_a_cycle_does_not_stall(self, tmp_path, monkeypatch):
        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))
        paths = [
            _meta_notebook(tmp_path, "a", seconds={"quick": 1}, reuses=["b"]),
            _meta_notebook(tmp_path, "b", seconds={"quick": 2}, reuses=["a"]),
        ]
        log, out = self._run(paths, 2, dict(a=0, b=0))
        assert [s for e, s in log if e == "start"] == ["b", "a"] and len(out) == 2
        assert log.index(("end", "b")) < log.index(("start", "a"))  # one at a time: the other waits for it

    def test_bad_metadata_and_jobs(self, tmp_path):
        from credalbook.book.chapters import chapter_reuses, chapter_seconds

        with pytest.raises(ValueError, match="credalbook.seconds.quick"):
            chapter_seconds(_meta_notebook(tmp_path, "a", seconds={"quick": "fast"}), "quick")
        with pytest.raises(ValueError, match="credalbook.reuses"):
            chapter_reuses(_meta_notebook(tmp_path, "b", reuses="a"))
        with pytest.raises(ValueError, match="jobs must be a positive integer"):
            list(runner.schedule([], lambda nb: None, jobs=0))

    def test_the_chapters_estimates(self):
        """Every chapter carries an estimate at quick, and the guide runs after the primer (their networks are one)."""
        from credalbook.book.chapters import chapter_reuses, chapter_seconds

        paths = {p.stem: p for p in runner.chapter_paths()}
        assert all(chapter_seconds(p, "quick") > 0 for p in paths.values())
        assert chapter_reuses(paths["00b_is_my_classifier_calibrated"]) == {"00_calibration_primer"}
        assert set().union(*map(chapter_reuses, paths.values())) <= set(paths)


_FAULTS = """
import resource
import torch
torch.manual_seed(0)
x = torch.randn(2000, 8, dtype=torch.float64)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(20):
    n = 500 + 100 * (i % 7)  # kernel matrices of 2-9 MB whose sizes change from step to step, as in a KDE
    d = torch.cdist(x[:n], x[:n]).square_()
    k = torch.exp(-d) @ torch.exp(-d.T)
    float(k.sum())
    del d, k
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_malloc_settings_fault_in_fewer_pages():
    """The kernels' malloc settings: kernel matrices of changing size, freed and allocated again, reuse more of the
    heap instead of being mapped and faulted in afresh (on this machine about 55 000 page faults by default and
    23 000-29 000 with them; a Jürgens study at quick scale: 4.4 million against 0.3-1.7 million)."""
    import os

    base = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    faults = {}
    for mode, env in (("default", base), ("settings", {**base, **runner.MALLOC_SETTINGS})):
        res = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True, check=True, env=env)
        faults[mode] = int(res.stdout)
    assert 1.5 * faults["settings"] < faults["default"], faults


def test_compute_environment_keeps_the_callers_openmp_settings(monkeypatch):
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    env = runner.compute_environment()
    assert env == {**runner.MALLOC_SETTINGS, "GOMP_SPINCOUNT": "10000"}
    monkeypatch.setenv("GOMP_SPINCOUNT", "5")
    assert runner.compute_environment()["GOMP_SPINCOUNT"] == "5"


class TestCli:
    @pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
    def test_command_line_starts_again_with_the_malloc_settings(self, tmp_path):
        """Every interpreter start logs its MALLOC_TRIM_THRESHOLD_ and GOMP_SPINCOUNT: the command starts without them,
        then once with both."""
        import os

        (tmp_path / "sitecustomize.py").write_text(
            "import os\nwith open(os.path.join(os.path.dirname(__file__), 'starts.txt'), 'a') as f:\n"
            "    f.write(str(os.environ.get('MALLOC_TRIM_THRESHOLD_')) + ' ' + str(os.environ.get('GOMP_SPINCOUNT'))"
            " + '\\n')\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k not in runner.OPENMP_SETTINGS}
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parents[2])])
        proc = subprocess.run(
            [sys.executable, "-m", "credalbook.book", "status", "-c", "00", "--scale", "tiny"],
            env={**env, "CREDALBOOK_RECORDS_DIR": str(tmp_path / "r")},
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / "starts.txt").read_text().splitlines() == [
            "None None",
            f"{runner.MALLOC_SETTINGS['MALLOC_TRIM_THRESHOLD_']} {runner.OPENMP_SETTINGS['GOMP_SPINCOUNT']}",
        ]

    def test_unknown_chapter_exits_nonzero(self, tmp_path):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "credalbook.book",
                "run",
                "--scale",
                "tiny",
                "-c",
                "nope",
                "--book-root",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode != 0
        assert "unknown chapters" in proc.stderr

    def test_chapter_numbers_for_every_command(self, tmp_path):
        """``-c 03`` names the chapter for status (and revalidate) as for run: the records of its stem."""
        env = {**__import__("os").environ, "CREDALBOOK_RECORDS_DIR": str(tmp_path)}
        proc = subprocess.run(
            [sys.executable, "-m", "credalbook.book", "status", "-c", "03"], capture_output=True, text=True, env=env
        )
        assert proc.returncode == 0 and "03_mimori_label_histograms at paper: 6 missing" in proc.stdout
        bad = subprocess.run(
            [sys.executable, "-m", "credalbook.book", "revalidate", "-c", "09"], capture_output=True, text=True, env=env
        )
        assert bad.returncode == 2 and "unknown chapters ['09']" in bad.stderr

    def test_help(self):
        proc = subprocess.run([sys.executable, "-m", "credalbook.book", "--help"], capture_output=True, text=True)
        assert proc.returncode == 0 and "--scale" in proc.stdout


def test_fingerprint_covers_the_whole_package(tmp_path, monkeypatch):
    """A change anywhere in credalbook/ (not only in credalbook/book/) re-executes the chapters."""
    import shutil

    from credalbook.book import runner as runner_module

    pkg = Path(runner_module.__file__).resolve().parents[1]
    copy = tmp_path / "credalbook"
    shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(runner_module, "__file__", str(copy / "book" / "runner.py"))
    before = runner_module.package_fingerprint()
    (copy / "metrics" / "classification.py").write_text(
        (copy / "metrics" / "classification.py").read_text() + "\n# edit\n"
    )
    assert runner_module.package_fingerprint() != before


class TestClaimPart:
    """Two `run --part missing` of one chapter side by side never compute the same part."""

    def test_claim_release_and_take_over(self, tmp_path):
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            with runner.claim_part("chap", "paper", "a", folder=tmp_path) as claim:
                stamp = (tmp_path / "chap.paper.a").read_text().split()
                assert claim is True and stamp[0] == str(os.getpid()) and len(stamp) == 2  # pid, start time
            assert not (tmp_path / "chap.paper.a").exists()  # released
            held = runner._process_stamp(sleeper.pid)
            (tmp_path / "chap.paper.b").write_text(held)  # held by a live process
            with runner.claim_part("chap", "paper", "b", folder=tmp_path) as claim:
                assert claim == sleeper.pid
            assert (tmp_path / "chap.paper.b").read_text() == held  # not ours: left alone
            (tmp_path / "chap.paper.c").write_text(f"{sleeper.pid} 1")  # its pid, another start time: reused
            with runner.claim_part("chap", "paper", "c", folder=tmp_path) as claim:
                assert claim is True
        finally:
            sleeper.kill()
            sleeper.wait()
        with runner.claim_part("chap", "paper", "b", folder=tmp_path) as claim:  # its process died: taken over
            assert claim is True
        assert not (tmp_path / "chap.paper.b").exists()

    def test_run_parts_skips_claimed_parts(self, tmp_path, monkeypatch, capsys):
        from credalbook.papers.plans import plan_parts
        from credalbook.papers.presets import preset

        monkeypatch.setenv("CREDALBOOK_CACHE_DIR", str(tmp_path / "cache"))
        monkeypatch.setenv("CREDALBOOK_RECORDS_DIR", str(tmp_path / "records"))
        chapter = "05_epistemic_uncertainty_gp"
        names = [p.name for p in plan_parts(chapter, preset(chapter, "tiny"))]
        claims = tmp_path / "cache" / "claims"
        claims.mkdir(parents=True)
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            for name in names:
                (claims / f"{chapter}.tiny.{name}").write_text(runner._process_stamp(sleeper.pid))
            assert runner.run_parts_cli(chapter, "tiny", ["missing"]) == 0
        finally:
            sleeper.kill()
            sleeper.wait()
        out = capsys.readouterr().out
        assert out.count(f"is being computed by process {sleeper.pid}; skipped") == len(names) == 40
        assert not (tmp_path / "records").exists()  # nothing computed, nothing recorded
