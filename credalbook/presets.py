"""Size presets of every chapter: one table per chapter, one row per scale.

``tiny`` is the smoke scale used by the tests, ``quick`` the default book build (minutes on two
CPU cores), ``paper`` the papers' own settings. A chapter's ``parameters`` cell names the scale;
the sizes come from here, so the same code path serves every scale::

    cfg = credalbook.preset("00_calibration_primer", scale)
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["SCALES", "PRESETS", "preset"]

SCALES = ("tiny", "quick", "paper")

PRESETS = {
    "00_calibration_primer": {
        # n_train: training images; epochs of the over-fitted MLP; hl_*: Type I error check of the
        # Hosmer-Lemeshow references on perfectly calibrated synthetic models (N=1000, K=10, B=10).
        # n_synthetic: instances of the synthetic calibrated model of the "notions" section.
        "tiny": dict(n_train=2000, n_test=2000, epochs=4, hidden=(128,), n_synthetic=5000,
                     hl_datasets=20, hl_resamples=99, n_resamples=199),
        "quick": dict(n_train=10000, n_test=10000, epochs=40, hidden=(512, 512), n_synthetic=50000,
                      hl_datasets=200, hl_resamples=199, n_resamples=999),
        "paper": dict(n_train=60000, n_test=10000, epochs=100, hidden=(512, 512), n_synthetic=200000,
                      hl_datasets=1000, hl_resamples=999, n_resamples=9999),
    },
}


def preset(chapter: str, scale: str) -> MappingProxyType:
    """The read-only size settings of ``chapter`` at ``scale``.

    Examples
    --------
    >>> preset("00_calibration_primer", "tiny")["epochs"]
    4
    """
    if chapter not in PRESETS:
        raise ValueError(f"chapter must be one of {sorted(PRESETS)}; got {chapter!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}; got {scale!r}")
    return MappingProxyType(dict(PRESETS[chapter][scale]))
