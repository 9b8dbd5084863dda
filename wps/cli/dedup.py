"""``wps dedup SEGMENTS.jsonl [--db PATH]``: mark segments repeated from earlier pages of a site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dedup",
        help="mark segments of a segments.jsonl duplicated from earlier pages of the same site",
        description="Rabin-chunk share, SimHash and CEDAR MinHash near-duplicates against a SQLite"
        " state shared across runs (default $WPS_DEDUP_DB or"
        " ~/.cache/wps/dedup.sqlite3). Writes back in place unless --out is given.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl (lines need 'url' and 'text')")
    add_dedup_options(parser)
    parser.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    parser.set_defaults(run=run)


def add_dedup_options(parser: argparse.ArgumentParser) -> None:
    """Options shared with commands that run the dedup stage."""
    group = parser.add_argument_group("de-duplication")
    group.add_argument("--db", type=Path, default=None, help="de-duplication state (SQLite)")
    group.add_argument(
        "--max-chunk-share",
        type=float,
        default=0.5,
        help="drop when more of the bytes were seen on earlier pages (default 0.5)",
    )
    group.add_argument(
        "--simhash-distance",
        type=int,
        default=3,
        help="near-duplicate Hamming distance of 64-bit SimHashes (default 3)",
    )
    group.add_argument(
        "--minhash-threshold",
        type=float,
        default=0.35,
        help="near-duplicate shingle resemblance (CEDAR, default 0.35)",
    )
    group.add_argument("--no-simhash", action="store_true", help="disable the SimHash rule")
    group.add_argument("--no-minhash", action="store_true", help="disable the MinHash rule")


def settings_from_args(args: argparse.Namespace):  # -> DedupSettings (import kept lazy)
    from ..dedup import DedupSettings

    return DedupSettings(
        max_chunk_share=args.max_chunk_share,
        simhash_max_distance=None if args.no_simhash else args.simhash_distance,
        minhash_threshold=None if args.no_minhash else args.minhash_threshold,
    )


def run(args: argparse.Namespace) -> int:
    from ..dedup import Deduplicator
    from ..dedup.jsonl import dedup_jsonl

    with Deduplicator(args.db, settings_from_args(args)) as deduplicator:
        summary = dedup_jsonl(args.segments, deduplicator, args.out)
        path = deduplicator.store.path
    dropped = ", ".join(f"{reason} {count}" for reason, count in sorted(summary.dropped.items()))
    print(
        f"wps dedup: {summary.pages} pages, {summary.segments} segments; newly dropped:"
        f" {dropped or 'none'} (state {path})",
        file=sys.stderr,
    )
    return 0
