"""Predictions and labels stored in files: NumPy (``.npy``, ``.npz``), CSV and torch (``.pt``, ``.pth``).

:func:`load_array` is the door through which the command line (``credalbook evaluate``) and users
read a model's stored outputs. It returns a NumPy array and turns every way a file can be wrong
into one :class:`ValueError` whose message names the file and the problem (missing file, unknown
extension, text in a CSV, several arrays in an ``.npz`` without ``key``, a pickle that is refused,
a wrong number of dimensions); what the array must hold (probabilities on the simplex, labels in
``[0, K)``) is checked afterwards by the functions that use it.

Nothing here unpickles arbitrary objects: ``.npy``/``.npz`` are read with ``allow_pickle=False``
and torch files with ``torch.load(weights_only=True)``, so a file from an untrusted source cannot
run code.
"""

from __future__ import annotations

import os
import pickle
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np

from credalbook._validation import lazy_torch as torch

__all__ = ["load_array", "PREDICTION_FILE_SUFFIXES"]

#: File name endings :func:`load_array` reads (case-insensitive).
PREDICTION_FILE_SUFFIXES = (".npy", ".npz", ".csv", ".pt", ".pth")

_CSV_DELIMITERS = (",", ";", "\t")


def _fail(path, name: str, problem: str) -> ValueError:
    return ValueError(f"{name} file '{path}': {problem}")


def _load_npy(path: Path, name: str, key) -> np.ndarray:
    if key is not None:
        raise _fail(path, name, f"key={key!r} applies to .npz and .pt files only")
    with open(path, "rb") as fh:
        magic = fh.read(6)
    if magic != b"\x93NUMPY":  # np.load would take anything else for a pickle
        raise _fail(path, name, "is not a valid .npy file (no NumPy header; was it written by numpy.save?)")
    try:  # memory-mapped, read-only: an 800 MB file costs no copy, its pages are read as they are used
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError:  # object arrays cannot be mapped: the plain load below says why
        pass
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as err:  # object arrays, or a corrupt header
        if "allow_pickle" in str(err):
            raise _fail(
                path,
                name,
                "holds Python objects (a pickled object array); refused for safety - "
                "save a numeric array with numpy.save",
            ) from None
        raise _fail(path, name, f"is not a valid .npy file ({err})") from None
    except (OSError, EOFError) as err:
        raise _fail(path, name, f"is not a valid .npy file ({err})") from None


def _load_npz(path: Path, name: str, key) -> np.ndarray:
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
        raise _fail(path, name, f"is not a valid .npz file ({err})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):  # np.load of a .npy renamed to .npz
        return archive
    with archive:
        keys = list(archive.files)
        if key is None:
            if len(keys) != 1:
                what = "no arrays" if not keys else f"{len(keys)} arrays ({', '.join(keys)})"
                raise _fail(path, name, f"holds {what}; choose one with --key (key=...)")
            key = keys[0]
        elif key not in keys:
            raise _fail(path, name, f"has no array {key!r}; it holds {', '.join(keys) or 'none'}")
        try:
            return archive[key]
        except ValueError as err:
            if "allow_pickle" in str(err):
                raise _fail(path, name, f"array {key!r} holds Python objects (pickled); refused for safety") from None
            raise _fail(path, name, f"array {key!r} could not be read ({err})") from None


def _csv_delimiter(line: str) -> str | None:
    counts = {d: line.count(d) for d in _CSV_DELIMITERS}
    best = max(counts, key=counts.get)
    return best if counts[best] else None  # None: one column, or whitespace-separated


def _numeric(fields: list[str]) -> bool:
    try:
        [float(f) for f in fields]
    except ValueError:
        return False
    return True


def _first_line(path: Path) -> tuple[int, str | None]:
    """Index and text of the first non-blank line (None if there is none)."""
    with open(path, encoding="utf-8-sig") as fh:
        for i, line in enumerate(fh):
            if line.strip():
                return i, line.rstrip("\r\n")
    return 0, None


def _csv_problem(path: Path, name: str, skip: int, split) -> ValueError | None:
    """The first ragged or non-numeric row after the first ``skip`` lines (slow; only after loadtxt failed)."""
    with open(path, encoding="utf-8-sig") as fh:
        rows = [(i, ln.rstrip("\r\n")) for i, ln in enumerate(fh, start=1) if i > skip and ln.strip()]
    widths = {len(split(ln)) for _, ln in rows}
    if len(widths) > 1:
        return _fail(path, name, f"rows have different numbers of columns ({sorted(widths)})")
    for i, line in rows:
        if not _numeric(split(line)):
            return _fail(path, name, f"is not numeric: line {i} reads {line[:60]!r}")
    return None


def _load_csv(path: Path, name: str, key) -> np.ndarray:
    if key is not None:
        raise _fail(path, name, f"key={key!r} applies to .npz and .pt files only")
    try:
        index, first = _first_line(path)
    except UnicodeDecodeError:
        raise _fail(path, name, "is not a text (UTF-8) CSV file") from None
    if first is None:
        raise _fail(path, name, "is empty")
    delimiter = _csv_delimiter(first)

    def split(line):
        return [f.strip() for f in (line.split(delimiter) if delimiter else line.split())]

    skip = index if _numeric(split(first)) else index + 1  # a first line that is not numbers is a header
    try:
        # blank lines are skipped by loadtxt; a file of a header alone gives an empty array
        with warnings.catch_warnings():  # "input contained no data": reported below
            warnings.simplefilter("ignore", UserWarning)
            arr = np.loadtxt(path, delimiter=delimiter, skiprows=skip, dtype=np.float64, ndmin=2, encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise _fail(path, name, "is not a text (UTF-8) CSV file") from None
    except ValueError:
        problem = _csv_problem(path, name, skip, split)
        if problem is None:  # pragma: no cover - loadtxt failed for a reason not seen above
            raise
        raise problem from None
    if arr.size == 0:
        raise _fail(path, name, "holds a header line but no rows of numbers")
    # ndmin=2 gives (N, 1) for one column; its values are returned as (N,)
    return arr[:, 0] if arr.shape[1] == 1 else arr


def _load_torch(path: Path, name: str, key) -> np.ndarray:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    # torch.save writes a zip archive (b"PK"); the legacy format is a pickle (protocol >= 2: b"\x80")
    if magic != b"PK" and magic[:1] != b"\x80":
        raise _fail(path, name, "is not a valid torch file (not written by torch.save)")
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        found = re.search(r"Unsupported global: GLOBAL ([\w.]+)", str(err))
        what = f"a {found.group(1)}" if found else "Python objects"
        raise _fail(
            path,
            name,
            f"holds {what}, which torch.load(weights_only=True) refuses to unpickle for "
            "safety; save a tensor or a dict of tensors with torch.save",
        ) from None
    except (RuntimeError, OSError, EOFError, zipfile.BadZipFile, ValueError) as err:
        raise _fail(path, name, f"is not a valid torch file ({str(err).splitlines()[0][:120]})") from None
    if isinstance(obj, dict):
        tensors = {str(k): v for k, v in obj.items() if isinstance(v, (torch.Tensor, np.ndarray))}
        if key is None:
            if len(tensors) != 1:
                what = "no tensors" if not tensors else f"{len(tensors)} tensors ({', '.join(tensors)})"
                raise _fail(path, name, f"holds a dict with {what}; choose one with --key (key=...)")
            obj = next(iter(tensors.values()))
        elif key in tensors:
            obj = tensors[key]
        else:
            raise _fail(path, name, f"has no tensor {key!r}; it holds {', '.join(tensors) or 'none'}")
    elif key is not None:
        raise _fail(path, name, f"holds a single {type(obj).__name__}, not a dict; key={key!r} does not apply")
    if isinstance(obj, (list, tuple)) and len(obj) == 1 and isinstance(obj[0], torch.Tensor):
        obj = obj[0]
    if not isinstance(obj, (torch.Tensor, np.ndarray)):
        raise _fail(path, name, f"holds a {type(obj).__name__}, not a tensor")
    if isinstance(obj, torch.Tensor):
        t = obj.detach().cpu()
        if t.dtype == torch.bfloat16:  # NumPy has no bfloat16
            t = t.float()
        obj = t.numpy()
    return obj


_LOADERS = {".npy": _load_npy, ".npz": _load_npz, ".csv": _load_csv, ".pt": _load_torch, ".pth": _load_torch}


def load_array(path, *, key: str | None = None, name: str = "probs", ndim=None) -> np.ndarray:
    """Read one numeric array from a ``.npy``, ``.npz``, ``.csv``, ``.pt`` or ``.pth`` file.

    Parameters
    ----------
    path : str or os.PathLike
        The file; its (case-insensitive) ending picks the reader:

        ``.npy``
            :func:`numpy.load` with ``allow_pickle=False`` and ``mmap_mode="r"``: a read-only
            array backed by the file, read as it is used (no copy of a large file in memory).
        ``.npz``
            The archive's single array, or the one named ``key``.
        ``.csv``
            Numbers separated by commas (or semicolons or tabs, whichever the first line holds
            most of), one row per instance; a first line that is not all numbers is a header and
            skipped. A single column (labels) is returned with shape (N,).
        ``.pt``, ``.pth``
            :func:`torch.load` with ``weights_only=True`` (no arbitrary unpickling) on the CPU: a
            tensor, or a dict holding one tensor (or the one named ``key``). bfloat16 becomes float32.
    key : str, optional
        The array in an ``.npz`` archive or a dict saved with :func:`torch.save`.
    name : str, default "probs"
        What the file holds, used in error messages (``"probs file 'p.csv': ..."``).
    ndim : int or tuple of int, optional
        Accepted numbers of dimensions. With ``ndim=1`` an (N, 1) column is returned as (N,).

    Returns
    -------
    ndarray
        The stored dtype (integers and floats as saved; CSV values as float64).

    Raises
    ------
    ValueError
        Naming the file and the problem: it does not exist; an unknown ending; a CSV that is not
        numeric or has ragged rows; several arrays without ``key``, or an unknown ``key``; Python
        objects (pickles) that are refused; a non-numeric dtype; an empty array; a wrong ``ndim``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "y.csv").write_text("label\\n0\\n2\\n1\\n")
    >>> load_array(folder / "y.csv", name="labels", ndim=1)
    array([0., 2., 1.])
    >>> np.savez(folder / "out.npz", probs=np.eye(3), labels=np.arange(3))
    >>> load_array(folder / "out.npz", key="labels")
    array([0, 1, 2])
    >>> load_array(folder / "out.npz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: probs file '...out.npz': holds 2 arrays (probs, labels); choose one with --key (key=...)
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}")
    if key is not None and not isinstance(key, str):
        raise TypeError(f"key must be a str or None; got {type(key).__name__}")
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _LOADERS:
        raise _fail(
            path,
            name,
            f"unknown file type {path.suffix or '(no extension)'!r}; use one of {', '.join(PREDICTION_FILE_SUFFIXES)}",
        )
    if not path.exists():
        raise _fail(path, name, "does not exist")
    if path.is_dir():
        raise _fail(path, name, "is a directory, not a file")
    arr = np.asarray(_LOADERS[suffix](path, name, key))
    if arr.dtype.kind not in "biuf":
        raise _fail(path, name, f"must hold numbers; got dtype {arr.dtype}")
    if arr.size == 0:
        raise _fail(path, name, f"holds an empty array (shape {arr.shape})")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if 1 in allowed and arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise _fail(path, name, f"must hold a {want}-dimensional array; got shape {arr.shape}")
    return arr
