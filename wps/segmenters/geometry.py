"""Helpers every segmenter shares: the granularity scale, the screenshot's pixels, separators
between boxes, fitting nodes into containers.

Boxes, visibility and reading order, which the later steps read too, are
:mod:`wps.page.reading`'s. A segmenter that needs one of these imports it from here instead of
keeping its own copy, and no segmenter borrows another one's internals.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..model import Node

__all__ = ["GRANULARITY_LEVELS", "assign_to_smallest", "granularity_level",
           "screenshot_pixels", "shared_screenshot", "Separator", "find_separators"]

GRANULARITY_LEVELS = {"coarse": 0.25, "medium": 0.5, "fine": 0.75}
"""The named points of the shared ``granularity`` option, on a scale from 0 (coarsest) to 1."""

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
