"""Gaussian-process classification with GPyTorch (the only subpackage that imports gpytorch).

GPyTorch is an optional dependency: ``pip install "credalbook[gp]"``.
"""

try:
    import gpytorch  # noqa: F401
    import linear_operator  # noqa: F401
except ImportError as err:  # a missing extra: say which one to install
    raise ImportError(
        f'credalbook.gp needs GPyTorch, an optional dependency ({err}); install it with pip install "credalbook[gp]"'
    ) from err

from credalbook.gp.classifier import (
    fit_gp_classifier,
    fit_gp_classifier_cached,
    GP_LIKELIHOODS,
    GPClassifierFit,
    GPConfig,
    LatentPredictive,
)

__all__ = [
    "fit_gp_classifier",
    "fit_gp_classifier_cached",
    "GP_LIKELIHOODS",
    "GPClassifierFit",
    "GPConfig",
    "LatentPredictive",
]
