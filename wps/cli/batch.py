"""``wps batch URLS_FILE --out DIR``: render (and segment) many pages, resumably."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .segment import add_pipeline_arguments, pipeline_options_from_args

PARTIAL_FAILURE_EXIT = 9
"""Exit code when the batch finished but some pages failed (see failures.jsonl)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "batch",
        help="capture and segment many pages (URLs or .html/.html.gz files) into DIR/<page-id>/",
        description="Render every page of URLS_FILE with a pool of workers (one Chromium each). "
        "Finished pages are marked in DIR/.done/ and skipped on a rerun; failures go to "
        f"DIR/failures.jsonl and the exit code is {PARTIAL_FAILURE_EXIT} if any page failed.",
    )
    parser.add_argument("urls_file", type=Path,
                        help="one URL or local file per line (relative paths are taken from the "
                        "list's folder); # comments")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes (one Chromium each)")
    parser.add_argument("--restart-every", type=int, default=50,
                        help="restart each worker's Chromium after this many pages")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_pipeline_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..runner import BatchOptions, read_source_list, run_batch

    options = BatchOptions(
        workers=args.workers,
        restart_every=args.restart_every,
        pipeline=pipeline_options_from_args(args),
        progress=False if args.no_progress else None,
    )
    sources = read_source_list(args.urls_file)
    summary = run_batch(sources, args.out, options)
    print(summary.line(), file=sys.stderr)
    return PARTIAL_FAILURE_EXIT if summary.failed else 0
