"""Align extracted main-text blocks back onto the capture's text nodes, by text.

Both sides are normalised the same way (NFKC, casefold, quotes and dashes unified, whitespace and
invisible characters removed); the page side keeps a map from each compact character to its text
node and offset. Each block is then found exactly from a moving cursor, exactly from the start
(blocks may come out of order), by its first and last 40 characters (long blocks with small
changes inside), or fuzzily with rapidfuzz in a window after the cursor (text-and-filters.md §1).
Blocks found nowhere are reported, never dropped silently.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import numpy as np

from ..model import PageCapture
from .extract import MainBlock, MainText

__all__ = ["TextStream", "BlockMatch", "Alignment", "build_text_stream", "normalise",
           "normalise_all", "align_main_text"]

ANCHOR_CHARS = 40
FUZZY_CUTOFF = 88.0
FUZZY_MAX_BLOCK = 2000
"""Longer blocks are only anchored: partial_ratio grows with block × window length."""

_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_UNIFY = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-",
})
_DROPPED = np.array(
    sorted({ord(c) for c in _INVISIBLE} | {c for c in range(0x3000 + 1) if chr(c).isspace()}),
    dtype=np.uint32,
)
_LIMIT = int(max(_DROPPED.max(), *_UNIFY)) + 1
"""Code points at or above this are neither unified nor dropped."""
_UNIFIED = np.arange(_LIMIT, dtype=np.uint32)
"""``_UNIFY`` as a table over code points below ``_LIMIT``: one numpy lookup per text, where
``str.translate`` with a dict looks up every character in Python's slow path."""
_UNIFIED[list(_UNIFY)] = [ord(target) for target in _UNIFY.values()]
_KEPT = np.ones(_LIMIT, dtype=bool)
_KEPT[_DROPPED] = False


@dataclass(slots=True)
class TextStream:
    """The page's text nodes as one compact normalised string with a map back to the nodes."""

    node_ids: np.ndarray
    """Text node ids in document order."""
    texts: list[str]
    """Their raw texts."""
    compact: str
    """Normalised text of all nodes, no whitespace."""
    owner: np.ndarray
    """For each compact character, the position (in ``node_ids``) of its text node."""
    offset: np.ndarray
    """For each compact character, its offset in that node's raw text."""


@dataclass(slots=True)
class BlockMatch:
    """Where one extracted block was found in the compact page text."""

    block: MainBlock
    match: str
    """``"exact"``, ``"anchor"``, ``"fuzzy"`` or ``"none"``."""
    score: float
    start: int = -1
    end: int = -1


@dataclass(slots=True)
class Alignment:
    """Every block's match plus the compact characters covered by main text."""

    stream: TextStream
    matches: list[BlockMatch] = field(default_factory=list)
    covered: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    space_known: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Compact characters whose preceding whitespace is known from an exact block match."""
    space_before: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Whether the extracted text has whitespace right before the compact character; text nodes
    are captured trimmed, so this is how ``new <b>budget</b>`` keeps its space."""

    @property
    def unaligned(self) -> list[MainBlock]:
        return [m.block for m in self.matches if m.match == "none"]

    def node_spans(self) -> dict[int, list[tuple[int, int, int]]]:
        """For each text node with main text, its covered ``(start, end)`` raw-text spans and
        the compact index of each span's first character."""
        spans: dict[int, list[tuple[int, int, int]]] = {}
        covered = self.covered
        if not covered.any():
            return spans
        stream = self.stream
        index = np.flatnonzero(covered)
        owner = stream.owner[index]
        offset = stream.offset[index]
        # A run breaks where the node changes or covered characters are not consecutive.
        breaks = np.flatnonzero((np.diff(index) != 1) | (np.diff(owner) != 0)) + 1
        starts = np.concatenate(([0], breaks))
        ends = np.concatenate((breaks, [len(index)])) - 1
        for first, last in zip(starts.tolist(), ends.tolist()):
            node = int(stream.node_ids[owner[first]])
            spans.setdefault(node, []).append((int(offset[first]), int(offset[last]) + 1,
                                               int(index[first])))
        return spans


def normalise(text: str) -> tuple[str, np.ndarray]:
    """``text`` normalised for alignment, and each kept character's offset in ``text``.

    Every character is mapped on its own (NFKC, then casefolded), as one ``str.translate`` over
    the text's distinct characters; a character that maps to several (``ß`` to ``ss``) gives
    each of them its offset."""
    mapped = {char: folded for char in set(text)
              if (folded := unicodedata.normalize("NFKC", char).casefold()) != char}
    sources = np.arange(len(text), dtype=np.int64)
    if mapped:
        longer = {char: folded for char, folded in mapped.items() if len(folded) != 1}
        if longer:
            codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
            lengths = np.ones(len(text), dtype=np.int64)
            for char, folded in longer.items():
                lengths[codes == ord(char)] = len(folded)
            sources = np.repeat(sources, lengths)
        text = text.translate(str.maketrans(mapped))
    return _compact(text, sources)


def normalise_all(texts: list[str]) -> list[tuple[str, np.ndarray]]:
    """:func:`normalise` of each of ``texts``, in one pass over them all (a page's blocks)."""
    if not texts:
        return []
    compact, sources = normalise("\n".join(texts))  # the line breaks are dropped as whitespace
    starts = np.cumsum([0] + [len(text) + 1 for text in texts])
    bounds = np.searchsorted(sources, starts[:-1], side="left").tolist() + [len(compact)]
    return [(compact[bounds[i]:bounds[i + 1]], sources[bounds[i]:bounds[i + 1]] - starts[i])
            for i in range(len(texts))]


def _compact(text: str, sources: np.ndarray) -> tuple[str, np.ndarray]:
    """``text`` with quotes and dashes unified and whitespace and invisible characters dropped,
    and the ``sources`` of the characters kept."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    below = codes < _LIMIT
    unified = _UNIFIED[np.where(below, codes, 0)]
    codes = np.where(below, unified, codes)
    keep = ~below | _KEPT[unified]
    return codes[keep].tobytes().decode("utf-32-le"), sources[keep]


def build_text_stream(capture: PageCapture) -> TextStream:
    """The compact text of all non-blank text nodes in document order."""
    text_nodes = [node for node in capture.nodes if node.is_text and node.text.strip()]
    texts = [node.text for node in text_nodes]
    starts = np.cumsum([0] + [len(text) for text in texts])
    compact, sources = normalise("".join(texts))
    owner = np.searchsorted(starts, sources, side="right") - 1
    return TextStream(
        node_ids=np.asarray([node.id for node in text_nodes], dtype=np.int64),
        texts=texts,
        compact=compact,
        owner=owner.astype(np.int64),
        offset=(sources - starts[owner]).astype(np.int64),
    )


def align_main_text(capture: PageCapture, main_text: MainText,
                    stream: TextStream | None = None) -> Alignment:
    """Find every block of ``main_text`` in the capture's text nodes."""
    stream = stream if stream is not None else build_text_stream(capture)
    page = stream.compact
    covered = np.zeros(len(page), dtype=bool)
    alignment = Alignment(stream=stream, covered=covered,
                          space_known=np.zeros(len(page), dtype=bool),
                          space_before=np.zeros(len(page), dtype=bool))
    cursor = 0
    for block, (needle, offsets) in zip(main_text.blocks,
                                        normalise_all([block.text for block in main_text.blocks])):
        found = _locate(needle, page, cursor) if needle else BlockMatch(block, "none", 0.0)
        found.block = block
        alignment.matches.append(found)
        if found.match != "none":
            covered[found.start:found.end] = True
            cursor = found.end
        if found.match == "exact":
            _record_spaces(alignment, block.text, offsets, found.start)
    return alignment


def _record_spaces(alignment: Alignment, text: str, offsets: np.ndarray, start: int) -> None:
    """Mark which characters of an exactly matched block follow whitespace in the block."""
    end = start + len(offsets)
    alignment.space_known[start:end] = True
    alignment.space_before[start] = True
    gaps = np.flatnonzero(np.diff(offsets) > 1) + 1
    if not len(gaps):
        return
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    spaces = np.concatenate(([0], np.cumsum(_SPACE[np.minimum(codes, _SPACE_LIMIT)])))
    # whitespace among the characters the normalisation dropped between two kept ones
    spaced = spaces[offsets[gaps]] > spaces[offsets[gaps - 1] + 1]
    alignment.space_before[start + gaps[spaced]] = True


_SPACE_LIMIT = 0x3001
_SPACE = np.array([chr(code).isspace() for code in range(_SPACE_LIMIT)] + [False], dtype=np.int64)
"""``str.isspace`` over code points (none above U+3000 is whitespace; the last entry stands
for all of them)."""


def _locate(needle: str, page: str, cursor: int) -> BlockMatch:
    placeholder = MainBlock("main", "p", "")
    start = page.find(needle, cursor)
    if start < 0:
        start = page.find(needle)
    if start >= 0:
        return BlockMatch(placeholder, "exact", 100.0, start, start + len(needle))
    if len(needle) >= 3 * ANCHOR_CHARS:
        span = _anchor(needle, page, cursor)
        if span is not None:
            return BlockMatch(placeholder, "anchor", 100.0, *span)
    if len(needle) <= FUZZY_MAX_BLOCK and len(needle) >= 12:
        from rapidfuzz import fuzz

        near = (max(0, cursor - len(needle)), min(len(page), cursor + 3 * len(needle) + 400))
        windows = [near]
        if near != (0, len(page)) and len(page) <= 50 * len(needle) + 4000:
            windows.append((0, len(page)))  # whole page, unless far too long for the block
        for low, high in windows:
            result = fuzz.partial_ratio_alignment(needle, page[low:high],
                                                  score_cutoff=FUZZY_CUTOFF)
            if result is not None:
                start, end = _fit_ends(needle, page, low + result.dest_start,
                                       low + result.dest_end)
                return BlockMatch(placeholder, "fuzzy", float(result.score), start, end)
    return BlockMatch(placeholder, "none", 0.0)


FIT_CHARS = 12
"""Characters of a fuzzily found block's start and end looked for around the match's ends."""


def _fit_ends(needle: str, page: str, start: int, end: int) -> tuple[int, int]:
    """The fuzzy span ``[start, end)`` moved to where the block's first and last
    :data:`FIT_CHARS` characters stand nearby.

    rapidfuzz's partial match is a window as long as the block, so where the page holds more
    than the block (an extractor that dropped inline code: "These are , and .") the window
    falls short at one end or both, and the article's first and last words would go to no
    segment. Each end moves only to an exact occurrence of the block's own end within the
    slack the match's score allows; otherwise it stays.
    """
    width = min(FIT_CHARS, len(needle) // 4)
    slack = len(needle) // 4 + FIT_CHARS
    fitted_start = _nearest(page, needle[:width], start, slack)
    fitted_end = _nearest(page, needle[-width:], end - width, slack)
    start = start if fitted_start is None else fitted_start
    end = end if fitted_end is None or fitted_end + width <= start else fitted_end + width
    return start, end


def _nearest(page: str, part: str, origin: int, slack: int) -> int | None:
    """The occurrence of ``part`` in ``page`` nearest to ``origin``, at most ``slack`` away."""
    best = None
    found = page.find(part, max(0, origin - slack), origin + slack + len(part))
    while found >= 0:
        if best is None or abs(found - origin) < abs(best - origin):
            best = found
        found = page.find(part, found + 1, origin + slack + len(part))
    return best


def _anchor(needle: str, page: str, cursor: int) -> tuple[int, int] | None:
    """Span from the block's first to last ``ANCHOR_CHARS`` characters, if plausibly one block."""
    head, tail = needle[:ANCHOR_CHARS], needle[-ANCHOR_CHARS:]
    for origin in (cursor, 0):
        start = page.find(head, origin)
        if start < 0:
            continue
        end = page.find(tail, start + ANCHOR_CHARS)
        if end < 0:
            continue
        end += ANCHOR_CHARS
        if 0.7 * len(needle) <= end - start <= 1.3 * len(needle):
            return start, end
    return None
