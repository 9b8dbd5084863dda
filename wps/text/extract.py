"""Main-text extraction: one interface over Trafilatura, the NewsFeed DOM heuristic and the
article-body decision (``article``: trafilatura runs combined by a small model,
:mod:`wps.article_body`).

Segments are later aligned to the extracted text by text, never by ids (trafilatura rewrites the
tree), so an extractor only has to return its main-text blocks in reading order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import UsageError

__all__ = ["ExtractOptions", "MainBlock", "MainText", "extract_main_text", "EXTRACTORS",
           "load_justext_stoplist"]

LEAF_TAGS = frozenset({"p", "head", "item", "cell", "quote", "code"})
"""Trafilatura's leaf block elements (text-and-filters.md §1, step 3)."""


def load_justext_stoplist() -> None:
    """Give trafilatura the union of jusText's stoplists that it builds on the first page that
    falls back to jusText (0.15 s, and jusText's lower-cased set of it, 0.08 s), read from the
    cache (:mod:`wps.cached`) where it was written once."""
    from importlib.metadata import version

    import justext
    from justext.core import define_stoplist
    from trafilatura import external

    from ..cached import cached_file, source_key

    if not external.JT_STOPLIST:
        folder = Path(justext.__file__).parent / "stoplists"

        def write(stream: Any) -> None:
            words = sorted(external.jt_stoplist_init())
            stream.write("\n".join([str(len(words)), *words]).encode("utf-8"))

        try:
            path = cached_file("justext-stoplist-union.txt", source_key(folder, version("justext")),
                               write)
        except OSError:  # a jusText without its stoplists folder: trafilatura's own way
            path = None
        if not external.JT_STOPLIST:  # not built just now to write it
            words = _counted_words(path) if path is not None else None
            if words:
                external.JT_STOPLIST = tuple(words)
            else:  # no cache, or a damaged one: trafilatura's own way
                external.jt_stoplist_init()
    define_stoplist(external.JT_STOPLIST)  # jusText's lower-cased set of it (cached by tuple)


def _counted_words(path: Path) -> list[str] | None:
    """The words of a file whose first line is their count; ``None`` if it cannot be read or
    the count does not match (cut short, or replaced meanwhile by another install's)."""
    try:
        count, *words = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return words if count == str(len(words)) else None


@dataclass(slots=True)
class MainBlock:
    """One block of extracted main text."""

    kind: str
    """``"main"`` or ``"comment"``."""
    tag: str
    """Trafilatura's block tag: ``p``, ``head``, ``item``, ``cell``, ``quote`` or ``code``."""
    text: str


@dataclass(slots=True)
class MainText:
    """What an extractor kept as the page's main content, block by block in reading order."""

    extractor: str
    blocks: list[MainBlock] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)


@dataclass(slots=True)
class ExtractOptions:
    """Extractor choice and its settings (the ``[extract]`` config section)."""

    extractor: str = "trafilatura"
    favor_precision: bool = False
    favor_recall: bool = False
    include_comments: bool = True
    include_tables: bool = True

    def __post_init__(self) -> None:
        if self.extractor not in EXTRACTORS:
            raise UsageError(
                f"unknown extractor {self.extractor!r}; choose from {sorted(EXTRACTORS)}"
            )
        if self.favor_precision and self.favor_recall:
            raise UsageError("favor_precision and favor_recall exclude each other; set only one")

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> ExtractOptions:
        known = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in section.items() if key in known})


def extract_main_text(html: str, url: str | None = None,
                      options: ExtractOptions | None = None) -> MainText:
    """The main text of ``html`` by the extractor ``options.extractor`` names."""
    options = options or ExtractOptions()
    return EXTRACTORS[options.extractor](html, url, options)


def _trafilatura(html: str, url: str | None, options: ExtractOptions) -> MainText:
    import trafilatura

    result = MainText("trafilatura")
    if not html.strip():
        return result
    document = trafilatura.bare_extraction(
        html,
        url=url,
        favor_precision=options.favor_precision,
        favor_recall=options.favor_recall,
        include_comments=options.include_comments,
        include_tables=options.include_tables,
        include_formatting=False,
        with_metadata=False,
    )
    if document is None:
        return result
    for kind, root in (("main", document.body), ("comment", document.commentsbody)):
        if root is None or (kind == "comment" and not options.include_comments):
            continue
        for element in root.iter(*LEAF_TAGS):
            text = " ".join(_own_text(element).split())
            if text:
                result.blocks.append(MainBlock(kind, element.tag, text))
    return result


def _own_text(element: Any) -> str:
    """Text of a leaf block; for a block holding blocks (an item with a nested list), only the
    text outside its inner blocks, which come as blocks of their own."""
    if not any(True for _ in element.iterdescendants(*LEAF_TAGS)):
        return "".join(element.itertext())
    parts = [element.text or ""]
    for child in element:
        if child.tag not in LEAF_TAGS and not any(True for _ in child.iterdescendants(*LEAF_TAGS)):
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return " ".join(parts)


def _article(html: str, url: str | None, options: ExtractOptions) -> MainText:
    """The article-body decision (:mod:`wps.article_body`): trafilatura's recall, default and
    precision runs (comments off) combined block by block by the packaged model."""
    from ..article_body.body import article_body

    body = article_body(html, url)
    return MainText("article", [MainBlock("main", block.kind if block.kind in LEAF_TAGS else "p",
                                          block.text) for block in body.blocks])


def _newsfeed(html: str, url: str | None, options: ExtractOptions) -> MainText:
    from .newsfeed import newsfeed_paragraphs

    return MainText("newsfeed", [MainBlock("main", "p", text)
                                 for text in newsfeed_paragraphs(html)])


EXTRACTORS: dict[str, Callable[[str, str | None, ExtractOptions], MainText]] = {
    "trafilatura": _trafilatura,
    "newsfeed": _newsfeed,
    "article": _article,
}
