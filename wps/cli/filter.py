"""``wps filter SEGMENTS.jsonl``: re-apply the filter rules with another config, no re-render.

Each line keeps its text, main text and statistics, so thresholds can change after the fact.
Each page's lines are read back as a page (:meth:`wps.state.PageState.from_records`) and run
through :class:`wps.steps.RefilterStep`, the segment rules of the pipeline's filter step; every
line gets fresh ``kept``/``reasons`` (written to ``--out``, or in place). A segment is judged by
its own text: counts are recomputed from it, and only what needs the page's DOM is taken from
the stored ``stats``, after a type and range check.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from itertools import groupby
from pathlib import Path

from ..errors import InputFileError
from ..records import SegmentLine, read_segment_lines, short_repr, write_segment_records
from . import say


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "filter",
        help="re-apply the segment filter rules to a segments.jsonl file",
        description="Recompute kept/reasons of every line of a segments.jsonl file with the "
        "segment rules of --config (default: packaged defaults): token and character counts "
        "come from the line's text and main_text, only what needs the page (link/code/list "
        "shares, blocks) from its stats; the verdicts of the prose decision, the language filter "
        "(--lang) and de-duplication (wps dedup, --dedup-db) stay.",
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


def refilter(lines: list[SegmentLine], config: dict) -> Counter[str]:
    """Judge the segments of ``lines`` again by the config's segment rules: each page of the
    file (its lines, in a row) read back as a page and run through
    :class:`~wps.steps.RefilterStep`, on statistics recomputed from each segment's own
    ``text``/``main_text`` (token and character counts, C4 lines) and, of the stored ``stats``,
    only what needs the page's DOM (shares, largest block), checked first: a segment is never
    judged by counts that contradict its text."""
    from ..filters.base import count_outcomes
    from ..state import PageState, run_steps
    from ..steps import RefilterStep

    step = RefilterStep(config["filters"])
    for line in lines:
        line.segment.stats.update(judged_stats(line, step.reads))
    for _, page in groupby(lines, key=lambda line: line.context.fields.get("doc_id")):
        run_steps([step], PageState.from_records(list(page)))
    return count_outcomes([line.segment for line in lines])


def judged_stats(line: SegmentLine, needed: list[str]) -> dict[str, float]:
    """The statistics a segment is judged by: the text-only ones recomputed from its texts (as
    the pipeline computes them), the DOM ones taken from its stored ``stats`` once checked; a
    statistic in ``needed`` (read by an enabled rule) must be there."""
    from ..text.stats import DOM_COUNTS, DOM_SHARES, text_only_statistics

    segment, where = line.segment, line.where
    judged = segment.main_text_untrimmed  # what the pipeline's filters judged, before the cut
    stats = text_only_statistics(segment.main_text if judged is None else judged, segment.text)
    for key in needed:
        if key not in segment.stats:
            raise InputFileError(f"{where}: missing stats field {key!r}")
    for key in DOM_SHARES + DOM_COUNTS:
        if key in segment.stats:
            stats[key] = _stored_value(segment.stats[key], key, key in DOM_SHARES, where)
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


def run(args: argparse.Namespace) -> int:
    from ..config import load_config

    config = load_config(args.config)
    lines = list(read_segment_lines(args.segments, REQUIRED_FIELDS))
    counts = refilter(lines, config)
    records = [line.record() for line in lines if line.segment.kept or not args.keep_only]
    write_segment_records(records, args.out or args.segments)
    say(f"{args.segments}: {counts['kept']} kept, {counts['dropped']} dropped "
        f"-> {args.out or args.segments}")
    return 0
