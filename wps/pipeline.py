"""The page pipeline: capture → segment → main text → noise tail → filters → prose decision →
language → dedup → output.

:class:`PipelineOptions` says which steps run; :func:`build_steps` turns it into the ordered list
of :mod:`wps.steps` (one ``run(page)`` shape each), which :func:`segment`, ``wps batch`` and the
benchmarks all run. :func:`segment_to_directory` adds the output (``wps segment --out``), and one
page deadline covers it all.

Example
-------
>>> import wps
>>> result = wps.segment("datasets/examples/forum.html")           # doctest: +SKIP
>>> [s.text[:30] for s in result.segmentation.segments]             # doctest: +SKIP
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .deadline import Deadline
from .errors import DatasetError, InputFileError, UsageError
from .model import PageCapture, Segmentation, StoredPage
from .segmenters import Segmenter, build_segmenter
from .settings import packaged_config

PageSource = str | Path | PageCapture | StoredPage
"""What a page can be given as (see :func:`segment`)."""

if TYPE_CHECKING:  # the capture package imports playwright lazily; keep this module light
    from .capture import Browser, CaptureOptions
    from .records import DetectorInput, DetectorUnit
    from .steps import PipelineStep
    from .text.stage import TextStageResult

DEFAULT_SEGMENTER: str = packaged_config()["segmenter"]["name"]
"""The packaged ``[segmenter] name``."""
RESULT_NEUTRAL_CAPTURE_FIELDS = ("timeout_s", "max_renderer_mb", "chromium_path")
"""Capture options that bound or locate the work but do not change what a page gives."""
FIELD_SETS = ("full", "detector")
"""What a ``segments.jsonl`` line holds: every field (what ``wps filter``, ``wps dedup`` and
``wps binoculars`` read back), or the slim :data:`~wps.records.DETECTOR_FIELDS`."""


@dataclass(slots=True)
class PipelineOptions:
    """Every option of the page pipeline in one object, shared by the API, ``wps segment`` and
    ``wps batch`` (one place to add an option, and batch workers receive it as one value).

    ``None`` turns the noise and dedup steps off.
    """

    segmenter: str = DEFAULT_SEGMENTER
    segmenter_options: dict[str, Any] = field(default_factory=dict)
    """The segmenter's keyword arguments (see its class)."""
    capture_options: CaptureOptions | None = None
    """Rendering options for URLs and HTML files (``None``: the defaults)."""
    text: bool = True
    """Map the main text onto the segments and mark each kept or dropped by the filter rules."""
    config: dict[str, Any] | str | Path | None = None
    """A TOML path, or a dict from :func:`wps.config.load_config`: extractor and thresholds."""
    extractor: str | None = None
    """Overrides the config's ``[extract] extractor``."""
    noise_model: str | Path | None = None
    """A ``wps train-noise`` folder: cut boilerplate tails off segment texts."""
    dedup_db: str | Path | None = None
    """A SQLite state file: mark segments repeated from earlier pages of the site."""
    keep_only: bool = False
    """Write only the kept segments (what may reach the detector)."""
    embed_screenshot: bool = False
    """Put the screenshot into ``report.html`` (a ``data:`` URL): one file that stands alone
    (``wps batch`` then takes the screenshot, without ``capture/``)."""
    fields: str = "full"
    """``"full"``: every field of a line; ``"detector"``: the slim :data:`FIELD_SETS` line."""
    languages: tuple[str, ...] = ()
    """Keep only kept segments in these languages (``("en", "de")``; :mod:`wps.lang`); the
    language of every kept segment is named anyway (with the text step)."""
    report: bool = True
    """Write the page's ``report.html`` (``wps batch`` leaves it out unless ``--reports``)."""

    def __post_init__(self) -> None:
        if self.segmenter_options is None:  # accepted as "no options", as before this object
            self.segmenter_options = {}
        if self.keep_only and not self.text:
            raise UsageError("keep_only (--keep-only) needs the filters of the text step; "
                             "drop text=False (--no-text)")
        if self.fields not in FIELD_SETS:
            raise UsageError(f"fields (--fields) {self.fields!r}: choose from {list(FIELD_SETS)}")
        if isinstance(self.languages, str):
            self.languages = (self.languages,)
        self.languages = tuple(self.languages)
        if self.languages and not self.text:
            raise UsageError("languages (--lang) judge the kept segments of the text step; "
                             "drop text=False (--no-text)")

    @classmethod
    def resolve(cls, options: PipelineOptions | None,
                overrides: dict[str, Any]) -> PipelineOptions:
        """``options`` (or the defaults) with single fields replaced by keyword ``overrides``."""
        options = options or cls()
        if not overrides:
            return options
        unknown = sorted(set(overrides) - set(cls.__dataclass_fields__))
        if unknown:
            raise UsageError(f"unknown pipeline option(s) {unknown}; "
                             f"choose from {sorted(cls.__dataclass_fields__)}")
        return replace(options, **overrides)

    def dedup_path(self) -> Path | None:
        """The dedup state file (``None``: no dedup step): ``dedup_db``, else the config's
        ``[dedup] db`` (:func:`wps.dedup.store.configured_store_path`)."""
        from .config import resolve_config
        from .dedup.store import configured_store_path

        return configured_store_path(self.dedup_db, resolve_config(self.config)["dedup"]["db"])

    @property
    def timeout_s(self) -> float:
        """The page deadline, over every step: ``[run] timeout_s`` (``--timeout``), which the
        capture options carry."""
        from .capture.options import CaptureOptions

        return (self.capture_options or CaptureOptions()).timeout_s

    def output_key(self) -> str:
        """A short hash of every option that changes a page's outputs (``wps batch`` redoes a
        page when it differs). Derived from all fields, so a new option is covered without a
        list to keep up; left out are only limits and locations that do not change results:
        the timeout, the renderer memory limit, the Chromium binary, where the dedup state is."""
        import hashlib
        import json

        values = asdict(self)
        for limit in RESULT_NEUTRAL_CAPTURE_FIELDS:
            (values["capture_options"] or {}).pop(limit, None)
        if isinstance(self.config, dict):  # in their own fields; [batch] shapes no page
            config = {name: section for name, section in self.config.items()
                      if name not in ("run", "capture", "segmenter", "batch")}
            if "dedup" in config:
                config["dedup"] = {**config["dedup"], "db": ""}
            values["config"] = config
        values["dedup_db"] = self.dedup_path() is not None
        del values["report"]  # wps batch names it in its markers' outputs
        text = json.dumps(values, sort_keys=True, default=str)
        return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]

    def checked(self) -> PipelineOptions:
        """These options with the config resolved once (steps get its sections), after failing
        on what would fail after a capture: the segmenter and its options, the config file.
        ``wps.segment`` and ``wps batch`` (once for all its pages) call it before any page."""
        from .config import resolve_config

        self.build_segmenter()
        return replace(self, config=resolve_config(self.config, self.extractor))

    def build_segmenter(self) -> Segmenter:
        """The configured segmenter; options it does not take are a :class:`UsageError`."""
        try:
            return build_segmenter(self.segmenter, **self.segmenter_options)
        except TypeError as err:
            raise UsageError(f"segmenter options of {self.segmenter}: {err}") from None


@dataclass(slots=True)
class PageResult:
    """One processed page: its capture and the segments found on it."""

    capture: PageCapture
    segmentation: Segmentation
    output_dir: Path | None = None
    """Where :func:`segment_to_directory` wrote the outputs (``None`` for :func:`segment`)."""
    text: Any = None
    """The text step's :class:`~wps.text.stage.TextStageResult` (``None`` with ``text=False``)."""
    verdict: Any = None
    """The decision step's :class:`~wps.decide.page.PageVerdict` (``None`` without it)."""
    segmented: Segmentation | None = None
    """The segmenter's own segmentation (``segmentation.json``): ``segmentation`` before the
    posts step cut posts into pieces (``None``: the same as ``segmentation``)."""

    @property
    def counts(self) -> Counter[str]:
        """Kept / dropped segments and the drop reasons, after every step (0 when absent)."""
        from .filters.base import count_outcomes

        return count_outcomes(self.segmentation.segments)

    def detector_input(self) -> list[DetectorInput]:
        """What a detector reads, in one call: the kept segments, each as a small frozen
        :class:`~wps.records.DetectorInput` (id, url, kind, unit, lang, main_text,
        prose_score, reasons, kept, bbox: the fields of a ``--fields detector`` line).

        >>> [(s.id, s.kind, s.lang, s.main_text[:30]) for s in result.detector_input()]
        ... # doctest: +SKIP
        """
        from .records import DetectorInput, segment_records

        return [DetectorInput.from_record(record)
                for record in segment_records(self.capture, self.segmentation)
                if record["kept"]]

    def detector_units(self) -> list[DetectorUnit]:
        """What a detector judges, one text each: the page's article (its kept pieces joined),
        each post, each other kept prose segment (:class:`~wps.records.DetectorUnit`)."""
        from .records import detector_units

        return detector_units(self.detector_input())

    def main_text_report(self) -> dict[str, Any] | None:
        """``main-text.json``: the text step's page report with the final counts."""
        from .output import main_text_report
        from .state import PageState

        return main_text_report(PageState(self.capture, self.segmentation, self.segmented,
                                          self.text, verdict=self.verdict))


def load_capture(
    source: PageSource,
    *,
    capture_options: CaptureOptions | None = None,
    browser: Browser | None = None,
    deadline: Deadline | None = None,
) -> PageCapture:
    """Step 1: a capture from a URL, a local HTML file, a Webis page folder, a capture folder or
    HTML given as text (:class:`~wps.capture.StoredPage`)."""
    if isinstance(source, PageCapture):
        return source
    if isinstance(source, StoredPage):
        from .capture import capture_stored

        return capture_stored(source, capture_options, browser=browser, deadline=deadline)
    if isinstance(source, Path) or "://" not in str(source):
        path = _local_path(source)
        if path.is_dir():
            if (path / "capture.json").is_file():
                return PageCapture.load(path)
            if (path / "nodes.csv").exists() or (path / "ground-truth.json").exists():
                from .webis import capture_from_webis

                return capture_from_webis(path)  # DatasetError names what is missing
            raise DatasetError(
                f"{path}: neither a page capture (capture.json) nor a Webis-WebSeg-20 page folder "
                "(nodes.csv)"
            )
        if not path.exists():
            hint = "" if "/" in str(path) else " (a URL needs http:// or https://)"
            raise InputFileError(f"{path}: no such file or folder{hint}")
    from .capture import capture_page

    return capture_page(source, capture_options, browser=browser, deadline=deadline)


def _local_path(source: str | Path) -> Path:
    """``source`` as a path that can be asked about: text that is HTML, or a name the system
    cannot hold, is a one-line usage or input error here, never a raw ``OSError``."""
    text = str(source)
    if isinstance(source, str) and text.lstrip()[:1] == "<":
        raise UsageError(f"{text[:40]!r}...: looks like HTML, not a file or URL; pass it as "
                         "html=... (wps.segment(html=..., url=...)) or on stdin (wps segment -)")
    path = Path(source)
    try:
        path.stat()
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as err:  # too long, a NUL, a loop: nothing a page can be
        cause = getattr(err, "strerror", None) or err
        shown = text[:200] if text[:200].isprintable() else ascii(text[:200])
        raise InputFileError(f"{shown}: cannot be read ({cause})") from None
    return path


def segment(
    source: PageSource | None = None,
    options: PipelineOptions | None = None,
    *,
    html: str | bytes | None = None,
    url: str | None = None,
    browser: Browser | None = None,
    **overrides: Any,
) -> PageResult:
    """Capture (unless given a capture) and segment one page.

    ``source`` is an http(s) URL, a local ``.html``/``.html.gz`` file, a Webis-WebSeg-20 page
    folder (with ``nodes.csv``), a saved capture folder (with ``capture.json``) or a
    :class:`~wps.model.PageCapture`; or give the page's ``html`` (text or bytes) instead, with
    the ``url`` it is recorded under: it is rendered offline, as a local file is (its
    subresources are not fetched). ``options`` (default :class:`PipelineOptions`) says which
    steps run and how; keyword ``overrides`` replace single fields of it, so
    ``segment(page, segmenter="baseline")`` works without building an options object. Pass a
    :class:`~wps.capture.Browser` to reuse one Chromium across pages. A rendered page's
    screenshot (``result.capture.screenshot``) stays in a temporary folder for the caller until
    :func:`wps.capture.discard_screenshot` removes it (:func:`segment_to_directory` does that).
    """
    options = PipelineOptions.resolve(options, overrides)
    source = page_source(source, html, url)
    return _segment_within(source, options.checked(), browser, _deadline(source, options, browser))


def page_source(source: PageSource | None, html: str | bytes | None,
                url: str | None) -> PageSource:
    """The one page ``source`` or ``html`` (with its ``url``) name: exactly one of the two."""
    if html is None:
        if source is None:
            raise UsageError("no page given: pass a source (URL, file, folder) or html=...")
        if url is not None:
            raise UsageError("url= names the page of html=...; a source has its own")
        return source
    if source is not None:
        raise UsageError("give either a source or html=..., not both")
    return StoredPage.of(html, url)


def _deadline(source: PageSource, options: PipelineOptions,
              browser: Browser | None) -> Deadline:
    """The page's deadline: ``--timeout`` of the capture options, or of the browser's own
    options when the pipeline names none."""
    seconds = options.timeout_s
    if options.capture_options is None and browser is not None:
        seconds = browser.options.timeout_s
    return Deadline(seconds, what=source_name(source))


def source_name(source: PageSource) -> str:
    """How errors name a page: its URL, its path, or for HTML given as text its URL or
    ``<html>`` where none is known."""
    if isinstance(source, (PageCapture, StoredPage)):
        return source.url or "<html>"
    return str(source)


def warm_up(options: PipelineOptions) -> None:
    """Load what the first page's steps and outputs would load inside its deadline (about two
    seconds of imports and the language model on a quiet machine, several times that on a
    loaded one): a batch worker calls it before its first page, so that page does not time out
    where the others would not."""
    from .output import write_page_outputs  # noqa: F401 - its imports (Pillow, Jinja2)

    for step in build_steps(options):
        step.warm_up()


def build_steps(options: PipelineOptions) -> list[PipelineStep]:
    """The ordered steps after capture that ``options`` ask for; each gets its config section.

    segmentation → posts → main text → noise tail → filters → prose decision → language → dedup
    (the language of what is kept, and the ``languages`` filter, :mod:`wps.lang`): posts cut
    out of the segments before text is mapped onto them, segmentation after main-text extraction
    (text-and-filters.md §1), tails cut before the filters judge the texts, and de-duplication
    last, against earlier pages' kept segments.
    """
    from .config import resolve_config
    from .dedup.store import configured_store_path
    from .steps import DedupStep, FilterStep, MainTextStep, NoiseTailStep, SegmentStep

    config = resolve_config(options.config, options.extractor)
    steps: list[PipelineStep] = [SegmentStep(options.build_segmenter())]
    if options.text and config["posts"]["enabled"]:
        from .posts import PostStep

        steps.append(PostStep(config["posts"]))
    if options.text:
        steps.append(MainTextStep(config["extract"], config["text"]))
    if options.noise_model is not None:
        steps.append(NoiseTailStep(options.noise_model))
    if options.text:
        steps.append(FilterStep(config["filters"], config["extract"]))
        if config["decide"]["enabled"]:
            from .decide import DecideStep

            steps.append(DecideStep(config["decide"]))
        else:
            from .decide import UnitStep

            steps.append(UnitStep())
        from .lang import LangStep

        steps.append(LangStep(options.languages))
    dedup_path = configured_store_path(options.dedup_db, config["dedup"]["db"])
    if dedup_path is not None:
        steps.append(DedupStep(config["dedup"], dedup_path))
    return steps


def run_text_steps(capture: PageCapture, segmentation: Segmentation,
                   config: dict[str, Any] | str | Path | None = None,
                   extractor: str | None = None) -> TextStageResult:
    """The main-text and filter steps of the pipeline :func:`build_steps` builds from
    ``config``, run on a segmentation made by other means (a caller's own segmenter, a test's
    hand-made segments); the page's text report."""
    from .config import resolve_config
    from .steps import FilterStep, MainTextStep, PageState, run_steps

    options = PipelineOptions(config=resolve_config(config, extractor), text=True)
    steps = [step for step in build_steps(options) if isinstance(step, (MainTextStep, FilterStep))]
    page = run_steps(steps, PageState(capture, segmentation))
    assert page.text is not None
    return page.text


def _segment_within(source: PageSource, options: PipelineOptions,
                    browser: Browser | None, deadline: Deadline,
                    last: PipelineStep | None = None) -> PageResult:
    """Capture, then the steps (and ``last``: the output), all within ``deadline`` (capture
    bounds itself; the steps are interrupted when they overrun)."""
    from .steps import PageState, run_steps

    steps = build_steps(options) + ([last] if last is not None else [])
    with deadline.active():
        deadline.enter("capture")
        capture = load_capture(source, capture_options=options.capture_options,
                               browser=browser, deadline=deadline)
        with deadline.enforced():
            page = run_steps(steps, PageState(capture), deadline)
    assert page.segmentation is not None
    return PageResult(capture, page.segmentation, text=page.text, verdict=page.verdict,
                      segmented=page.segmented)


def segment_to_directory(
    source: PageSource,
    out_dir: str | Path,
    options: PipelineOptions | None = None,
    *,
    browser: Browser | None = None,
    **overrides: Any,
) -> PageResult:
    """:func:`segment`, then write every output into ``out_dir`` atomically.

    ``out_dir`` gets ``capture/`` (the page capture), ``segmentation.json`` (Webis format, what
    ``wps eval`` reads), ``segments.jsonl``, ``overlay.png`` and, with the text step,
    ``main-text.json``; it replaces an older folder there.
    ``options.keep_only`` writes only the kept segments to ``segments.jsonl``.
    """
    options = PipelineOptions.resolve(options, overrides).checked()
    return segment_into(source, out_dir, options, browser)


def segment_into(source: PageSource, out_dir: str | Path,
                 options: PipelineOptions, browser: Browser | None = None,
                 deadline: Deadline | None = None, *, capture_folder: bool = True,
                 overlay: bool = True, tidy: bool = True) -> PageResult:
    """:func:`segment_to_directory` with ``options`` already checked (``wps batch`` checks them
    once per run), within a given page ``deadline``, and ``capture/`` and ``overlay.png``
    optional (a batch skips them unless asked); ``tidy=False``: the caller removes what killed
    processes left beside the folder (:func:`~wps.files.staging_directory`)."""
    from .output import OutputStep, check_replaceable_output

    check_replaceable_output(out_dir)  # before, not after, the page is rendered
    output = OutputStep(out_dir, keep_only=options.keep_only, capture_folder=capture_folder,
                        overlay=overlay, embed_screenshot=options.embed_screenshot,
                        fields=options.fields, report=options.report,
                        discard_rendered=not isinstance(source, PageCapture), tidy=tidy)
    result = _segment_within(source, options, browser, deadline or _deadline(source, options,
                                                                             browser), output)
    result.output_dir = Path(out_dir)
    return result
