"""``wps batch``'s own settings: the ``[batch]`` section of the run configuration (defaults only
in ``wps/defaults.toml``), overlaid by a ``--config`` file, then by the flags."""

from __future__ import annotations

import pytest

from wps.cli import build_parser
from wps.cli.batch import _batch_options
from wps.errors import UsageError
from wps.runner import BatchOptions
from wps.settings import packaged_config


def _batch(*argv: str) -> BatchOptions:
    args = build_parser().parse_args(["batch", "list.txt", "--out", "out", *argv])
    return _batch_options(args, workers=3, pages_per_browser=1)


def test_batch_options_take_their_defaults_from_the_packaged_section():
    packaged = packaged_config()["batch"]
    for options in (BatchOptions(), _batch()):
        assert {key: getattr(options, key) for key in packaged} == {
            key: None if value == "" else value for key, value in packaged.items()}
    assert (_batch().workers, _batch().pages_per_browser) == (3, 1)  # sized for the machine


def test_a_config_file_sets_batch_settings_and_flags_overlay_it(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text("[batch]\nrestart_every = 7\nper_host = 5\nrobots = false\nreports = true\n"
                    "overdue_grace_s = 4.5\n", encoding="utf-8")
    options = _batch("--config", str(user), "--restart-every", "9")
    assert (options.restart_every, options.per_host, options.robots, options.reports,
            options.overdue_grace_s) == (9, 5, False, True, 4.5)
    merged = _batch("--config", str(user), "--merged", "parquet", "--no-robots")
    assert (merged.merged, merged.merged_format, merged.robots) == (True, "parquet", False)


def test_a_batch_setting_of_the_wrong_type_fails_naming_it(tmp_path):
    user = tmp_path / "user.toml"
    user.write_text('[batch]\nper_host = "two"\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"batch\.per_host.* must be an integer"):
        _batch("--config", str(user))
