"""What a batch reads: pages from a URL list, a JSONL file, a folder of HTML files or WARC files.

Every input is streamed (one line, file or record at a time, never loaded whole) into
:class:`BatchSource` values keyed by a stable hash of the page's URL; a page listed twice is
taken once. Pages that come with their HTML (JSONL ``html`` fields, WARC responses) are rendered
from that HTML offline, under their own URL, which must be http(s): a stored page never names a
local file. An entry that cannot be a page (a line that is not UTF-8 or not such a JSON object,
a path that cannot be resolved, an unreadable WARC record: :mod:`.warc`) is a
:class:`BatchSource` with a ``problem``, one failure of the batch, never the end of it.

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
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..capture.sources import HTML_SUFFIXES, is_url, url_problem
from ..errors import InputFileError, WpsError
from ..files import reading
from ..jsonsafe import load_nested
from .entries import BatchSource, is_stored_page_url, utf8_bytes

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson")
WARC_SUFFIXES = (".warc", ".warc.gz")


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
    with reading(path, "input file"), _open_bytes(path) as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith(b"#"))


def read_source_list(path: str | Path) -> list[str]:
    """Sources in a URL list: one per line; blank lines and ``#`` comments skipped, repeats
    dropped. Relative file paths are taken relative to the list's folder, so a list travels with
    its files."""
    return [source.location for source in iter_sources(path)]


def _listed_pages(path: Path) -> Iterator[BatchSource]:
    for where, entry in _text_lines(path, "URL list"):
        if entry is None:
            yield BatchSource(where, problem=f"{where}: not UTF-8 text")
            continue
        entry = entry.strip()
        if not entry or entry.startswith("#"):
            continue
        if is_url(entry):
            problem = url_problem(entry)  # else its folder name or host could not be read
            yield BatchSource(where, problem=f"{where}: {entry}: {problem}") if problem else \
                BatchSource(entry)
            continue
        local = Path(entry).expanduser()
        try:  # the output folder's name comes from the resolved path
            resolved = (local if local.is_absolute() else path.parent / local).resolve()
        except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop (Python 3.11)
            yield BatchSource(where, problem=f"{where}: {entry}: unusable path ({err})")
        else:
            yield BatchSource(str(local if local.is_absolute() else resolved))


def _jsonl_pages(path: Path) -> Iterator[BatchSource]:
    """``{"url": ..., "html": ...}`` per line; a line that is not such a page (bad JSON, too
    deep, no http(s) ``url``, an ``html`` that is not Unicode text) becomes a failure of its own
    (a crawl dump with one bad line must not stop a million-page run)."""
    for where, line in _text_lines(path, "JSONL file"):
        if line is None:
            yield BatchSource(where, problem=f"{where}: not UTF-8 text")
            continue
        if not line.strip():
            continue
        try:
            record = load_nested(line, where, json.loads)
        except WpsError as err:
            yield BatchSource(where, problem=str(err))
            continue
        except ValueError as err:  # bad JSON
            yield BatchSource(where, problem=f"{where}: not JSON ({err})")
            continue
        url = record.get("url") if isinstance(record, dict) else None
        html = record.get("html") if isinstance(record, dict) else None
        if not isinstance(url, str) or not is_stored_page_url(url):
            yield BatchSource(where, problem=f"{where}: no http(s) 'url' field")
        elif html is None:
            yield BatchSource(url)
        elif not isinstance(html, str):
            yield BatchSource(where, problem=f"{where}: 'html' is not a string")
        elif (body := utf8_bytes(html)) is None:
            yield BatchSource(where, problem=f"{where}: 'html' is not Unicode text (an escaped "
                              "lone surrogate)")
        else:
            yield BatchSource(url, body)


def _warc_pages(path: Path) -> Iterator[BatchSource]:
    from .warc import warc_pages  # warcio is imported only for WARC input

    return warc_pages(path)


def _folder_pages(path: Path) -> Iterator[BatchSource]:
    for file in _html_files(path):
        yield BatchSource(str(file)) if isinstance(file, Path) else file


def _html_files(folder: Path) -> Iterator[Path | BatchSource]:
    """HTML files under ``folder``, in name order, walked one folder at a time; a name that
    cannot be resolved (a symlink loop) is a failed entry."""
    for root, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            if name.lower().endswith(HTML_SUFFIXES):
                file = Path(root) / name
                try:
                    yield file.resolve()
                except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop
                    yield BatchSource(str(file), problem=f"{file}: unusable path ({err})")


def _text_lines(path: Path, what: str) -> Iterator[tuple[str, str | None]]:
    """``(file:line, text)`` of each line of a text input, decoded one by one: a line that is
    not UTF-8 comes as ``None`` (one bad entry, not a bad file)."""
    with reading(path, what), _open_bytes(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text: str | None = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            yield f"{path}:{number}", text


def _open_bytes(path: Path) -> IO[bytes]:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")
