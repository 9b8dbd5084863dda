"""Reading, validating and writing the Webis segmentation JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wps.errors import InputFileError, SchemaError, UsageError
from wps.evaluation import evaluate, read_segmentations, write_segmentations
from wps.model import Segment, Segmentation
from wps.webis.segmentation_json import parse_segmentations, to_webis

RING = [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]


def _file(tmp_path: Path, data: object, name: str = "seg.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"id": "1", "width": 10, "height": 10.0, "segmentations": {}},
         "height must be a JSON integer"),
        ({"id": "1", "width": 1.5, "height": 10, "segmentations": {}},
         "width must be a JSON integer"),
        ({"id": 1, "width": 10, "height": 10, "segmentations": {}}, "id must be a string"),
        ({"width": 10, "height": 10, "segmentations": {}}, "missing required attribute 'id'"),
        ({"id": "1", "width": 10, "height": 10, "segmentations": {"a": [[[RING[:-1]]]]}},
         "not (all) closed"),
        ({"id": "1", "width": 10, "height": 10, "segmentations": {"a": [[[[[0, 0], [1, "x"]]]]]}},
         "at least 4 points"),
        ({"id": "1", "width": 0, "height": 10, "segmentations": {}}, "width must be positive"),
        ([], "top level must be a JSON object"),
    ],
)
def test_invalid_files_name_file_and_problem(tmp_path: Path, data: object, message: str) -> None:
    path = _file(tmp_path, data)
    with pytest.raises(SchemaError) as info:
        read_segmentations(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_not_json_and_missing_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(SchemaError, match="broken.json: not valid JSON"):
        read_segmentations(broken)
    with pytest.raises(InputFileError, match="missing.json: no such segmentation file"):
        read_segmentations(tmp_path / "missing.json")


def test_float_coordinates_are_accepted_and_round_trip(tmp_path: Path) -> None:
    data = {"id": "7", "width": 10, "height": 10,
            "segmentations": {"a": [[[[[0.5, 0.5], [0.5, 9.5], [9.5, 9.5], [0.5, 0.5]]]]],
                              "b": [[[RING]]]}}
    parsed = read_segmentations(_file(tmp_path, data))
    out = tmp_path / "out" / "copy.json"
    write_segmentations(parsed, out)
    text = out.read_text()
    assert '"width":10' in text and '"height":10' in text and " " not in text.strip()
    again = read_segmentations(out)
    assert again.segmentations == data["segmentations"]
    assert [p.name for p in out.parent.iterdir()] == ["copy.json"]  # no temp file left behind


def test_failed_write_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "never.json"
    with pytest.raises(SchemaError):
        write_segmentations({"id": "1", "width": 10.0, "height": 10, "segmentations": {}}, out)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_select_uses_regex_search(tmp_path: Path) -> None:
    data = {"id": "1", "width": 10, "height": 10,
            "segmentations": {"annotation-x.fitted": [], "annotation-y": []}}
    parsed = parse_segmentations(data)
    assert list(parsed.select("fitted").segmentations) == ["annotation-x.fitted"]
    assert parsed.select_one("y$")[0] == "annotation-y"
    with pytest.raises(UsageError, match="selected 2"):
        parsed.select_one("annotation")
    with pytest.raises(UsageError, match="invalid segmentation pattern"):
        parsed.select("(")


def test_in_memory_segmentation_from_the_page_model(webis_sample: Path) -> None:
    page = webis_sample / "000000"
    segmentation = Segmentation("000000", "whole", 1366, 5590,
                                [Segment.from_box("s1", (0.0, 0.0, 1366.0, 5590.0))])
    result = evaluate(to_webis(segmentation), page / "ground-truth.json",
                      size_functions=["pixels", "nodes"])
    assert result.algorithm == "whole"
    assert result.results["pixels"].precision == pytest.approx(0.226672052828432, abs=1e-12)
    assert result.results["nodes"].precision == pytest.approx(0.117554923117872, abs=1e-12)
    assert list(result.results) == ["pixels", "nodes"]
