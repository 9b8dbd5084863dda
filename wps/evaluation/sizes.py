"""Clusters and their weights for the five size functions (webis-webseg-20.md §3.3).

A clustering is a membership matrix (clusters × segments of all segmentations concatenated) and a
weight per cluster. Pixel types cluster the regions of the planar overlay of the cleaned segments;
node types cluster the deduplicated ``nodes.csv`` rectangles that a segment fully contains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..errors import UsageError
from .edges import edge_weights
from .geometry import Overlay, clean_pixel_geometries, make_valid, planar_overlay
from .resources import GroundTruthPage

SIZE_FUNCTIONS = ("pixels", "edges-fine", "edges-coarse", "nodes", "chars")
SIZE_FUNCTION_ALIASES = {"area": "pixels", "identity": "nodes", "ncharacters": "chars"}
PIXEL_TYPES = ("pixels", "edges-fine", "edges-coarse")
NODE_TYPES = ("nodes", "chars")


def canonical_size_function(name: str) -> str:
    """``pixels`` for ``area`` etc.; unknown names are a usage error listing the valid ones."""
    canonical = SIZE_FUNCTION_ALIASES.get(name, name)
    if canonical not in SIZE_FUNCTIONS:
        valid = ", ".join([*SIZE_FUNCTIONS, *SIZE_FUNCTION_ALIASES])
        raise UsageError(f"unknown size function {name!r}; choose from {valid}")
    return canonical


@dataclass(slots=True)
class Clustering:
    """Clusters of elements: who is in which segment, and how much each cluster weighs."""

    membership: np.ndarray
    """Boolean, clusters × segments (all segmentations concatenated)."""
    weights: np.ndarray
    subsets: list[np.ndarray]
    """Column indices of each segmentation; empty segmentations are left out (R's GetSubsets)."""
    regions: np.ndarray | None = None
    """Geometry of each cluster where the caller needs it (node rectangles)."""


def segmentation_subsets(lengths: Sequence[int]) -> list[np.ndarray]:
    borders = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
    return [np.arange(a, b) for a, b in zip(borders[:-1], borders[1:]) if b > a]


@dataclass(slots=True)
class PixelOverlay:
    """The overlay regions of a set of segmentations, shared by the three pixel types."""

    overlay: Overlay
    membership: np.ndarray
    subsets: list[np.ndarray]


def pixel_overlay(
    segments: Sequence[BaseGeometry], lengths: Sequence[int], precision: float = 1.0
) -> PixelOverlay:
    """Clean all segments together and overlay them (``PixelBasedClusterings``).

    As in R, the region memberships index the segments *left after cleaning* while the subsets
    keep the original counts: a dropped segment shifts the later indices by one.
    """
    kept, _ = clean_pixel_geometries(segments, precision)
    overlay = planar_overlay(list(kept))
    membership = np.zeros((len(overlay.members), int(sum(lengths))), dtype=bool)
    for row, members in enumerate(overlay.members):
        membership[row, list(members)] = True
    return PixelOverlay(overlay, membership, segmentation_subsets(lengths))


def pixel_clustering(
    pixels: PixelOverlay, size_function: str, page: GroundTruthPage | None = None
) -> Clustering:
    if size_function == "pixels":
        weights = pixels.overlay.areas.copy()
    else:
        if page is None:
            raise UsageError(f"size function {size_function!r} needs the page's edge masks")
        edges = page.edge_pixels(size_function)
        weights = edge_weights(pixels.overlay.regions, edges)
    return Clustering(pixels.membership, weights.reshape(-1), pixels.subsets)


def node_clustering(
    segments: Sequence[BaseGeometry],
    lengths: Sequence[int],
    page: GroundTruthPage,
    size_function: str,
) -> Clustering:
    """``NodeBasedClustering``: merged identical rectangles, membership by full containment.

    Containment is tested on the raw segments (only made valid, never snapped or rounded).
    """
    boxes = page.boxes
    if boxes.shape[0] == 0:
        return Clustering(np.zeros((0, int(sum(lengths))), dtype=bool), np.zeros(0),
                          segmentation_subsets(lengths))
    if size_function == "nodes":
        node_sizes = np.ones(boxes.shape[0])
    else:
        counts = page.character_counts
        node_sizes = np.asarray([counts.get(xpath, 0.0) for xpath in page.xpaths])
    # clusters in the order of each rectangle's first node, as R keeps them
    _, first, inverse = np.unique(boxes, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    inverse = rank[inverse.reshape(-1)]
    unique_boxes = boxes[first[order]]
    sizes = np.bincount(inverse, weights=node_sizes, minlength=unique_boxes.shape[0])
    keep = sizes > 0
    unique_boxes, sizes = unique_boxes[keep], sizes[keep]
    rectangles = shapely.polygons(_rectangle_rings(unique_boxes))
    valid = make_valid(np.asarray(list(segments), dtype=object))
    shapely.prepare(valid)
    if valid.size:
        contains = shapely.contains(valid[:, None], rectangles[None, :]).T
    else:
        contains = np.zeros((rectangles.size, 0), dtype=bool)
    return Clustering(contains, sizes, segmentation_subsets(lengths), rectangles)


def _rectangle_rings(boxes: np.ndarray) -> np.ndarray:
    """Rings in R's ``as.MULTIPOLYGON.rectangle`` order: (l,b) (r,b) (r,t) (l,t) (l,b)."""
    left, top, right, bottom = boxes.T
    xs = np.stack([left, right, right, left, left], axis=1)
    ys = np.stack([bottom, bottom, top, top, bottom], axis=1)
    return np.stack([xs, ys], axis=2)
