"""The benchmark runner against the real evaluator on copies of page 000000."""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from webis_fakes import SECOND_ID

from wps.benchmark import (
    BASELINE_SUBSTITUTE,
    OWN,
    BenchmarkOptions,
    ResultStore,
    evaluate_page,
    run_benchmark,
)
from wps.errors import DatasetError, SegmentationError, UnknownSegmenterError, UsageError
from wps.model import PageCapture, Segment, Segmentation
from wps.segmenters import register_segmenter

SIZE_FUNCTIONS = ("pixels", "edges-fine", "edges-coarse", "nodes", "chars")


def _reference_baseline(webis_sample: Path) -> dict[str, tuple[float, float, float]]:
    """The R code's baseline rows on page 000000 (reference-outputs/expected-evaluations.csv)."""
    rows = {}
    with open(webis_sample / "reference-outputs" / "expected-evaluations.csv",
              encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["label"] == "baseline":
                rows[row["size_function"]] = tuple(
                    float(row[f"bcubed.{measure}"]) for measure in ("precision", "recall", "f1"))
    assert set(rows) == set(SIZE_FUNCTIONS)
    return rows


@register_segmenter("test-halves")
@dataclass
class HalvesSegmenter:
    """Top and bottom half: a real two-segment output with scores unlike the baseline's."""

    name: str = "test-halves"
    pages: list[str] = field(default_factory=list)
    interrupt_on: str | None = None

    def segment(self, page: PageCapture) -> Segmentation:
        if page.page_id == self.interrupt_on:
            raise KeyboardInterrupt
        self.pages.append(page.page_id)
        middle = page.height // 2
        segments = [Segment.from_box("top", (0, 0, page.width, middle)),
                    Segment.from_box("bottom", (0, middle, page.width, page.height))]
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)


@register_segmenter("test-broken")
@dataclass
class BrokenSegmenter:
    """Fails on page 000000 and gives no segments elsewhere: both are missing output."""

    name: str = "test-broken"

    def segment(self, page: PageCapture) -> Segmentation:
        if page.page_id == "000000":
            raise ValueError("cannot parse the page")
        return Segmentation(page.page_id, self.name, page.width, page.height, [])


@register_segmenter("test-fatal")
@dataclass
class FatalSegmenter:
    """Kills its worker process on page 000007 while ``armed``, as a segfault would."""

    name: str = "test-fatal"
    armed: bool = True

    def segment(self, page: PageCapture) -> Segmentation:
        if self.armed and page.page_id == SECOND_ID:
            os._exit(1)
        return HalvesSegmenter().segment(page)


def _halves() -> HalvesSegmenter:
    from wps.benchmark import runner

    return runner._segmenter("test-halves")


def _scores(out: Path) -> dict[tuple[str, str], dict]:
    return {(record.page, record.segmenter): record.scores
            for record in ResultStore(out / "results.jsonl").read()}


def test_baseline_reproduces_the_reference_row(webis_page: Path, webis_sample: Path) -> None:
    [result] = evaluate_page(webis_page, ["baseline"])
    assert (result.page, result.source, result.segments) == ("000000", OWN, 1)
    assert result.scores is not None
    for name, expected in _reference_baseline(webis_sample).items():
        assert result.scores[name] == pytest.approx(expected, abs=1e-9), name
    assert result.scores["pixels"][0] == pytest.approx(0.2267, abs=5e-5)


def test_missing_output_is_replaced_by_the_baseline_row(folder_dataset: Path,
                                                        webis_sample: Path) -> None:
    crashed = evaluate_page(folder_dataset / "000000", ["test-broken"])[0]
    empty = evaluate_page(folder_dataset / SECOND_ID, ["test-broken"])[0]
    assert crashed.source == empty.source == BASELINE_SUBSTITUTE
    assert crashed.error == "ValueError: cannot parse the page"
    assert empty.error == "no segments"
    reference = _reference_baseline(webis_sample)
    for result in (crashed, empty):
        assert result.segments == 1
        for name, expected in reference.items():
            assert result.scores[name] == pytest.approx(expected, abs=1e-9)


def test_run_writes_csv_and_summaries(folder_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = run_benchmark(BenchmarkOptions(
        data=folder_dataset, segmenters=["baseline", "test-halves", "test-broken"], out=out,
        save_segmentations=True, progress=False))
    assert report.pages == ["000000", SECOND_ID] and report.computed == 6
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"]["skipped"] == 1  # 000001 has only page.png
    halves = summary["segmenters"]["test-halves"]
    assert halves["segments_per_page"] == 2 and halves["substituted"] == 0
    pixels = halves["size_functions"]["pixels"]
    assert pixels["pages"] == 2
    assert pixels["f_star"] == pytest.approx(
        2 * pixels["precision"] * pixels["recall"] / (pixels["precision"] + pixels["recall"]))
    broken = summary["segmenters"]["test-broken"]
    assert broken["substituted"] == 2
    assert broken["size_functions"] == summary["segmenters"]["baseline"]["size_functions"]
    assert [table["key"] for table in summary["published"]] == [
        "ecir21", "dom-cohesion-subset", "agreement"]
    with open(out / "per-page.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 * 2 * len(SIZE_FUNCTIONS)
    sources = {(row["segmenter"], row["source"]) for row in rows}
    assert sources == {("baseline", "own"), ("test-halves", "own"),
                       ("test-broken", "baseline-substitute")}
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    assert "| test-halves | 2 | 0 | 2.0 |" in markdown
    assert "not directly comparable" in markdown and "1,969-page subset" in markdown
    saved = json.loads((out / "segmentations" / "test-halves" / f"{SECOND_ID}.json").read_text())
    assert saved["id"] == SECOND_ID and len(saved["segmentations"]["test-halves"]) == 2


def test_an_interrupted_run_resumes_without_recomputing(folder_dataset: Path,
                                                        tmp_path: Path) -> None:
    segmenter = _halves()
    segmenter.pages.clear()
    segmenter.interrupt_on = SECOND_ID
    out = tmp_path / "out"
    options = BenchmarkOptions(data=folder_dataset, segmenters=["test-halves"], out=out,
                               progress=False)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_benchmark(options)
    finally:
        segmenter.interrupt_on = None
    assert segmenter.pages == ["000000"]
    first = _scores(out)
    assert list(first) == [("000000", "test-halves")]
    report = run_benchmark(options)
    assert segmenter.pages == ["000000", SECOND_ID]  # 000000 was not segmented again
    assert report.computed == 1
    resumed = _scores(out)
    assert resumed[("000000", "test-halves")] == first[("000000", "test-halves")]
    assert resumed[("000000", "test-halves")] == resumed[(SECOND_ID, "test-halves")]
    assert run_benchmark(options).computed == 0
    assert run_benchmark(replace(options, fresh=True)).computed == 2
    assert _scores(out) == resumed


def test_zip_parts_and_two_workers_give_the_same_results(folder_dataset: Path, zip_dataset: Path,
                                                         tmp_path: Path) -> None:
    serial = run_benchmark(BenchmarkOptions(
        data=folder_dataset, segmenters=["test-halves"], out=tmp_path / "a", progress=False))
    pooled = run_benchmark(BenchmarkOptions(
        data=zip_dataset, segmenters=["test-halves"], out=tmp_path / "b", workers=2,
        progress=False))
    assert pooled.pages == serial.pages
    assert _scores(tmp_path / "a") == _scores(tmp_path / "b")
    assert not math.isnan(serial.summaries["test-halves"].size_functions["nodes"].f1)


def test_a_dead_worker_stops_the_run_and_the_rerun_completes(folder_dataset: Path,
                                                             tmp_path: Path) -> None:
    from wps.benchmark import runner

    options = BenchmarkOptions(data=folder_dataset, segmenters=["test-fatal"],
                               out=tmp_path / "out", workers=2, progress=False)
    fatal = runner._segmenter("test-fatal")
    with pytest.raises(SegmentationError, match="a worker process died .* rerun"):
        run_benchmark(options)
    assert (SECOND_ID, "test-fatal") not in ResultStore(options.out / "results.jsonl").done()
    fatal.armed = False  # the forked workers of the next run inherit the fix
    try:
        report = run_benchmark(options)
    finally:
        fatal.armed = True
    assert report.pages == ["000000", SECOND_ID]
    assert report.summaries["test-fatal"].segments_per_page == 2


def test_bad_options_raise_wps_errors(folder_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownSegmenterError, match="unknown segmenter 'nope'"):
        run_benchmark(BenchmarkOptions(folder_dataset, ["nope"], tmp_path / "o"))
    with pytest.raises(UsageError, match="--pages must be >= 0, got -1"):
        run_benchmark(BenchmarkOptions(folder_dataset, ["baseline"], tmp_path / "o", pages=-1))
    with pytest.raises(UsageError, match="--workers must be >= 1"):
        run_benchmark(BenchmarkOptions(folder_dataset, ["baseline"], tmp_path / "o", workers=0))
    with pytest.raises(DatasetError, match="not in the dataset: 424242"):
        run_benchmark(BenchmarkOptions(folder_dataset, ["baseline"], tmp_path / "o",
                                       ids=["424242"]))
    assert not (tmp_path / "o" / "summary.json").exists()
