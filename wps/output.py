"""Outputs of ``wps segment``: per-segment JSONL records, the Webis JSON and an overlay picture.

``segments.jsonl`` follows text-and-filters.md §6: one line per segment with every
:class:`~wps.model.Segment` field, so later stages (text mapping, filters, dedup, detectors) only
fill fields and never touch this module. A page's outputs are written into a temporary sibling
folder and renamed into place, so a failed run never leaves a half-written folder.
"""

from __future__ import annotations

import colorsys
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

from .errors import InputFileError, OutputError
from .files import atomic_file, check_replaceable_folder, staging_directory, write_jsonl
from .model import PageCapture, Segment, Segmentation
from .webis import to_webis

CAPTURE_DIR = "capture"
SEGMENTATION_FILE = "segmentation.json"
SEGMENTS_FILE = "segments.jsonl"
OVERLAY_FILE = "overlay.png"
BBOX_DECIMALS = 2
"""``segments.jsonl`` bbox values are CSS pixels: hundredths are all the precision there is."""
MAIN_TEXT_FILE = "main-text.json"
"""The text step's page report, written beside the outputs by ``wps segment`` and ``wps batch``."""


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


def segment_record(capture: PageCapture, segmentation: Segmentation, segment: Segment,
                   order: int) -> dict[str, Any]:
    """One ``segments.jsonl`` line; ``segment.extra`` keys are merged in at the top level."""
    doc_id = doc_id_for(capture.url)
    left, top, right, bottom = segment.bbox
    record: dict[str, Any] = {
        "doc_id": doc_id,
        "url": capture.url,
        "page_id": capture.page_id,
        "segment_id": f"{doc_id}:{order:04d}",
        "id": segment.id,
        "order": order,
        "segmenter": segmentation.segmenter,
        "parent": segment.parent,
        "bbox": [round(float(v), BBOX_DECIMALS)
                 for v in (left, top, right - left, bottom - top)],  # no 63.08999999999992
        "polygon": segment.polygons,
        "node_ids": list(segment.node_ids),
        "xpaths": top_xpaths(capture, segment.node_ids),
        "text": segment.text,
        "n_chars": len(segment.text),
        "n_words": len(segment.text.split()),
        "main_text": segment.main_text,
        "kept": segment.kept,
        "reasons": list(segment.reasons),
        "stats": dict(segment.stats),
    }
    for key, value in segment.extra.items():
        record.setdefault(key, value)
    return record


def segment_records(capture: PageCapture, segmentation: Segmentation) -> list[dict[str, Any]]:
    return [
        segment_record(capture, segmentation, segment, order)
        for order, segment in enumerate(segmentation.segments)
    ]


def page_summary(capture: PageCapture, segmentation: Segmentation) -> dict[str, Any]:
    """The ``wps segment --format json`` object: the capture's facts and every segment record."""
    return {
        "doc_id": doc_id_for(capture.url),
        "url": capture.url,
        "final_url": capture.final_url,
        "page_id": capture.page_id,
        "title": capture.title,
        "status": capture.status,
        "width": capture.width,
        "height": capture.height,
        "n_nodes": len(capture.nodes),
        "screenshot_truncated": capture.screenshot_truncated,
        "source": capture.source,
        "segmenter": segmentation.segmenter,
        "segments": segment_records(capture, segmentation),
    }


def segment_color(index: int) -> tuple[int, int, int]:
    """Well-separated colours: hues stepped by the golden ratio."""
    hue = (index * 0.618033988749895) % 1.0
    red, green, blue = colorsys.hsv_to_rgb(hue, 0.9, 0.85)
    return int(red * 255), int(green * 255), int(blue * 255)


def draw_overlay(capture: PageCapture, segmentation: Segmentation, path: str | Path) -> Path:
    """The screenshot (or a white page-sized canvas) with numbered, coloured segment outlines."""
    from PIL import Image, ImageDraw, ImageFont

    path = Path(path)
    if capture.screenshot is not None and Path(capture.screenshot).exists():
        with Image.open(capture.screenshot) as screenshot:
            image = screenshot.convert("RGB")
    else:
        image = Image.new("RGB", (max(1, capture.width), max(1, capture.height)), "white")
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.load_default(size=18)
    except TypeError:  # Pillow < 10.1 has only the small bitmap font
        font = ImageFont.load_default()
    for order, segment in enumerate(segmentation.segments):
        color = segment_color(order)
        for polygon in segment.polygons:
            for ring in polygon:
                if len(ring) >= 2:
                    draw.line([tuple(point) for point in ring], fill=color, width=3)
        left, top, _, _ = segment.bbox
        label = str(order)
        text_box = draw.textbbox((left + 4, top + 3), label, font=font)
        draw.rectangle((text_box[0] - 3, text_box[1] - 2, text_box[2] + 3, text_box[3] + 2),
                       fill=color)
        draw.text((left + 4, top + 3), label, fill="white", font=font)
    with atomic_file(path, binary=True) as stream:
        image.save(stream, format="PNG")
    return path


SEGMENT_LINE_TYPES: dict[str, tuple[type, str]] = {
    "url": (str, "a string"),
    "text": (str, "a string"),
    "main_text": (str, "a string"),
    "kept": (bool, "true or false"),
    "stats": (dict, "a JSON object"),
    "reasons": (list, "a list of strings"),
}
"""The ``segments.jsonl`` fields later stages read, with the JSON type each must have."""


def check_segment_line(record: dict[str, Any], where: str,
                       required: Iterable[str] = ("text",)) -> None:
    """Refuse a ``segments.jsonl`` line that lacks a ``required`` field or whose known fields
    have the wrong JSON type (``null`` included), so later stages (filter, dedup, Binoculars)
    fail with the line's place instead of taking a missing text as empty or a ``"false"`` as
    kept."""
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


def check_replaceable_output(out_dir: str | Path) -> None:
    """Writing replaces ``out_dir`` as a whole: only a missing or empty folder or an earlier page
    output folder (one holding ``segmentation.json``) may go, never a user's folder of files.
    Its place must take a new folder too, so an impossible ``--out`` fails before the page is
    rendered, not after."""
    check_replaceable_folder(out_dir, SEGMENTATION_FILE, "wps segment output folder")
    _check_creatable(Path(out_dir))


def _check_creatable(out_dir: Path) -> None:
    """The outputs go to a staging folder beside ``out_dir``: its nearest existing ancestor must
    be a folder that takes a new folder (tried, for ``os.access`` lets root pass anywhere, even
    where nothing can be created, as under ``/proc``); nothing is left behind."""
    ancestor = out_dir.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{out_dir}: cannot create folder ({ancestor} is not a folder)")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".wps-probe-", dir=ancestor))
    except OSError as err:
        raise OutputError(f"{out_dir}: cannot create folder in {ancestor} "
                          f"({err.strerror or err})") from None


def write_page_outputs(capture: PageCapture, segmentation: Segmentation,
                       out_dir: str | Path, keep_only: bool = False,
                       main_text: dict[str, Any] | None = None) -> Path:
    """Write ``capture/``, ``segmentation.json``, ``segments.jsonl``, ``overlay.png`` and, given
    the text step's page report, ``main-text.json`` atomically.

    Everything goes to a temporary sibling folder that replaces ``out_dir`` by a rename; afterwards
    ``capture.screenshot`` points at the saved copy.
    """
    out_dir = Path(out_dir)
    with staging_directory(out_dir) as staging:
        capture.save(staging / CAPTURE_DIR)
        with open(staging / SEGMENTATION_FILE, "w", encoding="utf-8") as handle:
            json.dump(to_webis(segmentation), handle)
        records = segment_records(capture, segmentation)
        if keep_only:  # only what may reach the detector
            records = [record for record in records if record["kept"]]
        write_jsonl(records, staging / SEGMENTS_FILE)
        draw_overlay(capture, segmentation, staging / OVERLAY_FILE)
        if main_text is not None:
            (staging / MAIN_TEXT_FILE).write_text(
                json.dumps(main_text, ensure_ascii=False, indent=1), encoding="utf-8")
    if capture.screenshot is not None:
        capture.screenshot = out_dir / CAPTURE_DIR / Path(capture.screenshot).name
    return out_dir
