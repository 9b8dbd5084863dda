"""The de-duplication state: an embedded SQLite database shared by runs and processes.

Separate runs over the same site must de-duplicate against each other, and several workers may
process pages of one site at once, so the state lives in SQLite in WAL mode: every page is handled
in one ``BEGIN IMMEDIATE`` transaction (the writer lock is taken before the first read, so two
writers never interleave a read-then-insert), with a busy timeout and a retry loop around lock
errors. A page's number (``pages.id``) is its order: a segment is compared only against pages
numbered before its own, so re-running a page gives the same answer and never matches itself.

Hashes are unsigned 64-bit; SQLite integers are signed, so they are stored shifted by 2^63
wrap-around (:func:`_signed`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from ..errors import InputFileError

__all__ = ["DEFAULT_STORE_PATH", "default_store_path", "DedupStore"]

DEFAULT_STORE_PATH = Path("~/.cache/wps/dedup.sqlite3")
ENVIRONMENT_VARIABLE = "WPS_DEDUP_DB"
_SQL_PARAMETERS = 500
"""Digests per ``IN (...)`` query (SQLite allows 32766 parameters; small batches plan well)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY, site TEXT NOT NULL, url TEXT NOT NULL, UNIQUE (site, url));
CREATE TABLE IF NOT EXISTS chunks (
    site TEXT NOT NULL, digest INTEGER NOT NULL, first_page INTEGER NOT NULL, size INTEGER NOT NULL,
    PRIMARY KEY (site, digest)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS simhashes (
    id INTEGER PRIMARY KEY, site TEXT NOT NULL, page INTEGER NOT NULL, segment_id TEXT NOT NULL,
    simhash INTEGER NOT NULL, band0 INTEGER, band1 INTEGER, band2 INTEGER, band3 INTEGER);
CREATE INDEX IF NOT EXISTS simhashes_band0 ON simhashes (site, band0);
CREATE INDEX IF NOT EXISTS simhashes_band1 ON simhashes (site, band1);
CREATE INDEX IF NOT EXISTS simhashes_band2 ON simhashes (site, band2);
CREATE INDEX IF NOT EXISTS simhashes_band3 ON simhashes (site, band3);
CREATE INDEX IF NOT EXISTS simhashes_page ON simhashes (page);
CREATE INDEX IF NOT EXISTS simhashes_value ON simhashes (site, simhash);
CREATE TABLE IF NOT EXISTS shingles (
    site TEXT NOT NULL, shingle INTEGER NOT NULL, pages INTEGER NOT NULL,
    PRIMARY KEY (site, shingle)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS minhashes (
    id INTEGER PRIMARY KEY, site TEXT NOT NULL, page INTEGER NOT NULL, segment_id TEXT NOT NULL,
    signature BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS minhashes_page ON minhashes (page);
CREATE TABLE IF NOT EXISTS minhash_bands (
    site TEXT NOT NULL, band_hash INTEGER NOT NULL, minhash INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS minhash_bands_hash ON minhash_bands (site, band_hash);
CREATE INDEX IF NOT EXISTS minhash_bands_minhash ON minhash_bands (minhash);
"""


def default_store_path() -> Path:
    """``$WPS_DEDUP_DB`` if set, else ``~/.cache/wps/dedup.sqlite3``."""
    return Path(os.environ.get(ENVIRONMENT_VARIABLE) or DEFAULT_STORE_PATH).expanduser()


def configured_store_path(explicit: str | Path | None, configured: str) -> Path | None:
    """The one precedence of the dedup state file: ``explicit`` (``--dedup-db``, ``wps dedup
    --db``, ``PipelineOptions.dedup_db``), else the config's ``[dedup] db`` (``""``: unset), else
    ``None``: no dedup step in a pipeline, :func:`default_store_path` for ``wps dedup``.

    >>> configured_store_path(None, "state.sqlite3")
    PosixPath('state.sqlite3')
    >>> configured_store_path("given.sqlite3", "state.sqlite3")
    PosixPath('given.sqlite3')
    """
    if explicit is not None:
        return Path(explicit)
    return Path(configured).expanduser() if configured else None


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _unsigned(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


def _batches(values: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(values), _SQL_PARAMETERS):
        yield values[start : start + _SQL_PARAMETERS]


class DedupStore:
    """Seen chunk digests, SimHashes, shingle frequencies and MinHashes per site (subdomain).

    Use :meth:`transaction` around everything done for one page.
    """

    def __init__(
        self, path: str | Path | None = None, *, timeout: float = 60.0, retries: int = 20
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_store_path()
        self.timeout = timeout
        self.retries = retries
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self._connection.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._retry(lambda: self._connection.execute("PRAGMA journal_mode = WAL"))
            self._connection.execute("PRAGMA synchronous = NORMAL")
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._connection.execute(statement)
        except (sqlite3.DatabaseError, OSError) as err:
            raise InputFileError(f"{self.path}: cannot open de-duplication state ({err})") from None

    # ------------------------------------------------------------------------------- plumbing
    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> DedupStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _retry(self, action):  # type: ignore[no-untyped-def]
        """Run ``action`` again while another process holds the lock beyond the busy timeout."""
        for attempt in range(self.retries):
            try:
                return action()
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) and "busy" not in str(err):
                    raise
                if attempt == self.retries - 1:
                    raise
                time.sleep(min(0.05 * 2**attempt, 2.0))
        return None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: taken before the first read, committed or rolled back whole."""
        self._retry(lambda: self._connection.execute("BEGIN IMMEDIATE"))
        try:
            yield
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._retry(lambda: self._connection.execute("COMMIT"))

    def _execute(self, sql: str, parameters: Iterable[object] = ()) -> sqlite3.Cursor:
        return self._connection.execute(sql, tuple(parameters))

    # ---------------------------------------------------------------------------------- pages
    def page(self, site: str, url: str) -> tuple[int, bool]:
        """The page's order number, and whether it is new to the store (first run over it)."""
        row = self._execute(
            "SELECT id FROM pages WHERE site = ? AND url = ?", (site, url)
        ).fetchone()
        if row is not None:
            return int(row[0]), False
        cursor = self._execute("INSERT INTO pages (site, url) VALUES (?, ?)", (site, url))
        return int(cursor.lastrowid or 0), True

    def page_url(self, page: int) -> str:
        row = self._execute("SELECT url FROM pages WHERE id = ?", (page,)).fetchone()
        return str(row[0]) if row else ""

    def page_count(self, site: str) -> int:
        return int(
            self._execute("SELECT COUNT(*) FROM pages WHERE site = ?", (site,)).fetchone()[0]
        )

    # --------------------------------------------------------------------------------- chunks
    def seen_chunks(self, site: str, digests: Iterable[int], before_page: int) -> dict[int, int]:
        """Digest -> first page, for digests first seen on a page before ``before_page``."""
        found: dict[int, int] = {}
        for batch in _batches([_signed(d) for d in set(digests)]):
            marks = ",".join("?" * len(batch))
            rows = self._execute(
                f"SELECT digest, first_page FROM chunks WHERE site = ? AND digest IN ({marks})"
                " AND first_page < ?",
                (site, *batch, before_page),
            )
            found.update((_unsigned(digest), first_page) for digest, first_page in rows)
        return found

    def add_chunks(self, site: str, chunks: Iterable[tuple[int, int]], page: int) -> None:
        """Record ``(digest, size)`` pairs as seen on ``page``; the earliest page stays recorded."""
        self._connection.executemany(
            "INSERT INTO chunks (site, digest, first_page, size) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (site, digest) DO UPDATE SET first_page = excluded.first_page"
            " WHERE excluded.first_page < chunks.first_page",
            [(site, _signed(digest), page, size) for digest, size in chunks],
        )

    # ------------------------------------------------------------------------------ simhashes
    def similar_simhashes(
        self, site: str, value: int, before_page: int, max_distance: int
    ) -> list[tuple[int, str, int]]:
        """``(page, segment_id, distance)`` of earlier segments within ``max_distance`` bits.

        An exact repeat (distance 0) is answered from the value index alone: repeated boilerplate
        would otherwise make every page scan all earlier copies of it.
        """
        exact = self._execute(
            "SELECT page, segment_id FROM simhashes WHERE site = ? AND simhash = ? AND page < ?"
            " ORDER BY page LIMIT 1",
            (site, _signed(value), before_page),
        ).fetchone()
        if exact is not None:
            return [(int(exact[0]), str(exact[1]), 0)]
        bands = [(value >> (16 * index)) & 0xFFFF for index in range(4)]
        rows = self._execute(
            "SELECT page, segment_id, simhash FROM simhashes WHERE site = ? AND page < ? AND"
            " (band0 = ? OR band1 = ? OR band2 = ? OR band3 = ?)",
            (site, before_page, *bands),
        )
        matches = []
        for page, segment_id, other in rows:
            distance = (value ^ _unsigned(other)).bit_count()
            if distance <= max_distance:
                matches.append((int(page), str(segment_id), distance))
        return sorted(matches, key=lambda match: (match[2], match[0]))

    def replace_simhashes(self, site: str, page: int, values: list[tuple[str, int]]) -> None:
        """Store the page's ``(segment_id, simhash)`` pairs, replacing those of an earlier run."""
        self._execute("DELETE FROM simhashes WHERE page = ?", (page,))
        self._connection.executemany(
            "INSERT INTO simhashes (site, page, segment_id, simhash, band0, band1, band2, band3)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    site,
                    page,
                    segment_id,
                    _signed(value),
                    *[(value >> (16 * index)) & 0xFFFF for index in range(4)],
                )
                for segment_id, value in values
            ],
        )

    # ------------------------------------------------------------------------------- shingles
    def frequent_shingle_limit(self, site: str, fraction: float) -> int | None:
        """Page frequency above which a shingle is among the ``fraction`` most frequent of the site.

        Rank ``k = floor(fraction * distinct shingles)``: shingles whose frequency exceeds the
        frequency at rank ``k + 1`` are dropped, so ties at the edge are kept and at most
        ``fraction`` of the shingles go. ``None`` when nothing is frequent yet.
        """
        total = int(
            self._execute("SELECT COUNT(*) FROM shingles WHERE site = ?", (site,)).fetchone()[0]
        )
        rank = int(fraction * total)
        if rank < 1:
            return None
        row = self._execute(
            "SELECT pages FROM shingles WHERE site = ? ORDER BY pages DESC LIMIT 1 OFFSET ?",
            (site, rank),
        ).fetchone()
        return max(int(row[0]), 1) if row else None

    def shingle_frequencies(self, site: str, shingles: Iterable[int]) -> dict[int, int]:
        found: dict[int, int] = {}
        for batch in _batches([_signed(s) for s in set(shingles)]):
            marks = ",".join("?" * len(batch))
            rows = self._execute(
                f"SELECT shingle, pages FROM shingles WHERE site = ? AND shingle IN ({marks})",
                (site, *batch),
            )
            found.update((_unsigned(shingle), int(pages)) for shingle, pages in rows)
        return found

    def count_shingles(self, site: str, shingles: Iterable[int]) -> None:
        """Add one page to the frequency of each of the page's distinct shingles."""
        self._connection.executemany(
            "INSERT INTO shingles (site, shingle, pages) VALUES (?, ?, 1)"
            " ON CONFLICT (site, shingle) DO UPDATE SET pages = pages + 1",
            [(site, _signed(shingle)) for shingle in set(shingles)],
        )

    # ------------------------------------------------------------------------------ minhashes
    def minhash_candidates(
        self, site: str, band_hashes: list[int], before_page: int
    ) -> list[tuple[int, str, np.ndarray]]:
        """``(page, segment_id, signature)`` of earlier segments sharing at least one LSH band."""
        marks = ",".join("?" * len(band_hashes))
        rows = self._execute(
            "SELECT page, segment_id, signature FROM minhashes WHERE page < ? AND id IN"
            f" (SELECT minhash FROM minhash_bands WHERE site = ? AND band_hash IN ({marks}))",
            (before_page, site, *[_signed(h) for h in band_hashes]),
        )
        return [
            (int(page), str(segment_id), np.frombuffer(blob, dtype=np.uint32))
            for page, segment_id, blob in rows
        ]

    def replace_minhashes(
        self, site: str, page: int, values: list[tuple[str, np.ndarray, list[int]]]
    ) -> None:
        """Store the page's ``(segment_id, signature, band hashes)``, replacing an earlier run's."""
        old = [row[0] for row in self._execute("SELECT id FROM minhashes WHERE page = ?", (page,))]
        for batch in _batches(old):
            marks = ",".join("?" * len(batch))
            self._execute(f"DELETE FROM minhash_bands WHERE minhash IN ({marks})", batch)
        self._execute("DELETE FROM minhashes WHERE page = ?", (page,))
        for segment_id, sig, band_hashes in values:
            cursor = self._execute(
                "INSERT INTO minhashes (site, page, segment_id, signature) VALUES (?, ?, ?, ?)",
                (site, page, segment_id, sig.astype(np.uint32).tobytes()),
            )
            self._connection.executemany(
                "INSERT INTO minhash_bands (site, band_hash, minhash) VALUES (?, ?, ?)",
                [(site, _signed(h), cursor.lastrowid) for h in band_hashes],
            )
