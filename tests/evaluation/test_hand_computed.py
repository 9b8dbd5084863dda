"""Extended BCubed on a 10×10 page whose answers are computed by hand in the comments."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from wps.evaluation import evaluate
from wps.evaluation.bcubed import f1_score, score
from wps.evaluation.geometry import segment_geometry
from wps.evaluation.resources import load_page
from wps.evaluation.sizes import Clustering, node_clustering

TOP = [[[[0, 0], [0, 5], [10, 5], [10, 0], [0, 0]]]]
BOTTOM = [[[[0, 5], [0, 10], [10, 10], [10, 5], [0, 5]]]]
FULL = [[[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]]]
LEFT = [[[[0, 0], [0, 10], [5, 10], [5, 0], [0, 0]]]]
CORNER = [[[[8, 0], [8, 1], [10, 1], [10, 0], [8, 0]]]]
OVERSIZE = [[[[-5, -5], [-5, 15], [15, 15], [15, -5], [-5, -5]]]]

NODES = """left,bottom,right,top,xpath
0,5,10,0,/HTML[1]/BODY[1]/DIV[1]
0,10,10,5,/HTML[1]/BODY[1]/DIV[2]
1,4,3,2,/HTML[1]/BODY[1]/DIV[1]/text()[1]
1,4,3,2,/HTML[1]/BODY[1]/DIV[1]/SPAN[1]
4,7,6,3,/HTML[1]/BODY[1]/DIV[3]
6,9,8,7,/HTML[1]/BODY[1]/DIV[2]/text()[1]
"""
TEXTS = '''"xpath","ncharacter","text"
"/HTML[1]/BODY[1]/DIV[1]/text()[1]",2,"ab"
"/HTML[1]/BODY[1]/DIV[2]/text()[1]",3,"cde"
'''
# edge pixels (x, y): two only in the top half, one only in the bottom half, and (2, 5): in the
# bottom half but within 1 px of the top half, so the grown top region counts it too
EDGES = [(7, 1), (8, 2), (2, 5), (3, 8)]


@pytest.fixture(scope="module")
def tiny_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from PIL import Image

    folder = tmp_path_factory.mktemp("tiny-page")
    (folder / "nodes.csv").write_text(NODES)
    (folder / "nodes-texts.csv").write_text(TEXTS)
    mask = np.zeros((10, 10), dtype=bool)
    for x, y in EDGES:
        mask[y, x] = True
    for name in ("screenshot-edges-fine.png", "screenshot-edges-coarse.png"):
        Image.fromarray(mask).convert("1").save(folder / name)
    _write(folder / "ground-truth.json", "majority-vote", [TOP, BOTTOM])
    return folder


def _write(path: Path, name: str, segments: list) -> Path:
    path.write_text(json.dumps({"id": "tiny", "width": 10, "height": 10,
                                "segmentations": {name: segments}}))
    return path


def _evaluate(page: Path, segments: list, **options):
    algorithm = {"id": "tiny", "width": 10, "height": 10, "segmentations": {"alg": segments}}
    return evaluate(algorithm, page / "ground-truth.json", **options).results


def test_full_page_against_two_halves(tiny_page: Path) -> None:
    results = _evaluate(tiny_page, [FULL])
    # pixels: every element shares the one algorithm segment with all 100 px, 50 of them in its
    # truth half → P = .5, R = 1
    assert results["pixels"].precision == pytest.approx(0.5, abs=1e-12)
    assert results["pixels"].recall == 1
    assert results["pixels"].f1 == pytest.approx(2 / 3, abs=1e-12)
    # edges: top region weighs 3 (two own + the grown-into one), bottom 2:
    # P = (3·3/5 + 2·2/5) / 5 = .52
    assert results["edges-fine"].precision == pytest.approx(0.52, abs=1e-12)
    assert results["edges-coarse"].recall == 1
    # nodes: clusters n1 (1), n2 (1), n3=n4 merged (2), n5 straddling (1), n6 (1); truth groups
    # {n1, n34} and {n2, n6}; P = (1·.5 + 2·.5 + 1·⅓ + 1·⅓ + 1·0) / 6 = 13/36
    assert results["nodes"].precision == pytest.approx(13 / 36, abs=1e-12)
    assert results["nodes"].recall == 1
    # chars: only n34 (2 chars) and n6 (3 chars) remain: P = (2·.4 + 3·.6) / 5 = .52
    assert results["chars"].precision == pytest.approx(0.52, abs=1e-12)
    assert results["chars"].f1 == pytest.approx(f1_score(0.52, 1.0), abs=1e-12)


def test_left_half_against_top_and_bottom(tiny_page: Path) -> None:
    # regions TL, TR, BL, BR of 25 px; P: TL and BL each agree with half their segment mates
    # → .5; R: TL, BL .5, TR, BR 0 → .25; F = 1/3
    pixels = _evaluate(tiny_page, [LEFT], size_functions=["area"])["pixels"]
    assert pixels.precision == pytest.approx(0.5, abs=1e-12)
    assert pixels.recall == pytest.approx(0.25, abs=1e-12)
    assert pixels.f1 == pytest.approx(1 / 3, abs=1e-12)


def test_identical_segmentation_scores_one(tiny_page: Path) -> None:
    for value in _evaluate(tiny_page, [BOTTOM, TOP]).values():
        assert (value.precision, value.recall, value.f1) == (1, 1, 1)


def test_segment_past_the_page_keeps_its_area(tiny_page: Path) -> None:
    # 400 px segment; 100 px of it lie on the page: P = 2·50·(50/400) / 400 = .03125
    pixels = _evaluate(tiny_page, [OVERSIZE], size_functions=["pixels"])["pixels"]
    assert pixels.precision == pytest.approx(0.03125, abs=1e-12)
    assert pixels.recall == 1


def test_no_node_in_algorithm_segment_gives_nan(tiny_page: Path) -> None:
    results = _evaluate(tiny_page, [CORNER])
    for name in ("nodes", "chars"):
        assert math.isnan(results[name].precision) and results[name].recall == 0
        assert math.isnan(results[name].f1)
    assert results["pixels"].precision == 1
    # recall: only the 2 px corner region agrees, with 2 of its truth half's 50 px → 2·(2/50)/100
    assert results["pixels"].recall == pytest.approx(2 * (2 / 50) / 100, abs=1e-15)


def test_empty_segmentation_with_default_is_the_full_page(tiny_page: Path) -> None:
    default = _evaluate(tiny_page, [], default_segmentation=True)
    full = _evaluate(tiny_page, [FULL])
    assert default == full


def test_node_membership_is_containment_not_overlap(tiny_page: Path) -> None:
    page = load_page(tiny_page)
    exact = segment_geometry([[[[1, 2], [1, 4], [3, 4], [3, 2], [1, 2]]]])  # n3/n4 exactly
    half = segment_geometry([[[[0, 0], [0, 3], [10, 3], [10, 0], [0, 0]]]])  # cuts n3/n4
    clustering = node_clustering([exact, half], [1, 1], page, "nodes")
    boxes = clustering.regions
    index = [i for i, box in enumerate(boxes) if box.bounds == (1.0, 2.0, 3.0, 4.0)][0]
    assert clustering.weights[index] == 2  # identical rectangles merged
    assert clustering.membership[index].tolist() == [True, False]
    assert clustering.membership.sum() == 1


def test_score_formula_with_overlapping_segments() -> None:
    # two clusters (weights 1, 1), algorithm segments {a, b} and {a, b} (duplicates), truth {a, b}
    # once: A = 2 everywhere, G = 1 → every pair scores min(2, 1)/2 = .5 → P = .5, R = 1
    membership = np.array([[True, True, True], [True, True, True]])
    clustering = Clustering(membership, np.array([1.0, 1.0]), [np.array([0]), np.array([1, 2])])
    value = score(clustering, algorithm=1, truth=0)
    assert value.precision == pytest.approx(0.5)
    assert value.recall == 1
    assert value.f1 == pytest.approx(2 / 3)


def test_page_resources_are_cached_until_a_file_changes(tiny_page: Path) -> None:
    import os

    first = load_page(tiny_page)
    first.edge_pixels("edges-fine")
    assert load_page(tiny_page) is first  # a second algorithm reuses nodes and edge pixels
    texts = tiny_page / "nodes-texts.csv"
    stat = texts.stat()
    os.utime(texts, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert load_page(tiny_page) is not first


def test_zero_char_clusters_are_dropped(tiny_page: Path) -> None:
    page = load_page(tiny_page)
    segments = [segment_geometry(FULL)]
    nodes = node_clustering(segments, [1], page, "nodes")
    chars = node_clustering(segments, [1], page, "chars")
    assert nodes.weights.tolist() == [1, 1, 2, 1, 1]  # first-occurrence order, n3/n4 merged
    assert chars.weights.tolist() == [2, 3]
