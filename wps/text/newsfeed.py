"""The IJS NewsFeed cleartext extractor (Trampuš & Novak, SiKDD 2012, Algorithm 2.1).

The seed's alternative to Trafilatura: content-bearing paragraphs (CBP) are ``<p>`` elements with
at least ``C_P`` characters and at most one nested tag per ``C_T`` characters; the article is the
element whose CBP children hold the most text, if more than ``C_Σ`` characters
(text-and-filters.md §4.4).
"""

from __future__ import annotations

import re
from typing import Any

from ..page.markup import parse_document

__all__ = ["newsfeed_paragraphs", "MIN_PARAGRAPH_CHARS", "CHARS_PER_TAG", "MIN_ARTICLE_CHARS"]

MIN_PARAGRAPH_CHARS = 40  # C_P
CHARS_PER_TAG = 30  # C_T
MIN_ARTICLE_CHARS = 350  # C_Σ

_DROP_TAGS = ("script", "style", "noscript", "template", "figure", "aside", "iframe")
_SUSPICIOUS = re.compile(
    r"(^|[-_\s])(nav|navigation|navbar|menu|sidebar|side-bar|social|share|sharing|footer|"
    r"breadcrumbs?|comments?|related|promo|advert|ads?|banner|cookie|newsletter|subscribe)"
    r"($|[-_\s])",
    re.IGNORECASE,
)
_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def newsfeed_paragraphs(html: str, min_paragraph_chars: int = MIN_PARAGRAPH_CHARS,
                        chars_per_tag: int = CHARS_PER_TAG,
                        min_article_chars: int = MIN_ARTICLE_CHARS) -> list[str]:
    """The article's paragraphs in document order, or ``[]`` when no content is convincing."""
    root = parse_document(html)
    if root is None:
        return []
    _preprocess(root)

    for element in root.iter():
        if isinstance(element.tag, str) and element.get("itemprop") == "articleBody":
            text = _text(element)
            return [text] if text else []

    paragraphs = [p for p in root.iter("p")]
    is_content = {id(p): _is_content_paragraph(p, min_paragraph_chars, chars_per_tag)
                  for p in paragraphs}
    # A paragraph immediately between two content paragraphs is content too.
    for element in paragraphs:
        previous, following = element.getprevious(), element.getnext()
        if (previous is not None and following is not None and is_content.get(id(previous))
                and is_content.get(id(following))):
            is_content[id(element)] = True

    best: list[Any] = []
    best_chars = 0
    for element in root.iter():
        children = [child for child in element if child.tag == "p" and is_content[id(child)]]
        chars = sum(len(_text(child)) for child in children)
        if chars > min_article_chars and chars > 2 * best_chars:
            best, best_chars = children, chars
    if best:
        return [text for text in (_text(p) for p in best) if text]

    for element in root.iter("div", "td"):
        links_and_images = sum(1 for _ in element.iter("a", "img"))
        chars = len(_text(element))
        if chars > min_article_chars and chars > chars_per_tag * links_and_images:
            text = _text(element)
            return [text] if text else []
    return []


def _preprocess(root: Any) -> None:
    """Drop scripts, comments, figures, hidden and suspiciously named elements (nav, social…)."""
    import lxml.etree

    doomed = [element for element in root.iter(lxml.etree.Comment, *_DROP_TAGS)]
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag in ("html", "body"):
            continue
        if _HIDDEN.search(element.get("style") or ""):
            doomed.append(element)
            continue
        names = f"{element.get('id') or ''} {element.get('class') or ''}"
        if names.strip() and _SUSPICIOUS.search(names):
            doomed.append(element)
    for element in doomed:
        parent = element.getparent()
        if parent is not None:
            _remove_keep_tail(element, parent)


def _remove_keep_tail(element: Any, parent: Any) -> None:
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def _is_content_paragraph(paragraph: Any, min_chars: int, chars_per_tag: int) -> bool:
    chars = len(_text(paragraph))
    nested_tags = sum(1 for _ in paragraph.iterdescendants()) if chars >= min_chars else 0
    return chars >= min_chars and nested_tags * chars_per_tag <= chars


def _text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split())
