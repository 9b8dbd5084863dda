"""Weights-free screenshot segmenter: recursive XY-cut (algorithms.md §5, Nagy & Seth 1984).

The screenshot's ink (Sobel edges, dilated) is cut recursively at wide whitespace gaps, thin
separator rules and colour-band edges, alternating the preferred direction; the tree is then cut
at a level that gives 5–20 regions (option A) or its leaves are merged (option B), and the regions
are fitted to the DOM nodes they hold. Every threshold is a field of :class:`XYCutSegmenter`.

Where wps reads §5 in its own way:

- "2 · median interior gap" is the median of the gaps *narrower* than the base threshold (the
  region's line or word spacing), so one wide gap between two blocks is not its own yardstick;
- separator lines are thin runs of near-full ink rows with blank rows beside them and no content
  running across; colour-band edges are rows whose colour changes (L1 RGB > ``band_colour_delta``)
  across ``band_fraction`` of the region (sampled on at most 256 columns), or thin ink runs with
  different mean colours on their two sides; edges packed closer than a gap on both sides (a
  stack of solid bars) are content, not bands;
- cut pieces leave out the line itself, and a region's *cell* (up to the gap and line centres)
  bounds how far fitting to DOM boxes may grow it, so segments never overlap;
- an all-white screenshot gives an empty :class:`~wps.model.Segmentation` (no segments); the
  evaluation treats an empty segmentation like the whole-page baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import SegmentationError, UsageError
from ...model import Box, PageCapture, Segment, Segmentation
from ...page.reading import intersect_boxes, reading_text, shown, union_box
from .. import register_segmenter
from ..geometry import assign_to_smallest, granularity_level, screenshot_pixels
from ._xycut_core import ROWS, CutParameters, PageImage, Region, build_tree, prepare

REFERENCE_WIDTH = 1366.0
"""Pixel thresholds are tuned for this page width and scaled by W / 1366."""

GRANULARITIES = ("cut", "merge", "leaves")


@register_segmenter("xycut")
@dataclass
class XYCutSegmenter:
    """Recursive XY-cut on the screenshot; every threshold of §5 as a named option.

    Parameters
    ----------
    gradient_threshold
        τ_g: a pixel is ink when |Sobel_x| + |Sobel_y| of the grey image, read as a grey-level
        step on 0–255, exceeds this (§5.1: 12–20).
    dilation
        Side of the square dilation kernel that joins anti-aliased glyphs (§5.1: 3).
    blank_fraction
        ε: a row (column) is blank when at most ε × the region's width (height) of it is ink.
    min_gap_rows_px, min_gap_columns_px
        Base whitespace-gap thresholds for horizontal and vertical cuts at 1366 px width (§5.4:
        12–16 and 24–32); scaled by W / 1366.
    gap_spacing_factor
        The thresholds are raised to this × the region's median line (word) gap (§5.4: 2).
    line_fraction
        Separator rows have ink across at least this share of the region (§5.4: 80 %).
    max_line_thickness_px
        Thickest rule that counts as a separator (§5.4: 3 px), before the mask's halo.
    band_fraction
        A colour-band edge runs across at least this share of the region (§5.4: 90 %).
    band_colour_delta
        L1 RGB difference between the two sides of a line that makes it a colour-band edge
        (§5.4: 30).
    line_bonus
        Added to a direction's score when it offers separator or band candidates (§5.5).
    min_ink
        Regions with fewer ink pixels are dropped (§5.3: 20).
    max_depth
        Regions this deep are not split again (§5.6: 12).
    min_region_width_px, min_region_height_px
        Regions narrower or lower than this (at 1366 px width) are not split (§5.6: 48 × 24).
    granularity
        ``"cut"`` (option A, the default: cut the tree where it first shows ``min_segments``
        regions, never more than ``max_segments``), ``"merge"`` (option B: merge sibling leaves)
        or ``"leaves"`` (all raw leaves); or a level of the shared coarse ↔ fine scale
        (``coarse``, ``medium``, ``fine``, a number in [0, 1]): option A with the segment range
        halved at ``coarse`` and doubled at ``fine``.
    min_segments, max_segments
        The target range of option A (§5.7: 5–20).
    merge_gap_factor, merge_left_tolerance_px, merge_colour_delta
        Option B: siblings merge when their gap < factor × the split's threshold, their left edges
        agree within the tolerance and their background colours within the delta.
    min_ink_density
        Regions whose ink covers less than this share of their box are dropped (§5.7: 1 %);
        so are regions no thicker than a separator rule (border leftovers).
    fit_to_dom
        Assign each node to the smallest region holding ``fit_fraction`` of its box and replace the
        region by the union of its nodes' boxes (within its cell) when it has any (§5.8).
    fit_fraction
        Share of a node's box that must lie in a region (§5.8: 75 %).
    """

    gradient_threshold: float = 16.0
    dilation: int = 3
    blank_fraction: float = 0.002
    min_gap_rows_px: float = 14.0
    min_gap_columns_px: float = 28.0
    gap_spacing_factor: float = 2.0
    line_fraction: float = 0.8
    max_line_thickness_px: int = 3
    band_fraction: float = 0.9
    band_colour_delta: float = 30.0
    line_bonus: float = 1.0
    min_ink: int = 20
    max_depth: int = 12
    min_region_width_px: float = 48.0
    min_region_height_px: float = 24.0
    granularity: str | float | None = None
    min_segments: int = 5
    max_segments: int = 20
    merge_gap_factor: float = 1.5
    merge_left_tolerance_px: float = 4.0
    merge_colour_delta: float = 30.0
    min_ink_density: float = 0.01
    fit_to_dom: bool = True
    fit_fraction: float = 0.75
    name: str = "xycut"
    needs_screenshot = True
    """It segments the screenshot's pixels."""

    def __post_init__(self) -> None:
        if self.granularity is None:
            self.granularity = "cut"
        elif self.granularity not in GRANULARITIES:
            try:
                level = granularity_level(self.granularity, "xycut")
            except UsageError:
                raise UsageError(
                    f"xycut: granularity must be one of {list(GRANULARITIES)}, coarse, medium, "
                    f"fine or a number in [0, 1], got {self.granularity!r}") from None
            factor = 2.0 ** ((level - 0.5) * 4)  # coarse halves the segment range, fine doubles
            self.granularity = "cut"
            self.min_segments = max(1, round(self.min_segments * factor))
            self.max_segments = max(self.min_segments, round(self.max_segments * factor))
        if not 1 <= self.min_segments <= self.max_segments:
            raise UsageError(f"xycut: need 1 <= min_segments <= max_segments, got "
                             f"{self.min_segments} and {self.max_segments}")
        for option in ("blank_fraction", "line_fraction", "band_fraction", "min_ink_density",
                       "fit_fraction"):
            value = getattr(self, option)
            if not 0 <= value <= 1:
                raise UsageError(f"xycut: {option} must be in [0, 1], got {value}")
        for option in ("gradient_threshold", "min_gap_rows_px", "min_gap_columns_px",
                       "gap_spacing_factor", "band_colour_delta", "min_ink", "max_depth",
                       "max_line_thickness_px", "min_region_width_px", "min_region_height_px"):
            if getattr(self, option) < 0:
                raise UsageError(f"xycut: {option} must be >= 0, got {getattr(self, option)}")
        if self.dilation < 1:
            raise UsageError(f"xycut: dilation must be >= 1, got {self.dilation}")

    def parameters(self, width: int) -> CutParameters:
        """The thresholds in pixels of a screenshot ``width`` px wide."""
        scale = width / REFERENCE_WIDTH if width > 0 else 1.0
        return CutParameters(
            gradient_threshold=self.gradient_threshold, dilation=self.dilation,
            blank_fraction=self.blank_fraction, min_gap_rows=self.min_gap_rows_px * scale,
            min_gap_columns=self.min_gap_columns_px * scale,
            gap_spacing_factor=self.gap_spacing_factor, line_fraction=self.line_fraction,
            max_line_thickness=max(1, round(self.max_line_thickness_px * scale)),
            band_fraction=self.band_fraction, band_colour_delta=self.band_colour_delta,
            line_bonus=self.line_bonus,
            min_ink=self.min_ink, max_depth=self.max_depth,
            min_width=round(self.min_region_width_px * scale),
            min_height=round(self.min_region_height_px * scale),
        )

    def segment(self, page: PageCapture) -> Segmentation:
        name = page.page_id or page.url or "page"
        rgb = load_screenshot(page, name)
        regions = self.regions(rgb)
        scale = page.width / rgb.shape[1] if page.width > 0 else 1.0
        boxes = [_scaled(region.rect, scale) for region in regions]
        cells = [_scaled(region.cell, scale) for region in regions]
        fitted: list[list[int]] = [[] for _ in regions]
        if self.fit_to_dom and page.nodes and regions:
            fitted = assign_nodes(page, cells, self.fit_fraction)
        segments: list[Segment] = []
        for index, region in enumerate(regions):
            box = boxes[index]
            if fitted[index]:
                nodes_box = intersect_boxes(union_box([page.nodes[i].bbox for i in fitted[index]]),
                                       cells[index])
                if nodes_box[2] > nodes_box[0] and nodes_box[3] > nodes_box[1]:
                    box = nodes_box
            box = intersect_boxes(box, (0.0, 0.0, float(page.width), float(page.height)))
            if box[2] <= box[0] or box[3] <= box[1]:
                continue
            segment = Segment.from_box(str(len(segments)), box, fitted[index])
            segment.text = reading_text(page, fitted[index])
            segment.extra["xycut_depth"] = region.depth
            segment.extra["ink_density"] = round(region.density, 4)
            segments.append(segment)
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)

    def regions(self, rgb: np.ndarray) -> list[Region]:
        """The kept regions of an H×W×3 uint8 RGB image, in reading order (screenshot pixels)."""
        params = self.parameters(int(rgb.shape[1]))
        image = prepare(rgb, params.gradient_threshold, params.dilation)
        root = build_tree(image, params)
        if root is None:
            return []
        if self.granularity == "cut":
            chosen = cut_frontier(root, self.min_segments, self.max_segments)
        elif self.granularity == "merge":
            scale = rgb.shape[1] / REFERENCE_WIDTH
            chosen = merge_leaves(root, image, self.merge_gap_factor,
                                  self.merge_left_tolerance_px * scale, self.merge_colour_delta)
        else:
            chosen = leaves(root)
        thinnest = params.max_line_thickness + 2 * (1 + params.dilation // 2)

        def kept(regions: list[Region]) -> list[Region]:
            return [region for region in regions if region.density >= self.min_ink_density
                    and min(region.rect[2] - region.rect[0], region.rect[3] - region.rect[1])
                    > thinnest]  # a region no thicker than a rule is a leftover border

        found = kept(chosen)
        while len(found) == 1 and found[0].children:
            # never the whole page as one segment when the tree knows more: a tall thread opens
            # into more regions than max_segments at once, and borders beside it do not count
            found = kept(found[0].children)
        return found


# -------------------------------------------------------------------------------- granularity
def leaves(root: Region) -> list[Region]:
    """All leaves in reading order (preorder: top to bottom, left to right)."""
    found: list[Region] = []
    stack = [root]
    while stack:
        region = stack.pop()
        if region.children:
            stack.extend(reversed(region.children))
        else:
            found.append(region)
    return found


def cut_frontier(root: Region, min_count: int, max_count: int) -> list[Region]:
    """Option A: open the tree shallowest-and-largest first until it shows ``min_count``
    regions, never opening a region that would push the count past ``max_count`` — unless every
    opening overshoots and the smallest overshoot is nearer the range (by ratio) than staying."""
    frontier = [root]
    while len(frontier) < min_count:
        openable = sorted((region for region in frontier if region.children),
                          key=lambda region: (region.depth, -region.area))
        if not openable:
            break
        fitting = [region for region in openable
                   if len(frontier) - 1 + len(region.children) <= max_count]
        if fitting:
            chosen = fitting[0]
        else:
            chosen = min(openable, key=lambda region: len(region.children))
            overshoot = (len(frontier) - 1 + len(chosen.children)) / max_count
            if overshoot >= min_count / len(frontier):
                break
        at = next(i for i, item in enumerate(frontier) if item is chosen)
        frontier[at:at + 1] = chosen.children
        if not fitting:
            break
    return frontier


def merge_leaves(root: Region, image: PageImage, gap_factor: float, left_tolerance: float,
                 colour_delta: float) -> list[Region]:
    """Option B: join consecutive leaves of a horizontal split whose gap is below
    ``gap_factor`` × the split's threshold, whose left edges agree and whose background matches."""
    parents: dict[int, Region] = {}
    stack = [root]
    while stack:
        region = stack.pop()
        for child in region.children:
            parents[id(child)] = region
            stack.append(child)
    merged: list[Region] = []
    for leaf in leaves(root):
        previous = merged[-1] if merged else None
        parent = parents.get(id(leaf))
        if previous is not None and parent is not None and parent.axis == ROWS \
                and parents.get(id(previous)) is parent \
                and leaf.rect[1] - previous.rect[3] < gap_factor * parent.min_gap \
                and abs(leaf.rect[0] - previous.rect[0]) <= left_tolerance \
                and float(np.abs(_background(image, leaf) - _background(image, previous)).sum()
                          ) <= colour_delta:
            merged[-1] = _union(previous, leaf)
            parents[id(merged[-1])] = parent
            continue
        merged.append(leaf)
    return merged


def _background(image: PageImage, region: Region) -> np.ndarray:
    """Mean colour of the ink-free pixels of a region."""
    x0, y0, x1, y1 = region.rect
    pixels = image.rgb[y0:y1, x0:x1].reshape(-1, 3)
    blank = image.ink[y0:y1, x0:x1].reshape(-1) == 0
    return pixels[blank].mean(axis=0) if blank.any() else pixels.mean(axis=0)


def _union(first: Region, second: Region) -> Region:
    rect = (min(first.rect[0], second.rect[0]), min(first.rect[1], second.rect[1]),
            max(first.rect[2], second.rect[2]), max(first.rect[3], second.rect[3]))
    cell = (min(first.cell[0], second.cell[0]), min(first.cell[1], second.cell[1]),
            max(first.cell[2], second.cell[2]), max(first.cell[3], second.cell[3]))
    return Region(rect=rect, cell=cell, depth=min(first.depth, second.depth),
                  ink=first.ink + second.ink)


def load_screenshot(page: PageCapture, name: str) -> np.ndarray:
    """The capture's screenshot as RGB uint8; a missing one is a :class:`SegmentationError`."""
    if page.screenshot is None:
        raise SegmentationError(
            f"{name}: xycut needs a screenshot; capture with a screenshot or use dom-cohesion")
    path = Path(page.screenshot)
    pixels = screenshot_pixels(path) if path.is_file() else None
    if pixels is None:
        raise SegmentationError(f"{name}: screenshot {path} is missing or not a readable image")
    return pixels


def assign_nodes(page: PageCapture, cells: list[Box], fraction: float) -> list[list[int]]:
    """Node ids per cell: each visible node goes to the smallest cell holding ``fraction`` of
    its box (§5.8); ids stay in document order."""
    visible = [node for node in page.nodes
               if node.width > 0 and node.height > 0
               and shown(node.style)]
    assigned: list[list[int]] = [[] for _ in cells]
    if not visible:
        return assigned
    node_boxes = np.array([node.bbox for node in visible], dtype=np.float64)  # N×4
    cell_boxes = np.array(cells, dtype=np.float64)  # C×4
    width = np.clip(np.minimum(node_boxes[:, None, 2], cell_boxes[None, :, 2])
                    - np.maximum(node_boxes[:, None, 0], cell_boxes[None, :, 0]), 0, None)
    height = np.clip(np.minimum(node_boxes[:, None, 3], cell_boxes[None, :, 3])
                     - np.maximum(node_boxes[:, None, 1], cell_boxes[None, :, 1]), 0, None)
    node_area = (node_boxes[:, 2] - node_boxes[:, 0]) * (node_boxes[:, 3] - node_boxes[:, 1])
    holds = width * height >= fraction * node_area[:, None]  # N×C
    cell_area = (cell_boxes[:, 2] - cell_boxes[:, 0]) * (cell_boxes[:, 3] - cell_boxes[:, 1])
    return assign_to_smallest(visible, holds, cell_area)


def _scaled(rect: tuple[int, int, int, int], scale: float) -> Box:
    return (rect[0] * scale, rect[1] * scale, rect[2] * scale, rect[3] * scale)

