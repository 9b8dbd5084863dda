"""The page model: save/load round trip, atomic replacement, tree helpers, Webis JSON form."""

from __future__ import annotations

import json

import pytest

from wps.errors import InputFileError
from wps.model import Node, PageCapture, Segment, Segmentation
from wps.webis import to_webis


def _tiny_capture() -> PageCapture:
    nodes = [
        Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 100, 50)),
        Node(1, 0, "A", "/HTML[1]/BODY[1]/A[1]", (0, 0, 40, 10), inside=frozenset({"link"}),
             depth=1, style={"display": "inline"}),
        Node(2, 1, "#text", "/HTML[1]/BODY[1]/A[1]/text()[1]", (0, 0, 38, 10), text="home",
             inside=frozenset({"link"}), depth=2),
        Node(3, 0, "#text", "/HTML[1]/BODY[1]/text()[1]", (0, 20, 90, 30), text="hello world",
             depth=1),
    ]
    return PageCapture(url="http://example.test/", width=100, height=50, nodes=nodes,
                       html="<html><body><a>home</a>hello world</body></html>", title="t")


def test_capture_round_trip(tmp_path):
    capture = _tiny_capture()
    capture.save(tmp_path / "cap")
    loaded = PageCapture.load(tmp_path / "cap")
    assert loaded.nodes == capture.nodes
    assert loaded.html == capture.html
    assert (loaded.url, loaded.width, loaded.height, loaded.title) == ("http://example.test/", 100,
                                                                       50, "t")


def test_save_replaces_an_older_capture_and_leaves_no_staging(tmp_path):
    first = _tiny_capture()
    first.save(tmp_path / "cap")
    second = _tiny_capture()
    second.title = "second"
    second.save(tmp_path / "cap")
    assert PageCapture.load(tmp_path / "cap").title == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap"]


def test_load_rejects_a_folder_without_capture(tmp_path):
    with pytest.raises(InputFileError, match="no capture.json"):
        PageCapture.load(tmp_path)
    (tmp_path / "capture.json").write_text("{broken")
    with pytest.raises(InputFileError, match="unreadable capture"):
        PageCapture.load(tmp_path)


def test_tree_helpers():
    capture = _tiny_capture()
    assert capture.children(0) == [1, 3]
    assert list(capture.descendants(0)) == [1, 2, 3]
    assert capture.text_of(0) == "home hello world"
    assert capture.roots() == [0]


def test_segmentation_to_webis_writes_integers_and_closed_rings():
    segment = Segment.from_box("s", (0.0, 0.0, 10.0, 5.5))
    data = to_webis(Segmentation("p1", "demo", 1366, 700, [segment]))
    assert data["id"] == "p1" and data["width"] == 1366 and data["height"] == 700
    ring = data["segmentations"]["demo"][0][0][0]
    assert ring[0] == ring[-1]
    assert json.dumps(ring) == "[[0, 0], [10, 0], [10, 5.5], [0, 5.5], [0, 0]]"
    assert segment.bbox == (0.0, 0.0, 10.0, 5.5)


def test_to_webis_clips_segments_to_the_page_and_leaves_out_those_below_it():
    inside = Segment.from_box("inside", (0.0, 0.0, 100.0, 50.0))
    across = Segment.from_box("across", (10.0, 40.0, 200.0, 80.0))
    below = Segment.from_box("below", (0.0, 60.0, 100.0, 90.0))  # past a capped capture's height
    data = to_webis(Segmentation("p", "demo", 100, 50, [inside, across, below]))
    segments = data["segmentations"]["demo"]
    assert len(segments) == 2
    assert segments[0] == [[[[0, 0], [100, 0], [100, 50], [0, 50], [0, 0]]]]
    ring = segments[1][0][0]
    assert ring[0] == ring[-1]
    assert {tuple(point) for point in ring} == {(10, 40), (100, 40), (100, 50), (10, 50)}
