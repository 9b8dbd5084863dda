"""Flattening: the planar overlay of a segmentation with itself (``flatten-segmentations.R``, §5).

Every piece of the overlay becomes one segment, so nested or overlapping segments become disjoint.
Steps as in R: simplify(0), snap to all vertices (0.9), round to the precision grid, drop area < 1,
n-ary intersection, simplify(0), drop pieces with area < 1; a piece that is a geometry collection
becomes one segment per polygon.
"""

from __future__ import annotations

import numpy as np
import shapely
import shapely.errors
from shapely import GeometryCollection, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from ..errors import SchemaError
from ..webis.segmentation_json import MultiPolygonJson, WebisSegmentations, parse_segmentations
from .geometry import clean_pixel_geometries, segment_geometries, segments_json
from .nary import nary_intersection


def flatten_segmentation(
    segments: list[MultiPolygonJson], precision: float = 1.0
) -> list[MultiPolygonJson]:
    geometries = segment_geometries(segments)
    cleaned, _ = clean_pixel_geometries(geometries, precision, repair=False)
    pieces, _ = nary_intersection(list(cleaned))
    simplified = shapely.simplify(np.asarray(pieces, dtype=object), 0.0, preserve_topology=False)
    kept = simplified[shapely.area(simplified) >= 1] if len(pieces) else []
    return segments_json(np.asarray([part for piece in kept for part in _as_segments(piece)],
                                    dtype=object))


def _as_segments(piece: BaseGeometry) -> list[BaseGeometry]:
    """R's ``as.segmentation``: lines and points vanish, collections split into their members."""
    if isinstance(piece, (Polygon, MultiPolygon)):
        return [piece] if piece.area > 0 else []
    if isinstance(piece, GeometryCollection):
        return [part for member in piece.geoms for part in _as_segments(member)]
    return []


def flatten_segmentations(
    segmentations: WebisSegmentations | dict, *, precision: float = 1.0
) -> WebisSegmentations:
    """Flatten every segmentation of a file (names unchanged)."""
    task = parse_segmentations(segmentations)
    flattened = {}
    for name, segments in task.segmentations.items():
        try:
            flattened[name] = flatten_segmentation(segments, precision)
        except shapely.errors.GEOSException as err:  # R stops with "GEOS exception" too
            raise SchemaError(
                f"{task.source}: segmentation {name!r} cannot be flattened ({err})"
            ) from None
    return WebisSegmentations(task.id, task.width, task.height, flattened, task.source)
