"""Line-level cleaning of a kept segment's main text: the lines inside a prose segment that are
not prose (spec fields, user-info rows, "Read 664 more words", form labels).

A line goes when it does not end a sentence and is a ``Key: value`` field (``Pros: Quiet, Light``
lists too), mostly digits, or too short to be a sentence; and, by where it stands on the page, when
it is one link (a teaser's "read the article" line), a heading, a line of a header, footer, nav or
aside without a sentence ("Commenting on this article is closed."), inside an element named
as chrome (``readmore``, ``footnote``, ``disclaimer``, ``byline``: Readability's negative class
words, those that never hold writing), or the text of a list of posts outside its posts
(:func:`wps.posts.records.post_list_chrome`: "3 comments", "No reviews yet"). Headings going is right for a detector and why the article
profile (``eval/articles.toml``) turns this off.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ..model import PageCapture
from ..posts.records import names_a_word
from ..segmenters.geometry import reading_lines
from ..text.sentences import ends_sentence, sentence_share
from .features import FIELD_LINE, HEADING_TAGS, word_count

LIST_FIELD = re.compile(r"^[^:：.!?]{1,30}[:：]\s*[^,，、.!?:]{1,30}(?:[,，、]\s*[^,，、.!?:]{1,30})+$")
"""A ``Key: a, b, c`` line: a review's "Pros: Quiet, Light Weight, Durable", a spec's colours."""
LANDMARKS = frozenset({"header", "footer", "nav", "aside"})
CHROME_NAMES = frozenset({
    "readmore", "morelink", "continuereading", "notice", "disclaimer", "footnote", "footnotes",
    "footnotetext", "byline", "breadcrumb", "breadcrumbs", "copyright", "legal", "pagination",
    "pager", "sharing", "share", "social", "sharebar", "tags", "taglist", "related",
})
"""Class or id words (or whole squeezed names) of elements that never hold writing."""

MIN_SENTENCE_WORDS = 5
"""Forum posts often end without a full stop; a line this long still counts as prose."""


def is_prose_line(line: str, min_sentence_words: int = 3) -> bool:
    """
    >>> [is_prose_line(x) for x in ("Gewicht: 250 g", "Read 664 more words",
    ...                             "Works fine, my guinea pigs love it",
    ...                             "Pros: Quiet, Light Weight, Durable")]
    [False, False, True, False]
    """
    line = line.strip()
    if ends_sentence(line) and word_count(line) >= min_sentence_words:
        return True
    if sentence_share(line) > 0:  # sentences, then "…the following devices:"
        return True
    if FIELD_LINE.match(line) or LIST_FIELD.match(line):
        return False
    if sum(ch.isdigit() for ch in line) > 0.3 * max(len(line), 1):
        return False
    return word_count(line) >= MIN_SENTENCE_WORDS and not line.endswith(":")


def prose_lines(text: str, chrome: frozenset[str] = frozenset(),
                post: bool = False) -> tuple[str, int]:
    """``text`` without its non-prose lines and without the lines the page shows as chrome
    (``chrome``, by :func:`squeezed` text, from :func:`chrome_lines`), and how many lines went.
    In a ``post`` a short exclamation or question ("Hiiilfe!", "Thanks!") is writing too."""
    min_words = 1 if post else 3
    lines = [line for line in text.splitlines() if line.strip()]
    kept = [line for line in lines
            if is_prose_line(line, min_words) and squeezed(line) not in chrome]
    return "\n".join(kept), len(lines) - len(kept)


def squeezed(text: str) -> str:
    """``text`` without whitespace: lines compared across the ways they were assembled."""
    return "".join(text.split())


def named_chrome(capture: PageCapture) -> np.ndarray:
    """Per node: inside a heading or an element named as chrome (:data:`CHROME_NAMES`); one pass,
    parents before children."""
    inside = np.zeros(len(capture.nodes), dtype=bool)
    for node in capture.nodes:
        if (node.parent is not None and inside[node.parent]) or node.tag in HEADING_TAGS:
            inside[node.id] = True
        elif node.attrs:
            inside[node.id] = _chrome_name(node.attrs.get("class", ""), node.attrs.get("id", ""))
    return inside


@lru_cache(maxsize=4096)
def _chrome_name(classes: str, element_id: str) -> bool:
    """Whether a class list or id names chrome (pages repeat theirs: cached)."""
    return names_a_word(f"{classes} {element_id}", CHROME_NAMES)


def chrome_lines(capture: PageCapture, node_ids: list[int], named: np.ndarray,
                 landmarks: bool = True) -> frozenset[str]:
    """The lines of a segment (as :func:`reading_lines` makes them) that the page shows as
    chrome, squeezed: all inside links, all inside headings or chrome-named elements
    (``named``: :func:`named_chrome`), or (``landmarks``) all inside landmarks with no sentence.
    A post's lines are writing wherever the post stands (comment lists sit in ``<aside>``)."""
    chrome = set()
    for line in reading_lines(capture, node_ids):
        nodes = [capture.nodes[node_id] for node_id, _ in line]
        text = " ".join(piece for _, piece in line)
        if (all("link" in node.inside for node in nodes)
                or all(named[node.id] for node in nodes)
                or (landmarks and all(node.inside & LANDMARKS for node in nodes)
                    and not sentence_share(text))):
            chrome.add(squeezed(text))
    return frozenset(chrome)
