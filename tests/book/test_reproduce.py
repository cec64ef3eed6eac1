"""book/reproduce.md is generated from the records: no number on it is typed by hand.

The checks:

* every number on a page rendered from a fake records tree (parts written by ``records.write_part``, chapter
  records by ``records.write_chapter_record``, a benchmark record, an older record file) is one that those
  records produce: a field of a manifest the page shows (commit, date, machine, versions), a wall time or a
  sum of them as the page formats it, a count of states or verdicts. Names that contain digits
  (``NAME_TOKENS``, chapter stems, part names, parameter names, record file names) are not measurements and
  are removed first;
* the checker catches a number typed into the template (so the first check can fail);
* the committed ``book/reproduce.md`` is what the repository's records give now (rendered afresh);
* a stale part record and a stale chapter record are shown as stale.
"""

import json
import re
from pathlib import Path

import pytest

from credalbook._paths import repo_root
from credalbook.book import records
from credalbook.book.records import _duration
from credalbook.book.reproduce import main_reproduce, PLACEHOLDERS, render_reproduce, TEMPLATE, write_reproduce
from credalbook.book.runner import chapter_paths
from credalbook.metrics.regions import epsilon_from_bins
from credalbook.papers.criteria import AGREES, DIFFERS_SHOWN, INCONCLUSIVE, NOT_RUN
from credalbook.papers.parts import Part
from credalbook.papers.plans import plan_parts
from credalbook.papers.presets import preset

ROOT = repo_root()
STEMS = {nb.stem for nb in chapter_paths()}  # chapter names (the template's commands name some)
EU = "05_epistemic_uncertainty_gp"
PRIMER = "00_calibration_primer"  # a chapter without parts

#: Fixed strings of the template that contain digits and are not measurements, each with why:
NAME_TOKENS = (
    "OMP_NUM_THREADS=1",  # an instruction (give a process one thread), not a measured quantity
    # dataset names, their folders, files and environment variables (names fixed by the data's publishers
    # and by credalbook.data.images), and the `dataset` parameter values that select them:
    "CREDALBOOK_CIFAR100_DIR",
    "CREDALBOOK_CIFAR10_DIR",
    "CREDALBOOK_KUZUSHIJI49_DIR",
    "kuzushiji49",
    "cifar-100-python",
    "cifar-10-batches-py",
    "Mix-CIFAR-10",
    "CIFAR-100",
    "CIFAR-10",
    "Kuzushiji-49",
    "cifar100",
    "cifar10",
    "idx3-ubyte",
    "k49-",
    "data_batch_1",
    "data_batch_5",
)
_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def _numbers(text) -> set:
    return set(_NUMBER.findall(str(text)))


def _typed_numbers(page: str, names, derivable: set) -> list:
    """The numbers of ``page`` that are neither inside a name nor derivable from the records."""
    for token in sorted({*NAME_TOKENS, *names}, key=len, reverse=True):
        page = page.replace(token, " ")
    return sorted(n for n in _NUMBER.findall(page) if n not in derivable)


def _shown_fields(manifest: dict) -> set:
    """The numbers of the manifest fields the page may show: date, machine, versions, wall times."""
    m = manifest.get("machine", {})
    commit = str(manifest.get("commit") or "").split()
    out = _numbers(commit[0][:7] if commit else "")  # the page shows a commit by its first seven hex digits
    out |= _numbers(manifest.get("date", "")) | _numbers(manifest.get("credalbook", ""))
    out |= _numbers(m.get("cpu", "")) | _numbers(m.get("gpu", "")) | _numbers(m.get("cores", ""))
    for v in manifest.get("versions", {}).values():
        out |= _numbers(v)
    return out


def _plan(chapter: str) -> list:
    """The chapter's parts at paper scale with its notebook's default parameters, as ``status`` builds them."""
    params = {**records._notebook_defaults(ROOT / "chapters" / f"{chapter}.ipynb"), "scale": "paper"}
    return plan_parts(chapter, preset(chapter, "paper"), **params)


def _edit_manifest(path: Path, **fields) -> dict:
    data = json.loads(path.read_text())
    data["manifest"].update(fields)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return data


CPU = {"cpu": "Test CPU 8375C", "cores": 7, "memory_gib": 3.5, "gpu": None, "host": "h"}
GPU = {
    "cpu": "Test CPU 8375C",
    "cores": 11,
    "memory_gib": 3.5,
    "gpu": "NVIDIA Test 123GB",
    "blas": "openblas 0.3.31.188.0 SkylakeX",  # recorded since 2026-11-29; CPU above is an older manifest without it
    "host": "h",
}
VERSIONS = {"python": "3.97.1", "credalbook": "0.93.0", "numpy": "8.6.4", "torch": "7.77.7"}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A records tree: for the EU chapter one fresh part (GPU), one stale part (a cheap function under a
    planned name, CPU), one part the plan does not name, a chapter record that computed the stale part
    itself, a legacy record and another file; for Mimori's chapter (no plan) a stale chapter record; a benchmark record.

    Returns the folder and the numbers those records produce, as the page formats them.
    """
    root = tmp_path_factory.mktemp("results")
    plan = _plan(EU)
    fresh, stale_name = plan[0], plan[1].name
    walls = {
        "fresh": 4567.8,
        "stale": 2781.0,
        "extra": 12.3,
        "chapter": 3000.4,
        "primer": 1843.9,
        "bench": 321.0,
        "old": 116.7,
    }
    p = records.write_part(EU, "paper", fresh, {"rho": 0.5}, wall_seconds=0, root=root)
    d_fresh = _edit_manifest(p, wall_seconds=walls["fresh"], machine=GPU, versions=VERSIONS)["digest"]
    stale = Part(stale_name, epsilon_from_bins, {"n_bins": 15})
    p = records.write_part(EU, "paper", stale, stale.run(), wall_seconds=0, root=root)
    d_stale = _edit_manifest(p, wall_seconds=walls["stale"], machine=CPU, versions=VERSIONS)["digest"]
    extra = Part("extra-check", epsilon_from_bins, {"n_bins": 7})
    p = records.write_part(EU, "paper", extra, extra.run(), wall_seconds=0, root=root)
    _edit_manifest(p, wall_seconds=walls["extra"], machine=CPU, versions=VERSIONS)
    eu_counts = {AGREES: 13, DIFFERS_SHOWN: 4, INCONCLUSIVE: 2, NOT_RUN: 6}
    comparison = {
        "rows": [],
        "counts": eu_counts,
        "parameters": {"seed": 0},
        "provenance": {
            "modules": {},
            "parts": {
                fresh.name: {"state": "recorded", "digest": d_fresh, "wall_seconds": walls["fresh"]},
                stale_name: {"state": "computed", "digest": d_stale, "wall_seconds": walls["stale"]},
            },
        },
    }
    p = records.write_chapter_record(
        EU,
        "paper",
        comparison,
        notebook=ROOT / "chapters" / f"{EU}.ipynb",
        wall_seconds=0,
        preset=dict(preset(EU, "paper")),
        root=root,
    )
    eu_chapter = _edit_manifest(p, wall_seconds=walls["chapter"], machine=CPU, versions=VERSIONS)["manifest"]
    old = {
        "manifest": {
            "commit": "0123abc (the working tree before it)",
            "date": "2025-10-09",
            "machine": GPU,
            "wall_seconds": walls["old"],
        }
    }
    (root / EU / "legacy").mkdir()
    (root / EU / "legacy" / "old-seeds-0-5.json").write_text(json.dumps(old))
    (root / EU / "paper" / "notes.json").write_text(json.dumps({"note": "no manifest"}))
    primer_counts = {AGREES: 29, DIFFERS_SHOWN: 3}
    p = records.write_chapter_record(
        PRIMER,
        "paper",
        {"rows": [], "counts": primer_counts, "parameters": {}},
        notebook=ROOT / "chapters" / f"{PRIMER}.ipynb",
        wall_seconds=0,
        preset={"not": "the preset"},
        root=root,
    )
    primer = _edit_manifest(p, wall_seconds=walls["primer"], machine=CPU, versions=VERSIONS)["manifest"]
    bench = {
        "kind": "benchmark",
        "title": "GP step, 2048 inducing points",
        "command": "scripts/benchmark.py --only-gp",
        "rows": [{"work": "batch of 1024 points", "seconds": 0.026341, "per": "step"}],
        "manifest": {
            "commit": "fedcba9876",
            "clean": True,
            "date": "2026-01-02T03:04:05+00:00",
            "machine": GPU,
            "versions": VERSIONS,
            "wall_seconds": walls["bench"],
        },
    }
    (root / "benchmark").mkdir()
    (root / "benchmark" / "gp.json").write_text(json.dumps(bench))

    # What the page may derive from these records, formatted as it formats them.
    derivable = set()
    for r in (fresh, stale, extra):
        derivable |= _shown_fields(records.read_part(EU, "paper", r.name, root=root)["manifest"])
    for man in (eu_chapter, primer, old["manifest"], bench["manifest"]):
        derivable |= _shown_fields(man)
    own = walls["chapter"] - walls["stale"]  # the chapter's run less the part it computed itself
    durations = [
        *walls.values(),
        own,
        walls["fresh"],  # GPU
        walls["stale"] + own,  # CPU (parts and the chapter's own run)
        walls["fresh"] + walls["stale"],  # parts
        walls["fresh"] + walls["stale"] + own,  # total
        walls["chapter"] + eu_chapter["parts_wall_seconds"],
    ]  # provenance_line: the run and its parts
    for w in durations:
        derivable |= _numbers(_duration(w))
    for counts in (eu_counts, primer_counts):
        derivable |= {str(v) for v in counts.values()} | {str(sum(v for k, v in counts.items() if k != NOT_RUN))}
    derivable |= {"1", str(len(plan) - 2)}  # one recorded, one stale, the rest missing
    derivable |= _numbers(bench["title"]) | _numbers(bench["rows"][0]["work"]) | {f"{0.026341:.3g}"}
    names = {p.name for p in plan} | {"extra-check", "old-seeds-0-5.json", "notes.json"} | STEMS
    for stem in (EU, PRIMER):
        names |= set(records._notebook_defaults(ROOT / "chapters" / f"{stem}.ipynb"))
    return {"root": root, "derivable": derivable, "names": names, "fresh": fresh.name, "stale": stale_name}


@pytest.fixture(scope="module")
def page(tree):
    return render_reproduce(tree["root"], chapters=[PRIMER, EU])


class TestRenderReproduce:
    def test_main(self, tree, page):
        """Every number on the page comes from the records (or sits inside a name)."""
        assert _typed_numbers(page, tree["names"], tree["derivable"]) == []
        # and the page does show them: the records' wall times, machines, versions and verdict counts
        for text in (
            _duration(4567.8),
            _duration(2781.0 + 3000.4 - 2781.0),
            "NVIDIA Test 123GB (11 CPU cores, SkylakeX BLAS kernel)",
            "Test CPU 8375C (7 cores)",
            "3.97.1",
            "13 of 19 agree (4 differs — cause shown; 2 inconclusive; 6 not run here)",
            "29 of 32 agree",
            "0.0263",
            f"`{tree['fresh']}` | recorded | {_duration(4567.8)}",
            "`extra-check` | not in the plan",
            "`old-seeds-0-5.json` | 1 min 57 s",
            "| `notes.json` | — | — | — | — |",
            f"Legacy records in `results/{EU}/legacy/`",
        ):
            assert text in page, text

    def test_wall_times(self, page):
        """The chapter's run is counted once: its wall time less the part it computed, which its record counts."""
        own = 3000.4 - 2781.0
        assert (
            f"Wall time of these records: {_duration(4567.8 + 2781.0 + own)} (parts {_duration(4567.8 + 2781.0)}; "
            f"the chapter's own run {_duration(own)})." in page
        )
        row = next(line for line in page.splitlines() if line.startswith(f"| `{EU}` |"))
        assert row.endswith(f"| {_duration(2781.0 + own)} | {_duration(4567.8)} |")

    def test_typed_number_is_caught(self, tree, tmp_path):
        """A number typed into the template is flagged (the check of test_main can fail)."""
        text = (
            (ROOT / TEMPLATE)
            .read_text()
            .replace("## Run the tests", "The quick build takes 9876543 minutes.\n\n## Run the tests")
        )
        (tmp_path / "t.md.in").write_text(text)
        typed = render_reproduce(tree["root"], chapters=[PRIMER, EU], template=tmp_path / "t.md.in")
        assert _typed_numbers(typed, tree["names"], tree["derivable"]) == ["9876543"]  # no record can produce it

    def test_template_has_no_numbers(self, tmp_path):
        """Without records the page holds no number but the plan's count of missing parts."""
        empty = render_reproduce(tmp_path, chapters=[PRIMER, EU])
        plan = _plan(EU)
        names = STEMS | {p.name for p in plan} | set(records._notebook_defaults(ROOT / "chapters" / f"{EU}.ipynb"))
        assert _typed_numbers(empty, names, {"0", str(len(plan))}) == []
        assert "Chapter record: **missing**" in empty and "No record yet." in empty

    def test_stale(self, tree, page):
        """A stale part and a stale chapter record are said to be stale, in the tables and the summary."""
        assert f"| `{tree['stale']}` | stale | {_duration(2781.0)} | Test CPU 8375C (7 cores) |" in page
        assert "Parts: 1 recorded, 1 stale," in page
        assert f"Chapter record: **stale** (`python -m credalbook.book status -c {PRIMER}` says why" in page
        assert f"| `{PRIMER}` | no parts | stale | 29 of 32 agree (3 differs — cause shown) (stale) |" in page
        assert f"| `{EU}` | 1 / 1 / " in page
        assert "Chapter record: **recorded**. Verdicts at paper scale: 13 of 19" in page

    def test_plan_not_loaded(self, tree, monkeypatch):
        """A chapter whose plan does not load is said so, its part records listed unchecked."""
        from credalbook.papers import plans

        monkeypatch.setitem(plans.PLANS, EU, "credalbook.papers.no_such_module:plan")
        page = render_reproduce(tree["root"], chapters=[EU])
        assert "Its plan of parts could not be loaded here (`ModuleNotFoundError`)" in page
        assert f"| `{tree['fresh']}` | not checked | {_duration(4567.8)} |" in page
        assert f"| `{EU}` | plan not loaded | recorded |" in page

    def test_errors(self, tmp_path):
        text = (ROOT / TEMPLATE).read_text()
        (tmp_path / "a.md.in").write_text(text.replace("{{ summary }}", ""))
        with pytest.raises(ValueError, match="summary"):
            render_reproduce(tmp_path, chapters=[PRIMER], template=tmp_path / "a.md.in")
        (tmp_path / "b.md.in").write_text(text + "\n{{ timings }}\n")
        with pytest.raises(ValueError, match="unknown placeholders"):
            render_reproduce(tmp_path, chapters=[PRIMER], template=tmp_path / "b.md.in")
        (tmp_path / "benchmark").mkdir()
        (tmp_path / "benchmark" / "x.json").write_text(json.dumps({"rows": []}))
        with pytest.raises(ValueError, match="not a benchmark record"):
            render_reproduce(tmp_path, chapters=[PRIMER])
        assert set(PLACEHOLDERS) == {"generated_notice", "summary", "chapters", "benchmarks", "versions"}


class TestCommittedPage:
    def test_main(self):
        """The committed book/reproduce.md is what the repository's records give now."""
        fresh = render_reproduce(ROOT / "results")
        committed = (ROOT / "book" / "reproduce.md").read_text(encoding="utf-8")
        assert committed == fresh, (
            "book/reproduce.md differs from what the records give: run "
            "`python -m credalbook.book reproduce` (never edit it by hand)"
        )

    def test_write_and_check(self, tmp_path, capsys):
        out = tmp_path / "reproduce.md"
        records_dir = tmp_path / "records"
        assert main_reproduce(["--output", str(out), "--records", str(records_dir), "--check"]) == 1
        assert main_reproduce(["--output", str(out), "--records", str(records_dir)]) == 0
        assert "Chapter record: **missing**" in out.read_text()
        mtime = out.stat().st_mtime_ns
        assert write_reproduce(out, root=records_dir) == out
        assert out.stat().st_mtime_ns == mtime  # the text is unchanged: the file is not written again
        assert main_reproduce(["--output", str(out), "--records", str(records_dir), "--check"]) == 0
        assert "out of date" in capsys.readouterr().err
