"""The HTML pages of a WARC file, read with warcio, past the records it cannot read.

A crawl's WARC file may hold a broken record (a cut gzip member, a bad header, a body that does
not decompress). One such record is one failed entry of the batch: reading goes on at the next
place a record can start (the next gzip member, or the next ``WARC/1.x`` header of an
uncompressed file), so a rerun does not die at the same record. A file whose first record is
broken and that has no later record start at all is not a WARC file: an
:class:`~wps.errors.InputFileError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import InputFileError, MissingDependencyError
from ..files import reading
from .entries import BatchSource, is_stored_page_url

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_RECORD_START = re.compile(rb"\x1f\x8b\x08|WARC/1\.")
"""A gzip member's magic bytes, or a WARC header's first line (also right after the bytes of
a cut record, where no newline ends them)."""
_MARKER_BYTES = 7
_CAUSE_CHARS = 120
_SCAN_CHUNK = 1 << 20


def warc_pages(path: Path) -> Iterator[BatchSource]:
    """HTML pages of a WARC file: ``response`` records with HTTP status 200 and an HTML content
    type, and ``resource`` records of HTML; every other record is skipped. An HTML record whose
    target is not an http(s) URL, and each stretch of unreadable records, is a failed entry."""
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError:
        raise MissingDependencyError(
            f"{path}: reading WARC files needs warcio (pip install 'wps[warc]')") from None
    with reading(path, "WARC file"), open(path, "rb") as stream:
        start: int | None = 0
        broken: tuple[int, str] | None = None
        """Where the stretch of unreadable records that reading is now skipping began, why."""
        while start is not None:
            stream.seek(start)
            records = ArchiveIterator(stream)
            try:
                for record in records:
                    if broken is not None:  # a record read again: the stretch ends here
                        yield _unreadable(path, *broken, resumed=True)
                        broken = None
                    yield from _page_of(record, path, records.offset)
                return
            except Exception as err:  # noqa: BLE001 - warcio raises many kinds for bad bytes
                broken = broken or (records.offset, _cause(err))
            start = _next_record_start(stream, records.offset + 1)
        if broken[0] == 0:
            raise InputFileError(f"{path}: not a readable WARC file ({broken[1]})")
        yield _unreadable(path, *broken, resumed=False)


def _cause(err: Exception) -> str:
    """An error as a short printable line (warcio quotes the bad bytes it read)."""
    text = " ".join(f"{type(err).__name__}: {err}".split())
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= _CAUSE_CHARS else text[:_CAUSE_CHARS] + "..."


def _unreadable(path: Path, offset: int, cause: str, resumed: bool) -> BatchSource:
    where = f"{path}@{offset}"
    return BatchSource(where, problem=f"{where}: unreadable WARC record ({cause}); " + (
        "skipped to the next readable one" if resumed else "nothing readable after it"))


def _page_of(record: Any, path: Path, offset: int) -> Iterator[BatchSource]:
    """The page a record holds (nothing for a record that is not an HTML page)."""
    html = _warc_html(record)
    if html is None:
        return
    uri = record.rec_headers.get_header("WARC-Target-URI") or ""
    if is_stored_page_url(uri):
        yield BatchSource(uri, html, archive=str(path))
    else:
        where = f"{path}@{offset}"
        yield BatchSource(where, problem=f"{where}: WARC-Target-URI {uri!r} is not an http(s) URL")


def _warc_html(record: Any) -> bytes | None:
    if record.rec_type == "response":
        http = record.http_headers
        if http is None or http.get_statuscode() != "200":
            return None
        content_type = http.get_header("Content-Type") or ""
    elif record.rec_type == "resource":
        content_type = record.rec_headers.get_header("Content-Type") or ""
    else:
        return None
    if content_type.split(";")[0].strip().lower() not in _HTML_TYPES:
        return None
    return record.content_stream().read()


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
