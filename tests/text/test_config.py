"""Packaged defaults and the TOML overlay."""

from __future__ import annotations

from pathlib import Path

import pytest

from wps.config import default_config, load_config
from wps.errors import InputFileError, UsageError
from wps.filters import rules_from_config


def test_defaults_build_rules_for_both_levels() -> None:
    config = default_config()
    assert config["extract"]["extractor"] == "trafilatura"
    page_rules = rules_from_config(config["filters"]["page"])
    assert [rule.name for rule in page_rules] == [
        "min_length", "link_code_share", "long_block", "large_block_share", "list_table_share"]
    assert page_rules[0].min_tokens == 200  # the spec's page-level threshold
    assert rules_from_config(config["filters"]["segment"])


def test_user_file_overrides_only_its_keys(tmp_path: Path) -> None:
    path = tmp_path / "wps.toml"
    path.write_text('[extract]\nfavor_precision = true\n'
                    '[filters.segment]\nrules = ["min_length", "gopher_quality"]\n'
                    '[filters.segment.gopher_quality]\nmin_doc_words = 5\n'
                    '[later_stage]\nwindow = 3\n', encoding="utf-8")
    config = load_config(path)
    assert config["extract"]["favor_precision"] is True
    assert config["extract"]["extractor"] == "trafilatura"  # untouched default
    assert config["later_stage"] == {"window": 3}  # unknown sections pass through
    rules = rules_from_config(config["filters"]["segment"])
    assert [r.name for r in rules] == ["min_length", "gopher_quality"]
    assert rules[1].min_doc_words == 5 and rules[1].min_stop_words == 2


def test_bad_config_files_fail_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="config file not found"):
        load_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[extract\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="invalid TOML"):
        load_config(broken)
    typo = tmp_path / "typo.toml"
    typo.write_text("[extract]\nfavour_precision = true\n", encoding="utf-8")
    with pytest.raises(UsageError, match="unknown setting 'extract.favour_precision'"):
        load_config(typo)
    bad_rule = tmp_path / "rule.toml"
    bad_rule.write_text('[filters.page]\nrules = ["min_lenght"]\n', encoding="utf-8")
    with pytest.raises(UsageError, match="unknown filter rule 'min_lenght'"):
        rules_from_config(load_config(bad_rule)["filters"]["page"])
    bad_option = tmp_path / "option.toml"
    bad_option.write_text("[filters.page.min_length]\nmin_words = 3\n", encoding="utf-8")
    with pytest.raises(UsageError, match="has no option 'min_words'"):
        rules_from_config(load_config(bad_option)["filters"]["page"])
