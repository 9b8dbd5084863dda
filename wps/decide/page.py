"""The page verdict: is this page writing (an article, a thread, a review page) or an interface
(an index, a login box, a table, a shop's spec sheet)?

The seed's page rules (``[filters.page]``) judge the page's main text by length and block sizes
and call half of all real articles non-articles. This verdict weighs what the segments are: the
share of the page's text that the decision found to be prose. On a page that is mostly not prose,
the little prose there is more often interface text written as a sentence ("If you forgot your
password, enter your e-mail address below.") than writing, so there a segment must pass a
stricter test: more of it in sentences, and more words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ARTICLE = "article"
NON_ARTICLE = "non-article"
LITTLE_PROSE = "little_prose"
"""Less than ``min_page_prose_share`` of the page's text is in prose segments."""
PASSWORD_FIELD = "password_field"
"""The page shows a password box, has no posts and is not mostly prose: a login or registration
page (a thread under a forum's login box is not one)."""
NON_ARTICLE_PAGE = "non_article_page"
"""Segment reason: prose too thin for a page judged non-article."""


@dataclass(slots=True)
class PageVerdict:
    kind: str
    prose_share: float
    """Share of the page's segment text in segments judged prose."""
    reasons: list[str] = field(default_factory=list)

    @property
    def is_article(self) -> bool:
        return self.kind == ARTICLE

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "prose_share": self.prose_share, "reasons": list(self.reasons)}


def judge_page(prose_chars: int, all_chars: int, password_field: bool,
               min_prose_share: float, max_login_prose_share: float) -> PageVerdict:
    """The verdict from the decision's per-segment outcome.

    >>> judge_page(900, 1000, False, 0.3, 0.6).kind, judge_page(100, 1000, False, 0.3, 0.6).reasons
    ('article', ['little_prose'])
    """
    share = round(prose_chars / all_chars, 3) if all_chars else 0.0
    reasons = []
    if share < min_prose_share:
        reasons.append(LITTLE_PROSE)
    if password_field and share < max_login_prose_share:
        reasons.append(PASSWORD_FIELD)
    return PageVerdict(NON_ARTICLE if reasons else ARTICLE, share, reasons)
