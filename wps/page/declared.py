"""What a page declares about itself to search engines and social sites: its JSON-LD items
(schema.org, ``<script type="application/ld+json">``) and its OpenGraph type
(``<meta property="og:type">``). The site's own words, on every page a template makes, so the
evidence carries to sites never seen."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

_JSON_LD = re.compile(
    r"<script[^>]*type\s*=\s*[\"']?application/ld\+json[\"']?[^>]*>(.*?)</script>",
    re.IGNORECASE | re.DOTALL)
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
ARTICLE_TYPES = frozenset({"BlogPosting", "LiveBlogPosting", "Report"})
"""schema.org's article types beside ``Article`` and its subtypes named ``…Article``."""


def json_ld_items(page_html: str) -> Iterator[dict[str, Any]]:
    """Every object of the page's JSON-LD blocks (``@graph``, nested items included); an
    unreadable block is skipped."""
    if "ld+json" not in page_html:
        return
    for block in _JSON_LD.findall(page_html):
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            continue
        stack = [data]
        while stack:
            current = stack.pop()
            if isinstance(current, dict):
                yield current
                stack.extend(current.values())
            elif isinstance(current, list):
                stack.extend(current)


def type_names(item: dict[str, Any]) -> list[str]:
    """An item's ``@type`` names, without a vocabulary's address (``https://schema.org/``)."""
    types = item.get("@type")
    types = types if isinstance(types, list) else [types]
    return [name.rsplit("/", 1)[-1] for name in types if isinstance(name, str)]


def open_graph_type(page_html: str) -> str | None:
    """The page's ``og:type`` (lower case), or ``None``.

    >>> open_graph_type('<meta content="Article" property="og:type">')
    'article'
    """
    if "og:type" not in page_html:
        return None
    for tag in _META.findall(page_html):
        attributes = {name.lower(): next(value for value in values if value is not None)
                      for name, *values in _ATTRIBUTE.findall(tag)}
        if "og:type" in (attributes.get("property"), attributes.get("name")):
            return html.unescape(attributes.get("content", "")).strip().lower() or None
    return None


def declares_article(page_html: str) -> bool:
    """The page says it is an article: ``og:type`` ``article``, or a JSON-LD item of an
    article type (``Article``, ``NewsArticle``, ``BlogPosting``, …).

    >>> declares_article('<script type="application/ld+json">{"@type": "NewsArticle"}</script>')
    True
    >>> declares_article('<meta property="og:type" content="website">')
    False
    """
    if open_graph_type(page_html) == "article":
        return True
    return any(name.endswith("Article") or name in ARTICLE_TYPES
               for item in json_ld_items(page_html) for name in type_names(item))
