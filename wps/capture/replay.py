"""WARC replay: a page rendered under its own URL with every request answered from the same WARC.

A browser-grade archiver stores a page's stylesheets, fonts, scripts and images beside its HTML;
rendering the HTML with its subresources blocked shows another page than its readers saw.
:class:`ReplayArchive` indexes a WARC file's ``response``, ``resource`` and ``revisit`` records
by target URL (a revisit is followed to the record it refers to) and reads a record's payload
only when the page asks for it. The tab of a replayed page answers each request the request
policy allows from the archive (:func:`~.tabs.open_tab`) and aborts the rest: nothing goes to
the network (the tab's proxy refuses everything as for a local page), and what the page asked
for and the archive lacks is listed in the capture (``replay_missing``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..warcfile import UnreadableStretch, warc_records

_HOP_HEADERS = frozenset(("content-length", "content-encoding", "transfer-encoding",
                          "connection", "keep-alive", "set-cookie"))
"""Headers not replayed: the payload is stored decoded, and an archive sets no cookies."""
_MAX_REVISITS = 5


@dataclass(frozen=True, slots=True)
class ReplayResponse:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(slots=True)
class ReplayArchive:
    """The records of one WARC file, by target URL (the first record of a URL wins)."""

    path: Path
    offsets: dict[str, int] = field(default_factory=dict)
    revisits: dict[str, str] = field(default_factory=dict)
    """A revisit record's URL -> the URL of the record it refers to."""

    @classmethod
    def read(cls, path: str | Path) -> ReplayArchive:
        """Index ``path``, past the records that cannot be read (a page that asks for one of
        them finds it missing); a file with no readable record is an
        :class:`~wps.errors.InputFileError`."""
        archive = cls(Path(path))
        readable, cause = False, "no record"
        try:
            with open(path, "rb") as stream:
                for entry in warc_records(stream, "replaying a WARC file"):
                    if isinstance(entry, UnreadableStretch):
                        cause = entry.cause
                    else:
                        readable = True
                        archive._note(entry[1], entry[0])
        except OSError as err:
            raise InputFileError(f"{path}: cannot read the WARC file ({err.strerror})") from None
        if not readable:
            raise InputFileError(f"{path}: not a readable WARC file ({cause})")
        return archive

    def _note(self, record: Any, offset: int) -> None:
        url = record.rec_headers.get_header("WARC-Target-URI") or ""
        if not url or url in self.offsets or url in self.revisits:
            return
        if record.rec_type in ("response", "resource"):
            self.offsets[url] = offset
        elif record.rec_type == "revisit":
            target = record.rec_headers.get_header("WARC-Refers-To-Target-URI")
            if target:
                self.revisits[url] = target

    def lookup(self, url: str) -> ReplayResponse | None:
        """The stored answer for ``url`` (``None``: not in the archive)."""
        for _ in range(_MAX_REVISITS):
            if url in self.offsets:
                return self._response_at(self.offsets[url])
            if url not in self.revisits:
                return None
            url = self.revisits[url]
        return None

    def _response_at(self, offset: int) -> ReplayResponse | None:
        with open(self.path, "rb") as stream:
            entry = next(warc_records(stream, "replaying a WARC file", offset), None)
            if entry is None or isinstance(entry, UnreadableStretch):
                return None
            record = entry[1]
            body = record.content_stream().read()
            if record.rec_type == "resource":
                kind = record.rec_headers.get_header("Content-Type") or "application/octet-stream"
                return ReplayResponse(200, {"content-type": kind}, body)
            http = record.http_headers
            status = int(http.get_statuscode() or 200)
            headers = {name.lower(): value for name, value in http.headers
                       if name.lower() not in _HOP_HEADERS}
            return ReplayResponse(status, headers, body)


def replay_archive(path: str | Path) -> ReplayArchive:
    """The index of a WARC file, read once per process while the file stays as it is (a batch
    worker replays many pages of one archive)."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as err:
        raise InputFileError(f"{path}: cannot read the WARC file ({err.strerror})") from None
    return _cached_archive(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=2)
def _cached_archive(path: str, mtime_ns: int, size: int) -> ReplayArchive:
    return ReplayArchive.read(path)
