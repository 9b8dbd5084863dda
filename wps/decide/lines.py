"""Line-level cleaning of a kept segment's main text: the lines inside a prose segment that are
not prose (spec fields, user-info rows, "Read 664 more words", form labels).

A line goes when it does not end a sentence and is a ``Key: value`` field (``Pros: Quiet, Light``
lists too), mostly digits, or too short to be a sentence; and, by where it stands on the page, when
it is one link (a teaser's "read the article" line), a line of a small form (a sign-up box), a
heading, a line of a header, footer, nav or
aside without a sentence ("Commenting on this article is closed."), inside an element named
as chrome (``readmore``, ``footnote``, ``disclaimer``, ``byline``: Readability's negative class
words, those that never hold writing, weighed against positive ones by :mod:`wps.page.names`)
that holds a small share of the segment's text, or the text of a list of posts outside its posts
(:func:`wps.posts.records.post_list_chrome`: "3 comments", "No reviews yet"). Alone, a heading
is not writing; the headings and short sentences that stand between an article's paragraphs are
put back afterwards (:mod:`wps.decide.between`). The article profile (``--profile article``)
runs no decision, so it trims nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model import PageCapture
from ..page.names import NEGATIVE_NAMES, chrome_owners
from ..page.reading import reading_lines
from ..text.code import looks_like_code
from ..text.sentences import ends_sentence, is_sentence, sentence_share
from .features import FIELD_LINE, HEADING_TAGS, PageFacts, word_count

LIST_FIELD = re.compile(r"^[^:：.!?]{1,30}[:：]\s*[^,，、.!?:]{1,30}(?:[,，、]\s*[^,，、.!?:]{1,30})+$")
"""A ``Key: a, b, c`` line: a review's "Pros: Quiet, Light Weight, Durable", a spec's colours."""
LANDMARKS = frozenset({"header", "footer", "nav", "aside"})
MAX_NAMED_SHARE = 0.4
"""A chrome-named element (:func:`wps.page.names.names_chrome`) is cut only while it holds at
most this share of its segment's text: a share bar or a "read more" box beside the writing, not
the article body a theme wrapped in ``div#gigya-share-btns-2_gig_containerParent`` or
``div#read-more``."""

HEADLINE_SIZE = 1.4
"""Text this many times the size of the body text around it is set as a heading."""
MIN_SEGMENT_BODY_CHARS = 200
"""A segment's own body size (the size most of its characters are set in) is the measure of
its headings where this many characters are set in it: an article set larger than the rest of
the page (a page of small comments, a large-type column) has its own body text, and its lines
are not headings for being larger than the page's."""
MIN_SENTENCE_WORDS = 5
MIN_LEAD_IN_WORDS = 8
"""A line this long that ends with a colon introduces what follows ("Submitting some parameters,
it would look like this:"); a shorter one is a label or a field name."""
"""Forum posts often end without a full stop; a line this long still counts as prose."""


def is_prose_line(line: str, min_sentence_words: int = 3, code: bool = True) -> bool:
    """Whether a line is writing; with ``code``, a line that reads as a program is not (a
    post's lines are its writer's, snippets included).

    >>> [is_prose_line(x) for x in ("Gewicht: 250 g", "Read 664 more words",
    ...                             "Works fine, my guinea pigs love it",
    ...                             "Pros: Quiet, Light Weight, Durable")]
    [False, False, True, False]
    """
    line = line.strip()
    if code and looks_like_code(line):
        return False
    if ends_sentence(line) and word_count(line) >= min_sentence_words:
        return True
    if sentence_share(line) > 0:  # sentences, then "…the following devices:"
        return True
    if FIELD_LINE.match(line) or LIST_FIELD.match(line) or fields_in_a_row(line):
        return False
    if sum(map(str.isdigit, line)) > 0.3 * max(len(line), 1):
        return False
    words = word_count(line)
    return words >= MIN_SENTENCE_WORDS and (not line.endswith(":") or words >= MIN_LEAD_IN_WORDS)


MAX_FIELDS_LINE_CHARS = 200
_LABEL_START = re.compile(r"\s(?=(\S+(?:\s\S+)?)([:：])\s)")
"""Where a further ``Label:`` may start: a space before a label of one or two words (that
opens with a capital, or ends in a full-width colon: "he said: fine" is writing)."""
_FIRST_LABEL = re.compile(r"^\S+(?:\s\S+)?[:：]\s")
"""The line opens with a label of one or two words ("You can replace: if bar is None: ..." is
a reader's writing about code)."""


def fields_in_a_row(line: str) -> bool:
    """Two or more ``Key: value`` fields on one line ("Posted: Tue Mar 01, 2005 10:20 am Post
    subject: Re: Bread", a forum post's header; "Weight: 2 kg Colour: red"): each part a
    :data:`FIELD_LINE`."""
    line = line.strip()
    if len(line) > MAX_FIELDS_LINE_CHARS or not _FIRST_LABEL.match(line):
        return False
    return _fields(line, 0)


def _fields(line: str, found: int) -> bool:
    if found and FIELD_LINE.match(line):
        return True
    for cut in _LABEL_START.finditer(line):
        if not (cut.group(1)[0].isupper() or cut.group(2) == "："):
            continue
        if FIELD_LINE.match(line[:cut.start()]) and _fields(line[cut.end():], found + 1):
            return True
    return False


def prose_lines(text: str, chrome: frozenset[str] = frozenset(),
                post: bool = False) -> tuple[str, int]:
    """``text`` without its non-prose lines and without the lines the page shows as chrome
    (``chrome``, by :func:`squeezed` text, from :func:`chrome_lines`), and how many lines went.
    In a ``post`` a short exclamation or question ("Hiiilfe!", "Thanks!") is writing too."""
    min_words = 1 if post else 3
    lines = [line for line in text.splitlines() if line.strip()]
    kept = [line for line in lines
            if is_prose_line(line, min_words, code=not post) and squeezed(line) not in chrome]
    return "\n".join(kept), len(lines) - len(kept)


def squeezed(text: str) -> str:
    """``text`` without whitespace: lines compared across the ways they were assembled."""
    return "".join(text.split())


@dataclass(slots=True)
class PageChrome:
    """What the page's tree says is chrome, per node, computed once per page: inside a heading
    element (``heading``), inside a list of posts outside its posts (``marked``), the
    chrome-named elements it is in (``owners``, weighed per segment by :func:`chrome_lines`),
    and the size its text is set in (``sizes``; ``body_size``: the page's body text's)."""

    heading: np.ndarray
    marked: np.ndarray
    owners: list[tuple[int, ...]]
    sizes: list[float]
    body_size: float
    forms: frozenset[int] = frozenset()
    """The text nodes in a small form (:func:`small_form_text`)."""
    anchored: frozenset[int] = frozenset()
    """The nodes inside a link into the page itself (``href="#name"``): a heading that links
    to itself (a permalink, a table of contents' target) is still a heading."""


def page_chrome(capture: PageCapture, facts: PageFacts,
                marked: np.ndarray | None = None) -> PageChrome:
    """Headings, ``marked`` nodes and chrome-named elements; one pass, parents first."""
    inside = [False] * len(capture.nodes)  # a list: numpy's item access is slow per node
    anchored: set[int] = set()
    for node in capture.nodes:
        inside[node.id] = ((node.parent is not None and inside[node.parent])
                           or node.tag in HEADING_TAGS)
        if node.parent in anchored or (node.tag == "A" and "href" in node.attrs):
            anchored.add(node.id)  # only an in-page href is captured (ATTRIBUTES)
    heading = np.array(inside, dtype=bool)
    if marked is None:
        marked = np.zeros(len(capture.nodes), dtype=bool)
    return PageChrome(heading, marked, chrome_owners(capture, NEGATIVE_NAMES),
                      facts.font_sizes.tolist(), facts.body_font_size, small_form_text(capture),
                      frozenset(anchored))


SMALL_FORM_CHARS = 1000
"""A form with less text than this is a box beside the writing, not a page-wrapping form."""


ENTRY_TYPES = frozenset({"", "text", "email", "search", "password", "tel", "url", "number"})
"""Input types a reader types into (an ``input`` without a type is a text box)."""


def small_form_text(capture: PageCapture) -> frozenset[int]:
    """The text nodes inside a form that has a box to type into (a visible text ``input`` or
    ``textarea``) and holds less than :data:`SMALL_FORM_CHARS` of text: a sign-up, search or
    login box (its title, labels and "Thanks for signing up!"). Not a form that wraps the page
    (ASP.NET pages hold all their text in one), nor one without a visible box to type into (old
    reddit sets each comment in a form whose edit box is hidden). Lines, not segments: a
    segment's kind and form share count the words per control instead
    (:func:`wps.decide.features.form_nodes`)."""
    owner: dict[int, int] = {}
    chars: dict[int, int] = {}
    entry: set[int] = set()
    form_of: list[int | None] = [None] * len(capture.nodes)  # one pass, parents first
    for node in capture.nodes:
        form = node.id if node.tag == "FORM" else (
            form_of[node.parent] if node.parent is not None else None)
        form_of[node.id] = form
        if form is None:
            continue
        if node.is_text:
            owner[node.id] = form
            chars[form] = chars.get(form, 0) + len(node.text.strip())
        elif node.tag == "TEXTAREA" or (node.tag == "INPUT"
                                        and node.attrs.get("type", "").lower() in ENTRY_TYPES):
            entry.add(form)
    return frozenset(node_id for node_id, form in owner.items()
                     if form in entry and chars[form] < SMALL_FORM_CHARS)


def headline_size(lines: list, chrome: PageChrome) -> float:
    """The size from which a segment's text is set as a heading, whatever its tag (a headline
    in ``<font size=5><b>`` or a styled ``div``): :data:`HEADLINE_SIZE` times the body text
    around it, the page's, or the segment's own where that is larger and the segment holds
    :data:`MIN_SEGMENT_BODY_CHARS` in it."""
    chars: dict[float, int] = {}
    for line in lines:
        for node_id, piece in line:
            size = chrome.sizes[node_id]
            chars[size] = chars.get(size, 0) + len(piece)
    body = chrome.body_size
    if chars:
        size = max(chars, key=chars.__getitem__)
        if size > body and chars[size] >= MIN_SEGMENT_BODY_CHARS:
            body = size
    return HEADLINE_SIZE * body


def chrome_lines(capture: PageCapture, node_ids: list[int], chrome: PageChrome,
                 landmarks: bool = True) -> frozenset[str]:
    """The lines of a segment (as :func:`reading_lines` makes them) that the page shows as chrome,
    squeezed: all inside links; all inside small forms (a sign-up box's title and thanks:
    ``chrome.forms``) that hold a small share of the segment's text (not a short article that a page
    set in one form with a search box), but for a post's lines (with ``landmarks`` off); all inside
    ``chrome.marked`` nodes; all inside headings or set as headings by their size
    (:func:`headline_size`), unless the line is a sentence with its terminal (an interview's
    question set as a heading; a headline of eight words without one is a title, not an unended
    sentence); all inside chrome-named elements that hold a small share of the segment's text
    (:data:`MAX_NAMED_SHARE`); or (``landmarks``) all inside landmarks with no sentence.
    A post's lines are writing wherever the post stands (comment lists sit in ``<aside>``)."""
    lines = reading_lines(capture, node_ids)
    small = _small_owners(capture, lines, chrome.owners)
    large = headline_size(lines, chrome)
    boxed = _beside_the_writing(lines, chrome.forms)
    found = set()
    for line in lines:
        nodes = [capture.nodes[node_id] for node_id, _ in line]
        text = " ".join(piece for _, piece in line)
        if (all("link" in node.inside for node in nodes)
                or (boxed and landmarks and all(node.id in chrome.forms for node in nodes))
                or all(chrome.marked[node.id] or any(owner in small
                                                    for owner in chrome.owners[node.id])
                       for node in nodes)
                or (all(chrome.heading[node.id] or chrome.sizes[node.id] >= large
                        for node in nodes)
                    and not (is_sentence(text) and ends_sentence(text)))
                or (landmarks and all(node.inside & LANDMARKS for node in nodes)
                    and not sentence_share(text))):
            found.add(squeezed(text))
    return frozenset(found)


def _beside_the_writing(lines: list, forms: frozenset[int]) -> bool:
    """Whether the segment's text in ``forms`` is at most :data:`MAX_NAMED_SHARE` of it."""
    if not forms:
        return False
    boxed = total = 0
    for line in lines:
        for node_id, piece in line:
            total += len(piece)
            boxed += len(piece) if node_id in forms else 0
    return 0 < boxed <= MAX_NAMED_SHARE * total


def _small_owners(capture: PageCapture, lines: list, owners: list[tuple[int, ...]]) -> set[int]:
    """The chrome-named elements that hold at most :data:`MAX_NAMED_SHARE` of the segment's
    text (characters of its lines)."""
    held: dict[int, int] = {}
    total = 0
    for line in lines:
        for node_id, piece in line:
            total += len(piece)
            for owner in owners[node_id]:
                held[owner] = held.get(owner, 0) + len(piece)
    return {owner for owner, chars in held.items() if chars <= MAX_NAMED_SHARE * total}
