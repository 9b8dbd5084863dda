"""What an untrusted page can reach: its own folder tree (local pages), public addresses (web
pages), same-origin frames; and how it fails when it tries more. Real Chromium, pages on
127.0.0.1 only; decisions about other addresses are tested on the guard itself."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wps.capture import Browser
from wps.errors import (
    BlockedTargetError,
    EmptyPageError,
    InputFileError,
    NotHtmlError,
    PageMemoryError,
)

pytestmark = pytest.mark.browser

SECRET = "wps-secret-marker-8151"


@pytest.fixture
def local_site(tmp_path: Path) -> Path:
    """``site/`` holds the page and its assets; a secret file lies beside it, outside the tree."""
    (tmp_path / "secret.txt").write_text(f"{SECRET} root:x:0:0\n", encoding="utf-8")
    (tmp_path / "secret.html").write_text(f"<p>{SECRET}</p>", encoding="utf-8")
    (tmp_path / "outside.css").write_text("p.far { color: rgb(0, 0, 255) }", encoding="utf-8")
    site = tmp_path / "site"
    (site / "css").mkdir(parents=True)
    (site / "css" / "own.css").write_text("p.near { color: rgb(255, 0, 0) }", encoding="utf-8")
    (site / "other.html").write_text(f"<p>{SECRET} in a sibling page</p>", encoding="utf-8")
    return site


def page_text(capture) -> str:
    return " ".join(node.text for node in capture.nodes) + capture.html


def style_of(capture, text: str) -> dict[str, str]:
    node = next(node for node in capture.nodes if node.text == text)
    return capture.nodes[node.parent].style


def test_local_page_cannot_frame_other_files(browser, quick, local_site):
    secret = local_site.parent / "secret.txt"
    page = local_site / "frames.html"
    page.write_text(
        f'<p>host page</p><iframe src="{secret.as_uri()}"></iframe>'
        '<iframe src="../secret.html"></iframe><iframe src="other.html"></iframe>'
        '<iframe src="/etc/passwd"></iframe>', encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert "host page" in page_text(capture)
    assert SECRET not in page_text(capture)
    assert "root:x:0:0" not in page_text(capture)
    assert not any("chrome-error" in node.text or "blocked" in node.text.lower()
                   for node in capture.nodes)


def test_local_page_loads_styles_from_its_own_folder_tree_only(browser, quick, local_site):
    page = local_site / "styled.html"
    page.write_text(
        '<link rel="stylesheet" href="css/own.css"><link rel="stylesheet" href="../outside.css">'
        '<p class="near">near</p><p class="far">far</p>', encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert style_of(capture, "near")["color"] == "rgb(255, 0, 0)"
    assert style_of(capture, "far")["color"] != "rgb(0, 0, 255)"


@pytest.mark.parametrize("leave", [
    '<meta http-equiv="refresh" content="0;url={target}">',
    '<script>location.href = "{target}";</script>',
    '<script>setTimeout(() => {{ location.replace("{target}"); }}, 50);</script>',
])
def test_local_page_that_goes_to_another_file_stays_on_its_own(browser, quick, local_site,
                                                               leave):
    """The navigation is cancelled before it starts: the other file is never loaded, and the
    page is captured as it rendered (see test_navigation_hold.py)."""
    target = (local_site.parent / "secret.html").as_uri()
    page = local_site / "leave.html"
    page.write_text(leave.format(target=target) + "<p>leaving</p>", encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False, settle_s=0.3))
    assert "leaving" in page_text(capture) and SECRET not in page_text(capture)
    assert capture.final_url == capture.url and capture.timings["navigations_held"] >= 1


def test_local_page_sends_nothing_to_the_network(browser, quick, local_site, other_server):
    other_server.add_html("/frame.html", "<p>framed</p>")
    target = other_server.url("")
    page = local_site / "net.html"
    page.write_text(
        f'<p>offline</p><img src="{target}/img.png"><iframe src="{target}/frame.html"></iframe>'
        f'<link rel="stylesheet" href="{target}/style.css">'
        f'<script>fetch("{target}/fetch").catch(() => 0);'
        f'try {{ new WebSocket("ws://127.0.0.1:{other_server.port}/ws"); }} catch (e) {{}}'
        '</script>', encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False, settle_s=0.3))
    assert "offline" in page_text(capture)
    assert other_server.requests == []


@pytest.mark.parametrize("folder", ["site", "a (b) {c}: d*+? é"])
@pytest.mark.parametrize("gzipped", [False, True])
def test_a_local_pages_requests_outside_its_folder_are_refused_in_chromium_not_in_python(
        quick, local_site, other_server, python_round_trips, folder, gzipped):
    # A saved page asks for dozens of web resources and, with root-relative links, for files
    # that are not beside it; each used to cost a round trip through the driver to the route
    # handler. Only its own folder's files still go that way (in any folder name: the pattern
    # syntax's characters too; a gzipped page's temporary copy and its source folder both), and
    # the web requests do not reach the egress proxy (Python too) instead.
    site = local_site.rename(local_site.parent / folder)
    target = other_server.url("")
    html = ('<link rel="stylesheet" href="css/own.css"><p class="near">near</p>'
            '<link rel="stylesheet" href="../outside.css"><p class="far">far</p>'
            + "".join(f'<img src="{target}/{n}.png">' for n in range(8))
            + "".join(f'<img src="/static/{n}.png">' for n in range(4))
            + f'<script>fetch("{target}/fetch").catch(() => 0)</script>')
    page = site / ("many.html.gz" if gzipped else "many.html")
    page.write_bytes(gzip.compress(html.encode()) if gzipped else html.encode())
    neighbour = local_site.parent / "neighbour"  # the next page, in another folder
    neighbour.mkdir()
    (neighbour / "next.html").write_text(
        f'<link rel="stylesheet" href="../{folder}/css/own.css"><p class="near">next</p>',
        encoding="utf-8")
    with Browser(quick(screenshot=False, settle_s=0.3)) as fresh:
        capture = fresh.capture(page)
        again = fresh.capture(site / "many.html") if not gzipped else None  # same folder
        routed_before_next = len(python_round_trips.routed)
        following = fresh.capture(neighbour / "next.html")  # the tab's block moves with it
    if not gzipped:  # a temporary copy has no css/ beside it
        assert style_of(capture, "near")["color"] == "rgb(255, 0, 0)"
        assert style_of(again, "near")["color"] == "rgb(255, 0, 0)"
    assert style_of(capture, "far")["color"] != "rgb(0, 0, 255)"
    assert style_of(following, "next")["color"] != "rgb(255, 0, 0)"
    routed = python_round_trips.routed
    assert any(url.endswith("/css/own.css") for url in routed)
    folders = {site.as_uri() + "/", capture_folder(routed)}
    assert [url for url in routed[:routed_before_next]
            if not url.startswith(tuple(folders))] == []
    [document] = routed[routed_before_next:]  # its own document (or the temporary copy): not
    assert document.endswith(".html")  # the other folder's stylesheet, refused in Chromium
    assert python_round_trips.refused_at_proxy == []  # nor by the (Python) egress proxy
    assert other_server.requests == []


def capture_folder(routed: list[str]) -> str:
    """The folder of the document the browser opened (the first URL routed)."""
    return routed[0][:routed[0].rindex("/") + 1]


def test_web_page_same_origin_blocks_third_party_requests(browser, quick, page_server,
                                                          other_server):
    other_server.add_html("/frame.html", "<p>third-party frame text</p>")
    third = other_server.url("")
    url = page_server.add_html("/same-origin.html", (
        f'<p>first party</p><img src="{third}/img.png"><iframe src="{third}/frame.html"></iframe>'
        f'<script>fetch("{third}/fetch").catch(() => 0);</script>'))
    capture = browser.capture(url, quick(screenshot=False, settle_s=0.3, same_origin=True))
    assert "first party" in page_text(capture)
    assert other_server.requests == []


def test_web_page_default_loads_third_party_assets_but_not_frames(browser, quick, page_server,
                                                                  other_server):
    other_server.add_html("/frame.html", "<p>third-party frame text</p>")
    third = other_server.url("")
    url = page_server.add_html("/default-origin.html", (
        f'<p>first party</p><img src="{third}/img.png"><iframe src="{third}/frame.html"></iframe>'))
    capture = browser.capture(url, quick(screenshot=False, settle_s=0.3))
    assert "third-party frame text" not in page_text(capture)
    assert "/img.png" in other_server.requests
    assert "/frame.html" not in other_server.requests
    with_frames = browser.capture(url, quick(screenshot=False, settle_s=0.3, frames="all"))
    assert "third-party frame text" in page_text(with_frames)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "0x7f000001", "2130706433",
                                  "[::ffff:127.0.0.1]", "127.1"])
def test_loopback_page_urls_are_refused_without_allow_private(page_server, quick, host):
    url = page_server.add_html("/private.html", "<p>internal</p>").replace("127.0.0.1", host)
    before = len(page_server.requests)
    browser = Browser(quick(allow_private=False))  # refused before Chromium is started
    with pytest.raises(BlockedTargetError) as caught:
        browser.capture(url)
    assert browser.launches == 0
    assert "--allow-private" in str(caught.value) and "\n" not in str(caught.value)
    assert len(page_server.requests) == before


def test_loopback_subresources_are_refused_by_the_proxy(page_server, other_server, quick):
    """A page that is allowed (here via a redirect the proxy checks) cannot pull internal
    addresses: every request goes through the egress proxy, which refuses loopback."""
    other_server.add_html("/internal.html", "<p>internal</p>")
    browser = Browser(quick(allow_private=False))
    try:
        # the data: page is inert; its image and fetch must go through the proxy
        html = (f'<p>outer</p><img src="{other_server.url("/img.png")}">'
                f'<script>fetch("{other_server.url("/fetch")}").catch(() => 0);</script>')
        page = Path(os.environ.get("TMPDIR", "/tmp")) / f"wps-untrusted-{os.getpid()}.html"
        page.write_text(html, encoding="utf-8")
        try:
            browser.capture(page, quick(allow_private=False, screenshot=False, settle_s=0.3))
        finally:
            page.unlink()
    finally:
        browser.close()
    assert other_server.requests == []


def test_binary_and_empty_bodies_are_errors(browser, page_server, tmp_path):
    page_server.routes["/pdf"] = (200, "text/html", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj")
    page_server.routes["/random"] = (200, "text/html", os.urandom(50_000))
    page_server.routes["/empty"] = (200, "text/html", b"")
    with pytest.raises(NotHtmlError, match="PDF"):
        browser.capture(page_server.url("/pdf"))
    with pytest.raises(NotHtmlError, match="binary"):
        browser.capture(page_server.url("/random"))
    with pytest.raises(EmptyPageError):
        browser.capture(page_server.url("/empty"))
    empty = tmp_path / "empty.html"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(EmptyPageError):
        browser.capture(empty)


def test_page_that_keeps_navigating_is_held_and_captured(browser, quick, page_server):
    url = page_server.add_html("/restless.html", (
        "<p>restless</p><script>setTimeout(() => { location.reload(); }, 20);</script>"))
    capture = browser.capture(url, quick(screenshot=False, settle_s=0.5, timeout_s=20))
    assert "restless" in page_text(capture) and capture.timings["navigations_held"] >= 1


def test_renderer_over_the_memory_limit_is_stopped(page_server, quick):
    url = page_server.add_html("/hungry.html", (
        "<p>hungry</p><script>window.hoard = []; for (let i = 0; i < 40; i++) {"
        " window.hoard.push(new Float64Array(4 * 1024 * 1024).fill(i)); }</script>"))
    with Browser(quick(max_renderer_mb=256, settle_s=1.0)) as browser:
        started = time.monotonic()
        with pytest.raises(PageMemoryError, match="memory limit"):
            browser.capture(url)
        assert time.monotonic() - started < 10
        assert browser.capture(page_server.add_html("/light.html", "<p>light</p>")).nodes


def _timed_segment(page: Path, out: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "wps", "segment", str(page), "--out", str(out), "--timeout", "10"],
        capture_output=True, text=True, timeout=300)
    return done, time.monotonic() - started


def test_timeout_bounds_the_whole_page(tmp_path):
    """50,000 elements with --timeout 10: exit 16 within the deadline (plus 8 s to stop),
    nothing written. What the deadline does not cover, starting Python and importing wps, is
    measured first on a missing page (refused before any browser): on a loaded machine it
    alone can take seconds. (Without the deadline this page takes minutes.)"""
    done, overhead = _timed_segment(tmp_path / "missing.html", tmp_path / "missing-out")
    assert done.returncode == InputFileError.exit_code, done.stderr
    rows = "".join(f"<div class='r'><span>item {i}</span> <a href='#{i}'>link</a></div>"
                   for i in range(25_000))
    page = tmp_path / "huge.html"
    page.write_text(f"<html><body>{rows}</body></html>", encoding="utf-8")
    out = tmp_path / "out"
    done, elapsed = _timed_segment(page, out)
    assert done.returncode == 16, done.stderr
    assert elapsed < overhead + 10 + 8, (elapsed, overhead)
    assert "timeout" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()
