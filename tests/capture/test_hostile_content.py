"""Page content that used to end in internal errors or leaks: lone surrogates made by script, a
NUL byte in a subresource URL, a hard link in a local page's folder, binary bytes after an HTML
head. Real Chromium, pages on disk or served on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import os
import time

import pytest

import wps
from wps.cli import main
from wps.errors import NotHtmlError
from wps.model import PageCapture

pytestmark = pytest.mark.browser

SECRET = "wps-hard-link-secret-5521"
PARAGRAPHS = "".join(f"<p>Paragraph {i} of a page about sourdough: feed the starter twice a day, "
                     "keep it warm and it comes back within a week.</p>" for i in range(5))


def texts(capture) -> str:
    return " ".join(node.text for node in capture.nodes if node.is_text)


def test_lone_surrogates_made_by_script_become_replacement_characters(browser, quick, tmp_path):
    """Text nodes, an attribute and the title get lone surrogates; every output is written and
    reads back, each lone surrogate as U+FFFD (a valid pair stays the character it encodes)."""
    page = tmp_path / "surrogates.html"
    page.write_text(
        f"<title>t</title><article>{PARAGRAPHS}<p id='odd'></p></article><script>"
        "const odd = document.getElementById('odd');"
        "odd.textContent = 'Broken \\ud800 and \\udfff here, beside a pair \\ud83d\\ude00, in a "
        "paragraph long enough to be main text about baking bread at home';"
        "odd.className = 'c\\udc00';"
        "document.title = 'Title \\ud801';</script>", encoding="utf-8")
    result = wps.segment_to_directory(page, tmp_path / "out",
                                      capture_options=quick(screenshot=False), browser=browser)
    capture = PageCapture.load(tmp_path / "out" / "capture")
    odd = next(node for node in capture.nodes if node.text.startswith("Broken"))
    assert odd.text.startswith("Broken \ufffd and \ufffd here, beside a pair \U0001f600")
    assert capture.title == "Title \ufffd"
    assert capture.nodes[odd.parent].attrs["class"] == "c\ufffd"
    lines = (tmp_path / "out" / "segments.jsonl").read_text(encoding="utf-8").splitlines()
    assert any("Broken \ufffd" in json.loads(line)["text"] for line in lines)
    assert "Broken \ufffd" in result.text.kept_text


def test_a_nul_byte_in_a_subresource_url_is_refused_quietly(browser, quick, tmp_path):
    page = tmp_path / "nul.html"
    page.write_text(f'{PARAGRAPHS}<script src="a%00b.js"></script><img src="x%00y.png">',
                    encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert "Paragraph 4" in texts(capture)
    after = tmp_path / "after.html"  # the next page of the same browser gets no stray error
    after.write_text("<p>the next page</p>", encoding="utf-8")
    assert "the next page" in texts(browser.capture(after, quick(screenshot=False)))


def test_a_nul_page_in_a_batch_fails_no_other_page(tmp_path, capsys):
    """Two pages rendered side by side in one Chromium: the page with the NUL URL is done, the
    innocent one too, and nothing is printed but the batch's own lines."""
    nul = tmp_path / "nul.html"
    nul.write_text(f'{PARAGRAPHS}<script src="a%00b.js"></script>', encoding="utf-8")
    innocent = tmp_path / "innocent.html"
    innocent.write_text(PARAGRAPHS.replace("sourdough", "rye bread"), encoding="utf-8")
    listing = tmp_path / "pages.txt"
    listing.write_text(f"{nul}\n{innocent}\n", encoding="utf-8")
    code = main(["batch", str(listing), "--out", str(tmp_path / "out"), "--pages-per-browser",
                 "2", "--settle", "0", "--scroll-steps", "1", "--timeout", "30",
                 "--no-screenshot", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and "ValueError" not in err
    assert not (tmp_path / "out" / "failures.jsonl").exists() or \
        not (tmp_path / "out" / "failures.jsonl").read_text(encoding="utf-8").strip()


def test_a_hard_link_in_the_page_folder_is_refused(browser, quick, tmp_path):
    """``site/leak.js`` is another name of ``secret.js`` beside the folder: like a symlink out of
    the folder it is not loaded; a script of the folder with one name is."""
    (tmp_path / "secret.js").write_text(
        f"document.body.insertAdjacentHTML('beforeend', '<p>{SECRET}</p>');", encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    os.link(tmp_path / "secret.js", site / "leak.js")
    (site / "own.js").write_text(
        "document.body.insertAdjacentHTML('beforeend', '<p>own script ran</p>');",
        encoding="utf-8")
    page = site / "page.html"
    page.write_text('<p>host</p><script src="leak.js"></script><script src="own.js"></script>',
                    encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert "own script ran" in texts(capture)
    assert SECRET not in texts(capture) and SECRET not in capture.html


def test_html_head_then_binary_bytes_from_the_web_is_not_html(browser, quick, page_server):
    """The binary check judges the whole body, not its first 4 KB."""
    head = ("<html><body>" + PARAGRAPHS * 8).encode("utf-8")
    assert len(head) > 4096
    page_server.routes["/head-then-binary"] = (200, "text/html", head + os.urandom(300_000))
    with pytest.raises(NotHtmlError, match="binary"):
        browser.capture(page_server.url("/head-then-binary"), quick(screenshot=False))


def _chunked_gzip(body: bytes):
    """A route answering ``body`` gzipped, in chunks, as most real servers send a page."""
    packed = gzip.compress(body)

    def answer(handler) -> None:  # chunks are HTTP/1.1 (the handler's own head says 1.0)
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                            b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
                            b"Connection: close\r\n\r\n")
        for start in range(0, len(packed), 50_000):
            piece = packed[start:start + 50_000]
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.write(b"0\r\n\r\n")
    return answer


@pytest.mark.parametrize("head_bytes", [0, 5000])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip-chunked"])
def test_megabytes_of_binary_served_as_html_are_refused_before_layout(
        browser, quick, page_server, head_bytes, packed):
    """10 MB of random bytes labelled HTML (after nothing, or after 5 KB of HTML): refused as
    binary within seconds, not laid out until the deadline (which was 20 s here)."""
    head = ("<html><body>" + PARAGRAPHS * 10).encode("utf-8")[:head_bytes]
    body = head + os.urandom(10 << 20)
    path = f"/binary-{head_bytes}-{packed}"
    page_server.routes[path] = _chunked_gzip(body) if packed else (200, "text/html", body)
    started = time.monotonic()
    with pytest.raises(NotHtmlError, match="binary"):
        browser.capture(page_server.url(path), quick(screenshot=False, timeout_s=20.0))
    assert time.monotonic() - started < 15.0  # generous: it takes 1-3 s on a loaded machine


def test_a_large_gzipped_page_in_chunks_still_renders(browser, quick, page_server):
    """The body judge passes a real page through whole: 1.8 MB of HTML, gzipped and chunked."""
    body = ("<html><body>" + "".join(
        f"<p>Paragraph {i} of a long page about rye bread and its sour starter.</p>"
        for i in range(25_000)) + "<p>the very last paragraph</p></body></html>").encode("utf-8")
    assert len(body) > 1_800_000
    page_server.routes["/large-gzipped"] = _chunked_gzip(body)
    capture = browser.capture(page_server.url("/large-gzipped"),
                              quick(screenshot=False, timeout_s=60.0, scroll_max_steps=1))
    assert "the very last paragraph" in capture.html
