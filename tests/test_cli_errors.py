"""Bad input on every command: one ``wps: error: <input>: <cause>`` line, its exit code, no output.

Found in the QA pass: output paths that are folders, files or unwritable used to end in
``wps: internal error`` (an uncaught OSError) or, for ``wps dedup``, in a half-updated state.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from shared_data import WEBIS_SAMPLE, require_shared

from wps.cli import main
from wps.errors import InputFileError, OutputError, UsageError

SAMPLE = WEBIS_SAMPLE / "000000"
UNWRITABLE = "/proc/wps-qa/out"  # even root cannot create files under /proc


def _run(argv: list[str], capsys) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    return code, err


def _assert_one_error_line(code: int, err: str, expected_code: int, names: str) -> None:
    assert code == expected_code, err
    assert err.startswith("wps: error: ") and err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err
    assert names in err, err


@pytest.fixture
def segments_file(tmp_path: Path) -> Path:
    """A small segments.jsonl as ``wps segment`` writes it (with main_text and stats)."""
    path = tmp_path / "segments.jsonl"
    stats = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
             "list_table_share": 0.0, "largest_block": 40.0, "large_block_share": 0.0,
             "tokens": 40.0, "chars": 200.0, "main_tokens": 40.0, "main_chars": 200.0,
             "c4_lines_dropped": 0.0}
    text = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
            "it somewhere warm, and it will come back within a week or so.")
    lines = [{"url": "https://bakers.example/t/1", "id": str(i), "text": text, "main_text": text,
              "kept": True, "reasons": [], "stats": stats} for i in range(2)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _webis_input(tmp_path: Path) -> Path:
    require_shared(SAMPLE)
    target = tmp_path / "000000"
    shutil.copytree(SAMPLE, target)
    return target


@pytest.mark.parametrize("command", ["fit", "flatten", "fuse"])
@pytest.mark.parametrize("where", ["folder", "unwritable", "under-a-file"])
def test_eval_family_output_that_cannot_be_written(command, where, tmp_path, capsys):
    page = _webis_input(tmp_path)
    source = page / ("fitted-annotations.json" if command == "fuse" else "annotations.json")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    output = {"folder": tmp_path, "unwritable": Path(UNWRITABLE),
              "under-a-file": blocker / "out.json"}[where]
    code, err = _run([command, "--input", str(source), "--output", str(output)], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, str(output))
    assert blocker.read_text() == "x"
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


@pytest.mark.parametrize("where", ["a-file", "unwritable"])
def test_agreement_output_folder_that_cannot_be_written(where, tmp_path, capsys):
    page = _webis_input(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    output = blocker if where == "a-file" else Path(UNWRITABLE)
    code, err = _run(["agreement", "--input", str(page / "annotations.json"),
                      "--output", str(output)], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, str(output))
    assert blocker.read_text() == "x"


def test_fit_nodes_file_that_is_not_text(tmp_path, capsys):
    page = _webis_input(tmp_path)
    picture = page / "screenshot-edges-fine.png"
    code, err = _run(["fit", "--input", str(page / "annotations.json"), "--output",
                      str(tmp_path / "fitted.json"), "--nodes", str(picture)], capsys)
    _assert_one_error_line(code, err, 5, str(picture))
    assert not (tmp_path / "fitted.json").exists()


def test_filter_input_folder_and_output_folder(segments_file, tmp_path, capsys):
    code, err = _run(["filter", str(tmp_path), "--out", str(tmp_path / "x.jsonl")], capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code, str(tmp_path))
    before = segments_file.read_text()
    code, err = _run(["filter", str(segments_file), "--out", str(tmp_path)], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, str(tmp_path))
    code, err = _run(["filter", str(segments_file), "--out", UNWRITABLE], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, UNWRITABLE)
    assert segments_file.read_text() == before


def test_dedup_unwritable_output_leaves_the_state_untouched(segments_file, tmp_path, capsys):
    import sqlite3

    database = tmp_path / "state.sqlite3"
    code, err = _run(["dedup", str(segments_file), "--db", str(database), "--out", str(tmp_path)],
                     capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, str(tmp_path))
    if database.exists():  # the failed run recorded no page
        with sqlite3.connect(database) as connection:
            tables = {row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "pages" in tables:
                assert connection.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 0


def test_train_noise_with_too_few_examples_to_hold_out(tmp_path, capsys):
    training = tmp_path / "labels.jsonl"
    rows = [("Accept cookies", "noise"), ("The bread rose well overnight", "content"),
            ("Share on Twitter", 1), ("Feed it twice a day", 0)]
    training.write_text("".join(json.dumps({"text": t, "label": l}) + "\n" for t, l in rows))
    code, err = _run(["train-noise", str(training), "--out", str(tmp_path / "model")], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "held-out fraction 0.2 of 4 examples")
    assert not (tmp_path / "model").exists()
    code, err = _run(["train-noise", str(training), "--out", str(tmp_path / "model"),
                      "--held-out", "0"], capsys)
    assert code == 0 and (tmp_path / "model").is_dir(), err


@pytest.mark.parametrize("where", ["a-file", "unwritable"])
def test_batch_output_folder_that_cannot_be_written(where, tmp_path, capsys):
    urls = tmp_path / "urls.txt"
    urls.write_text("https://example.org/\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    output = blocker if where == "a-file" else Path(UNWRITABLE)
    code, err = _run(["batch", str(urls), "--out", str(output), "--no-progress"], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, f"{output}: ")
    assert blocker.read_text() == "x"


def test_segment_output_folder_that_cannot_be_written(tmp_path, capsys):
    page = _webis_input(tmp_path)
    code, err = _run(["segment", str(page), "--out", UNWRITABLE, "--segmenter", "baseline",
                      "--no-text"], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, UNWRITABLE)


@pytest.mark.parametrize("option, names", [
    ("iqr_k=abc", "dom-cohesion: option iqr_k must be a number, not 'abc'"),
    ("iqr_k=NaN", "dom-cohesion: option iqr_k must be a number, not nan"),
    ("nope=3", "dom-cohesion: unknown option 'nope'; choose from"),
    ("iqr_k=null", "dom-cohesion: option iqr_k must be a number, not None"),
    ("canny_low=1.5", "dom-cohesion: option canny_low must be an integer, not 1.5"),
    ("use_screenshot=1", "dom-cohesion: option use_screenshot must be true or false, not 1"),
])
def test_segmenter_option_of_the_wrong_type_or_name(option, names, tmp_path, capsys):
    page = _webis_input(tmp_path)
    code, err = _run(["segment", str(page), "--out", str(tmp_path / "out"), "--no-text",
                      "-O", option], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, names)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content", ["[]", '{"format": "wps-capture/1"}', "\u00ff"])
def test_capture_folder_with_a_malformed_capture_json(content, tmp_path, capsys):
    capture = tmp_path / "capture"
    capture.mkdir()
    (capture / "capture.json").write_text(content, encoding="latin-1")
    code, err = _run(["segment", str(capture), "--out", str(tmp_path / "out")], capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code, str(capture / "capture.json"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv, names", [
    (["eval", "--ground-truth", "g.json", "a.json", "--format", "xml"], "argument --format"),
    (["segment", "page.html", "--width", "wide"], "argument --width"),
    (["fit", "--input", "a.json"], "--output"),
    (["no-such-command"], "no-such-command"),
])
def test_usage_errors_are_one_line(argv, names, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    _assert_one_error_line(exit_info.value.code, err, UsageError.exit_code, names)


def test_every_option_is_described_with_its_default():
    import argparse

    from wps.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        text = command.format_help()
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"wps {name} {action.option_strings or action.dest}: no help"
            if action.option_strings and action.nargs != 0 and isinstance(
                    action.default, (int, float)) and not isinstance(action.default, bool):
                assert str(action.default) in text, f"wps {name} {action.option_strings}"


@pytest.mark.parametrize("command", ["agreement", "eval"])
def test_a_reader_that_stops_early_is_not_an_error(command, tmp_path):
    """``wps agreement ... | head -3``: stdout closed before wps writes: no traceback, exit 0."""
    import subprocess
    import sys

    page = _webis_input(tmp_path)
    argv = {"agreement": ["agreement", "--input", str(page / "fitted-annotations.json")],
            "eval": ["eval", "--ground-truth", str(page / "ground-truth.json"),
                     "--size-functions", "pixels", str(page / "ground-truth.json")]}[command]
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([sys.executable, "-m", "wps", *argv], stdout=write_end,
                                stderr=subprocess.PIPE, text=True, check=False, timeout=120)
    finally:
        os.close(write_end)
    assert result.stderr == "" and result.returncode == 0, result.stderr


@pytest.mark.parametrize("toml, names", [
    ('[filters.segment.min_length]\nmin_tokens = "abc"\n',
     "'filters.segment.min_length.min_tokens' must be an integer, not 'abc'"),
    ('[binoculars]\nbatch_size = 2.5\n', "'binoculars.batch_size' must be an integer, not 2.5"),
    ('[extract]\nfavor_precision = 1\n', "'extract.favor_precision' must be true or false, not 1"),
])
def test_config_with_a_wrong_type_or_an_unknown_table(toml, names, segments_file, tmp_path,
                                                      capsys):
    config = tmp_path / "bad.toml"
    config.write_text(toml, encoding="utf-8")
    output = tmp_path / "out.jsonl"
    code, err = _run(["filter", str(segments_file), "--config", str(config), "--out",
                      str(output)], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, f"{config}: ")
    assert names in err
    assert not output.exists()


@pytest.mark.parametrize("content, names", [
    (None, "is a folder"),
    ('{"text": 5, "label": 1}\n', ":1: 'text' must be a string, not 5"),
])
def test_train_noise_with_a_folder_or_a_non_text_example(content, names, tmp_path, capsys):
    training = tmp_path / "labels.jsonl"
    if content is None:
        training.mkdir()
    else:
        training.write_text(content, encoding="utf-8")
    code, err = _run(["train-noise", str(training), "--out", str(tmp_path / "model")], capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code, f"{training}")
    assert names in err


def test_train_noise_checks_its_output_before_training(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    training = tmp_path / "missing.jsonl"  # training would fail on this, after the output check
    code, err = _run(["train-noise", str(training), "--out", str(blocker)], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code,
                           f"{blocker}: exists and is not a folder")


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_eval_family_precision_must_be_finite(value, tmp_path, capsys):
    page = _webis_input(tmp_path)
    code, err = _run(["eval", "--ground-truth", str(page / "ground-truth.json"), "--precision",
                      value, "--size-functions", "pixels", str(page / "ground-truth.json")], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "precision")
    code, err = _run(["flatten", "--input", str(page / "annotations.json"), "--output",
                      str(tmp_path / "flat.json"), "--precision", value], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "precision")
    assert not (tmp_path / "flat.json").exists()
    code, err = _run(["fuse", "--input", str(page / "fitted-annotations.json"), "--output",
                      str(tmp_path / "fused.json"), "--disagreement-threshold", f"0.5,{value}"],
                     capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "disagreement thresholds")
    assert not (tmp_path / "fused.json").exists()
    code, err = _run(["fit", "--input", str(page / "annotations.json"), "--output",
                      str(tmp_path / "fitted.json"), "--tolerance", value], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "fit tolerance")
    assert not (tmp_path / "fitted.json").exists()


def test_train_noise_refuses_to_replace_a_folder_that_is_not_a_model(tmp_path, capsys):
    training = tmp_path / "labels.jsonl"
    rows = [("Accept cookies", "noise"), ("The bread rose well overnight", "content"),
            ("Share on Twitter", 1), ("Feed it twice a day", 0)]
    training.write_text("".join(json.dumps({"text": t, "label": l}) + "\n" for t, l in rows))
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    code, err = _run(["train-noise", str(training), "--out", str(precious), "--held-out", "0"],
                     capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "refusing to replace")
    assert [p.name for p in precious.iterdir()] == ["notes.txt"]
    model = tmp_path / "model"
    for _ in range(2):  # an earlier model folder is replaced
        assert _run(["train-noise", str(training), "--out", str(model), "--held-out", "0"],
                    capsys)[0] == 0


def test_a_folder_given_as_a_json_file_is_named_as_such(tmp_path, capsys):
    page = _webis_input(tmp_path)
    code, err = _run(["eval", "--ground-truth", str(page), str(page / "ground-truth.json")],
                     capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code,
                           f"{page}: is a folder, expected a segmentation file")
    assert "Errno" not in err


def test_segment_a_host_name_without_scheme_gets_a_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(["segment", "example.org", "--out", str(tmp_path / "out")], capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code,
                           "example.org: no such file or folder (a URL needs http:// or https://)")


def test_debug_works_before_or_after_the_command(tmp_path, capsys):
    missing = str(tmp_path / "missing.html")
    for argv in (["--debug", "segment", missing], ["segment", missing, "--debug"]):
        with pytest.raises(InputFileError):
            main([*argv, "--out", str(tmp_path / "out")])
    assert main(["segment", missing, "--out", str(tmp_path / "out")]) == InputFileError.exit_code


def test_batch_with_a_list_that_names_no_page(tmp_path, capsys):
    urls = tmp_path / "urls.txt"
    urls.write_text("# nothing yet\n\n", encoding="utf-8")
    code, err = _run(["batch", str(urls), "--out", str(tmp_path / "out"), "--no-progress"], capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code, f"{urls}: no URL or file listed")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("metadata", [b"[1]", b"\xff\xfe"])
def test_noise_model_with_malformed_metadata(metadata, tmp_path, capsys):
    page = _webis_input(tmp_path)
    model = tmp_path / "noise-model"
    model.mkdir()
    (model / "metadata.json").write_bytes(metadata)
    (model / "model.joblib").write_bytes(b"not a pickle")
    code, err = _run(["segment", str(page), "--out", str(tmp_path / "out"), "--noise-model",
                      str(model)], capsys)
    _assert_one_error_line(code, err, 20, f"{model}: ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line, names", [
    ({"url": "https://a.example/x", "text": "a", "main_text": "a", "stats": "x"},
     ":1: 'stats' must be a JSON object, not 'x'"),
    ({"url": "https://a.example/x", "text": ["a"], "main_text": "a", "stats": {}},
     ":1: 'text' must be a string, not ['a']"),
    ({"url": "https://a.example/x", "text": "a", "main_text": {"a": 1}, "stats": {}},
     ":1: 'main_text' must be a string"),
    ({"url": "https://a.example/x", "text": "a", "main_text": "a", "stats": {},
      "reasons": "abc"}, ":1: 'reasons' must be a list of strings, not 'abc'"),
])
@pytest.mark.parametrize("command", ["filter", "dedup"])
def test_segment_lines_with_fields_of_the_wrong_type(command, line, names, tmp_path, capsys):
    source = tmp_path / "segments.jsonl"
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    argv = [command, str(source), "--out", str(tmp_path / "out.jsonl")]
    if command == "dedup":
        argv += ["--db", str(tmp_path / "state.sqlite3")]
    code, err = _run(argv, capsys)
    _assert_one_error_line(code, err, InputFileError.exit_code, f"{source}{names}")
    assert not (tmp_path / "out.jsonl").exists()


def test_eval_takes_the_r_scripts_algorithm_and_output_options(tmp_path, capsys):
    page = _webis_input(tmp_path)
    truth, algorithm = page / "ground-truth.json", page / "ground-truth.json"
    common = ["--ground-truth", str(truth), "--size-functions", "pixels", "--format", "csv"]
    assert main(["eval", str(algorithm), *common]) == 0
    positional = capsys.readouterr().out
    output = tmp_path / "r.csv"
    assert main(["eval", "--algorithm", str(algorithm), *common, "--output", str(output)]) == 0
    assert capsys.readouterr().out == positional == output.read_text(encoding="utf-8")
    code, err = _run(["eval", str(algorithm), "--algorithm", str(algorithm), *common], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "either")
    code, err = _run(["eval", *common], capsys)
    _assert_one_error_line(code, err, UsageError.exit_code, "algorithm")
    code, err = _run(["eval", str(algorithm), *common, "--output", str(tmp_path)], capsys)
    _assert_one_error_line(code, err, OutputError.exit_code, str(tmp_path))
