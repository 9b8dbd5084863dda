"""Our visible-sibling XPaths are Webis-WebSeg-20's: re-render a dataset page's dom.html offline."""

from __future__ import annotations

import pytest

from wps.webis import capture_from_webis


def test_every_webis_xpath_is_found_in_a_rerender(webis_page, browser, quick):
    dom = webis_page / "dom.html"
    if not dom.is_file():
        pytest.skip(f"{dom} is missing")
    webis = capture_from_webis(webis_page)
    # Offline, the page's remote CSS is blocked, so boxes differ; the tree and the counting of
    # visible siblings (and of non-blank text nodes) must not.
    ours = browser.capture(dom, quick(screenshot=False))
    found = {node.xpath for node in ours.nodes}
    missing = [node.xpath for node in webis.nodes if node.xpath not in found]
    assert len(webis.nodes) > 100 and missing == []
    texts = {node.xpath: node.text for node in ours.nodes if node.is_text}
    differing = [node.xpath for node in webis.nodes
                 if node.is_text and " ".join(node.text.split()) != texts[node.xpath]]
    assert differing == []
