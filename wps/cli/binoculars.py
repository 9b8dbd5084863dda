"""``wps binoculars SEGMENTS.jsonl --observer PATH --performer PATH``: score kept segments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "binoculars",
        help="score the kept segments of a segments.jsonl with Binoculars",
        description="Add a 'binoculars' object (score, verdict, threshold) to every line of a"
        " segments.jsonl; models load from local folders only. Writes back in place"
        " (atomically) unless --out is given.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl written by 'wps segment'")
    parser.add_argument("--observer", required=True, type=Path, help="observer causal LM folder")
    parser.add_argument("--performer", required=True, type=Path, help="performer causal LM folder")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    parser.add_argument(
        "--mode",
        choices=["low-fpr", "accuracy"],
        default="low-fpr",
        help="threshold: low-fpr 0.8536 (default) or accuracy 0.9015",
    )
    parser.add_argument("--batch-size", type=int, default=4, help="texts per forward pass")
    parser.add_argument("--max-tokens", type=int, default=512, help="tokens scored per text")
    parser.add_argument(
        "--min-tokens",
        type=int,
        default=2,
        help="skip texts with fewer tokens (the reference demo uses 64)",
    )
    parser.add_argument("--device", default="auto", help="auto (cuda when present), cpu, cuda:0...")
    parser.add_argument(
        "--dtype",
        default="auto",
        help="auto (bfloat16 on CUDA, else float32), float32, bfloat16, float16",
    )
    parser.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="allow model code shipped in the model folders",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..detect import BinocularsScorer, score_jsonl
    from ..errors import InputFileError

    if not args.segments.is_file():
        raise InputFileError(f"{args.segments}: segments file does not exist")
    scorer = BinocularsScorer(
        args.observer,
        args.performer,
        mode=args.mode,
        max_tokens=args.max_tokens,
        batch_size=args.batch_size,
        device=args.device,
        dtype=args.dtype,
        min_tokens=args.min_tokens,
        trust_remote_code=args.trust_remote_code,
    )
    summary = score_jsonl(args.segments, scorer, args.out)
    skipped = ", ".join(f"{reason} {count}" for reason, count in sorted(summary.skipped.items()))
    print(
        f"wps binoculars: {summary.lines} lines, {summary.scored} scored"
        f" (ai {summary.predictions['ai']}, human {summary.predictions['human']})"
        f"; skipped: {skipped or 'none'}",
        file=sys.stderr,
    )
    return 0
