"""sf's n-ary intersection (``st_intersection(x)``), step by step, at any size.

sf's ``CPL_nary_intersection`` takes the geometries in order; each one is cut against the pieces
so far that a GEOS STRtree of all of them (rebuilt at every step) names, in the order the tree
names them: each non-empty intersection becomes a new piece (its members: the piece's and the
new geometry), the rest of the geometry a piece of its own. The pieces are the regions each
distinct set of geometries covers; their order is the tree's.

Rebuilding a tree of every piece at every step costs time in the square of the pieces. Up to
:data:`R_ORDER_LIMIT` geometries (a page's segmentations have far fewer) that is what happens
here, so pieces come in R's order. Beyond, the pieces near a geometry come from an index that
only grows (:class:`GrowingIndex`), in the order they were made, and pieces that can only touch
it are not cut against it: the same pieces with an area (what flattening and fusion keep), in
another order, without R's pieces of no area (the lines where two segments touch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

R_ORDER_LIMIT = 2000
"""Most geometries whose pieces come in R's order (a tree of every piece at every step)."""

Candidates = Callable[[list[BaseGeometry], BaseGeometry], list[int]]
"""The pieces (indices into the list so far) that a new geometry is cut against, in order."""


def nary_intersection(
    geometries: Sequence[BaseGeometry],
) -> tuple[list[BaseGeometry], list[tuple[int, ...]]]:
    """The pieces of ``st_intersection(x)`` and the indices of the geometries covering each;
    pieces keep their geometry type (flattening splits a GEOMETRYCOLLECTION piece into one
    segment per polygon; the evaluation uses the faster
    :func:`~wps.evaluation.geometry.planar_overlay`)."""
    candidates = _r_order if len(geometries) <= R_ORDER_LIMIT else GrowingIndex().candidates
    out: list[BaseGeometry] = []
    index: list[list[int]] = []
    failures = 0
    for i, geom in enumerate(geometries):
        if geom is None or geom.is_empty:
            continue
        for k in candidates(out, geom) if out else []:
            if out[k].is_empty:
                continue
            try:
                inters = shapely.intersection(out[k], geom)
            except shapely.errors.GEOSException:  # R counts these as "geometry errors"
                failures += 1
                continue
            if inters.is_empty:
                continue
            geom = shapely.difference(geom, inters)
            out[k] = shapely.difference(out[k], inters)
            out.append(inters)
            index.append([*index[k], i])
        if not geom.is_empty:
            out.append(geom)
            index.append([i])
    kept = [(g, tuple(sorted(idx))) for g, idx in zip(out, index) if not g.is_empty]
    return [g for g, _ in kept], [idx for _, idx in kept]


def _r_order(out: list[BaseGeometry], geom: BaseGeometry) -> list[int]:
    """sf's choice: a new STRtree of every piece, queried with the geometry."""
    return shapely.STRtree(np.asarray(out, dtype=object)).query(geom).tolist()


class GrowingIndex:
    """The pieces whose envelope meets a geometry's, in the order they were made.

    Pieces only shrink after they are made, so the envelope a piece had when it came in still
    holds it: each piece is indexed once, and what no longer meets is dropped at the query.
    New pieces wait in a short list; full lists become STRtrees that merge as a binary counter
    does (the logarithmic method), so a query asks O(log n) trees and each piece is in a
    rebuilt tree O(log n) times.
    """

    BUFFER = 256

    def __init__(self) -> None:
        self._seen = 0
        self._levels: list[tuple[shapely.STRtree, np.ndarray]] = []
        self._buffer: list[int] = []

    def candidates(self, out: list[BaseGeometry], geom: BaseGeometry) -> list[int]:
        """Pieces of ``out`` whose envelope overlaps ``geom`` 's with some area, ascending.

        A piece whose envelope only touches the geometry's can meet it in a line or a point
        at most: R makes that a piece of no area, which flattening and fusion drop."""
        self._add(out)
        found = [ids[tree.query(geom)] for tree, ids in self._levels]
        found.append(np.asarray(self._buffer, dtype=int))
        ids = np.unique(np.concatenate(found))
        if ids.size == 0:
            return []
        bounds = shapely.bounds(np.asarray([out[k] for k in ids], dtype=object))
        left, bottom, right, top = shapely.bounds(geom)
        overlaps = ((np.minimum(bounds[:, 2], right) > np.maximum(bounds[:, 0], left))
                    & (np.minimum(bounds[:, 3], top) > np.maximum(bounds[:, 1], bottom)))
        return ids[overlaps].tolist()

    def _add(self, out: list[BaseGeometry]) -> None:
        """Index the pieces made since the last query."""
        for k in range(self._seen, len(out)):
            self._buffer.append(k)
            if len(self._buffer) == self.BUFFER:
                self._push(np.asarray(self._buffer), out)
                self._buffer = []
        self._seen = len(out)

    def _push(self, ids: np.ndarray, out: list[BaseGeometry]) -> None:
        while self._levels and len(self._levels[-1][1]) <= len(ids):
            _, older = self._levels.pop()
            ids = np.concatenate([older, ids])
        envelopes = shapely.envelope(np.asarray([out[k] for k in ids], dtype=object))
        self._levels.append((shapely.STRtree(envelopes), ids))
