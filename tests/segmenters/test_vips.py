"""VIPS: separator detection, the visual block tree, pdoc granularity; on a synthetic page whose
segments are known and on one webseg-dev page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_data import SHARED, require_shared

from wps.errors import UsageError
from wps.segmenters import build_segmenter
from wps.segmenters.geometry import granularity_level
from wps.segmenters.vips._blocks import extract_blocks
from wps.segmenters.vips._separators import find_separators, weigh

DEV_PAGE = SHARED / "webseg-dev" / "pages" / "wd00003"

PARAGRAPH = "Plain words of one paragraph that run on for a while. " * 3
PAGE = f"""<!doctype html><html><body style="margin:0;font:16px sans-serif;width:1200px">
<div id="header" style="background:#223;color:#fff;padding:10px 20px">
  <h1 style="margin:0">Site title</h1><a href="#">Home</a> <a href="#">About</a></div>
<div style="height:40px;background:#fff"></div>
<div style="display:flex">
  <div id="side" style="width:250px;margin-right:60px">
    <ul><li>Sidebar link one</li><li>Sidebar link two</li><li>Sidebar link three</li></ul></div>
  <div id="main" style="width:800px">
    <h2>First section</h2><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p>
    <hr>
    <h2>Second section</h2><p>{PARAGRAPH}</p></div>
</div>
<div id="footer" style="background:#ddd;margin-top:40px;padding:10px 20px">Footer words</div>
</body></html>"""

REGIONS = {"header": "Site title", "side": "Sidebar link", "main": "First section",
           "footer": "Footer words"}


@pytest.fixture(scope="module")
def page(render):
    return render(PAGE)


def test_separators_are_the_bands_no_box_crosses():
    boxes = np.array([[0, 0, 100, 20], [0, 30, 40, 50], [60, 30, 100, 50], [0, 48, 40, 70]],
                     dtype=float)
    horizontal = find_separators(boxes, 1, tolerance=0)
    assert [(s.start, s.end) for s in horizontal] == [(20, 30)]
    assert sorted(horizontal[0].before) == [0] and sorted(horizontal[0].after) == [1, 2, 3]
    vertical = find_separators(boxes[1:], 0, tolerance=0)  # the two columns below the top bar
    assert [(s.start, s.end) for s in vertical] == [(40, 60)]
    assert find_separators(boxes, 0, tolerance=0) == []  # the top bar crosses every column gap
    # a 2 px overlap of adjacent lines is still a separator within the tolerance
    lines = np.array([[0, 0, 10, 12], [0, 10, 10, 22]], dtype=float)
    assert find_separators(lines, 1, tolerance=0) == []
    assert len(find_separators(lines, 1, tolerance=2)) == 1


def test_block_tree_has_text_blocks_and_rules_not_decoration(page):
    blocks = extract_blocks(page)
    tags = [page.nodes[i].tag for i in blocks.node_ids]
    assert tags.count("LI") == 3 and tags.count("P") == 3 and tags.count("H2") == 2
    assert len(blocks.rules) == 1  # the <hr> is a separator, not a block
    for node_id in blocks.node_ids:  # the empty 40 px spacer holds no content: no block
        assert page.text_of(node_id).strip() or page.nodes[node_id].tag in ("IMG", "SVG")
    assert blocks.heading[tags.index("H1")] and not blocks.heading[tags.index("P")]
    # blocks are leaves: none is an ancestor of another
    ids = set(blocks.node_ids)
    for path in blocks.paths:
        assert not ids & set(path[:-1])


def test_separator_weights_follow_the_rules(page):
    blocks = extract_blocks(page)
    region = np.arange(len(blocks.node_ids))
    separators = find_separators(blocks.boxes, 1, 2.0)
    from wps.segmenters.vips.segmenter import VipsSegmenter

    vips = VipsSegmenter()
    weigh(separators, region, blocks, vips._image(page), vips.weights)
    by_start = {round(s.start): s for s in separators}
    header_bottom = max(box[3] for box, i in zip(blocks.boxes, blocks.node_ids)
                        if "Home" in page.text_of(i) or "Site title" in page.text_of(i))
    footer_top = min(box[1] for box, i in zip(blocks.boxes, blocks.node_ids)
                     if "Footer" in page.text_of(i))
    header = next(s for s in separators if s.start >= header_bottom - 1 and s.end < 200)
    footer = next(s for s in separators if abs(s.end - footer_top) <= 2)
    inner = [s for s in by_start.values() if s is not header and s is not footer]
    assert inner, "the paragraphs of the main column are separated too"
    assert header.weight > max(s.weight for s in inner if s.end < footer_top - 30)
    assert footer.weight > min(s.weight for s in inner)


def test_default_segments_are_the_page_regions(page):
    segmentation = build_segmenter("vips").segment(page)
    texts = [segment.text for segment in segmentation.segments]
    for region, marker in REGIONS.items():
        holders = [text for text in texts if marker in text]
        assert len(holders) == 1, region
        others = [m for r, m in REGIONS.items() if r != region]
        assert not any(m in holders[0] for m in others), f"{region} shares a segment"
    boxes = [segment.bbox for segment in segmentation.segments]
    for i, a in enumerate(boxes):  # disjoint by construction
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])


def test_pdoc_is_the_granularity(page):
    counts = [len(build_segmenter("vips", pdoc=p).segment(page).segments)
              for p in (1.0, 4.0, 6.0, 8.0, 11.0)]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    assert counts[0] == 1  # nothing separates strongly enough to break coherence 1
    assert counts[-1] == len(extract_blocks(page).node_ids)  # 11: every block on its own
    coarse = len(build_segmenter("vips", granularity="coarse").segment(page).segments)
    fine = len(build_segmenter("vips", granularity="fine").segment(page).segments)
    assert coarse <= fine
    with pytest.raises(UsageError):
        build_segmenter("vips", pdoc=0.5)
    with pytest.raises(UsageError):
        build_segmenter("vips", granularity="huge")


def test_granularity_level_names_and_numbers():
    assert granularity_level("coarse", "x") < granularity_level("medium", "x") < \
        granularity_level("fine", "x")
    assert granularity_level(0.3, "x") == 0.3 and granularity_level("0.3", "x") == 0.3
    for bad in (1.5, -0.1, "finest", True):
        with pytest.raises(UsageError):
            granularity_level(bad, "x")


def test_dev_page_beats_the_one_segment_baseline():
    from wps.evaluation import evaluate
    from wps.webis import capture_from_webis, to_webis

    capture = capture_from_webis(require_shared(DEV_PAGE))
    ours = build_segmenter("vips").segment(capture)
    whole = build_segmenter("baseline").segment(capture)
    truth = DEV_PAGE / "ground-truth.json"
    scores = evaluate(to_webis(ours, "vips"), truth).results
    baseline = evaluate(to_webis(whole, "baseline"), truth).results
    for function, score in scores.items():
        assert score.f1 > baseline[function].f1, function
    seen: set[int] = set()
    for segment in ours.segments:  # no node in two segments
        assert not seen & set(segment.node_ids)
        seen |= set(segment.node_ids)


def test_forum_posts_are_whole_and_apart(segment_browser):
    """Each post of a thread (author column and body) is one segment, and posts are apart."""
    import wps
    from wps.capture import discard_screenshot

    forum = Path(__file__).resolve().parents[2] / "datasets" / "examples" / "forum.html"
    result = wps.segment(forum, segmenter="vips", text=False, browser=segment_browser)
    try:
        texts = [segment.text for segment in result.segmentation.segments]
        posts = [t for t in texts if "Joined:" in t]
        assert len(posts) == 5
        assert all("Posted" in t and t.count("Joined:") == 1 for t in posts)
        apart = build_segmenter("vips", keep_records=False).segment(result.capture)
        assert not any("Joined:" in s.text and "Posted" in s.text for s in apart.segments)
    finally:
        discard_screenshot(result.capture.screenshot)
