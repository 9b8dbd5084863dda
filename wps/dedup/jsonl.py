"""De-duplicate an existing ``segments.jsonl`` against the site state (``wps dedup``).

Lines are grouped by ``url`` and pages are processed in order of first appearance, so a file written
by one run can be checked against pages seen in earlier runs. Each line gets ``kept``/``reasons``
updated, ``stats["dup_chunk_share"]``, ``simhash`` and a ``dup`` object (text-and-filters.md §6:
``cdc_dup_frac``, ``simhash``, the near-duplicate matches and the page order). The output is written
to a temporary file and renamed, so a failed run leaves no partial file.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..files import prepare_output_file, write_jsonl
from ..jsonsafe import iter_jsonl
from ..output import check_segment_line
from ..model import Segment
from . import Deduplicator

__all__ = ["DedupSummary", "dedup_jsonl"]


@dataclass(slots=True)
class DedupSummary:
    pages: int = 0
    segments: int = 0
    dropped: Counter[str] = field(default_factory=Counter)


REQUIRED_FIELDS = ("url", "text", "kept")
"""What de-duplication reads from a line: the page, the text compared, the earlier verdict (a
line without one must not come out kept)."""


def _read(source: Path) -> list[dict[str, Any]]:
    records = []
    for number, record in iter_jsonl(source):
        if not isinstance(record.get("url"), str):
            raise InputFileError(f"{source}:{number}: a segment line needs a 'url'")
        check_segment_line(record, f"{source}:{number}", required=REQUIRED_FIELDS)
        records.append(record)
    return records


def _segment(record: dict[str, Any], index: int) -> Segment:
    return Segment(
        id=str(record.get("segment_id", index)),
        polygons=[],
        text=record["text"],
        main_text=record.get("main_text", ""),
        kept=record["kept"],
        reasons=list(record.get("reasons") or []),
        stats=dict(record.get("stats") or {}),
    )


def dedup_jsonl(
    source: str | Path, deduplicator: Deduplicator, destination: str | Path | None = None
) -> DedupSummary:
    """Mark duplicated segments of ``source``; write to ``destination`` (default: in place)."""
    source = Path(source)
    target = Path(destination) if destination is not None else source
    records = _read(source)
    prepare_output_file(target)  # an impossible output fails before the state records the pages
    pages: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        pages.setdefault(record["url"], []).append(index)
    summary = DedupSummary(pages=len(pages), segments=len(records))
    for url, indices in pages.items():
        segments = [_segment(records[i], i) for i in indices]
        before = [set(segment.reasons) for segment in segments]
        deduplicator.process(url, segments)
        for index, segment, old in zip(indices, segments, before):
            record = records[index]
            record["kept"], record["reasons"] = segment.kept, segment.reasons
            record.setdefault("stats", {})["dup_chunk_share"] = segment.stats["dup_chunk_share"]
            record["simhash"] = segment.extra["simhash"]
            record["dup"] = segment.extra["dup"]
            summary.dropped.update(set(segment.reasons) - old)
    write_jsonl(records, target)
    return summary
