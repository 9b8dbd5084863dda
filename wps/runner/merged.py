"""``wps batch --merged``: every finished page's segment lines in one file, as JSONL or Parquet.

The pages are those with a completion marker in ``DIR/.done/`` (this run's and earlier ones'),
in marker order; each marker names its page folder. The file is written beside its place and
renamed over it, so a reader never sees half of one.

Parquet (``--merged parquet``, pyarrow: ``pip install 'wps[parquet]'``) has one fixed schema
whatever the lines hold: the slim detector columns (:data:`~wps.records.DETECTOR_FIELDS`, typed),
and with full lines a ``record`` column holding each whole line as JSON text (its fields vary with
the steps that ran). Pages go in row groups of :data:`PAGES_PER_ROW_GROUP`, so a reader (or a
datatrove ``ParquetReader``) can take a chunk of pages at a time.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..completions import DONE_FOLDER
from ..errors import UsageError
from ..files import atomic_file, iter_jsonl
from ..records import DETECTOR_FIELDS, SEGMENTS_FILE, detector_record

__all__ = ["MERGED_FILES", "PAGES_PER_ROW_GROUP", "finished_pages", "write_merged_segments"]

MERGED_FILES = {"jsonl": "segments.jsonl", "parquet": "segments.parquet"}
PAGES_PER_ROW_GROUP = 64
"""Pages per Parquet row group: some thousands of segments, a few MB of text."""


def finished_pages(out: Path) -> Iterator[Path]:
    """The ``segments.jsonl`` of every page with a marker, in marker order."""
    for marker in sorted((out / DONE_FOLDER).iterdir()):
        page = out / marker_folder(marker) / SEGMENTS_FILE
        if not marker.name.startswith(".") and page.is_file():
            yield page


def marker_folder(marker: Path) -> str:
    """The page folder a marker is for: its ``folder`` field, else (markers written before page
    folders had readable names) its own name."""
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return marker.name
    folder = record.get("folder") if isinstance(record, dict) else None
    return folder if isinstance(folder, str) and folder and "/" not in folder else marker.name


def write_merged_segments(out: Path, fmt: str = "jsonl") -> Path:
    """``DIR/segments.jsonl`` (lines copied as they are) or ``DIR/segments.parquet``."""
    path = out / MERGED_FILES[fmt]
    if fmt == "parquet":
        return _write_parquet(out, path)
    with atomic_file(path) as merged:
        for page in finished_pages(out):
            with open(page, encoding="utf-8") as lines:
                shutil.copyfileobj(lines, merged)
    return path


def import_pyarrow() -> Any:
    """pyarrow, or a :class:`UsageError` saying how to install it (checked before a batch)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise UsageError("--merged parquet needs pyarrow: pip install 'wps[parquet]'") from None
    return pyarrow


def parquet_schema(full: bool) -> Any:
    """The slim detector columns (:data:`~wps.records.DETECTOR_FIELDS`, in their order), and
    ``record`` (the whole line as JSON) for full lines."""
    pa = import_pyarrow()
    types = {"main_text": pa.large_string(), "prose_score": pa.float64(),
             "reasons": pa.list_(pa.string()), "kept": pa.bool_(),
             "bbox": pa.list_(pa.float64())}
    columns = [(name, types.get(name, pa.string())) for name in DETECTOR_FIELDS]
    if full:
        columns.append(("record", pa.large_string()))
    return pa.schema(columns)


def _rows(page: Path) -> Iterator[dict[str, Any]]:
    for _number, record in iter_jsonl(page):
        row = detector_record(record)
        if "segment_id" in record:  # a full line
            row["record"] = json.dumps(record, ensure_ascii=False)
        yield row


def _write_parquet(out: Path, path: Path) -> Path:
    """Row groups of :data:`PAGES_PER_ROW_GROUP` pages, streamed; the schema follows the first
    page's lines (full or slim: one batch writes one kind)."""
    pa = import_pyarrow()
    import pyarrow.parquet as pq

    pages = list(finished_pages(out))
    full = next(("record" in row for page in pages for row in _rows(page)), True)
    schema = parquet_schema(full)
    with atomic_file(path, binary=True) as stream, pq.ParquetWriter(stream, schema) as writer:
        for start in range(0, max(len(pages), 1), PAGES_PER_ROW_GROUP):
            rows = [row for page in pages[start:start + PAGES_PER_ROW_GROUP]
                    for row in _rows(page)]
            writer.write_table(pa.Table.from_pylist(
                [{name: row.get(name) for name in schema.names} for row in rows], schema=schema))
    return path
