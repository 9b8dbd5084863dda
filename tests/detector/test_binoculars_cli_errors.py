"""``wps binoculars`` with bad input: one error line, checked before the models load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wps.cli import main
from wps.errors import InputFileError, OutputError, UsageError


@pytest.fixture
def segments(tmp_path: Path) -> Path:
    path = tmp_path / "segments.jsonl"
    line = {"url": "https://bakers.example/", "id": "0", "kept": True,
            "main_text": "the bread was in the oven at night", "text": "the bread"}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def _one_line(capsys, code: int, expected: int, names: str) -> None:
    err = capsys.readouterr().err
    assert code == expected, err
    assert err.startswith("wps: error: ") and err.count("\n") == 1 and names in err, err


def test_unknown_device(tiny_models, segments, capsys):
    observer, performer = tiny_models
    code = main(["binoculars", str(segments), "--observer", str(observer), "--performer",
                 str(performer), "--device", "toaster"])
    _one_line(capsys, code, UsageError.exit_code, "'toaster'")


@pytest.mark.parametrize("problem", ["segments-folder", "segments-not-json", "segments-wrong-type",
                                     "output-folder"])
def test_inputs_and_output_are_checked_before_the_models_load(problem, segments, tmp_path,
                                                               capsys):
    missing = tmp_path / "no-model"  # loading would fail with a ModelError naming this folder
    source, output = segments, tmp_path / "scored.jsonl"
    if problem == "segments-folder":
        source = tmp_path
    elif problem == "segments-not-json":
        segments.write_text('{"url": "x"}\n{oops\n', encoding="utf-8")
    elif problem == "segments-wrong-type":
        segments.write_text('{"url": "x", "main_text": ["a list"]}\n', encoding="utf-8")
    else:
        output = tmp_path
    code = main(["binoculars", str(source), "--observer", str(missing), "--performer",
                 str(missing), "--out", str(output)])
    expected = OutputError.exit_code if problem == "output-folder" else InputFileError.exit_code
    _one_line(capsys, code, expected, str(output if problem == "output-folder" else source))


def test_loading_the_models_prints_no_progress_bars(tiny_models, segments, tmp_path, capsys):
    observer, performer = tiny_models
    code = main(["binoculars", str(segments), "--observer", str(observer), "--performer",
                 str(performer), "--device", "cpu", "--out", str(tmp_path / "scored.jsonl")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.startswith("wps binoculars: 1 lines") and err.count("\n") == 1, err
