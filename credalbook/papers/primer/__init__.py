"""The primer's rows (``chapters/00_calibration_primer.ipynb``): claims of Mortier et al. (2023) and Widmann et al.
(2019) that the later chapters rest on, judged on the primer's runs."""

from credalbook.papers.primer.compare import compare, HL_CHI2, HL_RESAMPLING, overconfidence, PRIMER_ALPHA

__all__ = ["compare", "overconfidence", "PRIMER_ALPHA", "HL_CHI2", "HL_RESAMPLING"]
