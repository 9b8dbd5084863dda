"""Candidate blocks of an article body and the evidence about each one.

Trafilatura is run three ways on the same HTML (comments off): ``favor_recall`` gives the candidate
blocks (with its links marked), the default and ``favor_precision`` runs vote on them. Each block
then carries features a small model reads (:mod:`wps.article_body.model`): which runs keep it, its tag,
length, link share, punctuation, where it lies relative to the precision run's body, and the same
facts about its neighbours. No rendering is needed: the evidence comes from the DOM the extractor
reads.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

__all__ = ["Block", "PageRuns", "extract_runs", "walk_blocks", "block_features", "FEATURES"]

BLOCK_TAGS = frozenset({"p", "head", "item", "cell", "quote", "code", "list", "table", "row",
                        "div", "body", "doc", "main", "section", "article", "graphic"})
"""Trafilatura output elements that start and end a text block; ``hi``, ``ref``, ``lb`` and
``del`` stay inside the block of their parent."""
_KINDS = ("p", "head", "item", "cell", "quote", "code", "loose")
_WORD = re.compile(r"\w+", re.UNICODE)
_TERMINAL = tuple(".!?…:\"'”’)»")
_BOILER = re.compile(
    r"\b(subscribe|newsletter|sign up|signup|log in|login|follow us|share this|advertisement|"
    r"related|read more|more from|recommended|copyright|all rights reserved|click here|cookies?|"
    r"privacy|terms of (use|service)|getty|photo|image|credit|contact us|comments?|trending)\b|©",
    re.IGNORECASE)


@dataclass(slots=True)
class Block:
    """One block of the recall run: tag, text, characters inside links."""

    kind: str
    text: str
    link_chars: int = 0
    tokens: list[str] = field(default_factory=list)
    only_default: bool = False
    """Found by the default run only, not by the recall run."""


@dataclass(slots=True)
class PageRuns:
    """The candidate blocks and the default / precision runs' texts of one page."""

    blocks: list[Block]
    default_text: str
    precision_text: str
    elements: list[Any] = field(default_factory=list)
    """Per block, the element of the page's DOM that holds it (``None``: not found)."""
    title_words: frozenset[str] = frozenset()
    """Lower-cased words of the page's ``<title>`` and ``og:title``."""


def walk_blocks(root: Any) -> list[Block]:
    """Every text of a trafilatura output tree as blocks in document order: each block element's
    own text, and loose text (tails, text directly in a container) as blocks of its own, which
    a walk over the leaf elements alone would lose."""
    blocks: list[Block] = []
    pieces: list[tuple[str, bool]] = []
    kind_stack: list[str] = []

    def flush() -> None:
        text = " ".join("".join(piece for piece, _ in pieces).split())
        if text:
            links = sum(len(" ".join(piece.split())) for piece, in_link in pieces if in_link)
            kind = kind_stack[-1] if kind_stack else "loose"
            blocks.append(Block(kind, text, min(links, len(text)), _WORD.findall(text)))
        pieces.clear()

    def visit(element: Any, in_link: bool) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        block = tag in BLOCK_TAGS
        link = in_link or tag == "ref"
        if block:
            flush()
            kind_stack.append(tag if tag in _KINDS else "loose")
        if tag == "lb":
            pieces.append((" ", link))
        pieces.append((element.text or "", link))
        for child in element:
            visit(child, link)
            pieces.append((child.tail or "", link))
        if block:
            flush()
            kind_stack.pop()

    if root is not None:
        visit(root, False)
        flush()
    return blocks


def _run(tree: Any, url: str | None, **settings: Any) -> Any:
    import trafilatura

    document = trafilatura.bare_extraction(
        tree, url=url, include_comments=False, include_tables=True, include_formatting=False,
        with_metadata=False, **settings)
    return None if document is None else document.body


def extract_runs(html: str, url: str | None = None) -> PageRuns:
    """The three trafilatura runs of ``html`` (comments off), on one parse of it: trafilatura
    parses a string as :func:`trafilatura.utils.load_html` does, and works on a copy of a
    tree it is given."""
    from trafilatura.utils import load_html

    tree = load_html(html) if html.strip() else None
    if tree is None:
        return PageRuns([], "", "")
    recall = walk_blocks(_run(tree, url, favor_recall=True, include_links=True))
    default = walk_blocks(_run(tree, url))
    precision = walk_blocks(_run(tree, url, favor_precision=True))
    blocks = merge_blocks(recall, default)
    elements, title = source_elements(tree, blocks)
    return PageRuns(blocks, "\n".join(b.text for b in default),
                    "\n".join(b.text for b in precision), elements, title)


def merge_blocks(recall: list[Block], default: list[Block]) -> list[Block]:
    """The recall run's blocks with the default run's blocks it lacks (``favor_recall`` does not
    always keep what the default keeps) put in after the recall block met last."""
    cover = _Cover("\n".join(b.text for b in recall))
    index = {" ".join(b.tokens): i for i, b in enumerate(recall)}
    after: dict[int, list[Block]] = {}
    last = -1
    for block in default:
        key = " ".join(block.tokens)
        if key in index:
            last = index[key]
        elif cover.share(block.tokens) < 0.5:
            block.only_default = True
            after.setdefault(last, []).append(block)
    merged = list(after.get(-1, []))
    for i, block in enumerate(recall):
        merged.append(block)
        merged.extend(after.get(i, []))
    return merged


_SKIP = frozenset({"script", "style", "noscript", "template", "svg"})


def source_elements(root: Any, blocks: list[Block]) -> tuple[list[Any], frozenset[str]]:
    """The element of each block in the page's parsed tree ``root`` (the one trafilatura's runs
    were given: they work on copies), and the words of the page's title. The page's words are
    laid out as one stream with the element that holds each word; a block's first and last
    words are found there (by their 4-word context) and their lowest common ancestor is the
    block's element."""
    titles = [element.text_content() for element in root.iter("title")]
    titles += [meta.get("content") or "" for meta in root.iter("meta")
               if (meta.get("property") or meta.get("name") or "").lower() == "og:title"]
    title = frozenset(word.lower() for text in titles for word in _WORD.findall(text))
    words: list[str] = []
    owners: list[Any] = []

    def add(text: str | None, owner: Any) -> None:
        if text:
            for word in _WORD.findall(text):
                words.append(word)
                owners.append(owner)

    def visit(element: Any) -> None:
        if not isinstance(element.tag, str) or element.tag in _SKIP:
            return
        add(element.text, element)
        for child in element:
            visit(child)
            add(child.tail, element)

    visit(root)
    where: dict[tuple[str, ...], int] = {}
    for i in range(len(words)):
        where.setdefault(tuple(words[i:i + 4]), i)
    found: list[Any] = []
    cursor = 0
    for block in blocks:
        tokens = block.tokens
        if not tokens:
            found.append(None)
            continue
        head, tail = tuple(tokens[:4]), tuple(tokens[-4:])
        start = _find(words, where, head, cursor)
        if start < 0:
            found.append(None)
            continue
        end = _find(words, where, tail, start) if len(tokens) > 4 else start
        end = start + min(len(head), len(tokens)) - 1 if end < 0 else end + len(tail) - 1
        cursor = start
        found.append(_common_ancestor(owners[start], owners[min(end, len(owners) - 1)]))
    return found, title


def _find(words: list[str], where: dict[tuple[str, ...], int], gram: tuple[str, ...],
          cursor: int) -> int:
    """Position of ``gram`` in ``words`` at or after ``cursor`` (else its first position)."""
    n = len(gram)
    limit = min(len(words) - n + 1, cursor + 5000)
    for i in range(cursor, max(cursor, limit)):
        if words[i] == gram[0] and tuple(words[i:i + n]) == gram:
            return i
    return where.get(gram, -1) if n == 4 else -1


def _common_ancestor(a: Any, b: Any) -> Any:
    if a is b:
        return a
    chain = set()
    node = a
    while node is not None:
        chain.add(node)
        node = node.getparent()
    node = b
    while node is not None and node not in chain:
        node = node.getparent()
    return node if node is not None else a


class _Cover:
    """Which share of a block's words a run's text holds, by 3-word shingles (whole token
    sequence for shorter blocks)."""

    def __init__(self, text: str) -> None:
        words = _WORD.findall(text)
        self.joined = " " + " ".join(words) + " "
        self.grams = {tuple(words[i:i + 3]) for i in range(len(words) - 2)}

    def share(self, words: list[str]) -> float:
        if not words:
            return 0.0
        if len(words) < 3:
            return 1.0 if " " + " ".join(words) + " " in self.joined else 0.0
        grams = [tuple(words[i:i + 3]) for i in range(len(words) - 2)]
        return sum(gram in self.grams for gram in grams) / len(grams)


FEATURES = (
    "in_default", "in_precision", "only_default", "log_tokens", "link_share", "ends_terminal",
    "starts_upper",
    "boiler_words", "digit_share", "position", "tokens_before_share", "before_precision",
    "after_precision", "blocks_to_precision", "page_precision_share", "page_default_share",
    "page_log_tokens", "prev_in_precision", "next_in_precision", "prev_link_share",
    "next_link_share", "near_in_precision", "same_kind_run", "before_prose", "after_prose",
    "blocks_to_prose", "prose_share_near", "relative_length",
    "dom_found", "dom_boiler_names", "dom_in_aside", "dom_in_footer", "dom_in_nav",
    "dom_in_header", "dom_in_figure", "dom_in_form", "dom_in_link", "dom_heading_level",
    "dom_in_body_container", "dom_depth_below_container", "dom_in_prose_container",
    "title_share",
    *(f"kind_{kind}" for kind in _KINDS),
)


def block_features(runs: PageRuns) -> list[list[float]]:
    """One row of :data:`FEATURES` per candidate block."""
    blocks = runs.blocks
    if not blocks:
        return []
    default, precision = _Cover(runs.default_text), _Cover(runs.precision_text)
    in_default = [default.share(b.tokens) for b in blocks]
    in_precision = [precision.share(b.tokens) for b in blocks]
    counts = [len(b.tokens) for b in blocks]
    total = sum(counts) or 1
    link = [b.link_chars / max(1, len(b.text)) for b in blocks]
    chosen = [i for i, share in enumerate(in_precision) if share >= 0.5]
    first, last = (chosen[0], chosen[-1]) if chosen else (len(blocks), -1)
    precision_tokens = sum(c * s for c, s in zip(counts, in_precision, strict=True))
    default_tokens = sum(c * s for c, s in zip(counts, in_default, strict=True))
    rows: list[list[float]] = []
    before = 0
    n = len(blocks)
    prose = [counts[i] >= 15 and blocks[i].text.rstrip().endswith(_TERMINAL) and link[i] < 0.3
             for i in range(n)]
    prose_at = [i for i in range(n) if prose[i]]
    first_prose, last_prose = (prose_at[0], prose_at[-1]) if prose_at else (n, -1)
    median = sorted(counts)[n // 2] or 1
    elements = runs.elements if len(runs.elements) == n else [None] * n
    container = _container([elements[i] for i in chosen])
    prose_container = _container([elements[i] for i in prose_at])
    for i, block in enumerate(blocks):
        text = block.text
        if chosen:
            distance = min(abs(i - j) for j in (first, last)) if not first <= i <= last else 0
        else:
            distance = n
        near = [in_precision[j] for j in range(max(0, i - 2), min(n, i + 3)) if j != i]
        run = 1
        while i - run >= 0 and blocks[i - run].kind == block.kind and run < 20:
            run += 1
        row = [
            in_default[i], in_precision[i], float(block.only_default), math.log1p(counts[i]),
            link[i],
            float(text.rstrip().endswith(_TERMINAL)), float(text[:1].isupper()),
            float(len(_BOILER.findall(text))), sum(ch.isdigit() for ch in text) / len(text),
            i / n, before / total, float(i < first), float(i > last),
            math.log1p(distance), precision_tokens / total, default_tokens / total,
            math.log1p(total),
            in_precision[i - 1] if i > 0 else -1.0,
            in_precision[i + 1] if i + 1 < n else -1.0,
            link[i - 1] if i > 0 else -1.0, link[i + 1] if i + 1 < n else -1.0,
            sum(near) / len(near) if near else 0.0, math.log1p(run),
            float(i < first_prose), float(i > last_prose),
            math.log1p(min((abs(i - j) for j in prose_at), default=n)),
            sum(prose[max(0, i - 3):i + 4]) / len(prose[max(0, i - 3):i + 4]),
            math.log((counts[i] + 1) / (median + 1)),
            *_dom_features(elements[i], container, prose_container),
            _title_share(block.tokens, runs.title_words),
            *(float(block.kind == kind) for kind in _KINDS),
        ]
        rows.append(row)
        before += counts[i]
    return rows


_BOILER_NAMES = re.compile(
    r"related|recirc|promo|sidebar|side-bar|rail|newsletter|share|social|byline|author|bio\b|"
    r"caption|credit|tags?\b|footer|comment|\bads?\b|advert|sponsor|subscri|signup|more|widget|"
    r"teaser|card|latest|popular|trending|recommend|nav|menu|breadcrumb|meta", re.IGNORECASE)
_ANCESTOR_TAGS = ("aside", "footer", "nav", "header", ("figure", "figcaption"), "form", "a")


def _container(elements: list[Any]) -> Any:
    """Lowest common ancestor of the found ``elements`` (``None`` if none)."""
    found = [e for e in elements if e is not None]
    if not found:
        return None
    node = found[0]
    for element in found[1:]:
        node = _common_ancestor(node, element)
    return node


def _title_share(words: list[str], title: frozenset[str]) -> float:
    """Share of a short block's words found in the page title (a headline repeated above the
    body); 0 for blocks of more than 40 words."""
    if not words or not title or len(words) > 40:
        return 0.0
    return sum(word.lower() in title for word in words) / len(words)


def _dom_features(element: Any, container: Any, prose_container: Any) -> list[float]:
    if element is None:
        return [0.0] * 13
    names = 0
    tags: set[str] = set()
    depth = 0
    inside = inside_prose = False
    distance = -1
    node = element
    while node is not None:
        tag = node.tag if isinstance(node.tag, str) else ""
        tags.add(tag)
        if depth < 10 and _BOILER_NAMES.search(f"{node.get('class', '')} {node.get('id', '')}"):
            names += 1
        if node is container:
            inside, distance = True, depth
        if node is prose_container:
            inside_prose = True
        node = node.getparent()
        depth += 1
    level = float(element.tag[1]) if isinstance(element.tag, str) and len(element.tag) == 2 \
        and element.tag[0] == "h" and element.tag[1].isdigit() else 0.0
    flags = [float(bool(tags & ({t} if isinstance(t, str) else set(t)))) for t in _ANCESTOR_TAGS]
    return [1.0, float(names), *flags, level, float(inside),
            math.log1p(distance) if distance >= 0 else -1.0, float(inside_prose)]


def block_texts(blocks: Iterable[Block]) -> list[str]:
    return [block.text for block in blocks]
