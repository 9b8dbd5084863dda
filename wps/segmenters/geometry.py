"""Box and reading-order helpers every segmenter shares.

Boxes are :data:`wps.model.Box` tuples ``(left, top, right, bottom)`` in page pixels, y down. A
segmenter that needs one of these imports it from here instead of keeping its own copy, and no
segmenter borrows another one's internals.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from ..model import Box, Node, PageCapture
from ..text.normalise import clean_piece

__all__ = ["GRANULARITY_LEVELS", "HIDDEN_VISIBILITY", "INLINE_TAGS", "assign_to_smallest",
           "box_area", "clip_box", "enclosing_block", "granularity_level", "intersect_boxes",
           "reading_lines", "reading_text", "screenshot_pixels", "shared_screenshot", "shown",
           "union_box", "Separator", "find_separators"]

GRANULARITY_LEVELS = {"coarse": 0.25, "medium": 0.5, "fine": 0.75}
"""The named points of the shared ``granularity`` option, on a scale from 0 (coarsest) to 1."""

HIDDEN_VISIBILITY = ("hidden", "collapse")
"""CSS ``visibility`` values that hide a node (its box still takes up space)."""

# Tags that flow inside a line; text nodes under them belong to the enclosing block for reading
# order, and they do not make a record "compound".
INLINE_TAGS = frozenset(
    "A ABBR B BDI BDO BR CITE CODE DATA DFN EM FONT I IMG KBD LABEL MARK Q S SAMP SMALL SPAN "
    "STRONG SUB SUP TIME U VAR WBR INPUT BUTTON SELECT TEXTAREA SVG PICTURE #text".split()
)


def granularity_level(value: str | float, owner: str) -> float:
    """The shared ``-O granularity=`` value as a number in [0, 1] (coarse → fine).

    Every segmenter maps this one scale onto its own knob (VIPS's pdoc, xycut's segment count,
    dom-cohesion's fence), so ``granularity=fine`` means finer segments whichever runs.
    """
    from ..errors import UsageError

    if isinstance(value, str):
        if value in GRANULARITY_LEVELS:
            return GRANULARITY_LEVELS[value]
        try:
            value = float(value)
        except ValueError:
            raise UsageError(f"{owner}: granularity must be one of {sorted(GRANULARITY_LEVELS)} "
                             f"or a number in [0, 1], got {value!r}") from None
    if isinstance(value, bool) or not 0.0 <= float(value) <= 1.0:
        raise UsageError(f"{owner}: granularity must be one of {sorted(GRANULARITY_LEVELS)} "
                         f"or a number in [0, 1], got {value!r}")
    return float(value)


_DECODED: ContextVar[dict[str, Any] | None] = ContextVar("wps_decoded_screenshots", default=None)


@contextmanager
def shared_screenshot() -> Iterator[None]:
    """Within the block every segmenter decodes a screenshot once (an ensemble's members share
    it); outside, each decodes its own, so a segmenter's time includes its decoding."""
    token = _DECODED.set({})
    try:
        yield
    finally:
        _DECODED.reset(token)


def screenshot_pixels(path: str | Path, grey: bool = False) -> Any:
    """The screenshot as an RGB (or grey) uint8 array, read-only; ``None`` when unreadable."""
    import cv2

    decoded = _DECODED.get()
    key = str(path)
    if decoded is None:
        if grey:
            return cv2.imread(key, cv2.IMREAD_GRAYSCALE)
        pixels = cv2.imread(key, cv2.IMREAD_COLOR)
        return None if pixels is None else cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB)
    if key not in decoded:
        pixels = cv2.imread(key, cv2.IMREAD_COLOR)
        if pixels is not None:
            pixels = cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB)
            pixels.setflags(write=False)
        decoded[key] = pixels
    rgb = decoded[key]
    if rgb is None or not grey:
        return rgb
    if key + "#grey" not in decoded:
        decoded[key + "#grey"] = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    return decoded[key + "#grey"]


@dataclass(slots=True)
class Separator:
    """A band that no box of a region crosses (VIPS §3.2): VIPS weighs these, dom-cohesion reads
    columns from them."""

    axis: int
    """1: horizontal band (splits top from bottom), 0: vertical band (left from right)."""
    start: float
    end: float
    before: np.ndarray
    """Indices (into the region's blocks) of the blocks before the separator."""
    after: np.ndarray
    weight: float = 0.0


def find_separators(boxes: np.ndarray, axis: int, tolerance: float) -> list[Separator]:
    """Every band along ``axis`` (1: y, 0: x) that no box of ``boxes`` crosses."""
    if len(boxes) < 2:
        return []
    low, high = boxes[:, axis], boxes[:, axis + 2]
    order = np.argsort(low, kind="stable")
    reach = np.maximum.accumulate(high[order])
    starts = low[order]
    cuts = np.flatnonzero(starts[1:] >= reach[:-1] - tolerance)
    return [Separator(axis, float(reach[k]), float(max(starts[k + 1], reach[k])),
                      order[: k + 1], order[k + 1:]) for k in cuts]


def box_area(box: Box) -> float:
    """Area of the box; 0 for an empty or inverted one."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def union_box(boxes: Iterable[Box]) -> Box:
    """The smallest box holding all ``boxes`` (at least one)."""
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def intersect_boxes(first: Box, second: Box) -> Box:
    """The overlap of two boxes; inverted (right < left or bottom < top) when they do not meet."""
    return (max(first[0], second[0]), max(first[1], second[1]),
            min(first[2], second[2]), min(first[3], second[3]))


def clip_box(box: Box, width: float, height: float) -> Box:
    """The box clamped to ``[0, width] × [0, height]``."""
    return (min(max(box[0], 0.0), float(width)), min(max(box[1], 0.0), float(height)),
            min(max(box[2], 0.0), float(width)), min(max(box[3], 0.0), float(height)))


def shown(style: Mapping[str, str]) -> bool:
    """False when the computed style hides the node (``display: none`` or hidden visibility)."""
    return style.get("display") != "none" and style.get("visibility") not in HIDDEN_VISIBILITY


def reading_text(page: PageCapture, node_ids: list[int]) -> str:
    """Text of the nodes in document order: spaces within a block element, newlines between."""
    return "\n".join(" ".join(piece for _, piece in line)
                     for line in reading_lines(page, node_ids))


def reading_lines(page: PageCapture, node_ids: list[int]) -> list[list[tuple[int, str]]]:
    """The lines of :func:`reading_text`: runs of text nodes in one block element, each as
    (node id, cleaned text) pairs."""
    lines: list[list[tuple[int, str]]] = []
    previous_block: int | None = None
    for node_id in node_ids:
        node = page.nodes[node_id]
        piece = clean_piece(node.text) if node.is_text else ""
        if not piece:
            continue
        block = enclosing_block(page, node_id)
        if not lines or block != previous_block:
            lines.append([])
        lines[-1].append((node_id, piece))
        previous_block = block
    return lines


def enclosing_block(page: PageCapture, node_id: int) -> int | None:
    """The nearest ancestor that is not an inline element (``None`` at the top)."""
    parent = page.nodes[node_id].parent
    while parent is not None and page.nodes[parent].tag in INLINE_TAGS:
        parent = page.nodes[parent].parent
    return parent


def assign_to_smallest(nodes: list[Node], holds: Any, areas: Any) -> list[list[int]]:
    """Node ids per container: each node goes to the smallest container that holds it (``holds``:
    a nodes × containers boolean array; ``areas``: each container's area); ids sorted. The
    0.75-containment fitting of the screenshot segmenters (xycut cells, SAM masks)."""
    import numpy as np

    assigned: list[list[int]] = [[] for _ in range(len(areas))]
    if not nodes or not len(areas):
        return assigned
    best = np.argmin(np.where(holds, np.asarray(areas, dtype=np.float64)[None, :], np.inf), axis=1)
    for node, container, held in zip(nodes, best, holds.any(axis=1)):
        if held:
            assigned[int(container)].append(node.id)
    for ids in assigned:
        ids.sort()
    return assigned
