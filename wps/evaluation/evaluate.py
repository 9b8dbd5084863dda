"""``evaluate``: an algorithm segmentation against a ground truth (``evaluate-segmentation.R``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..webis.segmentation_json import (
    MultiPolygonJson,
    WebisSegmentations,
    check_same_page,
    parse_segmentations,
    read_segmentations,
)
from .bcubed import BCubedScore, score
from .geometry import segment_geometry
from .resources import GroundTruthPage, load_page
from .sizes import (
    NODE_TYPES,
    PIXEL_TYPES,
    SIZE_FUNCTIONS,
    canonical_size_function,
    node_clustering,
    pixel_clustering,
    pixel_overlay,
)


@dataclass(slots=True)
class EvaluationResult:
    """BCubed scores of one algorithm segmentation per size function."""

    page_id: str
    algorithm: str
    ground_truth: str
    results: dict[str, BCubedScore] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``wps eval --format json`` object (NaN as ``None``)."""
        return {
            "id": self.page_id,
            "algorithm": self.algorithm,
            "ground_truth": self.ground_truth,
            "results": {name: value.to_json() for name, value in self.results.items()},
        }

    def to_csv(self) -> str:
        """R's ``write.csv`` layout, one row per size function, ``NA`` for NaN."""
        lines = ['"","bcubed.precision","bcubed.recall","bcubed.f1"']
        for name, value in self.results.items():
            cells = [_r_number(v) for v in (value.precision, value.recall, value.f1)]
            lines.append(",".join([f'"{name}"', *cells]))
        return "\n".join(lines) + "\n"


def _r_number(value: float) -> str:
    if math.isnan(value):
        return "NA"
    return f"{value:.15g}"


def full_page_segment(width: int, height: int) -> MultiPolygonJson:
    """R's default segment for an empty segmentation: 0..width × 0..height."""
    return [[[[0, 0], [0, height], [width, height], [width, 0], [0, 0]]]]


def evaluate(
    algorithm: str | Path | WebisSegmentations | Mapping[str, Any],
    ground_truth: str | Path,
    *,
    algorithm_segmentation: str = ".*",
    ground_truth_segmentation: str = ".*",
    size_functions: Sequence[str] = SIZE_FUNCTIONS,
    default_segmentation: bool = False,
    resources_dir: str | Path | None = None,
    precision: float = 1.0,
) -> EvaluationResult:
    """Extended BCubed P/R/F1 of one algorithm segmentation for each size function.

    ``ground_truth`` is a ground-truth JSON whose folder (or ``resources_dir``) holds
    ``nodes.csv``, ``nodes-texts.csv`` and the edge PNGs. ``algorithm`` may be a file, a parsed
    :class:`WebisSegmentations` or a Webis JSON dict. Both patterns must select exactly one
    segmentation. An empty algorithm segmentation is an error unless ``default_segmentation``
    makes it one full-page segment (the baseline).
    """
    functions = [canonical_size_function(name) for name in size_functions]
    if not functions:
        raise UsageError("no size function given")
    if isinstance(algorithm, (str, Path)):
        algorithm_file = read_segmentations(algorithm)
    else:
        algorithm_file = parse_segmentations(algorithm)
    algorithm_name, algorithm_segments = algorithm_file.select_one(algorithm_segmentation)
    truth_file = read_segmentations(ground_truth)
    truth_name, truth_segments = truth_file.select_one(ground_truth_segmentation)
    check_same_page(truth_file, algorithm_file)
    if not algorithm_segments:
        if not default_segmentation:
            raise UsageError(
                f"{algorithm_file.source}: segmentation {algorithm_name!r} has no segments "
                "(use --default-segmentation to score it as one full-page segment)"
            )
        algorithm_segments = [full_page_segment(algorithm_file.width, algorithm_file.height)]
    if not truth_segments:
        raise UsageError(f"{truth_file.source}: segmentation {truth_name!r} has no segments")
    page = load_page(Path(resources_dir) if resources_dir else Path(ground_truth).parent)
    results = score_segments(truth_segments, algorithm_segments, functions, page, precision)
    return EvaluationResult(truth_file.id, algorithm_name, truth_name, results)


def score_segments(
    truth_segments: Sequence[MultiPolygonJson],
    algorithm_segments: Sequence[MultiPolygonJson],
    size_functions: Sequence[str],
    page: GroundTruthPage,
    precision: float = 1.0,
) -> dict[str, BCubedScore]:
    """Scores for already validated segments (truth first, as R concatenates them)."""
    segments = [segment_geometry(s) for s in [*truth_segments, *algorithm_segments]]
    lengths = [len(truth_segments), len(algorithm_segments)]
    results: dict[str, BCubedScore] = {}
    overlay = None
    for name in size_functions:
        if name in PIXEL_TYPES:
            if overlay is None:
                overlay = pixel_overlay(segments, lengths, precision)
            clustering = pixel_clustering(overlay, name, page)
        elif name in NODE_TYPES:
            clustering = node_clustering(segments, lengths, page, name)
        else:  # pragma: no cover - canonical_size_function rejects these
            raise UsageError(f"unknown size function {name!r}")
        results[name] = score(clustering, algorithm=1, truth=0)
    return results
