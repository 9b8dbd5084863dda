"""Coverage pass of dom-cohesion: every visible text node lies in exactly one segment."""

from __future__ import annotations

import numpy as np
import pytest

from wps.model import Node, PageCapture, Segmentation
from wps.records import top_xpaths
from wps.segmenters import build_segmenter

LOREM = ("The committee met again on Thursday to discuss the proposal in detail, and members "
         "raised questions about the cost, the schedule and the effect on local residents. ")


def _article_beside_cards(hero_height: int, article_style: str, body: str) -> str:
    cards = "".join(
        f'<div class="card"><h4>Related story {i}</h4><p>Short teaser number {i}.</p>'
        f'<a href="/s/{i}">Read more</a></div>' for i in range(8))
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{{margin:0;font-family:sans-serif}} .hero{{height:{hero_height}px;background:#468}}
nav a{{margin-right:10px}} .columns{{display:flex;gap:20px}}
aside{{width:240px;flex:none}} .card{{border:1px solid #999;margin:6px;padding:4px}}
#story{{{article_style}}}
</style></head><body>
<nav><a href="/">Home</a><a href="/news">News</a><a href="/sport">Sport</a><a href="/arts">Arts</a></nav>
<div class="hero"></div>
<div class="columns"><div id="story">{body}</div><aside>{cards}</aside></div>
</body></html>"""


def _text_owners(capture: PageCapture, segmentation: Segmentation) -> np.ndarray:
    """Per visible non-blank text node, how many segments hold it."""
    counts = np.zeros(len(capture.nodes), dtype=int)
    for segment in segmentation.segments:
        counts[segment.node_ids] += 1
    text_nodes = [n.id for n in capture.nodes if n.is_text and n.text.strip()
                  and capture.nodes[n.parent].style.get("visibility") == "visible"]
    assert text_nodes
    return counts[text_nodes]


def _segment_holding(capture: PageCapture, segmentation: Segmentation, text: str):
    node = next(n.id for n in capture.nodes if n.is_text and text in n.text)
    return [s for s in segmentation.segments if node in s.node_ids]


@pytest.mark.browser
def test_article_below_the_screenshot_cap_is_one_segment(render):
    """A long page captured with a short cap: the article lies wholly below it (the real cause
    on the article benchmark); the prototype's clipping drops it, wps keeps it whole."""
    paragraphs = "".join(f"<p>{LOREM * 3}Paragraph {i}.</p>" for i in range(20))
    html = _article_beside_cards(400, "flex:1", f"<h1>Bridge plan approved</h1>{paragraphs}")
    capture = render(html, max_height=300)
    assert capture.screenshot_truncated
    paper = build_segmenter("dom-cohesion", clip_to_screenshot=True,
                            cover_uncovered_content=False).segment(capture)
    assert (_text_owners(capture, paper) == 0).any(), "the paper's clipping loses the article"
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert (_text_owners(capture, segmentation) == 1).all()
    article = _segment_holding(capture, segmentation, "Paragraph 0.")
    assert len(article) == 1
    assert top_xpaths(capture, article[0].node_ids) == ["/HTML[1]/BODY[1]/DIV[2]/DIV[1]"]
    assert article[0].text.startswith("Bridge plan approved\nThe committee met")
    assert "Paragraph 19." in article[0].text and "Related story" not in article[0].text
    assert article[0].bbox[3] > capture.height  # its box goes on below the cap


@pytest.mark.browser
def test_oversized_unsplittable_article_is_covered_as_one_segment(render):
    """An article of one long text node covering most of the page cannot be split, so the
    prototype's oversize filter drops it; the coverage pass emits it as one segment."""
    html = _article_beside_cards(40, "flex:1;font-size:22px", LOREM * 60)
    capture = render(html)
    assert not capture.screenshot_truncated
    paper = build_segmenter("dom-cohesion", cover_uncovered_content=False).segment(capture)
    assert (_text_owners(capture, paper) == 0).any(), "the oversize filter drops the article"
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert (_text_owners(capture, segmentation) == 1).all()
    article = _segment_holding(capture, segmentation, "The committee met")
    assert len(article) == 1 and article[0].extra["block_type"] == "uncovered"
    assert article[0].text == " ".join((LOREM * 60).split())
    cards = _segment_holding(capture, segmentation, "Related story 3")
    assert len(cards) == 1 and "Related story 0" in cards[0].text  # the cards stay one block
    boxes = [s.extra["dom_bbox"] for s in segmentation.segments]  # no overlap at the top level
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) - max(a[0], b[0]) <= 1 or min(a[3], b[3]) - max(a[1], b[1]) <= 1
    ids = [s.id for s in segmentation.segments]
    assert ids == [str(i) for i in range(len(ids))]
    firsts = [min(s.node_ids) for s in segmentation.segments]
    assert firsts == sorted(firsts)  # document order


def _main_with_list_and_paragraphs() -> PageCapture:
    """BODY > DIV#main > [UL > LI×2, P×3 (one text each), SPAN (empty)], 1000×1000 page."""
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 1000, 1000)),
             Node(1, 0, "DIV", "/HTML[1]/BODY[1]/DIV[1]", (0, 0, 1000, 1000)),
             Node(2, 1, "UL", "/HTML[1]/BODY[1]/DIV[1]/UL[1]", (0, 0, 1000, 100))]
    for item in range(2):
        top = 50.0 * item
        nodes.append(Node(len(nodes), 2, "LI", f"{nodes[2].xpath}/LI[{item + 1}]",
                          (0, top, 1000, top + 50)))
        nodes.append(Node(len(nodes), len(nodes) - 1, "#text", "", (10, top, 200, top + 40),
                          text=f"Topic {item}"))
    for number in range(3):
        top = 100.0 + 300 * number
        paragraph = len(nodes)
        nodes.append(Node(paragraph, 1, "P", f"/HTML[1]/BODY[1]/DIV[1]/P[{number + 1}]",
                          (0, top, 1000, top + 300)))
        nodes.append(Node(paragraph + 1, paragraph, "#text", "", (0, top, 1000, top + 290),
                          text=f"Paragraph {number}."))
    nodes.append(Node(len(nodes), 1, "SPAN", "/HTML[1]/BODY[1]/DIV[1]/SPAN[1]", (0, 0, 0, 0)))
    return PageCapture(url="test:coverage", width=1000, height=1000, nodes=nodes)


def _free(capture: PageCapture, occupied: list, *, max_area: float = 9.5e5,
          group_siblings: bool = True) -> list[list[int]]:
    from wps.segmenters.dom_cohesion._blocks import _drawn_boxes
    from wps.segmenters.dom_cohesion._coverage import free_groups, visible_content

    covered = np.zeros(len(capture.nodes), dtype=bool)
    covered[2:7] = True  # the list is a segment
    content = visible_content(capture, float(capture.height))
    groups = free_groups(capture, covered, content, _drawn_boxes(capture), list(occupied),
                         max_area=max_area, bottom_limit=float(capture.height),
                         group_siblings=group_siblings)
    return [group.members for group in groups]


def test_free_siblings_form_one_run_split_only_where_needed():
    capture = _main_with_list_and_paragraphs()
    paragraphs = [7, 9, 11]
    listing = (0.0, 0.0, 1000.0, 100.0)
    assert _free(capture, [listing]) == [paragraphs]  # one run; the empty SPAN stays out
    assert _free(capture, [listing], group_siblings=False) == [[p] for p in paragraphs]
    # a run wider than the page-fraction rule is split into its paragraphs
    assert _free(capture, [listing], max_area=5e5) == [[p] for p in paragraphs]
    # a run whose box would overlap a segment is split; the overlapped paragraph goes down to
    # its text node, which is emitted anyway (text is never lost)
    floating = (400.0, 450.0, 600.0, 550.0)
    assert _free(capture, [listing, floating]) == [[7], [10], [11]]
    hidden = _main_with_list_and_paragraphs()
    hidden.nodes[9].style = {"display": "none"}
    hidden.nodes[11].bbox = (-9999.0, 700.0, -9000.0, 990.0)  # off-screen skip link
    hidden.nodes[12].bbox = (-9999.0, 700.0, -9000.0, 990.0)
    assert _free(hidden, [listing]) == [[7]]
