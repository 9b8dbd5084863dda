"""Class and id names as evidence, as Readability weighs them: a name is split into whole tokens
(camelCase, ``-``, ``_``, digits), and a negative token counts only when no positive token
stands beside it (``social-content`` is content, ``share-bar`` is chrome). Names are evidence to
weigh, never a verdict on a subtree: the decision cuts a chrome-named element only where it
holds a small share of its segment's text (:mod:`wps.decide.lines`).

The vocabularies are data (:data:`NEGATIVE_NAMES`, :data:`POSITIVE_NAMES`): Readability's
negative and unlikely words that never hold writing, and its positive ones.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..model import PageCapture

NEGATIVE_NAMES = frozenset({
    "readmore", "morelink", "continuereading", "notice", "disclaimer", "footnote", "footnotes",
    "footnotetext", "byline", "breadcrumb", "breadcrumbs", "copyright", "legal", "pagination",
    "pager", "sharing", "share", "social", "sharebar", "tags", "taglist", "related",
})
"""Names (whole tokens, or a whole class squeezed: ``read-more`` is ``readmore``) of elements
that never hold writing."""
POSITIVE_NAMES = frozenset({
    "article", "content", "body", "story", "entry", "post", "main", "text", "blog",
})
"""Readability's positive names: a negative token beside one of these is not chrome."""
POSITIVE_TAGS = frozenset({"ARTICLE", "MAIN", "BODY"})
"""Tags that name the writing as a positive class would (``<main class="social">``)."""

_TOKEN = re.compile(r"[a-z]+|[0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_LETTERS = re.compile(r"[^a-z]+")
_ASCII_NOT_LETTERS = dict.fromkeys(code for code in range(128) if not 97 <= code <= 122)
"""ASCII characters other than ``a-z``, each to be deleted by ``str.translate``."""


@lru_cache(maxsize=8192)
def name_tokens(value: str) -> tuple[str, ...]:
    """The whole tokens of a class list or id, lower case; each multi-token class also squeezed.

    >>> name_tokens("gigya-share-btns-2_gig_containerParent")
    ('gigya', 'share', 'btns', '2', 'gig', 'container', 'parent', 'gigyasharebtns2gigcontainerparent')
    >>> "share" in name_tokens("sharethrough"), "readmore" in name_tokens("read-more")
    (False, True)
    """
    tokens: list[str] = []
    for name in value.split():
        parts = _TOKEN.findall(_CAMEL.sub(" ", name).lower())
        tokens += parts
        if len(parts) > 1:
            tokens.append("".join(parts))
    return tuple(tokens)


@lru_cache(maxsize=8192)
def name_weight(classes: str, element_id: str = "", tag: str = "",
                negative: frozenset[str] = NEGATIVE_NAMES) -> int:
    """-1 when a whole class or id (squeezed: ``footnoteText``) is a ``negative`` name, or the
    names hold a negative token and no positive one (nor is the tag positive); +1 when they hold
    a positive token; else 0.

    >>> [name_weight(c) for c in ("share-bar", "social-content", "footnoteText", "entry")]
    [-1, 1, -1, 1]
    """
    names = f"{classes} {element_id}"
    if tag not in POSITIVE_TAGS and any(_squeezed(name) in negative for name in names.split()):
        return -1
    tokens = name_tokens(names)
    if tag in POSITIVE_TAGS or any(token in POSITIVE_NAMES for token in tokens):
        return 1
    return -1 if any(token in negative for token in tokens) else 0


def _squeezed(name: str) -> str:
    return "".join(_TOKEN.findall(_CAMEL.sub(" ", name).lower()))


def names_chrome(attrs: dict[str, str], tag: str = "",
                 negative: frozenset[str] = NEGATIVE_NAMES) -> bool:
    """Whether an element's class and id name it as chrome (weighed, :func:`name_weight`)."""
    return _names_chrome(attrs.get("class", ""), attrs.get("id", ""), tag, negative)


@lru_cache(maxsize=8192)
def _names_chrome(classes: str, element_id: str, tag: str, negative: frozenset[str]) -> bool:
    """:func:`names_chrome` of one class list, id and tag (pages repeat theirs: cached)."""
    if not (classes or element_id) or not _may_hold(f"{classes} {element_id}", negative):
        return False
    return name_weight(classes, element_id, tag, negative) < 0


def _may_hold(names: str, words: frozenset[str]) -> bool:
    """Whether one of ``words`` (letters only) is in ``names``' letters, lower case: a token or
    a squeezed class that is one of them always is, so most names are settled without being
    split into tokens."""
    return _any_of(words).search(name_letters(names)) is not None


def name_letters(names: str) -> str:
    """The letters ``a-z`` of ``names`` in lower case, all else dropped: ``Read-More_2`` is
    ``readmore`` (ASCII names, nearly all, by a translation table, several times faster than a
    pattern).

    >>> name_letters("Read-More_2 share—bar")
    'readmoresharebar'
    """
    letters = names.lower().translate(_ASCII_NOT_LETTERS)
    return letters if letters.isascii() else _NOT_LETTERS.sub("", letters)


@lru_cache(maxsize=16)
def _any_of(words: frozenset[str]) -> re.Pattern[str]:
    """One pattern for all of ``words``: one search instead of one per word."""
    return re.compile("|".join(map(re.escape, sorted(words))))


def chrome_owners(capture: PageCapture,
                  negative: frozenset[str] = NEGATIVE_NAMES) -> list[tuple[int, ...]]:
    """Per node: the ids of the chrome-named elements it is in (itself included), outermost
    first; one pass, parents before children."""
    owners: list[tuple[int, ...]] = []
    for node in capture.nodes:
        above = owners[node.parent] if node.parent is not None else ()
        attrs = node.attrs
        if attrs and _names_chrome(attrs.get("class", ""), attrs.get("id", ""), node.tag,
                                   negative):
            above = (*above, node.id)
        owners.append(above)
    return owners


__all__ = ["NEGATIVE_NAMES", "POSITIVE_NAMES", "POSITIVE_TAGS", "name_tokens", "name_weight",
           "names_chrome", "chrome_owners", "name_letters"]
