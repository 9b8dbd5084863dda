"""The Python API and ``wps segment --out`` write the same folder, main-text.json included."""

from __future__ import annotations

import json

import wps
from wps.cli import main


def test_segment_to_directory_writes_the_text_report_like_the_cli(webis_page, tmp_path):
    result = wps.segment_to_directory(webis_page, tmp_path / "api", segmenter="baseline")
    report = json.loads((tmp_path / "api" / "main-text.json").read_text(encoding="utf-8"))
    assert report == json.loads(json.dumps(result.text.to_json()))
    assert main(["segment", str(webis_page), "--out", str(tmp_path / "cli"),
                 "--segmenter", "baseline"]) == 0
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
