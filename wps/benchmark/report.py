"""Benchmark outputs: per-page CSV, summary JSON (full precision) and markdown (two decimals).

The markdown prints the published tables (webis-webseg-20.md §12) under ours, each labelled with
its page set, because a sample run and the papers' 8,490 pages or 1,969-page subset are not
directly comparable. Every file is written to a temporary sibling and renamed into place.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..published.published import PUBLISHED_TABLES, SIZE_FUNCTION_ORDER, PublishedScore
from ..files import write_text_atomic
from .aggregate import SegmenterSummary
from .store import PageResult

__all__ = ["write_per_page_csv", "summary_to_json", "summary_to_markdown",
           "PER_PAGE_COLUMNS"]

PER_PAGE_COLUMNS = ("page", "segmenter", "size_function", "precision", "recall", "f1",
                    "segments", "seconds", "source", "error")


def write_per_page_csv(path: Path, rows: Sequence[PageResult],
                       size_functions: Sequence[str] = SIZE_FUNCTION_ORDER) -> None:
    """One line per (page, segmenter, size function); ``NA`` where R would write it."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PER_PAGE_COLUMNS)
    for row in sorted(rows, key=lambda item: (item.segmenter, item.page)):
        for name in size_functions:
            score = (row.scores or {}).get(name, (math.nan,) * 3)
            writer.writerow([row.page, row.segmenter, name, *(_na(value) for value in score),
                             row.segments, _na(row.seconds), row.source, row.error])
    write_text_atomic(path, buffer.getvalue())


def summary_to_json(summaries: dict[str, SegmenterSummary], run: dict[str, Any]) -> str:
    """Full-precision summary (NaN as null) plus the published tables with their sources."""
    data = {
        "run": run,
        "aggregation": "webis-webseg-20.md §8: missing output -> baseline row; rows with NaN "
                       "dropped; F = mean per-page F1; F* = 2*meanP*meanR/(meanP+meanR)",
        "segmenters": {
            name: {
                "pages": summary.pages,
                "substituted": summary.substituted,
                "missing": summary.missing,
                "segments_per_page": _null(summary.segments_per_page),
                "seconds_per_page": _null(summary.seconds_per_page),
                "size_functions": {
                    function: {
                        "pages": scores.pages,
                        "precision": _null(scores.precision),
                        "recall": _null(scores.recall),
                        "f1": _null(scores.f1),
                        "f_star": _null(scores.f_star),
                    }
                    for function, scores in summary.size_functions.items()
                },
            }
            for name, summary in summaries.items()
        },
        "published": [
            {
                "key": table.key,
                "title": table.title,
                "pages": table.pages,
                "source": table.source,
                "comparable": table.comparable_note,
                "rows": [
                    {
                        "algorithm": row.algorithm,
                        "segments_per_page": row.segments_per_page,
                        "note": row.note,
                        "size_functions": {
                            function: {"precision": score.precision, "recall": score.recall,
                                       "f1": score.f1, "f_star": score.f_star}
                            for function, score in row.scores.items()
                        },
                    }
                    for row in table.rows
                ],
            }
            for table in PUBLISHED_TABLES
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def summary_to_markdown(summaries: dict[str, SegmenterSummary], run: dict[str, Any]) -> str:
    """Our table, a per-size-function detail table, then the published tables, two decimals."""
    functions = list(SIZE_FUNCTION_ORDER)
    lines = [
        "# Webis-WebSeg-20 benchmark",
        "",
        f"- data: `{run.get('data')}` ({run.get('layout')} layout)",
        f"- pages evaluated: {run.get('pages')}"
        + (f"; skipped (no ground-truth.json or nodes.csv): {run['skipped']}"
           if run.get("skipped") else ""),
        f"- command: `{run.get('command')}`",
        ("- aggregation (§8): missing or empty output → the baseline's row; pages with NaN "
         "dropped per size function; F = mean per-page F1; F\\* = 2·P·R/(P+R) of the means"),
        "",
        f"## Ours ({run.get('pages')} page{'' if run.get('pages') == 1 else 's'})",
        "",
        "Cells: F / F\\* / P / R. `subst.` = pages where the baseline row stood in.",
        "",
        "| segmenter | pages | subst. | seg/page | s/page | " + " | ".join(functions) + " |",
        "|---|---|---|---|---|" + "---|" * len(functions),
    ]
    for name, summary in summaries.items():
        cells = [_cell(summary.size_functions[function]) if function in summary.size_functions
                 else "–" for function in functions]
        lines.append(f"| {name} | {summary.pages} | {summary.substituted} | "
                     f"{_two(summary.segments_per_page, digits=1)} | "
                     f"{_two(summary.seconds_per_page, digits=3)} | " + " | ".join(cells) + " |")
    lines += ["", "| segmenter | size function | pages used | mean P | mean R | mean F | F\\* |",
              "|---|---|---|---|---|---|---|"]
    for name, summary in summaries.items():
        for function in functions:
            if function not in summary.size_functions:
                continue
            scores = summary.size_functions[function]
            lines.append(f"| {name} | {function} | {scores.pages} | {_two(scores.precision)} | "
                         f"{_two(scores.recall)} | {_two(scores.f1)} | {_two(scores.f_star)} |")
    lines += ["", "## Published results (different page sets: not directly comparable)", ""]
    for table in PUBLISHED_TABLES:
        lines += [f"### {table.title} — {table.pages}", "",
                  f"Source: {table.source}. Not comparable with ours: {table.comparable_note}.",
                  "", "Cells: F / F\\* / P / R (– = not reported).", "",
                  "| algorithm | seg/page | " + " | ".join(SIZE_FUNCTION_ORDER) + " |",
                  "|---|---|" + "---|" * len(SIZE_FUNCTION_ORDER)]
        for row in table.rows:
            cells = [_published_cell(row.scores[function]) for function in SIZE_FUNCTION_ORDER]
            per_page = "–" if row.segments_per_page is None else f"{row.segments_per_page:.1f}"
            lines.append(f"| {row.algorithm} | {per_page} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _cell(scores: Any) -> str:
    return "/".join(_two(value) for value in
                    (scores.f1, scores.f_star, scores.precision, scores.recall))


def _published_cell(score: PublishedScore) -> str:
    values = (score.f1, score.f_star, score.precision, score.recall)
    return "/".join("–" if value is None else f"{value:.2f}" for value in values)


def _two(value: float, digits: int = 2) -> str:
    return "NA" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _na(value: float) -> str:
    return "NA" if math.isnan(value) else repr(float(value))


def _null(value: float) -> float | None:
    return None if math.isnan(value) else value
