"""``report.html`` of one page output folder: the screenshot with every segment outlined by its
decision, the segment's text, main text, statistics and reasons on hover or click, a filterable
list of segments and keyboard navigation.

The file stands alone (inline CSS and script, no network, no libraries) and refers to the
screenshot beside it (``capture/screenshot.png``), or holds it as a ``data:`` URL
(``embed_screenshot``). Segment boxes are absolutely positioned buttons over an ``<img>``: a
16,000 px page is one image and a few hundred elements, and no event redraws anything. Page
text is untrusted: the Jinja2 template (``templates/page.html``, autoescape on) escapes every
value it prints and hands the script its data through ``tojson``; the script shows text with
``textContent`` only.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..reasons import explain
from .labels import Box, place_labels, text_boxes
from .render import render
from .screenshot import image_height, screenshot_data_url

REPORT_FILE = "report.html"
SNIPPET_CHARS = 90
"""How much of a segment's text its list entry shows."""
LABEL_ROOM_PX = 24
"""Room above and below the page for the number labels of segments at its edges."""
LABEL_HEIGHT_PX, LABEL_CHAR_PX, LABEL_PAD_PX = 16, 7.5, 4
"""A label's size: 12 px bold monospace (see ``.seg .label`` in report.css)."""
KIND_COLOURS = {
    "prose": "#116329", "post": "#0a6b63", "heading": "#6f42c1", "quote": "#9c36b5",
    "chrome": "#5e5440", "navigation": "#7a4100", "link-list": "#8a6a00", "listing": "#5c6b00",
    "spec": "#57606a", "table": "#bf3989", "form": "#7d4e57", "boilerplate": "#32383f",
}
"""Label colours of the kinds :mod:`wps.decide` names, the same on every page; none is blue
or red like a kept or dropped outline (each kind is also named in text)."""
OTHER_KIND_COLOURS = ("#5a3e85", "#355e3b", "#8c4a6b", "#4a5a6a", "#7d5a00", "#2f5d62")
"""Colours of any other kind, picked by a checksum of its name: also fixed across pages."""
PAGE_CSP = ("default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'")
DETAIL_SKIPPED = frozenset({"polygon", "node_ids", "doc_id", "url", "page_id", "segmenter",
                            "records"})
"""Line fields the detail view leaves out: page-wide or too long to read there."""
DETAIL_FIELD_ITEMS = 12
"""A further list or object field with more items than this is left out of the detail view."""


@dataclass(frozen=True, slots=True)
class PageFacts:
    """What the report says of the page itself, from its capture."""

    url: str
    title: str
    width: int
    height: int
    screenshot: str | None
    """The screenshot's path relative to the report or a ``data:`` URL, or ``None`` (a blank
    page-sized area)."""
    screenshot_truncated: bool = False
    text_boxes: tuple[Box, ...] = ()
    """Where the page has text: no number label goes there."""
    screenshot_height: int | None = None
    """How far down the screenshot goes (``None``: as far as the page)."""


def page_facts_from_capture(capture: Any, screenshot: str | None,
                            embed_screenshot: bool = False) -> PageFacts:
    """The facts of a :class:`~wps.model.PageCapture` (being written, or loaded back):
    ``screenshot`` is where the saved copy lies relative to the report; with
    ``embed_screenshot`` the capture's screenshot file goes into the report instead."""
    path = Path(capture.screenshot) if capture.screenshot is not None else None
    if path is None or not path.is_file():
        path = None
    elif embed_screenshot:
        screenshot = screenshot_data_url(path)
    return PageFacts(capture.url, capture.title or "", int(capture.width), int(capture.height),
                     screenshot, bool(capture.screenshot_truncated),
                     tuple(text_boxes(capture.nodes)),
                     image_height(path) if path is not None and screenshot else None)


def positive_int(value: Any) -> int:
    """A count or size read from a file: a positive number, else 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return int(value) if math.isfinite(value) and value > 0 else 0


@dataclass(frozen=True, slots=True)
class SegmentView:
    """One line of ``segments.jsonl`` as the report shows it."""

    index: int
    segment_id: str
    number: int
    box: tuple[float, float, float, float]
    kept: bool
    reasons: tuple[str, ...]
    kind: str
    text: str
    unit: str = ""
    """The detector unit a kept segment is judged in (``""``: none named)."""

    @property
    def word(self) -> str:
        return decision_word(self.kept)

    @property
    def area(self) -> float:
        return self.box[2] * self.box[3]


def segment_views(records: Iterable[dict[str, Any]]) -> list[SegmentView]:
    views = []
    for index, record in enumerate(records):
        order = record.get("order")
        kind = record.get("kind")
        segment_id = str(record.get("segment_id", record.get("id", index)))
        if not isinstance(order, int) or isinstance(order, bool):  # a slim line: the id's N
            tail = segment_id.rpartition(":")[2]
            order = int(tail) if ":" in segment_id and tail.isdigit() else index
        views.append(SegmentView(
            index=index,
            segment_id=segment_id,
            number=order,
            box=_box(record.get("bbox")),
            kept=record.get("kept", True) is not False,
            reasons=tuple(str(reason) for reason in record.get("reasons", ())),
            kind=kind if isinstance(kind, str) else "",
            text=_text(record),
            unit=unit if isinstance(unit := record.get("unit"), str) else "",
        ))
    return views


def _text(record: dict[str, Any]) -> str:
    """The segment's text; a slim line (``--fields detector``) has only its ``main_text``."""
    text = record.get("text", record.get("main_text", ""))
    return text if isinstance(text, str) else ""


def _box(bbox: Any) -> tuple[float, float, float, float]:
    """``[left, top, width, height]`` in CSS pixels; anything else is an empty box at 0, 0."""
    if (isinstance(bbox, list) and len(bbox) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    for v in bbox)):
        left, top, width, height = (float(v) for v in bbox)
        return left, top, max(width, 0.0), max(height, 0.0)
    return 0.0, 0.0, 0.0, 0.0


def _detail(record: dict[str, Any], view: SegmentView, text_step: bool) -> dict[str, Any]:
    """What the script shows of a segment: its texts, statistics, reasons and the short fields
    (its main text only where the text step ran: without it the field is empty, not found)."""
    known = {"text", "main_text", "stats", "reasons", "kept", "kind", "prose_score",
             "segment_id", "order"}
    fields = {key: value for key, value in record.items()
              if key not in known and key not in DETAIL_SKIPPED and _short(value)}
    stats = record.get("stats")
    return _finite({
        "id": view.segment_id,
        "n": view.number,
        "kept": view.kept,
        "reasons": list(view.reasons),
        "why": [explain(reason) or "" for reason in view.reasons],
        "kind": view.kind,
        "prose_score": record.get("prose_score"),
        "text": view.text,
        "main_text": (record.get("main_text") if text_step
                      and isinstance(record.get("main_text"), str) else None),
        "stats": stats if isinstance(stats, dict) else {},
        "fields": fields,
        "box": list(view.box),
    })


def _short(value: Any) -> bool:
    """A value worth a row of the detail view: a scalar, or a list or object of at most
    :data:`DETAIL_FIELD_ITEMS` scalars (a number list such as a box, a few XPaths)."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return True
    return len(value) <= DETAIL_FIELD_ITEMS and not any(
        isinstance(item, (list, dict)) for item in value)


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite number replaced by ``None`` (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def decision_word(kept: bool) -> str:
    return "kept" if kept else "dropped"


def decision_mark(kept: bool) -> str:
    """The sign beside a segment's number: the decision without colour."""
    return "\u2713" if kept else "\u2717"


def kind_colour(kind: str) -> str:
    """The label colour of ``kind``: the same on every page and in every report."""
    if kind in KIND_COLOURS:
        return KIND_COLOURS[kind]
    return OTHER_KIND_COLOURS[zlib.crc32(kind.encode("utf-8")) % len(OTHER_KIND_COLOURS)]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The text step's verdict on the whole page, as ``macros.html`` shows it."""

    word: str
    mark: str
    reasons: tuple[str, ...]


def page_verdict(main_text: dict[str, Any] | None) -> Verdict | None:
    """The verdict in ``main-text.json``, or ``None`` without the text step."""
    if main_text is None or not isinstance(main_text.get("page_kept"), bool):
        return None
    reasons = main_text.get("page_reasons")
    kept = main_text["page_kept"]
    return Verdict(decision_word(kept), decision_mark(kept),
                   tuple(str(r) for r in reasons) if isinstance(reasons, list) else ())


def page_report_html(facts: PageFacts, records: list[dict[str, Any]],
                     main_text: dict[str, Any] | None) -> str:
    """The report of one page as one HTML document."""
    views = segment_views(records)
    kept = [view for view in views if view.kept]
    dropped = [view for view in views if not view.kept]
    reasons = Counter(reason for view in views for reason in view.reasons)
    kinds = Counter(view.kind for view in views if view.kind)
    figure = _figure(facts, views)
    return render(
        "page.html", csp=PAGE_CSP, name=facts.title or facts.url or "page", facts=facts,
        counts={"segments": len(views), "kept": len(kept), "dropped": len(dropped),
                "kept_chars": sum(len(view.text) for view in kept),
                "dropped_chars": sum(len(view.text) for view in dropped)},
        page_verdict=page_verdict(main_text), text_step=_text_step(main_text),
        unplaced=_unplaced(main_text), label_room=LABEL_ROOM_PX,
        decisions=(("all", "all", len(views)), ("kept", "\u2713 kept", len(kept)),
                   ("dropped", "\u2717 dropped", len(dropped))),
        reasons=sorted(reasons.items()), kinds=sorted(kinds.items()),
        glossary={reason: explain(reason) or "" for reason in reasons},
        colours={kind: kind_colour(kind) for kind in kinds}, items=_items(views),
        figure=figure, boxes=_boxes(facts, views, figure),
        details=[_detail(record, view, main_text is not None)
                 for record, view in zip(records, views)])


def _text_step(main_text: dict[str, Any] | None) -> dict[str, Any] | None:
    """The header's line on the text step: its extractor and how many blocks it found."""
    if main_text is None or not isinstance(main_text.get("extractor"), str):
        return None
    return {"extractor": main_text["extractor"], "blocks": positive_int(main_text.get("blocks"))}


def _unplaced(main_text: dict[str, Any] | None) -> list[str]:
    """The main-text blocks the text step found but could not place on the page."""
    blocks = (main_text or {}).get("unaligned")
    if not isinstance(blocks, list):
        return []
    return [str(block.get("text", "")) if isinstance(block, dict) else str(block)
            for block in blocks]


def _items(views: list[SegmentView]) -> list[dict[str, Any]]:
    """The list entries, in the order of the lines."""
    items = []
    for view in views:
        snippet = " ".join(view.text.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS - 1] + "\u2026"
        items.append({"index": view.index, "number": view.number, "word": view.word,
                      "mark": decision_mark(view.kept), "kind": view.kind,
                      "colour": kind_colour(view.kind) if view.kind else "",
                      "unit": view.unit if view.kept else "",
                      "reasons": ", ".join(view.reasons), "snippet": snippet})
    return items


@dataclass(frozen=True, slots=True)
class Figure:
    """The page area: its size and how far down the screenshot covers it."""

    width: int
    height: int
    shot_height: int
    beyond: int
    """Segments wholly below the screenshot."""


def _figure(facts: PageFacts, views: list[SegmentView]) -> Figure:
    width = max([facts.width, 1, *(math.ceil(v.box[0] + v.box[2]) for v in views)])
    height = max([facts.height, 1, *(math.ceil(v.box[1] + v.box[3]) for v in views)])
    shot = min(height, facts.screenshot_height or facts.height or height)
    return Figure(width, height, shot, sum(view.box[1] >= shot for view in views))


def _boxes(facts: PageFacts, views: list[SegmentView], figure: Figure) -> list[dict[str, Any]]:
    """The outlines with their number labels, placed off the page's text; larger boxes first,
    so a segment inside another is drawn above it (the script picks the innermost on a click
    whatever the order)."""
    texts = [f"{view.number} {decision_mark(view.kept)}" for view in views]
    sizes = [(math.ceil(LABEL_CHAR_PX * len(text)) + 2 * LABEL_PAD_PX, LABEL_HEIGHT_PX)
             for text in texts]
    places = place_labels([(v.box[0], v.box[1], v.box[0] + v.box[2], v.box[1] + v.box[3])
                           for v in views], sizes, facts.text_boxes,
                          (0, -LABEL_ROOM_PX, figure.width, figure.height + LABEL_ROOM_PX))
    boxes = []
    for view in sorted(views, key=lambda v: -v.area):
        left, top, width, height = view.box
        beyond = facts.screenshot is not None and top >= figure.shot_height
        label = (f"Segment {view.number}, {view.word}"
                 + (f": {', '.join(view.reasons)}" if view.reasons else "")
                 + (f", kind {view.kind}" if view.kind else "")
                 + (f", judged in {view.unit}" if view.kept and view.unit else "")
                 + (", below the screenshot" if beyond else ""))
        (x, y), (label_width, _) = places[view.index], sizes[view.index]
        boxes.append({
            "index": view.index, "segment_id": view.segment_id, "word": view.word,
            "kept": str(view.kept).lower(), "reasons": " ".join(view.reasons),
            "kind": view.kind, "colour": kind_colour(view.kind) if view.kind else "",
            "label": label, "text": texts[view.index], "beyond": beyond,
            "left": f"{left:g}", "top": f"{top:g}", "width": f"{width:g}",
            "height": f"{height:g}", "label_left": f"{x - left:.0f}",
            "label_top": f"{y - top:.0f}", "label_width": label_width})
    return boxes
