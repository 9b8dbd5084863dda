"""Reading a page output folder back for its report, and rebuilding ``report.html`` there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..files import iter_jsonl, read_text, write_text_atomic
from ..jsonsafe import load_json_text
from ..model import PageCapture
from ..page_folder import CAPTURE_DIR, MAIN_TEXT_FILE, SEGMENTATION_FILE
from ..records import SEGMENTS_FILE, check_segment_line
from .page import REPORT_FILE, PageFacts, page_facts_from_capture, page_report_html, positive_int

CAPTURE_FILE = "capture.json"
"""What :meth:`wps.model.PageCapture.save` writes into ``capture/``."""


def is_page_folder(folder: Path) -> bool:
    """An output folder of ``wps segment --out`` (or one page of ``wps batch``)."""
    return (folder / SEGMENTATION_FILE).is_file() and (folder / SEGMENTS_FILE).is_file()


def read_page_facts(folder: Path, embed_screenshot: bool = False) -> PageFacts:
    """The facts of an output folder: from its capture (:meth:`PageCapture.load`), else the
    page size in ``segmentation.json``; with ``embed_screenshot`` the saved screenshot goes into
    the report."""
    if (folder / CAPTURE_DIR / CAPTURE_FILE).is_file():
        capture = PageCapture.load(folder / CAPTURE_DIR)
        screenshot = capture.screenshot
        saved = (f"{CAPTURE_DIR}/{screenshot.name}"
                 if screenshot is not None and screenshot.is_file() else None)
        return page_facts_from_capture(capture, saved, embed_screenshot)
    webis = json_object(folder / SEGMENTATION_FILE)
    return PageFacts("", "", positive_int(webis.get("width")), positive_int(webis.get("height")),
                     None)


def read_records(folder: Path) -> list[dict[str, Any]]:
    """The lines of ``folder/segments.jsonl``, type-checked as every stage checks them."""
    records = []
    for number, record in iter_jsonl(folder / SEGMENTS_FILE):
        check_segment_line(record, f"{folder / SEGMENTS_FILE}:{number}", required=())
        records.append(record)
    return records


def read_main_text(folder: Path) -> dict[str, Any] | None:
    """``main-text.json`` (the text step's page report), or ``None`` without the text step."""
    path = folder / MAIN_TEXT_FILE
    return json_object(path) if path.exists() else None


def json_object(path: Path) -> dict[str, Any]:
    value = load_json_text(read_text(path, "file"), str(path))
    if not isinstance(value, dict):
        raise InputFileError(f"{path}: expected a JSON object")
    return value


def write_page_report(folder: str | Path, embed_screenshot: bool = False) -> Path:
    """Rebuild ``folder/report.html`` from the files of a page output folder; every file is read
    and checked before the report replaces the old one. ``embed_screenshot``: the screenshot
    in ``capture/`` goes into the report (one file that can be moved alone)."""
    folder = Path(folder)
    if not is_page_folder(folder):
        raise InputFileError(f"{folder}: not a wps segment output folder (no "
                             f"{SEGMENTATION_FILE} and {SEGMENTS_FILE})")
    html = page_report_html(read_page_facts(folder, embed_screenshot), read_records(folder),
                            read_main_text(folder))
    return write_text_atomic(folder / REPORT_FILE, html)
