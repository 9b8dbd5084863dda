"""The page verdict: is this page writing (an article, a thread, a review page) or an interface
(an index, a login box, a table, a shop's spec sheet)?

The seed's page rules (``[filters.page]``) judge the page's main text by length and block sizes
and call half of all real articles non-articles. This verdict weighs what the segments are: the
share of the page's text in the sentences of the segments the decision found to be prose. On a
page that is mostly not prose, the little prose there is more often interface text written as a
sentence ("If you forgot your password, enter your e-mail address below.") than writing, so
there a segment must pass a stricter test: more of it in sentences, and more words. A page built
around a password box is an interface whatever its share of prose: the shop's description and
legal notes under a login form are boilerplate, not writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import PageCapture
from ..posts.records import class_words

ARTICLE = "article"
NON_ARTICLE = "non-article"
LITTLE_PROSE = "little_prose"
"""Less than ``min_page_prose_share`` of the page's text is in prose segments."""
LOGIN_FORM = "login_form"
"""A password box in the page's body (not in its header, menus or pop-ups) and no posts: a login,
registration or password-reset page. Its sentences are instructions and its prose the site's
boilerplate, so nothing but posts is kept there."""
PAGE_CHROME_TAGS = frozenset({"HEADER", "NAV", "ASIDE", "FOOTER", "DIALOG"})
PAGE_CHROME_WORDS = frozenset({
    "header", "masthead", "topbar", "toplinks", "navbar", "nav", "navigation", "menu", "dropdown",
    "dd", "popup", "modal", "flyout", "overlay", "lightbox", "drawer", "offcanvas", "sidebar",
    "side", "widget", "utility", "balloon", "footer",
})
"""Names (class or id words) of the page chrome where a site's login box waits on every page:
the header, menus, drop-downs, pop-ups, the sidebar."""
NON_ARTICLE_PAGE = "non_article_page"
"""Segment reason: prose too thin for a page judged non-article."""


@dataclass(slots=True)
class PageVerdict:
    kind: str
    prose_share: float
    """Share of the page's segment text in the sentences of segments judged prose."""
    reasons: list[str] = field(default_factory=list)

    @property
    def is_article(self) -> bool:
        return self.kind == ARTICLE

    @property
    def is_login(self) -> bool:
        return LOGIN_FORM in self.reasons

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "prose_share": self.prose_share, "reasons": list(self.reasons)}


MIN_ARTICLE_ABOVE_LOGIN_WORDS = 150
"""Prose this long before the password box in reading order is an article with a login form
under it (to comment, to read on), not a login page: a login page's welcome text and
instructions are shorter (under 110 words on the dev pages), its shop blurb comes after the form."""


MIN_ARTICLE_BELOW_LOGIN_WORDS = 500
"""Prose words after the password box (all prose segments together) that make the page an
article under a login form: a login page's shop blurb and notes come to 325 and 356 words on the
dev pages (nonarticle-dev's login pages, the only pages with a password box in their body); most
news articles are longer."""


MIN_DECLARED_ARTICLE_WORDS = 50
"""Prose words (before and after the password box together) that make a page which declares
itself an article (``og:type``, JSON-LD) an article under a login form: a story's lede shown above
"log in to read on". No login page of the dev sets declares itself an article (nonarticle-dev:
the 13 pages with a password box say ``website``, ``product`` or nothing)."""


def login_form_node(capture: PageCapture) -> int | None:
    """The first visible password box (the capture holds visible nodes only) outside the page
    chrome, or ``None``."""
    return next((node.id for node in capture.nodes
                 if node.tag == "INPUT" and node.attrs.get("type", "").lower() == "password"
                 and not _in_chrome(capture, node.id)), None)


def _in_chrome(capture: PageCapture, node_id: int | None) -> bool:
    while node_id is not None:
        node = capture.nodes[node_id]
        if node.tag in PAGE_CHROME_TAGS or node.attrs.get("role") in ("banner", "navigation", "dialog"):
            return True
        names = f"{node.attrs.get('class', '')} {node.attrs.get('id', '')}"
        if any(word in PAGE_CHROME_WORDS for word in class_words(names)):
            return True
        node_id = node.parent
    return False


def judge_page(prose_chars: int, all_chars: int, login_form: bool,
               min_prose_share: float) -> PageVerdict:
    """The verdict from the decision's per-segment outcome.

    >>> judge_page(900, 1000, False, 0.3).kind, judge_page(100, 1000, False, 0.3).reasons
    ('article', ['little_prose'])
    >>> judge_page(900, 1000, True, 0.3).reasons
    ['login_form']
    """
    share = round(prose_chars / all_chars, 3) if all_chars else 0.0
    reasons = []
    if share < min_prose_share:
        reasons.append(LITTLE_PROSE)
    if login_form:
        reasons.append(LOGIN_FORM)
    return PageVerdict(NON_ARTICLE if reasons else ARTICLE, share, reasons)
