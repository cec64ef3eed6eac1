"""The IDX file format of MNIST-style datasets: :func:`read_idx` and :func:`write_idx`.

IDX files hold one array: two zero bytes, a type code, the number of dimensions, the dimensions as
big-endian uint32, then the data in C order. The loaders of :mod:`credalbook.data` read Fashion-MNIST,
MNIST and EMNIST with :func:`read_idx`; :func:`write_idx` writes the small files the tests make.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

import numpy as np

__all__ = ["read_idx", "write_idx"]

# IDX type code -> big-endian numpy dtype, and back.
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_IDX_CODES = {np.dtype(v).newbyteorder("="): k for k, v in _IDX_DTYPES.items()}
_GZIP_MAGIC = b"\x1f\x8b"


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read an IDX file (the MNIST format), gzip-compressed or plain.

    The header is two zero bytes, a type code (0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32,
    0x0D float32, 0x0E float64), the number of dimensions and each dimension as a big-endian
    uint32; big-endian data follow in C order. Compression is detected from the gzip magic bytes
    ``1f 8b``, not from the name. Returns a writable array in native byte order.

    Raises ``ValueError`` naming `path` if the gzip stream is corrupt, the magic number invalid,
    or the file shorter or longer than its header says.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "a-idx2-ubyte.gz"
    >>> write_idx(path, np.arange(6, dtype=np.uint8).reshape(2, 3))
    >>> read_idx(path)
    array([[0, 1, 2],
           [3, 4, 5]], dtype=uint8)
    >>> tmp.cleanup()
    """
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as err:
            raise ValueError(f"{path}: corrupt or truncated gzip stream ({err})") from err
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(
            f"{path} is not an IDX file: magic bytes {raw[:4].hex(' ') or '(empty)'}, "
            "expected 00 00 <type code in 08 09 0b 0c 0d 0e> <ndim>"
        )
    dtype, ndim = np.dtype(_IDX_DTYPES[raw[2]]), raw[3]
    if len(raw) < 4 + 4 * ndim:
        raise ValueError(
            f"{path} is truncated: {len(raw)} bytes cannot hold the {ndim} dimensions its magic number announces"
        )
    shape = tuple(int(d) for d in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    offset, count = 4 + 4 * ndim, int(np.prod(shape, dtype=np.int64))
    expected = offset + count * dtype.itemsize
    if len(raw) != expected:
        what = "truncated" if len(raw) < expected else "longer than its header says"
        raise ValueError(
            f"{path} is {what}: {len(raw)} bytes, expected {expected} for a "
            f"{dtype.newbyteorder('=').name} array of shape {shape}"
        )
    data = np.frombuffer(raw, dtype, count=count, offset=offset).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


def write_idx(path: str | os.PathLike, array) -> None:
    """Write `array` as an IDX file, gzip-compressed when `path` ends with ``.gz``.

    The inverse of :func:`read_idx`. The dtype must be uint8, int8, int16, int32, float32 or
    float64 (``ValueError`` otherwise: cast int64 or bool first). The gzip header carries no time
    stamp, so equal arrays give byte-identical files.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "b-idx1-float"
    >>> write_idx(path, np.array([0.5, -1.0]))
    >>> path.read_bytes()[:4].hex()
    '00000e01'
    >>> read_idx(path)
    array([ 0.5, -1. ])
    >>> tmp.cleanup()
    """
    array = np.asarray(array)
    code = _IDX_CODES.get(array.dtype.newbyteorder("="))
    if code is None:
        raise ValueError(
            f"array has dtype {array.dtype}, which IDX cannot store; cast it to one "
            "of uint8, int8, int16, int32, float32, float64"
        )
    if any(d > 0xFFFFFFFF for d in array.shape):
        raise ValueError(f"array has shape {array.shape}; IDX dimensions must fit in a uint32")
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, ">u4").tobytes()
    payload = header + np.ascontiguousarray(array, dtype=_IDX_DTYPES[code]).tobytes()
    path = Path(path)
    if path.name.endswith(".gz"):
        payload = gzip.compress(payload, mtime=0)
    path.write_bytes(payload)
