"""segments.jsonl records (wps.records), the overlay picture and atomic writing (wps.output)."""

from __future__ import annotations

import hashlib
import json

import pytest

from wps.files import write_jsonl
from wps.model import Node, PageCapture, Segment, Segmentation
from wps.output import page_summary, write_page_outputs
from wps.records import segment_records
from wps.report.overlay import DROPPED_COLOUR, KEPT_COLOUR, draw_overlay


def _capture() -> PageCapture:
    nodes = [
        Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 200, 120)),
        Node(1, 0, "DIV", "/HTML[1]/BODY[1]/DIV[1]", (10, 10, 190, 50)),
        Node(2, 1, "#text", "/HTML[1]/BODY[1]/DIV[1]/text()[1]", (12, 12, 100, 30), text="Hello"),
        Node(3, 0, "P", "/HTML[1]/BODY[1]/P[1]", (10, 60, 190, 110)),
        Node(4, 3, "#text", "/HTML[1]/BODY[1]/P[1]/text()[1]", (12, 62, 150, 80), text="world"),
    ]
    return PageCapture(url="https://example.org/a", width=200, height=120, nodes=nodes,
                       page_id="a")


def _segmentation() -> Segmentation:
    first = Segment.from_box("0", (10, 10, 190, 50), [1, 2])
    first.text, first.main_text = "Hello", "Hello"
    first.extra["block_type"] = "single"
    second = Segment.from_box("1", (10, 60, 190, 110), [3, 4])
    second.text, second.kept, second.reasons = "world", False, ["too_short"]
    second.stats["link_share"] = 0.5
    return Segmentation("a", "dom-cohesion", 200, 120, [first, second])


def test_records_follow_the_jsonl_layout():
    records = segment_records(_capture(), _segmentation())
    doc_id = hashlib.sha1(b"https://example.org/a").hexdigest()
    first, second = records
    assert first["doc_id"] == doc_id and second["segment_id"] == f"{doc_id}:0001"
    assert first["order"] == 0 and second["order"] == 1
    assert first["bbox"] == [10, 10, 180, 40]
    assert first["polygon"] == [[[[10, 10], [190, 10], [190, 50], [10, 50], [10, 10]]]]
    assert first["xpaths"] == ["/HTML[1]/BODY[1]/DIV[1]"]
    assert first["node_ids"] == [1, 2] and first["n_chars"] == 5 and first["n_words"] == 1
    assert first["main_text"] == "Hello" and first["block_type"] == "single"
    assert second["kept"] is False and second["reasons"] == ["too_short"]
    assert second["stats"] == {"link_share": 0.5}
    json.dumps(records)  # serialisable as is


def test_summary_holds_capture_facts():
    summary = page_summary(_capture(), _segmentation())
    assert summary["url"] == "https://example.org/a" and summary["n_nodes"] == 5
    assert [s["text"] for s in summary["segments"]] == ["Hello", "world"]


def test_overlay_tells_kept_from_dropped_and_labels_off_the_text(tmp_path):
    from PIL import Image

    capture, segmentation = _capture(), _segmentation()  # segment 0 kept, segment 1 dropped
    capture.width = segmentation.width = 300  # room beside the text for the labels
    capture.height = segmentation.height = 160
    path = draw_overlay(capture, segmentation, tmp_path / "overlay.png")
    with Image.open(path) as image:
        assert image.size == (300, 160)
        kept_edge = [image.getpixel((x, 10)) for x in range(40, 160)]
        dropped_edge = [image.getpixel((189, y)) for y in range(70, 105)]
        inside = image.getpixel((100, 40))
        text_pixels = {image.getpixel((x, y)) for node in capture.nodes if node.is_text
                       for x in range(int(node.bbox[0]), int(node.bbox[2]))
                       for y in range(int(node.bbox[1]), int(node.bbox[3]))}
    assert set(kept_edge) == {KEPT_COLOUR}  # solid
    assert DROPPED_COLOUR in dropped_edge and (255, 255, 255) in dropped_edge  # dashed
    assert inside == (255, 255, 255)  # inside: untouched
    assert text_pixels == {(255, 255, 255)}  # no label covers the text


def test_write_jsonl_is_atomic(tmp_path):
    path = write_jsonl([{"a": 1}, {"b": "ü"}], tmp_path / "x.jsonl")
    assert path.read_text(encoding="utf-8") == '{"a": 1}\n{"b": "ü"}\n'

    def broken():
        yield {"c": 1}
        raise RuntimeError("stage failed")

    with pytest.raises(RuntimeError):
        write_jsonl(broken(), tmp_path / "x.jsonl")
    assert path.read_text(encoding="utf-8") == '{"a": 1}\n{"b": "ü"}\n'  # old file intact
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl"]


def test_page_outputs_replace_an_older_folder(tmp_path):
    out = tmp_path / "page"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    write_page_outputs(_capture(), _segmentation(), out)
    assert sorted(p.name for p in out.iterdir()) == [
        "capture", "overlay.png", "report.html", "segmentation.json", "segments.jsonl"]
    webis = json.loads((out / "segmentation.json").read_text())
    ring = [[10, 10], [190, 10], [190, 50], [10, 50], [10, 10]]
    assert webis["segmentations"]["dom-cohesion"][0] == [[ring]]
    assert (out / "capture" / "capture.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["page"]
