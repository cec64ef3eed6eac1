"""On-disk caching of expensive results (trained ensembles, logits, GP fits, MC sweeps).

Built on :class:`joblib.Memory`: a cached call is keyed by the function (its module,
name and source code) and a hash of its arguments, and stored under a directory named
after the package version, so that

- repeated calls with equal arguments load the stored result instead of recomputing,
- editing the cached function's own code invalidates its results (joblib checks it),
- a new ``credalbook.__version__`` starts from an empty cache.

joblib does **not** notice changes in the helpers a cached function calls; bump the package
version or call :func:`clear_cache` after changing them.

What to cache: functions that take plain configurations (numbers, strings, tuples, dicts,
dataclasses, numpy arrays) and return numpy arrays, dataclasses of arrays or torch
``state_dict`` s. Do not pass ``torch.nn.Module`` objects as arguments (their pickled
bytes are a poor, slow key; :func:`cached` refuses them): pass the configuration that
builds the module instead, and rebuild the module from a cached state dict.

Where: ``$CREDALBOOK_CACHE_DIR`` if set; else ``<repo>/.cache/credalbook`` when the
package is used from a source checkout (the repository root holds ``_config.yml`` and
``credalbook/``); else ``~/.cache/credalbook``. See :func:`cache_dir`.
"""

from __future__ import annotations

import functools
import inspect
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import joblib

from credalbook._paths import repo_root

__all__ = [
    "cache_dir",
    "memory",
    "cached",
    "checkpoint_path",
    "as_checkpoint",
    "save_checkpoint",
    "load_checkpoint",
    "rng_states",
    "restore_rng_states",
    "clear_cache",
]

ENV_VAR = "CREDALBOOK_CACHE_DIR"


def cache_dir() -> Path:
    """Root directory of the cache (not created by this function).

    Returns
    -------
    pathlib.Path
        ``$CREDALBOOK_CACHE_DIR`` (``~`` expanded) when set and non-empty; otherwise
        ``<repo root>/.cache/credalbook`` when the package directory's parent contains
        ``_config.yml`` and ``credalbook/`` (a source checkout of the book); otherwise
        ``~/.cache/credalbook``.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = "/tmp/credalbook-example"
    >>> str(cache_dir())
    '/tmp/credalbook-example'
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    root = repo_root()
    if root is not None:
        return root / ".cache" / "credalbook"
    return Path.home() / ".cache" / "credalbook"


def _version_dir(version: str | None) -> Path:
    if version is None:
        from credalbook import __version__ as version  # lazy: the package may be mid-import
    version = str(version)
    if not version or any(sep in version for sep in ("/", "\\")) or version in {".", ".."}:
        raise ValueError(f"version must be a non-empty string without path separators; got {version!r}")
    return cache_dir() / f"v{version}"


def memory(*, version: str | None = None) -> joblib.Memory:
    """A :class:`joblib.Memory` rooted at ``cache_dir() / f"v{version}"``.

    Parameters
    ----------
    version : str or None, default=None
        Cache namespace; ``None`` uses ``credalbook.__version__``.

    Returns
    -------
    joblib.Memory
        With ``verbose=0``. joblib creates the directory when the object is made.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> mem = memory(version="0.0-example")  # joblib creates the directory
    >>> Path(mem.location).name
    'v0.0-example'
    >>> clear_cache()
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    return joblib.Memory(location=str(_version_dir(version)), verbose=0)


def _torch_module_type():
    torch = sys.modules.get("torch")  # if torch was never imported, no argument is a Module
    return None if torch is None else torch.nn.Module


def _reject_modules(func: Callable, args: tuple, kwargs: dict) -> None:
    module_type = _torch_module_type()
    if module_type is None:
        return
    try:
        bound = inspect.signature(func).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        bound = {f"argument {i}": a for i, a in enumerate(args)} | dict(kwargs)
    for name, value in bound.items():
        items = [value]
        if isinstance(value, (list, tuple, set, frozenset)):
            items += list(value)
        elif isinstance(value, dict):  # also catches **kwargs
            items += list(value.values())
        if any(isinstance(v, module_type) for v in items):
            raise ValueError(
                f"{name} is a torch.nn.Module, which cannot be a cache key of "
                f"{getattr(func, '__qualname__', func)}; pass the configuration that builds "
                "the module (and cache its state_dict) instead"
            )


def cached(func: Callable | None = None, *, version: str | None = None, ignore: list[str] | None = None) -> Callable:
    """Cache a function's results on disk, keyed by its code, arguments and the version.

    Usable as ``@cached``, ``@cached(ignore=["progress"])`` or ``cached(f)(*args)``. The
    :class:`joblib.Memory` is looked up at every call, so changes of
    ``$CREDALBOOK_CACHE_DIR`` or ``credalbook.__version__`` take effect immediately.

    Parameters
    ----------
    func : callable, optional
        Function to wrap. It must be defined in a file (joblib reads its source) and return
        picklable results: numpy arrays, dataclasses, torch state dicts.
    version : str or None, default=None
        Fixed cache namespace; ``None`` follows ``credalbook.__version__``.
    ignore : list of str, optional
        Argument names left out of the key (e.g. ``"progress"``, ``"device"``).

    Returns
    -------
    callable
        The wrapped function; ``wrapper.clear()`` drops this function's stored results in
        the current namespace.

    Raises
    ------
    ValueError
        At call time, if an argument is (or directly contains) a ``torch.nn.Module``.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> import numpy as np
    >>> slow_linspace = cached(np.linspace)
    >>> a = slow_linspace(0.0, 1.0, num=5)   # computed and stored
    >>> b = slow_linspace(0.0, 1.0, num=5)   # loaded from disk
    >>> bool(np.array_equal(a, b))
    True
    >>> clear_cache()
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    if func is None:
        return functools.partial(cached, version=version, ignore=ignore)
    if not callable(func):
        raise ValueError(f"func must be callable; got {func!r}")
    if ignore is not None:
        if isinstance(ignore, str) or not all(isinstance(n, str) for n in ignore):
            raise ValueError(f"ignore must be a list of argument names; got {ignore!r}")
        ignore = list(ignore)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _reject_modules(func, args, kwargs)
        return memory(version=version).cache(func, ignore=ignore)(*args, **kwargs)

    def clear() -> None:
        memory(version=version).cache(func, ignore=ignore).clear(warn=False)

    wrapper.clear = clear
    return wrapper


def checkpoint_path(name: str, key: dict, *, version: str | None = None) -> Path:
    """Where a long training run keyed by `key` keeps its resumable checkpoint (see ``fit(checkpoint=)``).

    ``cache_dir() / f"v{version}" / "checkpoints" / f"{name}-{joblib.hash(key)}.pt"``: the same
    arguments give the same file, so a cached function that trains a network (e.g.
    :func:`credalbook.papers.mimori.train_mix_network`) resumes an interrupted training when it is called again.
    The folder is not created here; :func:`clear_cache` removes it.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = "/tmp/credalbook-example"
    >>> a = checkpoint_path("net", {"seed": 0}, version="0.0"); b = checkpoint_path("net", {"seed": 1}, version="0.0")
    >>> a.parent.as_posix(), a.name.startswith("net-"), a != b
    ('/tmp/credalbook-example/v0.0/checkpoints', True, True)
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    if not isinstance(name, str) or not name or any(sep in name for sep in ("/", "\\")):
        raise ValueError(f"name must be a non-empty string without path separators; got {name!r}")
    if not isinstance(key, dict):
        raise ValueError(f"key must be a dict of the run's arguments; got {type(key).__name__}")
    return _version_dir(version) / "checkpoints" / f"{name}-{joblib.hash(key)}.pt"


def as_checkpoint(checkpoint) -> Path | None:
    """`checkpoint` as a :class:`~pathlib.Path` (None stays None); raises ValueError for anything else."""
    if checkpoint is None:
        return None
    if not isinstance(checkpoint, (str, os.PathLike)) or not str(checkpoint):
        raise ValueError(f"checkpoint must be a file path or None; got {checkpoint!r}")
    return Path(checkpoint)


def save_checkpoint(path: Path, state: dict) -> None:
    """Write a training state (tensors, numbers, lists, dicts) to `path` atomically.

    A temporary file in the same folder is renamed over `path`, so a run killed while writing leaves
    the previous checkpoint intact. Used per epoch by :func:`credalbook.nn.fit` and
    :func:`credalbook.gp.fit_gp_classifier`; `state` must hold the run's ``settings`` for
    :func:`load_checkpoint` to check.
    """
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: Path, settings: dict) -> dict | None:
    """The state saved by :func:`save_checkpoint` at `path` (tensors on the CPU), or None when there is none.

    Raises ValueError naming the differing keys when the saved ``settings`` are not `settings`: a
    checkpoint resumes only the run that wrote it.
    """
    import torch

    if not path.exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=True)
    saved = state.get("settings", {})
    if saved != settings:
        diff = sorted(k for k in set(settings) | set(saved) if saved.get(k) != settings.get(k))
        raise ValueError(
            f"checkpoint {str(path)!r} was written by a run with other settings ({', '.join(diff)} "
            "differ); delete it or pass another path"
        )
    return state


def rng_states(shuffle, cuda_devices) -> dict:
    """The random states a resumable loop saves: its shuffling `shuffle` (a torch.Generator), torch's
    global CPU generator and, when `cuda_devices` names one, that device's (for :func:`save_checkpoint`)."""
    import torch

    return dict(
        shuffle_rng=shuffle.get_state(),
        torch_rng=torch.get_rng_state(),
        cuda_rng=torch.cuda.get_rng_state(cuda_devices[0]) if cuda_devices else None,
    )


def restore_rng_states(state: dict, shuffle, cuda_devices) -> None:
    """Put back the states :func:`rng_states` saved in a checkpoint `state`."""
    import torch

    shuffle.set_state(state["shuffle_rng"])
    torch.set_rng_state(state["torch_rng"])
    if cuda_devices and state.get("cuda_rng") is not None:
        torch.cuda.set_rng_state(state["cuda_rng"], cuda_devices[0])


def clear_cache(*, version: str | None = None) -> None:
    """Delete cached results.

    Parameters
    ----------
    version : str or None, default=None
        Clear only this version's namespace; ``None`` clears every ``v*`` namespace under
        :func:`cache_dir`. Only joblib's stores and the training checkpoints of
        :func:`checkpoint_path` are removed, nothing else in that directory.

    Examples
    --------
    >>> import os, tempfile
    >>> old = os.environ.get("CREDALBOOK_CACHE_DIR")
    >>> os.environ["CREDALBOOK_CACHE_DIR"] = tempfile.mkdtemp()
    >>> clear_cache()  # nothing stored yet: a no-op
    >>> _ = os.environ.pop("CREDALBOOK_CACHE_DIR") if old is None else os.environ.update(
    ...     CREDALBOOK_CACHE_DIR=old)
    """
    if version is not None:
        targets = [_version_dir(version)]
    else:
        root = cache_dir()
        targets = sorted(p for p in root.glob("v*") if p.is_dir()) if root.is_dir() else []
    for path in targets:
        if not path.is_dir():
            continue
        if {entry.name for entry in path.iterdir()} <= {"joblib", ".gitignore", "checkpoints"}:
            shutil.rmtree(path)  # only joblib's store (and the .gitignore it writes) lives here
        else:
            shutil.rmtree(path / "checkpoints", ignore_errors=True)
            joblib.Memory(location=str(path), verbose=0).clear(warn=False)
