"""The VIPS segmenter: visual blocks → separators → content structure, cut at ``pdoc``.

The content structure is built top-down: a region (at first all visual blocks of the page) is
split at its heaviest separators; its degree of coherence is ``11 − (heaviest separator weight)``
less a term for its height, clipped to 1..11, and a region whose DoC reaches the permitted degree of coherence ``pdoc`` is one
segment (VIPS §3.3: blocks with DoC < PDoC are divided further). ``pdoc`` is the granularity
knob: 1 keeps the page whole where no separator weighs 10, 11 splits down to single blocks.
Regions are disjoint by construction (each split is along a band no block crosses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...deadline import check_deadline
from ...errors import InputFileError, SegmentationError, UsageError
from ...model import PageCapture, Segment, Segmentation
from ...page.reading import reading_text
from .. import register_segmenter
from ..geometry import granularity_level, screenshot_pixels
from ._blocks import VisualBlocks, common_depth, extract_blocks
from ._separators import SeparatorWeights, find_separators, weigh

MAX_DOC = 11.0


@register_segmenter("vips")
@dataclass
class VipsSegmenter:
    """VIPS with its one parameter (``pdoc``) and the separator rule weights as options.

    Parameters
    ----------
    pdoc
        Permitted degree of coherence, 1–11: a region is a segment once its DoC ≥ pdoc; higher is
        finer. ECIR'21 ran VIPS at 6; the default 6.5 is the held-out choice on the 11 annotated
        dev pages (leave-one-page-out over pdoc, container and column weights and
        ``keep_records``: 6.5 for 8 of 11 pages and best on all; ``eval/results/webseg-dev.md``).
    granularity
        The shared coarse ↔ fine scale (``coarse``, ``medium``, ``fine`` or a number in [0, 1]);
        when given it sets ``pdoc`` = ``pdoc_medium`` + 4 · (level − 0.5), so coarse is one pdoc
        below medium and fine one above.
    pdoc_medium
        The pdoc that ``granularity=medium`` stands for.
    gap_unit_px, max_gap_weight
        A gap adds gap / unit to the weight, at most the cap.
    rule_weight, background_weight, heading_weight, font_change_weight, column_weight
        What a drawn rule (``<hr>`` or a screenshot line), a background change, a heading after a
        horizontal separator, a font-size change and a vertical separator add.
    dom_boundary_weight, dom_nested_weight
        Added when the blocks on both sides lie in different children of the region's common DOM
        container, and (per level, at most two) when they share a deeper sub-container.
    size_weight, screen_height_px
        A region's DoC is lowered by size_weight × log2(1 + height / screen height): a region
        taller than a screen is less coherent than one people take in at a glance.
    container_weight
        Added when the blocks on both sides lie in different content containers (sections,
        lists, tables, forms: ``_blocks.CONTAINER_TAGS``).
    keep_records
        A region that is exactly one element of a run of three or more same-tag siblings (a
        post of a thread, a comment, a result, a table row) is one segment: people outline a
        post whole, its author column and body together.
    grow_to_containers
        A segment's box is the union of the boxes of the largest DOM containers whose blocks all
        lie in it (their padding, borders and background included, as people outline a box)
        where such a box meets no other segment's block; ``False``: the union of its blocks.
    use_screenshot
        Read rules and background colours from the screenshot when the capture has one.
    min_segment_area
        Regions with a smaller box (px²) are dropped.
    """

    pdoc: float = 6.5
    granularity: str | float | None = None
    pdoc_medium: float = 6.5
    gap_unit_px: float = 12.0
    max_gap_weight: float = 4.0
    rule_weight: float = 3.0
    background_weight: float = 2.5
    heading_weight: float = 1.5
    font_change_weight: float = 1.0
    column_weight: float = 1.0
    dom_boundary_weight: float = 1.5
    dom_nested_weight: float = -0.5
    container_weight: float = 0.0
    size_weight: float = 1.0
    screen_height_px: float = 768.0
    keep_records: bool = True
    grow_to_containers: bool = True
    use_screenshot: bool = True
    min_segment_area: float = 16.0
    name: str = "vips"

    @property
    def needs_screenshot(self) -> bool:
        """Separators are read from pixels only with ``use_screenshot``."""
        return self.use_screenshot
    weights: SeparatorWeights = field(init=False, repr=False)
    """The separator rule weights the options above make up."""

    def __post_init__(self) -> None:
        if self.granularity is not None:
            level = granularity_level(self.granularity, "vips")
            self.pdoc = self.pdoc_medium + (level - 0.5) * 4.0
        if not 1.0 <= self.pdoc <= MAX_DOC:
            raise UsageError(f"vips: pdoc must be in [1, 11], got {self.pdoc}")
        if self.gap_unit_px <= 0:
            raise UsageError(f"vips: gap_unit_px must be > 0, got {self.gap_unit_px}")
        self.weights = SeparatorWeights(
            gap_unit_px=self.gap_unit_px, max_gap_weight=self.max_gap_weight,
            rule=self.rule_weight, background=self.background_weight,
            heading=self.heading_weight, font_change=self.font_change_weight,
            column=self.column_weight, dom_boundary=self.dom_boundary_weight,
            dom_nested=self.dom_nested_weight, container=self.container_weight)

    def segment(self, page: PageCapture) -> Segmentation:
        blocks = extract_blocks(page)
        if not blocks.node_ids or page.width <= 0 or page.height <= 0:
            raise SegmentationError(f"{page.url or page.page_id}: the capture has no visible "
                                    f"content")
        image = self._image(page)
        regions = self.content_structure(blocks, image)
        boxes = (_container_boxes(page, blocks, [region for region, _ in regions])
                 if self.grow_to_containers else
                 [tuple(float(v) for v in (*blocks.boxes[r, :2].min(axis=0),
                                           *blocks.boxes[r, 2:].max(axis=0))) for r, _ in regions])
        segments = []
        for (region, doc), box in zip(regions, boxes):
            if (box[2] - box[0]) * (box[3] - box[1]) < self.min_segment_area:
                continue
            node_ids = _subtree_ids(page, [blocks.node_ids[i] for i in region])
            segment = Segment.from_box(str(len(segments)), box, node_ids)
            segment.text = reading_text(page, node_ids)
            segment.extra["doc"] = doc
            segments.append(segment)
        return Segmentation(page.page_id, self.name, page.width, page.height, segments)

    def content_structure(self, blocks: VisualBlocks,
                          image: np.ndarray | None) -> list[tuple[np.ndarray, float]]:
        """The leaf regions of the content structure (block indices, DoC), in reading order."""
        emitted: list[tuple[np.ndarray, float]] = []
        stack = [np.arange(len(blocks.node_ids))]
        tolerance = self.weights.overlap_tolerance_px
        seen: dict[tuple, float] = {}
        while stack:
            check_deadline("segmentation")
            whole = stack.pop()
            region = whole[~blocks.overflow[whole]]
            if not len(region):
                region, whole = whole, whole[:0]
            boxes = blocks.boxes[region]
            separators = (find_separators(boxes, 1, tolerance)
                          + find_separators(boxes, 0, tolerance))
            if self.keep_records and _one_record(blocks, whole):
                separators = []  # one post, item or row of a repeated run is one unit
            if not separators:
                emitted.append((np.sort(np.concatenate([region, whole[blocks.overflow[whole]]])),
                                MAX_DOC))
                continue
            weigh(separators, region, blocks, image, self.weights, seen)
            heaviest = max(separator.weight for separator in separators)
            height = float(boxes[:, 3].max() - boxes[:, 1].min())
            tallness = self.size_weight * np.log2(1.0 + height / self.screen_height_px)
            doc = float(np.clip(MAX_DOC - heaviest - tallness, 1.0, MAX_DOC))
            if doc >= self.pdoc:
                emitted.append((np.sort(np.concatenate([region, whole[blocks.overflow[whole]]])),
                                doc))
                continue
            axis = max(separators, key=lambda separator: separator.weight).axis
            cuts = sorted((s for s in separators
                           if s.axis == axis and s.weight >= heaviest - 1e-9),
                          key=lambda s: s.start)
            parts, taken = [], np.zeros(len(region), dtype=bool)
            for separator in cuts:
                part = separator.before[~taken[separator.before]]
                taken[part] = True
                parts.append(part)
            parts.append(np.flatnonzero(~taken))
            members = [list(region[part]) for part in parts]
            for block in whole[blocks.overflow[whole]]:
                members[_nearest_relative(blocks, int(block), region, parts)].append(block)
            stack.extend(np.sort(np.asarray(part, dtype=int))
                         for part in reversed(members) if part)
        return emitted

    def _image(self, page: PageCapture) -> np.ndarray | None:
        """The screenshot as an RGB array, or ``None`` when there is none to read."""
        if not self.use_screenshot or page.screenshot is None or not Path(page.screenshot).exists():
            return None
        image = screenshot_pixels(page.screenshot)
        if image is None:
            raise InputFileError(f"{page.screenshot}: unreadable screenshot")
        return image


def _one_record(blocks: VisualBlocks, region: np.ndarray) -> bool:
    """Whether the region's blocks are exactly those of one repeated element (see
    ``keep_records``)."""
    if len(region) < 2:
        return False
    first, last = blocks.paths[int(region.min())], blocks.paths[int(region.max())]
    depth = common_depth(first, last)
    if depth == 0:
        return False
    common = first[depth - 1]
    return common in blocks.records and blocks.leaves_below[common] == len(region)


def _container_boxes(page: PageCapture, blocks: VisualBlocks,
                     regions: list[np.ndarray]) -> list[tuple[float, float, float, float]]:
    """Per region, the union of the boxes of its maximal containers (see ``grow_to_containers``)."""
    from ...page.reading import clip_box

    owner = np.full(len(blocks.node_ids), -1)
    for number, region in enumerate(regions):
        owner[region] = number
    result = []
    for number, region in enumerate(regions):
        outside = blocks.boxes[owner != number]
        inside: dict[int, int] = {}
        for block in region:
            for ancestor in blocks.paths[block][1:]:
                inside[ancestor] = inside.get(ancestor, 0) + 1
        boxes = []
        for block in region:
            chosen = blocks.boxes[block]
            for ancestor in blocks.paths[block][1:]:  # the outermost container that fits
                if inside[ancestor] != blocks.leaves_below[ancestor]:
                    continue
                box = np.asarray(clip_box(page.nodes[ancestor].bbox, page.width, page.height))
                meets = ((np.minimum(box[2], outside[:, 2]) > np.maximum(box[0], outside[:, 0]))
                         & (np.minimum(box[3], outside[:, 3]) > np.maximum(box[1], outside[:, 1])))
                if not meets.any():
                    chosen = box
                    break
            boxes.append(chosen)
        stacked = np.asarray(boxes)
        result.append((float(stacked[:, 0].min()), float(stacked[:, 1].min()),
                       float(stacked[:, 2].max()), float(stacked[:, 3].max())))
    return result


def _nearest_relative(blocks: VisualBlocks, block: int, region: np.ndarray,
                      parts: list[np.ndarray]) -> int:
    """The part holding the block's closest DOM relative (longest shared ancestor path)."""
    path = blocks.paths[block]
    best, best_depth = 0, -1
    for number, part in enumerate(parts):
        for other in region[part]:
            depth = common_depth(path, blocks.paths[other])
            if depth > best_depth:
                best, best_depth = number, depth
    return best


def _subtree_ids(page: PageCapture, roots: list[int]) -> list[int]:
    ids: list[int] = []
    for root in roots:
        ids.append(root)
        ids.extend(page.descendants(root))
    return sorted(set(ids))
