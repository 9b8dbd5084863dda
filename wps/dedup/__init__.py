"""De-duplication of segments across pages of the same site (text-and-filters.md §4).

Three signals, each with its own reason code, all measured against **earlier** pages of the same
subdomain as recorded in a :class:`~wps.dedup.store.DedupStore`:

* ``dup_chunk_share``: share of the segment's bytes in Rabin content-defined chunks already seen
(non-article rule "duplication", drop when > 50 %);
* ``near_duplicate_simhash``: an earlier segment's 64-bit SimHash is within 3 bits;
* ``near_duplicate_minhash``: CEDAR 2-word-shingle resemblance (frequent shingles and blocks
  under 12 tokens removed) with an earlier segment reaches 0.35, estimated by MinHash + LSH.

The result depends on page order; each segment records its page's order number. The pipeline's
dedup step and ``wps dedup`` (:mod:`wps.dedup.jsonl`, over ``segments.jsonl`` lines read back as
segments through :mod:`wps.records`) run the same :class:`Deduplicator`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import UsageError
from ..model import Segment
from ..settings import packaged_defaults
from . import minhash
from .rabin import chunk_digests, normalise_text
from .simhash import simhash
from .store import DedupStore, configured_store_path, default_store_path

__all__ = ["Deduplicator", "DedupSettings", "site_of", "default_store_path",
           "configured_store_path", "DedupStore"]

REASON_CHUNKS = "dup_chunk_share"
REASON_SIMHASH = "near_duplicate_simhash"
REASON_MINHASH = "near_duplicate_minhash"


@dataclass(slots=True)
@packaged_defaults("dedup")
class DedupSettings:
    """Thresholds of the three rules; ``None`` disables a rule (its state is still recorded).
    Defaults: the ``[dedup]`` section of ``wps/defaults.toml``."""

    max_chunk_share: float | None
    simhash_max_distance: int | None
    minhash_threshold: float | None
    frequent_shingle_fraction: float
    min_block_tokens: int
    shingle_words: int

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> DedupSettings:
        """Settings from the ``[dedup]`` table of :func:`wps.config.load_config`."""
        try:
            settings = cls(
                max_chunk_share=float(section["max_chunk_share"]),
                simhash_max_distance=(
                    int(section["simhash_max_distance"]) if section["simhash"] else None
                ),
                minhash_threshold=(
                    float(section["minhash_threshold"]) if section["minhash"] else None
                ),
                frequent_shingle_fraction=float(section["frequent_shingle_fraction"]),
                min_block_tokens=int(section["min_block_tokens"]),
                shingle_words=int(section["shingle_words"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise UsageError(f"[dedup] config: bad or missing setting ({err})") from None
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.max_chunk_share is not None and not 0.0 <= self.max_chunk_share <= 1.0:
            raise UsageError(f"dedup max_chunk_share {self.max_chunk_share} is not in [0, 1]")
        if self.simhash_max_distance is not None and not 0 <= self.simhash_max_distance <= 64:
            raise UsageError(f"dedup simhash_max_distance {self.simhash_max_distance} not in 0..64")
        if self.minhash_threshold is not None and not 0.0 < self.minhash_threshold <= 1.0:
            raise UsageError(f"dedup minhash_threshold {self.minhash_threshold} is not in (0, 1]")
        if not 0.0 <= self.frequent_shingle_fraction < 1.0:
            raise UsageError(
                f"dedup frequent_shingle_fraction {self.frequent_shingle_fraction} is not in [0, 1)"
            )
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

    Mark, never delete: each segment gets ``stats["dup_chunk_share"]``, ``simhash`` (hex),
    ``dup`` (the ``dup`` object of text-and-filters.md §6: ``cdc_dup_frac``, ``simhash``,
    the near-duplicate matches, page order and site), and one reason code per rule it fails, with
    ``kept = False``.
    """

    LIMIT_REFRESH_PAGES = 16
    """Pages of a site between two computations of its frequent-shingle limit (a full scan of the
    site's shingles); the limit moves slowly once a site has a few pages."""

    def __init__(
        self, store_path: str | Path | None = None, settings: DedupSettings | None = None
    ) -> None:
        self.settings = settings or DedupSettings()
        self.settings.validate()
        self.store = DedupStore(store_path if store_path is not None else default_store_path())
        self._limits: dict[str, tuple[int | None, int]] = {}

    def _frequent_limit(self, site: str) -> int | None:
        limit, age = self._limits.get(site, (None, self.LIMIT_REFRESH_PAGES))
        if age >= self.LIMIT_REFRESH_PAGES:
            limit, age = (
                self.store.frequent_shingle_limit(site, self.settings.frequent_shingle_fraction),
                0,
            )
        self._limits[site] = (limit, age + 1)
        return limit

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Deduplicator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def process(self, url: str, segments: list[Segment]) -> None:
        """Measure each segment of the page at ``url`` against earlier pages; record the page."""
        site = site_of(url)
        settings = self.settings
        with self.store.transaction():
            page, is_new = self.store.page(site, url)
            chunked = [_chunks(segment.text) for segment in segments]
            seen = self.store.seen_chunks(site, (d for cs in chunked for d, _ in cs), page)
            limit = self._frequent_limit(site)
            shingle_sets = [
                minhash.shingles(
                    s.text, words=settings.shingle_words, min_tokens=settings.min_block_tokens
                )
                for s in segments
            ]
            page_shingles = set().union(*shingle_sets) if shingle_sets else set()
            frequencies = (
                self.store.shingle_frequencies(site, page_shingles) if limit is not None else {}
            )
            simhashes: list[tuple[str, int]] = []
            signatures: list[tuple[str, Any, list[int]]] = []
            for segment, chunks, shingle_set in zip(segments, chunked, shingle_sets):
                total = sum(size for _, size in chunks)
                duplicated = sum(size for digest, size in chunks if digest in seen)
                share = duplicated / total if total else 0.0
                segment.stats[REASON_CHUNKS] = share
                report: dict[str, Any] = {
                    "cdc_dup_frac": share,
                    "simhash": None,
                    "simhash_match": None,
                    "minhash_match": None,
                    "page_order": page,
                    "site": site,
                }
                segment.dup = report
                if settings.max_chunk_share is not None and share > settings.max_chunk_share:
                    _drop(segment, REASON_CHUNKS)
                self._simhash_rule(site, page, segment, report, simhashes)
                if limit is not None:
                    shingle_set = {s for s in shingle_set if frequencies.get(s, 0) <= limit}
                self._minhash_rule(site, page, segment, shingle_set, report, signatures)
            self.store.add_chunks(site, {chunk for chunks in chunked for chunk in chunks}, page)
            self.store.replace_simhashes(site, page, simhashes)
            self.store.replace_minhashes(site, page, signatures)
            if is_new:
                self.store.count_shingles(site, page_shingles)

    def _simhash_rule(
        self,
        site: str,
        page: int,
        segment: Segment,
        report: dict[str, Any],
        stored: list[tuple[str, int]],
    ) -> None:
        value = simhash(segment.text)
        hex_value = f"{value:016x}" if value is not None else None
        segment.simhash = report["simhash"] = hex_value
        if value is None:
            return
        max_distance = self.settings.simhash_max_distance
        matches = self.store.similar_simhashes(site, value, page, max_distance or 0)
        # an exact repeat of an earlier segment is not stored again: the first copy answers later
        # lookups, and lookups stay fast on sites whose pages share boilerplate
        if not matches or matches[0][2] > 0:
            stored.append((segment.id, value))
        if matches and max_distance is not None:
            other_page, other_id, distance = matches[0]
            report["simhash_match"] = {
                "url": self.store.page_url(other_page),
                "segment_id": other_id,
                "distance": distance,
            }
            _drop(segment, REASON_SIMHASH)

    def _minhash_rule(
        self,
        site: str,
        page: int,
        segment: Segment,
        shingle_set: set[int],
        report: dict[str, Any],
        stored: list[tuple[str, Any, list[int]]],
    ) -> None:
        signature = minhash.signature(shingle_set)
        if signature is None:
            return
        bands = minhash.band_hashes(signature)
        best = self._best_minhash(site, signature, bands, page)
        if best is None or best[2] < 1.0:  # identical signatures are stored once
            stored.append((segment.id, signature, bands))
        threshold = self.settings.minhash_threshold
        if threshold is not None and best is not None and best[2] >= threshold:
            report["minhash_match"] = {
                "url": self.store.page_url(best[0]),
                "segment_id": best[1],
                "resemblance": best[2],
            }
            _drop(segment, REASON_MINHASH)

    def _best_minhash(
        self, site: str, signature: Any, bands: list[int], page: int
    ) -> tuple[int, str, float] | None:
        best: tuple[int, str, float] | None = None
        for other_page, other_id, other in self.store.minhash_candidates(site, bands, page):
            value = minhash.estimated_resemblance(signature, other)
            if best is None or value > best[2]:
                best = (other_page, other_id, value)
        return best


def _chunks(text: str) -> list[tuple[int, int]]:
    """``(digest, size)`` of the Rabin chunks of the normalised text."""
    ends, digests = chunk_digests(normalise_text(text))
    return [(digest, end - start) for digest, start, end in zip(digests, [0, *ends[:-1]], ends)]


def _drop(segment: Segment, reason: str) -> None:
    if reason not in segment.reasons:
        segment.reasons.append(reason)
    segment.kept = False
