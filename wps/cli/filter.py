"""``wps filter SEGMENTS.jsonl``: re-apply the filter rules with another config, no re-render.

Each line keeps its text, main text and statistics, so thresholds can change after the fact;
every line gets fresh ``kept``/``reasons`` (written to ``--out``, or in place). A line is judged
by its own text: counts are recomputed from it, and only what needs the page's DOM is taken
from the stored ``stats``, after a type and range check.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

from ..errors import InputFileError
from ..files import write_jsonl
from ..jsonsafe import iter_jsonl
from ..output import check_segment_line, short_repr


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "filter",
        help="re-apply the segment filter rules to a segments.jsonl file",
        description="Recompute kept/reasons of every line of a segments.jsonl file with the "
        "segment rules of --config (default: packaged defaults): token and character counts "
        "come from the line's text and main_text, only what needs the page (link/code/list "
        "shares, blocks) from its stats; de-duplication verdicts (wps dedup, --dedup-db) stay.",
    )
    parser.add_argument("segments", type=Path, help="segments.jsonl written by wps segment")
    parser.add_argument("--config", type=Path, default=None, help="TOML config overlay")
    parser.add_argument("--out", type=Path, default=None,
                        help="output JSONL (default: replace the input file)")
    parser.add_argument("--keep-only", action="store_true", help="write only kept segments")
    parser.set_defaults(run=run)


REQUIRED_FIELDS = ("text", "main_text", "stats")
"""What re-filtering reads: the texts it recomputes the counts from, the stored DOM statistics."""
SHARE_TOLERANCE = 1e-9
"""A stored share this far outside [0, 1] is float noise, taken as the bound."""


def refilter_records(lines: list[tuple[str, dict]], config: dict) -> Counter[str]:
    """Set ``kept``/``reasons`` of each ``(place, record)`` with the config's segment rules.

    The rules see statistics recomputed from the line's own ``text``/``main_text`` (token and
    character counts, C4 lines) and, of the stored ``stats``, only what needs the page's DOM
    (shares, largest block), checked first; a line is never judged by counts that contradict
    its text. The de-duplication reasons (``wps dedup``, ``--dedup-db``) are kept: they come
    from the site's state, not from the line.
    """
    from ..dedup import REASON_CHUNKS, REASON_MINHASH, REASON_SIMHASH
    from ..filters import TextUnit, evaluate_rules, rules_from_config

    rules = rules_from_config(config["filters"]["segment"])
    needed = sorted({key for rule in rules for key in getattr(rule, "reads", ())})
    site_verdicts = (REASON_CHUNKS, REASON_SIMHASH, REASON_MINHASH)  # not the rules' to undo
    counts: Counter[str] = Counter()
    for where, record in lines:
        stats = line_stats(record, needed, where)
        record["stats"].update(stats)
        _recount(record)
        reasons = evaluate_rules(TextUnit(record["main_text"], stats), rules)
        reasons += [r for r in record.get("reasons", []) if r in site_verdicts]
        record["kept"], record["reasons"] = not reasons, reasons
        counts["kept" if not reasons else "dropped"] += 1
        counts.update(f"dropped_{reason}" for reason in reasons)
    return counts


def line_stats(record: dict, needed: list[str], where: str) -> dict[str, float]:
    """The statistics a line is judged by: the text-only ones recomputed from its texts (as the
    pipeline computes them), the DOM ones taken from ``stats`` once checked; a statistic in
    ``needed`` (read by an enabled rule) must be there."""
    from ..text.stats import DOM_COUNTS, DOM_SHARES, text_only_statistics

    main_text, stored = record["main_text"], record["stats"]
    stats = text_only_statistics(main_text, record["text"])
    for key in needed:
        if key not in stored:
            raise InputFileError(f"{where}: missing stats field {key!r}")
    for key in DOM_SHARES + DOM_COUNTS:
        if key in stored:
            stats[key] = _stored_value(stored[key], key, key in DOM_SHARES, where)
    if "largest_block" in stats:  # a block of the main text is no longer than the main text
        stats["largest_block"] = min(stats["largest_block"], stats["main_chars"])
    return stats


def _stored_value(value: object, key: str, share: bool, where: str) -> float:
    """A stored statistic as a float: a finite number, a share within [0, 1], a count >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise InputFileError(f"{where}: stats field {key!r} must be a finite number, "
                             f"not {short_repr(value)}")
    low, high = (-SHARE_TOLERANCE, 1 + SHARE_TOLERANCE) if share else (0.0, math.inf)
    if not low <= value <= high:
        expected = "a share within [0, 1]" if share else "a count >= 0"
        raise InputFileError(f"{where}: stats field {key!r} must be {expected}, not {value}")
    return min(max(float(value), 0.0), 1.0) if share else float(value)


def _recount(record: dict) -> None:
    """The record's own text counts (``n_chars``, ``n_words``), where it has them."""
    if "n_chars" in record:
        record["n_chars"] = len(record["text"])
    if "n_words" in record:
        record["n_words"] = len(record["text"].split())


def read_records(path: Path) -> list[tuple[str, dict]]:
    """``(file:line, record)`` for every line of a ``segments.jsonl`` written with the text step;
    a line without its text, main text or stats, or with a field of the wrong type, is an
    error naming the line."""
    lines = []
    for number, record in iter_jsonl(path):
        if "stats" not in record or "main_text" not in record:
            raise InputFileError(f"{path}: line {number}: no main_text/stats (not written by "
                                 "wps segment with the text step)")
        where = f"{path}:{number}"
        check_segment_line(record, where, required=REQUIRED_FIELDS)
        lines.append((where, record))
    return lines


def run(args: argparse.Namespace) -> int:
    from ..config import load_config

    config = load_config(args.config)
    lines = read_records(args.segments)
    counts = refilter_records(lines, config)
    records = [record for _, record in lines if record["kept"] or not args.keep_only]
    write_jsonl(records, args.out or args.segments)
    print(f"{args.segments}: {counts['kept']} kept, {counts['dropped']} dropped "
          f"-> {args.out or args.segments}", file=sys.stderr)
    return 0
