"""The raster route for edge weights equals R's literal buffer-and-count route."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wps.evaluation.edges import edge_weight_by_buffer, edge_weights
from wps.evaluation.geometry import segment_geometry
from wps.evaluation.resources import EdgePixels, load_page
from wps.evaluation.sizes import pixel_overlay
from wps.webis.segmentation_json import read_segmentations


def test_raster_route_matches_buffer_route(webis_sample: Path) -> None:
    page = load_page(webis_sample / "000000")
    truth = read_segmentations(webis_sample / "000000" / "ground-truth.json")
    segments = truth.segmentations["majority-vote"]
    extra = [
        [[[[-100, -100], [-100, 6000], [1500, 6000], [1500, -100], [-100, -100]]]],  # past page
        [[[[100, 100], [700, 100], [100, 900], [100, 100]]]],  # diagonal: buffer route
        [[[[300, 2000], [300, 2600], [900, 2600], [900, 2000], [300, 2000]],
          [[400, 2100], [800, 2100], [800, 2500], [400, 2500], [400, 2100]]]],  # with a hole
    ]
    geometries = [segment_geometry(s) for s in [*segments, *extra]]
    overlay = pixel_overlay(geometries, [len(segments), len(extra)])
    assert len(overlay.overlay.regions) > 20
    for name in ("edges-fine", "edges-coarse"):
        edges = page.edge_pixels(name)
        fast = edge_weights(overlay.overlay.regions, edges)
        literal = np.array([edge_weight_by_buffer(r, edges) for r in overlay.overlay.regions])
        np.testing.assert_array_equal(fast, literal)
        assert fast.sum() > edges.values.sum()  # pixels near borders count in several regions


def test_growth_reaches_diagonal_neighbours_only() -> None:
    # a 2×2 region at (4..6, 4..6); edge pixels at every position of a 10×10 mask
    ys, xs = np.mgrid[0:10, 0:10]
    edges = EdgePixels(xs.ravel().astype(np.int32), ys.ravel().astype(np.int32),
                       np.ones(100), 10, 10)
    region = segment_geometry([[[[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]])
    assert edge_weights([region], edges).tolist() == [16.0]  # the 4×4 dilation
    assert edge_weight_by_buffer(region, edges) == 16.0
