"""The article benchmark's metric on cases counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wps.benchmark.articles import load_benchmark, page_counts, score_predictions, shingles
from wps.errors import InputFileError


def test_shingles_are_case_sensitive_multisets() -> None:
    assert shingles("a b c d a b c d") == {("a", "b", "c", "d"): 2, ("b", "c", "d", "a"): 1,
                                           ("c", "d", "a", "b"): 1, ("d", "a", "b", "c"): 1}
    assert shingles("Two words") == {("Two", "words"): 1}
    assert shingles("") == {}
    assert shingles("The cat sat down") != shingles("the cat sat down")


def test_page_counts_are_normalised() -> None:
    # truth shingles: abcd, bcde; prediction: abcd, bcdx -> tp 1, fp 1, fn 1
    assert page_counts("a b c d e", "a b c d x") == (1 / 3, 1 / 3, 1 / 3)
    assert page_counts("a b c d", "") == (0.0, 0.0, 1.0)
    assert page_counts("", "") == (0.0, 0.0, 0.0)


def test_macro_precision_recall_and_f1() -> None:
    truth = {"p1": {"articleBody": "a b c d e"}, "p2": {"articleBody": "one two three four"},
             "p3": {"articleBody": "x y z w"}}
    predictions = {"p1": {"articleBody": "a b c d x"},   # P = R = 1/2
                   "p2": {"articleBody": "one two three four"},  # exact: 1, 1
                   "p3": {"articleBody": ""}}  # no prediction: only recall counts, 0
    score = score_predictions(truth, predictions)
    assert score.precision == pytest.approx((0.5 + 1) / 2)
    assert score.recall == pytest.approx((0.5 + 1 + 0) / 3)
    assert score.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)
    assert score.accuracy == pytest.approx(1 / 3)
    wrapped = score_predictions(truth, {"version": "1", "output": predictions})
    assert wrapped.f1 == score.f1
    with pytest.raises(InputFileError, match="no entry for page p3"):
        score_predictions(truth, {"p1": predictions["p1"], "p2": predictions["p2"]})


def test_load_benchmark_checks_the_layout(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no ground-truth.json"):
        load_benchmark(tmp_path)
    (tmp_path / "ground-truth.json").write_text(json.dumps({"abc": {"articleBody": "x"}}))
    with pytest.raises(InputFileError, match="page abc has no html/abc.html.gz"):
        load_benchmark(tmp_path)


@pytest.mark.parametrize("raw", [b"{broken", b'{"abc": "\xff"}'])
def test_load_benchmark_refuses_unreadable_ground_truth(tmp_path: Path, raw: bytes) -> None:
    (tmp_path / "ground-truth.json").write_bytes(raw)  # not JSON; not UTF-8
    with pytest.raises(InputFileError, match=r"ground-truth.json: unreadable ground truth"):
        load_benchmark(tmp_path)
