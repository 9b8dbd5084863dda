"""AI-text detection of segments: the Binoculars scorer, and scoring a ``segments.jsonl`` file
(its lines read and written through :mod:`wps.records`).

Importing this package is cheap; torch and transformers load when a scorer is built.
"""

from __future__ import annotations

from .binoculars import THRESHOLDS, BinocularsResult, BinocularsScorer, binoculars_scores
from .jsonl import ScoreSummary, score_jsonl

__all__ = [
    "THRESHOLDS",
    "BinocularsResult",
    "BinocularsScorer",
    "binoculars_scores",
    "ScoreSummary",
    "score_jsonl",
]
