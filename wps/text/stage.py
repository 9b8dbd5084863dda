"""The text stages: main text onto segments (:func:`map_main_text`), then the filter rules
(:func:`filter_segments`); :mod:`wps.steps` runs them as pipeline steps.

Only main text may reach the detector: a segment is kept when it holds main text and its main
text passes the segment rules. The page-level rules (the seed's article / non-article page filter)
are evaluated on the page's whole main text and reported beside the segments.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ..model import PageCapture, Segment, Segmentation
from .annotate import TextReport, annotate_segments, kept_main_text
from .extract import ExtractOptions

__all__ = ["TextStageResult", "map_main_text", "filter_segments"]


@dataclass(slots=True)
class TextStageResult:
    report: TextReport
    page_reasons: list[str] = field(default_factory=list)
    """Reason codes of the page-level rules that judge the page not an article (empty: article)."""
    kept_text: str = ""
    """Main text of the kept segments in reading order (each text node once), after filters."""
    page_retry: str | None = None
    """``"favor_precision"`` when the page verdict comes from a second, precision extraction."""

    def to_json(self, segments: Sequence[Segment] = ()) -> dict[str, Any]:
        """Page-level facts: extractor, block matches, unaligned blocks, the page verdict, and
        the kept / dropped counts of ``segments`` as the last step left them."""
        from ..filters.base import count_outcomes

        data = self.report.to_json()
        data["page_kept"] = not self.page_reasons
        data["page_reasons"] = list(self.page_reasons)
        data["page_retry"] = self.page_retry
        data["segments"] = dict(count_outcomes(segments))
        return data


def map_main_text(capture: PageCapture, segmentation: Segmentation, options: ExtractOptions,
                  *, add_unsegmented: bool = False) -> TextStageResult:
    """Extract the main text and give every segment its part and statistics (no verdicts)."""
    report = annotate_segments(capture, segmentation, options, add_unsegmented=add_unsegmented)
    return TextStageResult(report)


def filter_segments(capture: PageCapture, segmentation: Segmentation, result: TextStageResult,
                    segment_rules: list[Any], page_rules: list[Any],
                    options: ExtractOptions) -> TextStageResult:
    """Mark every segment kept or dropped (segment rules); judge the page (page rules)."""
    from ..filters import TextUnit, apply_rules, evaluate_rules
    from .stats import c4_lines_dropped

    for segment in segmentation.segments:  # spec §6: C4 no-punct lines, whether or not it drops
        segment.stats["c4_lines_dropped"] = c4_lines_dropped(segment.main_text)
    apply_rules(segmentation.segments, segment_rules)
    report = result.report
    result.page_reasons = evaluate_rules(TextUnit(report.main_text.text, report.page_stats),
                                         page_rules)
    if {"link_share", "code_share"} & set(result.page_reasons) and not options.favor_precision:
        # Spec §2: trafilatura sometimes appends a link list or returns only a code block;
        # judge the page again on a favor_precision extraction before calling it non-article.
        options = replace(options, favor_precision=True, favor_recall=False)
        empty = Segmentation(segmentation.page_id, segmentation.segmenter, segmentation.width,
                             segmentation.height, [])
        second = annotate_segments(capture, empty, options)
        result.page_reasons = evaluate_rules(
            TextUnit(second.main_text.text, second.page_stats), page_rules)
        result.page_retry = "favor_precision"
    for segment in segmentation.segments:
        segment.page_reasons = list(result.page_reasons)
    result.kept_text = kept_main_text(capture, segmentation, report)
    return result
