"""Read, validate and write the Webis-WebSeg-20 segmentation JSON (webis-webseg-20.md §2).

:func:`to_webis` turns a :class:`~wps.model.Segmentation` into that JSON object.

Validation follows the reference R code (``task.R``, ``segment.R``): integer ``width``/``height``,
closed rings, a multipolygon per segment. A file may hold several named segmentations; one is
picked with an R-style regular expression (``re.search`` on the name).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SchemaError, UsageError
from ..files import read_text, write_text_atomic
from ..jsonsafe import load_json_text
from ..model import MultiPolygon, Segment, Segmentation

MultiPolygonJson = list[list[list[list[float]]]]
"""A Webis segment: polygons, each an outer ring then holes, each ring a closed list of [x, y]."""


@dataclass(slots=True)
class WebisSegmentations:
    """One page's segmentation file: the page id and size, and segmentations by name."""

    id: str
    width: int
    height: int
    segmentations: dict[str, list[MultiPolygonJson]] = field(default_factory=dict)
    source: str = "<memory>"
    """Where the object came from (a file path), named in error messages."""

    def select(self, pattern: str) -> WebisSegmentations:
        """The segmentations whose name matches ``pattern`` (``re.search``, like R's ``grep``)."""
        try:
            regex = re.compile(pattern)
        except re.error as err:
            raise UsageError(f"invalid segmentation pattern {pattern!r}: {err}") from None
        chosen = {name: segs for name, segs in self.segmentations.items() if regex.search(name)}
        return WebisSegmentations(self.id, self.width, self.height, chosen, self.source)

    def select_one(self, pattern: str) -> tuple[str, list[MultiPolygonJson]]:
        """The single segmentation matching ``pattern``; anything else is an error, as in R."""
        chosen = self.select(pattern).segmentations
        if len(chosen) != 1:
            raise UsageError(
                f"{self.source}: pattern {pattern!r} has to select a single segmentation, "
                f"but selected {len(chosen)} of {sorted(self.segmentations)}"
            )
        name, segments = next(iter(chosen.items()))
        return name, segments

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "height": int(self.height),
            "width": int(self.width),
            "segmentations": {
                name: [integral_coordinates(segment) for segment in segments]
                for name, segments in self.segmentations.items()
            },
        }


def read_segmentations(path: str | Path) -> WebisSegmentations:
    """Read and validate a segmentation JSON file; errors name the file and the problem."""
    path = Path(path)
    data = load_json_text(read_text(path, "segmentation file"), str(path), SchemaError)
    return parse_segmentations(data, source=str(path))


def parse_segmentations(data: Any, source: str = "<memory>") -> WebisSegmentations:
    """Validate an in-memory Webis JSON object (e.g. ``Segmentation.to_webis()``)."""
    if isinstance(data, WebisSegmentations):
        return data
    if not isinstance(data, dict):
        raise SchemaError(f"{source}: top level must be a JSON object, not {type(data).__name__}")
    for key in ("id", "width", "height", "segmentations"):
        if key not in data:
            raise SchemaError(f"{source}: missing required attribute {key!r}")
    page_id = data["id"]
    if not isinstance(page_id, str):
        raise SchemaError(f"{source}: id must be a string, but was {type(page_id).__name__}")
    size = {}
    for key in ("width", "height"):
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(
                f"{source}: {key} must be a JSON integer, but was {json.dumps(value)}"
            )
        if value < 1:
            raise SchemaError(f"{source}: {key} must be positive, but was {value}")
        size[key] = value
    raw = data["segmentations"]
    if not isinstance(raw, dict):
        # jsonlite reads an empty JSON array as an empty list: accept [] as "no segmentations"
        if raw == []:
            raw = {}
        else:
            raise SchemaError(f"{source}: segmentations must be an object of named segmentations")
    segmentations: dict[str, list[MultiPolygonJson]] = {}
    for name, segments in raw.items():
        if not isinstance(segments, list):
            raise SchemaError(f"{source}: segmentation {name!r} must be a list of segments")
        for index, segment in enumerate(segments):
            _check_segment(segment, f"{source}: segmentation {name!r} segment {index + 1}")
        segmentations[name] = segments
    return WebisSegmentations(page_id, size["width"], size["height"], segmentations, source)


def _check_segment(segment: Any, where: str) -> None:
    if _plainly_valid(segment):
        return
    if not isinstance(segment, list):
        raise SchemaError(f"{where}: a segment must be a list of polygons")
    for polygon in segment:
        if not isinstance(polygon, list) or not polygon:
            raise SchemaError(f"{where}: a polygon must be a non-empty list of rings")
        for ring in polygon:
            if not isinstance(ring, list) or len(ring) < 4:
                raise SchemaError(f"{where}: a ring needs at least 4 points")
            for point in ring:
                if (
                    not isinstance(point, list)
                    or len(point) != 2
                    or not all(
                        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                        for v in point
                    )
                ):
                    raise SchemaError(f"{where}: a point must be [x, y] with finite numbers")
            if ring[0] != ring[-1]:
                raise SchemaError(
                    f"{where}: polygons not (all) closed (ring starts at {ring[0]}, "
                    f"ends at {ring[-1]})"
                )


def write_segmentations(obj: WebisSegmentations | dict[str, Any], path: str | Path) -> None:
    """Write compact JSON with integer width/height, atomically (temp file, then rename)."""
    segmentations = parse_segmentations(obj, source=str(path))
    text = json.dumps(segmentations.to_json(), separators=(",", ":"), ensure_ascii=False)
    write_text_atomic(path, text + "\n")


def check_same_page(truth: WebisSegmentations, algorithm: WebisSegmentations) -> None:
    """Refuse to compare segmentations of different pages, as R's ``merge.task`` does."""
    for attribute in ("id", "width", "height"):
        expected, got = getattr(truth, attribute), getattr(algorithm, attribute)
        if expected != got:
            raise SchemaError(
                f"{algorithm.source}: {attribute} {got!r} differs from the ground truth's "
                f"{expected!r} ({truth.source}); can merge tasks with same {attribute}s only"
            )


def to_webis(segmentation: Segmentation, name: str | None = None) -> dict[str, Any]:
    """The Webis JSON object holding ``segmentation`` under ``name`` (default: its segmenter).

    Segments are clipped to the page, ``[0, width] × [0, height]`` (the reference evaluation
    counts area outside the page, and a capture capped at the screenshot height can hold
    segments below it); a segment with nothing left on the page is left out. Coordinates are
    written as integers when they are integral; ``width`` and ``height`` are always integers,
    as the reference R code requires.
    """
    segments = []
    for segment in segmentation.segments:
        polygons = _clip_to_page(segment, segmentation.width, segmentation.height)
        if polygons:
            segments.append(integral_coordinates(polygons))
    return {
        "id": segmentation.page_id,
        "height": int(segmentation.height),
        "width": int(segmentation.width),
        "segmentations": {name or segmentation.segmenter: segments},
    }


def _clip_to_page(segment: Segment, width: float, height: float) -> MultiPolygon:
    left, top, right, bottom = segment.bbox
    if left >= 0 and top >= 0 and right <= width and bottom <= height:
        return segment.polygons
    import shapely

    polygons = [
        shapely.Polygon(polygon[0], [ring for ring in polygon[1:] if len(ring) >= 4])
        for polygon in segment.polygons if polygon and len(polygon[0]) >= 4
    ]
    clipped = shapely.clip_by_rect(shapely.make_valid(shapely.MultiPolygon(polygons)),
                                   0, 0, width, height)
    pieces = shapely.get_parts(shapely.get_parts(clipped))  # collection → multipolygon → polygons
    return [
        [[list(point) for point in piece.exterior.coords]]
        + [[list(point) for point in hole.coords] for hole in piece.interiors]
        for piece in pieces if piece.geom_type == "Polygon" and piece.area > 0
    ]


_PLAIN_NUMBERS = frozenset((int, float))


def _plainly_valid(segment: Any) -> bool:
    """The common case of :func:`_check_segment` checked in few steps (a file may hold
    hundreds of thousands of segments); ``False`` sends the segment to the full check, which
    finds what is wrong, if anything is."""
    if type(segment) is not list:
        return False
    for polygon in segment:
        if type(polygon) is not list or not polygon:
            return False
        for ring in polygon:
            if type(ring) is not list or len(ring) < 4 or ring[0] != ring[-1] \
                    or not all(type(point) is list and len(point) == 2 for point in ring):
                return False
            values = [value for point in ring for value in point]
            if not _PLAIN_NUMBERS.issuperset(map(type, values)) \
                    or not all(map(math.isfinite, values)):
                return False
    return True


def integral_coordinates(value: Any) -> Any:
    """Nested lists with integral floats as ints: the Webis JSON writes ``10``, not ``10.0``."""
    if isinstance(value, list):
        if value and type(value[0]) is list and value[0] and type(value[0][0]) in _PLAIN_NUMBERS:
            return [[_integral(number) for number in point] if type(point) is list
                    else _integral(point) for point in value]  # a ring: the bulk
        return [integral_coordinates(item) for item in value]
    return _integral(value)


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return integral_coordinates(value) if isinstance(value, list) else value
