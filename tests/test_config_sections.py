"""The typed run configuration: every default in ``wps/defaults.toml``, one overlay order
(packaged profile, ``--config`` file, flags), one dedup state channel, ``wps config show``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from wps.cli import build_parser, main
from wps.cli.segment import pipeline_options_from_args
from wps.config import load_config
from wps.errors import UsageError
from wps.pipeline import build_steps
from wps.settings import packaged_config, run_config, to_toml


def _options(*argv: str):
    args = build_parser().parse_args(["segment", "page.html", "--out", "out", *argv])
    return pipeline_options_from_args(args)


def _shown(capsys, *argv: str) -> dict:
    assert main(["config", "show", *argv]) == 0
    return tomllib.loads(capsys.readouterr().out)


def test_config_show_prints_the_packaged_defaults_without_flags(capsys):
    shown = _shown(capsys)
    assert shown.pop("profile") == "detector"
    assert shown == packaged_config()


def test_config_show_overlays_flags_on_the_file_on_the_profile(tmp_path, capsys):
    user = tmp_path / "user.toml"
    user.write_text("[capture]\nviewport_width = 900\nsettle_s = 2.0\n[run]\ntimeout_s = 9.0\n",
                    encoding="utf-8")
    shown = _shown(capsys, "--profile", "article", "--config", str(user), "--width", "1000",
                   "--dedup-db", str(tmp_path / "state.sqlite3"))
    article = load_config(profile="article")
    assert shown["extract"] == article["extract"]
    assert shown["capture"]["viewport_width"] == 1000          # the flag beats the file
    assert shown["capture"]["settle_s"] == 2.0                 # the file beats the profile
    assert shown["run"]["timeout_s"] == 9.0
    assert shown["dedup"]["db"] == str(tmp_path / "state.sqlite3")


def test_config_show_output_is_a_config_file(tmp_path, capsys):
    shown = _shown(capsys, "--timeout", "7", "--profile", "article")
    saved = tmp_path / "shown.toml"
    saved.write_text(to_toml(shown), encoding="utf-8")
    assert _shown(capsys, "--config", str(saved)) == shown


def test_capture_settings_of_a_config_file_reach_the_capture_options(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[capture]\nviewport_width = 900\nuser_agent = \"probe\"\n"
                    "[run]\ntimeout_s = 11.0\n", encoding="utf-8")
    options = _options("--config", str(user))
    assert options.capture_options.viewport_width == 900
    assert options.capture_options.user_agent == "probe"
    assert options.timeout_s == 11.0
    assert _options("--config", str(user), "--timeout", "4").timeout_s == 4.0


def test_the_dedup_state_file_of_a_config_file_turns_the_dedup_step_on(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text(f"[dedup]\ndb = \"{tmp_path / 'config.sqlite3'}\"\n", encoding="utf-8")
    options = _options("--config", str(user))
    assert options.dedup_path() == tmp_path / "config.sqlite3"
    assert [step.name for step in build_steps(options)][-1] == "dedup"
    flagged = _options("--config", str(user), "--dedup-db", str(tmp_path / "flag.sqlite3"))
    assert flagged.dedup_path() == tmp_path / "flag.sqlite3"
    assert "dedup" not in [step.name for step in build_steps(_options())]


def test_where_the_dedup_state_is_does_not_change_the_output_key(tmp_path):
    one = _options("--dedup-db", str(tmp_path / "a.sqlite3"))
    other = _options("--dedup-db", str(tmp_path / "b.sqlite3"), "--timeout", "5")
    assert one.output_key() == other.output_key() != _options().output_key()


@pytest.mark.parametrize("section, key, value, expected", [
    ("capture", "viewport_width", True, "an integer"),
    ("run", "timeout_s", "30", "a number"),
    ("dedup", "max_chunk_share", float("nan"), "a number"),
    ("capture", "frames", 3, "a string"),
])
def test_every_setting_keeps_its_defaults_type(section, key, value, expected):
    config = packaged_config()
    config[section][key] = value
    with pytest.raises(UsageError, match=f"'{section}.{key}' must be {expected}"):
        run_config(config, "test")


def test_a_config_file_of_the_wrong_type_fails_when_read(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[capture]\nscroll_always = 1\n", encoding="utf-8")
    with pytest.raises(UsageError, match="'capture.scroll_always' must be true or false"):
        load_config(Path(user))


def test_the_segmenter_and_its_options_come_from_the_file_then_the_flags(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[segmenter]\nname = \"xycut\"\n[segmenter.options]\nmin_segments = 4\n",
                    encoding="utf-8")
    from_file = _options("--config", str(user))
    assert (from_file.segmenter, from_file.segmenter_options) == ("xycut", {"min_segments": 4})
    flagged = _options("--config", str(user), "-O", "min_segments=6")
    assert flagged.segmenter_options == {"min_segments": 6}
    other = _options("--config", str(user), "--segmenter", "dom-cohesion", "-O", "iqr_k=3")
    assert (other.segmenter, other.segmenter_options) == ("dom-cohesion", {"iqr_k": 3})


def test_a_segmenter_option_of_the_file_is_checked_against_the_segmenters_default(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[segmenter.options]\niqr_k = \"wide\"\n", encoding="utf-8")
    with pytest.raises(UsageError, match="dom-cohesion: option iqr_k must be a number"):
        _options("--config", str(user))


@pytest.mark.parametrize("argv, names", [
    (["--timeout", "0"], "--timeout must be a finite number > 0"),
    (["-O", "nope=1"], "dom-cohesion: unknown option 'nope'"),
    (["--frames", "some"], "frames must be one of"),
])
def test_config_show_refuses_what_a_run_would_refuse(argv, names, capsys):
    assert main(["config", "show", *argv]) == UsageError.exit_code
    captured = capsys.readouterr()
    assert captured.out == "" and names in captured.err
