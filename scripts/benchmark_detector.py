#!/usr/bin/env python
"""The detector's input on every public dev set, held out by site: eval/results/detector.md.

Usage: scripts/benchmark_detector.py [--readability ../shared/readability-dev]
       [--articles ../shared/article-extraction-benchmark] [--nonarticle ../shared/nonarticle-dev]
       [--captures DIR ...] [--cache .wps-cache/detector] [--work out/detector]
       [--label NAME] [--results eval/results] [--folds 5] [--sets a,b,c] [--quiet]
Captures are taken from each --captures folder (<page>/capture.json or
<page>/capture/capture.json), else from the render cache, else rendered once (scripts removed).
Writes eval/results/detector-<label>.json and regenerates eval/results/detector.md from every
label's file.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from wps.benchmark.detector_run import SET_NAMES, DetectorSettings, run_detector_benchmark
from wps.errors import UsageError, WpsError

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readability", type=Path, default=SHARED / "readability-dev")
    parser.add_argument("--articles", type=Path,
                        default=SHARED / "article-extraction-benchmark")
    parser.add_argument("--nonarticle", type=Path, default=SHARED / "nonarticle-dev")
    parser.add_argument("--sets", default=",".join(SET_NAMES),
                        help=f"comma-separated, from {', '.join(SET_NAMES)}")
    parser.add_argument("--captures", type=Path, action="append", default=[],
                        help="a folder of saved captures to reuse (repeatable)")
    parser.add_argument("--cache", type=Path, default=REPO / ".wps-cache" / "detector")
    parser.add_argument("--work", type=Path, default=REPO / "out" / "detector")
    parser.add_argument("--results", type=Path, default=REPO / "eval" / "results")
    parser.add_argument("--label", default="current")
    parser.add_argument("--segmenter", default="dom-cohesion")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--quiet", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        sets = set(args.sets.split(","))
        if unknown := sets - set(SET_NAMES):
            raise UsageError(f"--sets: unknown {sorted(unknown)}; choose from {SET_NAMES}")
        settings = DetectorSettings(
            readability=args.readability if "readability-dev" in sets else None,
            articles=args.articles if "article-benchmark" in sets else None,
            nonarticle=args.nonarticle if "nonarticle-dev" in sets else None,
            cache=args.cache, work=args.work, results=args.results, label=args.label,
            captures=args.captures, segmenter=args.segmenter, folds=args.folds,
            progress=not args.quiet,
            command=shlex.join(["scripts/benchmark_detector.py", *argv]))
        result = run_detector_benchmark(settings)
    except WpsError as err:
        print(f"benchmark_detector: error: {err}", file=sys.stderr)
        return err.exit_code
    for name, scores in result["sets"].items():
        row = scores["detector (held out)"]
        print(name, {key: row[key] for key in row if key not in ("per_page", "under_half")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
