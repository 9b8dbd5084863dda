"""WARC replay: a page rendered under its own URL with its stylesheet and image served from the
same WARC, nothing fetched, and what the archive lacks listed in the capture. Real Chromium; the
archive is written here with warcio."""

from __future__ import annotations

import pytest
from warc_pages import SITE, write_replay_warc

from wps.capture import Browser
from wps.capture.replay import ReplayArchive
from wps.model import PageCapture

pytestmark = pytest.mark.browser

def test_a_replayed_page_gets_its_stylesheet_and_image_from_the_warc(quick, tmp_path):
    warc = write_replay_warc(tmp_path / "site.warc.gz")
    seen = {}

    async def look(page) -> None:
        seen.update(await page.evaluate("""() => ({
            color: getComputedStyle(document.getElementById("text")).color,
            image: [document.getElementById("image").naturalWidth,
                    document.getElementById("image").naturalHeight]})"""))

    with Browser(quick(allow_private=False), page_hook=look) as browser:
        capture = browser.capture(f"{SITE}/page", quick(allow_private=False, screenshot=False),
                                  replay=ReplayArchive.read(warc))
    assert seen == {"color": "rgb(10, 20, 30)", "image": [7, 5]}
    assert "archived text" in [node.text for node in capture.nodes if node.is_text]
    assert capture.url == capture.final_url == f"{SITE}/page"
    assert capture.replay_missing == [f"{SITE}/missing.js"]
    capture.save(tmp_path / "capture")
    assert PageCapture.load(tmp_path / "capture").replay_missing == [f"{SITE}/missing.js"]
