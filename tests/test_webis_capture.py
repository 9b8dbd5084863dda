"""Webis-WebSeg-20 page folders as captures (no browser)."""

from __future__ import annotations

import csv
import shutil

import pytest

from wps.errors import DatasetError
from wps.webis import capture_from_webis


def test_page_000000_as_capture(webis_page):
    capture = capture_from_webis(webis_page)
    with open(webis_page / "nodes.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(capture.nodes) == len(rows) == 442
    assert (capture.width, capture.height, capture.page_id) == (1366, 5590, "000000")
    body = capture.nodes[0]
    assert body.tag == "BODY" and body.parent is None and body.bbox == (0, 27, 1351, 5590)
    texts = [node for node in capture.nodes if node.is_text]
    assert len(texts) == 159
    title = next(n for n in texts if n.xpath == "/HTML[1]/BODY[1]/DIV[2]/H1[1]/A[1]/text()[1]")
    assert title.text == "大航海時代-娜斯水狐"
    assert "link" in title.inside
    assert capture.nodes[title.parent].tag == "A"
    # every node except the root hangs below an ancestor that is on its own XPath
    for node in capture.nodes[1:]:
        assert node.xpath.startswith(capture.nodes[node.parent].xpath + "/")
    assert capture.html.lstrip().lower().startswith("<")


def test_missing_folder_and_missing_nodes(tmp_path):
    with pytest.raises(DatasetError, match="no such directory"):
        capture_from_webis(tmp_path / "nope")
    with pytest.raises(DatasetError, match="no nodes.csv"):
        capture_from_webis(tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        ("a,b,c\n1,2,3\n", "header must be"),
        ("left,bottom,right,top,xpath\nx,1,2,3,/HTML[1]/BODY[1]\n", "non-numeric box"),
        ("left,bottom,right,top,xpath\n0,1,2,0,HTML[1]\n", "malformed XPath"),
        ("left,bottom,right,top,xpath\n", "no nodes"),
    ],
)
def test_malformed_nodes_csv(tmp_path, webis_page, content, message):
    page = tmp_path / "000000"
    page.mkdir()
    shutil.copy(webis_page / "ground-truth.json", page)
    (page / "nodes.csv").write_text(content)
    with pytest.raises(DatasetError, match=message):
        capture_from_webis(page)
