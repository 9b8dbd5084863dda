"""Web pages reuse a session (context, page, renderer) per site, never another site's, and no
page sees what an earlier one left: cookies, storage, window name, HTTP cache, popups. Real
Chromium against two servers on different hosts (127.0.0.1 and 127.0.0.2)."""

from __future__ import annotations

import json
import time

import pytest

from wps.capture import Browser

pytestmark = pytest.mark.browser

READER = """<!doctype html><link rel="stylesheet" href="/cached.css">
<p id="out">pending</p><script>
  document.getElementById("out").textContent = JSON.stringify({
    cookie: document.cookie, local: localStorage.getItem("k"),
    session: sessionStorage.getItem("k"), name: window.name});
</script>"""
ROOMY_S = 30.0
"""A deadline for the pages whose state is checked: the test is about isolation, not speed (10 s
ran out at load 15)."""
UNTOUCHED = {"cookie": "", "local": None, "session": None, "name": ""}

WRITER = """<!doctype html><link rel="stylesheet" href="/cached.css"><p>writer</p><script>
  document.cookie = "k=left; max-age=3600";
  localStorage.setItem("k", "left"); sessionStorage.setItem("k", "left");
  window.name = "left";
  if (navigator.serviceWorker) navigator.serviceWorker.register("/sw.js").catch(() => {});
  window.open("/opened", "_blank");
</script>"""
"""A page that leaves all it can: cookies, storage, its name, a cached stylesheet, a service
worker (blocked), and a popup (:func:`opened`)."""


def opened(other_site: str) -> str:
    """The popup: it writes too, then goes to ``other_site``, where it keeps writing that site's
    cookie and storage as a first party, and pinging it (:data:`POPUP`)."""
    return f"""<!doctype html><p>opened</p><script>
  document.cookie = "k=popup; max-age=3600"; localStorage.setItem("k", "popup");
  setTimeout(() => {{ location.href = "{other_site}/popup"; }}, 50);
</script>"""


POPUP = """<!doctype html><p>popup</p><script>
  setInterval(() => {
    document.cookie = "k=popup; max-age=3600"; localStorage.setItem("k", "popup");
    fetch("/ping").catch(() => {});
  }, 20);
</script>"""


def seen(capture) -> dict:
    return json.loads(next(node.text for node in capture.nodes if node.text.startswith("{")))


@pytest.fixture
def web_browser(quick):
    pages = []

    async def note(page) -> None:
        pages.append(page)

    with Browser(quick(screenshot=False), page_hook=note) as browser:
        yield browser, pages


def serve(server, other_site: str) -> None:
    server.add_html("/writer", WRITER)
    server.add_html("/reader", READER)
    server.add_html("/popup", POPUP)
    server.add_html("/opened", opened(other_site))
    server.routes["/cached.css"] = _cached_stylesheet
    server.routes["/ping"] = (204, "text/plain", b"")
    server.routes["/sw.js"] = (200, "text/javascript", b"self.addEventListener('fetch', e => 0)")


def _cached_stylesheet(handler) -> None:
    body = b"p { color: rgb(1, 2, 3); }"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/css")
    handler.send_header("Cache-Control", "public, max-age=3600")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_pages_of_one_site_share_a_session_but_no_state(web_browser, quick, page_server,
                                                          other_host_server):
    browser, pages = web_browser
    site_b = f"http://127.0.0.2:{other_host_server.port}"
    serve(page_server, site_b)
    serve(other_host_server, page_server.url(""))
    browser.capture(page_server.url("/writer"), quick(screenshot=False, settle_s=0.5,
                                                       timeout_s=ROOMY_S))
    # the popup is closed as it opens (test_tabs): if it got to site B first, it wrote there
    same_site = browser.capture(page_server.url("/reader"),
                                quick(screenshot=False, timeout_s=ROOMY_S))
    other_site = browser.capture(other_host_server.url("/reader"),
                                 quick(screenshot=False, timeout_s=ROOMY_S))

    assert pages[1] is pages[0]  # the reader ran in the writer's page, renderer and context
    assert pages[2].context is not pages[0].context  # site B never gets site A's session
    assert seen(same_site) == UNTOUCHED
    assert seen(other_site) == UNTOUCHED
    assert page_server.requests.count("/cached.css") == 2  # the cache was cleared between
    pings = other_host_server.requests.count("/ping")
    time.sleep(0.5)
    assert other_host_server.requests.count("/ping") == pings  # the popup closed with its page


def test_a_page_held_on_its_document_does_not_hold_the_next_one(web_browser, quick,
                                                                 page_server):
    """The hold is an init script of the context: it must leave with the page that needed it."""
    browser, pages = web_browser
    reloads = page_server.add_html("/reloads", "<script>location.reload();</script><p>held</p>")
    target = page_server.add_html("/target", "<p>the real article</p>")
    source = page_server.add_html("/source", f'<script>location.href = "{target}";</script>')
    held = browser.capture(reloads, quick(screenshot=False, timeout_s=12.0))
    followed = browser.capture(source, quick(screenshot=False, settle_s=0.3))
    assert held.timings["navigations_held"] >= 1
    assert pages[1] is pages[0]
    assert followed.final_url == target and "navigations_held" not in followed.timings


def test_the_driver_starts_with_nodes_compile_cache_in_the_wps_cache(quick, page_server,
                                                                      tmp_path, monkeypatch):
    # Three workers starting Playwright's driver at once spent half a second each compiling
    # its modules; Node keeps them compiled in wps's cache folder, and this process's
    # environment is left as it was.
    import os

    monkeypatch.setenv("WPS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    url = page_server.add_html("/one.html", "<p>one page</p>")
    with Browser(quick(screenshot=False)) as fresh:
        assert "one page" in " ".join(node.text for node in fresh.capture(url).nodes)
    assert any(path.is_file() for path in (tmp_path / "node-compile-cache").rglob("*"))
    assert "NODE_COMPILE_CACHE" not in os.environ
