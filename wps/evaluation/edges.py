"""Edge weights of overlay regions: mask pixels whose centre lies in the region grown by 1 px.

R buffers each region by 1 px (``st_buffer``) and sums the mask cells whose centres fall inside
(``raster::extract``). For a region with integer, axis-parallel edges that is exactly the region's
pixels dilated by a 3×3 square (a centre within 1 px of the region is 0.5 or 0.71 px from it; the
next ones are ≥ 1.5 px away). Such regions are rasterised together into one label image, strip by
strip (bounded memory), and every edge pixel adds its value to each distinct region label in its
3×3 neighbourhood. Other regions (diagonal or fractional edges) take the literal route: buffer and
test the centres with ``shapely.contains_xy``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .geometry import BUFFER_QUAD_SEGMENTS
from .resources import EdgePixels

STRIP_ROWS = 1024
"""Rows of the label image held at once (memory ~ STRIP_ROWS × page width × 4 bytes)."""


def edge_weights(regions: Sequence[BaseGeometry], edges: EdgePixels) -> np.ndarray:
    """Edge weight of every region (disjoint regions of one planar overlay)."""
    weights = np.zeros(len(regions))
    vertical_edges: list[np.ndarray] = []
    for index, region in enumerate(regions):
        spans = _vertical_edges(region)
        if spans is None:
            weights[index] = edge_weight_by_buffer(region, edges)
        elif spans.size:
            labelled = np.empty((spans.shape[0], 4), dtype=np.int64)
            labelled[:, :3] = spans
            labelled[:, 3] = index + 1
            vertical_edges.append(labelled)
    if vertical_edges and edges.xs.size:
        weights += _raster_weights(np.concatenate(vertical_edges), edges, len(regions))
    return weights


def edge_weight_by_buffer(region: BaseGeometry, edges: EdgePixels) -> float:
    """The literal R route for one region: buffer by 1 px, sum the mask at centres inside."""
    grown = shapely.buffer(region, 1.0, quad_segs=BUFFER_QUAD_SEGMENTS)
    if grown.is_empty:
        return 0.0
    left, top, right, bottom = grown.bounds
    xs, ys, values = edges.window(left, top, right, bottom)
    if xs.size == 0:
        return 0.0
    shapely.prepare(grown)
    return float(values[shapely.contains_xy(grown, xs, ys)].sum(dtype=np.float64))


def _vertical_edges(region: BaseGeometry) -> np.ndarray | None:
    """``(x, top, bottom)`` of the region's vertical ring edges, or None if any edge is diagonal
    or any coordinate fractional."""
    rings = shapely.get_rings(shapely.get_parts(region))
    if rings.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    coords, ring_index = shapely.get_coordinates(rings, return_index=True)
    if not np.all(coords == np.round(coords)) or np.abs(coords).max() > 2**40:
        return None
    same_ring = ring_index[1:] == ring_index[:-1]
    start, end = coords[:-1][same_ring], coords[1:][same_ring]
    vertical = start[:, 0] == end[:, 0]
    horizontal = start[:, 1] == end[:, 1]
    if not np.all(vertical | horizontal):
        return None
    keep = vertical & ~horizontal
    xs = start[keep, 0]
    tops = np.minimum(start[keep, 1], end[keep, 1])
    bottoms = np.maximum(start[keep, 1], end[keep, 1])
    return np.stack([xs, tops, bottoms], axis=1).astype(np.int64)


def _raster_weights(spans: np.ndarray, edges: EdgePixels, count: int) -> np.ndarray:
    """Sum edge values over the 3×3 neighbourhood labels of a strip-wise label image."""
    dtype = np.int32
    width = int(edges.width) + 2  # pixel columns -1 .. width
    weights = np.zeros(count + 1)
    # XOR events: a vertical edge at x toggles the label of every pixel column ≥ x in its rows
    columns = np.clip(spans[:, 0] + 1, 0, width)
    keep = columns < width
    columns, tops, bottoms, labels = columns[keep], spans[keep, 1], spans[keep, 2], spans[keep, 3]
    event_rows = np.concatenate([tops, bottoms])
    event_columns = np.concatenate([columns, columns])
    event_labels = np.concatenate([labels, labels]).astype(dtype)
    order = np.argsort(event_rows, kind="stable")
    event_rows, event_columns, event_labels = (
        event_rows[order], event_columns[order], event_labels[order]
    )
    height = int(edges.height)
    offsets = [dy * width + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    for strip_top in range(0, height, STRIP_ROWS):
        strip_bottom = min(strip_top + STRIP_ROWS, height)
        first_point = int(np.searchsorted(edges.ys, np.int32(strip_top), side="left"))
        last_point = int(np.searchsorted(edges.ys, np.int32(strip_bottom), side="left"))
        if first_point == last_point:
            continue
        # label rows strip_top - 1 .. strip_bottom (one row of margin on each side)
        row0 = strip_top - 1
        rows = strip_bottom - strip_top + 2
        image = np.zeros((rows, width), dtype=dtype)
        before = int(np.searchsorted(event_rows, row0, side="right"))
        np.bitwise_xor.at(image[0], event_columns[:before], event_labels[:before])
        inside = slice(before, int(np.searchsorted(event_rows, row0 + rows - 1, side="right")))
        np.bitwise_xor.at(image, (event_rows[inside] - row0, event_columns[inside]),
                          event_labels[inside])
        np.bitwise_xor.accumulate(image, axis=0, out=image)
        np.bitwise_xor.accumulate(image, axis=1, out=image)
        flat = image.ravel()
        base = (edges.ys[first_point:last_point].astype(np.int64) - row0) * width
        base += edges.xs[first_point:last_point] + 1
        values = edges.values[first_point:last_point]
        centre = flat[base]
        uniform = np.ones(base.shape, dtype=bool)
        for offset in offsets:
            if offset:
                uniform &= flat[base + offset] == centre
        weights += np.bincount(centre[uniform], weights=values[uniform], minlength=count + 1)
        mixed_base = base[~uniform]
        mixed = np.sort(np.stack([flat[mixed_base + offset] for offset in offsets], axis=1),
                        axis=1)
        distinct = np.ones(mixed.shape, dtype=bool)
        distinct[:, 1:] = mixed[:, 1:] != mixed[:, :-1]
        mixed_values = np.broadcast_to(values[~uniform][:, None], mixed.shape)
        weights += np.bincount(mixed[distinct], weights=mixed_values[distinct],
                               minlength=count + 1)
    return weights[1:]
