"""sf's n-ary intersection (``st_intersection(x)``), step by step, at any size.

sf's ``CPL_nary_intersection`` takes the geometries in order; each one is cut against the pieces
so far that a GEOS STRtree of all of them (rebuilt at every step) names, in the order the tree
names them: each non-empty intersection becomes a new piece (its members: the piece's and the
new geometry), the rest of the geometry a piece of its own. The pieces are the regions each
distinct set of geometries covers; their order is the tree's.

Rebuilding a tree of every piece at every step costs time in the square of the pieces. Up to
:data:`R_ORDER_LIMIT` geometries (a page's segmentations have far fewer) that is what happens
here, so pieces come in R's order. Beyond, the pieces near a geometry are found through the
input envelopes (:class:`NearPieces`) and taken in the order they were made, and pieces that
can only touch it are not cut against it: the same pieces with an area (what flattening and
fusion keep), in another order, without R's pieces of no area (the lines where two segments
touch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

R_ORDER_LIMIT = 2000
"""Most geometries whose pieces come in R's order (a tree of every piece at every step)."""

Candidates = Callable[[int, BaseGeometry, list[BaseGeometry], list[list[int]]], list[int]]
"""The pieces (indices into the pieces so far) that geometry ``i`` is cut against, in order;
called with ``i``, the geometry, the pieces and their members."""


def nary_intersection(
    geometries: Sequence[BaseGeometry],
) -> tuple[list[BaseGeometry], list[tuple[int, ...]]]:
    """The pieces of ``st_intersection(x)`` and the indices of the geometries covering each;
    pieces keep their geometry type (flattening splits a GEOMETRYCOLLECTION piece into one
    segment per polygon; the evaluation uses the faster
    :func:`~wps.evaluation.geometry.planar_overlay`)."""
    candidates: Candidates = (_r_order if len(geometries) <= R_ORDER_LIMIT
                              else NearPieces(geometries))
    out: list[BaseGeometry] = []
    index: list[list[int]] = []
    failures = 0
    for i, geom in enumerate(geometries):
        if geom is None or geom.is_empty:
            continue
        for k in candidates(i, geom, out, index) if out else []:
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


def _r_order(_i: int, geom: BaseGeometry, out: list[BaseGeometry],
             _members: list[list[int]]) -> list[int]:
    """sf's choice: a new STRtree of every piece, queried with the geometry."""
    return shapely.STRtree(np.asarray(out, dtype=object)).query(geom).tolist()


class NearPieces:
    """The pieces whose envelope overlaps a geometry's with some area, in the order they were
    made, found without a tree of all pieces.

    A piece lies inside every geometry covering it, so inside the envelope of its *anchor*, the
    member with the smallest envelope. The pieces near geometry ``i`` are therefore among those
    anchored to the earlier geometries whose envelopes meet its own, which one query of a tree
    of the input envelopes gives for every ``i`` at once, kept where the envelopes overlap with
    some area. (Pieces that only touch the geometry can meet it in a line at most, a piece of no
    area that flattening and fusion drop.)
    """

    def __init__(self, geometries: Sequence[BaseGeometry]) -> None:
        envelopes = shapely.envelope(np.asarray(geometries, dtype=object))
        later, earlier = shapely.STRtree(envelopes).query(envelopes)
        bounds = shapely.bounds(envelopes)
        keep = (earlier < later) & _overlap_with_area(bounds[earlier], bounds[later])
        later, earlier = later[keep], earlier[keep]
        order = np.argsort(later, kind="stable")
        self._earlier = earlier[order]
        self._starts = np.searchsorted(later[order], np.arange(len(envelopes) + 1))
        self._sizes = np.nan_to_num(shapely.area(envelopes), nan=np.inf)
        self._anchored: dict[int, list[int]] = {}
        self._seen = 0

    def __call__(self, i: int, geom: BaseGeometry, out: list[BaseGeometry],
                 members: list[list[int]]) -> list[int]:
        if self._starts[i] == self._starts[i + 1]:
            return []  # no earlier envelope overlaps its own (tiles that only touch)
        for k in range(self._seen, len(out)):  # the pieces made since the last call
            anchor = min(members[k], key=self._sizes.__getitem__)
            self._anchored.setdefault(anchor, []).append(k)
        self._seen = len(out)
        near = {k for j in self._earlier[self._starts[i]:self._starts[i + 1]].tolist()
                for k in self._anchored.get(j, ())}
        if not near:
            return []
        left, bottom, right, top = geom.bounds  # a few pieces: plain floats beat numpy here
        overlapping = []
        for k in sorted(near):
            piece_left, piece_bottom, piece_right, piece_top = out[k].bounds  # NaN if empty
            if (min(piece_right, right) > max(piece_left, left)
                    and min(piece_top, top) > max(piece_bottom, bottom)):
                overlapping.append(k)
        return overlapping


def _overlap_with_area(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether boxes (rows of left, bottom, right, top) overlap with some area, row by row.

    A piece's envelope lies inside its anchor's: when the anchor's envelope meets a geometry's
    without area, so does the piece's, and the pair is dropped at the start."""
    return ((np.minimum(first[..., 2], second[..., 2]) > np.maximum(first[..., 0], second[..., 0]))
            & (np.minimum(first[..., 3], second[..., 3]) > np.maximum(first[..., 1],
                                                                    second[..., 1])))
