"""Boxes, visibility and reading order of a rendered page's nodes: what the segmenters, the
posts step and the decision all read (a box is a :data:`wps.model.Box`, ``(left, top, right,
bottom)`` in page pixels, y down)."""

from __future__ import annotations

from typing import Iterable, Mapping

from ..model import Box, PageCapture
from .normalise import clean_piece

__all__ = ["HIDDEN_VISIBILITY", "INLINE_TAGS", "box_area", "clip_box", "enclosing_block",
           "intersect_boxes", "reading_lines", "reading_text", "shown", "union_box"]

HIDDEN_VISIBILITY = ("hidden", "collapse")
"""CSS ``visibility`` values that hide a node (its box still takes up space)."""

# Tags that flow inside a line; text nodes under them belong to the enclosing block for reading
# order, and they do not make a record "compound".
INLINE_TAGS = frozenset(
    "A ABBR B BDI BDO BR CITE CODE DATA DFN EM FONT I IMG KBD LABEL MARK Q S SAMP SMALL SPAN "
    "STRONG SUB SUP TIME U VAR WBR INPUT BUTTON SELECT TEXTAREA SVG PICTURE #text".split()
)


def box_area(box: Box) -> float:
    """Area of the box; 0 for an empty or inverted one."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def union_box(boxes: Iterable[Box]) -> Box:
    """The smallest box holding all ``boxes`` (at least one)."""
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def intersect_boxes(first: Box, second: Box) -> Box:
    """The overlap of two boxes; inverted (right < left or bottom < top) when they do not meet."""
    return (max(first[0], second[0]), max(first[1], second[1]),
            min(first[2], second[2]), min(first[3], second[3]))


def clip_box(box: Box, width: float, height: float) -> Box:
    """The box clamped to ``[0, width] × [0, height]``."""
    return (min(max(box[0], 0.0), float(width)), min(max(box[1], 0.0), float(height)),
            min(max(box[2], 0.0), float(width)), min(max(box[3], 0.0), float(height)))


def shown(style: Mapping[str, str]) -> bool:
    """False when the computed style hides the node (``display: none`` or hidden visibility)."""
    return style.get("display") != "none" and style.get("visibility") not in HIDDEN_VISIBILITY


def reading_text(page: PageCapture, node_ids: list[int]) -> str:
    """Text of the nodes in document order: spaces within a block element, newlines between."""
    return "\n".join(" ".join(piece for _, piece in line)
                     for line in reading_lines(page, node_ids))


def reading_lines(page: PageCapture, node_ids: list[int]) -> list[list[tuple[int, str]]]:
    """The lines of :func:`reading_text`: runs of text nodes in one block element, each as
    (node id, cleaned text) pairs."""
    lines: list[list[tuple[int, str]]] = []
    previous_block: int | None = None
    for node_id in node_ids:
        node = page.nodes[node_id]
        piece = clean_piece(node.text) if node.is_text else ""
        if not piece:
            continue
        block = enclosing_block(page, node_id)
        if not lines or block != previous_block:
            lines.append([])
        lines[-1].append((node_id, piece))
        previous_block = block
    return lines


def enclosing_block(page: PageCapture, node_id: int) -> int | None:
    """The nearest ancestor that is not an inline element (``None`` at the top)."""
    parent = page.nodes[node_id].parent
    while parent is not None and page.nodes[parent].tag in INLINE_TAGS:
        parent = page.nodes[parent].parent
    return parent
