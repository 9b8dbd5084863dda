"""The HTML pages of a WARC file, past the records that cannot be read.

One stretch of unreadable records (:func:`wps.warcfile.warc_records`) is one failed entry of
the batch, so a rerun does not die at the same record. A file whose first record is broken and
that has no later readable record is not a WARC file: an :class:`~wps.errors.InputFileError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..capture.sources import html_in_utf8
from ..errors import InputFileError, UsageError
from ..files import reading
from ..model import StoredPage
from ..warcfile import UnreadableStretch, warc_records
from .entries import BatchSource, is_stored_page_url

_HTML_TYPES = ("text/html", "application/xhtml+xml")


def warc_pages(path: Path) -> Iterator[BatchSource]:
    """HTML pages of a WARC file: ``response`` records with HTTP status 200 and an HTML content
    type, and ``resource`` records of HTML; every other record is skipped. An HTML record whose
    target is not an http(s) URL, and each stretch of unreadable records, is a failed entry."""
    with reading(path, "WARC file"), open(path, "rb") as stream:
        for entry in warc_records(stream, f"{path}: reading WARC files"):
            if isinstance(entry, UnreadableStretch):
                if entry.offset == 0 and not entry.resumed:
                    raise InputFileError(f"{path}: not a readable WARC file ({entry.cause})")
                yield _unreadable(path, entry)
            else:
                yield from _page_of(entry[1], path, entry[0])


def warc_page(path: str | Path, url: str | None = None, replay: bool = False) -> StoredPage:
    """The one page of a WARC file that ``wps segment`` renders: the HTML record of ``url``, or
    the file's only HTML page; with ``replay``, its requests are answered from the same file.

    Raises :class:`~wps.errors.InputFileError` for a file without that page and
    :class:`~wps.errors.UsageError` for a file of several pages and no ``url``.
    """
    path = Path(path)
    found: list[BatchSource] = []
    for source in warc_pages(path):
        if not source.problem and (url is None or source.location == url):
            found.append(source)
            if url is not None or len(found) > 1:
                break
    if not found:
        raise InputFileError(f"{path}: " + (f"no HTML response record of {url}" if url
                                            else "no HTML response record"))
    if len(found) > 1:
        raise UsageError(f"{path}: holds several HTML pages ({found[0].location}, "
                         f"{found[1].location}, ...); name one with --url, or run wps batch")
    page = found[0]
    return StoredPage.of(page.html or b"", page.location, str(path) if replay else "")


def _unreadable(path: Path, stretch: UnreadableStretch) -> BatchSource:
    where = f"{path}@{stretch.offset}"
    return BatchSource(where, problem=f"{where}: unreadable WARC record ({stretch.cause}); " + (
        "skipped to the next readable one" if stretch.resumed else "nothing readable after it"))


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
    return html_in_utf8(record.content_stream().read(), content_type)
