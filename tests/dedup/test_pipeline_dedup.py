"""The dedup step inside ``wps.pipeline.segment`` and ``wps segment --dedup-db`` on a Webis page."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from wps.cli import main
from wps.pipeline import segment
from wps.webis import capture_from_webis


def test_second_copy_of_a_page_is_marked_duplicate(webis_page: Path, tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite3"
    first = segment(webis_page, dedup_db=db)
    texts = [s for s in first.segmentation.segments if len(s.text) > 200]
    assert texts and all("dup_chunk_share" not in s.reasons for s in texts)
    capture = capture_from_webis(webis_page)
    copy = dataclasses.replace(capture, url=capture.url.rstrip("/") + "/copy")
    second = segment(copy, dedup_db=db)
    repeated = [s for s in second.segmentation.segments if len(s.text) > 200]
    assert repeated and all(s.stats["dup_chunk_share"] == 1.0 for s in repeated)
    assert all("dup_chunk_share" in s.reasons and not s.kept for s in repeated)
    assert segment(webis_page).segmentation.segments[0].dup is None   # off by default


def test_segment_command_writes_dup_fields(webis_page: Path, tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite3"
    out = tmp_path / "out"
    assert main(["segment", str(webis_page), "--out", str(out), "--dedup-db", str(db)]) == 0
    lines = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert lines and all("cdc_dup_frac" in line["dup"] for line in lines)
    assert all(line["stats"]["dup_chunk_share"] == 0.0 for line in lines)
