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

from ..model import TEXT_TAG, Node, PageCapture
from ..page.reading import INLINE_TAGS
from ..page.tree import chain_below
from ..text.sentences import sentence_share, word_count

MIN_GROUP = 3
"""Records a group of unnamed siblings needs: two alike boxes are as often a pair of dialogs or
calls to action as a thread (named and declared posts need two)."""
MIN_LISTING = 2
"""Records a listing needs."""
MIN_SIMILARITY = 0.3
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
MIN_LONGEST_BODY_WORDS = 20
"""The longest body of a group of posts has this many words at least (a row of one-line boxes
is calls to action or notices, not a thread)."""
MIN_BODY_CHILD_SHARE = 0.75
MAX_BODY_LIST_SHARE = 0.5
LIST_TAGS = frozenset({"TABLE", "UL", "OL", "DL"})
"""A body mostly in short texts of a table or list of its own record is a tab of fields, not a
post; sentences in a table are a post laid out by one (phpBB 2 puts each message in a table of
its own)."""
MIN_BODY_SENTENCE_SHARE = 0.4
"""Share of the bodies' words in texts that may hold a sentence: posts are written in
sentences, a tab of tables or a list of short fields is not."""
HEADING_TAGS = frozenset({"H1", "H2", "H3", "H4", "H5", "H6"})
FIGURE_TAGS = frozenset({"FIGURE", "FIGCAPTION"})
"""A picture's caption beside a record's body is no chrome: sections of an article each with
an illustration and its credit are alike records with a short part beside the body, as posts
are, but a post's second part is its author, date and buttons."""
MAX_LISTING_TEXT_WORDS = 25
"""A listing's record holds a line of text outside its links (a board's description) at most:
the median record (and every record at most twice this)."""
MIN_HEADLINE_WORDS = 4
MAX_HEADLINE_NUMBER_SHARE = 0.25
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


def structural_groups(page: PageCapture, totals: SubtreeTotals, named: np.ndarray,
                      ) -> list[RecordGroup]:
    """Groups of unnamed records that are posts; ``totals``: :meth:`SubtreeTotals.of` the page;
    ``named``: per node, whether it is in, or holds, a record found by name (those are left as
    they are)."""
    words = totals.words
    eligible = ((totals.texts >= 2) & (words >= MIN_MEMBER_WORDS) & (words <= MAX_MEMBER_WORDS)
                & ~named & totals.member_tag & (totals.controls == 0))
    parents = totals.parent[eligible]
    counts = np.bincount(parents[parents >= 0], minlength=len(page.nodes))
    groups: list[RecordGroup] = []
    taken: set[int] = set()
    for parent in np.flatnonzero(counts >= MIN_GROUP).tolist():  # document order
        if taken and _innermost(page, parent, taken) >= 0:
            continue
        for run in _runs(page, parent, eligible, totals):
            group = _posts_group(page, run, totals)
            if group is not None:
                groups.append(group)
                taken.update(group.members)
    return groups



MIN_SENTENCE_WORDS = 8
"""Words of a sentence at least; also of the median body of a group of posts (a list of short
questions with their answer counts is a listing)."""
MAX_RUN_LINK_SHARE = 0.6
"""A run of siblings with more of its words in links is a menu or a listing (quick test)."""
MIN_RUN_SENTENCE_SHARE = 0.15
"""A run of posts has at least this share of its words in texts that may hold a sentence (a
table of short cells, a menu, a product grid have none)."""
PHRASING_TAGS = frozenset({"P", "H1", "H2", "H3", "H4", "H5", "H6", "PRE", "ADDRESS"})
"""Elements that hold only phrasing content: paragraphs, never posts with chrome."""
CONTROL_TAGS = frozenset({"INPUT", "SELECT", "TEXTAREA"})
CHROME_CONTEXTS = frozenset({"nav", "header", "footer"})
"""Records inside the page's navigation, header or footer are its chrome (comment lists may
stand in an ``aside``)."""
MAX_MEMBER_WORDS = 5000
"""A record longer than this is a page column, not a post."""


@dataclass(slots=True)
class SubtreeTotals:
    """Per node, over its subtree: words, text nodes, words in links, words in text nodes that
    may hold a sentence (8+ words and a full stop, question or exclamation mark) and form
    controls: what rules a run of siblings out before its subtrees are walked. Sums go up one
    level per pass over all nodes at once (``numpy.bincount``), not node by node."""

    words: np.ndarray
    parent: np.ndarray
    texts: np.ndarray
    link_words: np.ndarray
    sentence_words: np.ndarray
    controls: np.ndarray
    """Form controls (a form's fields are not posts)."""
    member_tag: np.ndarray
    """An element that may be a record: not text, not a paragraph, not in the page's chrome."""

    @classmethod
    def of(cls, page: PageCapture) -> SubtreeTotals:
        nodes, size = page.nodes, len(page.nodes)
        parent = np.fromiter((-1 if node.parent is None else node.parent for node in nodes),
                             dtype=np.int64, count=size)
        texts = [node.id for node in nodes if node.tag == TEXT_TAG and node.text.strip()]
        counts = [len(nodes[node_id].text.split()) for node_id in texts]
        own = np.zeros((5, size), dtype=np.float64)  # words, texts, links, sentences, controls
        own[0, texts] = counts
        own[1, texts] = 1
        own[2, texts] = [count if "link" in nodes[node_id].inside else 0
                         for node_id, count in zip(texts, counts)]
        own[3, texts] = [count if count >= MIN_SENTENCE_WORDS
                         and _STOP.search(nodes[node_id].text) else 0
                         for node_id, count in zip(texts, counts)]
        own[4, [node.id for node in nodes if node.tag in CONTROL_TAGS]] = 1
        member_tag = np.fromiter(
            (node.tag != TEXT_TAG and node.tag not in PHRASING_TAGS
             and node.tag not in CONTROL_TAGS and CHROME_CONTEXTS.isdisjoint(node.inside)
             for node in nodes), dtype=bool, count=size)
        totals = own.copy()
        active = np.flatnonzero(own.any(axis=0))
        values = own[:, active]
        while active.size:  # one level up per pass, over the nodes that carry sums only
            above = parent[active]
            keep = above >= 0
            active, where = np.unique(above[keep], return_inverse=True)
            values = np.stack([np.bincount(where, weights=row[keep], minlength=active.size)
                               for row in values])
            totals[:, active] += values
        whole = totals.astype(np.int64)
        return cls(whole[0], parent, whole[1], whole[2], whole[3], whole[4], member_tag)


_STOP = re.compile(r"[.!?。！？]")


def _may_be_sentence(text: str, words: int) -> bool:
    """A text that may hold a sentence: 8+ words and a full stop, question or exclamation mark
    (a quick test; :func:`sentence_share` is the real one)."""
    return words >= MIN_SENTENCE_WORDS and bool(_STOP.search(text))


def _runs(page: PageCapture, parent: int, eligible: np.ndarray, totals: SubtreeTotals,
          ) -> list[list[_Member]]:
    """Runs of adjacent, alike element children of ``parent`` (children without text between
    them do not break a run: separators, spacers)."""
    runs: list[list[_Member]] = []
    for tag_run in _tag_runs(page, parent, eligible, totals):
        run_words = sum(int(totals.words[child]) for child in tag_run)
        if (int(totals.sentence_words[tag_run].sum()) < MIN_RUN_SENTENCE_SHARE * run_words
                or int(totals.link_words[tag_run].sum()) > MAX_RUN_LINK_SHARE * run_words):
            continue
        current: list[_Member] = []
        for child in tag_run:
            member = _Member(child, _block_texts(page, child))
            if current and _jaccard(current[-1].paths, member.paths) < MIN_SIMILARITY:
                runs.append(current)
                current = []
            current.append(member)
        runs.append(current)
    return [run for run in runs if len(run) >= MIN_GROUP]


def _tag_runs(page: PageCapture, parent: int, eligible: np.ndarray, totals: SubtreeTotals,
              ) -> list[list[int]]:
    """Runs of adjacent eligible element children of one tag."""
    runs: list[list[int]] = []
    current: list[int] = []
    for child in page.children(parent):
        if not totals.texts[child]:
            continue  # separators and spacers do not break a run
        member = bool(eligible[child])
        if not member or current and page.nodes[current[-1]].tag != page.nodes[child].tag:
            runs.append(current)
            current = []
        if member:
            current.append(child)
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
        if not _inline(node) and len(path) < MAX_PATH_DEPTH:
            path = (*path, node.tag)
        stack.extend((child, path) for child in reversed(page.children(node_id)))
    return out


def _inline(node: Node) -> bool:
    """An element that flows inside a line: by its computed display, else by its tag."""
    display = node.style.get("display")
    return display == "inline" if display else node.tag in INLINE_TAGS


def _jaccard(first: frozenset, second: frozenset) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def _posts_group(page: PageCapture, run: list[_Member], totals: SubtreeTotals,
                 ) -> RecordGroup | None:
    """The run as a group of posts (with the replies nested in them), or ``None`` when its
    records are not posts."""
    path_words: dict[tuple[str, ...], int] = {}
    for member in run:
        for _, path, count in member.texts:
            path_words[path] = path_words.get(path, 0) + count
    body_path = max(path_words, key=path_words.__getitem__)
    body_words = link_words = titled = sentence_words = listed_words = 0
    chrome_words: list[int] = []
    body_texts: list[str] = []
    chrome_texts: list[list[str]] = []
    member_body_words: list[int] = []
    for member in run:
        in_body = _body_texts(page, member, body_path)
        words = 0
        text: list[str] = []
        chrome_texts.append([])
        for node_id, path, count in member.texts:
            if node_id in in_body:
                text.append(page.nodes[node_id].text)
                body_words += count
                sentence_words += count if _may_be_sentence(page.nodes[node_id].text, count) else 0
                listed_words += (count if LIST_TAGS.intersection(path)
                                 and not _may_be_sentence(page.nodes[node_id].text, count) else 0)
                link_words += count if "link" in page.nodes[node_id].inside else 0
            elif not _under(page, node_id, member.node, FIGURE_TAGS):
                words += count
                chrome_texts[-1].append(page.nodes[node_id].text)
        titled += _titled(page, member, in_body)
        member_body_words.append(sum(count for node_id, _, count in member.texts
                                     if node_id in in_body))
        chrome_words.append(words)
        body_texts.append(" ".join(text))
    all_words = body_words + sum(chrome_words)
    if (body_words < MIN_BODY_SHARE * all_words
            or sum(count > 0 for count in chrome_words) < MIN_CHROME_SHARE * len(run)
            or float(np.median(chrome_words)) > MAX_CHROME_WORDS
            or link_words > MAX_BODY_LINK_SHARE * body_words
            or sentence_words < MIN_BODY_SENTENCE_SHARE * body_words
            or listed_words > MAX_BODY_LIST_SHARE * body_words
            or float(np.median(member_body_words)) < MIN_SENTENCE_WORDS
            or max(member_body_words) < MIN_LONGEST_BODY_WORDS
            or not any(sentence_share(text) > 0 for text in body_texts)
            or titled >= MIN_TITLED_SHARE * len(run)  # sections, teasers under headlines
            or _numbered_steps(chrome_texts)):
        return None
    members = [member.node for member in run]
    if is_listing(page, members, totals):
        return None
    records = [*run, *_replies(page, run, body_path)]
    nested = {record.node for record in records}
    chrome = []
    for record in records:
        in_body = _body_texts(page, record, body_path)
        chrome.extend(node_id for node_id, _, _ in record.texts
                      if node_id not in in_body and not sentence_share(page.nodes[node_id].text)
                      and _innermost(page, node_id, nested) == record.node)
    return RecordGroup(sorted(nested), chrome)


def _replies(page: PageCapture, run: list[_Member], body_path: tuple[str, ...],
             ) -> list[_Member]:
    """Elements nested in the records, of their tag, alike, outside their bodies and with a
    body of their own on the body path: replies (a threaded comment list nests each reply in
    the comment it answers, after its body)."""
    tag = page.nodes[run[0].node].tag
    paths = frozenset().union(*(member.paths for member in run))
    replies = []
    for member in run:
        body = _body_texts(page, member, body_path)
        for node_id in page.descendants(member.node):
            if page.nodes[node_id].tag != tag:
                continue
            reply = _Member(node_id, _block_texts(page, node_id))
            own = {text for text, path, _ in reply.texts if path == body_path}
            if (len(reply.texts) >= 2 and own and not own & body
                    and _jaccard(reply.paths, paths) >= MIN_SIMILARITY):
                replies.append(reply)
    return replies


def _innermost(page: PageCapture, node_id: int, records: set[int]) -> int:
    """The innermost of ``records`` that holds ``node_id`` (-1: none)."""
    current: int | None = node_id
    while current is not None:
        if current in records:
            return current
        current = page.nodes[current].parent
    return -1


def _titled(page: PageCapture, member: _Member, body: set[int]) -> bool:
    """A title before the body: text in a heading, or a headline link (four words or more,
    few of them numbers: not an author's name, not a date)."""
    for node_id, _, count in member.texts:
        if node_id in body:
            return False
        node = page.nodes[node_id]
        if _under_heading(page, node_id, member.node) or (
                "link" in node.inside and count >= MIN_HEADLINE_WORDS
                and sum(any(ch.isdigit() for ch in word) for word in node.text.split())
                <= MAX_HEADLINE_NUMBER_SHARE * count):
            return True
    return False


def _numbered_steps(chrome_texts: list[list[str]]) -> bool:
    """Most records (:data:`MIN_TITLED_SHARE`) have no text beside their body (and pictures)
    but one label and their ordinal, counting up by one (``Step 1``, ``Step 2``, …;
    ``Schritt 3``, ``Schritt 4``, …): the steps or parts of one text, in order, not posts (a
    last one may be titled otherwise: "Finished"). A post's counter (``#12``, ``Reply 3``)
    stands beside its author and date."""
    labels, numbers = set(), []
    for texts in chrome_texts:
        found = _ORDINAL.match(" ".join(texts).strip()) if len(texts) == 1 else None
        if found is not None:
            labels.add(found.group(1).casefold())
            numbers.append(int(found.group(2)))
    return (bool(numbers) and len(numbers) >= MIN_TITLED_SHARE * len(chrome_texts)
            and len(labels) == 1
            and numbers == list(range(numbers[0], numbers[0] + len(numbers))))


_ORDINAL = re.compile(r"^([^\W\d_]+(?: [^\W\d_]+)?)\s+(\d{1,3})\s*[:.)]?$")
"""A label of one or two words (letters of any script), a space, a number: ``Step 3``,
``Part 2.`` (not a name with digits: ``rider2``)."""


def _body_texts(page: PageCapture, member: _Member, body_path: tuple[str, ...]) -> set[int]:
    """The member's body text nodes: all below the lowest element that holds the texts on the
    body path (within the member's child that holds most of their words, when one holds
    :data:`MIN_BODY_CHILD_SHARE` of them: an author box and a body box of one tag), or (when
    that is the member itself) those on the path."""
    on_path = [(node_id, count) for node_id, path, count in member.texts if path == body_path]
    chains = [chain_below(page, node_id, member.node)[:-1] for node_id, _ in on_path]
    by_child: dict[int, int] = {}
    for chain, (_, count) in zip(chains, on_path):
        if chain:
            by_child[chain[0]] = by_child.get(chain[0], 0) + count
    if by_child:
        child = max(by_child, key=by_child.__getitem__)
        if by_child[child] >= MIN_BODY_CHILD_SHARE * sum(count for _, count in on_path):
            chains = [chain for chain in chains if chain and chain[0] == child]
    body = member.node
    for level in zip(*chains):
        if any(step != level[0] for step in level):
            break
        body = level[0]
    if body == member.node:
        return {node_id for node_id, _ in on_path}
    return {node_id for node_id in page.descendants(body) if page.nodes[node_id].is_text}


def _under_heading(page: PageCapture, node_id: int, stop: int) -> bool:
    return _under(page, node_id, stop, HEADING_TAGS)


def _under(page: PageCapture, node_id: int, stop: int, tags: frozenset[str]) -> bool:
    """An element of ``tags`` holds the node, up to and with ``stop``."""
    parent = page.nodes[node_id].parent
    while parent is not None and parent != stop:
        if page.nodes[parent].tag in tags:
            return True
        parent = page.nodes[parent].parent
    return page.nodes[stop].tag in tags


def _is_count(text: str) -> bool:
    """A number alone, or after a label of a word or two (``Posts: 1,312``)."""
    words = text.split()
    return (0 < len(words) <= MAX_COUNT_LABEL_WORDS + 1 and bool(_COUNT.match(words[-1]))
            and not any(_COUNT.match(word) for word in words[:-1]))


def is_listing(page: PageCapture, members: list[int], totals: SubtreeTotals) -> bool:
    """Records of a listing, not posts: most open with a title (a link or a heading), hold a
    line of text outside their links at most, and many show a count (a number on its own: a
    board's topics and posts, a story's comments)."""
    outside_links = totals.words[members] - totals.link_words[members]
    if (len(members) < MIN_LISTING or float(np.median(outside_links)) > MAX_LISTING_TEXT_WORDS
            or outside_links.max() > 2 * MAX_LISTING_TEXT_WORDS):
        return False  # (as counted by spaces: a quick test before the subtrees are walked)
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
    return (len(loose) >= MIN_LISTING and titled >= MIN_TITLED_SHARE * len(members)
            and counted >= MIN_COUNTED_SHARE * len(members)
            and float(np.median(loose)) <= MAX_LISTING_TEXT_WORDS
            and max(loose) <= 2 * MAX_LISTING_TEXT_WORDS)
