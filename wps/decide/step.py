"""The decision as a pipeline step (after the filters, before dedup), and its rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import PageCapture, Segment
from ..steps import PageState, PipelineStep
from .features import SegmentFeatures, body_font_size, segment_features, word_count
from .kinds import segment_kind
from .lines import prose_lines

NOT_PROSE = "not_prose"
TOO_LITTLE_PROSE = "too_little_prose"
"""Prose, but fewer than ``min_words`` words remain once its non-prose lines go."""
RESCUABLE = {"no_main_text"}
"""Filter reasons that clear prose overrides: the extractor missed text the page shows."""


@dataclass(frozen=True, slots=True)
class DecisionRules:
    """The ``[decide]`` config section; its defaults live in ``wps/defaults.toml``, chosen by
    cross-validation over pages (``scripts/tune_prose_decision.py``,
    ``eval/results/prose-decision.md``)."""

    min_sentence_share: float
    max_link_share: float
    max_form_share: float
    rescue_sentence_share: float
    min_words: int
    trim_lines: bool

    @classmethod
    def from_config(cls, section: dict[str, Any] | None = None) -> DecisionRules:
        """The rules of a ``[decide]`` section (``None``: the packaged defaults)."""
        if section is None:
            from ..config import default_config

            section = default_config()["decide"]
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in section.items() if key in known})

    def is_prose(self, f: SegmentFeatures) -> bool:
        """Prose: enough of the text in real sentences, and not a link list or a form."""
        return (f.sentence_share >= self.min_sentence_share
                and f.link_share < self.max_link_share and f.form_share < self.max_form_share)


class DecideStep(PipelineStep):
    """Name every segment, keep only prose, rescue what the extractor missed, trim lines."""

    name = "decision"

    def __init__(self, section: dict[str, Any]) -> None:
        self.rules = DecisionRules.from_config(section)

    def run(self, page: PageState) -> None:
        decide_segments(page.capture, page.segments, self.rules)


def decide_segments(capture: PageCapture, segments: list[Segment], rules: DecisionRules) -> None:
    body = body_font_size(capture)
    for segment in segments:
        features = segment_features(capture, segment, body)
        prose = rules.is_prose(features)
        segment.extra["prose_score"] = features.sentence_share
        segment.extra["kind"] = segment_kind(features, prose)
        if not prose:
            _drop(segment, NOT_PROSE)
            continue
        if (features.sentence_share >= rules.rescue_sentence_share
                and set(segment.reasons) <= RESCUABLE
                and len(segment.main_text) < 0.5 * len(segment.text)):
            _rescue(segment)
        if rules.trim_lines and segment.kept:
            _trim(segment, rules.min_words)


def _drop(segment: Segment, reason: str) -> None:
    if reason not in segment.reasons:
        segment.reasons.append(reason)
    segment.kept = False


def _rescue(segment: Segment) -> None:
    """Keep a segment whose prose the extractor (mostly) missed: its own text becomes its main
    text (clear prose, and only the extractor's verdict against it)."""
    segment.extra["main_text_rescued"] = True
    segment.main_text = segment.text
    segment.reasons.clear()
    segment.kept = True


def _trim(segment: Segment, min_words: int) -> None:
    segment.main_text, removed = prose_lines(segment.main_text)
    if removed:
        segment.extra["lines_trimmed"] = removed
    if word_count(segment.main_text) < min_words:
        _drop(segment, TOO_LITTLE_PROSE)
