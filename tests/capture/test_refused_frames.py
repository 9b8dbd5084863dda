"""A frame whose document the policy refuses keeps its empty document: it is aborted, not
blocked, so Chromium renders no error page in the frame (most of the CPU a saved page with a
refused frame cost). Real Chromium, pages on 127.0.0.1 only; the local page's web frame is
refused inside Chromium (no packet leaves)."""

from __future__ import annotations

import pytest

from wps.capture import Browser

pytestmark = pytest.mark.browser

EMPTY = ""
"""The URL Playwright gives a frame that never left its initial empty document."""


@pytest.fixture(scope="module")
def frames_seen():
    """A browser whose pages report their frames' URLs once loaded, and those URLs."""
    seen: list[list[str]] = []

    async def note_frames(page) -> None:
        await page.wait_for_load_state("load")
        seen.append([frame.url for frame in page.frames[1:]])

    with Browser(page_hook=note_frames) as browser:
        yield browser, seen


def test_a_local_pages_refused_frames_hold_no_error_page(frames_seen, quick, tmp_path):
    browser, seen = frames_seen
    (tmp_path / "other.html").write_text("<p>another file</p>", encoding="utf-8")
    page = tmp_path / "page.html"
    page.write_text('<p>host page</p><iframe src="http://frame.invalid/web"></iframe>'
                    '<iframe src="other.html"></iframe>'
                    '<iframe srcdoc="<p>inline frame</p>"></iframe>', encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert seen[-1][:2] == [EMPTY, EMPTY]  # not Chromium's error page, nor the refused URL
    texts = [node.text for node in capture.nodes]
    assert "host page" in texts and "inline frame" in texts and "another file" not in texts
    # the walk leaves out what the refused frames hold (their empty first documents), as it
    # left out the error pages it could not enter: only the srcdoc frame has a document walked
    framed = [node for node in capture.nodes
              if node.parent is not None and capture.nodes[node.parent].tag == "IFRAME"]
    assert len(framed) == 1


@pytest.mark.parametrize("same_origin", [True, False])
def test_a_web_pages_refused_frames_hold_no_error_page(frames_seen, quick, page_server,
                                                      other_server, same_origin):
    # same origin: refused in Chromium; otherwise by the route handler (frames stay same-origin)
    browser, seen = frames_seen
    other_server.add_html("/frame.html", "<p>other origin's frame</p>")
    page_server.add_html("/own.html", "<p>own frame</p>")
    url = page_server.add_html("/framed.html", (
        f'<p>first party</p><iframe src="{other_server.url("/frame.html")}"></iframe>'
        '<iframe src="/own.html"></iframe>'))
    capture = browser.capture(url, quick(screenshot=False, same_origin=same_origin))
    assert "/frame.html" not in other_server.requests
    assert seen[-1][0] == EMPTY and seen[-1][1].endswith("/own.html")
    assert any(node.text == "own frame" for node in capture.nodes)
    assert not any(node.text == "other origin's frame" for node in capture.nodes)


def test_text_a_page_writes_into_a_refused_frame_is_walked(frames_seen, quick, tmp_path):
    # the frame keeps its first document, and what the page's script wrote there is shown
    browser, seen = frames_seen
    page = tmp_path / "written.html"
    page.write_text(
        '<p>host page</p><iframe id="f" src="http://frame.invalid/web"></iframe>'
        '<iframe src="http://frame.invalid/empty"></iframe><script>'
        'document.getElementById("f").contentDocument.body.innerHTML ='
        ' "<p>words the page wrote into its frame</p>";</script>', encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False))
    assert seen[-1] == [EMPTY, EMPTY]
    texts = [node.text for node in capture.nodes]
    assert "words the page wrote into its frame" in texts
    framed = [node for node in capture.nodes
              if node.parent is not None and capture.nodes[node.parent].tag == "IFRAME"]
    assert len(framed) == 1  # the empty refused frame is still left out
