"""The resumable results store: one JSON line per (page, segmenter), flushed and fsynced.

A benchmark over 8,490 pages runs for hours; a crash or Ctrl-C must lose at most the page in
flight. Every record is appended as one line and fsynced before the next page starts, so on
restart the store tells which (page, segmenter) pairs are done. A half-written last line (the
process died mid-write) is cut off when the store is opened, never parsed as data.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..jsonsafe import load_nested

__all__ = ["PageResult", "ResultStore", "OWN", "BASELINE_SUBSTITUTE", "MISSING"]

OWN = "own"
"""The segmenter's own output was evaluated."""
BASELINE_SUBSTITUTE = "baseline-substitute"
"""The segmenter failed or gave no segments; the full-page baseline's row stands in (§8)."""
MISSING = "missing"
"""Neither the segmenter's output nor the baseline could be evaluated: NA for every measure."""

Score = tuple[float, float, float]
"""(precision, recall, f1); NaN where the measure is undefined."""


@dataclass(slots=True)
class PageResult:
    """The evaluation of one segmenter on one page, for every size function."""

    page: str
    segmenter: str
    source: str
    """:data:`OWN`, :data:`BASELINE_SUBSTITUTE` or :data:`MISSING`."""
    segments: int
    """Segments of the segmentation that was evaluated (1 for a baseline substitute)."""
    seconds: float
    """Wall time of ``segment()`` (the segmenter's own attempt, even when it failed)."""
    scores: dict[str, Score] | None = field(default=None)
    """size function -> (P, R, F); ``None`` when nothing could be evaluated."""
    error: str = ""
    """Why the segmenter's own output is missing ("" when :data:`OWN`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "segmenter": self.segmenter,
            "source": self.source,
            "segments": self.segments,
            "seconds": self.seconds,
            "scores": None if self.scores is None else {
                name: [None if math.isnan(value) else value for value in score]
                for name, score in self.scores.items()
            },
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageResult:
        scores = data.get("scores")
        return cls(
            page=str(data["page"]),
            segmenter=str(data["segmenter"]),
            source=str(data["source"]),
            segments=int(data["segments"]),
            seconds=float(data["seconds"]),
            scores=None if scores is None else {
                name: tuple(math.nan if value is None else float(value) for value in score)
                for name, score in scores.items()
            },
            error=str(data.get("error", "")),
        )


class ResultStore:
    """Append-only JSONL file of :class:`PageResult` records."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._drop_partial_last_line()

    def read(self) -> list[PageResult]:
        """Every complete record, in write order; a later record for a pair replaces earlier."""
        if not self.path.exists():
            return []
        latest: dict[tuple[str, str], PageResult] = {}
        with open(self.path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        complete = lines[:-1]  # the text after the last newline is empty or a partial write
        for number, line in enumerate(complete, start=1):
            if not line.strip():
                continue
            try:
                record = PageResult.from_json(
                    load_nested(line, f"{self.path}:{number}", json.loads))
            except (ValueError, KeyError, TypeError) as err:
                raise InputFileError(f"{self.path}: line {number}: corrupt result record ({err})"
                                     ) from None
            latest[(record.page, record.segmenter)] = record
        return list(latest.values())

    def done(self) -> set[tuple[str, str]]:
        """(page, segmenter) pairs already evaluated."""
        return {(record.page, record.segmenter) for record in self.read()}

    def append(self, results: Iterable[PageResult]) -> None:
        """Append records and make them durable before returning."""
        text = "".join(
            json.dumps(result.to_json(), ensure_ascii=False, allow_nan=False) + "\n"
            for result in results
        )
        if not text:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    def _drop_partial_last_line(self) -> None:
        """Cut a trailing partial record so the next append starts on a fresh line."""
        if not self.path.exists():
            return
        with open(self.path, "rb+") as handle:
            data = handle.read()
            if data and not data.endswith(b"\n"):
                handle.truncate(data.rfind(b"\n") + 1)
