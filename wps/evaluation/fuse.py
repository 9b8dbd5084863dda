"""Fusion of several segmentations into one, as ``fuse-segmentations.R`` (webis-webseg-20.md §6).

Overlay regions of all annotators' segments (pixel clustering), keep regions covered by at least
``min_annotators`` annotators, measure the share of annotators that never put two regions in one
segment, cluster the regions by area-weighted average linkage (R's ``hclust(members=...)``), cut
at the disagreement threshold and union each cluster's regions into one segment.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import shapely
from shapely import MultiPolygon
from shapely.geometry.base import BaseGeometry

from ..errors import UsageError
from ..webis.segmentation_json import WebisSegmentations, parse_segmentations
from .edges import edge_weights
from .geometry import (
    as_multipolygon,
    as_multipolygons,
    clean_pixel_geometries,
    segment_geometries,
    segment_json,
    segments_json,
)
from .nary import nary_intersection
from .resources import load_page
from .sizes import canonical_size_function, node_clustering, segmentation_subsets

MIN_ANNOTATORS = 3
DISAGREEMENT_THRESHOLDS = (0.1, 0.3, 0.5, 0.7, 0.9)


def average_linkage(distances: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``hclust(d, method="average", members=members)``: merges (0-based pairs) and heights.

    A port of the nearest-neighbour-list algorithm of R's ``hclust.f`` (Murtagh), so ties are
    broken as R breaks them: the first pair in row order with the least dissimilarity.
    """
    n = distances.shape[0]
    diss = distances.astype(np.float64).copy()
    membr = members.astype(np.float64).copy()
    active = np.ones(n, dtype=bool)
    nearest = np.zeros(n, dtype=int)
    nearest_distance = np.full(n, np.inf)
    for i in range(n - 1):
        row = diss[i, i + 1:]
        j = int(np.argmin(row))
        nearest[i], nearest_distance[i] = i + 1 + j, row[j]
    merges, heights = [], []
    for _ in range(n - 1):
        candidates = np.flatnonzero(active[: n - 1])
        best = candidates[np.argmin(nearest_distance[candidates])]
        least = nearest_distance[best]
        i2, j2 = sorted((int(best), int(nearest[best])))
        merges.append((i2, j2))
        heights.append(least)
        active[j2] = False
        least_new, new_nearest = np.inf, 0
        for k in np.flatnonzero(active):
            if k == i2:
                continue
            value = (membr[i2] * diss[i2, k] + membr[j2] * diss[j2, k]) / (membr[i2] + membr[j2])
            diss[i2, k] = diss[k, i2] = value
            if i2 < k and value < least_new:
                least_new, new_nearest = value, int(k)
            if i2 > k and value < nearest_distance[k]:
                nearest_distance[k], nearest[k] = value, i2
        membr[i2] += membr[j2]
        nearest_distance[i2], nearest[i2] = least_new, new_nearest
        for i in range(n - 1):
            if active[i] and nearest[i] in (i2, j2):
                later = np.flatnonzero(active[i + 1:]) + i + 1
                if later.size == 0:
                    nearest_distance[i] = np.inf
                    continue
                values = diss[i, later]
                position = int(np.argmin(values))
                nearest[i], nearest_distance[i] = int(later[position]), values[position]
    return np.asarray(merges, dtype=int).reshape(-1, 2), np.asarray(heights, dtype=float)


def cut_tree(merges: np.ndarray, heights: np.ndarray, n: int, threshold: float) -> np.ndarray:
    """R's ``cutree(h=threshold)`` with heights rounded to 6 decimals: 1-based cluster numbers
    assigned in order of the observations."""
    rounded = np.round(heights, 6)
    above = np.flatnonzero(rounded > threshold)
    performed = int(above[0]) if above.size else len(rounded)
    sets = _DisjointSets(n)
    for a, b in merges[:performed]:
        sets.join(int(a), int(b))
    labels, numbers = np.zeros(n, dtype=int), {}
    for observation in range(n):
        root = sets.find(observation)
        numbers.setdefault(root, len(numbers) + 1)
        labels[observation] = numbers[root]
    return labels


class _DisjointSets:
    """Union-find over ``0..n-1`` (path halving)."""

    __slots__ = ("parent",)

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(self, keep: int, other: int) -> None:
        """Put ``other``'s set under ``keep``'s root."""
        self.parent[self.find(other)] = self.find(keep)


def disagreement_matrix(membership: np.ndarray, subsets: Sequence[np.ndarray]) -> np.ndarray:
    """Share of annotators with no single segment holding both clusters (own overlaps ignored)."""
    together = np.zeros((membership.shape[0], membership.shape[0]))
    for subset in subsets:
        columns = membership[:, subset].astype(np.float64)
        together += (columns @ columns.T) > 0
    annotators = len(subsets)
    return (annotators - together) / annotators


def _annotator_counts(members: Sequence[np.ndarray], subsets: Sequence[np.ndarray],
                      columns: int) -> np.ndarray:
    """For each region, how many annotators have a segment covering it (``members``: the
    segment columns covering it; ``subsets``: each annotator's columns)."""
    owner = np.full(columns, -1)
    for annotator, subset in enumerate(subsets):
        owner[subset] = annotator
    region, column = _pairs(members)
    pairs = np.unique(np.stack([region, owner[column]], axis=1)[owner[column] >= 0], axis=0)
    return np.bincount(pairs[:, 0], minlength=len(members)).astype(int)


def _pairs(members: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(region, column) for every segment column covering a region."""
    sizes = np.fromiter((len(covering) for covering in members), dtype=int, count=len(members))
    columns = np.concatenate([np.asarray(c, dtype=int) for c in members]) if len(members) \
        else np.zeros(0, dtype=int)
    return np.repeat(np.arange(len(members)), sizes), columns


def _membership(members: Sequence[np.ndarray], columns: int) -> np.ndarray:
    """The regions × segment columns matrix of which segments cover which region (only of the
    regions kept: all regions of a large input would not fit in memory)."""
    membership = np.zeros((len(members), columns), dtype=bool)
    for row, covering in enumerate(members):
        membership[row, covering] = True
    return membership


def _components(members: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The regions linked through shared segments (each component's regions in order; the
    components in order of their first region).

    Two regions no segment covers together are at disagreement 1, the most there is; so are
    all clusters of two components, whatever merges happen inside each. Average linkage below
    height 1 therefore merges within components only, in each the merges it makes of the
    component alone: clustering component by component gives the same clusters below 1, in
    time and memory of the square of the largest component instead of all regions."""
    region, column = _pairs(members)
    sets = _DisjointSets(len(members))
    order = np.argsort(column, kind="stable")
    region, column = region[order].tolist(), column[order].tolist()
    for k in range(1, len(region)):
        if column[k] == column[k - 1]:
            sets.join(region[k - 1], region[k])
    roots = np.asarray([sets.find(x) for x in range(len(members))], dtype=int)
    order = np.argsort(roots, kind="stable")
    cuts = np.flatnonzero(np.diff(roots[order])) + 1
    return sorted(np.split(order, cuts), key=lambda component: int(component[0]))


def cluster_labels(members: Sequence[np.ndarray], subsets: Sequence[np.ndarray],
                   columns: int, weights: np.ndarray,
                   thresholds: Sequence[float]) -> list[np.ndarray]:
    """For each threshold, R's ``cutree(hclust(disagreement, "average", members=weights),
    h=threshold)`` of the regions (``members``: the segment columns covering each), as 1-based
    cluster numbers in order of the regions, computed component by component
    (:func:`_components`); a threshold of 1 or more merges everything, as R does."""
    n = len(members)
    local = [np.zeros(n, dtype=int) for _ in thresholds]
    for number, component in enumerate(_components(members)):
        if len(component) == 1:
            for labels in local:
                labels[component] = number * n + 1
            continue
        used = np.unique(np.concatenate([members[i] for i in component]))
        position = np.full(columns, -1)
        position[used] = np.arange(len(used))
        membership = _membership([position[members[i]] for i in component], len(used))
        local_subsets = [position[subset][position[subset] >= 0] for subset in subsets]
        merges, heights = average_linkage(disagreement_matrix(membership, local_subsets),
                                          weights[component])
        for labels, threshold in zip(local, thresholds):
            labels[component] = number * n + cut_tree(merges, heights, len(component),
                                                      threshold)
    result = []
    for labels, threshold in zip(local, thresholds):
        if threshold >= 1:
            labels = np.zeros(n, dtype=int)
        _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=int)
        rank[np.argsort(first)] = np.arange(1, len(first) + 1)  # numbered as they appear
        result.append(rank[inverse.reshape(-1)])
    return result


def _merge(geometries: Sequence[BaseGeometry]) -> MultiPolygon:
    """R's ``MergeClusters``: union with self-snapping (1 px) and simplify(0) at every step."""
    merged = _tidy(geometries[0])
    for geometry in geometries[1:]:
        merged = _tidy(shapely.union(merged, _tidy(geometry)))
    return as_multipolygon(merged)


def _tidy(geometry):  # one geometry, or an array of them
    return shapely.simplify(shapely.snap(geometry, geometry, 1.0), 0.0, preserve_topology=False)


def _merged_clusters(regions: Sequence[BaseGeometry], labels: np.ndarray) -> list:
    """The Webis segment of each cluster (1-based ``labels``), in order of the labels; the
    clusters of one region are tidied all at once (:func:`_merge` of one region)."""
    order = np.argsort(labels, kind="stable")  # each cluster's regions in their order
    clusters = np.split(order, np.cumsum(np.bincount(labels)[1:])[:-1])
    single = np.flatnonzero([len(cluster) == 1 for cluster in clusters])
    alone = np.asarray([regions[clusters[i][0]] for i in single], dtype=object)
    segments: list = [None] * len(clusters)
    for i, segment in zip(single.tolist(), segments_json(as_multipolygons(_tidy(alone)))):
        segments[i] = segment
    for i, cluster in enumerate(clusters):
        if len(cluster) > 1:
            segments[i] = segment_json(_merge([regions[k] for k in cluster]))
    return segments


def fuse_segmentations(
    segmentations: WebisSegmentations | dict,
    *,
    pattern: str = ".*",
    min_annotators: int = MIN_ANNOTATORS,
    disagreement_thresholds: float | Sequence[float] = 0.5,
    size_function: str = "pixels",
    resources_dir: str | Path | None = None,
    precision: float = 1.0,
) -> WebisSegmentations:
    """Fuse the segmentations matching ``pattern``; one output ``disagreement<t>`` per threshold.

    ``resources_dir`` (default: the input file's folder) is needed for the edge and node types.
    """
    task = parse_segmentations(segmentations).select(pattern)
    thresholds = (
        [float(disagreement_thresholds)]
        if isinstance(disagreement_thresholds, (int, float))
        else [float(t) for t in disagreement_thresholds]
    )
    if not thresholds:
        raise UsageError("at least one disagreement threshold is needed")
    if not all(np.isfinite(thresholds)):
        raise UsageError(f"disagreement thresholds must be finite numbers, got {thresholds}")
    if min_annotators < 0:
        raise UsageError(f"segments min annotators must be ≥ 0, but was {min_annotators}")
    size_function = canonical_size_function(size_function)
    lengths = [len(segments) for segments in task.segmentations.values()]
    geometries = segment_geometries(
        [s for segments in task.segmentations.values() for s in segments])
    subsets = segmentation_subsets(lengths)
    if size_function in ("nodes", "chars") or size_function.startswith("edges"):
        directory = resources_dir or Path(task.source).parent
        page = load_page(directory)
    if size_function in ("nodes", "chars"):
        clustering = node_clustering(geometries, lengths, page, size_function)
        regions = list(clustering.regions)
        members = [np.flatnonzero(row) for row in clustering.membership]
        columns, weights = clustering.membership.shape[1], clustering.weights
    else:
        kept, _ = clean_pixel_geometries(geometries, precision)
        pieces, covering = nary_intersection(list(kept))
        pieces = np.asarray(pieces, dtype=object)
        areas = shapely.area(pieces) if len(pieces) else np.zeros(0)
        keep = np.flatnonzero(areas >= 1)
        regions = list(as_multipolygons(pieces[keep]))
        members = [np.asarray(covering[i], dtype=int) for i in keep]
        columns = int(sum(lengths))
        if size_function == "pixels":
            weights = np.asarray(areas[keep], dtype=float)
        else:
            edges = page.edge_pixels(size_function)
            weights = edge_weights(regions, edges)
    selected = np.flatnonzero(_annotator_counts(members, subsets, columns) >= min_annotators)
    regions = [regions[i] for i in selected]
    members, weights = [members[i] for i in selected], weights[selected]
    clusterings = cluster_labels(members, subsets, columns, weights, thresholds) \
        if len(regions) > 1 else [None] * len(thresholds)
    fused: dict = {}
    for threshold, labels in zip(thresholds, clusterings):
        name = f"disagreement{threshold:.15g}"
        if labels is None:
            fused[name] = [segment_json(r) for r in regions]
            continue
        fused[name] = _merged_clusters(regions, labels)
    return WebisSegmentations(task.id, task.width, task.height, fused, task.source)
