"""The article-body block model: a small gradient-boosted tree ensemble stored as JSON.

``scripts/train_article_model.py`` trains it with scikit-learn on the article benchmark's
training folds and writes ``wps/article_body/block-model.json``; here it is evaluated in plain Python,
so scikit-learn is not needed at run time and no pickle is ever loaded. A page's blocks go down
each tree together (numpy), and the trees' values are summed in their order, so each probability
is the one :meth:`BlockModel.probability` gives for its row alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BlockModel", "load_block_model", "using_block_model", "MODEL_FILE"]

MODEL_FILE = "block-model.json"


@dataclass(slots=True)
class _Tree:
    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    value: list[float]

    def predict(self, row: Sequence[float]) -> float:
        node = 0
        while self.left[node] >= 0:
            node = self.left[node] if row[self.feature[node]] <= self.threshold[node] \
                else self.right[node]
        return self.value[node]


@dataclass(slots=True)
class BlockModel:
    """``probability(row)``: the chance that a block belongs to the article body."""

    features: list[str]
    init: float
    learning_rate: float
    trees: list[_Tree]
    threshold: float
    meta: dict[str, Any]
    _flat: tuple[np.ndarray, ...] | None = field(default=None, repr=False, compare=False)

    def probability(self, row: Sequence[float]) -> float:
        raw = self.init + self.learning_rate * sum(tree.predict(row) for tree in self.trees)
        return 1.0 / (1.0 + math.exp(-raw))

    def probabilities(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """:meth:`probability` of each row: every row goes down every tree at once, one level
        a step, and each row's tree values are added in the trees' order (``cumsum`` adds one
        after the other, as ``sum`` does), so each result is that of the row alone."""
        if not rows or not self.trees:
            return [self.probability(row) for row in rows]
        feature, threshold, left, right, value, roots = self._nodes()
        table = np.asarray(rows, dtype=np.float64)
        row = np.arange(len(table))[:, None]
        node = np.repeat(roots[None, :], len(table), axis=0)
        inner = left[node] >= 0
        while inner.any():
            below = table[row, feature[node]] <= threshold[node]
            node = np.where(inner, np.where(below, left[node], right[node]), node)
            inner = left[node] >= 0
        total = np.cumsum(value[node], axis=1)[:, -1]
        return [1.0 / (1.0 + math.exp(-(self.init + self.learning_rate * raw)))
                for raw in total.tolist()]

    def _nodes(self) -> tuple[np.ndarray, ...]:
        """Every tree's nodes in one set of arrays (children numbered across the trees; a leaf's
        feature is any column) and each tree's root; made on first use."""
        if self._flat is None:
            sizes = [len(tree.left) for tree in self.trees]
            roots = np.cumsum([0, *sizes[:-1]]).astype(np.intp)

            def joined(part: str, shift: bool) -> np.ndarray:
                arrays = [np.asarray(getattr(tree, part)) for tree in self.trees]
                if shift:
                    arrays = [np.where(a >= 0, a + start, a) for a, start in zip(arrays, roots)]
                return np.concatenate(arrays)

            self._flat = (np.maximum(joined("feature", False), 0).astype(np.intp),
                          joined("threshold", False).astype(np.float64),
                          joined("left", True).astype(np.intp),
                          joined("right", True).astype(np.intp),
                          joined("value", False).astype(np.float64), roots)
        return self._flat

    def to_json(self) -> dict[str, Any]:
        return {"features": self.features, "init": self.init,
                "learning_rate": self.learning_rate, "threshold": self.threshold,
                "meta": self.meta,
                "trees": [{"feature": t.feature, "threshold": t.threshold, "left": t.left,
                           "right": t.right, "value": t.value} for t in self.trees]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BlockModel:
        trees = [_Tree(t["feature"], [float(x) for x in t["threshold"]], t["left"], t["right"],
                       [float(x) for x in t["value"]]) for t in data["trees"]]
        return cls(list(data["features"]), float(data["init"]), float(data["learning_rate"]),
                   trees, float(data["threshold"]), dict(data.get("meta", {})))

    @classmethod
    def from_sklearn(cls, model: Any, features: Sequence[str], threshold: float,
                     meta: dict[str, Any] | None = None) -> BlockModel:
        """From a fitted binary ``sklearn.ensemble.GradientBoostingClassifier``."""
        prior = float(model.init_.class_prior_[1])
        trees = []
        for estimator in model.estimators_[:, 0]:
            tree = estimator.tree_
            trees.append(_Tree(tree.feature.tolist(), tree.threshold.tolist(),
                               tree.children_left.tolist(), tree.children_right.tolist(),
                               tree.value[:, 0, 0].tolist()))
        return cls(list(features), math.log(prior / (1 - prior)), float(model.learning_rate),
                   trees, threshold, meta or {})


_override: list[BlockModel] = []


@contextmanager
def using_block_model(model: BlockModel) -> Iterator[BlockModel]:
    """Within the block, the ``article`` extractor uses ``model`` in place of the packaged one
    (the benchmark's held-out folds: each page judged by a model that never saw it)."""
    _override.append(model)
    try:
        yield model
    finally:
        _override.pop()


def load_block_model(path: str | Path | None = None) -> BlockModel:
    """The model at ``path``, or the one :func:`using_block_model` set, or the packaged one."""
    if path is None:
        return _override[-1] if _override else _packaged()
    return BlockModel.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _packaged() -> BlockModel:
    try:
        text = resources.files("wps.article_body").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        from ..errors import InputFileError

        raise InputFileError(f"wps/article_body/{MODEL_FILE} is missing from the installed package "
                             "(the article profile needs it)") from None
    return BlockModel.from_json(json.loads(text))
