"""Geometry of credal sets spanned by a set of classifiers: convex combinations, membership,
boundary points, and uniform sampling inside the polytope.
"""

from credalbook.credal.geometry import (
    boundary_point,
    BoundaryPoint,
    check_weights,
    convex_combination,
    hull_distance,
    in_credal_set,
    sample_weights,
)
from credalbook.credal.sampling import polytope_volume, sample_polytope

__all__ = [
    "boundary_point",
    "BoundaryPoint",
    "check_weights",
    "convex_combination",
    "hull_distance",
    "in_credal_set",
    "sample_weights",
    "polytope_volume",
    "sample_polytope",
]
