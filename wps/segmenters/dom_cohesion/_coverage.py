"""Coverage pass of the DOM-cohesion segmenter: content that no segment holds becomes segments.

Block elimination and the prototype's post-filters can leave visible content outside every
segment: oversized candidates are dropped, tiny or clipped ones too, and on truncated captures
everything below the screenshot cap. On article pages that is often the article body itself, so
the text stages would lose the main text. This pass finds the *maximal free subtrees* — nodes
whose whole subtree holds no segment node but some visible text or image — and emits them as
segments, coarsest first: runs of consecutive free siblings form one segment (the paragraphs
of an article body whose container also holds a segmented figure stay together), a run whose
box would overlap an existing segment or exceed the page-fraction rule is split into its
members, and such a member into its children, down to single leaves, which are always emitted
so that no visible text is lost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model import Box, PageCapture
from ...page.reading import HIDDEN_VISIBILITY, box_area, clip_box

CONTENT_ELEMENTS = frozenset({"IMG", "PICTURE", "SVG", "VIDEO", "CANVAS"})
"""Elements that are content without any text (an article's photo, a chart)."""

OVERLAP_TOLERANCE = 1.0
"""Boxes overlap when they share more than this many pixels along both axes (sub-pixel layout
rounding and shared borders are no overlap)."""


@dataclass(slots=True)
class FreeGroup:
    """A group of sibling node ids (one subtree or a run of siblings) that no segment holds."""

    members: list[int]
    box: Box


def visible_content(page: PageCapture, bottom_limit: float) -> np.ndarray:
    """Per node: a non-blank text node or a media element that is drawn inside the page.

    Drawn means not under ``display: none``, not ``visibility: hidden`` (text nodes take their
    parent's computed visibility), and a box that meets the page horizontally and the band
    ``[0, bottom_limit)`` vertically: off-screen skip links (``left: -9999px``) are no content.
    """
    count = len(page.nodes)
    displayed = np.ones(count, dtype=bool)
    content = np.zeros(count, dtype=bool)
    for node_id in _preorder(page):
        node = page.nodes[node_id]
        own = node.style.get("display") != "none"
        if node.is_text and node.parent is not None:
            style = page.nodes[node.parent].style
        else:
            style = node.style
        inherited = displayed[node.parent] if node.parent is not None else True
        displayed[node.id] = own and inherited
        if not displayed[node.id] or style.get("visibility") in HIDDEN_VISIBILITY:
            continue
        if node.is_text:
            if not node.text.strip():
                continue
        elif node.tag not in CONTENT_ELEMENTS:
            continue
        left, top, right, bottom = node.bbox
        width = min(right, float(page.width)) - max(left, 0.0)
        height = min(bottom, bottom_limit) - max(top, 0.0)
        content[node.id] = width > 0 and height > 0 and width * height >= 1.0
    return content


def free_groups(page: PageCapture, covered: np.ndarray, content: np.ndarray,
                drawn_boxes: list[Box | None], occupied: list[Box], *, max_area: float,
                bottom_limit: float, group_siblings: bool) -> list[FreeGroup]:
    """The coarsest groups of uncovered content, in document order, as described above.

    ``covered`` marks the nodes that segments hold, ``occupied`` their boxes (clipped); groups
    accepted here are added to ``occupied`` so they do not overlap each other either.
    """
    holds_covered = covered.copy()
    holds_content = content & ~covered
    for node in reversed(_preorder(page)):  # children before parents
        parent = page.nodes[node].parent
        if parent is not None:
            holds_covered[parent] |= holds_covered[node]
            holds_content[parent] |= holds_content[node]
    free = holds_content & ~holds_covered
    boxes = np.asarray(occupied, dtype=float).reshape(-1, 4)
    accepted: list[FreeGroup] = []

    def group_box(members: list[int]) -> Box:
        found = [drawn_boxes[m] for m in members if drawn_boxes[m] is not None]
        found = found or [page.nodes[m].bbox for m in members]
        box = (min(b[0] for b in found), min(b[1] for b in found),
               max(b[2] for b in found), max(b[3] for b in found))
        return clip_box(box, page.width, bottom_limit)

    def fits(box: Box) -> bool:
        if box_area(box) > max_area:  # below the cap of a truncated capture too
            return False
        if boxes.shape[0] == 0:
            return True
        across = np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0])
        down = np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1])
        return not bool(np.any((across > OVERLAP_TOLERANCE) & (down > OVERLAP_TOLERANCE)))

    def accept(members: list[int], box: Box) -> None:
        nonlocal boxes
        accepted.append(FreeGroup(members, box))
        boxes = np.vstack([boxes, np.asarray(box, dtype=float)])

    # Work items: ("parent", node) = look for free runs among its children; ("group", members)
    # = try to emit these free siblings together, else split them.
    stack: list[tuple[str, list[int]]] = [
        ("parent" if not free[root] else "group", [root]) for root in reversed(page.roots())
        if holds_content[root]
    ]
    while stack:
        kind, members = stack.pop()
        if kind == "parent":
            stack.extend(reversed(_runs(page.children(members[0]), free, holds_content,
                                        holds_covered, group_siblings)))
            continue
        box = group_box(members)
        if fits(box):
            accept(members, box)
        elif len(members) > 1:
            stack.extend(reversed([("group", [member]) for member in members
                                   if holds_content[member]]))
        elif any(holds_content[kid] for kid in page.children(members[0])):
            stack.append(("parent", members))
        else:  # a leaf that overlaps or is huge: emit it anyway, text is never lost
            accept(members, box)
    return accepted


def _preorder(page: PageCapture) -> list[int]:
    """Node ids with every parent before its children (iterative: deep markup is fine)."""
    order: list[int] = []
    stack = list(reversed(page.roots()))
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(page.children(node)))
    return order


def _runs(kids: list[int], free: np.ndarray, holds_content: np.ndarray,
          holds_covered: np.ndarray, group_siblings: bool) -> list[tuple[str, list[int]]]:
    """Work items for one parent's children: runs of free siblings, and parents to descend."""
    items: list[tuple[str, list[int]]] = []
    run: list[int] = []

    def close() -> None:
        while run and not free[run[-1]]:  # empty trailing siblings do not widen the box
            run.pop()
        if run:
            items.append(("group", list(run)))
        run.clear()

    for kid in kids:
        if holds_covered[kid]:
            close()
            if holds_content[kid]:
                items.append(("parent", [kid]))
        elif free[kid]:
            if not group_siblings:
                close()
            run.append(kid)
        elif run:  # an empty sibling between free ones (a spacer) joins the run
            run.append(kid)
    close()
    return items

