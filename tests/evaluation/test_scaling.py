"""Flattening and fusion scale with the number of segments, with the reference's results.

The snap of every segment to the vertices of all, and the n-ary intersection's tree of every
piece at every step, cost time in the square of the segments: 200,000 segments ran for hours.
The snap now takes only the vertices that can act (the same result, byte for byte, as GEOS
with the whole collection); the n-ary intersection keeps R's order up to ``R_ORDER_LIMIT``
geometries and beyond finds the pieces near a geometry through the input envelopes: the same
pieces with an area, in another order.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

from wps.evaluation import nary
from wps.evaluation.fuse import (
    _membership,
    average_linkage,
    cluster_labels,
    cut_tree,
    disagreement_matrix,
)
from wps.evaluation.geometry import (
    SNAP_TOLERANCE,
    as_multipolygon,
    as_multipolygons,
    segment_geometries,
    segment_geometry,
    segment_json,
    segments_json,
    snap_to_all,
)
from wps.evaluation.nary import nary_intersection

TILES = 20_000
HANG_S = 600
"""Hours before; a few seconds now (200,000 segments: ``scripts/bench_flatten_fuse.py``)."""


def _random_geometries(rng: np.random.Generator, count: int, spread: float) -> np.ndarray:
    """Boxes, polygons and tight clusters of vertices (closer than the snap tolerance), on and
    off the pixel grid, crowded into ``spread`` pixels."""
    geometries = []
    for _ in range(count):
        x, y = rng.uniform(0, spread, 2)
        if rng.random() < 0.5:
            x, y = np.round(x), np.round(y)
        kind = rng.integers(0, 3)
        if kind == 0:
            width, height = rng.uniform(0.3, 12, 2)
            geometries.append(shapely.box(x, y, x + width, y + height))
        else:
            scale = 3.0 if kind == 1 else 1.2
            points = rng.uniform(-scale, scale, (rng.integers(3, 8), 2)) + [x, y]
            geometries.append(shapely.convex_hull(shapely.multipoints(points)))
    return shapely.simplify(np.asarray(geometries, dtype=object), 0.0, preserve_topology=False)


def test_snapping_to_the_near_vertices_is_snapping_to_all():
    rng = np.random.default_rng(20)
    for _ in range(200):
        geometries = _random_geometries(rng, int(rng.integers(2, 40)), 30.0)
        everything = shapely.GeometryCollection(list(geometries))
        expected = shapely.snap(geometries, everything, SNAP_TOLERANCE)
        assert list(shapely.to_wkb(snap_to_all(geometries, SNAP_TOLERANCE))) == list(
            shapely.to_wkb(expected))


def _area_pieces(pieces, members) -> dict[tuple[int, ...], shapely.Geometry]:
    return {covering: piece for piece, covering in zip(pieces, members) if piece.area >= 1}


def test_pieces_found_through_the_input_envelopes_are_r_s_pieces(monkeypatch):
    geometries = list(_random_geometries(np.random.default_rng(21), 300, 120.0))
    r_order = _area_pieces(*nary_intersection(geometries))
    monkeypatch.setattr(nary, "R_ORDER_LIMIT", 0)
    indexed = _area_pieces(*nary_intersection(geometries))
    assert len(r_order) > 300 and sorted(indexed) == sorted(r_order)
    for covering, piece in r_order.items():
        assert shapely.symmetric_difference(piece, indexed[covering]).area < 1e-6


def _tiles(path: Path) -> Path:
    """``TILES`` 10-pixel tiles in rows of 100, each touching its neighbours."""
    segments = [[[[[x, y], [x + 10, y], [x + 10, y + 10], [x, y + 10], [x, y]]]]
                for x, y in ((10 * (n % 100), 10 * (n // 100)) for n in range(TILES))]
    path.write_text(json.dumps({"id": "tiles", "width": 1000, "height": TILES // 10,
                                "segmentations": {"tiles": segments}}), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("command", ["flatten", "fuse"])
def test_flatten_and_fuse_take_many_segments(command, tmp_path):
    """What they make of many segments (how fast: ``scripts/bench_flatten_fuse.py``; the bound
    here only stops a run that hangs)."""
    tiles, out = _tiles(tmp_path / "tiles.json"), tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "wps", command, "--input", str(tiles),
                           "--output", str(out)], capture_output=True, text=True,
                          timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))["segmentations"]
    segments = next(iter(result.values()))
    # fusion keeps regions that 3 annotators drew: one annotator's tiles give none
    assert len(segments) == (TILES if command == "flatten" else 0)


def _wkb(geometries) -> list[bytes]:
    return list(shapely.to_wkb(np.asarray(list(geometries), dtype=object)))


def test_vectorised_geometry_steps_equal_the_one_by_one_steps():
    """Segments to geometries, geometries to multipolygons and to Webis JSON, all at once: the
    same as one by one, for holes, several polygons, empty and flat geometries, collections."""
    rng = np.random.default_rng(25)
    geometries = list(_random_geometries(rng, 400, 60.0))
    holed = [shapely.difference(box, shapely.box(*np.add(box.bounds, [1, 1, -1, -1])))
             for box in (shapely.box(x, y, x + 5, y + 6) for x, y in rng.uniform(0, 50, (50, 2)))]
    several = [shapely.union(a, b) for a, b in zip(geometries[:100], geometries[100:200])]
    odd = [shapely.Polygon(), shapely.MultiPolygon(), shapely.box(0, 0, 0, 4)]
    mixed = np.asarray([*geometries, *holed, *several, *odd], dtype=object)
    rng.shuffle(mixed)
    assert _wkb(as_multipolygons(mixed)) == _wkb(as_multipolygon(g) for g in mixed)
    assert segments_json(mixed) == [segment_json(g) for g in mixed]
    collection = np.append(mixed, shapely.GeometryCollection([shapely.box(0, 0, 2, 2),
                                                              shapely.Point(5, 5)]))
    assert _wkb(as_multipolygons(collection)) == _wkb(as_multipolygon(g) for g in collection)
    assert segments_json(collection) == [segment_json(g) for g in collection]
    segments = [segment_json(g) for g in as_multipolygons(mixed)]
    assert _wkb(segment_geometries(segments)) == _wkb(segment_geometry(s) for s in segments)
    with pytest.raises(ValueError, match="at least 4 coordinates"):
        segment_geometries([*segments[:3], [[[[0, 0], [1, 1]]]]])


def test_clustering_by_components_is_the_clustering_of_all_regions():
    """Regions covered by the segments of 2-5 annotators, in groups that share no segment, with
    the ties that disagreement shares of few annotators bring: component by component, the
    clusters of R's average linkage of all regions at once, at every threshold."""
    rng = np.random.default_rng(26)
    thresholds = [-0.1, 0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0, 1.5]
    for _ in range(60):
        annotators = int(rng.integers(2, 6))
        per_annotator = int(rng.integers(3, 25))
        subsets = [np.arange(a * per_annotator, (a + 1) * per_annotator)
                   for a in range(annotators)]
        columns = annotators * per_annotator
        groups = int(rng.integers(1, 6))  # a segment belongs to one group: regions of two
        group_of = rng.integers(0, groups, columns)  # groups never share one
        members = []
        for _ in range(int(rng.integers(2, 60))):
            group = rng.integers(0, groups)
            pool = np.flatnonzero(group_of == group)
            if pool.size == 0:
                continue
            size = int(rng.integers(1, min(pool.size, 5) + 1))
            members.append(np.sort(rng.choice(pool, size, replace=False)))
        if len(members) < 2:
            continue
        weights = rng.integers(1, 50, len(members)).astype(float)
        merges, heights = average_linkage(
            disagreement_matrix(_membership(members, columns), subsets), weights)
        expected = [cut_tree(merges, heights, len(members), t) for t in thresholds]
        found = cluster_labels(members, subsets, columns, weights, thresholds)
        for threshold, want, got in zip(thresholds, expected, found):
            assert got.tolist() == want.tolist(), threshold
