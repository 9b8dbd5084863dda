"""Dataset-level aggregation exactly as ECIR'21 did it (webis-webseg-20.md §8).

1. Per page, segmenter and size function take the segmenter's row; if it is missing, the
   baseline's row for that page; if that is missing too, NA.
2. Drop rows holding NaN: such pages are excluded for that segmenter and size function, not
   counted as 0.
3. Report mean P, mean R, mean per-page F and F* = 2·meanP·meanR / (meanP + meanR).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..published.published import SIZE_FUNCTION_ORDER
from .store import BASELINE_SUBSTITUTE, MISSING, OWN, PageResult

__all__ = ["SizeFunctionSummary", "SegmenterSummary", "resolve_rows", "aggregate", "f_star",
           "BASELINE_NAME"]

BASELINE_NAME = "baseline"


@dataclass(slots=True)
class SizeFunctionSummary:
    pages: int
    """Pages left after dropping NaN rows."""
    precision: float
    recall: float
    f1: float
    """Mean per-page F."""
    f_star: float
    """Harmonic mean of ``precision`` and ``recall`` (the means)."""


@dataclass(slots=True)
class SegmenterSummary:
    segmenter: str
    pages: int
    """Pages in the page set (before dropping NaN rows)."""
    substituted: int
    """Pages where the baseline's row stood in for missing output."""
    missing: int
    """Pages with no row at all (NA for every size function)."""
    segments_per_page: float
    seconds_per_page: float
    """Mean wall time of ``segment()``, failed attempts included."""
    size_functions: dict[str, SizeFunctionSummary] = field(default_factory=dict)


def f_star(precision: float, recall: float) -> float:
    """Harmonic mean of mean P and mean R; 0 when both are 0, NaN when either is NaN."""
    if math.isnan(precision) or math.isnan(recall):
        return math.nan
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def resolve_rows(
    results: Iterable[PageResult], segmenters: Sequence[str], pages: Sequence[str]
) -> list[PageResult]:
    """One row per (page, segmenter) of the page set, after rule 1 (missing → baseline row).

    A segmenter without a record for a page, or whose record holds no scores, gets the
    baseline's own row for that page (source ``baseline-substitute``); without that, a
    ``missing`` row with no scores.
    """
    by_key = {(result.page, result.segmenter): result for result in results}
    rows: list[PageResult] = []
    for segmenter in segmenters:
        for page in pages:
            row = by_key.get((page, segmenter))
            if row is not None and row.scores is not None:
                rows.append(row)
                continue
            baseline = by_key.get((page, BASELINE_NAME))
            seconds = row.seconds if row is not None else math.nan
            error = row.error if row is not None and row.error else "no result"
            if baseline is not None and baseline.scores is not None and baseline.source == OWN:
                rows.append(PageResult(page, segmenter, BASELINE_SUBSTITUTE, baseline.segments,
                                       seconds, dict(baseline.scores), error))
            else:
                rows.append(PageResult(page, segmenter, MISSING, 0, seconds, None, error))
    return rows


def aggregate(
    rows: Iterable[PageResult], size_functions: Sequence[str] = SIZE_FUNCTION_ORDER
) -> dict[str, SegmenterSummary]:
    """Rules 2 and 3 over rows from :func:`resolve_rows`: per segmenter and size function means."""
    grouped: dict[str, list[PageResult]] = {}
    for row in rows:
        grouped.setdefault(row.segmenter, []).append(row)
    summaries: dict[str, SegmenterSummary] = {}
    for segmenter, group in grouped.items():
        present = [row for row in group if row.scores is not None]
        timed = [row.seconds for row in group if not math.isnan(row.seconds)]
        summary = SegmenterSummary(
            segmenter=segmenter,
            pages=len(group),
            substituted=sum(row.source == BASELINE_SUBSTITUTE for row in group),
            missing=len(group) - len(present),
            segments_per_page=_mean([row.segments for row in present]),
            seconds_per_page=_mean(timed),
        )
        for name in size_functions:
            kept = [
                row.scores[name] for row in present
                if name in row.scores and not any(math.isnan(value) for value in row.scores[name])
            ]
            precision = _mean([score[0] for score in kept])
            recall = _mean([score[1] for score in kept])
            summary.size_functions[name] = SizeFunctionSummary(
                pages=len(kept),
                precision=precision,
                recall=recall,
                f1=_mean([score[2] for score in kept]),
                f_star=f_star(precision, recall),
            )
        summaries[segmenter] = summary
    return summaries


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan
