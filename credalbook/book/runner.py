"""Execute the chapters with papermill and build the book with Jupyter Book.

Usage (from the repository root, inside the project's virtual environment)::

    python -m credalbook.book build                 # execute every chapter (quick) + build HTML
    python -m credalbook.book run --scale paper -c 00_calibration_primer
    python -m credalbook.book run --scale tiny --book-root /tmp/book   # smoke run

Executed copies go to ``<book-root>/book/executed/<stem>.ipynb`` (the sources in ``chapters/`` are
never overwritten) and are published as the pages the site shows, ``<book-root>/book/chapters/<name>.ipynb``
(:mod:`credalbook.book.pages`); the "Paper vs. this book" rows go to
``<book-root>/book/_build/results/<stem>.json`` and the HTML to ``<book-root>/book/_build/html``. A chapter whose source, parameters and package
code are unchanged since its last successful execution is not executed again.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from credalbook import __version__
from credalbook.book.chapters import _source_root, chapter_paths, chapter_reuses, chapter_seconds, is_guide
from credalbook.book.pages import publish_pages
from credalbook.papers.presets import SCALES

__all__ = [
    "ChapterFailure",
    "run_chapters",
    "run_parts_cli",
    "claim_part",
    "build_book",
    "build_problems",
    "stage_book",
    "schedule",
    "expected_seconds",
    "main",
]

STATE_FILE = ".runner-state.json"
#: Per-cell timeout (seconds) for papermill; None means no limit (paper scale).
CELL_TIMEOUT = {"tiny": 600, "quick": 3600, "paper": None}
#: Sphinx log lines that fail the build: a cross-reference that does not resolve (``nitpicky`` is on
#: in ``_config.yml``, so every ``:func:`...``` in a docstring must name a documented object), an
#: object of the API reference that cannot be imported, and an undefined substitution (``|x − y|`` in a
#: docstring is reST's substitution syntax: the page shows an error box instead of the text; write it as a
#: literal or as math). Other warnings (e.g. of the chapters) do not.
BUILD_ERRORS = re.compile(r"WARNING: .*(reference target not found|failed to import)|ERROR: Undefined substitution")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # Sphinx colours its warnings


@dataclass(frozen=True)
class ChapterFailure:
    """Where a chapter failed: the chapter, the cell and the error."""

    chapter: str
    cell_index: int | None
    exec_count: int | None
    error: str
    output: Path | None

    def __str__(self) -> str:
        where = (
            f"cell {self.cell_index} (execution count {self.exec_count})"
            if self.cell_index is not None
            else "before any cell ran"
        )
        saved = f"; the partially executed notebook is {self.output}" if self.output else ""
        return f"chapter {self.chapter} failed at {where}: {self.error}{saved}"


def package_fingerprint() -> str:
    """Hash of the package's source files and version: a code change re-executes the chapters."""
    h = hashlib.sha256(__version__.encode())
    pkg = Path(__file__).resolve().parents[1]  # credalbook/, not only credalbook/book/
    for f in sorted(pkg.rglob("*.py")):
        h.update(f.relative_to(pkg).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _key(nb: Path, parameters: dict, fingerprint: str) -> str:
    """What an execution depends on: the notebook, the parameters, the package code, and the records it
    shows (the paper-scale chapter record beside any run) or loads (the parts at the run's own scale)."""
    from credalbook.book.records import records_dir

    h = hashlib.sha256(nb.read_bytes())
    h.update(json.dumps(parameters, sort_keys=True).encode())
    h.update(fingerprint.encode())
    rec = records_dir() / nb.stem
    paper = rec / "paper" / "chapter.json"
    if paper.is_file():
        h.update(paper.read_bytes())
    for part in sorted((rec / parameters.get("scale", "quick") / "parts").glob("*.json")):
        h.update(part.name.encode() + hashlib.sha256(part.read_bytes()).digest())
    return h.hexdigest()


def run_chapters(
    scale: str = "quick",
    *,
    book_root: Path | None = None,
    chapters=None,
    force: bool = False,
    extra_parameters: dict | None = None,
    progress: bool = True,
    chapters_dir: Path | None = None,
    jobs: int = 1,
) -> list[ChapterFailure]:
    """Execute chapters with papermill; return the failures (empty when all succeeded).

    Parameters
    ----------
    scale : {"tiny", "quick", "paper"}
        Passed to every chapter's ``parameters`` cell as ``scale``.
    book_root : path, optional
        Folder holding ``_config.yml`` for the build; defaults to the source checkout.
    chapters : list of str, optional
        Chapter stems to run; all by default.
    force : bool
        Execute even when the cached execution is up to date.
    extra_parameters : dict, optional
        More papermill parameters (e.g. ``{"seed": 1}``).
    progress : bool
        Show papermill's per-cell progress bar on the terminal.
    chapters_dir : path, optional
        Folder of the chapter sources (default ``<repo>/chapters``).
    jobs : int, default 1
        Chapters executed side by side, each in its own process with ``cores // jobs`` math-library
        threads, in the order of :func:`schedule` (longest first; a chapter after those it reuses). On a
        two-core machine ``jobs=2`` keeps both cores busy while one chapter waits in Python code. Results
        are the same: every chapter seeds its own random numbers.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer; got {jobs!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}; got {scale!r}")
    book_root = Path(book_root or _source_root()).resolve()
    executed = book_root / "book" / "executed"
    results = book_root / "book" / "_build" / "results"
    executed.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    parameters = {"scale": scale, **(extra_parameters or {})}
    # Executed pages carry no progress-bar output; at paper scale the cells' output (with the
    # package's progress bars) is streamed to the terminal instead. The kernels inherit the
    # environment; it is restored afterwards.
    stream = scale == "paper"
    notebooks = chapter_paths(chapters, chapters_dir=chapters_dir)
    with _environ(
        CREDALBOOK_RESULTS_DIR=str(results), CREDALBOOK_PROGRESS="1" if stream else "0", **compute_environment()
    ):
        failures = _execute_all(
            notebooks,
            parameters,
            executed,
            results,
            force=force,
            progress=progress,
            stream=stream,
            timeout=CELL_TIMEOUT[scale],
            jobs=jobs,
        )
    publish_pages(notebooks, book_root)  # what the site shows: book/chapters/<name> (credalbook.book.pages)
    return failures


def _results_match(path: Path, parameters: dict) -> bool:
    """Whether the results file exists and was written by a run with these parameters.

    (A chapter run by hand, e.g. with papermill at another scale, overwrites the file.)
    """
    try:
        written = json.loads(path.read_text()).get("parameters", {})
    except (OSError, ValueError):
        return False
    return all(written.get(k) == v for k, v in parameters.items())


#: glibc ``malloc`` settings for the processes that compute: keep freed memory in the heap (trim threshold 1 GiB)
#: and grow it 1 GiB at a time, instead of returning it to the kernel after every large tensor and faulting it in
#: again. The chapter kernels of :func:`run_chapters` get them, and ``python -m credalbook.book`` starts itself again
#: with them (``run --part`` computes in that process). glibc reads them at start-up only (set later with ``mallopt``,
#: they switch off its adaptive mmap threshold and fault in more pages, not fewer). Arithmetic is unchanged; the
#: time they save is measured in book/changelog.md (0.6.0, "Faster"). Other C libraries ignore these variables.
MALLOC_SETTINGS = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_TOP_PAD_": str(1 << 30)}

#: GNU OpenMP's settings for the processes that compute (torch's CPU threads use GNU OpenMP): a thread that waits for
#: work spins 10 000 times, then sleeps. With the default spin, a kernel with two torch threads crawls when another
#: process shares the cores (a chapter beside the parts being computed, two chapters side by side, a busy CI runner):
#: 300 Adam steps of a small MLP took 44 s beside two busy processes on two cores, 0.41 s with these settings, and
#: 0.18 s alone either way (scripts/benchmark.py has no case for it: it needs the busy neighbours). Arithmetic is
#: unchanged. Read when GNU OpenMP loads (when torch is imported), so the chapter kernels get them from
#: :func:`run_chapters` and ``python -m credalbook.book`` sets them before it imports anything that computes; a value the
#: caller set wins.
OPENMP_SETTINGS = {"GOMP_SPINCOUNT": "10000"}


def compute_environment() -> dict:
    """The environment variables :func:`run_chapters` gives the chapter kernels: :data:`MALLOC_SETTINGS`, and
    :data:`OPENMP_SETTINGS` where the caller has not set them.

    Examples
    --------
    >>> compute_environment()["MALLOC_TOP_PAD_"] == str(1 << 30)
    True
    """
    return {**MALLOC_SETTINGS, **{k: os.environ.get(k, v) for k, v in OPENMP_SETTINGS.items()}}


@contextlib.contextmanager
def _environ(**variables):
    """Set environment variables (inherited by the kernels) and restore them afterwards."""
    saved = {k: os.environ.get(k) for k in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _fidelity(path: Path) -> str:
    """The verdict count of a chapter's results file (``"a of n agree (...)"``), or why there is none."""
    from credalbook.papers.report import fidelity_of, load_comparison

    try:
        return fidelity_of(load_comparison(path)["counts"])
    except (KeyError, ValueError) as err:
        return f"no verdict count ({err})"


def _execute_one(nb: Path, parameters: dict, tmp: Path, *, progress: bool, stream: bool, timeout, threads):
    """Execute one notebook into ``tmp``: ``(error, seconds)`` with ``error`` None on success, else
    ``(cell_index, exec_count, message)``, and ``seconds`` the wall time of the execution itself.

    Runs in a worker process when chapters run side by side; ``threads`` then caps the kernel's
    math-library threads (the kernel inherits this process's environment).
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    if threads is not None:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[var] = str(threads)
    start = time.perf_counter()
    try:
        pm.execute_notebook(
            str(nb),
            str(tmp),
            parameters=parameters,
            kernel_name="python3",
            progress_bar=progress,
            log_output=stream,
            cwd=str(nb.parent),
            execution_timeout=timeout,
        )
    except PapermillExecutionError as err:
        return (err.cell_index, err.exec_count, f"{err.ename}: {err.evalue}"), time.perf_counter() - start
    except Exception as err:  # kernel died, timeout, missing kernel...
        return (None, None, f"{type(err).__name__}: {err}"), time.perf_counter() - start
    return None, time.perf_counter() - start


def _execute_all(notebooks, parameters, executed, results, *, force, progress, stream, timeout, jobs=1):
    state_path = executed / STATE_FILE
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    fingerprint = package_fingerprint()
    failures, todo = [], []
    for nb in notebooks:
        out = executed / nb.name
        key = _key(nb, parameters, fingerprint)
        if (
            not force
            and state.get(nb.stem) == key
            and out.exists()
            and (is_guide(nb) or _results_match(results / f"{nb.stem}.json", parameters))
        ):
            print(f"[credalbook] {nb.stem}: up to date ({parameters}), not re-executed", flush=True)
            continue
        todo.append(nb)
    threads = None if jobs == 1 else max(1, (os.cpu_count() or 1) // jobs)

    def begin(nb):
        verb = "executing" if jobs == 1 else f"started ({jobs} at a time)"
        print(f"[credalbook] {nb.stem}: {verb} with {parameters}", flush=True)
        (results / f"{nb.stem}.json").unlink(missing_ok=True)  # a stale file must not pass for this run's
        return (executed / nb.name).with_suffix(".running.ipynb")

    def finish(nb, outcome):
        error, wall = outcome
        out = executed / nb.name
        tmp = out.with_suffix(".running.ipynb")
        guide = is_guide(nb)
        if error is not None:
            cell, count, msg = error
            failed = None
            if cell is not None:
                failed = out.with_suffix(".failed.ipynb")
                tmp.replace(failed)
            failure = ChapterFailure(nb.stem, cell, count, msg, failed)
            failures.append(failure)
            state.pop(nb.stem, None)
            print(f"[credalbook] FAILED: {failure}", file=sys.stderr, flush=True)
            return
        tmp.replace(out)
        if not guide and not (results / f"{nb.stem}.json").exists():
            failures.append(
                ChapterFailure(nb.stem, None, None, f"it wrote no results file {results / (nb.stem + '.json')}", out)
            )
            return
        if not guide:
            _record_chapter(nb, out, results / f"{nb.stem}.json", parameters, wall)
        state[nb.stem] = _key(nb, parameters, fingerprint)  # after the run: it may have recorded parts
        state_path.write_text(json.dumps(state, indent=2))
        verdicts = (
            "a guide, no paper comparison"
            if guide
            else f"paper vs. this book: {_fidelity(results / f'{nb.stem}.json')}"
        )
        print(f"[credalbook] {nb.stem}: done in {wall:.1f} s; {verdicts}", flush=True)

    options = dict(progress=progress and jobs == 1, stream=stream, timeout=timeout, threads=threads)
    if jobs == 1:
        for nb in todo:
            finish(nb, _execute_one(nb, parameters, begin(nb), **options))
    else:
        import concurrent.futures
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for nb, fut in schedule(
                todo,
                lambda nb: pool.submit(_execute_one, nb, parameters, begin(nb), **options),
                jobs=jobs,
                scale=parameters.get("scale"),
            ):
                try:
                    outcome = fut.result()
                except Exception as err:  # the worker process itself died
                    outcome = ((None, None, f"{type(err).__name__}: {err}"), 0.0)
                finish(nb, outcome)
    state_path.write_text(json.dumps(state, indent=2))
    return failures


def schedule(notebooks, submit, *, jobs: int, scale=None):
    """Start the chapters ``notebooks`` with ``submit(nb) -> Future``, at most ``jobs`` at a time; yield
    ``(nb, future)`` as each finishes.

    Whenever a slot is free, the longest chapter that is ready starts (longest by :func:`expected_seconds`, so
    that the slowest chapters do not end up last, alone on a machine whose other cores idle). A chapter is ready
    when every chapter it reuses (:func:`~credalbook.book.chapters.chapter_reuses`) that is in this run has
    finished, successfully or not: it then loads their cached computations instead of repeating them side by
    side. Should no chapter be ready while none runs (a cycle), the longest waiting one starts anyway.
    """
    import concurrent.futures

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer; got {jobs!r}")
    pending = sorted(notebooks, key=lambda nb: -expected_seconds(nb, scale))  # stable: ties keep their order
    stems = {nb.stem for nb in pending}
    waits = {nb.stem: chapter_reuses(nb) & stems - {nb.stem} for nb in pending}
    done, running = set(), {}
    while pending or running:
        while pending and len(running) < jobs:
            ready = [nb for nb in pending if waits[nb.stem] <= done]
            if not ready and running:
                break
            nb = (ready or pending)[0]
            pending.remove(nb)
            running[submit(nb)] = nb
        finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
        for fut in finished:
            nb = running.pop(fut)
            done.add(nb.stem)
            yield nb, fut


def expected_seconds(nb: Path, scale) -> float:
    """How long chapter ``nb`` is expected to take at ``scale``: the wall time of its last recorded run at that
    scale, else the notebook's own estimate (:func:`~credalbook.book.chapters.chapter_seconds`), else 0."""
    from credalbook.book.records import read_chapter_record

    try:
        rec = read_chapter_record(nb.stem, scale) if scale else None
    except (OSError, ValueError):
        rec = None
    last = (rec or {}).get("manifest", {}).get("wall_seconds")
    return float(last) if last else chapter_seconds(nb, scale)


def _record_chapter(nb: Path, executed: Path, results_file: Path, parameters: dict, wall: float) -> None:
    """Write the chapter record ``results/<chapter>/<scale>/chapter.json`` (rows, figures, manifest)."""
    from credalbook.book.records import write_chapter_record
    from credalbook.papers.presets import preset, PRESETS

    scale = parameters["scale"]
    cfg = dict(preset(nb.stem, scale)) if nb.stem in PRESETS else {}
    path = write_chapter_record(
        nb.stem,
        scale,
        json.loads(results_file.read_text()),
        notebook=nb,
        executed=executed,
        wall_seconds=wall,
        preset=cfg,
    )
    print(f"[credalbook] {nb.stem}: recorded {path}", flush=True)


def _process_stamp(pid: int) -> str:
    """``"<pid> <start time>"`` of a process (the start time in clock ticks from ``/proc``; empty where there is none)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        start = stat[stat.rindex(")") + 2 :].split()[19]  # field 22 of proc(5), counted after the command name
    except (OSError, ValueError, IndexError):
        start = ""
    return f"{pid} {start}".strip()


def _claim_alive(stamp: str) -> bool:
    """Whether the process of a claim's stamp still runs (the same process: a reused pid has another start time)."""
    try:
        pid = int(stamp.split()[0])
    except (IndexError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return len(stamp.split()) < 2 or _process_stamp(pid) == stamp


@contextlib.contextmanager
def claim_part(chapter: str, scale: str, name: str, *, folder=None):
    """Claim part ``name`` of ``chapter`` at ``scale`` for this process while it is computed: yields True, or the
    pid of the live process on this machine that holds the claim (then nothing is computed).

    The claim is a file ``<cache dir>/claims/<chapter>.<scale>.<name>`` created exclusively and holding the
    claimant's pid and start time; it is removed on leaving, and a claim whose process has died (or whose pid
    now belongs to another process) is taken over. So two ``run --part missing`` of one chapter side by side
    (one per core) never compute the same part, and :func:`run_parts_cli` skips a part the other one recorded
    meanwhile. Machine-local: on several machines the records (commit them, pull) say what is left.
    """
    from credalbook.cache import cache_dir

    folder = Path(folder) if folder is not None else cache_dir() / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{chapter}.{scale}.{name}"
    mine = _process_stamp(os.getpid())
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = path.read_text().strip()
            except OSError:
                holder = ""
            if holder and holder != mine and _claim_alive(holder):
                yield int(holder.split()[0])
                return
            with contextlib.suppress(FileNotFoundError):  # a dead claimant's (or a half-written) claim
                path.unlink()
            continue
        with os.fdopen(fd, "w") as f:
            f.write(mine)
        try:
            yield True
        finally:
            with contextlib.suppress(FileNotFoundError):
                if path.read_text().strip() == mine:
                    path.unlink()
        return
    raise RuntimeError(f"could not claim part {name!r} of {chapter} ({path} keeps reappearing)")


def run_parts_cli(chapter: str, scale: str, names, *, extra_parameters: dict | None = None) -> int:
    """Compute and record parts of ``chapter`` without executing it (``run --part``); 0 when all succeeded.

    ``names``: part names, or ``"missing"`` for every part that is missing or stale, one after another. Each
    part is claimed while it is computed (:func:`claim_part`): a part another process on this machine is
    computing is skipped, so two such commands can share a chapter's parts.
    """
    from credalbook.book.records import _notebook_defaults, part_state, run_part
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset

    (nb,) = chapter_paths([chapter])
    params = {**_notebook_defaults(nb), **(extra_parameters or {}), "scale": scale}
    plan = {p.name: p for p in plan_parts(nb.stem, preset(nb.stem, scale), **params)}
    if not plan:
        raise ValueError(f"{nb.stem} has no parts: run the chapter itself (it is one part)")
    wanted = []
    for n in names:
        if n == "missing":
            wanted += [p for p in plan.values() if part_state(nb.stem, scale, p).state != "recorded"]
        elif n in plan:
            wanted.append(plan[n])
        else:
            raise ValueError(f"{nb.stem} has no part {n!r}; its parts: {sorted(plan)}")
    for p in list({p.name: p for p in wanted}.values()):
        start = time.perf_counter()
        if len(wanted) > 1 and part_state(nb.stem, scale, p).state == "recorded":  # by another process meanwhile
            print(f"[credalbook] {nb.stem} {scale}: part {p.name} was recorded meanwhile; skipped", flush=True)
            continue
        with claim_part(nb.stem, scale, p.name) as claim:
            if claim is not True:
                print(
                    f"[credalbook] {nb.stem} {scale}: part {p.name} is being computed by process {claim}; skipped",
                    flush=True,
                )
                continue
            print(f"[credalbook] {nb.stem} {scale}: part {p.name} ...", flush=True)
            run_part(nb.stem, scale, p, rerun_stale=True)
        print(
            f"[credalbook] {nb.stem} {scale}: part {p.name} recorded in {time.perf_counter() - start:.0f} s", flush=True
        )
    if not wanted:
        print(f"[credalbook] {nb.stem} {scale}: every part is recorded and fresh", flush=True)
    return 0


def stage_book(dest: Path, *, source_root: Path | None = None) -> Path:
    """Copy the book's configuration and pages (not the sources of chapters) to ``dest``.

    Used by the tests and by ``build --book-root`` to build a book (e.g. at ``tiny`` scale) without
    touching the real build. ``book/`` is copied whole but for its build output, executed chapters and
    chapter pages: the API reference pages (``book/api/``) and the Sphinx extension (``book/_ext/``) go along.
    """
    source = source_root or _source_root()
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(source / name, dest / name)
    shutil.copytree(
        source / "book",
        dest / "book",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("_build", "executed", "chapters", ".ipynb_checkpoints"),
    )
    return dest


def build_problems(log_lines) -> list[str]:
    """The lines of a Sphinx log that fail the build (``BUILD_ERRORS``): broken cross-references, objects
    not importable, undefined substitutions.

    Examples
    --------
    >>> problems = build_problems(["reading sources... [ 50%] book/api/metrics",
    ...                            "a.py:3: WARNING: py:func reference target not found: ece2 [ref.func]",
    ...                            'b.py:docstring of f:4: ERROR: Undefined substitution referenced: "0 - 1".'])
    >>> for line in problems:
    ...     print(line)
    a.py:3: WARNING: py:func reference target not found: ece2 [ref.func]
    b.py:docstring of f:4: ERROR: Undefined substitution referenced: "0 - 1".
    """
    return [_ANSI.sub("", line).rstrip() for line in log_lines if BUILD_ERRORS.search(line)]


def build_book(*, book_root: Path | None = None, extra_args=()) -> Path:
    """Run ``jupyter-book build`` on the executed chapters; return the HTML folder.

    The build log is streamed to the terminal and scanned: a broken cross-reference or an API
    object that cannot be imported fails the build (:func:`build_problems`).

    Raises
    ------
    FileNotFoundError
        When the vendored MathJax is missing.
    subprocess.CalledProcessError
        When ``jupyter-book`` exits with an error.
    RuntimeError
        When the log reports broken cross-references; the message lists them. Sphinx's cached
        environment is removed, so that the next build reads every page again and reports them again.
    """
    book_root = Path(book_root or _source_root()).resolve()
    vendor = book_root / "book" / "_vendor" / "mathjax" / "tex-mml-chtml.js"
    if not vendor.exists():
        raise FileNotFoundError(
            f"{vendor} is missing: run `bash scripts/setup.sh` (it installs MathJax from npm) "
            "so that the book renders math offline"
        )
    from credalbook.book.reproduce import write_reproduce

    write_reproduce(book_root / "book" / "reproduce.md")  # generated from the records, never typed
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(exe) if exe.exists() else "jupyter-book",
        "build",
        str(book_root),
        "--path-output",
        str(book_root / "book"),
        *extra_args,
    ]
    print("[credalbook] " + " ".join(cmd), flush=True)
    log = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace") as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            log.append(line)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    problems = build_problems(log)
    if problems:
        # Unchanged pages are not read again by an incremental build: without its cache, the next
        # build reports these problems again instead of passing.
        shutil.rmtree(book_root / "book" / "_build" / ".doctrees", ignore_errors=True)
        raise RuntimeError(
            f"the book has {len(problems)} broken cross-reference(s) or API object(s) that "
            "cannot be imported:\n" + "\n".join(problems)
        )
    return book_root / "book" / "_build" / "html"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["reproduce"]:  # book/reproduce.md from the records (its own options)
        from credalbook.book.reproduce import main_reproduce

        return main_reproduce(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m credalbook.book", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command",
        choices=["run", "build", "status", "revalidate", "reproduce"],
        help="run: execute chapters (or, with --part, compute parts of one); build: execute, then build "
        "HTML; status: which records are recorded, missing or stale; revalidate: carry records that went stale "
        "by a code change over to the code now when tiny-scale checks show the change moves no "
        "value; reproduce: write "
        "book/reproduce.md from the records (see its --help)",
    )
    parser.add_argument("--scale", default=None, choices=SCALES, help="default: quick (status: paper)")
    parser.add_argument("-c", "--chapter", action="append", dest="chapters", help="chapter stem (repeatable)")
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        metavar=("NAME", "VALUE"),
        default=[],
        help="extra papermill parameter (value parsed as JSON when possible)",
    )
    parser.add_argument("--book-root", type=Path, default=None)
    parser.add_argument("--force", action="store_true", help="re-execute even if up to date")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--jobs", type=int, default=1, help="chapters executed side by side (default 1)")
    parser.add_argument(
        "--part",
        action="append",
        dest="parts",
        metavar="NAME",
        help="run: compute and record this part of the one chapter given (repeatable; 'missing': every "
        "part missing or stale) instead of executing the chapter",
    )
    args = parser.parse_args(argv)
    extra = {}
    for name, value in args.parameter:
        try:
            extra[name] = json.loads(value)
        except json.JSONDecodeError:
            extra[name] = value
    if args.scale is None:
        args.scale = "paper" if args.command in ("status", "revalidate") else "quick"
    if args.chapters:  # numbers (-c 02) to stems, for every command
        try:
            args.chapters = [p.stem for p in chapter_paths(args.chapters)]
        except ValueError as err:
            parser.error(str(err))
    if args.command == "status":
        from credalbook.book.records import format_status, status

        print(format_status(status(args.chapters, scale=args.scale, parameters=extra)))
        return 0
    if args.command == "revalidate":
        from credalbook.book.records import revalidate

        if not args.chapters:
            parser.error("revalidate needs one or more chapters (-c)")
        for chapter in args.chapters:
            for name, outcome in revalidate(chapter, scale=args.scale, parameters=extra):
                print(f"{chapter} {name}: {outcome}")
        return 0
    if args.parts:
        if args.command != "run" or not args.chapters or len(args.chapters) != 1:
            parser.error("--part needs the command run and exactly one chapter (-c)")
        try:
            return run_parts_cli(args.chapters[0], args.scale, args.parts, extra_parameters=extra)
        except ValueError as err:
            parser.error(str(err))
    start = time.perf_counter()
    failures = run_chapters(
        args.scale,
        book_root=args.book_root,
        chapters=args.chapters,
        force=args.force,
        extra_parameters=extra,
        progress=not args.no_progress,
        jobs=args.jobs,
    )
    if failures:
        for f in failures:
            print(f"[credalbook] {f}", file=sys.stderr)
        print(f"[credalbook] {len(failures)} chapter(s) failed; the book was not built", file=sys.stderr)
        return 1
    if args.command == "build":
        if args.book_root is not None and args.book_root.resolve() != _source_root().resolve():
            stage_book(args.book_root)  # this checkout's configuration and pages (book/api/ included)
        try:
            html = build_book(book_root=args.book_root)
        except RuntimeError as err:
            print(f"[credalbook] {err}", file=sys.stderr)
            return 1
        print(f"[credalbook] book built: {html / 'index.html'} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
