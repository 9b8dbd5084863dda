"""What kind of text a segment holds: small named rules over its features, first match wins.

The kind explains a decision (``kind: form`` on a dropped login box); the keep/drop decision is
:func:`wps.decide.rules.is_prose`.
"""

from __future__ import annotations

from typing import Callable

from .features import SegmentFeatures


def _form(f: SegmentFeatures) -> bool:
    """Login, search and registration boxes: text inside forms, or controls among few words."""
    return f.form_share >= 0.5 or (f.controls >= 2 and f.words < 60)


def _navigation(f: SegmentFeatures) -> bool:
    return f.nav_share >= 0.5


def _link_list(f: SegmentFeatures) -> bool:
    return f.link_share >= 0.5


def _listing(f: SegmentFeatures) -> bool:
    """A forum index's rows, a list of teasers: short records that each open with a title."""
    return f.listing_records > 0


def _spec(f: SegmentFeatures) -> bool:
    """Spec sheets, user-info rows, forum statistics: ``Key: value`` lines."""
    return f.field_line_share >= 0.35


def _table(f: SegmentFeatures) -> bool:
    return f.list_table_share >= 0.6


def _heading(f: SegmentFeatures) -> bool:
    return f.words <= 12 and f.rel_font_size >= 1.25


KIND_RULES: tuple[tuple[str, Callable[[SegmentFeatures], bool]], ...] = (
    ("form", _form), ("navigation", _navigation), ("link-list", _link_list), ("listing", _listing),
    ("spec", _spec),
    ("table", _table), ("heading", _heading),
)


def segment_kind(features: SegmentFeatures, is_prose: bool, post: bool) -> str:
    """``post`` (prose that is a post's body, as the posts step found it: ``post``) or
    ``prose``; else the first matching rule's kind, else ``boilerplate``. A segmenter's
    repeated blocks (an article's paragraphs, a gallery's captions) are not posts."""
    if is_prose:
        return "post" if post else "prose"
    for kind, rule in KIND_RULES:
        if rule(features):
            return kind
    return "boilerplate"
