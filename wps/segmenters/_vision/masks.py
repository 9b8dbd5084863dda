"""Screenshot masks → page segments: tiling, merging across tiles, cleaning, DOM fitting.

A :class:`PageMask` is a boolean crop in screenshot pixels and the position of its top-left
pixel, so a tall page's hundreds of masks cost their own area, not the page's. The steps
(algorithms.md §3): cut the screenshot into overlapping square windows (SAM sees 1024² inputs), run
the model per window, join the masks that two neighbouring windows see alike in their shared band
(one object cut by a window border, or seen twice), drop page-sized, duplicate and nested masks,
then give each visible DOM node to the smallest mask holding ≥ 75 % of its box; a segment is the
box around its nodes (a mask that holds no node is dropped, as the R fitting drops empty
segments).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Sequence

import numpy as np

from ...errors import SegmentationError
from ...model import Box, PageCapture, Segment
from ...page.reading import clip_box, reading_text, shown, union_box
from ..geometry import assign_to_smallest

Window = tuple[int, int, int, int]
"""``(left, top, right, bottom)`` in screenshot pixels, right/bottom exclusive."""

NESTED_RULES = ("drop-inner", "drop-outer", "keep")


@dataclass(slots=True)
class PageMask:
    """One mask: ``pixels`` (H×W bool, the mask's bounding box) placed at ``(left, top)``."""

    left: int
    top: int
    pixels: np.ndarray
    score: float = 0.0
    area: int = field(init=False)

    def __post_init__(self) -> None:
        self.area = int(np.count_nonzero(self.pixels))

    @property
    def box(self) -> Window:
        return (self.left, self.top, self.left + self.pixels.shape[1],
                self.top + self.pixels.shape[0])

    @classmethod
    def from_array(cls, array: np.ndarray, left: int = 0, top: int = 0,
                   score: float = 0.0) -> PageMask | None:
        """The mask of a window-sized bool array placed at ``(left, top)``; None when empty."""
        rows = np.flatnonzero(array.any(axis=1))
        if rows.size == 0:
            return None
        columns = np.flatnonzero(array.any(axis=0))
        y0, y1, x0, x1 = rows[0], rows[-1] + 1, columns[0], columns[-1] + 1
        return cls(left + int(x0), top + int(y0), np.ascontiguousarray(array[y0:y1, x0:x1]),
                   score)

    def count_in(self, window: Window) -> int:
        """Mask pixels inside ``window``."""
        part = self._part(window)
        return int(np.count_nonzero(part)) if part is not None else 0

    def _part(self, window: Window) -> np.ndarray | None:
        x0, y0 = max(window[0], self.left) - self.left, max(window[1], self.top) - self.top
        x1 = min(window[2], self.left + self.pixels.shape[1]) - self.left
        y1 = min(window[3], self.top + self.pixels.shape[0]) - self.top
        return self.pixels[y0:y1, x0:x1] if x1 > x0 and y1 > y0 else None


def intersection_count(first: PageMask, second: PageMask, within: Window | None = None) -> int:
    """Pixels in both masks (and in ``within``, when given)."""
    window = _meet(first.box, second.box)
    if within is not None:
        window = _meet(window, within)
    a, b = first._part(window), second._part(window)
    return int(np.count_nonzero(a & b)) if a is not None and b is not None else 0


def union_mask(masks: Sequence[PageMask]) -> PageMask:
    """One mask holding every pixel of ``masks``; its score is their best."""
    box = union_box([mask.box for mask in masks])
    left, top = int(box[0]), int(box[1])
    pixels = np.zeros((int(box[3]) - top, int(box[2]) - left), dtype=bool)
    for mask in masks:
        y, x = mask.top - top, mask.left - left
        pixels[y:y + mask.pixels.shape[0], x:x + mask.pixels.shape[1]] |= mask.pixels
    return PageMask(left, top, pixels, max(mask.score for mask in masks))


def _meet(first: Window, second: Window) -> Window:
    return (max(first[0], second[0]), max(first[1], second[1]),
            min(first[2], second[2]), min(first[3], second[3]))


def _empty(window: Window) -> bool:
    return window[2] <= window[0] or window[3] <= window[1]


# -------------------------------------------------------------------------------------- tiling
def tile_windows(width: int, height: int, size: int, overlap: float) -> list[Window]:
    """Square windows of side ``size`` (clipped to the image) covering a ``width`` × ``height``
    image; neighbours share at least ``overlap`` of a side. Rows top to bottom."""
    size = max(1, int(size))
    step = max(1, int(round(size * (1.0 - overlap))))

    def starts(extent: int) -> list[int]:
        if extent <= size:
            return [0]
        return sorted({*range(0, extent - size, step), extent - size})

    return [(x, y, min(x + size, width), min(y + size, height))
            for y in starts(height) for x in starts(width)]


def merge_tile_masks(tiles: Sequence[tuple[Window, Sequence[PageMask]]],
                     min_iou: float = 0.5) -> list[PageMask]:
    """The masks of all windows, joined where two overlapping windows' masks cover their shared
    band alike (IoU inside the band ≥ ``min_iou``): an object cut by a window border becomes one
    mask again, and one seen by both windows is kept once."""
    masks = [mask for _, found in tiles for mask in found]
    owner = [index for index, (_, found) in enumerate(tiles) for _ in found]
    parent = list(range(len(masks)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (i, (first, _)), (j, (second, _)) in combinations(enumerate(tiles), 2):
        band = _meet(first, second)
        if _empty(band):
            continue
        side_a = [k for k, o in enumerate(owner) if o == i and not _empty(_meet(masks[k].box, band))]
        side_b = [k for k, o in enumerate(owner) if o == j and not _empty(_meet(masks[k].box, band))]
        inside = {k: masks[k].count_in(band) for k in side_a + side_b}
        for a in side_a:
            for b in side_b:
                if not inside[a] or not inside[b]:
                    continue
                both = intersection_count(masks[a], masks[b], band)
                if both and both / (inside[a] + inside[b] - both) >= min_iou:
                    parent[root(a)] = root(b)
    groups: dict[int, list[PageMask]] = {}
    for k, mask in enumerate(masks):
        groups.setdefault(root(k), []).append(mask)
    return [group[0] if len(group) == 1 else union_mask(group) for group in groups.values()]


# ------------------------------------------------------------------------------------ cleaning
def clean_masks(masks: Sequence[PageMask], page_area: float, max_area_fraction: float = 0.7,
                duplicate_iou: float = 0.9, nested_fraction: float = 0.9,
                nested: str = "drop-inner") -> list[PageMask]:
    """Drop masks larger than ``max_area_fraction`` of the page, near-duplicates (IoU ≥
    ``duplicate_iou``: the larger stays) and nested masks (≥ ``nested_fraction`` of the smaller
    inside the larger: ``drop-inner`` keeps the outer, ``drop-outer`` the inner, ``keep`` both)."""
    if nested not in NESTED_RULES:
        raise ValueError(f"nested must be one of {NESTED_RULES}, got {nested!r}")
    candidates = [mask for mask in masks if 0 < mask.area <= max_area_fraction * page_area]
    candidates.sort(key=lambda mask: (-mask.area, -mask.score),
                    reverse=nested == "drop-outer")
    kept: list[PageMask] = []
    for mask in candidates:
        for other in kept:
            both = intersection_count(mask, other)
            if not both:
                continue
            if both / (mask.area + other.area - both) >= duplicate_iou:
                break
            smaller = min(mask.area, other.area)
            if nested != "keep" and both >= nested_fraction * smaller:
                break
        else:
            kept.append(mask)
    return kept


def components(binary: np.ndarray, min_area: int) -> list[PageMask]:
    """Connected components (8-neighbour) of a bool image with at least ``min_area`` pixels."""
    import cv2

    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        binary.astype(np.uint8), connectivity=8)
    found = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if area >= min_area:
            found.append(PageMask(x, y, labels[y:y + h, x:x + w] == label))
    return found


# ---------------------------------------------------------------------------------- DOM fitting
def fit_nodes(page: PageCapture, masks: Sequence[PageMask], scale: float,
              fraction: float = 0.75) -> list[list[int]]:
    """Node ids per mask: each visible node goes to the smallest mask holding ``fraction`` of its
    box (``scale`` = screenshot pixels per page pixel); ids in document order."""
    visible = [node for node in page.nodes
               if node.width > 0 and node.height > 0 and shown(node.style)]
    assigned: list[list[int]] = [[] for _ in masks]
    if not visible or not masks:
        return assigned
    boxes = np.array([node.bbox for node in visible], dtype=np.float64) * scale
    boxes[:, :2] = np.floor(boxes[:, :2])
    boxes[:, 2:] = np.maximum(np.ceil(boxes[:, 2:]), boxes[:, :2] + 1)
    boxes = boxes.astype(np.int64)
    node_area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    holds = np.zeros((len(visible), len(masks)), dtype=bool)
    for k, mask in enumerate(masks):
        left, top, right, bottom = mask.box
        near = np.flatnonzero((boxes[:, 0] < right) & (boxes[:, 2] > left)
                              & (boxes[:, 1] < bottom) & (boxes[:, 3] > top))
        if near.size == 0:
            continue
        table = np.zeros((mask.pixels.shape[0] + 1, mask.pixels.shape[1] + 1), dtype=np.int64)
        table[1:, 1:] = mask.pixels.cumsum(axis=0, dtype=np.int64).cumsum(axis=1)
        x0 = np.clip(boxes[near, 0] - left, 0, right - left)
        x1 = np.clip(boxes[near, 2] - left, 0, right - left)
        y0 = np.clip(boxes[near, 1] - top, 0, bottom - top)
        y1 = np.clip(boxes[near, 3] - top, 0, bottom - top)
        inside = table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]
        holds[near, k] = inside >= fraction * node_area[near]
    return assign_to_smallest(visible, holds, [mask.area for mask in masks])


def segments_from_masks(page: PageCapture, masks: Sequence[PageMask], scale: float,
                        fraction: float = 0.75) -> list[Segment]:
    """Segments in reading order: per mask the box around its fitted nodes, with their ids and
    text; masks holding no node are dropped, and so are later masks with the same nodes. A page
    without nodes gets the masks' own boxes."""
    fitted = fit_nodes(page, masks, scale, fraction) if page.nodes else [[] for _ in masks]
    segments: list[Segment] = []
    seen: set[tuple[int, ...]] = set()
    for mask, ids in zip(masks, fitted):
        if page.nodes:
            if not ids or tuple(ids) in seen:
                continue
            seen.add(tuple(ids))
            box: Box = union_box([page.nodes[i].bbox for i in ids])
        else:
            box = tuple(value / scale for value in mask.box)  # type: ignore[assignment]
        box = clip_box(box, page.width, page.height)
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        segment = Segment.from_box("", box, ids)
        segment.text = reading_text(page, ids)
        segment.extra["mask_area_px"] = mask.area
        segment.extra["mask_score"] = round(float(mask.score), 4)
        segments.append(segment)
    segments.sort(key=lambda segment: (segment.bbox[1], segment.bbox[0]))
    for number, segment in enumerate(segments):
        segment.id = str(number)
    return segments


def load_screenshot(page: PageCapture, segmenter: str) -> np.ndarray:
    """The capture's screenshot as H×W×3 uint8 RGB; none or an unreadable one is a
    :class:`SegmentationError`."""
    name = page.page_id or page.url or "page"
    if page.screenshot is None:
        raise SegmentationError(f"{name}: {segmenter} needs the page's screenshot "
                                f"(a Webis page folder needs screenshot.png)")
    return load_screenshot_file(Path(page.screenshot), name, segmenter)


def load_screenshot_file(path: Path, name: str, segmenter: str) -> np.ndarray:
    """An image file as H×W×3 uint8 RGB, or a :class:`SegmentationError` naming the page."""
    import cv2

    pixels = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if pixels is None:
        raise SegmentationError(f"{name}: {segmenter}: screenshot {path} is missing or not a "
                                f"readable image")
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB)
