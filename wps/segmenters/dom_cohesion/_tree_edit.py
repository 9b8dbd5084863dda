"""Structure of a captured element tree: skeletons, structure ids, cached tree edit distances.

The DOM-cohesion segmenter compares subtrees two ways. *Skeletons* (Huynh et al. 2025, Def. 1)
decide whether sibling windows repeat: a skeleton is the tag tree with consecutive equal children
collapsed, so ``div[a[img,div,div],a[img,div,div]]`` has the skeleton ``div[a[img,div]]``. *Tree
edit distances* (unit costs on tag-labelled trees) measure how heterogeneous a block's children
are.

Both are computed on element nodes only (text nodes carry no tag). Every subtree gets an interned
integer id for its skeleton and for its exact structure, computed bottom-up in one iterative pass,
so equal subtrees compare in O(1) and tree edit distances are cached per pair of structures: pages
repeat the same structures over and over, which keeps the TED matrices of a 5,000-node page cheap.
Distances come from ``edist`` (Zhang–Shasha in Cython).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...errors import MissingDependencyError


@dataclass(slots=True)
class ElementTree:
    """The element nodes of a capture as a rooted tree, with per-node structure ids.

    ``children[i]`` lists the element children of node ``i`` in document order; ``root`` is an
    index into the same arrays (a virtual root with tag ``#root`` when the capture has no single
    element root).
    """

    tags: list[str]
    children: list[list[int]]
    root: int
    skeleton: list[int] = field(default_factory=list)
    """Interned id of each node's skeleton (consecutive equal children collapsed)."""
    grain_skeleton: list[int] = field(default_factory=list)
    """Interned id of each node's exact tag structure (nothing collapsed)."""
    size: list[int] = field(default_factory=list)
    """Number of element nodes in each node's subtree (the node included)."""

    @classmethod
    def build(cls, tags: list[str], children: list[list[int]], root: int) -> ElementTree:
        tree = cls(tags=tags, children=children, root=root)
        tree._compute_structure()
        return tree

    def postorder(self) -> list[int]:
        """Nodes under the root, children before parents (iterative: no recursion limit)."""
        order: list[int] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(self.children[node])
        order.reverse()
        return order

    def preorder(self, node: int, limit: int | None = None) -> list[int]:
        """The subtree of ``node`` in depth-first preorder, cut after ``limit`` nodes."""
        order: list[int] = []
        stack = [node]
        while stack and (limit is None or len(order) < limit):
            current = stack.pop()
            order.append(current)
            stack.extend(reversed(self.children[current]))
        return order

    def _compute_structure(self) -> None:
        count = len(self.tags)
        self.skeleton = [0] * count
        self.grain_skeleton = [0] * count
        self.size = [1] * count
        collapsed_ids: dict[tuple, int] = {}
        exact_ids: dict[tuple, int] = {}
        for node in self.postorder():
            kids = self.children[node]
            collapsed: list[int] = []
            for kid in kids:
                kid_skeleton = self.skeleton[kid]
                if not collapsed or collapsed[-1] != kid_skeleton:
                    collapsed.append(kid_skeleton)
            key = (self.tags[node], tuple(collapsed))
            self.skeleton[node] = collapsed_ids.setdefault(key, len(collapsed_ids))
            exact_key = (self.tags[node], tuple(self.grain_skeleton[kid] for kid in kids))
            self.grain_skeleton[node] = exact_ids.setdefault(exact_key, len(exact_ids))
            self.size[node] = 1 + sum(self.size[kid] for kid in kids)


class TreeEditCache:
    """Unit-cost tree edit distances between subtrees, cached by their exact structure ids."""

    def __init__(self, tree: ElementTree, max_subtree_nodes: int) -> None:
        try:
            from edist import ted  # Cython Zhang–Shasha; imported here, not at package import
        except ImportError:  # pragma: no cover - edist is a declared dependency
            raise MissingDependencyError(
                "the dom-cohesion segmenter needs edist: pip install edist"
            ) from None
        self._standard_ted = ted.standard_ted
        self.tree = tree
        self.max_subtree_nodes = max_subtree_nodes
        self._distances: dict[tuple[int, int], int] = {}
        self._encoded: dict[int, tuple[list[str], list[list[int]]]] = {}
        self.computed = 0
        """How many distances were actually computed (the rest came from the cache)."""

    def _encode(self, node: int) -> tuple[list[str], list[list[int]]]:
        """Preorder labels and adjacency of ``node``'s subtree, cut at ``max_subtree_nodes``."""
        structure = self.tree.grain_skeleton[node]
        cached = self._encoded.get(structure)
        if cached is not None:
            return cached
        order = self.tree.preorder(node, self.max_subtree_nodes)
        position = {member: index for index, member in enumerate(order)}
        labels = [self.tree.tags[member] for member in order]
        adjacency = [
            [position[kid] for kid in self.tree.children[member] if kid in position]
            for member in order
        ]
        self._encoded[structure] = (labels, adjacency)
        return labels, adjacency

    def distance(self, first: int, second: int) -> int:
        a = self.tree.grain_skeleton[first]
        b = self.tree.grain_skeleton[second]
        if a == b:
            return 0
        key = (a, b) if a < b else (b, a)
        cached = self._distances.get(key)
        if cached is None:
            cached = int(self._standard_ted(*self._encode(first), *self._encode(second)))
            self._distances[key] = cached
            self.computed += 1
        return cached

    def heterogeneity(self, nodes: Sequence[int], max_children: int, full_matrix: bool) -> float:
        """H(B) = standard deviation of the pairwise TEDs of a block's children.

        ``full_matrix`` takes the paper's "∀ i, j ≤ N" literally: the N×N matrix with its zero
        diagonal (each pair twice, plus N zeros); otherwise the upper triangle i < j only. One child gives H = 0 either way. More than ``max_children`` children
        are thinned to that many, evenly spread, to bound the work on long lists.
        """
        if len(nodes) > max_children:
            picks = np.linspace(0, len(nodes) - 1, max_children).round().astype(int)
            nodes = [nodes[index] for index in picks]
        if len(nodes) < 2:
            return 0.0
        values = [
            self.distance(nodes[i], nodes[j])
            for i in range(len(nodes))
            for j in range(i + 1, len(nodes))
        ]
        if full_matrix:
            values = values + values + [0] * len(nodes)
        return float(np.std(values))


def iqr_fence(values: Sequence[float], k: float) -> float:
    """Tukey's upper fence Q3 + k·(Q3 − Q1); quartiles by linear interpolation (R's type 7)."""
    if len(values) == 0:
        return float("inf")
    first, third = np.percentile(np.asarray(values, dtype=float), [25, 75])
    return float(third + k * (third - first))
