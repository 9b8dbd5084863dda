"""wps as a datatrove step: WarcReader → WpsSegments → JsonlWriter with LocalPipelineExecutor, on a
WARC written here; the segments that come out are those wps.segment gives for the same HTML."""

from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("datatrove")
pytest.importorskip("warcio")

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter
from warc_pages import ENGLISH, PAGES, write_warc

import wps
from wps.capture import CaptureOptions
from wps.integrations.datatrove import WpsSegments

FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False)


def run_pipeline(tmp_path, step: WpsSegments) -> list[dict]:
    """WarcReader, ``step``, JsonlWriter over a WARC of :data:`PAGES`; the Documents written."""
    (tmp_path / "crawl").mkdir()
    write_warc(tmp_path / "crawl" / "pages.warc.gz", PAGES)
    LocalPipelineExecutor(
        pipeline=[WarcReader(str(tmp_path / "crawl")), step, JsonlWriter(str(tmp_path / "out"))],
        tasks=1, logging_dir=str(tmp_path / "logs")).run()
    return read_output(tmp_path / "out")


def read_output(folder) -> list[dict]:
    documents = []
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            documents += [json.loads(line) for line in lines]
    return documents


@pytest.mark.browser
@pytest.mark.slow
def test_datatrove_pipeline_yields_the_kept_segments_of_each_warc_page(tmp_path):
    produced = run_pipeline(tmp_path, WpsSegments(capture_options=FAST, languages=("en",)))

    expected = []
    for url, html in PAGES.items():
        result = wps.segment(html=html, url=url, capture_options=FAST, languages=("en",))
        expected += [(item.id, item.main_text, item.lang, item.kind) for item in
                     result.detector_input()]
    assert [(doc["id"], doc["text"], doc["metadata"]["lang"], doc["metadata"]["kind"])
            for doc in produced] == expected
    assert expected and {doc["metadata"]["url"] for doc in produced} == {
        "http://127.0.0.1/en/library"}  # the German page's prose is dropped by languages
    assert all(ENGLISH in doc["text"] or doc["text"] in ENGLISH * 2 for doc in produced)
    stats = json.loads((tmp_path / "logs" / "stats.json").read_text())
    counters = {name: value for step_stats in stats for name, value in
                step_stats.get("stats", {}).items()}
    assert counters["pages"] == 2 and counters["segments"] == len(produced)


@pytest.mark.browser
@pytest.mark.slow
def test_datatrove_pipeline_can_yield_one_document_per_detector_unit(tmp_path):
    produced = run_pipeline(tmp_path, WpsSegments(capture_options=FAST, by_unit=True))

    expected = []
    for url, html in PAGES.items():
        result = wps.segment(html=html, url=url, capture_options=FAST)
        expected += [(unit.unit, unit.text, list(unit.ids)) for unit in result.detector_units()]
    assert expected and [(doc["metadata"]["unit"], doc["text"], doc["metadata"]["segments"])
                         for doc in produced] == expected
    assert all(doc["id"] == doc["metadata"]["segments"][0].rpartition(":")[0] + ":"
               + doc["metadata"]["unit"] for doc in produced)
