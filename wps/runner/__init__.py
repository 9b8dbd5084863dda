"""Batch runs: many pages, a pool of workers with one Chromium each (or a Ray cluster),
resumable output folders.

The names below are imported when first asked for: ``wps batch`` reads its input, sizes its
pool and starts the workers' fork server (:mod:`.prestart`) before it imports the engine, so the
server's imports run beside the rest of its own start instead of after it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .batch import run_batch
    from .entries import BatchSource, source_key
    from .folders import page_folder_name
    from .options import BatchOptions, BatchSummary
    from .sources import count_sources, iter_sources, read_source_list

_HOMES = {
    "BatchOptions": "options", "BatchSummary": "options", "run_batch": "batch",
    "BatchSource": "entries", "source_key": "entries", "page_folder_name": "folders",
    "count_sources": "sources", "iter_sources": "sources", "read_source_list": "sources",
}
"""The submodule each public name lives in."""

__all__ = [
    "BatchOptions", "BatchSource", "BatchSummary", "count_sources", "iter_sources",
    "page_folder_name", "read_source_list", "run_batch", "source_key",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{home}", __name__), name)
