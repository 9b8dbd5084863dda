"""DOM-cohesion segmenter on pages rendered in Chromium, on Webis page 000000 and on bad input."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from wps.errors import SegmentationError, UsageError
from wps.model import Node, PageCapture
from wps.records import top_xpaths
from wps.segmenters import build_segmenter
from wps.segmenters.dom_cohesion import DomCohesionSegmenter
from wps.webis import capture_from_webis, to_webis

REPO = Path(__file__).resolve().parents[2]

CARDS = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font-family:sans-serif;margin:20px}
.grid{display:grid;grid-template-columns:repeat(5,220px);gap:16px}
.card{border:1px solid #aaa;padding:10px} .pic{width:200px;height:90px;background:#ccd}
</style></head><body><h1>Our products</h1><div class="grid">
""" + "".join(
    f'<div class="card"><div class="pic"></div><h3>Product {i}</h3>'
    f'<p>Only <b>{10 + i}</b> euros</p><a href="/p/{i}">Details</a></div>' for i in range(10)) + "</div></body></html>"

LAYOUT = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font-family:sans-serif;margin:0} header{background:#036;color:#fff;padding:10px 30px}
header a{color:#fff;margin-right:12px} .links{margin:20px 30px}
article{margin:20px 30px;max-width:800px}
footer{background:#333;color:#eee;padding:10px 30px;margin-top:30px}
</style></head><body>
<header><h1>City Gazette</h1><nav><a href="/">Home</a><a href="/local">Local</a>
<a href="/sport">Sport</a><a href="/weather">Weather</a></nav></header>
<ul class="links"><li><a href="/a">Council approves new bridge</a></li>
<li><a href="/b">Library extends opening hours</a></li>
<li><a href="/c">Marathon route announced</a></li>
<li><a href="/d">Farmers market returns</a></li></ul>
<article><h2>Council approves new bridge over the river</h2>
<p>The city council voted on Tuesday to build a new pedestrian bridge across the river, connecting
the old town with the new residential district on the eastern bank.</p>
<p>Construction is planned to start next spring and should take about eighteen months. The project
is financed by the city and a regional infrastructure fund.</p>
<p>Residents welcomed the decision, although some shop owners worry about the noise.</p>
</article>
<footer><p>© 2026 City Gazette. Contact: newsroom@example.org</p></footer>
</body></html>"""


def _tops(capture: PageCapture, segmentation) -> list[list[str]]:
    return [top_xpaths(capture, segment.node_ids) for segment in segmentation.segments]


@pytest.mark.browser
def test_ten_identical_cards_are_one_block_of_ten_records(render):
    capture = render(CARDS)
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    grid = [s for s in segmentation.segments if s.extra["block_type"] == "block"]
    assert len(grid) == 1
    records = grid[0].extra["records"]
    assert len(records) == 10
    assert [capture.nodes[r[0]].xpath for r in records] == [
        f"/HTML[1]/BODY[1]/DIV[1]/DIV[{i}]" for i in range(1, 11)
    ]
    assert all(f"Product {i}" in grid[0].text for i in range(10))
    assert _tops(capture, segmentation) == [["/HTML[1]/BODY[1]/H1[1]"], ["/HTML[1]/BODY[1]/DIV[1]"]]


@pytest.mark.browser
def test_header_list_article_footer_give_one_segment_each(render):
    capture = render(LAYOUT)
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert _tops(capture, segmentation) == [
        ["/HTML[1]/BODY[1]/HEADER[1]"], ["/HTML[1]/BODY[1]/UL[1]"],
        ["/HTML[1]/BODY[1]/ARTICLE[1]"], ["/HTML[1]/BODY[1]/FOOTER[1]"],
    ]
    article = segmentation.segments[2]
    assert article.text.startswith("Council approves new bridge over the river\nThe city council")
    assert article.text.count("\n") == 3  # heading + three paragraphs, one line each
    for segment in segmentation.segments:  # the Canny box stays inside the DOM box
        left, top, right, bottom = segment.bbox
        dom = segment.extra["dom_bbox"]
        assert dom[0] <= left < right <= dom[2] and dom[1] <= top < bottom <= dom[3]
    boxes = [s.bbox for s in segmentation.segments]  # no overlap at the top level
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])


@pytest.mark.browser
def test_forum_thread_gives_one_segment_per_post(render):
    capture = render((REPO / "datasets/examples/forum.html").read_text(encoding="utf-8"))
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    posts = [n.xpath for n in capture.nodes if n.tag == "ARTICLE"]
    assert len(posts) == 5
    tops = _tops(capture, segmentation)
    for post in posts:
        assert [post] in tops, f"{post} is not a segment of its own"
    authors = ["crumbshot", "levain_lucy", "crumbshot", "hydration_hank", "crumbshot"]
    post_segments = [
        s for s in segmentation.segments if top_xpaths(capture, s.node_ids)[0] in posts]
    assert [s.text.split("\n")[0] for s in post_segments] == authors
    footer = [t for t in tops if t == ["/HTML[1]/BODY[1]/FOOTER[1]"]]
    assert footer, "the footer's links and copyright line stay one segment"


@pytest.mark.browser
def test_uniform_page_is_one_segment(render):
    items = "".join(f"<li>Item {i}</li>" for i in range(30))
    html = f"<html><body><ul>{items}</ul></body></html>"
    capture = render(html)
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert _tops(capture, segmentation) == [["/HTML[1]/BODY[1]/UL[1]"]]


def test_beats_the_baseline_on_webis_page_000000(webis_page):
    from wps.evaluation import evaluate

    capture = capture_from_webis(webis_page)
    truth = webis_page / "ground-truth.json"
    ours = evaluate(to_webis(build_segmenter("dom-cohesion").segment(capture)), truth)
    baseline = evaluate(to_webis(build_segmenter("baseline").segment(capture)), truth)
    assert baseline.results["pixels"].f1 == pytest.approx(0.3696, abs=5e-5)
    for size in ("pixels", "edges-fine", "edges-coarse"):
        assert ours.results[size].f1 > baseline.results[size].f1, size


# ------------------------------------------------------------------------------ hand-made captures
def _chain_capture(depth: int) -> PageCapture:
    """BODY > DIV > DIV > ... ``depth`` deep, a text leaf at the bottom."""
    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 800, 600), depth=1)]
    xpath = "/HTML[1]/BODY[1]"
    for level in range(1, depth + 1):
        xpath += "/DIV[1]"
        nodes.append(Node(level, level - 1, "DIV", xpath, (10, 10, 790, 590 - level * 0.1),
                          depth=level + 1))
    nodes.append(Node(depth + 1, depth, "#text", xpath + "/text()[1]", (20, 20, 300, 40),
                      text="deep down"))
    return PageCapture(url="test:chain", width=800, height=600, nodes=nodes, page_id="chain")


def test_depth_1000_markup_gives_a_sensible_segment_quickly():
    started = time.perf_counter()
    segmentation = build_segmenter("dom-cohesion").segment(_chain_capture(1000))
    assert time.perf_counter() - started < 5
    assert len(segmentation.segments) == 1
    assert segmentation.segments[0].text == "deep down"


def test_no_visible_nodes_is_a_clear_error():
    hidden = Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 10, 10), style={"display": "none"})
    with pytest.raises(SegmentationError, match="test:empty: the capture has no visible nodes"):
        build_segmenter("dom-cohesion").segment(
            PageCapture(url="test:empty", width=100, height=100, nodes=[hidden]))
    with pytest.raises(SegmentationError, match="no visible nodes"):
        build_segmenter("dom-cohesion").segment(
            PageCapture(url="test:none", width=100, height=100, nodes=[]))


def test_single_huge_text_node_is_one_segment():
    text = "word " * 200_000
    nodes = [
        Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 1366, 90000)),
        Node(1, 0, "#text", "/HTML[1]/BODY[1]/text()[1]", (8, 8, 1358, 89990), text=text),
    ]
    capture = PageCapture(url="test:huge", width=1366, height=90000, nodes=nodes)
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert len(segmentation.segments) == 1
    assert segmentation.segments[0].text == text.strip()


def test_canny_tightens_to_the_drawn_content(tmp_path):
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(image).rectangle((120, 80, 220, 150), fill="black")
    image.save(tmp_path / "shot.png")
    nodes = [
        Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 400, 300)),
        Node(1, 0, "DIV", "/HTML[1]/BODY[1]/DIV[1]", (50, 40, 350, 200)),
        Node(2, 0, "DIV", "/HTML[1]/BODY[1]/DIV[2]", (0, 220, 400, 300)),
    ]
    capture = PageCapture(url="test:canny", width=400, height=300, nodes=nodes,
                          screenshot=tmp_path / "shot.png")
    segments = build_segmenter("dom-cohesion", use_screenshot=True).segment(capture).segments
    assert segments[0].extra["dom_bbox"] == [50, 40, 350, 200]
    left, top, right, bottom = segments[0].bbox
    assert abs(left - 120) <= 2 and abs(top - 80) <= 2 and abs(right - 221) <= 2
    assert abs(bottom - 151) <= 2
    assert segments[1].bbox == (0, 220, 400, 300)  # blank: no edges, the DOM box stays
    plain = build_segmenter("dom-cohesion").segment(capture).segments  # the default: DOM boxes
    assert plain[0].bbox == (50, 40, 350, 200)


def test_invalid_options_are_usage_errors():
    with pytest.raises(UsageError, match="max_page_fraction"):
        DomCohesionSegmenter(max_page_fraction=0)
    with pytest.raises(UsageError, match="iqr_k"):
        DomCohesionSegmenter(iqr_k=-1)


def test_large_generated_page_is_fast():
    from wps.benchmark.synthetic import generated_capture

    capture = generated_capture(5000, seed=3)
    assert 4900 <= sum(not n.is_text for n in capture.nodes) <= 5100
    segmentation = build_segmenter("dom-cohesion").segment(capture)
    assert 1 < len(segmentation.segments) < 500
    covered = np.zeros(len(capture.nodes), dtype=int)
    for segment in segmentation.segments:
        covered[segment.node_ids] += 1
    assert covered.max() == 1  # segments never share nodes


@pytest.mark.browser
def test_rendered_bad_pages_give_one_sensible_segment(render):
    nested = "<div>" * 1000 + "deep text" + "</div>" * 1000
    deep = render(f"<html><body>{nested}</body></html>")
    segments = build_segmenter("dom-cohesion").segment(deep).segments
    assert [s.text for s in segments] == ["deep text"]
    hidden = render('<html><body><div style="display:none">nothing to see</div></body></html>')
    segments = build_segmenter("dom-cohesion").segment(hidden).segments
    assert len(segments) == 1 and segments[0].text == ""
