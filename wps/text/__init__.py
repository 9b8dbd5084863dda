"""Main text: extraction (Trafilatura, NewsFeed), alignment onto text nodes, segment statistics,
and the pipeline's text step (main text, then the filter rules)."""

from .annotate import TextReport, annotate_segments, kept_main_text
from .extract import ExtractOptions, MainBlock, MainText, extract_main_text
from .stage import TextStageResult, filter_segments, map_main_text

__all__ = ["TextReport", "annotate_segments", "kept_main_text", "ExtractOptions", "MainBlock",
           "MainText", "extract_main_text", "TextStageResult", "filter_segments",
           "map_main_text"]
