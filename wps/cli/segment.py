"""``wps segment SOURCE --out DIR``: capture and segment a page, write the outputs (or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..config import PROFILES, merge_config
from ..dedup.store import configured_store_path
from ..errors import UsageError
from ..jsonsafe import load_nested
from ..lang import parse_languages
from ..model import StoredPage
from ..pipeline import DEFAULT_SEGMENTER, FIELD_SETS, PageResult, PipelineOptions
from ..segmenters import segmenter_names
from ..text.extract import EXTRACTORS
from . import say
from .capture import FLAG_SETTINGS, add_capture_options, options_from_args, overlay_flags


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "segment",
        help="render a page and split it into segments",
        description="Segment a URL, a local .html/.html.gz file, a page of a WARC file, a "
        "Webis-WebSeg-20 page folder or a capture folder. --out DIR writes capture/, "
        "segmentation.json (Webis format), segments.jsonl and overlay.png; --format json prints "
        "one JSON object instead.",
    )
    parser.add_argument("source",
                        help="URL, .html/.html.gz file, .warc/.warc.gz file (--url, --replay), "
                        "Webis page folder or capture folder; - reads the page's HTML from stdin")
    parser.add_argument("--url", default=None,
                        help="with -: the URL the page from stdin is recorded under (it is still "
                        "rendered offline, as a local file is); with a WARC file: the page to "
                        "segment (default: the file's only HTML page)")
    parser.add_argument("--replay", action="store_true",
                        help="WARC file: render the page under its URL with its stylesheets, "
                        "images and other subresources from the same WARC (missing ones are "
                        "listed in capture.json); default: every subresource blocked")
    parser.add_argument("--out", type=Path, default=None, help="output folder (--format files)")
    parser.add_argument("--format", choices=("files", "json", "jsonl", "text"), default="files",
                        help="files: write --out DIR; to stdout, writing nothing: json (the "
                        "page and its segments, one object), jsonl (the segments.jsonl lines) or "
                        "text (the detector's input: each kept segment's text, a blank line "
                        "between)")
    add_pipeline_arguments(parser)
    parser.set_defaults(run=run)


def add_pipeline_arguments(parser: argparse.ArgumentParser) -> None:
    """The :class:`~wps.pipeline.PipelineOptions` arguments, shared by ``segment`` and ``batch``."""
    from . import LISTED

    segmenter = parser.add_argument("--segmenter",
                                    help=f"segmenter name (default: {DEFAULT_SEGMENTER})")
    setattr(segmenter, LISTED, segmenter_names)
    parser.add_argument(
        "--option", "-O", action="append", default=[], metavar="KEY=VALUE",
        help="segmenter option, VALUE parsed as JSON when it can be (e.g. -O iqr_k=3); sets "
        "[segmenter.options] KEY",
    )
    parser.add_argument("--noise-model", type=Path, default=None,
                        help="cut boilerplate tails with this 'wps train-noise' model "
                        "(default off)")
    parser.add_argument("--dedup-db", type=Path, default=None,
                        help="mark segments repeated from earlier pages of the site, state in this"
                        " SQLite file (default off)")
    text = parser.add_argument_group("main text and filters")
    text.add_argument("--profile", choices=sorted(PROFILES), default=None,
                      help="detector (default): every piece of human prose, comments included, "
                      "each a segment; article: the page's article body only, comments off")
    text.add_argument("--config", type=Path, default=None,
                      help="TOML file overlaying the profile (extractor, filter thresholds); "
                      "a top-level profile = \"article\" in it picks the profile")
    text.add_argument("--extractor", choices=sorted(EXTRACTORS), default=None,
                      help="main-text extractor (default: the profile's: trafilatura, or "
                      "article for --profile article)")
    text.add_argument("--keep-only", action="store_true",
                      help="write only the kept segments (what may reach the detector)")
    text.add_argument("--no-text", dest="text", action="store_false",
                      help="skip main-text mapping and filters")
    text.add_argument("--lang", default=None, metavar="CODES",
                      help="keep only kept segments in these languages (ISO 639-1, e.g. en,de; "
                      "others dropped as lang_not_allowed); every kept segment gets its 'lang' "
                      "anyway")
    parser.add_argument("--fields", choices=FIELD_SETS, default="full",
                        help="segments.jsonl lines: full (every field; what wps filter, dedup "
                        "and binoculars read) or detector (id, url, kind, unit, lang, main_text, "
                        "prose_score, reasons, kept, bbox)")
    parser.add_argument("--embed-screenshot", action="store_true",
                        help="put the screenshot into report.html (base64, WebP/JPEG if large): "
                        "one file that opens anywhere without capture/")
    add_capture_options(parser)


def pipeline_options_from_args(args: argparse.Namespace) -> PipelineOptions:
    """The :class:`~wps.pipeline.PipelineOptions` the arguments of
    :func:`add_pipeline_arguments` describe; bad segmenter options fail here, before any work."""
    config = run_config_from_args(args)
    options = PipelineOptions(
        segmenter=config["segmenter"]["name"],
        segmenter_options=dict(config["segmenter"]["options"]),
        capture_options=options_from_args(args, config),
        text=args.text,
        config=config if args.text else args.config,
        extractor=args.extractor,
        noise_model=args.noise_model,
        dedup_db=configured_store_path(None, config["dedup"]["db"]),
        keep_only=args.keep_only,
        embed_screenshot=args.embed_screenshot,
        fields=args.fields,
        languages=parse_languages(args.lang),
    )
    options.build_segmenter()
    return options


PIPELINE_FLAGS = {**FLAG_SETTINGS, "dedup_db": "dedup.db", "segmenter": "segmenter.name"}
"""Every flag of :func:`add_pipeline_arguments` that overlays one setting of the configuration
(``-O`` overlays ``[segmenter.options]``, one key each)."""


def run_config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The run's configuration, read and checked once, before any page: the packaged
    ``--profile``, overlaid by the ``--config`` file, then by the flags that name a setting
    (:data:`PIPELINE_FLAGS`, then ``-O``); a ``--segmenter`` other than the configured one starts
    from none of its options. A missing file, bad TOML, an unknown setting or rule, a wrong type
    fails here, not after the browser rendered the page; with ``--no-text`` nothing reads the
    text sections, but a bad file is still an error."""
    from ..config import resolve_config

    config = resolve_config(args.config, args.extractor, getattr(args, "profile", None))
    if args.segmenter not in (None, config["segmenter"]["name"]):  # options go with their name
        config = {**config, "segmenter": {"name": config["segmenter"]["name"], "options": {}}}
    config = overlay_flags(config, args, PIPELINE_FLAGS)
    options = parse_segmenter_options(args.option)
    if not options:
        return config
    return merge_config(config, {"segmenter": {"options": options}}, source="command line")


def parse_segmenter_options(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings to keyword arguments; values are JSON when they parse as JSON."""
    options: dict[str, Any] = {}
    for item in items:
        key, separator, raw = item.partition("=")
        if not separator or not key.strip():
            raise UsageError(f"--option {item!r}: expected KEY=VALUE")
        try:
            value: Any = load_nested(raw, f"--option {key.strip()}", json.loads, UsageError)
        except json.JSONDecodeError:
            value = raw
        options[key.strip().replace("-", "_")] = value
    return options


def source_from_args(args: argparse.Namespace) -> str | StoredPage:
    """The page: ``SOURCE``, a page of a WARC file (:func:`~wps.runner.warc.warc_page`), or
    with ``-`` the HTML on stdin under ``--url``."""
    from ..runner.sources import WARC_SUFFIXES

    if args.source.lower().endswith(WARC_SUFFIXES) and not Path(args.source).is_dir():
        from ..runner.warc import warc_page

        return warc_page(args.source, args.url, replay=args.replay)
    if args.replay:
        raise UsageError(f"--replay answers a page's requests from its WARC file; {args.source}"
                         " is not a WARC file")
    if args.source != "-":
        if args.url is not None:
            raise UsageError("--url names the page read from stdin (SOURCE -) or in a WARC "
                             "file, not a source")
        return args.source
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("-: no HTML on stdin (pipe a page in: cat page.html | wps segment - ...)")
    html = sys.stdin.buffer.read()
    if not html.strip():
        raise UsageError("-: stdin held no HTML")
    return StoredPage.of(html, args.url)


def _page_json(result: PageResult, options: PipelineOptions) -> str:
    """One JSON object: the page, its segments (as ``--fields`` and ``--keep-only`` say) and
    the text step's page report."""
    from ..output import page_summary

    summary = page_summary(result.capture, result.segmentation)
    summary["segments"] = _lines(summary["segments"], options)
    if result.text is not None:
        summary["main_text"] = result.main_text_report()
    return json.dumps(summary, ensure_ascii=False) + "\n"


def _segment_lines(result: PageResult, options: PipelineOptions) -> str:
    """The lines ``segments.jsonl`` would hold."""
    from ..records import segment_records

    lines = _lines(segment_records(result.capture, result.segmentation), options)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def _detector_text(result: PageResult, options: PipelineOptions) -> str:
    """The detector's input as plain text: each kept segment's text, a blank line between."""
    return "".join(item.main_text.strip() + "\n\n" for item in result.detector_input())


def _lines(records: list[dict[str, Any]], options: PipelineOptions) -> list[dict[str, Any]]:
    from ..records import detector_record

    if options.keep_only:
        records = [record for record in records if record["kept"]]
    if options.fields == "detector":
        records = [detector_record(record) for record in records]
    return records


STDOUT_FORMATS = {"json": _page_json, "jsonl": _segment_lines, "text": _detector_text}
"""``--format`` values that print to stdout and write no file."""


def run(args: argparse.Namespace) -> int:
    from ..pipeline import segment, segment_to_directory

    if args.format == "files" and args.out is None:
        raise UsageError("--out DIR is required (or use --format json, jsonl or text)")
    if args.format != "files" and args.out is not None:
        raise UsageError(f"--format {args.format} writes to stdout only; drop --out")
    if args.format != "files" and args.embed_screenshot:
        raise UsageError(f"--embed-screenshot goes into report.html; --format {args.format} "
                         "writes none")
    options = pipeline_options_from_args(args)
    source = source_from_args(args)
    if args.out is not None:  # an impossible --out fails before the browser starts
        from ..output import check_replaceable_output

        check_replaceable_output(args.out)
    if args.format != "files":
        from ..capture import discard_screenshot

        result = segment(source, options)
        try:
            sys.stdout.write(STDOUT_FORMATS[args.format](result, options))
            sys.stdout.flush()
        except BrokenPipeError:  # the reader stopped early (`| head`): not an error
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        finally:
            if result.capture.source == "browser":
                discard_screenshot(result.capture.screenshot)
        return 0
    result = segment_to_directory(source, args.out, options)
    say(
        f"{result.capture.url}: {len(result.segmentation.segments)} segments "
        f"({options.segmenter}) -> {args.out}")
    if result.text is not None:  # main-text.json holds the page-level text report
        say(f"{result.capture.url}: {result.counts['kept']} segments kept, "
            f"{len(result.text.report.unaligned)} main-text blocks not found on the page")
    from ..report import REPORT_FILE

    say(f"open {args.out / REPORT_FILE} to see the segments and why each was kept or dropped")
    return 0
