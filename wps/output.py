"""The page output folder of ``wps segment``: ``capture/``, ``segmentation.json`` (Webis
format, via :mod:`wps.webis`), ``segments.jsonl`` (its lines are :mod:`wps.records`'), an overlay
picture and ``main-text.json``; and the ``--format json`` page object.

A page's outputs are written into a temporary sibling folder and renamed into place, so a failed
run never leaves a half-written folder.
"""

from __future__ import annotations

import colorsys
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import OutputError
from .files import atomic_file, check_replaceable_folder, staging_directory
from .model import PageCapture, Segmentation
from .records import SEGMENTS_FILE, doc_id_for, segment_records, write_segment_records
from .webis import to_webis

CAPTURE_DIR = "capture"
SEGMENTATION_FILE = "segmentation.json"
OVERLAY_FILE = "overlay.png"
MAIN_TEXT_FILE = "main-text.json"
"""The text step's page report, written beside the outputs by ``wps segment`` and ``wps batch``."""


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
        write_segment_records(records, staging / SEGMENTS_FILE)
        draw_overlay(capture, segmentation, staging / OVERLAY_FILE)
        if main_text is not None:
            (staging / MAIN_TEXT_FILE).write_text(
                json.dumps(main_text, ensure_ascii=False, indent=1), encoding="utf-8")
    if capture.screenshot is not None:
        capture.screenshot = out_dir / CAPTURE_DIR / Path(capture.screenshot).name
    return out_dir
