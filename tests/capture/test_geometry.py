"""A synthetic page with known geometry: exact boxes, both XPaths, contexts, styles, order."""

from __future__ import annotations

import pytest
from PIL import Image

from wps.capture import discard_screenshot
from wps.model import TEXT_TAG

GEOMETRY_PAGE = """<!doctype html>
<html><head><title>Geometry test</title><style>
  body { margin: 0; font: 20px/20px "DejaVu Sans Mono", monospace; }
  #first { position: absolute; left: 10px; top: 20px; width: 300px; height: 100px;
           background-color: rgb(255, 0, 0); }
  #first p { margin: 0; width: 120px; height: 20px; }
  #second { position: absolute; left: 50px; top: 200px; width: 200px; height: 40px; }
  #second a { display: block; width: 80px; height: 20px; font-weight: 700; }
  ul { position: absolute; left: 0; top: 300px; margin: 0; padding: 0 0 0 40px; width: 400px; }
  li { height: 30px; }
</style></head><body>
<div style="display: none">hidden sibling</div>
<div id="first"><p>Hello</p></div>
<div id="second"><nav><a href="#x">Go</a></nav></div>
<ul><li>item <code>x</code></li></ul>
<script>var ignored = 1;</script>
</body></html>
"""


@pytest.fixture(scope="module")
def geometry(page_server, browser):
    url = page_server.add_html("/geometry.html", GEOMETRY_PAGE)
    capture = browser.capture(url)
    yield capture
    discard_screenshot(capture.screenshot)


def by_xpath(capture, xpath):
    matches = [node for node in capture.nodes if node.xpath == xpath]
    assert len(matches) == 1, f"{xpath}: {len(matches)} nodes"
    return matches[0]


def test_exact_element_boxes(geometry):
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]").bbox == (10, 20, 310, 120)
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]/P[1]").bbox == (10, 20, 130, 40)
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[2]").bbox == (50, 200, 250, 240)
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[2]/NAV[1]/A[1]").bbox == (50, 200, 130, 220)
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/UL[1]/LI[1]").bbox == (40, 300, 440, 330)
    # Only absolutely positioned children: the body has no height.
    assert by_xpath(geometry, "/HTML[1]/BODY[1]").bbox == (0, 0, 1366, 0)


def test_text_node_boxes_follow_monospace_advance(geometry):
    hello = by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]/P[1]/text()[1]")
    assert hello.text == "Hello" and hello.tag == TEXT_TAG
    left, top, right, bottom = hello.bbox
    assert left == 10
    assert right == pytest.approx(10 + 5 * 12.04, abs=0.05)  # DejaVu Sans Mono: 0.602 em
    # The glyph box (ascent + descent) is centred on the 20 px line box at y = 20..40.
    assert (top + bottom) / 2 == pytest.approx(30, abs=1) and 20 < bottom - top < 26


def test_xpaths_count_visible_siblings_only_in_webis_form(geometry):
    first = by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]")
    assert first.xpath_all == "/HTML[1]/BODY[1]/DIV[2]"  # the display:none DIV counts here
    link_text = by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[2]/NAV[1]/A[1]/text()[1]")
    assert link_text.xpath_all == "/HTML[1]/BODY[1]/DIV[3]/NAV[1]/A[1]/text()[1]"
    item_text = by_xpath(geometry, "/HTML[1]/BODY[1]/UL[1]/LI[1]/text()[1]")
    # The blank text node before <ul> counts in the all-siblings XPath of the UL only.
    ul = by_xpath(geometry, "/HTML[1]/BODY[1]/UL[1]")
    assert ul.xpath_all == "/HTML[1]/BODY[1]/UL[1]"
    assert item_text.text == "item"
    tags = {node.tag for node in geometry.nodes}
    assert "SCRIPT" not in tags and "hidden sibling" not in {n.text for n in geometry.nodes}


def test_blank_text_nodes_shift_only_the_all_siblings_index(page_server, browser, quick):
    html = "<!doctype html><body><p>one<br>\n<br>two</p></body>"
    capture = browser.capture(page_server.add_html("/blank-text.html", html), quick(
        screenshot=False))
    texts = [node for node in capture.nodes if node.is_text]
    assert [node.text for node in texts] == ["one", "two"]
    assert [node.xpath for node in texts] == [
        "/HTML[1]/BODY[1]/P[1]/text()[1]", "/HTML[1]/BODY[1]/P[1]/text()[2]"]
    assert [node.xpath_all for node in texts] == [
        "/HTML[1]/BODY[1]/P[1]/text()[1]", "/HTML[1]/BODY[1]/P[1]/text()[3]"]


def test_inside_contexts_styles_and_depth(geometry):
    link = by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[2]/NAV[1]/A[1]")
    assert link.inside == frozenset({"nav", "link"})
    code_text = by_xpath(geometry, "/HTML[1]/BODY[1]/UL[1]/LI[1]/CODE[1]/text()[1]")
    assert code_text.inside == frozenset({"list", "code"})
    assert by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]").inside == frozenset()
    first = by_xpath(geometry, "/HTML[1]/BODY[1]/DIV[1]")
    assert first.style["position"] == "absolute"
    assert first.style["background-color"] == "rgb(255, 0, 0)"
    assert first.style["display"] == "block" and first.style["visibility"] == "visible"
    assert link.style["font-weight"] == "700" and link.style["font-size"] == "20px"
    assert by_xpath(geometry, "/HTML[1]/BODY[1]").depth == 1
    assert link.depth == 4 and code_text.depth == 5


def test_document_order_parents_first_and_tree_links(geometry):
    assert geometry.nodes[0].tag == "BODY" and geometry.nodes[0].parent is None
    for node in geometry.nodes:
        assert geometry.nodes[node.id] is node
        if node.parent is not None:
            parent = geometry.nodes[node.parent]
            assert parent.id < node.id
            assert node.xpath.rsplit("/", 1)[0] == parent.xpath
            assert node.depth == parent.depth + 1
    ordered = [node.xpath for node in geometry.nodes if node.is_text]
    assert [geometry.nodes[i].text for i in range(len(geometry.nodes))
            if geometry.nodes[i].is_text] == ["Hello", "Go", "item", "x"]
    assert len(ordered) == 4


def test_page_metadata_and_screenshot(geometry, page_server):
    assert geometry.url == geometry.final_url == page_server.url("/geometry.html")
    assert geometry.title == "Geometry test" and geometry.status == 200
    assert geometry.width == 1366 and geometry.height == 768  # one viewport: nothing taller
    assert len(geometry.page_id) == 12 and int(geometry.page_id, 16) >= 0
    assert "<nav>" in geometry.html and "hidden sibling" in geometry.html
    assert not geometry.screenshot_truncated and not geometry.scroll_truncated
    assert set(geometry.timings) == {
        "navigate_s", "settle_s", "scroll_s", "scroll_skipped", "dom_s", "screenshot_s",
        "total_s"}  # a script-free page: nothing on it reacts to scrolling
    with Image.open(geometry.screenshot) as image:
        assert image.size == (1366, 768)
        assert image.convert("RGB").getpixel((100, 100)) == (255, 0, 0)  # inside #first


def test_boxes_are_page_coordinates_below_the_first_screen(page_server, browser, quick):
    html = ("<!doctype html><body style='margin:0'><div style='height:3000px'></div>"
            "<p style='margin:0;height:10px;width:70px;font:8px/10px monospace'>deep</p></body>")
    capture = browser.capture(page_server.add_html("/deep.html", html),
                              quick(screenshot=False))
    paragraph = by_xpath(capture, "/HTML[1]/BODY[1]/P[1]")
    assert paragraph.bbox == (0, 3000, 70, 3010)
    assert capture.height == 3010
