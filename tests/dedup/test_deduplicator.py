"""The Deduplicator stage and its SQLite state: rules, restarts and concurrent writers."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from wps.dedup import Deduplicator, DedupSettings, site_of
from wps.dedup.store import DedupStore, default_store_path
from wps.errors import InputFileError, UsageError
from wps.model import Segment

ARTICLE_A = (
    "Rivers carve valleys over thousands of years as water moves sediment downstream. "
    "The process depends on the slope of the land, the volume of water and the hardness of "
    "the rock beneath the channel, which together decide how quickly a valley deepens."
)
ARTICLE_B = (
    "Bakers in the old town start work before dawn, mixing flour, water and salt by hand. "
    "Their loaves rest in wicker baskets for hours before they meet the heat of a wood oven "
    "that has burned since midnight, giving the crust its dark colour and smoky taste."
)
FOOTER = (
    "Copyright 2026 Example News Group. All rights reserved. Reproduction of any material "
    "from this site without written permission is prohibited. Contact the editors for help."
)


def _segments(*texts: str) -> list[Segment]:
    return [Segment(id=f"s{i}", polygons=[], text=text) for i, text in enumerate(texts)]


def test_site_is_the_host_name() -> None:
    assert site_of("https://News.Example.com:8080/a?b") == "news.example.com"
    assert site_of("not a url") == ""


def test_repeated_footer_is_dropped_on_the_second_page(tmp_path: Path) -> None:
    with Deduplicator(tmp_path / "state.sqlite3") as dedup:
        first = _segments(ARTICLE_A, FOOTER)
        dedup.process("https://example.com/a", first)
        assert all(s.kept for s in first) and first[1].stats["dup_chunk_share"] == 0.0
        second = _segments(ARTICLE_B, FOOTER)
        dedup.process("https://example.com/b", second)
    assert second[0].kept and second[0].stats["dup_chunk_share"] < 0.2
    footer = second[1]
    assert not footer.kept
    assert footer.stats["dup_chunk_share"] == 1.0
    assert set(footer.reasons) == {
        "dup_chunk_share",
        "near_duplicate_simhash",
        "near_duplicate_minhash",
    }
    assert footer.dup["simhash_match"] == {
        "url": "https://example.com/a",
        "segment_id": "s1",
        "distance": 0,
    }
    assert footer.dup["page_order"] > first[1].dup["page_order"]
    assert footer.simhash == first[1].simhash


def test_other_sites_and_reruns_do_not_match(tmp_path: Path) -> None:
    with Deduplicator(tmp_path / "state.sqlite3") as dedup:
        dedup.process("https://example.com/a", _segments(ARTICLE_A))
        elsewhere = _segments(ARTICLE_A)
        dedup.process("https://other.example.com/a", elsewhere)
        again = _segments(ARTICLE_A)
        dedup.process("https://example.com/a", again)  # same page, second run
    assert elsewhere[0].kept and again[0].kept
    assert again[0].stats["dup_chunk_share"] == 0.0


def test_partial_overlap_share_is_measured_in_bytes(tmp_path: Path) -> None:
    with Deduplicator(tmp_path / "state.sqlite3") as dedup:
        dedup.process("https://example.com/a", _segments(ARTICLE_A * 3))
        mixed = _segments(ARTICLE_A * 3 + " " + ARTICLE_B * 3)
        dedup.process("https://example.com/b", mixed)
    share = mixed[0].stats["dup_chunk_share"]
    assert 0.35 < share < 0.55  # about half the bytes repeat, minus the chunk at the seam


def test_near_duplicate_with_edits_is_found_by_minhash(tmp_path: Path) -> None:
    edited = ARTICLE_A.replace("thousands", "millions").replace("sediment", "sand and gravel")
    settings = DedupSettings(max_chunk_share=None, simhash_max_distance=None)
    with Deduplicator(tmp_path / "state.sqlite3", settings) as dedup:
        dedup.process("https://example.com/a", _segments(ARTICLE_A))
        second = _segments(edited, ARTICLE_B)
        dedup.process("https://example.com/b", second)
    assert second[0].reasons == ["near_duplicate_minhash"]
    assert second[0].dup["minhash_match"]["resemblance"] >= 0.35
    assert second[1].kept


@pytest.mark.parametrize("fraction, kept", [(0.05, True), (0.0, False)])
def test_frequent_shingles_are_ignored(tmp_path: Path, fraction: float, kept: bool) -> None:
    # every page repeats one boilerplate sentence; after a few pages its shingles are the site's
    # most frequent, so two different articles sharing only that sentence no longer resemble each
    # other
    # (without the removal they do: 15 shared of 39 shingles)
    boiler = "subscribe to our newsletter to get the latest stories from the whole team every week"
    settings = DedupSettings(
        max_chunk_share=None,
        simhash_max_distance=None,
        minhash_threshold=0.3,
        frequent_shingle_fraction=fraction,
    )
    with Deduplicator(tmp_path / "state.sqlite3", settings) as dedup:
        for index in range(30):
            words = " ".join(f"w{index}x{k}" for k in range(13))
            dedup.process(f"https://example.com/{index}", _segments(words + "\n" + boiler))
        probe = _segments(" ".join(f"fresh{k}" for k in range(13)) + "\n" + boiler)
        dedup.process("https://example.com/probe", probe)
    assert probe[0].kept is kept
    with DedupStore(tmp_path / "state.sqlite3") as store:
        assert store.frequent_shingle_limit("example.com", 0.05) == 1


def test_state_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with Deduplicator(path) as dedup:
        dedup.process("https://example.com/a", _segments(FOOTER))
    with Deduplicator(path) as dedup:
        second = _segments(FOOTER)
        dedup.process("https://example.com/b", second)
    assert "dup_chunk_share" in second[0].reasons


def _write_pages(path: str, worker: int, pages: int) -> None:
    with Deduplicator(path) as dedup:
        for index in range(pages):
            text = " ".join(f"worker{worker} page{index} word{k}" for k in range(40))
            dedup.process(f"https://example.com/{worker}/{index}", _segments(text))


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "state.sqlite3")
    DedupStore(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_pages, args=(path, w, 25)) for w in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 50
        assert connection.execute("SELECT COUNT(*) FROM simhashes").fetchone()[0] == 50
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Deduplicator(path) as dedup:  # every page of both workers is now known content
        for worker in range(2):
            for index in (0, 24):
                again = _segments(
                    " ".join(f"worker{worker} page{index} word{k}" for k in range(40))
                )
                dedup.process(f"https://example.com/copy/{worker}/{index}", again)
                assert again[0].stats["dup_chunk_share"] == 1.0


def test_bad_state_path_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_db = tmp_path / "junk.sqlite3"
    not_a_db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputFileError, match="junk.sqlite3"):
        Deduplicator(not_a_db)
    with pytest.raises(UsageError, match="max_chunk_share"):
        Deduplicator(tmp_path / "ok.sqlite3", DedupSettings(max_chunk_share=2.0))
    monkeypatch.setenv("WPS_DEDUP_DB", str(tmp_path / "env.sqlite3"))
    assert default_store_path() == tmp_path / "env.sqlite3"
