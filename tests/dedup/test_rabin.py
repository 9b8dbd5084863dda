"""The Rabin chunker: equals the reference loop, ~96-byte chunks, re-synchronises after edits."""

from __future__ import annotations

import random

import pytest

from wps.dedup.rabin import (
    MAX_CHUNK,
    WINDOW,
    chunk_boundaries,
    chunk_boundaries_reference,
    chunk_bytes,
    chunk_text,
    normalise_text,
)

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which"
    " but have an they you were her she there one all we can river mountain"
).split()


def _prose(seed: int, words: int) -> bytes:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words)).encode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"short",
        b"x" * 1000,
        bytes(range(256)) * 40,
        _prose(1, 3000),
        bytes(random.Random(2).getrandbits(8) for _ in range(300_000)),
    ],
    ids=["empty", "short", "run", "cycle", "prose", "random-multiblock"],
)
def test_vectorised_boundaries_equal_reference_loop(data: bytes) -> None:
    assert chunk_boundaries(data) == chunk_boundaries_reference(data)


def test_chunk_sizes_follow_the_spec() -> None:
    data = _prose(3, 40_000)
    ends = chunk_boundaries(data)
    sizes = [b - a for a, b in zip([0] + ends[:-1], ends)]
    assert ends[-1] == len(data)
    assert all(size <= MAX_CHUNK for size in sizes)
    assert all(size >= WINDOW for size in sizes[:-1])
    assert 85 <= sum(sizes) / len(sizes) <= 110  # expected 32 + 64 = 96 bytes


def test_forced_cut_on_constant_bytes() -> None:
    # a run of one byte has one window hash: either every position is a candidate or none is
    ends = chunk_boundaries(b"x" * 1000)
    assert ends in ([384, 768, 1000], list(range(32, 1000, 32)) + [1000])


def test_chunks_resynchronise_after_an_insertion() -> None:
    original = _prose(4, 4000)
    edited = original[:500] + b"INSERTED three words" + original[500:]
    before = {chunk.digest for chunk in chunk_bytes(original)}
    after = chunk_bytes(edited)
    tail = [chunk for chunk in after if chunk.start >= 500 + 20 + MAX_CHUNK]
    assert tail and sum(chunk.digest in before for chunk in tail) >= len(tail) - 1
    assert sum(chunk.digest not in before for chunk in after) <= 3


def test_chunks_cover_the_text_and_digests_repeat() -> None:
    text = "Hello   world,\n\nthis is a paragraph " * 30
    chunks = chunk_text(text)
    data = normalise_text(text)
    assert b"".join(data[c.start : c.end] for c in chunks) == data
    assert [c.digest for c in chunk_text(text.replace("\n\n", " "))] == [c.digest for c in chunks]
    assert normalise_text("  A\u00a0b \n c ") == b"A b c"
