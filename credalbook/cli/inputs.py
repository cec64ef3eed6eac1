"""The inputs of ``credalbook evaluate``: reading ``--probs`` and ``--labels``, and the one error of a malformed input."""

from __future__ import annotations

import numpy as np

__all__ = ["InputError", "load_inputs"]


class InputError(ValueError):
    """A malformed input file or option: reported in one line with exit status 2."""


def load_inputs(args) -> tuple[np.ndarray, np.ndarray]:
    """Read and check ``--probs`` and ``--labels``: float64 (N, K) or (N, M, K) probabilities and int64 (N,) labels.

    Raises :class:`InputError` naming the file and the problem.
    """
    from credalbook._validation import as_predictions, check_labels
    from credalbook.data import load_array

    ndim = 3 if args.ensemble else 2
    shape = "(N, M, K) with --ensemble" if args.ensemble else "(N, K) (an (N, M, K) array needs --ensemble)"
    what = "logits" if args.logits else "probs"
    try:
        raw = load_array(args.probs, key=args.key, name=what)
        raw_labels = load_array(args.labels, key=args.labels_key, name="labels", ndim=1)
    except ValueError as err:
        raise InputError(str(err)) from None
    if raw.ndim != ndim:
        raise InputError(f"{what} file '{args.probs}': must hold an array of shape {shape}; got shape {raw.shape}")
    try:
        probs = as_predictions(raw, what, from_logits=args.logits, ndim=ndim)
    except ValueError as err:
        hint = (
            ""
            if args.logits or not ("sum to 1" in str(err) or "lie in [0, 1]" in str(err))
            else " (logits? pass --logits)"
        )
        raise InputError(f"{what} file '{args.probs}': {err}{hint}") from None
    try:
        labels = check_labels(raw_labels, n_classes=probs.shape[-1], shape=probs.shape[:1])
    except ValueError as err:
        raise InputError(f"labels file '{args.labels}': {err}") from None
    return probs, labels
