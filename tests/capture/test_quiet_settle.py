"""The settle wait ends once nothing the page started can still change it (wps.capture.quiet):
what a timer or a request in flight adds is still captured, a calm page is not held for the
whole bound, and ``settle_fixed`` waits all of it."""

from __future__ import annotations

import time

BOUND_S = 2.0


def _texts(capture):
    return [node.text for node in capture.nodes if node.is_text]


def test_a_late_timer_is_waited_for(page_server, browser, quick):
    url = page_server.add_html("/quiet-timer", (
        "<body><p>first</p><script>setTimeout(() => document.body.insertAdjacentHTML("
        "'beforeend', '<p>added by a timer at 400 ms</p>'), 400);</script></body>"))
    capture = browser.capture(url, quick(settle_s=BOUND_S, screenshot=False))
    assert _texts(capture) == ["first", "added by a timer at 400 ms"]
    assert capture.timings["settle_s"] < BOUND_S  # it went quiet once the timer had run


def test_a_request_in_flight_is_waited_for(page_server, browser, quick):
    def slow(handler):
        time.sleep(0.6)  # longer than the quiet window: only the request count holds the wait
        page_server.reply(handler, b"the answer of a slow request", "text/plain")

    page_server.routes["/quiet-slow"] = slow
    url = page_server.add_html("/quiet-fetch", (
        "<body><p>first</p><p id='late'></p><script>fetch('/quiet-slow').then((r) => r.text())"
        ".then((text) => { document.getElementById('late').textContent = text; });"
        "</script></body>"))
    capture = browser.capture(url, quick(settle_s=BOUND_S, screenshot=False))
    assert _texts(capture) == ["first", "the answer of a slow request"]


def test_repeating_work_and_far_timers_do_not_hold_the_wait(page_server, browser, quick):
    url = page_server.add_html("/quiet-calm", (
        "<style>@keyframes spin { to { transform: rotate(360deg); } }</style><body>"
        "<p>calm</p><div style='width:20px;height:20px;animation:spin 1s linear infinite'>"
        "</div><script>setInterval(() => {}, 30); setTimeout(() => {}, 60000);"
        "requestAnimationFrame(function again() { requestAnimationFrame(again); });"
        "</script></body>"))
    quiet = browser.capture(url, quick(settle_s=BOUND_S, screenshot=False))
    fixed = browser.capture(url, quick(settle_s=BOUND_S, settle_fixed=True, screenshot=False))
    assert _texts(quiet) == _texts(fixed) == ["calm"]
    assert quiet.timings["settle_s"] < BOUND_S / 2 <= BOUND_S <= fixed.timings["settle_s"]


def test_a_dom_that_keeps_changing_holds_the_wait_to_its_bound(page_server, browser, quick):
    url = page_server.add_html("/quiet-busy", (
        "<body><p id='tick'>0</p><script>let n = 0; setInterval(() => {"
        "document.getElementById('tick').textContent = String(++n); }, 20);</script></body>"))
    capture = browser.capture(url, quick(settle_s=1.0, screenshot=False))
    assert capture.timings["settle_s"] >= 1.0


def test_a_page_that_stops_the_waits_clocks_is_still_captured(page_server, browser, quick):
    # The in-page waits poll with the page's own timers and animation frames; a page can stop
    # them all. The wait then gives up a second after its bound instead of hanging the page.
    url = page_server.add_html("/quiet-hostile", (
        "<body><p>stopped clocks</p><script>"
        "window.__wpsQuiet.raw.setTimeout = () => 0; window.setTimeout = () => 0;"
        "window.requestAnimationFrame = () => 0;"
        "addEventListener('scroll', () => {});</script>"
        + "<p style='height:900px'>tall</p>" * 3 + "</body>"))
    capture = browser.capture(url, quick(settle_s=0.5, scroll_max_seconds=0.5, timeout_s=20,
                                         screenshot=False))
    assert _texts(capture)[0] == "stopped clocks"
    assert capture.timings["settle_s"] < 0.5 + 1.0 + 1.0
    assert capture.scroll_truncated
