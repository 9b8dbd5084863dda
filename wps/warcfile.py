"""The records of a WARC file, read with warcio, past the records it cannot read.

A crawl's WARC file may hold a broken record (a cut gzip member, a bad header, a body that does
not decompress). Reading goes on at the next place a record can start (the next gzip member, or
the next ``WARC/1.x`` header of an uncompressed file), and the stretch skipped is reported as one
:class:`UnreadableStretch`, so neither the batch reader nor the replay index dies at the same
record on every rerun. Records are read as WARC only: warcio's ARC fallback would take the bytes
of a cut gzip member for an ARC header and swallow every record after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from .errors import MissingDependencyError

_RECORD_START = re.compile(rb"\x1f\x8b\x08|WARC/1\.")
"""A gzip member's magic bytes, or a WARC header's first line (also right after the bytes of
a cut record, where no newline ends them)."""
_MARKER_BYTES = 7
_CAUSE_CHARS = 120
_SCAN_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class UnreadableStretch:
    """Records from ``offset`` on that could not be read, and why; ``resumed``: a readable
    record follows (else the file ends in the stretch)."""

    offset: int
    cause: str
    resumed: bool


def warc_records(stream: IO[bytes], needed_for: str, start: int = 0,
                 ) -> Iterator[tuple[int, Any] | UnreadableStretch]:
    """``(offset, record)`` for each readable record of ``stream`` from ``start`` on, in file
    order, and an :class:`UnreadableStretch` where records could not be read. A record must be
    used before the next one is asked for (warcio streams its payload)."""
    try:
        from warcio.archiveiterator import WARCIterator
    except ImportError:
        raise MissingDependencyError(
            f"{needed_for} needs warcio (pip install 'wps[warc]')") from None
    at: int | None = start
    broken: tuple[int, str] | None = None
    """Where the stretch of unreadable records that reading is now skipping began, why."""
    while at is not None:
        stream.seek(at)
        records = WARCIterator(stream)
        try:
            for record in records:
                if broken is not None:  # a record read again: the stretch ends here
                    yield UnreadableStretch(*broken, resumed=True)
                    broken = None
                yield records.offset, record
            return
        except Exception as err:  # noqa: BLE001 - warcio raises many kinds for bad bytes
            broken = broken or (records.offset, _cause(err))
        at = _next_record_start(stream, records.offset + 1)
    assert broken is not None
    yield UnreadableStretch(*broken, resumed=False)


def _cause(err: Exception) -> str:
    """An error as a short printable line (warcio quotes the bad bytes it read)."""
    text = " ".join(f"{type(err).__name__}: {err}".split())
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= _CAUSE_CHARS else text[:_CAUSE_CHARS] + "..."


def _next_record_start(stream: IO[bytes], offset: int) -> int | None:
    """Where the next record may start at or after ``offset``: a gzip member's magic bytes or
    a ``WARC/1.x`` header, whichever comes first; ``None`` at the end of the file. Read in chunks,
    never whole."""
    stream.seek(offset)
    base, window = offset, b""  # base: the file offset of window[0]
    while chunk := stream.read(_SCAN_CHUNK):
        window += chunk
        match = _RECORD_START.search(window)
        if match:
            return base + match.start()
        cut = max(len(window) - _MARKER_BYTES, 0)  # keep what may be a cut marker
        base, window = base + cut, window[cut:]
    return None
