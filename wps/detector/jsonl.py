"""Score the kept segments of a ``segments.jsonl`` with Binoculars and write the verdicts back.

Each line (text-and-filters.md §6) gets a ``binoculars`` object: the score and verdict, or
``{"skipped": reason}`` for segments that were dropped by an earlier rule (``not_kept``), have no
text (``empty``) or too few tokens. The text scored is the segment's ``main_text`` when it has one,
else its ``text``. Lines are read back as segments (:mod:`wps.records`) and read, scored and written
in windows (sorted by token count inside a window for batching); the output goes to a temporary
file renamed over the target at the end, so an interrupted run leaves the input untouched and no
partial output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..files import prepare_output_file
from ..model import Segment
from ..records import SegmentLine, detector_text, read_segment_lines, write_segment_records
from .binoculars import BinocularsResult, BinocularsScorer

__all__ = ["ScoreSummary", "binoculars_record", "check_segments_file", "score_jsonl",
           "segment_text"]

WINDOW_LINES = 256
"""Lines held in memory at once; scoring sorts by length inside a window."""
REQUIRED_FIELDS = ("text", "kept")
"""What scoring reads from a line: the text, and the filters' verdict (a line without one is
not scored as if kept)."""


@dataclass(slots=True)
class ScoreSummary:
    lines: int = 0
    scored: int = 0
    predictions: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)


def segment_text(segment: Segment) -> str:
    """The text Binoculars should judge: the main-text part when present, else the whole segment."""
    return detector_text(segment)


def binoculars_record(result: BinocularsResult, scorer: BinocularsScorer) -> dict[str, Any]:
    if result.skipped_reason is not None:
        return {"skipped": result.skipped_reason, "n_tokens": result.n_tokens}
    return {
        "score": result.score,
        "pred": result.prediction,
        "threshold": scorer.threshold,
        "mode": scorer.mode,
        "observer": scorer.observer_path,
        "performer": scorer.performer_path,
        "n_tokens": result.n_tokens,
        "truncated": result.truncated,
    }


def _score_window(
    window: list[Segment], scorer: BinocularsScorer, summary: ScoreSummary
) -> None:
    wanted = [s for s in window if s.kept and segment_text(s).strip()]
    for segment in window:
        if not segment.kept:
            segment.binoculars = {"skipped": "not_kept"}
        elif not segment_text(segment).strip():
            segment.binoculars = {"skipped": "empty"}
    results = scorer.score_texts([segment_text(s) for s in wanted])
    for segment, result in zip(wanted, results):
        segment.binoculars = binoculars_record(result, scorer)
    for segment in window:
        outcome = segment.binoculars or {}
        if "skipped" in outcome:
            summary.skipped[outcome["skipped"]] += 1
        else:
            summary.scored += 1
            summary.predictions[outcome["pred"]] += 1


def check_segments_file(source: str | Path, destination: str | Path | None = None) -> None:
    """Refuse a missing, unreadable or malformed segments file and an impossible output before
    minutes go into loading the models."""
    source = Path(source)
    if source.is_dir():
        raise InputFileError(f"{source}: is a folder, expected a segments.jsonl file")
    if not source.is_file():
        raise InputFileError(f"{source}: segments file does not exist")
    for _ in read_segment_lines(source, REQUIRED_FIELDS):
        pass
    prepare_output_file(destination if destination is not None else source)


def score_jsonl(
    source: str | Path, scorer: BinocularsScorer, destination: str | Path | None = None
) -> ScoreSummary:
    """Score every kept segment of ``source`` and write all lines to ``destination`` (default:
    replace ``source`` in place, atomically)."""
    source = Path(source)
    target = Path(destination) if destination is not None else source
    if not source.is_file():
        raise InputFileError(f"{source}: segments file does not exist")
    summary = ScoreSummary()
    lines = read_segment_lines(source, REQUIRED_FIELDS)
    write_segment_records(_scored_records(lines, scorer, summary), target)
    return summary


def _scored_records(
    lines: Iterable[SegmentLine], scorer: BinocularsScorer, summary: ScoreSummary
) -> Iterator[dict[str, Any]]:
    """The lines with their verdicts, scored a window at a time (read, score, write)."""
    lines = iter(lines)
    while window := list(islice(lines, WINDOW_LINES)):
        _score_window([line.segment for line in window], scorer, summary)
        summary.lines += len(window)
        yield from (line.record() for line in window)
