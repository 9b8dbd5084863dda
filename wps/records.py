"""The ``segments.jsonl`` record: its fields, its checks and its file, in one place.

A line (text-and-filters.md §6) is one segment: where it is (its :class:`PageContext`: page,
order, outline, nodes, XPaths), what the text stages say of it (text, main text, counts, ``kept``,
``reasons``, ``stats``), the segmenter's own evidence (``Segment.extra``), then what later stages
added (the typed :data:`ANNOTATION_FIELDS` of :class:`~wps.model.Segment`). The pipeline writes
lines from ``Segment`` objects; ``wps filter``, ``wps dedup`` and ``wps binoculars`` read them
back as ``Segment`` objects, judge those as the pipeline does, and write back only what they
changed, in the line's own field order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .errors import InputFileError
from .files import iter_jsonl, write_jsonl
from .model import PageCapture, Segment, Segmentation

__all__ = ["ANNOTATION_FIELDS", "DETECTOR_FIELDS", "RECORD_FIELDS", "SEGMENTS_FILE",
           "DetectorInput", "DetectorUnit", "PageContext", "SegmentLine", "check_segment_line",
           "detector_record", "detector_text", "detector_units", "doc_id_for", "page_context",
           "read_segment_lines", "segment_from_record", "segment_record", "segment_records",
           "segment_units",
           "short_repr", "top_xpaths", "write_segment_records"]

SEGMENTS_FILE = "segments.jsonl"
BBOX_DECIMALS = 2
"""``bbox`` values are CSS pixels: hundredths are all the precision there is."""
PLACE_FIELDS = ("doc_id", "url", "page_id", "segment_id", "id", "order", "segmenter", "parent",
                "bbox", "polygon", "node_ids", "xpaths", "incomplete")
"""Where the segment is: the page gives these, no later stage changes them."""
TEXT_FIELDS = ("text", "n_chars", "n_words", "main_text", "kept", "reasons", "stats")
"""What the text stages say of the segment; later stages judge and change these."""
RECORD_FIELDS = PLACE_FIELDS + TEXT_FIELDS
"""A new line's fields in order; ``Segment.extra`` keys, then :data:`ANNOTATION_FIELDS`, follow."""
_SEGMENT_FIELDS = [field.name for field in fields(Segment)]
ANNOTATION_FIELDS = tuple(_SEGMENT_FIELDS[_SEGMENT_FIELDS.index("extra") + 1:])
"""The later stages' typed :class:`~wps.model.Segment` fields (those declared after ``extra``), in
the order of the steps that set them (posts, text, noise tail, filters, decision, language,
dedup, Binoculars); a line holds those that are set."""
VERDICT_FIELDS = ("kept", "reasons", "stats")
"""Written on every line, also one read back without them: every stage judges or measures."""
TEXT_STEP_FIELDS = ("main_text", "stats")
"""Only the text step writes these: a line without them was written with ``--no-text``."""

DETECTOR_FIELDS = ("id", "url", "kind", "unit", "lang", "main_text", "prose_score", "reasons",
                   "kept", "bbox")
"""A slim line (``--fields detector``) and :class:`DetectorInput`, in order: all a detector reads."""
SEGMENT_LINE_TYPES: dict[str, tuple[type, str]] = {
    "url": (str, "a string"),
    "text": (str, "a string"),
    "main_text": (str, "a string"),
    "kept": (bool, "true or false"),
    "stats": (dict, "a JSON object"),
    "reasons": (list, "a list of strings"),
}
"""The fields later stages read, with the JSON type each must have."""


def detector_text(segment: Segment) -> str:
    """The text a detector should judge: the segment's part of the main text when it has one,
    else its whole text (without the text step there is no main text)."""
    return segment.main_text if segment.main_text.strip() else segment.text


def segment_key(doc_id: str, order: int) -> str:
    """The one segment id: ``<doc_id>:<order>``, unique across pages (a full line's
    ``segment_id``, a slim line's ``id``). The report's "Segment N" and the overlay's "N kept"
    show its ``order`` N; a full line's ``id`` is the segmenter's own name for the segment,
    unique on its page only. ``segmentation.json`` (Webis) lists the segments in this order
    without ids, leaving out any wholly outside the page."""
    return f"{doc_id}:{order:04d}"


def doc_id_for(url: str) -> str:
    """The page's document id: SHA-1 of its URL (text-and-filters.md §6)."""
    return hashlib.sha1(url.encode("utf-8")).hexdigest()


def top_xpaths(capture: PageCapture, node_ids: Iterable[int]) -> list[str]:
    """XPaths of the segment's top-level nodes: members whose parent is not a member."""
    members = set(node_ids)
    return [
        capture.nodes[i].xpath for i in sorted(members)
        if capture.nodes[i].parent not in members
    ]


@dataclass(frozen=True, slots=True)
class PageContext:
    """A line's :data:`PLACE_FIELDS` and its field order (``layout``).

    A line read back keeps both as written, so writing it back changes only what a stage
    changed; its place fields are not checked, as no stage reads them.
    """

    fields: dict[str, Any]
    layout: tuple[str, ...] = RECORD_FIELDS


def page_context(capture: PageCapture, segmentation: Segmentation, segment: Segment,
                 order: int) -> PageContext:
    """The place fields of the ``order``-th segment of a page, for a new line."""
    doc_id = doc_id_for(capture.url)
    left, top, right, bottom = segment.bbox
    return PageContext({
        "doc_id": doc_id,
        "url": capture.url,
        "page_id": capture.page_id,
        "segment_id": segment_key(doc_id, order),
        "id": segment.id,
        "order": order,
        "segmenter": segmentation.segmenter,
        "parent": segment.parent,
        "bbox": [round(float(v), BBOX_DECIMALS)
                 for v in (left, top, right - left, bottom - top)],  # no 63.08999999999992
        "polygon": segment.polygons,
        "node_ids": list(segment.node_ids),
        "xpaths": top_xpaths(capture, segment.node_ids),
        "incomplete": capture.incomplete,  # the page never finished loading: what rendered
    })


def _text_fields(segment: Segment) -> dict[str, Any]:
    """The :data:`TEXT_FIELDS` of a segment; the counts always follow its text."""
    return {
        "text": segment.text,
        "n_chars": len(segment.text),
        "n_words": len(segment.text.split()),
        "main_text": segment.main_text,
        "kept": segment.kept,
        "reasons": list(segment.reasons),
        "stats": dict(segment.stats),
    }


def _annotations(segment: Segment) -> dict[str, Any]:
    """The :data:`ANNOTATION_FIELDS` a segment has set, in order; ``simhash`` goes with ``dup``
    also when it is ``None`` (text too short to hash), as the dedup step wrote both."""
    values = {key: getattr(segment, key) for key in ANNOTATION_FIELDS}
    return {key: value for key, value in values.items()
            if value is not None or (key == "simhash" and values["dup"] is not None)}


def segment_record(segment: Segment, context: PageContext) -> dict[str, Any]:
    """One line: the fields of ``context.layout`` (place fields from the context, text fields
    and annotations from the segment, other fields from ``segment.extra``), then the verdict
    fields, the ``extra`` keys and the annotations it lacks."""
    annotations = _annotations(segment)
    values = {**segment.extra, **annotations, **context.fields, **_text_fields(segment)}
    record = {key: values[key] for key in context.layout if key in values}
    for key in VERDICT_FIELDS:
        record.setdefault(key, values[key])
    for key, value in (*segment.extra.items(), *annotations.items()):
        record.setdefault(key, value)
    return record


def segment_records(capture: PageCapture, segmentation: Segmentation) -> list[dict[str, Any]]:
    """The lines of a page's segments, in segment order."""
    return [
        segment_record(segment, page_context(capture, segmentation, segment, order))
        for order, segment in enumerate(segmentation.segments)
    ]


def segment_from_record(record: dict[str, Any], default_id: str = "",
                        ) -> tuple[Segment, PageContext]:
    """The segment a checked line describes, and its context; :func:`segment_record` of the two
    gives the line back.

    The segment is known by the line's ``segment_id`` (unique across pages, what the dedup state
    stores), else ``default_id``; its outline stays in the context.
    """
    context = PageContext({key: record[key] for key in PLACE_FIELDS if key in record},
                          tuple(record))
    segment = Segment(
        id=str(record.get("segment_id", default_id)),
        polygons=[],
        text=record.get("text", ""),
        main_text=record.get("main_text", ""),
        kept=record.get("kept", True),
        reasons=list(record.get("reasons", [])),
        stats=dict(record.get("stats", {})),
        extra={key: value for key, value in record.items()  # a null annotation stays as read
               if key not in RECORD_FIELDS and (key not in ANNOTATION_FIELDS or value is None)},
    )
    for key in ANNOTATION_FIELDS:
        if record.get(key) is not None:
            setattr(segment, key, record[key])
    return segment, context


@dataclass(slots=True)
class SegmentLine:
    """A line read back: where it was (``file:line``), its segment and its context."""

    where: str
    segment: Segment
    context: PageContext

    def record(self) -> dict[str, Any]:
        return segment_record(self.segment, self.context)


def check_segment_line(record: dict[str, Any], where: str,
                       required: Iterable[str] = ("text",)) -> None:
    """Refuse a line that lacks a ``required`` field or whose known fields have the wrong JSON
    type (``null`` included), so later stages (filter, dedup, Binoculars) fail with the line's
    place instead of taking a missing text as empty or a ``"false"`` as kept."""
    for key, (kind, expected) in SEGMENT_LINE_TYPES.items():
        if key in record and not isinstance(record[key], kind):
            raise InputFileError(f"{where}: {key!r} must be {expected}, "
                                 f"not {short_repr(record[key])}")
    if not all(isinstance(reason, str) for reason in record.get("reasons", ())):
        raise InputFileError(f"{where}: 'reasons' must be a list of strings, "
                             f"not {short_repr(record['reasons'])}")
    for key in required:
        if key not in record:
            raise InputFileError(f"{where}: missing field {key!r}")


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error line stays one short line."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_origin(record: dict[str, Any], path: Path, number: int,
                  required: Iterable[str]) -> None:
    """Name what a line lacking a needed field was not written by, before its types are
    checked: a page (``url``), or the text step (``main_text``/``stats``)."""
    required = set(required)
    if is_slim(record) and not required <= record.keys():
        raise InputFileError(f"{path}:{number}: a slim line (written with --fields detector) "
                             f"lacks {sorted(required - record.keys())}; this step reads the "
                             "full lines of wps segment/batch without --fields detector")
    if "url" in required and not isinstance(record.get("url"), str):
        raise InputFileError(f"{path}:{number}: a segment line needs a 'url'")
    needs_text_step = required.intersection(TEXT_STEP_FIELDS)
    if needs_text_step and not needs_text_step <= record.keys():
        raise InputFileError(f"{path}: line {number}: no main_text/stats (not written by "
                             "wps segment with the text step)")


def read_segment_lines(path: str | Path,
                       required: Iterable[str] = ("text",)) -> Iterator[SegmentLine]:
    """The lines of a ``segments.jsonl`` file, read as a stream and checked one by one
    (:func:`check_segment_line`); a bad line is an error naming ``file:line``."""
    path, required = Path(path), tuple(required)
    for index, (number, record) in enumerate(iter_jsonl(path)):
        _check_origin(record, path, number, required)
        where = f"{path}:{number}"
        check_segment_line(record, where, required)
        yield SegmentLine(where, *segment_from_record(record, str(index)))


def write_segment_records(records: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write lines to ``path`` through a temporary file and a rename: a failed run (also one
    that fails while ``records`` is still being read) leaves ``path`` as it was."""
    return write_jsonl(records, path)


@dataclass(frozen=True, slots=True)
class DetectorInput:
    """One segment as a detector takes it: the fields of a slim line (:data:`DETECTOR_FIELDS`).

    ``id`` is the segment's one id (``<doc_id>:<order>``, the full line's ``segment_id``; the
    report's "Segment N" and the overlay's label show its N), ``main_text`` the text to judge
    (:func:`detector_text`), ``kind`` what the decision step named it (``"prose"``,
    ``"post"``, ...; ``""`` without that step), ``unit`` the detector unit it is judged in
    (``"article"``, ``"post-N"``, ...: :mod:`wps.decide.units`; ``""``: its own),
    ``prose_score`` its share of prose sentences (``None`` without the decision step),
    ``lang`` its language (``""``: none identified),
    ``bbox`` its box ``[left, top, width, height]`` in CSS pixels of the rendered page.
    """

    id: str
    url: str
    kind: str
    unit: str
    lang: str
    main_text: str
    prose_score: float | None
    reasons: tuple[str, ...]
    kept: bool
    bbox: tuple[float, float, float, float]

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> DetectorInput:
        """From a full or a slim line."""
        slim = detector_record(record)
        return cls(**{**slim, "reasons": tuple(slim["reasons"]), "bbox": tuple(slim["bbox"])})

    def to_json(self) -> dict[str, Any]:
        """The slim line."""
        return {key: list(value) if isinstance(value, tuple) else value
                for key in DETECTOR_FIELDS for value in [getattr(self, key)]}


UNIT_SEPARATOR = "\n"
"""Between the texts of a unit's pieces, as between the lines of one main text."""


@dataclass(frozen=True, slots=True)
class DetectorUnit:
    """The text a detector judges as one: the kept segments of one unit of one page
    (:mod:`wps.decide.units`), their texts joined in the order of the page's lines. ``unit`` is
    the page's name for it (``"article"``, ``"post-N"``, ``"prose-N"``; a segment without one
    is a unit of its own, named by its ``id``), ``ids`` its segments' ids."""

    url: str
    unit: str
    ids: tuple[str, ...]
    text: str


def unit_key(page: str, unit: str | None, own: str) -> tuple[str, str]:
    """Which unit a piece is judged in: its page and unit name, or ``own`` (its id) without one."""
    return (page, unit or own)


def segment_units(segments: Iterable[Segment]) -> dict[str, list[Segment]]:
    """The kept segments of one page by the detector unit they are judged in (``unit``; a
    segment without one is a unit of its own, under its ``id``), in the order of their first
    piece."""
    units: dict[str, list[Segment]] = {}
    for segment in segments:
        if segment.kept:
            units.setdefault(segment.unit or segment.id, []).append(segment)
    return units


def detector_units(inputs: Iterable[DetectorInput]) -> list[DetectorUnit]:
    """The detector's units of ``inputs`` (kept ones only), in the order of their first piece."""
    members: dict[tuple[str, str], list[DetectorInput]] = {}
    for item in inputs:
        if item.kept:
            members.setdefault(unit_key(item.url, item.unit, item.id), []).append(item)
    return [DetectorUnit(url, unit, tuple(item.id for item in items),
                         UNIT_SEPARATOR.join(item.main_text for item in items))
            for (url, unit), items in members.items()]


def is_slim(record: dict[str, Any]) -> bool:
    """A slim line (``--fields detector``): neither a full line's ``segment_id`` nor ``text``."""
    return "segment_id" not in record and "text" not in record


def detector_record(record: dict[str, Any]) -> dict[str, Any]:
    """The slim line (:data:`DETECTOR_FIELDS`) of a full line; a slim line gives itself."""
    slim = is_slim(record)
    text = record.get("main_text") or ""
    if not slim and not str(text).strip():
        text = record.get("text", "")
    prose = record.get("prose_score")
    return {
        "id": str(record.get("id" if slim else "segment_id", "")),
        "url": str(record.get("url", "")),
        "kind": str(record.get("kind") or ""),
        "unit": str(record.get("unit") or ""),
        "lang": str(record.get("lang") or ""),
        "main_text": str(text),
        "prose_score": float(prose) if isinstance(prose, (int, float)) else None,
        "reasons": [str(reason) for reason in record.get("reasons", ())],
        "kept": record.get("kept", True) is not False,
        "bbox": [float(v) for v in record.get("bbox") or (0.0, 0.0, 0.0, 0.0)],
    }
