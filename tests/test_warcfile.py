"""WARC records read past broken ones: the batch reader and the replay index both go on at the
next record, and bytes that warcio would take for an old ARC header do not swallow the file."""

from __future__ import annotations

import io

from warc_pages import write_replay_warc

from wps.capture.replay import ReplayArchive
from wps.runner.sources import iter_sources
from wps.warcfile import UnreadableStretch, warc_records

ARC_LIKE = b"\x1f\x8b\x08 cut 1.2.3.4 20260101000000 text/html 9\n"
"""A cut gzip member whose first bytes split into the five fields of an ARC header line: read
with ARC allowed, the "record" runs over the records after it."""


def _uncompressed_page(url: str, html: bytes) -> bytes:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=False)
    headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(html),
                                                  http_headers=headers))
    return buffer.getvalue()


def test_bytes_like_an_arc_header_are_one_unreadable_stretch(tmp_path):
    good = _uncompressed_page("http://127.0.0.1:9/good", b"<p>a stored page</p>")
    warc = tmp_path / "crawl.warc"
    warc.write_bytes(ARC_LIKE + good)
    with open(warc, "rb") as stream:
        entries = [entry if isinstance(entry, UnreadableStretch) else entry[0]
                   for entry in warc_records(stream, "this test")]
    assert len(entries) == 2
    assert entries[0].offset == 0 and entries[0].resumed and "WARC" in entries[0].cause
    assert entries[1] == len(ARC_LIKE)
    pages = [source.location for source in iter_sources(warc) if not source.problem]
    assert pages == ["http://127.0.0.1:9/good"]


def test_the_replay_index_skips_a_broken_record(tmp_path):
    whole = write_replay_warc(tmp_path / "site.warc.gz").read_bytes()
    broken = tmp_path / "broken.warc.gz"
    broken.write_bytes(ARC_LIKE + whole[:40] + whole)  # two cut records before the archive
    archive, intact = ReplayArchive.read(broken), ReplayArchive.read(tmp_path / "site.warc.gz")
    assert sorted(archive.offsets) == sorted(intact.offsets)
    assert archive.revisits == intact.revisits
    for url in intact.offsets:
        assert archive.lookup(url) == intact.lookup(url)
