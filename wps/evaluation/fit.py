"""Fitting segments to DOM nodes, as ``fit-segmentations-to-dom-nodes.R`` (webis-webseg-20.md §4).

A node is kept when at least ``containment_threshold`` of its rectangle lies inside the segment;
the fitted segment is the union of the kept rectangles (simplified with ``tolerance``, default 0).
An invalid segment fits no node (R empties it with ``segment[st_is_valid(segment)]``). Empty
fitted segments and ``st_equals`` duplicates are removed; names get the suffix ``.fitted``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from ..errors import SchemaError, UsageError
from ..webis.nodes import read_node_boxes
from ..webis.segmentation_json import MultiPolygonJson, WebisSegmentations, parse_segmentations
from .geometry import as_multipolygon, segment_geometry, segment_json
from .sizes import _rectangle_rings

FIT_CONTAINMENT_THRESHOLD = 0.75


def node_rectangles(boxes: np.ndarray) -> np.ndarray:
    """Node boxes (l, t, r, b) as shapely polygons, ring order as R builds them."""
    return shapely.polygons(_rectangle_rings(boxes))


def fit_segment(
    segment: BaseGeometry,
    rectangles: np.ndarray,
    rectangle_areas: np.ndarray,
    containment_threshold: float = FIT_CONTAINMENT_THRESHOLD,
    tolerance: float = 0.0,
) -> BaseGeometry:
    """Union of the rectangles that lie at least ``containment_threshold`` inside ``segment``."""
    if not segment.is_valid:
        return shapely.MultiPolygon()
    overlapping = np.flatnonzero(shapely.intersects(rectangles, segment))
    if overlapping.size == 0:
        return shapely.MultiPolygon()
    overlap = shapely.area(shapely.intersection(rectangles[overlapping], segment))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = overlap / rectangle_areas[overlapping]
    contained = overlapping[share >= containment_threshold]
    if contained.size == 0:
        return shapely.MultiPolygon()
    union = shapely.union_all(rectangles[contained])
    return shapely.simplify(union, tolerance, preserve_topology=False)


def fit_segmentation(
    segments: list[MultiPolygonJson],
    boxes: np.ndarray,
    containment_threshold: float = FIT_CONTAINMENT_THRESHOLD,
    tolerance: float = 0.0,
) -> list[MultiPolygonJson]:
    """Fit every segment; drop empty results and later duplicates (``st_equals``)."""
    rectangles = node_rectangles(boxes)
    areas = shapely.area(rectangles)
    fitted = [
        fit_segment(segment_geometry(s), rectangles, areas, containment_threshold, tolerance)
        for s in segments
    ]
    fitted = [as_multipolygon(g) for g in fitted]
    fitted = [g for g in fitted if g.area != 0]
    unique: list[BaseGeometry] = []
    for geometry in fitted:
        if not any(shapely.equals(geometry, earlier) for earlier in unique):
            unique.append(geometry)
    return [segment_json(g) for g in unique]


def fit_segmentations(
    segmentations: WebisSegmentations | dict,
    nodes: str | Path | np.ndarray,
    *,
    pattern: str = ".*",
    containment_threshold: float = FIT_CONTAINMENT_THRESHOLD,
    tolerance: float = 0.0,
) -> WebisSegmentations:
    """Fit the segmentations matching ``pattern``; returns those named ``<name>.fitted``.

    ``nodes`` is a ``nodes.csv`` path or an array of (l, t, r, b) boxes. Like R, the result keeps
    every selected segmentation whose name matches ``fitted`` (the new ones included).
    """
    if not 0 <= tolerance < float("inf"):  # also refuses NaN
        raise UsageError(f"fit tolerance must be ≥ 0, but was {tolerance}")
    if not 0 <= containment_threshold <= 1:
        raise UsageError(
            f"fit containment threshold must be within 0..1, but was {containment_threshold}"
        )
    task = parse_segmentations(segmentations).select(pattern)
    boxes = nodes if isinstance(nodes, np.ndarray) else read_node_boxes(nodes)[0]
    result = dict(task.segmentations)
    for name, segments in task.segmentations.items():
        try:
            result[f"{name}.fitted"] = fit_segmentation(
                segments, boxes, containment_threshold, tolerance
            )
        except shapely.errors.GEOSException as err:  # e.g. a self-intersecting segment
            raise SchemaError(
                f"{task.source}: segmentation {name!r} cannot be fitted ({err})"
            ) from None
    fitted_names = re.compile(".*fitted")
    kept = {name: segs for name, segs in result.items() if fitted_names.search(name)}
    return WebisSegmentations(task.id, task.width, task.height, kept, task.source)
