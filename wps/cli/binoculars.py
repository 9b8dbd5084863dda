"""``wps binoculars SEGMENTS.jsonl --observer PATH --performer PATH``: score the detector units
(:mod:`wps.decide.units`) of a segments file."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import say

_CONFIG_OPTIONS = ("mode", "max_tokens", "whole_text", "min_tokens", "batch_size", "device",
                   "dtype")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "binoculars",
        help="score the detector units of a segments.jsonl with Binoculars",
        description="Add a 'binoculars' object (score, verdict, threshold) to every line of a"
        " segments.jsonl, one verdict per detector unit (a page's article whole, each post);"
        " models load from local folders only. Writes back in place"
        " (atomically) unless --out is given. Unset options come from the [binoculars] table"
        " of the config.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl written by 'wps segment'")
    parser.add_argument("--observer", required=True, type=Path, help="observer causal LM folder")
    parser.add_argument("--performer", required=True, type=Path, help="performer causal LM folder")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    parser.add_argument("--config", type=Path, default=None, help="TOML file over the defaults")
    parser.add_argument("--mode", choices=["low-fpr", "accuracy"], default=None,
                        help="threshold: low-fpr 0.8536 (default) or accuracy 0.9015")
    parser.add_argument("--batch-size", type=int, default=None, help="texts per forward pass (4)")
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="tokens per window (512): a unit is scored whole, in consecutive"
                        " windows pooled into one score")
    parser.add_argument("--first-window", dest="whole_text", action="store_false", default=None,
                        help="score only each unit's first window, as the reference does")
    parser.add_argument("--min-tokens", type=int, default=None,
                        help="skip texts with fewer tokens (2; the reference demo uses 64)")
    parser.add_argument("--device", default=None, help="auto (cuda when present), cpu, cuda:0...")
    parser.add_argument("--dtype", default=None,
                        help="auto (bfloat16 on CUDA, else float32), float32, bfloat16, float16")
    parser.add_argument("--trust-remote-code", action="store_true",
                        help="allow model code shipped in the model folders")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..detector import BinocularsScorer, score_jsonl
    from ..detector.jsonl import check_segments_file
    from ..errors import UsageError

    check_segments_file(args.segments, args.out)
    section = load_config(args.config)["binoculars"]
    options = {name: getattr(args, name) for name in _CONFIG_OPTIONS}
    options = {name: section[name] if value is None else value for name, value in options.items()}
    if options["mode"] not in ("low-fpr", "accuracy"):
        raise UsageError(f"[binoculars] mode {options['mode']!r} is not low-fpr or accuracy")
    scorer = BinocularsScorer(args.observer, args.performer,
                              trust_remote_code=args.trust_remote_code, **options)
    summary = score_jsonl(args.segments, scorer, args.out)
    skipped = ", ".join(f"{reason} {count}" for reason, count in sorted(summary.skipped.items()))
    say(
        f"wps binoculars: {summary.lines} lines, {summary.scored} scored in {summary.units}"
        f" units (ai {summary.predictions['ai']}, human {summary.predictions['human']})"
        f"; skipped: {skipped or 'none'}")
    return 0
