"""Unusual pages that must still succeed: huge, too tall, empty, malformed, lazily loaded."""

from __future__ import annotations

import pytest
from PIL import Image

from wps.capture import discard_screenshot


def test_page_with_fifty_thousand_elements(page_server, browser, quick):
    spans = "".join(f"<span>w{i}</span> " for i in range(50_000))
    url = page_server.add_html("/huge", f"<!doctype html><body><div>{spans}</div></body>")
    capture = browser.capture(url, quick(timeout_s=60, screenshot=False))
    elements = [node for node in capture.nodes if not node.is_text]
    texts = [node for node in capture.nodes if node.is_text]
    assert len(elements) == 50_002 and len(texts) == 50_000  # BODY, DIV, 50,000 SPANs
    assert texts[0].text == "w0" and texts[-1].text == "w49999"
    assert texts[-1].xpath == "/HTML[1]/BODY[1]/DIV[1]/SPAN[50000]/text()[1]"


def test_page_taller_than_the_cap_is_capped_and_flagged(page_server, browser, quick):
    html = ("<!doctype html><body style='margin:0'><div style='height:5000px;"
            "background:linear-gradient(rgb(0,0,255), rgb(0,0,255))'></div>"
            "<p style='margin:0;height:20px'>below the cap</p></body>")
    capture = browser.capture(page_server.add_html("/tall", html), quick(max_height=2000))
    try:
        assert capture.height == 2000 and capture.screenshot_truncated
        with Image.open(capture.screenshot) as image:
            assert image.size == (1366, 2000)
            assert image.convert("RGB").getpixel((700, 1990)) == (0, 0, 255)
        below = [node for node in capture.nodes if node.text == "below the cap"]
        assert below and below[0].bbox[1] >= 5000  # nodes keep their true page position
    finally:
        discard_screenshot(capture.screenshot)


def test_empty_page_gives_just_the_body(page_server, browser, quick):
    capture = browser.capture(page_server.add_html("/empty", "<html><body></body></html>"),
                              quick(screenshot=False))
    assert [node.tag for node in capture.nodes] == ["BODY"]
    assert capture.nodes[0].xpath == "/HTML[1]/BODY[1]" and capture.height == 768


def test_malformed_html_is_repaired_by_the_parser(page_server, browser, quick):
    html = ("<div><p>unclosed <b>bold <i>both</b> tail</p><table><td>cell</div>"
            "</span></i><li>stray<p>last")
    capture = browser.capture(page_server.add_html("/malformed", html), quick(screenshot=False))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert texts == ["unclosed", "bold", "both", "tail", "cell", "stray", "last"]
    cell = next(node for node in capture.nodes if node.text == "cell")
    assert cell.xpath == "/HTML[1]/BODY[1]/DIV[1]/TABLE[1]/TBODY[1]/TR[1]/TD[1]/text()[1]"
    assert cell.inside == frozenset({"table"})


def test_display_contents_wrapper_keeps_its_children(page_server, browser, quick):
    html = ("<!doctype html><body style='margin:0'><div style='display:contents'>"
            "<p style='margin:0;height:20px;width:100px'>inside</p>"
            "<p style='margin:0;height:20px;width:50px'>also</p></div></body>")
    capture = browser.capture(page_server.add_html("/contents", html), quick(screenshot=False))
    wrapper = capture.nodes[1]
    assert wrapper.tag == "DIV" and wrapper.style["display"] == "contents"
    assert wrapper.bbox == (0, 0, 100, 40)  # the union of what it holds
    assert [capture.nodes[i].xpath for i in capture.children(wrapper.id)] == [
        "/HTML[1]/BODY[1]/DIV[1]/P[1]", "/HTML[1]/BODY[1]/DIV[1]/P[2]"]


def test_script_redirect_after_load_captures_the_target(page_server, browser, quick):
    target = page_server.add_html("/redirect-target", "<!doctype html><p>arrived</p>")
    url = page_server.add_html(
        "/redirect-by-script", "<!doctype html><p>leaving</p><script>addEventListener('load', "
        "() => setTimeout(() => { location.href = '/redirect-target'; }, 30));</script>")
    capture = browser.capture(url, quick(settle_s=0.3, screenshot=False))  # leaves meanwhile
    assert capture.url == url and capture.final_url == target
    assert [node.text for node in capture.nodes if node.is_text] == ["arrived"]


LAZY_PAGE = """<!doctype html><body style="margin:0">
<div id="feed"><div style="height:1500px">first</div></div>
<div id="sentinel" style="height:10px"></div>
<script>
  let added = 0;
  new IntersectionObserver((entries) => {
    if (!entries[0].isIntersecting || added >= LIMIT) return;
    added += 1;
    const block = document.createElement("div");
    block.style.height = "1500px";
    block.textContent = "lazy " + added;
    document.getElementById("feed").appendChild(block);
  }).observe(document.getElementById("sentinel"));
</script></body>"""


def test_lazy_content_loads_during_the_scroll_pass(page_server, browser, quick):
    url = page_server.add_html("/lazy", LAZY_PAGE.replace("LIMIT", "3"))
    capture = browser.capture(url, quick(scroll_max_steps=20, screenshot=False))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert texts == ["first", "lazy 1", "lazy 2", "lazy 3"]
    assert capture.height == 4 * 1500 + 10 and not capture.scroll_truncated


SCROLL_REVEAL_PAGE = """<!doctype html><body style="margin:0">
<div style="height:3000px">first</div><div id="late" style="display:none">revealed</div>
<script>
  const reveal = () => { if (scrollY > 1000) document.getElementById("late").style.display = ""; };
  HOOK
</script></body>"""


@pytest.mark.parametrize("hook", ["addEventListener('scroll', reveal, {passive: true});",
                                  "window.onscroll = reveal;"])
def test_a_page_listening_for_scrolls_is_scrolled(page_server, browser, quick, hook):
    url = page_server.add_html("/reveal", SCROLL_REVEAL_PAGE.replace("HOOK", hook))
    capture = browser.capture(url, quick(scroll_max_steps=10, screenshot=False))
    assert "revealed" in [node.text for node in capture.nodes if node.is_text]
    assert "scroll_skipped" not in capture.timings


def test_a_page_that_cannot_react_is_not_scrolled(page_server, browser, quick):
    url = page_server.add_html("/still", SCROLL_REVEAL_PAGE.replace("HOOK", "").replace(
        "<script>", "<script>document.title = 'no listener';"))
    skipped = browser.capture(url, quick(scroll_max_steps=10, screenshot=False))
    assert skipped.timings["scroll_skipped"] == 1
    forced = browser.capture(url, quick(scroll_max_steps=10, screenshot=False,
                                        scroll_always=True))
    assert "scroll_skipped" not in forced.timings
    assert skipped.nodes == forced.nodes  # nothing on it reacts, so nothing differs


def test_a_frame_that_reacts_to_scrolling_gets_the_page_scrolled(page_server, browser, quick):
    page_server.add_html("/watching-frame", """<!doctype html><body><p id="p">waiting</p><script>
      new IntersectionObserver((entries) => {
        if (entries[0].isIntersecting) document.getElementById("p").textContent = "seen";
      }).observe(document.getElementById("p"));
    </script></body>""")
    url = page_server.add_html("/frame-below", """<!doctype html><body style="margin:0">
      <div style="height:3000px">top</div><iframe src="/watching-frame"></iframe></body>""")
    capture = browser.capture(url, quick(scroll_max_steps=10, screenshot=False))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert "seen" in texts and "waiting" not in texts
    assert "scroll_skipped" not in capture.timings


def test_infinite_scroll_stops_at_the_step_bound(page_server, browser, quick):
    url = page_server.add_html("/infinite", LAZY_PAGE.replace("LIMIT", "1e9"))
    capture = browser.capture(url, quick(scroll_max_steps=4, screenshot=False))
    assert capture.scroll_truncated
    lazy = [node for node in capture.nodes if node.text.startswith("lazy")]
    assert 1 <= len(lazy) <= 4


@pytest.mark.parametrize("width", [800])
def test_viewport_width_is_configurable(page_server, browser, quick, width):
    url = page_server.add_html("/width", "<!doctype html><body style='margin:0'><p>w</p>")
    capture = browser.capture(url, quick(viewport_width=width))
    try:
        assert capture.width == width and capture.nodes[0].bbox[2] == width
        with Image.open(capture.screenshot) as image:
            assert image.size == (width, 768)
    finally:
        discard_screenshot(capture.screenshot)
