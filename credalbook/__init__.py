"""credalbook: calibration of classifier sets and evaluation of epistemic uncertainty.

The library is a set of subpackages by concept; import what you need from them, e.g.
``from credalbook.metrics import ece`` or ``from credalbook.stats import set_calibration_test``.

- :mod:`credalbook.metrics`: calibration errors of a classifier, a set, label histograms, EU estimates;
- :mod:`credalbook.stats`: calibration tests with p-values;
- :mod:`credalbook.credal`: geometry of credal sets; :mod:`credalbook.calibration`: post-hoc calibrators;
- :mod:`credalbook.nn`, :mod:`credalbook.gp`: models and training; :mod:`credalbook.data`,
  :mod:`credalbook.synthetic`: data; :mod:`credalbook.plotting`, :mod:`credalbook.cache`;
- :mod:`credalbook.papers`: the five papers' experiments; :mod:`credalbook.book`: the book build.

``import credalbook`` itself loads nothing heavy: a subpackage is imported on first access.
"""

import importlib as _importlib

__version__ = "0.6.0"

_SUBPACKAGES = tuple("metrics stats credal calibration gp nn data synthetic plotting cache papers book".split())
__all__ = ["__version__", *_SUBPACKAGES]


def __getattr__(name):
    if name in _SUBPACKAGES:
        return _importlib.import_module(f"credalbook.{name}")
    raise AttributeError(f"module 'credalbook' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
