"""Skeletons, tree edit distances, heterogeneity and the IQR fence on hand-made trees and values."""

from __future__ import annotations

import numpy as np
import pytest

from wps.segmenters.dom_cohesion._blocks import _match_windows
from wps.segmenters.dom_cohesion._tree_edit import ElementTree, TreeEditCache, iqr_fence


def _tree(spec: str) -> ElementTree:
    """Parse ``div[a[img,div],p]`` into an ElementTree (root = node 0)."""
    tags: list[str] = []
    children: list[list[int]] = []
    stack: list[int] = []
    token = ""
    for char in spec + ",":
        if char in "[],":
            if token:
                tags.append(token.upper())
                children.append([])
                if stack:
                    children[stack[-1]].append(len(tags) - 1)
                token = ""
            if char == "[":
                stack.append(len(tags) - 1)
            elif char == "]":
                stack.pop()
        else:
            token += char
    return ElementTree.build(tags, children, 0)


def test_skeleton_collapses_consecutive_repeats():
    full = _tree("div[a[img,div,div],a[img,div,div]]")
    collapsed = _tree("div[a[img,div]]")
    other = _tree("div[a[img,div],a[img,p]]")
    both = _tree("x[div[a[img,div,div],a[img,div,div]],div[a[img,div]],"
                 "div[a[img,div],a[img,p]]]")
    first, second, third = both.children[0]
    assert both.skeleton[first] == both.skeleton[second] != both.skeleton[third]
    assert both.grain_skeleton[first] != both.grain_skeleton[second]
    assert full.size[0] == 9 and collapsed.size[0] == 4 and other.size[0] == 7


def test_tree_edit_distance_unit_costs_and_cache():
    tree = _tree("root[div[a,b],div[a,b],div[a],div[p[a,b]],span]")
    cache = TreeEditCache(tree, max_subtree_nodes=100)
    first, same, fewer, deeper, leaf = tree.children[0]
    assert cache.distance(first, same) == 0
    assert cache.distance(first, fewer) == 1  # delete b
    assert cache.distance(first, deeper) == 1  # insert p
    assert cache.distance(first, leaf) == 3  # rename div→span, delete a and b
    computed = cache.computed
    assert cache.distance(fewer, first) == 1 and cache.computed == computed  # cached


def test_heterogeneity_full_matrix_and_upper_triangle():
    tree = _tree("root[div[a,b],div[a],span]")
    cache = TreeEditCache(tree, max_subtree_nodes=100)
    kids = tree.children[0]
    upper = [1, 3, 2]  # d(0,1), d(0,2), d(1,2)
    assert cache.heterogeneity(kids, 30, full_matrix=False) == pytest.approx(np.std(upper))
    full = upper * 2 + [0, 0, 0]
    assert cache.heterogeneity(kids, 30, full_matrix=True) == pytest.approx(np.std(full))
    two = tree.children[0][:2]
    assert cache.heterogeneity(two, 30, full_matrix=False) == 0.0
    assert cache.heterogeneity(two, 30, full_matrix=True) == pytest.approx(0.5)
    assert cache.heterogeneity(kids[:1], 30, full_matrix=True) == 0.0


def test_iqr_fence_on_hand_made_values():
    values = [0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 12.0]
    q1, q3 = 0.25, 1.75  # R type-7 quartiles of these values
    assert iqr_fence(values, 1.5) == pytest.approx(q3 + 1.5 * (q3 - q1))
    assert [v for v in values if v > iqr_fence(values, 1.5)] == [12.0]
    assert iqr_fence([], 1.5) == float("inf")
    assert iqr_fence([3.0], 1.5) == 3.0  # one block: never above its own fence


def test_sibling_windows():
    assert [list(r) for r in _match_windows([1, 1, 1, 2], False, 10)] == [[0], [1], [2]]
    # dt, dd, dt, dd: windows of two siblings repeat
    assert [list(r) for r in _match_windows([1, 2, 1, 2], False, 10)] == [[0, 1], [2, 3]]
    assert _match_windows([1, 2, 3, 4], False, 10) == []
    # a heading before a list stays outside the records
    assert [list(r) for r in _match_windows([9, 5, 5, 5], False, 10)] == [[1], [2], [3]]
