"""The Webis-WebSeg-20 benchmark: run segmenters on dataset pages, evaluate, aggregate (§8).

``run_benchmark(BenchmarkOptions(...))`` is what ``scripts/benchmark_webseg20.py`` calls; results
go to a resumable store (``OUT/results.jsonl``) and from there to ``per-page.csv``,
``summary.json`` and ``summary.md``. The package also owns the article-extraction benchmark
(:mod:`.articles`), the text-speed benchmark (:mod:`.text_speed`) and the generated pages the
speed benchmarks and tests use (:mod:`.synthetic`).
"""

from __future__ import annotations

from .aggregate import SegmenterSummary, SizeFunctionSummary, aggregate, f_star, resolve_rows
from .runner import BenchmarkOptions, BenchmarkReport, evaluate_page, run_benchmark, write_summary
from .store import BASELINE_SUBSTITUTE, MISSING, OWN, PageResult, ResultStore

__all__ = [
    "BenchmarkOptions", "BenchmarkReport", "run_benchmark", "evaluate_page", "write_summary",
    "PageResult", "ResultStore", "OWN", "BASELINE_SUBSTITUTE", "MISSING",
    "SegmenterSummary", "SizeFunctionSummary", "aggregate", "resolve_rows", "f_star",
]
