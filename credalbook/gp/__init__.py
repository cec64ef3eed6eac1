"""Gaussian-process classification with GPyTorch (the only subpackage that imports gpytorch).
"""

from credalbook.gp.classifier import (
    fit_gp_classifier,
    fit_gp_classifier_cached,
    GP_LIKELIHOODS,
    GPClassifierFit,
    LatentPredictive,
)

__all__ = [
    "fit_gp_classifier",
    "fit_gp_classifier_cached",
    "GP_LIKELIHOODS",
    "GPClassifierFit",
    "LatentPredictive",
]
