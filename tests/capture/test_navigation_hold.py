"""Pages that navigate by themselves are captured as they rendered, within their deadline.

Two classes of real page lost everything: a script that forces ``https:`` by assigning
``document.location`` reloads a saved (``file:``) page forever, so ``load`` never came and the
capture waited until its deadline; a script that goes to ``//www.site/...`` (a ``file:`` URL once
saved) left the browser's error page, error 19. Local pages are now held on their own document;
web pages are held after a few navigations of their own. Real Chromium; pages built here, on
disk or served on 127.0.0.1; then the three benchmark pages that showed it.
"""

from __future__ import annotations

import json
import time

import pytest

import wps
from wps.benchmark.article_data import page_counts

pytestmark = pytest.mark.browser

ARTICLE = ("<article><h1>Proofing dough in a cold kitchen</h1>"
           + "".join(f"<p>Paragraph {i}: keep the dough covered and somewhere warm, then give it "
                     "another hour before you judge whether the starter has done its work.</p>"
                     for i in range(6)) + "</article>")
FORCE_HTTPS = ('<script>if (document.location.protocol != "https:") {'
               'document.location = document.URL.replace(/^http:/i, "https:");}</script>')


def texts(capture) -> str:
    return " ".join(node.text for node in capture.nodes if node.is_text)


def test_local_page_that_reloads_itself_is_captured_within_its_deadline(browser, quick,
                                                                        tmp_path):
    page = tmp_path / "forced-https.html"
    page.write_text(f"<html><head>{FORCE_HTTPS}</head><body>{ARTICLE}</body></html>",
                    encoding="utf-8")
    started = time.monotonic()
    capture = browser.capture(page, quick(timeout_s=10.0, screenshot=False))
    assert time.monotonic() - started < 8.0
    assert "Proofing dough" in texts(capture) and "Paragraph 5" in texts(capture)
    assert capture.incomplete is False  # held at once, so the document loads
    assert capture.timings["navigations_held"] >= 1
    plain = tmp_path / "plain.html"  # a page that does not navigate reports nothing held
    plain.write_text(ARTICLE, encoding="utf-8")
    assert "navigations_held" not in browser.capture(plain, quick(screenshot=False)).timings


@pytest.mark.parametrize("leave", [
    '<script>setTimeout(() => {{ location.href = "{target}"; }}, 30);</script>',
    '<meta http-equiv="refresh" content="0;url={target}">',
    '<script>location.replace("{target}");</script>',
])
def test_local_page_that_navigates_away_keeps_its_own_document(browser, quick, tmp_path, leave):
    """``//www.site.example/consent`` is ``file://www.site.example/consent`` in a saved page."""
    page = tmp_path / "consent-redirect.html"
    page.write_text(leave.format(target="//www.site.example/consent") + ARTICLE,
                    encoding="utf-8")
    capture = browser.capture(page, quick(screenshot=False, settle_s=0.3))
    assert capture.final_url == capture.url
    assert "Proofing dough" in texts(capture) and "Paragraph 5" in texts(capture)
    assert capture.timings["navigations_held"] >= 1


def test_web_page_that_reloads_itself_before_load_is_held(browser, quick, page_server):
    """The web form of the first class: each document navigates before it loads. After a few
    hops the page is held and captured (marked incomplete if its ``load`` did not come). A
    page that is not held: three HTTP redirects (the server's, not counted) to a page whose
    script redirects once, which is followed to what a reader sees."""
    url = page_server.add_html("/reloads-before-load.html", (
        "<html><head><script>location.reload();</script></head><body>"
        f"{ARTICLE}</body></html>"))
    started = time.monotonic()
    capture = browser.capture(url, quick(timeout_s=12.0, screenshot=False))
    assert time.monotonic() - started < 10.0
    assert "Paragraph 5" in texts(capture)
    assert capture.timings["navigations_held"] >= 1
    assert page_server.requests.count("/reloads-before-load.html") <= 5

    target = page_server.add_html("/redirect-target.html", "<p>the real article</p>")
    page_server.add_html("/redirect-source.html", (
        f'<p>redirecting</p><script>location.href = "{target}";</script>'))
    for hop, next_hop in (("/hop1", "/hop2"), ("/hop2", "/hop3"),
                          ("/hop3", "/redirect-source.html")):
        page_server.routes[hop] = _redirect(next_hop)
    followed = browser.capture(page_server.url("/hop1"), quick(screenshot=False, settle_s=0.3))
    assert followed.final_url == target and "the real article" in texts(followed)
    assert "navigations_held" not in followed.timings


def _redirect(location: str):
    def answer(handler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    return answer


# ---------------------------------------------------------------- the benchmark's three pages
REAL_PAGES = {
    "c4a3637c6696f238cf9fe1c7fbb17bbb6731a71d4f5fe399b9b4fc3294a96a6b": "forces https: reloads",
    "dfd43bc0d46e7aaa78ba10fbcb5b9fdfe78771d36cb4c7497e17fb6f69170ec5": "forces https: reloads",
    "686bb170effe273eaff1c0f88e412172e8d972518a6d1454c896f52aafaa9643": "goes to //www.site/",
}


@pytest.mark.parametrize("page_id", sorted(REAL_PAGES))
def test_benchmark_pages_that_navigate_keep_their_main_text(article_benchmark, browser, quick,
                                                            page_id):
    page = article_benchmark / "html" / f"{page_id}.html.gz"
    truth = json.loads((article_benchmark / "ground-truth.json").read_text(encoding="utf-8"))
    started = time.monotonic()
    result = wps.segment(page, capture_options=quick(timeout_s=30.0, settle_s=0.5,
                                                     screenshot=False), browser=browser)
    assert time.monotonic() - started < 30.0
    assert result.capture.timings["navigations_held"] >= 1, REAL_PAGES[page_id]
    tp, _fp, fn = page_counts(truth[page_id]["articleBody"], result.text.kept_text)
    assert tp / (tp + fn) > 0.5  # most of the article's text is kept
