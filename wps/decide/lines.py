"""Line-level cleaning of a kept segment's main text: the lines inside a prose segment that are
not prose (spec fields, user-info rows, "Read 664 more words", form labels).

A line goes when it does not end a sentence and is a ``Key: value`` field, mostly digits, or too
short to be a sentence; and when it is one link (a teaser's "read the article" line). Headings
go too, which is right for a detector and why the article profile (``eval/articles.toml``) turns
this off.
"""

from __future__ import annotations

from ..model import PageCapture
from ..segmenters.geometry import reading_lines
from .features import FIELD_LINE, SENTENCE_END, word_count

MIN_SENTENCE_WORDS = 5
"""Forum posts often end without a full stop; a line this long still counts as prose."""


def is_prose_line(line: str) -> bool:
    """
    >>> [is_prose_line(x) for x in ("Gewicht: 250 g", "Read 664 more words",
    ...                             "Works fine, my guinea pigs love it")]
    [False, False, True]
    """
    line = line.strip()
    if line.endswith(SENTENCE_END) and word_count(line) >= 3:
        return True
    if FIELD_LINE.match(line):
        return False
    if sum(ch.isdigit() for ch in line) > 0.3 * max(len(line), 1):
        return False
    return word_count(line) >= MIN_SENTENCE_WORDS and not line.endswith(":")


def prose_lines(text: str, link_lines: frozenset[str] = frozenset()) -> tuple[str, int]:
    """``text`` without its non-prose lines and without the lines that are one link each
    (``link_lines``, by :func:`squeezed` text: "Read the article: …", "Read 664 more words"),
    and how many lines went."""
    lines = [line for line in text.splitlines() if line.strip()]
    kept = [line for line in lines
            if is_prose_line(line) and squeezed(line) not in link_lines]
    return "\n".join(kept), len(lines) - len(kept)


def squeezed(text: str) -> str:
    """``text`` without whitespace: lines compared across the ways they were assembled."""
    return "".join(text.split())


def link_lines(capture: PageCapture, node_ids: list[int]) -> frozenset[str]:
    """The lines of a segment (as :func:`reading_lines` makes them) whose text is all inside
    links, squeezed."""
    return frozenset(squeezed(" ".join(piece for _, piece in line))
                     for line in reading_lines(capture, node_ids)
                     if all("link" in capture.nodes[node_id].inside for node_id, _ in line))
