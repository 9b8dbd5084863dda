"""The Rabin chunker: equals the reference loop, ~96-byte chunks, re-synchronises after edits."""

from __future__ import annotations

import json
import random
import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
import xxhash

from wps.dedup import rabin
from wps.dedup.rabin import (
    MAX_CHUNK,
    WINDOW,
    chunk_boundaries,
    chunk_boundaries_reference,
    chunk_boundaries_sequential,
    chunk_bytes,
    chunk_digests,
    chunk_digests_numpy,
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


def _random_bytes(rng: random.Random, size: int) -> bytes:
    return rng.randbytes(size)


def _few_symbols(rng: random.Random, size: int) -> bytes:
    """One to four byte values: long candidate-free stretches or candidates every byte."""
    symbols = rng.sample(range(256), rng.randint(1, 4))
    return bytes(rng.choice(symbols) for _ in range(size))


def _periodic(rng: random.Random, size: int) -> bytes:
    """A repeated unit (boilerplate): chains of cuts that never meet, forced cuts every period."""
    unit = rng.randbytes(rng.randint(1, 800))
    return (unit * (size // len(unit) + 1))[:size]


def _runs(rng: random.Random, size: int) -> bytes:
    """Runs of one byte up to 900 long: forced cuts, and candidates just after them."""
    out = bytearray()
    while len(out) < size:
        out += bytes([rng.getrandbits(8)]) * rng.randint(1, 900)
    return bytes(out[:size])


def _islands(rng: random.Random, size: int) -> bytes:
    """Random stretches between zero gaps of 300-1,200 bytes: gaps just above and below the
    forced-cut distance."""
    out = bytearray()
    while len(out) < size:
        out += rng.randbytes(rng.randint(0, 200)) + bytes(rng.randint(300, 1200))
    return bytes(out[:size])


GENERATORS: dict[str, Callable[[random.Random, int], bytes]] = {
    "random": _random_bytes,
    "prose": lambda rng, size: _prose(rng.random(), size // 5)[:size],
    "few-symbols": _few_symbols,
    "periodic": _periodic,
    "runs": _runs,
    "islands": _islands,
}


@pytest.mark.parametrize("kind", GENERATORS)
def test_vectorised_cuts_equal_the_loops_on_random_inputs(kind: str) -> None:
    rng = random.Random(kind)
    for trial in range(40):
        data = GENERATORS[kind](rng, rng.choice([40, 400, 1500, 5000, 30_000]))
        for max_chunk in (MAX_CHUNK, 33, 100, 1000):
            ends = chunk_boundaries(data, max_chunk=max_chunk)
            assert ends == chunk_boundaries_sequential(data, max_chunk=max_chunk), (trial, data)
            if len(data) <= 5000:
                expected = chunk_boundaries_reference(data, max_chunk=max_chunk)
                assert ends == expected, (trial, max_chunk, data)


def test_vectorised_cuts_equal_the_loops_on_real_texts(article_benchmark: Path) -> None:
    truth = json.loads((article_benchmark / "ground-truth.json").read_text())
    bodies = [page["articleBody"] for page in truth.values() if page.get("articleBody")]
    assert len(bodies) > 100
    for body in bodies:
        data = normalise_text(body)
        ends = chunk_boundaries(data)
        assert ends == chunk_boundaries_sequential(data) == chunk_boundaries_reference(data)
    everything = "\n".join(bodies).encode()
    assert chunk_boundaries(everything) == chunk_boundaries_sequential(everything)


def _digests_by_definition(data: bytes, ends: list[int]) -> list[int]:
    return [xxhash.xxh3_64_intdigest(data[a:b]) for a, b in zip([0, *ends[:-1]], ends)]


@pytest.fixture(scope="module")
def compiled() -> Callable[[bytes, int], tuple[list[int], list[int]]]:
    """The compiled chunker, which is the one in use wherever numba is installed."""
    pytest.importorskip("numba", reason="the compiled chunker needs the fast extra (numba)")
    chunker = rabin._compiled()
    assert chunker is not None
    return chunker


@pytest.mark.parametrize("kind", GENERATORS)
def test_compiled_chunks_and_digests_equal_the_reference_loop(kind: str, compiled) -> None:
    rng = random.Random(f"compiled-{kind}")
    for trial in range(40):
        data = GENERATORS[kind](rng, rng.choice([0, 1, 31, 40, 400, 1500, 5000, 30_000]))
        for max_chunk in (MAX_CHUNK, 33, 100, 1000, 8):
            ends, digests = compiled(data, max_chunk)
            assert ends == chunk_boundaries_reference(data, max_chunk=max_chunk), (trial, data)
            assert digests == _digests_by_definition(data, ends)


def test_compiled_chunks_equal_the_numpy_form_on_real_texts(
    article_benchmark: Path, compiled
) -> None:
    truth = json.loads((article_benchmark / "ground-truth.json").read_text())
    bodies = [page["articleBody"] for page in truth.values() if page.get("articleBody")]
    everything = normalise_text("\n".join(bodies))
    assert compiled(everything, MAX_CHUNK) == chunk_digests_numpy(everything)
    assert chunk_digests(everything) == chunk_digests_numpy(everything)


def _lines_run_in_rabin(function: Callable[[], object]) -> int:
    """Python lines of wps/dedup/rabin.py executed by ``function()``."""
    lines = 0

    def trace(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace protocol
        nonlocal lines
        if frame.f_code.co_filename != rabin.__file__:
            return None
        if event == "line":
            lines += 1
        return trace

    sys.settrace(trace)
    try:
        function()
    finally:
        sys.settrace(None)
    return lines


def test_cut_selection_runs_no_python_loop_over_candidates() -> None:
    data = _prose(5, 200_000)  # 1 MB, ~16,000 candidates
    lines = _lines_run_in_rabin(lambda: chunk_boundaries(data))
    assert lines < 1_500, lines


def _normalise_by_definition(text: str) -> bytes:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().encode()


def test_normalise_text_equals_its_definition() -> None:
    spaces = "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace())
    rng = random.Random(6)
    alphabet = spaces + "ab\u00b4\u0301e\ufb01\u2026\u00a8\u3000\u1100\u1161\u11a8\n\n"
    texts = ["", " ", "\n\u0301", "e\n\u0301x", "\u00b4\n\u00b4 ", "A\u00a0b\u2028c\x1c d"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(2000)]
    for text in texts:
        assert normalise_text(text) == _normalise_by_definition(text), ascii(text)


def test_normalise_text_equals_its_definition_on_real_texts(article_benchmark: Path) -> None:
    truth = json.loads((article_benchmark / "ground-truth.json").read_text())
    bodies = [page.get("articleBody") or "" for page in truth.values()]
    assert sum(not body.isascii() for body in bodies) > 50
    for body in bodies:
        assert normalise_text(body) == _normalise_by_definition(body)
