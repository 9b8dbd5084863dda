"""Where a segment's number label goes: just outside its outline, on none of the page's text and
on no other label when there is such a place (else where it covers least).

Both pictures of a page use it: ``overlay.png`` (:func:`wps.report.overlay.draw_overlay`) and the boxes
of ``report.html``. Text is looked up in a coarse grid of the page's text-node boxes, summed once
(an integral image), so a candidate place costs four lookups however tall the page is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import cv2
import numpy as np

Box = tuple[float, float, float, float]
"""``(left, top, right, bottom)`` in page pixels."""
CELL_PX = 4
"""Grid cell size: text boxes are rounded out to cells, so a label clears text by up to this."""
MAX_CELLS = 1_500_000
"""A page larger than this many cells (a 16,384 px screenshot 1,366 px wide has 1.4 million) gets
larger cells, so the grid's cost stays bounded."""
TEXT_WEIGHT, LABEL_WEIGHT = 1.0, 4
"""What an overlap costs per cell when no place is free: covering a label is worse than text."""


def text_boxes(nodes: Iterable[object]) -> list[Box]:
    """The boxes of a capture's text nodes (:class:`wps.model.Node` objects)."""
    return [tuple(node.bbox) for node in nodes  # type: ignore[attr-defined]
            if getattr(node, "tag", "") == "#text" and getattr(node, "text", "")]


def place_labels(segments: Sequence[Box], sizes: Sequence[tuple[float, float]],
                 texts: Iterable[Box], area: Box, gap: float = 3.0) -> list[tuple[float, float]]:
    """The top-left corner of each segment's label (``sizes``: width, height), in order.

    Tried in turn: above the outline (left end, then right end), below it (same), left of it,
    right of it; the first that lies in ``area`` and touches no text and no label placed before
    wins, else the least-covering one; inside the top-left corner only when nothing else fits.
    The text under every candidate is summed at once; only the labels placed so far are looked
    at one segment after the other.
    """
    if not segments:
        return []
    grid = _Grid(area, texts)
    left, top, right, bottom = np.asarray(segments, dtype=float).reshape(-1, 4).T
    width, height = np.asarray(sizes, dtype=float).reshape(-1, 2).T
    xs = np.stack([left, right - width, left, right - width, left - gap - width, right + gap], 1)
    ys = np.stack([top - gap - height] * 2 + [bottom + gap] * 2 + [top] * 2, 1)
    widths, heights = width[:, None], height[:, None]
    inside = ((xs >= grid.left) & (ys >= grid.top) & (xs + widths <= grid.right)
              & (ys + heights <= grid.bottom))
    x0, y0, x1, y1 = grid.cells(xs, ys, widths, heights)
    costs = np.where(inside, TEXT_WEIGHT * grid.text_cells(x0, y0, x1, y1), np.inf)
    costs = costs.tolist()
    labels = _Labels(grid.cell)
    places = []
    for index in range(len(costs)):
        best, best_cost = None, math.inf
        # least text first (ties in the order above): once a candidate's text alone costs as
        # much as the best place found, no later one can be better
        for cost, choice in sorted(zip(costs[index], range(6))):
            if cost >= best_cost:
                break
            box = (float(xs[index, choice]), float(ys[index, choice]))
            box += (box[0] + float(width[index]), box[1] + float(height[index]))
            cost += LABEL_WEIGHT * labels.covered(box)
            if cost < best_cost:
                best, best_cost = box, cost
                if cost == 0:
                    break
        if best is None:  # no room outside: inside the top-left corner
            x, y = float(left[index] + gap), float(top[index] + gap)
            best = (x, y, x + float(width[index]), y + float(height[index]))
        places.append(best[:2])
        labels.add(best)
    return places


class _Labels:
    """The labels placed so far, filed by horizontal bands of the page (a label is looked at
    only by candidates in its band)."""

    BAND_PX = 64

    def __init__(self, cell: float) -> None:
        self.cell = cell
        self.bands: dict[int, list[Box]] = {}

    def add(self, box: Box) -> None:
        for band in range(int(box[1] // self.BAND_PX), int(box[3] // self.BAND_PX) + 1):
            self.bands.setdefault(band, []).append(box)

    def covered(self, box: Box) -> float:
        """Square pixels of ``box`` under labels (a label in two bands counts twice: the cost
        of a place, where only zero matters exactly)."""
        left, top, right, bottom = box
        area = 0.0
        for band in range(int(top // self.BAND_PX), int(bottom // self.BAND_PX) + 1):
            for other in self.bands.get(band, ()):
                width = min(right, other[2]) - max(left, other[0])
                height = min(bottom, other[3]) - max(top, other[1])
                if width > 0 and height > 0:
                    area += width * height
        return area / (self.cell * self.cell)  # in cells, as the text


class _Grid:
    """The page area in cells (of :data:`CELL_PX`, larger on huge pages), with the running sums
    of how much text each holds (an integral image: the text in a rectangle is four lookups)."""

    def __init__(self, area: Box, texts: Iterable[Box]) -> None:
        self.left, self.top, self.right, self.bottom = (float(v) for v in area)
        size = max(self.right - self.left, 1.0) * max(self.bottom - self.top, 1.0)
        self.cell = max(CELL_PX, math.ceil(math.sqrt(size / MAX_CELLS)))
        self.columns = max(1, math.ceil((self.right - self.left) / self.cell))
        self.rows = max(1, math.ceil((self.bottom - self.top) / self.cell))
        boxes = np.array([box for box in texts if all(map(math.isfinite, box))],
                         dtype=float).reshape(-1, 4)
        boxes = boxes[(boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])]
        x0, y0, x1, y1 = self.cells(boxes[:, 0], boxes[:, 1], boxes[:, 2] - boxes[:, 0],
                                    boxes[:, 3] - boxes[:, 1])
        # Each box as four corner marks: their running sums (OpenCV's integral image, the
        # fastest there is here) count the boxes over every cell; those of "any text" give
        # the sums that are looked up.
        stride = self.columns + 1
        corners = np.concatenate([y0 * stride + x0, y0 * stride + x1, y1 * stride + x0,
                                  y1 * stride + x1])
        signs = np.repeat(np.array([1, -1, -1, 1], dtype=np.float64), len(x0))
        marks = np.bincount(corners, signs, minlength=(self.rows + 1) * stride).astype(
            np.float32).reshape(self.rows + 1, stride)
        counts = cv2.integral(marks, sdepth=cv2.CV_32F)[1:-1, 1:-1]
        self.sums = cv2.integral((counts > 0.5).astype(np.uint8), sdepth=cv2.CV_32S)

    def cells(self, x, y, width, height):  # arrays in, arrays out
        """The cells rectangles touch, as ``(x0, y0, x1, y1)`` slice bounds in the grid."""
        x0 = np.clip(np.floor((x - self.left) / self.cell), 0, self.columns).astype(np.int64)
        y0 = np.clip(np.floor((y - self.top) / self.cell), 0, self.rows).astype(np.int64)
        x1 = np.clip(np.ceil((x + width - self.left) / self.cell), x0, self.columns).astype(np.int64)
        y1 = np.clip(np.ceil((y + height - self.top) / self.cell), y0, self.rows).astype(np.int64)
        return x0, y0, x1, y1

    def text_cells(self, x0, y0, x1, y1):
        """How many cells of each rectangle hold text."""
        sums = self.sums
        return sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]
