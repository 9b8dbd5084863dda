"""The xycut segmenter on synthetic screenshots (algorithms.md §5.10) and on a real render."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

import wps
from wps.capture import discard_screenshot
from wps.errors import SegmentationError, UsageError
from wps.model import Node, PageCapture, Segmentation
from wps.segmenters import build_segmenter
from wps.segmenters.xycut import XYCutSegmenter

WIDTH, HEIGHT = 1366, 700  # at 1366 px the pixel thresholds apply unscaled
FORUM = Path(__file__).resolve().parents[2] / "datasets" / "examples" / "forum.html"


def capture(tmp_path: Path, image: Image.Image, nodes: list[Node] | None = None) -> PageCapture:
    path = tmp_path / "screenshot.png"
    image.save(path)
    return PageCapture(url="test://synthetic", width=image.width, height=image.height,
                       nodes=nodes or [], page_id="synthetic", screenshot=path)


def blank(width: int = WIDTH, height: int = HEIGHT) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), "white")
    return image, ImageDraw.Draw(image)


WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim", "minim", "veniam", "quis", "nostrud"]


def text_line(draw: ImageDraw.ImageDraw, left: int, top: int, right: int, seed: int = 0,
              fill: str | tuple[int, int, int] = "black") -> None:
    """A line of real glyphs (random words, 13 px font, about 12 px from ascender to descender)
    whose ink starts at row ``top`` and ends before column ``right``."""
    rng = random.Random(seed)
    font = ImageFont.load_default(size=13)
    words: list[str] = []
    while True:
        candidate = " ".join([*words, rng.choice(WORDS)])
        if left + draw.textlength(candidate, font=font) > right:
            break
        words.append(candidate.rsplit(" ", 1)[-1])
    text = " ".join(words)
    offset = draw.textbbox((0, 0), "Hg", font=font)[1]
    draw.text((left, top - offset), text, font=font, fill=fill)


def text_block(draw: ImageDraw.ImageDraw, left: int, top: int, right: int, lines: int,
               seed: int = 0, fill: str | tuple[int, int, int] = "black") -> int:
    """Lines 18 px apart (about 6 px of white between them); returns the block's bottom row."""
    for line in range(lines):
        text_line(draw, left, top + 18 * line, right, seed=seed * 100 + line, fill=fill)
    return top + 18 * lines - 6


def boxes(segmentation: Segmentation) -> list[tuple[float, float, float, float]]:
    return [segment.bbox for segment in segmentation.segments]


def assert_disjoint_in_page(segmentation: Segmentation) -> None:
    found = boxes(segmentation)
    for index, (left, top, right, bottom) in enumerate(found):
        assert 0 <= left < right <= segmentation.width
        assert 0 <= top < bottom <= segmentation.height
        for other in found[index + 1:]:
            overlap_x = min(right, other[2]) - max(left, other[0])
            overlap_y = min(bottom, other[3]) - max(top, other[1])
            assert overlap_x <= 0 or overlap_y <= 0, (found[index], other)


def test_two_boxes_with_a_40px_gap_are_two_rows(tmp_path: Path) -> None:
    image, draw = blank()
    draw.rectangle([100, 100, 700, 200], fill="black")
    draw.rectangle([100, 241, 700, 340], fill="black")
    result = XYCutSegmenter().segment(capture(tmp_path, image))
    found = boxes(result)
    assert len(found) == 2
    assert found[0][3] <= 221 <= found[1][1]  # one above the other, cut inside the gap
    assert_disjoint_in_page(result)


def test_two_columns_with_a_40px_gutter_are_two(tmp_path: Path) -> None:
    image, draw = blank()
    text_block(draw, 60, 80, 380, lines=20, seed=1)
    text_block(draw, 420, 80, 740, lines=20, seed=2)
    found = boxes(XYCutSegmenter().segment(capture(tmp_path, image)))
    assert len(found) == 2
    assert found[0][2] <= 400 <= found[1][0]  # side by side, in reading order


def test_ten_text_like_stripes_6px_apart_are_one(tmp_path: Path) -> None:
    image, draw = blank()
    text_block(draw, 100, 100, 700, lines=10, seed=3)
    found = boxes(XYCutSegmenter().segment(capture(tmp_path, image)))
    assert len(found) == 1
    left, top, right, bottom = found[0]
    assert top <= 100 and bottom >= 250 and left <= 100 and right >= 690


def _header_page() -> Image.Image:
    """A blue band (rows 0–79) whose last text line ends 3 px above its edge; body text starts
    10 px below it. The white on either side of the edge is too thin for a whitespace cut."""
    image, draw = blank()
    draw.rectangle([0, 0, WIDTH - 1, 79], fill=(30, 60, 160))
    text_block(draw, 20, 49, 500, lines=2, seed=4, fill="white")  # ink rows 49..79
    text_block(draw, 20, 90, 760, lines=12, seed=6)
    return image


def test_a_coloured_header_band_is_cut_at_its_edge(tmp_path: Path) -> None:
    result = XYCutSegmenter().segment(capture(tmp_path, _header_page()))
    found = boxes(result)
    assert len(found) >= 2
    above = [box for box in found if box[3] <= 80]
    below = [box for box in found if box[1] >= 80]
    assert above and below and len(above) + len(below) == len(found)
    # the whitespace around the edge alone is too thin: without the band rule there is no cut
    no_bands = XYCutSegmenter(band_colour_delta=10_000.0).segment(capture(tmp_path, _header_page()))
    assert not any(box[3] <= 80 for box in boxes(no_bands))


def test_an_all_white_page_gives_an_empty_segmentation(tmp_path: Path) -> None:
    image, _ = blank()
    result = XYCutSegmenter().segment(capture(tmp_path, image))
    assert result.segments == []
    assert (result.width, result.height, result.segmenter) == (WIDTH, HEIGHT, "xycut")


def last_ink_row(image: Image.Image) -> int:
    return int(np.flatnonzero((np.asarray(image.convert("L")) < 250).any(axis=1))[-1])


def _two_blocks(rule: bool) -> tuple[Image.Image, int]:
    """Two text blocks 15 px apart (too little for a whitespace cut), a grey 1-px rule between."""
    image, draw = blank()
    text_block(draw, 40, 60, 760, lines=6, seed=7)
    middle = last_ink_row(image) + 8
    if rule:
        draw.line([0, middle, WIDTH - 1, middle], fill=(120, 120, 120))
    text_block(draw, 40, middle + 8, 760, lines=6, seed=8)
    return image, middle


def test_a_1px_full_width_rule_between_blocks_cuts(tmp_path: Path) -> None:
    image, middle = _two_blocks(rule=True)
    found = boxes(XYCutSegmenter().segment(capture(tmp_path, image)))
    assert len(found) == 2
    assert found[0][3] <= middle <= found[1][1]


def test_without_the_rule_the_same_blocks_stay_one(tmp_path: Path) -> None:
    image, _ = _two_blocks(rule=False)
    assert len(XYCutSegmenter().segment(capture(tmp_path, image)).segments) == 1


def test_a_capture_without_a_screenshot_is_a_segmentation_error() -> None:
    page = PageCapture(url="https://example.org/a", width=1366, height=700, nodes=[],
                       page_id="page-7")
    with pytest.raises(SegmentationError, match="page-7: xycut needs a screenshot"):
        XYCutSegmenter().segment(page)


def test_an_unreadable_screenshot_is_a_segmentation_error(tmp_path: Path) -> None:
    bad = tmp_path / "screenshot.png"
    bad.write_bytes(b"not a png")
    page = PageCapture(url="x", width=1366, height=700, nodes=[], page_id="p", screenshot=bad)
    with pytest.raises(SegmentationError, match="screenshot.png is missing or not a readable"):
        XYCutSegmenter().segment(page)


def test_bad_options_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="granularity"):
        build_segmenter("xycut", granularity="words")
    with pytest.raises(UsageError, match="min_segments"):
        build_segmenter("xycut", min_segments=9, max_segments=3)


def test_nodes_are_fitted_to_the_regions_holding_them(tmp_path: Path) -> None:
    image, draw = blank()
    text_block(draw, 100, 100, 700, lines=6, seed=9)  # ink rows 100..~200
    text_block(draw, 100, 241, 700, lines=6, seed=10)
    nodes = [
        Node(id=0, parent=None, tag="BODY", xpath="/BODY", bbox=(0, 0, 1366, 700)),
        Node(id=1, parent=0, tag="DIV", xpath="/BODY/DIV[1]", bbox=(90, 95, 710, 212)),
        Node(id=2, parent=1, tag="#text", xpath="", bbox=(100, 100, 300, 116), text="first"),
        Node(id=3, parent=0, tag="DIV", xpath="/BODY/DIV[2]", bbox=(95, 232, 705, 345)),
        Node(id=4, parent=3, tag="#text", xpath="", bbox=(100, 241, 300, 257), text="second"),
        Node(id=5, parent=3, tag="#text", xpath="", bbox=(100, 259, 300, 275), text="third"),
    ]
    result = XYCutSegmenter().segment(capture(tmp_path, image, nodes))
    assert [segment.node_ids for segment in result.segments] == [[1, 2], [3, 4, 5]]
    assert [segment.text for segment in result.segments] == ["first", "second third"]
    assert boxes(result) == [(90, 95, 710, 212), (95, 232, 705, 345)]  # unions of the nodes
    unfitted = XYCutSegmenter(fit_to_dom=False).segment(capture(tmp_path, image, nodes))
    assert all(segment.node_ids == [] and segment.text == "" for segment in unfitted.segments)
    assert boxes(unfitted)[0] != (90, 95, 710, 212)


def test_granularity_options_change_the_count(tmp_path: Path) -> None:
    image, draw = blank(WIDTH, 1400)
    for block in range(30):  # 30 one-line blocks, 40 px apart
        text_line(draw, 40, 20 + 45 * block, 500 + 7 * block, seed=block)
    page = capture(tmp_path, image)
    assert len(XYCutSegmenter(granularity="leaves").segment(page).segments) == 30
    # option A: the root opens into 30 regions, nearer 5–20 than 1 is
    assert len(XYCutSegmenter().segment(page).segments) == 30
    merged = XYCutSegmenter(granularity="merge", merge_gap_factor=5.0).segment(page)
    assert len(merged.segments) == 1


def test_forum_page_rendered_in_chromium(segment_browser) -> None:
    result = wps.segment(FORUM, segmenter="xycut", text=False, browser=segment_browser)
    try:
        check_forum(result.capture, result.segmentation)
    finally:
        discard_screenshot(result.capture.screenshot)


def check_forum(capture: PageCapture, segmentation: Segmentation) -> None:
    assert 4 <= len(segmentation.segments) <= 20
    assert_disjoint_in_page(segmentation)
    tops = [segment.bbox[1] for segment in segmentation.segments]
    assert tops[0] == min(tops) and tops[-1] == max(tops)  # header first, footer last
    assert all(segment.node_ids for segment in segmentation.segments)
    texts = [segment.text for segment in segmentation.segments]
    assert "Bread Bakers" in texts[0] and "rights reserved" in texts[-1]
    assert any("Sourdough starter keeps collapsing" in text for text in texts)
    everything = " ".join(texts)
    assert "hydration_hank" in everything
    # a finer cut of the same capture separates the posts, each with its text
    finer = XYCutSegmenter(min_segments=9).segment(capture)
    assert 9 <= len(finer.segments) <= 20
    assert_disjoint_in_page(finer)
    assert all(segment.text for segment in finer.segments)
    holding = {name: [i for i, s in enumerate(finer.segments) if name in s.text]
               for name in ("levain_lucy", "hydration_hank")}
    assert len(holding["levain_lucy"]) == 1 and len(holding["hydration_hank"]) == 1
    assert holding["levain_lucy"] != holding["hydration_hank"]


def test_a_framed_tall_thread_is_not_one_segment(tmp_path: Path) -> None:
    """A frame and a full-height sidebar band run through every row of an 8,000 px thread; their
    ink must not hide the gaps between the posts (the XenForo case of issue 10)."""
    image, draw = blank(WIDTH, 8000)
    draw.rectangle([20, 10, 1346, 7990], outline="black", width=1)
    draw.rectangle([21, 11, 260, 7989], fill=(235, 235, 240))
    top, bottoms = 40, []
    for post in range(30):
        bottoms.append(text_block(draw, 300, top, 1300, lines=8, seed=post))
        top = bottoms[-1] + 40
    result = XYCutSegmenter().segment(capture(tmp_path, image))
    assert len(result.segments) > 1
    assert_disjoint_in_page(result)
    posts = [s for s in result.segments if s.bbox[0] >= 280]
    assert len(posts) >= 5  # the posts come apart, within the segment count option A aims at


def test_a_white_column_on_a_coloured_page_is_opened(tmp_path: Path) -> None:
    """The column's edges run from top to bottom, so no row of it is blank: the frame is peeled
    and the blocks inside it come apart (a Blogger layout: webseg-dev wd00008)."""
    image, draw = blank(WIDTH, 2400)
    draw.rectangle([0, 0, WIDTH, 2400], fill=(60, 110, 170))
    draw.rectangle([80, 10, 1290, 2380], fill="white")
    bottom = text_block(draw, 120, 60, 900, lines=20, seed=7)
    text_block(draw, 120, bottom + 80, 900, lines=20, seed=8)
    text_block(draw, 980, 60, 1250, lines=60, seed=9)
    result = XYCutSegmenter().segment(capture(tmp_path, image))
    assert len(result.segments) >= 3
    assert_disjoint_in_page(result)
    assert all(80 <= box[0] and box[2] <= 1290 for box in boxes(result))
