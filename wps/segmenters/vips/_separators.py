"""Separator detection and weighting (VIPS §3.2).

A separator is a horizontal or vertical band that no visual block of the region crosses; the
blocks are projected on one axis and every place where the next block starts at or below the
furthest end seen so far is one (numpy: sort + cumulative max). Its weight follows the paper's
rules: wider gaps weigh more, a drawn rule (``<hr>`` or a line in the screenshot) and different
background colours on the two sides weigh more, a heading or a font change right after a
horizontal separator weighs more, and (wps) the DOM: a separator between two different children
of the region's common container weighs more than one inside a sub-container, and one between
blocks of different content containers (sections, lists, tables, forms) more than one inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..geometry import Separator, find_separators
from ._blocks import VisualBlocks, common_depth

__all__ = ["Separator", "SeparatorWeights", "find_separators", "weigh"]


SAMPLE_STEP, MAX_SAMPLES = 3, 64
"""Colours are read on every third pixel along a separator, on at most about 64 pixels (enough
for medians and 80 % lines)."""


@dataclass(slots=True)
class SeparatorWeights:
    """How much each of VIPS's separator rules adds to a separator's weight (the defaults are
    :class:`~wps.segmenters.vips.VipsSegmenter`'s options)."""

    gap_unit_px: float
    max_gap_weight: float
    rule: float
    background: float
    heading: float
    font_change: float
    column: float
    dom_boundary: float
    dom_nested: float
    container: float
    background_delta: float = 30.0
    overlap_tolerance_px: float = 2.0


def weigh(separators: list[Separator], region: np.ndarray, blocks: VisualBlocks,
          image: np.ndarray | None, weights: SeparatorWeights,
          seen: dict[tuple, float] | None = None) -> None:
    """Set each separator's weight; ``region`` holds the block indices the separators split.

    ``seen`` caches the screenshot part of a weight by band and extent: the same separator
    comes back in every sub-region the recursion keeps it in.
    """
    seen = {} if seen is None else seen
    boxes = blocks.boxes[region]
    span = _span(boxes)
    region_depth = common_depth(blocks.paths[region[0]], blocks.paths[region[-1]])
    for separator in separators:
        axis = separator.axis
        gap = separator.end - separator.start
        weight = min(weights.max_gap_weight, max(gap, 0.0) / weights.gap_unit_px)
        # the blocks facing each other across the separator
        last = separator.before[np.argmax(boxes[separator.before, axis + 2])]
        first = separator.after[np.argmin(boxes[separator.after, axis])]
        a, b = int(region[last]), int(region[first])
        if axis == 0:
            weight += weights.column
        else:
            if blocks.heading[b] and not blocks.heading[a]:
                weight += weights.heading
            fa, fb = blocks.font_size[a], blocks.font_size[b]
            if np.isfinite(fa) and np.isfinite(fb) and abs(fa - fb) > 2:
                weight += weights.font_change
        if _crosses_rule(separator, span, blocks.rules):
            weight += weights.rule
        elif image is not None:
            key = (axis, separator.start, separator.end, span)
            if key not in seen:
                seen[key] = (weights.rule * _drawn_line(image, separator, span)
                             + weights.background * _background_differs(
                                 image, separator, span, weights.background_delta))
            weight += seen[key]
        if blocks.container[a] != blocks.container[b]:
            weight += weights.container
        depth = common_depth(blocks.paths[a], blocks.paths[b]) - region_depth
        if depth <= 0:
            weight += weights.dom_boundary
        elif depth >= 2:
            weight += weights.dom_nested * min(depth - 1, 2)
        separator.weight = weight


def _span(boxes: np.ndarray) -> tuple[float, float, float, float]:
    return (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
            float(boxes[:, 2].max()), float(boxes[:, 3].max()))


def _band(separator: Separator, span: tuple[float, float, float, float],
          start: float, end: float) -> tuple[slice, slice]:
    """Image rows and columns of the stretch ``start..end`` along the separator's axis, across
    the region's extent on the other axis."""
    lo, hi = int(round(start)), int(round(end))
    if separator.axis == 1:
        step = max(SAMPLE_STEP, int(span[2] - span[0]) // MAX_SAMPLES)
        return slice(max(lo, 0), max(hi, 0)), slice(int(span[0]), int(span[2]), step)
    step = max(SAMPLE_STEP, int(span[3] - span[1]) // MAX_SAMPLES)
    return slice(int(span[1]), int(span[3]), step), slice(max(lo, 0), max(hi, 0))


def _crosses_rule(separator: Separator, span: tuple[float, float, float, float],
                  rules: np.ndarray) -> bool:
    if not len(rules):
        return False
    axis = separator.axis
    inside = (rules[:, axis] >= separator.start - 2) & (rules[:, axis + 2] <= separator.end + 2)
    other = 1 - axis
    length = rules[:, other + 2] - rules[:, other]
    return bool((inside & (length >= 0.5 * (span[other + 2] - span[other]))).any())


def _drawn_line(image: np.ndarray, separator: Separator,
                span: tuple[float, float, float, float]) -> bool:
    """A line drawn across ≥ 80 % of the region inside the separator's band."""
    if separator.end - separator.start < 1:
        return False
    rows, columns = _band(separator, span, separator.start, separator.end)
    band = image[rows, columns].astype(np.int16)
    if band.size == 0:
        return False
    along = 1 if separator.axis == 1 else 0  # lines along the separator
    edges = band[[0, -1]] if separator.axis == 1 else band[:, [0, -1]]
    background = np.median(edges.reshape(-1, 3), axis=0)  # the gap's own colour at its sides
    ink = np.abs(band - background).sum(axis=2) > 40
    return bool((ink.mean(axis=along) > 0.8).any())


def _background_differs(image: np.ndarray, separator: Separator,
                        span: tuple[float, float, float, float], delta: float) -> bool:
    """The colours just before and just after the separator differ (L1 RGB > ``delta``)."""
    depth = 4
    before = image[_band(separator, span, separator.start - depth, separator.start)]
    after = image[_band(separator, span, separator.end, separator.end + depth)]
    if before.size == 0 or after.size == 0:
        return False
    first = np.median(before.reshape(-1, 3), axis=0)
    second = np.median(after.reshape(-1, 3), axis=0)
    return float(np.abs(first - second).sum()) > delta
