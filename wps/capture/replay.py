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
from pathlib import Path
from typing import Any

from ..errors import InputFileError, MissingDependencyError

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
        """Index ``path``; an unreadable file is an :class:`~wps.errors.InputFileError`."""
        iterator = _archive_iterator()
        archive = cls(Path(path))
        try:
            with open(path, "rb") as stream:
                records = iterator(stream)
                for record in records:
                    archive._note(record, records.offset)
        except OSError as err:
            raise InputFileError(f"{path}: cannot read the WARC file ({err.strerror})") from None
        except Exception as err:  # noqa: BLE001 - warcio raises many kinds for bad bytes
            raise InputFileError(f"{path}: not a readable WARC file ({err})") from None
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
        iterator = _archive_iterator()
        with open(self.path, "rb") as stream:
            stream.seek(offset)
            record = next(iter(iterator(stream)), None)
            if record is None:
                return None
            body = record.content_stream().read()
            if record.rec_type == "resource":
                kind = record.rec_headers.get_header("Content-Type") or "application/octet-stream"
                return ReplayResponse(200, {"content-type": kind}, body)
            http = record.http_headers
            status = int(http.get_statuscode() or 200)
            headers = {name.lower(): value for name, value in http.headers
                       if name.lower() not in _HOP_HEADERS}
            return ReplayResponse(status, headers, body)


def _archive_iterator() -> Any:
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError:
        raise MissingDependencyError(
            "replaying a WARC file needs warcio (pip install 'wps[warc]')") from None
    return ArchiveIterator
