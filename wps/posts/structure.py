"""Records by structure: posts that no class name reveals (MDR, Liu, Grossman and Zhai, KDD 2003;
DEPTA, Zhai and Liu, WWW 2005).

Data records are adjacent siblings of one parent, of one tag and of a similar subtree. MDR compares
the subtrees by tree edit distance; here a subtree is summarised, as DEPTA aligns records, by the
set of block paths that lead from it to its text (``DIV/DIV/P``: tags from the record down to the
block that holds the text, inline tags skipped), and two siblings are alike when these sets
overlap (Jaccard). Block paths ignore how many paragraphs a body has, which is what varies most
between two posts of one thread.

The records of a repeated group are posts when they hold prose plus short chrome: the path with
the most words over the group is the body (its text, as in DEPTA's data alignment, varies from
record to record), the rest of each record is chrome (author, date, buttons); the bodies hold most
of the words, at least one holds a sentence, and few of their words are links. Groups that are
not posts:

- a **listing** (:func:`is_listing`): a board index's rows, a list of teasers or search results,
  whose records open with a title (a link or a heading) and hold a line or two of text each, with
  counts beside them; the same test applies to groups found by name (vBulletin calls its forum
  rows ``forumbit_post``);
- **sections** of an article, each opening with a heading;
- paragraphs, menus, tables of numbers: one block per record, links, or no sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model import PageCapture
from ..page.tree import chain_below
from ..segmenters.geometry import INLINE_TAGS
from ..text.sentences import sentence_share, word_count

MIN_GROUP = 2
"""Records a group needs (a thread of two posts is a thread)."""
MIN_SIMILARITY = 0.4
"""Jaccard overlap of two adjacent siblings' block paths for them to be records of one group."""
MIN_MEMBER_WORDS = 3
MAX_PATH_DEPTH = 6
"""Block paths are cut this deep below the record (a body's own nesting is not its structure)."""
MIN_BODY_SHARE = 0.5
"""The bodies hold at least this share of the group's words: prose plus *short* chrome."""
MAX_CHROME_WORDS = 40
"""Median words of a record's chrome (author box, date, buttons) at most."""
MIN_CHROME_SHARE = 2 / 3
"""Share of the records with chrome beside the body: a record has two parts, a paragraph one."""
MAX_BODY_LINK_SHARE = 0.3
HEADING_TAGS = frozenset({"H1", "H2", "H3", "H4", "H5", "H6"})
MAX_LISTING_TEXT_WORDS = 25
"""A listing's record holds a line of text outside its links (a board's description) at most:
the median record (and every record at most twice this)."""
MIN_TITLED_SHARE = 2 / 3
"""Share of a listing's records that open with a title (a link or a heading)."""
MIN_COUNTED_SHARE = 1 / 2
"""Share of a listing's records with a count: a number alone or after a short label (topics,
posts, views: ``1,234``, ``Posts: 1312``)."""
MAX_COUNT_LABEL_WORDS = 2
_COUNT = re.compile(r"^\d[\d.,\u00a0\u202f']*[kKmM]?$")


@dataclass(slots=True)
class RecordGroup:
    """Records found by structure: ``members`` (element ids, in document order) and the text
    nodes of their chrome (outside each member's body, without a sentence)."""

    members: list[int]
    chrome: list[int]


@dataclass(slots=True)
class _Member:
    node: int
    texts: list[tuple[int, tuple[str, ...], int]]
    """Text nodes below the member: id, block path, words."""

    @property
    def paths(self) -> frozenset[tuple[str, ...]]:
        return frozenset(path for _, path, _ in self.texts)


def structural_groups(page: PageCapture, words: np.ndarray, named: np.ndarray,
                      ) -> list[RecordGroup]:
    """Groups of unnamed records that are posts; ``words``: words under each node; ``named``: per
    node, whether it is in, or holds, a record found by name (those are left as they are)."""
    texts_below = _text_counts(page)
    groups: list[RecordGroup] = []
    taken = np.zeros(len(page.nodes), dtype=bool)
    for node in page.nodes:
        if node.is_text:
            continue
        if node.parent is not None and taken[node.parent]:
            taken[node.id] = True
            continue
        for run in _runs(page, node.id, words, texts_below, named):
            group = _posts_group(page, run)
            if group is not None:
                groups.append(group)
                taken[group.members] = True
    return groups


def _text_counts(page: PageCapture) -> np.ndarray:
    counts = np.array([node.is_text and bool(node.text.strip()) for node in page.nodes],
                      dtype=np.int64)
    for node in reversed(page.nodes):
        if node.parent is not None:
            counts[node.parent] += counts[node.id]
    return counts


def _runs(page: PageCapture, parent: int, words: np.ndarray, texts_below: np.ndarray,
          named: np.ndarray) -> list[list[_Member]]:
    """Runs of adjacent, alike element children of ``parent`` (children without text between
    them do not break a run: separators, spacers)."""
    runs: list[list[_Member]] = []
    current: list[_Member] = []
    for child in page.children(parent):
        node = page.nodes[child]
        if node.is_text:
            if node.text.strip():
                runs.append(current)
                current = []
            continue
        if words[child] == 0:
            continue
        if named[child] or words[child] < MIN_MEMBER_WORDS or texts_below[child] < 2:
            runs.append(current)
            current = []
            continue
        member = _Member(child, _block_texts(page, child))
        if current and not (page.nodes[current[-1].node].tag == node.tag
                            and _jaccard(current[-1].paths, member.paths) >= MIN_SIMILARITY):
            runs.append(current)
            current = []
        current.append(member)
    runs.append(current)
    return [run for run in runs if len(run) >= MIN_GROUP]


def _block_texts(page: PageCapture, member: int) -> list[tuple[int, tuple[str, ...], int]]:
    """The text nodes under ``member`` with their block paths (document order)."""
    out = []
    stack: list[tuple[int, tuple[str, ...]]] = [(child, ()) for child in
                                                reversed(page.children(member))]
    while stack:
        node_id, path = stack.pop()
        node = page.nodes[node_id]
        if node.is_text:
            if node.text.strip():
                out.append((node_id, path, word_count(node.text)))
            continue
        if node.tag not in INLINE_TAGS and len(path) < MAX_PATH_DEPTH:
            path = (*path, node.tag)
        stack.extend((child, path) for child in reversed(page.children(node_id)))
    return out


def _jaccard(first: frozenset, second: frozenset) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def _posts_group(page: PageCapture, run: list[_Member]) -> RecordGroup | None:
    """The run as a group of posts, or ``None`` when its records are not posts."""
    totals: dict[tuple[str, ...], int] = {}
    for member in run:
        for _, path, count in member.texts:
            totals[path] = totals.get(path, 0) + count
    body_path = max(totals, key=totals.__getitem__)
    body_words = link_words = 0
    chrome: list[int] = []
    chrome_words: list[int] = []
    body_texts: list[str] = []
    for member in run:
        in_body = _body_texts(page, member, body_path)
        words = 0
        text = []
        for node_id, _, count in member.texts:
            if node_id in in_body:
                text.append(page.nodes[node_id].text)
                body_words += count
                link_words += count if "link" in page.nodes[node_id].inside else 0
            else:
                words += count
                if not sentence_share(page.nodes[node_id].text):
                    chrome.append(node_id)
        chrome_words.append(words)
        body_texts.append(" ".join(text))
    all_words = body_words + sum(chrome_words)
    if (body_words < MIN_BODY_SHARE * all_words
            or sum(count > 0 for count in chrome_words) < MIN_CHROME_SHARE * len(run)
            or float(np.median(chrome_words)) > MAX_CHROME_WORDS
            or link_words > MAX_BODY_LINK_SHARE * body_words
            or not any(sentence_share(text) > 0 for text in body_texts)):
        return None
    members = [member.node for member in run]
    if sum(_opens_with_heading(page, member) for member in members) >= \
            MIN_TITLED_SHARE * len(members):
        return None  # an article's sections, or teasers under their headlines
    if is_listing(page, members):
        return None
    return RecordGroup(members, chrome)


def _body_texts(page: PageCapture, member: _Member, body_path: tuple[str, ...]) -> set[int]:
    """The member's body text nodes: all below the lowest element that holds the texts on the
    body path, or (when that is the member itself) those on the path."""
    on_path = [node_id for node_id, path, _ in member.texts if path == body_path]
    chains = [chain_below(page, node_id, member.node)[:-1] for node_id in on_path]
    body = member.node
    for level in zip(*chains):
        if any(step != level[0] for step in level):
            break
        body = level[0]
    if body == member.node:
        return set(on_path)
    return {node_id for node_id in page.descendants(body) if page.nodes[node_id].is_text}



def _first_text(page: PageCapture, member: int) -> int | None:
    return next((node_id for node_id in page.descendants(member)
                 if page.nodes[node_id].is_text and page.nodes[node_id].text.strip()), None)


def _opens_with_heading(page: PageCapture, member: int) -> bool:
    first = _first_text(page, member)
    return first is not None and _under_heading(page, first, member)


def _under_heading(page: PageCapture, node_id: int, stop: int) -> bool:
    parent = page.nodes[node_id].parent
    while parent is not None and parent != stop:
        if page.nodes[parent].tag in HEADING_TAGS:
            return True
        parent = page.nodes[parent].parent
    return page.nodes[stop].tag in HEADING_TAGS


def _is_count(text: str) -> bool:
    """A number alone, or after a label of a word or two (``Posts: 1,312``)."""
    words = text.split()
    return (0 < len(words) <= MAX_COUNT_LABEL_WORDS + 1 and bool(_COUNT.match(words[-1]))
            and not any(_COUNT.match(word) for word in words[:-1]))


def is_listing(page: PageCapture, members: list[int]) -> bool:
    """Records of a listing, not posts: most open with a title (a link or a heading), hold a
    line of text outside their links at most, and many show a count (a number on its own: a
    board's topics and posts, a story's comments)."""
    titled = counted = 0
    loose: list[int] = []
    for member in members:
        texts = [node_id for node_id in page.descendants(member)
                 if page.nodes[node_id].is_text and page.nodes[node_id].text.strip()]
        if not texts:
            continue
        first = page.nodes[texts[0]]
        titled += "link" in first.inside or _under_heading(page, texts[0], member)
        counted += any(_is_count(page.nodes[node_id].text) for node_id in texts)
        loose.append(sum(word_count(page.nodes[node_id].text) for node_id in texts
                         if "link" not in page.nodes[node_id].inside))
    return (len(loose) >= MIN_GROUP and titled >= MIN_TITLED_SHARE * len(members)
            and counted >= MIN_COUNTED_SHARE * len(members)
            and float(np.median(loose)) <= MAX_LISTING_TEXT_WORDS
            and max(loose) <= 2 * MAX_LISTING_TEXT_WORDS)
