"""``--same-origin`` holds on every hop: subresources and frames that redirect elsewhere, the
page's own navigations (form, meta refresh, ``location``) and its redirects. Real Chromium; the
page on 127.0.0.1, "another host" on 127.0.0.2, which logs every request it gets."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wps.capture import Browser
from wps.errors import BlockedTargetError, HttpStatusError, NavigationError

pytestmark = pytest.mark.browser

OTHER_TEXT = "text of the other host"


class OtherHost:
    """A server on 127.0.0.2 that answers any method with a page and logs each request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        log = self.requests

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("latin-1") if length else ""
                log.append(f"{self.command} {self.path} {body}".rstrip())
                page = f"<!doctype html><p>{OTHER_TEXT}</p>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            do_GET = do_POST = answer  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self.httpd = Server(("127.0.0.2", 0), Handler)
        self.origin = f"http://127.0.0.2:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def other_host():
    host = OtherHost()
    yield host
    host.close()


def redirect_to(location: str):
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return route


def page_text(capture) -> str:
    return " ".join(node.text for node in capture.nodes) + capture.html


def test_subresources_and_frames_that_redirect_elsewhere_are_refused(browser, quick, page_server,
                                                                      other_host):
    for kind in ("css", "js", "img", "fetch", "no-cors", "frame"):
        page_server.routes[f"/hop/{kind}"] = redirect_to(f"{other_host.origin}/{kind}")
    url = page_server.add_html("/hops.html", (
        '<p>first party</p><link rel="stylesheet" href="/hop/css"><script src="/hop/js"></script>'
        '<img src="/hop/img"><iframe src="/hop/frame"></iframe>'
        f'<iframe src="{other_host.origin}/direct-frame"></iframe><script>'
        'fetch("/hop/fetch").catch(() => 0);'
        'fetch("/hop/no-cors", {mode: "no-cors"}).catch(() => 0);'
        f'try {{ new WebSocket("{other_host.origin.replace("http", "ws")}/ws"); }} catch (e) {{}}'
        '</script>'))
    capture = browser.capture(url, quick(screenshot=False, settle_s=0.5, same_origin=True,
                                         frames="all"))
    assert "first party" in page_text(capture)
    assert OTHER_TEXT not in page_text(capture) and "egress proxy" not in page_text(capture)
    assert other_host.requests == []
    assert all(f"/hop/{kind}" in page_server.requests
               for kind in ("css", "js", "img", "fetch", "no-cors", "frame"))


NAVIGATIONS = {
    "form post": '<form method="post" action="{other}/form"><input name="field" value="typed">'
                 '</form><script>document.forms[0].submit();</script>',
    "meta refresh": '<meta http-equiv="refresh" content="0;url={other}/refresh">',
    "location": '<script>setTimeout(() => {{ location.href = "{other}/location"; }}, 50);</script>',
    "location, then a redirect": '<script>setTimeout(() => {{ location.href = "/hop/nav"; }}, 50);'
                                 '</script>',
}


@pytest.mark.parametrize("navigation", sorted(NAVIGATIONS))
def test_navigations_to_another_origin_are_refused(browser, quick, page_server, other_host,
                                                   navigation):
    page_server.routes["/hop/nav"] = redirect_to(f"{other_host.origin}/redirected")
    url = page_server.add_html(f"/leave-{navigation.replace(' ', '-')}.html",
                               NAVIGATIONS[navigation].format(other=other_host.origin)
                               + "<p>leaving</p>")
    with pytest.raises(NavigationError) as caught:
        browser.capture(url, quick(screenshot=False, settle_s=0.5, same_origin=True))
    assert str(caught.value).startswith(f"{url}: ") and "\n" not in str(caught.value)
    assert other_host.requests == []
    if navigation != "location, then a redirect":  # that hop is the proxy's to refuse
        # the error names where the page went and the policy that refused it
        assert f"navigated to {other_host.origin}/" in str(caught.value)
        assert "--same-origin" in str(caught.value)


def test_a_page_that_redirects_to_another_origin_is_refused(browser, quick, page_server,
                                                            other_host):
    page_server.routes["/moved"] = redirect_to(f"{other_host.origin}/moved-here")
    url = page_server.url("/moved")
    with pytest.raises(BlockedTargetError) as caught:
        browser.capture(url, quick(screenshot=False, same_origin=True))
    assert "--same-origin" in str(caught.value) and other_host.origin in str(caught.value)
    assert other_host.requests == []
    capture = browser.capture(url, quick(screenshot=False))  # followed without --same-origin
    assert OTHER_TEXT in page_text(capture)


@pytest.mark.parametrize("status", [203, 404])
def test_the_status_is_the_final_documents(browser, quick, page_server, status):
    """A page that navigates itself on its own origin: its last document is what is captured,
    and its status is judged and recorded as the first one's would be."""
    page_server.add_html(f"/final-{status}", "<p>final document</p>", status=status)
    url = page_server.add_html(f"/first-{status}", (
        f'<p>first document</p><script>setTimeout(() => {{ location.href = "/final-{status}"; }},'
        ' 50);</script>'))
    options = quick(screenshot=False, settle_s=0.5, same_origin=True)
    if status >= 400:
        with pytest.raises(HttpStatusError, match=f"HTTP {status} "):
            browser.capture(url, options)
        return
    capture = browser.capture(url, options)
    assert "final document" in page_text(capture)
    assert capture.status == status


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_requests_off_the_origin_are_refused_in_chromium_not_one_by_one_in_python(
        quick, other_host, server_on, python_round_trips, host):
    # A saved page asks for dozens of resources of other sites; under --same-origin each used to
    # cost a round trip through the driver to the route handler. Chromium refuses them itself,
    # whatever the origin's host looks like (an IPv6 address has the pattern syntax's colons),
    # and they do not reach the (Python) egress proxy instead. The page's own requests, which
    # the policy allows whatever they are, pass no handler either.
    server = server_on(host)
    server.routes["/own.css"] = (200, "text/css", b".near { color: rgb(255, 0, 0); }")
    url = server.add_html("/many.html", (
        '<link rel="stylesheet" href="/own.css"><p class="near">near</p>'
        + "".join(f'<img src="{other_host.origin}/{n}.png">' for n in range(8))
        + f'<iframe src="{other_host.origin}/frame"></iframe>'
        + f'<script>fetch("{other_host.origin}/fetch").catch(() => 0);'
        + 'new WebSocket(location.origin.replace("http", "ws") + "/ws");</script>'))
    with Browser(quick(screenshot=False, settle_s=0.3, same_origin=True,
                       allow_private=True)) as fresh:
        capture = fresh.capture(url)
    near = next(node for node in capture.nodes if node.text == "near")
    assert capture.nodes[near.parent].style["color"] == "rgb(255, 0, 0)"
    # its own origin's WebSocket still goes out (through the proxy: no route sees it)
    assert sorted(server.requests) == ["/many.html", "/own.css", "/ws"]
    routed = python_round_trips.routed
    assert routed == []
    assert python_round_trips.refused_at_proxy in ([], [f"{other_host.origin}/frame"])
    assert other_host.requests == []


def test_own_origin_frames_follow_the_frames_option_on_a_reused_tab(quick, page_server):
    # Under --same-origin the page's own requests pass no handler, since the policy allows them
    # all; with frames refused they must pass it again, also on the site's parked tab that a
    # page with frames allowed left behind.
    page_server.add_html("/own-frame", "<p>text of the own frame</p>")
    url = page_server.add_html("/framing.html", '<p>framing page</p><iframe src="/own-frame">'
                                                "</iframe>")
    with Browser(quick(screenshot=False, settle_s=0.3, same_origin=True)) as fresh:
        framed = fresh.capture(url)
        assert page_server.requests.count("/own-frame") == 1
        bare = fresh.capture(url, quick(screenshot=False, settle_s=0.3, same_origin=True,
                                        frames="none"))
    assert "text of the own frame" in page_text(framed)
    assert "framing page" in page_text(bare) and "text of the own frame" not in page_text(bare)
    assert page_server.requests.count("/own-frame") == 1
