"""The inputs of ``credalbook evaluate``: reading every ``--probs`` and ``--labels``, and the one error of a malformed input.

Each ``--probs`` is a model: ``FILE`` or ``NAME=FILE``. A file holds an (N, K) array of
probabilities, an (N,) array of binary scores P(y = 1), or with ``--ensemble`` an (N, M, K) array;
``--logits`` reads every file as logits, ``--logits-of NAME`` only that model's. Binary scores
``s`` are evaluated as the two-class rows ``[1 - s, s]`` (logits ``z`` as ``[σ(-z), σ(z)]``), as
every function of the library does with them (:func:`credalbook._validation.as_predictions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["InputError", "ModelInput", "load_inputs", "load_models", "model_specs"]


class InputError(ValueError):
    """A malformed input file or option: reported in one line with exit status 2."""


@dataclass(frozen=True)
class ModelInput:
    """One model of the command: its name, file, how the file was read, and its float64 rows on the simplex."""

    name: str
    file: str
    logits: bool
    shape: tuple
    probs: np.ndarray

    @property
    def binary(self) -> bool:
        """Whether the file held (N,) scores P(y = 1)."""
        return len(self.shape) == 1


def _split_spec(text: str) -> tuple[str | None, str]:
    """``NAME=FILE`` → (NAME, FILE); a plain ``FILE`` (or an existing file whose name holds ``=``) → (None, FILE)."""
    name, sep, file = text.partition("=")
    if not sep or not name or not file or "/" in name or "\\" in name or Path(text).exists():
        return None, text
    return name, file


def _unique_stems(files: list[str]) -> list[str]:
    stems = [Path(f).stem or f"model_{i + 1}" for i, f in enumerate(files)]
    if len(set(stems)) == len(stems):
        return stems
    return [f"{s}_{i + 1}" for i, s in enumerate(stems)]


def model_specs(args) -> list[tuple[str, str, bool]]:
    """(name, file, logits) of every ``--probs``: names from ``NAME=``, ``--name`` or the file stems.

    One unnamed model is called ``"model"``. Raises :class:`InputError` for duplicate or unknown names.
    """
    specs = [_split_spec(t) for t in args.probs]
    names = list(getattr(args, "name", None) or [])
    if names:
        if len(names) != len(specs):
            raise InputError(f"--name given {len(names)} times for {len(specs)} --probs files; give one name per file")
        if any(n is not None for n, _ in specs):
            raise InputError("--name and NAME=FILE cannot be mixed; use one of them")
        specs = [(n, f) for n, (_, f) in zip(names, specs)]
    if all(n is None for n, _ in specs):
        default = ["model"] if len(specs) == 1 else _unique_stems([f for _, f in specs])
        specs = [(d, f) for d, (_, f) in zip(default, specs)]
    elif any(n is None for n, _ in specs):
        raise InputError("name every --probs file (NAME=FILE) or none of them")
    seen = [n for n, _ in specs]
    if len(set(seen)) != len(seen):
        raise InputError(f"model names must differ; got {', '.join(seen)}")
    logits_of = list(getattr(args, "logits_of", None) or [])
    unknown = [n for n in logits_of if n not in seen]
    if unknown:
        raise InputError(f"--logits-of {unknown[0]!r}: no model of that name (models: {', '.join(seen)})")
    if args.ensemble and len(specs) > 1:
        raise InputError("--ensemble reads one --probs file of shape (N, M, K); got several")
    return [(n, f, bool(args.logits) or n in logits_of) for n, f in specs]


def _read_model(args, name: str, file: str, logits: bool) -> ModelInput:
    from credalbook._validation import as_predictions
    from credalbook.data import load_array

    what = "logits" if logits else "probs"
    where = f"{what} file '{file}'"
    try:
        raw = load_array(file, key=args.key, name=what)
    except ValueError as err:
        raise InputError(str(err)) from None
    ndim = 3 if args.ensemble else 2
    if raw.ndim != ndim and not (raw.ndim == 1 and not args.ensemble):
        shape = "(N, M, K) with --ensemble" if args.ensemble else "(N, K), or (N,) scores P(y = 1)"
        hint = "" if args.ensemble or raw.ndim != 3 else " (an (N, M, K) array needs --ensemble)"
        raise InputError(f"{where}: must hold an array of shape {shape}{hint}; got shape {raw.shape}")
    try:
        probs = as_predictions(raw, what, from_logits=logits, ndim=ndim)
    except ValueError as err:
        bad_probs = "sum to 1" in str(err) or "lie in [0, 1]" in str(err)
        flag = "--logits" if len(args.probs) == 1 else f"--logits-of {name}"
        hint = f" (logits? pass {flag})" if bad_probs and not logits else ""
        raise InputError(f"{where}: {err}{hint}") from None
    return ModelInput(name=name, file=str(file), logits=logits, shape=tuple(raw.shape), probs=probs)


def load_models(args) -> tuple[dict[str, ModelInput], np.ndarray]:
    """Read and check every ``--probs`` and ``--labels``: the models by name and int64 (N,) labels.

    All models must have the same N and K. Raises :class:`InputError` naming the file and the problem.
    """
    from credalbook._validation import check_binary_labels, check_labels
    from credalbook.data import load_array

    models = {}
    for name, file, logits in model_specs(args):
        m = _read_model(args, name, file, logits)
        first = next(iter(models.values()), None)
        if first is not None and m.probs.shape[0] != first.probs.shape[0]:
            raise InputError(
                f"{'logits' if m.logits else 'probs'} file '{file}' (model {name}): N = {m.probs.shape[0]} "
                f"instances, but '{first.file}' (model {first.name}) has N = {first.probs.shape[0]}"
            )
        if first is not None and m.probs.shape[-1] != first.probs.shape[-1]:
            raise InputError(
                f"{'logits' if m.logits else 'probs'} file '{file}' (model {name}): K = {m.probs.shape[-1]} "
                f"classes, but '{first.file}' (model {first.name}) has K = {first.probs.shape[-1]}"
            )
        models[name] = m
    first = next(iter(models.values()))
    try:
        raw_labels = load_array(args.labels, key=args.labels_key, name="labels", ndim=1)
        if first.binary:
            labels = check_binary_labels(raw_labels, first.probs.shape[0], probs_name="--probs")
        else:
            labels = check_labels(raw_labels, n_classes=first.probs.shape[-1], shape=first.probs.shape[:1])
    except ValueError as err:
        msg = str(err)
        raise InputError(msg if msg.startswith("labels file") else f"labels file '{args.labels}': {msg}") from None
    return models, labels


def load_inputs(args) -> tuple[np.ndarray, np.ndarray]:
    """The first model's float64 (N, K) or (N, M, K) probabilities and the int64 (N,) labels (:func:`load_models`)."""
    models, labels = load_models(args)
    return next(iter(models.values())).probs, labels
