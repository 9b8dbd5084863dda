"""Score the kept segments of a ``segments.jsonl`` with Binoculars and write the verdicts back.

Each line (text-and-filters.md §6) gets a ``binoculars`` object: the score and verdict, or
``{"skipped": reason}`` for segments that were dropped by an earlier rule (``not_kept``), have no
text (``empty``) or too few tokens. The text scored is the segment's ``main_text`` when it has one,
else its ``text``. Lines are read and written in windows (sorted by token count inside a window for
batching), and the output goes to a temporary file renamed over the target at the end, so an
interrupted run leaves the input untouched and no partial output.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import InputFileError
from ..files import atomic_file, prepare_output_file
from ..jsonsafe import iter_jsonl
from ..output import check_segment_line
from .binoculars import BinocularsResult, BinocularsScorer

__all__ = ["ScoreSummary", "check_segments_file", "score_jsonl", "segment_text", "binoculars_record"]

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


def segment_text(record: dict[str, Any]) -> str:
    """The text Binoculars should judge: the main-text part when present, else the whole segment."""
    main_text = record.get("main_text", "")
    return main_text if main_text.strip() else record["text"]


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
    window: list[dict[str, Any]], scorer: BinocularsScorer, summary: ScoreSummary
) -> None:
    wanted = [r for r in window if r["kept"] and segment_text(r).strip()]
    for record in window:
        if not record["kept"]:
            record["binoculars"] = {"skipped": "not_kept"}
        elif not segment_text(record).strip():
            record["binoculars"] = {"skipped": "empty"}
    results = scorer.score_texts([segment_text(r) for r in wanted])
    for record, result in zip(wanted, results):
        record["binoculars"] = binoculars_record(result, scorer)
    for record in window:
        outcome = record["binoculars"]
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
    for number, record in iter_jsonl(source):
        check_segment_line(record, f"{source}:{number}", required=REQUIRED_FIELDS)
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
    with atomic_file(target) as writer:
        window: list[dict[str, Any]] = []
        for number, record in iter_jsonl(source):
            check_segment_line(record, f"{source}:{number}", required=REQUIRED_FIELDS)
            window.append(record)
            if len(window) >= WINDOW_LINES:
                _flush(window, scorer, summary, writer)
        _flush(window, scorer, summary, writer)
    return summary


def _flush(
    window: list[dict[str, Any]], scorer: BinocularsScorer, summary: ScoreSummary, writer: IO[str]
) -> None:
    if not window:
        return
    _score_window(window, scorer, summary)
    for record in window:
        writer.write(json.dumps(record, ensure_ascii=False) + "\n")
    summary.lines += len(window)
    window.clear()
