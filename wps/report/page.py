"""``report.html`` of one page output folder: the screenshot with every segment outlined by its
decision, the segment's text, main text, statistics and reasons on hover or click, a filterable
list of segments and keyboard navigation.

The file stands alone (inline CSS and script, no network, no libraries) and refers to the
screenshot beside it (``capture/screenshot.png``). Segment boxes are absolutely positioned
buttons over an ``<img>``: a 16,000 px page is one image and a few hundred elements, and no
event redraws anything. Page text is untrusted: it goes into the HTML only through
:func:`html.escape` and into the script only as JSON text that :func:`_script_json` makes inert;
the script shows it with ``textContent``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from html import escape
from importlib.resources import files
from typing import Any

from .labels import Box, place_labels, text_boxes

REPORT_FILE = "report.html"
SNIPPET_CHARS = 90
"""How much of a segment's text its list entry shows."""
LABEL_ROOM_PX = 24
"""Room above and below the page for the number labels of segments at its edges."""
LABEL_HEIGHT_PX, LABEL_CHAR_PX, LABEL_PAD_PX = 16, 7.5, 4
"""A label's size: 12 px bold monospace (see ``.seg .label`` in report.css)."""
KIND_COLOURS = ("#6f42c1", "#0a7d75", "#9a6700", "#1f6feb", "#bf3989", "#57606a", "#8250df",
                "#116329")
"""Label colours of the segment kinds, in order of first appearance (each also named in text)."""
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
    """The screenshot's path relative to the report, or ``None`` (a blank page-sized area)."""
    screenshot_truncated: bool = False
    text_boxes: tuple[Box, ...] = ()
    """Where the page has text: no number label goes there."""


def page_facts_from_capture(capture: Any, screenshot: str | None) -> PageFacts:
    """The facts of a :class:`~wps.model.PageCapture` (being written, or loaded back)."""
    return PageFacts(capture.url, capture.title or "", int(capture.width), int(capture.height),
                     screenshot, bool(capture.screenshot_truncated),
                     tuple(text_boxes(capture.nodes)))


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


def segment_views(records: Iterable[dict[str, Any]]) -> list[SegmentView]:
    views = []
    for index, record in enumerate(records):
        order = record.get("order")
        kind = record.get("kind")
        views.append(SegmentView(
            index=index,
            segment_id=str(record.get("segment_id", record.get("id", index))),
            number=order if isinstance(order, int) and not isinstance(order, bool) else index,
            box=_box(record.get("bbox")),
            kept=record.get("kept", True) is not False,
            reasons=tuple(str(reason) for reason in record.get("reasons", ())),
            kind=kind if isinstance(kind, str) else "",
            text=record.get("text", "") if isinstance(record.get("text"), str) else "",
        ))
    return views


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
    fields = {}
    for key, value in record.items():
        if key in known or key in DETAIL_SKIPPED:
            continue
        if _short(value):
            fields[key] = value
    stats = record.get("stats")
    return {
        "id": view.segment_id,
        "n": view.number,
        "kept": view.kept,
        "reasons": list(view.reasons),
        "kind": view.kind,
        "prose_score": record.get("prose_score"),
        "text": view.text,
        "main_text": (record.get("main_text") if text_step
                      and isinstance(record.get("main_text"), str) else None),
        "stats": stats if isinstance(stats, dict) else {},
        "fields": fields,
    }


def _short(value: Any) -> bool:
    """A value worth a row of the detail view: a scalar, or a list or object of at most
    :data:`DETAIL_FIELD_ITEMS` scalars (a number list such as a box, a few XPaths)."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return True
    return len(value) <= DETAIL_FIELD_ITEMS and not any(
        isinstance(item, (list, dict)) for item in value)


def _script_json(value: Any) -> str:
    """JSON for a ``<script type="application/json">``: ``<``, ``>`` and ``&`` as ``\\u``
    escapes, so no text inside can close the element or open a comment."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:  # NaN or infinity in a statistic: JSON.parse takes only null
        text = json.dumps(_finite(value), ensure_ascii=False, default=str, allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite number replaced by ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


@cache
def asset(name: str) -> str:
    """A file of this package (the report's stylesheet and scripts), read once."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def decision_word(kept: bool) -> str:
    return "kept" if kept else "dropped"


def decision_mark(kept: bool) -> str:
    """The sign beside a segment's number: the decision without colour."""
    return "\u2713" if kept else "\u2717"


def kind_colours(kinds: Iterable[str]) -> dict[str, str]:
    colours: dict[str, str] = {}
    for kind in kinds:
        if kind and kind not in colours:
            colours[kind] = KIND_COLOURS[len(colours) % len(KIND_COLOURS)]
    return colours


def page_report_html(facts: PageFacts, records: list[dict[str, Any]],
                     main_text: dict[str, Any] | None) -> str:
    """The report of one page as one HTML document."""
    views = segment_views(records)
    details = [_detail(record, view, main_text is not None)
               for record, view in zip(records, views)]
    colours = kind_colours(view.kind for view in views)
    kept = sum(view.kept for view in views)
    reasons = Counter(reason for view in views for reason in view.reasons)
    kinds = Counter(view.kind for view in views if view.kind)
    name = facts.title or facts.url or "page"
    parts = [
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        # nothing but the screenshot beside the report may load; no request leaves the machine
        ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "'self' file: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"),
        f"<title>Segments: {escape(name)}</title>\n<style>\n{asset('report.css')}</style>\n",
        "</head>\n<body class=\"page-report\">\n",
        _page_header(facts, views, kept, main_text),
        "<div class=\"layout\">\n<aside class=\"panel\" aria-label=\"Segments\">\n",
        _filters(views, kept, reasons, kinds),
        _legend(colours),
        ("<p class=\"sr-only\" id=\"announce\" aria-live=\"polite\"></p>"
         "<section class=\"detail\" id=\"detail\" tabindex=\"-1\">"
         "<h2>Segment</h2><p class=\"hint\">Hover or click a segment, or press j / k "
         "(\u2193 / \u2191) to step through the list; Enter shows the selected one on the "
         "page; Esc clears.</p></section>\n"),
        _segment_list(views, colours),
        "</aside>\n",
        _figure(facts, views, colours),
        "</div>\n",
        (f"<script type=\"application/json\" id=\"segment-data\">{_script_json(details)}"
        "</script>\n"),
        f"<script>\n{asset('page.js')}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _page_header(facts: PageFacts, views: list[SegmentView], kept: int,
                 main_text: dict[str, Any] | None) -> str:
    dropped = len(views) - kept
    kept_chars = sum(len(view.text) for view in views if view.kept)
    dropped_chars = sum(len(view.text) for view in views if not view.kept)
    rows = [("URL", f"<code>{escape(facts.url)}</code>" if facts.url else "unknown"),
            ("Segments", (f"{len(views)}: {kept} kept ({kept_chars:,} characters), "
                         f"{dropped} dropped ({dropped_chars:,} characters)")),
            ("Page verdict", page_verdict_html(main_text))]
    if main_text is not None and isinstance(main_text.get("extractor"), str):
        unplaced = main_text.get("unaligned")
        rows.append(("Main text", (f"{escape(main_text['extractor'])}, "
                     f"{positive_int(main_text.get('blocks'))} blocks, "
                     f"{len(unplaced) if isinstance(unplaced, list) else 0} not found on the "
                     "page")))
    if facts.screenshot is None:
        rows.append(("Screenshot", "none (outlines on a blank page)"))
    elif facts.screenshot_truncated:
        rows.append(("Screenshot", "cut at the screenshot height limit"))
    cells = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows)
    return (f"<header class=\"top\"><h1>{escape(facts.title or 'Untitled page')}</h1>"
            f"<dl class=\"facts\">{cells}</dl>{_unplaced(main_text)}</header>\n")


def _unplaced(main_text: dict[str, Any] | None) -> str:
    """The main-text blocks the text step found but could not place on the page."""
    blocks = (main_text or {}).get("unaligned")
    if not isinstance(blocks, list) or not blocks:
        return ""
    items = "".join(
        f"<li>{escape(str(block.get('text', '')) if isinstance(block, dict) else str(block))}"
        "</li>" for block in blocks)
    return (f"<details class=\"unplaced\"><summary>{len(blocks)} main-text blocks not found on "
            f"the page</summary><ol>{items}</ol></details>")


def page_verdict_html(main_text: dict[str, Any] | None) -> str:
    """The text step's verdict on the whole page, with its reasons."""
    if main_text is None or not isinstance(main_text.get("page_kept"), bool):
        return "none (no text step)"
    reasons = main_text.get("page_reasons")
    reasons = [str(r) for r in reasons] if isinstance(reasons, list) else []
    word = decision_word(main_text["page_kept"])
    mark = decision_mark(main_text["page_kept"])
    suffix = f": {escape(', '.join(reasons))}" if reasons else ""
    return f"<span class=\"verdict {word}\">{mark} {word}</span>{suffix}"


def _filters(views: list[SegmentView], kept: int, reasons: Counter[str],
             kinds: Counter[str]) -> str:
    decision = "".join(
        f"<label><input type=\"radio\" name=\"decision\" value=\"{value}\"{checked}> "
        f"{label} ({count})</label>"
        for value, label, count, checked in (("all", "all", len(views), " checked"),
                                             ("kept", "\u2713 kept", kept, ""),
                                             ("dropped", "\u2717 dropped", len(views) - kept, "")))
    reason_options = "".join(f"<option value=\"{escape(reason)}\">{escape(reason)} ({count})"
                             "</option>" for reason, count in sorted(reasons.items()))
    html = ("<form class=\"filters\" id=\"filters\"><fieldset><legend>Decision</legend>"
            f"{decision}</fieldset>"
            "<label class=\"select\">Reason <select id=\"reason-filter\">"
            f"<option value=\"\">any</option>{reason_options}</select></label>")
    if kinds:
        kind_options = "".join(f"<option value=\"{escape(kind)}\">{escape(kind)} ({count})"
                               "</option>" for kind, count in sorted(kinds.items()))
        html += ("<label class=\"select\">Kind <select id=\"kind-filter\">"
                 f"<option value=\"\">any</option>{kind_options}</select></label>")
    html += ("<label class=\"select\">Zoom <select id=\"zoom\"><option value=\"1\">100%</option>"
             "<option value=\"0.75\">75%</option><option value=\"0.5\">50%</option>"
             "<option value=\"0.25\">25%</option></select></label>"
             "<p class=\"shown\" id=\"shown\" aria-live=\"polite\"></p></form>\n")
    return html


def _legend(colours: dict[str, str]) -> str:
    items = ["<li><span class=\"swatch kept\"></span> \u2713 kept: solid outline</li>",
             ("<li><span class=\"swatch dropped\"></span> \u2717 dropped: dashed outline, "
             "hatched left edge</li>")]
    if colours:
        chips = " ".join(f"<span class=\"chip\" style=\"background:{colour}\">{escape(kind)}"
                         "</span>" for kind, colour in colours.items())
        items.append(f"<li>label colour = kind: {chips}</li>")
    return f"<ul class=\"legend\" aria-label=\"Legend\">{''.join(items)}</ul>\n"


def _segment_list(views: list[SegmentView], colours: dict[str, str]) -> str:
    items = []
    for view in views:
        word = decision_word(view.kept)
        snippet = " ".join(view.text.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS - 1] + "\u2026"
        kind = (f" <span class=\"chip\" style=\"background:{colours[view.kind]}\">"
                f"{escape(view.kind)}</span>" if view.kind else "")
        reasons = (f"<span class=\"reasons\">{escape(', '.join(view.reasons))}</span>"
                   if view.reasons else "")
        items.append(
            f"<li><button type=\"button\" class=\"item {word}\" data-index=\"{view.index}\">"
            f"<span class=\"num\">{view.number}</span> <span class=\"mark\">"
            f"{decision_mark(view.kept)} {word}</span>{kind} {reasons}"
            f"<span class=\"snippet\">{escape(snippet) or '(no text)'}</span></button></li>")
    return f"<ol class=\"items\" id=\"items\">{''.join(items)}</ol>\n"


def _figure(facts: PageFacts, views: list[SegmentView], colours: dict[str, str]) -> str:
    width = max([facts.width, 1, *(math.ceil(v.box[0] + v.box[2]) for v in views)])
    height = max([facts.height, 1, *(math.ceil(v.box[1] + v.box[3]) for v in views)])
    image = (f"<img src=\"{escape(facts.screenshot)}\" width=\"{facts.width or width}\" "
             f"alt=\"Screenshot of the page\" decoding=\"async\">" if facts.screenshot else "")
    labels = [f"{view.number} {decision_mark(view.kept)}" for view in views]
    sizes = [(math.ceil(LABEL_CHAR_PX * len(label)) + 2 * LABEL_PAD_PX, LABEL_HEIGHT_PX)
             for label in labels]
    places = place_labels([(v.box[0], v.box[1], v.box[0] + v.box[2], v.box[1] + v.box[3])
                           for v in views], sizes, facts.text_boxes,
                          (0, -LABEL_ROOM_PX, width, height + LABEL_ROOM_PX))
    boxes = []
    # Larger boxes first: a segment inside another one is drawn above it and takes the click.
    for view in sorted(views, key=lambda v: -(v.box[2] * v.box[3])):
        left, top, box_width, box_height = view.box
        word = decision_word(view.kept)
        reasons = ", ".join(view.reasons)
        label = (f"Segment {view.number}, {word}" + (f": {reasons}" if reasons else "")
                 + (f", kind {view.kind}" if view.kind else ""))
        chip = f"background:{colours[view.kind]};" if view.kind else ""
        (x, y), (label_width, _) = places[view.index], sizes[view.index]
        boxes.append(
            f"<button type=\"button\" tabindex=\"-1\" class=\"seg {word}\" "
            f"data-segment-id=\"{escape(view.segment_id)}\" data-index=\"{view.index}\" "
            f"data-kept=\"{str(view.kept).lower()}\" "
            f"data-reasons=\"{escape(' '.join(view.reasons))}\" "
            f"data-kind=\"{escape(view.kind)}\" aria-label=\"{escape(label)}\" "
            f"title=\"{escape(label)}\" style=\"left:{left:g}px;top:{top:g}px;"
            f"width:{box_width:g}px;height:{box_height:g}px\">"
            f"<span class=\"label\" style=\"{chip}left:{x - left:.0f}px;top:{y - top:.0f}px;"
            f"width:{label_width}px\">{labels[view.index]}</span></button>")
    return (f"<main class=\"page\" id=\"page\" style=\"padding-top:{LABEL_ROOM_PX}px;"
            f"padding-bottom:{LABEL_ROOM_PX}px\">"
            f"<div class=\"stage\" id=\"stage\" style=\"width:{width}px;height:{height}px\">"
            f"{image}{''.join(boxes)}</div></main>\n")
