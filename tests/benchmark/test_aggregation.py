"""§8 aggregation on hand-made rows, and the crash-safe results store."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from wps.benchmark import (
    BASELINE_SUBSTITUTE,
    MISSING,
    OWN,
    PageResult,
    ResultStore,
    aggregate,
    f_star,
    resolve_rows,
)
from wps.errors import InputFileError

NAN = math.nan


def _row(page: str, segmenter: str, pixels: tuple[float, float, float] | None,
         nodes: tuple[float, float, float] | None = None, segments: int = 3,
         source: str = OWN) -> PageResult:
    scores = None if pixels is None else {"pixels": pixels, "nodes": nodes or pixels}
    return PageResult(page, segmenter, source, segments, 0.5, scores)


def test_missing_output_takes_the_baseline_row_of_that_page() -> None:
    results = [
        _row("p1", "baseline", (0.2, 1.0, 0.3), segments=1),
        _row("p2", "baseline", (0.4, 1.0, 0.5), segments=1),
        _row("p1", "mine", (0.8, 0.6, 0.7)),
        _row("p2", "mine", None),  # the segmenter crashed on p2
    ]
    rows = resolve_rows(results, ["mine"], ["p1", "p2", "p3"])
    by_page = {row.page: row for row in rows}
    assert by_page["p1"].source == OWN
    assert by_page["p2"].source == BASELINE_SUBSTITUTE
    assert by_page["p2"].scores == {"pixels": (0.4, 1.0, 0.5), "nodes": (0.4, 1.0, 0.5)}
    assert by_page["p2"].segments == 1
    assert by_page["p3"].source == MISSING and by_page["p3"].scores is None  # no baseline either
    summary = aggregate(rows, ["pixels", "nodes"])["mine"]
    assert (summary.pages, summary.substituted, summary.missing) == (3, 1, 1)
    pixels = summary.size_functions["pixels"]
    assert pixels.pages == 2
    assert pixels.precision == pytest.approx((0.8 + 0.4) / 2)
    assert pixels.recall == pytest.approx((0.6 + 1.0) / 2)
    assert pixels.f1 == pytest.approx((0.7 + 0.5) / 2)
    assert summary.segments_per_page == pytest.approx((3 + 1) / 2)


def test_nan_rows_are_dropped_per_size_function_not_counted_as_zero() -> None:
    rows = [
        _row("p1", "mine", (0.9, 0.5, 0.6), nodes=(NAN, 0.0, NAN)),
        _row("p2", "mine", (0.5, 0.7, 0.4), nodes=(0.3, 0.9, 0.45)),
    ]
    summary = aggregate(rows, ["pixels", "nodes"])["mine"]
    assert summary.size_functions["pixels"].pages == 2
    nodes = summary.size_functions["nodes"]
    assert nodes.pages == 1
    assert (nodes.precision, nodes.recall, nodes.f1) == (0.3, 0.9, 0.45)


def test_f_star_is_the_harmonic_mean_of_the_means_not_the_mean_f() -> None:
    rows = [_row("p1", "mine", (1.0, 0.2, 1 / 3)), _row("p2", "mine", (0.2, 1.0, 1 / 3))]
    pixels = aggregate(rows, ["pixels"])["mine"].size_functions["pixels"]
    assert pixels.precision == pytest.approx(0.6) and pixels.recall == pytest.approx(0.6)
    assert pixels.f_star == pytest.approx(0.6)
    assert pixels.f1 == pytest.approx(1 / 3)
    assert f_star(0.5, 0.25) == pytest.approx(2 * 0.5 * 0.25 / 0.75)
    assert f_star(0.0, 0.0) == 0.0
    assert math.isnan(f_star(NAN, 1.0))


def test_a_size_function_without_any_pages_is_nan() -> None:
    rows = [_row("p1", "mine", (0.5, 0.5, 0.5), nodes=(NAN, 0.0, NAN))]
    nodes = aggregate(rows, ["nodes"])["mine"].size_functions["nodes"]
    assert nodes.pages == 0
    assert all(math.isnan(value) for value in (nodes.precision, nodes.recall, nodes.f1,
                                                nodes.f_star))


def test_store_round_trips_and_ignores_a_half_written_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    store = ResultStore(path)
    first = _row("p1", "mine", (0.9, 0.5, 0.6), nodes=(NAN, 0.0, NAN))
    store.append([first])
    with open(path, "a", encoding="utf-8") as handle:  # a crash in the middle of a write
        handle.write('{"page": "p2", "segmenter": "mi')
    reopened = ResultStore(path)
    [read] = reopened.read()
    assert read.page == "p1" and read.scores is not None
    assert read.scores["pixels"] == (0.9, 0.5, 0.6)
    assert math.isnan(read.scores["nodes"][0]) and read.scores["nodes"][1] == 0.0
    reopened.append([_row("p2", "mine", None, source=MISSING)])
    assert reopened.done() == {("p1", "mine"), ("p2", "mine")}
    assert path.read_text(encoding="utf-8").count("\n") == 2


def test_store_refuses_a_corrupt_record_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('not json\n{"page": "p1"}\n', encoding="utf-8")
    with pytest.raises(InputFileError, match=r"results.jsonl: line 1: corrupt result record"):
        ResultStore(path).read()
