#!/usr/bin/env python3
"""Benchmark segmenters on Webis-WebSeg-20: a thin command line over ``wps.benchmark``.

Example::

    .venv/bin/python scripts/benchmark_webseg20.py --data ../shared/webis-webseg-20-sample \
        --segmenters baseline --out eval/results/webseg20-sample

Rerunning the same command resumes: pages already in ``OUT/results.jsonl`` are not recomputed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmark_webseg20.py",
        description="Run segmenters on Webis-WebSeg-20 pages (no browser), evaluate all five "
                    "size functions, write per-page.csv and summary.md/json.")
    parser.add_argument("--data", type=Path, required=True,
                        help="webis-webseg-20/ folder, a folder holding it, or the zip parts")
    parser.add_argument("--segmenters", required=True, help="NAME[,NAME...]")
    pages = parser.add_mutually_exclusive_group()
    pages.add_argument("--pages", type=int, help="only the first N pages with ground truth")
    pages.add_argument("--ids", type=Path, help="file of page ids, one per line")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes, or Ray actors with --engine ray (default 1)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local: processes on this machine; ray: Ray actors (pip install "
                             "'wps[ray]'; default local)")
    parser.add_argument("--ray-address", help="ray engine: 'auto' or HOST:PORT of a running "
                        "cluster that sees --data at the same path (default: a local Ray)")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--save-segmentations", action="store_true",
                        help="also write OUT/segmentations/<segmenter>/<id>.json")
    parser.add_argument("--fresh", action="store_true",
                        help="discard OUT/results.jsonl first instead of resuming from it")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    from wps.benchmark import BenchmarkOptions, run_benchmark
    from wps.benchmark.runner import command_line, read_ids
    from wps.errors import WpsError

    args = build_parser().parse_args(argv)
    try:
        options = BenchmarkOptions(
            data=args.data,
            segmenters=list(dict.fromkeys(
                name.strip() for name in args.segmenters.split(",") if name.strip())),
            out=args.out,
            pages=args.pages,
            ids=read_ids(args.ids) if args.ids else None,
            workers=args.workers,
            engine=args.engine,
            ray_address=args.ray_address,
            save_segmentations=args.save_segmentations,
            progress=not args.no_progress,
            fresh=args.fresh,
            command=command_line(["scripts/benchmark_webseg20.py", *(argv or sys.argv[1:])]),
        )
        report = run_benchmark(options)
    except WpsError as err:
        if args.debug:
            raise
        print(f"benchmark_webseg20.py: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("benchmark_webseg20.py: interrupted; rerun the same command to resume",
              file=sys.stderr)
        return 130
    if not args.quiet:
        print(report.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
