"""The segments.jsonl record (wps.records): Segment → record → Segment → record gives the same
line, and ``wps filter`` judges a page's segments as the pipeline does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wps
from wps.cli import main
from wps.model import Node, PageCapture, Segment, Segmentation
from wps.records import (
    RECORD_FIELDS,
    read_segment_lines,
    segment_from_record,
    segment_record,
    segment_records,
    write_segment_records,
)


def _page() -> tuple[PageCapture, Segmentation]:
    nodes = [
        Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 200, 120)),
        Node(1, 0, "DIV", "/HTML[1]/BODY[1]/DIV[1]", (10, 10, 190, 50)),
        Node(2, 1, "#text", "/HTML[1]/BODY[1]/DIV[1]/text()[1]", (12, 12, 100, 30), text="Hello"),
    ]
    capture = PageCapture(url="https://example.org/a", width=200, height=120, nodes=nodes,
                          page_id="a")
    first = Segment.from_box("0", (10, 10, 190, 50.123), [1, 2])
    first.text, first.main_text, first.stats = "Hello there", "Hello", {"link_share": 0.25}
    first.extra["block_type"] = "single"
    first.page_reasons = ["no_long_block"]
    second = Segment.from_box("1", (10, 60, 190, 110), [])
    second.parent, second.kept, second.reasons = "0", False, ["too_few_tokens"]
    return capture, Segmentation("a", "dom-cohesion", 200, 120, [first, second])


def _dumps(records: list[dict]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def test_a_new_line_has_the_record_fields_in_order_then_the_extras():
    record = segment_records(*_page())[0]
    assert tuple(record)[:len(RECORD_FIELDS)] == RECORD_FIELDS
    assert tuple(record)[len(RECORD_FIELDS):] == ("block_type", "page_reasons")


def test_record_to_segment_to_record_is_the_same_line():
    records = json.loads(json.dumps(segment_records(*_page())))
    again = [segment_record(*segment_from_record(record)) for record in records]
    assert _dumps(again) == _dumps(records)  # same fields, values and order


def test_a_segment_read_back_holds_what_the_stages_judge():
    record = segment_records(*_page())[1]
    segment, context = segment_from_record(record)
    assert segment.id == record["segment_id"]  # unique across pages, as the dedup state needs
    assert (segment.text, segment.main_text) == (record["text"], record["main_text"])
    assert (segment.kept, segment.reasons, segment.stats) == (False, ["too_few_tokens"], {})
    assert context.fields["parent"] == "0" and context.fields["bbox"] == record["bbox"]


def test_a_hand_made_line_keeps_its_fields_and_order(tmp_path: Path):
    line = {"segment_id": "d:0001", "text": "Log in now", "n_words": 99, "note": [1],
            "main_text": "", "kept": True}
    path = tmp_path / "segments.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    [read] = read_segment_lines(path)
    assert read.where == f"{path}:1"
    read.segment.kept, read.segment.reasons = False, ["no_main_text"]
    read.segment.binoculars = {"skipped": "not_kept"}
    record = read.record()
    assert list(record) == ["segment_id", "text", "n_words", "note", "main_text", "kept",
                            "reasons", "stats", "binoculars"]  # verdict fields, then new extras
    assert record["n_words"] == 3 and record["kept"] is False and record["stats"] == {}
    assert "id" not in record and "bbox" not in record  # no invented place


def test_written_lines_read_back_as_written(tmp_path: Path):
    records = segment_records(*_page())
    path = write_segment_records(records, tmp_path / "segments.jsonl")
    assert path.read_text(encoding="utf-8") == _dumps(records)
    assert _dumps([line.record() for line in read_segment_lines(path)]) == _dumps(records)


LOOSE = '[filters.segment]\nrules = ["main_text_overlap"]\n'
EVERY_RULE = """[filters.segment]
rules = ["main_text_overlap", "min_length", "link_code_share", "long_block", "large_block_share",
         "list_table_share", "c4", "gopher_quality", "gopher_repetition", "median_word_length",
         "lines_without_punctuation", "repeated_sequence"]
[filters.segment.main_text_overlap]
min_overlap = 0.01
[filters.segment.min_length]
min_tokens = 3
[filters.segment.long_block]
min_chars = 60
[filters.segment.large_block_share]
min_share = 0.1
"""


NO_DECISION = "\n[decide]\nenabled = false\n"


def _verdicts(path: Path) -> list[tuple[str, bool, list[str]]]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["segment_id"], r["kept"], r["reasons"]) for r in records]


@pytest.mark.parametrize("written_with", [None, LOOSE], ids=["same-config", "other-config"])
@pytest.mark.parametrize("config", [None, EVERY_RULE], ids=["defaults", "every-rule"])
def test_filter_judges_a_page_as_the_pipeline_does(config, written_with, webis_page, tmp_path):
    def config_file(name: str, text: str | None) -> str | None:
        if text is None:
            return None
        (tmp_path / name).write_text(text, encoding="utf-8")
        return str(tmp_path / name)

    if written_with is not None:  # the decision's verdicts come from the capture, which a line
        # written under another config cannot give again: compare the filter rules alone
        config, written_with = (config or "") + NO_DECISION, written_with + NO_DECISION
    target, source = config_file("target.toml", config), config_file("source.toml", written_with)
    wps.segment_to_directory(webis_page, tmp_path / "pipeline", config=target)
    wps.segment_to_directory(webis_page, tmp_path / "written", config=source)
    refiltered = tmp_path / "refiltered.jsonl"
    argv = ["filter", str(tmp_path / "written" / "segments.jsonl"), "--out", str(refiltered)]
    assert main(argv + (["--config", target] if target else [])) == 0
    expected = _verdicts(tmp_path / "pipeline" / "segments.jsonl")
    assert _verdicts(refiltered) == expected
    assert len({reason for _, _, reasons in expected for reason in reasons}) >= 2  # not trivial


def test_later_stages_fields_are_typed_fields_and_come_back_as_written(tmp_path: Path):
    """A line's annotations (decision, posts, dedup) are read into the segment's own fields, a
    null one is kept as it stands, and the line is written back byte for byte."""
    capture, segmentation = _page()
    first = segmentation.segments[0]
    first.post_part, first.post_record, first.kind, first.prose_score = \
        "body", "/HTML[1]/BODY[1]/DIV[1]", "post", 0.5
    first.dup, first.simhash = {"cdc_dup_frac": 0.0}, None  # too short to hash: null beside dup
    records = segment_records(capture, segmentation)
    assert list(records[0])[len(RECORD_FIELDS):] == [
        "block_type", "post_part", "post_record", "page_reasons", "prose_score", "kind", "dup",
        "simhash"]  # the segmenter's extra fields, then the steps' fields in step order
    records[1]["kind"] = None  # as a hand-edited or foreign file may have it
    path = write_segment_records(records, tmp_path / "segments.jsonl")
    lines = list(read_segment_lines(path))
    assert (lines[0].segment.kind, lines[0].segment.post_part) == ("post", "body")
    assert lines[0].segment.dup == {"cdc_dup_frac": 0.0} and "dup" not in lines[0].segment.extra
    assert lines[1].segment.kind is None
    assert _dumps([line.record() for line in lines]) == path.read_text(encoding="utf-8")


def test_lines_read_back_are_a_page_with_their_own_segments(tmp_path: Path):
    from wps.state import PageState

    capture, segmentation = _page()
    capture.incomplete = True
    lines = list(read_segment_lines(write_segment_records(segment_records(capture, segmentation),
                                                          tmp_path / "segments.jsonl")))
    page = PageState.from_records(lines)
    assert (page.capture.url, page.capture.page_id, page.capture.incomplete) == (
        "https://example.org/a", "a", True)
    assert page.segmentation.segmenter == "dom-cohesion"
    assert [id(segment) for segment in page.segments] == [id(line.segment) for line in lines]
    assert page.text is None and page.capture.nodes == []  # what a line cannot give back


def test_filter_reads_a_merged_file_page_by_page(webis_page, tmp_path):
    """Two runs of one page under other ids, in one file as a batch merges them: refiltered
    with stricter rules, each page's lines come out as refiltering that page alone gives."""
    wps.segment_to_directory(webis_page, tmp_path / "run")
    lines = (tmp_path / "run" / "segments.jsonl").read_text(encoding="utf-8").splitlines()
    pages = [[json.dumps({**json.loads(line), "doc_id": doc_id}) for line in lines]
             for doc_id in ("first", "second")]
    (tmp_path / "merged.jsonl").write_text("\n".join(pages[0] + pages[1]) + "\n")
    (tmp_path / "alone.jsonl").write_text("\n".join(pages[0]) + "\n")
    (tmp_path / "strict.toml").write_text(EVERY_RULE, encoding="utf-8")
    for name in ("merged", "alone"):
        assert main(["filter", str(tmp_path / f"{name}.jsonl"),
                     "--config", str(tmp_path / "strict.toml")]) == 0
    merged, alone = _verdicts(tmp_path / "merged.jsonl"), _verdicts(tmp_path / "alone.jsonl")
    assert merged == alone + alone and merged != _verdicts(tmp_path / "run" / "segments.jsonl")
