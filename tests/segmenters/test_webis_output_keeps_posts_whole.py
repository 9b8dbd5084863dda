"""``segmentation.json`` holds the segmenter's own segmentation, as annotators draw a page: each
top-level comment with its replies one segment, though the posts step cuts it into pieces (body,
author box, reply link) for the detector in ``segments.jsonl`` (issue 23, item 4)."""

from __future__ import annotations

import json

import pytest
from shapely.geometry import box, shape

from layout_pages import COMMENT_COUNTS, COMMENTS
import wps
from wps.model import PageCapture

pytestmark = pytest.mark.browser


def test_each_comment_with_its_replies_is_one_webis_segment(tmp_path):
    page = tmp_path / "comments.html"
    page.write_text(COMMENTS, encoding="utf-8")
    out = tmp_path / "out"
    wps.segment_to_directory(page, out, segmenter="dom-cohesion")
    capture = PageCapture.load(out / "capture")
    webis = json.loads((out / "segmentation.json").read_text())
    polygons = [shape({"type": "MultiPolygon", "coordinates": segment})
                for segment in webis["segmentations"]["dom-cohesion"]]
    lines = (out / "segments.jsonl").read_text().splitlines()
    assert len(lines) > len(polygons), "the posts step cut the comments into pieces"
    comments = [n for n in capture.nodes if n.tag == "LI" and n.attrs.get("id", "")[:1] == "c"]
    assert len(comments) == len(COMMENT_COUNTS)
    for comment in comments:
        area = box(*comment.bbox)
        holding = [p for p in polygons if p.intersection(area).area > 0.05 * area.area]
        assert len(holding) == 1, f"{comment.xpath}: in {len(holding)} Webis segments"
        assert holding[0].buffer(1).contains(area), f"{comment.xpath} is not whole"
