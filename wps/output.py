"""The page output folder of ``wps segment``: ``capture/``, ``segmentation.json`` (Webis
format, via :mod:`wps.webis`), ``segments.jsonl`` (its lines are :mod:`wps.records`'), an overlay
picture, ``main-text.json`` and ``report.html`` (:mod:`wps.report`); and the ``--format json``
page object.

A page's outputs are written into a temporary sibling folder and renamed into place, so a failed
run never leaves a half-written folder.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import OutputError
from .files import check_replaceable_folder, staging_directory
from .model import PageCapture, Segment, Segmentation
from .page_folder import CAPTURE_DIR, MAIN_TEXT_FILE, OVERLAY_FILE, SEGMENTATION_FILE
from .records import (
    SEGMENTS_FILE,
    detector_record,
    doc_id_for,
    segment_records,
    write_segment_records,
)
from .report.overlay import draw_overlay
from .report.page import REPORT_FILE, page_facts_from_capture, page_report_html
from .state import PageState, PipelineStep
from .webis import to_webis


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


class OutputStep(PipelineStep):
    """The last step of ``wps segment`` and ``wps batch``: the page folder at ``out_dir``
    (:func:`write_page_outputs`, its options the same); with ``discard_rendered``, the rendered
    page's temporary screenshot goes once its copy is saved (or the writing failed)."""

    name = "output"
    needs = ("segmentation",)

    def __init__(self, out_dir: str | Path, *, keep_only: bool = False,
                 capture_folder: bool = True, overlay: bool = True,
                 embed_screenshot: bool = False, fields: str = "full", report: bool = True,
                 discard_rendered: bool = False, tidy: bool = True) -> None:
        self.out_dir = Path(out_dir)
        self.options = {"keep_only": keep_only, "capture_folder": capture_folder,
                        "overlay": overlay, "embed_screenshot": embed_screenshot,
                        "fields": fields, "report": report, "tidy": tidy}
        self.discard_rendered = discard_rendered

    def run(self, page: PageState) -> None:
        assert page.segmentation is not None  # needs, checked by run_steps
        capture = page.capture
        rendered = (capture.screenshot
                    if self.discard_rendered and capture.source == "browser" else None)
        try:
            write_page_outputs(capture, page.segmentation, self.out_dir,
                               main_text=main_text_report(page), segmented=page.segmented,
                               **self.options)
        finally:
            if rendered is not None:
                from .capture import discard_screenshot

                discard_screenshot(rendered)  # the saved copy replaces the temporary one


def main_text_report(page: PageState) -> dict[str, Any] | None:
    """``main-text.json``: the text step's page report with the final counts (``None``
    without the text step); the decision's verdict replaces the filters' page rules."""
    if page.text is None:
        return None
    segments: list[Segment] = page.segments
    report = {**page.text.to_json(segments),
              "incomplete": page.capture.incomplete, "unreached": page.capture.unreached}
    if page.verdict is not None:
        report["page_rules"] = report["page_reasons"]
        report.update(page_kept=page.verdict.is_article, page_reasons=page.verdict.reasons,
                      page_verdict=page.verdict.to_json(), units=unit_summary(segments))
    return report


def unit_summary(segments: list[Segment]) -> list[dict[str, Any]]:
    """What a detector judges on the page (:mod:`wps.decide.units`): each unit of the kept
    segments, in the order of its first piece, with the ids of its pieces and the characters
    of their detector text."""
    from .records import detector_text, segment_units

    return [{"unit": unit, "segments": [segment.id for segment in members],
             "chars": sum(len(detector_text(segment)) for segment in members)}
            for unit, members in segment_units(segments).items()]


def write_page_outputs(capture: PageCapture, segmentation: Segmentation,
                       out_dir: str | Path, keep_only: bool = False,
                       main_text: dict[str, Any] | None = None, *,
                       capture_folder: bool = True, overlay: bool = True,
                       embed_screenshot: bool = False, fields: str = "full",
                       report: bool = True, segmented: Segmentation | None = None,
                       tidy: bool = True) -> Path:
    """Write ``capture/``, ``segmentation.json``, ``segments.jsonl``, ``overlay.png``, given
    the text step's page report ``main-text.json``, and ``report.html`` (what a person opens
    first) atomically.

    Everything goes to a temporary sibling folder that replaces ``out_dir`` by a rename; afterwards
    ``capture.screenshot`` points at the saved copy. ``capture_folder=False`` leaves out
    ``capture/`` (the report then shows no screenshot) and ``overlay=False`` ``overlay.png``:
    ``wps batch`` skips both by default (the overlay's PNG decode and encode and the copy of
    the capture cost more than the segmentation itself). ``embed_screenshot`` puts the
    screenshot into ``report.html`` (a ``data:`` URL) so that the report stands alone, with or
    without ``capture/``. ``fields="detector"`` writes slim lines
    (:func:`~wps.records.detector_record`; the report still shows every field) and
    ``report=False`` leaves out ``report.html`` (``wps batch`` without ``--reports``).
    ``segmented`` is what ``segmentation.json`` holds: the segmenter's own segmentation, before
    the posts step cut posts into pieces (default ``segmentation``). ``tidy``: see
    :func:`~wps.files.staging_directory` (a batch tidies its folder itself).
    """
    out_dir = Path(out_dir)
    with staging_directory(out_dir, tidy=tidy) as staging:
        if capture_folder:
            capture.save(staging / CAPTURE_DIR)
        with open(staging / SEGMENTATION_FILE, "w", encoding="utf-8") as handle:
            # the page as segmented (posts whole): Webis segments are drawn by people, who
            # keep a comment with its replies; the detector's pieces are segments.jsonl's lines
            json.dump(to_webis(segmented or segmentation), handle)
        records = segment_records(capture, segmentation)
        if keep_only:  # only what may reach the detector
            records = [record for record in records if record["kept"]]
        write_segment_records(records if fields == "full" else map(detector_record, records),
                              staging / SEGMENTS_FILE)
        if overlay:
            draw_overlay(capture, segmentation, staging / OVERLAY_FILE)
        if main_text is not None:
            (staging / MAIN_TEXT_FILE).write_text(
                json.dumps(main_text, ensure_ascii=False, indent=1), encoding="utf-8")
        if report:
            (staging / REPORT_FILE).write_text(
                page_report_html(page_facts_from_capture(
                    capture, _saved_screenshot(capture) if capture_folder else None,
                    embed_screenshot), records, main_text), encoding="utf-8")
    if capture.screenshot is not None and capture_folder:
        capture.screenshot = out_dir / CAPTURE_DIR / Path(capture.screenshot).name
    return out_dir


def _saved_screenshot(capture: PageCapture) -> str | None:
    """The saved screenshot's path relative to the output folder, as the report refers to it."""
    if capture.screenshot is None or not Path(capture.screenshot).is_file():
        return None
    return f"{CAPTURE_DIR}/{Path(capture.screenshot).name}"
