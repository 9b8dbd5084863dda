"""Word shingles, CEDAR's boilerplate-robust shingle sets, and MinHash resemblance (§4.3).

CEDAR (Gibson, Wellner, Lubar, LREC-WAC 2008) found the best duplicate-page signal in **2-word
shingles** taken from blocks of at least **12 tokens**, after dropping the **5 % most frequent
shingles** of the collection (recurring boilerplate). Resemblance is Broder's Jaccard index of two
shingle sets; MinHash estimates it from 128 minimum hash values, and LSH banding (42 bands x 3 rows:
candidates from resemblance ~0.29 up) finds candidate pairs without comparing every pair.

The MinHash is written with numpy (multiply-shift hashing of xxh3 shingle digests, ~10 us per
segment) rather than taken from ``datasketch``, to keep the dependency list short; its values are
not interchangeable with datasketch's.
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

__all__ = [
    "SHINGLE_WORDS",
    "MIN_BLOCK_TOKENS",
    "FREQUENT_FRACTION",
    "PERMUTATIONS",
    "BAND_ROWS",
    "blocks",
    "shingles",
    "resemblance",
    "signature",
    "estimated_resemblance",
    "band_hashes",
]

SHINGLE_WORDS = 2
MIN_BLOCK_TOKENS = 12
FREQUENT_FRACTION = 0.05
PERMUTATIONS = 126
BAND_ROWS = 3
RESEMBLANCE_THRESHOLD = 0.35
"""CEDAR's resemblance threshold for duplicate stories (held-out B-cubed F 0.917)."""

_WORD = re.compile(r"\w+")
_PERMUTATION_SEED = 0x5EED
_generator = np.random.default_rng(_PERMUTATION_SEED)
_MULTIPLIERS = _generator.integers(1, 2**63, size=PERMUTATIONS, dtype=np.uint64) * 2 + 1
_OFFSETS = _generator.integers(0, 2**63, size=PERMUTATIONS, dtype=np.uint64)
del _generator


def blocks(text: str, min_tokens: int = MIN_BLOCK_TOKENS) -> list[list[str]]:
    """Casefolded word tokens of each line of ``text`` that has at least ``min_tokens`` words.

    Segment text holds one block (paragraph, list item, cell) per line; short blocks are mostly
    navigation and captions, which CEDAR ignores.
    """
    found = []
    for line in text.splitlines():
        tokens = _WORD.findall(line.casefold())
        if len(tokens) >= min_tokens:
            found.append(tokens)
    return found


def shingles(
    text: str, *, words: int = SHINGLE_WORDS, min_tokens: int = MIN_BLOCK_TOKENS
) -> set[int]:
    """xxh3-64 digests (unsigned) of the ``words``-word shingles in the long blocks of ``text``."""
    digest = xxhash.xxh3_64_intdigest
    found: set[int] = set()
    for tokens in blocks(text, min_tokens):
        found.update(
            digest(" ".join(tokens[i : i + words]).encode()) for i in range(len(tokens) - words + 1)
        )
    return found


def resemblance(first: set[int], second: set[int]) -> float:
    """Jaccard index |A & B| / |A | B| (0 for two empty sets)."""
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def signature(shingle_set: set[int]) -> np.ndarray | None:
    """MinHash signature (``PERMUTATIONS`` uint32 values) of a shingle set; ``None`` when empty."""
    if not shingle_set:
        return None
    values = np.fromiter(shingle_set, dtype=np.uint64, count=len(shingle_set))
    with np.errstate(over="ignore"):
        mixed = values[:, None] * _MULTIPLIERS[None, :] + _OFFSETS[None, :]
    return (mixed >> np.uint64(32)).astype(np.uint32).min(axis=0)


def estimated_resemblance(first: np.ndarray, second: np.ndarray) -> float:
    """Share of equal MinHash values: an unbiased estimate of the Jaccard index."""
    return float(np.count_nonzero(first == second)) / len(first)


def band_hashes(sig: np.ndarray, rows: int = BAND_ROWS) -> list[int]:
    """One xxh3-64 digest per LSH band, salted with the band's index so bands never collide."""
    return [
        xxhash.xxh3_64_intdigest(sig[start : start + rows].tobytes(), seed=start)
        for start in range(0, len(sig) - rows + 1, rows)
    ]
