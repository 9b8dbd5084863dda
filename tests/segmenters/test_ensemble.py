"""The ensemble segmenter: Min-vote@k over members built by name (ECIR'21)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shared_data import SHARED, require_shared

from wps.errors import UnknownSegmenterError, UsageError
from wps.segmenters import build_segmenter

DEV_PAGE = SHARED / "webseg-dev" / "pages" / "wd00004"
MEMBERS = ("dom-cohesion", "vips", "xycut")


def geometry(segment):
    return shapely.MultiPolygon([shapely.Polygon(p[0], p[1:]) for p in segment.polygons])


@pytest.mark.parametrize("votes", [2, 3])
def test_fused_area_is_where_enough_members_agree(votes):
    from wps.webis import capture_from_webis

    page = capture_from_webis(require_shared(DEV_PAGE))
    fused = build_segmenter("ensemble", members=",".join(MEMBERS), min_votes=votes)
    segments = fused.segment(page).segments
    assert segments
    members = [[geometry(s) for s in build_segmenter(name).segment(page).segments]
               for name in MEMBERS]
    rng = np.random.default_rng(0)
    for segment in segments:
        shape = geometry(segment)
        left, top, right, bottom = shape.bounds
        xs, ys = rng.uniform(left, right, 400), rng.uniform(top, bottom, 400)
        inside = shapely.contains_xy(shape.buffer(-2), xs, ys)  # away from snapped borders
        for x, y in zip(xs[inside], ys[inside]):
            voters = sum(any(shapely.contains_xy(g, x, y) for g in member) for member in members)
            assert voters >= votes, (segment.id, x, y)
    seen: set[int] = set()
    for segment in segments:  # a node goes to one fused segment
        assert not seen & set(segment.node_ids)
        seen |= set(segment.node_ids)


def test_members_are_checked():
    with pytest.raises(UsageError):
        build_segmenter("ensemble", members="vips")
    with pytest.raises(UsageError):
        build_segmenter("ensemble", members="vips,vips")
    with pytest.raises(UsageError):
        build_segmenter("ensemble", members="vips,xycut", min_votes=3)
    with pytest.raises(UsageError):
        build_segmenter("ensemble", members="vips,ensemble")
    with pytest.raises(UnknownSegmenterError):
        build_segmenter("ensemble", members="vips,nosuch")
