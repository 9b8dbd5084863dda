"""The CLI frame: every WpsError is one line on stderr with its exit code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from wps.cli import build_parser, main
from wps.errors import DatasetError, UnknownSegmenterError
from wps.segmenters import build_segmenter, segmenter_names


def test_every_command_module_registers(capsys):
    """Each module of wps/cli/ with a ``register`` function adds a subcommand that ``wps`` has,
    that ``wps --help`` lists and whose ``--help`` works; ``wps`` has no other subcommand."""
    import argparse
    import importlib
    import re
    from pathlib import Path

    import wps.cli

    registered: dict[str, list[str]] = {}
    for path in sorted(Path(wps.cli.__file__).parent.glob("*.py")):
        module = importlib.import_module(f"wps.cli.{path.stem}")
        if path.stem.startswith("_") or not callable(getattr(module, "register", None)):
            continue
        probe = argparse.ArgumentParser().add_subparsers()
        module.register(probe)
        registered[path.stem] = sorted(probe.choices)
    assert "capture" in registered and "segment" in registered  # the folder was read
    missing = [name for name, commands in registered.items() if not commands]
    assert not missing, f"modules that register no subcommand: {missing}"

    parser = build_parser()
    assert parser.prog == "wps"
    commands = next(action for action in parser._actions
                    if isinstance(action, argparse._SubParsersAction)).choices
    expected = {command for names in registered.values() for command in names}
    assert set(commands) == expected

    try:
        main(["--help"])
    except SystemExit as exit_:
        assert exit_.code == 0
    else:
        raise AssertionError("wps --help did not exit")
    listed = set(re.findall(r"^    (\S+)", capsys.readouterr().out, flags=re.MULTILINE))
    assert listed == expected
    for command in sorted(expected):
        try:
            main([command, "--help"])
        except SystemExit as exit_:
            assert exit_.code == 0, command
        else:
            raise AssertionError(f"wps {command} --help did not exit")
        assert capsys.readouterr().out.startswith(f"usage: wps {command} "), command


def test_registry_knows_baseline_and_rejects_unknown():
    assert "baseline" in segmenter_names()
    try:
        build_segmenter("no-such-segmenter")
    except UnknownSegmenterError as err:
        assert "no-such-segmenter" in str(err) and "baseline" in str(err)
    else:
        raise AssertionError("unknown segmenter accepted")


def test_error_becomes_one_line_and_exit_code(capsys, monkeypatch):
    import argparse

    def failing(args: argparse.Namespace) -> int:
        raise DatasetError("/x/000000: no nodes.csv")

    parser = build_parser()
    monkeypatch.setattr("wps.cli.build_parser", lambda: _with_failing(parser, failing))
    assert main(["fail"]) == DatasetError.exit_code
    err = capsys.readouterr().err
    assert err == "wps: error: /x/000000: no nodes.csv\n"


def _with_failing(parser, run):
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    subparsers.add_parser("fail").set_defaults(run=run)
    return parser


def test_console_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "wps", "--help"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0 and "COMMAND" in result.stdout


def test_version_prints_the_package_version(capsys):
    import wps

    try:
        main(["--version"])
    except SystemExit as stop:
        assert stop.code == 0
    assert capsys.readouterr().out.strip() == f"wps {wps.__version__}"


@pytest.mark.parametrize("argv, expected", [
    (["segment", "page.html", "--out", "o", "--segmentr", "xycut"],
     "wps: error: segment: unrecognized arguments: --segmentr xycut; did you mean --segmenter?"),
    (["segmnt", "page.html"], "; did you mean segment?"),
    (["batch", "list.txt", "--out", "o", "--wokers", "2"], "did you mean --workers?"),
])
def test_usage_errors_name_the_command_once_and_suggest_the_close_option(argv, expected, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert expected in err and err.count("\n") == 1, err
    assert "error: wps" not in err  # the program name is not repeated after the prefix


def test_unknown_option_with_nothing_close_gets_no_suggestion(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--zzzzzz"])
    assert "did you mean" not in capsys.readouterr().err


def test_segment_help_lists_every_registered_segmenter(capsys):
    with pytest.raises(SystemExit):
        main(["segment", "--help"])
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps the help text
    for name in segmenter_names():
        assert name in shown


def test_quiet_and_verbose(webis_page, tmp_path, capsys):
    """``-q``: errors only; default: what was written where; ``-v``: each page of a batch."""
    out = ["--out", str(tmp_path / "o"), "--segmenter", "baseline"]
    assert main(["segment", str(webis_page), *out]) == 0
    assert "segments (baseline)" in capsys.readouterr().err
    assert main(["-q", "segment", str(webis_page), *out]) == 0
    assert capsys.readouterr().err == ""
    assert main(["segment", "-q", str(tmp_path / "missing.html"), *out]) == 3
    assert capsys.readouterr().err.startswith("wps: error: ")  # errors still show
    listing = tmp_path / "list.txt"
    listing.write_text(f"{tmp_path / 'missing.html'}\n", encoding="utf-8")
    assert main(["batch", str(listing), "--out", str(tmp_path / "b"), "-v"]) == 9
    err = capsys.readouterr().err
    assert f"wps: {tmp_path / 'missing.html'}: failed (" in err and "batch: 1 pages" in err
    assert main(["-q", "batch", str(listing), "--out", str(tmp_path / "b2")]) == 9
    assert capsys.readouterr().err == ""
