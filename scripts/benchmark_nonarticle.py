#!/usr/bin/env python
"""Non-article dev set: wps (render, segment, main text, filters) scored by the set's check.py.

Usage: scripts/benchmark_nonarticle.py --data ../shared/nonarticle-dev --out DIR [--config FILE]
       [--segmenter NAME] [-O KEY=VALUE ...] [--label NAME] [--pages a,b,...] [--fresh]
       [--from-captures [DIR]] [--results eval/results] [--quiet]
DIR/<name>/ is each page's `wps segment --out` folder (capture included); DIR/check-report.json
is check.py's report. Writes eval/results/nonarticle-<label>.json and the label's section of
eval/results/nonarticle.md. A rerun reuses pages made with the same options and wps source,
re-segments the others from their saved captures, and renders only pages without a capture
(all of them with --fresh). --from-captures DIR re-segments DIR/<name>/capture (default: --out).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from wps.benchmark.nonarticle import RunSettings, run_nonarticle_benchmark
from wps.benchmark.nonarticle_report import total_rows
from wps.cli.segment import parse_segmenter_options
from wps.errors import WpsError
from wps.pipeline import DEFAULT_SEGMENTER, PipelineOptions

REPO = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the nonarticle-dev folder")
    parser.add_argument("--out", type=Path, required=True, help="one page output folder per page")
    parser.add_argument("--config", type=Path, default=None, help="wps TOML config overlay")
    parser.add_argument("--segmenter", default=DEFAULT_SEGMENTER)
    parser.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a segmenter option (repeatable)")
    parser.add_argument("--label", default="default", help="names this run's report section")
    parser.add_argument("--pages", default=None, help="comma-separated page names (default all)")
    parser.add_argument("--fresh", action="store_true",
                        help="render every page again (with --from-captures: re-segment all)")
    parser.add_argument("--from-captures", nargs="?", const="", default=None, metavar="DIR",
                        help="re-segment DIR/<name>/capture instead of rendering (default --out)")
    parser.add_argument("--results", type=Path, default=REPO / "eval" / "results",
                        help="where nonarticle.md and nonarticle-<label>.json go")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def command_line(argv: list[str]) -> str:
    """The command as typed from the repository root (recorded in the report)."""
    python = os.path.relpath(sys.executable) if Path(sys.executable).is_relative_to(
        Path.cwd()) else "python"
    return shlex.join([python, os.path.relpath(__file__), *argv])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    name = Path(__file__).name
    try:
        options = PipelineOptions(segmenter=args.segmenter,
                                  segmenter_options=parse_segmenter_options(args.option),
                                  config=args.config)
        captures = None if args.from_captures is None else Path(args.from_captures or args.out)
        settings = RunSettings(
            data=args.data, out=args.out, label=args.label, results_dir=args.results,
            pages=args.pages.split(",") if args.pages else None, fresh=args.fresh,
            captures=captures, command=command_line(argv),
            config_name=None if args.config is None else str(args.config),
            progress=not args.quiet)
        result = run_nonarticle_benchmark(settings, options)
    except WpsError as err:
        print(f"{name}: error: {err}", file=sys.stderr)
        return err.exit_code
    if not args.quiet:
        for figure, value in total_rows(result["totals"], result["timing"]):
            print(f"{figure}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
