"""The segments.jsonl round trip and the ``wps binoculars`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wps.cli import main
from wps.errors import InputFileError

LINES = [
    {
        "segment_id": "d:0000",
        "text": "the river was in the valley .",
        "main_text": "",
        "kept": True,
        "reasons": [],
    },
    {
        "segment_id": "d:0001",
        "text": "menu the of and",
        "main_text": "bakers bread oven flour salt",
        "kept": True,
        "reasons": [],
    },
    {"segment_id": "d:0002", "text": "the city library", "kept": False, "reasons": ["length"]},
    {"segment_id": "d:0003", "text": "  ", "main_text": "", "kept": True, "reasons": []},
]


def _write(path: Path) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_round_trip_scores_main_text_first(scorer, tmp_path: Path) -> None:
    from wps.detector import score_jsonl

    path = tmp_path / "segments.jsonl"
    _write(path)
    summary = score_jsonl(path, scorer)
    records = _read(path)
    assert [r["segment_id"] for r in records] == [line["segment_id"] for line in LINES]
    assert records[2]["binoculars"] == {"skipped": "not_kept"}
    assert records[3]["binoculars"] == {"skipped": "empty"}
    expected = scorer.score_texts([LINES[0]["text"], LINES[1]["main_text"]])
    for record, result in zip(records[:2], expected):
        verdict = record["binoculars"]
        assert verdict["score"] == pytest.approx(result.score, rel=1e-6)
        assert verdict["pred"] == result.prediction and verdict["mode"] == "low-fpr"
        assert verdict["threshold"] == scorer.threshold and verdict["truncated"] is False
    assert records[1]["binoculars"]["n_tokens"] == 5
    assert summary.lines == 4 and summary.scored == 2
    assert summary.skipped == {"not_kept": 1, "empty": 1}
    assert records[0]["text"] == LINES[0]["text"] and records[2]["reasons"] == ["length"]


def test_bad_lines_leave_no_output(scorer, tmp_path: Path) -> None:
    from wps.detector import score_jsonl

    path = tmp_path / "segments.jsonl"
    path.write_text(json.dumps(LINES[0]) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"segments.jsonl:2"):
        score_jsonl(path, scorer, tmp_path / "out.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["segments.jsonl"]


def test_cli_writes_out_file_and_in_place(tiny_models, tmp_path: Path, capsys) -> None:
    observer, performer = tiny_models
    path = tmp_path / "segments.jsonl"
    _write(path)
    out = tmp_path / "scored.jsonl"
    code = main(
        [
            "binoculars",
            str(path),
            "--observer",
            str(observer),
            "--performer",
            str(performer),
            "--out",
            str(out),
            "--mode",
            "accuracy",
            "--batch-size",
            "2",
            "--device",
            "cpu",
        ]
    )
    assert code == 0
    assert "4 lines, 2 scored" in capsys.readouterr().err
    assert _read(out)[0]["binoculars"]["mode"] == "accuracy"
    assert "binoculars" not in _read(path)[0]
    assert (
        main(
            [
                "binoculars",
                str(path),
                "--observer",
                str(observer),
                "--performer",
                str(performer),
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    assert _read(path)[0]["binoculars"]["threshold"] == 0.8536432310785527


def test_cli_errors_are_one_line(tiny_models, tmp_path: Path, capsys) -> None:
    observer, _ = tiny_models
    path = tmp_path / "segments.jsonl"
    _write(path)
    code = main(
        [
            "binoculars",
            str(path),
            "--observer",
            str(observer),
            "--performer",
            str(tmp_path / "missing-model"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 20 and err.startswith("wps: error: ") and "missing-model" in err
    assert (
        main(
            [
                "binoculars",
                str(tmp_path / "nope.jsonl"),
                "--observer",
                str(observer),
                "--performer",
                str(observer),
            ]
        )
        == 3
    )


def test_cli_reads_the_binoculars_config_table(tiny_models, tmp_path: Path) -> None:
    observer, performer = tiny_models
    path = tmp_path / "segments.jsonl"
    _write(path)
    config = tmp_path / "wps.toml"
    config.write_text('[binoculars]\nmode = "accuracy"\nmax_tokens = 4\ndevice = "cpu"\n')
    args = ["binoculars", str(path), "--observer", str(observer), "--performer", str(performer)]
    assert main([*args, "--config", str(config)]) == 0
    first = _read(path)[0]["binoculars"]  # 7 tokens: two windows of at most 4, pooled
    assert first["mode"] == "accuracy" and first["n_tokens"] == 7 and not first["truncated"]
    assert first["windows"] == 2
    assert main([*args, "--config", str(config), "--first-window"]) == 0
    first = _read(path)[0]["binoculars"]  # as the reference: the first 4 tokens only
    assert first["n_tokens"] == 4 and first["truncated"] and "windows" not in first
    assert main([*args, "--config", str(config), "--mode", "low-fpr", "--max-tokens", "512"]) == 0
    assert _read(path)[0]["binoculars"]["mode"] == "low-fpr"
    config.write_text('[binoculars]\nmode = "fast"\n')
    assert main([*args, "--config", str(config)]) == 2


UNIT_LINES = [
    {"segment_id": "a:0000", "page_id": "a", "text": "the river ran through the valley .",
     "main_text": "", "kept": True, "reasons": [], "unit": "article"},
    {"segment_id": "a:0001", "page_id": "a", "text": "a reply about bread", "main_text": "",
     "kept": True, "reasons": [], "unit": "post-1"},
    {"segment_id": "a:0002", "page_id": "a", "text": "the city library opened in the town .",
     "main_text": "", "kept": True, "reasons": [], "unit": "article"},
    {"segment_id": "b:0000", "page_id": "b", "text": "bakers bread oven flour salt",
     "main_text": "", "kept": True, "reasons": [], "unit": "article"},
    {"segment_id": "b:0001", "page_id": "b", "text": "the menu of the day", "main_text": "",
     "kept": False, "reasons": ["not_prose"], "unit": None},
]


def test_a_unit_is_scored_as_one_text_and_never_across_pages(scorer, tmp_path: Path,
                                                            monkeypatch) -> None:
    """The pieces of a page's article are judged joined, in file order, each post alone, and a
    window of lines never cuts a page's unit apart (here: a window of one line)."""
    from wps.detector import jsonl, score_jsonl

    monkeypatch.setattr(jsonl, "WINDOW_LINES", 1)
    path = tmp_path / "segments.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in UNIT_LINES), encoding="utf-8")
    summary = score_jsonl(path, scorer)
    records = _read(path)
    article, post, page_b = scorer.score_texts([
        UNIT_LINES[0]["text"] + "\n" + UNIT_LINES[2]["text"], UNIT_LINES[1]["text"],
        UNIT_LINES[3]["text"]])
    assert records[0]["binoculars"] == records[2]["binoculars"]
    assert records[0]["binoculars"]["score"] == pytest.approx(article.score, rel=1e-6)
    assert records[0]["binoculars"]["pieces"] == 2
    assert records[0]["binoculars"]["n_tokens"] == article.n_tokens
    assert records[1]["binoculars"]["score"] == pytest.approx(post.score, rel=1e-6)
    assert "pieces" not in records[1]["binoculars"]
    assert records[3]["binoculars"]["score"] == pytest.approx(page_b.score, rel=1e-6)
    assert records[4]["binoculars"] == {"skipped": "not_kept"}
    assert (summary.lines, summary.scored, summary.units) == (5, 4, 3)
