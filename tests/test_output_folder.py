"""The Python API and ``wps segment --out`` write the same folder, main-text.json included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wps
from wps.cli import main


def test_segment_to_directory_writes_the_text_report_like_the_cli(webis_page, tmp_path, capsys):
    result = wps.segment_to_directory(webis_page, tmp_path / "api", segmenter="baseline")
    report = json.loads((tmp_path / "api" / "main-text.json").read_text(encoding="utf-8"))
    assert report == json.loads(json.dumps(result.main_text_report()))
    assert main(["segment", str(webis_page), "--out", str(tmp_path / "cli"),
                 "--segmenter", "baseline"]) == 0
    told = capsys.readouterr().err.splitlines()[-1]  # the run ends by naming the report to open
    assert told.startswith(f"open {tmp_path / 'cli' / 'report.html'} ")
    api_files = sorted(p.name for p in (tmp_path / "api").iterdir())
    assert api_files == sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert "main-text.json" in api_files


def test_without_the_text_step_there_is_no_text_report(webis_page, tmp_path):
    wps.segment_to_directory(webis_page, tmp_path / "out", segmenter="baseline", text=False)
    assert not (tmp_path / "out" / "main-text.json").exists()
    assert (tmp_path / "out" / "segments.jsonl").exists()


def test_page_stats_in_the_text_report_count_the_whole_page(webis_page, tmp_path):
    wps.segment_to_directory(webis_page, tmp_path / "out", segmenter="baseline")
    report = json.loads((tmp_path / "out" / "main-text.json").read_text(encoding="utf-8"))
    page = report["page_stats"]
    assert page["main_tokens"] > 0
    assert page["tokens"] >= page["main_tokens"] and page["chars"] >= page["main_chars"]
    # the baseline's one segment is the whole page: its text is the page's text
    segment = json.loads((tmp_path / "out" / "segments.jsonl").read_text().splitlines()[0])
    assert page["chars"] == segment["stats"]["chars"]


def test_segment_refuses_to_replace_a_folder_that_is_not_its_output(webis_page, tmp_path, capsys):
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    code = main(["segment", str(webis_page), "--out", str(precious), "--segmenter", "baseline"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "refusing to replace" in err, err
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"
    import pytest

    from wps.errors import UsageError

    with pytest.raises(UsageError, match="refusing to replace"):
        wps.segment_to_directory(webis_page, precious, segmenter="baseline")
    assert [p.name for p in precious.iterdir()] == ["notes.txt"]
    out = tmp_path / "out"  # an empty folder or an earlier output may be replaced
    out.mkdir()
    for _ in range(2):
        assert main(["segment", str(webis_page), "--out", str(out), "--segmenter", "baseline"]) == 0
    assert (out / "segmentation.json").is_file()


def test_jsonl_bbox_is_float_width_and_height_without_float_noise():
    from wps.model import Node, PageCapture, Segment, Segmentation
    from wps.records import segment_records

    nodes = [Node(0, None, "BODY", "/HTML[1]/BODY[1]", (0, 0, 1366, 1169))]
    capture = PageCapture(url="https://example.org/f", width=1366, height=1169, nodes=nodes,
                          page_id="f")
    footer = Segment.from_box("9", (0, 1074.91, 1366.0, 1138.0), [0])
    header = Segment.from_box("1", (0.0, 58, 1366.0, 82.0), [0])
    records = segment_records(capture, Segmentation("f", "x", 1366, 1169, [footer, header]))
    assert records[0]["bbox"] == [0.0, 1074.91, 1366.0, 63.09]
    assert records[1]["bbox"] == [0.0, 58.0, 1366.0, 24.0]
    assert all(isinstance(v, float) for record in records for v in record["bbox"])
    assert json.dumps(records[0]["bbox"]) == "[0.0, 1074.91, 1366.0, 63.09]"


def test_text_report_counts_segments_dropped_by_dedup(webis_page, tmp_path):
    import shutil

    for page_id in ("000000", "000009"):  # the same page under two URLs of one site
        shutil.copytree(webis_page, tmp_path / page_id)
    database = tmp_path / "site.sqlite3"
    first = wps.segment(tmp_path / "000000", dedup_db=database)
    second = wps.segment(tmp_path / "000009", dedup_db=database)
    assert first.counts["kept"] == sum(s.kept for s in first.segmentation.segments) > 0
    kept = sum(s.kept for s in second.segmentation.segments)
    assert kept == 0 and second.counts["kept"] == kept
    assert second.counts["total"] == len(second.segmentation.segments)
    assert second.counts["dropped_dup_chunk_share"] > 0


def test_dedup_step_takes_the_config_dedup_table(webis_page, tmp_path):
    """``--config`` with a ``[dedup]`` table and ``--dedup-db``: the pipeline's dedup step uses
    the table (it was built with the defaults, so only ``wps dedup`` honoured it)."""
    import shutil

    for page_id in ("000000", "000009"):
        shutil.copytree(webis_page, tmp_path / page_id)
    lenient = tmp_path / "lenient.toml"
    lenient.write_text("[dedup]\nmax_chunk_share = 1.0\nsimhash = false\nminhash = false\n",
                       encoding="utf-8")
    database = tmp_path / "site.sqlite3"
    first = wps.segment(tmp_path / "000000", dedup_db=database, config=lenient)
    second = wps.segment(tmp_path / "000009", dedup_db=database, config=lenient)
    assert second.counts["kept"] == first.counts["kept"] > 0
    assert not any(reason.startswith(("dup_", "near_duplicate"))
                   for segment in second.segmentation.segments for reason in segment.reasons)


@pytest.mark.browser
def test_page_verdict_fields_agree_between_segments_and_the_text_report(tmp_path):
    """Every segments.jsonl line carries the page's verdict as main-text.json gives it (the
    text step's page rules under ``page_rules`` in both), not the rules the verdict replaced."""
    forum = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "forum.html"
    wps.segment_to_directory(forum, tmp_path / "out", segmenter="dom-cohesion")
    report = json.loads((tmp_path / "out" / "main-text.json").read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in
             (tmp_path / "out" / "segments.jsonl").read_text(encoding="utf-8").splitlines()]
    assert report["page_kept"] is (not report["page_reasons"])
    for line in lines:
        assert line["page_reasons"] == report["page_reasons"]
        assert line["page_rules"] == report["page_rules"]


def test_the_text_report_lists_the_detector_units(tmp_path):
    """main-text.json names what a detector judges on the page: each unit and its pieces."""
    forum = Path(__file__).resolve().parent.parent / "datasets" / "examples" / "forum.html"
    result = wps.segment_to_directory(forum, tmp_path / "out")
    report = json.loads((tmp_path / "out" / "main-text.json").read_text(encoding="utf-8"))
    kept = [s for s in result.segmentation.segments if s.kept]
    assert [unit["unit"] for unit in report["units"]] == [s.unit for s in kept]  # a post each
    assert [unit["segments"] for unit in report["units"]] == [[s.id] for s in kept]
    assert [unit["chars"] for unit in report["units"]] == [len(s.main_text) for s in kept]
