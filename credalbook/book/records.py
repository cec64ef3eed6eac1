"""Records of chapter runs: what a run computed, kept in git with where it came from.

``.cache/`` is a cache; a record is a store. A run at any scale writes under
``results/<chapter>/<scale>/`` (``$CREDALBOOK_RECORDS_DIR`` instead of ``results/`` when set):

``parts/<part>.json``
    One resumable part of a long chapter (a seed, a panel; :mod:`credalbook.papers.parts`): its value
    (the numbers and arrays the chapter shows, as JSON: :func:`encode`), its parameters and a manifest.
``chapter.json``
    The chapter's "Paper vs. this book" rows, the parts it used, and a manifest.
``figures/*.png``
    The figures of the executed chapter.

A manifest holds the commit and whether the tree was clean, the date, the machine (CPU model, cores,
GPU), the versions of Python and the numerical libraries, the parameters, the seeds, the wall time,
and fingerprints of the code (``credalbook._provenance``): of every package module the computation
imports, and for a chapter of its code cells. A record is **stale** when its parameters differ from
what the chapter would run now, when a module it used has changed since (comments, docstrings and
layout do not count), when the chapter's code has changed, or when a part the chapter used was
recorded again since. Only ``paper`` records are tracked in git; ``tiny`` and ``quick`` ones are
ignored (the book shows this build's quick run live).

``python -m credalbook.book status`` lists, per chapter and scale, what is recorded, missing or stale,
and why; ``python -m credalbook.book run --scale paper -c <chapter> --part missing`` computes what is
missing; running the chapter then merges the parts.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import importlib
import json
import math
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from credalbook._paths import repo_root
from credalbook._provenance import (
    code_hash,
    git_state,
    machine,
    module_hashes,
    note_part,
    parts_used,
    utc_now,
    versions,
)
from credalbook._provenance import import_closure as _closure

__all__ = [
    "RECORDS_ENV",
    "records_dir",
    "scale_dir",
    "encode",
    "decode",
    "import_closure",
    "part_parameters",
    "write_part",
    "read_part",
    "part_state",
    "run_part",
    "run_parts",
    "pending_parts",
    "chapter_code_hash",
    "write_chapter_record",
    "read_chapter_record",
    "chapter_state",
    "RecordState",
    "status",
    "format_status",
    "provenance_line",
    "STATES",
    "TIMING_FIELDS",
    "Published",
    "publish",
    "record_figure",
    "revalidate",
    "write_benchmark",
]

RECORDS_ENV = "CREDALBOOK_RECORDS_DIR"
#: The states of a record.
STATES = ("recorded", "stale", "missing")
_INLINE = 64  # arrays with at most this many elements are written as JSON lists


def records_dir() -> Path:
    """``$CREDALBOOK_RECORDS_DIR`` if set, else ``<repo>/results`` in a source checkout, else ``./results``."""
    env = os.environ.get(RECORDS_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    root = repo_root()
    return (root if root is not None else Path.cwd()) / "results"


def scale_dir(chapter: str, scale: str, *, root=None) -> Path:
    """``<records>/<chapter>/<scale>``."""
    from credalbook.papers.presets import SCALES

    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}; got {scale!r}")
    if not isinstance(chapter, str) or not chapter or "/" in chapter or chapter.startswith("."):
        raise ValueError(f"chapter must be a chapter's file stem; got {chapter!r}")
    return Path(root if root is not None else records_dir()) / chapter / scale


# ----------------------------------------------------------------------------------------- codec
def encode(value, _path: str = "value"):
    """``value`` as JSON data that :func:`decode` turns back into an equal value.

    Handles None, bools, ints, strings, floats (NaN and infinities too), NumPy scalars and arrays
    (small ones as lists, larger ones as zlib-compressed base64 of their bytes, bit for bit), torch
    tensors (as arrays), lists, tuples, dicts, and the dataclasses of ``credalbook``. Anything else
    raises TypeError naming where in ``value`` it sits: a record holds data, never pickles.

    Examples
    --------
    >>> import numpy as np
    >>> v = {"a": (1, 2.5), "b": np.arange(100.0), "c": float("nan")}
    >>> w = decode(json.loads(json.dumps(encode(v))))
    >>> w["a"], bool(np.array_equal(w["b"], v["b"])), math.isnan(w["c"])
    ((1, 2.5), True, True)
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else {"__float__": repr(v)}
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        return {"__tensor__": encode(value.detach().cpu().numpy(), _path)}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{_path}: arrays of dtype {value.dtype} cannot be recorded")
        out = {"__ndarray__": value.dtype.str, "shape": list(value.shape)}
        if value.size <= _INLINE:
            out["data"] = [encode(v) for v in value.ravel().tolist()]
        else:
            out["zlib"] = base64.b64encode(zlib.compress(np.ascontiguousarray(value).tobytes(), 6)).decode()
        return out
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, f"{_path}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [encode(v, f"{_path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v, f"{_path}[{k!r}]") for k, v in value.items()}
        return {"__items__": [[encode(k, _path), encode(v, f"{_path}[{k!r}]")] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if not cls.__module__.startswith("credalbook."):
            raise TypeError(
                f"{_path}: only credalbook's dataclasses can be recorded; got {cls.__module__}.{cls.__qualname__}"
            )
        return {
            "__dataclass__": f"{cls.__module__}:{cls.__qualname__}",
            "fields": {f.name: encode(getattr(value, f.name), f"{_path}.{f.name}") for f in dataclasses.fields(value)},
        }
    raise TypeError(
        f"{_path}: a {type(value).__module__}.{type(value).__qualname__} cannot be recorded "
        "(records hold numbers, strings, arrays, lists, dicts and credalbook's dataclasses)"
    )


def _dataclass(name: str):
    module, _, qualname = name.partition(":")
    if not module.startswith("credalbook.") or not qualname:
        raise ValueError(f"a record names the class {name!r}, which is not one of credalbook's")
    obj = importlib.import_module(module)
    for attr in qualname.split("."):
        obj = getattr(obj, attr)
    if not dataclasses.is_dataclass(obj):
        raise ValueError(f"a record names {name!r}, which is not a dataclass")
    return obj


def decode(data):
    """The value :func:`encode` wrote."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__float__" in data:
        return float(data["__float__"])
    if "__tensor__" in data:
        import torch

        return torch.from_numpy(decode(data["__tensor__"]))
    if "__ndarray__" in data:
        dtype, shape = np.dtype(data["__ndarray__"]), tuple(data["shape"])
        if "data" in data:
            return np.array([decode(v) for v in data["data"]], dtype=dtype).reshape(shape)
        raw = zlib.decompress(base64.b64decode(data["zlib"]))
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if "__tuple__" in data:
        return tuple(decode(v) for v in data["__tuple__"])
    if "__items__" in data:
        return {decode(k): decode(v) for k, v in data["__items__"]}
    if "__dataclass__" in data:
        cls = _dataclass(data["__dataclass__"])
        values = {k: decode(v) for k, v in data["fields"].items()}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(values) - set(fields)
        if unknown:
            raise ValueError(f"the record of a {cls.__qualname__} has fields the class lacks: {sorted(unknown)}")
        obj = cls(**{k: v for k, v in values.items() if fields[k].init})
        for k, v in values.items():
            if not fields[k].init:
                object.__setattr__(obj, k, v)
        return obj
    return {k: decode(v) for k, v in data.items()}


def _digest(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------------- provenance
def import_closure(module: str) -> list:
    """The package modules that ``module``'s code can reach through its imports (``credalbook._provenance``)."""
    return _closure(module)


def _manifest(*, parameters: dict, seeds, wall_seconds: float, modules: dict, extra: dict | None = None) -> dict:
    return {
        **git_state(),
        "date": utc_now(),
        "machine": machine(),
        "versions": versions(),
        "parameters": encode(parameters),
        "seeds": list(seeds),
        "wall_seconds": round(float(wall_seconds), 1),
        "modules": modules,
        **(extra or {}),
    }


def part_parameters(part) -> dict:
    """The JSON form of a part's parameters, as its record stores them."""
    return json.loads(json.dumps(encode(part.parameters())))


def _write_json(path: Path, data) -> None:
    """Write a record whole or not at all (through a temporary file beside it), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def _seeds_of(parameters: dict) -> list:
    return [int(v) for k, v in parameters.items() if k == "seed" and isinstance(v, (int, np.integer))]


# --------------------------------------------------------------------------------------- parts
def _part_path(chapter: str, scale: str, name: str, root=None) -> Path:
    return scale_dir(chapter, scale, root=root) / "parts" / f"{name}.json"


def write_part(
    chapter: str, scale: str, part, value, *, wall_seconds: float, root=None, extra: dict | None = None
) -> Path:
    """Record ``value`` as part ``part`` (a :class:`credalbook.papers.parts.Part`) of ``chapter`` at ``scale``."""
    module = part.func.__module__
    modules = module_hashes(import_closure(module)) if module.startswith("credalbook") else {}
    data = {
        "kind": "part",
        "chapter": chapter,
        "scale": scale,
        "part": part.name,
        "parameters": part_parameters(part),
        "value": encode(value),
    }
    data["manifest"] = _manifest(
        parameters=part.parameters(),
        seeds=_seeds_of(part.kwargs),
        wall_seconds=wall_seconds,
        modules=modules,
        extra=extra,
    )
    data["digest"] = _digest([data["parameters"], data["value"]])
    path = _part_path(chapter, scale, part.name, root)
    _write_json(path, data)
    return path


def read_part(chapter: str, scale: str, name: str, *, root=None) -> dict | None:
    """The record of a part (the JSON, value still encoded), or None when there is none."""
    path = _part_path(chapter, scale, name, root)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("kind") != "part" or "value" not in data or "manifest" not in data:
        raise ValueError(f"{path} is not a part record")
    return data


def _changed_modules(modules: dict) -> list:
    root = repo_root() or Path(__file__).resolve().parents[2]
    reasons = []
    for path, h in sorted(modules.items()):
        f = root / path
        if not f.is_file():
            reasons.append(f"{path} is gone")
        elif code_hash(f) != h:
            reasons.append(f"{path} changed")
    return reasons


#: Keywords renamed by the vocabulary of 0.6 (``{old: new}``): a record made before keeps its parameters under the
#: old name (its digest covers them), and is compared with the plan under the new one. :func:`revalidate` calls the
#: code of a record's commit with the old name (:data:`_EVAL`).
PARAMETER_RENAMES = {"n_bootstrap": "n_resamples", "n_boot": "n_resamples"}


def renamed_keys(data: dict) -> dict:
    """``data`` with every key of ``credalbook.book.records.PARAMETER_RENAMES`` under its new name (unless the new name is there too).

    >>> renamed_keys({"n_bootstrap": 100, "seed": 0})
    {'n_resamples': 100, 'seed': 0}
    """
    if not isinstance(data, dict):
        return data
    return {(PARAMETER_RENAMES.get(k, k) if PARAMETER_RENAMES.get(k) not in data else k): v for k, v in data.items()}


def _parameter_changes(recorded: dict, now: dict) -> list:
    recorded, now = renamed_keys(recorded), renamed_keys(now)
    keys = sorted(set(recorded) | set(now))
    return [
        f"parameter {k}: recorded {recorded.get(k, '(absent)')!r}, now {now.get(k, '(absent)')!r}"
        for k in keys
        if recorded.get(k) != now.get(k)
    ]


@dataclass(frozen=True)
class RecordState:
    """Whether a record exists and is fresh: ``state`` is one of :data:`STATES`; ``reasons`` say why stale."""

    chapter: str
    scale: str
    name: str
    state: str
    reasons: tuple = ()
    manifest: dict = field(default_factory=dict, repr=False)


def part_state(chapter: str, scale: str, part, *, root=None) -> RecordState:
    """Recorded, stale (why) or missing: the record of ``part`` against its parameters and code now."""
    return _state_of(chapter, scale, part, read_part(chapter, scale, part.name, root=root))


def _state_of(chapter: str, scale: str, part, data) -> RecordState:
    """:func:`part_state` of an already read record (``data``; None when there is none)."""
    if data is None:
        return RecordState(chapter, scale, part.name, "missing")
    reasons = _parameter_changes(data["parameters"], part_parameters(part))
    reasons += _changed_modules(data["manifest"].get("modules", {}))
    if not data["manifest"].get("modules") and part.func.__module__.startswith("credalbook"):
        reasons.append("the record has no fingerprints of its code")
    return RecordState(chapter, scale, part.name, "stale" if reasons else "recorded", tuple(reasons), data["manifest"])


class _PartClock:
    """The wall time of computing a part over all its attempts: a long part (a GP fit with a checkpoint) that
    was interrupted resumes where it stopped, so the time of the attempts before counts towards its record.

    Each attempt keeps a small ledger ``<cache dir>/part-clocks/<chapter>.<scale>.<part>.json`` — the seconds
    of the attempts before it and when this one started — refreshed every ``beat`` seconds by a daemon thread
    (so a killed attempt is known to within that); the ledger is removed when the part completes. It lives in
    the cache beside the checkpoints: when the cache is gone, so is the work it accounted for, and the clock
    starts afresh with them. A ledger written for other parameters (the part changed since) is not counted.
    """

    def __init__(self, chapter: str, scale: str, name: str, *, parameters=None, beat: float = 30.0):
        from credalbook.cache import cache_dir

        self.path = cache_dir() / "part-clocks" / f"{chapter}.{scale}.{name}.json"
        self.parameters, self.beat = parameters, float(beat)
        self.earlier, self.attempts, self.seconds = 0.0, 1, 0.0

    def _write(self, now: float) -> None:
        with contextlib.suppress(OSError):  # the clock must never fail the computation it times
            _write_json(
                self.path,
                {
                    "parameters": self.parameters,
                    "earlier_seconds": self.earlier,
                    "attempts": self.attempts,
                    "seconds": round(now - self._start, 1),
                },
            )

    def __enter__(self):
        import threading

        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            old = json.loads(self.path.read_text())
            if old.get("parameters") != self.parameters:
                raise ValueError("a ledger of other parameters")
            self.earlier = float(old["earlier_seconds"]) + float(old["seconds"])
            self.attempts = int(old["attempts"]) + 1
        self._start = time.perf_counter()
        self._write(self._start)
        self._stop = threading.Event()

        def beat():
            while not self._stop.wait(self.beat):
                self._write(time.perf_counter())

        self._beat = threading.Thread(target=beat, name=f"clock {self.path.stem}", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        now = time.perf_counter()
        self._stop.set()
        self._beat.join()  # else a beat in flight could write the ledger again after it is removed
        self.seconds = self.earlier + (now - self._start)
        if exc_type is None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        else:  # interrupted: the next attempt adds this one's time
            self._write(now)
        return False


def run_part(chapter: str, scale: str, part, *, record: bool = True, root=None, rerun_stale: bool = True):
    """The value of ``part``: from its record when that is fresh, else computed now (and recorded).

    Parameters
    ----------
    record : bool
        Write the record of a part computed now.
    rerun_stale : bool
        Compute a part whose record is stale (default); with False a stale record is used as it is
        (its state is noted, and the chapter shows it).
    """
    data = read_part(chapter, scale, part.name, root=root)  # read once: a member's record is about a megabyte
    st = _state_of(chapter, scale, part, data)
    if st.state == "recorded" or (st.state == "stale" and not rerun_stale):
        note_part(
            chapter,
            scale,
            part.name,
            state=st.state,
            digest=data["digest"],
            wall_seconds=data["manifest"]["wall_seconds"],
        )
        return decode(data["value"])
    with _PartClock(chapter, scale, part.name, parameters=part_parameters(part)) as clock:
        value = part.run()
    wall = clock.seconds
    digest = None
    if record:
        extra = (
            {"attempts": clock.attempts, "earlier_attempts_seconds": round(clock.earlier, 1)}
            if clock.attempts > 1
            else None
        )
        path = write_part(chapter, scale, part, value, wall_seconds=wall, root=root, extra=extra)
        digest = json.loads(path.read_text())["digest"]
    note_part(chapter, scale, part.name, state="computed", digest=digest, wall_seconds=round(wall, 1))
    return value


def run_parts(chapter: str, scale: str, parts, *, group: str | None = None, **options) -> dict:
    """``{name: value}`` of ``parts`` (only the names starting with ``group + "-"`` when given), by :func:`run_part`."""
    chosen = [p for p in parts if group is None or p.name.startswith(group + "-")]
    if not chosen:
        raise ValueError(f"no part of group {group!r} among {[p.name for p in parts]}")
    return {p.name: run_part(chapter, scale, p, **options) for p in chosen}


def pending_parts(chapter: str, scale: str, parts, *, root=None) -> str | None:
    """None when a chapter may use every one of ``parts`` now, else how many are recorded (``"3 of 20 parts
    recorded"``): below ``"paper"`` scale parts are computed as the chapter runs, at ``"paper"`` scale a section whose
    parts are not all recorded (:func:`part_state`) is pending, never computed in the chapter nor judged on part of
    them.

    Examples
    --------
    >>> pending_parts("demo", "tiny", []) is None
    True
    """
    parts = list(parts)
    if scale != "paper":
        return None
    ready = sum(part_state(chapter, scale, p, root=root).state == "recorded" for p in parts)
    return None if ready == len(parts) else f"{ready} of {len(parts)} parts recorded"


# ------------------------------------------------------------------------------------- chapters
def chapter_code_hash(notebook) -> str:
    """Fingerprint of a chapter's code cells (its prose and outputs do not count)."""
    nb = json.loads(Path(notebook).read_text())
    code = [
        ("".join(c["source"]) if isinstance(c["source"], list) else c["source"]).strip()
        for c in nb.get("cells", [])
        if c.get("cell_type") == "code"
    ]
    return hashlib.sha256("\n\0\n".join(code).encode()).hexdigest()[:16]


def _figure_stem(cell: dict, index: int) -> str:
    """A cell's figure name: its first tag ``fig-...`` (stable under edits elsewhere), else ``cell<index>``."""
    tags = [t for t in cell.get("metadata", {}).get("tags", []) if isinstance(t, str) and t.startswith("fig-")]
    return tags[0] if tags else f"cell{index:02d}"


def _figures(executed, out: Path) -> list:
    """Write the PNG outputs of an executed notebook to ``out`` (``<name>-<k>.png``, see ``_figure_stem``)."""
    nb = json.loads(Path(executed).read_text())
    names = []
    for i, cell in enumerate(nb.get("cells", [])):
        k = 0
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else ():
            png = o.get("data", {}).get("image/png")
            if png:
                name = f"{_figure_stem(cell, i)}-{k}.png"
                out.mkdir(parents=True, exist_ok=True)
                (out / name).write_bytes(base64.b64decode("".join(png) if isinstance(png, list) else png))
                names.append(name)
                k += 1
    return names


def write_benchmark(name: str, rows, *, title: str, command: str, wall_seconds: float, root=None) -> Path:
    """Record timings as ``<records>/benchmark/<name>.json`` (shown in ``book/reproduce.md``, "Benchmarks").

    Parameters
    ----------
    name : str
        File stem: letters, digits, ``-``, ``_`` and ``.``.
    rows : sequence of mapping
        One per timing: ``work`` (what was timed, str), ``seconds`` (positive, finite) and ``per`` (the
        unit of work, str).
    title, command : str
        The table's title and the command that measured it.
    wall_seconds : float
        Wall time of the whole measurement (its manifest's).
    """
    if (
        not isinstance(name, str)
        or not name
        or any(not (c.isalnum() or c in "-_.") for c in name)
        or name.startswith(".")
    ):
        raise ValueError(f"name must be a file stem of letters, digits, '-', '_' and '.'; got {name!r}")
    clean = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != {"work", "seconds", "per"}:
            raise ValueError(f"rows[{i}] must be a dict with exactly 'work', 'seconds' and 'per'; got {row!r}")
        sec = row["seconds"]
        if isinstance(sec, bool) or not isinstance(sec, (int, float, np.floating)) or not (0 < float(sec) < np.inf):
            raise ValueError(f"rows[{i}]['seconds'] must be a positive finite number; got {sec!r}")
        if not isinstance(row["work"], str) or not isinstance(row["per"], str) or not row["work"]:
            raise TypeError(f"rows[{i}]['work'] and ['per'] must be strings (work not empty)")
        clean.append({"work": row["work"], "seconds": float(sec), "per": row["per"]})
    if not clean:
        raise ValueError("rows must hold at least one timing")
    path = Path(root if root is not None else records_dir()) / "benchmark" / f"{name}.json"
    data = {
        "kind": "benchmark",
        "title": str(title),
        "command": str(command),
        "rows": clean,
        "manifest": _manifest(parameters={}, seeds=[], wall_seconds=wall_seconds, modules={}),
    }
    _write_json(path, data)
    return path


def write_chapter_record(
    chapter: str,
    scale: str,
    comparison: dict,
    *,
    notebook,
    executed=None,
    wall_seconds: float,
    preset: dict | None = None,
    root=None,
) -> Path:
    """Record a chapter run: its comparison (as :meth:`credalbook.papers.report.Comparison.save` wrote it,
    with the ``provenance`` the kernel added), its figures, and a manifest."""
    d = scale_dir(chapter, scale, root=root)
    d.mkdir(parents=True, exist_ok=True)
    figs = d / "figures"
    for old in figs.glob("*.png") if figs.is_dir() else ():
        old.unlink()
    figures = _figures(executed, figs) if executed is not None else []
    provenance = comparison.get("provenance", {})
    parameters = comparison.get("parameters", {})
    parts = provenance.get("parts", {})
    data = {
        "kind": "chapter",
        "chapter": chapter,
        "scale": scale,
        "rows": comparison.get("rows", []),
        "counts": comparison.get("counts", {}),
        "parts": parts,
        "figures": figures,
        "manifest": _manifest(
            parameters=parameters,
            seeds=[parameters["seed"]] if "seed" in parameters else [],
            wall_seconds=wall_seconds,
            modules=provenance.get("modules", {}),
            extra={
                "chapter_code": chapter_code_hash(notebook),
                "preset": encode(preset or {}),
                # the parts loaded from records (those computed in this run are in wall_seconds)
                "parts_wall_seconds": round(
                    sum(p.get("wall_seconds") or 0 for p in parts.values() if p.get("state") != "computed"), 1
                ),
            },
        ),
    }
    path = d / "chapter.json"
    _write_json(path, data)
    return path


def read_chapter_record(chapter: str, scale: str, *, root=None) -> dict | None:
    """The chapter record, or None."""
    path = scale_dir(chapter, scale, root=root) / "chapter.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("kind") != "chapter":
        raise ValueError(f"{path} is not a chapter record")
    return data


def chapter_state(chapter: str, scale: str, *, notebook=None, preset: dict | None = None, root=None) -> RecordState:
    """Recorded, stale (why) or missing: the chapter record against the chapter, its preset and its parts now."""
    data = read_chapter_record(chapter, scale, root=root)
    if data is None:
        return RecordState(chapter, scale, "chapter", "missing")
    man = data["manifest"]
    reasons = []
    if notebook is not None and Path(notebook).is_file() and man.get("chapter_code") != chapter_code_hash(notebook):
        reasons.append(_CHAPTER_CODE)
    if preset is not None and renamed_keys(man.get("preset")) != renamed_keys(json.loads(json.dumps(encode(preset)))):
        reasons.append("the scale's preset changed")
    reasons += _changed_modules(man.get("modules", {}))
    for name, used in sorted(data.get("parts", {}).items()):
        rec = read_part(chapter, scale, name, root=root)
        if rec is None:
            reasons.append(f"part {name} has no record")
        elif used.get("digest") != rec["digest"]:
            reasons.append(f"part {name} was recorded again since")
        elif used.get("state") == "stale":
            reasons.append(f"part {name} was stale when used")
    return RecordState(chapter, scale, "chapter", "stale" if reasons else "recorded", tuple(reasons), man)


def _notebook_defaults(notebook) -> dict:
    """The defaults of a chapter's ``parameters`` cell (through papermill's inspection)."""
    import papermill as pm

    out = {}
    for name, p in pm.inspect_notebook(str(notebook)).items():
        try:
            out[name] = (
                json.loads(p["default"])
                if p["default"] not in ("None", "True", "False")
                else {"None": None, "True": True, "False": False}[p["default"]]
            )
        except json.JSONDecodeError:
            out[name] = p["default"].strip("\"'")
    return out


def status(chapters=None, *, scale: str = "paper", parameters: dict | None = None, root=None) -> list:
    """Every part and the chapter record of ``chapters`` (default: all but the guides) at ``scale``.

    Returns a list of :class:`RecordState`. ``parameters`` override the chapters' defaults (as ``-p``).
    """
    from credalbook.book.chapters import chapter_paths, is_guide
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset, PRESETS

    out = []
    for nb in chapter_paths(chapters):
        if is_guide(nb):
            continue
        cfg = preset(nb.stem, scale) if nb.stem in PRESETS else {}
        params = {**_notebook_defaults(nb), **(parameters or {}), "scale": scale}
        for part in plan_parts(nb.stem, cfg, **params):
            out.append(part_state(nb.stem, scale, part, root=root))
        out.append(chapter_state(nb.stem, scale, notebook=nb, preset=dict(cfg), root=root))
    return out


def _when(man: dict) -> str:
    m = man.get("machine", {})
    where = m.get("gpu") or f"{m.get('cores', '?')} cores"
    return f"{str(man.get('date', '?'))[:10]}, {where}, {man.get('wall_seconds', 0):.0f} s"


def format_status(states) -> str:
    """A plain-text table of :func:`status`, then a summary line per chapter."""
    lines = []
    for s in states:
        when = _when(s.manifest) if s.manifest else ""
        lines.append(f"{s.chapter:36s} {s.scale:6s} {s.name:36s} {s.state:9s} {when}")
        lines += [f"{'':44s}- {r}" for r in s.reasons[:6]] + (
            [f"{'':44s}- ... {len(s.reasons) - 6} more"] if len(s.reasons) > 6 else []
        )
    by = {}
    for s in states:
        by.setdefault((s.chapter, s.scale), []).append(s.state)
    lines.append("")
    for (c, sc), st in by.items():
        lines.append(f"{c} at {sc}: " + ", ".join(f"{st.count(x)} {x}" for x in STATES if st.count(x)))
    return "\n".join(lines)


def provenance_line(manifest: dict) -> str:
    """One line: commit (clean or not), date, machine, wall time of a record's manifest."""
    commit = (manifest.get("commit") or "unknown commit")[:7]
    clean = {True: "clean tree", False: "uncommitted changes", None: "tree state unknown"}[manifest.get("clean")]
    m = manifest.get("machine", {})
    machine = f"{m.get('cpu', '?')} ({m.get('cores', '?')} cores)" + (f", {m['gpu']}" if m.get("gpu") else "")
    wall = manifest.get("wall_seconds", 0) + manifest.get("parts_wall_seconds", 0)
    return f"commit {commit} ({clean}), {str(manifest.get('date', '?'))[:10]}, {machine}, wall time {_duration(wall)}"


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600} h {s % 3600 // 60:02d} min" if s >= 3600 else f"{s // 60} min {s % 60:02d} s"


# ------------------------------------------------------------------------------------- publish
@dataclass(frozen=True)
class Published:
    """A chapter's "Paper vs. this book" table beside its paper-scale record (see :func:`publish`)."""

    chapter: str
    scale: str
    rows: list
    record: dict | None
    state: RecordState
    reference_scale: str = "paper"
    parts: dict = field(default_factory=dict)

    @property
    def counts(self) -> dict:
        """Verdict counts of this run and of the record (None without one)."""
        rec = self.record.get("counts") if self.record else None
        from credalbook.papers.criteria import VERDICTS

        return {"this run": {v: sum(r["verdict"] == v for r in self.rows) for v in VERDICTS}, "record": rec}

    def provenance(self) -> str:
        """The line under the table: where the paper-scale numbers come from, and whether they are current."""
        cmd = f"python -m credalbook.book run --scale {self.reference_scale} -c {self.chapter}"
        if self.scale == self.reference_scale:
            states = [p["state"] for p in self.parts.values()]
            wall = sum(p.get("wall_seconds") or 0 for p in self.parts.values())
            used = (
                (
                    f" Of its {len(states)} parts, {states.count('recorded')} were loaded from up-to-date records, "
                    f"{states.count('computed')} computed now"
                    + (f" and {states.count('stale')} loaded from STALE records" if states.count("stale") else "")
                    + f" ({_duration(wall)} of computing as recorded)."
                )
                if states
                else ""
            )
            return (
                f"This is the {self.scale}-scale run: the runner records it (rows, figures, manifest) under "
                f"results/{self.chapter}/{self.scale}/." + used
            )
        if self.record is None:
            return (
                f"No {self.reference_scale}-scale record yet: its column is empty. Run `{cmd}` "
                f"(`python -m credalbook.book status -c {self.chapter}` lists its parts)."
            )
        line = f"{self.reference_scale.capitalize()}-scale record: {provenance_line(self.record['manifest'])}."
        if self.state.state == "stale":
            why = "; ".join(self.state.reasons[:4]) + ("; …" if len(self.state.reasons) > 4 else "")
            line += f" STALE — recorded with other code or parameters than this build's ({why}); rerun: `{cmd}`."
        else:
            line += " Up to date with this build's code and parameters."
        return line

    def _repr_html_(self) -> str:
        import html as _html

        from credalbook.papers.report import fidelity_of, html_table

        pairs = _match_rows(self.rows, (self.record or {}).get("rows", []))
        same = self.scale == self.reference_scale
        header = ["Artifact", "Quantity", "Paper"]
        header += ([] if same else [f"{self.reference_scale} scale (record)", "verdict"]) + [
            f"this build ({self.scale})",
            "verdict",
            "Criterion",
            "Note",
        ]
        rows = []
        for i, r in enumerate(self.rows):
            rec = pairs.get(i)
            cells = [r["artifact"], r["quantity"], r["paper"]]
            if not same:
                cells += [rec["book"], rec["verdict"]] if rec else ["—", "not in the record"]
            how = r["criterion"] + (f" (tolerance: {r['tolerance_source']})" if r.get("tolerance_source") else "")
            verdict = r["verdict"] + (f": {r['cause']}" if r.get("cause") and r["verdict"] != "agrees" else "")
            rows.append(cells + [r["book"], verdict, how, r.get("note", "")])
        if not same:
            matched = {id(v) for v in pairs.values()}
            for rec in (self.record or {}).get("rows", []):
                if id(rec) not in matched:
                    rows.append(
                        [
                            rec["artifact"],
                            rec["quantity"],
                            rec["paper"],
                            rec["book"],
                            rec["verdict"],
                            "—",
                            "not in this build",
                            rec["criterion"],
                            rec.get("note", ""),
                        ]
                    )
        state = {
            "recorded": "credalbook-record-current",
            "stale": "credalbook-record-stale",
            "missing": "credalbook-record-missing",
        }[self.state.state]
        table = html_table(header, rows, css_class="credalbook-table credalbook-comparison")
        counts = self.counts
        fid = f"This build ({self.scale}): {fidelity_of(counts['this run'])}."
        if counts["record"] is not None and not same:
            fid += f" {self.reference_scale.capitalize()}-scale record: {fidelity_of(counts['record'])}."
        return (
            table + f'<p class="credalbook-fidelity">{_html.escape(fid)}</p>'
            f'<p class="credalbook-provenance {state}">{_html.escape(self.provenance())}</p>'
        )

    def __str__(self) -> str:
        from credalbook.papers.report import format_cell

        pairs = _match_rows(self.rows, (self.record or {}).get("rows", []))
        lines = []
        for i, r in enumerate(self.rows):
            rec = pairs.get(i)
            ref = (
                f" | {self.reference_scale} {format_cell(rec['book'])} ({rec['verdict']})"
                if rec and self.scale != self.reference_scale
                else ""
            )
            lines.append(
                f"{r['artifact']} | {r['quantity']} | paper {format_cell(r['paper'])}{ref} | "
                f"{self.scale} {format_cell(r['book'])} ({r['verdict']})"
            )
        return "\n".join(lines + [self.provenance()])


def _match_rows(rows, record_rows) -> dict:
    """Index of a row of this run -> the record's row of the same artifact and quantity.

    Rows match on their text; failing that, on their text with the numbers left out (a quantity may name a
    size that differs between scales, e.g. "R = 10 regions" at quick and "R = 20" at paper), when that
    leaves exactly one candidate on each side.
    """
    import re

    exact = {(r["artifact"], r["quantity"]): r for r in record_rows}
    loose = lambda r: (re.sub(r"\d+(\.\d+)?", "#", r["artifact"]), re.sub(r"\d+(\.\d+)?", "#", r["quantity"]))  # noqa: E731
    by_loose: dict = {}
    for r in record_rows:
        by_loose.setdefault(loose(r), []).append(r)
    mine: dict = {}
    for r in rows:
        mine[loose(r)] = mine.get(loose(r), 0) + 1
    out, used = {}, set()
    for i, r in enumerate(rows):
        rec = exact.get((r["artifact"], r["quantity"]))
        if rec is None and mine[loose(r)] == 1 and len(by_loose.get(loose(r), [])) == 1:
            rec = by_loose[loose(r)][0]
        if rec is not None and id(rec) not in used:
            out[i] = rec
            used.add(id(rec))
    return out


def publish(comparison, *, scale: str, reference_scale: str = "paper", notebook=None, root=None) -> Published:
    """A chapter's comparison beside its ``reference_scale`` record, for the chapter's last cell.

    Parameters
    ----------
    comparison : credalbook.papers.report.Comparison
        This run's rows.
    scale : str
        This run's scale.
    notebook : path, optional
        The chapter notebook (default ``chapters/<chapter>.ipynb`` of this checkout), for the staleness check.
    """
    from credalbook.papers.presets import preset, PRESETS

    chapter = comparison.chapter
    if notebook is None:
        root_dir = repo_root()
        notebook = root_dir / "chapters" / f"{chapter}.ipynb" if root_dir is not None else None
    cfg = dict(preset(chapter, reference_scale)) if chapter in PRESETS else None
    rows = [dict(r) for r in comparison.to_dict({"scale": scale})["rows"]]
    if scale == reference_scale:
        record, state = None, RecordState(chapter, scale, "chapter", "missing")
    else:
        record = read_chapter_record(chapter, reference_scale, root=root)
        state = chapter_state(chapter, reference_scale, notebook=notebook, preset=cfg, root=root)
    return Published(chapter, scale, rows, record, state, reference_scale, parts_used(chapter, scale))


def record_figure(chapter: str, name: str, *, scale: str = "paper", root=None):
    """The figure ``name`` (a code cell tagged ``name``, e.g. ``fig-3``) of ``chapter``'s ``scale`` record, for display.

    Returns an ``IPython.display.HTML`` figure with the record's provenance (and its staleness) as caption,
    or a Markdown note that there is no such record yet (a missing record is said, never hidden).
    """
    import html as _html

    from IPython.display import HTML, Markdown

    if not isinstance(name, str) or not name.startswith("fig-"):
        raise ValueError(f"name must be a figure tag starting with 'fig-'; got {name!r}")
    rec = read_chapter_record(chapter, scale, root=root)
    files = [f for f in (rec or {}).get("figures", []) if f.rsplit("-", 1)[0] == name]
    if not files:
        return Markdown(
            f"*No {scale}-scale record of this figure yet* "
            f"(`python -m credalbook.book run --scale {scale} -c {chapter}`)."
        )
    png = base64.b64encode((scale_dir(chapter, scale, root=root) / "figures" / files[0]).read_bytes()).decode()
    caption = f"The same figure at {scale} scale, from the record: {provenance_line(rec['manifest'])}."
    return HTML(
        f'<figure class="credalbook-record-figure"><img src="data:image/png;base64,{png}" '
        f'alt="{_html.escape(name)} at {scale} scale"/><figcaption>{_html.escape(caption)}</figcaption></figure>'
    )


# ---------------------------------------------------------------------------------- revalidate
_EVAL = r"""
import importlib, json, sys
from credalbook.book.records import decode, encode
specs, renames = json.loads(sys.stdin.read())
out = {}
for name, (function, kwargs) in specs.items():
    module, _, qualname = function.partition(":")
    func = importlib.import_module(module)
    for attr in qualname.split("."):
        func = getattr(func, attr)
    kwargs = decode(kwargs)
    try:
        value = func(**kwargs)
    except (TypeError, ValueError) as err:
        # the code of an older commit knows a renamed keyword by its old name (a TypeError, or joblib's ValueError
        # "... was called." when the name reaches a cached function through **options): try each old name
        olds = [old for old, new in renames.items() if new in kwargs and new in str(err)]
        if not olds:
            raise
        for old in olds:
            try:
                value = func(**{(old if k == renames[old] else k): v for k, v in kwargs.items()})
                break
            except (TypeError, ValueError):
                if old == olds[-1]:
                    raise
    out[name] = encode(value)
print(json.dumps(out, sort_keys=True))
"""


#: Fields that measure the machine (training and wall times), not results: left out when values are compared.
TIMING_FIELDS = ("seconds", "fit_seconds", "wall_seconds", "seconds_per_test")


def _without_timings(data):
    """Encoded data with the :data:`TIMING_FIELDS` of dicts and dataclasses removed."""
    if isinstance(data, list):
        return [_without_timings(v) for v in data]
    if isinstance(data, dict):
        return {k: _without_timings(v) for k, v in data.items() if k not in TIMING_FIELDS}
    return data


def _values_at(tree: Path, specs: dict, env: dict) -> dict:
    """``{name: encoded value}`` of ``specs`` (name -> (function, encoded kwargs)) computed with the code in ``tree``."""
    import subprocess
    import sys

    run_env = {**env, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _EVAL],
        input=json.dumps([specs, PARAMETER_RENAMES]),
        capture_output=True,
        text=True,
        cwd=tree,
        env=run_env,
    )
    if out.returncode:
        raise RuntimeError(
            f"computing the check parts with the code of {tree} failed: "
            f"{out.stderr.strip().splitlines()[-1:] or out.stdout[-500:]}"
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


_HEX = re.compile(r"\b(?=[0-9]*[a-f])[0-9a-f]{7,40}\b")  # with a letter: 1000000 is a number
_WHEN = re.compile(r"\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?)?")
_DURATION = re.compile(r"\d+(\.\d+)? ?(s/it|it/s|s\b|seconds?\b|min\b|minutes?\b|h\b|hours?\b)")


#: A timing field of :data:`TIMING_FIELDS` shown in a repr or JSON: ``'wall_seconds': 0.2``.
_TIMING_FIELD = re.compile(r"""(['"](?:""" + "|".join(TIMING_FIELDS) + r""")['"]:\s*)[-+0-9.eE]+""")


def _masked(text: str) -> str:
    """Text output with what names the run rather than its results masked: commits, dates, durations (with a
    unit, or as the value of a field of :data:`TIMING_FIELDS`)."""
    text = _TIMING_FIELD.sub(r"\1<time>", text)
    return _DURATION.sub("<time>", _WHEN.sub("<date>", _HEX.sub("<commit>", text)))


def _text_outputs(executed: Path) -> list:
    """The text a chapter's code cells show (stdout, and the text, HTML and Markdown of its results and displays),
    masked by :func:`_masked`; images and stderr (progress bars, warnings) are left out."""
    nb = json.loads(Path(executed).read_text())
    shown = []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                texts = [out.get("text", "")] if out.get("name") == "stdout" else []
            else:
                data = out.get("data", {})
                texts = [data[k] for k in ("text/plain", "text/html", "text/markdown") if k in data]
            shown += [(i, _masked("".join(t) if isinstance(t, list) else t)) for t in texts]
    return shown


def _chapter_run_at(tree: Path, chapter: str, scale: str, parameters: dict, work: Path, env: dict) -> dict:
    """Execute ``chapter`` at ``scale`` with the code in ``tree`` (fresh records, cache and book folders under
    ``work``): ``{"rows", "counts", "outputs"}`` with the timing fields of the rows removed."""
    import subprocess
    import sys

    records, book = work / "records", work / "book"
    run_env = {**env, "PYTHONPATH": str(tree), RECORDS_ENV: str(records), "CREDALBOOK_CACHE_DIR": str(work / "cache")}
    cmd = [
        sys.executable,
        "-m",
        "credalbook.book",
        "run",
        "--scale",
        scale,
        "-c",
        chapter,
        "--book-root",
        str(book),
        "--force",
        "--no-progress",
    ]
    for k, v in parameters.items():
        cmd += ["-p", k, json.dumps(v)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tree, env=run_env)
    if out.returncode:
        raise RuntimeError(
            f"executing {chapter} at {scale} with the code of {tree} failed: "
            f"{(out.stderr.strip().splitlines() or [out.stdout[-500:]])[-1]}"
        )
    rec = json.loads((records / chapter / scale / "chapter.json").read_text())
    return {
        "rows": _without_timings(rec["rows"]),
        "counts": rec["counts"],
        "outputs": _text_outputs(book / "book" / "executed" / f"{chapter}.ipynb"),
        "modules": rec["manifest"]["modules"],
    }


def _first_difference(before: dict, after: dict) -> str:
    for key in ("counts", "rows"):
        if before[key] != after[key]:
            return f"its {key}"
    a, b = before["outputs"], after["outputs"]
    for (cell, x), (_, y) in zip(a, b):
        if x != y:
            return f"the output of code cell {cell}"
    return "the number of its outputs"


#: The chapter's own reason for being stale that :func:`revalidate` can check: both runs execute their own notebook.
_CHAPTER_CODE = "the chapter's code cells changed"


def _why_not(st: RecordState) -> str | None:
    """Why a stale record cannot be carried over (None when it can: only code changed, from a clean tree).

    Code means a package module that changed or is gone (moved elsewhere: the check computes with the code of
    both commits, wherever it lives) and, for a chapter record, the chapter's code cells."""

    def code(reason: str) -> bool:
        return (reason.startswith("credalbook/") and reason.endswith((" changed", " is gone"))) or (
            st.name == "chapter" and reason == _CHAPTER_CODE
        )

    if not all(code(r) for r in st.reasons):
        return "stale for other reasons than changed code: " + "; ".join(st.reasons)
    if not st.manifest.get("clean") or not st.manifest.get("commit"):
        return "recorded from a tree with uncommitted changes: its code cannot be checked out"
    return None


@contextlib.contextmanager
def _checkout(commit: str):
    """A scratch folder whose ``tree`` is a detached ``git worktree`` of ``commit``; both removed afterwards."""
    import shutil
    import subprocess
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="credalbook-revalidate-"))
    try:
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-f", str(tmp / "tree"), commit],
            cwd=repo_root(),
            capture_output=True,
            check=True,
        )
        yield tmp
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(tmp / "tree")], cwd=repo_root(), capture_output=True
        )
        shutil.rmtree(tmp, ignore_errors=True)


def _carry_over(path: Path, commit: str, check: str, modules: dict, *, chapter_code: str | None = None) -> None:
    """Give the record at ``path`` the fingerprints ``modules`` (and a chapter record the fingerprint
    ``chapter_code`` of its notebook's code cells) and a ``revalidated`` entry (from ``commit`` to now)."""
    data = json.loads(path.read_text())
    head = git_state()
    entry = {
        "from_commit": commit,
        "to_commit": head["commit"],
        "clean": head["clean"],
        "date": utc_now(),
        "check": check,
        "modules_before": data["manifest"]["modules"],
    }
    if chapter_code is not None and chapter_code != data["manifest"].get("chapter_code"):
        entry["chapter_code_before"] = data["manifest"].get("chapter_code")
        data["manifest"]["chapter_code"] = chapter_code
    data["manifest"].setdefault("revalidated", []).append(entry)
    data["manifest"]["modules"] = modules
    _write_json(path, data)


def _revalidate_chapter(chapter: str, nb: Path, scale: str, check_scale: str, params: dict, root, dry_run: bool):
    """The chapter record's part of :func:`revalidate`: ``[("chapter", outcome)]`` or [] when it is not stale."""
    from credalbook.papers.presets import preset, PRESETS

    cfg = dict(preset(chapter, scale)) if chapter in PRESETS else {}
    st = chapter_state(chapter, scale, notebook=nb, preset=cfg, root=root)
    if st.state != "stale":
        return []
    if (why := _why_not(st)) is not None:
        return [("chapter", why)]
    commit = st.manifest["commit"]
    run_params = {k: v for k, v in params.items() if k != "scale"}
    env = dict(os.environ, OMP_NUM_THREADS="1")
    with _checkout(commit) as tmp:
        before = _chapter_run_at(tmp / "tree", chapter, check_scale, run_params, tmp / "before", env)
        after = _chapter_run_at(repo_root(), chapter, check_scale, run_params, tmp / "after", env)
    modules = after.pop("modules")  # the package modules the chapter's kernel uses now
    before.pop("modules")
    if before != after:
        return [("chapter", f"the code change moves {_first_difference(before, after)} at {check_scale}: rerun")]
    if not dry_run:
        _carry_over(
            scale_dir(chapter, scale, root=root) / "chapter.json",
            commit,
            f"the chapter at {check_scale}: rows, verdict counts and text outputs equal (commits, dates and "
            "durations masked)",
            modules,
            chapter_code=chapter_code_hash(nb),
        )
    return [
        (
            "chapter",
            f"revalidated: the chapter at {check_scale} shows the same rows and outputs at {commit[:7]} "
            f"and now ({len(after['rows'])} rows, {len(after['outputs'])} outputs)",
        )
    ]


def _closest(part, checks, k: int) -> list:
    """At most ``k`` parts of ``checks`` with ``part``'s function that share the most keyword values with it (the
    same topology, scenario, role...; seeds aside), in plan order: the check exercises the record's own
    configuration, and only it. Parts that pass a keyword ``part`` does not (an option added after the record)
    are left out while any other remains."""
    mine = json.loads(json.dumps(encode(part.kwargs)))
    same = [p for p in checks if p.function == part.function]
    # a check part must not pass a keyword the record's call did not: the record's code may not know it
    same = [p for p in same if set(p.kwargs) <= set(part.kwargs)] or same
    shared = {
        p.name: sum(
            json.loads(json.dumps(encode(v))) == mine.get(key)
            for key, v in p.kwargs.items()
            if key not in ("seed", "seeds")
        )  # a replicate's seed says nothing of its configuration
        for p in same
    }
    best = max(shared.values(), default=0)
    return [p for p in same if shared[p.name] == best][:k]  # plan order among equals


def revalidate(
    chapter: str,
    *,
    scale: str = "paper",
    check_scale: str = "tiny",
    parameters: dict | None = None,
    max_checks: int = 4,
    root=None,
    dry_run: bool = False,
) -> list:
    """Carry records that went stale only because package code changed over to the code now, when that change
    provably leaves their values alone.

    For every stale part of ``chapter`` at ``scale`` whose reasons are all changed or moved modules (no changed
    parameter; a keyword of ``credalbook.book.records.PARAMETER_RENAMES`` under its new name is not a change, and the code of ``c`` is
    called with its old name), recorded from a clean tree at commit ``c``: the parts of the same function at
    ``check_scale`` (at most ``max_checks`` of them, from the chapter's plan at that scale, those sharing the
    most keyword values with the part: a LeNet member is checked with LeNet members only) are computed with the
    code of ``c`` (a ``git worktree`` of it) and with the code now, in fresh interpreters on this machine. If
    every value is the same bit for bit (timings, :data:`TIMING_FIELDS`, aside), the record's fingerprints are updated to the code now and its manifest
    gains a ``revalidated`` entry (from and to which commit, which check parts, when); its value is not touched.
    Otherwise the record stays stale (rerun it). The check runs the small setting: a change that only acts at
    the paper's sizes would pass it, which the manifest entry makes visible.

    Then the chapter record at ``scale``, when it is stale only because package code changed: the chapter is
    executed at ``check_scale`` with the code of its commit and with the code now (fresh records, caches and
    book folders); when both show the same rows, verdict counts and text outputs (stdout, and the text, HTML and
    Markdown of the cells' results, with commits, dates and durations masked), its module fingerprints become
    those of the kernel now and its manifest gains a ``revalidated`` entry (outcome ``("chapter", ...)``). The
    rows and outputs show rounded numbers: a change that moves a value below the shown digits passes, which the
    manifest entry's wording makes visible; the parts' own check is bit for bit.

    Returns a list of ``(part name, outcome)``; with ``dry_run`` nothing is written.
    """
    from credalbook.book.chapters import chapter_paths
    from credalbook.papers.plans import plan_parts
    from credalbook.papers.presets import preset

    (nb,) = chapter_paths([chapter])
    params = {**_notebook_defaults(nb), **(parameters or {})}
    plan = plan_parts(chapter, preset(chapter, scale), **{**params, "scale": scale})
    checks = plan_parts(chapter, preset(chapter, check_scale), **{**params, "scale": check_scale})
    outcomes, groups = [], {}
    for part in plan:
        st = part_state(chapter, scale, part, root=root)
        if st.state != "stale":
            continue
        if (why := _why_not(st)) is not None:
            outcomes.append((part.name, why))
            continue
        same = tuple(p.name for p in _closest(part, checks, max_checks))
        groups.setdefault((st.manifest["commit"], part.function, same), []).append(part)
    repo = repo_root()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    by_name = {p.name: p for p in checks}
    for (commit, function, names), parts in groups.items():
        same = [by_name[n] for n in names]
        if not same:
            outcomes += [(p.name, f"no part of {function} at {check_scale} to check with") for p in parts]
            continue
        specs = {p.name: (p.function, encode(p.kwargs)) for p in same}
        with _checkout(commit) as tmp:
            # fresh caches: a cached result of one code version must not stand in for the other's
            before = _values_at(
                tmp / "tree",
                specs,
                {**env, RECORDS_ENV: str(tmp / "records"), "CREDALBOOK_CACHE_DIR": str(tmp / "cache-before")},
            )
            after = _values_at(
                repo,
                specs,
                {**env, RECORDS_ENV: str(tmp / "records"), "CREDALBOOK_CACHE_DIR": str(tmp / "cache-after")},
            )
        differ = sorted(n for n in specs if _without_timings(before.get(n)) != _without_timings(after.get(n)))
        if differ:
            outcomes += [(p.name, f"the code change moves the {check_scale} values of {differ}: rerun") for p in parts]
            continue
        for p in parts:
            outcomes.append(
                (
                    p.name,
                    f"revalidated: {len(specs)} {check_scale} parts of {function} equal bit for bit "
                    f"at {commit[:7]} and now",
                )
            )
            if not dry_run:
                _carry_over(
                    _part_path(chapter, scale, p.name, root),
                    commit,
                    f"{check_scale} parts {sorted(specs)} of {function}: values equal bit for bit",
                    module_hashes(import_closure(p.func.__module__)),
                )
    return outcomes + _revalidate_chapter(chapter, nb, scale, check_scale, params, root, dry_run)
