"""The page pipeline as explicit steps: capture → segment → (text → filter → dedup) → output.

Each step is one function call in :func:`segment`, so a later stage is inserted with one line;
:func:`segment_to_directory` adds the output step (``wps segment --out`` and ``wps batch``).

Example
-------
>>> import wps
>>> result = wps.segment("datasets/examples/forum.html")           # doctest: +SKIP
>>> [s.text[:30] for s in result.segmentation.segments]             # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DatasetError, InputFileError
from .model import PageCapture, Segmentation
from .segmenters import build_segmenter

if TYPE_CHECKING:  # the capture package imports playwright lazily; keep this module light
    from .capture import Browser, CaptureOptions

DEFAULT_SEGMENTER = "dom-cohesion"


@dataclass(slots=True)
class PageResult:
    """One processed page: its capture and the segments found on it."""

    capture: PageCapture
    segmentation: Segmentation
    output_dir: Path | None = None
    """Where :func:`segment_to_directory` wrote the outputs (``None`` for :func:`segment`)."""
    text: Any = None
    """The text step's :class:`~wps.text.stage.TextStageResult` (``None`` with ``text=False``)."""


def load_capture(
    source: str | Path | PageCapture,
    *,
    capture_options: CaptureOptions | None = None,
    browser: Browser | None = None,
) -> PageCapture:
    """Step 1: a capture from a URL, a local HTML file, a Webis page folder or a capture folder."""
    if isinstance(source, PageCapture):
        return source
    if isinstance(source, Path) or "://" not in str(source):
        path = Path(source)
        if path.is_dir():
            if (path / "capture.json").is_file():
                return PageCapture.load(path)
            if (path / "nodes.csv").exists() or (path / "ground-truth.json").exists():
                return PageCapture.from_webis(path)  # DatasetError names what is missing
            raise DatasetError(
                f"{path}: neither a page capture (capture.json) nor a Webis-WebSeg-20 page folder "
                "(nodes.csv)"
            )
        if not path.exists():
            raise InputFileError(f"{path}: no such file or folder")
    from .capture import capture_page

    return capture_page(source, capture_options, browser=browser)


def run_segmenter(
    capture: PageCapture, segmenter: str = DEFAULT_SEGMENTER,
    segmenter_options: dict[str, Any] | None = None,
) -> Segmentation:
    """Step 2: the named segmenter's segmentation of the capture."""
    return build_segmenter(segmenter, **(segmenter_options or {})).segment(capture)


def segment(
    source: str | Path | PageCapture,
    *,
    segmenter: str = DEFAULT_SEGMENTER,
    segmenter_options: dict[str, Any] | None = None,
    capture_options: CaptureOptions | None = None,
    browser: Browser | None = None,
    noise_model: str | Path | None = None,
    dedup_db: str | Path | None = None,
    text: bool = True,
    config: dict[str, Any] | str | Path | None = None,
    extractor: str | None = None,
) -> PageResult:
    """Capture (unless given a capture) and segment one page.

    ``source`` is an http(s) URL, a local ``.html``/``.html.gz`` file, a Webis-WebSeg-20 page
    folder (with ``nodes.csv``), a saved capture folder (with ``capture.json``) or a
    :class:`~wps.model.PageCapture`. Pass a :class:`~wps.capture.Browser` to reuse one Chromium
    across pages. Segmenter options are the segmenter's keyword arguments (see its class).
    ``noise_model`` (a ``wps train-noise`` folder) cuts boilerplate tails off segment texts;
    ``dedup_db`` (a SQLite state file) marks segments repeated from earlier pages of the site.
    Both steps are off when ``None``. ``text`` maps the main text onto the segments and marks
    each kept or dropped by the filter rules; ``config`` (a TOML path, or a dict from
    :func:`wps.config.load_config`) sets extractor and thresholds; ``extractor`` overrides its
    ``[extract] extractor``.
    """
    segmenter_instance = build_segmenter(segmenter, **(segmenter_options or {}))  # fail fast
    capture = load_capture(source, capture_options=capture_options, browser=browser)
    segmentation = segmenter_instance.segment(capture)
    text_result = None
    if text:  # main text onto segments (text-and-filters.md §1)
        from .text.stage import map_main_text

        text_result = map_main_text(capture, segmentation, config, extractor)
    if noise_model is not None:  # after text mapping, before the filters
        from .noise import NoiseTailCutter

        NoiseTailCutter(noise_model).process(segmentation.segments)
    if text_result is not None:  # filter rules (§2, §3): kept / reasons on every segment
        from .text.stage import filter_segments

        filter_segments(capture, segmentation, text_result)
    if dedup_db is not None:  # after the filters: measured against earlier pages of the site
        from .dedup import Deduplicator

        with Deduplicator(dedup_db) as deduplicator:
            deduplicator.process(capture.url, segmentation.segments)
    return PageResult(capture, segmentation, text=text_result)


def segment_to_directory(
    source: str | Path | PageCapture,
    out_dir: str | Path,
    *,
    segmenter: str = DEFAULT_SEGMENTER,
    segmenter_options: dict[str, Any] | None = None,
    capture_options: CaptureOptions | None = None,
    browser: Browser | None = None,
    noise_model: str | Path | None = None,
    dedup_db: str | Path | None = None,
    text: bool = True,
    config: dict[str, Any] | str | Path | None = None,
    extractor: str | None = None,
    keep_only: bool = False,
) -> PageResult:
    """:func:`segment`, then write every output into ``out_dir`` atomically.

    ``out_dir`` gets ``capture/`` (the page capture), ``segmentation.json`` (Webis format, what
    ``wps eval`` reads), ``segments.jsonl`` and ``overlay.png``; it replaces an older folder there.
    ``keep_only`` writes only the kept segments to ``segments.jsonl``.
    """
    from .output import write_page_outputs

    result = segment(source, segmenter=segmenter, segmenter_options=segmenter_options,
                     capture_options=capture_options, browser=browser, noise_model=noise_model,
                     dedup_db=dedup_db, text=text, config=config, extractor=extractor)
    rendered_screenshot = result.capture.screenshot if result.capture.source == "browser" else None
    write_page_outputs(result.capture, result.segmentation, out_dir, keep_only=keep_only)
    if rendered_screenshot is not None and not isinstance(source, PageCapture):
        from .capture import discard_screenshot

        discard_screenshot(rendered_screenshot)  # the saved copy replaces the temporary one
    result.output_dir = Path(out_dir)
    return result
