"""Detector units: which kept segments a detector judges together.

A segmenter cuts an article body into its paragraphs, subheadings and figures; judged one by one,
each paragraph is a short text, and a detector such as Binoculars is unreliable on short texts
(its published thresholds were set on whole documents). So the kept pieces of the page's article
are one unit, judged as one text in reading order, and each post (its kept body pieces) is a unit
of its own: writing by one hand is judged whole, and never together with another's.

``Segment.unit`` names the unit of every kept segment: ``article`` for the pieces of the article
(the prose that stands inside the article's span, :func:`wps.decide.step._article_span`, on a page
judged an article), ``post-N`` for the N-th post with a kept body (in document order), ``prose-N``
for any other kept segment, alone (prose outside the article: a box in a sidebar, a teaser, the
kept prose of a page that is not an article).

The article's run of pieces is cut where two neighbouring pieces stand in two alike records that
each carry text of their own beside the writing, with a number in it, and different text
(:func:`_records_apart`): posts that the posts step did not find (each with its writer's name and
the date) are then judged apart (``article-2``, ``article-3``, …), while the parts of an article
(its sections under their headings, its numbered steps, its photos with their credits, its code)
are not. On nonarticle-dev with the posts step off, 92 of 317 posts are each whole in a unit of
their own with the cut and 2 without it (106 in a segment of their own); with the posts step on,
296 either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..model import TEXT_TAG, PageCapture, Segment
from ..page.tree import chain_below
from .lines import squeezed

ARTICLE_UNIT = "article"
PART_TAGS = frozenset({"H1", "H2", "H3", "H4", "H5", "H6", "FIGURE", "FIGCAPTION", "PRE", "CODE"})
"""Text under these beside a piece belongs to the article's parts (headings, pictures, code),
not to a writer's record."""
_DIGITS = re.compile(r"\d+")
_DIGIT = re.compile(r"\d")


def assign_units(capture: PageCapture, segments: Iterable[Segment], article: range,
                 is_article: bool) -> None:
    """Set ``unit`` on every kept segment (``None`` on the others); ``article``: the node ids of
    the article's span, ``is_article``: the page's verdict (without it there is no article)."""
    segments = list(segments)
    posts: dict[str, str] = {}
    others = 0
    runs = 0
    previous: Segment | None = None
    asides = _AsideTexts(capture, _written_nodes(capture, segments))
    for segment in sorted(segments, key=lambda s: min(s.node_ids, default=-1)):
        if not segment.kept:
            segment.unit = None
        elif segment.post_record is not None:
            segment.unit = posts.setdefault(segment.post_record, f"post-{len(posts) + 1}")
        elif is_article and min(segment.node_ids, default=-1) in article:
            if previous is None or _records_apart(capture, previous, segment, asides):
                runs += 1
            segment.unit = ARTICLE_UNIT if runs == 1 else f"{ARTICLE_UNIT}-{runs}"
            previous = segment
        else:
            others += 1
            segment.unit = f"prose-{others}"


def refresh_units(segments: list[Segment]) -> None:
    """Units again after the keep flags changed without the page's capture (``wps filter``):
    a dropped segment has none; a segment kept now that had none joins its post's unit, or the
    article unit it stands inside (between two pieces of it, in the given page order), or is a
    ``prose-N`` of its own. Units of segments kept before stay: the page-level evidence that
    cut them (the article's span, its records apart) is the capture's."""
    names = {segment.unit for segment in segments if segment.unit}  # none given twice
    posts = {segment.post_record: segment.unit for segment in segments
             if segment.kept and segment.unit and segment.post_record is not None}
    spans: dict[str, tuple[int, int]] = {}
    for index, segment in enumerate(segments):
        if segment.kept and segment.unit and segment.unit.startswith(ARTICLE_UNIT):
            first, _ = spans.get(segment.unit, (index, index))
            spans[segment.unit] = (first, index)
    for index, segment in enumerate(segments):
        if not segment.kept:
            segment.unit = None
        elif segment.unit is None:
            if segment.post_record is not None:
                segment.unit = posts.get(segment.post_record) or _new_name(names, "post")
                posts[segment.post_record] = segment.unit
            else:
                inside = (unit for unit, (first, last) in spans.items() if first < index < last)
                segment.unit = next(inside, None) or _new_name(names, "prose")
            names.add(segment.unit)


def _new_name(names: set[str], kind: str) -> str:
    """``kind-N`` with N one more than the largest taken."""
    taken = [int(name.rpartition("-")[2]) for name in names
             if name.startswith(f"{kind}-") and name.rpartition("-")[2].isdigit()]
    return f"{kind}-{max(taken, default=0) + 1}"


def _written_nodes(capture: PageCapture, segments: Iterable[Segment]) -> set[int]:
    """The text nodes whose text reaches the detector: in a kept segment and in its main text."""
    written = set()
    for segment in segments:
        if not segment.kept:
            continue
        main = squeezed(segment.main_text)
        for node_id in segment.node_ids:
            node = capture.nodes[node_id]
            if node.tag == TEXT_TAG and squeezed(node.text) in main:
                written.add(node_id)
    return written


def _records_apart(capture: PageCapture, first: Segment, second: Segment,
                   asides: _AsideTexts) -> bool:
    """The two pieces stand in two alike sibling records (the children of their lowest common
    ancestor that hold them, :func:`_alike`) that each hold text beside the writing, outside
    headings, pictures and code, with a number in it, and not the same text but for its
    numbers: a writer's name and when the post was written, not a numbered step's label, a
    photo's credit or a repeated "Advertisement"."""
    a, b = min(first.node_ids), min(second.node_ids)
    chain_a, chain_b = chain_below(capture, a, -1), chain_below(capture, b, -1)  # from the root
    common = 0
    while (common < min(len(chain_a), len(chain_b))
           and chain_a[common] == chain_b[common]):
        common += 1
    if common >= min(len(chain_a), len(chain_b)) or not _alike(capture, chain_a[common],
                                                                 chain_b[common]):
        return False
    aside_a = asides.of(chain_a[common])
    if _DIGIT.search(aside_a) is None:
        return False
    aside_b = asides.of(chain_b[common])
    return (_DIGIT.search(aside_b) is not None
            and _DIGITS.sub("", aside_a) != _DIGITS.sub("", aside_b))


def _alike(capture: PageCapture, first: int, second: int) -> bool:
    """Two records of one kind, as a thread repeats its posts: the same tag (an article's
    ``header`` and its body are not; classes are not compared, as threads alternate theirs:
    with equal classes but for numbers, nonarticle-dev with the posts step off kept 21 of 317
    posts each in a unit of their own, with equal tags 92)."""
    a, b = capture.nodes[first], capture.nodes[second]
    return a.tag == b.tag


class _AsideTexts:
    """Each record's text that does not reach the detector (not in a kept segment's main text),
    outside headings, pictures and code; computed once per record."""

    def __init__(self, capture: PageCapture, written: set[int]) -> None:
        self.capture = capture
        self.written = written
        self.known: dict[int, str] = {}

    def of(self, record: int) -> str:
        if record not in self.known:
            self.known[record] = self._text(record)
        return self.known[record]

    def _text(self, record: int) -> str:
        nodes = self.capture.nodes
        if nodes[record].tag in PART_TAGS:
            return ""
        parts = []
        skipped: set[int] = set()
        for node_id in self.capture.descendants(record):
            node = nodes[node_id]
            if node.parent in skipped or node.tag in PART_TAGS:
                skipped.add(node_id)
            elif node.tag == TEXT_TAG and node_id not in self.written and node.text.strip():
                parts.append(node.text.strip())
        return " ".join(parts)
