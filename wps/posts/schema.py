"""Posts that a page declares in JSON-LD (``<script type="application/ld+json">``): schema.org
``Comment``, ``Answer``, ``DiscussionForumPosting``, ``Review`` and the like, with their text.

Sites that render comments as plain paragraphs often still describe them to search engines. The
declared text is found in the page's text (whitespace removed, so markup and line breaks do not
matter); the text nodes it spans are the post's body, and its record is the largest element around
them that holds no other declared post and little else (the author's name, a date): the chrome.
Microdata (``itemtype``, ``itemprop``) needs no such search: it marks the elements themselves
(:func:`wps.posts.records.post_name`).
"""

from __future__ import annotations

import html
import re

import numpy as np

from ..model import PageCapture
from ..page.declared import json_ld_items, type_names
from ..page.tree import holds
from ..text.sentences import sentence_share
from .structure import RecordGroup

POST_TYPES = frozenset({"Comment", "Answer", "Question", "Review", "DiscussionForumPosting",
                        "SocialMediaPosting", "UserComments"})
"""schema.org types whose items are posts."""
TEXT_KEYS = ("text", "articleBody", "reviewBody", "commentText")
MIN_TEXT_CHARS = 20
"""Declared texts shorter than this (whitespace removed) are too ambiguous to look for."""
MATCH_CHARS = 40
"""Characters of a declared text's start and end looked for in the page's text."""
MAX_CHROME_WORDS = 40
"""A record holds at most this many words beside its body (name, date, buttons)."""
_TAG = re.compile(r"<[^>]+>")


def declared_posts(page_html: str) -> list[str]:
    """The texts of the post items in the page's JSON-LD blocks (unreadable blocks skipped)."""
    texts = []
    for item in json_ld_items(page_html):
        if any(name in POST_TYPES for name in type_names(item)):
            text = next((item[key] for key in TEXT_KEYS if isinstance(item.get(key), str)), "")
            if text:
                texts.append(html.unescape(_TAG.sub(" ", text)))
    return texts


def declared_groups(page: PageCapture, words: np.ndarray) -> list[RecordGroup]:
    """The records of the posts the page declares in JSON-LD, found in its text (one group; an
    empty list when it declares none or none is found). ``words``: words under each node."""
    texts = declared_posts(page.html)
    if not texts:
        return []
    ids = [node.id for node in page.nodes if node.is_text and node.text.strip()]
    pieces = ["".join(page.nodes[node_id].text.split()) for node_id in ids]
    starts = np.cumsum([0] + [len(piece) for piece in pieces])
    joined = "".join(pieces)
    spans = []
    for text in texts:
        span = _find(joined, "".join(text.split()), starts)
        if span is not None:
            spans.append((ids[span[0]], ids[span[1]]))
    spans = sorted(set(spans))
    if not spans:
        return []
    members, chrome = [], []
    starts_below = _count_below(page, {start for start, _ in spans})
    for start, end in spans:
        record = _record(page, start, end, words, starts_below)
        body = set(range(start, end + 1))
        members.append(record)
        chrome.extend(node_id for node_id in page.descendants(record)
                      if page.nodes[node_id].is_text and page.nodes[node_id].text.strip()
                      and node_id not in body and not sentence_share(page.nodes[node_id].text))
    return [RecordGroup(members, chrome)]


def _find(joined: str, text: str, starts: np.ndarray) -> tuple[int, int] | None:
    """Indexes of the first and last text node that the declared ``text`` spans."""
    if len(text) < MIN_TEXT_CHARS:
        return None
    begin = joined.find(text[:MATCH_CHARS])
    if begin < 0:
        return None
    tail = text[-MATCH_CHARS:]
    end = joined.find(tail, begin)
    if end < 0:
        return None
    end += len(tail) - 1
    first = int(np.searchsorted(starts, begin, side="right")) - 1
    last = int(np.searchsorted(starts, end, side="right")) - 1
    return first, last


def _count_below(page: PageCapture, marked: set[int]) -> list[int]:
    """Per node: how many of the ``marked`` nodes its subtree holds."""
    counts = [1 if node.id in marked else 0 for node in page.nodes]
    for node in reversed(page.nodes):
        if node.parent is not None:
            counts[node.parent] += counts[node.id]
    return counts


def _record(page: PageCapture, start: int, end: int, words: np.ndarray,
            starts_below: list[int]) -> int:
    """The largest element around the text nodes ``start``..``end`` that holds no other declared
    post's start and at most :data:`MAX_CHROME_WORDS` words beside the body."""
    record = page.nodes[start].parent
    while record is not None and not holds(page, record, end):
        record = page.nodes[record].parent
    if record is None:
        return start
    body_words = sum(len(page.nodes[node_id].text.split()) for node_id in range(start, end + 1)
                     if page.nodes[node_id].is_text)
    while True:
        parent = page.nodes[record].parent
        if (parent is None or words[parent] > body_words + MAX_CHROME_WORDS
                or starts_below[parent] > 1):
            return record
        record = parent

