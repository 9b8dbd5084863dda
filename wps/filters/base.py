"""What every filter rule shares: the unit it judges, its verdict, and how verdicts are applied.

A rule only decides (datatrove's ``BaseFilter.filter`` habit); :func:`apply_rules` marks segments
and never deletes them, keeping every reason, so thresholds can be changed later without
re-running the page (``wps filter``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Protocol, Sequence, runtime_checkable

from ..model import Segment

__all__ = ["TextUnit", "RuleResult", "KEEP", "Rule", "evaluate_rules", "apply_rules",
           "count_outcomes", "count_tokens"]


def count_tokens(text: str) -> int:
    """Whitespace tokens, with every CJK character (Han, kana, Hangul) counted as one token:
    those scripts do not separate words by spaces, so a whole paragraph is one "word"
    (:func:`wps.text.sentences.token_count`; Thai, Lao, Khmer and Burmese by their word ratio)."""
    from ..text.sentences import token_count  # wps.text imports this module

    return token_count(text)


@dataclass(slots=True)
class TextUnit:
    """What a rule sees: a text (a segment's main text, or a page's) and its statistics."""

    text: str
    stats: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RuleResult:
    """A rule's verdict; ``reason`` is the stable code written to ``reasons`` when dropped."""

    keep: bool
    reason: str | None = None


KEEP = RuleResult(True)


@runtime_checkable
class Rule(Protocol):
    """A named, configurable check of one text unit."""

    name: str

    def __call__(self, unit: TextUnit) -> RuleResult: ...


def evaluate_rules(unit: TextUnit, rules: Iterable[Rule]) -> list[str]:
    """Reason codes of every rule that drops ``unit`` (empty: kept)."""
    reasons: list[str] = []
    for rule in rules:
        result = rule(unit)
        if not result.keep:
            reasons.append(result.reason or rule.name)
    return reasons


def apply_rules(segments: Sequence[Segment], rules: Sequence[Rule],
                stats: Counter[str] | None = None) -> Counter[str]:
    """Mark every segment kept or dropped by its ``main_text`` and ``stats``; count reasons."""
    for segment in segments:
        segment.reasons = evaluate_rules(TextUnit(segment.main_text, segment.stats), rules)
        segment.kept = not segment.reasons
    return count_outcomes(segments, stats)


def count_outcomes(segments: Sequence[Segment],
                   stats: Counter[str] | None = None) -> Counter[str]:
    """``total``, ``kept``, ``dropped`` and ``dropped_<reason>`` of segments as they stand (also
    after a later step, such as de-duplication, dropped some)."""
    counts: Counter[str] = stats if stats is not None else Counter()
    for segment in segments:
        counts["total"] += 1
        if segment.kept:
            counts["kept"] += 1
        else:
            counts["dropped"] += 1
            counts.update(f"dropped_{reason}" for reason in segment.reasons)
    return counts
