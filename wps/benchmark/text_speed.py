"""Speed of the text step (extraction, alignment + statistics, filters) on cached captures."""

from __future__ import annotations

import copy
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import PageCapture

__all__ = ["TextTimings", "time_text_stage"]


@dataclass(slots=True)
class TextTimings:
    """Per-page medians over repeats, in milliseconds, one entry per page."""

    extract_ms: list[float]
    map_ms: list[float]
    filter_ms: list[float]

    def summary(self) -> dict[str, float]:
        total = [a + b + c for a, b, c in zip(self.extract_ms, self.map_ms, self.filter_ms)]
        return {
            "pages": len(total),
            "median_extract_ms": round(statistics.median(self.extract_ms), 2),
            "median_map_ms": round(statistics.median(self.map_ms), 2),
            "median_filter_ms": round(statistics.median(self.filter_ms), 2),
            "median_total_ms": round(statistics.median(total), 2),
            "p90_total_ms": round(sorted(total)[int(0.9 * (len(total) - 1))], 2),
        }


def time_text_stage(capture_dirs: list[Path], config: dict[str, Any], segmenter_name: str,
                    repeats: int = 3) -> TextTimings:
    """Segment each capture once (untimed), then time the text step ``repeats`` times."""
    from ..filters import apply_rules, rules_from_config
    from ..segmenters import build_segmenter
    from ..text.annotate import annotate_segments, kept_main_text
    from ..text.extract import ExtractOptions, extract_main_text

    segmenter = build_segmenter(segmenter_name)
    options = ExtractOptions.from_config(config["extract"])
    rules = rules_from_config(config["filters"]["segment"])
    add_unsegmented = bool(config.get("text", {}).get("add_unsegmented", False))
    extract_main_text("<html><body><p>warm up</p></body></html>", None, options)
    timings = TextTimings([], [], [])
    for directory in capture_dirs:
        capture = PageCapture.load(directory)
        segmentation = segmenter.segment(capture)
        runs: list[tuple[float, float, float]] = []
        for _ in range(repeats):
            fresh = copy.deepcopy(segmentation)
            start = time.perf_counter()
            main_text = extract_main_text(capture.html, capture.url, options)
            extracted = time.perf_counter()
            report = annotate_segments(capture, fresh, options, main_text=main_text,
                                       add_unsegmented=add_unsegmented)
            mapped = time.perf_counter()
            apply_rules(fresh.segments, rules)
            kept_main_text(capture, fresh, report)
            done = time.perf_counter()
            runs.append((extracted - start, mapped - extracted, done - mapped))
        timings.extract_ms.append(1000 * statistics.median(r[0] for r in runs))
        timings.map_ms.append(1000 * statistics.median(r[1] for r in runs))
        timings.filter_ms.append(1000 * statistics.median(r[2] for r in runs))
    return timings
