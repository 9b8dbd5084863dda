"""Rendered content beyond the light DOM: open shadow roots, slots and iframes (real Chromium)."""

from __future__ import annotations

from collections import Counter

import trafilatura
from PIL import Image

from wps.capture import discard_screenshot

SHADOW_PAGE = """<!doctype html><body style="margin:0">
<p style="margin:0;height:20px">light before</p>
<x-card id="card"><span style="display:block;height:30px">slotted one</span>
  <b slot="nowhere">unslotted</b><span slot="title" style="display:block;height:25px">titled</span></x-card>
<p style="margin:0;height:20px">light after</p>
<script>
customElements.define("x-inner", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: "open"}).innerHTML =
      "<style>div{margin:0}</style><div style='height:40px;width:300px'>inner shadow text</div>";
  }
});
customElements.define("x-card", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: "open"}).innerHTML =
      "<style>:host{display:block}</style>"
      + "<h3 style='margin:0;height:50px;width:200px'>shadow heading</h3>"
      + "<slot name='title'></slot>"
      + "<x-inner style='display:block'></x-inner>"
      + "<slot></slot>"
      + "<slot name='empty'><i>fallback text</i></slot>";
  }
});
</script></body>"""


def test_open_shadow_roots_nested_hosts_and_slots_are_captured_once(page_server, browser, quick):
    url = page_server.add_html("/shadow", SHADOW_PAGE)
    capture = browser.capture(url, quick(screenshot=False))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert Counter(texts) == Counter({
        "light before": 1, "shadow heading": 1, "titled": 1, "inner shadow text": 1,
        "slotted one": 1, "fallback text": 1, "light after": 1})
    assert "unslotted" not in texts  # not assigned to any slot: not rendered
    # flat-tree (rendered) order, with exact boxes in page coordinates
    assert texts == ["light before", "shadow heading", "titled", "inner shadow text",
                     "slotted one", "fallback text", "light after"]
    by_text = {node.text: node for node in capture.nodes if node.is_text}
    heading = capture.nodes[by_text["shadow heading"].parent]
    assert heading.tag == "H3" and heading.bbox == (0, 20, 200, 70)
    assert heading.xpath == "/HTML[1]/BODY[1]/X-CARD[1]/#shadow-root/H3[1]"
    inner_div = capture.nodes[by_text["inner shadow text"].parent]
    assert inner_div.bbox == (0, 95, 300, 135)
    assert inner_div.xpath == ("/HTML[1]/BODY[1]/X-CARD[1]/#shadow-root/X-INNER[1]"
                               "/#shadow-root/DIV[1]")
    # slotted light-DOM nodes keep their light-DOM XPath; their parent is the <slot>
    titled = capture.nodes[by_text["titled"].parent]
    assert titled.xpath == "/HTML[1]/BODY[1]/X-CARD[1]/SPAN[2]"
    assert titled.bbox == (0, 70, 1366, 95)
    assert capture.nodes[titled.parent].tag == "SLOT"
    assert capture.nodes[titled.parent].xpath == "/HTML[1]/BODY[1]/X-CARD[1]/#shadow-root/SLOT[1]"
    assert capture.nodes[titled.parent].bbox == titled.bbox  # a slot is boxed by what it holds
    slotted = capture.nodes[by_text["slotted one"].parent]
    assert slotted.xpath == "/HTML[1]/BODY[1]/X-CARD[1]/SPAN[1]"
    assert slotted.bbox == (0, 135, 1366, 165)
    assert by_text["fallback text"].xpath == (
        "/HTML[1]/BODY[1]/X-CARD[1]/#shadow-root/SLOT[3]/I[1]/text()[1]")
    assert by_text["light after"].xpath == "/HTML[1]/BODY[1]/P[2]/text()[1]"
    assert by_text["fallback text"].bbox[1] == 165
    assert by_text["light after"].bbox[1] >= by_text["fallback text"].bbox[3]
    # every node once; parents precede children; the flat tree is a tree
    ids = [node.id for node in capture.nodes]
    assert ids == list(range(len(capture.nodes)))
    assert all(node.parent is None or node.parent < node.id for node in capture.nodes)
    assert len({node.xpath for node in capture.nodes}) == len(capture.nodes)
    assert heading.depth == 4  # BODY 1, X-CARD 2, #shadow-root 3, H3 4


def test_display_contents_host_is_boxed_by_its_shadow_content(page_server, browser, quick):
    html = ("<!doctype html><body style='margin:0'><div id='host' style='display:contents'>"
            "<b>light, not slotted</b></div><script>document.getElementById('host')"
            ".attachShadow({mode: 'open'}).innerHTML = \"<p style='margin:0;height:30px;"
            "width:70px'>in shadow</p>\";</script></body>")
    capture = browser.capture(page_server.add_html("/contents-host", html),
                              quick(screenshot=False))
    host = capture.nodes[1]
    assert host.xpath == "/HTML[1]/BODY[1]/DIV[1]" and host.bbox == (0, 0, 70, 30)
    assert [node.text for node in capture.nodes if node.is_text] == ["in shadow"]


def test_html_serialises_open_shadow_roots_and_trafilatura_still_reads_it(
        page_server, browser, quick):
    url = page_server.add_html("/shadow-html", SHADOW_PAGE)
    capture = browser.capture(url, quick(screenshot=False))
    assert capture.html.startswith("<!DOCTYPE html><html>")
    assert '<template shadowrootmode="open">' in capture.html
    assert "inner shadow text" in capture.html and "unslotted" in capture.html
    text = trafilatura.extract(capture.html, include_comments=False) or ""
    assert "light before" in text and "light after" in text


FRAME_DOC = ("<!doctype html><body style='margin:0'><h1 style='margin:0;height:40px;width:120px'>"
             "FRAME_TEXT heading</h1><p style='margin:0;height:20px'>FRAME_TEXT body</p></body>")


def frame_page(src: str) -> str:
    """A page with one iframe at (50, 100): 5 px border and 3 px padding, so content at (58, 108)."""
    return ("<!doctype html><body style='margin:0'><div style='height:100px'>outer top</div>"
            f"<iframe src='{src}' style='margin-left:50px;border:5px solid black;padding:3px;"
            "width:400px;height:300px;display:block'></iframe>"
            "<p style='margin:0'>outer bottom</p></body>")


def check_frame_content(capture, label: str) -> None:
    iframe = next(node for node in capture.nodes if node.tag == "IFRAME")
    assert iframe.xpath == "/HTML[1]/BODY[1]/IFRAME[1]" and iframe.bbox == (50, 100, 466, 416)
    heading_text = next(node for node in capture.nodes if node.text == f"{label} heading")
    heading = capture.nodes[heading_text.parent]
    frame_body = capture.nodes[heading.parent]
    assert frame_body.tag == "BODY" and frame_body.parent == iframe.id
    assert frame_body.xpath == "/HTML[1]/BODY[1]/IFRAME[1]/#document/HTML[1]/BODY[1]"
    assert heading.xpath == "/HTML[1]/BODY[1]/IFRAME[1]/#document/HTML[1]/BODY[1]/H1[1]"
    assert heading.bbox == (58, 108, 178, 148)
    paragraph = capture.nodes[next(node for node in capture.nodes
                                   if node.text == f"{label} body").parent]
    assert paragraph.bbox == (58, 148, 458, 168)
    assert [node.text for node in capture.nodes if node.is_text].count(f"{label} body") == 1


def test_same_origin_iframe_is_walked_in_page_coordinates(page_server, browser, quick):
    page_server.add_html("/same-frame", FRAME_DOC.replace("FRAME_TEXT", "same"))
    url = page_server.add_html("/same-outer", frame_page("/same-frame"))
    capture = browser.capture(url, quick(screenshot=False))
    check_frame_content(capture, "same")
    assert capture.timings["frames_walked"] == 1 and capture.timings["frames_skipped"] == 0


def test_cross_origin_iframe_is_walked_through_its_frame(page_server, browser, quick):
    page_server.add_html("/cross-frame", FRAME_DOC.replace("FRAME_TEXT", "cross"))
    cross_src = f"http://localhost:{page_server.port}/cross-frame"  # page is on 127.0.0.1
    url = page_server.add_html("/cross-outer", frame_page(cross_src))
    capture = browser.capture(url, quick(screenshot=False, frames="all"))
    check_frame_content(capture, "cross")
    assert capture.timings["frames_walked"] == 1 and capture.timings["frames_skipped"] == 0
    texts = [node.text for node in capture.nodes if node.is_text]
    assert texts[:2] == ["outer top", "outer bottom"]  # frame nodes follow the main walk


def test_frames_over_the_budget_are_skipped_and_counted(page_server, browser, quick):
    page_server.add_html("/small-frame", FRAME_DOC.replace("FRAME_TEXT", "small"))
    frames = "".join("<iframe src='/small-frame' style='height:50px'></iframe>" for _ in range(23))
    cross = "".join(f"<iframe src='http://localhost:{page_server.port}/small-frame'></iframe>"
                    for _ in range(2))
    url = page_server.add_html("/many-frames", f"<!doctype html><body>{frames}{cross}</body>")
    capture = browser.capture(url, quick(screenshot=False))
    assert capture.timings["frames_walked"] == 20 and capture.timings["frames_skipped"] == 5
    assert [node.text for node in capture.nodes].count("small heading") == 20


APP_SHELL = """<!doctype html><html><head><style>
html, body { height: 100%; margin: 0; overflow: hidden; }
#app { height: 100%; overflow: auto; }
.block { height: 1000px; margin: 0; background: rgb(0, 0, 255); }
</style></head><body><div id="app">
<p class="block">one</p><p class="block">two</p><p class="block">three</p>
<div id="feed"></div><div id="sentinel" style="height:10px"></div></div>
<script>
new IntersectionObserver((entries) => {
  if (!entries[0].isIntersecting || document.getElementById("feed").children.length) return;
  const block = document.createElement("p");
  block.style.cssText = "height:500px;margin:0;background:rgb(255,0,0)";
  block.textContent = "lazy in app";
  document.getElementById("feed").appendChild(block);
}).observe(document.getElementById("sentinel"));
</script></body></html>"""


def test_inner_scroll_container_is_scrolled_and_expanded(page_server, browser, quick):
    url = page_server.add_html("/app-shell", APP_SHELL)
    capture = browser.capture(url, quick(scroll_max_steps=10))
    try:
        texts = {node.text: node for node in capture.nodes if node.is_text}
        assert list(texts) == ["one", "two", "three", "lazy in app"]  # loaded by the container pass
        assert capture.height == 3510 and not capture.screenshot_truncated
        assert texts["three"].bbox[1] == 2000 and texts["lazy in app"].bbox[1] == 3000
        assert capture.timings["scroll_container_expanded"] == 1
        with Image.open(capture.screenshot) as image:
            assert image.size == (1366, 3510)
            pixels = image.convert("RGB")
            assert pixels.getpixel((700, 2500)) == (0, 0, 255)
            assert pixels.getpixel((700, 3200)) == (255, 0, 0)
    finally:
        discard_screenshot(capture.screenshot)


def test_scroll_container_is_expanded_without_a_scroll_pass(page_server, browser, quick):
    url = page_server.add_html("/app-shell-still", APP_SHELL)
    capture = browser.capture(url, quick(scroll_max_steps=0, screenshot=False))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert texts == ["one", "two", "three"] and capture.height == 3010


def test_cross_origin_frame_inside_a_same_origin_frame(page_server, browser, quick):
    page_server.add_html("/deep-frame", FRAME_DOC.replace("FRAME_TEXT", "deep"))
    page_server.add_html(
        "/middle-frame", "<!doctype html><body style='margin:0'><p style='margin:0;height:10px'>"
        f"middle</p><iframe src='http://localhost:{page_server.port}/deep-frame' "
        "style='border:0;margin:0;display:block'></iframe></body>")
    url = page_server.add_html("/deep-outer", frame_page("/middle-frame"))
    capture = browser.capture(url, quick(screenshot=False, frames="all"))
    deep = capture.nodes[next(node for node in capture.nodes if node.text == "deep heading").parent]
    assert deep.bbox == (58, 118, 178, 158)  # middle frame content (58, 108) + 10 px paragraph
    assert deep.xpath == ("/HTML[1]/BODY[1]/IFRAME[1]/#document/HTML[1]/BODY[1]/IFRAME[1]"
                          "/#document/HTML[1]/BODY[1]/H1[1]")
    assert capture.timings["frames_walked"] == 2 and capture.timings["frames_skipped"] == 0


def test_cross_origin_frame_that_hangs_is_skipped_and_counted(page_server, browser, quick):
    page_server.add_html(
        "/hung-frame", "<!doctype html><p>hung</p><script>addEventListener('load', "
        "() => setTimeout(() => { for (;;) {} }, 0));</script>")
    page_server.add_html("/fine-frame", FRAME_DOC.replace("FRAME_TEXT", "fine"))
    url = page_server.add_html(
        "/hung-outer", "<!doctype html><body><p>outer</p>"
        f"<iframe src='http://localhost:{page_server.port}/hung-frame'></iframe>"
        "<iframe src='/fine-frame'></iframe></body>")
    capture = browser.capture(url, quick(screenshot=False, frames="all"))
    texts = [node.text for node in capture.nodes if node.is_text]
    assert "hung" not in texts and texts.count("fine heading") == 1 and "outer" in texts
    assert capture.timings["frames_walked"] == 1 and capture.timings["frames_skipped"] == 1


def test_iframe_content_is_clipped_to_the_iframe(page_server, browser, quick):
    page_server.add_html(
        "/long-frame", "<!doctype html><body style='margin:0'><div style='height:290px;"
        "width:600px'>straddles</div><p style='margin:0;height:20px'>half out</p>"
        "<p style='margin:0;height:20px'>all out</p></body>")
    for cross in (False, True):
        src = f"http://localhost:{page_server.port}/long-frame" if cross else "/long-frame"
        url = page_server.add_html(f"/clip-outer-{cross}", frame_page(src))
        capture = browser.capture(url, quick(screenshot=False, frames="all"))
        by_text = {node.text: capture.nodes[node.parent] for node in capture.nodes if node.is_text}
        # the content box is (58, 108) to (458, 408): 400 x 300
        assert by_text["straddles"].bbox == (58, 108, 458, 398)  # 600 px wide, cut at 458
        assert by_text["half out"].bbox == (58, 398, 458, 408)
        assert by_text["all out"].bbox == (58, 408, 458, 408)  # zero height on the edge


OVERLAY = """<!doctype html><html><head><style>
body { margin: 0; }
.feed { height: 1000px; margin: 0; }
#overlay { position: fixed; inset: 0; overflow-y: auto; background: white; }
#overlay .post { height: 900px; margin: 0; }
</style></head><body>
<p class="feed">feed one</p><p class="feed">feed two</p><p class="feed">feed three</p>
<div id="overlay"><p class="post">the post</p><p class="post">first comment</p>
<div id="more"></div><div id="sentinel" style="height:10px"></div></div>
<script>
new IntersectionObserver((entries) => {
  if (!entries[0].isIntersecting || document.getElementById("more").children.length) return;
  const comment = document.createElement("p");
  comment.textContent = "lazy comment";
  document.getElementById("more").appendChild(comment);
}).observe(document.getElementById("sentinel"));
</script></body></html>"""


def test_a_scrolling_overlay_over_a_scrolling_page_is_scrolled_and_expanded(page_server, browser,
                                                                            quick):
    """A post opened over a feed: the document scrolls, the overlay too; the overlay's lazy
    comments load and are captured (not left below its box as unreached)."""
    url = page_server.add_html("/overlay", OVERLAY)
    capture = browser.capture(url, quick(scroll_max_steps=10, screenshot=False))
    texts = {node.text: node for node in capture.nodes if node.is_text}
    assert {"the post", "first comment", "lazy comment", "feed one"} <= set(texts)
    assert texts["first comment"].bbox[1] == 900 and texts["lazy comment"].bbox[1] >= 1800
    assert capture.unreached == [] and capture.timings["scroll_container_expanded"] == 1


def test_a_small_scrolling_pane_on_a_scrolling_page_is_left_as_it_is(page_server, browser,
                                                                     quick):
    """Only an overlay that covers the viewport is taken for the page: a fixed chat box is not."""
    page = OVERLAY.replace("inset: 0;", "right: 0; bottom: 0; width: 300px; height: 200px;")
    url = page_server.add_html("/chat-box", page)
    capture = browser.capture(url, quick(scroll_max_steps=10, screenshot=False))
    assert "scroll_container_expanded" not in capture.timings
    assert [pane["hidden_px"] > 1000 for pane in capture.unreached] == [True]
