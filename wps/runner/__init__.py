"""Batch runs: many pages, a pool of workers with one Chromium each, resumable output folders."""

from .batch import BatchOptions, BatchSummary, run_batch
from .sources import read_source_list, source_key

__all__ = ["BatchOptions", "BatchSummary", "run_batch", "read_source_list", "source_key"]
