"""Which tasks a run finished: the one resume format of ``wps batch`` and the benchmarks that
keep page folders (datatrove's ``completions/``).

One small JSON marker per task in ``DIR/.done/<key>``, written atomically after the task's
outputs: a rerun skips a task whose marker names the same ``done_as`` (what shapes its outputs:
the segmenter and options, the code), and does again one whose marker names others, is missing
or cannot be read. The marker may hold more (the URL, the seconds it took) for reports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import WpsError
from .files import write_text_atomic
from .jsonsafe import load_nested

__all__ = ["DONE_FOLDER", "Completions"]

DONE_FOLDER = ".done"


class Completions:
    """The markers of the run writing to ``out`` (in ``out/.done``)."""

    def __init__(self, out: Path) -> None:
        self.folder = Path(out) / DONE_FOLDER

    def record(self, key: str) -> dict[str, Any] | None:
        """The marker of ``key`` (``None``: missing, unreadable or not a JSON object)."""
        marker = self.folder / key
        try:
            record = load_nested(marker.read_text(encoding="utf-8"), str(marker), json.loads)
        except (OSError, ValueError, WpsError):  # unreadable or odd marker: do the task again
            return None
        return record if isinstance(record, dict) else None

    def is_done(self, key: str, done_as: dict[str, Any]) -> bool:
        """Did a run with the same ``done_as`` finish ``key``?"""
        record = self.record(key)
        return record is not None and all(record.get(k) == v for k, v in done_as.items())

    def mark(self, key: str, record: dict[str, Any]) -> None:
        """``key`` is finished; ``record`` holds its ``done_as`` (and whatever reports read)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(self.folder / key, json.dumps(record))

    def forget(self, key: str) -> None:
        """``key`` is to be done again (its outputs are gone)."""
        (self.folder / key).unlink(missing_ok=True)
