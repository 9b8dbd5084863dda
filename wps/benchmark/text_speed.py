"""Speed of the steps after segmentation (main text, filters, and any later step), on cached
captures: the same :func:`wps.pipeline.build_steps` list users run, timed step by step."""

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

    def summary(self) -> dict[str, float]:
        totals = [sum(values) for values in zip(*self.steps.values())]
        summary: dict[str, float] = {"pages": len(totals)}
        for name, values in self.steps.items():
            summary[f"median_{name.replace(' ', '_')}_ms"] = round(statistics.median(values), 2)
        summary["median_total_ms"] = round(statistics.median(totals), 2)
        summary["p90_total_ms"] = round(sorted(totals)[int(0.9 * (len(totals) - 1))], 2)
        return summary


def time_text_stage(capture_dirs: list[Path], config: dict[str, Any], segmenter_name: str,
                    repeats: int = 3) -> TextTimings:
    """Segment each capture once (untimed), then time every later step ``repeats`` times."""
    from ..pipeline import PipelineOptions, build_steps
    from ..steps import PageState

    segment_step, *steps = build_steps(PipelineOptions(segmenter=segmenter_name, config=config))
    _warm_up()
    timings = TextTimings({step.name: [] for step in steps})
    for directory in capture_dirs:
        capture = PageCapture.load(directory)
        segmented = PageState(capture)
        segment_step.run(segmented)
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


def _warm_up() -> None:
    """Import and first-call costs (trafilatura's) are not per-page costs."""
    from ..text.extract import ExtractOptions, extract_main_text

    extract_main_text("<html><body><p>warm up</p></body></html>", None, ExtractOptions())
