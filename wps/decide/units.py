"""Detector units: which kept segments a detector judges together.

A segmenter cuts an article body into its paragraphs, subheadings and figures; judged one by one,
each paragraph is a short text, and a detector such as Binoculars is unreliable on short texts
(its published thresholds were set on whole documents). So the kept pieces of the page's article
are one unit, judged as one text in reading order, and each post (its kept body pieces) is a unit
of its own: writing by one hand is judged whole, and never together with another's.

``Segment.unit`` names the unit of every kept segment: ``article`` for the pieces of the article
(the prose that stands inside the article's span, :func:`wps.decide.step._article_span`, on a page
judged an article), ``post-N`` for the N-th post with a kept body (in document order), ``prose-N``
for any other kept segment, alone (prose outside the article: a box in a sidebar, a teaser, the
kept prose of a page that is not an article).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Segment

ARTICLE_UNIT = "article"


def assign_units(segments: Iterable[Segment], article: range, is_article: bool) -> None:
    """Set ``unit`` on every kept segment (``None`` on the others); ``article``: the node ids of
    the article's span, ``is_article``: the page's verdict (without it there is no article)."""
    posts: dict[str, str] = {}
    others = 0
    for segment in sorted(segments, key=lambda s: min(s.node_ids, default=-1)):
        if not segment.kept:
            segment.unit = None
        elif segment.post_record is not None:
            segment.unit = posts.setdefault(segment.post_record, f"post-{len(posts) + 1}")
        elif is_article and min(segment.node_ids, default=-1) in article:
            segment.unit = ARTICLE_UNIT
        else:
            others += 1
            segment.unit = f"prose-{others}"
