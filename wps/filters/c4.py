"""C4 "no-punct" quality rule, after datatrove 0.10.1's ``C4QualityFilter`` (its defaults and
reason strings; text-and-filters.md §3).

Per line: drop lines with a word over 1000 characters; strip citation marks; drop lines not ending
in terminal punctuation or ending in ``...``; drop lines with fewer than 3 words; drop the unit on
"lorem ipsum" or ``{``; drop lines mentioning javascript or cookie/privacy policies; finally drop
the unit if fewer than 5 sentences remain. Deviation: sentences are counted with a regular
expression instead of datatrove's spaCy/NLTK sentence splitter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .base import KEEP, RuleResult, TextUnit

__all__ = ["C4NoPunct", "c4_kept_lines", "count_sentences"]

CITATION = re.compile(r"\[\d*]|\[edit]|\[citation needed]")
END_PUNCTUATION = (".", "?", "!", '"', "'")
ELLIPSIS = "..."
POLICY_SUBSTRINGS = ("terms of use", "privacy policy", "cookie policy", "uses cookies",
                     "use of cookies", "use cookies")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+|$)")


def count_sentences(text: str) -> int:
    """Sentences in ``text``: runs ending in ``. ! ? …`` (+ closing quotes) before a space."""
    count = 0
    last = 0
    for match in _SENTENCE_END.finditer(text):
        if text[last:match.start()].strip():
            count += 1
        last = match.end()
    if text[last:].strip():
        count += 1
    return count


def c4_kept_lines(text: str, max_word_length: int = 1000, min_words_per_line: int = 3,
                  ) -> tuple[list[str], str | None]:
    """The lines C4 keeps, and the reason when a line drops the whole text (else ``None``)."""
    kept: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        words = line.split()
        if max_word_length >= 0 and any(len(word) > max_word_length for word in words):
            continue
        line = CITATION.sub("", line)
        if not line.endswith(END_PUNCTUATION) or line.endswith(ELLIPSIS):
            continue
        if len(words) < min_words_per_line:
            continue
        lowered = line.lower()
        if "lorem ipsum" in lowered:
            return [], "lorem_ipsum"
        if "javascript" in lowered:
            continue
        if "{" in line:
            return [], "curly_bracket"
        if any(policy in lowered for policy in POLICY_SUBSTRINGS):
            continue
        kept.append(line)
    return kept, None


@dataclass(frozen=True, slots=True)
class C4NoPunct:
    """Drop a unit with fewer than ``min_sentences`` sentences on C4-kept lines (or lorem ipsum,
    or a curly bracket on a kept line)."""

    min_sentences: int = 5
    min_words_per_line: int = 3
    max_word_length: int = 1000
    name: str = "c4"

    def __call__(self, unit: TextUnit) -> RuleResult:
        kept, reason = c4_kept_lines(unit.text, self.max_word_length, self.min_words_per_line)
        if reason is not None:
            return RuleResult(False, reason)
        if sum(count_sentences(line) for line in kept) < self.min_sentences:
            return RuleResult(False, "too_few_sentences")
        return KEEP
