"""Step 1 of the DOM-cohesion segmenter: records, blocks and their heterogeneity.

Follows the 2023 prototype's procedure (algorithms.md §1.1, step 1): walk the element tree
breadth-first from ``<body>``; among the children of each parent compare sibling windows of size
1..max_ws; a window whose skeleton equals the previous or the next window's is a *record*, its
parent a *block*. Descendants of a record are not searched again (a record is one unit), and every ancestor
of a block becomes a *container*. Backtracking is implicit: the siblings of records and the siblings
of containers that are no records stay single units (a heading before a list), and block promotion
is what the elimination step does with a homogeneous container — it is emitted whole.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ...model import Box, PageCapture
from ...page.reading import INLINE_TAGS
from ._tree_edit import ElementTree, TreeEditCache


@dataclass(slots=True)
class BlockStructure:
    """What step 1 found: the element tree, records per block, H per block and container."""

    page: PageCapture
    tree: ElementTree
    root: int
    records: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    """Block node id → its records (groups of sibling node ids) in document order."""
    record_of: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Record member id → the record it belongs to."""
    containers: set[int] = field(default_factory=set)
    """Ancestors of blocks (and the root): layout regions that hold blocks."""
    heterogeneity: dict[int, float] = field(default_factory=dict)
    """H of every block and container (std of its children's pairwise TEDs)."""
    ted_computed: int = 0
    drawn_boxes: list[Box | None] = field(default_factory=list)
    """Per node, the union of the boxes with an area in its subtree (``None`` where there is none).

    A node's own box misses content that overflows it (wide images, floats); annotators outline
    what is drawn, so segment boxes and the oversize test use these.
    """

    def drawn_box(self, nodes: list[int]) -> Box | None:
        """The union of the drawn boxes of ``nodes``' subtrees."""
        boxes = [box for box in (self.drawn_boxes[node] for node in nodes) if box is not None]
        if not boxes:
            return None
        if len(boxes) == 1:
            return boxes[0]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes),
                max(b[2] for b in boxes), max(b[3] for b in boxes))

    def population(self) -> list[float]:
        """The H values the IQR fence is computed over: blocks with two or more element children."""
        return [h for node, h in self.heterogeneity.items() if len(self.tree.children[node]) >= 2]

    def member_children(self, node: int) -> list[int]:
        return self.tree.children[node]

    def child_groups(self, node: int, apart: bool = False,
                     windows: bool = False) -> list[list[int]]:
        """The node's children as emission units: records as groups (each child apart with
        ``apart``: posts), other children singly; with ``windows``, children whose tags repeat
        in a period of two or three (a comment and the list of its replies, a heading and its
        list) go together, one group per period."""
        groups: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        page = self.page
        kids = self.tree.children[node] if node >= len(page.nodes) else page.children(node)
        for kid in kids:
            record = self.record_of.get(kid)
            if record is not None and len(record) > 1 and not apart:
                if record not in seen:
                    seen.add(record)
                    groups.append(list(record))
            elif page.nodes[kid].is_text:
                box = page.nodes[kid].bbox
                if box[2] > box[0] and box[3] > box[1]:
                    groups.append([kid])
            else:
                groups.append([kid])
        if windows and not apart and all(len(group) == 1 for group in groups):
            period = tag_period([page.nodes[group[0]].tag for group in groups])
            if period:
                return [[group[0] for group in groups[start:start + period]]
                        for start in range(0, len(groups), period)]
        return self._inline_runs(groups)

    def _inline_runs(self, groups: list[list[int]]) -> list[list[int]]:
        """Consecutive single children that flow inline (text, ``display: inline`` elements)
        joined into one group: the anonymous block a browser lays them out in. A paragraph
        written straight into a container beside block children ("The project was <a>announced
        </a> with great fanfare ...") is one unit, not a piece per link and per text run."""
        merged: list[list[int]] = []
        run: list[int] = []
        for group in groups:
            if len(group) == 1 and self._flows_inline(group[0]):
                run.append(group[0])
                continue
            if run:
                merged.append(run)
                run = []
            merged.append(group)
        if run:
            merged.append(run)
        return merged

    def _flows_inline(self, node: int) -> bool:
        """Text, or an inline element with nothing but inline content (a link around a card's
        ``div`` is laid out as a block: a grid of such cards stays a unit per card)."""
        page = self.page
        stack = [node]
        while stack:
            item = page.nodes[stack.pop()]
            if not item.is_text and item.style.get("display") != "inline":
                return False
            stack.extend(page.children(item.id))
        return True

    def compound_records(self, node: int, min_chars: int) -> bool:
        """True when the block's records are content units (posts, results), not menu items."""
        records = self.records.get(node, [])
        if len(records) < 2:
            return False
        for record in records:
            if len(record) == 1:
                block_children = [
                    kid for kid in self.tree.children[record[0]]
                    if self.tree.tags[kid] not in INLINE_TAGS
                ]
                if len(block_children) < 2:
                    return False
        lengths = [
            sum(len(self.page.text_of(member)) for member in record) for record in records
        ]
        return float(np.median(lengths)) >= min_chars

    def text_rich_windows(self, node: int, min_chars: int) -> bool:
        """True when the node's children repeat their tags in a period (see :func:`tag_period`)
        and the median period holds at least ``min_chars`` characters: a thread whose posts
        differ in their markup (quotes, pictures) but keep their rhythm."""
        kids = self.tree.children[node]
        period = tag_period([self.tree.tags[kid] for kid in kids])
        if not period:
            return False
        lengths = [sum(len(self.page.text_of(kid)) for kid in kids[start:start + period])
                   for start in range(0, len(kids), period)]
        return float(np.median(lengths)) >= min_chars

    def uniform_records(self, node: int) -> bool:
        """True when every record of the block is made of siblings of one tag (a post and its
        neighbour whose replies change the skeleton), not a heading-and-text window."""
        return all(len({self.tree.tags[member] for member in record}) == 1
                   for record in self.records.get(node, []))

    def kind(self, node: int, group_size: int) -> str:
        if group_size > 1 or node in self.record_of:
            return "record"
        if node in self.records:
            return "block"
        if node in self.containers:
            return "container"
        return "single"


def tag_period(tags: list[str]) -> int | None:
    """The period (2 or 3) in which a sequence of sibling tags repeats at least twice, a last
    incomplete period allowed (``DIV UL DIV UL DIV``: 2); ``None`` when it does not.

    >>> tag_period(["DIV", "UL", "DIV", "UL", "DIV"]), tag_period(["P", "P", "P", "P"])
    (2, None)
    """
    for period in (2, 3):
        if (len(tags) >= 2 * period and len(set(tags[:period])) == period
                and all(tag == tags[index % period] for index, tag in enumerate(tags))):
            return period
    return None


def find_blocks(
    page: PageCapture,
    *,
    grain_segment: bool,
    segment_min_level: int,
    max_window_size: int,
    max_children_for_ted: int,
    max_subtree_nodes_for_ted: int,
    full_ted_matrix: bool,
) -> BlockStructure:
    """Records by sibling-window skeleton matching, then H for every block and container."""
    drawn = _drawn_boxes(page)
    tree = _element_tree(page, drawn)
    blocks = BlockStructure(page=page, tree=tree, root=tree.root)
    skeleton = tree.skeleton
    inside_record = [False] * len(tree.tags)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        parent = queue.popleft()
        kids = tree.children[parent]
        queue.extend(kids)
        for kid in kids:
            depth[kid] = depth[parent] + 1
        if inside_record[parent]:
            for kid in kids:
                inside_record[kid] = True
            continue
        if depth[parent] < segment_min_level or len(kids) < 2:
            continue
        for record in _match_windows([skeleton[k] for k in kids], grain_segment, max_window_size):
            members = tuple(kids[index] for index in record)
            blocks.records.setdefault(parent, []).append(members)
            for member in members:
                blocks.record_of[member] = members
                inside_record[member] = True
    parent_of = _element_parents(tree)
    blocks.containers.add(tree.root)
    for block in blocks.records:
        node = parent_of.get(block)
        while node is not None and node not in blocks.containers:
            blocks.containers.add(node)
            node = parent_of.get(node)
    distances = TreeEditCache(tree, max_subtree_nodes_for_ted)
    for node in blocks.containers | set(blocks.records):
        blocks.heterogeneity[node] = distances.heterogeneity(
            tree.children[node], max_children_for_ted, full_ted_matrix
        )
    blocks.ted_computed = distances.computed
    blocks.drawn_boxes = drawn
    return blocks


def _drawn_boxes(page: PageCapture) -> list[Box | None]:
    """Subtree unions of the boxes with an area, bottom-up in one iterative pass."""
    drawn: list[Box | None] = [
        node.bbox if node.bbox[2] > node.bbox[0] and node.bbox[3] > node.bbox[1] else None
        for node in page.nodes
    ]
    preorder: list[int] = []
    stack = page.roots()
    while stack:
        node = stack.pop()
        preorder.append(node)
        stack.extend(page.children(node))
    for node in reversed(preorder):  # children before their parents
        parent = page.nodes[node].parent
        box = drawn[node]
        if parent is None or box is None:
            continue
        own = drawn[parent]
        if own is None:
            drawn[parent] = box
        elif box[0] < own[0] or box[1] < own[1] or box[2] > own[2] or box[3] > own[3]:
            drawn[parent] = (min(own[0], box[0]), min(own[1], box[1]),
                             max(own[2], box[2]), max(own[3], box[3]))
    return drawn


def _match_windows(skeletons: list[int], grain_segment: bool, max_window_size: int) -> list[range]:
    """Records among one parent's children: windows equal to their previous or next window."""
    count = len(skeletons)

    def key(start: int, size: int) -> tuple[int, ...]:
        window = skeletons[start:start + size]
        if grain_segment:
            return tuple(window)
        collapsed = [window[0]]
        for item in window[1:]:
            if item != collapsed[-1]:
                collapsed.append(item)
        return tuple(collapsed)

    records: list[range] = []
    max_size = min(count // 2, max_window_size)
    index = 0
    while index < count:
        matched = 0
        for size in range(1, min(max_size, count - index) + 1):
            current = key(index, size)
            if (index - size >= 0 and key(index - size, size) == current) or (
                index + 2 * size <= count and key(index + size, size) == current
            ):
                matched = size
                break
        if matched:
            records.append(range(index, index + matched))
            max_size = matched
            index += matched
        else:
            index += 1
    return records


def _element_tree(page: PageCapture, drawn: list[Box | None]) -> ElementTree:
    """Element nodes under ``<body>`` (or a virtual root over the capture's roots).

    Elements that draw nothing (no box with an area in their subtree: spacers, clearfix divs,
    empty anchors) are left out, as the paper's tree holds visible elements only; they would
    otherwise count as structure in the skeletons and the TEDs.
    """
    count = len(page.nodes)
    tags = [node.tag for node in page.nodes] + ["#root"]
    children: list[list[int]] = [[] for _ in range(count + 1)]
    for node in page.nodes:
        if not node.is_text and node.parent is not None and drawn[node.id] is not None:
            children[node.parent].append(node.id)
    body = next((node.id for node in page.nodes if node.tag == "BODY"), None)
    if body is not None:
        root = body
    else:
        tops = [node.id for node in page.nodes if node.parent is None and not node.is_text]
        if len(tops) == 1:
            root = tops[0]
        else:
            root = count
            children[count] = tops
    return ElementTree.build(tags, children, root)


def _element_parents(tree: ElementTree) -> dict[int, int]:
    parents: dict[int, int] = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        for kid in tree.children[node]:
            parents[kid] = node
            stack.append(kid)
    return parents


def subtree_ids(page: PageCapture, node: int) -> list[int]:
    """The node and its descendants in document order."""
    return [node, *page.descendants(node)]
