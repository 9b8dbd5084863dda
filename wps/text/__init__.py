"""Main text: extraction (Trafilatura, NewsFeed), alignment onto text nodes, segment statistics."""

from .annotate import TextReport, annotate_segments
from .extract import ExtractOptions, MainBlock, MainText, extract_main_text

__all__ = ["TextReport", "annotate_segments", "ExtractOptions", "MainBlock", "MainText",
           "extract_main_text"]
