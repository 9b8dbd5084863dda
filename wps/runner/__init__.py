"""Batch runs: many pages, a pool of workers with one Chromium each (or a Ray cluster),
resumable output folders."""

from .batch import BatchOptions, BatchSummary, run_batch
from .entries import BatchSource, source_key
from .folders import page_folder_name
from .sources import count_sources, iter_sources, read_source_list

__all__ = [
           "BatchOptions",
           "BatchSource",
           "BatchSummary",
           "count_sources",
           "iter_sources",
           "page_folder_name",
           "read_source_list",
           "run_batch",
           "source_key",
]
