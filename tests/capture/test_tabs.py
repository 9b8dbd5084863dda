"""Local pages share tabs (one renderer process for many files), never state."""

from __future__ import annotations

import json
import time

import pytest

from wps.capture import Browser
from wps.capture.tabs import PAGES_PER_TAB

WRITER = """<!doctype html><p>writer</p><script>
  localStorage.setItem("x", "left by the writer");
  sessionStorage.setItem("y", "left by the writer");
  window.name = "left by the writer";
  history.pushState({}, "", "#pushed");
</script>"""

READER = """<!doctype html><p id="out">pending</p><script>
  document.getElementById("out").textContent = JSON.stringify(
    [localStorage.getItem("x"), sessionStorage.getItem("y"), window.name, history.length]);
</script>"""


@pytest.fixture
def local_browser(quick):
    with Browser(quick()) as browser:
        yield browser


def test_a_local_page_sees_nothing_of_the_one_before(local_browser, quick, tmp_path):
    (tmp_path / "writer.html").write_text(WRITER)
    (tmp_path / "reader.html").write_text(READER)
    local_browser.capture(tmp_path / "writer.html", quick(screenshot=False))
    capture = local_browser.capture(tmp_path / "reader.html", quick(screenshot=False))
    [tab] = local_browser._idle_tabs
    assert tab.pages == 2  # the reader ran in the writer's tab
    seen = json.loads(next(node.text for node in capture.nodes if node.text.startswith("[")))
    assert seen == [None, None, "", 2]  # history: the blank page between the two, then this one


def test_a_web_page_gets_a_tab_of_its_own(local_browser, quick, page_server, tmp_path):
    (tmp_path / "page.html").write_text("<!doctype html><p>local</p>")
    local_browser.capture(tmp_path / "page.html", quick(screenshot=False))
    url = page_server.add_html("/web", "<!doctype html><p>web</p>")
    local_browser.capture(url, quick(screenshot=False))
    local, web = local_browser._idle_tabs  # the web page's session is its own, not the file's
    assert (local.pages, web.pages, local.is_file, web.is_file) == (1, 1, True, False)


def test_a_tab_is_closed_after_its_pages_or_a_failure(local_browser, quick, tmp_path):
    (tmp_path / "page.html").write_text("<!doctype html><p>local</p>")
    (tmp_path / "busy.html").write_text("<!doctype html><p>busy</p><script>"
                                        "addEventListener('load', () => { for (;;) {} });</script>")
    for _ in range(PAGES_PER_TAB + 1):
        local_browser.capture(tmp_path / "page.html", quick(screenshot=False))
    assert [tab.pages for tab in local_browser._idle_tabs] == [1]  # a new one after 20
    with pytest.raises(Exception):
        local_browser.capture(tmp_path / "busy.html", quick(screenshot=False, timeout_s=2))
    assert local_browser._idle_tabs == []
    capture = local_browser.capture(tmp_path / "page.html", quick(screenshot=False))
    assert [node.text for node in capture.nodes if node.is_text] == ["local"]


OPENER = """<!doctype html><p>opener</p><script>
  const popup = window.open("about:blank", "_blank");
  popup.document.write(`<script>
    const started = Date.now();
    setInterval(() => {
      opener.postMessage("left by the opener's popup", "*");
      if (Date.now() - started > 1500) opener.location = "about:blank#hijack";
    }, 20);
  <\\/script>`);
</script>"""

LISTENER = """<!doctype html><p id="out">listener</p><script>
  addEventListener("message", (event) => {
    document.getElementById("out").textContent = "got: " + event.data;
  });
</script>"""


def test_a_page_that_opened_another_leaves_nothing_running(local_browser, quick, tmp_path):
    """A popup keeps running after its file, holding the tab as its opener: it must not post
    into, navigate or outlive into the next file."""
    (tmp_path / "opener.html").write_text(OPENER)
    (tmp_path / "listener.html").write_text(LISTENER)
    options = quick(screenshot=False, settle_s=0.3)
    local_browser.capture(tmp_path / "opener.html", options)
    first = local_browser.capture(tmp_path / "listener.html", options)
    time.sleep(1.6)  # past the popup's hijack time
    second = local_browser.capture(tmp_path / "listener.html", options)
    for capture in (first, second):
        assert [node.text for node in capture.nodes if node.is_text] == ["listener"]
    [tab] = local_browser._idle_tabs  # the listener's tab, reused as before
    assert tab.pages == 2 and len(tab.context.pages) == 1


LATE_POSTER = """<!doctype html><p id="out">opener</p><script>
  addEventListener("message", (event) => {
    document.getElementById("out").textContent = "got: " + event.data;
  });
  const popup = window.open("about:blank", "_blank");
  popup.document.write(`<script>
    setTimeout(() => setInterval(() => opener.postMessage("from the popup", "*"), 20), 2000);
  <\\/script>`);
</script>"""


def test_a_popup_is_closed_while_its_opener_is_captured(local_browser, quick, tmp_path):
    """A popup is not the page: it is closed as it opens, so it cannot reach its opener (or
    flood the proxy) during the opener's own capture; this one waits 2 s before it posts."""
    (tmp_path / "poster.html").write_text(LATE_POSTER)
    capture = local_browser.capture(tmp_path / "poster.html",
                                    quick(screenshot=False, settle_s=3.5, timeout_s=30))
    assert [node.text for node in capture.nodes if node.is_text] == ["opener"]
