"""Speed of the steps after segmentation (main text, filters, and any later step), on cached
captures: the same :func:`wps.pipeline.build_steps` list users run, timed step by step, next to
trafilatura alone on the same rendered DOM (what a user of trafilatura pays: the reference the
steps' cost is stated against)."""

from __future__ import annotations

import copy
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import PageCapture

__all__ = ["TextTimings", "time_text_stage"]


@dataclass(slots=True)
class TextTimings:
    """Per-page medians over repeats, in milliseconds: one list per step name."""

    steps: dict[str, list[float]] = field(default_factory=dict)
    trafilatura: list[float] = field(default_factory=list)
    """``trafilatura.extract`` of each page's DOM with the main-text step's options."""

    def summary(self) -> dict[str, float]:
        totals = [sum(values) for values in zip(*self.steps.values())]
        summary: dict[str, float] = {"pages": len(totals)}
        for name, values in self.steps.items():
            summary[f"median_{name.replace(' ', '_')}_ms"] = round(statistics.median(values), 2)
        summary["median_total_ms"] = round(statistics.median(totals), 2)
        summary["p90_total_ms"] = round(sorted(totals)[int(0.9 * (len(totals) - 1))], 2)
        if self.trafilatura:
            alone = statistics.median(self.trafilatura)
            summary["median_trafilatura_alone_ms"] = round(alone, 2)
            summary["total_to_trafilatura"] = round(statistics.median(totals) / alone, 2)
            summary["median_page_total_to_trafilatura"] = round(statistics.median(
                total / max(reference, 1e-6)
                for total, reference in zip(totals, self.trafilatura)), 2)
        return summary


def time_text_stage(capture_dirs: list[Path], config: dict[str, Any], segmenter_name: str,
                    repeats: int = 3) -> TextTimings:
    """Segment each capture once (untimed), then time every later step ``repeats`` times, and
    trafilatura alone as often."""
    from ..pipeline import PipelineOptions, build_steps
    from ..steps import PageState
    from ..text.extract import ExtractOptions

    segment_step, *steps = build_steps(PipelineOptions(segmenter=segmenter_name, config=config))
    for step in steps:  # imports, models and first calls are not per-page costs
        step.warm_up()
    extract = ExtractOptions.from_config(config.get("extract", {}))
    timings = TextTimings({step.name: [] for step in steps})
    for directory in capture_dirs:
        capture = PageCapture.load(directory)
        segmented = PageState(capture)
        segment_step.run(segmented)
        timings.trafilatura.append(1000 * statistics.median(
            _trafilatura_alone(capture, extract) for _ in range(repeats)))
        runs: list[list[float]] = []
        for _ in range(repeats):
            page = PageState(capture, copy.deepcopy(segmented.segmentation))
            run = []
            for step in steps:
                start = time.perf_counter()
                step.run(page)
                run.append(time.perf_counter() - start)
            runs.append(run)
        for index, step in enumerate(steps):
            timings.steps[step.name].append(1000 * statistics.median(r[index] for r in runs))
    return timings


def _trafilatura_alone(capture: PageCapture, options: Any) -> float:
    """Seconds of one ``trafilatura.extract`` of the page's DOM with the step's options."""
    import trafilatura

    start = time.perf_counter()
    trafilatura.extract(capture.html, url=capture.url, favor_precision=options.favor_precision,
                        favor_recall=options.favor_recall,
                        include_comments=options.include_comments,
                        include_tables=options.include_tables)
    return time.perf_counter() - start
