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
from wps.evaluation.geometry import SNAP_TOLERANCE, snap_to_all
from wps.evaluation.nary import nary_intersection

TILES = 20_000
SECONDS = 120
"""Hours before; about 20 s on a loaded two-core machine now."""


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
    tiles, out = _tiles(tmp_path / "tiles.json"), tmp_path / "out.json"
    try:
        done = subprocess.run([sys.executable, "-m", "wps", command, "--input", str(tiles),
                               "--output", str(out)], capture_output=True, text=True,
                              timeout=SECONDS, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"wps {command} on {TILES} segments ran past {SECONDS} s")
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))["segmentations"]
    segments = next(iter(result.values()))
    # fusion keeps regions that 3 annotators drew: one annotator's tiles give none
    assert len(segments) == (TILES if command == "flatten" else 0)
