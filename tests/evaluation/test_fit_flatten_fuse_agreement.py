"""Re-fit, flatten, re-fuse and agreement against the R outputs on page 000000."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import shapely

from wps.evaluation import (
    agreement,
    fit_segmentations,
    flatten_segmentations,
    fuse_segmentations,
    read_segmentations,
)
from wps.evaluation.agreement import AGREEMENT_FILE_NAMES
from wps.evaluation.fuse import average_linkage, cut_tree
from wps.evaluation.geometry import segment_geometry


def _assert_same_geometry(got: list, expected: list) -> None:
    """Same number of segments, pairwise symmetric difference area 0, in the same order."""
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        difference = shapely.symmetric_difference(segment_geometry(ours), segment_geometry(theirs))
        assert difference.area == 0


def test_refit_matches_r(webis_sample: Path) -> None:
    page = webis_sample / "000000"
    fitted = fit_segmentations(read_segmentations(page / "annotations.json"), page / "nodes.csv")
    expected = read_segmentations(webis_sample / "reference-outputs" / "refitted-annotations.json")
    assert list(fitted.segmentations) == list(expected.segmentations)
    for name, segments in expected.segmentations.items():
        _assert_same_geometry(fitted.segmentations[name], segments)
    # one annotation has a duplicate after fitting: 13 raw segments, 12 fitted
    assert len(fitted.segmentations["annotation-34X6J5FLPTYB68UHZM9Y8Q5S3XAQJZ.fitted"]) == 12


def test_fit_and_flatten_mmdetection_match_r(webis_sample: Path) -> None:
    raw = read_segmentations(
        webis_sample / "extras" / "cikm20-repo-history" / "segmentations" / "mmdetection"
        / "000000.json"
    )
    inputs = webis_sample / "reference-outputs" / "algorithm-inputs"
    fitted = fit_segmentations(raw, webis_sample / "000000" / "nodes.csv",
                               pattern="mmdetection_segms")
    assert list(fitted.segmentations) == ["mmdetection_segms.fitted"]
    expected = read_segmentations(inputs / "mmdetection-fitted.json")
    _assert_same_geometry(fitted.segmentations["mmdetection_segms.fitted"],
                          expected.segmentations["mmdetection"])
    flattened = flatten_segmentations(expected)
    expected_flat = read_segmentations(inputs / "mmdetection-fitted-flattened.json")
    _assert_same_geometry(flattened.segmentations["mmdetection"],
                          expected_flat.segmentations["mmdetection"])
    pieces = [segment_geometry(s) for s in flattened.segmentations["mmdetection"]]
    for i, a in enumerate(pieces):
        for b in pieces[i + 1:]:
            assert shapely.intersection(a, b).area == 0


def test_refuse_matches_r(webis_sample: Path) -> None:
    fused = fuse_segmentations(
        read_segmentations(webis_sample / "000000" / "fitted-annotations.json"),
        min_annotators=3, disagreement_thresholds=0.5,
    )
    expected = read_segmentations(webis_sample / "reference-outputs" / "refused-ground-truth.json")
    assert list(fused.segmentations) == ["disagreement0.5"]
    _assert_same_geometry(fused.segmentations["disagreement0.5"],
                          expected.segmentations["disagreement0.5"])
    truth = read_segmentations(webis_sample / "000000" / "ground-truth.json")
    _assert_same_geometry(fused.segmentations["disagreement0.5"],
                          truth.segmentations["majority-vote"])


def test_agreement_matches_r(webis_sample: Path) -> None:
    result = agreement(read_segmentations(webis_sample / "000000" / "fitted-annotations.json"),
                       pattern="fitted")
    folder = webis_sample / "reference-outputs" / "agreement"
    for name, stem in AGREEMENT_FILE_NAMES.items():
        expected = np.loadtxt(folder / f"{stem}.txt")
        np.testing.assert_allclose(result.matrices[name], expected, rtol=0, atol=1e-12)
    lines = (folder / "averaged-agreement.txt").read_text().split("\n")[1:]
    for line in filter(None, lines):
        stem, f1, maximum = line.split()
        name = {f"{v}.txt": k for k, v in AGREEMENT_FILE_NAMES.items()}[stem]
        assert abs(result.mean_f1(name) - float(f1)) <= 1e-12
        assert abs(result.mean_max(name) - float(maximum)) <= 1e-12
    assert result.averaged_table().splitlines()[0] == "#file f1 max"


def test_average_linkage_by_hand() -> None:
    # d(a,b)=.2, d(a,c)=.6, d(b,c)=.8; members 1, 3, 1 → merge a,b at .2;
    # d(ab, c) = (1*.6 + 3*.8) / 4 = .75
    distances = np.array([[0, 0.2, 0.6], [0.2, 0, 0.8], [0.6, 0.8, 0]])
    merges, heights = average_linkage(distances, np.array([1.0, 3.0, 1.0]))
    assert merges.tolist() == [[0, 1], [0, 2]]
    np.testing.assert_allclose(heights, [0.2, 0.75])
    assert cut_tree(merges, heights, 3, 0.5).tolist() == [1, 1, 2]
    assert cut_tree(merges, heights, 3, 0.75).tolist() == [1, 1, 1]
    assert cut_tree(merges, heights, 3, 0.1).tolist() == [1, 2, 3]
    # unweighted the second height would be (.6 + .8) / 2 = .7
    _, plain = average_linkage(distances, np.ones(3))
    np.testing.assert_allclose(plain, [0.2, 0.7])


def test_fitting_drops_invalid_and_empty_segments() -> None:
    bowtie = [[[[0, 0], [50, 50], [50, 0], [0, 50], [0, 0]]]]
    box = [[[[0, 0], [0, 20], [20, 20], [20, 0], [0, 0]]]]
    nodes = np.array([[0.0, 0.0, 10.0, 10.0], [12.0, 0.0, 20.0, 4.0], [60.0, 60.0, 70.0, 70.0]])
    data = {"id": "x", "width": 100, "height": 100, "segmentations": {"a": [bowtie, box, box]}}
    fitted = fit_segmentations(data, nodes).segmentations["a.fitted"]
    # the bowtie is invalid: fitted to nothing and removed; the duplicate box is removed
    assert len(fitted) == 1
    expected = shapely.union(shapely.box(0, 0, 10, 10), shapely.box(12, 0, 20, 4))
    assert shapely.symmetric_difference(segment_geometry(fitted[0]), expected).area == 0
