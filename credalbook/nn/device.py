"""Choosing the compute device and seeding every random number generator.

Chapters take a ``device = "auto"`` parameter and pass it down; :func:`resolve_device`
turns it into a :class:`torch.device` (CUDA when present, then Apple MPS, else CPU) and
fails with a clear message when a device that is absent is asked for.
:func:`seed_everything` seeds Python, NumPy's legacy global state and torch (CPU and
CUDA) and hands back a :class:`numpy.random.Generator` for code that takes ``rng``.
"""

from __future__ import annotations

import random

import numpy as np
import torch

__all__ = ["resolve_device", "seed_everything"]


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """Turn a device specification into a :class:`torch.device`.

    Parameters
    ----------
    device : str or torch.device, default="auto"
        ``"auto"`` picks CUDA when :func:`torch.cuda.is_available`, else Apple MPS when
        available, else the CPU. Any string that :class:`torch.device` understands
        (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``) or a :class:`torch.device` is
        accepted and checked against the hardware present.

    Returns
    -------
    torch.device
        The device. ``"cuda"`` without an index is returned as given (the current CUDA
        device).

    Raises
    ------
    ValueError
        If `device` is not a valid device string, or names CUDA/MPS (or a CUDA index)
        that this machine does not have.

    Examples
    --------
    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("auto").type in {"cpu", "cuda", "mps"}
    True
    """
    if isinstance(device, str) and device.strip().lower() == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if isinstance(device, torch.device):
        dev = device
    elif isinstance(device, str):
        try:
            dev = torch.device(device.strip())
        except RuntimeError as err:
            raise ValueError(
                f"device must be 'auto', 'cpu', 'cuda', 'cuda:<index>', 'mps' or a torch.device; got {device!r}"
            ) from err
    else:
        raise ValueError(f"device must be a string or a torch.device; got {device!r} of type {type(device).__name__}")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device={device!r} asks for CUDA, but CUDA is not available on this "
                "machine (torch.cuda.is_available() is False); use device='auto' or 'cpu'"
            )
        n_gpus = torch.cuda.device_count()
        if dev.index is not None and dev.index >= n_gpus:
            raise ValueError(
                f"device={device!r} asks for CUDA device {dev.index}, but only {n_gpus} CUDA device(s) are visible"
            )
    elif dev.type == "mps" and not _mps_available():
        raise ValueError(
            f"device={device!r} asks for Apple MPS, which is not available on this machine; use device='auto' or 'cpu'"
        )
    return dev


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python's, NumPy's (legacy global) and torch's (CPU and CUDA) generators.

    Parameters
    ----------
    seed : int
        Non-negative integer below ``2**32`` (the range NumPy's legacy seeding accepts).

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(seed)``, for code that takes an ``rng`` argument.

    Raises
    ------
    ValueError
        If `seed` is not an integer in ``[0, 2**32)``.

    Notes
    -----
    Seeding makes CPU runs repeatable. On GPUs some kernels (e.g. cuDNN convolutions,
    atomic-add reductions) are non-deterministic unless
    ``torch.use_deterministic_algorithms(True)`` is set, which this function does not do.

    Examples
    --------
    >>> rng = seed_everything(0)
    >>> a = rng.random(); b = seed_everything(0).random()
    >>> a == b
    True
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer; got {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed must be in [0, 2**32); got {seed}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    return np.random.default_rng(seed)
