"""The per-segment prose decision: which segments a detector should see.

Every segment gets a ``kind`` (prose, post, form, navigation, link-list, spec, table, heading,
boilerplate) and a ``prose_score`` (the share of its text in real sentences); a segment that is
not prose is dropped with the reason ``not_prose``. A clearly prose segment that the main-text
extractor left out (comments, reviews, descriptions it missed) gets its own text as main text
(``main_text_rescued``), the non-prose lines of kept segments are cut (``lines_trimmed``), and
each kept segment names the detector unit it is judged in (``unit``: :mod:`wps.decide.units`).
Rules, not a learned model: on 40 dev pages they beat a logistic regression on held-out folds
(``eval/results/prose-decision.md``).
"""

from .features import SegmentFeatures, segment_features, sentence_share
from .step import DecideStep, DecisionRules, UnitStep, decide_segments

__all__ = ["SegmentFeatures", "segment_features", "sentence_share", "DecideStep", "UnitStep",
           "DecisionRules", "decide_segments"]
