"""Bad input and faults: each raises its own CaptureError subclass, one line `<url>: cause`."""

from __future__ import annotations

import io
import os
import socket
import time

import pytest
from PIL import Image

from wps.capture import CaptureOptions, capture_page, discard_screenshot
from wps.errors import (
    BrowserCrashError,
    BrowserNotFoundError,
    HttpStatusError,
    NetworkError,
    NotHtmlError,
    PageTimeoutError,
    RedirectLoopError,
)


def assert_one_line(error: Exception, url: str, *words: str) -> None:
    message = str(error)
    assert "\n" not in message and message.startswith(f"{url}: ")
    for word in words:
        assert word in message, message


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_connection_refused(browser):
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(NetworkError) as caught:
        browser.capture(url)
    assert_one_line(caught.value, url, "connection refused")


def test_dns_failure(browser, monkeypatch):
    """A name that does not resolve; the lookup is faked: a real one would send a packet to the
    DNS server, which tests never do."""
    import socket

    from wps.capture import addresses

    def no_such_name(name: str):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(addresses, "resolve_name", no_such_name)
    url = "http://no-such-host.invalid/page"
    with pytest.raises(NetworkError) as caught:
        browser.capture(url)
    assert_one_line(caught.value, url, "DNS")


@pytest.mark.parametrize("status, reason", [(404, "Not Found"), (500, "Internal Server Error")])
def test_http_error_status(page_server, browser, status, reason):
    url = page_server.add_html(f"/status-{status}", f"<p>error {status}</p>", status=status)
    with pytest.raises(HttpStatusError) as caught:
        browser.capture(url)
    assert_one_line(caught.value, url, f"HTTP {status} {reason}")


def _png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 128, 255)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("path, content_type, body", [
    ("/doc.pdf", "application/pdf", b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"),
    ("/image.png", "image/png", _png_bytes()),
    ("/data.json", "application/json", b'{"not": "html"}'),
])
def test_non_html_responses(page_server, browser, path, content_type, body):
    page_server.routes[path] = (200, content_type, body)
    url = page_server.url(path)
    with pytest.raises(NotHtmlError) as caught:
        browser.capture(url)
    assert_one_line(caught.value, url, "not an HTML page", content_type)


def test_redirect_loop(page_server, browser):
    def loop(handler):
        handler.send_response(302)
        handler.send_header("Location", "/loop-b" if handler.path == "/loop-a" else "/loop-a")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    page_server.routes["/loop-a"] = loop
    page_server.routes["/loop-b"] = loop
    url = page_server.url("/loop-a")
    with pytest.raises(RedirectLoopError) as caught:
        browser.capture(url)
    assert_one_line(caught.value, url, "redirect")


def test_redirect_is_followed_and_final_url_recorded(page_server, browser):
    target = page_server.add_html("/moved-here", "<!doctype html><title>T</title><p>moved</p>")

    def moved(handler):
        handler.send_response(301)
        handler.send_header("Location", "/moved-here")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    page_server.routes["/moved"] = moved
    capture = browser.capture(page_server.url("/moved"))
    discard_screenshot(capture.screenshot)
    assert capture.url == page_server.url("/moved") and capture.final_url == target
    assert capture.status == 200 and capture.nodes[-1].text == "moved"


def test_page_that_never_finishes_loading(page_server, browser, quick):
    def stalled(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        handler.wfile.write(b"<!doctype html><p>partial")
        handler.wfile.flush()
        time.sleep(8)

    page_server.routes["/stalled"] = stalled
    url = page_server.url("/stalled")
    started = time.monotonic()
    with pytest.raises(PageTimeoutError) as caught:
        browser.capture(url, quick(timeout_s=1.5, allow_incomplete=False))
    assert time.monotonic() - started < 6
    assert_one_line(caught.value, url, "1.5 s")


def test_busy_script_hits_the_wall_clock_limit_and_browser_recovers(page_server, browser, quick):
    url = page_server.add_html(
        "/busy", "<!doctype html><p>x</p><script>addEventListener('load', () => "
        "setTimeout(() => { while (true) {} }, 0));</script>")
    started = time.monotonic()
    with pytest.raises(PageTimeoutError) as caught:
        browser.capture(url, quick(timeout_s=1.5))
    assert time.monotonic() - started < 12
    # One cause, one message: Playwright's own timeout and the page deadline read the same.
    assert str(caught.value) == (
        f"{url}: page did not finish within the 1.5 s timeout (during capture)")
    healthy = browser.capture(page_server.add_html("/after-busy", "<p>fine</p>"),
                              quick(screenshot=False))
    assert healthy.nodes[-1].text == "fine"


def test_renderer_crash_is_retried_once_on_a_fresh_browser(page_server, browser):
    url = page_server.add_html("/crash-once", "<!doctype html><p>survivor</p>")
    calls: list[str] = []

    async def crash_first_time(page):
        calls.append(page.url)
        if len(calls) == 1:
            session = await page.context.new_cdp_session(page)
            await session.send("Page.crash")

    launches = browser.launches
    browser.page_hook = crash_first_time
    try:
        capture = browser.capture(url)
    finally:
        browser.page_hook = None
    discard_screenshot(capture.screenshot)
    assert len(calls) == 2 and browser.launches == launches + 1
    assert capture.nodes[-1].text == "survivor"


def test_browser_process_dying_mid_page_is_retried(page_server, browser):
    url = page_server.add_html("/browser-dies", "<!doctype html><p>second try</p>")
    calls: list[str] = []

    async def kill_browser_first_time(page):
        calls.append(page.url)
        if len(calls) == 1:
            await page.context.browser.close()

    browser.page_hook = kill_browser_first_time
    try:
        capture = browser.capture(url)
    finally:
        browser.page_hook = None
    discard_screenshot(capture.screenshot)
    assert len(calls) == 2 and capture.nodes[-1].text == "second try"


def test_renderer_crash_twice_is_a_clear_error(page_server, browser):
    url = page_server.add_html("/crash-always", "<!doctype html><p>doomed</p>")
    calls: list[str] = []

    async def crash(page):
        calls.append(page.url)
        session = await page.context.new_cdp_session(page)
        await session.send("Page.crash")

    browser.page_hook = crash
    try:
        with pytest.raises(BrowserCrashError) as caught:
            browser.capture(url)
    finally:
        browser.page_hook = None
    assert len(calls) == 2
    assert_one_line(caught.value, url, "crashed twice")


def test_missing_chromium_binary(monkeypatch, page_server):
    monkeypatch.setenv("WPS_CHROMIUM", "/nonexistent/chromium")
    url = page_server.add_html("/never-rendered", "<p>x</p>")
    with pytest.raises(BrowserNotFoundError) as caught:  # the URL passes the guard first
        capture_page(url, CaptureOptions(allow_private=True))
    assert_one_line(caught.value, url, "/nonexistent/chromium", "WPS_CHROMIUM")


@pytest.mark.parametrize("code, cause", [
    ("ERR_ADDRESS_UNREACHABLE", "host unreachable"),
    ("ERR_CERT_DATE_INVALID", "TLS certificate error"),
])
def test_network_codes_without_a_local_reproduction(code, cause):
    """An unreachable host or a bad certificate needs a routed network to provoke: check mapping."""
    from playwright.async_api import Error

    from wps.capture.faults import translate_error

    error = translate_error(
        "http://10.0.0.1/", Error(f"page.goto: net::{code} at http://10.0.0.1/\n"
                                  "Call log:\n  - navigating"), 30)
    assert isinstance(error, NetworkError)
    assert str(error) == f"http://10.0.0.1/: {cause} (net::{code})"


def test_playwright_timeout_reads_like_the_page_deadline():
    """A Playwright call timing out and the page's wall-clock deadline are one cause: one message."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    from wps.capture.faults import translate_error
    from wps.deadline import Deadline

    url = "http://127.0.0.1:9/slow"
    error = translate_error(url, PlaywrightTimeout("Timeout 1500ms exceeded.\nCall log:\n  - x"),
                            1.5)
    assert isinstance(error, PageTimeoutError)
    assert str(error) == str(Deadline(1.5, what=url).error("capture")) == (
        f"{url}: page did not finish within the 1.5 s timeout (during capture)")
    page_deadline = Deadline(20, what="page.html")  # the pipeline's, named as the user named it
    error = translate_error("file:///tmp/page.html", PlaywrightTimeout("Timeout"), page_deadline)
    assert str(error) == str(page_deadline.error("capture")) == (
        "page.html: page did not finish within the 20 s timeout (during capture)")


def test_chromium_path_must_be_an_executable(tmp_path, monkeypatch):
    from wps.capture import find_chromium

    not_executable = tmp_path / "chromium"
    not_executable.write_text("#!/bin/sh\n", encoding="utf-8")
    monkeypatch.setenv("WPS_CHROMIUM", str(not_executable))
    with pytest.raises(BrowserNotFoundError, match="WPS_CHROMIUM"):
        find_chromium()
    monkeypatch.delenv("WPS_CHROMIUM")
    assert os.access(find_chromium(), os.X_OK)  # the distribution's Chromium, found by itself
    with pytest.raises(BrowserNotFoundError, match="chromium path"):
        find_chromium(str(tmp_path / "missing"))


def test_starting_chromium_is_not_counted_in_the_pages_deadline(page_server, quick, tmp_path):
    """A Chromium that takes 8 s to start (a loaded machine, a slow disk) does not time out the
    first page under a 7 s deadline: the deadline runs from when the page has its browser.
    Once the browser is up, the next page's deadline is not extended."""
    from wps.capture import Browser
    from wps.capture.options import find_chromium
    from wps.deadline import Deadline

    slow = tmp_path / "slow-chromium"
    slow.write_text(f'#!/bin/sh\nsleep 8\nexec "{find_chromium()}" "$@"\n', encoding="utf-8")
    slow.chmod(0o755)
    url = page_server.add_html("/after-a-slow-start", "<p>started at last</p>")
    browser = Browser(quick(chromium_path=str(slow), screenshot=False))  # started by a page
    try:
        first = Deadline(7.0, what=url)
        assert browser.capture(url, deadline=first).nodes[-1].text == "started at last"
        again = Deadline(7.0, what=url)
        before = again.started
        browser.capture(url, deadline=again)
        assert again.started == before
    finally:
        browser.close()
