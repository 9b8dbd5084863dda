"""Sources that are refused are refused before Chromium starts, as one line with the documented
exit code: internal and malformed URLs (``wps capture``, ``wps segment``), local files too large
to read whole (a gzip bomb), and local HTML followed by binary bytes.

A fake Chromium records whether it was started (``fake_chromium`` of test_untrusted_inputs). No
URL here needs a name looked up: every host is an address literal, so no packet leaves.
"""

from __future__ import annotations

import gzip
import os
import random
import tracemalloc
from pathlib import Path

import pytest
from test_untrusted_inputs import _one_error_line, fake_chromium  # noqa: F401 (a fixture)

from wps.capture.sniff import BinarySniffer, binary_verdict
from wps.capture.sources import MAX_DOCUMENT_BYTES, check_body, resolve_source
from wps.cli import main
from wps.errors import BlockedTargetError, InputFileError, NotHtmlError, UsageError

REFUSED_URLS = {
    "http://127.0.0.1/": BlockedTargetError,
    "http://127.1:8080/page.html": BlockedTargetError,
    "http://0x7f000001/": BlockedTargetError,
    "http://2130706433/": BlockedTargetError,
    "http://[::1]/": BlockedTargetError,
    "http://[::ffff:127.0.0.1]/": BlockedTargetError,
    "http://10.0.0.1/": BlockedTargetError,
    "http://169.254.169.254/latest/meta-data/": BlockedTargetError,
    "https://0.0.0.0/": BlockedTargetError,
    "http://127.0.0.1\\@93.184.215.14/": BlockedTargetError,  # Chromium's host is 127.0.0.1
    "http://127.0.0.1:99999/": UsageError,
    "https://127.0.0.1:0/": UsageError,
    "http://[zz]/": UsageError,
    "http://[::1/": UsageError,
    "http://93.184.215.14:+80/": UsageError,
    "ftp://127.0.0.1/page.html": UsageError,
    "http:///nohost": UsageError,
}


@pytest.mark.parametrize("command", ["capture", "segment"])
@pytest.mark.parametrize("url", sorted(REFUSED_URLS))
def test_a_refused_url_stops_before_the_browser_starts(command, url, fake_chromium, tmp_path,
                                                       capsys):
    out = tmp_path / "out"
    code = main([command, url, "--out", str(out)])
    _one_error_line(capsys, code, REFUSED_URLS[url].exit_code, url)
    assert not fake_chromium.exists()
    assert not out.exists()


def _gzip_of_spaces(path: Path, size: int) -> Path:
    """``<p>`` and ``size`` bytes of spaces, gzipped by the MiB (the test never holds them)."""
    with gzip.open(path, "wb", compresslevel=9) as stream:
        stream.write(b"<p>bomb</p>")
        block = b" " * (1 << 20)
        for _ in range(size >> 20):
            stream.write(block)
    return path


def test_a_gzip_bomb_is_refused_while_it_is_read(tmp_path):
    bomb = _gzip_of_spaces(tmp_path / "bomb.html.gz", 4 * MAX_DOCUMENT_BYTES)
    assert bomb.stat().st_size < MAX_DOCUMENT_BYTES // 64
    tracemalloc.start()
    try:
        with pytest.raises(InputFileError, match="too large, decompresses to more than"):
            resolve_source(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_DOCUMENT_BYTES + (16 << 20)  # the capped read, never the whole
    page = _gzip_of_spaces(tmp_path / "page.html.gz", 2 << 20)  # under the cap: read as before
    source = resolve_source(page)
    try:
        assert source.is_file and Path(source.navigate_url[len("file://"):]).stat().st_size > \
            (2 << 20)
    finally:
        source.cleanup()


def test_a_gzip_bomb_stops_wps_capture_before_the_browser(fake_chromium, tmp_path, capsys):
    bomb = _gzip_of_spaces(tmp_path / "bomb.html.gz", 2 * MAX_DOCUMENT_BYTES)
    out = tmp_path / "out"
    code = main(["capture", str(bomb), "--out", str(out)])
    _one_error_line(capsys, code, InputFileError.exit_code, str(bomb), "too large")
    assert not fake_chromium.exists() and not out.exists()


@pytest.mark.parametrize("tail", ["random", "controls"])
def test_local_html_followed_by_binary_is_refused_before_the_browser(tail, fake_chromium,
                                                                     tmp_path, capsys):
    head = b"<html><body>" + b"<p>an ordinary paragraph of text</p>" * 200
    assert len(head) > 4096  # the head alone passes; the check must read on
    check_body("head.html", head)
    junk = os.urandom(1 << 20) if tail == "random" else bytes(range(1, 32)) * 40_000
    page = tmp_path / "page.html"
    page.write_bytes(head + junk)
    code = main(["capture", str(page), "--out", str(tmp_path / "out")])
    _one_error_line(capsys, code, NotHtmlError.exit_code, str(page.name), "binary")
    assert not fake_chromium.exists()


def test_the_whole_body_is_judged_and_real_pages_pass(article_benchmark):
    """Binary bytes anywhere are found; text with a few control bytes (a form feed per
    paragraph, a DOS end-of-file byte) and every benchmark page, read whole, pass."""
    text = (b"<p>" + b"words " * 15 + b"</p>\x0c") * 300 + b"</body>\x1a"
    for position in (0, len(text) // 2, len(text)):
        with pytest.raises(NotHtmlError, match="binary"):
            check_body("mixed.html", b"<p>x</p>" + text[:position] + os.urandom(8192)
                       + text[position:])
    check_body("text.html", text)
    pages = sorted((article_benchmark / "html").glob("*.html.gz"))
    assert len(pages) > 100
    for page in pages:
        check_body(page.name, gzip.decompress(page.read_bytes()))


def test_a_body_judged_in_pieces_gets_the_whole_body_verdict():
    """The egress proxy judges a body as it arrives: however it is cut, the verdict is the one
    the whole body gets (text with scattered control bytes, NULs, byte-order marks, magic)."""
    rng = random.Random(25)
    verdicts = set()
    for _ in range(600):
        size = rng.choice([10, 300, 4095, 4096, 4097, 9000, 70_000])
        body = bytearray((b"<p>some text</p>\n" * (size // 17 + 1))[:size])
        for _ in range(rng.choice([0, 2, 10, 60, 400])):
            body[rng.randrange(size)] = rng.choice([0, 1, 7, 12, 26, 27, 31])
        body[:0] = rng.choice([b"", b"", b"\xff\xfe", b"\xef\xbb\xbf", b"%PDF-"])
        whole = binary_verdict(bytes(body))
        sniffer, start = BinarySniffer(), 0
        while start < len(body):
            step = rng.randint(1, 9000)
            sniffer.feed(bytes(body[start:start + step]))
            start += step
        assert sniffer.finish() == whole
        verdicts.add(whole)
    assert verdicts == {None, "binary data", "a PDF"}


def test_a_batch_whose_every_page_is_refused_never_starts_chromium(tmp_path, capsys):
    """Each refused before capture (a port out of range, a bad host, a missing file): each a
    per-entry failure, and no browser was started for them. The fake Chromium is this batch's
    own (``--chromium``), not the process's ``$WPS_CHROMIUM``: in the whole suite, a browser
    of an earlier test (re)started during this one would pick that up."""
    marker = tmp_path / "chromium-started"
    script = tmp_path / "fake-chromium"
    script.write_text(f"#!/bin/sh\necho started >> '{marker}'\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    listing = tmp_path / "pages.txt"
    listing.write_text("http://127.0.0.1:99999/\nhttp://[zz]/\n"
                       f"{tmp_path / 'missing.html'}\n", encoding="utf-8")
    code = main(["batch", str(listing), "--out", str(tmp_path / "out"), "--no-progress",
                 "--chromium", str(script)])
    capsys.readouterr()
    failures = (tmp_path / "out" / "failures.jsonl").read_text(encoding="utf-8").splitlines()
    assert code != 0 and len(failures) == 3
    assert not marker.exists()


def test_a_browser_not_running_is_not_restarted_for_its_memory(tmp_path):
    # After each page a batch restarts a browser whose processes grew past the limit; one that
    # never started (every page refused) must stay down, whatever else this process holds.
    from dataclasses import replace

    from wps.capture import Browser, CaptureOptions
    from wps.runner.worker import restart_if_grown

    marker = tmp_path / "chromium-started"
    script = tmp_path / "fake-chromium"
    script.write_text(f"#!/bin/sh\necho started >> '{marker}'\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    browser = Browser(replace(CaptureOptions(), chromium_path=str(script)))
    try:
        restart_if_grown(browser, -1)  # any memory at all is over this limit
    finally:
        browser.close()
    assert not browser.running and not marker.exists()
