"""The chunking loop of :mod:`wps.dedup.rabin` compiled with numba: cuts and digests in one pass.

Where numba is installed (the ``fast`` extra), :func:`wps.dedup.rabin.chunk_digests` runs this
loop instead of its numpy form: the same byte-at-a-time rule as
:func:`~wps.dedup.rabin.chunk_boundaries_reference`, with each chunk's xxh3-64 digest taken as
soon as it is cut, by the ``XXH3_64bits`` that the xxhash package's own extension exports (no
Python call per chunk). Several times faster on bulk text and ~30x on a segment's few hundred
bytes, where the numpy form's set-up dominates. Importing this module raises ImportError where
numba is missing and AttributeError where the xxhash extension lacks the symbol; the caller then
keeps the numpy form. The machine code is cached by numba beside this file: a new process pays
about 0.5 s for numba and the cached code on its first chunking, 1 s more the first time it
compiles.
"""

from __future__ import annotations

import ctypes
from functools import cache

import llvmlite.binding
import numba
import numpy as np
import xxhash._xxhash
from numba import types

__all__ = ["chunk_digests_compiled"]

_XXH3_SYMBOL = "XXH3_64bits"
# The pointer is passed as an integer (same register on x86-64 and AArch64) so that the compiled
# code names no process address and numba can cache it; the symbol is bound at load time.
llvmlite.binding.add_symbol(
    _XXH3_SYMBOL,
    ctypes.cast(getattr(ctypes.CDLL(xxhash._xxhash.__file__), _XXH3_SYMBOL), ctypes.c_void_p).value,
)
_xxh3_64 = types.ExternalFunction(_XXH3_SYMBOL, types.uint64(types.uintp, types.uintp))


@numba.njit(cache=True, nogil=True)
def _chunk(
    data: np.ndarray,
    window: int,
    max_chunk: int,
    base: np.uint64,
    mix: np.uint64,
    limit: np.uint64,
) -> tuple[np.ndarray, np.ndarray]:
    """End offsets and digests of the chunks of ``data`` (uint8, C-contiguous).

    The rule's constants are arguments, not globals, so a change to them in ``rabin`` cannot
    meet a stale cached compilation (numba's cache watches this file only).
    """
    size = data.size
    most = size // min(window, max_chunk) + 2
    ends = np.empty(most, dtype=np.int64)
    digests = np.empty(most, dtype=np.uint64)
    power = np.uint64(1)
    for _ in range(window - 1):
        power *= base
    address = data.ctypes.data
    value = np.uint64(0)
    start = 0
    count = 0
    for index in range(size):
        length = index - start + 1
        if length > window:
            value -= np.uint64(data[index - window]) * power
        value = value * base + np.uint64(data[index])
        if length >= max_chunk or (length >= window and value * mix < limit):
            ends[count] = index + 1
            digests[count] = _xxh3_64(address + start, length)
            count += 1
            start = index + 1
            value = np.uint64(0)
    if start < size:
        ends[count] = size
        digests[count] = _xxh3_64(address + start, size - start)
        count += 1
    return ends[:count], digests[:count]


def chunk_digests_compiled(
    data: bytes, max_chunk: int, window: int, base: int, mix: int, limit: int
) -> tuple[list[int], list[int]]:
    """End offsets and xxh3-64 digests of the chunks of ``data`` under the rule ``rabin`` names
    (its ``WINDOW``, ``BASE``, ``MIX`` and ``CUT_LIMIT``), as ``rabin.chunk_digests``."""
    array = np.frombuffer(data, dtype=np.uint8)
    # numpy scalars: numba types a Python int above 2^63 through a failed int64 try (50 us a call)
    ends, digests = _chunk(array, window, max_chunk, *_as_uint64(base, mix, limit))
    return ends.tolist(), digests.tolist()


@cache
def _as_uint64(*values: int) -> tuple[np.uint64, ...]:
    return tuple(np.uint64(value) for value in values)
