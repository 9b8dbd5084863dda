#!/usr/bin/env python
"""Median per-page time of the text step (trafilatura, alignment + statistics, filters).

Usage: scripts/bench_text.py [--cache .wps-cache/articles-nojs] [--repeats 3] [--config FILE]
Runs on cached captures (scripts/benchmark_articles.py fills the cache); rendering and
segmentation are not timed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wps.benchmark.text_speed import time_text_stage
from wps.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(".wps-cache/articles-nojs"))
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--segmenter", default="dom-cohesion")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N captures only")
    args = parser.parse_args(argv)
    folders = sorted(p for p in args.cache.iterdir()
                     if not p.name.startswith(".") and (p / "capture.json").is_file())
    if not folders:
        print(f"bench_text: error: no captures in {args.cache}", file=sys.stderr)
        return 3
    timings = time_text_stage(folders[: args.limit], load_config(args.config), args.segmenter,
                              args.repeats)
    print(json.dumps(timings.summary(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
