"""Score the kept segments of a ``segments.jsonl`` with Binoculars and write the verdicts back.

Each line (text-and-filters.md §6) gets a ``binoculars`` object: the score and verdict, or
``{"skipped": reason}`` for segments that were dropped by an earlier rule (``not_kept``), have no
text (``empty``) or too few tokens. What is scored is a detector unit (:mod:`wps.decide.units`):
the kept pieces of a page's article joined, each post, each other kept segment; each piece's text
is its ``main_text`` when it has one, else its ``text``, and every piece gets its unit's verdict.
Lines are read back as segments (:mod:`wps.records`) and read, scored and written in windows of
whole pages (sorted by token count inside a window for batching); the output goes to a temporary
file renamed over the target at the end, so an interrupted run leaves the input untouched and no
partial output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..files import prepare_output_file
from ..model import Segment
from ..records import (
    UNIT_SEPARATOR,
    SegmentLine,
    detector_text,
    read_segment_lines,
    unit_key,
    write_segment_records,
)
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
    """Lines scored (each with its unit's verdict)."""
    units: int = 0
    """Detector units scored; ``predictions`` counts their verdicts."""
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
        **({"windows": result.windows, "min_window_score": result.min_window_score}
           if result.windows > 1 else {}),
    }


def _score_page_lines(window: list[SegmentLine], scorer: BinocularsScorer,
                      summary: ScoreSummary) -> None:
    """Score each detector unit of ``window`` (whole pages) once, as one text: its kept pieces
    joined in file order; every piece gets the unit's verdict (with ``pieces``, their number,
    where there are several)."""
    units: dict[tuple[str, str], list[Segment]] = {}
    for line in window:
        segment = line.segment
        if not segment.kept:
            segment.binoculars = {"skipped": "not_kept"}
        elif not segment_text(segment).strip():
            segment.binoculars = {"skipped": "empty"}
        else:
            units.setdefault(unit_key(_page_of(line), segment.unit, line.where),
                             []).append(segment)
    results = scorer.score_texts([UNIT_SEPARATOR.join(segment_text(s) for s in members)
                                  for members in units.values()])
    for members, result in zip(units.values(), results):
        record = binoculars_record(result, scorer)
        if len(members) > 1:
            record["pieces"] = len(members)
        for segment in members:
            segment.binoculars = dict(record)
        if "skipped" not in record:
            summary.units += 1
            summary.predictions[record["pred"]] += 1
    for line in window:
        outcome = line.segment.binoculars or {}
        if "skipped" in outcome:
            summary.skipped[outcome["skipped"]] += 1
        else:
            summary.scored += 1


def _page_of(line: SegmentLine) -> str:
    fields = line.context.fields
    return str(fields.get("page_id") or fields.get("url") or "")


def _page_windows(lines: Iterable[SegmentLine]) -> Iterator[list[SegmentLine]]:
    """The lines in windows of whole pages (at least :data:`WINDOW_LINES` lines each but the
    last): a unit's pieces are all on one page, so none is cut apart."""
    window: list[SegmentLine] = []
    for line in lines:
        if len(window) >= WINDOW_LINES and _page_of(line) != _page_of(window[-1]):
            yield window
            window = []
        window.append(line)
    if window:
        yield window


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
    """The lines with their verdicts, scored a window of whole pages at a time (read, score,
    write)."""
    for window in _page_windows(lines):
        _score_page_lines(window, scorer, summary)
        summary.lines += len(window)
        yield from (line.record() for line in window)
