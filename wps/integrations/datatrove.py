"""A datatrove step: web pages in, one Document per kept segment out.

FineWeb-style pipelines read WARCs (``WarcReader``), extract, filter and deduplicate;
:class:`WpsSegments` takes the extraction's place: each Document's ``text`` is a page's HTML
(its URL in ``metadata["url"]``, as ``WarcReader`` gives them), rendered offline in Chromium as
``wps batch`` renders JSONL/WARC pages (:class:`~wps.model.StoredPage`: nothing is fetched), then
segmented by the page pipeline; every kept segment leaves as a Document whose text is the
detector's text and whose metadata is the rest of its :class:`~wps.records.DetectorInput`::

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from wps.integrations.datatrove import WpsSegments

    LocalPipelineExecutor(pipeline=[WarcReader("crawl/"), WpsSegments(languages=("en",)),
                                    JsonlWriter("segments/")], tasks=4).run()

One Chromium runs per task (rank). A page that fails (a timeout, a crash of the renderer) is
counted (``failed_<error>``) and skipped, as datatrove's own extractors skip what they cannot
parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, ClassVar

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep

from ..errors import WpsError
from ..model import StoredPage
from ..pipeline import PipelineOptions

__all__ = ["WpsSegments"]


class WpsSegments(PipelineStep):
    """Segment each page Document; yield one Document per kept segment.

    Parameters
    ----------
    options
        The page pipeline's :class:`~wps.pipeline.PipelineOptions` (default: its defaults, the
        screenshot taken only for a segmenter that reads it).
    by_unit
        One Document per detector unit instead (:mod:`wps.decide.units`: a page's article
        whole, each post alone): ``id`` ``<doc_id>:<unit>``, ``text`` the unit's pieces joined,
        ``metadata`` the page Document's plus ``page_id``, ``unit`` and ``segments`` (the ids
        of its pieces).
    **overrides
        Single fields of ``options``, e.g. ``languages=("en", "de")`` or ``segmenter="baseline"``.

    A segment's Document has ``id`` the segment's id (``<doc_id>:<order>``), ``text`` its
    detector text, and ``metadata`` the page Document's metadata plus ``page_id`` (the page
    Document's id), ``kind``, ``unit`` (the detector unit it belongs to: group a page's
    Documents by it to judge its article whole), ``lang``, ``prose_score``, ``reasons`` and
    ``bbox``.
    """

    name = "🧩 wps segments"
    type = "🔻 - EXTRAC"
    _requires_dependencies: ClassVar[list[str]] = ["playwright"]

    def __init__(self, options: PipelineOptions | None = None, *, by_unit: bool = False,
                 **overrides: Any) -> None:
        super().__init__()
        self.options = _quiet(PipelineOptions.resolve(options, overrides)).checked()
        self.by_unit = by_unit

    def run(self, data: DocumentsPipeline, rank: int = 0,
            world_size: int = 1) -> DocumentsPipeline:
        from ..capture import Browser

        if data is None:
            return
        with Browser(self.options.capture_options) as browser:
            for page in data:
                self.stat_update("pages")
                yield from self.segments(page, browser)

    def segments(self, page: Document, browser: Any) -> Iterator[Document]:
        """The kept segments (or detector units) of one page Document, as Documents."""
        from ..capture import discard_screenshot
        from ..pipeline import segment

        stored = StoredPage.of(page.text, page.metadata.get("url"))
        with self.track_time():
            try:
                result = segment(stored, self.options, browser=browser)
            except WpsError as err:
                self.stat_update("failed", f"failed_{type(err).__name__}")
                return
        discard_screenshot(result.capture.screenshot)
        if self.by_unit:
            for unit in result.detector_units():
                self.stat_update("units")
                doc_id = unit.ids[0].rpartition(":")[0]
                yield Document(text=unit.text, id=f"{doc_id}:{unit.unit}", metadata={
                    **page.metadata, "url": unit.url, "page_id": page.id, "unit": unit.unit,
                    "segments": list(unit.ids)})
            return
        for item in result.detector_input():
            self.stat_update("segments")
            yield Document(text=item.main_text, id=item.id, metadata={
                **page.metadata, "url": item.url, "page_id": page.id, "kind": item.kind,
                "unit": item.unit, "lang": item.lang, "prose_score": item.prose_score,
                "reasons": list(item.reasons), "bbox": list(item.bbox)})


def _quiet(options: PipelineOptions) -> PipelineOptions:
    """Without options naming a capture, take no screenshot unless the segmenter reads one: no
    picture leaves this step."""
    if options.capture_options is not None:
        return options
    from ..capture import CaptureOptions
    from ..segmenters import wants_screenshot

    screenshot = wants_screenshot(options.build_segmenter())
    return replace(options, capture_options=CaptureOptions(screenshot=screenshot))
