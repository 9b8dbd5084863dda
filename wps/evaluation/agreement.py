"""Annotator agreement, as ``calculate-agreement.R`` + ``calculate-averaged-agreement.R`` (§7).

All segmentations (at most five, as in R) are clustered together; entry [i, j] of a BCubed precision
matrix has segmentation i as algorithm and j as truth. The averaged agreement is the mean over the
lower triangle of F1(P[j,i], P[i,j]) and of max(P[j,i], P[i,j]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import UsageError
from ..webis.segmentation_json import WebisSegmentations, parse_segmentations
from .bcubed import f1_score, precision_matrix
from .geometry import segment_geometry
from .resources import load_page
from .sizes import canonical_size_function, node_clustering, pixel_clustering, pixel_overlay

MAX_SEGMENTATIONS = 5
AGREEMENT_FILE_NAMES = {
    "pixels": "pixel",
    "edges-fine": "edges-fine",
    "edges-coarse": "edges-coarse",
    "nodes": "identity",
    "chars": "ncharacters",
}
"""The R script's output file stem of each size function."""


@dataclass(slots=True)
class AgreementResult:
    """Pairwise BCubed precision matrices per size function, and their averaged agreement."""

    names: list[str]
    matrices: dict[str, np.ndarray] = field(default_factory=dict)

    def mean_f1(self, size_function: str) -> float:
        return _lower_mean(self.matrices[size_function], f1_score)

    def mean_max(self, size_function: str) -> float:
        return _lower_mean(self.matrices[size_function], max)

    def averaged_table(self) -> str:
        """The ``calculate-averaged-agreement.R`` output (one line per matrix file)."""
        lines = ["#file f1 max"]
        for name in sorted(self.matrices, key=lambda n: AGREEMENT_FILE_NAMES[n]):
            f1, maximum = _r(self.mean_f1(name)), _r(self.mean_max(name))
            lines.append(f"{AGREEMENT_FILE_NAMES[name]}.txt {f1} {maximum}")
        return "\n".join(lines) + "\n"

    def matrix_text(self, size_function: str) -> str:
        """``write.table`` of the precision matrix: space separated, 15 significant digits."""
        return "".join(
            " ".join(_r(v) for v in row) + "\n" for row in self.matrices[size_function]
        )


def _r(value: float) -> str:
    return "NA" if math.isnan(value) else f"{value:.15g}"


def _lower_mean(matrix: np.ndarray, combine) -> float:
    values = [
        combine(matrix[j, i], matrix[i, j])
        for i in range(matrix.shape[0])
        for j in range(i)
    ]
    return float(np.mean(values)) if values else math.nan


def agreement(
    segmentations: WebisSegmentations | dict,
    *,
    pattern: str = ".*",
    size_functions: Sequence[str] = ("pixels", "edges-fine", "edges-coarse", "nodes", "chars"),
    resources_dir: str | Path | None = None,
    precision: float = 1.0,
) -> AgreementResult:
    """Pairwise agreement of the (first five) segmentations matching ``pattern``.

    Resources (nodes, edge masks) come from ``resources_dir`` or the input file's folder. As in R,
    ``chars`` is left out when the page has no text clusters.
    """
    task = parse_segmentations(segmentations).select(pattern)
    names = list(task.segmentations)[:MAX_SEGMENTATIONS]
    if len(names) < 2:
        raise UsageError(
            f"{task.source}: agreement needs at least 2 segmentations, got {len(names)}"
        )
    lengths = [len(task.segmentations[n]) for n in names]
    geometries = [segment_geometry(s) for n in names for s in task.segmentations[n]]
    functions = [canonical_size_function(f) for f in size_functions]
    page = None
    if any(f != "pixels" for f in functions):
        page = load_page(resources_dir or Path(task.source).parent)
    result = AgreementResult(names)
    overlay = None
    for name in functions:
        if name in ("nodes", "chars"):
            clustering = node_clustering(geometries, lengths, page, name)
            if name == "chars" and clustering.membership.shape[0] == 0:
                continue
        else:
            overlay = overlay or pixel_overlay(geometries, lengths, precision)
            clustering = pixel_clustering(overlay, name, page)
        result.matrices[name] = precision_matrix(clustering)
    return result
