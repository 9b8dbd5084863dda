"""``wps segment`` with the text step (--config, --keep-only, --extractor) and ``wps filter``."""

from __future__ import annotations

import json
from pathlib import Path

from wps.cli import main


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_segment_keep_only_and_refilter(webis_page: Path, tmp_path: Path, capsys) -> None:
    loose = tmp_path / "loose.toml"
    loose.write_text('[filters.segment]\nrules = ["main_text_overlap"]\n[decide]\nenabled = false\n',
                     encoding="utf-8")
    out = tmp_path / "all"
    assert main(["segment", str(webis_page), "--out", str(out), "--config", str(loose)]) == 0
    records = read_lines(out / "segments.jsonl")
    kept = [r for r in records if r["kept"]]
    page = json.loads((out / "main-text.json").read_text(encoding="utf-8"))
    assert page["extractor"] == "trafilatura" and page["blocks"] > 0
    assert page["matched"]["none"] == len(page["unaligned"])
    assert page["page_kept"] is False and "no_long_block" in page["page_reasons"]  # a short post
    assert page["segments"]["total"] == len(records)
    assert kept and len(kept) < len(records)
    assert all(r["main_text"] for r in kept)
    assert all(r["reasons"] == ["no_main_text"] for r in records if not r["kept"])
    assert all({"main_text_overlap", "link_share", "large_block_share"} <= set(r["stats"])
               for r in records)

    only = tmp_path / "only"
    assert main(["segment", str(webis_page), "--out", str(only), "--config", str(loose),
                 "--keep-only"]) == 0
    assert [r["segment_id"] for r in read_lines(only / "segments.jsonl")] == [
        r["segment_id"] for r in kept]

    # Stricter thresholds after the fact: a long minimum drops every segment of this page.
    strict = tmp_path / "strict.toml"
    strict.write_text('[filters.segment]\nrules = ["main_text_overlap", "min_length"]\n'
                      '[filters.segment.min_length]\nmin_tokens = 100000\n', encoding="utf-8")
    refiltered = tmp_path / "refiltered.jsonl"
    assert main(["filter", str(out / "segments.jsonl"), "--config", str(strict),
                 "--out", str(refiltered)]) == 0
    again = read_lines(refiltered)
    assert len(again) == len(records) and not any(r["kept"] for r in again)
    assert all("too_few_tokens" in r["reasons"] for r in again)


def test_bad_inputs_are_one_line_errors(webis_page: Path, tmp_path: Path, capsys) -> None:
    assert main(["filter", str(tmp_path / "none.jsonl")]) == 3
    assert "none.jsonl: no such file" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"segment_id": "x"}\n', encoding="utf-8")
    assert main(["filter", str(broken)]) == 3
    assert "line 1: no main_text/stats" in capsys.readouterr().err
    typo = tmp_path / "typo.toml"
    typo.write_text("[extract]\nextracter = 'newsfeed'\n", encoding="utf-8")
    assert main(["segment", str(webis_page), "--format", "json", "--config", str(typo)]) == 2
    assert "unknown setting 'extract.extracter'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
