"""Visual block extraction (VIPS §3.1): divide the DOM top-down until each piece is a block.

A node is divided while it holds block-level content; a node whose visible content is only text
and inline elements (VIPS's *virtual text node*), a text node, or a media element is one visual
block. ``<hr>`` elements are not blocks: they are recorded as explicit separators. Empty
containers (no text, no media below them) are dropped, so decoration boxes do not hide the gaps
between real blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model import PageCapture
from ...page.reading import INLINE_TAGS, clip_box, shown

MEDIA_TAGS = frozenset("IMG SVG CANVAS VIDEO AUDIO PICTURE OBJECT EMBED INPUT SELECT TEXTAREA "
                       "BUTTON IFRAME".split())
HEADING_TAGS = frozenset("H1 H2 H3 H4 H5 H6".split())
RULE_TAGS = frozenset({"HR"})
CONTAINER_TAGS = frozenset("HEADER NAV MAIN ASIDE FOOTER SECTION ARTICLE FORM TABLE UL OL DL "
                           "FIGURE BLOCKQUOTE PRE DETAILS FIELDSET".split())
"""Elements that enclose one unit of content (HTML sectioning, lists, tables, forms): two blocks
in different ones are in different units."""


@dataclass(slots=True)
class VisualBlocks:
    """The leaf visual blocks of a page, as parallel arrays (one row per block)."""

    node_ids: list[int]
    """The DOM node each block is."""
    boxes: np.ndarray
    """``(n, 4)`` float boxes ``left, top, right, bottom``, clipped to the page."""
    paths: list[tuple[int, ...]]
    """Ancestor ids from the root down to the block's node (for DOM distances)."""
    heading: np.ndarray
    """True where the block is a heading (``<h1>``–``<h6>`` or inside one)."""
    font_size: np.ndarray
    """Computed font size in px where the capture recorded it, else NaN."""
    tags: list[str]
    records: frozenset[int]
    """Elements with at least two siblings of the same tag whose children (holding content) have
    the same tags in the same order (posts, comments, list items, table rows, cards): the
    repeated units of their parent."""
    leaves_below: dict[int, int]
    """Element id → how many blocks lie in its subtree."""
    container: np.ndarray
    """Id of the nearest :data:`CONTAINER_TAGS` ancestor of each block (-1: none)."""
    overflow: np.ndarray
    """True where the block lies mostly outside one of its containers (see
    :func:`_outside_ancestor`): it goes with its DOM relatives, not where its box falls."""
    rules: np.ndarray
    """``(m, 4)`` boxes of ``<hr>`` elements: separators the author drew."""


def extract_blocks(page: PageCapture) -> VisualBlocks:
    """Divide the page's DOM into its leaf visual blocks (document order)."""
    nodes = page.nodes
    count = len(nodes)
    width, height = float(page.width), float(page.height)
    visible = np.zeros(count, dtype=bool)
    boxes = np.zeros((count, 4))
    for node in nodes:
        box = clip_box(node.bbox, width, height)
        boxes[node.id] = box
        visible[node.id] = box[2] > box[0] and box[3] > box[1] and shown(node.style)
    # bottom-up (children come after their parent in document order): does the subtree hold
    # content (text or media), and does it hold a block-level element?
    content = np.zeros(count, dtype=bool)
    has_block = np.zeros(count, dtype=bool)
    for node in reversed(nodes):
        if not visible[node.id]:
            continue
        if node.is_text or node.tag in MEDIA_TAGS:
            content[node.id] = True
        parent = node.parent
        if parent is not None and content[node.id]:
            content[parent] = True
            if node.tag not in INLINE_TAGS or has_block[node.id]:
                has_block[parent] = True

    roots = [node.id for node in nodes if node.tag == "BODY"][:1] or page.roots()
    leaves: list[int] = []
    rules: list[tuple[float, ...]] = []
    paths: list[tuple[int, ...]] = []
    stack: list[tuple[int, tuple[int, ...]]] = [(root, ()) for root in reversed(roots)]
    while stack:
        node_id, ancestors = stack.pop()
        node = nodes[node_id]
        if node.tag in RULE_TAGS and visible[node_id]:
            rules.append(tuple(boxes[node_id]))
            continue
        if not content[node_id]:
            continue
        path = (*ancestors, node_id)
        if not has_block[node_id] or node.tag in MEDIA_TAGS:
            leaves.append(node_id)
            paths.append(path)
            continue
        for kid in reversed(page.children(node_id)):
            stack.append((kid, path))

    leaves_below: dict[int, int] = {}
    for path in paths:
        for ancestor in path:
            leaves_below[ancestor] = leaves_below.get(ancestor, 0) + 1
    records = set()
    for parent in {path[-2] for path in paths if len(path) > 1} | {
            a for path in paths for a in path[:-1]}:
        kinds: dict[tuple, list[int]] = {}
        for kid in page.children(parent):
            if kid in leaves_below and not nodes[kid].is_text:
                skeleton = tuple(nodes[g].tag for g in page.children(kid) if g in leaves_below)
                kinds.setdefault((nodes[kid].tag, skeleton), []).append(kid)
        for same in kinds.values():
            if len(same) >= 3:
                records.update(same)
    heading = np.asarray([any(nodes[a].tag in HEADING_TAGS for a in path) for path in paths],
                         dtype=bool)
    font_size = np.asarray([_font_px(page, node_id) for node_id in leaves], dtype=float)
    return VisualBlocks(
        node_ids=leaves,
        boxes=boxes[leaves] if leaves else np.zeros((0, 4)),
        overflow=np.asarray([_outside_ancestor(boxes, path) for path in paths], dtype=bool),
        records=frozenset(records),
        leaves_below=leaves_below,
        container=np.asarray([next((a for a in reversed(path) if nodes[a].tag in CONTAINER_TAGS),
                                   -1) for path in paths], dtype=np.int64),
        paths=paths,
        heading=heading,
        font_size=font_size,
        tags=[nodes[i].tag for i in leaves],
        rules=np.asarray(rules, dtype=float).reshape(-1, 4),
    )


def _outside_ancestor(boxes: np.ndarray, path: tuple[int, ...]) -> bool:
    """Whether at least half of the block lies outside one of its containers (the body and its
    children excepted): content a container clips or lets overflow into its neighbours (a
    sidebar running into the footer), which must not hide the separators around it."""
    if len(path) < 4:
        return False
    own = boxes[path[-1]]
    ancestors = boxes[list(path[2:-1])]
    low = np.maximum(own[:2], ancestors[:, :2])
    high = np.minimum(own[2:], ancestors[:, 2:])
    inside = np.prod(np.clip(high - low, 0, None), axis=1)
    return bool((inside < 0.5 * np.prod(own[2:] - own[:2])).any())


def common_depth(first: tuple[int, ...], second: tuple[int, ...]) -> int:
    """Length of the shared start of two ancestor paths (the depth of their common ancestor)."""
    depth = 0
    for x, y in zip(first, second):
        if x != y:
            break
        depth += 1
    return depth


def _font_px(page: PageCapture, node_id: int) -> float:
    """The font size of the block's element (a text node's parent), NaN when not recorded."""
    node = page.nodes[node_id]
    if node.is_text and node.parent is not None:
        node = page.nodes[node.parent]
    value = node.style.get("font-size", "")
    if value.endswith("px"):
        try:
            return float(value[:-2])
        except ValueError:
            return float("nan")
    return float("nan")
