"""All 110 rows of the R reference evaluations on page 000000, to 1e-9 (NaN == NaN)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from shared_data import WEBIS_SAMPLE

from wps.errors import SchemaError, UsageError
from wps.evaluation import SIZE_FUNCTIONS, evaluate

EXPECTED = WEBIS_SAMPLE / "reference-outputs" / "expected-evaluations.csv"
INPUTS = WEBIS_SAMPLE / "reference-outputs" / "algorithm-inputs"


def _rows() -> list[list[str]]:
    if not EXPECTED.is_file():
        return []
    with open(EXPECTED, newline="") as handle:
        return list(csv.reader(handle))[1:]


ROWS = _rows()
_RESULTS: dict[tuple[str, str, bool], object] = {}


def _evaluate(sample: Path, file: str, pattern: str, default: bool):
    key = (file, pattern, default)
    if key not in _RESULTS:  # one evaluation (all five size functions) per algorithm input
        _RESULTS[key] = evaluate(
            sample / file, sample / "000000" / "ground-truth.json",
            algorithm_segmentation=pattern, default_segmentation=default,
        )
    return _RESULTS[key]


def _close(expected: str, got: float) -> bool:
    if expected == "NA":
        return math.isnan(got)
    return not math.isnan(got) and abs(float(expected) - got) <= 1e-9


def test_reference_table_is_complete(webis_sample: Path) -> None:
    assert len(ROWS) == 110
    assert {row[3] for row in ROWS} == set(SIZE_FUNCTIONS)


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{r[3]}" for r in ROWS])
def test_reference_row(webis_sample: Path, row: list[str]) -> None:
    label, file, pattern, size_function, precision, recall, f1 = row
    default = "--default-segmentation" in pattern
    result = _evaluate(webis_sample, file, pattern.split(" ")[0], default)
    score = result.results[size_function]
    assert _close(precision, score.precision), (precision, score.precision)
    assert _close(recall, score.recall), (recall, score.recall)
    assert _close(f1, score.f1), (f1, score.f1)
    assert result.page_id == "000000" and result.ground_truth == "majority-vote"


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("baseline-floatheight.json", SchemaError, "height must be a JSON integer"),
        ("baseline-unclosed.json", SchemaError, "not (all) closed"),
        ("baseline-wrongid.json", SchemaError, "same ids only"),
        ("baseline-wrongheight.json", SchemaError, "same heights only"),
        ("empty.json", UsageError, "has no segments"),
    ],
)
def test_reference_error_inputs(webis_sample: Path, name: str, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        evaluate(INPUTS / name, webis_sample / "000000" / "ground-truth.json")
    text = str(info.value)
    assert name in text and message in text
    assert "\n" not in text


def test_pattern_must_select_exactly_one(webis_sample: Path) -> None:
    with pytest.raises(UsageError, match="annotations.json.*single segmentation.*selected 5"):
        evaluate(webis_sample / "000000" / "annotations.json",
                 webis_sample / "000000" / "ground-truth.json")
    with pytest.raises(UsageError, match="selected 0"):
        evaluate(INPUTS / "baseline.json", webis_sample / "000000" / "ground-truth.json",
                 algorithm_segmentation="nothing-matches")
