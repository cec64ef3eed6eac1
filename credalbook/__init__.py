"""credalbook: calibration of classifier sets and evaluation of epistemic uncertainty."""

__version__ = "0.1.0"
