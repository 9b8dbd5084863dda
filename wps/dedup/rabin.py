"""Content-defined chunking with a rolling polynomial hash: 32-byte window, 96-byte target.

Manber-style anchors (text-and-filters.md §4.1): a cut falls after byte ``i`` when the hash of the
last ``WINDOW`` bytes, multiplied by an odd mixing constant, has its top 6 bits zero (probability
1/64), and at least ``WINDOW`` bytes lie since the previous cut; a chunk never exceeds ``MAX_CHUNK``
bytes. Expected chunk length is 32 + 64 = 96 bytes. Because cuts depend only on the last 32 bytes,
chunks after an edit re-synchronise, so a page that repeats another page's paragraph repeats its
chunk digests.

No package supports a 96-byte target (fastcdc, pyfastcdc enforce >= 256 B), so the hash is written
here, vectorised with numpy in two steps:

1. :func:`_cut_candidates` tests the window hash of every position at once, from a prefix sum
   (wrapping mod 2^64 natively). The reference loop resets the hash at each cut, but a cut needs a
   full window since the previous cut, so the hash it tests is always the plain sliding-window
   hash.
2. :func:`_select_cuts` picks the cuts among the sparse candidates without a Python loop over
   them: the chain "next candidate at least ``WINDOW`` bytes on" is followed from every anchor at
   once, and the rare forced cuts are patched in.

Both give the boundaries of :func:`chunk_boundaries_reference` (``tests/dedup/test_rabin.py``).
Where numba is installed, :func:`chunk_digests` runs the reference loop compiled instead
(:mod:`wps.dedup.rabin_compiled`), digests included: same chunks, several times faster.
"""

from __future__ import annotations

import unicodedata
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

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
    "chunk_boundaries_sequential",
    "chunk_digests",
    "chunk_digests_numpy",
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
_BLOCK = 1 << 17
"""Bytes hashed per numpy pass; keeps the uint64 temporaries in cache."""
_FRONTIER_ROUNDS = 64
"""Chain steps taken for all anchors at once; longer chains (periodic text) finish one by one."""

_MASK64 = (1 << 64) - 1


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
    (line breaks, indentation) do not hide a repeated paragraph.

    Same result as ``re.sub(r"\\s+", " ", NFKC(text)).strip()`` (``str.split`` and ``\\s`` agree on
    whitespace), three times faster: NFKC runs line by line, since no normalisation joins or
    splits a line feed, so lines without compatibility characters take unicodedata's quick check.
    """
    if not text.isascii():
        text = "\n".join([unicodedata.normalize("NFKC", line) for line in text.split("\n")])
    return " ".join(text.split()).encode("utf-8")


@cache
def _powers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``BASE^-j`` and ``MIX * BASE^i`` mod 2^64 for ``0 <= i, j < size`` (made on first use)."""
    inverse = np.full(size, pow(BASE, -1, 1 << 64), dtype=np.uint64)
    inverse[0] = 1
    mixed = np.full(size, BASE, dtype=np.uint64)
    mixed[0] = MIX
    return np.cumprod(inverse, dtype=np.uint64), np.cumprod(mixed, dtype=np.uint64)


def _cut_candidates(data: bytes) -> np.ndarray:
    """Positions ``i`` (int64, ascending) whose window ending at ``i`` passes the 1/64 cut test.

    With the prefix sum ``Q(i) = sum_{j<=i} b[j] * BASE^-j`` the window hash is
    ``BASE^i * (Q(i) - Q(i-WINDOW))``, so the test costs two products, one cumulative sum and one
    difference per byte, all wrapping mod 2^64 like the reference loop. Powers count from each
    block's start; each block re-reads the WINDOW-1 bytes before it, so every window is hashed
    exactly once.
    """
    array = np.frombuffer(data, dtype=np.uint8)
    inverse, mixed = _powers(_BLOCK + WINDOW - 1)
    prefix = np.empty(_BLOCK + WINDOW - 1, dtype=np.uint64)
    tested = np.empty(_BLOCK, dtype=np.uint64)
    limit = np.uint64(CUT_LIMIT)
    found: list[np.ndarray] = []
    for block_start in range(0, max(len(array) - WINDOW + 1, 0), _BLOCK):
        block = array[block_start : block_start + _BLOCK + WINDOW - 1]
        sums = prefix[: len(block)]
        hashes = tested[: len(block) - WINDOW + 1]
        np.multiply(block, inverse[: len(block)], out=sums, dtype=np.uint64)
        np.cumsum(sums, out=sums)
        hashes[0] = sums[WINDOW - 1]
        np.subtract(sums[WINDOW:], sums[:-WINDOW], out=hashes[1:])
        np.multiply(hashes, mixed[WINDOW - 1 : len(block)], out=hashes)
        hits = np.flatnonzero(hashes < limit)
        if hits.size:
            found.append(hits + (block_start + WINDOW - 1))
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def chunk_boundaries(data: bytes, *, max_chunk: int = MAX_CHUNK) -> list[int]:
    """End offsets (exclusive) of the chunks of ``data``; the last one is ``len(data)``.

    Vectorised equivalent of :func:`chunk_boundaries_reference` (window fixed at ``WINDOW``): the
    candidates come from :func:`_cut_candidates`, the cuts among them from :func:`_select_cuts`.
    """
    return _select_cuts(_cut_candidates(data), len(data), max_chunk).tolist()


def _select_cuts(candidates: np.ndarray, length: int, max_chunk: int) -> np.ndarray:
    """Cut offsets (int64, ascending, ending with ``length``) chosen among the candidates.

    The chain of cuts when no cut is forced (:func:`_greedy_chain`) is the answer wherever a
    chunk reaches its next candidate within ``max_chunk`` bytes. Where it does not (a gap of
    about 350 bytes without candidate, rare in text), the chunk is cut every ``max_chunk`` bytes;
    then the next candidate is usually still far enough from the last forced cut and the chain
    goes on unchanged, else :func:`_walk` follows the rule until the chain is met again.
    """
    if not candidates.size:
        return np.arange(max_chunk, length + max_chunk, max_chunk).clip(max=length)
    chained = _greedy_chain(candidates, _next_candidates(candidates))
    order = np.flatnonzero(chained)
    picks = candidates[order]
    starts = np.concatenate(([0], picks[:-1] + 1))
    gaps = np.flatnonzero(picks - starts >= max_chunk)
    forced: list[np.ndarray] = []
    tail = int(picks[-1]) + 1
    cuts = picks + 1
    if gaps.size:
        landing = starts[gaps] + (picks[gaps] - starts[gaps]) // max_chunk * max_chunk
        reached = picks[gaps] - landing >= WINDOW - 1
        simple = gaps[reached]
        if not reached.all():
            voided_from, voided_to, tail = _repair(
                candidates, length, max_chunk, chained, order, starts, gaps[~reached], forced, tail
            )
            inside = np.searchsorted(voided_from, simple) - 1
            simple = simple[(inside < 0) | (simple > voided_to[np.maximum(inside, 0)])]
            cuts = candidates[np.flatnonzero(chained)] + 1
        forced.append(_forced_runs(starts[simple], picks[simple], max_chunk))
    if tail < length:
        forced.append(np.arange(tail + max_chunk, length, max_chunk))
    if forced:
        extra = np.sort(np.concatenate(forced))
        cuts = np.insert(cuts, np.searchsorted(cuts, extra), extra)
    return np.append(cuts, length) if tail < length else cuts


def _next_candidates(candidates: np.ndarray) -> np.ndarray:
    """For each candidate ``k``, the first candidate at least ``WINDOW`` bytes after it: the next
    cut of a chunk that starts right after ``k`` while no cut is forced (``len`` where none)."""
    count = len(candidates)
    following = np.arange(1, count + 1)
    padded = np.append(candidates, np.iinfo(np.int64).max)
    pending = np.flatnonzero(padded[1:] < candidates + WINDOW)
    # Most next cuts are one to three candidates on: step while any is pending, then search.
    for step in range(2, 8):
        following[pending] += 1
        pending = pending[padded[pending + step] < candidates[pending] + WINDOW]
        if not pending.size:
            return following
    following[pending] = np.searchsorted(candidates, candidates[pending] + WINDOW)
    return following


def _greedy_chain(candidates: np.ndarray, following: np.ndarray) -> np.ndarray:
    """Mask of the candidates cut from the start of the data when no cut is forced.

    An anchor is a candidate at least ``WINDOW`` bytes after the one before it (or the first):
    every chain of cuts that starts before it reaches it, so the cuts are the union of the chains
    from each anchor to the next, all followed together.
    """
    count = len(candidates)
    anchor = np.ones(count, dtype=bool)
    anchor[1:] = np.diff(candidates) >= WINDOW
    chained = anchor.copy()
    frontier = np.flatnonzero(anchor)
    for _ in range(_FRONTIER_ROUNDS):
        frontier = following[frontier]
        frontier = frontier[frontier < count]
        frontier = frontier[~anchor[frontier]]
        if not frontier.size:
            return chained
        chained[frontier] = True
    steps, anchors = following.tolist(), anchor.tolist()
    for index in frontier.tolist():
        while index < count and not anchors[index]:
            chained[index] = True
            index = steps[index]
    return chained


def _forced_runs(starts: np.ndarray, picks: np.ndarray, max_chunk: int) -> np.ndarray:
    """The forced cuts ``start + t * max_chunk <= pick`` (t >= 1) of each gap, concatenated."""
    counts = (picks - starts) // max_chunk
    steps = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    return np.repeat(starts, counts) + steps * max_chunk


def _repair(
    candidates: np.ndarray,
    length: int,
    max_chunk: int,
    chained: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    gaps: np.ndarray,
    forced: list[np.ndarray],
    tail: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Walk the rule from each gap whose next candidate falls too close to the last forced cut,
    until the chain is met again; updates ``chained`` and ``forced`` in place.

    Returns the chain steps voided by the walks (``(from, to]`` pairs) and the start of the last
    chunk (``tail`` unless a walk ran to the end of the data).
    """
    voided_from: list[int] = []
    voided_to: list[int] = []
    merged = -1
    for gap in gaps.tolist():
        if gap <= merged:
            continue
        accepted, cuts, stop, last = _walk(
            candidates, length, int(starts[gap]), int(order[gap]), max_chunk, chained
        )
        forced.append(np.array(cuts, dtype=np.int64))
        # chain steps up to the meeting point (``chained`` is untouched from ``order[gap]`` on)
        steps = 0 if stop is None else np.count_nonzero(chained[order[gap] + 1 : stop + 1])
        merged = len(order) if stop is None else gap + int(steps)
        chained[order[gap:merged]] = False
        chained[accepted] = True
        voided_from.append(gap)
        voided_to.append(merged)
        if stop is None:
            tail = last
            break
    return np.array(voided_from, dtype=np.int64), np.array(voided_to, dtype=np.int64), tail


def _walk(
    candidates: np.ndarray,
    length: int,
    start: int,
    first: int,
    max_chunk: int,
    stop: np.ndarray | None = None,
) -> tuple[list[int], list[int], int | None, int]:
    """The cut rule, one candidate at a time, for a chunk starting at ``start`` whose first
    candidate not yet decided is ``candidates[first]``.

    Returns the accepted candidate indices, the forced cuts, the first accepted index where
    ``stop`` is true (the walk ends there) or None at the end of the data (forced cuts up to it
    included), and the start of the chunk the walk ends in.
    """
    accepted: list[int] = []
    forced: list[int] = []
    for index in range(first, len(candidates)):
        position = int(candidates[index])
        while position - start + 1 > max_chunk:
            start += max_chunk
            forced.append(start)
        if position - start + 1 >= WINDOW:
            start = position + 1
            accepted.append(index)
            if stop is not None and stop[index]:
                return accepted, forced, index, start
    last = range(start, length, max_chunk)[-1] if start < length else start
    forced.extend(range(start + max_chunk, last + 1, max_chunk))
    return accepted, forced, None, last


def chunk_boundaries_sequential(data: bytes, *, max_chunk: int = MAX_CHUNK) -> list[int]:
    """:func:`chunk_boundaries` with the cuts chosen by a loop over the candidates (tests)."""
    candidates = _cut_candidates(data)
    accepted, forced, _, last = _walk(candidates, len(data), 0, 0, max_chunk)
    ends = sorted([int(candidates[index]) + 1 for index in accepted] + forced)
    return ends + [len(data)] if last < len(data) else ends


def chunk_boundaries_reference(
    data: bytes, *, window: int = WINDOW, max_chunk: int = MAX_CHUNK
) -> list[int]:
    """The byte-at-a-time loop of text-and-filters.md §4.1, hash reset at each cut (tests)."""
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
    """End offsets and xxh3-64 digests of the chunks of ``data`` (the fast path: no objects).

    Compiled (:mod:`wps.dedup.rabin_compiled`) where numba is installed, else numpy.
    """
    compiled = _compiled()
    return compiled(data, MAX_CHUNK) if compiled else chunk_digests_numpy(data)


def chunk_digests_numpy(data: bytes) -> tuple[list[int], list[int]]:
    """:func:`chunk_digests` without numba: numpy cuts, one xxhash call per chunk."""
    ends = chunk_boundaries(data)
    digest = xxhash.xxh3_64_intdigest
    return ends, [digest(data[start:end]) for start, end in zip([0, *ends[:-1]], ends)]


_PROBE = bytes(range(256)) * 3 + b"a content-defined chunk, probed once per process " * 20


@cache
def _compiled() -> Callable[[bytes, int], tuple[list[int], list[int]]] | None:
    """The compiled chunker, once it has given the numpy form's chunks on a probe; None where
    numba (the ``fast`` extra) or xxhash's exported XXH3 is missing or the probe fails."""
    try:
        from .rabin_compiled import chunk_digests_compiled

        def chunker(data: bytes, max_chunk: int) -> tuple[list[int], list[int]]:
            return chunk_digests_compiled(data, max_chunk, WINDOW, BASE, MIX, CUT_LIMIT)

        if chunker(_PROBE, MAX_CHUNK) == chunk_digests_numpy(_PROBE):
            return chunker
    except (ImportError, AttributeError, OSError):
        pass
    except Exception as error:  # noqa: BLE001 - a numba failure must not stop dedup
        warnings.warn(f"compiled Rabin chunking unavailable, numpy used: {error}", stacklevel=2)
    return None


def chunk_bytes(data: bytes) -> list[Chunk]:
    """Chunks of ``data`` with their xxh3-64 digests."""
    ends, digests = chunk_digests(data)
    return [Chunk(start, end, digest) for start, end, digest in zip([0, *ends[:-1]], ends, digests)]


def chunk_text(text: str) -> list[Chunk]:
    """Chunks of the normalised UTF-8 bytes of ``text`` (see :func:`normalise_text`)."""
    return chunk_bytes(normalise_text(text))
