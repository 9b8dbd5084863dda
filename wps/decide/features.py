"""What a segment looks like, as numbers: the evidence the prose decision weighs.

From the capture (no HTML-only extractor has it): the share of the text inside forms, links,
lists and tables and navigation, form controls, font size against the page's body text, and
the short titled records it runs across (a listing); from the text: how much of it is
in real sentences (8+ words ending in punctuation; a line break ends a sentence, so list items
and table rows are not sentences) and how many lines are ``Key: value`` fields. One pass over
the segment's nodes and lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..model import TEXT_TAG, PageCapture, Segment
from ..text.sentences import sentence_share, word_count

FIELD_LINE = re.compile(r"^(?:[^.!?:：()]|\([^)]{0,40}\)){1,40}[:：]\s*\S.{0,40}$")
"""A ``Key: value`` line with a short value (spec sheets, user-info rows, forum statistics)."""


def is_field_line(line: str) -> bool:
    """A :data:`FIELD_LINE` (a line without a colon is none: most lines are settled without
    the pattern)."""
    return (":" in line or "：" in line) and FIELD_LINE.match(line) is not None

FORM_CONTROL_TAGS = frozenset({"INPUT", "SELECT", "TEXTAREA", "BUTTON"})
HEADING_TAGS = frozenset({"H1", "H2", "H3", "H4", "H5", "H6"})
FORM_TEXT_TAGS = frozenset({"SELECT", "TEXTAREA", "BUTTON", "LABEL", "OPTION"})


@dataclass(slots=True)
class SegmentFeatures:
    words: int
    sentence_share: float
    """Share of the text in sentences of 8+ words that end in punctuation: prose."""
    link_share: float
    form_share: float
    list_table_share: float
    nav_share: float
    """Share of the text inside nav, header, footer or aside elements."""
    field_line_share: float
    controls: int
    rel_font_size: float
    listing_records: int = 0
    """Title-and-blurb records the segment runs across (a forum index's rows, a list of teasers);
    0 when it is not such a listing (see :func:`listing_records`)."""


MAX_WORDS_PER_CONTROL = 100
"""A form with more words than this per control is not an interface box but a page (ASP.NET
wraps every page in one ``<form>`` with a search box) or a product description inside a shop's
order form: its text does not count as form text. Login, search and registration forms have
one control per 10-60 words."""


MIN_FORM_PARAGRAPHS = 2
MIN_PARAGRAPH_WORDS = 25
"""A form holding this many ``p`` elements of this many words is writing that a page set in a
form, not an interface box (a cookie or sign-up box has one paragraph, if any)."""
CONTENT_LANDMARKS = frozenset({"MAIN", "ARTICLE"})
"""A form holding one of these (or an element of the role ``main`` or ``article``) wraps the
page's content: a login or search box sits inside the page's main content, never around it."""


NODE_COUNTS = ("chars", "link", "list_table", "form", "nav", "controls")
"""The rows of :attr:`PageFacts.counts`."""
LANDMARK_CONTEXTS = frozenset({"nav", "header", "footer", "aside"})


@dataclass(slots=True)
class PageFacts:
    """What every segment's features are measured against, and what each node adds to them,
    computed once per page: a segment's shares are then sums over its nodes' columns
    (:func:`_node_facts`), not a walk through its nodes' texts, contexts and styles."""

    body_font_size: float
    in_form: np.ndarray
    """Per node: form text (see :func:`form_nodes`)."""
    counts: np.ndarray
    """Per node, one column each (rows as :data:`NODE_COUNTS` names them): the characters of its
    text (stripped), the same again where that text is in a link, in a list or table, form text
    or in a landmark (else 0), and 1 for a form control."""
    sized_chars: np.ndarray
    """Per node: its characters times the font size of its text (for their weighted mean)."""
    font_sizes: np.ndarray
    """Per node: the font size its text is set in (:func:`text_font_sizes`)."""

    @classmethod
    def of(cls, capture: PageCapture) -> PageFacts:
        sizes = text_font_sizes(capture)
        in_form = form_nodes(capture)
        form = in_form.tolist()
        columns = [[0] * len(capture.nodes) for _ in NODE_COUNTS]
        chars, link, list_table, form_chars, nav, controls = columns
        sized_chars = [0.0] * len(capture.nodes)
        for node in capture.nodes:
            if node.tag != TEXT_TAG:
                controls[node.id] = int(node.tag in FORM_CONTROL_TAGS)
                continue
            count = len(node.text.strip())
            if not count:
                continue
            inside = node.inside
            chars[node.id] = count
            link[node.id] = count if "link" in inside else 0
            list_table[node.id] = count if ("list" in inside or "table" in inside) else 0
            form_chars[node.id] = count if form[node.id] else 0
            nav[node.id] = 0 if LANDMARK_CONTEXTS.isdisjoint(inside) else count
            sized_chars[node.id] = sizes[node.id] * count
        return cls(body_font_size(capture, sizes), in_form, np.array(columns, dtype=np.int64),
                   np.array(sized_chars, dtype=np.float64), np.array(sizes, dtype=np.float64))


def form_nodes(capture: PageCapture) -> np.ndarray:
    """Nodes of interface boxes: inside a control or label, or inside a ``<form>`` with at most
    :data:`MAX_WORDS_PER_CONTROL` words per control (login, search, newsletter boxes)."""
    boxes = {node.id for node in capture.nodes
             if node.tag == "FORM" and _form_box(capture, node.id)}
    inside = [False] * len(capture.nodes)  # a list: numpy's item access is slow per node
    for node in capture.nodes:
        inside[node.id] = ((node.parent is not None and inside[node.parent])
                           or node.tag in FORM_TEXT_TAGS or node.id in boxes)
    return np.array(inside, dtype=bool)


def _form_box(capture: PageCapture, form: int) -> bool:
    """Whether a ``<form>`` is an interface box: at most :data:`MAX_WORDS_PER_CONTROL` words per
    control, and neither :data:`MIN_FORM_PARAGRAPHS` paragraphs of writing nor a content
    landmark (:data:`CONTENT_LANDMARKS`): a page that one form wraps, with its search, language
    and newsletter boxes, holds its article's paragraphs, or its article in ``main`` (a
    one-paragraph brief); a login or sign-up box holds labels and a line of instructions. Its
    subtree is walked alone (most forms are a search box; the page is not summed up for them)."""
    words = controls = 0
    paragraphs: dict[int, int] = {}
    stack: list[tuple[int, int | None]] = [(child, None)
                                           for child in reversed(capture.children(form))]
    while stack:
        node_id, paragraph = stack.pop()
        node = capture.nodes[node_id]
        if node.tag == TEXT_TAG:
            count = len(node.text.split())
            words += count
            if paragraph is not None:
                paragraphs[paragraph] = paragraphs.get(paragraph, 0) + count
            continue
        if node.tag in CONTENT_LANDMARKS or node.attrs.get("role") in ("main", "article"):
            return False
        if node.tag in FORM_CONTROL_TAGS:
            controls += 1
        inner = node_id if node.tag == "P" else paragraph
        stack.extend((child, inner) for child in reversed(capture.children(node_id)))
    if sum(count >= MIN_PARAGRAPH_WORDS for count in paragraphs.values()) >= MIN_FORM_PARAGRAPHS:
        return False
    return words <= MAX_WORDS_PER_CONTROL * max(controls, 1)


def segment_features(capture: PageCapture, segment: Segment, page: PageFacts) -> SegmentFeatures:
    text = segment.text
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    ids = np.asarray(segment.node_ids, dtype=np.intp)
    facts = _node_facts(ids, page)
    body_font_size = page.body_font_size
    return SegmentFeatures(
        words=word_count(text),
        sentence_share=sentence_share(text),
        link_share=facts["link"], form_share=facts["form"],
        list_table_share=facts["list_table"], nav_share=facts["nav"],
        field_line_share=(sum(1 for line in lines if is_field_line(line)) / len(lines)
                          if lines else 0.0),
        controls=int(facts["controls"]),
        rel_font_size=facts["font_size"] / body_font_size if facts["font_size"] else 1.0,
        listing_records=listing_records(capture, ids, page),
    )


MIN_LISTING_RECORDS = 3
MAX_LISTING_RECORD_WORDS = 40
"""A listing's records are short: a title, a line or two of blurb, some numbers (median words)."""
MIN_LISTING_SHARE = 0.8
"""The records of one name hold this share of the segment's text."""
MAX_LISTING_RECORD_SHARE = 0.5
"""No record holds more than this share of the records' words: an article body among small
boxes of one name (a script-free page's bare ``div``s) is not a listing."""
RECORD_TAGS = frozenset({"LI", "TR", "ARTICLE", "DL", "DT", "DD"})
"""Tags that make records without a class; a bare ``div`` or ``p`` needs a class."""


def listing_records(capture: PageCapture, node_ids: np.ndarray, page: PageFacts) -> int:
    """How many records of a listing the segment (its ``node_ids``) runs across: sibling
    elements of one tag and class that hold most of its text, each opening with a link or
    heading (the title) and short (a blurb, not a post); 0 when the segment is not one. Found
    from the text nodes' lowest common ancestor down, through wrappers that hold nearly all the
    text."""
    chars = page.counts[NODE_COUNTS.index("chars"), node_ids]
    is_text = chars > 0  # the segment's text nodes that are not blank
    if (np.count_nonzero(is_text) < MIN_LISTING_RECORDS
            or np.count_nonzero(page.counts[NODE_COUNTS.index("link"), node_ids]) < 2):
        return 0  # fewer than two links: no titled records
    texts = node_ids[is_text].tolist()
    chains = [_ancestors(capture, node_id) for node_id in texts]
    depth = 0
    while all(len(chain) > depth + 1 and chain[depth] == chains[0][depth] for chain in chains):
        depth += 1
    sizes = chars[is_text].tolist()
    total = sum(sizes)
    members = list(range(len(texts)))
    while True:
        groups: dict[int, list[int]] = {}
        for index in members:
            if len(chains[index]) > depth:
                groups.setdefault(chains[index][depth], []).append(index)
        if not groups:
            return 0
        by_name: dict[tuple[str, str], list[int]] = {}
        for child in groups:
            node = capture.nodes[child]
            by_name.setdefault((node.tag, node.attrs.get("class", "")), []).append(child)
        name, children = max(by_name.items(),
                             key=lambda item: sum(sizes[i] for c in item[1] for i in groups[c]))
        if len(children) >= MIN_LISTING_RECORDS and (name[1] or name[0] in RECORD_TAGS):
            held = sum(sizes[i] for child in children for i in groups[child])
            if held < MIN_LISTING_SHARE * total:
                return 0
            return len(children) if _title_records(capture, texts, groups, children) else 0
        biggest = max(groups, key=lambda child: sum(sizes[i] for i in groups[child]))
        if sum(sizes[i] for i in groups[biggest]) < MIN_LISTING_SHARE * total:
            return 0
        members, depth = groups[biggest], depth + 1


def _title_records(capture: PageCapture, texts: list[int], groups: dict[int, list[int]],
                   children: list[int]) -> bool:
    words = []
    titled = 0
    for child in children:
        indexes = groups[child]
        first = capture.nodes[texts[indexes[0]]]
        titled += "link" in first.inside or _in_heading(capture, first.id, child)
        words.append(sum(word_count(capture.nodes[texts[i]].text) for i in indexes))
    return (titled >= 2 / 3 * len(children)
            and float(np.median(words)) <= MAX_LISTING_RECORD_WORDS
            and max(words) <= MAX_LISTING_RECORD_SHARE * sum(words))


def _in_heading(capture: PageCapture, node_id: int, stop: int) -> bool:
    parent = capture.nodes[node_id].parent
    while parent is not None and parent != stop:
        if capture.nodes[parent].tag in HEADING_TAGS or capture.nodes[parent].tag == "DT":
            return True
        parent = capture.nodes[parent].parent
    return False


def _ancestors(capture: PageCapture, node_id: int) -> list[int]:
    """Ancestor ids from the root down to ``node_id``'s parent, then ``node_id``."""
    chain = [node_id]
    parent = capture.nodes[node_id].parent
    while parent is not None:
        chain.append(parent)
        parent = capture.nodes[parent].parent
    chain.reverse()
    return chain


def body_font_size(capture: PageCapture, sizes: list[float] | None = None) -> float:
    """The font size most of the page's text is set in (its body text); ``sizes``: the page's
    :func:`text_font_sizes`, when already known."""
    sizes = text_font_sizes(capture) if sizes is None else sizes
    chars: dict[float, int] = {}
    for node in capture.nodes:
        size = sizes[node.id]
        if size:
            chars[size] = chars.get(size, 0) + len(node.text)
    return max(chars, key=chars.__getitem__) if chars else 16.0


def text_font_sizes(capture: PageCapture) -> list[float]:
    """Per node: the font size its text is set in (its parent's, in px), 0.0 for elements and
    where none is known."""
    nodes = capture.nodes
    return [_px(nodes[node.parent].style.get("font-size", ""))
            if node.tag == TEXT_TAG and node.parent is not None else 0.0 for node in nodes]


def _node_facts(ids: np.ndarray, page: PageFacts) -> dict[str, float]:
    chars, link, list_table, form, nav, controls = page.counts[:, ids].sum(axis=1).tolist()
    # cumsum adds in node order, as a loop would (np.sum's pairwise order may round otherwise)
    size_sum = float(np.cumsum(page.sized_chars[ids])[-1]) if chars else 0.0
    total = max(chars, 1)
    return {"link": link / total, "list_table": list_table / total, "form": form / total,
            "nav": nav / total, "controls": controls,
            "font_size": size_sum / chars if chars else 0.0}


@lru_cache(maxsize=1024)
def _px(value: str) -> float:
    """A computed ``font-size`` (``"16px"``) as a number, 0.0 when it is none (pages repeat a
    few sizes: cached)."""
    try:
        return float(value.removesuffix("px")) if value else 0.0
    except ValueError:
        return 0.0


__all__ = ["SegmentFeatures", "PageFacts", "segment_features", "sentence_share", "word_count",
           "body_font_size", "FIELD_LINE"]
