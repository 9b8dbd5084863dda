"""The R code's geometry steps, done literally with shapely (GEOS), and a fast planar overlay.

The reference cleans pixel-type geometry with ``st_simplify`` (tolerance 0), ``st_snap`` of every
segment to the vertices of *all* segments (0.9 px), coordinates rounded to the precision grid
(C ``round``: half away from zero) and ``st_make_valid``; pieces with area < 1 are dropped
(webis-webseg-20.md §3.3, §10.1). Its ``st_intersection`` of a collection is the planar overlay:
one piece per distinct set of covering segments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.errors
from shapely import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from ..errors import UsageError
from ..webis.segmentation_json import MultiPolygonJson

SNAP_TOLERANCE = 0.9
"""``st_snap(x, x, 0.9)`` in ``PixelBasedClusterings`` and ``flatten-segmentations.R``."""
BUFFER_QUAD_SEGMENTS = 30
"""sf's ``st_buffer`` default ``nQuadSegs``."""


def make_valid(geometries: np.ndarray) -> np.ndarray:
    """``st_make_valid`` with sf's (≥ 1.0-8) defaults: GEOS "structure" method, collapsed kept."""
    return shapely.make_valid(geometries, method="structure", keep_collapsed=True)


def segment_geometry(segment: MultiPolygonJson) -> MultiPolygon:
    """A Webis segment as a shapely multipolygon, unvalidated (as ``st_multipolygon`` builds it)."""
    polygons = [Polygon(polygon[0], polygon[1:]) for polygon in segment]
    return MultiPolygon(polygons)


def segment_geometries(segments: Sequence[MultiPolygonJson]) -> np.ndarray:
    """:func:`segment_geometry` of every segment, built in a few vectorised calls (the same
    geometries; a segment those cannot build, such as a ring of too few points, is built one by
    one, so that it fails as it would alone)."""
    rings = [ring for segment in segments for polygon in segment for ring in polygon]
    try:
        coords = np.asarray([point for ring in rings for point in ring], dtype=float)
        if coords.ndim != 2 or coords.shape[1] != 2:
            raise ValueError("not all points are x, y pairs")
        built = shapely.linearrings(coords, indices=np.repeat(
            np.arange(len(rings)), [len(ring) for ring in rings]))
        polygon_of_ring = np.repeat(np.arange(sum(len(segment) for segment in segments)),
                                    [len(polygon) for segment in segments for polygon in segment])
        polygons = shapely.polygons(built, indices=polygon_of_ring)
        segment_of_polygon = np.repeat(np.arange(len(segments)), [len(s) for s in segments])
        result = np.empty(len(segments), dtype=object)
        result[:] = shapely.multipolygons(polygons, indices=segment_of_polygon,
                                          out=np.full(len(segments), _EMPTY, dtype=object))
    except (ValueError, TypeError, shapely.errors.GEOSException):
        result = np.empty(len(segments), dtype=object)
        result[:] = [segment_geometry(segment) for segment in segments]
    return result


_EMPTY = MultiPolygon()


def segment_json(geometry: BaseGeometry) -> MultiPolygonJson:
    """The areal part of a geometry as a Webis multipolygon (closed rings, as GEOS writes them)."""
    segment: MultiPolygonJson = []
    for polygon in polygonal_parts(geometry):
        rings = [polygon.exterior, *polygon.interiors]
        segment.append([[[x, y] for x, y in ring.coords] for ring in rings])
    return segment


def segments_json(geometries: np.ndarray) -> list[MultiPolygonJson]:
    """:func:`segment_json` of every geometry, in a few vectorised calls when all are polygons
    or multipolygons (the same lists); one by one otherwise."""
    kinds = shapely.get_type_id(geometries)
    if not np.isin(kinds, _POLYGONAL).all():
        return [segment_json(geometry) for geometry in geometries]
    polygons, owner = shapely.get_parts(geometries, return_index=True)
    keep = shapely.area(polygons) > 0  # polygonal_parts: no empty or flat polygons
    polygons, owner = polygons[keep], owner[keep]
    rings, ring_polygon = shapely.get_rings(polygons, return_index=True)  # exterior first
    coords, coord_ring = shapely.get_coordinates(rings, return_index=True)
    points = coords.tolist()
    ring_ends = np.cumsum(np.bincount(coord_ring, minlength=len(rings))).tolist()
    ring_lists = [points[start:end] for start, end in zip([0, *ring_ends[:-1]], ring_ends)]
    polygon_ends = np.cumsum(np.bincount(ring_polygon, minlength=len(polygons))).tolist()
    polygon_lists = [ring_lists[start:end]
                     for start, end in zip([0, *polygon_ends[:-1]], polygon_ends)]
    segment_ends = np.cumsum(np.bincount(owner, minlength=len(geometries))).tolist()
    return [polygon_lists[start:end] for start, end in zip([0, *segment_ends[:-1]], segment_ends)]


_POLYGONAL = (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON)


def as_multipolygons(geometries: np.ndarray) -> np.ndarray:
    """:func:`as_multipolygon` of every geometry, vectorised when all are polygons or
    multipolygons (the same geometries); one by one otherwise."""
    result = np.empty(len(geometries), dtype=object)
    if not np.isin(shapely.get_type_id(geometries), _POLYGONAL).all():
        result[:] = [as_multipolygon(geometry) for geometry in geometries]
        return result
    polygons, owner = shapely.get_parts(geometries, return_index=True)
    keep = shapely.area(polygons) > 0
    result[:] = shapely.multipolygons(polygons[keep], indices=owner[keep],
                                      out=np.full(len(geometries), _EMPTY, dtype=object))
    return result


def polygonal_parts(geometry: BaseGeometry) -> list[Polygon]:
    """The polygons with area > 0 inside any geometry (R's ``as.MULTIPOLYGON``)."""
    if geometry is None or geometry.is_empty:
        return []
    if isinstance(geometry, Polygon):
        return [geometry] if geometry.area > 0 else []
    if hasattr(geometry, "geoms"):
        return [part for child in geometry.geoms for part in polygonal_parts(child)]
    return []


def as_multipolygon(geometry: BaseGeometry) -> MultiPolygon:
    return MultiPolygon(polygonal_parts(geometry))


def round_half_away(geometries: np.ndarray, precision: float = 1.0) -> np.ndarray:
    """Coordinates rounded like sf's ``make_precise``: ``round(x * p) / p`` with C ``round``."""

    def _round(coords: np.ndarray) -> np.ndarray:
        scaled = coords * precision
        return np.copysign(np.floor(np.abs(scaled) + 0.5), scaled) / precision

    if not np.isfinite(precision):
        raise UsageError(f"coordinate precision must be a finite number, got {precision}")
    if precision == 0:
        return geometries
    return shapely.transform(geometries, _round)


def clean_pixel_geometries(
    geometries: Sequence[BaseGeometry], precision: float = 1.0, repair: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The cleaning of ``PixelBasedClusterings``; returns (kept geometries, their input indices).

    simplify(0) → snap each to the vertices of all (0.9) → round to the grid → make_valid →
    keep area ≥ 1 and valid. ``repair=False`` (no make_valid) is the variant of
    ``flatten-segmentations.R``.
    """
    array = np.asarray(list(geometries), dtype=object)
    if array.size == 0:
        return array, np.zeros(0, dtype=int)
    simplified = shapely.simplify(array, 0.0, preserve_topology=False)
    snapped = snap_to_all(simplified, SNAP_TOLERANCE)
    rounded = round_half_away(snapped, precision)
    if repair:
        rounded = make_valid(rounded)
    keep = (shapely.area(rounded) >= 1) & shapely.is_valid(rounded)
    return rounded[keep], np.flatnonzero(keep)


def snap_to_all(geometries: np.ndarray, tolerance: float) -> np.ndarray:
    """``st_snap(x, x, tolerance)``: each geometry snapped to the vertices of all, as GEOS snaps
    to their collection, without a cost that grows with the square of the vertices.

    GEOS moves a vertex to a snap point, or puts one into a segment, only when it is nearer than
    ``tolerance``; the line meanwhile stays inside the envelope of its own vertices and the snap
    points it took. So a geometry is snapped to the points near an envelope that starts as its
    own and grows by the points it takes in until it takes no more: every point that can act,
    in the order the whole collection has them (GEOS takes them once each, in order of first
    appearance), hence the same result as with the whole collection.
    """
    result = np.asarray(geometries, dtype=object).copy()
    coords = shapely.get_coordinates(result)
    if coords.size == 0:
        return result
    unique, first = np.unique(coords, axis=0, return_index=True)
    points = unique[np.argsort(first)]  # each point once, in order of first appearance
    todo = np.flatnonzero(~shapely.is_missing(result) & ~shapely.is_empty(result))
    geometry, point = _points_near(shapely.bounds(result[todo]), points, 1.5 * tolerance)
    order = np.lexsort((point, geometry))  # per geometry, its points in collection order
    targets = shapely.multipoints(points[point[order]], indices=geometry[order])
    result[todo] = shapely.snap(result[todo], targets, tolerance)
    return result


def _points_near(bounds: np.ndarray, points: np.ndarray, margin: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (box, point) of the points within ``margin`` of each box, each box grown by the
    points it takes until it takes no more (all boxes at once, in a few rounds)."""
    tree = shapely.STRtree(shapely.points(points))
    bounds = bounds.copy()
    active = np.arange(len(bounds))
    found: list[tuple[np.ndarray, np.ndarray]] = []
    while active.size:
        boxes = shapely.box(*(bounds[active] + [-margin, -margin, margin, margin]).T)
        box, point = tree.query(boxes)
        grown = bounds[active].copy()
        np.minimum.at(grown[:, 0], box, points[point, 0])
        np.minimum.at(grown[:, 1], box, points[point, 1])
        np.maximum.at(grown[:, 2], box, points[point, 0])
        np.maximum.at(grown[:, 3], box, points[point, 1])
        done = (grown == bounds[active]).all(axis=1)
        keep = done[box]
        found.append((active[box[keep]], point[keep]))
        bounds[active] = grown
        active = active[~done]
    return (np.concatenate([pair[0] for pair in found]),
            np.concatenate([pair[1] for pair in found]))


@dataclass(slots=True)
class Overlay:
    """Planar overlay of geometries: one region per distinct set of covering geometries."""

    regions: list[MultiPolygon]
    """Areal part of each region (union of its faces)."""
    members: list[tuple[int, ...]]
    """Indices (into the overlaid geometries) of the geometries covering each region."""
    areas: np.ndarray


def planar_overlay(geometries: Sequence[BaseGeometry], min_area: float = 1.0) -> Overlay:
    """The pieces of ``st_intersection(x)`` with area ≥ ``min_area``, as polygons.

    All boundaries are noded together and polygonised; each face gets the set of geometries that
    cover its interior point; faces with the same set form one region, like the one piece per
    membership that sf's n-ary intersection builds. Lines (touching segments) carry no area and
    are not regions.
    """
    geoms = np.asarray([as_multipolygon(g) for g in geometries], dtype=object)
    if geoms.size == 0:
        return Overlay([], [], np.zeros(0))
    noded = shapely.union_all(shapely.boundary(geoms))
    faces = np.asarray(shapely.get_parts(shapely.polygonize(shapely.get_parts(noded))))
    if faces.size == 0:
        return Overlay([], [], np.zeros(0))
    points = shapely.point_on_surface(faces)
    tree = shapely.STRtree(geoms)
    face_index, geom_index = tree.query(points, predicate="within")
    by_face: dict[int, list[int]] = {}
    for face, geom in zip(face_index.tolist(), geom_index.tolist()):
        by_face.setdefault(face, []).append(geom)
    groups: dict[tuple[int, ...], list[int]] = {}
    for face, covering in by_face.items():
        groups.setdefault(tuple(sorted(covering)), []).append(face)
    face_areas = shapely.area(faces)
    regions, members, areas = [], [], []
    for key in sorted(groups):
        group = groups[key]
        area = float(face_areas[group].sum())
        if area < min_area:
            continue
        regions.append(MultiPolygon([p for f in group for p in polygonal_parts(faces[f])]))
        members.append(key)
        areas.append(area)
    return Overlay(regions, members, np.asarray(areas, dtype=float))
