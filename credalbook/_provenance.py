"""Where a result came from: the code that computed it, the machine, the versions, the commit.

The records of the paper-scale edition (``credalbook.book.records``) and the chapters' comparison
files carry these facts, so that a number in the book can be traced to a commit, a machine and a
seed, and so that a record whose code has changed since can be told from one that has not.

Code is fingerprinted per module by :func:`code_hash`: the SHA-256 of the module's syntax tree with
docstrings removed (``ast.dump``), so an edit of a comment, a docstring or the layout does not
change it, and any edit of what runs does. :func:`module_hashes` fingerprints the package modules
a process has imported (its ``sys.modules``): what a computation *could* have used, a conservative
superset of what it did use.

The parts of a chapter that the process ran are noted here (:func:`note_part`), so that the
chapter's comparison file can list them (:func:`parts_used`).
"""

from __future__ import annotations

import ast
import datetime
import functools
import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

__all__ = [
    "code_hash",
    "module_hashes",
    "import_closure",
    "source_hash",
    "machine",
    "versions",
    "git_state",
    "utc_now",
    "note_part",
    "parts_used",
    "UNHASHED_PACKAGES",
]

_PACKAGE = Path(__file__).resolve().parent
#: Subpackages whose code does not compute results (executing and publishing them), left out of the
#: fingerprints: changing how a record is written or shown does not make its numbers stale.
UNHASHED_PACKAGES = ("credalbook.book", "credalbook._provenance", "credalbook._progress", "credalbook.cli")

_PARTS: dict = {}


class _StripDocstrings(ast.NodeTransformer):
    def _strip(self, node):
        self.generic_visit(node)
        body = getattr(node, "body", None)
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
        return node

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _strip


def source_hash(source: str, *, name: str = "<source>") -> str:
    """SHA-256 (hex, 16 digits) of Python source with docstrings, comments and layout left out.

    Raises ValueError when ``source`` is not valid Python.

    Examples
    --------
    >>> source_hash("def f(x):\\n    '''Doc.'''\\n    return x  # note") == source_hash("def f(x): return x")
    True
    >>> source_hash("def f(x): return x") == source_hash("def f(x): return -x")
    False
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a string; got {type(source).__name__}")
    try:
        return _tree_hash(source)
    except SyntaxError as err:
        raise ValueError(f"{name} is not valid Python: {err}") from None


@functools.lru_cache(maxsize=4096)
def _tree_hash(source: str) -> str:
    """:func:`source_hash` of valid source, memoised by the source text itself.

    Parsing and dumping a module's tree takes about 14 ms; the staleness checks of one chapter ask for
    the same few dozen modules hundreds of times (every part record lists them), so the book build and
    ``status`` spent most of their time here. Keyed by the text, an edited file is hashed afresh.
    """
    tree = _StripDocstrings().visit(ast.parse(source))
    return hashlib.sha256(ast.dump(tree, annotate_fields=False).encode()).hexdigest()[:16]


def code_hash(path) -> str:
    """:func:`source_hash` of a Python file."""
    path = Path(path)
    return source_hash(path.read_text(encoding="utf-8"), name=str(path))


def _module_file(name: str) -> Path | None:
    mod = sys.modules.get(name)
    f = getattr(mod, "__file__", None)
    return Path(f).resolve() if f else None


def module_hashes(names=None) -> dict:
    """``{"credalbook/<path>.py": hash}`` for the package modules ``names`` (default: those imported).

    Modules of :data:`UNHASHED_PACKAGES` are left out. Paths are relative to the repository root
    (``credalbook/...``), so that fingerprints from different checkouts compare.
    """
    if names is None:
        names = [n for n in list(sys.modules) if n == "credalbook" or n.startswith("credalbook.")]
    out = {}
    for n in names:
        if any(n == p or n.startswith(p + ".") for p in UNHASHED_PACKAGES):
            continue
        f = _module_file(n) or _module_path(n)
        if f is None or f.suffix != ".py" or _PACKAGE not in f.parents:
            continue
        out[f.relative_to(_PACKAGE.parent).as_posix()] = code_hash(f)
    return dict(sorted(out.items()))


def blas() -> str | None:
    """NumPy's BLAS and the kernel it dispatched, e.g. ``"openblas 0.3.31.188.0 Haswell"`` (None when unknown).

    The kernel decides the last bits of matrix products, and an iterative method can amplify them: SciPy's COBYLA
    reaches different minima under OpenBLAS's Haswell and SkylakeX kernels (``OPENBLAS_CORETYPE``), so a record
    that uses it reproduces bit for bit only under the kernel its manifest names. Read with threadpoolctl
    (a dependency of scikit-learn) from the libraries this process has loaded.
    """
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    found = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    found.sort(key=lambda i: "numpy" not in str(i.get("filepath", "")))  # NumPy's own first
    if not found:
        return None
    return " ".join(str(found[0][k]) for k in ("internal_api", "version", "architecture") if found[0].get(k))


def machine() -> dict:
    """CPU model, cores, memory (GiB), the GPU torch sees (None without one), NumPy's BLAS kernel (:func:`blas`),
    torch's threads and the load average."""
    cpu = platform.processor() or platform.machine()
    mem = None
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        mem = round(kb / 2**20, 1)
    except (OSError, StopIteration, ValueError):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    gpu = None
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        gpu = torch.cuda.get_device_name(0)
    threads = torch.get_num_threads() if torch is not None else None
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    # threads and load say how a wall time was measured (one thread, or a machine shared with other jobs)
    return {
        "cpu": cpu,
        "cores": cores,
        "memory_gib": mem,
        "gpu": gpu,
        "blas": blas(),
        "host": platform.node(),
        "torch_threads": threads,
        "load_average": load,
    }


def versions() -> dict:
    """Versions of Python, credalbook and the numerical libraries this process has imported."""
    from credalbook import __version__

    out = {"python": platform.python_version(), "credalbook": __version__}
    for name in ("numpy", "scipy", "torch", "gpytorch", "sklearn"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", None)
    return out


def git_state(root=None) -> dict:
    """``{"commit": sha or None, "clean": bool or None}`` of the checkout at ``root`` (default: this one).

    ``clean`` says whether the tracked files had no uncommitted change (the records being written
    are left out: ``results/`` does not count).

    A copy without git (the GPU machine gets the files of a checkout, not its ``.git``) takes both
    from ``$CREDALBOOK_GIT_COMMIT`` (40 hex digits) and ``$CREDALBOOK_GIT_CLEAN`` (``1``: the
    copy was made from a clean checkout of that commit), as ``scripts/device_sitting.sh`` sets them;
    without those, both are None.
    """
    root = Path(root) if root is not None else _PACKAGE.parent
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!results"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return _stated_git_state()
    return {"commit": sha, "clean": not status.strip()}


def _stated_git_state() -> dict:
    """The commit and cleanliness a copy without git was told (see :func:`git_state`)."""
    sha = os.environ.get("CREDALBOOK_GIT_COMMIT", "").strip().lower()
    if len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
        return {"commit": None, "clean": None}
    return {"commit": sha, "clean": True if os.environ.get("CREDALBOOK_GIT_CLEAN") == "1" else None}


def utc_now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def note_part(chapter: str, scale: str, name: str, *, state: str, digest: str, wall_seconds: float) -> None:
    """Note that this process used part ``name`` of ``chapter`` at ``scale`` (loaded or computed)."""
    _PARTS[(chapter, scale, name)] = {"state": state, "digest": digest, "wall_seconds": wall_seconds}


def parts_used(chapter: str, scale: str) -> dict:
    """The parts of ``chapter`` at ``scale`` this process used: name -> state, digest, wall seconds."""
    return {n: dict(v) for (c, s, n), v in sorted(_PARTS.items()) if c == chapter and s == scale}


def _module_path(name: str) -> Path | None:
    rel = Path(*name.split("."))
    root = _PACKAGE.parent
    for cand in (root / rel / "__init__.py", root / rel.with_suffix(".py")):
        if cand.is_file():
            return cand
    return None


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _defining_module(module: str, name: str, depth: int = 0) -> str:
    """The module whose code defines ``name`` imported from ``module`` (a package's re-exports followed)."""
    if _module_path(f"{module}.{name}") is not None:
        return f"{module}.{name}"
    path = _module_path(module)
    if path is None or path.name != "__init__.py" or depth > 20:
        return module
    body = _tree(path).body
    # statements of the package itself, and those under a top-level ``if`` (the ``if TYPE_CHECKING:``
    # block that names what a module ``__getattr__`` imports on first access)
    for node in body + [n for top in body if isinstance(top, ast.If) for n in top.body]:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if (a.asname or a.name) == name:
                    return _defining_module(_absolute(module, path, node), a.name, depth + 1)
    return module


def _imports_of(name: str, path: Path) -> set:
    """Package modules whose code ``name`` imports, by statements anywhere in it (function bodies too)."""
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = _absolute(name, path, node)
            if mod == "credalbook" or mod.startswith("credalbook."):
                found.update(
                    _defining_module(mod, a.name) for a in node.names if a.name != "*" and not a.name.startswith("__")
                )  # __version__ is no code
                if any(a.name == "*" for a in node.names):
                    found.add(mod)
    return {m for m in found if m == "credalbook" or m.startswith("credalbook.")}


def import_closure(module: str) -> list:
    """The package modules whose code a call into ``module`` can run, followed through import statements.

    Read from the source, not by importing: every ``import`` anywhere in a module counts (imports
    inside functions too), and a name imported from a package is followed to the module that defines
    it (a package's ``__init__`` that only re-exports names is not itself part of the closure). A
    conservative superset of the code a computation runs. Modules of :data:`UNHASHED_PACKAGES` are
    not followed.

    Examples
    --------
    >>> "credalbook.metrics.epistemic" in import_closure("credalbook.papers.eu.experiments")
    True
    """
    if not isinstance(module, str) or not (module == "credalbook" or module.startswith("credalbook.")):
        raise ValueError(f"module must name a credalbook module; got {module!r}")
    seen: set = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or any(name == p or name.startswith(p + ".") for p in UNHASHED_PACKAGES):
            continue
        path = _module_path(name)
        if path is None:
            continue
        seen.add(name)
        todo.extend(_imports_of(name, path) - seen)
    return sorted(seen)
