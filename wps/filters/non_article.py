"""The seed's non-article rules (text-and-filters.md §2), usable on pages and on segments.

They read the statistics the text stage computes (``wps.text.stats``): token count, link and code
shares, the largest block, the share of text in large blocks, the list/table share, and for
segments the overlap with the page's main text. Thresholds default to the page-level values of
the spec; segment-level values come from the ``[filters.segment]`` config section. Each rule
names the statistics it reads in ``reads`` (a rule without one judges the text alone), so
``wps filter`` knows which stored values a line must have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import KEEP, RuleResult, TextUnit, count_tokens

__all__ = ["MainTextOverlap", "MinLength", "LinkCodeShare", "LongBlock", "LargeBlockShare",
           "ListTableShare"]


@dataclass(frozen=True, slots=True)
class MainTextOverlap:
    """Only main text may reach the detector: drop units with (almost) no extracted main text."""

    min_overlap: float = 0.5
    name: str = "main_text_overlap"
    reads: ClassVar[tuple[str, ...]] = ("main_text_overlap",)

    def __call__(self, unit: TextUnit) -> RuleResult:
        overlap = unit.stats.get("main_text_overlap", 0.0)
        if not unit.text.strip() or overlap < self.min_overlap:
            return RuleResult(False, "no_main_text")
        return KEEP


@dataclass(frozen=True, slots=True)
class MinLength:
    """"length" rule: fewer than ``min_tokens`` tokens (:func:`count_tokens`) or ``min_chars``
    characters."""

    min_tokens: int = 200
    min_chars: int = 0
    name: str = "min_length"

    def __call__(self, unit: TextUnit) -> RuleResult:
        if count_tokens(unit.text) < self.min_tokens:
            return RuleResult(False, "too_few_tokens")
        if len(unit.text) < self.min_chars:
            return RuleResult(False, "too_few_chars")
        return KEEP


@dataclass(frozen=True, slots=True)
class LinkCodeShare:
    """"link / code text" rule: more than ``max_share`` of the text in links or code."""

    max_share: float = 0.20
    name: str = "link_code_share"
    reads: ClassVar[tuple[str, ...]] = ("link_share", "code_share")

    def __call__(self, unit: TextUnit) -> RuleResult:
        link, code = unit.stats.get("link_share", 0.0), unit.stats.get("code_share", 0.0)
        if link > self.max_share:
            return RuleResult(False, "link_share")
        if code > self.max_share:
            return RuleResult(False, "code_share")
        return KEEP


@dataclass(frozen=True, slots=True)
class LongBlock:
    """"no long block" rule: no block longer than ``min_chars`` characters."""

    min_chars: int = 250
    name: str = "long_block"
    reads: ClassVar[tuple[str, ...]] = ("largest_block",)

    def __call__(self, unit: TextUnit) -> RuleResult:
        if unit.stats.get("largest_block", 0.0) <= self.min_chars:
            return RuleResult(False, "no_long_block")
        return KEEP


@dataclass(frozen=True, slots=True)
class LargeBlockShare:
    """"large-block share" rule: less than ``min_share`` of the text in blocks of ≥ 200 chars."""

    min_share: float = 0.75
    name: str = "large_block_share"
    reads: ClassVar[tuple[str, ...]] = ("large_block_share",)

    def __call__(self, unit: TextUnit) -> RuleResult:
        if unit.stats.get("large_block_share", 0.0) < self.min_share:
            return RuleResult(False, "large_block_share")
        return KEEP


@dataclass(frozen=True, slots=True)
class ListTableShare:
    """"list / table text" rule: more than ``max_share`` of the text in short items or cells."""

    max_share: float = 0.20
    name: str = "list_table_share"
    reads: ClassVar[tuple[str, ...]] = ("list_table_share",)

    def __call__(self, unit: TextUnit) -> RuleResult:
        if unit.stats.get("list_table_share", 0.0) > self.max_share:
            return RuleResult(False, "list_table_share")
        return KEEP
