"""Files and options nobody vouches for: each failure is one ``wps: error:`` line with its exit
code, before anything slow starts and with nothing written.

1. JSON/TOML nested 100,000 deep is the reader's own error, never a RecursionError;
2. a ``segments.jsonl`` line without a field its reader needs (``text``, ``kept``) is refused;
3. ``wps filter`` judges a line by its own text, and checks the stored DOM statistics it takes;
4. a bad ``--config`` or an impossible ``--out`` stops ``wps segment``/``wps batch`` before the
   browser starts (a fake Chromium records whether it ran);
5. a capture or Webis page folder names only its own screenshot: no ``../``, absolute path or
   symlink (its outputs copy it), no file that is not an image.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from wps.cli import main
from wps.errors import DatasetError, InputFileError, OutputError, SchemaError, UsageError
from wps.files import iter_jsonl
from wps.jsonsafe import MAX_DEPTH, depth_bound, load_json_text, nesting_depth

DEEP_JSON = ["[" * 100_000, '{"a":' * 100_000, "[" * 100_000 + "]" * 100_000,
             "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)]
PAGE = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "forum.html"
TEXT = ("The starter doubled on day three, then slowed down. Feed it twice a day and keep "
        "it somewhere warm, and it will come back within a week or so.")
STATS = {"main_text_overlap": 1.0, "link_share": 0.0, "code_share": 0.0,
         "list_table_share": 0.0, "largest_block": 140.0, "large_block_share": 0.0,
         "tokens": 28.0, "chars": 140.0, "main_tokens": 28.0, "main_chars": 140.0}


def _one_error_line(capsys, code: int, expected: int, *names: str) -> str:
    err = capsys.readouterr().err
    assert code == expected, err
    assert err.startswith("wps: error: ") and err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    for name in names:
        assert name in err, err
    return err


def _line(**fields) -> dict:
    record = {"url": "https://bakers.example/t/1", "segment_id": "d:0000", "text": TEXT,
              "main_text": TEXT, "kept": True, "reasons": [], "stats": dict(STATS)}
    for key, value in fields.items():
        if value is None:
            record.pop(key)
        else:
            record[key] = value
    return record


def _jsonl(path: Path, *records: dict | str) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# 1. deep nesting -------------------------------------------------------------------------------

@pytest.mark.parametrize("text", DEEP_JSON, ids=["open", "objects", "closed", "just-over"])
def test_eval_on_deeply_nested_json_is_a_schema_error(text, tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text(text, encoding="utf-8")
    code = main(["eval", str(deep), "--ground-truth", str(deep)])
    _one_error_line(capsys, code, SchemaError.exit_code, f"{deep}: nested deeper than")


def test_brackets_inside_strings_are_not_nesting():
    text = json.dumps({"id": "[" * 5000 + "{" * 5000, "v": [[1]]})
    assert depth_bound(text) > MAX_DEPTH  # the fast bound is fooled, the exact check is not
    assert load_json_text(text, "x.json")["v"] == [[1]]
    assert nesting_depth(json.loads("[" * 50 + "]" * 50)) == 50


@pytest.mark.parametrize("command", ["filter", "dedup"])
def test_a_deeply_nested_jsonl_line_names_file_and_line(command, tmp_path, capsys):
    path = _jsonl(tmp_path / "segments.jsonl", _line(), '{"a":' * 100_000)
    extra = ["--db", str(tmp_path / "state.sqlite3")] if command == "dedup" else []
    code = main([command, str(path), *extra])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:2: nested deeper than")
    assert json.loads(path.read_text().splitlines()[0]) == _line()  # input untouched


def _with_huge_number(source: Path, path: Path) -> Path:
    """``source`` (Webis JSON) with one integer longer than Python converts to ``int``."""
    data = {"digits": 0, **json.loads(source.read_text(encoding="utf-8"))}
    path.write_text(json.dumps(data).replace('"digits": 0', '"digits": ' + "7" * 5000, 1),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["eval", "fit", "flatten", "fuse", "agreement"])
def test_a_number_past_the_int_digit_limit_is_a_schema_error(command, webis_page, tmp_path,
                                                               capsys):
    huge = _with_huge_number(webis_page / "fitted-annotations.json", tmp_path / "huge.json")
    out = tmp_path / "out.json"
    args = {"eval": ["eval", str(huge), "--ground-truth", str(webis_page / "ground-truth.json")],
            "fit": ["fit", "--input", str(huge), "--output", str(out),
                    "--nodes", str(webis_page / "nodes.csv")],
            "agreement": ["agreement", "--input", str(huge), "--resources-dir",
                          str(webis_page)]}.get(
                command, [command, "--input", str(huge), "--output", str(out)])
    code = main(args)
    _one_error_line(capsys, code, SchemaError.exit_code, f"{huge}: a number longer than 4300")
    assert not out.exists()


@pytest.mark.parametrize("command", ["filter", "dedup"])
def test_an_escaped_lone_surrogate_names_file_and_line(command, tmp_path, capsys):
    pair = _line(text=TEXT + " \U0001f600")  # an escaped pair is one character: fine
    path = _jsonl(tmp_path / "segments.jsonl", pair, _line(text=TEXT + " \ud800 end"))
    before = path.read_bytes()
    state = tmp_path / "state.sqlite3"
    code = main([command, str(path), *(["--db", str(state)] if command == "dedup" else [])])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:2: a string holds an "
                    "escaped lone surrogate")
    assert path.read_bytes() == before and not state.exists()


@pytest.mark.parametrize("line", ["not json", json.dumps(_line(text=None))])
def test_dedup_creates_no_state_for_an_input_it_refuses(line, tmp_path, capsys):
    path = _jsonl(tmp_path / "segments.jsonl", _line(), line)
    state = tmp_path / "state.sqlite3"
    code = main(["dedup", str(path), "--db", str(state)])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:2")
    assert not state.exists() and list(tmp_path.iterdir()) == [path]


def test_binoculars_checks_nesting_before_the_models(tmp_path, capsys):
    path = _jsonl(tmp_path / "segments.jsonl", "[" * 100_000)
    missing = tmp_path / "no-model"
    code = main(["binoculars", str(path), "--observer", str(missing), "--performer",
                 str(missing)])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:1: nested deeper than")


def test_iter_jsonl_still_names_bad_lines(tmp_path):
    path = _jsonl(tmp_path / "s.jsonl", "{}", "{broken")
    with pytest.raises(InputFileError, match=r"s.jsonl:2: not a JSON line"):
        list(iter_jsonl(path))


def test_deeply_nested_config_is_an_input_file_error(tmp_path, capsys):
    config = tmp_path / "deep.toml"
    config.write_text("a = " + "[" * 100_000, encoding="utf-8")
    segments = _jsonl(tmp_path / "segments.jsonl", _line())
    code = main(["filter", str(segments), "--config", str(config)])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{config}: nested deeper than")


def test_deeply_nested_capture_json_is_an_input_file_error(tmp_path, capsys):
    capture = tmp_path / "capture"
    capture.mkdir()
    (capture / "capture.json").write_text('{"nodes": ' + "[" * 100_000, encoding="utf-8")
    code = main(["segment", str(capture), "--format", "json", "--segmenter", "baseline"])
    _one_error_line(capsys, code, InputFileError.exit_code,
                    f"{capture / 'capture.json'}: nested deeper than")


def test_a_deeply_nested_segmenter_option_is_a_usage_error(capsys):
    code = main(["segment", str(PAGE), "--format", "json", "-O", "iqr_k=" + "[" * 100_000])
    _one_error_line(capsys, code, UsageError.exit_code, "--option iqr_k: nested deeper than")


# 2. missing fields -----------------------------------------------------------------------------

@pytest.mark.parametrize("command, field", [("filter", "text"), ("dedup", "text"),
                                            ("dedup", "kept"), ("binoculars", "text"),
                                            ("binoculars", "kept")])
def test_a_line_without_a_field_its_reader_needs_is_refused(command, field, tmp_path, capsys):
    path = _jsonl(tmp_path / "segments.jsonl", _line(), _line(**{field: None}))
    before = path.read_bytes()
    missing = tmp_path / "no-model"
    extra = {"filter": [], "dedup": ["--db", str(tmp_path / "state.sqlite3")],
             "binoculars": ["--observer", str(missing), "--performer", str(missing)]}[command]
    code = main([command, str(path), *extra])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:2: missing field {field!r}")
    assert path.read_bytes() == before


@pytest.mark.parametrize("command", ["dedup", "binoculars"])
def test_a_kept_that_is_not_a_boolean_is_refused(command, tmp_path, capsys):
    path = _jsonl(tmp_path / "segments.jsonl", _line(kept="false"))
    missing = tmp_path / "no-model"
    extra = {"dedup": ["--db", str(tmp_path / "state.sqlite3")],
             "binoculars": ["--observer", str(missing), "--performer", str(missing)]}[command]
    code = main([command, str(path), *extra])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:1: 'kept' must be true or")


def test_score_jsonl_checks_the_lines_too(tmp_path):
    from wps.detector.jsonl import score_jsonl

    path = _jsonl(tmp_path / "segments.jsonl", _line(text=None))
    with pytest.raises(InputFileError, match="segments.jsonl:1: missing field 'text'"):
        score_jsonl(path, scorer=None, destination=tmp_path / "out.jsonl")  # type: ignore[arg-type]
    assert not (tmp_path / "out.jsonl").exists()


# 3. wps filter judges the text, not stored counts ----------------------------------------------

def test_filter_recomputes_counts_from_the_text(tmp_path):
    long_text = "word " * 2_000_000
    few = dict(STATS, tokens=1.0, main_tokens=1.0, chars=4.0, main_chars=4.0)
    path = _jsonl(tmp_path / "segments.jsonl",
                  _line(text=long_text, main_text=long_text, stats=few, n_words=1, n_chars=4,
                        kept=False, reasons=["too_few_tokens"]))
    out = tmp_path / "out.jsonl"
    assert main(["filter", str(path), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["kept"] is True and record["reasons"] == []
    assert record["stats"]["main_tokens"] == record["stats"]["tokens"] == 2_000_000
    assert record["stats"]["main_chars"] == len(long_text)
    assert record["n_words"] == 2_000_000 and record["n_chars"] == len(long_text)


def test_filter_drops_short_text_whatever_the_stored_counts_say(tmp_path):
    many = dict(STATS, tokens=1e9, main_tokens=1e9)
    path = _jsonl(tmp_path / "segments.jsonl", _line(text="Log in", main_text="Log in",
                                                     stats=many))
    out = tmp_path / "out.jsonl"
    assert main(["filter", str(path), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["reasons"] == ["too_few_tokens"] and record["stats"]["main_tokens"] == 2


def test_a_stored_block_is_no_longer_than_the_main_text(tmp_path):
    config = tmp_path / "blocks.toml"
    config.write_text('[filters.segment]\nrules = ["long_block"]\n', encoding="utf-8")
    path = _jsonl(tmp_path / "segments.jsonl", _line(stats=dict(STATS, largest_block=1e9)))
    out = tmp_path / "out.jsonl"
    assert main(["filter", str(path), "--config", str(config), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["reasons"] == ["no_long_block"]  # 140 characters are no 250-character block
    assert record["stats"]["largest_block"] == len(TEXT)


@pytest.mark.parametrize("key, value, cause", [
    ("link_share", -0.5, "must be a share within [0, 1], not -0.5"),
    ("main_text_overlap", 7, "must be a share within [0, 1], not 7"),
    ("code_share", "0", "must be a finite number, not '0'"),
    ("link_share", True, "must be a finite number, not True"),
    ("largest_block", -1, "must be a count >= 0, not -1"),
    ("list_table_share", float("nan"), "must be a finite number, not nan"),
    ("link_share", None, "missing stats field 'link_share'"),
])
def test_stored_statistics_are_checked(key, value, cause, tmp_path, capsys):
    stats = dict(STATS)
    if value is None:
        stats.pop(key)
    else:
        stats[key] = value
    path = _jsonl(tmp_path / "segments.jsonl", _line(), _line(stats=stats))
    before = path.read_bytes()
    code = main(["filter", str(path)])
    _one_error_line(capsys, code, InputFileError.exit_code, f"{path}:2: ", cause)
    assert path.read_bytes() == before


def test_a_share_off_by_float_noise_is_taken_as_the_bound(tmp_path):
    path = _jsonl(tmp_path / "segments.jsonl", _line(stats=dict(STATS, main_text_overlap=1 + 1e-12)))
    assert main(["filter", str(path)]) == 0
    assert json.loads(path.read_text())["stats"]["main_text_overlap"] == 1.0


# 4. bad --config / --out before the browser ----------------------------------------------------

@pytest.fixture
def fake_chromium(tmp_path, monkeypatch) -> Path:
    """A 'Chromium' that records that it was started, then fails."""
    marker = tmp_path / "chromium-started"
    script = tmp_path / "fake-chromium"
    script.write_text(f"#!/bin/sh\necho started >> '{marker}'\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("WPS_CHROMIUM", str(script))
    return marker


CONFIGS = {
    "missing": (None, InputFileError, "config file not found"),
    "bad-toml": ("[extract\n", InputFileError, "invalid TOML"),
    "unknown-key": ("[extract]\nextracter = 'newsfeed'\n", UsageError, "unknown setting"),
    "wrong-type": ("[filters.segment.min_length]\nmin_tokens = '5'\n", UsageError,
                   "must be an integer"),
    "unknown-rule": ("[filters.segment]\nmin_tokens = 3\n", UsageError,
                     "unknown filter rule 'min_tokens'"),
    "rule-option-type": ("[filters.segment.gopher_repetition]\ndup_para_frac = 'many'\n",
                         UsageError, "'dup_para_frac' must be a number"),
    "extractor": ("[extract]\nextractor = 'readability'\n", UsageError,
                  "unknown extractor 'readability'"),
    "deep": ("a = " + "[" * 100_000, InputFileError, "nested deeper than"),
}


def _entries(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


@pytest.mark.parametrize("command", ["segment", "batch"])
@pytest.mark.parametrize("problem", sorted(CONFIGS))
def test_a_bad_config_fails_before_the_browser_starts(command, problem, fake_chromium, tmp_path,
                                                      capsys):
    content, error, cause = CONFIGS[problem]
    config = tmp_path / "wps.toml"
    if content is not None:
        config.write_text(content, encoding="utf-8")
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{PAGE}\n", encoding="utf-8")
    before = _entries(tmp_path)
    source = str(PAGE) if command == "segment" else str(urls)
    code = main([command, source, "--out", str(tmp_path / "out"), "--config", str(config),
                 *(["--no-progress"] if command == "batch" else [])])
    _one_error_line(capsys, code, error.exit_code, str(config), cause)
    assert not fake_chromium.exists()
    assert _entries(tmp_path) == before  # no output folder, no staging folder


def test_a_bad_config_is_refused_with_no_text_too(fake_chromium, tmp_path, capsys):
    config = tmp_path / "wps.toml"
    config.write_text("[filters.segment]\nmin_tokens = 3\n", encoding="utf-8")
    code = main(["segment", str(PAGE), "--out", str(tmp_path / "out"), "--no-text",
                 "--config", str(config)])
    _one_error_line(capsys, code, UsageError.exit_code, str(config))
    assert not fake_chromium.exists()


@pytest.mark.parametrize("command", ["segment", "batch"])
@pytest.mark.parametrize("where", ["under-a-file", "under-a-file-deeper", "proc", "a-file"])
def test_an_impossible_out_fails_before_the_browser_starts(command, where, fake_chromium,
                                                           tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    out = {"under-a-file": blocker / "out", "under-a-file-deeper": blocker / "a" / "out",
           "proc": Path("/proc/wps-qa/out"), "a-file": blocker}[where]
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{PAGE}\n", encoding="utf-8")
    before = _entries(tmp_path)
    source = str(PAGE) if command == "segment" else str(urls)
    code = main([command, source, "--out", str(out),
                 *(["--no-progress"] if command == "batch" else [])])
    # an existing file as the folder itself is a usage error for segment (as before)
    expected = UsageError if (where, command) == ("a-file", "segment") else OutputError
    _one_error_line(capsys, code, expected.exit_code, str(out))
    assert not fake_chromium.exists()
    assert _entries(tmp_path) == before and blocker.read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_out_under_a_read_only_folder_fails_before_the_browser_starts(fake_chromium, tmp_path,
                                                                         capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        code = main(["segment", str(PAGE), "--out", str(locked / "out")])
        _one_error_line(capsys, code, OutputError.exit_code, str(locked / "out"))
    finally:
        locked.chmod(0o755)
    assert not fake_chromium.exists() and not any(locked.iterdir())


def test_the_fake_browser_does_record_a_start(fake_chromium, tmp_path, capsys):
    """The control: with a good config and --out, the same command does start the browser."""
    config = tmp_path / "wps.toml"
    config.write_text("[filters.segment.min_length]\nmin_tokens = 3\n", encoding="utf-8")
    code = main(["segment", str(PAGE), "--out", str(tmp_path / "out"), "--config", str(config)])
    assert code != 0 and fake_chromium.exists(), capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# 5. a capture or page folder names only its own image files -----------------------------------

def _capture_folder(webis_page: Path, tmp_path: Path, screenshot: str) -> Path:
    """A real capture folder (the Webis sample page saved as one) whose ``capture.json`` names
    ``screenshot``."""
    from wps.webis import capture_from_webis

    folder = capture_from_webis(webis_page).save(tmp_path / "page" / "capture")
    meta = json.loads((folder / "capture.json").read_text(encoding="utf-8"))
    meta["screenshot"] = screenshot
    (folder / "capture.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def _png(path: Path) -> Path:
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(path)
    return path


@pytest.mark.parametrize("how", ["up", "absolute", "symlink", "not-an-image"])
def test_a_capture_folder_names_only_its_own_screenshot(how, webis_page, tmp_path, capsys):
    secret = _png(tmp_path / "secret.png")
    name = {"up": "../../secret.png", "absolute": str(secret)}.get(how, "screenshot.png")
    folder = _capture_folder(webis_page, tmp_path, name)
    if how == "symlink":
        (folder / "screenshot.png").symlink_to(secret)
    elif how == "not-an-image":
        (folder / "screenshot.png").write_text("<p>not a picture</p>", encoding="utf-8")
    out = tmp_path / "out"
    code = main(["segment", str(folder), "--out", str(out), "--segmenter", "baseline",
                 "--no-text"])
    _one_error_line(capsys, code, InputFileError.exit_code, str(folder))
    assert not out.exists()


def test_a_capture_folder_with_its_own_screenshot_is_copied(webis_page, tmp_path, capsys):
    folder = _capture_folder(webis_page, tmp_path, "screenshot.png")
    _png(folder / "screenshot.png")
    out = tmp_path / "out"
    code = main(["segment", str(folder), "--out", str(out), "--segmenter", "baseline",
                 "--no-text"])
    assert code == 0, capsys.readouterr().err
    assert (out / "capture" / "screenshot.png").read_bytes() == (
        folder / "screenshot.png").read_bytes()


def test_a_webis_page_folder_with_a_linked_screenshot_is_refused(webis_page, tmp_path, capsys):
    page = tmp_path / "000000"
    shutil.copytree(webis_page, page)
    (page / "screenshot.png").symlink_to(_png(tmp_path / "secret.png"))
    out = tmp_path / "out"
    code = main(["segment", str(page), "--out", str(out), "--segmenter", "baseline",
                 "--no-text"])
    _one_error_line(capsys, code, DatasetError.exit_code, str(page))
    assert not out.exists()
