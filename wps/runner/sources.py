"""What a batch reads: pages from a URL list, a JSONL file, a folder of HTML files or WARC files.

Every input is streamed (one line, file or record at a time, never loaded whole) into
:class:`BatchSource` values keyed by a stable hash of the page's URL; a page listed twice is
taken once. Pages that come with their HTML (JSONL ``html`` fields, WARC responses) are rendered
from that HTML offline, under their own URL.

=================================  ====================================================
input                              pages
=================================  ====================================================
``*.txt`` (any other file)         one URL or local ``.html(.gz)`` per line; ``#`` comments
``*.jsonl`` / ``*.jsonl.gz``       one object per line: ``url`` and optional ``html``
a folder                           every ``.html``/``.htm``/``.xhtml`` (``.gz``) under it
``*.warc`` / ``*.warc.gz``         WARC ``response``/``resource`` records of HTML pages
=================================  ====================================================
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..capture.sources import HTML_SUFFIXES, is_url, page_id_for
from ..errors import InputFileError, MissingDependencyError
from ..files import reading

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson")
WARC_SUFFIXES = (".warc", ".warc.gz")
_HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(slots=True, frozen=True)
class BatchSource:
    """One page of a batch: its URL (or local file) and, when the input carried it, its HTML."""

    location: str
    html: bytes | None = None
    """The page's stored HTML (JSONL ``html``, WARC payload): rendered offline, never fetched."""
    problem: str = ""
    """Why this entry of the input cannot be a page (a bad JSONL line): recorded as a failure."""

    @property
    def key(self) -> str:
        return source_key(self.location)


def source_key(source: str) -> str:
    """The folder name of a source's output: the capture's ``page_id`` (SHA-1 prefix of the URL)."""
    if is_url(source):
        return page_id_for(source)
    return page_id_for(Path(source).resolve().as_uri())


def input_kind(path: str | Path) -> str:
    """``folder``, ``jsonl``, ``warc`` or ``list``, from what ``path`` is and its name."""
    path = Path(path)
    name = path.name.lower()
    if path.is_dir():
        return "folder"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(WARC_SUFFIXES):
        return "warc"
    return "list"


def iter_sources(path: str | Path) -> Iterator[BatchSource]:
    """The pages of ``path`` (any input kind), in input order, each once.

    An input that names no page at all is an :class:`InputFileError` before anything else runs.
    """
    path = Path(path)
    kind = input_kind(path)
    reader = {"folder": _folder_pages, "jsonl": _jsonl_pages, "warc": _warc_pages,
              "list": _listed_pages}[kind]
    seen: set[str] = set()
    empty = True
    for source in reader(path):
        if not source.problem:
            key = source.key
            if key in seen:
                continue
            seen.add(key)
        empty = False
        yield source
    if empty:  # most likely the wrong file: say so instead of "0 pages done"
        what = {"folder": "no .html/.html.gz file in it", "jsonl": "no line with a url",
                "warc": "no HTML response record", "list": "no URL or file listed (only blank "
                "lines and # comments)"}[kind]
        raise InputFileError(f"{path}: {what}")


def count_sources(path: str | Path) -> int | None:
    """A quick upper bound of the pages in ``path`` for the progress bar (lines or files, repeats
    included); ``None`` for WARC files, whose records are only known by reading them."""
    path = Path(path)
    kind = input_kind(path)
    if kind == "warc":
        return None
    if kind == "folder":
        return sum(1 for _ in _html_files(path))
    with reading(path, "input file"), _open_text(path) as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith("#"))


def read_source_list(path: str | Path) -> list[str]:
    """Sources in a URL list: one per line; blank lines and ``#`` comments skipped, repeats
    dropped. Relative file paths are taken relative to the list's folder, so a list travels with
    its files."""
    return [source.location for source in iter_sources(path)]


def _listed_pages(path: Path) -> Iterator[BatchSource]:
    with reading(path, "URL list"), _open_text(path) as handle:
        for line in handle:
            entry = line.strip()
            if not entry or entry.startswith("#"):
                continue
            if not is_url(entry):
                local = Path(entry).expanduser()
                entry = str(local if local.is_absolute() else (path.parent / local).resolve())
            yield BatchSource(entry)


def _jsonl_pages(path: Path) -> Iterator[BatchSource]:
    """``{"url": ..., "html": ...}`` per line; a line without a usable ``url`` becomes a failure
    of its own (a crawl dump with one bad line must not stop a million-page run)."""
    with reading(path, "JSONL file"), _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except ValueError as err:
                yield BatchSource(where, problem=f"{where}: not JSON ({err})")
                continue
            url = record.get("url") if isinstance(record, dict) else None
            html = record.get("html") if isinstance(record, dict) else None
            if not isinstance(url, str) or not is_url(url):
                yield BatchSource(where, problem=f"{where}: no http(s) 'url' field")
            elif html is not None and not isinstance(html, str):
                yield BatchSource(where, problem=f"{where}: 'html' is not a string")
            else:
                yield BatchSource(url, None if html is None else html.encode("utf-8"))


def _folder_pages(path: Path) -> Iterator[BatchSource]:
    for file in _html_files(path):
        yield BatchSource(str(file))


def _html_files(folder: Path) -> Iterator[Path]:
    """HTML files under ``folder``, in name order, walked one folder at a time."""
    for root, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            if name.lower().endswith(HTML_SUFFIXES):
                yield (Path(root) / name).resolve()


def _warc_pages(path: Path) -> Iterator[BatchSource]:
    """HTML pages of a WARC file: ``response`` records with HTTP status 200 and an HTML content
    type, and ``resource`` records of HTML; every other record is skipped."""
    try:
        from warcio.archiveiterator import ArchiveIterator
        from warcio.exceptions import ArchiveLoadFailed
    except ImportError:
        raise MissingDependencyError(
            f"{path}: reading WARC files needs warcio (pip install 'wps[warc]')") from None
    with reading(path, "WARC file"), open(path, "rb") as stream:
        try:
            for record in ArchiveIterator(stream):
                html = _warc_html(record)
                if html is not None:
                    yield BatchSource(record.rec_headers.get_header("WARC-Target-URI"), html)
        except ArchiveLoadFailed as err:
            raise InputFileError(f"{path}: not a readable WARC file ({err})") from None


def _warc_html(record: object) -> bytes | None:
    uri = record.rec_headers.get_header("WARC-Target-URI")  # type: ignore[attr-defined]
    if not uri or not is_url(uri):
        return None
    if record.rec_type == "response":  # type: ignore[attr-defined]
        http = record.http_headers  # type: ignore[attr-defined]
        if http is None or http.get_statuscode() != "200":
            return None
        content_type = http.get_header("Content-Type") or ""
    elif record.rec_type == "resource":  # type: ignore[attr-defined]
        content_type = record.rec_headers.get_header("Content-Type") or ""  # type: ignore
    else:
        return None
    if not content_type.split(";")[0].strip().lower() in _HTML_TYPES:
        return None
    return record.content_stream().read()  # type: ignore[attr-defined]


def _open_text(path: Path) -> IO[str]:
    if path.name.lower().endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")
