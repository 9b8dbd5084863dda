"""End to end on a real render: Chromium → capture → segment → main text → filters."""

from __future__ import annotations

import copy

import pytest

from wps.config import load_config, merge_config
from wps.filters import TextUnit, apply_rules, evaluate_rules, rules_from_config
from wps.model import Segment, Segmentation
from wps.text import ExtractOptions, annotate_segments
from wps.text.annotate import kept_main_text

pytestmark = pytest.mark.browser

SENTENCES = [
    "The city council approved the new budget on Tuesday after a long and heated debate.",
    "Most of the money will go to schools, libraries and the repair of old bridges.",
    "Opposition members said the plan ignored the needs of the northern districts.",
    "The mayor promised to publish a detailed report on spending before the summer.",
    "Residents can comment on the plan at the town hall until the end of next month.",
]
PARAGRAPHS = [" ".join(SENTENCES[i:] + SENTENCES[:i]) for i in range(4)]

PAGE = """<!doctype html><html><head><title>Budget approved</title></head><body>
<nav id="nav" style="height:40px"><a href="/">Home</a> | <a href="/news">News</a> |
<a href="/sport">Sport</a> | <a href="/weather">Weather</a></nav>
<main id="main"><article><h1>Council approves the budget</h1>
{paragraphs}
</article></main>
<aside id="side"><h3>Most read</h3><ul>{links}</ul></aside>
<footer id="foot"><p>Copyright 2026 Example Town News. Terms of use. Privacy policy.</p></footer>
</body></html>"""


@pytest.fixture(scope="module")
def rendered(page_server, text_browser):
    html = PAGE.format(
        paragraphs="\n".join(f"<p>{p.replace('budget', '<b>budget</b>', 1)}</p>"
                             for p in PARAGRAPHS),
        links="".join(f"<li><a href='/s{i}'>Story number {i}</a></li>" for i in range(8)))
    url = page_server.add_html("/text/budget.html", html)
    return text_browser.capture(url)


def segments_by_element(capture, ids):
    """One segment per element id attribute, found through the serialised DOM's XPaths."""
    import lxml.html

    root = lxml.html.document_fromstring(capture.html)
    wanted = {root.getroottree().getpath(root.get_element_by_id(i)).upper(): i for i in ids}
    segments = []
    for node in capture.nodes:
        path = node.xpath_all.upper().replace("[1]", "")
        for xpath, name in wanted.items():
            if path == xpath.replace("[1]", ""):
                segments.append(Segment.from_box(name, node.bbox, [node.id]))
    return Segmentation("budget", "by-id", capture.width, capture.height, segments)


def test_main_text_reaches_only_the_article_segment(rendered) -> None:
    capture = rendered
    segmentation = segments_by_element(capture, ["nav", "main", "side", "foot"])
    assert [s.id for s in segmentation.segments] == ["nav", "main", "side", "foot"]
    report = annotate_segments(capture, segmentation, ExtractOptions(include_comments=False))
    by_id = {s.id: s for s in segmentation.segments}
    assert report.unaligned == []
    main = by_id["main"]
    for paragraph in PARAGRAPHS:
        assert paragraph in main.main_text  # inline <b> joined without extra spaces
    assert main.stats["main_text_overlap"] > 0.9
    assert by_id["nav"].main_text == "" and by_id["side"].main_text == ""
    assert main.stats["large_block_share"] > 0.9 and main.stats["link_share"] == 0.0

    config = load_config()
    counts = apply_rules(segmentation.segments, rules_from_config(config["filters"]["segment"]))
    assert [s.id for s in segmentation.segments if s.kept] == ["main"]
    from wps.pipeline import run_text_steps

    staged = run_text_steps(capture, segmentation, config)
    assert by_id["main"].stats["c4_lines_dropped"] == 1.0  # the heading has no final stop
    assert staged.kept_text == kept_main_text(capture, segmentation, staged.report)
    assert "no_main_text" in by_id["nav"].reasons and counts["kept"] == 1
    text = kept_main_text(capture, segmentation, report)
    assert text.splitlines()[-4:] == PARAGRAPHS

    # The seed's page-level filter on the same page: an article (≥ 200 tokens, long blocks).
    page_rules = rules_from_config(config["filters"]["page"])
    assert evaluate_rules(TextUnit(report.main_text.text, report.page_stats), page_rules) == []


def test_newsfeed_extractor_maps_the_same_article(rendered) -> None:
    segmentation = segments_by_element(rendered, ["nav", "main", "side", "foot"])
    report = annotate_segments(rendered, segmentation, ExtractOptions(extractor="newsfeed"))
    assert report.main_text.extractor == "newsfeed"
    assert [b.text for b in report.main_text.blocks] == PARAGRAPHS  # the <p>s, no heading
    by_id = {s.id: s for s in segmentation.segments}
    assert by_id["main"].main_text.splitlines() == PARAGRAPHS
    assert by_id["nav"].main_text == by_id["side"].main_text == by_id["foot"].main_text == ""


def test_link_list_page_is_not_an_article(page_server, text_browser) -> None:
    links = "".join(f"<li><a href='/p{i}'>Headline number {i} about the town</a></li>"
                    for i in range(60))
    url = page_server.add_html("/text/links.html",
                               f"<html><body><h1>Latest</h1><ul>{links}</ul></body></html>")
    capture = text_browser.capture(url)
    whole = Segmentation("links", "one", capture.width, capture.height,
                         [Segment.from_box("all", (0, 0, capture.width, capture.height),
                                           [n.id for n in capture.nodes])])
    report = annotate_segments(capture, whole, ExtractOptions(favor_recall=True))
    reasons = evaluate_rules(TextUnit(report.main_text.text, report.page_stats),
                             rules_from_config(load_config()["filters"]["page"]))
    assert "no_long_block" in reasons
    assert whole.segments[0].stats["list_table_share"] > 0.5 or not report.main_text.blocks


def test_page_link_share_is_judged_again_with_favor_precision(rendered) -> None:
    from wps.pipeline import run_text_steps

    # Any link text drops the page under max_share = 0; the article has one linked word.
    linked = {"filters": {"page": {"rules": ["link_code_share"],
                                   "link_code_share": {"max_share": 0.0}}}}
    html_link = rendered.html.replace("<b>budget</b>", "<a href='/b'>budget</a>", 1)
    assert html_link != rendered.html
    rendered_with_link = copy.deepcopy(rendered)
    rendered_with_link.html = html_link
    for node in rendered_with_link.nodes:
        if node.is_text and node.text == "budget":
            node.inside = node.inside | {"link"}
    config = merge_config(load_config(), {**linked, "extract": {"favor_recall": True}})
    result = run_text_steps(rendered_with_link,
                            segments_by_element(rendered_with_link, ["nav", "main"]), config)
    assert result.page_retry == "favor_precision"  # judged again before discarding
    assert result.page_reasons == ["link_share"]  # still links: the retry's own verdict
    assert result.to_json()["page_retry"] == "favor_precision"

    precise = merge_config(load_config(), {**linked, "extract": {"favor_precision": True}})
    again = run_text_steps(rendered_with_link,
                           segments_by_element(rendered_with_link, ["nav", "main"]), precise)
    assert again.page_retry is None and again.page_reasons == ["link_share"]
