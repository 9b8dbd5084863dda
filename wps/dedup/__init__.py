"""De-duplication of segments across pages of the same site (text-and-filters.md §4).

Three signals, each with its own reason code, all measured against **earlier** pages of the same
subdomain as recorded in a :class:`~wps.dedup.store.DedupStore`:

* ``dup_chunk_share``: share of the segment's bytes in Rabin content-defined chunks already seen
  (non-article rule "duplication", drop when > 50 %);
* ``near_duplicate_simhash``: an earlier segment's 64-bit SimHash is within 3 bits;
* ``near_duplicate_minhash``: CEDAR 2-word-shingle resemblance (frequent shingles and blocks under 12
  tokens removed) with an earlier segment reaches 0.35, estimated by MinHash + LSH.

The result depends on page order; each segment records its page's order number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import UsageError
from ..model import Segment
from . import minhash
from .rabin import chunk_text
from .simhash import NEAR_DUPLICATE_DISTANCE, simhash
from .store import DedupStore, default_store_path

__all__ = ["Deduplicator", "DedupSettings", "site_of", "default_store_path", "DedupStore"]

REASON_CHUNKS = "dup_chunk_share"
REASON_SIMHASH = "near_duplicate_simhash"
REASON_MINHASH = "near_duplicate_minhash"


@dataclass(slots=True)
class DedupSettings:
    """Thresholds of the three rules; ``None`` disables a rule (its state is still recorded)."""

    max_chunk_share: float | None = 0.5
    simhash_max_distance: int | None = NEAR_DUPLICATE_DISTANCE
    minhash_threshold: float | None = minhash.RESEMBLANCE_THRESHOLD
    frequent_shingle_fraction: float = minhash.FREQUENT_FRACTION
    min_block_tokens: int = minhash.MIN_BLOCK_TOKENS
    shingle_words: int = minhash.SHINGLE_WORDS

    def validate(self) -> None:
        if self.max_chunk_share is not None and not 0.0 <= self.max_chunk_share <= 1.0:
            raise UsageError(f"dedup max_chunk_share {self.max_chunk_share} is not in [0, 1]")
        if self.simhash_max_distance is not None and not 0 <= self.simhash_max_distance <= 64:
            raise UsageError(f"dedup simhash_max_distance {self.simhash_max_distance} not in 0..64")
        if self.minhash_threshold is not None and not 0.0 < self.minhash_threshold <= 1.0:
            raise UsageError(f"dedup minhash_threshold {self.minhash_threshold} is not in (0, 1]")
        if not 0.0 <= self.frequent_shingle_fraction < 1.0:
            raise UsageError(f"dedup frequent_shingle_fraction {self.frequent_shingle_fraction}"
                             " is not in [0, 1)")
        if self.shingle_words < 1 or self.min_block_tokens < self.shingle_words:
            raise UsageError("dedup needs shingle_words >= 1 and min_block_tokens >= shingle_words")


def site_of(url: str) -> str:
    """The subdomain a page belongs to: the URL's lower-cased host name (``""`` for none)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


class Deduplicator:
    """Pipeline stage: marks segments duplicated from earlier pages of the same site.

    Mark, never delete: each segment gets ``stats["dup_chunk_share"]``, ``extra["simhash"]`` (hex),
    ``extra["dedup"]`` (page order and the near-duplicate matches), and one reason code per rule it
    fails, with ``kept = False``.
    """

    def __init__(self, store_path: str | Path | None = None,
                 settings: DedupSettings | None = None) -> None:
        self.settings = settings or DedupSettings()
        self.settings.validate()
        self.store = DedupStore(store_path if store_path is not None else default_store_path())

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Deduplicator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def process(self, url: str, segments: list[Segment]) -> None:
        """Measure every segment of the page at ``url`` against earlier pages, then record the page."""
        site = site_of(url)
        settings = self.settings
        with self.store.transaction():
            page, is_new = self.store.page(site, url)
            chunked = [chunk_text(segment.text) for segment in segments]
            seen = self.store.seen_chunks(site, (c.digest for cs in chunked for c in cs), page)
            limit = self.store.frequent_shingle_limit(site, settings.frequent_shingle_fraction)
            shingle_sets = [minhash.shingles(s.text, words=settings.shingle_words,
                                             min_tokens=settings.min_block_tokens)
                            for s in segments]
            page_shingles = set().union(*shingle_sets) if shingle_sets else set()
            frequencies = (self.store.shingle_frequencies(site, page_shingles)
                           if limit is not None else {})
            simhashes: list[tuple[str, int]] = []
            signatures: list[tuple[str, Any, list[int]]] = []
            for segment, chunks, shingle_set in zip(segments, chunked, shingle_sets):
                total = sum(chunk.size for chunk in chunks)
                duplicated = sum(chunk.size for chunk in chunks if chunk.digest in seen)
                share = duplicated / total if total else 0.0
                segment.stats[REASON_CHUNKS] = share
                report: dict[str, Any] = {"site": site, "page_order": page,
                                          "simhash_match": None, "minhash_match": None}
                segment.extra["dedup"] = report
                if settings.max_chunk_share is not None and share > settings.max_chunk_share:
                    _drop(segment, REASON_CHUNKS)
                value = simhash(segment.text)
                segment.extra["simhash"] = f"{value:016x}" if value is not None else None
                if value is not None:
                    simhashes.append((segment.id, value))
                    if settings.simhash_max_distance is not None:
                        matches = self.store.similar_simhashes(site, value, page,
                                                               settings.simhash_max_distance)
                        if matches:
                            other_page, other_id, distance = matches[0]
                            report["simhash_match"] = {"url": self.store.page_url(other_page),
                                                       "segment_id": other_id, "distance": distance}
                            _drop(segment, REASON_SIMHASH)
                if limit is not None:
                    shingle_set = {s for s in shingle_set if frequencies.get(s, 0) <= limit}
                signature = minhash.signature(shingle_set)
                if signature is None:
                    continue
                bands = minhash.band_hashes(signature)
                signatures.append((segment.id, signature, bands))
                if settings.minhash_threshold is not None:
                    best = self._best_minhash(site, signature, bands, page)
                    if best is not None and best[2] >= settings.minhash_threshold:
                        report["minhash_match"] = {"url": self.store.page_url(best[0]),
                                                   "segment_id": best[1], "resemblance": best[2]}
                        _drop(segment, REASON_MINHASH)
            self.store.add_chunks(site, {(c.digest, c.size) for cs in chunked for c in cs}, page)
            self.store.replace_simhashes(site, page, simhashes)
            self.store.replace_minhashes(site, page, signatures)
            if is_new:
                self.store.count_shingles(site, page_shingles)

    def _best_minhash(self, site: str, signature: Any, bands: list[int],
                      page: int) -> tuple[int, str, float] | None:
        best: tuple[int, str, float] | None = None
        for other_page, other_id, other in self.store.minhash_candidates(site, bands, page):
            value = minhash.estimated_resemblance(signature, other)
            if best is None or value > best[2]:
                best = (other_page, other_id, value)
        return best


def _drop(segment: Segment, reason: str) -> None:
    if reason not in segment.reasons:
        segment.reasons.append(reason)
    segment.kept = False
