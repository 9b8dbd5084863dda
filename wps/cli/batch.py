"""``wps batch INPUT --out DIR``: render (and segment) many pages, resumably, locally or on Ray."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import packaged_config
from . import quiet, say
from .capture import overlay_flags
from .segment import add_pipeline_arguments, pipeline_options_from_args, run_config_from_args

if TYPE_CHECKING:
    from ..runner.options import BatchOptions

PARTIAL_FAILURE_EXIT = 9
"""Exit code when the batch finished but some pages failed (see failures.jsonl)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    default = packaged_config()["batch"]
    parser = subparsers.add_parser(
        "batch",
        help="capture and segment many pages (URL list, JSONL, folder of .html(.gz), WARC) "
        "into DIR/<page-id>/",
        description="Render every page of INPUT with a pool of workers (one Chromium each) or "
        "on a Ray cluster. Finished pages are marked in DIR/.done/ and skipped on a rerun; "
        f"failures go to DIR/failures.jsonl and the exit code is {PARTIAL_FAILURE_EXIT} if any "
        "page failed. One batch at a time per DIR (a second one refuses, exit 24).",
    )
    parser.add_argument("input", type=Path, metavar="INPUT",
                        help="a URL list (one URL or local file per line, # comments; relative "
                        "paths from the list's folder), a .jsonl(.gz) with 'url' and optional "
                        "'html' fields, a folder of .html(.gz) files, a .warc(.gz) file, or - "
                        "for a list or JSONL on stdin (relative paths from the current folder)")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--merged", nargs="?", const="jsonl", default=None,
                        choices=("jsonl", "parquet"),
                        help="also write all finished pages' segments into one file: "
                        "DIR/segments.jsonl, or with --merged parquet DIR/segments.parquet "
                        "(pip install 'wps[parquet]'; a row group per 64 pages)")
    parser.add_argument("--wait-for-lock", action="store_true", default=None,
                        help="if another batch writes to DIR, wait for it instead of refusing")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    outputs = parser.add_argument_group("page outputs (besides segmentation.json, "
                                        "segments.jsonl, main-text.json)")
    outputs.add_argument("--reports", action="store_true", default=None,
                         help="write each page's report.html (DIR/report.html, the batch's own, "
                         "is always written; wps report DIR builds the pages' later)")
    outputs.add_argument("--images", action="store_true", default=None,
                         help="take each page's screenshot, draw overlay.png and show the "
                         "screenshot in report.html (implies --save-capture; default: the "
                         "screenshot is taken only for a segmenter that reads it)")
    parser.add_argument("--replay", action="store_true", default=None,
                        help="WARC input: render each page with its stylesheets, images and "
                        "other subresources from the same WARC (missing ones are listed in "
                        "capture.json); default: every subresource blocked")
    outputs.add_argument("--save-capture", action="store_true", default=None,
                         help="write each page's capture/ folder (capture.json, dom.html, the "
                         "screenshot if taken), which wps segment can segment again offline")
    engine = parser.add_argument_group("engine")
    engine.add_argument("--engine", choices=("local", "ray"),
                        help="local: process pool on this machine; ray: renderer actors and "
                        f"CPU tasks on Ray (pip install 'wps[ray]'; default {default['engine']})")
    engine.add_argument("--workers", type=_auto_or_int, default=None, metavar="N|auto",
                        help="local engine: worker processes, one Chromium each (default: "
                        "auto, two pages in flight per core as memory allows)")
    engine.add_argument("--pages-per-browser", type=_auto_or_int, default=None,
                        metavar="N|auto", help="pages each Chromium renders at once, each in "
                        "its own tab, while the rendered ones are segmented (default: auto, "
                        "1 with two workers per core, else 2)")
    engine.add_argument("--restart-every", type=int, help="restart each Chromium after this "
                        f"many pages (default {default['restart_every']})")
    engine.add_argument("--restart-above-mb", type=int,
                        help="restart a Chromium after a page that left it holding more than "
                        f"this many MiB (default {default['restart_above_mb']})")
    engine.add_argument("--ray-address",
                        help="ray engine: 'auto' or HOST:PORT of a running cluster (default: "
                        "start a local Ray instance on 127.0.0.1)")
    engine.add_argument("--renderers", type=int, help="ray engine: renderer actors (one "
                        f"Chromium each; default {default['renderers']})")
    engine.add_argument("--cpus-per-task", type=float, help="ray engine: CPUs per renderer and "
                        f"per segmentation task (default {default['cpus_per_task']})")
    polite = parser.add_argument_group("politeness (live URLs)")
    polite.add_argument("--no-robots", dest="robots", action="store_const", const=False,
                        help="do not read robots.txt (default: pages it disallows for 'wps' "
                        "fail with exit code 18)")
    polite.add_argument("--per-host", type=int, help="at most this many pages of one host at a "
                        f"time (default {default['per_host']})")
    polite.add_argument("--host-delay", type=float,
                        help="seconds between two page starts on one host (or the site's "
                        f"robots.txt Crawl-delay, if longer; default {default['host_delay_s']})")
    add_pipeline_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..runner.prestart import start_worker_server
    from ..runner.sizing import choose_workers, this_machine
    from ..runner.sources import count_sources, input_kind, iter_sources

    with _input_file(args.input) as path:
        sources = iter_sources(path)
        first = next(sources)  # an input naming no page fails here, before any work
        total = count_sources(path)
        workers, pages_per_browser = choose_workers(
            this_machine(), args.workers, args.pages_per_browser, total)
        options = _batch_options(args, workers, pages_per_browser)
        if options.replay and input_kind(path) != "warc":
            raise UsageError(f"--replay answers a page's requests from its WARC file; "
                             f"{args.input} is not a WARC file")
        start_worker_server(options.engine, workers)  # its imports overlap the engine's here
        from ..runner import run_batch

        summary = run_batch(chain([first], sources), args.out, options, total=total)
    say(summary.line())
    for line in summary.details():
        say(line)
    return PARTIAL_FAILURE_EXIT if summary.failed else 0


BATCH_FLAGS = {
    "engine": "batch.engine", "restart_every": "batch.restart_every",
    "restart_above_mb": "batch.restart_above_mb", "renderers": "batch.renderers",
    "cpus_per_task": "batch.cpus_per_task", "ray_address": "batch.ray_address",
    "robots": "batch.robots", "per_host": "batch.per_host", "host_delay": "batch.host_delay_s",
    "wait_for_lock": "batch.wait_for_lock", "reports": "batch.reports", "images": "batch.images",
    "save_capture": "batch.save_capture", "replay": "batch.replay",
}
"""Each flag of ``wps batch`` (its ``args`` name) that overlays a setting of ``[batch]``; an
unset flag (``None``) leaves the configured value (``--merged`` sets two)."""


def _batch_options(args: argparse.Namespace, workers: int,
                   pages_per_browser: int) -> BatchOptions:
    """The ``[batch]`` section of the run's configuration overlaid by the flags, with the
    engine's size and the pipeline beside it."""
    from ..runner.options import BatchOptions

    config = overlay_flags(run_config_from_args(args), args, BATCH_FLAGS)
    section = dict(config["batch"])
    if args.merged is not None:
        section.update(merged=True, merged_format=args.merged)
    return BatchOptions.from_config(
        section, workers=workers, pages_per_browser=pages_per_browser,
        pipeline=pipeline_options_from_args(args),
        progress=False if args.no_progress or quiet() else None)


def _auto_or_int(text: str) -> int | None:
    """``auto`` (``None``: chosen for this machine) or a whole number."""
    if text == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number or 'auto', got {text!r}") from None


@contextlib.contextmanager
def _input_file(given: Path) -> Iterator[Path]:
    """``INPUT``, or for ``-`` the list or JSONL on stdin saved to a temporary file (a batch
    reads its input twice: to count and to run); a list's relative paths are then from the
    current folder, as a shell user means them."""
    if str(given) != "-":
        yield given
        return
    from ..capture.sources import is_url
    from ..errors import UsageError

    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("-: no input on stdin (pipe a URL list or JSONL in: "
                         "cat urls.txt | wps batch - --out DIR)")
    data = sys.stdin.buffer.read()
    if not data.strip():
        raise UsageError("-: stdin held no URL, file or JSONL line")
    folder = Path(tempfile.mkdtemp(prefix="wps-stdin-"))
    try:
        if data.lstrip()[:1] == b"{":
            path = folder / "stdin.jsonl"
            path.write_bytes(data)
        else:
            path = folder / "stdin.txt"
            path.write_bytes(b"".join(_from_here(line, is_url) + b"\n"
                                      for line in data.splitlines()))
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _from_here(line: bytes, is_url: Callable[[str], bool]) -> bytes:
    """A list line whose entry is a relative path, made absolute from the current folder."""
    try:
        entry = line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return line  # the list reader reports it as the entry's own failure
    if not entry or entry.startswith("#") or is_url(entry):
        return line
    local = Path(entry).expanduser()
    return str(local if local.is_absolute() else local.resolve()).encode("utf-8")
