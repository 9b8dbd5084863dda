"""``wps filter SEGMENTS.jsonl``: re-apply the filter rules with another config, no re-render.

Each line keeps its text, main text and statistics, so thresholds can change after the fact;
every line gets fresh ``kept``/``reasons`` (written to ``--out``, or in place).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ..errors import InputFileError
from ..files import iter_jsonl, write_jsonl
from ..output import check_segment_line


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "filter",
        help="re-apply the segment filter rules to a segments.jsonl file",
        description="Recompute kept/reasons of every line of a segments.jsonl file from its "
        "main_text and stats with the segment rules of --config (default: packaged defaults); "
        "de-duplication verdicts (wps dedup, --dedup-db) stay.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl written by wps segment")
    parser.add_argument("--config", type=Path, default=None, help="TOML config overlay")
    parser.add_argument("--out", type=Path, default=None,
                        help="output JSONL (default: replace the input file)")
    parser.add_argument("--keep-only", action="store_true", help="write only kept segments")
    parser.set_defaults(run=run)


def refilter_records(records: list[dict], config: dict) -> Counter[str]:
    """Set ``kept``/``reasons`` of each record with the config's segment rules; the
    de-duplication reasons (``wps dedup``, ``--dedup-db``) are kept, they come from the site's
    state, not from the line."""
    from ..dedup import REASON_CHUNKS, REASON_MINHASH, REASON_SIMHASH
    from ..filters import TextUnit, evaluate_rules, rules_from_config

    rules = rules_from_config(config["filters"]["segment"])
    site_verdicts = (REASON_CHUNKS, REASON_SIMHASH, REASON_MINHASH)  # not the rules' to undo
    counts: Counter[str] = Counter()
    for record in records:
        stats = {key: float(value) for key, value in (record.get("stats") or {}).items()
                 if isinstance(value, (int, float))}
        reasons = evaluate_rules(TextUnit(record.get("main_text") or "", stats), rules)
        reasons += [r for r in record.get("reasons") or [] if r in site_verdicts]
        record["kept"], record["reasons"] = not reasons, reasons
        counts["kept" if not reasons else "dropped"] += 1
        counts.update(f"dropped_{reason}" for reason in reasons)
    return counts


def read_records(path: Path) -> list[dict]:
    """The lines of a ``segments.jsonl`` written with the text step (main text and stats)."""
    records = []
    for number, record in iter_jsonl(path):
        if "stats" not in record or "main_text" not in record:
            raise InputFileError(f"{path}: line {number}: no main_text/stats (not written by "
                                 "wps segment with the text step)")
        check_segment_line(record, f"{path}:{number}")
        records.append(record)
    return records


def run(args: argparse.Namespace) -> int:
    from ..config import load_config

    config = load_config(args.config)
    records = read_records(args.segments)
    counts = refilter_records(records, config)
    if args.keep_only:
        records = [record for record in records if record["kept"]]
    write_jsonl(records, args.out or args.segments)
    print(f"{args.segments}: {counts['kept']} kept, {counts['dropped']} dropped "
          f"-> {args.out or args.segments}", file=sys.stderr)
    return 0
