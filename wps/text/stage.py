"""The pipeline's text step: main text onto segments, then the filter rules, in one call.

Only main text may reach the detector: a segment is kept when it holds main text and its main
text passes the segment rules. The page-level rules (the seed's article / non-article page filter)
are evaluated on the page's whole main text and reported beside the segments.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import PageCapture, Segmentation
from .annotate import TextReport, annotate_segments, kept_main_text
from .extract import ExtractOptions

__all__ = ["TextStageResult", "map_main_text", "filter_segments", "run_text_stage",
           "resolve_config"]


@dataclass(slots=True)
class TextStageResult:
    report: TextReport
    config: dict[str, Any]
    page_reasons: list[str] = field(default_factory=list)
    """Reason codes of the page-level rules that judge the page not an article (empty: article)."""
    counts: Counter[str] = field(default_factory=Counter)
    kept_text: str = ""
    """Main text of the kept segments in reading order (each text node once)."""
    page_retry: str | None = None
    """``"favor_precision"`` when the page verdict comes from a second, precision extraction."""

    def to_json(self) -> dict[str, Any]:
        """Page-level facts: extractor, block matches, unaligned blocks, the page verdict."""
        data = self.report.to_json()
        data["page_kept"] = not self.page_reasons
        data["page_reasons"] = list(self.page_reasons)
        data["page_retry"] = self.page_retry
        data["segments"] = {key: value for key, value in self.counts.items()}
        return data

    def write(self, path: Path) -> Path:
        """Write :meth:`to_json` to ``path`` through a temporary file and a rename."""
        import json

        from ..files import write_text_atomic

        return write_text_atomic(path, json.dumps(self.to_json(), ensure_ascii=False, indent=1))


def resolve_config(config: dict[str, Any] | str | Path | None,
                   extractor: str | None = None) -> dict[str, Any]:
    """A full config from a dict (used as is), a TOML path or ``None`` (packaged defaults);
    ``extractor`` overrides ``[extract] extractor``."""
    from ..config import load_config

    resolved = load_config(config) if config is None or isinstance(config, (str, Path)) \
        else config
    if extractor is not None:
        resolved = {**resolved, "extract": {**resolved["extract"], "extractor": extractor}}
    return resolved


def map_main_text(capture: PageCapture, segmentation: Segmentation,
                  config: dict[str, Any] | str | Path | None = None,
                  extractor: str | None = None) -> TextStageResult:
    """Extract the main text and give every segment its part and statistics (no verdicts)."""
    config = resolve_config(config, extractor)
    options = ExtractOptions.from_config(config["extract"])
    add_unsegmented = bool(config.get("text", {}).get("add_unsegmented", False))
    report = annotate_segments(capture, segmentation, options, add_unsegmented=add_unsegmented)
    return TextStageResult(report, config)


def filter_segments(capture: PageCapture, segmentation: Segmentation,
                    result: TextStageResult) -> TextStageResult:
    """Mark every segment kept or dropped (segment rules); judge the page (page rules)."""
    from ..filters import TextUnit, apply_rules, evaluate_rules, rules_from_config

    from ..filters.c4 import c4_kept_lines

    segment_rules = rules_from_config(result.config["filters"]["segment"])
    page_rules = rules_from_config(result.config["filters"]["page"])
    for segment in segmentation.segments:  # spec §6: C4 no-punct lines, whether or not it drops
        lines = [line for line in segment.main_text.splitlines() if line.strip()]
        segment.stats["c4_lines_dropped"] = float(len(lines) - len(c4_kept_lines(
            segment.main_text)[0]))
    result.counts = apply_rules(segmentation.segments, segment_rules)
    report = result.report
    result.page_reasons = evaluate_rules(TextUnit(report.main_text.text, report.page_stats),
                                         page_rules)
    options = ExtractOptions.from_config(result.config["extract"])
    if {"link_share", "code_share"} & set(result.page_reasons) and not options.favor_precision:
        # Spec §2: trafilatura sometimes appends a link list or returns only a code block;
        # judge the page again on a favor_precision extraction before calling it non-article.
        options.favor_precision, options.favor_recall = True, False
        empty = Segmentation(segmentation.page_id, segmentation.segmenter, segmentation.width,
                             segmentation.height, [])
        second = annotate_segments(capture, empty, options)
        result.page_reasons = evaluate_rules(
            TextUnit(second.main_text.text, second.page_stats), page_rules)
        result.page_retry = "favor_precision"
    for segment in segmentation.segments:
        segment.extra["page_reasons"] = list(result.page_reasons)
    result.kept_text = kept_main_text(capture, segmentation, report)
    return result


def run_text_stage(capture: PageCapture, segmentation: Segmentation,
                   config: dict[str, Any] | str | Path | None = None,
                   extractor: str | None = None) -> TextStageResult:
    """:func:`map_main_text` then :func:`filter_segments`."""
    return filter_segments(capture, segmentation,
                           map_main_text(capture, segmentation, config, extractor))
