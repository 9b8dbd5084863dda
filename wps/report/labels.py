"""Where a segment's number label goes: just outside its outline, on none of the page's text and
on no other label when there is such a place (else where it covers least).

Both pictures of a page use it: ``overlay.png`` (:func:`wps.output.draw_overlay`) and the boxes
of ``report.html``. Text is looked up in a coarse grid of the page's text-node boxes, summed once
(an integral image), so a candidate place costs four lookups however tall the page is.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

Box = tuple[float, float, float, float]
"""``(left, top, right, bottom)`` in page pixels."""
CELL_PX = 4
"""Grid cell size: text boxes are rounded out to cells, so a label clears text by up to this."""
TEXT_WEIGHT, LABEL_WEIGHT = 1, 4
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
    """
    grid = _Grid(area)
    grid.fill_text(texts)
    taken = np.zeros_like(grid.text, dtype=bool)
    places = []
    for (left, top, right, bottom), (width, height) in zip(segments, sizes):
        candidates = [
            (left, top - gap - height), (right - width, top - gap - height),
            (left, bottom + gap), (right - width, bottom + gap),
            (left - gap - width, top), (right + gap, top),
        ]
        best, best_cost = (left + gap, top + gap), math.inf
        for x, y in candidates:
            if not grid.inside(x, y, width, height):
                continue
            cells = grid.cells(x, y, width, height)
            cost = TEXT_WEIGHT * grid.text_cells(cells)
            rows, columns = slice(cells[1], cells[3]), slice(cells[0], cells[2])
            cost += LABEL_WEIGHT * int(taken[rows, columns].sum())
            if cost < best_cost:
                best, best_cost = (x, y), cost
                if cost == 0:
                    break
        places.append(best)
        x0, y0, x1, y1 = grid.cells(best[0], best[1], width, height)
        taken[y0:y1, x0:x1] = True
    return places


class _Grid:
    """The page area in cells of :data:`CELL_PX`: which hold text, and their running sums."""

    def __init__(self, area: Box) -> None:
        self.left, self.top, self.right, self.bottom = area
        self.columns = max(1, math.ceil((self.right - self.left) / CELL_PX))
        self.rows = max(1, math.ceil((self.bottom - self.top) / CELL_PX))
        self.text = np.zeros((self.rows, self.columns), dtype=bool)
        self.sums = np.zeros((self.rows + 1, self.columns + 1), dtype=np.int64)

    def cells(self, x: float, y: float, width: float, height: float) -> tuple[int, int, int, int]:
        """The cells a rectangle touches, as ``(x0, y0, x1, y1)`` slice bounds in the grid."""
        x0 = min(max(int((x - self.left) // CELL_PX), 0), self.columns)
        y0 = min(max(int((y - self.top) // CELL_PX), 0), self.rows)
        x1 = min(max(math.ceil((x + width - self.left) / CELL_PX), x0), self.columns)
        y1 = min(max(math.ceil((y + height - self.top) / CELL_PX), y0), self.rows)
        return x0, y0, x1, y1

    def fill_text(self, texts: Iterable[Box]) -> None:
        for left, top, right, bottom in texts:
            if right > left and bottom > top:
                x0, y0, x1, y1 = self.cells(left, top, right - left, bottom - top)
                self.text[y0:y1, x0:x1] = True
        self.sums[1:, 1:] = self.text.cumsum(axis=0).cumsum(axis=1)

    def text_cells(self, cells: tuple[int, int, int, int]) -> int:
        x0, y0, x1, y1 = cells
        sums = self.sums
        return int(sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0])

    def inside(self, x: float, y: float, width: float, height: float) -> bool:
        return (x >= self.left and y >= self.top and x + width <= self.right
                and y + height <= self.bottom)
