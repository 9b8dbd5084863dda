"""One entry of a batch's input (:class:`BatchSource`) and the checks every reader shares: the
list, JSONL, folder and WARC readers (:mod:`.sources`, :mod:`.warc`) all build on it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..capture.sources import is_url, page_id_for


@dataclass(slots=True, frozen=True)
class BatchSource:
    """One page of a batch: its URL (or local file) and, when the input carried it, its HTML."""

    location: str
    html: bytes | None = None
    """The page's stored HTML (JSONL ``html``, WARC payload): rendered offline, never fetched."""
    problem: str = ""
    """Why this entry of the input cannot be a page (a bad JSONL line, an unreadable WARC record):
    recorded as a failure."""
    archive: str | None = None
    """The WARC file the page came from (``--replay`` answers its requests from it)."""

    @property
    def key(self) -> str:
        return source_key(self.location)


def source_key(source: str) -> str:
    """The folder name of a source's output: the capture's ``page_id`` (SHA-1 prefix of the URL)."""
    if is_url(source):
        return page_id_for(source)
    return page_id_for(Path(source).resolve().as_uri())


def is_stored_page_url(url: str) -> bool:
    """Whether ``url`` may name a page of a stored input (JSONL, WARC): http(s) with a host, and
    valid Unicode (its output folder is named by a hash of its UTF-8 bytes). Never ``file:``: a
    line naming a local file would be rendered from this machine's disk."""
    if utf8_bytes(url) is None:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def utf8_bytes(text: str) -> bytes | None:
    """``text`` as UTF-8, or ``None`` if it holds a lone surrogate (JSON may escape one)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None
