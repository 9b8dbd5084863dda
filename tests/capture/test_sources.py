"""Local .html / .html.gz input rendered offline, with every non-local request blocked."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

import pytest

from wps.capture import discard_screenshot
from wps.capture.sources import page_id_for, resolve_source
from wps.errors import InputFileError, UsageError


@pytest.fixture()
def tracked_server(page_server):
    """A route on the test server that counts the requests it gets."""
    hits: list[str] = []
    lock = threading.Lock()

    def tracker(handler):
        with lock:
            hits.append(handler.path)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/css")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    page_server.routes["/tracker.css"] = tracker
    page_server.routes["/tracker.js"] = tracker
    return page_server, hits


def page_with_external_requests(server) -> str:
    return (
        "<!doctype html><html><head><title>Offline é</title>"
        f"<link rel='stylesheet' href='{server.url('/tracker.css')}'>"
        f"<script src='{server.url('/tracker.js')}'></script></head>"
        "<body style='margin:0'><h1 style='margin:0;height:40px'>Café crème</h1>"
        f"<img src='{server.url('/tracker.css')}?img' width='10' height='10'></body></html>"
    )


def test_local_html_file_renders_offline(tmp_path, tracked_server, browser):
    server, hits = tracked_server
    page = tmp_path / "article.html"
    page.write_text(page_with_external_requests(server), encoding="utf-8")
    capture = browser.capture(page)
    discard_screenshot(capture.screenshot)
    assert hits == []  # nothing left the file
    assert capture.url == capture.final_url == page.resolve().as_uri()
    assert capture.page_id == page_id_for(page.resolve().as_uri())
    assert capture.status is None and capture.title == "Offline é"
    heading = next(node for node in capture.nodes if node.tag == "H1")
    assert heading.bbox == (0, 0, 1366, 40)
    assert [node.text for node in capture.nodes if node.is_text] == ["Café crème"]


def test_gzipped_html_without_charset_keeps_utf8(tmp_path, tracked_server, browser):
    server, hits = tracked_server
    page = tmp_path / "article.html.gz"
    page.write_bytes(gzip.compress(page_with_external_requests(server).encode("utf-8")))
    capture = browser.capture(str(page))
    discard_screenshot(capture.screenshot)
    assert hits == []
    assert capture.url == page.resolve().as_uri()
    assert [node.text for node in capture.nodes if node.is_text] == ["Café crème"]
    assert "Café crème" in capture.html


def test_gzip_temp_copy_is_removed(tmp_path):
    page = tmp_path / "p.html.gz"
    page.write_bytes(gzip.compress(b"<p>x</p>"))
    source = resolve_source(page)
    temp_file = Path(source.navigate_url.removeprefix("file://"))
    assert temp_file.is_file() and source.navigate_url != source.url
    source.cleanup()
    assert not temp_file.exists()


def test_benchmark_page_renders(article_benchmark, browser, quick):
    page = sorted((article_benchmark / "html").glob("*.html.gz"))[0]
    capture = browser.capture(page, quick(screenshot=False))
    assert capture.title and len(capture.nodes) > 50
    assert sum(len(node.text) for node in capture.nodes if node.is_text) > 1000


@pytest.mark.parametrize("name, content, cause", [
    ("missing.html", None, "no such file"),
    ("notes.txt", b"<p>x</p>", "not an HTML file"),
    ("broken.html.gz", b"this is not gzip", "unreadable"),
])
def test_bad_local_files(tmp_path, browser, name, content, cause):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputFileError) as caught:
        browser.capture(path)
    message = str(caught.value)
    assert cause in message and str(path.name) in message and "\n" not in message


@pytest.mark.parametrize("source", ["ftp://example.org/x.html", "http:///nohost"])
def test_unsupported_urls(browser, source):
    with pytest.raises(UsageError) as caught:
        browser.capture(source)
    assert str(caught.value).startswith(source)


def test_saved_page_in_utf8_that_declares_latin1_is_read_as_utf8(tmp_path, browser):
    """Saved copies are often re-encoded as UTF-8 but keep their ISO-8859-1 meta tag; a Latin-1
    file that really is Latin-1 (not valid UTF-8) keeps its declared charset."""
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>Größe: schön</p></body></html>'
    resaved = tmp_path / "resaved.html"
    resaved.write_bytes(html.encode("utf-8"))
    original = tmp_path / "original.html"
    original.write_bytes(html.encode("latin-1"))
    for page in (resaved, original):
        capture = browser.capture(str(page))
        discard_screenshot(capture.screenshot)
        assert [node.text for node in capture.nodes if node.is_text] == ["Größe: schön"], page
