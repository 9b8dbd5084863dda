"""De-duplicate an existing ``segments.jsonl`` against the site state (``wps dedup``).

Lines are read back as segments (:mod:`wps.records`; each known by its ``segment_id``) and given
to the same :class:`~wps.dedup.Deduplicator` as the pipeline's dedup step. They are grouped by
``url`` and pages are processed in order of first appearance, so a file written by one run can be
checked against pages seen in earlier runs. Each line gets ``kept``/``reasons`` updated,
``stats["dup_chunk_share"]``, ``simhash`` and a ``dup`` object (text-and-filters.md §6:
``cdc_dup_frac``, ``simhash``, the near-duplicate matches and the page order). The output is
written to a temporary file and renamed, so a failed run leaves no partial file; the state is
opened only once the whole input has been read and the output checked, so a refused input
creates no state file either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..files import prepare_output_file
from ..records import SegmentLine, read_segment_lines, write_segment_records
from . import Deduplicator

__all__ = ["DedupSummary", "dedup_jsonl"]


@dataclass(slots=True)
class DedupSummary:
    pages: int = 0
    segments: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    state: str = ""
    """The SQLite state the pages were checked against and recorded in."""


REQUIRED_FIELDS = ("url", "text", "kept")
"""What de-duplication reads from a line: the page, the text compared, the earlier verdict (a
line without one must not come out kept)."""


def dedup_jsonl(
    source: str | Path, open_state: Callable[[], Deduplicator],
    destination: str | Path | None = None
) -> DedupSummary:
    """Mark duplicated segments of ``source``; write to ``destination`` (default: in place).
    ``open_state()`` gives the deduplicator (it is closed here), once the input is known good."""
    source = Path(source)
    target = Path(destination) if destination is not None else source
    lines = list(read_segment_lines(source, REQUIRED_FIELDS))
    prepare_output_file(target)  # an impossible output fails before the state records the pages
    pages: dict[str, list[SegmentLine]] = {}
    for line in lines:
        pages.setdefault(line.context.fields["url"], []).append(line)
    summary = DedupSummary(pages=len(pages), segments=len(lines))
    with open_state() as deduplicator:
        summary.state = str(deduplicator.store.path)
        for url, page_lines in pages.items():
            before = [set(line.segment.reasons) for line in page_lines]
            deduplicator.process(url, [line.segment for line in page_lines])
            for line, old in zip(page_lines, before):
                summary.dropped.update(set(line.segment.reasons) - old)
    write_segment_records((line.record() for line in lines), target)
    return summary
