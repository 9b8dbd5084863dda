"""Content-defined chunking with a rolling polynomial hash: 32-byte window, 96-byte target.

Manber-style anchors (text-and-filters.md §4.1): a cut falls after byte ``i`` when the hash of the
last ``WINDOW`` bytes, multiplied by an odd mixing constant, has its top 6 bits zero (probability
1/64), and at least ``WINDOW`` bytes lie since the previous cut; a chunk never exceeds ``MAX_CHUNK``
bytes. Expected chunk length is 32 + 64 = 96 bytes. Because cuts depend only on the last 32 bytes,
chunks after an edit re-synchronise, so a page that repeats another page's paragraph repeats its
chunk digests.

No package supports a 96-byte target (fastcdc, pyfastcdc enforce >= 256 B), so the hash is written
here, vectorised with numpy: the window hash of every position is computed at once by doubling
(``H_2m(i) = H_m(i) + B^m * H_m(i - m)``, five multiply-adds for W = 32, wrapping mod 2^64
natively), and a short Python loop walks only the sparse candidate positions. The reference loop
resets the hash at each cut, but a cut needs a full window since the previous cut, so the hash it
tests is always the plain sliding-window hash: both give identical boundaries
(``tests/dedup/test_rabin.py`` checks this against :func:`chunk_boundaries_reference`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import xxhash

__all__ = [
    "WINDOW",
    "MAX_CHUNK",
    "BASE",
    "MIX",
    "Chunk",
    "normalise_text",
    "chunk_boundaries",
    "chunk_boundaries_reference",
    "chunk_digests",
    "chunk_bytes",
    "chunk_text",
]

WINDOW = 32
"""Bytes in the rolling window (and the minimum chunk length, except a text's last chunk)."""
MAX_CHUNK = 384
"""Forced cut at 4x the 96-byte target."""
BASE = 0xBF58476D1CE4E5B9
"""Large odd 64-bit multiplier of the polynomial hash."""
MIX = 0x9E3779B97F4A7C15
"""Odd constant (golden ratio) that spreads the hash into its top bits before the cut test."""
CUT_LIMIT = 1 << 58
"""``(h * MIX) mod 2^64 < 2^58`` is the same as "top 6 bits zero": cut probability 1/64."""
_BLOCK = 1 << 18
"""Bytes hashed per numpy pass; keeps the uint64 temporaries in cache."""

_MASK64 = (1 << 64) - 1
_WHITESPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Chunk:
    """One content-defined chunk: its place in the normalised UTF-8 bytes and its 64-bit digest."""

    start: int
    end: int
    digest: int
    """``xxhash.xxh3_64`` of the chunk's bytes (unsigned)."""

    @property
    def size(self) -> int:
        return self.end - self.start


def normalise_text(text: str) -> bytes:
    """UTF-8 bytes of NFKC text with whitespace runs collapsed to one space, so layout changes
    (line breaks, indentation) do not hide a repeated paragraph."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().encode("utf-8")


def _window_hashes(block: np.ndarray) -> np.ndarray:
    """Window hash ``sum_k block[i-k] * BASE^k`` (k < WINDOW) for every ``i >= WINDOW-1``."""
    hashes = block.astype(np.uint64)
    scratch = np.empty_like(hashes)
    span = 1
    with np.errstate(over="ignore"):
        while span < WINDOW:
            power = np.uint64(pow(BASE, span, 1 << 64))
            np.multiply(hashes[:-span], power, out=scratch[: len(hashes) - span])
            hashes[span:] += scratch[: len(hashes) - span]
            span *= 2
    return hashes[WINDOW - 1 :]


def _cut_candidates(data: bytes) -> np.ndarray:
    """Positions ``i`` (int64, ascending) whose window ending at ``i`` passes the 1/64 cut test."""
    array = np.frombuffer(data, dtype=np.uint8)
    found: list[np.ndarray] = []
    mix = np.uint64(MIX)
    limit = np.uint64(CUT_LIMIT)
    # Each block re-reads the WINDOW-1 bytes before it, so every window is hashed exactly once.
    for block_start in range(0, max(len(array) - WINDOW + 1, 0), _BLOCK):
        block = array[block_start : block_start + _BLOCK + WINDOW - 1]
        hashes = _window_hashes(block)
        with np.errstate(over="ignore"):
            np.multiply(hashes, mix, out=hashes)
        hits = np.flatnonzero(hashes < limit)
        if hits.size:
            found.append(hits + (block_start + WINDOW - 1))
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def chunk_boundaries(data: bytes, *, max_chunk: int = MAX_CHUNK) -> list[int]:
    """End offsets (exclusive) of the chunks of ``data``; the last one is ``len(data)``.

    Vectorised equivalent of :func:`chunk_boundaries_reference` (window fixed at ``WINDOW``).
    """
    window = WINDOW
    ends: list[int] = []
    start = 0
    for position in _cut_candidates(data).tolist():
        while position - start + 1 > max_chunk:
            start += max_chunk
            ends.append(start)
        if position - start + 1 >= window:
            start = position + 1
            ends.append(start)
    while len(data) - start > max_chunk:
        start += max_chunk
        ends.append(start)
    if start < len(data):
        ends.append(len(data))
    return ends


def chunk_boundaries_reference(
    data: bytes, *, window: int = WINDOW, max_chunk: int = MAX_CHUNK
) -> list[int]:
    """The byte-at-a-time loop of text-and-filters.md §4.1, hash reset at each cut (slow; tests)."""
    power = pow(BASE, window - 1, 1 << 64)
    ends: list[int] = []
    value = 0
    start = 0
    for index, byte in enumerate(data):
        length = index - start + 1
        if length > window:
            value = (value - data[index - window] * power) & _MASK64
        value = (value * BASE + byte) & _MASK64
        if length >= max_chunk or (length >= window and (value * MIX) & _MASK64 < CUT_LIMIT):
            start = index + 1
            ends.append(start)
            value = 0
    if start < len(data):
        ends.append(len(data))
    return ends


def chunk_digests(data: bytes) -> tuple[list[int], list[int]]:
    """End offsets and xxh3-64 digests of the chunks of ``data`` (the fast path: no objects)."""
    ends = chunk_boundaries(data)
    digest = xxhash.xxh3_64_intdigest
    return ends, [digest(data[start:end]) for start, end in zip([0, *ends[:-1]], ends)]


def chunk_bytes(data: bytes) -> list[Chunk]:
    """Chunks of ``data`` with their xxh3-64 digests."""
    ends, digests = chunk_digests(data)
    return [Chunk(start, end, digest) for start, end, digest in zip([0, *ends[:-1]], ends, digests)]


def chunk_text(text: str) -> list[Chunk]:
    """Chunks of the normalised UTF-8 bytes of ``text`` (see :func:`normalise_text`)."""
    return chunk_bytes(normalise_text(text))
