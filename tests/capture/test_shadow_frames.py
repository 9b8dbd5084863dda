"""Rendered content beyond the light DOM: open shadow roots, slots and iframes (real Chromium)."""

from __future__ import annotations

from collections import Counter

import trafilatura

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


def test_html_serialises_open_shadow_roots_and_trafilatura_still_reads_it(
        page_server, browser, quick):
    url = page_server.add_html("/shadow-html", SHADOW_PAGE)
    capture = browser.capture(url, quick(screenshot=False))
    assert capture.html.startswith("<!DOCTYPE html><html>")
    assert '<template shadowrootmode="open">' in capture.html
    assert "inner shadow text" in capture.html and "unslotted" in capture.html
    text = trafilatura.extract(capture.html, include_comments=False) or ""
    assert "light before" in text and "light after" in text
