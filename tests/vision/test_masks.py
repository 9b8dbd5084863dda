"""Tiling, cross-tile merging, mask cleaning and DOM fitting (numpy only: no torch needed)."""

from __future__ import annotations

import numpy as np
import pytest

from wps.model import Node, PageCapture
from wps.segmenters._vision import (
    PageMask,
    clean_masks,
    components,
    merge_tile_masks,
    segments_from_masks,
    tile_windows,
)
from wps.segmenters._vision.masks import fit_nodes

WIDTH, HEIGHT, TILE = 400, 1500, 400
BLOCKS = [  # (left, top, right, bottom): some inside one window, some across window borders
    (20, 20, 380, 120),     # window 0 only
    (40, 330, 200, 380),    # inside the overlap of windows 0 and 1 (seen twice)
    (220, 350, 380, 650),   # across the border of window 0 and into window 2
    (30, 690, 370, 1250),   # spans windows 1–4
    (60, 1400, 340, 1480),  # last window only
]


def tall_screenshot() -> np.ndarray:
    image = np.full((HEIGHT, WIDTH, 3), 255, dtype=np.uint8)
    for index, (left, top, right, bottom) in enumerate(BLOCKS):
        image[top:bottom, left:right] = (30 * index, 90, 200 - 30 * index)
    return image


def window_masks(image: np.ndarray, window: tuple[int, int, int, int]) -> list[PageMask]:
    """What a window's model sees: the connected non-white regions of the window, placed."""
    left, top, right, bottom = window
    ink = (image[top:bottom, left:right] < 250).any(axis=2)
    found = components(ink, min_area=1)
    return [PageMask(mask.left + left, mask.top + top, mask.pixels) for mask in found]


def test_windows_cover_the_page_and_overlap_by_the_asked_share() -> None:
    windows = tile_windows(WIDTH, HEIGHT, TILE, 0.25)
    covered = np.zeros((HEIGHT, WIDTH), dtype=bool)
    for left, top, right, bottom in windows:
        assert right - left <= TILE and bottom - top <= TILE
        covered[top:bottom, left:right] = True
    assert covered.all()
    tops = [window[1] for window in windows]
    assert all(earlier + TILE - later >= 0.25 * TILE for earlier, later in zip(tops, tops[1:]))
    assert tile_windows(300, 200, 1000, 0.25) == [(0, 0, 300, 200)]


def test_masks_cut_by_window_borders_are_joined_and_seen_twice_kept_once() -> None:
    image = tall_screenshot()
    windows = tile_windows(WIDTH, HEIGHT, TILE, 0.25)
    assert len(windows) > 3
    tiles = [(window, window_masks(image, window)) for window in windows]
    assert sum(len(found) for _, found in tiles) > len(BLOCKS)  # pieces and repeats
    merged = clean_masks(merge_tile_masks(tiles), WIDTH * HEIGHT)
    assert sorted(mask.box for mask in merged) == sorted(BLOCKS)
    for mask in merged:
        left, top, right, bottom = mask.box
        assert mask.area == (right - left) * (bottom - top)


def test_without_merging_the_cut_blocks_stay_in_pieces() -> None:
    image = tall_screenshot()
    windows = tile_windows(WIDTH, HEIGHT, TILE, 0.25)
    pieces = [mask for window in windows for mask in window_masks(image, window)]
    assert sorted(mask.box for mask in clean_masks(pieces, WIDTH * HEIGHT)) != sorted(BLOCKS)


def block(left: int, top: int, right: int, bottom: int, score: float = 1.0) -> PageMask:
    return PageMask(left, top, np.ones((bottom - top, right - left), dtype=bool), score)


def test_page_sized_duplicate_and_nested_masks_are_dropped() -> None:
    page = block(0, 0, 100, 100)
    outer = block(10, 10, 60, 60)
    twin = block(10, 10, 60, 59)
    inner = block(20, 20, 30, 30)
    apart = block(70, 70, 90, 90)
    masks = [page, outer, twin, inner, apart]
    kept = clean_masks(masks, page_area=100 * 100)
    assert sorted(mask.box for mask in kept) == [outer.box, apart.box]
    kept = clean_masks(masks, page_area=100 * 100, nested="drop-outer")
    assert sorted(mask.box for mask in kept) == [inner.box, apart.box]
    assert len(clean_masks(masks, page_area=100 * 100, nested="keep")) == 3


def test_components_keep_blobs_of_the_minimum_area() -> None:
    binary = np.zeros((50, 80), dtype=bool)
    binary[5:15, 5:25] = True      # 200 px
    binary[30:32, 60:63] = True    # 6 px
    found = components(binary, min_area=50)
    assert [mask.box for mask in found] == [(5, 5, 25, 15)]


def node(node_id: int, box: tuple[float, float, float, float], text: str = "") -> Node:
    return Node(id=node_id, parent=None, tag="#text" if text else "DIV", xpath=f"/X[{node_id}]",
                bbox=box, text=text)


def test_nodes_go_to_the_smallest_mask_holding_three_quarters_of_them() -> None:
    nodes = [node(0, (10, 10, 50, 20), "inside both"),     # in the small and the large mask
             node(1, (10, 60, 50, 70), "inside large"),    # only in the large mask
             node(2, (90, 10, 130, 20), "half out"),       # 25 % inside the large mask
             node(3, (200, 200, 210, 210), "outside")]
    page = PageCapture(url="test", width=300, height=300, nodes=nodes)
    small, large = block(0, 0, 60, 30), block(0, 0, 100, 100)
    assert fit_nodes(page, [large, small], scale=1.0) == [[1], [0]]
    segments = segments_from_masks(page, [large, small], scale=1.0)
    assert [(segment.node_ids, segment.text, segment.bbox) for segment in segments] == [
        ([0], "inside both", (10, 10, 50, 20)), ([1], "inside large", (10, 60, 50, 70))]


def test_masks_fit_page_nodes_through_the_screenshot_scale() -> None:
    page = PageCapture(url="test", width=100, height=100, nodes=[node(0, (10, 10, 20, 20), "x")])
    doubled = block(18, 18, 42, 42)  # the node at screenshot scale 2 is (20, 20, 40, 40)
    assert fit_nodes(page, [doubled], scale=2.0) == [[0]]
    assert fit_nodes(page, [doubled], scale=1.0) == [[]]


@pytest.mark.parametrize("fraction, expected", [(0.75, [[0]]), (0.8, [[]])])
def test_the_containment_share_is_the_threshold(fraction: float, expected: list) -> None:
    page = PageCapture(url="test", width=100, height=100, nodes=[node(0, (0, 0, 100, 4), "x")])
    assert fit_nodes(page, [block(0, 0, 100, 3)], 1.0, fraction) == expected
