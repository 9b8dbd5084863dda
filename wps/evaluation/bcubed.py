"""Extended BCubed precision/recall/F1 over weighted clusters (webis-webseg-20.md §3.1-3.4).

``precision(clustering, algorithm, truth)`` is ``BCubedPrecisionMatrix[algorithm, truth]`` of the R
code: for each cluster r, the weighted mean over clusters s sharing an algorithm segment with r of
``min(A[r,s], G[r,s]) / A[r,s]``; then the weighted mean over clusters with a defined value. NaN
where nothing is defined. Clusters with identical membership rows are merged first (exact for
additive weights), so the pairwise matrices stay small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .sizes import Clustering


@dataclass(slots=True)
class BCubedScore:
    """BCubed precision, recall and F1 of one comparison; NaN where undefined."""

    precision: float
    recall: float
    f1: float

    def to_json(self) -> dict[str, float | None]:
        """JSON-ready values with NaN as ``None``."""
        return {
            key: (None if math.isnan(value) else value)
            for key, value in (("precision", self.precision), ("recall", self.recall),
                               ("f1", self.f1))
        }


def f1_score(precision: float, recall: float) -> float:
    """``2PR / (P + R)`` with R's NaN semantics (0/0 and NaN inputs give NaN)."""
    total = precision + recall
    if math.isnan(total) or total == 0:
        return math.nan
    return 2 * precision * recall / total


def _merged(clustering: Clustering) -> tuple[np.ndarray, np.ndarray]:
    membership = clustering.membership
    if membership.shape[0] == 0:
        return membership, clustering.weights
    packed = np.packbits(membership, axis=1)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    weights = np.bincount(inverse.reshape(-1), weights=clustering.weights, minlength=first.size)
    return membership[first], weights


def precision_matrix(clustering: Clustering) -> np.ndarray:
    """All pairwise precisions: entry [i, j] has segmentation i as algorithm, j as truth."""
    membership, weights = _merged(clustering)
    counts = [
        membership[:, subset].astype(np.float64) @ membership[:, subset].T.astype(np.float64)
        for subset in clustering.subsets
    ]
    size = len(counts)
    matrix = np.ones((size, size))
    for i in range(size):
        for j in range(size):
            if i != j:
                matrix[i, j] = _precision(counts[i], counts[j], weights)
    return matrix


def precision(clustering: Clustering, algorithm: int, truth: int) -> float:
    """BCubed precision of subset ``algorithm`` against subset ``truth``."""
    membership, weights = _merged(clustering)
    a_subset, t_subset = clustering.subsets[algorithm], clustering.subsets[truth]
    alg = membership[:, a_subset].astype(np.float64)
    gt = membership[:, t_subset].astype(np.float64)
    return _precision(alg @ alg.T, gt @ gt.T, weights)


def _precision(
    algorithm_counts: np.ndarray, truth_counts: np.ndarray, weights: np.ndarray
) -> float:
    if weights.size == 0:
        return math.nan
    shared = algorithm_counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(shared, np.minimum(algorithm_counts, truth_counts) / algorithm_counts, 0.0)
    numerator = ratio @ weights
    denominator = shared.astype(np.float64) @ weights
    defined = denominator != 0
    if not defined.any():
        return math.nan
    average = numerator[defined] / denominator[defined]
    total = weights[defined].sum()
    if total == 0:
        return math.nan
    return float((average * weights[defined]).sum() / total)


def score(clustering: Clustering, algorithm: int = 1, truth: int = 0) -> BCubedScore:
    """Precision, recall and F1 of subset ``algorithm`` against ``truth`` (R: [2,1] and [1,2])."""
    if len(clustering.subsets) <= max(algorithm, truth):
        return BCubedScore(math.nan, math.nan, math.nan)
    membership, weights = _merged(clustering)
    alg = membership[:, clustering.subsets[algorithm]].astype(np.float64)
    gt = membership[:, clustering.subsets[truth]].astype(np.float64)
    alg_counts, gt_counts = alg @ alg.T, gt @ gt.T
    p = _precision(alg_counts, gt_counts, weights)
    r = _precision(gt_counts, alg_counts, weights)
    return BCubedScore(p, r, f1_score(p, r))
