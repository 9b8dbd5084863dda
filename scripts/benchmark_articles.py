#!/usr/bin/env python
"""Article-extraction benchmark: wps (render, segment, main text, filters) vs trafilatura alone.

Usage: scripts/benchmark_articles.py --data DIR --out OUT [--config FILE] [--profile NAME]
       [--segmenter NAME]
DIR holds html/<id>.html.gz and ground-truth.json (scrapinghub/article-extraction-benchmark
layout). Writes OUT/summary.json, OUT/summary.md, OUT/predictions-wps.json and
OUT/predictions-trafilatura.json. Renders are cached (default .wps-cache/articles-nojs).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wps.benchmark.articles import run_article_benchmark
from wps.config import load_config
from wps.errors import WpsError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--config", type=Path, default=None, help="wps TOML config overlay")
    parser.add_argument("--profile", default=None,
                        help="packaged profile (detector, article); eval/articles.toml names "
                        "article")
    parser.add_argument("--segmenter", default="dom-cohesion")
    parser.add_argument("--cache", type=Path, default=Path(".wps-cache/articles-nojs"))
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--folds", type=int, default=0,
                        help="article profile: judge each page with a block model fitted on the "
                        "other folds' pages only (held-out figures; needs scikit-learn)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the page folds")
    args = parser.parse_args(argv)
    try:
        summary = run_article_benchmark(args.data, args.out, cache=args.cache,
                                        segmenter_name=args.segmenter,
                                        config=load_config(args.config, args.profile),
                                        progress=not args.quiet, folds=args.folds,
                                        seed=args.seed)
    except WpsError as err:
        print(f"benchmark_articles: error: {err}", file=sys.stderr)
        return err.exit_code
    shown = ("wps", "trafilatura", "trafilatura_no_comments", "held_out")
    print(json.dumps({name: summary[name] for name in shown if name in summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
