"""wps batch outputs at crawl scale: readable page folders (and an earlier run's bare-id folders
still found), --reports opt-in, --fields detector, --merged parquet in row groups of pages."""

from __future__ import annotations

import json

import pytest

from wps.capture import CaptureOptions
from wps.cli import main
from wps.pipeline import PipelineOptions
from wps.records import DETECTOR_FIELDS, detector_record
from wps.report.batch import read_batch_rows
from wps.runner import BatchOptions, merged, page_folder_name, run_batch, source_key

QUIET = {"progress": False, "host_delay_s": 0}
FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False, allow_private=True)
CLI_FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "30", "--no-screenshot",
            "--no-progress", "--allow-private", "--host-delay", "0"]
STORIES = [
    "The harbour reopened on Friday after the storm damaged two of its piers last winter.",
    "A small school in the valley now teaches its pupils to repair bicycles every Thursday.",
    "The orchard on the south slope gave its first apricots since the frost three years ago.",
]


def add_pages(page_server, prefix: str) -> list[str]:
    return [page_server.add_html(f"/{prefix}/story-{n}", f"<!doctype html><title>S{n}</title>"
                                 f"<main><h1>Story {n}</h1><p>{text} {text}</p></main>")
            for n, text in enumerate(STORIES)]


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def page_folders(out) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))


@pytest.mark.browser
def test_batch_detector_fields_in_parquet_row_groups_reports_on_request(
        page_server, tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    monkeypatch.setattr(merged, "PAGES_PER_ROW_GROUP", 2)
    urls = add_pages(page_server, "slim")
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(urls) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    command = ["batch", str(listing), "--out", str(out), "--fields", "detector",
               "--merged", "parquet", *CLI_FAST]
    assert main(command) == 0

    assert page_folders(out) == sorted(page_folder_name(url) for url in urls)
    assert all(name.startswith("127.0.0.1_slim-story-") for name in page_folders(out))
    pages = [lines(out / page_folder_name(url) / "segments.jsonl") for url in sorted(
        urls, key=page_folder_name)]
    assert all(page and tuple(line) == DETECTOR_FIELDS for page in pages for line in page)
    assert not any((out / name / "report.html").exists() for name in page_folders(out))
    assert (out / "report.html").is_file() and "/report.html" not in (
        out / "report.html").read_text(encoding="utf-8")

    table = pq.ParquetFile(out / "segments.parquet")
    assert table.metadata.num_row_groups == 2  # 3 pages, 2 to a group
    assert table.schema_arrow.names == list(DETECTOR_FIELDS)  # slim lines: no record column
    assert table.read().to_pylist() == [line for page in pages for line in page]

    assert main(command) == 0  # a rerun finds every page done
    assert json.loads((out / "summary.json").read_text())["skipped"] == 3
    assert main(["report", str(out)]) == 0  # builds the pages' reports on request
    assert all((out / name / "report.html").is_file() for name in page_folders(out))
    assert all(row.has_report for row in read_batch_rows(out))
    for url, page in zip(sorted(urls, key=page_folder_name), pages):  # from the slim lines
        report = (out / page_folder_name(url) / "report.html").read_text(encoding="utf-8")
        for line in page:
            assert f'"text": {json.dumps(line["main_text"])}' in report

    reports = out.with_name("reports")
    assert main([*command[:3], str(reports), *command[4:], "--reports"]) == 0
    assert all((reports / name / "report.html").is_file() for name in page_folders(reports))


@pytest.mark.browser
def test_batch_resumes_a_folder_of_bare_page_id_folders(page_server, tmp_path):
    """A folder written before readable names (folders and markers named by the page id, markers
    without ``folder``) is resumed as it is: its pages are skipped, merged and reported; a new
    page gets a readable folder."""
    urls = add_pages(page_server, "old")
    out = tmp_path / "out"
    options = BatchOptions(pipeline=PipelineOptions(capture_options=FAST), merged=True, **QUIET)
    assert run_batch(urls[:2], out, options).done == 2
    for url in urls[:2]:  # what an earlier version wrote
        folder, key = page_folder_name(url), source_key(url)
        (out / folder).rename(out / key)
        marker = json.loads((out / ".done" / folder).read_text())
        assert marker.pop("folder") == folder
        (out / ".done" / key).write_text(json.dumps(marker))
        (out / ".done" / folder).unlink()

    again = run_batch(urls, out, options)
    assert (again.done, again.skipped, again.failed) == (1, 2, 0)
    assert page_folders(out) == sorted([source_key(urls[0]), source_key(urls[1]),
                                        page_folder_name(urls[2])])
    merged_lines = lines(out / "segments.jsonl")
    assert {line["url"] for line in merged_lines} == set(urls)
    rows = read_batch_rows(out)
    assert sorted(row.url for row in rows) == sorted(urls) and all(row.kept for row in rows)

    path = merged.write_merged_segments(out, "parquet")  # full lines: slim columns + record
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    assert [json.loads(row.pop("record")) for row in rows] == merged_lines
    assert rows == [detector_record(line) for line in merged_lines]
