"""The book's "Reproducing and extending the book" page, generated from the records.

``book/reproduce.md`` is written by ``write_reproduce`` from a template and the records under
``results/`` (``credalbook.book.records``): the template holds the durable instructions (how to build,
test, run a chapter or one of its parts, the data and the devices) and no measurement; every wall time,
machine, date, commit, version and verdict count on the page is read from a record's manifest or from
``status``. A page of hand-typed timings drifts from the code; this one is written again by every book
build, and ``tests/book/test_reproduce.py`` fails when the committed page differs from what the records
give.

The template is ``book/_templates/reproduce.md.in``: it is book prose, so it lives beside the book's other
pages, where a writer looks for it (the name ``.md.in`` keeps Jupyter Book from building it as a page).
Its placeholders ``{{ name }}`` are filled with the generated sections (``PLACEHOLDERS``).

What is generated, at ``paper`` scale (the only scale whose records are kept in git):

* a summary of every chapter: its parts recorded, stale and missing, the verdict count of its chapter
  record (``credalbook.papers.report.fidelity_of``), and the wall time of its records on CPUs and on
  GPUs;
* per chapter: its parameters, a table of its part records (state, wall time, machine, date, commit),
  the missing parts, the chapter record's state, verdict count and provenance line
  (``credalbook.book.records.provenance_line``), the total wall time, any other record file in its
  folder, and its legacy records (``results/<chapter>/legacy/``: where they were made and how long they took);
* benchmark records (``results/benchmark/*.json``, see ``render_reproduce``), and the versions of
  Python and the numerical libraries the records were computed with.

Usage::

    python -m credalbook.book reproduce             # write book/reproduce.md
    python -m credalbook.book reproduce --check     # exit 1 when book/reproduce.md is out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from credalbook._paths import repo_root

__all__ = ["TEMPLATE", "PLACEHOLDERS", "render_reproduce", "write_reproduce", "main_reproduce"]

#: The template, relative to the repository root.
TEMPLATE = Path("book") / "_templates" / "reproduce.md.in"
#: The generated sections the template must place, each exactly once, as ``{{ name }}``.
PLACEHOLDERS = ("generated_notice", "summary", "chapters", "benchmarks", "versions")
SCALE = "paper"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
#: Libraries whose versions the manifests carry (``credalbook._provenance.versions``).
_LIBRARIES = ("python", "credalbook", "numpy", "scipy", "torch", "gpytorch", "sklearn")
_DASH = "—"


# ------------------------------------------------------------------------------------ collecting
@dataclass(frozen=True)
class _Row:
    """One record file (or a planned part without one): its name, state and manifest."""

    name: str
    state: str
    manifest: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _Chapter:
    """What the records say about one chapter at paper scale."""

    stem: str
    parameters: tuple
    planned: tuple  # _Row per part of the plan (recorded, stale or missing)
    unplanned: tuple  # _Row per part record that the plan does not name now
    chapter: _Row  # the chapter record
    record: dict | None  # chapter.json
    others: tuple  # _Row per other record file in the chapter's paper folder
    legacy: tuple  # _Row per file of results/<chapter>/legacy/ (summaries from before records existed)
    plan_error: str | None = None

    def count(self, state: str) -> int:
        return sum(r.state == state for r in self.planned)


def _chapter(nb: Path, root: Path) -> _Chapter:
    from credalbook.book import records as rec
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset, PRESETS

    stem = nb.stem
    cfg = dict(preset(stem, SCALE)) if stem in PRESETS else {}
    plan_error, defaults, parts = None, {}, []
    try:  # the chapter's parts as ``records.status`` builds them: its preset and its notebook's parameters
        defaults = rec._notebook_defaults(nb)
        parts = plan_parts(stem, cfg, **{**defaults, "scale": SCALE})
    except Exception as err:  # a plan under construction must not stop the page: it says so instead
        plan_error = type(err).__name__
    states = [rec.part_state(stem, SCALE, p, root=root) for p in parts]
    chapter_state = rec.chapter_state(stem, SCALE, notebook=nb, preset=cfg, root=root)
    planned = tuple(_Row(s.name, s.state, dict(s.manifest)) for s in states)
    names = {r.name for r in planned}
    folder = rec.scale_dir(stem, SCALE, root=root)
    unplanned = []
    for path in sorted((folder / "parts").glob("*.json")) if (folder / "parts").is_dir() else ():
        if path.stem not in names:
            data = rec.read_part(stem, SCALE, path.stem, root=root)
            unplanned.append(_Row(path.stem, "not checked" if plan_error else "not in the plan", data["manifest"]))
    others = [r for r in _files(folder) if r.name != "chapter.json"]
    legacy = _files(Path(root) / stem / "legacy")
    return _Chapter(
        stem=stem,
        parameters=tuple(k for k in defaults if k != "scale"),
        planned=planned,
        unplanned=tuple(unplanned),
        chapter=_Row("chapter", chapter_state.state, dict(chapter_state.manifest)),
        record=rec.read_chapter_record(stem, SCALE, root=root),
        others=tuple(others),
        legacy=tuple(legacy),
        plan_error=plan_error,
    )


def _files(folder: Path) -> list:
    """A _Row per JSON file in ``folder`` (its manifest, if it has one)."""
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        data = json.loads(path.read_text())
        manifest = data.get("manifest", {}) if isinstance(data, dict) else {}
        out.append(_Row(path.name, "other", manifest if isinstance(manifest, dict) else {}))
    return out


def _benchmarks(root: Path) -> list:
    folder = root / "benchmark"
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or data.get("kind") != "benchmark" or not isinstance(data.get("rows"), list):
            raise ValueError(f"{path} is not a benchmark record (kind 'benchmark' with a list of rows)")
        out.append((path.name, data))
    return out


# ------------------------------------------------------------------------------------ formatting
def _duration(seconds) -> str:
    from credalbook.book.records import _duration as fmt

    return fmt(seconds) if seconds is not None else _DASH


def _wall(manifest: dict):
    w = manifest.get("wall_seconds")
    return float(w) if isinstance(w, (int, float)) and not isinstance(w, bool) else None


def _on_gpu(manifest: dict) -> bool:
    return bool(manifest.get("machine", {}).get("gpu"))


def _machine(manifest: dict) -> str:
    m = manifest.get("machine")
    if not isinstance(m, dict) or not m:
        return _DASH
    cores = m.get("cores", "?")
    kernel = f", {m['blas'].split()[-1]} BLAS kernel" if m.get("blas") else ""  # recorded since 2026-11-29
    if m.get("gpu"):
        return f"{m['gpu']} ({cores} CPU cores{kernel})"
    return f"{m.get('cpu', '?')} ({cores} cores{kernel})"


def _commit(manifest: dict) -> str:
    commit = str(manifest.get("commit") or "").split()
    if not commit:
        return _DASH
    return f"`{commit[0][:7]}`" + (" (uncommitted changes)" if manifest.get("clean") is False else "")


def _date(manifest: dict) -> str:
    return str(manifest.get("date") or _DASH)[:10]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _codes(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _walls(c: _Chapter) -> dict:
    """Wall seconds of the chapter's records, on CPUs and on GPUs (None where there is none), and the chapter
    run's own share (its wall time less the parts it computed itself, which their part records count)."""
    sums = {"cpu": None, "gpu": None}

    def add(manifest, seconds):
        if seconds is None:
            return
        key = "gpu" if _on_gpu(manifest) else "cpu"
        sums[key] = (sums[key] or 0.0) + seconds

    for r in c.planned:
        if r.state in ("recorded", "stale"):
            add(r.manifest, _wall(r.manifest))
    own = None
    if c.record is not None and _wall(c.record["manifest"]) is not None:
        computed = sum(
            float(p.get("wall_seconds") or 0.0)
            for p in c.record.get("parts", {}).values()
            if p.get("state") == "computed"
        )
        own = max(_wall(c.record["manifest"]) - computed, 0.0)
        add(c.record["manifest"], own)
    return {**sums, "own": own}


def _fidelity(c: _Chapter) -> str:
    from credalbook.papers.report import fidelity_of

    if c.record is None:
        return _DASH
    try:
        text = fidelity_of(c.record.get("counts", {}))
    except ValueError:
        text = "no verdict count in the record"
    return text + (" (stale)" if c.chapter.state == "stale" else "")


# ------------------------------------------------------------------------------------ sections
def _summary(chapters) -> str:
    rows = []
    for c in chapters:
        walls = _walls(c)
        parts = (
            "no parts"
            if not c.planned and c.plan_error is None
            else (
                "plan not loaded"
                if c.plan_error
                else f"{c.count('recorded')} / {c.count('stale')} / {c.count('missing')}"
            )
        )
        rows.append(
            [f"`{c.stem}`", parts, c.chapter.state, _fidelity(c), _duration(walls["cpu"]), _duration(walls["gpu"])]
        )
    return (
        "## The records at paper scale\n\n"
        "Parts are counted as recorded / stale / missing; the verdicts are the chapter record's \"Paper vs. this "
        'book" rows; the wall times add up the records made on CPU-only machines and those made on machines '
        "with a GPU (the chapter's own run counted once, without the parts it computed itself).\n\n"
        + _table(
            ["chapter", "parts", "chapter record", "verdicts at paper scale", "wall time on CPUs", "wall time on GPUs"],
            rows,
        )
    )


def _part_rows(rows) -> list:
    return [
        [
            f"`{r.name}`",
            r.state,
            _duration(_wall(r.manifest)),
            _machine(r.manifest),
            _date(r.manifest),
            _commit(r.manifest),
        ]
        for r in rows
    ]


def _chapter_section(c: _Chapter) -> str:
    from credalbook.book.records import provenance_line

    run = f"python -m credalbook.book run --scale {SCALE} -c {c.stem}"
    out = [f"### {c.stem}", ""]
    if c.parameters:
        out += [f"Parameters (`-p NAME VALUE`): {_codes(c.parameters)}.", ""]
    header = ["part", "state", "wall time", "machine", "date", "commit"]
    if c.plan_error:
        out += [
            f"Its plan of parts could not be loaded here (`{c.plan_error}`); "
            f"`python -m credalbook.book status -c {c.stem}` shows why.",
            "",
        ]
    elif not c.planned:
        out += ["This chapter has no parts: it runs as one piece, and its chapter record is its only record.", ""]
    else:
        shown = [r for r in c.planned if r.state != "missing"]
        missing = [r.name for r in c.planned if r.state == "missing"]
        out += [f"Parts: {c.count('recorded')} recorded, {c.count('stale')} stale, {c.count('missing')} missing.", ""]
        if shown:
            out += [_table(header, _part_rows(shown)), ""]
        if missing:
            out += [f"Missing (`{run} --part missing` computes them, one after another): {_codes(missing)}.", ""]
    if c.unplanned:
        out += [
            "Part records that the chapter's plan does not name now (the chapter does not use them):",
            "",
            _table(header, _part_rows(c.unplanned)),
            "",
        ]
    if c.record is None:
        how = " (loading the recorded parts, computing the others)" if c.planned else ""
        out += [f"Chapter record: **missing**; `{run}` writes it{how}.", ""]
    else:
        state = c.chapter.state
        line = f"Chapter record: **{state}**"
        if state == "stale":
            line += f" (`python -m credalbook.book status -c {c.stem}` says why; `{run}` records it again)"
        out += [
            line + f". Verdicts at paper scale: {_fidelity(c)}.",
            "",
            f"Provenance: {provenance_line(c.record['manifest'])}.",
            "",
        ]
    walls = _walls(c)
    recorded = [w for w in (walls["cpu"], walls["gpu"]) if w is not None]
    if recorded:
        parts = sum(_wall(r.manifest) or 0.0 for r in c.planned if r.state in ("recorded", "stale"))
        line = f"Wall time of these records: {_duration(sum(recorded))}"
        detail = []
        if c.planned:
            detail.append(f"parts {_duration(parts)}")
        if walls["own"] is not None:
            detail.append(f"the chapter's own run {_duration(walls['own'])}")
        out += [line + (f" ({'; '.join(detail)})" if detail else "") + ".", ""]
    files = (
        ("others", f"Other record files in `results/{c.stem}/{SCALE}/` (neither part records nor the chapter record):"),
        (
            "legacy",
            f"Legacy records in `results/{c.stem}/legacy/`: summaries written before records existed, "
            "without fingerprints of their code; nothing reads them, and the paper-scale records "
            "replace them:",
        ),
    )
    for attr, intro in files:
        rows = getattr(c, attr)
        if rows:
            out += [
                intro,
                "",
                _table(
                    ["file", "wall time", "machine", "date", "commit"],
                    [
                        [
                            f"`{r.name}`",
                            _duration(_wall(r.manifest)),
                            _machine(r.manifest),
                            _date(r.manifest),
                            _commit(r.manifest),
                        ]
                        for r in rows
                    ],
                ),
                "",
            ]
    return "\n".join(out).rstrip()


def _benchmark_section(benchmarks) -> str:
    out = ["## Benchmarks", ""]
    if not benchmarks:
        out.append(
            "No benchmark record yet. `scripts/benchmark.py` times the expensive steps of the chapters; its "
            "timings appear here once they are written as records under `results/benchmark/`."
        )
        return "\n".join(out)
    from credalbook.book.records import provenance_line

    for name, data in benchmarks:
        man = data.get("manifest", {})
        out += [f"### {data.get('title') or name}", ""]
        if data.get("command"):
            out += [f"`{data['command']}`", ""]
        rows = [[r.get("work", _DASH), _seconds(r.get("seconds")), r.get("per", "")] for r in data["rows"]]
        out += [_table(["work", "seconds", "per"], rows), ""]
        out += [f"Provenance: {provenance_line(man)} (`results/benchmark/{name}`).", ""]
    return "\n".join(out).rstrip()


def _seconds(value) -> str:
    return f"{float(value):.3g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else _DASH


def _manifests(chapters, benchmarks):
    for c in chapters:
        for r in (*c.planned, *c.unplanned, *c.others, *c.legacy):
            if r.manifest:
                yield r.manifest
        if c.record is not None:
            yield c.record["manifest"]
    for _, data in benchmarks:
        if isinstance(data.get("manifest"), dict):
            yield data["manifest"]


def _versions_section(chapters, benchmarks) -> str:
    found = {lib: set() for lib in _LIBRARIES}
    for man in _manifests(chapters, benchmarks):
        for source in (man.get("versions"), man.get("machine"), man):
            for lib in _LIBRARIES:
                if isinstance(source, dict) and isinstance(source.get(lib), str):
                    found[lib].add(source[lib])
    rows = [[lib, ", ".join(sorted(v))] for lib, v in found.items() if v]
    out = ["## Versions in the records", ""]
    if not rows:
        return "\n".join(out + ["No record yet."])
    return "\n".join(
        out
        + [
            "The versions of Python and of the numerical libraries that the records above were "
            "computed with (from their manifests):",
            "",
            _table(["library", "versions"], rows),
        ]
    )


# ------------------------------------------------------------------------------------ public
def _template(template) -> str:
    if template is None:
        root = repo_root()
        if root is None:
            raise RuntimeError(
                f"book/reproduce.md is generated in a source checkout of credalbook (its template is {TEMPLATE})"
            )
        template = root / TEMPLATE
    text = Path(template).read_text(encoding="utf-8")
    names = _PLACEHOLDER.findall(text)
    for name in PLACEHOLDERS:
        if names.count(name) != 1:
            raise ValueError(
                f"the template {template} must place {{{{ {name} }}}} exactly once; it does {names.count(name)} times"
            )
    unknown = sorted(set(names) - set(PLACEHOLDERS))
    if unknown:
        raise ValueError(f"the template {template} has unknown placeholders {unknown}; known: {PLACEHOLDERS}")
    return text


def render_reproduce(root=None, *, chapters=None, template=None) -> str:
    """The text of ``book/reproduce.md``: the template with the records' sections filled in.

    Parameters
    ----------
    root : path, optional
        The records folder (default ``credalbook.book.records.records_dir()``: ``$CREDALBOOK_RECORDS_DIR``,
        else ``results/`` of this checkout).
    chapters : list of str, optional
        Chapter stems (default: every chapter but the guides).
    template : path, optional
        Default ``book/_templates/reproduce.md.in`` of this checkout.

    Returns
    -------
    str
        Markdown (MyST). Every measurement in it comes from a record: the wall times, machines, dates,
        commits and versions from the manifests, the states from ``credalbook.book.records.status``, the
        verdict counts from the chapter records.

    Notes
    -----
    Benchmark records are read from ``<root>/benchmark/*.json``, each
    ``{"kind": "benchmark", "title": str, "command": str, "rows": [{"work": str, "seconds": float,
    "per": str}, ...], "manifest": {...}}`` with a manifest as the records write it (commit, clean, date,
    machine, versions, wall_seconds).

    Notes
    -----
    ``book/reproduce.md`` is generated from the records: no number in it is typed.

    Examples
    --------
    >>> import tempfile
    >>> page = render_reproduce(tempfile.mkdtemp(), chapters=["03_mimori_label_histograms"])
    >>> "Chapter record: **missing**" in page and "No benchmark record yet." in page
    True
    """
    from credalbook.book.chapters import chapter_paths, is_guide
    from credalbook.book.records import records_dir

    text = _template(template)
    root = Path(root) if root is not None else records_dir()
    found = [_chapter(nb, root) for nb in chapter_paths(chapters) if not is_guide(nb)]
    benchmarks = _benchmarks(root)
    notice = (
        f"<!-- Generated by credalbook.book.reproduce from {TEMPLATE.as_posix()} and the records under results/. "
        "Do not edit: change the template and run `python -m credalbook.book reproduce`. -->"
    )
    sections = {
        "generated_notice": notice,
        "summary": _summary(found),
        "chapters": "\n\n".join(_chapter_section(c) for c in found),
        "benchmarks": _benchmark_section(benchmarks),
        "versions": _versions_section(found, benchmarks),
    }
    return _PLACEHOLDER.sub(lambda m: sections[m.group(1)], text).rstrip() + "\n"


def write_reproduce(path=None, *, root=None) -> Path:
    """Write ``render_reproduce`` to ``path`` (default ``book/reproduce.md`` of this checkout).

    The file is left untouched when its text is already the rendered one (so that an incremental book build
    does not read it again). Returns the path.
    """
    if path is None:
        checkout = repo_root()
        if checkout is None:
            raise RuntimeError("write_reproduce needs a path outside a source checkout of credalbook")
        path = checkout / "book" / "reproduce.md"
    path = Path(path)
    text = render_reproduce(root)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return path


def main_reproduce(argv=None) -> int:
    """``python -m credalbook.book reproduce [--output PATH] [--check]``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m credalbook.book reproduce",
        description="Write book/reproduce.md from its template and the records.",
    )
    parser.add_argument("--output", type=Path, default=None, help="default: book/reproduce.md of this checkout")
    parser.add_argument(
        "--records", type=Path, default=None, help="records folder (default: $CREDALBOOK_RECORDS_DIR, else results/)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when the file differs from what the records give"
    )
    args = parser.parse_args(argv)
    output = args.output or ((repo_root() or Path.cwd()) / "book" / "reproduce.md")
    if args.check:
        current = output.read_text(encoding="utf-8") if output.is_file() else None
        if current != render_reproduce(args.records):
            print(f"[credalbook] {output} is out of date: run `python -m credalbook.book reproduce`", file=sys.stderr)
            return 1
        print(f"[credalbook] {output} is up to date")
        return 0
    print(f"[credalbook] wrote {write_reproduce(output, root=args.records)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_reproduce())
