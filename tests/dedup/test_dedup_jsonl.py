"""``wps dedup`` over segments.jsonl files of two runs sharing one state."""

from __future__ import annotations

import json
from pathlib import Path

from wps.cli import main

ARTICLE = (
    "Rivers carve valleys over thousands of years as water moves sediment downstream, and the"
    " slope of the land decides how quickly a valley deepens over time."
)
OTHER = (
    "Bakers in the old town start work before dawn, mixing flour, water and salt by hand before"
    " the loaves rest in wicker baskets for hours."
)
FOOTER = (
    "Copyright 2026 Example News Group. All rights reserved. Reproduction of any material from"
    " this site without written permission is prohibited."
)


def _write(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_two_runs_share_the_state(tmp_path: Path, capsys) -> None:
    db = tmp_path / "state.sqlite3"
    first = tmp_path / "run1.jsonl"
    _write(
        first,
        [
            {
                "url": "https://example.com/a",
                "segment_id": "a:0",
                "text": ARTICLE,
                "kept": True,
                "reasons": [],
            },
            {
                "url": "https://example.com/a",
                "segment_id": "a:1",
                "text": FOOTER,
                "kept": True,
                "reasons": [],
            },
        ],
    )
    assert main(["dedup", str(first), "--db", str(db)]) == 0
    assert all(r["kept"] for r in _read(first))
    second = tmp_path / "run2.jsonl"
    _write(
        second,
        [
            {
                "url": "https://example.com/b",
                "segment_id": "b:0",
                "text": OTHER,
                "kept": True,
                "reasons": [],
            },
            {
                "url": "https://example.com/b",
                "segment_id": "b:1",
                "text": FOOTER,
                "kept": False,
                "reasons": ["min_length"],
                "stats": {"n_words": 20},
            },
        ],
    )
    out = tmp_path / "out.jsonl"
    assert main(["dedup", str(second), "--db", str(db), "--out", str(out), "--no-minhash"]) == 0
    assert (
        "2 segments; newly dropped: dup_chunk_share 1, near_duplicate_simhash 1"
        in capsys.readouterr().err
    )
    records = _read(out)
    assert records[0]["kept"] and records[0]["dup"]["cdc_dup_frac"] < 0.2
    footer = records[1]
    assert footer["reasons"] == ["min_length", "dup_chunk_share", "near_duplicate_simhash"]
    assert footer["stats"] == {"n_words": 20, "dup_chunk_share": 1.0}
    assert footer["dup"]["simhash_match"]["segment_id"] == "a:1"
    assert footer["dup"]["minhash_match"] is None
    assert "dup" not in _read(second)[0]  # --out leaves the input alone


def test_bad_input_is_one_error_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "no url"}\n', encoding="utf-8")
    assert main(["dedup", str(path), "--db", str(tmp_path / "s.sqlite3")]) == 3
    assert "bad.jsonl:1: a segment line needs a 'url'" in capsys.readouterr().err
    assert (
        main(["dedup", str(path), "--db", str(tmp_path / "s.sqlite3"), "--max-chunk-share", "3"])
        == 2
    )


def test_config_table_sets_state_and_thresholds(tmp_path: Path) -> None:
    db = tmp_path / "from-config.sqlite3"
    config = tmp_path / "wps.toml"
    config.write_text(
        f'[dedup]\ndb = "{db}"\nmax_chunk_share = 1.0\nsimhash = false\nminhash = false\n',
        encoding="utf-8",
    )
    for page in ("a", "b"):
        path = tmp_path / f"{page}.jsonl"
        _write(path, [{"url": f"https://example.com/{page}", "text": FOOTER, "kept": True}])
        assert main(["dedup", str(path), "--config", str(config)]) == 0
    record = _read(tmp_path / "b.jsonl")[0]
    assert db.is_file()
    assert record["dup"]["cdc_dup_frac"] == 1.0 and record["kept"]      # 1.0 is not > 1.0
    assert record["dup"]["simhash_match"] is None                        # rule off
    assert main(["dedup", str(tmp_path / "b.jsonl"), "--config", str(config),
                 "--max-chunk-share", "0.5"]) == 0
    assert _read(tmp_path / "b.jsonl")[0]["reasons"] == ["dup_chunk_share"]
    config.write_text("[dedup]\nmax_chunk_shar = 1.0\n", encoding="utf-8")
    assert main(["dedup", str(tmp_path / "b.jsonl"), "--config", str(config)]) == 2
