"""Step 3 of the DOM-cohesion segmenter: shrink each box to its Canny edges (§3.3, Def. 4).

A DOM box often has empty margins (a full-width container around a narrow column); the annotators
draw around what is visible. Each side moves inward to the first edge pixel, i.e. the box becomes
the bounding box of the Canny edges of its crop. Boxes without any edge keep their DOM box, which
stays available in ``Segment.extra["dom_bbox"]`` either way.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...errors import InputFileError
from ...model import Segment
from ..geometry import screenshot_pixels

MARGIN = 2
"""Pixels of context around each box, so the box's own border edges are found."""


def tighten_boxes(segments: list[Segment], screenshot: Path, low: int, high: int) -> None:
    """Replace each segment's polygon by its Canny-tightened box, in place."""
    import cv2

    image = screenshot_pixels(screenshot, grey=True)
    if image is None:
        raise InputFileError(f"{screenshot}: unreadable screenshot")
    image_height, image_width = image.shape
    for segment in segments:
        left, top, right, bottom = segment.bbox
        # Crop a margin wider than the box: a background's boundary lies on the box's border,
        # where Canny finds no gradient inside a tight crop.
        x0, y0 = max(0, math.floor(left) - MARGIN), max(0, math.floor(top) - MARGIN)
        x1 = min(image_width, math.ceil(right) + MARGIN)
        y1 = min(image_height, math.ceil(bottom) + MARGIN)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue  # outside the screenshot (truncated capture) or too thin to have edges
        edges = cv2.Canny(image[y0:y1, x0:x1], low, high)
        rows = np.flatnonzero(edges.any(axis=1))
        cols = np.flatnonzero(edges.any(axis=0))
        if rows.size == 0:
            continue
        box = (
            max(float(x0 + cols[0]), left),
            max(float(y0 + rows[0]), top),
            min(float(x0 + cols[-1] + 1), right),
            min(float(y0 + rows[-1] + 1), bottom),
        )
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        if bottom > image_height:  # the part below the screenshot was never seen: keep it
            box = (box[0], box[1], box[2], bottom)
        tightened = Segment.from_box(segment.id, box)
        segment.polygons = tightened.polygons
        segment.extra["canny_bbox"] = list(box)
