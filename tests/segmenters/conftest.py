"""One Chromium for the segmenter tests; ``render(html)`` serves a page and captures it."""

from __future__ import annotations

import itertools
from typing import Callable

import pytest

from wps.capture import Browser, CaptureOptions
from wps.model import PageCapture

FAST = {"settle_s": 0.0, "scroll_max_steps": 2, "scroll_pause_s": 0.05, "timeout_s": 15.0,
        "allow_private": True}  # pages served on 127.0.0.1
_PAGE_NUMBERS = itertools.count()


@pytest.fixture(scope="session")
def segment_browser():
    with Browser(CaptureOptions(**FAST)) as browser:  # type: ignore[arg-type]
        yield browser


@pytest.fixture(scope="session")
def render(page_server, segment_browser) -> Callable[..., PageCapture]:
    """Serve ``html`` on the local test server and capture it in the shared Chromium;
    keyword arguments override capture options (``max_height=...``)."""

    def render_html(html: str, **options: object) -> PageCapture:
        url = page_server.add_html(f"/segment-{next(_PAGE_NUMBERS)}.html", html)
        if options:
            return segment_browser.capture(url, CaptureOptions(**{**FAST, **options}))
        return segment_browser.capture(url)

    return render_html
