"""``wps dedup SEGMENTS.jsonl [--db PATH]``: mark segments repeated from earlier pages of a site."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import say


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dedup",
        help="mark segments of a segments.jsonl duplicated from earlier pages of the same site",
        description="Rabin-chunk share, SimHash and CEDAR MinHash near-duplicates against a SQLite"
        " state shared across runs (--db, else the config's [dedup] db, else $WPS_DEDUP_DB, else"
        " ~/.cache/wps/dedup.sqlite3). Writes back in place unless --out is given.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl (lines need 'url' and 'text')")
    add_dedup_options(parser)
    parser.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    parser.set_defaults(run=run)


def add_dedup_options(parser: argparse.ArgumentParser) -> None:
    """Options shared with commands that run the dedup stage; unset ones come from [dedup]."""
    group = parser.add_argument_group("de-duplication (defaults: the [dedup] config table)")
    group.add_argument("--config", type=Path, default=None, help="TOML file over the defaults")
    group.add_argument("--db", type=Path, default=None, help="de-duplication state (SQLite)")
    group.add_argument("--max-chunk-share", type=float, default=None,
                       help="drop when a larger share of the bytes was seen before (0.5)")
    group.add_argument("--simhash-distance", type=int, default=None,
                       help="near-duplicate Hamming distance of 64-bit SimHashes (3)")
    group.add_argument("--minhash-threshold", type=float, default=None,
                       help="near-duplicate 2-word-shingle resemblance (CEDAR, 0.35)")
    group.add_argument("--no-simhash", action="store_true", help="disable the SimHash rule")
    group.add_argument("--no-minhash", action="store_true", help="disable the MinHash rule")


def settings_from_args(args: argparse.Namespace):  # -> (DedupSettings, db path or None)
    """The [dedup] config table overlaid by the command-line options."""
    from ..config import load_config
    from ..dedup import DedupSettings, configured_store_path

    section = dict(load_config(args.config)["dedup"])
    overrides = {
        "max_chunk_share": args.max_chunk_share,
        "simhash_max_distance": args.simhash_distance,
        "minhash_threshold": args.minhash_threshold,
    }
    section.update({key: value for key, value in overrides.items() if value is not None})
    if args.no_simhash:
        section["simhash"] = False
    if args.no_minhash:
        section["minhash"] = False
    return DedupSettings.from_config(section), configured_store_path(args.db, section["db"])


def run(args: argparse.Namespace) -> int:
    from ..dedup import Deduplicator
    from ..dedup.jsonl import dedup_jsonl

    settings, db = settings_from_args(args)
    summary = dedup_jsonl(args.segments, lambda: Deduplicator(db, settings), args.out)
    dropped = ", ".join(f"{reason} {count}" for reason, count in sorted(summary.dropped.items()))
    say(
        f"wps dedup: {summary.pages} pages, {summary.segments} segments; newly dropped:"
        f" {dropped or 'none'} (state {summary.state})")
    return 0
