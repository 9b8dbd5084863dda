"""Gopher quality and repetition rules (Rae et al. 2021, Table A1), after datatrove 0.10.1's
``GopherQualityFilter`` and ``GopherRepetitionFilter``: same defaults, same reason strings
(text-and-filters.md §3), plus the Dolma-style optional rules (median word length, lines without
terminal punctuation, a token sequence repeated too often).

Deviation: words come from a regular-expression tokenizer (words, and punctuation marks as
separate tokens) instead of datatrove's spaCy tokenizer.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from statistics import median

from .base import KEEP, RuleResult, TextUnit

__all__ = ["split_words", "GopherQuality", "GopherRepetition", "MedianWordLength",
           "LinesWithoutPunctuation", "RepeatedSequence"]

STOP_WORDS = frozenset({"the", "be", "to", "of", "and", "that", "have", "with"})
PUNCTUATION = frozenset(string.punctuation) | frozenset("…‘’“”–—«»¡¿")
_WORD = re.compile(r"\w+(?:['’.-]\w+)*|[^\w\s]+")
_PARAGRAPH = re.compile(r"\n{2,}")
_LINE = re.compile(r"\n+")
TOP_N_GRAMS = ((2, 0.20), (3, 0.18), (4, 0.16))
DUP_N_GRAMS = ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10))


def split_words(text: str) -> list[str]:
    """Words and punctuation runs, like a spaCy English tokenizer on ordinary prose."""
    return _WORD.findall(text)


@dataclass(frozen=True, slots=True)
class GopherQuality:
    """Gopher quality rules; the first failing check gives the reason, as in datatrove."""

    min_doc_words: int = 50
    max_doc_words: int = 100_000
    min_avg_word_length: float = 3
    max_avg_word_length: float = 10
    max_symbol_word_ratio: float = 0.1
    max_bullet_lines_ratio: float = 0.9
    max_ellipsis_lines_ratio: float = 0.3
    max_non_alpha_words_ratio: float = 0.8
    min_stop_words: int = 2
    name: str = "gopher_quality"

    def __call__(self, unit: TextUnit) -> RuleResult:
        text = unit.text
        words = split_words(text)
        content = [word for word in words if any(ch not in PUNCTUATION for ch in word)]
        if len(content) < self.min_doc_words:
            return RuleResult(False, "gopher_short_doc")
        if len(content) > self.max_doc_words:
            return RuleResult(False, "gopher_long_doc")
        if not content:
            return KEEP  # min_doc_words = 0 and no words: nothing left to judge
        average = sum(len(word) for word in content) / len(content)
        if average < self.min_avg_word_length:
            return RuleResult(False, "gopher_below_avg_threshold")
        if average > self.max_avg_word_length:
            return RuleResult(False, "gopher_above_avg_threshold")
        if text.count("#") / len(words) > self.max_symbol_word_ratio:
            return RuleResult(False, "gopher_too_many_hashes")
        if (text.count("...") + text.count("…")) / len(words) > self.max_symbol_word_ratio:
            return RuleResult(False, "gopher_too_many_ellipsis")
        lines = text.splitlines() or [""]
        bullets = sum(line.lstrip().startswith(("•", "-")) for line in lines)
        if bullets / len(lines) > self.max_bullet_lines_ratio:
            return RuleResult(False, "gopher_too_many_bullets")
        ellipsis_lines = sum(line.rstrip().endswith(("...", "…")) for line in lines)
        if ellipsis_lines / len(lines) > self.max_ellipsis_lines_ratio:
            return RuleResult(False, "gopher_too_many_end_ellipsis")
        alphabetic = sum(any(ch.isalpha() for ch in word) for word in words)
        if alphabetic / len(words) < self.max_non_alpha_words_ratio:
            return RuleResult(False, "gopher_below_alpha_threshold")
        if sum(word in STOP_WORDS for word in words) < self.min_stop_words:
            return RuleResult(False, "gopher_enough_stop_words")
        return KEEP


def _duplicates(items: list[str]) -> tuple[int, int]:
    """Number of repeated items and their characters (first occurrences do not count)."""
    seen: set[str] = set()
    count = chars = 0
    for item in items:
        if item in seen:
            count += 1
            chars += len(item)
        else:
            seen.add(item)
    return count, chars


def _repeated_ngram_chars(words: list[str], n: int) -> int:
    """Characters in non-overlapping repeated word n-grams (datatrove's ``find_all_duplicate``)."""
    seen: set[str] = set()
    repeated = index = 0
    while index < len(words) - n + 1:
        gram = "".join(words[index:index + n])
        if gram in seen:
            repeated += len(gram)
            index += n
        else:
            seen.add(gram)
            index += 1
    return repeated


@dataclass(frozen=True, slots=True)
class GopherRepetition:
    """Gopher repetition rules: duplicate paragraphs/lines, top n-grams, repeated n-grams."""

    dup_para_frac: float = 0.30
    dup_para_char_frac: float = 0.20
    dup_line_frac: float = 0.30
    dup_line_char_frac: float = 0.20
    top_n_grams: tuple[tuple[int, float], ...] = TOP_N_GRAMS
    dup_n_grams: tuple[tuple[int, float], ...] = DUP_N_GRAMS
    name: str = "gopher_repetition"

    def __call__(self, unit: TextUnit) -> RuleResult:
        text = unit.text
        if not text:
            return KEEP
        paragraphs = _PARAGRAPH.split(text.strip())
        count, chars = _duplicates(paragraphs)
        if count / len(paragraphs) > self.dup_para_frac:
            return RuleResult(False, "dup_para_frac")
        if chars / len(text) > self.dup_para_char_frac:
            return RuleResult(False, "dup_para_char_frac")
        lines = _LINE.split(text)
        count, chars = _duplicates(lines)
        if count / len(lines) > self.dup_line_frac:
            return RuleResult(False, "dup_line_frac")
        if chars / len(text) > self.dup_line_char_frac:
            return RuleResult(False, "dup_line_char_frac")
        words = split_words(text)
        for n, limit in self.top_n_grams:
            grams = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
            if not grams:
                continue
            gram, times = Counter(grams).most_common(1)[0]
            if len(gram) * times / len(text) > limit:
                return RuleResult(False, f"top_{n}_gram")
        for n, limit in self.dup_n_grams:
            if _repeated_ngram_chars(words, n) / len(text) > limit:
                return RuleResult(False, f"duplicated_{n}_n_grams")
        return KEEP


@dataclass(frozen=True, slots=True)
class MedianWordLength:
    """Dolma ``gopher_v1`` variant: median (not mean) word length outside [min, max]."""

    min_length: float = 3
    max_length: float = 10
    name: str = "median_word_length"

    def __call__(self, unit: TextUnit) -> RuleResult:
        words = [w for w in split_words(unit.text) if any(ch not in PUNCTUATION for ch in w)]
        if not words:
            return KEEP
        middle = median(len(word) for word in words)
        if middle < self.min_length:
            return RuleResult(False, "median_word_length_below")
        if middle > self.max_length:
            return RuleResult(False, "median_word_length_above")
        return KEEP


@dataclass(frozen=True, slots=True)
class LinesWithoutPunctuation:
    """Original filter design: more than ``max_share`` of lines not ending in ``. ? ! "``."""

    max_share: float = 0.5
    name: str = "lines_without_punctuation"

    def __call__(self, unit: TextUnit) -> RuleResult:
        lines = [line.strip() for line in unit.text.splitlines() if line.strip()]
        if not lines:
            return KEEP
        bare = sum(not line.endswith((".", "?", "!", '"')) for line in lines)
        if bare / len(lines) > self.max_share:
            return RuleResult(False, "lines_without_punctuation")
        return KEEP


@dataclass(frozen=True, slots=True)
class RepeatedSequence:
    """Original filter design: one token or token sequence (up to ``max_n``) repeated more than
    ``max_repeats`` times."""

    max_repeats: int = 100
    max_n: int = 3
    name: str = "repeated_sequence"

    def __call__(self, unit: TextUnit) -> RuleResult:
        words = unit.text.split()
        for n in range(1, self.max_n + 1):
            grams = Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
            if grams and grams.most_common(1)[0][1] > self.max_repeats:
                return RuleResult(False, "repeated_sequence")
        return KEEP
